#!/usr/bin/env bash
# check_spills.sh — every kernel the tensor-core benchmark compiles (the list
# tlc_bench_tc --print-configs gives: the matmul configs, every config of the
# attention forward's @triton.autotune decorator, the attention backward)
# compiled for sm_90a and assembled with `ptxas -v`: none may spill
# registers (ptxas's "bytes spill stores/loads"), except the ones listed in
# bench/known_spills.txt, a ratchet: a listed kernel may spill at most the
# bytes listed, and one that no longer spills must be taken off the list.
#
#   check_spills.sh [BUILD_DIR [FAMILY...]]     (default build)
#
# FAMILY: rows that --print-configs lists only when --only names them (the
# seeds' attention kernels: attn000, flash001), checked too; the ctest
# (bench.no_spills) checks the default list.
#
# Exit 0: no spills beyond the list; 1: a new or larger spill, a listed
# kernel that stopped spilling, or a failed compile (the lines say which);
# 77: ptxas is not on the PATH (nothing to check).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:-$here/../build}
families=("${@:2}")
known_file=$here/known_spills.txt
ptxas=$(command -v ptxas || true)
if [ -z "$ptxas" ]; then
  echo "SKIP: ptxas not on the PATH"
  exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tlc-spills.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0 nknown=0
seen=""

# known_spills.txt: `ROW SIGNATURE wWARPS sSTAGES CONSTEXPRS BYTES` (CONSTEXPRS
# `-` or NAME=V,NAME=V), '#' comments
known_bytes() {
  [ -f "$known_file" ] || return 0
  awk -v k="$1" '!/^[[:space:]]*(#|$)/ { b = $NF; $NF = ""; sub(/ +$/, ""); if ($0 == k) print b }' "$known_file"
}

# check ROW TILE KERNEL SIG WARPS STAGES CX (CX: `-` or NAME=V,NAME=V)
check() {
  local row=$1 tile=$2 kernel=$3 sig=$4 warps=$5 stages=$6 cx=$7
  local key="$row $sig w$warps s$stages $cx"
  case "$seen" in *"|$key|"*) return ;; esac
  seen="$seen|$key|"
  n=$((n + 1))
  local ptx=$tmp/k$n.ptx cflags=()
  if [ "$cx" != - ]; then
    local IFS=,
    for c in $cx; do cflags+=(-C "$c"); done
    unset IFS
  fi
  if ! "$build/bin/tlc" compile "$here/../examples/$tile" --kernel "$kernel" --signature "$sig" \
      "${cflags[@]+"${cflags[@]}"}" --num-warps "$warps" --num-stages "$stages" --arch sm_90a -o "$ptx" \
      2>"$tmp/err"; then
    if [ "$cx" != - ] && grep -q 'bytes of shared memory per program' "$tmp/err"; then
      echo "skip $key: needs more shared memory than sm_90a has (the autotuner skips it)"
      return
    fi
    echo "FAIL $key: tlc compile failed: $(head -3 "$tmp/err")"
    fail=1
    return
  fi
  local info regs spills stores known
  if ! info=$("$ptxas" -arch=sm_90a -v "$ptx" -o "$tmp/k.cubin" 2>&1); then
    echo "FAIL $key: ptxas failed: $(echo "$info" | head -3)"
    fail=1
    return
  fi
  regs=$(echo "$info" | grep -o 'Used [0-9]* registers' | head -1)
  spills=$(echo "$info" | grep -o '[0-9]* bytes spill stores, [0-9]* bytes spill loads' | head -1)
  stores=${spills%% *}
  known=$(known_bytes "$key")
  if [ "$stores" = 0 ] && [ "${spills#* stores, }" = "0 bytes spill loads" ]; then
    if [ -n "$known" ]; then
      echo "FAIL $key: no longer spills ($regs): take it off known_spills.txt"
      fail=1
    else
      echo "ok   $key: $regs"
    fi
  elif [ -n "$known" ] && [ "$stores" -le "$known" ]; then
    echo "KNOWN $key: $regs, $spills (listed: $known)"
    nknown=$((nknown + 1))
  else
    echo "FAIL $key: $regs, $spills${known:+ (listed: $known)}"
    fail=1
  fi
}

while read -r row tile kernel sig warps stages; do
  if [ "$warps" != autotune ]; then
    check "$row" "$tile" "$kernel" "$sig" "$warps" "$stages" -
    continue
  fi
  # every config of the kernel's decorator: `BLOCK_M=64 ... num_warps=4 num_stages=3`
  if ! configs=$("$build/bin/tlc" autotune "$here/../examples/$tile" --kernel "$kernel" 2>"$tmp/err"); then
    echo "FAIL $row $kernel: tlc autotune failed: $(head -3 "$tmp/err")"
    fail=1
    continue
  fi
  while read -r -a words; do
    [ "${words[0]}" = key: ] && continue
    cx="" w="" s=""
    for x in "${words[@]}"; do
      case "$x" in
        num_warps=*) w=${x#num_warps=} ;;
        num_stages=*) s=${x#num_stages=} ;;
        *) cx="${cx:+$cx,}$x" ;;
      esac
    done
    check "$row" "$tile" "$kernel" "$sig" "$w" "$s" "${cx:--}"
  done <<<"$configs"
done < <("$build/bin/tlc_bench_tc" --print-configs; for fam in "${families[@]+"${families[@]}"}"; do "$build/bin/tlc_bench_tc" --print-configs --only "$fam"; done)
[ "$n" -gt 0 ] || { echo "FAIL: tlc_bench_tc --print-configs listed nothing"; exit 1; }
echo "check_spills: $n kernels, $nknown known spills, $([ $fail = 0 ] && echo 'nothing new' || echo 'FAILED')"
exit $fail
