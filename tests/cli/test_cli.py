#!/usr/bin/env python3
"""test_cli.py TLC — the command line behaves like a C compiler's.

Each check runs bin/tlc and looks at its exit status, stdout and stderr:
long options with '=' or a separate value, short options attached (-O2,
-Cname=v, -o-), options after the operand, `--` before an operand that
starts with '-', FILE '-' (stdin) and `-o -` (stdout), the exit statuses
(0 ok, 1 input error, 2 usage error), --time's table, and colored
diagnostics: --color=always|never|auto, auto on a terminal (a pty here)
unless NO_COLOR is set or TERM is dumb.  CPU only; writes only below a
temporary folder.
"""
import os
import pty
import subprocess
import sys
import tempfile

TLC = os.path.abspath(sys.argv[1])
KERNEL = """import triton
import triton.language as tl

@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)
"""
BAD = KERNEL.replace("offs < n) + 1.0", "offs < nn) + 1.0")
SIG = "*fp32:16,i32,64"
ESC = "\x1b["
failures = 0


def check(cond, what, detail=""):
    global failures
    if not cond:
        failures += 1
        print(f"FAIL: {what}\n{detail}")
    else:
        print(f"ok: {what}")


def run(*args, stdin=None, env=None):
    e = dict(os.environ)
    e.pop("NO_COLOR", None)
    e.update(env or {})
    return subprocess.run([TLC, *args], input=stdin, capture_output=True, text=True, env=e, cwd=tmp)


def run_on_tty(*args, env=None):
    """Run tlc with stderr (and stdout) on a pseudo-terminal; return (status, output)."""
    e = dict(os.environ)
    e.pop("NO_COLOR", None)
    e["TERM"] = "xterm"
    e.update(env or {})
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(tmp)
        os.execve(TLC, [TLC, *args], e)
    out = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out.decode(errors="replace")


