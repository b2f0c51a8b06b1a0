/* lang_movement — tl.flip, tl.join, tl.split, tl.interleave and tl.ravel
 * (lang_movement.tile) on the GPU against a CPU reference, through the
 * examples' harness (poisoned outputs with guard zones, a re-run that must
 * give the same bits):
 *   movement  per M x N tile: flips along both dims, split(join(x, y)),
 *             interleave, ravel, join
 *   flip_1d   rows of 32 to 4096 (registers, lanes and warps along the axis)
 *   gather_2d tl.gather along axis 1 and axis 0 with random indices
 *   histogram tl.histogram of integers partly out of range, and masked
 *   sort_2d   tl.sort along rows (float, int32) and columns (descending),
 *             up to 4096 elements along the axis (registers, lanes, warps)
 * The results are the inputs moved, so they are compared exactly.  Exit 77
 * (skipped) without a GPU. */
#include "examples/common/host.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static const char TILE[] = "../tests/gpu/lang_movement.tile";

static float *inputs(Ex *ex, size_t n, tlc_devptr *d) {
  float *x = ex_xmalloc(n * sizeof(float));
  ex_fill_f32(&ex->rng, x, n, -1, 1);
  *d = ex_alloc(ex, n * sizeof(float));
  ex_upload(ex, *d, x, n * sizeof(float));
  return x;
}

static void run(Ex *ex, const char *kernel, const char *size, const ExSig *sig, const ExOut *o,
                const double *ref, size_t nout, unsigned grid, size_t nin) {
  ExCase ec = {
      .label = kernel, .size = size, .tile = TILE, .kernel = kernel, .sig = sig,
      .grid = {grid, 1, 1}, .out = o->p, .out_elems = nout, .elem = EX_F32, .ref = ref,
      .exact = true, .bytes = (double)(nin + nout) * 4,
  };
  ex_run_case(ex, &ec, o);
}

static void movement(Ex *ex, int tiles, int m, int n) {
  size_t mn = (size_t)m * n, tot = (size_t)tiles * mn;
  tlc_devptr dx, dy;
  float *x = inputs(ex, tot, &dx), *y = inputs(ex, tot, &dy);
  double *ref = ex_xmalloc(tot * 9 * sizeof(double));
  for (int t = 0; t < tiles; t++) {
    const float *xt = x + (size_t)t * mn, *yt = y + (size_t)t * mn;
    double *o = ref + (size_t)t * 9 * mn;
    for (int i = 0; i < m; i++)
      for (int j = 0; j < n; j++) {
        size_t k = (size_t)i * n + j;
        o[k] = xt[(size_t)(m - 1 - i) * n + j];
        o[mn + k] = xt[(size_t)i * n + (n - 1 - j)];
        o[2 * mn + k] = xt[k];
        o[3 * mn + k] = yt[k];
        o[4 * mn + (size_t)i * 2 * n + 2 * j] = xt[k];
        o[4 * mn + (size_t)i * 2 * n + 2 * j + 1] = yt[k];
        o[6 * mn + k] = xt[k];
        o[7 * mn + 2 * k] = xt[k];
        o[7 * mn + 2 * k + 1] = yt[k];
      }
  }
  ExOut o = ex_out_alloc(ex, tot * 9 * sizeof(float));
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, "fp32", dx);
  ex_sig_ptr(&sig, "fp32", dy);
  ex_sig_ptr(&sig, "fp32", o.p);
  ex_sig_const_int(&sig, m);
  ex_sig_const_int(&sig, n);
  char size[32];
  snprintf(size, sizeof size, "%dx%dx%d", tiles, m, n);
  run(ex, "movement", size, &sig, &o, ref, tot * 9, (unsigned)tiles, 2 * tot);
  ex_out_free(ex, &o), ex_free(ex, dx), ex_free(ex, dy), free(x), free(y), free(ref);
}

