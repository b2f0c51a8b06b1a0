#!/usr/bin/env python3
"""peers_tc.py -- the peers' side of bench/tlc_bench_tc: the same tensor-core
workloads in Triton and torch, on the same GPU.

  matmul fp16/bf16 4096^3 and 8192^3, fp8 e4m3 8192^3 (B K-major, C fp16,
      as the tutorial runs it), a persistent fp16 8192^3 kernel
      (examples/matmul/matmul_persistent.tile, tutorial 09's scheme), and a
      num_stages sweep (1-5) of one
      config at 4096^3: the very kernel text tlc compiles
      (examples/matmul/grouped_matmul_1d.tile, the algorithm of Triton's
      matmul tutorial) run by Triton over the tutorial's fp16 configs for
      CUDA (best one kept), and cuBLAS through torch.matmul;
  fused attention fp16, 32 heads, head dim 64 and 128, N_CTX 1024/4096 at
      batch 4 and 16384 at batch 1 (backward up to 4096):
      the seed-004 kernels (examples/attention/fused_attention.tile, the
      text tlc compiles, autotuned by Triton over its own decorator), forward
      causal and not, backward (preprocess + _attn_bwd, causal) launched as
      the seed's host does, on 4 warps and on 8 (the faster kept, as
      tlc_bench_tc does); and torch's scaled_dot_product_attention with the
      flash and the cuDNN backends (forward, and backward through autograd).

The .tile files are Python: they are loaded as modules from their paths, so
Triton sees exactly the source tlc compiles.  Every result is checked against
a torch reference before timing (matmul: fp32 torch.matmul; attention: the
math in fp32).  Timing: triton.testing.do_bench, median.  FLOPs as the
tutorials count them (matmul 2MNK; attention forward 4*Z*H*N^2*D, halved when
causal; backward 2.5x the forward).  One line per workload:

  BENCH name=attn_fwd size=Z4H32N1024D64 triton_tflops=... sdpa_flash_tflops=...
        sdpa_cudnn_tflops=... status=PASS

(the N 16384 non-causal forward rows also carry fa3_published_tflops:
FlashAttention-3's published H100 figures, quoted, not measured).

Options: --quick (N_CTX 1024 only), --smoke (tiny sizes), --seed N, --only PREFIX
(the rows whose name starts with PREFIX).
"""
import argparse
import importlib.machinery
import importlib.util
import os
import sys
import types

import torch
import triton
from triton.testing import do_bench

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_tile(rel):
    """Import an examples/*.tile file as a Python module (its own path, so
    Triton's source lookups find the text)."""
    if "pytest" not in sys.modules:
        try:
            import pytest  # noqa: F401  (fused_attention.tile imports it)
        except ImportError:
            sys.modules["pytest"] = types.ModuleType("pytest")
    path = os.path.join(ROOT, "examples", rel)
    name = "tile_" + os.path.basename(rel).replace(".", "_")
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_loader(name, loader)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    loader.exec_module(mod)
    return mod


def median_ms(fn):
    return do_bench(fn, warmup=25, rep=100, return_mode="median")


def tflops(flops, ms):
    return flops / (ms * 1e9) if ms and ms > 0 else float("nan")


def rel_err(out, ref):
    out64, ref64 = out.double(), ref.double()
    if not torch.isfinite(out64).all():
        return float("inf")
    return ((out64 - ref64).norm() / ref64.norm()).item()


def emit(name, size, status, **cols):
    text = " ".join(f"{k}={v:.1f}" if isinstance(v, float) else f"{k}={v}" for k, v in cols.items())
    print(f"BENCH name={name} size={size} {text} status={status}", flush=True)


# ---- matmul -------------------------------------------------------------------------

# Triton's matmul tutorial, fp16 configs for CUDA: (BM, BN, BK, GROUP, stages, warps)
MM_CONFIGS = [
    (128, 256, 64, 8, 3, 8), (64, 256, 32, 8, 4, 4), (128, 128, 32, 8, 4, 4), (128, 64, 32, 8, 4, 4),
    (64, 128, 32, 8, 4, 4), (128, 32, 32, 8, 4, 4), (64, 32, 32, 8, 5, 2), (32, 64, 32, 8, 5, 2),
]


# Triton's matmul tutorial, its fp8 configs for CUDA that suit the H100
MM_CONFIGS_FP8 = [
    (128, 256, 128, 8, 3, 8), (256, 128, 128, 8, 3, 8), (128, 256, 128, 8, 4, 8), (128, 128, 128, 8, 4, 4),
    (64, 256, 128, 8, 4, 4),
]


