/* weighted_sum — seed 001's weighted_sum_fwd and weighted_sum_backward
 * (block pointers, advance,
 * boundary_check with zero padding) against a double-precision reference:
 * out[r] = sum_d x[r, d] * w[d] for a rows x D fp32 matrix, inputs uniform in
 * [-1, 1].  Launched as the seed's WeightedSumFunc.forward does: grid
 * cdiv(rows, ROWS_TILE_SIZE), ROWS_TILE_SIZE 16, D_TILE_SIZE =
 * next_power_of_2(D) // 16, arguments (x, weight, y, x.stride(0),
 * x.stride(1), weight.stride(0), y.stride(0), ROWS, D, ...).  The unit
 * strides become the constexpr 1 as Triton's launcher specializes them.
 *
 *
 * The backward (weighted_sum_backward.tile), launched as the seed's
 * WeightedSumFunc.backward: grad_x[r, d] = grad_out[r] * w[d] and, per tile t
 * of ROWS_TILE_SIZE rows, partial_grad_weight[t, d] = sum over the tile's rows
 * of x[r, d] * grad_out[r] (the seed's host then sums the partials; the
 * kernel's output, the partial sums, is what is checked).  Both outputs are
 * checked, relative L2 bound 1e-5.
 *
 * One deviation: the seed's D_TILE_SIZE is 0 for D < 16 (a zero-sized
 * block); here it is at least 1 (the 7x5 case). */
#include "examples/common/host.h"
#include "examples/common/ref.h"

#include <stdio.h>
#include <stdlib.h>

enum { ROWS_TILE_SIZE = 16 };

static void run_size(Ex *ex, int64_t rows, int64_t D) {
  if (ex_cpu_skip(ex, "weighted_sum", (double)rows * D)) return;
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

static void run_backward(Ex *ex, int64_t rows, int64_t D) {
  int64_t d_tile = ex_next_pow2(D) / 16;
  if (d_tile < 1) d_tile = 1;
  int64_t tiles = ex_cdiv(rows, ROWS_TILE_SIZE);
  size_t nx = (size_t)(rows * D), np = (size_t)(tiles * D);
  double *x = ex_xmalloc(nx * sizeof(double)), *w = ex_xmalloc((size_t)D * sizeof(double));
  double *g = ex_xmalloc((size_t)rows * sizeof(double));
  double *ref_gx = ex_xmalloc(nx * sizeof(double)), *ref_pw = ex_xmalloc(np * sizeof(double));
  tlc_devptr dx = ex_upload_random(ex, EX_F32, nx, -1, 1, x);
  tlc_devptr dw = ex_upload_random(ex, EX_F32, (size_t)D, -1, 1, w);
  tlc_devptr dg = ex_upload_random(ex, EX_F32, (size_t)rows, -1, 1, g);
  for (int64_t r = 0; r < rows; r++)
    for (int64_t d = 0; d < D; d++) ref_gx[r * D + d] = g[r] * w[d];
  for (int64_t t = 0; t < tiles; t++)
    for (int64_t d = 0; d < D; d++) {
      double s = 0;
      for (int64_t r = t * ROWS_TILE_SIZE; r < rows && r < (t + 1) * ROWS_TILE_SIZE; r++) s += x[r * D + d] * g[r];
      ref_pw[t * D + d] = s;
    }
  ExOut gx = ex_out_alloc(ex, nx * sizeof(float)), pw = ex_out_alloc(ex, np * sizeof(float));

  /* (x, weight, grad_out, grad_x, partial_grad_weight, x.stride(0), x.stride(1),
   *  weight.stride(0), grad_out.stride(0), grad_x.stride(0), grad_x.stride(1),
   *  partial.stride(0), partial.stride(1), NUM_ROWS, D, ROWS_TILE_SIZE, D_TILE_SIZE) */
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, "fp32", dx), ex_sig_ptr(&sig, "fp32", dw), ex_sig_ptr(&sig, "fp32", dg);
  ex_sig_ptr(&sig, "fp32", gx.p), ex_sig_ptr(&sig, "fp32", pw.p);
  ex_sig_int(&sig, D), ex_sig_int(&sig, 1);
  ex_sig_int(&sig, 1), ex_sig_int(&sig, 1);
  ex_sig_int(&sig, D), ex_sig_int(&sig, 1);
  ex_sig_int(&sig, D), ex_sig_int(&sig, 1);
  ex_sig_int(&sig, rows), ex_sig_int(&sig, D);
  ex_sig_const_int(&sig, ROWS_TILE_SIZE), ex_sig_const_int(&sig, d_tile);

  char size[64];
  snprintf(size, sizeof size, "%lldx%lld/dt%lld", (long long)rows, (long long)D, (long long)d_tile);
  tlc_kernel *k;
  if (ex_kernel(ex, "weighted_sum/weighted_sum_backward.tile", "weighted_sum_backward", sig.text, NULL, &k) !=
      TLC_OK) {
    ex_result_error(ex, "weighted_sum_bwd", size);
  } else {
    unsigned grid[3] = {(unsigned)tiles, 1, 1};
    ex_poison(ex, &gx), ex_poison(ex, &pw);
    ex_ok(ex, tlc_launch(k, grid[0], 1, 1, NULL, sig.args, sig.nargs), "launch");
    ex_ok(ex, tlc_synchronize(ex->rt), "synchronize (a fault in the kernel?)");
    void *gx1 = ex_out_snapshot(ex, &gx), *pw1 = ex_out_snapshot(ex, &pw);
    double us = ex_time_us(ex, k, grid, &sig, ex->warmup, ex->reps);
    ex_poison(ex, &gx), ex_poison(ex, &pw);
    ex_ok(ex, tlc_launch(k, grid[0], 1, 1, NULL, sig.args, sig.nargs), "launch");
    ex_ok(ex, tlc_synchronize(ex->rt), "synchronize (a fault in the kernel?)");
    ex_report_out(ex, "weighted_sum_bwd_grad_x", size, &gx, EX_F32, ref_gx, nx, 1e-5, us, gx1);
    ex_report_out(ex, "weighted_sum_bwd_partial_w", size, &pw, EX_F32, ref_pw, np, 1e-5, us, pw1);
    free(gx1), free(pw1);
  }
  ex_out_free(ex, &gx), ex_out_free(ex, &pw);
  ex_free(ex, dx), ex_free(ex, dw), ex_free(ex, dg);
  free(x), free(w), free(g), free(ref_gx), free(ref_pw);
}

int main(int argc, char **argv) {
  Ex ex;
  ex_open(&ex, argc, argv, "ex_weighted_sum");
  run_size(&ex, 1000, 200);
  run_size(&ex, 33, 64);
  run_size(&ex, 16, 16);
  run_size(&ex, 7, 5);
  run_size(&ex, 4099, 1000);
  run_backward(&ex, 1000, 200);
  run_backward(&ex, 33, 64);
  run_backward(&ex, 7, 5);
  run_backward(&ex, 4099, 1000);
  return ex_finish(&ex);
}
