/* matmul_host_desc — matmul_host_desc.tile's kernel, whose operands are
 * tensor descriptors made on the host (tlc_tensor_desc_make) and passed with
 * TLC_DESC, the signature entries written by tlc_tensor_desc_signature;
 * checked against a CPU reference accumulating in double for fp16, bf16,
 * fp32 (the dot's default tf32), fp8 e4m3 and e5m2, on sizes that are not
 * multiples of the blocks (rows 16-byte multiples, as descriptors require),
 * with B stored N-major (K x N) or K-major (N x K), at num_stages 1 to 4.
 *
 * On the H100 the descriptors' loads in the pipelined loop are TMA copies
 * (base 16-byte aligned and strides multiples of 16 bytes are what the
 * descriptor's parameters promise); on sm_80 they are masked loads.  Inputs
 * uniform in [-1, 1] rounded to the input type; C in fp16 for fp8 inputs,
 * else in the input type; relative L2 bounds as matmul_forms (fp16 and fp8
 * 2e-3, bf16 1e-2, tf32 1e-3; docs/examples.md). */
#include "examples/common/host.h"
#include "examples/common/ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Case {
  const char *dtype; /* fp16, bf16, fp32, fp8e4nv, fp8e5 */
  bool b_kmajor;     /* B stored as N x K */
  int64_t m, n, k;
  int bm, bn, bk, warps, stages;
} Case;

/* A row-major rows x cols tensor at p, read in (br, bc) blocks. */
static tlc_tensor_desc make_desc(Ex *ex, tlc_devptr p, const char *dtype, int64_t rows, int64_t cols, int br,
                                 int bc) {
  tlc_tensor_desc d;
  int64_t shape[2] = {rows, cols}, strides[2] = {cols, 1};
  int32_t block[2] = {br, bc};
  ex_ok(ex, tlc_tensor_desc_make(ex->rt, p, dtype, 2, shape, strides, block, &d), "tlc_tensor_desc_make");
  return d;
}

static void run(Ex *ex, const Case *g) {
  int64_t m = g->m, n = g->n, k = g->k;
  ExElem e = ex_elem_of(g->dtype);
  bool fp8 = e == EX_F8E4M3 || e == EX_F8E5M2;
  const char *cdt = fp8 ? "fp16" : g->dtype;
  ExElem ce = ex_elem_of(cdt);
  double *a = ex_xmalloc(sizeof(double) * (size_t)(m * k)), *bs = ex_xmalloc(sizeof(double) * (size_t)(k * n));
  double *b = ex_xmalloc(sizeof(double) * (size_t)(k * n)), *ref = ex_xmalloc(sizeof(double) * (size_t)(m * n));
  tlc_devptr da = ex_upload_random(ex, e, (size_t)(m * k), -1, 1, a);
  tlc_devptr db = ex_upload_random(ex, e, (size_t)(k * n), -1, 1, bs);
  for (int64_t i = 0; i < k; i++)
    for (int64_t j = 0; j < n; j++) b[i * n + j] = g->b_kmajor ? bs[j * k + i] : bs[i * n + j];
  ref_matmul(a, b, m, n, k, ref);
  ExOut dc = ex_out_alloc(ex, (size_t)(m * n) * ex_elem_size(ce));

  /* (a_desc, b_desc, c_desc, B_KMAJOR, NUM_STAGES); the descriptors outlive the launches */
  tlc_tensor_desc ad = make_desc(ex, da, g->dtype, m, k, g->bm, g->bk);
  tlc_tensor_desc bd = g->b_kmajor ? make_desc(ex, db, g->dtype, n, k, g->bn, g->bk)
                                   : make_desc(ex, db, g->dtype, k, n, g->bk, g->bn);
  tlc_tensor_desc cd = make_desc(ex, dc.p, cdt, m, n, g->bm, g->bn);
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_desc(&sig, &ad), ex_sig_desc(&sig, &bd), ex_sig_desc(&sig, &cd);
  ex_sig_const(&sig, g->b_kmajor ? "True" : "False");
  ex_sig_const_int(&sig, g->stages);
  tlc_kernel_options opt = {.num_warps = g->warps, .num_stages = g->stages};

  char label[64], size[96];
  snprintf(label, sizeof label, "matmul_host_desc_%s", g->dtype);
  snprintf(size, sizeof size, "%lldx%lldx%lld/b%dx%dx%d/w%d/s%d/%s", (long long)m, (long long)n, (long long)k,
           g->bm, g->bn, g->bk, g->warps, g->stages, g->b_kmajor ? "bt" : "b");
  double tol = e == EX_BF16 ? 1e-2 : e == EX_F32 ? 1e-3 : 2e-3;
  ExCase c = {
      .label = label, .size = size, .tile = "matmul/matmul_host_desc.tile", .kernel = "matmul_host_desc_kernel",
      .opt = &opt, .sig = &sig,
      .grid = {(unsigned)ex_cdiv(m, g->bm), (unsigned)ex_cdiv(n, g->bn), 1},
      .out = dc.p, .out_elems = (size_t)(m * n), .elem = ce, .ref = ref, .tol = tol,
      .bytes = (double)(m * k + k * n) * (double)ex_elem_size(e) + (double)(m * n) * (double)ex_elem_size(ce),
  };
  ex_run_case(ex, &c, &dc);
  ex_out_free(ex, &dc);
  ex_free(ex, da), ex_free(ex, db);
  free(a), free(b), free(bs), free(ref);
}

int main(int argc, char **argv) {
  Ex ex;
  ex_open(&ex, argc, argv, "ex_matmul_host_desc");
  static const Case cases[] = {
      /* the stage sweep runs on the first case */
      {"fp16", false, 1000, 1008, 1008, 128, 128, 64, 4, 3},
      {"fp16", true, 333, 272, 512, 128, 128, 64, 4, 4},
      {"bf16", false, 777, 1040, 528, 128, 256, 64, 8, 3},
      {"fp32", false, 300, 400, 272, 128, 128, 32, 4, 3},
      {"fp32", true, 200, 144, 160, 64, 64, 32, 4, 2},
      {"fp8e4nv", true, 1000, 1008, 1024, 128, 256, 128, 8, 4},
      {"fp8e5", true, 512, 528, 512, 128, 128, 128, 4, 3},
      {"fp8e4nv", false, 200, 304, 256, 64, 128, 64, 4, 3},
      {"fp16", false, 100, 80, 336, 32, 64, 32, 4, 3}, /* mma.sync */
  };
  for (int s = 1; s <= 4; s++) {
    Case c = cases[0];
    c.stages = s;
    run(&ex, &c);
  }
  for (size_t i = 1; i < sizeof cases / sizeof *cases; i++) run(&ex, &cases[i]);
  return ex_finish(&ex);
}