static void flip_1d(Ex *ex, int rows, int n) {
  size_t tot = (size_t)rows * n;
  tlc_devptr dx;
  float *x = inputs(ex, tot, &dx);
  double *ref = ex_xmalloc(tot * sizeof(double));
  for (int r = 0; r < rows; r++)
    for (int j = 0; j < n; j++) ref[(size_t)r * n + j] = x[(size_t)r * n + (n - 1 - j)];
  ExOut o = ex_out_alloc(ex, tot * sizeof(float));
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, "fp32", dx);
  ex_sig_ptr(&sig, "fp32", o.p);
  ex_sig_const_int(&sig, n);
  char size[32];
  snprintf(size, sizeof size, "%dx%d", rows, n);
  run(ex, "flip_1d", size, &sig, &o, ref, tot, (unsigned)rows, tot);
  ex_out_free(ex, &o), ex_free(ex, dx), free(x), free(ref);
}

static void gather_2d(Ex *ex, int tiles, int m, int n, int k) {
  size_t mn = (size_t)m * n, per = (size_t)m * k + (size_t)k * n;
  tlc_devptr dx;
  float *x = inputs(ex, (size_t)tiles * mn, &dx);
  int32_t *idx = ex_xmalloc((size_t)tiles * per * sizeof(int32_t));
  double *ref = ex_xmalloc((size_t)tiles * per * sizeof(double));
  for (int t = 0; t < tiles; t++) {
    const float *xt = x + (size_t)t * mn;
    int32_t *it = idx + (size_t)t * per;
    double *o = ref + (size_t)t * per;
    for (int i = 0; i < m; i++)
      for (int j = 0; j < k; j++) {
        size_t q = (size_t)i * k + j;
        it[q] = (int32_t)(ex_rng_next(&ex->rng) % (uint64_t)n);
        o[q] = xt[(size_t)i * n + it[q]];
      }
    for (int i = 0; i < k; i++)
      for (int j = 0; j < n; j++) {
        size_t q = (size_t)m * k + (size_t)i * n + j;
        it[q] = (int32_t)(ex_rng_next(&ex->rng) % (uint64_t)m);
        o[q] = xt[(size_t)it[q] * n + j];
      }
  }
  tlc_devptr di = ex_alloc(ex, (size_t)tiles * per * sizeof(int32_t));
  ex_upload(ex, di, idx, (size_t)tiles * per * sizeof(int32_t));
  ExOut o = ex_out_alloc(ex, (size_t)tiles * per * sizeof(float));
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, "fp32", dx);
  ex_sig_ptr(&sig, "i32", di);
  ex_sig_ptr(&sig, "fp32", o.p);
  ex_sig_const_int(&sig, m);
  ex_sig_const_int(&sig, n);
  ex_sig_const_int(&sig, k);
  char size[40];
  snprintf(size, sizeof size, "%dx%dx%d/%d", tiles, m, n, k);
  run(ex, "gather_2d", size, &sig, &o, ref, (size_t)tiles * per, (unsigned)tiles, (size_t)tiles * (mn + per));
  ex_out_free(ex, &o), ex_free(ex, dx), ex_free(ex, di), free(x), free(idx), free(ref);
}

static void histogram(Ex *ex, int rows, int n, int bins, int valid) {
  size_t tot = (size_t)rows * n;
  int32_t *x = ex_xmalloc(tot * sizeof(int32_t));
  double *ref = ex_xmalloc((size_t)rows * 2 * bins * sizeof(double));
  for (size_t i = 0; i < (size_t)rows * 2 * bins; i++) ref[i] = 0;
  for (int r = 0; r < rows; r++)
    for (int j = 0; j < n; j++) {
      int32_t v = (int32_t)(ex_rng_next(&ex->rng) % (uint64_t)(bins + 16)) - 8;
      x[(size_t)r * n + j] = v;
      if (v >= 0 && v < bins) {
        ref[(size_t)r * 2 * bins + v] += 1;
        if (j < valid) ref[(size_t)r * 2 * bins + bins + v] += 1;
      }
    }
  tlc_devptr dx = ex_alloc(ex, tot * sizeof(int32_t));
  ex_upload(ex, dx, x, tot * sizeof(int32_t));
  ExOut o = ex_out_alloc(ex, (size_t)rows * 2 * bins * sizeof(float));
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, "i32", dx);
  ex_sig_ptr(&sig, "fp32", o.p);
  ex_sig_int(&sig, valid);
  ex_sig_const_int(&sig, n);
  ex_sig_const_int(&sig, bins);
  char size[40];
  snprintf(size, sizeof size, "%dx%d/%d", rows, n, bins);
  run(ex, "histogram", size, &sig, &o, ref, (size_t)rows * 2 * bins, (unsigned)rows, tot);
  ex_out_free(ex, &o), ex_free(ex, dx), free(x), free(ref);
}

