/* batched_dot — examples/matmul/batched_dot.tile (one 3-D tl.dot per K step
 * over [BB, BM, BK] @ [BB, BK, BN] blocks) against a CPU reference
 * accumulating in double, batch by batch.
 *
 * Inputs uniform in [-1, 1] in the input dtype, C in the input dtype:
 * fp16 and bf16 run on mma.sync (m16n8k16), fp32 with the dot's default
 * tf32 on mma.sync m16n8k8 (ALLOW_TF32=True) or as exact per-thread FMAs
 * (ALLOW_TF32=False).  Bounds (relative L2): fp16 2e-3, bf16 1e-2, tf32
 * 1e-3, exact fp32 1e-5.  Sizes are off the blocks in every dim (batch
 * included) except where a case says otherwise; block batches from 1 to 8,
 * 2 to 8 warps.  Grid: (cdiv(M, BM), cdiv(N, BN), cdiv(batch, BB)). */
#include "examples/common/host.h"
#include "examples/common/ref.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct Bmm {
  const char *dtype;   /* "fp16", "bf16", "fp32" */
  bool tf32;           /* fp32: ALLOW_TF32 */
  int64_t batch, m, n, k;
  int bb, bm, bn, bk, warps;
} Bmm;

static void run(Ex *ex, const Bmm *g) {
  int64_t nb = g->batch, m = g->m, n = g->n, k = g->k;
  if (ex_cpu_skip(ex, "batched_dot", (double)nb * m * n * k)) return;
  size_t na = (size_t)(nb * m * k), nbv = (size_t)(nb * k * n), nc = (size_t)(nb * m * n);
  double *a = ex_xmalloc(sizeof(double) * na), *b = ex_xmalloc(sizeof(double) * nbv);
  double *ref = ex_xmalloc(sizeof(double) * nc);
  ExElem e = ex_elem_of(g->dtype);
  tlc_devptr da = ex_upload_random(ex, e, na, -1, 1, a);
  tlc_devptr db = ex_upload_random(ex, e, nbv, -1, 1, b);
  for (int64_t i = 0; i < nb; i++) ref_matmul(a + i * m * k, b + i * k * n, m, n, k, ref + i * m * n);
  ExOut dc = ex_out_alloc(ex, nc * ex_elem_size(e));

  /* batched_dot_kernel(a_ptr, b_ptr, c_ptr, batch, M, N, K,
   *                    stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn,
   *                    stride_cb, stride_cm, stride_cn, BB, BM, BN, BK, ALLOW_TF32) */
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, g->dtype, da);
  ex_sig_ptr(&sig, g->dtype, db);
  ex_sig_ptr(&sig, g->dtype, dc.p);
  ex_sig_int(&sig, nb), ex_sig_int(&sig, m), ex_sig_int(&sig, n), ex_sig_int(&sig, k);
  ex_sig_int(&sig, m * k), ex_sig_int(&sig, k), ex_sig_int(&sig, 1);
  ex_sig_int(&sig, k * n), ex_sig_int(&sig, n), ex_sig_int(&sig, 1);
  ex_sig_int(&sig, m * n), ex_sig_int(&sig, n), ex_sig_int(&sig, 1);
  ex_sig_const_int(&sig, g->bb), ex_sig_const_int(&sig, g->bm), ex_sig_const_int(&sig, g->bn);
  ex_sig_const_int(&sig, g->bk);
  ex_sig_const(&sig, g->tf32 ? "True" : "False");
  tlc_kernel_options opt = {.num_warps = g->warps};

  char label[40], size[80];
  bool exact32 = e == EX_F32 && !g->tf32;
  snprintf(label, sizeof label, "batched_dot_%s", e == EX_F32 ? (g->tf32 ? "tf32" : "fp32") : g->dtype);
  snprintf(size, sizeof size, "%lldx%lldx%lldx%lld/b%dx%dx%dx%d/w%d", (long long)nb, (long long)m, (long long)n,
           (long long)k, g->bb, g->bm, g->bn, g->bk, g->warps);
  double tol = e == EX_F16 ? 2e-3 : e == EX_BF16 ? 1e-2 : exact32 ? 1e-5 : 1e-3;
  ExCase c = {
      .label = label, .size = size, .tile = "matmul/batched_dot.tile", .kernel = "batched_dot_kernel",
      .opt = &opt, .sig = &sig,
      .grid = {(unsigned)ex_cdiv(m, g->bm), (unsigned)ex_cdiv(n, g->bn), (unsigned)ex_cdiv(nb, g->bb)},
      .out = dc.p, .out_elems = nc, .elem = e, .ref = ref, .tol = tol,
      .bytes = (double)(na + nbv + nc) * (double)ex_elem_size(e),
  };
  ex_run_case(ex, &c, &dc);
  ex_out_free(ex, &dc);
  ex_free(ex, da);
  ex_free(ex, db);
  free(a), free(b), free(ref);
}

int main(int argc, char **argv) {
  Ex ex;
  ex_open(&ex, argc, argv, "ex_batched_dot");
  static const Bmm cases[] = {
      /* dtype  tf32   batch  m    n    k     bb  bm  bn  bk  warps */
      {"fp16", false, 3, 100, 70, 50, 2, 32, 32, 32, 4},
      {"fp16", false, 8, 128, 128, 64, 4, 32, 32, 32, 4},   /* multiples of the blocks */
      {"fp16", false, 5, 257, 129, 300, 2, 64, 64, 32, 8},
      {"fp16", false, 1, 64, 48, 64, 1, 64, 64, 32, 4},
      {"fp16", false, 17, 33, 40, 17, 8, 16, 16, 16, 4},
      {"fp16", false, 7, 200, 48, 96, 4, 16, 64, 32, 2},
      {"fp16", false, 6, 90, 90, 90, 2, 32, 16, 64, 8},
      {"bf16", false, 3, 100, 70, 50, 2, 32, 32, 32, 4},
      {"bf16", false, 6, 130, 65, 77, 2, 64, 32, 16, 4},
      {"bf16", false, 9, 31, 31, 200, 8, 16, 16, 32, 8},
      {"fp32", true, 3, 100, 70, 50, 2, 32, 32, 16, 4},
      {"fp32", true, 9, 64, 33, 40, 4, 16, 32, 32, 4},
      {"fp32", true, 5, 129, 17, 65, 1, 64, 16, 16, 2},
      {"fp32", false, 3, 61, 45, 29, 2, 16, 16, 16, 4},
      {"fp32", false, 5, 40, 40, 40, 2, 32, 32, 16, 4},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run(&ex, &cases[i]);
  return ex_finish(&ex);
}
