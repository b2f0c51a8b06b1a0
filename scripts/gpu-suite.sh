#!/usr/bin/env bash
# gpu-suite.sh [BUILD_DIR] [--quick] — everything the GPU machine runs, in
# one call, from a carried, already-built build folder (default build-gpu;
# see scripts/build-gpu.sh):
#
#   1. ctest -L gpu (the examples and the GPU tests), fresh compile cache
#   2. compute-sanitizer (memcheck, racecheck, synccheck) over a few small
#      cases of the asynchronous paths; then every example program
#      (build/bin/ex_*) once more, directly, with new random seeds and the
#      now warm cache; their RESULT lines collected
#   2d. the interpreter against the GPU: every example program at the CPU
#      device's sizes with one seed, on the GPU and with TLC_DEVICE=cpu, the
#      outputs compared case by case (tests/gpu/interp_vs_gpu.py's VERDICT)
#   2c. where Triton is importable: tlc's random numbers against Triton's
#      with TLC_MATH_LIB=libdevice (Triton's own libdevice file), every
#      value bit for bit, normals included (random_vs_triton.py's VERDICT);
#      the math functions the same way, every function within 2 ulp
#      (math_vs_triton.py's VERDICT)
#   2e. bench/latency.sh: a kernel ready and launched, tlc beside Triton
#      (first launch from empty caches, warm start in new processes, host
#      time per launch)
#   3. the benchmark, bench/run.sh (tlc vs Triton vs torch)
#
# and prints last two short tables: the examples (kernel | size | max rel
# err over both runs | time | status) and the benchmark.  Full logs go to
# $OUT (default /tmp/tlc-out), packed at the end into $OUT/logs.tar.gz
# beside the tables.  Stays inside $SUITE_SECONDS (default 480)
# by cutting each step's time limit.  Exit status 0 only if every step
# passed.  --quick: the benchmark's acceptance sizes only; --smoke: tiny
# benchmark sizes (checks the harness, measures nothing).  SUITE_STEPS (a
# comma list of ctest, sanitize, examples, interp, triton, latency, bench; default
# all) runs only those steps, for a call with little device time left (a
# step keeps back time only for the later steps that run); the last line
# names the steps left out.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-gpu
bench_args=()
for a in "$@"; do
  case "$a" in
    --quick|--smoke) bench_args+=("$a") ;;
    -*) echo "gpu-suite: unknown option $a" >&2; exit 2 ;;
    *) build=$a ;;
  esac
done
out=${OUT:-/tmp/tlc-out}
mkdir -p "$out"
export OUT=$out
budget=${SUITE_SECONDS:-480}
deadline=$((SECONDS + budget))
left() { echo $((deadline - SECONDS)); }
cap() { # cap WANT RESERVE: WANT seconds, or what is left after RESERVE
  local l=$(($(left) - $2))
  if [ "$l" -lt "$1" ]; then echo "$l"; else echo "$1"; fi
}
note() { echo "[gpu-suite $(date +%H:%M:%S) +${SECONDS}s] $*"; }
steps=${SUITE_STEPS:-ctest,sanitize,examples,interp,triton,latency,bench}
skipped=""
wanted() { # wanted STEP: is STEP in SUITE_STEPS? (no note)
  case ",$steps," in *",$1,"*) return 0 ;; esac
  return 1
}
after() { # after RESERVE STEP...: RESERVE seconds when one of the later
  # steps named runs, else 10 (packing the logs): a call that runs only
  # the first steps gives them its whole budget
  local r=$1 s
  shift
  for s in "$@"; do wanted "$s" && { echo "$r"; return; }; done
  echo 10
}
want() { # want STEP: is STEP in SUITE_STEPS? (else noted as left out)
  case ",$steps," in *",$1,"*) return 0 ;; esac
  skipped="$skipped $1"
  note "step $1 left out (SUITE_STEPS=$steps)"
  return 1
}

if [ ! -d "$build/bin" ]; then
  echo "gpu-suite: no build folder '$build' (build it with scripts/build-gpu.sh and carry it)" >&2
  exit 2
fi
results=$out/results.txt
: >"$results"
status_ctest=0 status_examples=0 status_bench=0 status_random=0

