/* weighted_sum — seed 001's weighted_sum_fwd (block pointers, advance,
 * boundary_check with zero padding) against a double-precision reference:
 * out[r] = sum_d x[r, d] * w[d] for a rows x D fp32 matrix, inputs uniform in
 * [-1, 1].  Launched as the seed's WeightedSumFunc.forward does: grid
 * cdiv(rows, ROWS_TILE_SIZE), ROWS_TILE_SIZE 16, D_TILE_SIZE =
 * next_power_of_2(D) // 16, arguments (x, weight, y, x.stride(0),
 * x.stride(1), weight.stride(0), y.stride(0), ROWS, D, ...).  The unit
 * strides become the constexpr 1 as Triton's launcher specializes them.
 *
 * One deviation: the seed's D_TILE_SIZE is 0 for D < 16 (a zero-sized
 * block); here it is at least 1 (the 7x5 case). */
#include "examples/common/host.h"
#include "examples/common/ref.h"

#include <stdio.h>
#include <stdlib.h>

enum { ROWS_TILE_SIZE = 16 };

static void run_size(Ex *ex, int64_t rows, int64_t D) {
  int64_t d_tile = ex_next_pow2(D) / 16;
  if (d_tile < 1) d_tile = 1;
  size_t xbytes = (size_t)(rows * D) * sizeof(float), wbytes = (size_t)D * sizeof(float);
  size_t obytes = (size_t)rows * sizeof(float);
  float *x = ex_xmalloc(xbytes), *w = ex_xmalloc(wbytes);
  double *ref = ex_xmalloc((size_t)rows * sizeof(double));
  ex_fill_f32(&ex->rng, x, (size_t)(rows * D), -1, 1);
  ex_fill_f32(&ex->rng, w, (size_t)D, -1, 1);
  ref_weighted_sum(x, w, rows, D, ref);

  tlc_devptr dx = ex_alloc(ex, xbytes), dw = ex_alloc(ex, wbytes);
  ExOut dy = ex_out_alloc(ex, obytes);
  ex_upload(ex, dx, x, xbytes);
  ex_upload(ex, dw, w, wbytes);

  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, "fp32", dx);
  ex_sig_ptr(&sig, "fp32", dw);
  ex_sig_ptr(&sig, "fp32", dy.p);
  ex_sig_int(&sig, D);    /* x.stride(0) */
  ex_sig_int(&sig, 1);    /* x.stride(1) */
  ex_sig_int(&sig, 1);    /* weight.stride(0) */
  ex_sig_int(&sig, 1);    /* y.stride(0) */
  ex_sig_int(&sig, rows); /* ROWS */
  ex_sig_int(&sig, D);    /* D */
  ex_sig_const_int(&sig, ROWS_TILE_SIZE);
  ex_sig_const_int(&sig, d_tile);

  char size[64];
  snprintf(size, sizeof size, "%lldx%lld/dt%lld", (long long)rows, (long long)D, (long long)d_tile);
  ExCase c = {
      .label = "weighted_sum_fwd", .size = size,
      .tile = "weighted_sum/weighted_sum_fwd.tile", .kernel = "weighted_sum_fwd",
      .sig = &sig, .grid = {(unsigned)ex_cdiv(rows, ROWS_TILE_SIZE), 1, 1},
      .out = dy.p, .out_elems = (size_t)rows, .elem = EX_F32,
      .ref = ref, .tol = 1e-5, .bytes = (double)(xbytes + wbytes + obytes),
  };
  ex_run_case(ex, &c, &dy);

  ex_out_free(ex, &dy);
  ex_free(ex, dx);
  ex_free(ex, dw);
  free(x), free(w), free(ref);
}

int main(int argc, char **argv) {
  Ex ex;
  ex_open(&ex, argc, argv, "ex_weighted_sum");
  run_size(&ex, 1000, 200);
  run_size(&ex, 33, 64);
  run_size(&ex, 16, 16);
  run_size(&ex, 7, 5);
  run_size(&ex, 4099, 1000);
  return ex_finish(&ex);
}
