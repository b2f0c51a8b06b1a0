#!/usr/bin/env python3
"""random_vs_triton.py [--normals] DIR — tlc's random numbers against Triton's, bit for bit.

Run tlc's GPU test with TLC_RANDOM_DUMP=DIR first (it writes DIR/CASE.bin:
the seed, the offsets and tlc's outputs of tl.randint4x / randint / rand /
randn / rand4x / randn4x, and DIR/math_lib.txt: the TLC_MATH_LIB it ran
with); this script runs the same kernel with Triton on the same offsets and
seed and prints, per case and output, how many values differ (and for the
normals the largest difference in ulp), then one VERDICT line.  The
integers and uniforms must always be identical; the normals too with
--normals, or when the dump was made with TLC_MATH_LIB=libdevice (then tlc
calls libdevice's logf/cosf/sinf/sqrtf as Triton does; with the default
math library about 3% of the normals differ by 1 to 3 ulp).  For identical
normals tlc must link the libdevice Triton uses: TLC_LIBDEVICE=the
libdevice.10.bc under triton/backends/nvidia/lib (--print-libdevice prints
its path).  Needs torch and triton (the GPU machine has both):

    TLC_RANDOM_DUMP=/tmp/rnd build-gpu/bin/test_random_gpu
    python3 tests/gpu/random_vs_triton.py /tmp/rnd
    TLC_MATH_LIB=libdevice TLC_LIBDEVICE=$(python3 tests/gpu/random_vs_triton.py --print-libdevice) \
        TLC_RANDOM_DUMP=/tmp/rnd-ld build-gpu/bin/test_random_gpu
    python3 tests/gpu/random_vs_triton.py --normals /tmp/rnd-ld
"""
import glob
import os
import struct
import sys

import numpy as np
import torch
import triton
import triton.language as tl

ROWS = ["w0", "w1", "w2", "w3", "randint", "rand", "randn", "rand4x.0", "rand4x.1", "rand4x.2", "rand4x.3",
        "randn4x.0", "randn4x.1", "randn4x.2", "randn4x.3"]
NORMAL_ROWS = {6, 11, 12, 13, 14}


@triton.jit
def k(out_ptr, off_ptr, seed, n, BLOCK: tl.constexpr, ROUNDS: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    off = tl.load(off_ptr + i, mask=m)
    a, b, c, d = tl.randint4x(seed, off, ROUNDS)
    tl.store(out_ptr + 0 * n + i, a.to(tl.uint32), mask=m)
    tl.store(out_ptr + 1 * n + i, b.to(tl.uint32), mask=m)
    tl.store(out_ptr + 2 * n + i, c.to(tl.uint32), mask=m)
    tl.store(out_ptr + 3 * n + i, d.to(tl.uint32), mask=m)
    tl.store(out_ptr + 4 * n + i, tl.randint(seed, off, n_rounds=ROUNDS).to(tl.uint32), mask=m)
    tl.store(out_ptr + 5 * n + i, tl.rand(seed, off, ROUNDS).to(tl.uint32, bitcast=True), mask=m)
    tl.store(out_ptr + 6 * n + i, tl.randn(seed, off, ROUNDS).to(tl.uint32, bitcast=True), mask=m)
    u0, u1, u2, u3 = tl.rand4x(seed, off, ROUNDS)
    tl.store(out_ptr + 7 * n + i, u0.to(tl.uint32, bitcast=True), mask=m)
    tl.store(out_ptr + 8 * n + i, u1.to(tl.uint32, bitcast=True), mask=m)
    tl.store(out_ptr + 9 * n + i, u2.to(tl.uint32, bitcast=True), mask=m)
    tl.store(out_ptr + 10 * n + i, u3.to(tl.uint32, bitcast=True), mask=m)
    n0, n1, n2, n3 = tl.randn4x(seed, off, ROUNDS)
    tl.store(out_ptr + 11 * n + i, n0.to(tl.uint32, bitcast=True), mask=m)
    tl.store(out_ptr + 12 * n + i, n1.to(tl.uint32, bitcast=True), mask=m)
    tl.store(out_ptr + 13 * n + i, n2.to(tl.uint32, bitcast=True), mask=m)
    tl.store(out_ptr + 14 * n + i, n3.to(tl.uint32, bitcast=True), mask=m)


def triton_libdevice():
    """The libdevice file Triton links: $TRITON_LIBDEVICE_PATH, else the one it ships."""
    env = os.environ.get("TRITON_LIBDEVICE_PATH")
    if env:
        return env
    return os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "lib", "libdevice.10.bc")


