/* matmul_forms — the software pipeliner's GPU tests: matmul_forms.tile's
 * kernels (pointer tensors, block pointers, tensor descriptors made in the
 * kernel) and matmul_host_desc.tile's (descriptors made on the host with
 * tlc_tensor_desc_make, passed with TLC_DESC under the signature entries
 * tlc_tensor_desc_signature writes) against a CPU reference accumulating in
 * double, at num_stages 1 to 5, for fp16, bf16, fp32 (the dot's default
 * tf32), fp8 e4m3 and e5m2, on sizes that are not multiples of the blocks,
 * with B stored N-major (row-major K x N) or K-major (row-major N x K, the
 * layout fp8 wgmma wants).  Host descriptors need rows of 16-byte multiples:
 * they skip the shapes without.
 *
 * Which path a case takes follows from its types, blocks and strides (on the
 * H100: wgmma for blocks of 64 rows and more, mma.sync below; TMA for block
 * pointers and descriptors, cp.async for pointer tensors; no ring where the
 * loads cannot be vectorized, e.g. K not a multiple of 16; the descriptor
 * kernels read K-major B as (N, K) tiles they transpose, which the
 * pipeliner leaves as plain loads); each must give the same function.
 * Inputs uniform in [-1, 1] rounded to the input type; C in fp16 for fp8
 * inputs, else in the input type.  Relative L2 bounds: fp16 and fp8 (exact
 * products, fp16 output) 2e-3, bf16 1e-2, tf32 1e-3 (docs/examples.md). */
#include "examples/common/host.h"
#include "examples/common/ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum Form { PTR, BLOCK_PTR, DESC, HOST_DESC } Form;

typedef struct Case {
  Form form;
  const char *dtype; /* fp16, bf16, fp32, fp8e4nv, fp8e5 */
  bool b_kmajor;     /* B stored as N x K */
  int64_t m, n, k;
  int bm, bn, bk, warps, stages;
} Case;

static const char *KERNEL[] = {"matmul_ptr_kernel", "matmul_block_ptr_kernel", "matmul_desc_kernel",
                               "matmul_host_desc_kernel"};
static const char *FORM[] = {"ptr", "block_ptr", "desc", "host_desc"};
static const char *TILE[] = {"matmul/matmul_forms.tile", "matmul/matmul_forms.tile", "matmul/matmul_forms.tile",
                             "matmul/matmul_host_desc.tile"};

/* A row-major rows x cols tensor at p, read in (br, bc) blocks. */
static tlc_tensor_desc make_desc(Ex *ex, tlc_devptr p, const char *dtype, int64_t rows, int64_t cols, int br,
                                 int bc) {
  tlc_tensor_desc d;
  int64_t shape[2] = {rows, cols}, strides[2] = {cols, 1};
  int32_t block[2] = {br, bc};
  ex_ok(ex, tlc_tensor_desc_make(ex->rt, p, dtype, 2, shape, strides, block, &d), "tlc_tensor_desc_make");
  return d;
}

/* A host descriptor's rows must be multiples of 16 bytes. */
static bool host_desc_fits(const Case *g) {
  ExElem e = ex_elem_of(g->dtype);
  size_t es = ex_elem_size(e), cs = e == EX_F8E4M3 || e == EX_F8E5M2 ? 2 : es;
  return (size_t)g->k * es % 16 == 0 && (size_t)g->n * es % 16 == 0 && (size_t)g->n * cs % 16 == 0;
}

