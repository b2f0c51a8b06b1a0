/* attention — the Triton fused-attention tutorial's kernels (seed 004,
 * fused_attention.tile, text as written): _attn_fwd (with _attn_fwd_inner),
 * then _attn_bwd_preprocess and _attn_bwd, launched as the seed's host code
 * launches them, against a CPU reference in double:
 *
 *   S = Q K^T * sm_scale (causal: -inf above the diagonal), P = softmax(S),
 *   O = P V, M = logsumexp(S) / ln 2 (the kernel keeps base-2 statistics);
 *   dV = P^T dO, dP = dO V^T, dS = P * (dP - rowsum(dO * O)),
 *   dQ = dS K * sm_scale, dK = dS^T Q * sm_scale.
 *
 * fp16 Q, K, V, dO uniform in [-1, 1] (the seed draws normal(0, 0.5)); the
 * backward gets K pre-scaled by sm_scale / ln 2 in fp16 as the seed's host
 * does.  The seed's backward handles the causal case only (its first stage
 * always masks), so it runs for causal cases.  Tolerance: relative L2 error
 * below 1e-2 for fp16 results (fp16 P in the second dot), 1e-3 for M. */
#include "examples/common/host.h"
#include "examples/common/ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Att {
  int Z, H, N, D;
  bool causal;
  int block_m, block_n, warps;  /* forward config */
  int stages;                   /* its num_stages (0: the default, 3) */
} Att;

static const char *TILE = "attention/fused_attention.tile";

typedef struct Dev {
  tlc_devptr p;
  size_t bytes;
} Dev;

static Dev dev_f16(Ex *ex, const double *v, size_t n) {
  uint16_t *h = ex_xmalloc(n * 2);
  for (size_t i = 0; i < n; i++) h[i] = ex_f32_to_f16((float)v[i]);
  Dev d = {ex_alloc(ex, n * 2), n * 2};
  ex_upload(ex, d.p, h, n * 2);
  free(h);
  return d;
}

static void random_f16(Ex *ex, double *v, size_t n) {
  for (size_t i = 0; i < n; i++) v[i] = ex_f16_to_f32(ex_f32_to_f16((float)ex_rng_uniform(&ex->rng, -1, 1)));
}

/* Launch once and wait; a fault ends the program with the driver's message. */
static void launch_sync(Ex *ex, tlc_kernel *k, const unsigned g[3], const ExSig *s) {
  ex_ok(ex, tlc_launch(k, g[0], g[1], g[2], NULL, s->args, s->nargs), "launch");
  ex_ok(ex, tlc_synchronize(ex->rt), "synchronize (a fault in the kernel?)");
}

typedef struct GridCtx {
  int N, ZH;
} GridCtx;

/* the seed's grid: (cdiv(N_CTX, BLOCK_M), Z * H, 1), BLOCK_M from the config */
static void fwd_grid(const tlc_kernel *k, void *user, unsigned g[3]) {
  const GridCtx *c = user;
  int64_t bm = 128;
  tlc_kernel_constexpr_int(k, "BLOCK_M", &bm);
  g[0] = (unsigned)ex_cdiv(c->N, bm), g[1] = (unsigned)c->ZH, g[2] = 1;
}

static void reference(const Att *a, const double *q, const double *k, const double *v, const double *dout,
                      double scale, double *o, double *m, double *dq, double *dk, double *dv) {
  size_t hd = (size_t)a->N * a->D;
  for (int zh = 0; zh < a->Z * a->H; zh++)
    ref_attention_head(q + zh * hd, k + zh * hd, v + zh * hd, dq ? dout + zh * hd : NULL, a->N, a->D, a->causal,
                       scale, o + zh * hd, m + (size_t)zh * a->N, dq ? dq + zh * hd : NULL,
                       dq ? dk + zh * hd : NULL, dq ? dv + zh * hd : NULL);
}

