/* matmul_persistent — matmul_persistent.tile (one program per SM walking
 * the output tiles in grouped order, tl.range(..., flatten=True) over the
 * tiles) against a CPU reference accumulating in double.
 *
 * Grid: min(tiles, NUM_SMS) programs with NUM_SMS the device's SM count, so
 * every program runs several tiles at the large sizes, and some none past
 * the tile count at the small ones; sizes off the blocks.  Inputs uniform in
 * [-1, 1] in the input dtype, C in the same dtype; relative L2 bound fp16
 * 2e-3, bf16 1e-2 (docs/examples.md). */
#include "examples/common/host.h"
#include "examples/common/ref.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct Case {
  const char *dtype;
  int64_t m, n, k;
  int bm, bn, bk, group, warps, stages;
  int sms; /* 0: the device's SM count */
} Case;

static void run(Ex *ex, const Case *g) {
  int64_t m = g->m, n = g->n, k = g->k;
  if (ex_cpu_skip(ex, "matmul_persistent", (double)m * n * k)) return;
  ExElem e = ex_elem_of(g->dtype);
  ExGemm in;
  ex_gemm_inputs(ex, e, m, n, k, false, -1, 1, &in);
  ref_matmul(in.a, in.b, m, n, k, in.ref);
  ExOut dc = ex_out_alloc(ex, (size_t)(m * n) * ex_elem_size(e));
  int sms = g->sms ? g->sms : tlc_device_sm_count(ex->rt);

  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, g->dtype, in.da), ex_sig_ptr(&sig, g->dtype, in.db), ex_sig_ptr(&sig, g->dtype, dc.p);
  ex_sig_int(&sig, m), ex_sig_int(&sig, n), ex_sig_int(&sig, k);
  ex_sig_int(&sig, k), ex_sig_int(&sig, 1), ex_sig_int(&sig, n), ex_sig_int(&sig, 1);
  ex_sig_int(&sig, n), ex_sig_int(&sig, 1);
  ex_sig_const_int(&sig, g->bm), ex_sig_const_int(&sig, g->bn), ex_sig_const_int(&sig, g->bk);
  ex_sig_const_int(&sig, g->group), ex_sig_const_int(&sig, sms);
  tlc_kernel_options opt = {.num_warps = g->warps, .num_stages = g->stages};

  int64_t tiles = ex_cdiv(m, g->bm) * ex_cdiv(n, g->bn);
  char label[48], size[96];
  snprintf(label, sizeof label, "matmul_persistent_%s", g->dtype);
  snprintf(size, sizeof size, "%lldx%lldx%lld/b%dx%dx%d/g%d/w%d/s%d/sms%d", (long long)m, (long long)n,
           (long long)k, g->bm, g->bn, g->bk, g->group, g->warps, g->stages, sms);
  ExCase c = {
      .label = label, .size = size, .tile = "matmul/matmul_persistent.tile", .kernel = "matmul_persistent_kernel",
      .opt = &opt, .sig = &sig,
      .grid = {(unsigned)(tiles < sms ? tiles : sms), 1, 1},
      .out = dc.p, .out_elems = (size_t)(m * n), .elem = e, .ref = in.ref, .tol = e == EX_BF16 ? 1e-2 : 2e-3,
      .bytes = (double)(m * k + k * n + m * n) * (double)ex_elem_size(e),
  };
  ex_run_case(ex, &c, &dc);
  ex_out_free(ex, &dc);
  ex_gemm_free(ex, &in);
}

int main(int argc, char **argv) {
  Ex ex;
  ex_open(&ex, argc, argv, "ex_matmul_persistent");
  static const Case cases[] = {
      {"fp16", 2000, 2064, 1024, 128, 256, 64, 8, 8, 4, 0},  /* ~8 tiles per SM on an H100 */
      {"fp16", 1000, 1008, 1008, 128, 128, 64, 8, 4, 3, 0},
      {"fp16", 777, 528, 336, 128, 128, 64, 4, 4, 2, 7},     /* 7 programs, many tiles each */
      {"bf16", 513, 768, 256, 128, 256, 64, 8, 8, 3, 0},
      {"fp16", 100, 80, 160, 64, 64, 32, 8, 4, 3, 0},        /* fewer tiles than SMs */
      {"fp16", 300, 200, 100, 64, 64, 32, 2, 4, 1, 5},       /* no pipelining, K off 16 */
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run(&ex, &cases[i]);
  return ex_finish(&ex);
}
