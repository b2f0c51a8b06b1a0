/* lang_rank — tensors of rank 5 to 8 (lang_rank.tile) on the GPU, each
 * kernel against a CPU reference on random inputs, through the examples'
 * harness (poisoned outputs with guard zones, a re-run that must give the
 * same bits):
 *   permute6      reshape to rank 6, permute, reshape back (exact)
 *   mx_scales     Triton's block-scaled scale unpacking: rank 5 reshape,
 *                 trans(0, 3, 2, 1, 4), reshape to 2-D (exact)
 *   rank8_reduce  rank 8: reversed, a sum over one axis and a max over another
 *   expand8       expand_dims and None indexing to rank 8, broadcasting on
 *                 new axes, sums back to 2-D
 * The references permute with the one helper below (out[J] = in[I] with
 * I[perm[d]] = J[d], as tl.permute).  Exit 77 (skipped) without a GPU. */
#include "examples/common/host.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char TILE[] = "../tests/gpu/lang_rank.tile";
enum { MAXR = 8 };

/* dst = src of row-major `shape` (rank r) permuted by perm. */
static void permute_ref(const float *src, const int *shape, int r, const int *perm, float *dst) {
  int oshape[MAXR], idx[MAXR] = {0}, stride[MAXR];
  size_t n = 1;
  for (int d = r - 1; d >= 0; d--) stride[d] = (int)n, n *= (size_t)shape[d];
  for (int d = 0; d < r; d++) oshape[d] = shape[perm[d]];
  for (size_t j = 0; j < n; j++) {
    size_t i = 0;
    for (int d = 0; d < r; d++) i += (size_t)idx[d] * (size_t)stride[perm[d]];
    dst[j] = src[i];
    for (int d = r - 1; d >= 0 && ++idx[d] == oshape[d]; d--) idx[d] = 0;
  }
}

static float *inputs(Ex *ex, size_t n, tlc_devptr *d) {
  float *x = ex_xmalloc(n * sizeof(float));
  ex_fill_f32(&ex->rng, x, n, -1, 1);
  *d = ex_alloc(ex, n * sizeof(float));
  ex_upload(ex, *d, x, n * sizeof(float));
  return x;
}

/* Launch `kernel` on `programs` programs reading x (nin floats) and writing
 * nout floats checked against ref. */
static void run(Ex *ex, const char *kernel, ExSig *sig, const ExOut *o, unsigned programs,
                size_t nin, const double *ref, size_t nout, bool exact) {
  char size[32];
  snprintf(size, sizeof size, "%u", programs);
  ExCase ec = {
      .label = kernel, .size = size, .tile = TILE, .kernel = kernel, .sig = sig,
      .grid = {programs, 1, 1}, .out = o->p, .out_elems = nout, .elem = EX_F32, .ref = ref,
      .tol = 1e-6, .exact = exact, .bytes = (double)(nin + nout) * 4,
  };
  ex_run_case(ex, &ec, o);
}

static void permute6(Ex *ex, unsigned programs) {
  static const int shape[6] = {2, 4, 4, 2, 4, 8}, perm[6] = {5, 1, 3, 0, 4, 2};
  size_t n = (size_t)programs * 2048;
  tlc_devptr dx;
  float *x = inputs(ex, n, &dx), *t = ex_xmalloc(2048 * sizeof(float));
  double *ref = ex_xmalloc(n * sizeof(double));
  for (unsigned p = 0; p < programs; p++) {
    permute_ref(x + (size_t)p * 2048, shape, 6, perm, t);
    for (int i = 0; i < 2048; i++) ref[(size_t)p * 2048 + i] = t[i];
  }
  ExOut o = ex_out_alloc(ex, n * sizeof(float));
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, "fp32", dx);
  ex_sig_ptr(&sig, "fp32", o.p);
  run(ex, "permute6", &sig, &o, programs, n, ref, n, true);
  ex_out_free(ex, &o), ex_free(ex, dx), free(x), free(t), free(ref);
}