def compare(path, want_normals):
    raw = open(path, "rb").read()
    seed, wide, rounds, n = struct.unpack_from("<qiii", raw, 0)
    pos = 20
    odt = np.int64 if wide else np.int32
    offs = np.frombuffer(raw, dtype=odt, count=n, offset=pos)
    pos += offs.nbytes
    tlc = np.frombuffer(raw, dtype=np.uint32, count=n * len(ROWS), offset=pos).reshape(len(ROWS), n)
    out = torch.zeros(len(ROWS) * n, dtype=torch.int32, device="cuda")  # the words, stored as their bits
    k[(n // 256,)](out, torch.from_numpy(offs.copy()).cuda(), seed, n, BLOCK=256, ROUNDS=rounds)
    tri = out.view(len(ROWS), n).cpu().numpy().view(np.uint32)
    name = os.path.basename(path)[:-4]
    print(f"{name}: seed={seed} offsets={'i64' if wide else 'i32'} rounds={rounds} n={n}")
    total = normals = 0
    for r, row in enumerate(ROWS):
        diff = tlc[r] != tri[r]
        bad = int(diff.sum())
        total += bad if r not in NORMAL_ROWS else 0
        normals += bad if r in NORMAL_ROWS else 0
        extra = ""
        if r in NORMAL_ROWS and bad:
            ulps = np.abs(tlc[r].view(np.int32).astype(np.int64) - tri[r].view(np.int32).astype(np.int64))
            extra = f" max_ulp={int(ulps.max())}"
        first = f" first_at={int(np.argmax(diff))}" if bad else ""
        print(f"  {row:10s} differing={bad}{extra}{first}")
    print(f"  integers and uniforms bit-identical: {'yes' if total == 0 else 'NO'}")
    print(f"  normals bit-identical: {'yes' if normals == 0 else 'NO'} ({normals} of {n * len(NORMAL_ROWS)} differ)"
          f"{'' if want_normals else ' (not required)'}")
    return total, normals, n * len(NORMAL_ROWS)


def main():
    args = sys.argv[1:]
    if args == ["--print-libdevice"]:
        print(triton_libdevice())
        return 0
    want_normals = "--normals" in args
    args = [a for a in args if a != "--normals"]
    if len(args) != 1:
        print(__doc__)
        return 2
    files = sorted(glob.glob(os.path.join(args[0], "*.bin")))
    if not files:
        print(f"no .bin files in {args[0]} (run test_random_gpu with TLC_RANDOM_DUMP={args[0]})")
        return 2
    lib_file = os.path.join(args[0], "math_lib.txt")
    math_lib = open(lib_file).read().strip() if os.path.exists(lib_file) else "unknown"
    want_normals = want_normals or math_lib.startswith("libdevice")
    print(f"tlc's math library: {math_lib}; Triton {triton.__version__}, its libdevice {triton_libdevice()}")
    results = [compare(f, want_normals) for f in files]
    words = sum(r[0] for r in results)
    normals, of = sum(r[1] for r in results), sum(r[2] for r in results)
    ok = words == 0 and (normals == 0 or not want_normals)
    print(f"VERDICT {'PASS' if ok else 'FAIL'}: math_lib={math_lib} integers_uniforms_differing={words} "
          f"normals_differing={normals}/{of}{'' if want_normals else ' (normals not required)'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