static void run(Ex *ex, const Att *a) {
  int Z = a->Z, H = a->H, N = a->N, D = a->D;
  char size[96];
  snprintf(size, sizeof size, "Z%dH%dN%dD%d%s/b%dx%d/w%d", Z, H, N, D, a->causal ? "c" : "", a->block_m,
           a->block_n, a->warps);
  if (a->stages) snprintf(size + strlen(size), sizeof size - strlen(size), "/s%d", a->stages);
  if (!ex_selected(ex, "attention", size)) return; /* --only */
  if (ex_cpu_skip(ex, "attention", (double)Z * H * N * N * D)) return;
  size_t n = (size_t)Z * H * N * D, nm = (size_t)Z * H * N;
  double scale = 0.5;
  double *q = ex_xmalloc(n * 8), *k = ex_xmalloc(n * 8), *v = ex_xmalloc(n * 8), *dout = ex_xmalloc(n * 8);
  random_f16(ex, q, n), random_f16(ex, k, n), random_f16(ex, v, n), random_f16(ex, dout, n);
  double *o = ex_xmalloc(n * 8), *m = ex_xmalloc(nm * 8);
  double *dq = a->causal ? ex_xmalloc(n * 8) : NULL, *dk = a->causal ? ex_xmalloc(n * 8) : NULL;
  double *dv = a->causal ? ex_xmalloc(n * 8) : NULL;
  reference(a, q, k, v, dout, scale, o, m, dq, dk, dv);

  Dev Q = dev_f16(ex, q, n), K = dev_f16(ex, k, n), V = dev_f16(ex, v, n), DO = dev_f16(ex, dout, n);
  ExOut O = ex_out_alloc(ex, n * 2), M = ex_out_alloc(ex, nm * 4);

  /* _attn_fwd(Q, K, V, sm_scale, M, Out, 16 strides, Z, H, N_CTX, HEAD_DIM, BLOCK_M, BLOCK_N, STAGE) */
  ExSig s;
  ex_sig_init(&s);
  ex_sig_ptr(&s, "fp16", Q.p), ex_sig_ptr(&s, "fp16", K.p), ex_sig_ptr(&s, "fp16", V.p);
  ex_sig_const(&s, "fp32"); /* sm_scale: a runtime float */
  s.args[s.nargs++] = TLC_F32(scale);
  ex_sig_ptr(&s, "fp32", M.p), ex_sig_ptr(&s, "fp16", O.p);
  for (int t = 0; t < 4; t++) {
    ex_sig_int(&s, (int64_t)H * N * D), ex_sig_int(&s, (int64_t)N * D), ex_sig_int(&s, D), ex_sig_int(&s, 1);
  }
  ex_sig_int(&s, Z), ex_sig_int(&s, H), ex_sig_int(&s, N);
  ex_sig_const_int(&s, D);
  ex_sig_const(&s, "_"), ex_sig_const(&s, "_"); /* BLOCK_M, BLOCK_N: the autotune config */
  ex_sig_const_int(&s, a->causal ? 3 : 1);
  char bm[32], bn[32];
  snprintf(bm, sizeof bm, "BLOCK_M=%d", a->block_m);
  snprintf(bn, sizeof bn, "BLOCK_N=%d", a->block_n);
  const char *cx[2] = {bm, bn};
  tlc_kernel_options opt = {.num_warps = a->warps, .num_stages = a->stages, .constexprs = cx, .nconstexprs = 2};
  tlc_kernel *fwd;
  GridCtx gc = {N, Z * H};
  if (a->block_m == 0) {
    /* the decorator's configs, timed on these arguments */
    char path[4096];
    tlc_status st = tlc_kernel_autotune(ex->rt, ex_tile_path(TILE, path, sizeof path), "_attn_fwd", s.text,
                                        NULL, fwd_grid, &gc, s.args, s.nargs, &fwd);
    if (st != TLC_OK) {
      fprintf(stderr, "%s: autotune: %s\n", ex->prog, tlc_runtime_error(ex->rt));
      ex_result_error(ex, "attn_fwd", size);
      goto done;
    }
    int64_t m_, n_;
    tlc_kernel_constexpr_int(fwd, "BLOCK_M", &m_), tlc_kernel_constexpr_int(fwd, "BLOCK_N", &n_);
    snprintf(size, sizeof size, "Z%dH%dN%dD%d%s/tuned:b%dx%d/w%d", Z, H, N, D, a->causal ? "c" : "", (int)m_,
             (int)n_, tlc_kernel_num_warps(fwd));
  } else if (ex_kernel(ex, TILE, "_attn_fwd", s.text, &opt, &fwd) != TLC_OK) {
    ex_result_error(ex, "attn_fwd", size);
    goto done;
  }
  unsigned g[3];
  fwd_grid(fwd, &gc, g);
  /* first run on poison, kept; timing; a last run on fresh poison is checked
   * and must equal the first */
  ex_poison(ex, &O), ex_poison(ex, &M);
  launch_sync(ex, fwd, g, &s);
  void *o1 = ex_out_snapshot(ex, &O), *m1 = ex_out_snapshot(ex, &M);
  double t_fwd = ex_time_us(ex, fwd, g, &s, ex->warmup, ex->reps);
  ex_poison(ex, &O), ex_poison(ex, &M);
  launch_sync(ex, fwd, g, &s);
  ex_report_out(ex, "attn_fwd_O", size, &O, EX_F16, o, n, 1e-2, t_fwd, o1);
  ex_report_out(ex, "attn_fwd_M", size, &M, EX_F32, m, nm, 1e-3, t_fwd, m1);
  free(o1), free(m1);

  if (a->causal) {
    /* the seed's backward: preprocess, then _attn_bwd with K pre-scaled */
    double *ks = ex_xmalloc(n * 8);
    for (size_t i = 0; i < n; i++) ks[i] = ex_f16_to_f32(ex_f32_to_f16((float)(k[i] * (scale * 1.4426950408889634))));
    Dev KS = dev_f16(ex, ks, n);
    ExOut DQ = ex_out_alloc(ex, n * 2), DK = ex_out_alloc(ex, n * 2), DV = ex_out_alloc(ex, n * 2);
    ExOut DELTA = ex_out_alloc(ex, nm * 4);
    ExSig p;
    ex_sig_init(&p);
    ex_sig_ptr(&p, "fp16", O.p), ex_sig_ptr(&p, "fp16", DO.p), ex_sig_ptr(&p, "fp32", DELTA.p);
    ex_sig_int(&p, Z), ex_sig_int(&p, H), ex_sig_int(&p, N);
    ex_sig_const_int(&p, 128), ex_sig_const_int(&p, D);
    tlc_kernel *pre, *bwd;
    ExSig b;
    ex_sig_init(&b);
    ex_sig_ptr(&b, "fp16", Q.p), ex_sig_ptr(&b, "fp16", KS.p), ex_sig_ptr(&b, "fp16", V.p);
    ex_sig_const(&b, "fp32");
    b.args[b.nargs++] = TLC_F32(scale);
    ex_sig_ptr(&b, "fp16", DO.p), ex_sig_ptr(&b, "fp16", DQ.p), ex_sig_ptr(&b, "fp16", DK.p), ex_sig_ptr(&b, "fp16", DV.p);
    ex_sig_ptr(&b, "fp32", M.p), ex_sig_ptr(&b, "fp32", DELTA.p);
    ex_sig_int(&b, (int64_t)H * N * D), ex_sig_int(&b, (int64_t)N * D), ex_sig_int(&b, D), ex_sig_int(&b, 1);
    ex_sig_int(&b, H), ex_sig_int(&b, N);
    ex_sig_const_int(&b, 32), ex_sig_const_int(&b, 128), ex_sig_const_int(&b, 128), ex_sig_const_int(&b, 32);
    ex_sig_const_int(&b, 2), ex_sig_const_int(&b, D);
    tlc_kernel_options bopt = {.num_warps = 4, .num_stages = 5};
    if (ex_kernel(ex, TILE, "_attn_bwd_preprocess", p.text, NULL, &pre) != TLC_OK ||
        ex_kernel(ex, TILE, "_attn_bwd", b.text, &bopt, &bwd) != TLC_OK) {
      ex_result_error(ex, "attn_bwd", size);
    } else {
      unsigned gp[3] = {(unsigned)(N / 128), (unsigned)(Z * H), 1};
      unsigned gb[3] = {(unsigned)(N / 128), 1, (unsigned)(Z * H)};
      ExOut *outs[3] = {&DQ, &DK, &DV};
      ex_poison(ex, &DELTA);
      for (int i = 0; i < 3; i++) ex_poison(ex, outs[i]);
      launch_sync(ex, pre, gp, &p);
      launch_sync(ex, bwd, gb, &b);
      void *first[3];
      for (int i = 0; i < 3; i++) first[i] = ex_out_snapshot(ex, outs[i]);
      double t_bwd = ex_time_us(ex, bwd, gb, &b, ex->warmup, ex->reps);
      for (int i = 0; i < 3; i++) ex_poison(ex, outs[i]);
      launch_sync(ex, bwd, gb, &b);
      ex_report_out(ex, "attn_bwd_dQ", size, &DQ, EX_F16, dq, n, 1e-2, t_bwd, first[0]);
      ex_report_out(ex, "attn_bwd_dK", size, &DK, EX_F16, dk, n, 1e-2, t_bwd, first[1]);
      ex_report_out(ex, "attn_bwd_dV", size, &DV, EX_F16, dv, n, 1e-2, t_bwd, first[2]);
      for (int i = 0; i < 3; i++) free(first[i]);
    }
    ex_free(ex, KS.p), ex_out_free(ex, &DQ), ex_out_free(ex, &DK), ex_out_free(ex, &DV), ex_out_free(ex, &DELTA);
    free(ks);
  }
done:
  ex_free(ex, Q.p), ex_free(ex, K.p), ex_free(ex, V.p), ex_free(ex, DO.p), ex_out_free(ex, &O), ex_out_free(ex, &M);
  free(q), free(k), free(v), free(dout), free(o), free(m), free(dq), free(dk), free(dv);
}