static void run(Ex *ex, const Case *g) {
  int64_t m = g->m, n = g->n, k = g->k;
  if (ex_cpu_skip(ex, "matmul_forms", (double)m * n * k)) return;
  ExElem e = ex_elem_of(g->dtype);
  bool fp8 = e == EX_F8E4M3 || e == EX_F8E5M2;
  const char *cdt = fp8 ? "fp16" : g->dtype;
  ExElem ce = ex_elem_of(cdt);
  ExGemm in;
  ex_gemm_inputs(ex, e, m, n, k, g->b_kmajor, -1, 1, &in);
  ref_matmul(in.a, in.b, m, n, k, in.ref);
  tlc_devptr da = in.da, db = in.db;
  ExOut dc = ex_out_alloc(ex, (size_t)(m * n) * ex_elem_size(ce));

  ExSig sig;
  ex_sig_init(&sig);
  tlc_tensor_desc ad, bd, cd; /* outlive the launches */
  if (g->form == HOST_DESC) {
    /* (a_desc, b_desc, c_desc, B_KMAJOR, NUM_STAGES): B's descriptor is over B as stored */
    ad = make_desc(ex, da, g->dtype, m, k, g->bm, g->bk);
    bd = g->b_kmajor ? make_desc(ex, db, g->dtype, n, k, g->bn, g->bk)
                     : make_desc(ex, db, g->dtype, k, n, g->bk, g->bn);
    cd = make_desc(ex, dc.p, cdt, m, n, g->bm, g->bn);
    ex_sig_desc(&sig, &ad), ex_sig_desc(&sig, &bd), ex_sig_desc(&sig, &cd);
    ex_sig_const(&sig, g->b_kmajor ? "True" : "False");
  } else {
    /* (a, b, c, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
     *  BLOCK_M, BLOCK_N, BLOCK_K, NUM_STAGES) */
    ex_sig_ptr(&sig, g->dtype, da), ex_sig_ptr(&sig, g->dtype, db), ex_sig_ptr(&sig, cdt, dc.p);
    ex_sig_int(&sig, m), ex_sig_int(&sig, n), ex_sig_int(&sig, k);
    ex_sig_int(&sig, k), ex_sig_int(&sig, 1);
    if (g->b_kmajor) ex_sig_int(&sig, 1), ex_sig_int(&sig, k);
    else ex_sig_int(&sig, n), ex_sig_int(&sig, 1);
    ex_sig_int(&sig, n), ex_sig_int(&sig, 1);
    ex_sig_const_int(&sig, g->bm), ex_sig_const_int(&sig, g->bn), ex_sig_const_int(&sig, g->bk);
  }
  ex_sig_const_int(&sig, g->stages);
  tlc_kernel_options opt = {.num_warps = g->warps, .num_stages = g->stages};

  char label[64], size[96];
  snprintf(label, sizeof label, "matmul_%s_%s", FORM[g->form], g->dtype);
  snprintf(size, sizeof size, "%lldx%lldx%lld/b%dx%dx%d/w%d/s%d/%s", (long long)m, (long long)n, (long long)k,
           g->bm, g->bn, g->bk, g->warps, g->stages, g->b_kmajor ? "bt" : "b");
  double tol = e == EX_BF16 ? 1e-2 : e == EX_F32 ? 1e-3 : 2e-3;
  ExCase c = {
      .label = label, .size = size, .tile = TILE[g->form], .kernel = KERNEL[g->form],
      .opt = &opt, .sig = &sig,
      .grid = {(unsigned)ex_cdiv(m, g->bm), (unsigned)ex_cdiv(n, g->bn), 1},
      .out = dc.p, .out_elems = (size_t)(m * n), .elem = ce, .ref = in.ref, .tol = tol,
      .bytes = (double)(m * k + k * n) * (double)ex_elem_size(e) + (double)(m * n) * (double)ex_elem_size(ce),
  };
  ex_run_case(ex, &c, &dc);
  ex_out_free(ex, &dc);
  ex_gemm_free(ex, &in);
}

int main(int argc, char **argv) {
  Ex ex;
  ex_open(&ex, argc, argv, "ex_matmul_forms");
  static const Case shapes[] = {
      /* the stage sweep runs on the first case of each form */
      {0, "fp16", false, 1000, 1008, 1008, 128, 128, 64, 4, 0},
      {0, "fp16", true, 333, 272, 512, 128, 128, 64, 4, 4},
      {0, "bf16", false, 777, 1040, 528, 128, 256, 64, 8, 3},
      {0, "fp32", false, 300, 400, 272, 128, 128, 32, 4, 3},
      {0, "fp32", true, 200, 144, 160, 64, 64, 32, 4, 2},
      {0, "fp8e4nv", true, 1000, 1008, 1024, 128, 256, 128, 8, 4},
      {0, "fp8e5", true, 512, 528, 512, 128, 128, 128, 4, 3},
      {0, "fp8e4nv", false, 200, 304, 256, 64, 128, 64, 4, 3}, /* B transposed on its way to shared */
      {0, "fp8e4nv", true, 100, 96, 320, 32, 64, 64, 4, 3},    /* below 64 rows: fp8 mma.sync */
      {0, "fp16", false, 100, 80, 336, 32, 64, 32, 4, 3},      /* mma.sync + cp.async */
      {0, "fp16", false, 131, 77, 1000, 64, 64, 32, 4, 3},     /* K, N off 16: no vector loads */
  };
  for (int form = PTR; form <= HOST_DESC; form++) {
    for (int s = 1; s <= 5; s++) {
      Case c = shapes[0];
      c.form = (Form)form, c.stages = s;
      run(&ex, &c);
    }
    for (size_t i = 1; i < sizeof shapes / sizeof *shapes; i++) {
      Case c = shapes[i];
      c.form = (Form)form;
      if (form == HOST_DESC && !host_desc_fits(&c)) continue; /* 131x77x1000: rows of 154 bytes */
      run(&ex, &c);
    }
  }
  return ex_finish(&ex);
}
