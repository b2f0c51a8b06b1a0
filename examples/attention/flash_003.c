/* flash_003 — seed 003's flash_attention_kernel (flash_attention_003.tile,
 * the seed's text): one head, q/k/v (n, d) fp32, no scaling, no mask but the
 * sequence end, O = softmax(q k^T) v, launched as the seed's host: BR = 32,
 * BC = 64, grid cdiv(n, BR), output fp32.  Both dots take fp32 operands, so
 * they run in tf32 (Triton's default for a float32 dot).  Inputs uniform in
 * [-1, 1]; reference in double (examples/common/ref.c with scale 1); relative
 * L2 bound 1e-2 (tf32 scores through exp). */
#include "examples/common/host.h"
#include "examples/common/ref.h"

#include <stdio.h>
#include <stdlib.h>

static void run(Ex *ex, int n, int d) {
  if (ex_cpu_skip(ex, "flash_003", (double)n * n * d)) return;
  size_t nd = (size_t)n * d;
  double *q = ex_xmalloc(nd * 8), *k = ex_xmalloc(nd * 8), *v = ex_xmalloc(nd * 8);
  double *o = ex_xmalloc(nd * 8), *m = ex_xmalloc((size_t)n * 8);
  tlc_devptr Q = ex_upload_random(ex, EX_F32, nd, -1, 1, q), K = ex_upload_random(ex, EX_F32, nd, -1, 1, k);
  tlc_devptr V = ex_upload_random(ex, EX_F32, nd, -1, 1, v);
  ref_attention_head(q, k, v, NULL, n, d, 0, 1.0, o, m, NULL, NULL, NULL);
  ExOut O = ex_out_alloc(ex, nd * 4);
  ExSig s;
  ex_sig_init(&s);
  ex_sig_ptr(&s, "fp32", Q), ex_sig_ptr(&s, "fp32", K), ex_sig_ptr(&s, "fp32", V), ex_sig_ptr(&s, "fp32", O.p);
  ex_sig_int(&s, n);
  ex_sig_const_int(&s, d), ex_sig_const_int(&s, 32), ex_sig_const_int(&s, 64);
  char size[48];
  snprintf(size, sizeof size, "n%dd%d/b32x64", n, d);
  ExCase c = {
      .label = "flash003", .size = size, .tile = "attention/flash_attention_003.tile",
      .kernel = "flash_attention_kernel", .sig = &s, .grid = {(unsigned)ex_cdiv(n, 32), 1, 1},
      .out = O.p, .out_elems = nd, .elem = EX_F32, .ref = o, .tol = 1e-2, .bytes = (double)nd * 16,
  };
  ex_run_case(ex, &c, &O);
  ex_out_free(ex, &O);
  ex_free(ex, Q), ex_free(ex, K), ex_free(ex, V);
  free(q), free(k), free(v), free(o), free(m);
}

int main(int argc, char **argv) {
  Ex ex;
  ex_open(&ex, argc, argv, "ex_flash_003");
  run(&ex, 64, 64);
  run(&ex, 100, 64);
  run(&ex, 1000, 32);
  run(&ex, 777, 128);
  run(&ex, 4096, 64);
  return ex_finish(&ex);
}
