/* attention_000 — seed 000's attention (attention_000.tile, the seed's
 * text): attention_forward_kernel with its attention_forward_innerloop helper
 * and STAGE dispatch (autotuned over the decorator's configs; every 4- and 2-warp
 * block shape of the decorator is checked too), then the
 * backward attn_backward_D, attn_backward_dKdV and attn_backward_dQ, launched
 * as the seed's TritonAttention does, against a CPU reference in double
 * (examples/common/ref.c):
 *
 *   O = softmax(Q K^T * scale) V (causal: keys after the query masked),
 *   L = logsumexp of the scaled scores (natural log), dQ, dK, dV.
 *
 * fp16 Q, K, V, dO uniform in [-1, 1], scale 1/sqrt(head_dim), tensors
 * (batch, heads, seq_len, head_dim) contiguous.  As the seed's host: L and D
 * are fp16 (torch.empty_like(Q) / empty_like(L)), forward grid
 * (cdiv(seq_len, BLOCKSIZE_Q), batch*heads), backward blocks 128 (outer) and
 * 32 (inner), 4 warps, grid (seq_len / 128, 1, batch*heads).
 *
 * What the kernels allow: the backward kernels have no masks, so seq_len is a
 * multiple of 128 there; the forward masks keys past seq_len only through the
 * causal mask (its non-causal loop lets zero-padded keys into the softmax),
 * so a seq_len that is not a multiple of the blocks runs causal, forward only.
 * Bounds: relative L2 1e-2 for O, dQ, dK, dV (fp16 results, fp16 P and dS in
 * the dots), 2e-3 for L (stored in fp16). */
#include "examples/common/host.h"
#include "examples/common/ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char *TILE = "attention/attention_000.tile";

typedef struct Att {
  int B, H, N, D;
  bool causal, backward;
} Att;

typedef struct GridCtx {
  int N, BH;
} GridCtx;

static void fwd_grid(const tlc_kernel *k, void *user, unsigned g[3]) {
  const GridCtx *c = user;
  int64_t bq = 64;
  tlc_kernel_constexpr_int(k, "BLOCKSIZE_Q", &bq);
  g[0] = (unsigned)ex_cdiv(c->N, bq), g[1] = (unsigned)c->BH, g[2] = 1;
}

static void launch_sync(Ex *ex, tlc_kernel *k, const unsigned g[3], const ExSig *s) {
  ex_ok(ex, tlc_launch(k, g[0], g[1], g[2], NULL, s->args, s->nargs), "launch");
  ex_ok(ex, tlc_synchronize(ex->rt), "synchronize (a fault in the kernel?)");
}

/* the backward kernels share one argument list:
 * (Q, K, V, dO, dQ, dK, dV, L, D, 4 strides, softmax_scale, num_heads, seq_len, ...) */
static void bwd_args(ExSig *s, const Att *a, tlc_devptr q, tlc_devptr k, tlc_devptr v, tlc_devptr dout,
                     tlc_devptr dq, tlc_devptr dk, tlc_devptr dv, tlc_devptr l, tlc_devptr d, double scale,
                     int outer, int inner) {
  ex_sig_init(s);
  ex_sig_ptr(s, "fp16", q), ex_sig_ptr(s, "fp16", k), ex_sig_ptr(s, "fp16", v);
  ex_sig_ptr(s, "fp16", dout), ex_sig_ptr(s, "fp16", dq), ex_sig_ptr(s, "fp16", dk), ex_sig_ptr(s, "fp16", dv);
  ex_sig_ptr(s, "fp16", l), ex_sig_ptr(s, "fp16", d);
  ex_sig_int(s, (int64_t)a->H * a->N * a->D), ex_sig_int(s, (int64_t)a->N * a->D), ex_sig_int(s, a->D);
  ex_sig_int(s, 1);
  ex_sig_const(s, "fp32");
  s->args[s->nargs++] = TLC_F32(scale);
  ex_sig_int(s, a->H), ex_sig_int(s, a->N);
  ex_sig_const_int(s, outer), ex_sig_const_int(s, inner), ex_sig_const_int(s, a->D);
  ex_sig_const_int(s, a->causal ? 3 : 1);
}

/* Launch forward kernel k (twice: the second result, the first a snapshot
 * to compare it with), time it, and check O and L; the size is the case's
 * name, then `tag`, the block shape and the warps. */
