/* lang_scan — tl.cumsum and tl.cumprod (lang_scan.tile) on the GPU against a
 * CPU reference, through the examples' harness (poisoned outputs with guard
 * zones, a re-run that must give the same bits):
 *   scan_1d  rows of 32 to 4096 (registers, lanes and warps along the axis):
 *            sums and products forward and reversed, int32 and int8 sums
 *   scan_2d  tiles scanned along axis 0 and axis 1, forward and reversed
 *   user_1d  tl.associative_scan with @jit combine functions: a sum, the
 *            recurrence h = a * h_prev + b on (a, b) pairs forward and
 *            reversed (not commutative), a running max with its index
 *   user_2d  the recurrence along axis 0, the running max's index along 1
 *   user_reduce  tl.reduce with @jit combines: row sums, row argmaxes on
 *            (value, index) pairs, column maxima, the total (axis=None)
 * The inputs are chosen so every result is exact in fp32 whatever the order
 * of the additions: sums of multiples of 1/8 in [-1, 1), products of 1, -1,
 * 2 and 1/2.  Exit 77 (skipped) without a GPU. */
#include "examples/common/host.h"

#include <stdio.h>
#include <stdlib.h>

static const char TILE[] = "../tests/gpu/lang_scan.tile";

/* n multiples of 1/8 in [-1, 1) and n factors from {1, -1, 2, 1/2}. */
static void inputs(Ex *ex, size_t n, float **x, float **p, tlc_devptr *dx, tlc_devptr *dp) {
  static const float fac[6] = {1, -1, 1, -1, 2, 0.5f};
  *x = ex_xmalloc(n * sizeof(float));
  *p = ex_xmalloc(n * sizeof(float));
  for (size_t i = 0; i < n; i++) {
    (*x)[i] = (float)((int)(ex_rng_next(&ex->rng) % 16) - 8) / 8.0f;
    (*p)[i] = fac[ex_rng_next(&ex->rng) % 6];
  }
  *dx = ex_alloc(ex, n * sizeof(float));
  *dp = ex_alloc(ex, n * sizeof(float));
  ex_upload(ex, *dx, *x, n * sizeof(float));
  ex_upload(ex, *dp, *p, n * sizeof(float));
}

/* ref[k * stride] for k = 0..len-1: the inclusive scan of v[k * stride]
 * (sum or product), from the first element or from the last. */
static void scan_ref(const float *v, double *ref, int len, size_t stride, bool prod, bool rev) {
  double acc = prod ? 1 : 0;
  for (int j = 0; j < len; j++) {
    size_t k = (size_t)(rev ? len - 1 - j : j) * stride;
    acc = prod ? acc * v[k] : acc + v[k];
    ref[k] = acc;
  }
}

/* Launch `kernel` on `grid` programs with x (and p, unless NULL), a fresh
 * output of nout floats and the constexprs m (when > 0) and n; check it
 * exactly against ref.  The case's size reads grid x m x n. */
static void run(Ex *ex, const char *kernel, tlc_devptr dx, const tlc_devptr *dp, int m, int n,
                const double *ref, size_t nout, unsigned grid, size_t nin) {
  ExOut o = ex_out_alloc(ex, nout * sizeof(float));
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, "fp32", dx);
  if (dp) ex_sig_ptr(&sig, "fp32", *dp);
  ex_sig_ptr(&sig, "fp32", o.p);
  if (m > 0) ex_sig_const_int(&sig, m);
  ex_sig_const_int(&sig, n);
  char size[32];
  if (m > 0) snprintf(size, sizeof size, "%ux%dx%d", grid, m, n);
  else snprintf(size, sizeof size, "%ux%d", grid, n);
  ExCase ec = {
      .label = kernel, .size = size, .tile = TILE, .kernel = kernel, .sig = &sig,
      .grid = {grid, 1, 1}, .out = o.p, .out_elems = nout, .elem = EX_F32, .ref = ref,
      .exact = true, .bytes = (double)(2 * nin + nout) * 4,
  };
  ex_run_case(ex, &ec, &o);
  ex_out_free(ex, &o);
}

