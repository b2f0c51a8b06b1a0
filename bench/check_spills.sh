#!/usr/bin/env bash
# check_spills.sh — every matmul kernel the benchmark compiles (the list
# tlc_bench_tc --print-configs gives) compiled for sm_90a and assembled with
# `ptxas -v`: none may spill registers (ptxas's "bytes spill stores/loads").
#
#   check_spills.sh [BUILD_DIR]     (default build)
#
# Exit 0: no spills; 1: a spill or a failed compile (the lines say which);
# 77: ptxas is not on the PATH (nothing to check).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:-$here/../build}
ptxas=$(command -v ptxas || true)
if [ -z "$ptxas" ]; then
  echo "SKIP: ptxas not on the PATH"
  exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tlc-spills.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
seen=""
while read -r row tile kernel sig warps stages; do
  key="$tile $kernel $sig $warps $stages"
  case "$seen" in *"|$key|"*) continue ;; esac
  seen="$seen|$key|"
  n=$((n + 1))
  ptx=$tmp/k$n.ptx
  if ! "$build/bin/tlc" compile "$here/../examples/$tile" --kernel "$kernel" --signature "$sig" \
      --num-warps "$warps" --num-stages "$stages" --arch sm_90a -o "$ptx" 2>"$tmp/err"; then
    echo "FAIL $row $sig w$warps s$stages: tlc compile failed: $(head -3 "$tmp/err")"
    fail=1
    continue
  fi
  if ! info=$("$ptxas" -arch=sm_90a -v "$ptx" -o "$tmp/k.cubin" 2>&1); then
    echo "FAIL $row $sig w$warps s$stages: ptxas failed: $(echo "$info" | head -3)"
    fail=1
    continue
  fi
  regs=$(echo "$info" | grep -o 'Used [0-9]* registers' | head -1)
  spills=$(echo "$info" | grep -o '[0-9]* bytes spill stores, [0-9]* bytes spill loads' | head -1)
  case "$spills" in
    "0 bytes spill stores, 0 bytes spill loads") echo "ok   $row $sig w$warps s$stages: $regs" ;;
    *) echo "FAIL $row $sig w$warps s$stages: $regs, $spills"; fail=1 ;;
  esac
done < <("$build/bin/tlc_bench_tc" --print-configs)
[ "$n" -gt 0 ] || { echo "FAIL: tlc_bench_tc --print-configs listed nothing"; exit 1; }
echo "check_spills: $n kernels, $([ $fail = 0 ] && echo 'no spills' || echo 'FAILED')"
exit $fail
