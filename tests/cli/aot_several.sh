#!/usr/bin/env bash
# aot_several.sh TLC SRC BUILD FAKE_DRIVER — tlc compile --emit c of several
# kernels into one pair: two kernels of one file (each --kernel with the
# --signature after it) give pair.c / pair.h with pair_load, pair_unload and
# pair_add_kernel_launch / pair_scale_kernel_launch; a program built against
# the runtime's core alone runs both on the fake driver (aot_several.c).
# Then the refusals: several --kernel without --emit c, or with --metadata,
# and one kernel given twice, each a located message and no files written.
set -euo pipefail
tlc=$1 src=$2 build=$3 fake=$4
tmp=$(mktemp -d /tmp/tlc-aot-several-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cat >"$tmp/two.tile" <<'TILE'
import triton
import triton.language as tl


@triton.jit
def add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(c_ptr + offs, tl.load(a_ptr + offs, mask) + tl.load(b_ptr + offs, mask), mask)


@triton.jit
def scale_kernel(x_ptr, y_ptr, factor, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask) * factor, mask)
TILE

"$tlc" compile "$tmp/two.tile" --arch sm_80 \
    --kernel add_kernel --signature '*fp32:16,*fp32:16,*fp32:16,i32,1024' \
    --kernel scale_kernel --signature '*fp32:16,*fp32:16,fp32,i32,256' --num-warps 2 \
    --emit c -o "$tmp/pair" || fail "tlc compile of two kernels --emit c"
[ -f "$tmp/pair.c" ] && [ -f "$tmp/pair.h" ] || fail "pair.c and pair.h were not both written"
grep -q 'tlc_status pair_add_kernel_launch(' "$tmp/pair.h" || fail "no pair_add_kernel_launch in pair.h"
grep -q 'tlc_status pair_scale_kernel_launch(' "$tmp/pair.h" || fail "no pair_scale_kernel_launch in pair.h"
grep -q 'float factor' "$tmp/pair.h" || fail "scale_kernel's factor is not a float parameter"
cc -std=c11 -Wall -Werror -I"$tmp" -I"$build/include" -I"$src/tests/unit" "$src/tests/cli/aot_several.c" \
   "$tmp/pair.c" -L"$build/lib" -ltlc_runtime_core -Wl,-rpath,"$build/lib" -ldl -o "$tmp/prog" \
   || fail "building the program against the pair and libtlc_runtime_core"
TLC_CUDA_DRIVER=$fake TLC_CACHE_DIR=off "$tmp/prog" || fail "the program failed its checks"
echo "ok: two kernels in one pair, run on the fake driver"

# refuse: exit status 2 or 1, the message, nothing written
refuse() {
  local want=$1 status=$2; shift 2
  local rc=0
  "$tlc" compile "$tmp/two.tile" --arch sm_80 "$@" 2>"$tmp/err" >/dev/null || rc=$?
  [ "$rc" = "$status" ] || { cat "$tmp/err"; fail "$*: exit $rc, want $status"; }
  grep -qF -- "$want" "$tmp/err" || { cat "$tmp/err"; fail "$*: no '$want' in the message"; }
  [ ! -e "$tmp/bad.c" ] && [ ! -e "$tmp/bad.h" ] || fail "$*: files were written"
}
refuse "--kernel given 2 times ('add_kernel', 'scale_kernel'): several kernels go only into one --emit c pair" 2 \
    --kernel add_kernel --signature '*fp32,*fp32,*fp32,i32,64' --kernel scale_kernel --signature '*fp32,*fp32,fp32,i32,64' \
    --emit ptx -o "$tmp/bad.ptx"
refuse "without --metadata" 2 --kernel add_kernel --signature '*fp32,*fp32,*fp32,i32,64' \
    --kernel scale_kernel --signature '*fp32,*fp32,fp32,i32,64' --emit c -o "$tmp/bad" --metadata "$tmp/bad.json"
refuse "--emit c: kernel 'add_kernel' is given twice (--kernel 1 and 2)" 1 \
    --kernel add_kernel --signature '*fp32,*fp32,*fp32,i32,64' --kernel add_kernel --signature '*fp32,*fp32,*fp32,i32,128' \
    --emit c -o "$tmp/bad"
# a kernel that does not compile: the compiler's located error, no files
refuse "two.tile:" 1 --kernel add_kernel --signature '*fp32,*fp32,*fp32,i32,64' \
    --kernel nosuch_kernel --signature 'i32' --emit c -o "$tmp/bad"
echo "ok: refusals"