int main(int argc, char **argv) {
  Ex ex;
  ex_open(&ex, argc, argv, "ex_attention");
  static const Att cases[] = {
      {1, 2, 256, 64, false, 128, 64, 4},
      {1, 2, 256, 64, true, 128, 64, 4},
      {2, 2, 512, 64, true, 64, 32, 4},
      {1, 2, 256, 128, false, 128, 64, 8},
      {1, 2, 256, 128, false, 128, 64, 4}, /* sm_90: two consumer warpgroups and the producer (12 warps) */
      {1, 2, 512, 128, false, 128, 64, 4, 4}, /* ... with a ring of 4 slots */
      {1, 2, 384, 128, true, 128, 32, 4},
      {1, 2, 512, 128, false, 128, 128, 4, 2}, /* a ring of 2 slots the producer refills (128x128 blocks) */
      {1, 2, 384, 128, true, 128, 64, 4, 2},   /* ... the causal kernel's two rings of 2 slots */
      {1, 2, 384, 128, true, 128, 64, 4, 4},   /* the causal kernel's two rings sharing bytes (a drain between) */
      {1, 2, 384, 128, true, 64, 32, 4, 4},    /* ... shared to fit two CTAs an SM */
      {1, 4, 512, 64, true, 0, 0, 0},  /* autotuned over the decorator's configs */
      {1, 2, 1024, 128, false, 0, 0, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run(&ex, &cases[i]);
  return ex_finish(&ex);
}
