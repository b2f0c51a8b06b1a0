#!/usr/bin/env python3
"""profile_triton_attn.py -- Triton's side of bench/profile.sh: the seed-004
attention (examples/attention/fused_attention.tile, the text tlc compiles)
at one size, autotuned by Triton as bench/peers_tc.py runs it, then one
launch inside the NVTX range "prof" (so `ncu --nvtx --nvtx-include prof/`
profiles exactly that launch).  Also writes the compiled kernel's ttgir,
llir and ptx beside the profile (--dump DIR).

  profile_triton_attn.py fwd Z H N D [causal] --dump DIR
  profile_triton_attn.py bwd Z H N D WARPS --dump DIR     (causal, the seed's backward)
"""
import os
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers_tc import load_tile  # noqa: E402
from profile_args import size_parser  # noqa: E402


def dump(kernel, d, tag):
    if not d:
        return
    os.makedirs(d, exist_ok=True)
    for ext in ("ttgir", "ptx", "llir"):
        if ext in kernel.asm:
            with open(os.path.join(d, f"triton-{tag}.{ext}"), "w") as f:
                f.write(kernel.asm[ext])
    meta = kernel.metadata
    print(f"triton {tag}: num_warps={meta.num_warps} num_stages={meta.num_stages} shared={meta.shared} "
          f"n_regs={getattr(kernel, 'n_regs', '?')} n_spills={getattr(kernel, 'n_spills', '?')}", flush=True)


def main():
    ap = size_parser()
    ap.add_argument("--dump", default="")
    a = ap.parse_args()
    mod = load_tile("attention/fused_attention.tile")
    dev = torch.device("cuda")
    Z, H, N, D = a.Z, a.H, a.N, a.D
    scale = 0.5
    q, k, v, do = (torch.rand(Z, H, N, D, device=dev, dtype=torch.float16) * 2 - 1 for _ in range(4))
    o = torch.empty_like(q)
    M = torch.empty(Z, H, N, device=dev, dtype=torch.float32)
    causal = a.which == "bwd" or a.extra == "causal"

    def fwd():
        grid = lambda args: (triton.cdiv(N, args["BLOCK_M"]), Z * H, 1)  # noqa: E731
        return mod._attn_fwd[grid](q, k, v, scale, M, o, *q.stride(), *k.stride(), *v.stride(), *o.stride(),
                                   Z, H, N_CTX=N, HEAD_DIM=D, STAGE=3 if causal else 1)

    fwd()  # autotunes
    if a.which == "fwd":
        cfg = mod._attn_fwd.best_config
        print(f"triton fwd best config: {cfg}", flush=True)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push("prof")
        kern = fwd()
        torch.cuda.nvtx.range_pop()
        torch.cuda.synchronize()
        dump(kern, a.dump, "fwd")
        return 0
    warps = int(a.extra or 4)
    arg_k = k * (scale * 1.4426950408889634)
    dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
    delta = torch.empty_like(M)

    def bwd():
        mod._attn_bwd_preprocess[(N // 128, Z * H)](o, do, delta, Z, H, N, BLOCK_M=128, HEAD_DIM=D)
        return mod._attn_bwd[(N // 128, 1, Z * H)](q, arg_k, v, scale, do, dq, dk, dv, M, delta,
                                                   *q.stride(), H, N, BLOCK_M1=32, BLOCK_N1=128, BLOCK_M2=128,
                                                   BLOCK_N2=32, BLK_SLICE_FACTOR=2, HEAD_DIM=D,
                                                   num_warps=warps, num_stages=5)

    bwd()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("prof")
    kern = bwd()
    torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    dump(kern, a.dump, f"bwd-w{warps}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
