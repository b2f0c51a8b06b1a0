/* dot.c — tl.dot: acc + a @ b for 2-D operands [M, K] x [K, N] and batched
 * 3-D ones [B, M, K] x [B, K, N].
 *
 * Floats accumulate in fp32 (fp64 for fp64 operands) with one fused
 * multiply-add per k, in k order, starting from the accumulator: bit for
 * bit what the GPU's FMA dot computes (fp32 operands, precision "ieee");
 * the tensor cores (mma / wgmma) sum in another order, so fp16 / bf16 /
 * fp8 / tf32 results match within rounding.  precision "tf32" rounds fp32
 * operands to tf32 first (cvt.rna: to nearest, ties away from zero, 10
 * mantissa bits); "tf32x3" is computed as "ieee".  Integers (int8)
 * accumulate in int32 with wraparound. */
#include "interp/interp_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static float tf32(float x) {
  if (!isfinite(x)) return x;
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  u = (u + 0x1000u) & ~0x1fffu; /* ties away from zero on the magnitude */
  memcpy(&x, &u, sizeof x);
  return x;
}

bool ip_dot(Interp *I, Op *op) {
  Value *a = op->operands[0], *b = op->operands[1], *c = op->operands[2], *r = op->results[0];
  const Type *at = a->type, *bt = b->type, *rt = r->type;
  int rk = rt->rank;
  int64_t B = rk == 3 ? rt->shape[0] : 1, M = at->shape[rk - 2], K = at->shape[rk - 1], N = bt->shape[rk - 1];
  DType ad = ip_dt(a), bd = ip_dt(b), cd = ip_dt(c), rd = ip_dt(r);
  const unsigned char *ax = ip_val(I, a)->data, *bx = ip_val(I, b)->data;
  IVal *cs = ip_val(I, c);
  int64_t cst = cs->n == 1 ? 0 : 1;
  /* the accumulator may be the same slot as the result (a loop's carried value): read it first */
  int64_t n = B * M * N;
  bool fl = dt_is_float(ad);
  if (fl) {
    bool dbl = ad == DT_F64 || rd == DT_F64;
    bool t32 = op->attr.precision == PREC_TF32 && ad == DT_F32;
    double *A = xmalloc(sizeof *A * (size_t)(B * M * K + 1)), *Bt = xmalloc(sizeof *Bt * (size_t)(B * N * K + 1));
    double *C = xmalloc(sizeof *C * (size_t)(n + 1));
    for (int64_t i = 0; i < B * M * K; i++) A[i] = t32 ? tf32((float)ip_get_f(ax, ad, i)) : ip_get_f(ax, ad, i);
    for (int64_t z = 0; z < B; z++) /* B transposed: [z][n][k] */
      for (int64_t k = 0; k < K; k++)
        for (int64_t j = 0; j < N; j++) {
          double v = ip_get_f(bx, bd, (z * K + k) * N + j);
          Bt[(z * N + j) * K + k] = t32 ? tf32((float)v) : v;
        }
    for (int64_t i = 0; i < n; i++) C[i] = ip_get_f(cs->data, cd, i * cst);
    unsigned char *out = ip_def(I, r, n);
    for (int64_t z = 0; z < B; z++)
      for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
          const double *ar = A + (z * M + i) * K, *br = Bt + (z * N + j) * K;
          int64_t o = (z * M + i) * N + j;
          if (dbl) {
            double s = C[o];
            for (int64_t k = 0; k < K; k++) s = fma(ar[k], br[k], s);
            ip_set_f(out, rd, o, s);
          } else {
            float s = (float)C[o];
            for (int64_t k = 0; k < K; k++) s = fmaf((float)ar[k], (float)br[k], s);
            ip_set_f(out, rd, o, s);
          }
        }
    free(A), free(Bt), free(C);
    return true;
  }
  int64_t *A = xmalloc(sizeof *A * (size_t)(B * M * K + 1)), *Bt = xmalloc(sizeof *Bt * (size_t)(B * N * K + 1));
  int64_t *C = xmalloc(sizeof *C * (size_t)(n + 1));
  for (int64_t i = 0; i < B * M * K; i++) A[i] = ip_get_i(ax, ad, i);
  for (int64_t z = 0; z < B; z++)
    for (int64_t k = 0; k < K; k++)
      for (int64_t j = 0; j < N; j++) Bt[(z * N + j) * K + k] = ip_get_i(bx, bd, (z * K + k) * N + j);
  for (int64_t i = 0; i < n; i++) C[i] = ip_get_i(cs->data, cd, i * cst);
  unsigned char *out = ip_def(I, r, n);
  for (int64_t z = 0; z < B; z++)
    for (int64_t i = 0; i < M; i++)
      for (int64_t j = 0; j < N; j++) {
        const int64_t *ar = A + (z * M + i) * K, *br = Bt + (z * N + j) * K;
        int64_t o = (z * M + i) * N + j;
        uint32_t s = (uint32_t)C[o];
        for (int64_t k = 0; k < K; k++) s += (uint32_t)ar[k] * (uint32_t)br[k];
        ip_set_i(out, rd, o, rd == DT_I64 || rd == DT_U64 ? (int64_t)s : (int64_t)(int32_t)s);
      }
  free(A), free(Bt), free(C);
  return true;
}
