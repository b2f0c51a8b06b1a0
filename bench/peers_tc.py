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
      flash and the cuDNN backends (forward, and backward through autograd);
  on the same shapes, seeds 000 and 001 launched as tlc_bench_tc launches
      them (attn000_fwd autotuned by its decorator, attn000_bwd on 4 and 8
      warps, flash001_fwd_v1, flash001_fwd_v2, flash001_bwd on 16-row
      tiles; backwards causal and not up to N_CTX 4096), one set of inputs
      a shape, SDPA timed once a direction and its columns on each row; they
      run only when --only names their family (--only attn000, --only
      flash001, ...), as in tlc_bench_tc.

The .tile files are Python: they are loaded as modules from their paths, so
Triton sees exactly the source tlc compiles.  Every result is checked against
a torch reference before timing (matmul: fp32 torch.matmul; attention: the
math in fp32).  Timing: triton.testing.do_bench, median.  FLOPs as the
tutorials count them (matmul 2MNK; attention forward 4*Z*H*N^2*D, halved when
causal; backward 2.5x the forward).  One line per workload:

  BENCH name=attn_fwd size=Z4H32N1024D64 triton_tflops=... sdpa_flash_tflops=...
        sdpa_cudnn_tflops=... status=PASS

(the N 16384 non-causal forward rows, of every seed, also carry fa3_published_tflops:
FlashAttention-3's published H100 figures, quoted, not measured).

Options: --quick (N_CTX 1024 only), --smoke (tiny sizes), --seed N, --only PREFIX
(the rows whose name starts with PREFIX; the rows of seeds 000 and 001 only
with it).
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


_emitted = set()  # (name, size) of the lines printed: a job that fails prints ERROR for the others


def emit(name, size, status, **cols):
    text = " ".join(f"{k}={v:.1f}" if isinstance(v, float) else f"{k}={v}" for k, v in cols.items())
    print(f"BENCH name={name} size={size} {text} status={status}", flush=True)
    _emitted.add((name, size))


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

# The rows of seeds 000 and 001, in the order they run on a shape (as tlc_bench_tc)
SEED_ROWS = ("attn000_fwd", "attn000_bwd", "flash001_fwd_v1", "flash001_bwd", "flash001_fwd_v2")


def wanted(row, only):
    """--only's rule, as tlc_bench_tc's: the row's name starts with the prefix;
    the rows of seeds 000 and 001 (attn000_*, flash001_*) run only when the
    prefix names their family (attn000, flash001_bwd, ...), so that a full
    run leaves them out and --only attn keeps meaning seed 004's rows."""
    family = row.split("_")[0]
    if family in ("attn000", "flash001"):
        return bool(only) and only.startswith(family) and row.startswith(only)
    return row.startswith(only)


def attention_scores(q, k, causal, scale):
    s = torch.matmul(q.float(), k.float().transpose(-1, -2)) * scale
    if causal:
        n = q.shape[-2]
        mask = torch.ones(n, n, device=q.device, dtype=torch.bool).tril()
        s = s.masked_fill(~mask, float("-inf"))
    return s


def attention_ref(q, k, v, causal, scale):
    return torch.matmul(torch.softmax(attention_scores(q, k, causal, scale), dim=-1), v.float())


# FlashAttention-3's published forward figures on the H100 (fp16, 16k tokens
# in one sequence, non-causal), a reference column: they were not measured here
FA3_PUBLISHED = {(16384, 64, False): 497.0, (16384, 128, False): 648.0}


def sdpa_cols(q, k, v, causal, scale, flops, size, ref, do=None):
    """torch's scaled_dot_product_attention with the flash and the cuDNN
    backends on these inputs: the forward (O checked against ref on the
    first two heads), or with do the backward through autograd (dQ checked
    against ref); {name: (TFLOP/s, relative error)}."""
    cols = {}
    for name, backend in (("sdpa_flash", "FLASH_ATTENTION"), ("sdpa_cudnn", "CUDNN_ATTENTION")):
        try:
            from torch.nn.attention import SDPBackend, sdpa_kernel
            with sdpa_kernel(getattr(SDPBackend, backend)):
                if do is None:
                    f = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)
                    e = rel_err(f()[:1, :2], ref)
                    cols[name] = (tflops(flops, median_ms(f)), e)
                else:
                    qg, kg, vg = (t.detach().clone().requires_grad_() for t in (q, k, v))
                    out = torch.nn.functional.scaled_dot_product_attention(qg, kg, vg, is_causal=causal, scale=scale)
                    out.backward(do, retain_graph=True)
                    e = rel_err(qg.grad[:1, :2], ref)
                    cols[name] = (tflops(flops, median_ms(lambda: out.backward(do, retain_graph=True))), e)
        except Exception as ex:
            print(f"  {name} {'fwd' if do is None else 'bwd'} {size}: {type(ex).__name__}: {ex}",
                  file=sys.stderr, flush=True)
            cols[name] = (float("nan"), float("nan"))
    return cols


