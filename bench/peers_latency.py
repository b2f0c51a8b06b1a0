#!/usr/bin/env python3
"""peers_latency.py -- Triton's side of bench/tlc_bench_latency: the same
kernel text (examples/matmul/grouped_matmul_1d.tile, loaded as a Python
module from its path) at the same config (128x128x64, group 8, 4 warps,
4 stages) and size (fp16 1024^3), on the same GPU.

  cold    a new process with an empty TRITON_CACHE_DIR: the first call
          kernel[grid](...) and torch.cuda.synchronize() (Triton compiles,
          the driver loads the cubin Triton's ptxas made);
  warm    new processes with that cache folder: the same first call;
  launch  host time of one kernel[grid](...) call on a warm kernel (one
          program), each call timed alone with time.perf_counter_ns
          (median, mean), in bursts of 128 with an untimed wait between.

CUDA's initialization and torch's import are outside every figure, as in
tlc_bench_latency.  Lines:

  PEERS what=cold first_call_ms=..
  PEERS what=warm first_call_ms=.. processes=N
  PEERS what=launch kernel=matmul median_us=.. mean_us=.. calls=N

Options: --reps N (warm processes, default 11), --launches N (default 20000).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SIZE = 1024


def child(launches):
    """One process: its first call (timed), then optionally the launch rate."""
    import torch
    sys.path.insert(0, HERE)
    from peers_tc import load_tile  # the .tile file as a module, from its path

    torch.cuda.init()
    gen = torch.Generator(device="cuda").manual_seed(42)
    a = torch.rand((SIZE, SIZE), device="cuda", dtype=torch.float16, generator=gen) * 2 - 1
    b = torch.rand((SIZE, SIZE), device="cuda", dtype=torch.float16, generator=gen) * 2 - 1
    c = torch.empty((SIZE, SIZE), device="cuda", dtype=torch.float16)
    torch.cuda.synchronize()
    mod = load_tile("matmul/grouped_matmul_1d.tile")
    kernel = mod.grouped_matmul_1d_kernel
    grid = ((SIZE // 128) * (SIZE // 128),)

    def call(m=SIZE, n=SIZE, k=SIZE, g=grid):
        kernel[g](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                  c.stride(0), c.stride(1), BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64,
                  GROUP_SIZE_M=8, num_warps=4, num_stages=4)

    t0 = time.perf_counter()
    call()
    torch.cuda.synchronize()
    first_ms = (time.perf_counter() - t0) * 1e3
    ref = (a.float() @ b.float())
    err = ((c.float() - ref).norm() / ref.norm()).item()
    print(f"CHILD first_call_ms={first_ms:.4f} rel_err={err:.2e}", flush=True)
    if launches:
        # one program (M = N = 128, K = 64: a launch's host cost does not
        # depend on the size), in bursts of 128 with an untimed wait between,
        # as tlc_bench_latency times tlc_launch
        for _ in range(100):
            call(128, 128, 64, (1,))
        torch.cuda.synchronize()
        times = []
        for i in range(launches):
            t0 = time.perf_counter_ns()
            call(128, 128, 64, (1,))
            times.append((time.perf_counter_ns() - t0) / 1e3)
            if i % 128 == 127:
                torch.cuda.synchronize()
        torch.cuda.synchronize()
        print(f"PEERS what=launch kernel=matmul median_us={statistics.median(times):.3f} "
              f"mean_us={statistics.fmean(times):.3f} calls={launches}", flush=True)


def run_child(cache, launches=0):
    env = dict(os.environ, TRITON_CACHE_DIR=cache, PYTHONUNBUFFERED="1")
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", str(launches)],
                       env=env, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        raise SystemExit(f"peers_latency: a child failed with status {p.returncode}")
    first = None
    for line in p.stdout.splitlines():
        if line.startswith("CHILD "):
            kv = dict(f.split("=", 1) for f in line.split()[1:])
            first = float(kv["first_call_ms"])
            if float(kv["rel_err"]) > 1e-2:
                raise SystemExit(f"peers_latency: Triton's result is off (relative error {kv['rel_err']})")
        elif line.startswith("PEERS "):
            print(line, flush=True)
    return first


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        child(int(sys.argv[2]))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=11)
    ap.add_argument("--launches", type=int, default=20000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="triton-latency-") as cache:
        print(f"PEERS what=cold first_call_ms={run_child(cache):.3f}", flush=True)
        warm = [run_child(cache) for _ in range(args.reps)]
        print(f"PEERS what=warm first_call_ms={statistics.median(warm):.3f} processes={args.reps}", flush=True)
        run_child(cache, args.launches)


if __name__ == "__main__":
    main()
