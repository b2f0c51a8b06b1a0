/* matmul — the seed's matmul_kernel (seed 000, matmul.tile, text as written)
 * against a CPU reference accumulating in double.
 *
 * Inputs uniform in [-1, 1] in the input dtype; C is written in the input
 * dtype (the seed's host allocates C like A), so fp16/bf16 outputs are
 * compared with a relative L2 bound that covers their rounding (fp16 2e-3,
 * bf16 1e-2, see docs/examples.md); fp32 inputs run the exact FMA dot the
 * seed asks for (allow_tf32=False) and must match within 1e-5.
 *
 * The seed's store mask swaps m and n (`off_n[None, :] < m`,
 * `off_m[:, None] < n`), so its result is right only when m == n: the
 * sizes here are square, including ones that are not multiples of the
 * blocks.  Grid: (cdiv(m, bm), cdiv(n, bn)) as the seed's host. */
#include "examples/common/host.h"
#include "examples/common/ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Gemm {
  const char *dtype;   /* "fp16", "bf16", "fp32" */
  int64_t m, n, k;
  int bm, bn, bk, warps;
} Gemm;

static void run(Ex *ex, const Gemm *g) {
  int64_t m = g->m, n = g->n, k = g->k;
  if (ex_cpu_skip(ex, "matmul", (double)m * n * k)) return;
  double *a = ex_xmalloc(sizeof(double) * (size_t)(m * k)), *b = ex_xmalloc(sizeof(double) * (size_t)(k * n));
  double *ref = ex_xmalloc(sizeof(double) * (size_t)(m * n));
  ExElem e = ex_elem_of(g->dtype);
  tlc_devptr da = ex_upload_random(ex, e, (size_t)(m * k), -1, 1, a);
  tlc_devptr db = ex_upload_random(ex, e, (size_t)(k * n), -1, 1, b);
  ref_matmul(a, b, m, n, k, ref);
  ExOut dc = ex_out_alloc(ex, (size_t)(m * n) * ex_elem_size(e));

  /* matmul_kernel(a_ptr, b_ptr, c_ptr, m, n, k, stride_am, stride_ak, stride_bk, stride_bn,
   *               stride_cm, stride_cn, bm, bn, bk) */
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, g->dtype, da);
  ex_sig_ptr(&sig, g->dtype, db);
  ex_sig_ptr(&sig, g->dtype, dc.p);
  ex_sig_int(&sig, m);
  ex_sig_int(&sig, n);
  ex_sig_int(&sig, k);
  ex_sig_int(&sig, k), ex_sig_int(&sig, 1);
  ex_sig_int(&sig, n), ex_sig_int(&sig, 1);
  ex_sig_int(&sig, n), ex_sig_int(&sig, 1);
  ex_sig_const_int(&sig, g->bm), ex_sig_const_int(&sig, g->bn), ex_sig_const_int(&sig, g->bk);
  tlc_kernel_options opt = {.num_warps = g->warps};

  char label[32], size[64];
  snprintf(label, sizeof label, "matmul_%s", g->dtype);
  snprintf(size, sizeof size, "%lldx%lldx%lld/b%dx%dx%d/w%d", (long long)m, (long long)n, (long long)k,
           g->bm, g->bn, g->bk, g->warps);
  double tol = e == EX_F16 ? 2e-3 : e == EX_BF16 ? 1e-2 : 1e-5;
  ExCase c = {
      .label = label, .size = size, .tile = "matmul/matmul.tile", .kernel = "matmul_kernel",
      .opt = &opt, .sig = &sig,
      .grid = {(unsigned)ex_cdiv(m, g->bm), (unsigned)ex_cdiv(n, g->bn), 1},
      .out = dc.p, .out_elems = (size_t)(m * n), .elem = e, .ref = ref, .tol = tol,
      .bytes = (double)(m * k + k * n + m * n) * (double)ex_elem_size(e),
  };
  ex_run_case(ex, &c, &dc);
  ex_out_free(ex, &dc);
  ex_free(ex, da);
  ex_free(ex, db);
  free(a), free(b), free(ref);
}

int main(int argc, char **argv) {
  Ex ex;
  ex_open(&ex, argc, argv, "ex_matmul");
  static const Gemm cases[] = {
      {"fp16", 16, 16, 16, 16, 16, 16, 4},      /* the seed host's bs=16 */
      {"fp16", 127, 127, 67, 16, 16, 16, 4},
      {"fp16", 256, 256, 256, 64, 64, 32, 4},
      {"fp16", 1000, 1000, 1000, 128, 128, 32, 8},
      {"fp16", 333, 333, 200, 64, 128, 32, 4},
      {"bf16", 255, 255, 129, 64, 64, 32, 4},
      {"bf16", 512, 512, 512, 128, 64, 32, 4},
      {"fp32", 127, 127, 67, 16, 16, 16, 4},
      {"fp32", 256, 256, 100, 32, 32, 16, 4},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run(&ex, &cases[i]);
  return ex_finish(&ex);
}
