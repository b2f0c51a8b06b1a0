#!/usr/bin/env bash
# profile.sh BUILD_DIR fwd|bwd SIZE [WARPS] — Nsight Compute profiles of one
# seed-004 attention kernel, tlc's and Triton's (same kernel text, same size),
# for reading side by side: on the GPU machine, in one call.
#   SIZE as the bench table prints it: Z4H32N4096D128 or Z4H32N4096D128-causal
#   fwd: each side's autotuned config (tlc: a first run records its choice,
#        the profiled run launches only it); bwd: WARPS (default 4), causal.
# Writes to $OUT (default /tmp/tlc-out): {tlc,triton}-WHICH.ncu-rep, the
# details pages as text, both kernels' SASS; prints a few lines of each.
# Clocks are left alone (--clock-control none, METHOD.md).
set -euo pipefail
cd "$(dirname "$0")/.."
build=$1 which=$2 size=$3 warps=${4:-4}
out=${OUT:-/tmp/tlc-out}
mkdir -p "$out"
export TLC_CACHE_DIR=${TLC_CACHE_DIR:-$(mktemp -d)}
read -r Z H N D causal < <(echo "$size" | sed -E 's/^Z([0-9]+)H([0-9]+)N([0-9]+)D([0-9]+)(-causal)?$/\1 \2 \3 \4 \5/')
ncu_opts=(--clock-control none --set full --import-source no)
tag=$which
if [ "$which" = fwd ]; then
  "$build/bin/tlc_bench_tc" --only attn_fwd --size "$size" --reps 3 | grep -E '^BENCH' || true
  ncu "${ncu_opts[@]}" -k regex:_attn_fwd -c 1 -o "$out/tlc-$tag" -f \
    "$build/bin/tlc_bench_tc" --only attn_fwd --size "$size" --reps 1 --warmup 0 >"$out/tlc-$tag.ncu.log" 2>&1 || true
  targs=(fwd "$Z" "$H" "$N" "$D" ${causal:+causal})
else
  tag=bwd-w$warps
  skip=0; [ "$warps" = 8 ] && skip=2   # tlc's w4 row runs first: its check launch, then --reps 1
  ncu "${ncu_opts[@]}" -k regex:'^_attn_bwd$' -s "$skip" -c 1 -o "$out/tlc-$tag" -f \
    "$build/bin/tlc_bench_tc" --only attn_bwd --size "$size" --reps 1 --warmup 0 >"$out/tlc-$tag.ncu.log" 2>&1 || true
  targs=(bwd "$Z" "$H" "$N" "$D" "$warps")
fi
ncu "${ncu_opts[@]}" --nvtx --nvtx-include 'prof/' -k regex:'^_attn_(fwd|bwd)$' -c 1 -o "$out/triton-$tag" -f \
  python3 bench/profile_triton_attn.py "${targs[@]}" --dump "$out" >"$out/triton-$tag.ncu.log" 2>&1 || true
grep -E '^triton' "$out/triton-$tag.ncu.log" || true
for side in tlc triton; do
  rep=$out/$side-$tag.ncu-rep
  [ -f "$rep" ] || { echo "$side: no profile (see $out/$side-$tag.ncu.log)"; tail -5 "$out/$side-$tag.ncu.log"; continue; }
  ncu --import "$rep" --page details >"$out/$side-$tag.details.txt" 2>&1 || true
  ncu --import "$rep" --page raw >"$out/$side-$tag.raw.txt" 2>&1 || true
  echo "== $side $tag"
  grep -E 'Duration|Registers Per|Achieved Occupancy|Compute \(SM\) Throughput|Memory Throughput|L1/TEX Hit|Shared Memory Configuration Size|Dynamic Shared|Issue Slots Busy|No Eligible|Warp Cycles Per Issued' \
    "$out/$side-$tag.details.txt" | head -20 || true
done