with tempfile.TemporaryDirectory() as tmp:
    with open(os.path.join(tmp, "k.tile"), "w") as f:
        f.write(KERNEL)
    with open(os.path.join(tmp, "bad.tile"), "w") as f:
        f.write(BAD)
    with open(os.path.join(tmp, "-dash.tile"), "w") as f:
        f.write(KERNEL)

    # --opt=value, --opt value, options after the operand
    r = run("compile", "k.tile", f"--signature={SIG}", "--num-warps=8", "--emit=tir")
    check(r.returncode == 0 and "{num_warps=8}" in r.stdout, "--num-warps=8 --emit=tir", r.stderr)
    r = run("compile", "--signature", SIG, "--num-warps", "2", "--emit", "tir", "k.tile")
    check(r.returncode == 0 and "{num_warps=2}" in r.stdout, "--num-warps 2 --emit tir (separate values)", r.stderr)
    r = run("compile", "k.tile", f"--signature={SIG}", "--num-stages=2", "--arch=sm_80", "--emit=ptx")
    check(r.returncode == 0 and ".target sm_80" in r.stdout, "--arch=sm_80", r.stderr)
    # -C attached and separate, --constexpr=
    for form in (["-CBLOCK=64"], ["-C", "BLOCK=64"], ["--constexpr=BLOCK=64"]):
        r = run("compile", "k.tile", "--signature=*fp32:16,i32", *form, "--emit=tir")
        check(r.returncode == 0 and "arange {start=0, end=64}" in r.stdout, f"constexpr as {form}", r.stderr)
    # -O forms
    for form in (["-O0"], ["-O2"], ["-O"], ["--opt-level=1"]):
        r = run("compile", "k.tile", f"--signature={SIG}", "--emit=llvm", *form)
        check(r.returncode == 0 and "define" in r.stdout, f"{form[0]} accepted", r.stderr)
    r = run("compile", "k.tile", f"--signature={SIG}", "-O4")
    check(r.returncode == 2 and "optimisation level must be 0, 1, 2 or 3, not 4" in r.stderr, "-O4 is a usage error", r.stderr)
    r = run("compile", "k.tile", f"--signature={SIG}", "-Ofast")
    check(r.returncode == 2 and "-O expects a number, got 'fast'" in r.stderr, "-Ofast is a usage error", r.stderr)
    # the library's limits reach the command line as usage errors
    r = run("compile", "k.tile", f"--signature={SIG}", "--num-warps=64")
    check(r.returncode == 2 and "num_warps must be a power of two from 1 to 32, not 64" in r.stderr,
          "--num-warps=64 refused", r.stderr)
    r = run("compile", "k.tile", f"--signature={SIG}", "--num-stages=17")
    check(r.returncode == 2 and "num_stages must be from 1 to 16, not 17" in r.stderr, "--num-stages=17 refused", r.stderr)
    # --, stdin, -o - and -o- (stdout)
    r = run("compile", f"--signature={SIG}", "--emit=tir", "--", "-dash.tile")
    check(r.returncode == 0 and "func @k" in r.stdout, "-- before an operand starting with '-'", r.stderr)
    r = run("compile", f"--signature={SIG}", "--emit=tir", "-", stdin=KERNEL)
    check(r.returncode == 0 and "func @k" in r.stdout, "FILE '-' reads stdin", r.stderr)
    for form in (["-o", "-"], ["-o-"], ["--output=-"]):
        r = run("compile", "k.tile", f"--signature={SIG}", "--emit=tir", *form)
        check(r.returncode == 0 and "func @k" in r.stdout, f"{' '.join(form)} writes stdout", r.stderr)
    r = run("compile", "k.tile", f"--signature={SIG}", "--emit=tir", "-o", "out.tir")
    check(r.returncode == 0 and r.stdout == "" and "func @k" in open(os.path.join(tmp, "out.tir")).read(),
          "-o FILE writes the file, nothing on stdout", r.stderr)
    # tlc opt: the tile IR of k.tile read back, on stdin or from a file, for a target given on the line
    r = run("compile", "k.tile", f"--signature={SIG}", "--emit=tir-spec", "-o", "k.tir")
    r = run("opt", "k.tir", "--pass=canonicalize", "--pass", "coalesce", "--arch=sm_80", "--num-stages=2")
    check(r.returncode == 0 and "{vec=1}" in r.stdout, "tlc opt --pass twice, --arch, --num-stages", r.stderr)
    r = run("opt", "-", "--pass=canonicalize,nonesuch", stdin=open(os.path.join(tmp, "k.tir")).read())
    check(r.returncode == 1 and "no pass named 'nonesuch'" in r.stderr, "tlc opt: an unknown pass", r.stderr)
    # usage errors: exit 2 with a hint
    for args, msg in ((["compile", "k.tile", "--bogus"], "unknown option '--bogus'"),
                      (["compile", "k.tile", "-q"], "unknown option '-q'"),
                      (["compile", "k.tile", "--signature"], "option '--signature' needs a value"),
                      (["compile", "k.tile", "--emit=exe"], "unknown --emit kind 'exe'"),
                      (["compile", "k.tile", "other.tile"], "more than one input file"),
                      (["compile"], "no input file"),
                      (["opt", "x.tir", "--signature=i32"], "--signature is not an option of 'tlc opt'"),
                      (["compile", "k.tile", "--color=sometimes"], "--color expects auto, always or never"),
                      (["compile", "k.tile", "--math-lib=cuda"], "--math-lib expects auto, libdevice or libclc, got 'cuda'"),
                      (["opt", "x.tir", "--math-lib=libdevice"], "--math-lib is not an option of 'tlc opt'"),
                      (["frobnicate"], "unknown command 'frobnicate'")):
        r = run(*args)
        check(r.returncode == 2 and msg in r.stderr and "tlc --help" in r.stderr, f"usage error: {msg}", r.stderr)
    # input errors: exit 1; a missing file too
    r = run("compile", "bad.tile", f"--signature={SIG}")
    check(r.returncode == 1 and "bad.tile:7:" in r.stderr and r.stdout == "", "an error in the kernel: status 1", r.stderr)
    r = run("compile", "missing.tile", f"--signature={SIG}")
    check(r.returncode == 1 and "cannot read 'missing.tile'" in r.stderr, "a missing file: status 1", r.stderr)
    # --time: one line per stage, then the total
    r = run("compile", "k.tile", f"--signature={SIG}", "--time", "-o", "k.ptx")
    stages = ["front end", "passes", "LLVM IR", "optimisation", "PTX", "total"]
    lines = [l.strip() for l in r.stderr.splitlines()]
    check(r.returncode == 0 and all(any(l.startswith(s) and l[len(s):].strip()[0].isdigit() for l in lines) for s in stages),
          "--time prints every stage's time", r.stderr)
    r = run("compile", "k.tile", f"--signature={SIG}", "--time", "--emit=tir")
    lines = [l.strip() for l in r.stderr.splitlines()]
    check(r.returncode == 0 and "optimisation -" in [" ".join(l.split()) for l in lines],
          "--time with --emit=tir marks the stages that did not run", r.stderr)
    # colors
    r = run("compile", "bad.tile", f"--signature={SIG}", "--color=always")
    check(ESC in r.stderr and "error:" in r.stderr, "--color=always colors a pipe", r.stderr)
    r = run("compile", "bad.tile", f"--signature={SIG}", "--color")
    check(ESC in r.stderr, "--color alone is always", r.stderr)
    r = run("compile", "bad.tile", f"--signature={SIG}")
    check(ESC not in r.stderr, "no colors on a pipe by default", r.stderr)
    st, out = run_on_tty("compile", "bad.tile", f"--signature={SIG}")
    check(st == 1 and ESC in out, "colors on a terminal by default", out)
    st, out = run_on_tty("compile", "bad.tile", f"--signature={SIG}", env={"NO_COLOR": "1"})
    check(st == 1 and ESC not in out and "error:" in out, "NO_COLOR turns them off", out)
    st, out = run_on_tty("compile", "bad.tile", f"--signature={SIG}", env={"NO_COLOR": ""})
    check(st == 1 and ESC in out, "an empty NO_COLOR does not", out)
    st, out = run_on_tty("compile", "bad.tile", f"--signature={SIG}", env={"TERM": "dumb"})
    check(st == 1 and ESC not in out, "TERM=dumb turns them off", out)
    st, out = run_on_tty("compile", "bad.tile", f"--signature={SIG}", "--color=never")
    check(st == 1 and ESC not in out, "--color=never on a terminal", out)
    st, out = run_on_tty("compile", "bad.tile", f"--signature={SIG}", "--color=always", env={"NO_COLOR": "1"})
    check(st == 1 and ESC in out, "--color=always wins over NO_COLOR", out)
    st, out = run_on_tty("compile", "k.tile", f"--signature={SIG}", "--bogus")
    check(st == 2 and ESC in out, "tlc's own usage errors are colored on a terminal", out)

print(f"test_cli: {'FAIL' if failures else 'ok'}, {failures} failures")
sys.exit(1 if failures else 0)
