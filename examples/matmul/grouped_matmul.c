/* grouped_matmul — seed 000's two ways of grouping a matmul's program ids for
 * L2 reuse, each against a CPU reference accumulating in double:
 *
 *   grouped_matmul_kernel     2-D grid remapped with tl.swizzle2d
 *                             (grouped_matmul.tile, the seed's text);
 *   grouped_matmul_1d_kernel  1-D grid with the documentation's
 *                             num_pid_in_group / first_pid_m arithmetic
 *                             (grouped_matmul_1d.tile, the seed's snippet on
 *                             the seed's matmul body).
 *
 * Inputs uniform in [-1, 1] in the input dtype, C in the same dtype, relative
 * L2 bound 2e-3 for fp16 and 1e-2 for bf16 (docs/examples.md).  The seed's
 * swizzle2d kernel keeps matmul_kernel's swapped store mask (`off_n < m`,
 * `off_m < n`), right only for square C, so its sizes are square (including
 * ones that are not multiples of the blocks); the 1-D kernel runs any shape. */
#include "examples/common/host.h"
#include "examples/common/ref.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct Grouped {
  bool one_d;          /* the 1-D kernel */
  const char *dtype;   /* "fp16" or "bf16" */
  int64_t m, n, k;
  int bm, bn, bk, group, warps;
} Grouped;

static void run(Ex *ex, const Grouped *g) {
  int64_t m = g->m, n = g->n, k = g->k;
  if (ex_cpu_skip(ex, "grouped_matmul", (double)m * n * k)) return;
  ExElem e = ex_elem_of(g->dtype);
  double *a = ex_xmalloc(sizeof(double) * (size_t)(m * k)), *b = ex_xmalloc(sizeof(double) * (size_t)(k * n));
  double *ref = ex_xmalloc(sizeof(double) * (size_t)(m * n));
  tlc_devptr da = ex_upload_random(ex, e, (size_t)(m * k), -1, 1, a);
  tlc_devptr db = ex_upload_random(ex, e, (size_t)(k * n), -1, 1, b);
  ref_matmul(a, b, m, n, k, ref);
  ExOut dc = ex_out_alloc(ex, (size_t)(m * n) * ex_elem_size(e));

  /* both: (a, b, c, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
   *        stride_cm, stride_cn, BM, BN, BK, GROUP) */
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, g->dtype, da);
  ex_sig_ptr(&sig, g->dtype, db);
  ex_sig_ptr(&sig, g->dtype, dc.p);
  ex_sig_int(&sig, m), ex_sig_int(&sig, n), ex_sig_int(&sig, k);
  ex_sig_int(&sig, k), ex_sig_int(&sig, 1);
  ex_sig_int(&sig, n), ex_sig_int(&sig, 1);
  ex_sig_int(&sig, n), ex_sig_int(&sig, 1);
  ex_sig_const_int(&sig, g->bm), ex_sig_const_int(&sig, g->bn), ex_sig_const_int(&sig, g->bk);
  ex_sig_const_int(&sig, g->group);
  tlc_kernel_options opt = {.num_warps = g->warps};

  char label[48], size[80];
  snprintf(label, sizeof label, "%s_%s", g->one_d ? "grouped_matmul_1d" : "grouped_matmul_swizzle2d",
           g->dtype);
  snprintf(size, sizeof size, "%lldx%lldx%lld/b%dx%dx%d/g%d/w%d", (long long)m, (long long)n,
           (long long)k, g->bm, g->bn, g->bk, g->group, g->warps);
  unsigned gm = (unsigned)ex_cdiv(m, g->bm), gn = (unsigned)ex_cdiv(n, g->bn);
  ExCase c = {
      .label = label, .size = size,
      .tile = g->one_d ? "matmul/grouped_matmul_1d.tile" : "matmul/grouped_matmul.tile",
      .kernel = g->one_d ? "grouped_matmul_1d_kernel" : "grouped_matmul_kernel",
      .opt = &opt, .sig = &sig,
      .grid = {g->one_d ? gm * gn : gm, g->one_d ? 1 : gn, 1},
      .out = dc.p, .out_elems = (size_t)(m * n), .elem = e, .ref = ref,
      .tol = e == EX_F16 ? 2e-3 : 1e-2,
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
  ex_open(&ex, argc, argv, "ex_grouped_matmul");
  static const Grouped cases[] = {
      {false, "fp16", 16, 16, 16, 16, 16, 16, 16, 4},  /* the seed host's sizes and blocks */
      {false, "fp16", 300, 300, 77, 64, 64, 32, 4, 4},
      {false, "fp16", 1024, 1024, 512, 128, 128, 32, 8, 4},
      {false, "bf16", 257, 257, 100, 64, 64, 32, 3, 4},
      {true, "fp16", 200, 333, 45, 64, 64, 32, 8, 4},
      {true, "fp16", 1000, 700, 300, 128, 64, 32, 8, 4},
      {true, "fp16", 512, 1024, 256, 64, 128, 32, 4, 4},
      {true, "bf16", 129, 65, 40, 32, 32, 16, 2, 4},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run(&ex, &cases[i]);
  return ex_finish(&ex);
}
