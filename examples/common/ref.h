/* ref.h — the examples' CPU references, in double precision.
 *
 * Each takes the exact inputs the GPU got (fp32 or fp16 values) and computes
 * the mathematical result in double, so the comparison measures the kernel's
 * own rounding and nothing else.  Outputs are dense, row-major doubles. */
#ifndef TLC_EXAMPLES_REF_H
#define TLC_EXAMPLES_REF_H

#include <stddef.h>
#include <stdint.h>

/* out[i] = a[i] + b[i] */
void ref_add(const float *a, const float *b, double *out, size_t n);

/* Row-wise softmax of a rows x cols matrix (row stride `cols`).
 * pad > 0 models a kernel that reads `pad` extra elements per row as 0.0 and
 * lets them into the max and the sum but never stores them: what Triton
 * computes for the seed's softmax_kernel (v1) when BLOCK_SIZE > n_cols, since
 * its masked load has no `other` and Triton fills masked lanes with 0. */
void ref_softmax(const float *x, int64_t rows, int64_t cols, int64_t pad, double *out);

/* y (N x M) = transpose of x (M x N), fp16 values carried exactly. */
void ref_transpose_f16(const uint16_t *x, int64_t M, int64_t N, double *y);

/* out[r] = sum_d x[r, d] * w[d]  (x is rows x D, row stride D) */
void ref_weighted_sum(const float *x, const float *w, int64_t rows, int64_t D, double *out);

/* c (m x n) = a (m x k) @ b (k x n), all dense row-major doubles */
void ref_matmul(const double *a, const double *b, int64_t m, int64_t n, int64_t k, double *c);

/* Softmax attention of one head, plainly: S = Q K^T * scale (causal: -inf
 * where column > row), P = softmax(S) by rows, O = P V, M = logsumexp(S) / ln 2
 * (base-2 statistics, as the seed-004 kernels keep them).  Q, K, V, O are
 * N x D.  With dO given (else NULL, and dQ/dK/dV are not written), the
 * gradients: dV = P^T dO, dS = P * (dO V^T - rowsum(dO * O)),
 * dQ = dS K * scale, dK = dS^T Q * scale. */
void ref_attention_head(const double *Q, const double *K, const double *V, const double *dO, int N, int D,
                        int causal, double scale, double *O, double *M, double *dQ, double *dK, double *dV);
/* The forward of one head for the query rows rows[0..nrows) only (long
 * sequences, where the full N x N reference is too large): O[r * D + d]
 * and M[r] (log2 of the row's softmax sum, as ref_attention_head) for the
 * r-th listed row. */
void ref_attention_rows(const double *Q, const double *K, const double *V, int N, int D, int causal,
                        double scale, const int *rows, int nrows, double *O, double *M);

#endif
