"""triton_spills.py — Triton's registers and spills for every config of seed
000's attention forward decorator, beside what check_spills.sh reports for
tlc's: the configs where tlc spills, do Triton's kernels of the same text
spill too?  Needs a GPU (Triton loads each binary to read its counts).

    python3 bench/triton_spills.py [--n N] [--d 64,128] [--stage 1,3]

One line per config: `TRITON_SPILLS D=.. STAGE=.. BQ=.. BKV=.. w=.. s=..
regs=.. spills=..` (spills: bytes, Triton's n_spills), or `... error=...`.
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers_tc import load_tile  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--d", default="64,128")
    ap.add_argument("--stage", default="1")
    a = ap.parse_args()
    m = load_tile("attention/attention_000.tile")
    tuner = m.attention_forward_kernel
    fn = tuner.fn
    dev = "cuda"
    for D in (int(x) for x in a.d.split(",")):
        q = torch.empty(1, 2, a.n, D, device=dev, dtype=torch.float16)
        o, L = torch.empty_like(q), torch.empty(1, 2, a.n, device=dev, dtype=torch.float16)
        for stage in (int(x) for x in a.stage.split(",")):
            for c in tuner.configs:
                kw = dict(c.kwargs)
                tag = (f"TRITON_SPILLS D={D} STAGE={stage} BQ={kw['BLOCKSIZE_Q']} BKV={kw['BLOCKSIZE_KV']} "
                       f"w={c.num_warps} s={c.num_stages}")
                try:
                    k = fn.warmup(q, q, q, o, L, 0.5, *q.stride(), *q.stride(), *q.stride(), *o.stride(), 1,
                                  num_heads=2, seq_len=a.n, head_dim=D, STAGE=stage, grid=(1,),
                                  num_warps=c.num_warps, num_stages=c.num_stages, **kw)
                    k._init_handles()
                    print(f"{tag} regs={k.n_regs} spills={k.n_spills}", flush=True)
                except Exception as e:  # a config Triton cannot build (shared memory): say so
                    print(f"{tag} error={type(e).__name__}: {str(e).splitlines()[0][:120]}", flush=True)


if __name__ == "__main__":
    main()
