#!/usr/bin/env python3
"""random_vs_triton.py DIR — tlc's random numbers against Triton's, bit for bit.

Run tlc's GPU test with TLC_RANDOM_DUMP=DIR first (it writes DIR/CASE.bin:
the seed, the offsets and tlc's outputs of tl.randint4x / randint / rand /
randn / rand4x / randn4x); this script runs the same kernel with Triton on
the same offsets and seed and prints, per case and output, how many values
differ (and for the normals the largest difference in ulp).  Needs torch and
triton (the GPU machine has both):

    TLC_RANDOM_DUMP=/tmp/rnd build-gpu/bin/test_random_gpu
    python3 tests/gpu/random_vs_triton.py /tmp/rnd
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


def compare(path):
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
    total = 0
    for r, row in enumerate(ROWS):
        diff = tlc[r] != tri[r]
        bad = int(diff.sum())
        total += bad if r not in NORMAL_ROWS else 0
        extra = ""
        if r in NORMAL_ROWS and bad:
            ulps = np.abs(tlc[r].view(np.int32).astype(np.int64) - tri[r].view(np.int32).astype(np.int64))
            extra = f" max_ulp={int(ulps.max())}"
        first = f" first_at={int(np.argmax(diff))}" if bad else ""
        print(f"  {row:10s} differing={bad}{extra}{first}")
    print(f"  integers and uniforms bit-identical: {'yes' if total == 0 else 'NO'}")
    return total == 0


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    files = sorted(glob.glob(os.path.join(sys.argv[1], "*.bin")))
    if not files:
        print(f"no .bin files in {sys.argv[1]} (run test_random_gpu with TLC_RANDOM_DUMP={sys.argv[1]})")
        return 2
    ok = all([compare(f) for f in files])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
