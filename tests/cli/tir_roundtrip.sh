#!/usr/bin/env bash
# tir_roundtrip.sh TLC NAME — the tile IR of the example NAME of
# examples/kernels.txt survives the text form: for the IR straight after
# specialization (--emit tir-spec) and after the passes (--emit tir),
#   print -> tlc opt (read, verify, print) -> identical text;
# and the default pipeline run by `tlc opt --pass` on the printed spec IR
# gives what `tlc compile --emit tir` gives (the reader loses nothing the
# passes use).  CPU only.
set -euo pipefail
tlc=$1 name=$2
here=$(cd "$(dirname "$0")" && pwd)
examples=$here/../../examples
line=$(awk -v n="$name" '$1 == n {print; exit}' "$examples/kernels.txt")
[ -n "$line" ] || { echo "FAIL: no line '$name' in kernels.txt" >&2; exit 1; }
read -r _ tile kernel sig rest <<< "$line"
cx=()
for kv in $rest; do cx+=(--constexpr "$kv"); done
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $name: $*" >&2; exit 1; }

for emit in tir-spec tir; do
  "$tlc" compile "$examples/$tile" --kernel "$kernel" --signature "$sig" "${cx[@]}" --emit $emit -o "$dir/$emit.tir"
  "$tlc" opt "$dir/$emit.tir" -o "$dir/$emit.again.tir" || fail "tlc opt could not read its --emit $emit"
  if ! cmp -s "$dir/$emit.tir" "$dir/$emit.again.tir"; then
    diff "$dir/$emit.tir" "$dir/$emit.again.tir" | head -20 >&2
    fail "--emit $emit: print -> read -> print differs"
  fi
done
pipeline=canonicalize,consumer-warpgroups,program-order,hoist-invariants,coalesce,assign-layouts,canonicalize,pipeline,dot-ahead,dot-early,tma-store,warp-specialize,canonicalize,sink-stagings,sink-local-loads,allocate-shared
"$tlc" opt "$dir/tir-spec.tir" --pass $pipeline -o "$dir/piped.tir" || fail "tlc opt --pass $pipeline failed"
if ! cmp -s "$dir/tir.tir" "$dir/piped.tir"; then
  diff "$dir/tir.tir" "$dir/piped.tir" | head -20 >&2
  fail "the pipeline on the read-back spec IR differs from --emit tir"
fi
echo "ok: $name: $(wc -l < "$dir/tir.tir") lines of tile IR round-trip"
