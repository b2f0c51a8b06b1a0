/* lang_exits — return, break and continue under runtime conditions
 * (lang_exits.tile) on the GPU, each kernel against a CPU reference on
 * random inputs, through the examples' harness (poisoned outputs with guard
 * zones, a re-run that must give the same bits):
 *   row_affine       `if row >= n_rows: return` with more programs than rows
 *                    (an extra program that did not leave writes out of bounds)
 *   row_scan         break in a range loop, continue, break in a while
 *   block_sums       a block pointer and a tensor carried through a break
 *   search           return from two nested loops; a helper's value
 *                    returned under a runtime condition
 *   unrolled_prefix  break in tl.static_range
 * Exit 77 (skipped) without a GPU. */
#include "examples/common/host.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char TILE[] = "../tests/gpu/lang_exits.tile";

/* One case: inputs x (n floats in [-1, 1), uploaded), an output of nout
 * floats checked against ref. */
typedef struct Case {
  const char *kernel;
  const char *size;
  float *x;
  size_t n;
  double *ref;
  size_t nout;
} Case;

static void run(Ex *ex, const Case *c, const ExSig *sig, const ExOut *o, unsigned grid) {
  ExCase ec = {
      .label = c->kernel, .size = c->size, .tile = TILE, .kernel = c->kernel, .sig = sig,
      .grid = {grid, 1, 1}, .out = o->p, .out_elems = c->nout, .elem = EX_F32, .ref = c->ref,
      .tol = 1e-6, .bytes = (double)(c->n + c->nout) * 4,
  };
  ex_run_case(ex, &ec, o);
}

static float *inputs(Ex *ex, size_t n, tlc_devptr *d) {
  float *x = ex_xmalloc(n * sizeof(float));
  ex_fill_f32(&ex->rng, x, n, -1, 1);
  *d = ex_alloc(ex, n * sizeof(float));
  ex_upload(ex, *d, x, n * sizeof(float));
  return x;
}

static void row_affine(Ex *ex, int rows, int cols) {
  tlc_devptr dx;
  size_t n = (size_t)rows * cols;
  float *x = inputs(ex, n, &dx);
  double *ref = ex_xmalloc(n * sizeof(double));
  for (size_t i = 0; i < n; i++) ref[i] = (double)(x[i] * 2.0f + 1.0f);
  ExOut o = ex_out_alloc(ex, n * sizeof(float));
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, "fp32", dx);
  ex_sig_ptr(&sig, "fp32", o.p);
  ex_sig_int(&sig, rows);
  ex_sig_int(&sig, cols);
  ex_sig_const_int(&sig, ex_next_pow2(cols));
  char size[32];
  snprintf(size, sizeof size, "%dx%d", rows, cols);
  Case c = {"row_affine", size, x, n, ref, n};
  run(ex, &c, &sig, &o, (unsigned)rows + 7);
  ex_out_free(ex, &o), ex_free(ex, dx), free(x), free(ref);
}

static void row_scan(Ex *ex, int rows, int cols, float thr) {
  tlc_devptr dx;
  size_t n = (size_t)rows * cols;
  float *x = inputs(ex, n, &dx);
  double *ref = ex_xmalloc((size_t)rows * 4 * sizeof(double));
  for (int r = 0; r < rows; r++) {
    const float *row = x + (size_t)r * cols;
    int first = cols, j = 0;
    float pos = 0, pre = 0;
    for (int i = 0; i < cols; i++)
      if (row[i] > thr) { first = i; break; }
    for (int i = 0; i < cols; i++)
      if (row[i] >= 0) pos += row[i];
    while (j < cols && row[j] >= 0) pre += row[j++];
    ref[r * 4 + 0] = first, ref[r * 4 + 1] = pos, ref[r * 4 + 2] = pre, ref[r * 4 + 3] = j;
  }
  ExOut o = ex_out_alloc(ex, (size_t)rows * 4 * sizeof(float));
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, "fp32", dx);
  ex_sig_ptr(&sig, "fp32", o.p);
  ex_sig_int(&sig, cols);
  ex_sig_arg(&sig, "fp32", TLC_F32(thr));
  char size[32];
  snprintf(size, sizeof size, "%dx%d", rows, cols);
  Case c = {"row_scan", size, x, n, ref, (size_t)rows * 4};
  run(ex, &c, &sig, &o, (unsigned)rows);
  ex_out_free(ex, &o), ex_free(ex, dx), free(x), free(ref);
}

enum { SUM_BLOCK = 32 };

