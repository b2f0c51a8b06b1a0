#!/usr/bin/env bash
# check_ptx.sh — compile example kernels listed in examples/kernels.txt to PTX
# with the tlc command line and, when ptxas is available, assemble the PTX.
#
#   check_ptx.sh [--tlc PATH] [--ptxas PATH] [--out DIR] NAME ARCH...
#   check_ptx.sh [--tlc PATH] [--ptxas PATH] [--out DIR] --all [ARCH...]
#   check_ptx.sh --list
#
# NAME is the first field of a kernels.txt line; ARCH is sm_90a, sm_80, ...
# (--all: every line, for sm_90a and sm_80 unless archs are given).  --tlc
# defaults to build/bin/tlc; --ptxas to `ptxas` on the PATH ("" = do not
# assemble).  Writes OUT/NAME.ARCH.ptx (default OUT: a temporary folder).
# Exits 0 only if every compile (and every ptxas run) succeeded.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
table="$here/kernels.txt"
tlc="$here/../build/bin/tlc"
ptxas=$(command -v ptxas || true)
out=""
all=0
while [ $# -gt 0 ]; do
  case "$1" in
    --tlc) tlc=$2; shift 2 ;;
    --ptxas) ptxas=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --all) all=1; shift ;;
    --list) grep -v '^[[:space:]]*\(#\|$\)' "$table" | awk '{print $1}'; exit 0 ;;
    -h|--help) sed -n '2,14p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) break ;;
  esac
done
if [ -z "$out" ]; then
  out=$(mktemp -d "${TMPDIR:-/tmp}/tlc-ptx.XXXXXX")
fi
mkdir -p "$out"
if [ ! -x "$tlc" ]; then
  echo "check_ptx: the tlc command line is not at '$tlc' (build first, or pass --tlc)" >&2
  exit 2
fi

names=()
archs=()
if [ "$all" = 1 ]; then
  mapfile -t names < <(grep -v '^[[:space:]]*\(#\|$\)' "$table" | awk '{print $1}')
  archs=("$@")
  [ ${#archs[@]} -gt 0 ] || archs=(sm_90a sm_80)
else
  if [ $# -lt 2 ]; then
    echo "usage: check_ptx.sh [--tlc PATH] [--ptxas PATH] [--out DIR] NAME ARCH... | --all [ARCH...] | --list" >&2
    exit 2
  fi
  names=("$1")
  shift
  archs=("$@")
fi

fail=0
for name in "${names[@]}"; do
  line=$(awk -v n="$name" '$1 == n && $1 !~ /^#/ {print; exit}' "$table")
  if [ -z "$line" ]; then
    echo "check_ptx: no kernel named '$name' in $table" >&2
    exit 2
  fi
  read -r -a f <<<"$line"
  tile="$here/${f[1]}"
  kernel=${f[2]}
  sig=${f[3]}
  cx=()
  for ((i = 4; i < ${#f[@]}; i++)); do cx+=(--constexpr "${f[i]}"); done
  for arch in "${archs[@]}"; do
    ptx="$out/$name.$arch.ptx"
    cmd=("$tlc" compile "$tile" --kernel "$kernel" --signature "$sig" "${cx[@]}" --arch "$arch" -o "$ptx")
    if ! "${cmd[@]}"; then
      echo "FAIL $name $arch: tlc compile failed; reproduce:"
      printf '  %q' "${cmd[@]}"; echo
      fail=1
      continue
    fi
    if [ ! -s "$ptx" ]; then
      echo "FAIL $name $arch: tlc exited 0 but wrote no PTX to $ptx"
      fail=1
      continue
    fi
    if ! grep -q "^[[:space:]]*\.target[[:space:]]\+$arch\b" "$ptx"; then
      echo "FAIL $name $arch: $ptx has no '.target $arch' line"
      fail=1
      continue
    fi
    if ! grep -q "\.entry" "$ptx"; then
      echo "FAIL $name $arch: $ptx has no .entry"
      fail=1
      continue
    fi
    if [ -n "$ptxas" ]; then
      if ! log=$("$ptxas" -arch="$arch" -v "$ptx" -o /dev/null 2>&1); then
        echo "FAIL $name $arch: ptxas rejected $ptx:"
        echo "$log" | sed 's/^/  /'
        echo "  reproduce: $ptxas -arch=$arch $ptx -o /dev/null"
        fail=1
        continue
      fi
      echo "ok   $name $arch ($(echo "$log" | grep -o 'Used [0-9]* registers[^"]*' | head -1 || true))"
      if echo "$log" | grep -q '[1-9][0-9]* bytes spill'; then
        echo "     note: spills: $(echo "$log" | grep 'spill' | head -1 | sed 's/^ *//')"
      fi
    else
      echo "ok   $name $arch (compiled; ptxas not available, not assembled)"
    fi
  done
done
exit $fail