def emit_attention(name, size, flops, ms, err, ok, cols, extra=None):
    """One attention line: Triton's time (nan when not timed), SDPA's columns;
    PASS when Triton's result and every SDPA backend that ran passed."""
    ok = ok and all(not (e > 1e-2) for _, e in cols.values())
    emit(name, size, "PASS" if ok else "FAIL", triton_tflops=tflops(flops, ms),
         sdpa_flash_tflops=cols["sdpa_flash"][0], sdpa_cudnn_tflops=cols["sdpa_cudnn"][0],
         triton_rel_err=f"{err:.2e}", **(extra or {}))


def fastest_passing(run, configs, outs, refs):
    """run(c) for each config c on NaN-filled outs, checked on the first two
    heads against refs (relative L2 1e-2); the passing ones timed: (the
    fastest's median ms, its error), (nan, the error) when none passed."""
    ms_best, err_best = float("nan"), float("nan")
    for c in configs:
        for t in outs:
            t.fill_(float("nan"))
        run(c)
        e = max(rel_err(t[:1, :2], r) for t, r in zip(outs, refs))
        if not e < 1e-2:
            err_best = e if not err_best < 1e-2 else err_best
            continue
        ms = median_ms(lambda: run(c))
        if not ms_best < ms:
            ms_best, err_best = ms, e
    return ms_best, err_best


def bench_attention(Z, H, N, D, causal, dev, mod, only=""):
    """Seed 004 on one shape: _attn_fwd autotuned by its decorator, the
    backward (causal only, up to N 4096) as the seed's host launches it."""
    scale = 0.5
    size = f"Z{Z}H{H}N{N}D{D}{'-causal' if causal else ''}"
    fwd_line = wanted("attn_fwd", only)
    bwd_line = causal and N <= 4096 and wanted("attn_bwd", only)
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
    if fwd_line:
        ms_tri = median_ms(fwd)
        cols = sdpa_cols(q, k, v, causal, scale, fwd_flops, size, ref)
        extra = {}
        if (N, D, causal) in FA3_PUBLISHED:
            extra["fa3_published_tflops"] = FA3_PUBLISHED[(N, D, causal)]
        emit_attention("attn_fwd", size, fwd_flops, ms_tri, err, err < 1e-2, cols, extra)

    if not bwd_line:
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
    ms_bwd, err_b = fastest_passing(bwd, (4, 8), (dq, dk, dv), (q1.grad, k1.grad, v1.grad))
    colsb = sdpa_cols(q, k, v, True, scale, 2.5 * fwd_flops, size, q1.grad, do=do)
    emit_attention("attn_bwd", size, 2.5 * fwd_flops, ms_bwd, err_b, err_b < 1e-2, colsb)


# Seeds 000 and 001: their hosts' blocks (examples/attention/attention_000.c,
# flash_001.c; tlc_bench_tc says how each is launched)
A000_BLOCK, A000_INNER, A000_STAGES, F001_TILE = 128, 32, 3, 16
_seed_mods = {}


def seed_mod(rel):
    if rel not in _seed_mods:
        _seed_mods[rel] = load_tile(rel)
    return _seed_mods[rel]


