#!/usr/bin/env python3
"""ptx_corpus.py — the machine code of every kernel tlc ships or benchmarks,
to show that a change to the compiler's own speed left the kernels alone.

    ptx_corpus.py build BUILD_DIR OUT_DIR [-j N] [--arch sm_90a] [--only REGEX] [--no-ptxas]
    ptx_corpus.py compare DIR_A DIR_B

`build` compiles the corpus with BUILD_DIR/bin/tlc: every row of
examples/kernels.txt, every kernel the tensor-core benchmark times
(tlc_bench_tc --print-configs; an autotuned row stands for each config of the
kernel's @triton.autotune decorator, as bench/check_spills.sh expands it),
and a small kernel per float math function (ir/mathfns.def, the tile IR's
math ops) in fp32 and fp64 with libdevice and with libclc.
Each kernel's PTX goes to OUT_DIR/NAME.ptx; where ptxas is on the PATH it is
assembled (ptxas -arch=ARCH -v) into OUT_DIR/NAME.cubin, and its register and
spill report goes to OUT_DIR/NAME.info.  OUT_DIR/index.txt lists the kernels
with the command that made each.

`compare` pairs the kernels of two such folders and prints, for each kernel
whose machine code differs, the registers, spills and code size on both
sides.  Two cubins that are the same bytes hold the same machine code: the
kernel runs exactly as before, whatever the PTX text looks like.  Exit 0 when
every kernel's cubin (or, without ptxas, its PTX) is identical, 1 otherwise.
"""
import argparse
import concurrent.futures as cf
import os
import re
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def kernels_txt():
    """(name, tile, kernel, signature, [constexpr...], warps, stages) per row."""
    rows = []
    with open(os.path.join(ROOT, "examples", "kernels.txt")) as f:
        for line in f:
            w = line.split()
            if not w or w[0].startswith("#"):
                continue
            rows.append((w[0], w[1], w[2], w[3], w[4:], None, None))
    return rows


def bench_rows(tlc, bench_tc):
    """The benchmarked kernels, autotuned rows expanded to their configs."""
    out = subprocess.run([bench_tc, "--print-configs"], capture_output=True, text=True, check=True).stdout
    rows, seen = [], set()
    for line in out.splitlines():
        w = line.split()
        if len(w) != 6:
            continue
        row, tile, kernel, sig, warps, stages = w
        configs = []
        if warps == "autotune":
            text = subprocess.run([tlc, "autotune", os.path.join(ROOT, "examples", tile), "--kernel", kernel],
                                  capture_output=True, text=True, check=True).stdout
            for cl in text.splitlines():
                ws = cl.split()
                if not ws or ws[0] == "key:":
                    continue
                cx = [x for x in ws if not x.startswith(("num_warps=", "num_stages="))]
                nw = next(x.split("=")[1] for x in ws if x.startswith("num_warps="))
                ns = next(x.split("=")[1] for x in ws if x.startswith("num_stages="))
                configs.append((cx, nw, ns))
        else:
            configs.append(([], warps, stages))
        for cx, nw, ns in configs:
            key = (kernel, sig, tuple(cx), nw, ns)
            if key in seen:
                continue
            seen.add(key)
            name = "bench.%s.%d" % (row, len(rows))
            rows.append((name, tile, kernel, sig, cx, nw, ns))
    return rows


MATH_TILE = """import triton
import triton.language as tl
from triton.language.extra.cuda import libdevice

@triton.jit
def unary(x_ptr, y_ptr, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + o)
    tl.store(y_ptr + o, FN(x))

@triton.jit
def binary(x_ptr, y_ptr, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + o)
    tl.store(y_ptr + o, FN(x, x * 0.5 + 1.0))

@triton.jit
def ternary(x_ptr, y_ptr, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + o)
    tl.store(y_ptr + o, FN(x, x * 0.5, x + 2.0))
"""


def math_rows(out_dir):
    """A kernel per float math function (ir/mathfns.def's MK_FLOAT rows and
    the tile IR's own math ops) in fp32 and fp64, with libdevice and with
    libclc: the math library's code, branches and loops included, is the
    largest code a kernel can pull in."""
    fns = []
    defs = open(os.path.join(ROOT, "ir", "mathfns.def")).read()
    for name, nargs in re.findall(r'MATHFN\(\w+,\s*"(\w+)",\s*(\d),\s*MK_FLOAT\s*,', defs):
        fns.append(("libdevice." + name, int(nargs)))
    fns += [("tl." + f, 1) for f in ("exp", "exp2", "log", "log2", "sin", "cos", "sqrt", "rsqrt", "erf", "floor",
                                     "ceil", "sigmoid")]
    rows = []
    for fn, nargs in fns:
        tile = os.path.join(out_dir, "math_%s.tile" % fn.replace(".", "_"))
        with open(tile, "w") as f:
            f.write(MATH_TILE.replace("FN(", fn + "("))
        kernel = {1: "unary", 2: "binary", 3: "ternary"}[nargs]
        for ty in ("fp32", "fp64"):
            for lib in ("libdevice", "libclc"):
                name = "math.%s.%s.%s" % (fn, ty, lib)
                rows.append((name, tile, kernel, "*%s:16,*%s:16,256" % (ty, ty), ["--math-lib=" + lib], None, None))
    return rows


