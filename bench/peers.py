#!/usr/bin/env python3
"""peers.py -- the peers' side of bench/run.sh: the same workloads as
bench/tlc_bench.c in Triton and in torch, on the same GPU.

  vector add, fp32, 2^28 elements: a Triton kernel with the algorithm of
      Triton's tutorial 01 (one block of 1024 elements per program, masked),
      and torch's `x + y`;
  row-wise softmax, fp32 (4096x4096 and neighbours): a Triton kernel with
      the algorithm of Triton's tutorial 02 (fused softmax: a whole row per
      step, a persistent loop over rows software-pipelined with num_stages,
      8 warps, as many programs as fit on the GPU by registers and shared
      memory), and torch.softmax.

Every result is checked against torch before timing.  Timing:
triton.testing.do_bench (25 ms warm-up, 100 ms of repeats, L2 flushed
before each run), the median.  Bytes counted: read + write, each once.
Prints one line per workload:

  BENCH name=softmax_v1 size=4096x4096 triton_gbps=2599.1 torch_gbps=2117.0
        triton_us=51.6 torch_us=63.4 status=PASS

(`name` matches tlc_bench's, so run.sh can join them.)  Options: --quick
(acceptance sizes only), --smoke (tiny sizes).
"""
import argparse
import sys

import torch
import triton
import triton.language as tl
from triton.testing import do_bench


# ---- vector add (tutorial 01's algorithm) ------------------------------------

