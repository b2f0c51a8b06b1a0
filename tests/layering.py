#!/usr/bin/env python3
"""layering.py [ROOT] — the folder graph of tlc's includes, checked.

Reads every #include "folder/file" of the C sources and headers of the
folders below and prints the graph (folder -> folders it includes).  Fails
when an edge is not one of ALLOWED (the architecture: tools -> compiler ->
{frontend, spec, passes, codegen} -> ir -> support; the runtime core apart,
reaching the compiler only from its JIT layer), when the graph has a cycle,
or when a file of the runtime core includes a compiler header.  Includes
of a file's own folder and of generated files (parser.h) are skipped.
The interpreter (interp/) specializes through frontend and spec and reads
the IR; the runtime reaches it from its JIT layer only (cpu_jit.c), the
command line for `tlc run`.
"""
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
FOLDERS = ["support", "frontend", "spec", "ir", "passes", "codegen", "compiler", "interp", "runtime", "tools"]
ALLOWED = {
    "support": set(),
    "frontend": {"support"},
    "ir": {"support"},
    "spec": {"frontend", "ir", "support"},
    "passes": {"ir", "support"},
    "codegen": {"ir", "support"},
    "compiler": {"frontend", "spec", "passes", "codegen", "ir", "support"},
    "interp": {"frontend", "spec", "ir", "support"},
    "runtime": {"compiler", "interp", "support"},
    "tools": {"compiler", "interp"},
}
# The runtime core (tlc_runtime_core): loader, launcher, caches — no compiler.
RUNTIME_CORE = ["driver.c", "runtime.c", "memory.c", "event.c", "kernel.c", "launch.c", "tensor_desc.c", "cache.c",
                "cache.h", "rt_internal.h", "tlc_runtime.h", "cuda_driver.h"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

edges = {f: {} for f in FOLDERS}   # folder -> {target folder: example file}
core_violations = []
for folder in FOLDERS:
    for name in sorted(os.listdir(os.path.join(ROOT, folder))):
        if not name.endswith((".c", ".h", ".y", ".l", ".def")):
            continue
        text = open(os.path.join(ROOT, folder, name), encoding="utf-8").read()
        for inc in INCLUDE.findall(text):
            target = inc.split("/")[0] if "/" in inc else folder
            if target == "..":
                target = inc.split("/")[1]
            if target == folder or target not in FOLDERS:
                continue
            edges[folder].setdefault(target, f"{folder}/{name} includes {inc}")
            if folder == "runtime" and name in RUNTIME_CORE and target in ("compiler", "interp"):
                core_violations.append(f"runtime/{name} includes {inc}")

bad = []
for src in FOLDERS:
    print(f"{src:9} -> {', '.join(sorted(edges[src])) or '(nothing)'}")
    for dst, why in edges[src].items():
        if dst not in ALLOWED[src]:
            bad.append(f"not allowed: {src} -> {dst} ({why})")


def find_cycle():
    state = {}

    def visit(n, path):
        state[n] = 1
        for m in edges[n]:
            if state.get(m) == 1:
                return path + [n, m]
            if not state.get(m):
                c = visit(m, path + [n])
                if c:
                    return c
        state[n] = 2
        return None

    for n in FOLDERS:
        if not state.get(n):
            c = visit(n, [])
            if c:
                return c
    return None


cycle = find_cycle()
if cycle:
    bad.append("cycle: " + " -> ".join(cycle))
bad += [f"the runtime core includes a compiler or interpreter header: {v}" for v in core_violations]
for b in bad:
    print(b)
print("layering:", "FAIL" if bad else "ok (no cycle, every edge allowed, the runtime core includes no compiler header)")
sys.exit(1 if bad else 0)
