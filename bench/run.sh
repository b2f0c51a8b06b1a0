#!/usr/bin/env bash
# run.sh [BUILD_DIR] [--quick|--smoke] [--seed N] — tlc against Triton and
# torch on this machine's GPU, in one command: bench/tlc_bench (tlc's
# kernels through its runtime) then bench/peers.py (Triton kernels written
# with the algorithms of Triton's tutorials 01 and 02, and torch), then one
# table with the ratios.  Run from anywhere; BUILD_DIR (default build-gpu)
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
out=${OUT:-/tmp/tlc-out}
mkdir -p "$out"
tlc_log=$out/bench-tlc.log
peers_log=$out/bench-peers.log
table=$out/bench-table.txt

tlc_rc=0
if [ -x "$build/bin/tlc_bench" ]; then
  timeout 300 "$build/bin/tlc_bench" "$@" >"$tlc_log" 2>&1 || tlc_rc=$?
else
  echo "run.sh: $build/bin/tlc_bench is missing (build first)" | tee "$tlc_log"
  tlc_rc=127
fi
grep -E '^(BENCH|SKIP|FATAL|SUMMARY)' "$tlc_log" || true

peers_rc=0
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
[ "$tlc_rc" = 0 ] && [ "$peers_rc" = 0 ]
