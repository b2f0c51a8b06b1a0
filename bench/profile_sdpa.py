#!/usr/bin/env python3
"""profile_sdpa.py -- an SDPA backend's side of bench/profile.sh
(PROFILE_PEER=cudnn or flash): torch's scaled_dot_product_attention on that
backend at one size, warmed up, then one call between cudaProfilerStart and
cudaProfilerStop (so `ncu --profile-from-start off` profiles exactly its
kernels: the forward's, or the backward's, which autograd launches from a
thread of its own, out of reach of an NVTX range pushed here).  The inputs are the
benchmark's (bench/peers_tc.py): fp16, uniform in [-1, 1), scale 0.5.

  profile_sdpa.py fwd Z H N D [causal] --backend cudnn|flash
  profile_sdpa.py bwd Z H N D --backend cudnn|flash          (causal, as the benchmark's backward)
"""
import os
import sys

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from profile_args import size_parser  # noqa: E402


def main():
    ap = size_parser()
    ap.add_argument("--backend", choices=["cudnn", "flash"], default="cudnn")
    a = ap.parse_args()
    backend = SDPBackend.CUDNN_ATTENTION if a.backend == "cudnn" else SDPBackend.FLASH_ATTENTION
    dev = torch.device("cuda")
    q, k, v, do = (torch.rand(a.Z, a.H, a.N, a.D, device=dev, dtype=torch.float16) * 2 - 1 for _ in range(4))
    causal = a.which == "bwd" or a.extra == "causal"
    sdpa = torch.nn.functional.scaled_dot_product_attention
    with sdpa_kernel(backend):
        if a.which == "fwd":
            def run():
                return sdpa(q, k, v, is_causal=causal, scale=0.5)
        else:
            qg, kg, vg = (t.detach().clone().requires_grad_() for t in (q, k, v))
            out = sdpa(qg, kg, vg, is_causal=True, scale=0.5)

            def run():  # the gradients returned, not added into .grad (no add kernels in the profile)
                return torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True)
        for _ in range(3):
            run()
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStart()
        run()
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStop()
    print(f"sdpa {a.backend} {a.which}: Z{a.Z}H{a.H}N{a.N}D{a.D}{'-causal' if causal else ''} ran", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
