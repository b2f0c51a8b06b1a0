/* matmul_scaled — matmul_scaled.tile, C = (A * s[None, :]) @ B with a
 * per-K scale vector s, against a CPU reference in double that rounds
 * A * s to the input type as the kernel does before its dot.
 *
 * The A tile is a load read into registers inside a pipelined dot loop (the
 * pipeliner's register-load rings), B an ordinary dot operand ring.  Inputs
 * uniform in [-1, 1] (s in [0.5, 2]), C in the input type; relative L2
 * bound fp16 2e-3, bf16 1e-2; sizes off the blocks, num_stages 1 to 4. */
#include "examples/common/host.h"
#include "examples/common/ref.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct Case {
  const char *dtype;
  int64_t m, n, k;
  int bm, bn, bk, warps, stages;
} Case;

static double round_to(ExElem e, double x) {
  return e == EX_F16 ? ex_f16_to_f32(ex_f32_to_f16((float)x)) : ex_bf16_to_f32(ex_f32_to_bf16((float)x));
}

static void run(Ex *ex, const Case *g) {
  int64_t m = g->m, n = g->n, k = g->k;
  if (ex_cpu_skip(ex, "matmul_scaled", (double)m * n * k)) return;
  ExElem e = ex_elem_of(g->dtype);
  ExGemm in;
  ex_gemm_inputs(ex, e, m, n, k, false, -1, 1, &in);
  double *s = ex_xmalloc(sizeof(double) * (size_t)k);
  tlc_devptr ds = ex_upload_random(ex, e, (size_t)k, 0.5, 2, s);
  /* the kernel multiplies in fp32 (the product of two 16-bit values) and
   * rounds to the input type before the dot */
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < k; j++) in.a[i * k + j] = round_to(e, (double)(float)(in.a[i * k + j] * s[j]));
  ref_matmul(in.a, in.b, m, n, k, in.ref);
  ExOut dc = ex_out_alloc(ex, (size_t)(m * n) * ex_elem_size(e));

  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, g->dtype, in.da), ex_sig_ptr(&sig, g->dtype, ds), ex_sig_ptr(&sig, g->dtype, in.db);
  ex_sig_ptr(&sig, g->dtype, dc.p);
  ex_sig_int(&sig, m), ex_sig_int(&sig, n), ex_sig_int(&sig, k);
  ex_sig_int(&sig, k), ex_sig_int(&sig, n), ex_sig_int(&sig, n);
  ex_sig_const_int(&sig, g->bm), ex_sig_const_int(&sig, g->bn), ex_sig_const_int(&sig, g->bk);
  tlc_kernel_options opt = {.num_warps = g->warps, .num_stages = g->stages};

  char label[48], size[80];
  snprintf(label, sizeof label, "matmul_scaled_%s", g->dtype);
  snprintf(size, sizeof size, "%lldx%lldx%lld/b%dx%dx%d/w%d/s%d", (long long)m, (long long)n, (long long)k, g->bm,
           g->bn, g->bk, g->warps, g->stages);
  ExCase c = {
      .label = label, .size = size, .tile = "matmul/matmul_scaled.tile", .kernel = "matmul_scaled_kernel",
      .opt = &opt, .sig = &sig,
      .grid = {(unsigned)ex_cdiv(m, g->bm), (unsigned)ex_cdiv(n, g->bn), 1},
      .out = dc.p, .out_elems = (size_t)(m * n), .elem = e, .ref = in.ref, .tol = e == EX_BF16 ? 1e-2 : 2e-3,
      .bytes = (double)(m * k + k + k * n + m * n) * (double)ex_elem_size(e),
  };
  ex_run_case(ex, &c, &dc);
  ex_out_free(ex, &dc);
  ex_free(ex, ds);
  free(s);
  ex_gemm_free(ex, &in);
}

int main(int argc, char **argv) {
  Ex ex;
  ex_open(&ex, argc, argv, "ex_matmul_scaled");
  static const Case cases[] = {
      {"fp16", 1000, 1008, 1008, 128, 128, 64, 4, 1},
      {"fp16", 1000, 1008, 1008, 128, 128, 64, 4, 3},
      {"fp16", 777, 528, 336, 128, 256, 64, 8, 4},
      {"bf16", 300, 272, 512, 64, 128, 64, 4, 2},
      {"fp16", 100, 80, 160, 32, 64, 32, 4, 3}, /* mma.sync */
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run(&ex, &cases[i]);
  return ex_finish(&ex);
}