def bench_matmul(M, N, K, dev, dtype="fp16", configs=MM_CONFIGS, name=None, cublas=True, persistent=False):
    """The kernel text tlc compiles, run by Triton over `configs` (best
    kept), and cuBLAS (torch.matmul; for fp8 torch._scaled_mm with unit
    scales) on the same inputs; one BENCH line.  fp8 as the tutorial runs
    it: B is the transpose of an N x K array (K-major), C is fp16."""
    if persistent:  # matmul_persistent.tile: one program per SM over the tiles
        mod = load_tile("matmul/matmul_persistent.tile")
        kern = mod.matmul_persistent_kernel
        sms = torch.cuda.get_device_properties(dev).multi_processor_count
    else:
        mod = load_tile("matmul/grouped_matmul_1d.tile")
        kern = mod.grouped_matmul_1d_kernel
    tdt = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp8e4nv": torch.float8_e4m3fn}[dtype]
    fp8 = dtype == "fp8e4nv"
    tol = 1e-2 if dtype == "bf16" else 2e-3
    a = (torch.rand(M, K, device=dev) * 2 - 1).to(tdt)
    if fp8:
        b = (torch.rand(N, K, device=dev) * 2 - 1).to(tdt).T
    else:
        b = (torch.rand(K, N, device=dev) * 2 - 1).to(tdt)
    c = torch.empty(M, N, device=dev, dtype=torch.float16 if fp8 else tdt)
    ref = torch.matmul(a.float(), b.float())
    best, best_cfg, errs = float("inf"), "-", []

    for bm, bn, bk, g, stages, warps in configs:
        def run():
            tiles = triton.cdiv(M, bm) * triton.cdiv(N, bn)
            if persistent:
                kern[(min(tiles, sms),)](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                         c.stride(0), c.stride(1), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                                         GROUP_M=g, NUM_SMS=sms, num_stages=stages, num_warps=warps)
                return
            kern[(tiles,)](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                           c.stride(0), c.stride(1), BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk,
                           GROUP_SIZE_M=g, num_stages=stages, num_warps=warps)
        try:
            c.fill_(float("nan"))
            run()
            errs.append(rel_err(c, ref))
            ms = median_ms(run)
        except Exception as e:  # a config that does not fit (shared memory) is skipped
            print(f"  matmul config {bm}x{bn}x{bk} s{stages} w{warps}: {type(e).__name__}: {e}",
                  file=sys.stderr, flush=True)
            continue
        if ms < best:
            best, best_cfg = ms, f"b{bm}x{bn}x{bk}/s{stages}/w{warps}"
    flops = 2.0 * M * N * K
    cols = dict(triton_tflops=tflops(flops, best), triton_config=best_cfg,
                triton_rel_err=f"{max(errs) if errs else float('nan'):.2e}")
    ok = bool(errs) and max(errs) < tol
    if cublas:
        if fp8:
            one = torch.ones((), device=dev, dtype=torch.float32)
            mm = lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.float16)  # noqa: E731
        else:
            mm = lambda: torch.matmul(a, b)  # noqa: E731
        err_t = rel_err(mm(), ref)
        cols["cublas_tflops"] = tflops(flops, median_ms(mm))
        ok = ok and err_t < tol
    emit(name or ("matmul_fp8" if fp8 else f"matmul_{dtype}"), f"{M}x{N}x{K}", "PASS" if ok else "FAIL", **cols)


# ---- attention ----------------------------------------------------------------------

def attention_ref(q, k, v, causal, scale):
    s = torch.matmul(q.float(), k.float().transpose(-1, -2)) * scale
    if causal:
        n = q.shape[-2]
        mask = torch.ones(n, n, device=q.device, dtype=torch.bool).tril()
        s = s.masked_fill(~mask, float("-inf"))
    return torch.matmul(torch.softmax(s, dim=-1), v.float())


# FlashAttention-3's published forward figures on the H100 (fp16, 16k tokens
# in one sequence, non-causal), a reference column: they were not measured here
FA3_PUBLISHED = {(16384, 64, False): 497.0, (16384, 128, False): 648.0}