def bench_attention_seeds(Z, H, N, D, causal, dev, only):
    """The rows of seeds 000 and 001 on one shape, as tlc_bench_tc runs them:
    one set of inputs and one reference (the first two heads: O, L in
    natural log, and the gradients where a backward runs); SDPA timed once
    a direction, its columns on every row of that direction."""
    full = N <= 4096
    want = {r: wanted(r, only) and (full or not r.endswith("_bwd")) for r in SEED_ROWS}
    if not any(want.values()):
        return
    scale = 0.5
    size = f"Z{Z}H{H}N{N}D{D}{'-causal' if causal else ''}"
    q, k, v, do = (torch.rand(Z, H, N, D, device=dev, dtype=torch.float16) * 2 - 1 for _ in range(4))
    fwd_flops = 4.0 * Z * H * N * N * D * (0.5 if causal else 1.0)
    bwd = want["attn000_bwd"] or want["flash001_bwd"]
    q1, k1, v1 = (t[:1, :2].detach().float().requires_grad_(bwd) for t in (q, k, v))
    ref = attention_ref(q1, k1, v1, causal, scale)
    if bwd:
        ref.backward(do[:1, :2].float())
    ref = ref.detach()
    ref_l = torch.logsumexp(attention_scores(q1.detach(), k1.detach(), causal, scale), dim=-1)
    grads = (q1.grad, k1.grad, v1.grad)
    nan = float("nan")
    sdpa = {}

    def line(name, ms, err, ok):
        """The row's line, SDPA's columns measured on the first row of its direction."""
        d = "bwd" if name.endswith("_bwd") else "fwd"
        flops = fwd_flops * (2.5 if d == "bwd" else 1.0)
        if d not in sdpa:
            sdpa[d] = sdpa_cols(q, k, v, causal, scale, flops, size, q1.grad if d == "bwd" else ref,
                                do=do if d == "bwd" else None)
        extra = {}
        if d == "fwd" and (N, D, causal) in FA3_PUBLISHED:
            extra["fa3_published_tflops"] = FA3_PUBLISHED[(N, D, causal)]
        emit_attention(name, size, flops, ms, err, ok, sdpa[d], extra)

    if want["attn000_fwd"] or want["attn000_bwd"]:
        # seed 000: the forward autotuned by its decorator (O and L fp16), the
        # backward D, dKdV, dQ on its O and L, on 4 warps (the seed's) and 8
        m = seed_mod("attention/attention_000.tile")
        o = torch.empty_like(q)
        L = torch.empty(Z, H, N, device=dev, dtype=torch.float16)

        def fwd():
            grid = lambda meta: (triton.cdiv(N, meta["BLOCKSIZE_Q"]), Z * H)
            m.attention_forward_kernel[grid](q, k, v, o, L, scale, *q.stride(), *k.stride(), *v.stride(),
                                             *o.stride(), Z, num_heads=H, seq_len=N, head_dim=D,
                                             STAGE=3 if causal else 1)

        o.fill_(nan)
        L.fill_(nan)
        fwd()
        err_o, err_l = rel_err(o[:1, :2], ref), rel_err(L[:1, :2], ref_l)
        ok = err_o < 1e-2 and err_l < 2e-3
        if want["attn000_fwd"]:
            line("attn000_fwd", median_ms(fwd) if ok else nan, max(err_o, err_l), ok)
        if want["attn000_bwd"]:
            dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
            dd = torch.empty_like(L)
            stage = 3 if causal else 1

            def bwd000(warps):
                m.attn_backward_D[(N // A000_BLOCK, Z * H)](o, do, dd, N, BLOCKSIZE=A000_BLOCK, head_dim=D)
                grid = (N // A000_BLOCK, 1, Z * H)
                args = (q, k, v, do, dq, dk, dv, L, dd, *q.stride(), scale, H, N)
                m.attn_backward_dKdV[grid](*args, BLOCKSIZE_KV=A000_BLOCK, BLOCKSIZE_Q=A000_INNER, head_dim=D,
                                           STAGE=stage, num_warps=warps, num_stages=A000_STAGES)
                m.attn_backward_dQ[grid](*args, BLOCKSIZE_Q=A000_BLOCK, BLOCKSIZE_KV=A000_INNER, head_dim=D,
                                         STAGE=stage, num_warps=warps, num_stages=A000_STAGES)

            ms, err = fastest_passing(bwd000, (4, 8), (dq, dk, dv), grads)
            line("attn000_bwd", ms, err, err < 1e-2)

    if want["flash001_fwd_v1"] or want["flash001_bwd"] or want["flash001_fwd_v2"]:
        # seed 001 on (Z * H, N, D) batches, 16-row tiles, the default 4 warps
        # and 3 stages; the backward on the first version's O and L
        T, B = F001_TILE, Z * H
        q3, k3, v3, do3 = (t.view(B, N, D) for t in (q, k, v, do))
        o3 = torch.empty_like(q3)
        L3 = torch.empty(B, N, device=dev, dtype=torch.float32)

        def fwd001(ver):
            seed_mod(f"attention/flash_fwd_v{ver}.tile").flash_fwd_kernel[(triton.cdiv(N, T), B)](
                q3, k3, v3, o3, L3, *q3.stride(), *k3.stride(), *v3.stride(), *o3.stride(), *L3.stride(),
                N, N, scale, D=D, Q_TILE_SIZE=T, K_TILE_SIZE=T, is_causal=causal)

        def forward(ver, with_line):
            o3.fill_(nan)
            L3.fill_(nan)
            fwd001(ver)
            err_o = rel_err(o3.view(Z, H, N, D)[:1, :2], ref)
            err_l = rel_err(L3.view(Z, H, N)[:1, :2], ref_l)
            ok = err_o < 1e-2 and err_l < 1e-3
            if with_line:
                line(f"flash001_fwd_v{ver}", median_ms(lambda: fwd001(ver)) if ok else nan, max(err_o, err_l), ok)

        if want["flash001_fwd_v1"] or want["flash001_bwd"]:
            forward(1, want["flash001_fwd_v1"])
        if want["flash001_bwd"]:
            mb = seed_mod("attention/flash_bwd.tile")
            dd = torch.empty_like(L3)
            dq, dk, dv = (torch.empty(B, N, D, device=dev, dtype=torch.float32) for _ in range(3))

            def bwd001():  # timed without zeroing dQ (as tlc_bench_tc: its values do not change the time)
                mb.bwd_calculate_d_kernel[(B, triton.cdiv(N, T))](o3, do3, dd, *o3.stride(), *do3.stride(),
                                                                   *dd.stride(), N, D_MODEL=D, BLOCK_SIZE=T)
                mb.flash_bwd_kernel[(triton.cdiv(N, T), B)](
                    q3, k3, v3, L3, do3, dd, dq, dk, dv, *q3.stride(), *k3.stride(), *v3.stride(), *L3.stride(),
                    *do3.stride(), *dd.stride(), *dq.stride(), *dk.stride(), *dv.stride(), N, N, scale,
                    D=D, Q_TILE_SIZE=T, K_TILE_SIZE=T, is_causal=causal)

            dk.fill_(nan)
            dv.fill_(nan)
            dq.zero_()  # dQ is summed by atomics into zeros, as the seed's
            bwd001()
            err = max(rel_err(t.view(Z, H, N, D)[:1, :2], r) for t, r in zip((dq, dk, dv), grads))
            line("flash001_bwd", median_ms(bwd001) if err < 1e-2 else nan, err, err < 1e-2)
        if want["flash001_fwd_v2"]:
            forward(2, True)


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
    # batch 4 up to N 4096, one sequence of 16k tokens beyond (as tlc_bench_tc);
    # a job names the rows it may print
    shapes = [(1 if n > 4096 else Z, n, d, causal) for d in ([64] if args.smoke else [64, 128]) for n in ns
              for causal in (False, True)]
    for z, n, d, causal in shapes:
        size = f"Z{z}H{H}N{n}D{d}{'-causal' if causal else ''}"
        jobs.append((("attn_fwd", "attn_bwd") if causal and n <= 4096 else ("attn_fwd",), size,
                     lambda z=z, n=n, d=d, causal=causal: bench_attention(z, H, n, d, causal, dev, mod, args.only)))
    # seeds 000 and 001 on the same shapes (with --only attn000 or flash001...)
    for z, n, d, causal in shapes:
        size = f"Z{z}H{H}N{n}D{d}{'-causal' if causal else ''}"
        jobs.append((tuple(r for r in SEED_ROWS if n <= 4096 or not r.endswith("_bwd")), size,
                     lambda z=z, n=n, d=d, causal=causal: bench_attention_seeds(z, H, n, d, causal, dev, args.only)))
    for names, size, job in jobs:
        names = [n for n in ((names,) if isinstance(names, str) else names) if wanted(n, args.only)]
        if not names:
            continue
        try:
            job()
        except Exception as e:
            for name in names:
                if (name, size) not in _emitted:
                    print(f"BENCH name={name} size={size} status=ERROR", flush=True)
            print(f"  {'/'.join(names)} {size}: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
            failed += 1
        torch.cuda.empty_cache()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
