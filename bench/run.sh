#!/usr/bin/env bash
# run.sh [BUILD_DIR] [--quick|--smoke] [--tc-only] [--seed N] — tlc against Triton and
# torch on this machine's GPU, in one command: bench/tlc_bench (tlc's
# kernels through its runtime) then bench/peers.py (Triton kernels written
# with the algorithms of Triton's tutorials 01 and 02, and torch), then one
# table with the ratios; then the same for the tensor-core kernels
# (bench/tlc_bench_tc beside bench/peers_tc.py: matmul and fused attention in
# TFLOP/s against Triton running the same kernel text, cuBLAS and SDPA).  Run from anywhere; BUILD_DIR (default build-gpu)
# is relative to the repository root.  Logs: $OUT (default /tmp/tlc-out):
# bench-tlc.log, bench-peers.log, bench-table.txt.  Exit status 0 only if
# both sides ran and every tlc result passed its check.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-gpu
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  build=$1
  shift
fi
# --tc-only: only the tensor-core half (a full run of both halves takes
# longer than one device call allows); TC_TLC_TIMEOUT / TC_PEERS_TIMEOUT
# (seconds, default 400 / 600) bound its two programs.  The attention rows
# of seeds 000 and 001 run only when --only names them (--only attn000,
# --only flash001, --only flash001_bwd, ...; --only attn is seed 004's
# table), each family in a call of its own (attn000_fwd and attn000_bwd in
# two where a call has less time: both sides autotune every forward), e.g.
#   TC_TLC_TIMEOUT=270 TC_PEERS_TIMEOUT=300 bash bench/run.sh build-gpu --tc-only --only flash001
tc_only=0
args=()
for a in "$@"; do
  if [ "$a" = --tc-only ]; then tc_only=1; else args+=("$a"); fi
done
set -- "${args[@]+"${args[@]}"}"
out=${OUT:-/tmp/tlc-out}
mkdir -p "$out"
tlc_log=$out/bench-tlc.log
peers_log=$out/bench-peers.log
table=$out/bench-table.txt

tlc_rc=0 peers_rc=0
if [ "$tc_only" = 0 ]; then
if [ -x "$build/bin/tlc_bench" ]; then
  timeout 300 "$build/bin/tlc_bench" "$@" >"$tlc_log" 2>&1 || tlc_rc=$?
else
  echo "run.sh: $build/bin/tlc_bench is missing (build first)" | tee "$tlc_log"
  tlc_rc=127
fi
grep -E '^(BENCH|SKIP|FATAL|SUMMARY)' "$tlc_log" || true

if command -v python3 >/dev/null; then
  timeout 300 python3 bench/peers.py "$@" >"$peers_log" 2>&1 || peers_rc=$?
else
  echo "run.sh: python3 not found" | tee "$peers_log"
  peers_rc=127
fi
grep -E '^(BENCH|PEERS|SKIP)' "$peers_log" || true

# Join on (name, size): tlc's best passing configuration against the peers.
awk -v tlc_rc="$tlc_rc" -v peers_rc="$peers_rc" '
function kv(line, arr,   n, i, f, p) {
  delete arr
  n = split(line, f, " ")
  for (i = 2; i <= n; i++) { p = index(f[i], "="); if (p) arr[substr(f[i], 1, p - 1)] = substr(f[i], p + 1) }
}
{ file = (FILENAME == ARGV[1]) ? 1 : 2 }
/^BENCH / {
  kv($0, a)
  key = a["name"] SUBSEP a["size"]
  if (!(key in seen)) { seen[key] = 1; order[++nk] = key; nm[key] = a["name"]; sz[key] = a["size"] }
  if (file == 1) {
    st = a["status"]
    if (st != "PASS") { bad[key] = bad[key] (bad[key] ? "," : "") st "(w" a["num_warps"] ")" ; next }
    if (a["tlc_gbps"] + 0 > best[key] + 0) { best[key] = a["tlc_gbps"]; warps[key] = a["num_warps"] }
  } else {
    tri[key] = a["triton_gbps"]; tor[key] = a["torch_gbps"]; pst[key] = a["status"]
  }
}
function ratio(x, y) { return (x + 0 > 0 && y + 0 > 0) ? sprintf("%.2f", x / y) : "-" }
END {
  printf "tlc vs Triton vs torch (GB/s = bytes read + written / median time; tlc: best num_warps)\n"
  printf "%-11s %-12s %10s %6s %12s %11s %10s %9s  %s\n", "kernel", "size", "tlc GB/s", "warps", "Triton GB/s", "torch GB/s", "tlc/Triton", "tlc/torch", "check"
  for (i = 1; i <= nk; i++) {
    k = order[i]
    t = (k in best) ? best[k] : "-"
    chk = (k in best) ? "PASS" : "-"
    if (k in bad) chk = (k in best) ? "PASS, " bad[k] : bad[k]
    if (k in pst && pst[k] != "PASS") chk = chk " peers:" pst[k]
    printf "%-11s %-12s %10s %6s %12s %11s %10s %9s  %s\n", nm[k], sz[k], t, (k in warps) ? warps[k] : "-", \
      (k in tri) ? tri[k] : "-", (k in tor) ? tor[k] : "-", ratio(t, tri[k]), ratio(t, tor[k]), chk
  }
  if (nk == 0) print "(no BENCH lines: see the logs)"
  printf "tlc_bench exit %s, peers.py exit %s\n", tlc_rc, peers_rc
}' "$tlc_log" "$peers_log" >"$table"
echo
cat "$table"
fi