static void mx_scales(Ex *ex, unsigned programs, int rep_m, int rep_k) {
  const int shape[5] = {rep_m, rep_k, 32, 4, 4}, perm[5] = {0, 3, 2, 1, 4};
  size_t per = (size_t)rep_m * rep_k * 512, n = programs * per;
  tlc_devptr dx;
  float *x = inputs(ex, n, &dx), *t = ex_xmalloc(per * sizeof(float));
  double *ref = ex_xmalloc(n * sizeof(double));
  /* the permuted (rep_m, 4, 32, rep_k, 4) read row-major is the
   * [128 * rep_m, 4 * rep_k] tile, stored row-major */
  for (unsigned p = 0; p < programs; p++) {
    permute_ref(x + p * per, shape, 5, perm, t);
    for (size_t i = 0; i < per; i++) ref[p * per + i] = t[i];
  }
  ExOut o = ex_out_alloc(ex, n * sizeof(float));
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, "fp32", dx);
  ex_sig_ptr(&sig, "fp32", o.p);
  ex_sig_const_int(&sig, rep_m);
  ex_sig_const_int(&sig, rep_k);
  run(ex, "mx_scales", &sig, &o, programs, n, ref, n, true);
  ex_out_free(ex, &o), ex_free(ex, dx), free(x), free(t), free(ref);
}

static void rank8_reduce(Ex *ex, unsigned programs) {
  static const int shape[8] = {2, 2, 2, 2, 2, 2, 2, 2}, perm[8] = {7, 6, 5, 4, 3, 2, 1, 0};
  size_t n = (size_t)programs * 256;
  tlc_devptr dx;
  float *x = inputs(ex, n, &dx), t[256];
  double *ref = ex_xmalloc((size_t)programs * 64 * sizeof(double));
  for (unsigned p = 0; p < programs; p++) {
    permute_ref(x + (size_t)p * 256, shape, 8, perm, t);
    /* t is (2,)*8 row-major: index = a0*128 + a1*64 + a2*32 + rest (5 bits).
     * sum over a2 gives (a0, a1, rest); max over a0 gives (a1, rest). */
    for (int a1 = 0; a1 < 2; a1++)
      for (int rest = 0; rest < 32; rest++) {
        double best = -INFINITY;
        for (int a0 = 0; a0 < 2; a0++) {
          float s = t[a0 * 128 + a1 * 64 + rest] + t[a0 * 128 + a1 * 64 + 32 + rest];
          if (s > best) best = s;
        }
        ref[(size_t)p * 64 + a1 * 32 + rest] = best;
      }
  }
  ExOut o = ex_out_alloc(ex, (size_t)programs * 64 * sizeof(float));
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, "fp32", dx);
  ex_sig_ptr(&sig, "fp32", o.p);
  run(ex, "rank8_reduce", &sig, &o, programs, n, ref, (size_t)programs * 64, true);
  ex_out_free(ex, &o), ex_free(ex, dx), free(x), free(ref);
}

static void expand8(Ex *ex, unsigned programs) {
  size_t n = (size_t)programs * 128;
  tlc_devptr dx;
  float *x = inputs(ex, n, &dx);
  double *ref = ex_xmalloc(n * sizeof(double));
  /* weights: (1 + 2) on axis 0, (0 + 0.5 + 1 + 1.5) on axis 4, 2 copies on axis 6 */
  for (size_t i = 0; i < n; i++) ref[i] = 18.0 * x[i];
  ExOut o = ex_out_alloc(ex, n * sizeof(float));
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, "fp32", dx);
  ex_sig_ptr(&sig, "fp32", o.p);
  run(ex, "expand8", &sig, &o, programs, n, ref, n, false);
  ex_out_free(ex, &o), ex_free(ex, dx), free(x), free(ref);
}

int main(int argc, char **argv) {
  Ex ex;
  ex_open(&ex, argc, argv, "gpu_lang_rank");
  permute6(&ex, 37);
  mx_scales(&ex, 5, 1, 2);
  mx_scales(&ex, 3, 2, 4);
  rank8_reduce(&ex, 50);
  expand8(&ex, 20);
  return ex_finish(&ex);
}
