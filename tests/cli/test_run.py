#!/usr/bin/env python3
"""test_run.py TLC SRCDIR — `tlc run` (docs/cli.md): a kernel interpreted on
.npy files.

Writes .npy files by hand (struct: no NumPy needed), on fresh random inputs
with the output poisoned (NaN), and checks: vector add against fp32 sums
computed here, bit for bit; an int32 kernel with a negative scalar after
`--`; an out-of-bounds run fails with the located message and leaves every
file byte for byte as it was; a wrong dtype, a wrong argument count, a bad
scalar and a bad --grid are refused with their exit statuses.
"""
import os
import random
import struct
import subprocess
import sys
import tempfile

tlc, src = sys.argv[1], sys.argv[2]
TILE = os.path.join(src, "examples", "vector_add", "vector_add.tile")
SIG = "*fp32:16,*fp32:16,*fp32:16,i32,1024"
failures = 0


def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what)
    failures += 0 if cond else 1


def save(path, code, descr, vals):
    d = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, len(vals))
    h = d + " " * (63 - (10 + len(d)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + struct.pack("<%d%s" % (len(vals), code), *vals))


def load(path, code, size):
    b = open(path, "rb").read()
    hl = struct.unpack("<H", b[8:10])[0]
    data = b[10 + hl:]
    return list(struct.unpack("<%d%s" % (len(data) // size, code), data))


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def kernel_file(path, *lines):
    """A .tile file holding one @triton.jit kernel made of `lines`."""
    with open(path, "w") as f:
        f.write("import triton\nimport triton.language as tl\n\n@triton.jit\n" + "".join(l + "\n" for l in lines))
    return path


def run(*args):
    return subprocess.run([tlc, "run", *args], capture_output=True, text=True)


random.seed(os.getpid())
with tempfile.TemporaryDirectory() as tmp:
    a, b, c = (os.path.join(tmp, n) for n in ("a.npy", "b.npy", "c.npy"))
    n = 3000 + random.randrange(1000)
    av = [f32(random.uniform(-1, 1)) for _ in range(n)]
    bv = [f32(random.uniform(-1, 1)) for _ in range(n)]
    save(a, "f", "<f4", av)
    save(b, "f", "<f4", bv)
    save(c, "f", "<f4", [float("nan")] * n)
    grid = str((n + 1023) // 1024)

    r = run(TILE, "--kernel", "add_kernel", "--signature", SIG, "--grid", grid, a, b, c, str(n))
    check(r.returncode == 0, "vector add runs (%s)" % r.stderr.strip()[:200])
    cv = load(c, "f", 4)
    check(cv == [f32(x + y) for x, y in zip(av, bv)], "c = a + b, every element bit for bit")
    check(load(a, "f", 4) == av and load(b, "f", 4) == bv, "the inputs are unchanged")

    # out of bounds: the grid and n exceed the arrays; nothing may be written
    before = {p: open(p, "rb").read() for p in (a, b, c)}
    save(c, "f", "<f4", [float("nan")] * n)
    before[c] = open(c, "rb").read()
    big = n + 1024
    r = run(TILE, "--kernel", "add_kernel", "--signature", SIG, "--grid", str((big + 1023) // 1024), a, b, c, str(big))
    want = "error: out-of-bounds load of a_ptr + %d (allocation of %d bytes) in program (%d, 0, 0)" % (4 * n, 4 * n, n // 1024)
    check(r.returncode == 1, "an out-of-bounds run exits 1")
    check(want in r.stderr, "its message: " + want)
    check(TILE + ":14:9: error:" in r.stderr and "^~~" in r.stderr, "located at the load, with the source line and a caret")
    check(all(open(p, "rb").read() == before[p] for p in before), "no file was written")

    # an integer kernel with a negative scalar after --
    k = kernel_file(os.path.join(tmp, "k.tile"),
                    "def scale(x_ptr, y_ptr, s, n, BLOCK: tl.constexpr):",
                    "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)",
                    "    m = o < n",
                    "    tl.store(y_ptr + o, tl.load(x_ptr + o, mask=m) * s + (o % 7), mask=m)")
    x, y = os.path.join(tmp, "x.npy"), os.path.join(tmp, "y.npy")
    xv = [random.randrange(-1000, 1000) for _ in range(100)]
    save(x, "i", "<i4", xv)
    save(y, "i", "<i4", [-1] * 100)
    r = run(k, "--signature", "*i32,*i32,i32,i32,64", "--grid", "2", x, y, "--", "-3", "100")
    check(r.returncode == 0, "the int32 kernel runs (%s)" % r.stderr.strip()[:200])
    check(load(y, "i", 4) == [v * -3 + i % 7 for i, v in enumerate(xv)], "y = x * -3 + o % 7")

    # the result written through a symbolic link to a file of mode 0640: the
    # link stays a link, its target gets the result and keeps its mode
    real, link = os.path.join(tmp, "real.npy"), os.path.join(tmp, "link.npy")
    save(real, "i", "<i4", [-1] * 100)
    os.chmod(real, 0o640)
    os.symlink("real.npy", link)
    r = run(k, "--signature", "*i32,*i32,i32,i32,64", "--grid", "2", x, link, "--", "5", "100")
    check(r.returncode == 0, "the run through a link succeeds (%s)" % r.stderr.strip()[:200])
    check(os.path.islink(link) and os.readlink(link) == "real.npy", "the link is still a link to real.npy")
    check(load(real, "i", 4) == [v * 5 + i % 7 for i, v in enumerate(xv)], "its target holds y = x * 5 + o % 7")
    check(os.stat(real).st_mode & 0o7777 == 0o640, "the target kept its mode 0640 (%o)" % (os.stat(real).st_mode & 0o7777))
    check(not [p for p in os.listdir(tmp) if ".tmp" in p], "no temporary file was left behind")

    # one file given twice, once through a link: one array (both results kept)
    k2 = kernel_file(os.path.join(tmp, "k2.tile"),
                     "def two(a_ptr, b_ptr):",
                     "    o = tl.arange(0, 4)",
                     "    tl.store(a_ptr + o, tl.load(a_ptr + o) + 1.0)",
                     "    tl.store(b_ptr + 4 + o, tl.load(b_ptr + 4 + o) + 2.0)")
    z, zl = os.path.join(tmp, "z.npy"), os.path.join(tmp, "zl.npy")
    save(z, "f", "<f4", [0.0] * 8)
    os.symlink("z.npy", zl)
    r = run(k2, "--signature", "*fp32:16,*fp32:16", "--grid", "1", z, zl)
    check(r.returncode == 0, "a file and a link to it run (%s)" % r.stderr.strip()[:200])
    check(load(z, "f", 4) == [1.0] * 4 + [2.0] * 4, "both stores reached the one file (%s)" % load(z, "f", 4))

    r = run(k, "--signature", "*i32,*i32,i32,i32,64", "--grid", "2", c, y, "--", "-3", "100")
    check(r.returncode == 1 and "'<f4', which is not the element type of x_ptr: *i32" in r.stderr,
          "a .npy of another dtype is refused")
    r = run(k, "--signature", "*i32,*i32,i32,i32,64", "--grid", "2", x, y, "7")
    check(r.returncode == 2 and "takes 4 arguments but 3 were given" in r.stderr, "a wrong argument count exits 2")
    r = run(k, "--signature", "*i32,*i32,i32,i32,64", "--grid", "2", x, y, "seven", "100")
    check(r.returncode == 2 and "'seven' is not an integer" in r.stderr, "a bad scalar exits 2")
    r = run(k, "--signature", "*i32,*i32,i32,i32,64", "--grid", "2,0", x, y, "7", "100")
    check(r.returncode == 2 and "--grid expects" in r.stderr, "a bad --grid exits 2")
    r = run(k, "--signature", "*i32,*i32,i32,i32,64", os.path.join(tmp, "none.npy"), y, "7", "100")
    check(r.returncode == 1 and "cannot read" in r.stderr, "a missing file is an error")

print("test_run:", "FAIL" if failures else "ok")
sys.exit(1 if failures else 0)
