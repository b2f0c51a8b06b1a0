/* matmul_splitk — split-K matmul (matmul_splitk.tile: seed 000's split-K
 * description on its matmul body): SPLIT_K programs per output tile each sum
 * a strided share of the K blocks and add their partial tile into C with
 * tl.atomic_add.  fp16/bf16 A and B, fp32 C, against a CPU reference
 * accumulating in double; relative L2 bound 1e-3 (the partial sums are fp32).
 *
 * C has poisoned guard zones on both sides (stores out of bounds are seen)
 * but its inside must start at zero, the kernel adding into it: the host
 * zeroes it before the checked launch.  The order of the atomic additions is
 * not fixed, so two runs may differ in the last bits: no stability check
 * (stable=-). */
#include "examples/common/host.h"
#include "examples/common/ref.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct SplitK {
  const char *dtype;
  int64_t m, n, k;
  int bm, bn, bk, split, warps;
} SplitK;

static void run(Ex *ex, const SplitK *g) {
  int64_t m = g->m, n = g->n, k = g->k;
  if (ex_cpu_skip(ex, "matmul_splitk", (double)m * n * k)) return;
  ExElem e = ex_elem_of(g->dtype);
  double *a = ex_xmalloc(sizeof(double) * (size_t)(m * k)), *b = ex_xmalloc(sizeof(double) * (size_t)(k * n));
  double *ref = ex_xmalloc(sizeof(double) * (size_t)(m * n));
  tlc_devptr da = ex_upload_random(ex, e, (size_t)(m * k), -1, 1, a);
  tlc_devptr db = ex_upload_random(ex, e, (size_t)(k * n), -1, 1, b);
  ref_matmul(a, b, m, n, k, ref);
  ExOut dc = ex_out_alloc(ex, (size_t)(m * n) * sizeof(float));

  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, g->dtype, da);
  ex_sig_ptr(&sig, g->dtype, db);
  ex_sig_ptr(&sig, "fp32", dc.p);
  ex_sig_int(&sig, m), ex_sig_int(&sig, n), ex_sig_int(&sig, k);
  ex_sig_int(&sig, k), ex_sig_int(&sig, 1);
  ex_sig_int(&sig, n), ex_sig_int(&sig, 1);
  ex_sig_int(&sig, n), ex_sig_int(&sig, 1);
  ex_sig_const_int(&sig, g->bm), ex_sig_const_int(&sig, g->bn), ex_sig_const_int(&sig, g->bk);
  ex_sig_const_int(&sig, g->split);
  tlc_kernel_options opt = {.num_warps = g->warps};

  char label[48], size[96];
  snprintf(label, sizeof label, "matmul_splitk_%s", g->dtype);
  snprintf(size, sizeof size, "%lldx%lldx%lld/b%dx%dx%d/split%d/w%d", (long long)m, (long long)n,
           (long long)k, g->bm, g->bn, g->bk, g->split, g->warps);
  tlc_kernel *kern;
  if (ex_kernel(ex, "matmul/matmul_splitk.tile", "matmul_splitk_kernel", sig.text, &opt, &kern) != TLC_OK) {
    ex_result_error(ex, label, size);
  } else {
    unsigned grid[3] = {(unsigned)ex_cdiv(m, g->bm), (unsigned)ex_cdiv(n, g->bn), (unsigned)g->split};
    /* timing first (the sums pile up in C), then the checked run on a fresh zero */
    double us = ex_time_us(ex, kern, grid, &sig, ex->warmup, ex->reps);
    ex_poison(ex, &dc);
    ex_ok(ex, tlc_memset_d8(ex->rt, dc.p, 0, dc.bytes), "zero C");
    ex_ok(ex, tlc_launch(kern, grid[0], grid[1], grid[2], NULL, sig.args, sig.nargs), "launch");
    ex_ok(ex, tlc_synchronize(ex->rt), "synchronize (a fault in the kernel?)");
    ex_report_out(ex, label, size, &dc, EX_F32, ref, (size_t)(m * n), 1e-3, us, NULL);
  }
  ex_out_free(ex, &dc);
  ex_free(ex, da), ex_free(ex, db);
  free(a), free(b), free(ref);
}

int main(int argc, char **argv) {
  Ex ex;
  ex_open(&ex, argc, argv, "ex_matmul_splitk");
  static const SplitK cases[] = {
      {"fp16", 64, 64, 1024, 64, 64, 32, 4, 4},
      {"fp16", 100, 77, 2000, 64, 64, 32, 8, 4},
      {"fp16", 256, 256, 4096, 128, 64, 32, 16, 4},
      {"fp16", 33, 200, 333, 32, 64, 32, 3, 4},
      {"bf16", 129, 70, 1500, 64, 32, 32, 5, 4},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run(&ex, &cases[i]);
  return ex_finish(&ex);
}
