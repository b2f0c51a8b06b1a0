#!/usr/bin/env python3
"""pipeline_search.py -- choose tlc's LLVM pass pipeline by measurement: drop
every pass whose removal leaves the PTX of every corpus kernel (examples and
benchmarked kernels, bench/ptx_corpus.py) byte for byte as it was.

    pipeline_search.py BUILD_DIR START OUT [-j N]

START is a file holding the pipeline to start from in LLVM's text form (for
default<O3>: `opt -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90a
-passes='default<O3>' -print-pipeline-passes`, less its trailing
`verify,BitcodeWriterPass`).  The reference corpus is compiled with START
itself (TLC_LLVM_PIPELINE), so the search keeps exactly what START computes.
Then each leaf pass in turn (nested ones inside their function(...),
cgscc(...), loop(...) groups) is left out: when every kernel's PTX is the
same without it, it stays out; else it is kept and the next is tried.  One
trial compiles the corpus once (about 180 kernels; 35-60 s on 2 cores).  OUT
gets log.txt (a line a trial) and pipeline.txt (the pipeline so far, after
every trial, so an interrupted search can go on from it as START).

--from SMALLER starts instead from an earlier result (START less some
passes, say a search on a smaller corpus) and finds the fewest of the passes
it lacks that must come back for the corpus: the candidates are halved as
delta debugging does (a few trials per pass needed, not one per pass).

The result computes START's PTX for the corpus, not for every kernel there
could be: a kernel unlike the corpus's may still differ.  What the final
pipeline changes against tlc's previous one is checked the same way
(ptx_corpus.py compare) before it goes in.
"""
import argparse
import copy
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def parse(s):
    """[[name, children or None], ...] of a pipeline text."""
    pos = 0

    def elems():
        nonlocal pos
        out = []
        while pos < len(s):
            j, depth = pos, 0
            while j < len(s) and (depth > 0 or s[j] not in ",()"):
                depth += s[j] == "<"
                depth -= s[j] == ">"
                j += 1
            name, pos, ch = s[pos:j], j, None
            if pos < len(s) and s[pos] == "(":
                pos += 1
                ch = elems()
                if pos >= len(s) or s[pos] != ")":
                    raise SystemExit("pipeline_search: unbalanced parentheses in the pipeline")
                pos += 1
            out.append([name, ch])
            if pos < len(s) and s[pos] == ",":
                pos += 1
                continue
            break
        return out

    return elems()


def text(nodes):
    parts = []
    for name, ch in nodes:
        if ch is None:
            parts.append(name)
        else:
            inner = text(ch)
            if inner:  # an empty group goes with its last pass
                parts.append(name + "(" + inner + ")")
    return ",".join(parts)


def leaves(nodes, path=()):
    for k, (name, ch) in enumerate(nodes):
        if ch is None:
            yield path + (k,)
        else:
            yield from leaves(ch, path + (k,))


def at(nodes, path):
    for k in path[:-1]:
        nodes = nodes[k][1]
    return nodes, path[-1]


def corpus(build, pipeline, out, jobs):
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, TLC_LLVM_PIPELINE=pipeline)
    r = subprocess.run([sys.executable, os.path.join(HERE, "ptx_corpus.py"), "build", build, out, "-j", str(jobs),
                        "--no-ptxas"], env=env, capture_output=True, text=True)
    return r.returncode == 0


def same(ref, out):
    r = subprocess.run([sys.executable, os.path.join(HERE, "ptx_corpus.py"), "compare", ref, out],
                       capture_output=True, text=True)
    return r.returncode == 0, (r.stdout.strip().splitlines() or ["?"])[-1]


def present_from(nodes, smaller):
    """The leaves of nodes (paths) that make up `smaller`, a pipeline that
    is nodes with some leaves left out (matched in order by name)."""
    want = [at(parse(smaller), p)[0][at(parse(smaller), p)[1]][0] for p in leaves(parse(smaller))]
    have = list(leaves(nodes))
    keep, j = set(), 0
    for p in have:
        parent, k = at(nodes, p)
        if j < len(want) and parent[k][0] == want[j]:
            keep.add(p)
            j += 1
    if j != len(want):
        raise SystemExit("pipeline_search: --from is not START with passes left out")
    return keep


def only(nodes, keep):
    """nodes with every leaf not in keep left out."""
    out = copy.deepcopy(nodes)
    for p in sorted(set(leaves(nodes)) - set(keep), reverse=True):  # deepest and last first
        parent, k = at(out, p)
        del parent[k]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build")
    ap.add_argument("start")
    ap.add_argument("out")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--from", dest="smaller",
                    help="a file with a pipeline that is START less some passes (an earlier search's, on a "
                         "smaller corpus): find the fewest of the missing passes it needs back (halving the "
                         "candidates, as delta debugging does), instead of trying every pass")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    start = open(a.start).read().strip()
    nodes = parse(start)
    if text(nodes) != start:
        raise SystemExit("pipeline_search: the pipeline does not read back as written")
    ref, trial = os.path.join(a.out, "ref"), os.path.join(a.out, "trial")
    if not corpus(a.build, start, ref, a.jobs):
        raise SystemExit("pipeline_search: the corpus does not compile with the starting pipeline")
    log = open(os.path.join(a.out, "log.txt"), "a")

    def passes(keep):
        ok = corpus(a.build, text(only(nodes, keep)), trial, a.jobs)
        verdict, line = same(ref, trial) if ok else (False, "the corpus did not compile")
        return verdict, line

    if a.smaller:
        base = present_from(nodes, open(a.smaller).read().strip())
        missing = [p for p in leaves(nodes) if p not in base]

        def name(p):
            parent, k = at(nodes, p)
            return parent[k][0]

        def find(cands, have):
            """The fewest of cands that `have` needs back (have + cands passes)."""
            verdict, line = passes(have)
            print("%s with %d of the missing passes | %s" % ("SAME" if verdict else "differs", len(have - base), line),
                  file=log, flush=True)
            if verdict:
                return []
            if len(cands) == 1:
                print("NEEDED " + name(cands[0]), file=log, flush=True)
                return cands
            half = len(cands) // 2
            first, second = cands[:half], cands[half:]
            got_first = find(first, have | set(second))
            return got_first + find(second, have | set(got_first))

        need = find(missing, set(base))
        result = text(only(nodes, base | set(need)))
        with open(os.path.join(a.out, "pipeline.txt"), "w") as f:
            f.write(result + "\n")
        print("FINAL " + result, file=log, flush=True)
        print(result)
        return
    i = 0
    while True:
        ls = list(leaves(nodes))
        if i >= len(ls):
            break
        parent, k = at(nodes, ls[i])
        name = parent[k][0]
        cand = copy.deepcopy(nodes)
        cparent, ck = at(cand, ls[i])
        del cparent[ck]
        ok = corpus(a.build, text(cand), trial, a.jobs)
        verdict, line = same(ref, trial) if ok else (False, "the corpus did not compile")
        print(("DROP " if verdict else "keep ") + name + " | " + line, file=log, flush=True)
        if verdict:
            nodes = cand
        else:
            i += 1
        with open(os.path.join(a.out, "pipeline.txt"), "w") as f:
            f.write(text(nodes) + "\n")
    print("FINAL " + text(nodes), file=log, flush=True)
    print(text(nodes))


if __name__ == "__main__":
    main()
