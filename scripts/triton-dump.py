#!/usr/bin/env python3
"""triton-dump.py -- what Triton makes of the kernel text tlc compiles: the
matmul example (examples/matmul/grouped_matmul_1d.tile) at one config,
launched once on the GPU by Triton, its ttgir, llir, ptx and SASS written to
OUTDIR (default $OUT or /tmp/tlc-out) as triton-<tag>.<ext>, with the
register and spill counts Triton's compiled kernel reports.

  python3 scripts/triton-dump.py [--dtype fp16|bf16] [--bm 128 --bn 256 --bk 64
                                  --warps 8 --stages 3] [--outdir DIR]

Read the files beside tlc's --emit tir / ptx of the same config to see how
Triton pipelines, lays out shared memory and issues wgmma (developers'
brief: learn from Triton on the same kernel text, then write our own)."""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dtype", default="fp16")
    ap.add_argument("--bm", type=int, default=128)
    ap.add_argument("--bn", type=int, default=256)
    ap.add_argument("--bk", type=int, default=64)
    ap.add_argument("--group", type=int, default=8)
    ap.add_argument("--warps", type=int, default=8)
    ap.add_argument("--stages", type=int, default=3)
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--outdir", default=os.environ.get("OUT", "/tmp/tlc-out"))
    args = ap.parse_args()
    import torch
    import triton
    from peers_tc import load_tile

    os.makedirs(args.outdir, exist_ok=True)
    kern = load_tile("matmul/grouped_matmul_1d.tile").grouped_matmul_1d_kernel
    tdt = {"fp16": torch.float16, "bf16": torch.bfloat16}[args.dtype]
    n = args.size
    a = torch.randn(n, n, device="cuda").to(tdt)
    b = torch.randn(n, n, device="cuda").to(tdt)
    c = torch.empty(n, n, device="cuda", dtype=tdt)
    grid = (triton.cdiv(n, args.bm) * triton.cdiv(n, args.bn),)
    ck = kern[grid](a, b, c, n, n, n, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                    c.stride(1), BLOCK_SIZE_M=args.bm, BLOCK_SIZE_N=args.bn, BLOCK_SIZE_K=args.bk,
                    GROUP_SIZE_M=args.group, num_stages=args.stages, num_warps=args.warps)
    torch.cuda.synchronize()
    tag = f"{args.dtype}-b{args.bm}x{args.bn}x{args.bk}-w{args.warps}-s{args.stages}"
    for ext in ("ttgir", "llir", "ptx", "sass"):
        text = ck.asm.get(ext)
        if text is None:
            continue
        path = os.path.join(args.outdir, f"triton-{tag}.{ext}")
        with open(path, "w") as f:
            f.write(text if isinstance(text, str) else text.decode())
        print(f"wrote {path}")
    print(f"triton {tag}: n_regs={getattr(ck, 'n_regs', '?')} n_spills={getattr(ck, 'n_spills', '?')} "
          f"shared={ck.metadata.shared}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