@triton.jit
def vadd_kernel(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    idx = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = idx < n
    a = tl.load(x_ptr + idx, mask=inside)
    b = tl.load(y_ptr + idx, mask=inside)
    tl.store(z_ptr + idx, a + b, mask=inside)


def vadd(x, y):
    z = torch.empty_like(x)
    n = x.numel()
    vadd_kernel[(triton.cdiv(n, 1024),)](x, y, z, n, BLOCK=1024)
    return z


# ---- fused softmax (tutorial 02's algorithm) -----------------------------------

@triton.jit
def softmax_rows_kernel(y_ptr, x_ptr, x_row_stride, y_row_stride, n_rows, n_cols,
                        BLOCK: tl.constexpr, STAGES: tl.constexpr):
    # Persistent: program p takes rows p, p + P, p + 2P, ... (P programs).
    first = tl.program_id(0)
    step = tl.num_programs(0)
    cols = tl.arange(0, BLOCK)
    valid = cols < n_cols
    for r in tl.range(first, n_rows, step, num_stages=STAGES):
        row = tl.load(x_ptr + r * x_row_stride + cols, mask=valid, other=-float("inf"))
        shifted = row - tl.max(row, axis=0)
        num = tl.exp(shifted)
        den = tl.sum(num, axis=0)
        tl.store(y_ptr + r * y_row_stride + cols, num / den, mask=valid)


class Softmax:
    """Chooses the launch as the tutorial does: 8 warps; 4 pipeline stages
    when the SM has more than 200 KB of shared memory, else 2; as many
    programs as are resident at once (registers and shared memory of the
    compiled kernel), at most one per row."""

    NUM_WARPS = 8

    def __init__(self, device):
        index = device.index if device.index is not None else torch.cuda.current_device()
        props = triton.runtime.driver.active.utils.get_device_properties(index)
        self.sms = props["multiprocessor_count"]
        self.regs = props["max_num_regs"]
        self.smem = props["max_shared_mem"]
        self.warp = props.get("warpSize", 32)
        self.stages = 4 if self.smem > 200000 else 2
        self.programs_cache = {}
        self.note = ""

    def programs(self, x, y, block):
        n_rows, n_cols = x.shape
        key = (block, n_rows)
        if key not in self.programs_cache:
            try:
                k = softmax_rows_kernel.warmup(y, x, x.stride(0), y.stride(0), n_rows, n_cols,
                                               BLOCK=block, STAGES=self.stages,
                                               num_warps=self.NUM_WARPS, grid=(1,))
                k._init_handles()
                per_sm = self.regs // max(1, k.n_regs * self.warp * self.NUM_WARPS)
                shared = k.metadata.shared
                if shared:
                    per_sm = min(per_sm, self.smem // shared)
                self.note = f"regs={k.n_regs} shared={shared} per_sm={per_sm}"
            except Exception as e:  # an API change: say so, fall back to 2 per SM
                per_sm = 2
                self.note = f"occupancy query failed ({type(e).__name__}: {e}); 2 programs/SM"
            self.programs_cache[key] = max(1, min(self.sms * max(1, per_sm), n_rows))
        return self.programs_cache[key]

    def __call__(self, x):
        n_rows, n_cols = x.shape
        y = torch.empty_like(x)
        block = triton.next_power_of_2(n_cols)
        p = self.programs(x, y, block)
        softmax_rows_kernel[(p, 1, 1)](y, x, x.stride(0), y.stride(0), n_rows, n_cols,
                                       BLOCK=block, STAGES=self.stages,
                                       num_warps=self.NUM_WARPS)
        return y


# ---- measuring ---------------------------------------------------------------------

def rel_err(out, ref):
    out64, ref64 = out.double(), ref.double()
    if not torch.isfinite(out64).all():
        return float("nan")
    return ((out64 - ref64).norm() / ref64.norm()).item()


def median_us(fn):
    return do_bench(fn, warmup=25, rep=100, return_mode="median") * 1e3


def gbps(nbytes, us):
    return nbytes / (us * 1e3)


def line(name, size, tri_us, tor_us, nbytes, status, extra=""):
    print(f"BENCH name={name} size={size} triton_gbps={gbps(nbytes, tri_us):.1f} "
          f"torch_gbps={gbps(nbytes, tor_us):.1f} triton_us={tri_us:.2f} torch_us={tor_us:.2f} "
          f"status={status}{extra}", flush=True)


def error_line(name, size, e):
    print(f"BENCH name={name} size={size} triton_gbps=nan torch_gbps=nan status=ERROR", flush=True)
    print(f"  {name} {size}: {type(e).__name__}: {e}", file=sys.stderr, flush=True)


def bench_vector_add(n, dev):
    x = torch.rand(n, device=dev, dtype=torch.float32) * 2 - 1
    y = torch.rand(n, device=dev, dtype=torch.float32) * 2 - 1
    ref = x.double() + y.double()
    err = rel_err(vadd(x, y), ref)
    err_t = rel_err(x + y, ref)
    del ref
    status = "PASS" if err < 1e-5 and err_t < 1e-5 else "FAIL"
    nbytes = 3 * n * 4
    line("vector_add", str(n), median_us(lambda: vadd(x, y)), median_us(lambda: x + y),
         nbytes, status, f" triton_rel_err={err:.2e}")


def bench_softmax(m, n, dev, sm):
    x = torch.randn(m, n, device=dev, dtype=torch.float32)
    ref = torch.softmax(x.double(), dim=-1)
    err = rel_err(sm(x), ref)
    err_t = rel_err(torch.softmax(x, dim=-1), ref)
    del ref
    status = "PASS" if err < 1e-5 and err_t < 1e-5 else "FAIL"
    nbytes = 2 * m * n * 4
    tri = median_us(lambda: sm(x))
    tor = median_us(lambda: torch.softmax(x, dim=-1))
    block = triton.next_power_of_2(n)
    line("softmax_v1", f"{m}x{n}", tri, tor, nbytes, status,
         f" triton_rel_err={err:.2e} programs={sm.programs_cache.get((block, m), 0)}"
         f" stages={sm.stages} warps={sm.NUM_WARPS}")
    if sm.note:
        print(f"  softmax {m}x{n}: {sm.note}", file=sys.stderr, flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="acceptance sizes only")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes")
    ap.add_argument("--seed", type=int, default=None, help="torch seed (default: random)")
    args, _ = ap.parse_known_args()  # tlc_bench's options are passed to both
    if not torch.cuda.is_available():
        print("SKIP: torch sees no CUDA device")
        return 77
    dev = torch.device("cuda")
    seed = args.seed if args.seed is not None else torch.seed() % (1 << 48)
    torch.manual_seed(seed)
    print(f"PEERS torch={torch.__version__} triton={triton.__version__} "
          f"device=\"{torch.cuda.get_device_name(dev)}\" seed={seed}", flush=True)
    sm = Softmax(dev)
    if args.smoke:
        vsizes, ssizes = [(1 << 20) + 3], [(300, 1024)]
    else:
        vsizes = [1 << 28]
        ssizes = [(4096, 4096), (4096, 1024), (4096, 16384), (16384, 8192)]
        if args.quick:
            ssizes = ssizes[:1]
    failed = 0
    for n in vsizes:
        try:
            bench_vector_add(n, dev)
        except Exception as e:
            error_line("vector_add", str(n), e)
            failed += 1
        torch.cuda.empty_cache()
    for m, n in ssizes:
        try:
            bench_softmax(m, n, dev, sm)
        except Exception as e:
            error_line("softmax_v1", f"{m}x{n}", e)
            failed += 1
        torch.cuda.empty_cache()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