static void check_forward(Ex *ex, const Att *a, const char *name, tlc_kernel *k, GridCtx *gc, const ExSig *s,
                          ExOut *O, ExOut *L, const double *o, const double *l, const char *tag) {
  size_t n = (size_t)a->B * a->H * a->N * a->D, nl = (size_t)a->B * a->H * a->N;
  int64_t bq = 0, bkv = 0;
  tlc_kernel_constexpr_int(k, "BLOCKSIZE_Q", &bq), tlc_kernel_constexpr_int(k, "BLOCKSIZE_KV", &bkv);
  char size[96];
  snprintf(size, sizeof size, "%s/%sb%dx%d/w%d", name, tag, (int)bq, (int)bkv, tlc_kernel_num_warps(k));
  unsigned g[3];
  fwd_grid(k, gc, g);
  ex_poison(ex, O), ex_poison(ex, L);
  launch_sync(ex, k, g, s);
  void *o1 = ex_out_snapshot(ex, O), *l1 = ex_out_snapshot(ex, L);
  double t = ex_time_us(ex, k, g, s, ex->warmup, ex->reps);
  ex_poison(ex, O), ex_poison(ex, L);
  launch_sync(ex, k, g, s);
  ex_report_out(ex, "attn000_fwd_O", size, O, EX_F16, o, n, 1e-2, t, o1);
  ex_report_out(ex, "attn000_fwd_L", size, L, EX_F16, l, nl, 2e-3, t, l1);
  free(o1), free(l1);
}

