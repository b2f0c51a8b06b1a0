/* vector_add — the seed's add_kernel (vector_add.tile) against a CPU
 * reference, as the seed's host code launches it: BLOCK_SIZE 1024, a grid of
 * cdiv(n, 1024) programs, c = a + b on fp32 inputs uniform in [-1, 1].
 * Sizes include ones that are not multiples of the block (the mask matters)
 * and n = 1 (Triton specializes it to the constexpr 1). */
#include "examples/common/host.h"
#include "examples/common/ref.h"

#include <stdio.h>
#include <stdlib.h>

enum { BLOCK_SIZE = 1024 };

static void run_size(Ex *ex, int64_t n) {
  size_t bytes = (size_t)n * sizeof(float);
  float *a = ex_xmalloc(bytes), *b = ex_xmalloc(bytes);
  double *ref = ex_xmalloc((size_t)n * sizeof(double));
  ex_fill_f32(&ex->rng, a, (size_t)n, -1, 1);
  ex_fill_f32(&ex->rng, b, (size_t)n, -1, 1);
  ref_add(a, b, ref, (size_t)n);

  tlc_devptr da = ex_alloc(ex, bytes), db = ex_alloc(ex, bytes);
  ExOut dc = ex_out_alloc(ex, bytes);
  ex_upload(ex, da, a, bytes);
  ex_upload(ex, db, b, bytes);

  /* add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK_SIZE: tl.constexpr) */
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, "fp32", da);
  ex_sig_ptr(&sig, "fp32", db);
  ex_sig_ptr(&sig, "fp32", dc.p);
  ex_sig_int(&sig, n);
  ex_sig_const_int(&sig, BLOCK_SIZE);

  char size[32];
  snprintf(size, sizeof size, "%lld", (long long)n);
  ExCase c = {
      .label = "vector_add", .size = size,
      .tile = "vector_add/vector_add.tile", .kernel = "add_kernel",
      .sig = &sig, .grid = {(unsigned)ex_cdiv(n, BLOCK_SIZE), 1, 1},
      .out = dc.p, .out_elems = (size_t)n, .elem = EX_F32,
      .ref = ref, .tol = 1e-5, .bytes = 3.0 * (double)bytes,
  };
  ex_run_case(ex, &c, &dc);

  ex_out_free(ex, &dc);
  ex_free(ex, da);
  ex_free(ex, db);
  free(a), free(b), free(ref);
}

int main(int argc, char **argv) {
  Ex ex;
  ex_open(&ex, argc, argv, "ex_vector_add");
  static const int64_t sizes[] = {1, 1000, 98432, 1 << 20};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) run_size(&ex, sizes[i]);
  return ex_finish(&ex);
}
