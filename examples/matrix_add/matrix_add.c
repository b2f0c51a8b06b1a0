/* matrix_add — the seed's matrix_add_kernel (matrix_add.tile) against a CPU
 * reference, launched as the seed's host code does: block (bs0, bs1) as two
 * constexprs, a grid of cdiv(m, bs0) x cdiv(n, bs1) programs, row-major
 * m x n fp32 matrices uniform in [-1, 1].  Sizes and blocks are chosen so
 * both masks (rows and columns) cut through blocks. */
#include "examples/common/host.h"
#include "examples/common/ref.h"

#include <stdio.h>
#include <stdlib.h>

static void run_size(Ex *ex, int64_t m, int64_t n, int bs0, int bs1) {
  size_t elems = (size_t)(m * n), bytes = elems * sizeof(float);
  float *a = ex_xmalloc(bytes), *b = ex_xmalloc(bytes);
  double *ref = ex_xmalloc(elems * sizeof(double));
  ex_fill_f32(&ex->rng, a, elems, -1, 1);
  ex_fill_f32(&ex->rng, b, elems, -1, 1);
  ref_add(a, b, ref, elems);

  tlc_devptr da = ex_alloc(ex, bytes), db = ex_alloc(ex, bytes);
  ExOut dc = ex_out_alloc(ex, bytes);
  ex_upload(ex, da, a, bytes);
  ex_upload(ex, db, b, bytes);

  /* matrix_add_kernel(a_ptr, b_ptr, c_ptr, m, n, bs0: tl.constexpr, bs1: tl.constexpr) */
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, "fp32", da);
  ex_sig_ptr(&sig, "fp32", db);
  ex_sig_ptr(&sig, "fp32", dc.p);
  ex_sig_int(&sig, m);
  ex_sig_int(&sig, n);
  ex_sig_const_int(&sig, bs0);
  ex_sig_const_int(&sig, bs1);

  char size[64];
  snprintf(size, sizeof size, "%lldx%lld/bs%dx%d", (long long)m, (long long)n, bs0, bs1);
  ExCase c = {
      .label = "matrix_add", .size = size,
      .tile = "matrix_add/matrix_add.tile", .kernel = "matrix_add_kernel",
      .sig = &sig, .grid = {(unsigned)ex_cdiv(m, bs0), (unsigned)ex_cdiv(n, bs1), 1},
      .out = dc.p, .out_elems = elems, .elem = EX_F32,
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
  ex_open(&ex, argc, argv, "ex_matrix_add");
  run_size(&ex, 97, 130, 16, 16);
  run_size(&ex, 97, 130, 32, 64);
  run_size(&ex, 1, 1, 16, 16);
  run_size(&ex, 513, 257, 64, 16);
  run_size(&ex, 1024, 1024, 32, 64);
  return ex_finish(&ex);
}
