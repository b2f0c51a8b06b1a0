#!/usr/bin/env python3
"""interp_vs_gpu.py CPU_DIR GPU_DIR — the example programs' outputs from the
interpreter (TLC_DEVICE=cpu) against the GPU's, case by case.

Both folders were filled by the same programs run with the same --seed and
TLC_EXAMPLES_SMALL=1 (the same cases, the same inputs) and
TLC_EXAMPLES_DUMP=DIR: DIR/index.txt lists "FILE LABEL SIZE ELEM TOL EXACT"
(examples/common/host.c).  A case matches when its outputs are bit for bit
equal or, where the order of a reduction or dot may differ, within the
example's own relative L2 tolerance of each other; data-movement cases
(EXACT 1) must be bit for bit equal.  Prints one line per kernel label and
a VERDICT line; exit 1 on a mismatch or when nothing was compared.
"""
import math
import os
import struct
import sys

cpu_dir, gpu_dir = sys.argv[1], sys.argv[2]
SIZES = {0: 4, 1: 2, 2: 2, 3: 1, 4: 1, 5: 1}


def decode(raw, elem):
    if elem == 0:
        return struct.unpack("<%df" % (len(raw) // 4), raw)
    if elem == 1:
        return struct.unpack("<%de" % (len(raw) // 2), raw)
    if elem == 2:
        return [struct.unpack("<f", b"\0\0" + raw[i:i + 2])[0] for i in range(0, len(raw), 2)]
    if elem == 5:
        return struct.unpack("<%db" % len(raw), raw)

    def f8(b, e5):
        s = -1.0 if b & 0x80 else 1.0
        if e5:
            e, m = (b >> 2) & 31, b & 3
            return s * (m * 2.0 ** -16 if e == 0 else float("nan") if e == 31 else (1 + m / 4) * 2.0 ** (e - 15))
        e, m = (b >> 3) & 15, b & 7
        return float("nan") if (e == 15 and m == 7) else s * (m * 2.0 ** -9 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7))
    return [f8(b, elem == 4) for b in raw]


def index(d):
    seen, out = {}, {}
    for line in open(os.path.join(d, "index.txt")):
        f = line.split()
        if len(f) != 6:
            continue
        key = (f[1], f[2])
        seen[key] = seen.get(key, 0) + 1
        out[key + (seen[key],)] = (os.path.join(d, f[0] + ".bin"), int(f[3]), float(f[4]), f[5] == "1")
    return out


cpu, gpu = index(cpu_dir), index(gpu_dir)
rows = {}
bad = 0
for key in cpu:
    if key not in gpu:
        continue
    (cf, elem, tol, exact), (gf, _, _, _) = cpu[key], gpu[key]
    a, b = open(cf, "rb").read(), open(gf, "rb").read()
    r = rows.setdefault(key[0], [0, 0, 0, 0, 0.0])
    r[0] += 1
    if a == b:
        r[1] += 1
        continue
    if exact or len(a) != len(b):
        r[3] += 1
        bad += 1
        continue
    x, y = decode(a, elem), decode(b, elem)
    num = sum((p - q) ** 2 for p, q in zip(x, y) if math.isfinite(p) and math.isfinite(q))
    den = sum(q * q for q in y if math.isfinite(q)) or 1.0
    nonfinite = sum(1 for p, q in zip(x, y) if math.isfinite(p) != math.isfinite(q))
    e = math.sqrt(num / den)
    r[4] = max(r[4], e)
    if e <= tol and nonfinite == 0:
        r[2] += 1
    else:
        r[3] += 1
        bad += 1

print("\n%-28s %6s %14s %12s %8s %12s" % ("interpreter vs GPU", "cases", "bit-identical", "within tol", "beyond", "max rel err"))
for label in sorted(rows):
    n, same, within, beyond, e = rows[label]
    print("%-28s %6d %14d %12d %8d %12.2e" % (label, n, same, within, beyond, e))
total = sum(r[0] for r in rows.values())
same = sum(r[1] for r in rows.values())
ok = total > 0 and bad == 0
print("VERDICT %s: %d cases compared, %d bit for bit, %d within the examples' tolerances, %d beyond"
      % ("PASS" if ok else "FAIL", total, same, total - same - bad, bad))
sys.exit(0 if ok else 1)