static int cmp_up(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* len elements of v at stride, sorted (descending: reversed) into ref. */
static void sorted_ref(const double *v, double *ref, int len, size_t stride, bool desc) {
  double *t = ex_xmalloc((size_t)len * sizeof(double));
  for (int j = 0; j < len; j++) t[j] = v[(size_t)j * stride];
  qsort(t, (size_t)len, sizeof(double), cmp_up);
  for (int j = 0; j < len; j++) ref[(size_t)j * stride] = t[desc ? len - 1 - j : j];
  free(t);
}

static void sort_2d(Ex *ex, int tiles, int m, int n) {
  size_t mn = (size_t)m * n, tot = (size_t)tiles * mn;
  tlc_devptr dx;
  float *x = inputs(ex, tot, &dx);
  double *ref = ex_xmalloc(tot * 3 * sizeof(double)), *xd = ex_xmalloc(mn * 2 * sizeof(double));
  for (int t = 0; t < tiles; t++) {
    const float *xt = x + (size_t)t * mn;
    double *o = ref + (size_t)t * 3 * mn;
    for (size_t k = 0; k < mn; k++) xd[k] = xt[k], xd[mn + k] = (double)(int32_t)(xt[k] * 8.0f);
    for (int i = 0; i < m; i++) {
      sorted_ref(xd + (size_t)i * n, o + (size_t)i * n, n, 1, false);
      sorted_ref(xd + mn + (size_t)i * n, o + 2 * mn + (size_t)i * n, n, 1, false);
    }
    for (int j = 0; j < n; j++) sorted_ref(xd + j, o + mn + j, m, (size_t)n, true);
  }
  ExOut o = ex_out_alloc(ex, tot * 3 * sizeof(float));
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, "fp32", dx);
  ex_sig_ptr(&sig, "fp32", o.p);
  ex_sig_const_int(&sig, m);
  ex_sig_const_int(&sig, n);
  char size[32];
  snprintf(size, sizeof size, "%dx%dx%d", tiles, m, n);
  run(ex, "sort_2d", size, &sig, &o, ref, tot * 3, (unsigned)tiles, tot);
  ex_out_free(ex, &o), ex_free(ex, dx), free(x), free(xd), free(ref);
}

int main(int argc, char **argv) {
  Ex ex;
  ex_open(&ex, argc, argv, "gpu_lang_movement");
  movement(&ex, 3, 16, 32);
  movement(&ex, 2, 64, 64);
  movement(&ex, 4, 8, 4);
  flip_1d(&ex, 5, 32);
  flip_1d(&ex, 3, 1024);
  flip_1d(&ex, 2, 4096);
  gather_2d(&ex, 3, 16, 32, 8);
  gather_2d(&ex, 2, 64, 128, 64);
  histogram(&ex, 3, 1024, 64, 700);
  histogram(&ex, 2, 32, 256, 20);
  histogram(&ex, 2, 4096, 512, 4000);
  sort_2d(&ex, 3, 16, 32);
  sort_2d(&ex, 2, 64, 64);
  sort_2d(&ex, 2, 2, 4096);
  sort_2d(&ex, 2, 512, 2);
  return ex_finish(&ex);
}