static void scan_1d(Ex *ex, int rows, int n) {
  size_t tot = (size_t)rows * n;
  float *x, *p;
  tlc_devptr dx, dp;
  inputs(ex, tot, &x, &p, &dx, &dp);
  double *ref = ex_xmalloc(tot * 6 * sizeof(double));
  float *x8 = ex_xmalloc(tot * sizeof(float));
  for (size_t i = 0; i < tot; i++) x8[i] = x[i] * 8;
  for (int r = 0; r < rows; r++) {
    const float *xr = x + (size_t)r * n, *pr = p + (size_t)r * n, *ir = x8 + (size_t)r * n;
    double *o = ref + (size_t)r * 6 * n;
    scan_ref(xr, o, n, 1, false, false);
    scan_ref(xr, o + n, n, 1, false, true);
    scan_ref(pr, o + 2 * n, n, 1, true, false);
    scan_ref(pr, o + 3 * n, n, 1, true, true);
    scan_ref(ir, o + 4 * n, n, 1, false, false);
    scan_ref(ir, o + 5 * n, n, 1, false, true);
  }
  run(ex, "scan_1d", dx, &dp, 0, n, ref, tot * 6, (unsigned)rows, tot);
  ex_free(ex, dx), ex_free(ex, dp), free(x), free(p), free(x8), free(ref);
}

static void scan_2d(Ex *ex, int tiles, int m, int n) {
  size_t mn = (size_t)m * n, tot = (size_t)tiles * mn;
  float *x, *p;
  tlc_devptr dx, dp;
  inputs(ex, tot, &x, &p, &dx, &dp);
  double *ref = ex_xmalloc(tot * 4 * sizeof(double));
  for (int t = 0; t < tiles; t++) {
    const float *xt = x + (size_t)t * mn, *pt = p + (size_t)t * mn;
    double *o = ref + (size_t)t * 4 * mn;
    for (int j = 0; j < n; j++) {
      scan_ref(xt + j, o + j, m, (size_t)n, false, false);
      scan_ref(xt + j, o + 2 * mn + j, m, (size_t)n, false, true);
    }
    for (int i = 0; i < m; i++) {
      scan_ref(xt + (size_t)i * n, o + mn + (size_t)i * n, n, 1, false, false);
      scan_ref(pt + (size_t)i * n, o + 3 * mn + (size_t)i * n, n, 1, true, true);
    }
  }
  run(ex, "scan_2d", dx, &dp, m, n, ref, tot * 4, (unsigned)tiles, tot);
  ex_free(ex, dx), ex_free(ex, dp), free(x), free(p), free(ref);
}

/* The recurrence h = a * h_prev + b (a = sign of p) and the running max
 * (value, index; ties keep the earlier) along len elements at stride. */
static void recur_ref(const float *x, const float *p, double *ref, int len, size_t stride, bool rev) {
  double h = 0;
  for (int j = 0; j < len; j++) {
    size_t k = (size_t)(rev ? len - 1 - j : j) * stride;
    h = (p[k] < 0 ? -1.0 : 1.0) * h + x[k];
    ref[k] = h;
  }
}
static void argmax_ref(const float *x, double *val, double *idx, int len, size_t stride) {
  double m = 0;
  int mi = 0;
  for (int j = 0; j < len; j++) {
    size_t k = (size_t)j * stride;
    if (j == 0 || x[k] > m) m = x[k], mi = j;
    if (val) val[k] = m;
    idx[k] = mi;
  }
}

