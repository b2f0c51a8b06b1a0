#!/usr/bin/env bash
# latency.sh [BUILD_DIR] [--reps N] [--launches N] — tlc against Triton on
# getting a kernel ready and launching it, in one command on the GPU machine:
# bench/tlc_bench_latency (C, tlc's runtime) then bench/peers_latency.py
# (Triton, the same kernel text and config), then one table.  BUILD_DIR
# (default build-gpu) is relative to the repository root.  Logs: $OUT
# (default /tmp/tlc-out): latency-tlc.log, latency-peers.log,
# latency-table.txt.  LATENCY_PEERS=0 leaves Triton's side out.  Exit 0 only if tlc's side ran, no warm start
# compiled, and every warm matmul start loaded its cubin from the disk cache
# (no PTX JIT; the attention forward, which moves registers, goes through the
# driver's JIT at every start, from the driver's own cache when warm).
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-gpu
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then build=$1; shift; fi
out=${OUT:-/tmp/tlc-out}
mkdir -p "$out"
tlc_rc=0 peers_rc=0
timeout "${LATENCY_TLC_TIMEOUT:-200}" "$build/bin/tlc_bench_latency" "$@" >"$out/latency-tlc.log" 2>&1 || tlc_rc=$?
if [ "${LATENCY_PEERS:-1}" = 0 ]; then
  echo "SKIP: LATENCY_PEERS=0" >"$out/latency-peers.log"
elif command -v python3 >/dev/null && python3 -c 'import triton, torch' 2>/dev/null; then
  timeout "${LATENCY_PEERS_TIMEOUT:-300}" python3 bench/peers_latency.py "$@" >"$out/latency-peers.log" 2>&1 || peers_rc=$?
else
  echo "SKIP: Triton or torch is not importable" >"$out/latency-peers.log"
fi
awk -v tlc_rc="$tlc_rc" -v peers_rc="$peers_rc" '
function kv(line, arr,   n, i, f, p) {
  delete arr
  n = split(line, f, " ")
  for (i = 2; i <= n; i++) { p = index(f[i], "="); if (p) arr[substr(f[i], 1, p - 1)] = substr(f[i], p + 1) }
}
/^DEVICE / { dev = $0 }
/^LATENCY / { kv($0, a); w = a["what"]
  if (w == "cold") { t_cold = a["total_ms"] + a["first_launch_ms"]; t_compile = a["compile_ms"]; t_link = a["link_ms"] }
  if (w == "warm_ws") { ws_cold = a["cold_ms"]; ws_compile = a["compile_ms"]; ws_jit = a["jit_ms"]; ws_load = a["load_ms"]; ws_bad = a["compiled"]; ws_moves = a["setmaxnreg"] }
  if (w == "warm") { t_warm = a["load_ms"] + a["first_launch_ms"]; t_load = a["load_ms"]; t_bad = a["compiled_or_jit"]; t_n = a["processes"] }
  own = (a["stream"] == "own")
  if (w == "launch" && !own) t_launch[a["kernel"]] = a["median_us"] " (mean " a["mean_us"] ")"
  if (w == "launch" && own && ("median_us" in a)) t_launch_own = a["median_us"] " (mean " a["mean_us"] ")"
  if (w == "driver" && !own && ("median_us" in a)) t_driver = a["median_us"] " (mean " a["mean_us"] ")"
  if (w == "driver" && own && ("median_us" in a)) t_driver_own = a["median_us"] " (mean " a["mean_us"] ")" }
/^PEERS / { kv($0, a); w = a["what"]
  if (w == "cold") p_cold = a["first_call_ms"]
  if (w == "warm") p_warm = a["first_call_ms"]
  if (w == "launch") p_launch[a["kernel"]] = a["median_us"] " (mean " a["mean_us"] ")" }
END {
  print "tlc vs Triton: a kernel ready and launched (fp16 matmul 1024^3, 128x128x64/g8/w4/s4; attention rows: seed 004 forward; CUDA init excluded)"
  if (dev != "") print dev
  printf "%-46s %26s %26s\n", "what", "tlc", "Triton"
  printf "%-46s %26s %26s\n", "first launch, empty caches (ms)", t_cold == "" ? "-" : sprintf("%.2f", t_cold), p_cold == "" ? "-" : p_cold
  printf "%-46s %26s %26s\n", "  of which compile / driver JIT (ms)", t_compile == "" ? "-" : t_compile " / " t_link, "-"
  printf "%-46s %26s %26s\n", "first launch, warm disk cache, new process (ms)", t_warm == "" ? "-" : sprintf("%.3f", t_warm), p_warm == "" ? "-" : p_warm
  printf "%-46s %26s %26s\n", "  to a loaded kernel (ms)", t_load == "" ? "-" : t_load, "-"
  printf "%-46s %26s %26s\n", "attention fwd D64 (setmaxnreg), empty caches (ms)", ws_cold == "" ? "-" : ws_cold, "-"
  printf "%-46s %26s %26s\n", "  of which compile / driver JIT (ms)", ws_compile == "" ? "-" : ws_compile " / " ws_jit, "-"
  printf "%-46s %26s %26s\n", "  warm, new process, to a loaded kernel (ms)", ws_load == "" ? "-" : ws_load, "-"
  printf "%-46s %26s %26s\n", "host time per launch, matmul (us)", ("matmul" in t_launch) ? t_launch["matmul"] : "-", ("matmul" in p_launch) ? p_launch["matmul"] : "-"
  printf "%-46s %26s %26s\n", "host time per launch, vector add (us)", ("vector_add" in t_launch) ? t_launch["vector_add"] : "-", "-"
  printf "%-46s %26s %26s\n", "  cuLaunchKernel alone, vector add (us)", t_driver == "" ? "-" : t_driver, "-"
  printf "%-46s %26s %26s\n", "host time per launch, own stream, vector add", t_launch_own == "" ? "-" : t_launch_own, "-"
  printf "%-46s %26s %26s\n", "  cuLaunchKernel alone, own stream (us)", t_driver_own == "" ? "-" : t_driver_own, "-"
  if (ws_load != "") printf "attention warm starts that compiled: %s of %s (setmaxnreg kept: %s; its PTX goes through the driver JIT at each start)\n", ws_bad, t_n, ws_moves
  printf "warm starts that compiled or ran the JIT: %s of %s; tlc_bench_latency exit %d, peers_latency.py exit %d\n", t_bad == "" ? "?" : t_bad, t_n == "" ? "?" : t_n, tlc_rc, peers_rc
}' "$out/latency-tlc.log" "$out/latency-peers.log" | tee "$out/latency-table.txt"
[ "$tlc_rc" = 0 ]