note "repo $(pwd), build $build, logs $out, budget ${budget}s"
{
  echo "== host"; uname -a; echo "pwd: $(pwd)"
  echo "== GPU (read-only query)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,utilization.gpu --format=csv 2>&1 || true
  echo "== ptxas"; command -v ptxas && ptxas --version 2>&1 | tail -1 || true
  echo "== build"; ls -la "$build/bin" "$build/lib" 2>&1 || true
} >"$out/env.log" 2>&1
grep -A1 '^name' "$out/env.log" | tail -1 | sed 's/^/GPU: /' || true

# A fresh compile cache for this suite: step 1 compiles everything from
# source (the cold path), step 2 finds it cached (the warm path).
# (Outside $OUT: the device tool returns only a limited number of files.)
export TLC_CACHE_DIR=${TMPDIR:-/tmp}/tlc-suite-cache
rm -rf "$TLC_CACHE_DIR"
mkdir -p "$TLC_CACHE_DIR"

# ---- 1. ctest -L gpu -------------------------------------------------------------
t=$(cap 300 "$(after 200 sanitize examples interp triton latency bench)")
if ! want ctest; then :
elif [ "$t" -gt 10 ]; then
  note "ctest -L gpu (limit ${t}s)"
  # (SUITE_CTEST_JOBS at once: correctness only, the timings are step 3's)
  timeout "$t" ctest --test-dir "$build" -L gpu -j "${SUITE_CTEST_JOBS:-3}" --output-on-failure --timeout 180 \
    >"$out/ctest-gpu.log" 2>&1 || status_ctest=$?
  cp "$build/Testing/Temporary/LastTest.log" "$out/ctest-LastTest.log" 2>/dev/null || true
  grep -E '^[0-9]+% tests passed|tests failed|Not Run|\*\*\*|Failed|Skipped' "$out/ctest-gpu.log" | tail -15 || true
  if grep -q 'No tests were found' "$out/ctest-gpu.log"; then
    note "ctest found no gpu tests in $build"
    status_ctest=1
  fi
  grep -h '^RESULT ' "$out/ctest-LastTest.log" 2>/dev/null | sed 's/^/ctest /' >>"$results" || true
else
  note "ctest skipped: no time left"
  status_ctest=124
fi

