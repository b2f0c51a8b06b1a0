/* matmul_int8 — matmul_int8.tile, an int8 matmul accumulating in int32,
 * against the exact integer product computed on the CPU.
 *
 * A and B hold integers uniform in -8 .. 7; B is stored N-major (K x N
 * row-major) or K-major (N x K row-major, the order 8-bit wgmma reads).  C
 * comes back as fp32, where every sum is exact (|sum| <= 64 K < 2^24), so
 * the check is bit-exact; sizes off the blocks; wgmma (64-row blocks and
 * up) and mma.sync (32-row blocks). */
#include "examples/common/host.h"
#include "examples/common/ref.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct Case {
  bool b_kmajor;
  int64_t m, n, k;
  int bm, bn, bk, warps, stages;
} Case;

static void run(Ex *ex, const Case *g) {
  int64_t m = g->m, n = g->n, k = g->k;
  if (ex_cpu_skip(ex, "matmul_int8", (double)m * n * k)) return;
  ExGemm in;
  ex_gemm_inputs(ex, EX_I8, m, n, k, g->b_kmajor, -8, 7, &in);
  ref_matmul(in.a, in.b, m, n, k, in.ref);
  ExOut dc = ex_out_alloc(ex, (size_t)(m * n) * 4);

  /* (a, b, c, M, N, K, stride_am, stride_bk, stride_bn, stride_cm, BLOCK_M, BLOCK_N, BLOCK_K) */
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, "i8", in.da), ex_sig_ptr(&sig, "i8", in.db), ex_sig_ptr(&sig, "fp32", dc.p);
  ex_sig_int(&sig, m), ex_sig_int(&sig, n), ex_sig_int(&sig, k), ex_sig_int(&sig, k);
  if (g->b_kmajor) ex_sig_int(&sig, 1), ex_sig_int(&sig, k);
  else ex_sig_int(&sig, n), ex_sig_int(&sig, 1);
  ex_sig_int(&sig, n);
  ex_sig_const_int(&sig, g->bm), ex_sig_const_int(&sig, g->bn), ex_sig_const_int(&sig, g->bk);
  tlc_kernel_options opt = {.num_warps = g->warps, .num_stages = g->stages};

  char size[96];
  snprintf(size, sizeof size, "%lldx%lldx%lld/b%dx%dx%d/w%d/s%d/%s", (long long)m, (long long)n, (long long)k, g->bm,
           g->bn, g->bk, g->warps, g->stages, g->b_kmajor ? "bt" : "b");
  ExCase c = {
      .label = "matmul_int8", .size = size, .tile = "matmul/matmul_int8.tile", .kernel = "matmul_int8_kernel",
      .opt = &opt, .sig = &sig,
      .grid = {(unsigned)ex_cdiv(m, g->bm), (unsigned)ex_cdiv(n, g->bn), 1},
      .out = dc.p, .out_elems = (size_t)(m * n), .elem = EX_F32, .ref = in.ref, .exact = true,
      .bytes = (double)(m * k + k * n) + 4.0 * (double)(m * n),
  };
  ex_run_case(ex, &c, &dc);
  ex_out_free(ex, &dc);
  ex_gemm_free(ex, &in);
}

int main(int argc, char **argv) {
  Ex ex;
  ex_open(&ex, argc, argv, "ex_matmul_int8");
  static const Case cases[] = {
      {true, 1000, 1008, 1024, 128, 128, 64, 4, 3},
      {true, 777, 528, 512, 128, 256, 128, 8, 4},
      {false, 300, 272, 256, 64, 128, 64, 4, 3}, /* B transposed on its way to shared */
      {true, 100, 96, 320, 32, 64, 64, 4, 3},    /* mma.sync */
      {false, 129, 80, 200, 32, 32, 32, 4, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run(&ex, &cases[i]);
  return ex_finish(&ex);
}
