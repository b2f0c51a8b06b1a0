#!/usr/bin/env bash
# fuzz.sh — run the libFuzzer harness (tests/fuzz/fuzz_compile.c).
#
#   fuzz.sh seeds  HARNESS WORKDIR            collect the seed corpus into WORKDIR/seeds
#   fuzz.sh smoke  HARNESS WORKDIR SECONDS    fuzz from the seeds for SECONDS (ctest fuzz_smoke)
#   fuzz.sh replay HARNESS WORKDIR            run regressions/* and every seed once (ctest fuzz_regressions)
#   fuzz.sh long   HARNESS WORKDIR SECONDS [JOBS]   a long run: JOBS parallel fuzzers, corpus kept
#                                             in WORKDIR/corpus, findings in WORKDIR/artifacts,
#                                             logs in WORKDIR/logs, total executions in
#                                             WORKDIR/summary.txt (a fuzzer whose leak
#                                             checks libFuzzer switched off fails it);
#                                             FUZZ_SPLIT=1 deals the
#                                             corpus out among the fuzzers
#
# Seeds: every .tile and .tir (tile IR, for the reader and the passes) of
# examples/ and tests/lit/, and each line of
# examples/kernels.txt as a `#fuzz:` header (kernel, signature, constexprs)
# followed by that kernel's file.  A crash, hang (-timeout), leak or
# sanitizer report fails the run; the input is left as WORKDIR/crash-* etc.
# (minimize with HARNESS -minimize_crash=1 FILE, then copy it to
# tests/fuzz/regressions/).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mode=$1 harness=$(realpath "$2") work=$(realpath -m "$3")
mkdir -p "$work"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:abort_on_error=0:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:symbolize=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$here/lsan.supp:print_suppressions=0}
sym=$(command -v llvm-symbolizer-14 || command -v llvm-symbolizer || true)
[ -n "$sym" ] && export ASAN_SYMBOLIZER_PATH=$sym

flags=(-dict="$here/tlc.dict" -max_len=8192 -timeout=25 -rss_limit_mb=3072 -malloc_limit_mb=2048
       -print_final_stats=1)

seeds() {
  local d=$work/seeds
  rm -rf "$d" && mkdir -p "$d"
  local f i=0
  while IFS= read -r f; do
    i=$((i + 1))
    local base=$(basename "$f")
    cp "$f" "$d/${base%.*}-$i.${base##*.}"
  done < <(find "$root/examples" "$root/tests/lit" \( -name '*.tile' -o -name '*.tir' \) | sort)
  while read -r name tile kernel sig rest; do
    case "$name" in ''|\#*) continue ;; esac
    local cx=""
    for r in $rest; do cx="$cx -C $r"; done
    { echo "#fuzz: --kernel $kernel --signature '$sig'$cx"; cat "$root/examples/$tile"; } > "$d/kernel-$name.tile"
  done < "$root/examples/kernels.txt"
}

case "$mode" in
  seeds)
    seeds
    echo "fuzz.sh: $(ls "$work/seeds" | wc -l) seeds in $work/seeds" ;;
  smoke)
    secs=${4:-60}
    seeds
    rm -rf "$work/corpus" && mkdir -p "$work/corpus"
    cd "$work"
    "$harness" "${flags[@]}" -max_total_time="$secs" -artifact_prefix="$work/" corpus seeds ;;
  replay)
    seeds
    files=("$work"/seeds/*)
    if compgen -G "$here/regressions/*" >/dev/null; then files+=("$here"/regressions/*); fi
    cd "$work"
    "$harness" "${flags[@]}" "${files[@]}" 2>&1 | tail -n 5
    exit "${PIPESTATUS[0]}" ;;
  long)
    secs=${4:-3600} jobs=${5:-2}
    seeds
    mkdir -p "$work/corpus" "$work/artifacts" "$work/logs"
    cd "$work"
    # JOBS independent fuzzers for SECONDS of wall-clock time each (their
    # first pass over the corpus included: -max_total_time would not count
    # it), sharing the corpus directory (each reloads what the others found).
    # SIGINT ends them; each then prints its final counts, and the sum is the
    # run's figure.  A fuzzer that stops on a finding leaves its input in
    # artifacts/ and its report in its log.
    # With FUZZ_SPLIT=1 the corpus is dealt out instead: worker j starts from
    # every JOBS-th input (corpus-j), so the first pass over a large corpus is
    # not repeated JOBS times; what the workers found is gathered back into
    # corpus at the end.
    split=${FUZZ_SPLIT:-0}
    if [ "$split" = 1 ]; then
      for j in $(seq 1 "$jobs"); do rm -rf "$work/corpus-$j" && mkdir -p "$work/corpus-$j"; done
      for j in $(seq 1 "$jobs"); do
        find "$work/corpus" -maxdepth 1 -type f | sort | awk -v j="$j" -v n="$jobs" 'NR % n == j % n' |
          xargs -r cp -t "$work/corpus-$j/"
      done
    fi
    t0=$SECONDS
    for j in $(seq 1 "$jobs"); do
      dir=corpus
      [ "$split" = 1 ] && dir=corpus-$j
      timeout -s INT -k 60 "$secs" "$harness" "${flags[@]}" -artifact_prefix="$work/artifacts/" \
        "$dir" seeds >"$work/logs/worker-$j.log" 2>&1 &
    done
    fails=0
    for j in $(seq 1 "$jobs"); do
      rc=0
      wait -n || rc=$?
      [ "$rc" = 0 ] || [ "$rc" = 124 ] || fails=$((fails + 1)) # 124: interrupted at SECONDS
    done
    if [ "$split" = 1 ]; then
      for j in $(seq 1 "$jobs"); do
        # corpus files are named by their content's SHA-1: same name, same bytes
        find "$work/corpus-$j" -maxdepth 1 -type f | xargs -r cp -t "$work/corpus/"
        rm -rf "$work/corpus-$j"
      done
    fi
    # timeout(1) signals the fuzzer and then its own process group, so a
    # fuzzer can get SIGINT twice and print its final counts twice: take
    # each log's last count once.
    execs=$(awk -F: '/^stat::number_of_executed_units/ {n[FILENAME] = $NF + 0}
                     END {for (f in n) s += n[f]; print s + 0}' "$work"/logs/worker-*.log)
    found=$(find "$work/artifacts" -type f | wc -l)
    # libFuzzer stops checking each input for leaks once >= 1000 inputs
    # allocate more than they free (memory kept in some global state); such a
    # fuzzer no longer reports leaks, so it counts against the run as well.
    leakoff=$(cat "$work"/logs/worker-*.log | grep -c "disabled leak detection" || true)
    echo "fuzz.sh: $execs executions by $jobs fuzzers in $((SECONDS - t0)) s;" \
         "$fails stopped on a finding; $found inputs in $work/artifacts;" \
         "$leakoff with leak checks switched off;" \
         "corpus $(ls "$work/corpus" | wc -l) inputs" | tee "$work/summary.txt"
    [ "$fails" -eq 0 ] && [ "$found" -eq 0 ] && [ "$leakoff" -eq 0 ] ;;
  *)
    echo "usage: fuzz.sh seeds|smoke|replay|long HARNESS WORKDIR [SECONDS] [JOBS]" >&2
    exit 2 ;;
esac
