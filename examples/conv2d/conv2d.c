/* conv2d — seed 000's naive conv2d_kernel (conv2d.tile, the seed's text):
 * one program per (batch, output channel, output row); the kernel window
 * steps by its own size (stride = kernel size, no padding), so
 *
 *   out[b, o, r, c] = bias[o] + sum_{ch, i < kh, j < kw}
 *                     in[b, ch, r*kh + i, c*kw + j] * w[o, ch, i, j]
 *
 * with H % kh == 0 and W % kw == 0 as the seed's host asserts.  fp32 NCHW
 * tensors uniform in [-1, 1], launched as the seed's host: grid (batch, Cout,
 * H / kh), BLOCK_SIZE_ROW = next_power_of_2(kh), BLOCK_SIZE_COL =
 * next_power_of_2(kw).  The kernel's input column offsets use BLOCK_SIZE_ROW
 * (`tl.arange(0, BLOCK_SIZE_ROW)` for columns), so its tile shapes agree only
 * when the two block sizes are equal: the kernel sizes here keep them equal.
 * Relative L2 bound 1e-5 (fp32 sums). */
#include "examples/common/host.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct Conv {
  int64_t batch, cin, h, w, cout, kh, kw;
} Conv;

static void run(Ex *ex, const Conv *g) {
  int64_t B = g->batch, C = g->cin, H = g->h, W = g->w, O = g->cout, kh = g->kh, kw = g->kw;
  int64_t ho = H / kh, wo = W / kw;
  if (ex_cpu_skip(ex, "conv2d", (double)B * O * ho * wo * C * kh * kw)) return;
  size_t nin = (size_t)(B * C * H * W), nk = (size_t)(O * C * kh * kw), nout = (size_t)(B * O * ho * wo);
  double *in = ex_xmalloc(sizeof(double) * nin), *wt = ex_xmalloc(sizeof(double) * nk);
  double *bias = ex_xmalloc(sizeof(double) * (size_t)O), *ref = ex_xmalloc(sizeof(double) * nout);
  tlc_devptr din = ex_upload_random(ex, EX_F32, nin, -1, 1, in);
  tlc_devptr dk = ex_upload_random(ex, EX_F32, nk, -1, 1, wt);
  tlc_devptr db = ex_upload_random(ex, EX_F32, (size_t)O, -1, 1, bias);
  for (int64_t b = 0; b < B; b++)
    for (int64_t o = 0; o < O; o++)
      for (int64_t r = 0; r < ho; r++)
        for (int64_t c = 0; c < wo; c++) {
          double s = bias[o];
          for (int64_t ch = 0; ch < C; ch++)
            for (int64_t i = 0; i < kh; i++)
              for (int64_t j = 0; j < kw; j++)
                s += in[((b * C + ch) * H + r * kh + i) * W + c * kw + j] * wt[((o * C + ch) * kh + i) * kw + j];
          ref[((b * O + o) * ho + r) * wo + c] = s;
        }
  ExOut dout = ex_out_alloc(ex, nout * sizeof(float));

  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, "fp32", din);
  ex_sig_int(&sig, C * H * W), ex_sig_int(&sig, H * W), ex_sig_int(&sig, W), ex_sig_int(&sig, 1);
  ex_sig_int(&sig, H), ex_sig_int(&sig, W), ex_sig_int(&sig, C);
  ex_sig_ptr(&sig, "fp32", dk);
  ex_sig_int(&sig, kh), ex_sig_int(&sig, kw);
  ex_sig_int(&sig, C * kh * kw), ex_sig_int(&sig, kh * kw), ex_sig_int(&sig, kw), ex_sig_int(&sig, 1);
  ex_sig_ptr(&sig, "fp32", db);
  ex_sig_ptr(&sig, "fp32", dout.p);
  ex_sig_int(&sig, wo);
  ex_sig_int(&sig, O * ho * wo), ex_sig_int(&sig, ho * wo), ex_sig_int(&sig, wo), ex_sig_int(&sig, 1);
  ex_sig_const_int(&sig, ex_next_pow2(kh)), ex_sig_const_int(&sig, ex_next_pow2(kw));

  char size[96];
  snprintf(size, sizeof size, "%lldx%lldx%lldx%lld/k%lldx%lldx%lld", (long long)B, (long long)C,
           (long long)H, (long long)W, (long long)O, (long long)kh, (long long)kw);
  ExCase c = {
      .label = "conv2d", .size = size, .tile = "conv2d/conv2d.tile", .kernel = "conv2d_kernel",
      .sig = &sig, .grid = {(unsigned)B, (unsigned)O, (unsigned)ho},
      .out = dout.p, .out_elems = nout, .elem = EX_F32, .ref = ref, .tol = 1e-5,
      .bytes = (double)(nin + nk + (size_t)O + nout) * 4,
  };
  ex_run_case(ex, &c, &dout);
  ex_out_free(ex, &dout);
  ex_free(ex, din), ex_free(ex, dk), ex_free(ex, db);
  free(in), free(wt), free(bias), free(ref);
}

int main(int argc, char **argv) {
  Ex ex;
  ex_open(&ex, argc, argv, "ex_conv2d");
  static const Conv cases[] = {
      {2, 3, 12, 12, 4, 3, 3},
      {1, 8, 30, 28, 5, 3, 4},    /* kh != kw, both blocks 4 */
      {3, 4, 35, 49, 6, 5, 7},    /* blocks 8 */
      {2, 16, 64, 64, 8, 2, 2},
      {1, 1, 5, 5, 1, 5, 5},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run(&ex, &cases[i]);
  return ex_finish(&ex);
}