# ---- 2. compute-sanitizer over small cases of the async paths --------------------------
# (before the direct runs: with the GPU tests grown, the sanitizers were the
# step the suite's time ran out on)
# memcheck, racecheck and synccheck on a few small cases that go through
# cp.async rings, TMA rings with mbarriers, asynchronous wgmma, TMA stores
# and mma.sync (--only picks them; one launch each): a tool's error summary
# other than 0 errors fails the suite.
status_sanitize=0
if ! want sanitize; then :
elif command -v compute-sanitizer >/dev/null 2>&1; then
  # (attention first: its TMA rings, mbarrier waits and early async dots
  # (dot-ahead) are the most involved; the cases after it are the first to
  # go when the suite's time runs out)
  # (a case's third word: ws runs it with TLC_WARP_SPECIALIZE=1, every loop
  # specialized; auto as the compiler decides by default; none: off)
  sanitize_cases=(
    "ex_attention Z1H2N256D64c/"     # seed 004: 4-D TMA rings, dot-ahead, chained wgmma (p as register A), fwd and bwd
    "ex_attention Z1H2N256D64c/ ws"  # the same, warp-specialized (TLC_WARP_SPECIALIZE=1): producer warp, empty-slot mbarriers, named barriers, setmaxnreg; the backward's four rings in two groups sharing bytes (a drain barrier), slots handed back one late
    "ex_attention Z1H2N256D64c/b128x64 auto" # as auto compiles it: the forward on two consumer warpgroups and the producer at 2 CTAs an SM (setmaxnreg 24/104, the PTX loaded with cuModuleLoadDataEx)
    "ex_attention D128/b128x64/w4 auto" # consumer-warpgroups: the forward on two consumer warpgroups beside the producer (12 warps), rings of 3 and 4 slots
    "ex_attention Z1H2N384D128c/"    # the backward at head dim 128 on 4 warps, split for registers (8 warps, no producer)
    "ex_attention /s2 auto"          # 2-stage forwards: rings of 2 slots the producer refills (one stage announced before the loop)
    "ex_attention /w4/s4 auto"       # rings of 4 slots; the causal forwards' two rings sharing bytes, a drain barrier between the loops
    "ex_attention_000 B2H2N384D128"  # seed 000: its dK/dV kernel split (128-row KV blocks)
    "ex_attention_000 B1H3N200D64c auto" # seed 000's forward, every 4-warp block shape: K^T (transposed) and V by TMA, zero fill past seq_len
    "ex_matmul_forms 333x272 ws"     # matmul warp-specialized: one wgmma in flight across the back edge, slots handed back one late
    "ex_flash_003 n100d64"           # attention: chained mma.sync dots
    "ex_matmul_forms 333x272"        # ptr: cp.async + wgmma; block_ptr: TMA + wgmma + TMA store
    "ex_matmul_forms 100x96"         # fp8 mma.sync + cp.async
    "ex_matmul_persistent 777x528"   # persistent: rings re-made per tile
    "ex_grouped_matmul 200x333x45"   # loads left in registers (odd strides): two stagings side by side share their barriers (sink-stagings)
  )
  for c in "${sanitize_cases[@]}"; do
    set -- $c
    exe=$build/bin/$1
    [ -x "$exe" ] || continue
    case "${3:-}" in ws) ws=1 ;; auto) ws= ;; *) ws=0 ;; esac # TLC_WARP_SPECIALIZE: on, unset (auto), off
    for tool in memcheck racecheck synccheck; do
      t=$(cap 60 "$(after 120 examples interp triton latency bench)")
      if [ "$t" -le 5 ]; then note "sanitize $1 $2 ${3:-} $tool skipped: no time left"; status_sanitize=124; continue; fi
      log="$out/sanitize-$1-$(printf %s "$2" | tr -c 'A-Za-z0-9' _)${3:+-${3:-}}-$tool.log" # one per case
      rc=0
      env -u TLC_WARP_SPECIALIZE ${ws:+TLC_WARP_SPECIALIZE=$ws} timeout "$t" compute-sanitizer --tool "$tool" --error-exitcode 99 "$exe" \
        --only "$2" --reps 1 --warmup 0 >"$log" 2>&1 || rc=$?
      summary=$(grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" || echo "no summary")
      note "sanitize $1 --only $2${3:+ ($3)} $tool: exit $rc; $summary"
      [ "$rc" = 0 ] || status_sanitize=1
    done
  done
else
  note "compute-sanitizer not found: sanitizer step skipped"
fi

# ---- 2b. the example programs, directly -------------------------------------------------
ran=0
want examples && exes=("$build"/bin/ex_*) || exes=()
for exe in "${exes[@]}"; do
  [ -x "$exe" ] || continue
  name=$(basename "$exe")
  [ "$name" = ex_selftest ] && continue
  # (ctest ran the same program a moment ago: once it passed there, its
  # RESULT lines are in the table already and a second run only costs time)
  if grep -Eq "Test +#[0-9]+: examples\.${name#ex_} \.+ +Passed" "$out/ctest-gpu.log" 2>/dev/null &&
     grep -q "^ctest RESULT kernel=" "$results"; then
    note "$name: passed in ctest, not run again"
    ran=$((ran + 1))
    continue
  fi
  t=$(cap 90 "$(after 150 interp triton latency bench)")
  if [ "$t" -le 5 ]; then
    note "$name skipped: no time left"
    echo "RESULT kernel=$name size=- rel_err=nan max_abs=nan tol=- unwritten=- oob=- stable=- time_us=nan gbps=nan status=NOT_RUN seed=0" | sed 's/^/direct /' >>"$results"
    status_examples=1
    continue
  fi
  rc=0
  timeout "$t" "$exe" >"$out/$name.log" 2>&1 || rc=$?
  ran=$((ran + 1))
  n_pass=$(grep -c '^RESULT .*status=PASS' "$out/$name.log" || true)
  n_all=$(grep -c '^RESULT ' "$out/$name.log" || true)
  case $rc in
    0) note "$name: $n_pass/$n_all passed" ;;
    77) note "$name: SKIPPED ($(grep -m1 '^SKIP' "$out/$name.log" || echo 'no reason given')) — no GPU seen"; status_examples=1 ;;
    124) note "$name: TIMED OUT after ${t}s ($n_pass/$n_all passed before)"; status_examples=1 ;;
    *) note "$name: exit $rc, $n_pass/$n_all passed"; status_examples=1 ;;
  esac
  grep -h '^RESULT ' "$out/$name.log" | sed 's/^/direct /' >>"$results" || true