def bench_attention(Z, H, N, D, causal, dev, mod):
    scale = 0.5
    size = f"Z{Z}H{H}N{N}D{D}{'-causal' if causal else ''}"
    q, k, v, do = (torch.rand(Z, H, N, D, device=dev, dtype=torch.float16) * 2 - 1 for _ in range(4))
    fwd_flops = 4.0 * Z * H * N * N * D * (0.5 if causal else 1.0)
    o = torch.empty_like(q)
    M = torch.empty(Z, H, N, device=dev, dtype=torch.float32)

    def fwd():
        grid = lambda args: (triton.cdiv(N, args["BLOCK_M"]), Z * H, 1)
        mod._attn_fwd[grid](q, k, v, scale, M, o, *q.stride(), *k.stride(), *v.stride(), *o.stride(),
                            Z, H, N_CTX=N, HEAD_DIM=D, STAGE=3 if causal else 1)

    # the reference on the first two (batch, head) pairs only, to keep it small
    ref = attention_ref(q[:1, :2], k[:1, :2], v[:1, :2], causal, scale)
    o.fill_(float("nan"))
    fwd()
    err = rel_err(o[:1, :2], ref)
    ms_tri = median_ms(fwd)

    cols = {}
    for name, backend in (("sdpa_flash", "FLASH_ATTENTION"), ("sdpa_cudnn", "CUDNN_ATTENTION")):
        try:
            from torch.nn.attention import SDPBackend, sdpa_kernel
            with sdpa_kernel(getattr(SDPBackend, backend)):
                f = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)
                e = rel_err(f()[:1, :2], ref)
                cols[name] = (tflops(fwd_flops, median_ms(f)), e)
        except Exception as ex:
            print(f"  {name} fwd {size}: {type(ex).__name__}: {ex}", file=sys.stderr, flush=True)
            cols[name] = (float("nan"), float("nan"))
    ok = err < 1e-2 and all(not (e > 1e-2) for _, e in cols.values())
    extra = {}
    if (N, D, causal) in FA3_PUBLISHED:
        extra["fa3_published_tflops"] = FA3_PUBLISHED[(N, D, causal)]
    emit("attn_fwd", size, "PASS" if ok else "FAIL", triton_tflops=tflops(fwd_flops, ms_tri),
         sdpa_flash_tflops=cols["sdpa_flash"][0], sdpa_cudnn_tflops=cols["sdpa_cudnn"][0],
         triton_rel_err=f"{err:.2e}", **extra)

    if not causal or N > 4096:
        return
    # backward as the seed's host launches it
    RCP_LN2 = 1.4426950408889634
    arg_k = k * (scale * RCP_LN2)
    dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
    delta = torch.empty_like(M)

    def bwd(warps):
        mod._attn_bwd_preprocess[(N // 128, Z * H)](o, do, delta, Z, H, N, BLOCK_M=128, HEAD_DIM=D)
        mod._attn_bwd[(N // 128, 1, Z * H)](q, arg_k, v, scale, do, dq, dk, dv, M, delta,
                                            *q.stride(), H, N, BLOCK_M1=32, BLOCK_N1=128, BLOCK_M2=128,
                                            BLOCK_N2=32, BLK_SLICE_FACTOR=2, HEAD_DIM=D,
                                            num_warps=warps, num_stages=5)

    # 4 warps (the seed's) and 8, as tlc_bench_tc runs it: the faster passing one
    q1, k1, v1 = (t[:1, :2].detach().float().requires_grad_() for t in (q, k, v))
    attention_ref(q1, k1, v1, True, scale).backward(do[:1, :2].float())
    ms_bwd, err_b = float("nan"), float("nan")
    for warps in (4, 8):
        for t in (dq, dk, dv):
            t.fill_(float("nan"))
        bwd(warps)
        e = max(rel_err(dq[:1, :2], q1.grad), rel_err(dk[:1, :2], k1.grad), rel_err(dv[:1, :2], v1.grad))
        if not e < 1e-2:
            err_b = e if not err_b < 1e-2 else err_b
            continue
        ms = median_ms(lambda: bwd(warps))
        if not ms_bwd < ms:
            ms_bwd, err_b = ms, e

    colsb = {}
    for name, backend in (("sdpa_flash", "FLASH_ATTENTION"), ("sdpa_cudnn", "CUDNN_ATTENTION")):
        try:
            from torch.nn.attention import SDPBackend, sdpa_kernel
            qg, kg, vg = (t.detach().clone().requires_grad_() for t in (q, k, v))
            with sdpa_kernel(getattr(SDPBackend, backend)):
                out = torch.nn.functional.scaled_dot_product_attention(qg, kg, vg, is_causal=True, scale=scale)
                out.backward(do, retain_graph=True)
                e = rel_err(qg.grad[:1, :2], q1.grad)
                colsb[name] = (tflops(2.5 * fwd_flops, median_ms(lambda: out.backward(do, retain_graph=True))), e)
        except Exception as ex:
            print(f"  {name} bwd {size}: {type(ex).__name__}: {ex}", file=sys.stderr, flush=True)
            colsb[name] = (float("nan"), float("nan"))
    ok = err_b < 1e-2 and all(not (e > 1e-2) for _, e in colsb.values())
    emit("attn_bwd", size, "PASS" if ok else "FAIL", triton_tflops=tflops(2.5 * fwd_flops, ms_bwd),
         sdpa_flash_tflops=colsb["sdpa_flash"][0], sdpa_cudnn_tflops=colsb["sdpa_cudnn"][0],
         triton_rel_err=f"{err_b:.2e}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--only", default="", help="only the rows whose name starts with this")
    args, _ = ap.parse_known_args()
    if not torch.cuda.is_available():
        print("SKIP: torch sees no CUDA device")
        return 77
    dev = torch.device("cuda")
    seed = args.seed if args.seed is not None else torch.seed() % (1 << 48)
    torch.manual_seed(seed)
    print(f"PEERS torch={torch.__version__} triton={triton.__version__} "
          f"device=\"{torch.cuda.get_device_name(dev)}\" seed={seed}", flush=True)
    failed = 0
    jobs = []
    if args.smoke:
        jobs.append(("matmul_fp16", "512x512x512", lambda: bench_matmul(512, 512, 512, dev)))
        jobs.append(("matmul_fp8", "512x512x512",
                     lambda: bench_matmul(512, 512, 512, dev, "fp8e4nv", configs=MM_CONFIGS_FP8[3:4])))
        ns = [256]
        Z, H = 1, 2
    else:
        big = MM_CONFIGS[:1] if args.quick else MM_CONFIGS[:4]
        jobs.append(("matmul_fp16", "4096x4096x4096", lambda: bench_matmul(4096, 4096, 4096, dev)))
        for st in range(1, 6):  # the num_stages sweep tlc_bench_tc runs: 128x128x64, 4 warps
            jobs.append((f"matmul_fp16_s{st}", "4096x4096x4096",
                         lambda st=st: bench_matmul(4096, 4096, 4096, dev, configs=[(128, 128, 64, 8, st, 4)],
                                                    name=f"matmul_fp16_s{st}", cublas=False)))
        jobs.append(("matmul_bf16", "4096x4096x4096", lambda: bench_matmul(4096, 4096, 4096, dev, "bf16")))
        for dt in ("fp16", "bf16"):
            jobs.append((f"matmul_{dt}", "8192x8192x8192",
                         lambda dt=dt: bench_matmul(8192, 8192, 8192, dev, dt, configs=big)))
        jobs.append(("matmul_fp16_persistent", "8192x8192x8192",
                     lambda: bench_matmul(8192, 8192, 8192, dev, configs=big, name="matmul_fp16_persistent",
                                          persistent=True)))
        jobs.append(("matmul_fp8", "8192x8192x8192",
                     lambda: bench_matmul(8192, 8192, 8192, dev, "fp8e4nv",
                                          configs=MM_CONFIGS_FP8[:1] if args.quick else MM_CONFIGS_FP8)))
        ns = [1024] if args.quick else [1024, 4096, 16384]
        Z, H = 4, 32
    mod = load_tile("attention/fused_attention.tile")
    # batch 4 up to N 4096, one sequence of 16k tokens beyond (as tlc_bench_tc)
    for d in ([64] if args.smoke else [64, 128]):
        for n in ns:
            z = 1 if n > 4096 else Z
            for causal in (False, True):
                jobs.append(("attn_fwd", f"Z{z}H{H}N{n}D{d}{'-causal' if causal else ''}",
                             lambda z=z, n=n, d=d, causal=causal: bench_attention(z, H, n, d, causal, dev, mod)))
    for name, size, job in jobs:
        if not name.startswith(args.only):
            continue
        try:
            job()
        except Exception as e:
            print(f"BENCH name={name} size={size} status=ERROR", flush=True)
            print(f"  {name} {size}: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
            failed += 1
        torch.cuda.empty_cache()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
