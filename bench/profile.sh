#!/usr/bin/env bash
# profile.sh BUILD_DIR fwd|bwd SIZE [WARPS] — Nsight Compute profiles of one
# seed-004 attention kernel, tlc's and Triton's (same kernel text, same size),
# for reading side by side: on the GPU machine, in one call.
#   SIZE as the bench table prints it: Z4H32N4096D128 or Z4H32N4096D128-causal
#   fwd: each side's autotuned config (tlc: a first run records its choice,
#        the profiled run launches only it); bwd: WARPS (default 4), causal.
# Writes to $OUT (default /tmp/tlc-out): {tlc,PEER}-WHICH.ncu-rep, the
# details and raw pages as text, each kernel's source page (SASS with its
# stall samples per instruction, CSV); prints a few lines of each.
# PROFILE_PEER: triton (default: the same text, bench/profile_triton_attn.py,
# which also dumps its ttgir, llir and ptx), cudnn or flash (torch's SDPA
# backend, bench/profile_sdpa.py: every kernel of the call, at most 4;
# PROFILE_RAW=0 leaves the raw pages out).
# PROFILE_FWD_CONFIG=BM,BN,WARPS,STAGES: tlc's forward on that config
# instead of its autotuned one.
# Clocks are left alone (--clock-control none, METHOD.md).
set -euo pipefail
cd "$(dirname "$0")/.."
build=$1 which=$2 size=$3 warps=${4:-4}
out=${OUT:-/tmp/tlc-out}
mkdir -p "$out"
export TLC_CACHE_DIR=${TLC_CACHE_DIR:-$(mktemp -d)}
read -r Z H N D causal < <(echo "$size" | sed -E 's/^Z([0-9]+)H([0-9]+)N([0-9]+)D([0-9]+)(-causal)?$/\1 \2 \3 \4 \5/')
ncu_opts=(--clock-control none --set full --import-source no)
tag=$which peer=${PROFILE_PEER:-triton}
case $peer in triton|cudnn|flash) ;; *) echo "profile.sh: PROFILE_PEER is triton, cudnn or flash" >&2; exit 2 ;; esac
if [ "$which" = fwd ]; then
  cfg=(); [ -n "${PROFILE_FWD_CONFIG:-}" ] && cfg=(--fwd-config "$PROFILE_FWD_CONFIG")
  "$build/bin/tlc_bench_tc" --only attn_fwd --size "$size" --reps 3 "${cfg[@]}" | grep -E '^BENCH' || true
  ncu "${ncu_opts[@]}" -k regex:_attn_fwd -c 1 -o "$out/tlc-$tag" -f \
    "$build/bin/tlc_bench_tc" --only attn_fwd --size "$size" --reps 1 --warmup 0 "${cfg[@]}" >"$out/tlc-$tag.ncu.log" 2>&1 || true
  targs=(fwd "$Z" "$H" "$N" "$D" ${causal:+causal})
else
  tag=bwd-w$warps
  skip=0; [ "$warps" = 8 ] && skip=2   # tlc's w4 row runs first: its check launch, then --reps 1
  ncu "${ncu_opts[@]}" -k regex:'^_attn_bwd$' -s "$skip" -c 1 -o "$out/tlc-$tag" -f \
    "$build/bin/tlc_bench_tc" --only attn_bwd --size "$size" --reps 1 --warmup 0 >"$out/tlc-$tag.ncu.log" 2>&1 || true
  targs=(bwd "$Z" "$H" "$N" "$D" "$warps")
fi
if [ "$peer" = triton ]; then
  ncu "${ncu_opts[@]}" --nvtx --nvtx-include 'prof/' -k regex:'^_attn_(fwd|bwd)$' -c 1 -o "$out/triton-$tag" -f \
    python3 bench/profile_triton_attn.py "${targs[@]}" --dump "$out" >"$out/triton-$tag.ncu.log" 2>&1 || true
  grep -E '^triton' "$out/triton-$tag.ncu.log" || true
else
  sargs=("$which" "$Z" "$H" "$N" "$D"); [ "$which" = fwd ] && [ -n "$causal" ] && sargs+=(causal)
  ncu "${ncu_opts[@]}" --profile-from-start off -c 4 -o "$out/$peer-$tag" -f \
    python3 bench/profile_sdpa.py "${sargs[@]}" --backend "$peer" >"$out/$peer-$tag.ncu.log" 2>&1 || true
  grep -E '^sdpa' "$out/$peer-$tag.ncu.log" || true
fi
for side in tlc "$peer"; do
  rep=$out/$side-$tag.ncu-rep
  [ -f "$rep" ] || { echo "$side: no profile (see $out/$side-$tag.ncu.log)"; tail -5 "$out/$side-$tag.ncu.log"; continue; }
  ncu --import "$rep" --page details >"$out/$side-$tag.details.txt" 2>&1 || true
  [ "${PROFILE_RAW:-1}" = 0 ] || ncu --import "$rep" --page raw >"$out/$side-$tag.raw.txt" 2>&1 || true
  ncu --import "$rep" --page source --print-source sass --csv >"$out/$side-$tag.source.csv" 2>&1 || true
  echo "== $side $tag"
  grep -E 'Duration|Registers Per|Achieved Occupancy|Compute \(SM\) Throughput|Memory Throughput|L1/TEX Hit|Shared Memory Configuration Size|Dynamic Shared|Issue Slots Busy|No Eligible|Warp Cycles Per Issued' \
    "$out/$side-$tag.details.txt" | head -20 || true
done
