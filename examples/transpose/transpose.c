/* transpose — the seed's three transpose kernels (all named transpose_kernel
 * in the seed, one .tile file each) against an exact CPU transpose of fp16
 * data (the seed allocates y as float16; x is fp16 too), launched as the
 * seed's host code does: grid cdiv(M, bm) x cdiv(N, bn), bm = bn = 16 by
 * default (the parameters' defaults: the signature leaves them out) or given.
 *
 *   transpose_trans     loads a bm x bn tile, tl.trans, masked store
 *   transpose_strided   reads x through swapped strides, masked
 *   transpose_block_ptr make_block_ptr without boundary_check: only sizes
 *                       that are multiples of (bm, bn) are valid for it
 *
 * The two masked variants take (x, y, M, N, x.stride(0), x.stride(1),
 * y.stride(0), y.stride(1)); strides equal to 1 become the constexpr 1 as
 * Triton's launcher specializes them.  Data movement: the result must be
 * bit-exact. */
#include "examples/common/host.h"
#include "examples/common/ref.h"

#include <stdio.h>
#include <stdlib.h>

typedef enum { TR_TRANS, TR_STRIDED, TR_BLOCK_PTR } Variant;

static const char *const label[] = {"transpose_trans", "transpose_strided", "transpose_block_ptr"};
static const char *const tile[] = {"transpose/transpose_trans.tile", "transpose/transpose_strided.tile",
                                   "transpose/transpose_block_ptr.tile"};

/* bm = bn = 0: leave them out of the signature (the kernel's defaults, 16) */
static void run_size(Ex *ex, Variant v, int64_t M, int64_t N, int bm, int bn) {
  int ebm = bm ? bm : 16, ebn = bn ? bn : 16;
  if (v == TR_BLOCK_PTR && (M % ebm || N % ebn)) {
    fprintf(stderr, "internal error: %lldx%lld is not a multiple of the block\n", (long long)M, (long long)N);
    exit(1);
  }
  size_t elems = (size_t)(M * N), bytes = elems * sizeof(uint16_t);
  uint16_t *x = ex_xmalloc(bytes);
  double *ref = ex_xmalloc(elems * sizeof(double));
  ex_fill_f16(&ex->rng, x, elems, -1, 1);
  ref_transpose_f16(x, M, N, ref);

  tlc_devptr dx = ex_alloc(ex, bytes);
  ExOut dy = ex_out_alloc(ex, bytes);
  ex_upload(ex, dx, x, bytes);

  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, "fp16", dx);
  ex_sig_ptr(&sig, "fp16", dy.p);
  ex_sig_int(&sig, M);
  ex_sig_int(&sig, N);
  if (v != TR_BLOCK_PTR) {
    ex_sig_int(&sig, N); /* x.stride(0) */
    ex_sig_int(&sig, 1); /* x.stride(1) */
    ex_sig_int(&sig, M); /* y.stride(0) */
    ex_sig_int(&sig, 1); /* y.stride(1) */
  }
  if (bm) {
    ex_sig_const_int(&sig, bm);
    ex_sig_const_int(&sig, bn);
  }

  char size[64];
  snprintf(size, sizeof size, "%lldx%lld/b%dx%d", (long long)M, (long long)N, ebm, ebn);
  ExCase c = {
      .label = label[v], .size = size, .tile = tile[v], .kernel = "transpose_kernel",
      .sig = &sig, .grid = {(unsigned)ex_cdiv(M, ebm), (unsigned)ex_cdiv(N, ebn), 1},
      .out = dy.p, .out_elems = elems, .elem = EX_F16,
      .ref = ref, .exact = true, .bytes = 2.0 * (double)bytes,
  };
  ex_run_case(ex, &c, &dy);

  ex_out_free(ex, &dy);
  ex_free(ex, dx);
  free(x), free(ref);
}

int main(int argc, char **argv) {
  Ex ex;
  ex_open(&ex, argc, argv, "ex_transpose");
  for (Variant v = TR_TRANS; v <= TR_STRIDED; v++) {
    run_size(&ex, v, 127, 61, 0, 0);
    run_size(&ex, v, 256, 256, 0, 0);
    run_size(&ex, v, 1, 1, 0, 0);
    run_size(&ex, v, 1000, 3000, 32, 64);
  }
  /* no masks, no boundary_check: multiples of the block only */
  run_size(&ex, TR_BLOCK_PTR, 256, 256, 0, 0);
  run_size(&ex, TR_BLOCK_PTR, 48, 80, 0, 0);
  run_size(&ex, TR_BLOCK_PTR, 1024, 2048, 64, 32);
  return ex_finish(&ex);
}
