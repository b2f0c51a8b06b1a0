/* batched_matmul — seed 000's batched GEMMs with bias (batched_matmul.tile,
 * the seed's text), launched as the seed's host functions launch them, each
 * against a CPU reference accumulating in double:
 *
 *   matmul_kernel1  C[b] = A[b] @ B + bias      A (B, M, K), B (K, N), bias (N,)
 *   matmul_kernel2  C[b] = A @ B[b] + bias[b]   A (M, K), B (B, K, N), bias (B,)
 *
 * Grid (batch, cdiv(M, bm), cdiv(N, bn)); the programs are remapped with
 * tl.swizzle2d(group_sz).  `activation` is None and apply_activation False as
 * in the seed's calls without an activation (the kernels' activation code is
 * commented out); one case per kernel passes bias=None (add_bias False).
 * Inputs uniform in [-1, 1] in the input dtype, C in the same dtype; relative
 * L2 bound 2e-3 (fp16) / 1e-2 (bf16). */
#include "examples/common/host.h"
#include "examples/common/ref.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct Batched {
  int kernel;          /* 1 or 2 */
  const char *dtype;
  int64_t batch, m, n, k;
  bool bias;
  int bm, bn, bk, group, warps;
} Batched;

static void run(Ex *ex, const Batched *g) {
  int64_t B = g->batch, m = g->m, n = g->n, k = g->k;
  if (ex_cpu_skip(ex, "batched_matmul", (double)B * m * n * k)) return;
  ExElem e = ex_elem_of(g->dtype);
  size_t na = (size_t)((g->kernel == 1 ? B : 1) * m * k), nb = (size_t)((g->kernel == 2 ? B : 1) * k * n);
  size_t nbias = (size_t)(g->kernel == 1 ? n : B), nc = (size_t)(B * m * n);
  double *a = ex_xmalloc(sizeof(double) * na), *b = ex_xmalloc(sizeof(double) * nb);
  double *bias = ex_xmalloc(sizeof(double) * nbias), *ref = ex_xmalloc(sizeof(double) * nc);
  tlc_devptr da = ex_upload_random(ex, e, na, -1, 1, a);
  tlc_devptr db = ex_upload_random(ex, e, nb, -1, 1, b);
  tlc_devptr dbias = ex_upload_random(ex, e, nbias, -1, 1, bias);
  for (int64_t bi = 0; bi < B; bi++) {
    double *cb = ref + bi * m * n;
    ref_matmul(g->kernel == 1 ? a + bi * m * k : a, g->kernel == 2 ? b + bi * k * n : b, m, n, k, cb);
    if (g->bias)
      for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) cb[i * n + j] += g->kernel == 1 ? bias[j] : bias[bi];
  }
  ExOut dc = ex_out_alloc(ex, nc * ex_elem_size(e));

  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, g->dtype, da);
  ex_sig_ptr(&sig, g->dtype, db);
  ex_sig_ptr(&sig, g->dtype, dc.p);
  ex_sig_int(&sig, m), ex_sig_int(&sig, n), ex_sig_int(&sig, k);
  if (g->kernel == 1) {
    ex_sig_int(&sig, m * k), ex_sig_int(&sig, k), ex_sig_int(&sig, 1);  /* A: batch, height, width */
    ex_sig_int(&sig, n), ex_sig_int(&sig, 1);                          /* B: height, width */
  } else {
    ex_sig_int(&sig, k), ex_sig_int(&sig, 1);                          /* A: height, width */
    ex_sig_int(&sig, k * n), ex_sig_int(&sig, n), ex_sig_int(&sig, 1);  /* B: batch, height, width */
  }
  ex_sig_int(&sig, m * n), ex_sig_int(&sig, n), ex_sig_int(&sig, 1);    /* C */
  if (g->bias) ex_sig_ptr(&sig, g->dtype, dbias);
  else ex_sig_const(&sig, "None");
  ex_sig_const(&sig, g->bias ? "True" : "False");
  ex_sig_const(&sig, "None"), ex_sig_const(&sig, "False");             /* activation */
  ex_sig_const_int(&sig, g->bm), ex_sig_const_int(&sig, g->bn), ex_sig_const_int(&sig, g->bk);
  ex_sig_const_int(&sig, g->group);
  tlc_kernel_options opt = {.num_warps = g->warps};

  char label[48], size[96];
  snprintf(label, sizeof label, "batched_matmul%d_%s%s", g->kernel, g->dtype, g->bias ? "_bias" : "");
  snprintf(size, sizeof size, "%lldx%lldx%lldx%lld/b%dx%dx%d/g%d/w%d", (long long)B, (long long)m,
           (long long)n, (long long)k, g->bm, g->bn, g->bk, g->group, g->warps);
  ExCase c = {
      .label = label, .size = size, .tile = "matmul/batched_matmul.tile",
      .kernel = g->kernel == 1 ? "matmul_kernel1" : "matmul_kernel2",
      .opt = &opt, .sig = &sig,
      .grid = {(unsigned)B, (unsigned)ex_cdiv(m, g->bm), (unsigned)ex_cdiv(n, g->bn)},
      .out = dc.p, .out_elems = nc, .elem = e, .ref = ref, .tol = e == EX_F16 ? 2e-3 : 1e-2,
      .bytes = (double)(na + nb + nc) * (double)ex_elem_size(e),
  };
  ex_run_case(ex, &c, &dc);
  ex_out_free(ex, &dc);
  ex_free(ex, da), ex_free(ex, db), ex_free(ex, dbias);
  free(a), free(b), free(bias), free(ref);
}

int main(int argc, char **argv) {
  Ex ex;
  ex_open(&ex, argc, argv, "ex_batched_matmul");
  static const Batched cases[] = {
      {1, "fp16", 2, 16, 16, 16, true, 16, 16, 16, 16, 4},  /* the seed host's blocks */
      {1, "fp16", 3, 200, 150, 77, true, 64, 64, 32, 4, 4},
      {1, "fp16", 4, 256, 512, 128, false, 128, 64, 32, 8, 4},
      {1, "bf16", 2, 100, 130, 64, true, 64, 64, 32, 2, 4},
      {2, "fp16", 2, 16, 16, 16, true, 16, 16, 16, 16, 4},
      {2, "fp16", 3, 130, 200, 99, true, 64, 64, 32, 4, 4},
      {2, "fp16", 4, 512, 256, 128, false, 64, 128, 32, 8, 4},
      {2, "bf16", 2, 77, 64, 50, true, 32, 32, 16, 2, 4},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run(&ex, &cases[i]);
  return ex_finish(&ex);
}
