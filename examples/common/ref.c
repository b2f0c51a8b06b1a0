/* ref.c — CPU references in double precision (see ref.h). */
#include "examples/common/ref.h"

#include "examples/common/host.h"

#include <math.h>

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
