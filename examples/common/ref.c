/* ref.c — CPU references in double precision (see ref.h). */
#include "examples/common/ref.h"

#include "examples/common/host.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void ref_add(const float *a, const float *b, double *out, size_t n) {
  for (size_t i = 0; i < n; i++) out[i] = (double)a[i] + (double)b[i];
}

void ref_softmax(const float *x, int64_t rows, int64_t cols, int64_t pad, double *out) {
  for (int64_t r = 0; r < rows; r++) {
    const float *xr = x + r * cols;
    double *orow = out + r * cols;
    double m = pad > 0 ? 0.0 : -INFINITY;
    for (int64_t c = 0; c < cols; c++) m = fmax(m, (double)xr[c]);
    double s = (double)pad * exp(0.0 - m);
    for (int64_t c = 0; c < cols; c++) s += exp((double)xr[c] - m);
    for (int64_t c = 0; c < cols; c++) orow[c] = exp((double)xr[c] - m) / s;
  }
}

void ref_transpose_f16(const uint16_t *x, int64_t M, int64_t N, double *y) {
  for (int64_t m = 0; m < M; m++)
    for (int64_t n = 0; n < N; n++) y[n * M + m] = ex_f16_to_f32(x[m * N + n]);
}

void ref_weighted_sum(const float *x, const float *w, int64_t rows, int64_t D, double *out) {
  for (int64_t r = 0; r < rows; r++) {
    double s = 0;
    for (int64_t d = 0; d < D; d++) s += (double)x[r * D + d] * (double)w[d];
    out[r] = s;
  }
}

void ref_matmul(const double *a, const double *b, int64_t m, int64_t n, int64_t k, double *c) {
  for (int64_t i = 0; i < m; i++) {
    double *row = c + i * n;
    for (int64_t j = 0; j < n; j++) row[j] = 0;
    for (int64_t l = 0; l < k; l++) {
      double x = a[i * k + l];
      const double *brow = b + l * n;
      for (int64_t j = 0; j < n; j++) row[j] += x * brow[j];
    }
  }
}

void ref_attention_head(const double *Q, const double *K, const double *V, const double *dO, int N, int D,
                        int causal, double scale, double *O, double *M, double *dQ, double *dK, double *dV) {
  size_t nn = (size_t)N * N;
  double *s = malloc(sizeof(double) * nn), *p = malloc(sizeof(double) * nn);
  if (!s || !p) {
    fprintf(stderr, "ref_attention_head: out of memory\n");
    exit(1);
  }
  for (int i = 0; i < N; i++) {
    double mx = -INFINITY;
    for (int j = 0; j < N; j++) {
      double x = -INFINITY;
      if (!causal || j <= i) {
        x = 0;
        for (int d = 0; d < D; d++) x += Q[(size_t)i * D + d] * K[(size_t)j * D + d];
        x *= scale;
      }
      s[(size_t)i * N + j] = x;
      if (x > mx) mx = x;
    }
    double sum = 0;
    for (int j = 0; j < N; j++) sum += p[(size_t)i * N + j] = exp(s[(size_t)i * N + j] - mx);
    for (int j = 0; j < N; j++) p[(size_t)i * N + j] /= sum;
    M[i] = (mx + log(sum)) / log(2.0);
    for (int d = 0; d < D; d++) O[(size_t)i * D + d] = 0;
    for (int j = 0; j < N; j++) {
      double pj = p[(size_t)i * N + j];
      if (pj != 0)
        for (int d = 0; d < D; d++) O[(size_t)i * D + d] += pj * V[(size_t)j * D + d];
    }
  }
  if (dO) {
    double *ds = s; /* S is no longer needed */
    for (int i = 0; i < N; i++) {
      double delta = 0;
      for (int d = 0; d < D; d++) delta += dO[(size_t)i * D + d] * O[(size_t)i * D + d];
      for (int j = 0; j < N; j++) {
        double dp = 0;
        for (int d = 0; d < D; d++) dp += dO[(size_t)i * D + d] * V[(size_t)j * D + d];
        ds[(size_t)i * N + j] = p[(size_t)i * N + j] * (dp - delta);
      }
    }
    for (size_t x = 0; x < (size_t)N * D; x++) dV[x] = dK[x] = dQ[x] = 0;
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) {
        double pij = p[(size_t)i * N + j], dsij = ds[(size_t)i * N + j];
        for (int d = 0; d < D; d++) {
          dV[(size_t)j * D + d] += pij * dO[(size_t)i * D + d];
          dK[(size_t)j * D + d] += dsij * Q[(size_t)i * D + d] * scale;
          dQ[(size_t)i * D + d] += dsij * K[(size_t)j * D + d] * scale;
        }
      }
  }
  free(s), free(p);
}

void ref_attention_rows(const double *Q, const double *K, const double *V, int N, int D, int causal,
                        double scale, const int *rows, int nrows, double *O, double *M) {
  double *s = malloc(sizeof(double) * (size_t)N);
  if (!s) {
    fprintf(stderr, "ref_attention_rows: out of memory\n");
    exit(1);
  }
  for (int r = 0; r < nrows; r++) {
    int i = rows[r], n = causal ? i + 1 : N;
    double mx = -INFINITY, sum = 0;
    for (int j = 0; j < n; j++) {
      double x = 0;
      for (int d = 0; d < D; d++) x += Q[(size_t)i * D + d] * K[(size_t)j * D + d];
      s[j] = x * scale;
      if (s[j] > mx) mx = s[j];
    }
    double *o = O + (size_t)r * D;
    for (int d = 0; d < D; d++) o[d] = 0;
    for (int j = 0; j < n; j++) {
      double p = exp(s[j] - mx);
      sum += p;
      for (int d = 0; d < D; d++) o[d] += p * V[(size_t)j * D + d];
    }
    for (int d = 0; d < D; d++) o[d] /= sum;
    M[r] = (mx + log(sum)) / log(2.0);
  }
  free(s);
}