def compile_one(tlc, ptxas, arch, out_dir, r):
    name, tile, kernel, sig, cx, nw, ns = r
    ptx = os.path.join(out_dir, name + ".ptx")
    cmd = [tlc, "compile", os.path.join(ROOT, "examples", tile), "--kernel", kernel, "--signature", sig,
           "--arch", arch, "-o", ptx]
    for c in cx:
        cmd += [c] if c.startswith("--") else ["-C", c]
    if nw:
        cmd += ["--num-warps", nw, "--num-stages", ns]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        msg = p.stderr.strip().splitlines()
        # configs that need more shared memory than the arch has: the autotuner skips them too
        if any("bytes of shared memory per program" in m for m in msg):
            return name, "skipped (shared memory)", cmd
        if name.startswith("math.") and any("is an fp32 function" in m for m in msg):
            return name, "skipped (fp32 only)", cmd
        return name, "FAIL tlc: " + (msg[0] if msg else "exit %d" % p.returncode), cmd
    if not ptxas:
        return name, "ok", cmd
    cubin = os.path.join(out_dir, name + ".cubin")
    q = subprocess.run([ptxas, "-arch=" + arch.replace("sm_90a", "sm_90a"), "-v", ptx, "-o", cubin],
                       capture_output=True, text=True)
    with open(os.path.join(out_dir, name + ".info"), "w") as f:
        f.write(q.stderr)
    if q.returncode != 0:
        return name, "FAIL ptxas: " + q.stderr.strip().splitlines()[0], cmd
    return name, "ok", cmd


def cmd_build(a):
    tlc = os.path.join(a.build, "bin", "tlc")
    bench_tc = os.path.join(a.build, "bin", "tlc_bench_tc")
    ptxas = None if a.no_ptxas else shutil.which("ptxas")
    os.makedirs(a.out, exist_ok=True)
    rows = kernels_txt() + bench_rows(tlc, bench_tc) + math_rows(a.out)
    if a.only:
        rows = [r for r in rows if re.search(a.only, r[0])]
    fails = 0
    with cf.ThreadPoolExecutor(a.jobs) as ex, open(os.path.join(a.out, "index.txt"), "w") as idx:
        for name, status, cmd in ex.map(lambda r: compile_one(tlc, ptxas, a.arch, a.out, r), rows):
            idx.write("%s\t%s\t%s\n" % (name, status, " ".join(cmd[1:])))
            if status.startswith("FAIL"):
                fails += 1
                print("%s: %s" % (name, status))
    print("ptx_corpus: %d kernels in %s (%s), %d failed" % (len(rows), a.out,
          "ptxas " + ptxas if ptxas else "no ptxas: PTX only", fails))
    return 1 if fails else 0


def text_bytes(cubin):
    """Bytes of the kernel's code (.text.* sections of the cubin's ELF)."""
    with open(cubin, "rb") as f:
        d = f.read()
    shoff, = struct.unpack_from("<Q", d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3A)
    def sh(i):
        return struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize)
    stroff = sh(shstrndx)[4]
    total = 0
    for i in range(shnum):
        s = sh(i)
        nm = d[stroff + s[0]:d.index(b"\0", stroff + s[0])].decode()
        if nm.startswith(".text."):
            total += s[5]
    return total


def info_facts(path):
    try:
        t = open(path).read()
    except OSError:
        return "?"
    regs = re.search(r"Used (\d+) registers", t)
    sp = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", t)
    return "%s regs, %s spill" % (regs.group(1) if regs else "?", sp.group(1) if sp else "?")


def cmd_compare(a):
    def index(d):
        res = {}
        for line in open(os.path.join(d, "index.txt")):
            name, status, _ = line.rstrip("\n").split("\t", 2)
            res[name] = status
        return res
    ia, ib = index(a.a), index(a.b)
    same_cubin = same_ptx = differ = missing = 0
    for name in sorted(set(ia) | set(ib)):
        sa, sb = ia.get(name), ib.get(name)
        if sa != "ok" or sb != "ok":
            if sa != sb:
                print("%-40s %s | %s" % (name, sa, sb))
                missing += 1
            continue
        pa, pb = (os.path.join(d, name + ".ptx") for d in (a.a, a.b))
        ca, cb = (os.path.join(d, name + ".cubin") for d in (a.a, a.b))
        if open(pa, "rb").read() == open(pb, "rb").read():
            same_ptx += 1
            continue
        if os.path.exists(ca) and os.path.exists(cb):
            if open(ca, "rb").read() == open(cb, "rb").read():
                same_cubin += 1
                continue
            print("%-40s %s, %d B code | %s, %d B code" % (
                name, info_facts(os.path.join(a.a, name + ".info")), text_bytes(ca),
                info_facts(os.path.join(a.b, name + ".info")), text_bytes(cb)))
        else:
            print("%-40s PTX differs (no cubins)" % name)
        differ += 1
    print("ptx_corpus compare: %d same PTX, %d other PTX but the same cubin, %d different machine code, "
          "%d not comparable" % (same_ptx, same_cubin, differ, missing))
    return 0 if differ == 0 and missing == 0 else 1


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("build")
    b.add_argument("out")
    b.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    b.add_argument("--arch", default="sm_90a")
    b.add_argument("--only")
    b.add_argument("--no-ptxas", action="store_true", help="PTX only, even where ptxas is on the PATH")
    c = sub.add_parser("compare")
    c.add_argument("a")
    c.add_argument("b")
    a = p.parse_args()
    return cmd_build(a) if a.cmd == "build" else cmd_compare(a)


if __name__ == "__main__":
    sys.exit(main())