# ---- the card's state while a program runs (read only: clocks, power, temperature) -----
# The same kernel's time moves by several percent between runs and calls
# with the SM clock the card holds under load; the table's last lines say
# what it held while each side ran, so that a ratio can be read with it.
sampler=
clocks_start() { # FILE: sample every 200 ms until clocks_stop
  sampler=
  command -v nvidia-smi >/dev/null || return 0
  nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader,nounits -lms 200 >"$1" 2>/dev/null &
  sampler=$!
}
clocks_stop() { # FILE LABEL: one line, SM clock min / median / max, power and temperature at most
  [ -n "$sampler" ] || return 0
  kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null || true
  sort -t, -k1,1n "$1" | awk -F', *' -v l="$2" '$1 + 0 > 0 { c[++n] = $1; if ($2 > p) p = $2; if ($3 > t) t = $3 }
    END { if (n) printf "GPU during %s: SM clock %d / %d / %d MHz (min / median / max of %d samples), power up to %.0f W, up to %d C\n", l, c[1], c[int((n + 1) / 2)], c[n], n, p, t }'
}

# ---- tensor cores: matmul and fused attention, in TFLOP/s ------------------------------
tc_log=$out/bench-tc-tlc.log
tcp_log=$out/bench-tc-peers.log
tc_table=$out/bench-tc-table.txt
tc_rc=0
clocks_start "$out/clocks-tc-tlc.csv"
if [ -x "$build/bin/tlc_bench_tc" ]; then
  timeout "${TC_TLC_TIMEOUT:-400}" "$build/bin/tlc_bench_tc" "$@" >"$tc_log" 2>&1 || tc_rc=$?
else
  echo "run.sh: $build/bin/tlc_bench_tc is missing (build first)" | tee "$tc_log"
  tc_rc=127
fi
clocks_tlc=$(clocks_stop "$out/clocks-tc-tlc.csv" tlc_bench_tc)
grep -E '^(BENCH|SKIP|FATAL|SUMMARY)' "$tc_log" || true
tcp_rc=0
clocks_start "$out/clocks-tc-peers.csv"
if command -v python3 >/dev/null; then
  timeout "${TC_PEERS_TIMEOUT:-600}" python3 bench/peers_tc.py "$@" >"$tcp_log" 2>&1 || tcp_rc=$?
else
  tcp_rc=127
fi
clocks_peers=$(clocks_stop "$out/clocks-tc-peers.csv" peers_tc.py)
grep -E '^(BENCH|PEERS|SKIP)' "$tcp_log" || true
awk -v tlc_rc="$tc_rc" -v peers_rc="$tcp_rc" '
function kv(line, arr,   n, i, f, p) {
  delete arr
  n = split(line, f, " ")
  for (i = 2; i <= n; i++) { p = index(f[i], "="); if (p) arr[substr(f[i], 1, p - 1)] = substr(f[i], p + 1) }
}
function col(k, c) { return (k SUBSEP c in peer) ? peer[k, c] : "-" }
function ratio(x, y) { return (x + 0 > 0 && y + 0 > 0) ? sprintf("%.2f", x / y) : "-" }
{ file = (FILENAME == ARGV[1]) ? 1 : 2 }
/^BENCH / {
  kv($0, a)
  key = a["name"] " " a["size"]
  if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
  if (file == 1) {
    if (a["status"] != "PASS") { bad[key] = bad[key] (bad[key] ? "," : "") a["status"] "(" a["config"] ")"; next }
    if (a["tlc_tflops"] + 0 > best[key] + 0) { best[key] = a["tlc_tflops"]; cfg[key] = a["config"] }
  } else {
    for (c in a) peer[key, c] = a[c]
  }
}
END {
  printf "tlc vs Triton (same kernel text) vs cuBLAS / SDPA, TFLOP/s (tlc: best passing config)\n"
  printf "(FA3-pub: published FlashAttention-3 figures, quoted, not run here; tlc/best-lib: against cuBLAS for matmul, SDPA-cuDNN for attention)\n"
  printf "%-22s %-22s %8s %-22s %8s %8s %8s %8s %8s %10s %12s  %s\n", "kernel", "size", "tlc", "tlc config", "Triton", "cuBLAS", "SDPA-fa", "SDPA-cd", "FA3-pub", "tlc/Triton", "tlc/best-lib", "check"
  for (i = 1; i <= nk; i++) {
    k = order[i]; split(k, ks, " ")
    t = (k in best) ? best[k] : "-"
    chk = (k in best) ? "PASS" : "-"
    if (k in bad) chk = (k in best) ? "PASS, " bad[k] : bad[k]
    if (col(k, "status") != "-" && col(k, "status") != "PASS") chk = chk " peers:" col(k, "status")
    lib = col(k, "cublas_tflops") != "-" ? col(k, "cublas_tflops") : col(k, "sdpa_cudnn_tflops")
    printf "%-22s %-22s %8s %-22s %8s %8s %8s %8s %8s %10s %12s  %s\n", ks[1], ks[2], t, (k in cfg) ? cfg[k] : "-", \
      col(k, "triton_tflops"), col(k, "cublas_tflops"), col(k, "sdpa_flash_tflops"), col(k, "sdpa_cudnn_tflops"), \
      col(k, "fa3_published_tflops"), ratio(t, col(k, "triton_tflops")), ratio(t, lib), chk
  }
  printf "tlc_bench_tc exit %s, peers_tc.py exit %s\n", tlc_rc, peers_rc
}' "$tc_log" "$tcp_log" >"$tc_table"
for l in "$clocks_tlc" "$clocks_peers"; do [ -z "$l" ] || echo "$l" >>"$tc_table"; done
echo
cat "$tc_table"
[ "$tlc_rc" = 0 ] && [ "$peers_rc" = 0 ] && [ "$tc_rc" = 0 ] && [ "$tcp_rc" = 0 ]
