#!/usr/bin/env bash
# libdevice_real.sh TLC SRC_ROOT — --math-lib=libdevice against the machine's
# real libdevice.10.bc (ctest cli.libdevice_real, label cpu): every function
# of tests/lit/math/every_function.tile (fp32, fp64, fp16, integers,
# conversions) and the tile IR's own math ops (tl.log, tl.sin, tl.sqrt, ...,
# tl.randn) compile to PTX for sm_90a and sm_80 with libdevice linked:
# nothing left undefined (.extern), no __nvvm_reflect, no __nv_ declaration
# in the LLVM IR; ptxas assembles the PTX where it is on the PATH (or in
# /usr/local/cuda/bin).  Exit 77 (skipped) when tlc finds no libdevice, as
# on CI, which has no CUDA toolkit.
set -uo pipefail
tlc=$1
root=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tlc-libdevice.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
ptxas=$(PATH="$PATH:/usr/local/cuda/bin" command -v ptxas || true)

cat >"$tmp/ops.tile" <<'EOF'
import triton
import triton.language as tl

@triton.jit
def ops(x_ptr, y_ptr, seed):
    offs = tl.arange(0, 128)
    x = tl.load(x_ptr + offs)
    y = tl.exp(x) + tl.exp2(x) + tl.log(x) + tl.log2(x) + tl.sqrt(x) + tl.sqrt_rn(x) + tl.rsqrt(x)
    y += tl.sin(x) + tl.cos(x) + tl.floor(x) + tl.ceil(x) + tl.erf(x) + tl.sigmoid(x) + tl.abs(x)
    y += tl.randn(seed, offs).to(x.dtype)
    tl.store(y_ptr + offs, y)
EOF

# Is there a libdevice? tlc's own search says (and why not).
if ! "$tlc" compile "$tmp/ops.tile" --signature '*fp32:16,*fp32:16,i32' --math-lib=libdevice --emit llvm \
     -o "$tmp/probe.ll" 2>"$tmp/probe.err"; then
  if grep -q 'no libdevice bitcode found' "$tmp/probe.err"; then
    echo "SKIP: no libdevice on this machine:"
    cat "$tmp/probe.err"
    exit 77
  fi
  echo "FAIL: tlc with --math-lib=libdevice:"
  cat "$tmp/probe.err"
  exit 1
fi

fail=0
n=0
check() { # check NAME FILE SIGNATURE [KERNEL]
  local name=$1 file=$2 sig=$3 kernel=${4:-}
  local kopt=()
  [ -n "$kernel" ] && kopt=(--kernel "$kernel")
  for arch in sm_90a sm_80; do
    local out="$tmp/$name.$arch"
    n=$((n + 1))
    if ! "$tlc" compile "$file" "${kopt[@]}" --signature "$sig" --arch "$arch" --math-lib=libdevice \
         -o "$out.ptx" 2>"$out.err"; then
      echo "FAIL $name $arch: compile"; cat "$out.err"; fail=1; continue
    fi
    "$tlc" compile "$file" "${kopt[@]}" --signature "$sig" --arch "$arch" --math-lib=libdevice --emit llvm \
      -o "$out.ll" 2>>"$out.err" || { echo "FAIL $name $arch: --emit llvm"; cat "$out.err"; fail=1; continue; }
    if grep -q '\.extern' "$out.ptx"; then echo "FAIL $name $arch: undefined functions:"; grep '\.extern' "$out.ptx"; fail=1; fi
    if grep -q '__nvvm_reflect' "$out.ptx" "$out.ll"; then echo "FAIL $name $arch: __nvvm_reflect left"; fail=1; fi
    if grep -q '^declare .*@__nv_' "$out.ll"; then echo "FAIL $name $arch: libdevice functions not linked:"; grep '^declare .*@__nv_' "$out.ll"; fail=1; fi
    if [ -n "$ptxas" ]; then
      if ! "$ptxas" -arch="$arch" "$out.ptx" -o "$out.o" 2>"$out.ptxas"; then
        echo "FAIL $name $arch: ptxas"; head -20 "$out.ptxas"; fail=1; continue
      fi
      echo "ok   $name $arch (ptxas)"
    else
      echo "ok   $name $arch (no ptxas: not assembled)"
    fi
  done
}

every=$root/tests/lit/math/every_function.tile
check floats.f32 "$every" '*fp32:16,*fp32:16' floats
check floats.f64 "$every" '*fp64:16,*fp64:16' floats
check floats.f16 "$every" '*fp16:16,*fp16:16' floats
check fast "$every" '*fp32:16,*fp32:16' fast
check ints.i32 "$every" '*i32:16,*i32:16' ints
check ints.u32 "$every" '*u32:16,*u32:16' ints
check ints.i64 "$every" '*i64:16,*i64:16' ints64
check conversions "$every" '*fp32:16,*fp64:16,*i32:16,*i64:16,*fp64:16' conversions
check ops.f32 "$tmp/ops.tile" '*fp32:16,*fp32:16,i32'
check ops.f64 "$tmp/ops.tile" '*fp64:16,*fp64:16,i32'
check ops.f16 "$tmp/ops.tile" '*fp16:16,*fp16:16,i32'
echo "libdevice_real: $n compiles, $([ "$fail" = 0 ] && echo PASS || echo FAIL)"
exit $fail
