/* flash_001 — seed 001's FlashAttention-2 kernels, launched as the seed's
 * FlashAttention2 autograd function launches them, against a CPU reference in
 * double (examples/common/ref.c):
 *
 *   flash_fwd_v1.tile  flash_fwd_kernel, first version (masks the last key
 *                      tile with -inf);
 *   flash_fwd_v2.tile  flash_fwd_kernel, second version (causal tile skipping
 *                      through a flag; no last-tile key mask);
 *   flash_bwd.tile     bwd_calculate_d_kernel (D = rowsum(O * dO)) and
 *                      flash_bwd_kernel (dK, dV per key tile; dQ summed with
 *                      tl.atomic_add into a zeroed fp32 buffer).
 *
 * Tensors (batch, n, d) contiguous, Q/K/V/dO uniform in [-1, 1] in fp16,
 * bf16 or fp32, scale 1/sqrt(d), tiles min(16, n) as the seed's host; O in the input
 * dtype, L (natural logsumexp) fp32, dQ/dK/dV fp32 (zeros_like(..., float32)).
 * The backward runs on the forward's own O and L, as the seed's does.
 * Version 2 lets zero-padded keys into a non-causal softmax, so its
 * non-causal sizes are multiples of the key tile.  The backward's dots run
 * in fp32 operands (tf32 on the tensor cores, Triton's default).
 * Bounds: relative L2 1e-2 for O, dQ, dK, dV; 1e-3 for L.  dQ is summed by
 * atomics in no fixed order: no bitwise re-run check for it. */
#include "examples/common/host.h"
#include "examples/common/ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Fa {
  const char *dtype;   /* "fp16", "bf16" or "fp32" */
  int B, N, D;
  bool causal;
  int version;         /* forward 1 or 2 */
  bool backward;
} Fa;

static void launch_sync(Ex *ex, tlc_kernel *k, const unsigned g[3], const ExSig *s) {
  ex_ok(ex, tlc_launch(k, g[0], g[1], g[2], NULL, s->args, s->nargs), "launch");
  ex_ok(ex, tlc_synchronize(ex->rt), "synchronize (a fault in the kernel?)");
}

static void strides3(ExSig *s, int N, int D) {
  ex_sig_int(s, (int64_t)N * D), ex_sig_int(s, D), ex_sig_int(s, 1);
}

