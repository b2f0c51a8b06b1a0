/* softmax — the four softmax kernels of seed 003 ("Triton Puzzles") against
 * a double-precision row-wise softmax, each launched as the seed's host code
 * does:
 *
 *   v1  softmax_kernel     one row per program, BLOCK_SIZE =
 *                          next_power_of_2(n_cols), grid n_rows
 *   v2  softmax_kernel_v2  three passes over the row, BLOCK_SIZE 256
 *   v3  softmax_kernel_v3  online max + sum, then one pass, BLOCK_SIZE 256
 *   v4  softmax_kernel_v4  32 x 256 tiles, grid cdiv(n_rows, 32)
 *
 * All take (x, output, x.stride(0), [n_rows,] n_cols, constexprs...).
 * Inputs: uniform in [-4, 4] plus a per-row offset uniform in [-100, 100]
 * (a kernel that forgot to subtract the row max would overflow exp).
 *
 * v1 at a width that is not a power of two: the seed's load has a mask but
 * no `other`, so the padding lanes read 0.0 (Triton's fill) and enter the
 * max and the sum: the seed kernel does not compute a softmax there.  That
 * case is checked against a model of exactly this (ref_softmax with pad) and
 * reported as softmax_v1_masked0, with inputs in [-4, 4] and no offset; the
 * true-softmax checks of v1 use power-of-two widths. */
#include "examples/common/host.h"
#include "examples/common/ref.h"

#include <stdio.h>
#include <stdlib.h>

typedef enum { V1, V2, V3, V4 } Version;

static const char *const label[] = {"softmax_v1", "softmax_v2", "softmax_v3", "softmax_v4"};
static const char *const tile[] = {"softmax/softmax_v1.tile", "softmax/softmax_v2.tile",
                                   "softmax/softmax_v3.tile", "softmax/softmax_v4.tile"};
static const char *const kname[] = {"softmax_kernel", "softmax_kernel_v2", "softmax_kernel_v3",
                                    "softmax_kernel_v4"};

static void run_size(Ex *ex, Version v, int64_t rows, int64_t cols) {
  int64_t block = v == V1 ? ex_next_pow2(cols) : 256;
  int64_t pad = v == V1 ? block - cols : 0;
  size_t elems = (size_t)(rows * cols), bytes = elems * sizeof(float);
  float *x = ex_xmalloc(bytes);
  double *ref = ex_xmalloc(elems * sizeof(double));
  for (int64_t r = 0; r < rows; r++) {
    double shift = pad ? 0 : ex_rng_uniform(&ex->rng, -100, 100);
    for (int64_t c = 0; c < cols; c++) x[r * cols + c] = (float)(shift + ex_rng_uniform(&ex->rng, -4, 4));
  }
  ref_softmax(x, rows, cols, pad, ref);

  tlc_devptr dx = ex_alloc(ex, bytes);
  ExOut dy = ex_out_alloc(ex, bytes);
  ex_upload(ex, dx, x, bytes);

  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, "fp32", dx);
  ex_sig_ptr(&sig, "fp32", dy.p);
  ex_sig_int(&sig, cols); /* x.stride(0) */
  if (v == V4) ex_sig_int(&sig, rows);
  ex_sig_int(&sig, cols);
  unsigned grid = (unsigned)rows;
  if (v == V4) {
    ex_sig_const_int(&sig, 32);  /* BLOCK_ROW */
    ex_sig_const_int(&sig, 256); /* BLOCK_COL */
    grid = (unsigned)ex_cdiv(rows, 32);
  } else {
    ex_sig_const_int(&sig, block); /* BLOCK_SIZE */
  }

  char size[64], lab[64];
  snprintf(size, sizeof size, "%lldx%lld", (long long)rows, (long long)cols);
  snprintf(lab, sizeof lab, "%s%s", label[v], pad ? "_masked0" : "");
  ExCase c = {
      .label = lab, .size = size, .tile = tile[v], .kernel = kname[v],
      .sig = &sig, .grid = {grid, 1, 1},
      .out = dy.p, .out_elems = elems, .elem = EX_F32,
      /* exp is ex2.approx (2 ulp) of x*log2(e); the division and the fp32
       * sums add a few ulp more: ~1e-7 expected, 1e-5 leaves 50x margin */
      .ref = ref, .tol = 1e-5, .bytes = 2.0 * (double)bytes,
  };
  ex_run_case(ex, &c, &dy);

  ex_out_free(ex, &dy);
  ex_free(ex, dx);
  free(x), free(ref);
}

int main(int argc, char **argv) {
  Ex ex;
  ex_open(&ex, argc, argv, "ex_softmax");
  /* v1: power-of-two widths are a true softmax; 781 is the masked0 model */
  run_size(&ex, V1, 4, 1);
  run_size(&ex, V1, 64, 4096);
  run_size(&ex, V1, 1823, 512);
  run_size(&ex, V1, 1823, 781);
  for (Version v = V2; v <= V4; v++) {
    run_size(&ex, v, 1823, 781);
    run_size(&ex, v, 4, 1);
    run_size(&ex, v, 64, 4096);
    run_size(&ex, v, 33, 256);
  }
  return ex_finish(&ex);
}
