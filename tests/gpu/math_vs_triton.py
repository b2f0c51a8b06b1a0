#!/usr/bin/env python3
"""math_vs_triton.py DIR — tlc's math functions against Triton's, bit for bit.

Run tlc's GPU math test with TLC_MATH_DUMP=DIR first: it writes, for every
function it sweeps and every exact check, the inputs x, y and tlc's outputs
z (DIR/NAME.TYPE.bin) and a line of DIR/index.tsv with the kernel's
expression (`libdevice.tanh(x)`, `tl.exp(x)`, ...).  This script runs each
expression with Triton, in the same kernel (z = EXPR over x and y) on the
same inputs, and prints per function how many outputs differ in their bits
(two NaNs count as equal when their bits differ; they are counted apart)
and, where they differ, by how many ulp; then one VERDICT line: PASS when
every function is bit for bit Triton's or, for floating-point results,
within 2 ulp of them.  A function Triton cannot compile (libdevice's own
typing is stricter than tlc's in a few places: sad wants a uint32 third
operand) is reported and skipped.

tlc's results equal Triton's when tlc links the libdevice Triton uses:

    TLC_MATH_LIB=libdevice TLC_LIBDEVICE=$(python3 tests/gpu/random_vs_triton.py --print-libdevice) \\
        TLC_MATH_DUMP=/tmp/math-ld build-gpu/bin/test_math_gpu
    python3 tests/gpu/math_vs_triton.py /tmp/math-ld

(with the default math library, libclc, most functions differ in the last
bit somewhere).  Needs torch and triton.
"""
import importlib.util
import os
import sys
import tempfile

import numpy as np
import torch
import triton  # noqa: F401  (the generated module imports it too)

BLOCK = 256
NP = {"fp32": np.float32, "fp64": np.float64, "i32": np.int32, "u32": np.uint32, "i64": np.int64}
BITS = {"fp32": np.uint32, "fp64": np.uint64, "i32": np.uint32, "u32": np.uint32, "i64": np.uint64}
TEMPLATE = '''import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def k(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(z_ptr + offs, {expr}, mask=m)
'''


def kernel_for(expr, folder, cache={}):
    """Triton's JIT reads the kernel's source file: write one per expression and import it."""
    if expr in cache:
        return cache[expr]
    path = os.path.join(folder, f"k{len(cache)}.py")
    with open(path, "w") as f:
        f.write(TEMPLATE.format(expr=expr))
    spec = importlib.util.spec_from_file_location(f"tlc_math_k{len(cache)}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    cache[expr] = mod.k
    return mod.k


def to_torch(a):
    if a.dtype == np.uint32:  # torch's uint32 tensors load and store; fall back to the bits as int32
        try:
            return torch.from_numpy(a.copy()).cuda()
        except (TypeError, RuntimeError):
            return torch.from_numpy(a.view(np.int32).copy()).cuda()
    return torch.from_numpy(a.copy()).cuda()


MAX_ULP = 2  # issue 15's acceptance: within 2 ulp of Triton's results


def ulp_distance(a_bits, b_bits, ty):
    """Units in the last place between two arrays of float bits: the distance
    on the line of ordered integers (-0 and +0 adjacent, sign crossings counted)."""
    sint, width = (np.int32, 32) if ty == "fp32" else (np.int64, 64)

    def ordered(bits):
        v = bits.view(sint).astype(object if width == 64 else np.int64)
        return np.where(v < 0, -(v & ((1 << (width - 1)) - 1)), v)
    return np.abs(ordered(a_bits) - ordered(b_bits)).astype(np.float64)


def compare(folder, line, tmp):
    name, in_ty, out_ty, n, expr, file = line.split("\t")[:6]
    n = int(n)
    raw = open(os.path.join(folder, file), "rb").read()
    isz, osz = np.dtype(NP[in_ty]).itemsize, np.dtype(NP[out_ty]).itemsize
    x = np.frombuffer(raw, dtype=NP[in_ty], count=n, offset=0)
    y = np.frombuffer(raw, dtype=NP[in_ty], count=n, offset=n * isz)
    z = np.frombuffer(raw, dtype=NP[out_ty], count=n, offset=2 * n * isz)
    label = f"{name} {in_ty}"
    try:
        k = kernel_for(expr, tmp)
        zt = torch.empty(n, dtype=getattr(torch, {"fp32": "float32", "fp64": "float64", "i32": "int32",
                                                   "u32": "int32", "i64": "int64"}[out_ty]), device="cuda")
        k[(triton.cdiv(n, BLOCK),)](to_torch(x), to_torch(y), zt, n, BLOCK=BLOCK)
        tri = zt.cpu().numpy().view(BITS[out_ty])
    except Exception as e:  # Triton refused the expression (its typing), or it failed
        msg = str(e).strip().splitlines()
        print(f"SKIP fn={label} expr={expr!r}: Triton: {msg[-1] if msg else type(e).__name__}")
        return None
    mine = z.view(BITS[out_ty])
    differ = mine != tri
    nan_bits = 0
    if out_ty in ("fp32", "fp64"):
        both_nan = np.isnan(z) & np.isnan(tri.view(NP[out_ty]))
        nan_bits = int((differ & both_nan).sum())
        differ &= ~both_nan
    bad = int(differ.sum())
    extra = ""
    max_ulp = 0
    if bad:
        i = int(np.argmax(differ))
        extra = f" first_at={i} x={x[i]!r} tlc={z[i]!r} triton={tri.view(NP[out_ty])[i]!r}"
        if out_ty in ("fp32", "fp64"):
            max_ulp = int(ulp_distance(mine, tri, out_ty)[differ].max())
            extra += f" max_ulp={max_ulp}"
    # bit for bit, or for floating-point results within MAX_ULP of Triton's
    ok = bad == 0 or (out_ty in ("fp32", "fp64") and max_ulp <= MAX_ULP)
    print(f"BITS fn={label} n={n} differing={bad} nan_payloads_differing={nan_bits} "
          f"status={'PASS' if ok else 'FAIL'}{extra}")
    return bad, ok


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    folder = sys.argv[1]
    index = os.path.join(folder, "index.tsv")
    if not os.path.exists(index):
        print(f"no {index} (run test_math_gpu with TLC_MATH_DUMP={folder})")
        return 2
    lines = open(index).read().splitlines()
    header = lines[0] if lines and lines[0].startswith("#") else ""
    math_lib = header.split("math_lib=")[-1] if "math_lib=" in header else "unknown"
    print(f"tlc's math library: {math_lib}; Triton {triton.__version__}")
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        sys.path.insert(0, tmp)
        for line in lines:
            if line and not line.startswith("#"):
                results.append(compare(folder, line, tmp))
    ran = [r for r in results if r is not None]
    differing = sum(1 for bad, _ in ran if bad)
    failed = sum(1 for _, good in ran if not good)
    ok = bool(ran) and failed == 0
    print(f"VERDICT {'PASS' if ok else 'FAIL'}: math_lib={math_lib} functions={len(ran)} "
          f"bit_identical={len(ran) - differing} beyond_{MAX_ULP}_ulp={failed} "
          f"values_differing={sum(bad for bad, _ in ran)} skipped={len(results) - len(ran)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