static void run(Ex *ex, const Fa *a) {
  int B = a->B, N = a->N, D = a->D, tile = N < 16 ? N : 16;
  if (ex_cpu_skip(ex, "flash_001", (double)B * N * N * D)) return;
  size_t hd = (size_t)N * D, n = (size_t)B * hd, nl = (size_t)B * N;
  double scale = 1.0 / sqrt((double)D);
  ExElem e = ex_elem_of(a->dtype);
  size_t esz = ex_elem_size(e);
  double *q = ex_xmalloc(n * 8), *k = ex_xmalloc(n * 8), *v = ex_xmalloc(n * 8), *dout = ex_xmalloc(n * 8);
  tlc_devptr Q = ex_upload_random(ex, e, n, -1, 1, q), K = ex_upload_random(ex, e, n, -1, 1, k);
  tlc_devptr V = ex_upload_random(ex, e, n, -1, 1, v), DO = ex_upload_random(ex, e, n, -1, 1, dout);
  double *o = ex_xmalloc(n * 8), *l = ex_xmalloc(nl * 8);
  double *dq = ex_xmalloc(n * 8), *dk = ex_xmalloc(n * 8), *dv = ex_xmalloc(n * 8);
  for (int b = 0; b < B; b++)
    ref_attention_head(q + b * hd, k + b * hd, v + b * hd, a->backward ? dout + b * hd : NULL, N, D, a->causal,
                       scale, o + b * hd, l + (size_t)b * N, dq + b * hd, dk + b * hd, dv + b * hd);
  for (size_t i = 0; i < nl; i++) l[i] *= log(2.0);

  ExOut O = ex_out_alloc(ex, n * esz), L = ex_out_alloc(ex, nl * 4);
  char size[64], lbl[48];
  snprintf(size, sizeof size, "B%dN%dD%d%s/%s", B, N, D, a->causal ? "c" : "", a->dtype);

  /* flash_fwd_kernel(Q, K, V, O, L, 3 strides x 4, 2 L strides, N_QUERIES, N_KEYS,
   *   scale, D, Q_TILE_SIZE, K_TILE_SIZE, is_causal) */
  ExSig s;
  ex_sig_init(&s);
  ex_sig_ptr(&s, a->dtype, Q), ex_sig_ptr(&s, a->dtype, K), ex_sig_ptr(&s, a->dtype, V);
  ex_sig_ptr(&s, a->dtype, O.p), ex_sig_ptr(&s, "fp32", L.p);
  for (int t = 0; t < 4; t++) strides3(&s, N, D);
  ex_sig_int(&s, N), ex_sig_int(&s, 1);
  ex_sig_int(&s, N), ex_sig_int(&s, N);
  ex_sig_const(&s, "fp32");
  s.args[s.nargs++] = TLC_F32(scale);
  ex_sig_const_int(&s, D), ex_sig_const_int(&s, tile), ex_sig_const_int(&s, tile);
  ex_sig_const(&s, a->causal ? "True" : "False");
  const char *ftile = a->version == 1 ? "attention/flash_fwd_v1.tile" : "attention/flash_fwd_v2.tile";
  tlc_kernel *fwd;
  if (ex_kernel(ex, ftile, "flash_fwd_kernel", s.text, NULL, &fwd) != TLC_OK) {
    snprintf(lbl, sizeof lbl, "flash001_fwd_v%d", a->version);
    ex_result_error(ex, lbl, size);
    goto done;
  }
  unsigned g[3] = {(unsigned)ex_cdiv(N, tile), (unsigned)B, 1};
  ex_poison(ex, &O), ex_poison(ex, &L);
  launch_sync(ex, fwd, g, &s);
  void *o1 = ex_out_snapshot(ex, &O), *l1 = ex_out_snapshot(ex, &L);
  double t = ex_time_us(ex, fwd, g, &s, ex->warmup, ex->reps);
  ex_poison(ex, &O), ex_poison(ex, &L);
  launch_sync(ex, fwd, g, &s);
  snprintf(lbl, sizeof lbl, "flash001_fwd_v%d_O", a->version);
  ex_report_out(ex, lbl, size, &O, e, o, n, 1e-2, t, o1);
  snprintf(lbl, sizeof lbl, "flash001_fwd_v%d_L", a->version);
  ex_report_out(ex, lbl, size, &L, EX_F32, l, nl, 1e-3, t, l1);
  free(o1), free(l1);

  if (a->backward) {
    /* bwd_calculate_d_kernel(O, dO, D, 3 + 3 + 2 strides, N_QUERIES, D_MODEL, BLOCK_SIZE) */
    tlc_devptr DD = ex_alloc(ex, nl * 4);
    ExOut DQ = ex_out_alloc(ex, n * 4), DK = ex_out_alloc(ex, n * 4), DV = ex_out_alloc(ex, n * 4);
    ExSig sd, sb;
    ex_sig_init(&sd);
    ex_sig_ptr(&sd, a->dtype, O.p), ex_sig_ptr(&sd, a->dtype, DO), ex_sig_ptr(&sd, "fp32", DD);
    strides3(&sd, N, D), strides3(&sd, N, D);
    ex_sig_int(&sd, N), ex_sig_int(&sd, 1);
    ex_sig_int(&sd, N);
    ex_sig_const_int(&sd, D), ex_sig_const_int(&sd, tile);
    /* flash_bwd_kernel(Q, K, V, L, dO, D, dQ, dK, dV, strides, N_QUERIES, N_KEYS, scale,
     *   D, Q_TILE_SIZE, K_TILE_SIZE, is_causal) */
    ex_sig_init(&sb);
    ex_sig_ptr(&sb, a->dtype, Q), ex_sig_ptr(&sb, a->dtype, K), ex_sig_ptr(&sb, a->dtype, V);
    ex_sig_ptr(&sb, "fp32", L.p), ex_sig_ptr(&sb, a->dtype, DO), ex_sig_ptr(&sb, "fp32", DD);
    ex_sig_ptr(&sb, "fp32", DQ.p), ex_sig_ptr(&sb, "fp32", DK.p), ex_sig_ptr(&sb, "fp32", DV.p);
    strides3(&sb, N, D), strides3(&sb, N, D), strides3(&sb, N, D);
    ex_sig_int(&sb, N), ex_sig_int(&sb, 1);
    strides3(&sb, N, D);
    ex_sig_int(&sb, N), ex_sig_int(&sb, 1);
    strides3(&sb, N, D), strides3(&sb, N, D), strides3(&sb, N, D);
    ex_sig_int(&sb, N), ex_sig_int(&sb, N);
    ex_sig_const(&sb, "fp32");
    sb.args[sb.nargs++] = TLC_F32(scale);
    ex_sig_const_int(&sb, D), ex_sig_const_int(&sb, tile), ex_sig_const_int(&sb, tile);
    ex_sig_const(&sb, a->causal ? "True" : "False");
    tlc_kernel *kd, *kb;
    if (ex_kernel(ex, "attention/flash_bwd.tile", "bwd_calculate_d_kernel", sd.text, NULL, &kd) != TLC_OK ||
        ex_kernel(ex, "attention/flash_bwd.tile", "flash_bwd_kernel", sb.text, NULL, &kb) != TLC_OK) {
      ex_result_error(ex, "flash001_bwd", size);
    } else {
      unsigned gd[3] = {(unsigned)B, (unsigned)ex_cdiv(N, tile), 1};
      unsigned gb[3] = {(unsigned)ex_cdiv(N, tile), (unsigned)B, 1};
      /* D first; timing (dQ piles up), then the checked runs on fresh buffers */
      launch_sync(ex, kd, gd, &sd);
      double tb = ex_time_us(ex, kb, gb, &sb, ex->warmup, ex->reps);
      ex_poison(ex, &DK), ex_poison(ex, &DV), ex_poison(ex, &DQ);
      ex_ok(ex, tlc_memset_d8(ex->rt, DQ.p, 0, DQ.bytes), "zero dQ");
      launch_sync(ex, kd, gd, &sd), launch_sync(ex, kb, gb, &sb);
      void *dk1 = ex_out_snapshot(ex, &DK), *dv1 = ex_out_snapshot(ex, &DV);
      ex_report_out(ex, "flash001_bwd_dQ", size, &DQ, EX_F32, dq, n, 1e-2, tb, NULL);
      ex_poison(ex, &DK), ex_poison(ex, &DV), ex_poison(ex, &DQ);
      ex_ok(ex, tlc_memset_d8(ex->rt, DQ.p, 0, DQ.bytes), "zero dQ");
      launch_sync(ex, kd, gd, &sd), launch_sync(ex, kb, gb, &sb);
      ex_report_out(ex, "flash001_bwd_dK", size, &DK, EX_F32, dk, n, 1e-2, tb, dk1);
      ex_report_out(ex, "flash001_bwd_dV", size, &DV, EX_F32, dv, n, 1e-2, tb, dv1);
      free(dk1), free(dv1);
    }
    ex_free(ex, DD);
    ex_out_free(ex, &DQ), ex_out_free(ex, &DK), ex_out_free(ex, &DV);
  }
done:
  ex_out_free(ex, &O), ex_out_free(ex, &L);
  ex_free(ex, Q), ex_free(ex, K), ex_free(ex, V), ex_free(ex, DO);
  free(q), free(k), free(v), free(dout), free(o), free(l), free(dq), free(dk), free(dv);
}

int main(int argc, char **argv) {
  Ex ex;
  ex_open(&ex, argc, argv, "ex_flash_001");
  static const Fa cases[] = {
      {"fp16", 2, 256, 64, false, 1, true},
      {"fp16", 2, 200, 64, true, 1, true},    /* not a multiple of the tiles */
      {"fp16", 1, 100, 128, false, 1, true},
      {"fp32", 2, 130, 64, true, 1, true},
      {"bf16", 2, 160, 64, true, 1, true},
      {"fp16", 2, 256, 64, false, 2, false},
      {"fp16", 2, 200, 64, true, 2, false},   /* causal: any length */
      {"fp32", 1, 96, 128, true, 2, false},
      {"bf16", 1, 128, 64, false, 2, false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run(&ex, &cases[i]);
  return ex_finish(&ex);
}
