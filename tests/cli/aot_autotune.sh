#!/usr/bin/env bash
# aot_autotune.sh TLC SRC BUILD FAKE_DRIVER — tlc compile --autotune --grid
# --emit c: an autotuned kernel (three configs, a key, reset_to_zero and
# restore_value) and a plain kernel with a grid in one pair, built with
# -Wall -Wextra -Werror against the runtime's core alone (-DTUNE_ACC_KEYS=2,
# so the table of choices is bounded at two) and run on the fake driver,
# which times a launch by its warps (aot_autotune.c checks the choices).
set -euo pipefail
tlc=$1 src=$2 build=$3 fake=$4
tmp=$(mktemp -d /tmp/tlc-aot-autotune-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cat >"$tmp/tune.tile" <<'TILE'
import triton
import triton.language as tl

configs = [triton.Config({'BLOCK': 64}, num_warps=2, num_stages=1),
           triton.Config({'BLOCK': 128}, num_warps=4, num_stages=2),
           triton.Config({'BLOCK': 256}, num_warps=8, num_stages=3)]


@triton.autotune(configs=configs, key=['n', 'scale'], reset_to_zero=['out_ptr'], restore_value=['x_ptr'])
@triton.jit
def acc(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(x_ptr + offs, x * scale, mask=offs < n)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


@triton.jit
def plain(x_ptr, n):
    tl.store(x_ptr + tl.program_id(0), 1.0)
TILE

"$tlc" compile "$tmp/tune.tile" --arch sm_80 \
    --kernel acc --signature '*fp32:16,*fp32:16,i32,fp32,_' --autotune --grid 'cdiv(n, BLOCK)' \
    --kernel plain --signature '*fp32:16,i32' --grid '-n // 4 + 100, n % -3 + 5' \
    --emit c -o "$tmp/tune" || fail "tlc compile --autotune --emit c"
cc -std=c11 -Wall -Wextra -Werror -DTUNE_ACC_KEYS=2 -I"$tmp" -I"$build/include" -I"$src/tests/unit" \
   "$src/tests/cli/aot_autotune.c" "$tmp/tune.c" -L"$build/lib" -ltlc_runtime_core -Wl,-rpath,"$build/lib" \
   -ldl -pthread -o "$tmp/prog" || fail "building the program against the pair and libtlc_runtime_core"
TLC_CUDA_DRIVER=$fake TLC_CACHE_DIR=off "$tmp/prog" || fail "the program failed its checks"
echo "ok: an autotuned kernel's dispatcher and a grid, run on the fake driver"