static void block_sums(Ex *ex, int rows, int cols) {
  tlc_devptr dx;
  size_t n = (size_t)rows * cols;
  float *x = inputs(ex, n, &dx);
  /* multiples of 1/64 (every sum exact in any order, so the GPU's tree
   * reduction decides each break as the reference does) with a positive
   * bias, so that several blocks pass before one is negative */
  for (size_t i = 0; i < n; i++) x[i] = roundf(x[i] * 64) / 64 + 5.0f / 64;
  ex_upload(ex, dx, x, n * sizeof(float));
  double *ref = ex_xmalloc((size_t)rows * SUM_BLOCK * sizeof(double));
  for (int r = 0; r < rows; r++) {
    const float *row = x + (size_t)r * cols;
    float acc[SUM_BLOCK] = {0};
    for (int s = 0; s < cols; s += SUM_BLOCK) {
      float v[SUM_BLOCK];
      double sum = 0;
      for (int i = 0; i < SUM_BLOCK; i++) v[i] = s + i < cols ? row[s + i] : 0, sum += v[i];
      if (sum < 0) break;
      for (int i = 0; i < SUM_BLOCK; i++) acc[i] += v[i];
    }
    for (int i = 0; i < SUM_BLOCK; i++) ref[r * SUM_BLOCK + i] = acc[i];
  }
  ExOut o = ex_out_alloc(ex, (size_t)rows * SUM_BLOCK * sizeof(float));
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, "fp32", dx);
  ex_sig_ptr(&sig, "fp32", o.p);
  ex_sig_int(&sig, cols);
  ex_sig_const_int(&sig, SUM_BLOCK);
  char size[32];
  snprintf(size, sizeof size, "%dx%d", rows, cols);
  Case c = {"block_sums", size, x, n, ref, (size_t)rows * SUM_BLOCK};
  run(ex, &c, &sig, &o, (unsigned)rows);
  ex_out_free(ex, &o), ex_free(ex, dx), free(x), free(ref);
}

static void search(Ex *ex, int rows, int m, int k) {
  tlc_devptr dx;
  size_t n = (size_t)rows * m * k;
  float *x = inputs(ex, n, &dx);
  double *ref = ex_xmalloc((size_t)rows * 3 * sizeof(double));
  for (int r = 0; r < rows; r++) {
    const float *row = x + (size_t)r * m * k;
    int found = -1;
    for (int i = 0; i < m * k && found < 0; i++)
      if (row[i] < -0.9f) found = i;
    ref[r * 3 + 0] = found;
    ref[r * 3 + 1] = row[0] > row[1] ? row[0] - row[1] : row[1] - row[0];
    ref[r * 3 + 2] = row[0] > row[1] ? 1 : -1;
  }
  ExOut o = ex_out_alloc(ex, (size_t)rows * 3 * sizeof(float));
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, "fp32", dx);
  ex_sig_ptr(&sig, "fp32", o.p);
  ex_sig_int(&sig, m);
  ex_sig_int(&sig, k);
  char size[32];
  snprintf(size, sizeof size, "%dx%dx%d", rows, m, k);
  Case c = {"search", size, x, n, ref, (size_t)rows * 3};
  run(ex, &c, &sig, &o, (unsigned)rows);
  ex_out_free(ex, &o), ex_free(ex, dx), free(x), free(ref);
}

static void unrolled_prefix(Ex *ex, int rows, int cols) {
  tlc_devptr dx;
  size_t n = (size_t)rows * cols;
  float *x = inputs(ex, n, &dx);
  double *ref = ex_xmalloc((size_t)rows * sizeof(double));
  for (int r = 0; r < rows; r++) {
    float acc = 0;
    for (int i = 0; i < 8 && x[(size_t)r * cols + i] >= -0.5f; i++) acc += x[(size_t)r * cols + i];
    ref[r] = acc;
  }
  ExOut o = ex_out_alloc(ex, (size_t)rows * sizeof(float));
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, "fp32", dx);
  ex_sig_ptr(&sig, "fp32", o.p);
  ex_sig_int(&sig, cols);
  char size[32];
  snprintf(size, sizeof size, "%dx%d", rows, cols);
  Case c = {"unrolled_prefix", size, x, n, ref, (size_t)rows};
  run(ex, &c, &sig, &o, (unsigned)rows);
  ex_out_free(ex, &o), ex_free(ex, dx), free(x), free(ref);
}

int main(int argc, char **argv) {
  Ex ex;
  ex_open(&ex, argc, argv, "gpu_lang_exits");
  row_affine(&ex, 37, 100);
  row_affine(&ex, 256, 1000);
  row_scan(&ex, 300, 97, 0.9f);
  row_scan(&ex, 64, 1000, 0.99f);
  block_sums(&ex, 200, 1000);
  search(&ex, 500, 8, 8);
  search(&ex, 100, 3, 5);
  unrolled_prefix(&ex, 400, 8);
  return ex_finish(&ex);
}