done
[ "$ran" -gt 0 ] || [ ${#exes[@]} = 0 ] || { note "no example programs in $build/bin"; status_examples=1; }

# ---- 2d. the interpreter against the GPU ------------------------------------------------
# Every example program twice with one seed at the CPU device's sizes
# (TLC_EXAMPLES_SMALL=1 on the GPU: the same cases, the same inputs): on the
# GPU, and on the CPU device (TLC_DEVICE=cpu, the programs in parallel),
# each case's output dumped (TLC_EXAMPLES_DUMP) and compared by
# tests/gpu/interp_vs_gpu.py: bit for bit, or within the example's tolerance
# where a reduction or dot adds in another order.  About 20 s of CPU time.
status_interp=0
idir=${TMPDIR:-/tmp}/tlc-suite-interp
rm -rf "$idir" && mkdir -p "$idir/cpu" "$idir/gpu"
t=$(cap 120 "$(after 60 triton latency bench)")
if ! want interp; then :
elif [ "$t" -gt 20 ]; then
  note "interpreter vs GPU (limit ${t}s)"
  pids=()
  for exe in "$build"/bin/ex_*; do
    name=$(basename "$exe")
    [ -x "$exe" ] && [ "$name" != ex_selftest ] || continue
    TLC_DEVICE=cpu TLC_EXAMPLES_DUMP=$idir/cpu timeout "$t" "$exe" --seed 4242 >"$out/interp-cpu-$name.log" 2>&1 &
    pids+=($!)
    rc=0
    TLC_EXAMPLES_SMALL=1 TLC_EXAMPLES_DUMP=$idir/gpu timeout "$t" "$exe" --seed 4242 --reps 1 --warmup 0 \
      >"$out/interp-gpu-$name.log" 2>&1 || rc=$?
    [ "$rc" = 0 ] || { note "interpreter vs GPU: $name on the GPU: exit $rc"; status_interp=1; }
  done
  # (exit 77 on the CPU device: a program that carries PTX, ex_vector_add_aot)
  for p in "${pids[@]}"; do
    rc=0
    wait "$p" || rc=$?
    [ "$rc" = 0 ] || [ "$rc" = 77 ] || { note "interpreter vs GPU: a CPU-device run: exit $rc"; status_interp=1; }
  done
  rc=0
  python3 tests/gpu/interp_vs_gpu.py "$idir/cpu" "$idir/gpu" >"$out/interp-vs-gpu.txt" 2>&1 || rc=$?
  [ "$rc" = 0 ] || status_interp=1
else
  note "interpreter vs GPU skipped: no time left"
  echo "VERDICT FAIL: not run (no time left)" >"$out/interp-vs-gpu.txt"
  status_interp=1
fi

# ---- 2c. random numbers and math against Triton, libdevice ------------------------------
# Where Triton is importable, with TLC_MATH_LIB=libdevice and Triton's own
# libdevice file: (random, a few seconds) tl.randn calls the libdevice
# functions Triton's does, so every value must be Triton's, the normals
# included (random_vs_triton.py's VERDICT); (math) test_math_gpu's sweeps
# and exact checks dumped, then the same expressions on the same inputs run
# by Triton (math_vs_triton.py's VERDICT: every function within 2 ulp).
: >"$out/random-vs-triton.txt"
: >"$out/math-vs-triton.txt"
verdict() { # verdict LOG LABEL TABLE RC: LOG's VERDICT line into TABLE; RC != 0 fails the step
  local line
  line=$(grep -m1 '^VERDICT' "$1" || echo "VERDICT FAIL: no verdict (exit $4; see $(basename "$1") in logs.tar.gz)")
  echo "$2: $line" | tee -a "$3"
  [ "$4" = 0 ] || status_random=1
}
if ! want triton; then :
elif python3 -c 'import torch, triton' >/dev/null 2>&1; then
  ld_file=$(python3 tests/gpu/random_vs_triton.py --print-libdevice 2>/dev/null || true)
  [ -f "$ld_file" ] || ld_file="" # then tlc's own search
  export TLC_MATH_LIB=libdevice TLC_LIBDEVICE=$ld_file
  t=$(cap 90 220)
  if [ -x "$build/bin/test_random_gpu" ] && [ "$t" -gt 10 ]; then
    rnd=${TMPDIR:-/tmp}/tlc-suite-random-libdevice
    rm -rf "$rnd"
    note "random numbers vs Triton, TLC_MATH_LIB=libdevice (libdevice: ${ld_file:-found by tlc}; limit ${t}s)"
    rc=0
    TLC_RANDOM_DUMP=$rnd timeout "$t" "$build/bin/test_random_gpu" --only basic >"$out/random-libdevice.log" 2>&1 || rc=$?
    if [ "$rc" = 0 ]; then
      timeout "$(cap 60 100)" python3 tests/gpu/random_vs_triton.py "$rnd" >>"$out/random-libdevice.log" 2>&1 || rc=$?
    fi
    verdict "$out/random-libdevice.log" "random vs Triton (libdevice)" "$out/random-vs-triton.txt" "$rc"
  else
    note "random numbers vs Triton skipped: no test_random_gpu in $build/bin, or no time left"
  fi
  t=$(cap 150 100)
  if [ -x "$build/bin/test_math_gpu" ] && [ "$t" -gt 20 ]; then
    md=${TMPDIR:-/tmp}/tlc-suite-math-libdevice
    rm -rf "$md"
    note "math vs Triton, TLC_MATH_LIB=libdevice (limit ${t}s)"
    rc=0
    TLC_MATH_DUMP=$md timeout "$t" "$build/bin/test_math_gpu" >"$out/math-libdevice.log" 2>&1 || rc=$?
    echo "test_math_gpu under libdevice: exit $rc ($(grep -c 'status=PASS' "$out/math-libdevice.log" || true) of $(grep -c 'status=' "$out/math-libdevice.log" || true) checks passed)" | tee "$out/math-vs-triton.txt"
    [ "$rc" = 0 ] || status_random=1
    rc=0
    timeout "$(cap 150 60)" python3 tests/gpu/math_vs_triton.py "$md" >"$out/math-vs-triton.log" 2>&1 || rc=$?
    grep -E '^BITS .*differing=[1-9]' "$out/math-vs-triton.log" | cut -c1-200 | tee -a "$out/math-vs-triton.txt" || true
    verdict "$out/math-vs-triton.log" "math vs Triton (libdevice)" "$out/math-vs-triton.txt" "$rc"
  else
    note "math vs Triton skipped: no test_math_gpu in $build/bin, or no time left"
  fi
  unset TLC_MATH_LIB TLC_LIBDEVICE
else
  note "random numbers and math vs Triton skipped: Triton/torch not importable"
  echo "random vs Triton (libdevice): not run (Triton not importable)" >"$out/random-vs-triton.txt"
fi

# ---- 2e. a kernel ready and launched: tlc beside Triton ----------------------------------
# (bench/latency.sh: the first launch from empty caches, a warm start in new
# processes, which must load the cached machine code with no compile and no
# PTX JIT, and the host time of one launch)
status_latency=0
t=$(cap 150 "$(after 60 bench)")
if ! want latency; then :
elif [ "$t" -gt 30 ]; then
  note "bench/latency.sh (limit ${t}s)"
  LATENCY_TLC_TIMEOUT=$((t / 3)) LATENCY_PEERS_TIMEOUT=$((t * 2 / 3)) \
    timeout "$t" bash bench/latency.sh "$build" --reps 5 >"$out/latency.log" 2>&1 || status_latency=$?
else
  note "latency skipped: no time left"
  status_latency=124
fi

# ---- 3. the benchmark ---------------------------------------------------------------
t=$(cap 330 15)
if ! want bench; then :
elif [ "$t" -gt 30 ]; then
  note "bench/run.sh (limit ${t}s)"
  timeout "$t" bash bench/run.sh "$build" "${bench_args[@]}" >"$out/bench.log" 2>&1 || status_bench=$?
else
  note "benchmark skipped: no time left"
  status_bench=124
fi

# ---- tables -----------------------------------------------------------------------------
{
  echo
  echo "== failures (details in $out/*.log)"
  grep -h -E '^(DETAIL|FATAL)|error:' "$out"/ex_*.log 2>/dev/null | head -40 || true
  grep -E 'Failed|\*\*\*' "$out/ctest-gpu.log" 2>/dev/null | head -20 || true
} >"$out/failures.txt"
if [ "$(grep -vc '^==\|^$' "$out/failures.txt" || true)" -gt 0 ]; then cat "$out/failures.txt"; fi

awk '
function kv(line, arr,   n, i, f, p) {
  delete arr
  n = split(line, f, " ")
  for (i = 3; i <= n; i++) { p = index(f[i], "="); if (p) arr[substr(f[i], 1, p - 1)] = substr(f[i], p + 1) }
}
{
  kv($0, a)
  key = a["kernel"] SUBSEP a["size"]
  if (!(key in seen)) { seen[key] = 1; order[++nk] = key; kn[key] = a["kernel"]; sz[key] = a["size"]; st[key] = "PASS" }
  runs[key]++
  e = a["rel_err"]
  if (e ~ /nan/) isnan[key] = 1
  else if (!(key in mx) || e + 0 > mx[key]) mx[key] = e + 0
  if (a["status"] != "PASS") st[key] = a["status"]
  if ($1 == "direct" || !(key in tm)) { tm[key] = a["time_us"]; bw[key] = a["gbps"] } # (a ctest time ran beside other tests)
}
END {
  printf "\n%-22s %-20s %12s %11s %9s %5s  %s\n", "kernel", "size", "max rel err", "time (us)", "GB/s", "runs", "status"
  for (i = 1; i <= nk; i++) {
    k = order[i]
    e = (k in isnan) ? "nan" : ((k in mx) ? sprintf("%.2e", mx[k]) : "-")
    printf "%-22s %-20s %12s %11s %9s %5d  %s\n", kn[k], sz[k], e, (k in tm) ? tm[k] : "-", (k in bw) ? bw[k] : "-", runs[k], st[k]
    if (st[k] == "PASS") np++; else if (st[k] == "NOT_RUN") nn++; else nf++
  }
  if (nk == 0) print "(no RESULT lines: see the logs)"
  printf "examples: %d (kernel, size) cases passed, %d failed", np, nf
  if (nn) printf ", %d programs not run (no time left in SUITE_SECONDS)", nn
  printf "\n"
}' "$results" | tee "$out/examples-table.txt"
echo
if [ -s "$out/bench-table.txt" ]; then
  cat "$out/bench-table.txt"
  if [ -s "$out/bench-tc-table.txt" ]; then echo; cat "$out/bench-tc-table.txt"; fi
else
  echo "benchmark: no table (see $out/bench.log)"
  tail -5 "$out/bench.log" 2>/dev/null || true
fi
cat "$out/latency-table.txt" 2>/dev/null && echo || true
cat "$out/random-vs-triton.txt"
cat "$out/math-vs-triton.txt" 2>/dev/null || true
cat "$out/interp-vs-gpu.txt" 2>/dev/null || true
echo
# The device tool returns only a few files from $OUT: pack every log into
# one archive and keep the tables beside it.
keep="examples-table.txt bench-table.txt bench-tc-table.txt failures.txt random-vs-triton.txt math-vs-triton.txt interp-vs-gpu.txt latency-table.txt"
tar czf "${TMPDIR:-/tmp}/tlc-suite-logs.tar.gz" -C "$out" . 2>/dev/null &&
  find "$out" -mindepth 1 -maxdepth 1 $(for k in $keep; do printf -- '-not -name %s ' "$k"; done) -exec rm -rf {} + &&
  mv "${TMPDIR:-/tmp}/tlc-suite-logs.tar.gz" "$out/logs.tar.gz" || true
verdict=PASS
[ "$status_ctest" = 0 ] && [ "$status_examples" = 0 ] && [ "$status_sanitize" = 0 ] && [ "$status_bench" = 0 ] &&
  [ "$status_random" = 0 ] && [ "$status_interp" = 0 ] && [ "$status_latency" = 0 ] || verdict=FAIL
[ "$verdict" = PASS ] && [ -n "$skipped" ] && verdict=PARTIAL # the steps run passed; not all ran
echo "gpu-suite: $verdict (ctest exit $status_ctest, examples $status_examples, sanitizers $status_sanitize, random/math vs Triton $status_random, interpreter vs GPU $status_interp, latency $status_latency, bench exit $status_bench; ${SECONDS}s; logs in $out)${skipped:+; steps left out:$skipped}"
[ "$verdict" != FAIL ]