static void run(Ex *ex, const Att *a) {
  int BH = a->B * a->H, N = a->N, D = a->D;
  char size[64]; /* the case's name */
  snprintf(size, sizeof size, "B%dH%dN%dD%d%s", a->B, a->H, N, D, a->causal ? "c" : "");
  if (!ex_selected(ex, "attention_000", size)) return; /* --only */
  if (ex_cpu_skip(ex, "attention_000", (double)BH * N * N * D)) return;
  size_t hd = (size_t)N * D, n = (size_t)BH * hd, nl = (size_t)BH * N;
  double scale = 1.0 / sqrt((double)D);
  double *q = ex_xmalloc(n * 8), *k = ex_xmalloc(n * 8), *v = ex_xmalloc(n * 8), *dout = ex_xmalloc(n * 8);
  tlc_devptr Q = ex_upload_random(ex, EX_F16, n, -1, 1, q), K = ex_upload_random(ex, EX_F16, n, -1, 1, k);
  tlc_devptr V = ex_upload_random(ex, EX_F16, n, -1, 1, v), DO = ex_upload_random(ex, EX_F16, n, -1, 1, dout);
  double *o = ex_xmalloc(n * 8), *l = ex_xmalloc(nl * 8);
  double *dq = ex_xmalloc(n * 8), *dk = ex_xmalloc(n * 8), *dv = ex_xmalloc(n * 8);
  for (int h = 0; h < BH; h++)
    ref_attention_head(q + h * hd, k + h * hd, v + h * hd, a->backward ? dout + h * hd : NULL, N, D, a->causal,
                       scale, o + h * hd, l + (size_t)h * N, dq + h * hd, dk + h * hd, dv + h * hd);
  for (size_t i = 0; i < nl; i++) l[i] *= log(2.0); /* the reference gives base 2; the seed keeps ln */

  ExOut O = ex_out_alloc(ex, n * 2), L = ex_out_alloc(ex, nl * 2);

  /* attention_forward_kernel(Q, K, V, O, L, softmax_scale, 16 strides, batch_size,
   *   num_heads, seq_len, head_dim, BLOCKSIZE_Q, BLOCKSIZE_KV, STAGE) */
  ExSig s;
  ex_sig_init(&s);
  ex_sig_ptr(&s, "fp16", Q), ex_sig_ptr(&s, "fp16", K), ex_sig_ptr(&s, "fp16", V);
  ex_sig_ptr(&s, "fp16", O.p), ex_sig_ptr(&s, "fp16", L.p);
  ex_sig_const(&s, "fp32");
  s.args[s.nargs++] = TLC_F32(scale);
  for (int t = 0; t < 4; t++) ex_sig_int(&s, (int64_t)a->H * hd), ex_sig_int(&s, (int64_t)hd), ex_sig_int(&s, D), ex_sig_int(&s, 1);
  ex_sig_int(&s, a->B);
  ex_sig_const_int(&s, a->H), ex_sig_const_int(&s, N), ex_sig_const_int(&s, D);
  ex_sig_const(&s, "_"), ex_sig_const(&s, "_");
  ex_sig_const_int(&s, a->causal ? 3 : 1);
  GridCtx gc = {N, BH};
  tlc_kernel *fwd;
  char path[4096];
  if (tlc_kernel_autotune(ex->rt, ex_tile_path(TILE, path, sizeof path), "attention_forward_kernel", s.text, NULL,
                          fwd_grid, &gc, s.args, s.nargs, &fwd) != TLC_OK) {
    fprintf(stderr, "%s: autotune: %s\n", ex->prog, tlc_runtime_error(ex->rt));
    ex_result_error(ex, "attn000_fwd", size);
    goto done;
  }
  check_forward(ex, a, size, fwd, &gc, &s, &O, &L, o, l, "tuned:");
  /* every block shape of the decorator on 4 and on 2 warps as well (the
   * tuned one is whichever timed best; each of these takes its own loads:
   * TMA for K^T and V at num_warps 4, cp.async at immediate offsets on 2
   * (mma.sync), and the zero fill past seq_len in the last block); on the
   * GPU only (the interpreter runs no TMA) */
  for (int w = 4; w >= 2 && !ex->cpu; w /= 2)
    for (int bq = 64; bq <= 128; bq *= 2)
      for (int bkv = 32; bkv <= 64; bkv *= 2) {
        char cq[32], ckv[32];
        snprintf(cq, sizeof cq, "BLOCKSIZE_Q=%d", bq), snprintf(ckv, sizeof ckv, "BLOCKSIZE_KV=%d", bkv);
        const char *cx[2] = {cq, ckv};
        tlc_kernel_options fo = {.num_warps = w, .num_stages = 3, .constexprs = cx, .nconstexprs = 2};
        tlc_kernel *kf;
        if (ex_kernel(ex, TILE, "attention_forward_kernel", s.text, &fo, &kf) != TLC_OK) {
          char size2[96];
          snprintf(size2, sizeof size2, "%s/b%dx%d/w%d", size, bq, bkv, w);
          ex_result_error(ex, "attn000_fwd", size2);
          continue;
        }
        check_forward(ex, a, size, kf, &gc, &s, &O, &L, o, l, "");
      }

  if (a->backward) {
    ExOut DQ = ex_out_alloc(ex, n * 2), DK = ex_out_alloc(ex, n * 2), DV = ex_out_alloc(ex, n * 2);
    tlc_devptr DD = ex_alloc(ex, nl * 2);
    ExSig sd, skv, sq;
    ex_sig_init(&sd);
    ex_sig_ptr(&sd, "fp16", O.p), ex_sig_ptr(&sd, "fp16", DO), ex_sig_ptr(&sd, "fp16", DD);
    ex_sig_int(&sd, N);
    ex_sig_const_int(&sd, 128), ex_sig_const_int(&sd, D);
    bwd_args(&skv, a, Q, K, V, DO, DQ.p, DK.p, DV.p, L.p, DD, scale, 128, 32);
    bwd_args(&sq, a, Q, K, V, DO, DQ.p, DK.p, DV.p, L.p, DD, scale, 128, 32);
    tlc_kernel_options bopt = {.num_warps = 4, .num_stages = 3};
    tlc_kernel *kd, *kkv, *kq;
    if (ex_kernel(ex, TILE, "attn_backward_D", sd.text, NULL, &kd) != TLC_OK ||
        ex_kernel(ex, TILE, "attn_backward_dKdV", skv.text, &bopt, &kkv) != TLC_OK ||
        ex_kernel(ex, TILE, "attn_backward_dQ", sq.text, &bopt, &kq) != TLC_OK) {
      ex_result_error(ex, "attn000_bwd", size);
    } else {
      unsigned gd[3] = {(unsigned)(N / 128), (unsigned)BH, 1}, gb[3] = {(unsigned)(N / 128), 1, (unsigned)BH};
      ExOut *outs[3] = {&DQ, &DK, &DV};
      void *first[3];
      for (int i = 0; i < 3; i++) ex_poison(ex, outs[i]);
      launch_sync(ex, kd, gd, &sd), launch_sync(ex, kkv, gb, &skv), launch_sync(ex, kq, gb, &sq);
      for (int i = 0; i < 3; i++) first[i] = ex_out_snapshot(ex, outs[i]);
      double tkv = ex_time_us(ex, kkv, gb, &skv, ex->warmup, ex->reps);
      double tq = ex_time_us(ex, kq, gb, &sq, ex->warmup, ex->reps);
      for (int i = 0; i < 3; i++) ex_poison(ex, outs[i]);
      launch_sync(ex, kd, gd, &sd), launch_sync(ex, kkv, gb, &skv), launch_sync(ex, kq, gb, &sq);
      ex_report_out(ex, "attn000_bwd_dQ", size, &DQ, EX_F16, dq, n, 1e-2, tq, first[0]);
      ex_report_out(ex, "attn000_bwd_dK", size, &DK, EX_F16, dk, n, 1e-2, tkv, first[1]);
      ex_report_out(ex, "attn000_bwd_dV", size, &DV, EX_F16, dv, n, 1e-2, tkv, first[2]);
      for (int i = 0; i < 3; i++) free(first[i]);
    }
    ex_out_free(ex, &DQ), ex_out_free(ex, &DK), ex_out_free(ex, &DV), ex_free(ex, DD);
  }
done:
  ex_out_free(ex, &O), ex_out_free(ex, &L);
  ex_free(ex, Q), ex_free(ex, K), ex_free(ex, V), ex_free(ex, DO);
  free(q), free(k), free(v), free(dout), free(o), free(l), free(dq), free(dk), free(dv);
}

int main(int argc, char **argv) {
  Ex ex;
  ex_open(&ex, argc, argv, "ex_attention_000");
  static const Att cases[] = {
      {1, 2, 256, 64, false, true},
      {1, 2, 256, 64, true, true},
      {2, 2, 384, 128, false, true},
      {1, 2, 256, 128, true, true},
      {1, 3, 200, 64, true, false}, /* not a multiple of the blocks: causal forward */
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run(&ex, &cases[i]);
  return ex_finish(&ex);
}