static void user_1d(Ex *ex, int rows, int n) {
  size_t tot = (size_t)rows * n;
  float *x, *p;
  tlc_devptr dx, dp;
  inputs(ex, tot, &x, &p, &dx, &dp);
  double *ref = ex_xmalloc(tot * 5 * sizeof(double));
  for (int r = 0; r < rows; r++) {
    const float *xr = x + (size_t)r * n, *pr = p + (size_t)r * n;
    double *o = ref + (size_t)r * 5 * n;
    scan_ref(xr, o, n, 1, false, false);
    recur_ref(xr, pr, o + n, n, 1, false);
    recur_ref(xr, pr, o + 2 * n, n, 1, true);
    argmax_ref(xr, o + 3 * n, o + 4 * n, n, 1);
  }
  run(ex, "user_1d", dx, &dp, 0, n, ref, tot * 5, (unsigned)rows, tot);
  ex_free(ex, dx), ex_free(ex, dp), free(x), free(p), free(ref);
}

static void user_2d(Ex *ex, int tiles, int m, int n) {
  size_t mn = (size_t)m * n, tot = (size_t)tiles * mn;
  float *x, *p;
  tlc_devptr dx, dp;
  inputs(ex, tot, &x, &p, &dx, &dp);
  double *ref = ex_xmalloc(tot * 2 * sizeof(double));
  for (int t = 0; t < tiles; t++) {
    const float *xt = x + (size_t)t * mn, *pt = p + (size_t)t * mn;
    double *o = ref + (size_t)t * 2 * mn;
    for (int j = 0; j < n; j++) recur_ref(xt + j, pt + j, o + j, m, (size_t)n, false);
    for (int i = 0; i < m; i++) argmax_ref(xt + (size_t)i * n, NULL, o + mn + (size_t)i * n, n, 1);
  }
  run(ex, "user_2d", dx, &dp, m, n, ref, tot * 2, (unsigned)tiles, tot);
  ex_free(ex, dx), ex_free(ex, dp), free(x), free(p), free(ref);
}

static void user_reduce(Ex *ex, int tiles, int m, int n) {
  size_t mn = (size_t)m * n, tot = (size_t)tiles * mn, per = (size_t)(2 * m + n + 1);
  float *x, *p;
  tlc_devptr dx, dp;
  inputs(ex, tot, &x, &p, &dx, &dp);
  double *ref = ex_xmalloc((size_t)tiles * per * sizeof(double));
  for (int t = 0; t < tiles; t++) {
    const float *xt = x + (size_t)t * mn;
    double *o = ref + (size_t)t * per, total = 0;
    for (int j = 0; j < n; j++) o[2 * m + j] = xt[j];
    for (int i = 0; i < m; i++) {
      double sum = 0, best = 0;
      int bi = 0;
      for (int j = 0; j < n; j++) {
        double v = xt[(size_t)i * n + j];
        sum += v;
        if (j == 0 || v > best) best = v, bi = j;
        if (v > o[2 * m + j]) o[2 * m + j] = v;
      }
      o[i] = sum, o[m + i] = bi, total += sum;
    }
    o[2 * m + n] = total;
  }
  run(ex, "user_reduce", dx, NULL, m, n, ref, (size_t)tiles * per, (unsigned)tiles, tot / 2);
  ex_free(ex, dx), ex_free(ex, dp), free(x), free(p), free(ref);
}

int main(int argc, char **argv) {
  Ex ex;
  ex_open(&ex, argc, argv, "gpu_lang_scan");
  scan_1d(&ex, 7, 32);
  scan_1d(&ex, 5, 256);
  scan_1d(&ex, 3, 1024);
  scan_1d(&ex, 2, 4096);
  scan_2d(&ex, 3, 16, 64);
  scan_2d(&ex, 2, 64, 16);
  scan_2d(&ex, 2, 128, 128);
  user_1d(&ex, 5, 32);
  user_1d(&ex, 3, 1024);
  user_1d(&ex, 2, 4096);
  user_2d(&ex, 3, 16, 64);
  user_2d(&ex, 2, 128, 128);
  user_reduce(&ex, 5, 16, 32);
  user_reduce(&ex, 3, 64, 128);
  user_reduce(&ex, 2, 256, 64);
  return ex_finish(&ex);
}
