#!/usr/bin/env bash
# output_in_place.sh TLC — where `tlc -o PATH` writes.
#
# A path that exists and is not a regular file (a FIFO here; /dev/null in
# real use) is written in place: renaming a temporary file over it would
# replace the node (run as root, /dev/null became a regular file).  A
# regular file is replaced atomically (its mode kept), a symbolic link's
# target likewise (the link stays), and `-o -` is stdout.  The test
# writes to a FIFO it made, never to /dev/null.
set -euo pipefail
tlc=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
src=$(dirname "$0")/../../examples/vector_add/vector_add.tile
args=(compile "$src" --kernel add_kernel --signature '*fp32:16,*fp32:16,*fp32:16,i32,1024' --emit tir)

fail() { echo "FAIL: $*" >&2; exit 1; }

# a FIFO: read it in the background, write through it
mkfifo "$dir/fifo"
cat "$dir/fifo" > "$dir/from_fifo" &
reader=$!
"$tlc" "${args[@]}" -o "$dir/fifo" || fail "tlc -o FIFO exited with $?"
wait "$reader"
[ -p "$dir/fifo" ] || fail "the FIFO was replaced by a $(stat -c %F "$dir/fifo")"
grep -q '^func @add_kernel' "$dir/from_fifo" || fail "nothing came through the FIFO"
ls "$dir" | grep -q tmp && fail "a temporary file was left behind: $(ls "$dir")"

# a regular file: replaced, no temporary left behind
echo old > "$dir/out.tir"
"$tlc" "${args[@]}" -o "$dir/out.tir"
cmp -s "$dir/out.tir" "$dir/from_fifo" || fail "-o FILE differs from what the FIFO carried"
[ "$(ls "$dir")" = "$(printf 'fifo\nfrom_fifo\nout.tir')" ] || fail "stray files: $(ls "$dir")"

# a symbolic link: its target is replaced, the link stays; a replaced file keeps
# its permission bits, a new one gets 0666 less the umask
echo old > "$dir/target.tir"
chmod 640 "$dir/target.tir"
ln -s target.tir "$dir/link.tir"
"$tlc" "${args[@]}" -o "$dir/link.tir"
[ -L "$dir/link.tir" ] || fail "the link was replaced by a $(stat -c %F "$dir/link.tir")"
[ "$(readlink "$dir/link.tir")" = target.tir ] || fail "the link points elsewhere: $(readlink "$dir/link.tir")"
cmp -s "$dir/target.tir" "$dir/from_fifo" || fail "the link's target does not hold the output"
[ "$(stat -c %a "$dir/target.tir")" = 640 ] || fail "the target's mode became $(stat -c %a "$dir/target.tir")"
(umask 022 && "$tlc" "${args[@]}" -o "$dir/new.tir")
[ "$(stat -c %a "$dir/new.tir")" = 644 ] || fail "a new file under umask 022 got mode $(stat -c %a "$dir/new.tir")"
rm "$dir/link.tir" "$dir/target.tir" "$dir/new.tir"

# /dev/stdout (and a link to it) is the descriptor the shell opened: `>> log`
# appends, what the log held stays
echo "kept line" > "$dir/log"
"$tlc" "${args[@]}" -o /dev/stdout >> "$dir/log"
grep -q '^kept line$' "$dir/log" || fail "-o /dev/stdout >> log lost the log's first line"
grep -q '^func @add_kernel' "$dir/log" || fail "-o /dev/stdout >> log did not append the output"
ln -s /dev/stdout "$dir/to_stdout"
echo "kept too" > "$dir/log2"
"$tlc" "${args[@]}" -o "$dir/to_stdout" >> "$dir/log2"
grep -q '^kept too$' "$dir/log2" || fail "-o LINK-TO-/dev/stdout >> log lost the log's first line"
[ -L "$dir/to_stdout" ] || fail "the link to /dev/stdout was replaced"
rm "$dir/log" "$dir/log2" "$dir/to_stdout"

# -o - is stdout
"$tlc" "${args[@]}" -o - > "$dir/stdout.tir"
cmp -s "$dir/stdout.tir" "$dir/from_fifo" || fail "-o - differs from -o FILE"

# an unwritable place is an error, not a crash
if "$tlc" "${args[@]}" -o "$dir/no/such/dir/out.tir" 2> "$dir/err"; then fail "writing into a missing folder succeeded"; fi
grep -q "cannot write" "$dir/err" || fail "no message for an unwritable output: $(cat "$dir/err")"
echo "ok: FIFO written in place, regular file replaced, a link followed, modes kept, -o - is stdout"
