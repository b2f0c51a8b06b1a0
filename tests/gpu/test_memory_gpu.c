/* test_memory_gpu.c — atomics, locks and pointers on the GPU (ctest
 * test_memory_gpu, label gpu; exit 77 without a GPU), each against a CPU
 * reference on random inputs with poisoned outputs:
 *
 *  - spin_lock: the backward of Triton's layer-norm tutorial (fused dx,
 *    then dW/dB partial sums accumulated per group of rows under a lock:
 *    `while tl.atomic_cas(lock, 0, 1) == 1: pass` ... `tl.debug_barrier()`,
 *    `tl.atomic_xchg(lock, 0)`); dx exactly as the reference computes it up
 *    to rounding, the group sums (any order) to 1e-4, every lock released
 *    and every count set;
 *  - cas_first: `tl.atomic_cas` on a tensor of flags by many programs: each
 *    flag ends up holding one program's id and exactly one program saw 0;
 *  - ptr_to_ptr: a `**fp32` argument (a device array of pointers to
 *    separately allocated rows) read through `tl.load(ptrs + g)`;
 *  - pointer_type: the same addresses passed as `*i64` and cast with
 *    `.to(tl.pointer_type(tl.float32))`, as Triton's grouped-GEMM tutorial.
 *
 *   test_memory_gpu [--seed N] [-v] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "examples/common/host.h"

static int failures;

static void report(const char *name, bool ok, const char *detail) {
  printf("MEMORY case=%s %s status=%s\n", name, detail, ok ? "PASS" : "FAIL");
  if (!ok) failures++;
}

static tlc_kernel *compile(Ex *ex, const char *src, const char *name, const char *sig) {
  tlc_kernel *k = NULL;
  if (tlc_kernel_from_source(ex->rt, src, "test_memory_gpu.tile", name, sig, NULL, &k) != TLC_OK) {
    printf("ERROR compiling %s (%s):\n%s\n", name, sig, tlc_runtime_error(ex->rt));
    failures++;
    return NULL;
  }
  return k;
}

/* ---- the layer-norm backward with its lock ---------------------------------------- */

static const char kLayerNormBwd[] =
    "import triton\nimport triton.language as tl\n\n"
    "@triton.jit\n"
    "def _layer_norm_bwd_dx_fused(DX, DY, DW, DB, X, W, Mean, Rstd, Lock, stride, N,\n"
    "                             GROUP_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):\n"
    "    row = tl.program_id(0)\n"
    "    cols = tl.arange(0, BLOCK_SIZE_N)\n"
    "    mask = cols < N\n"
    "    X += row * stride\n"
    "    DY += row * stride\n"
    "    DX += row * stride\n"
    "    lock_id = row % GROUP_SIZE_M\n"
    "    Lock += lock_id\n"
    "    Count = Lock + GROUP_SIZE_M\n"
    "    DW = DW + lock_id * N + cols\n"
    "    DB = DB + lock_id * N + cols\n"
    "    x = tl.load(X + cols, mask=mask, other=0).to(tl.float32)\n"
    "    dy = tl.load(DY + cols, mask=mask, other=0).to(tl.float32)\n"
    "    w = tl.load(W + cols, mask=mask).to(tl.float32)\n"
    "    mean = tl.load(Mean + row)\n"
    "    rstd = tl.load(Rstd + row)\n"
    "    xhat = (x - mean) * rstd\n"
    "    wdy = w * dy\n"
    "    xhat = tl.where(mask, xhat, 0.)\n"
    "    wdy = tl.where(mask, wdy, 0.)\n"
    "    c1 = tl.sum(xhat * wdy, axis=0) / N\n"
    "    c2 = tl.sum(wdy, axis=0) / N\n"
    "    dx = (wdy - (xhat * c1 + c2)) * rstd\n"
    "    tl.store(DX + cols, dx, mask=mask)\n"
    "    partial_dw = (dy * xhat).to(w.dtype)\n"
    "    partial_db = (dy).to(w.dtype)\n"
    "    while tl.atomic_cas(Lock, 0, 1) == 1:\n"
    "        pass\n"
    "    count = tl.load(Count)\n"
    "    if count == 0:\n"
    "        tl.atomic_xchg(Count, 1)\n"
    "    else:\n"
    "        partial_dw += tl.load(DW, mask=mask)\n"
    "        partial_db += tl.load(DB, mask=mask)\n"
    "    tl.store(DW, partial_dw, mask=mask)\n"
    "    tl.store(DB, partial_db, mask=mask)\n"
    "    tl.debug_barrier()\n"
    "    tl.atomic_xchg(Lock, 0)\n";

static void spin_lock(Ex *ex) {
  enum { M = 2048, N = 1000, BLOCK = 1024, G = 16 };
  char sig[256];
  snprintf(sig, sizeof sig, "*fp32:16,*fp32:16,*fp32:16,*fp32:16,*fp32:16,*fp32:16,*fp32:16,*fp32:16,*i32:16,i32,i32,%d,%d",
           G, BLOCK);
  tlc_kernel *k = compile(ex, kLayerNormBwd, "_layer_norm_bwd_dx_fused", sig);
  if (!k) return;
  float *x = ex_xmalloc(sizeof(float) * M * N), *dy = ex_xmalloc(sizeof(float) * M * N);
  float *w = ex_xmalloc(sizeof(float) * N), *mean = ex_xmalloc(sizeof(float) * M), *rstd = ex_xmalloc(sizeof(float) * M);
  ex_fill_f32(&ex->rng, x, (size_t)M * N, -2, 2);
  ex_fill_f32(&ex->rng, dy, (size_t)M * N, -1, 1);
  ex_fill_f32(&ex->rng, w, N, 0.5, 1.5);
  ex_fill_f32(&ex->rng, mean, M, -0.1, 0.1);
  ex_fill_f32(&ex->rng, rstd, M, 0.8, 1.2);
  size_t mn = sizeof(float) * M * N, gn = sizeof(float) * G * N;
  tlc_devptr dX = ex_alloc(ex, mn), dDY = ex_alloc(ex, mn), dDX = ex_alloc(ex, mn), dW = ex_alloc(ex, sizeof(float) * N);
  tlc_devptr dMean = ex_alloc(ex, sizeof(float) * M), dRstd = ex_alloc(ex, sizeof(float) * M);
  tlc_devptr dDW = ex_alloc(ex, gn), dDB = ex_alloc(ex, gn), dLock = ex_alloc(ex, sizeof(int32_t) * 2 * G);
  ex_upload(ex, dX, x, mn), ex_upload(ex, dDY, dy, mn), ex_upload(ex, dW, w, sizeof(float) * N);
  ex_upload(ex, dMean, mean, sizeof(float) * M), ex_upload(ex, dRstd, rstd, sizeof(float) * M);
  ex_ok(ex, tlc_memset_d8(ex->rt, dDX, 0xff, mn), "poison dx");
  ex_ok(ex, tlc_memset_d8(ex->rt, dDW, 0xff, gn), "poison dw"); /* the first store of each group overwrites */
  ex_ok(ex, tlc_memset_d8(ex->rt, dDB, 0xff, gn), "poison db");
  ex_ok(ex, tlc_memset_d8(ex->rt, dLock, 0, sizeof(int32_t) * 2 * G), "locks");
  tlc_arg args[11] = {TLC_PTR(dDX), TLC_PTR(dDY), TLC_PTR(dDW), TLC_PTR(dDB), TLC_PTR(dX), TLC_PTR(dW),
                      TLC_PTR(dMean), TLC_PTR(dRstd), TLC_PTR(dLock), TLC_I32(N), TLC_I32(N)};
  ex_ok(ex, tlc_launch(k, M, 1, 1, NULL, args, 11), "launch");
  ex_ok(ex, tlc_synchronize(ex->rt), "synchronize");
  float *dx = ex_xmalloc(mn), *dwp = ex_xmalloc(gn), *dbp = ex_xmalloc(gn);
  int32_t locks[2 * G];
  ex_download(ex, dx, dDX, mn), ex_download(ex, dwp, dDW, gn), ex_download(ex, dbp, dDB, gn);
  ex_download(ex, locks, dLock, sizeof locks);
  double *rdw = calloc((size_t)G * N, sizeof(double)), *rdb = calloc((size_t)G * N, sizeof(double));
  double dx_err = 0, dw_err = 0;
  for (int r = 0; r < M; r++) {
    double c1 = 0, c2 = 0;
    for (int c = 0; c < N; c++) {
      double xh = ((double)x[(size_t)r * N + c] - mean[r]) * rstd[r], wd = (double)w[c] * dy[(size_t)r * N + c];
      c1 += xh * wd, c2 += wd;
    }
    c1 /= N, c2 /= N;
    for (int c = 0; c < N; c++) {
      double xh = ((double)x[(size_t)r * N + c] - mean[r]) * rstd[r], wd = (double)w[c] * dy[(size_t)r * N + c];
      double ref = (wd - (xh * c1 + c2)) * rstd[r];
      double e = fabs(dx[(size_t)r * N + c] - ref) / (1 + fabs(ref));
      if (!(e <= dx_err)) dx_err = e;
      rdw[(size_t)(r % G) * N + c] += dy[(size_t)r * N + c] * xh;
      rdb[(size_t)(r % G) * N + c] += dy[(size_t)r * N + c];
    }
  }
  for (size_t i = 0; i < (size_t)G * N; i++) {
    double e1 = fabs(dwp[i] - rdw[i]) / (1 + fabs(rdw[i])), e2 = fabs(dbp[i] - rdb[i]) / (1 + fabs(rdb[i]));
    if (!(e1 <= dw_err)) dw_err = e1;
    if (!(e2 <= dw_err)) dw_err = e2;
  }
  int held = 0, uncounted = 0;
  for (int g = 0; g < G; g++) held += locks[g] != 0, uncounted += locks[G + g] != 1;
  char detail[256];
  snprintf(detail, sizeof detail, "rows=%d groups=%d dx_err=%.2g dwdb_err=%.2g locks_held=%d counts_wrong=%d", M, G,
           dx_err, dw_err, held, uncounted);
  report("spin_lock", dx_err <= 1e-5 && dw_err <= 1e-4 && !held && !uncounted, detail);
  free(x), free(dy), free(w), free(mean), free(rstd), free(dx), free(dwp), free(dbp), free(rdw), free(rdb);
  ex_free(ex, dX), ex_free(ex, dDY), ex_free(ex, dDX), ex_free(ex, dW), ex_free(ex, dMean), ex_free(ex, dRstd);
  ex_free(ex, dDW), ex_free(ex, dDB), ex_free(ex, dLock);
}

/* ---- compare-and-swap on a tensor of flags ------------------------------------------ */

static const char kCas[] =
    "import triton\nimport triton.language as tl\n\n"
    "@triton.jit\n"
    "def cas_first(flags, seen, NF: tl.constexpr):\n"
    "    pid = tl.program_id(0)\n"
    "    offs = tl.arange(0, NF)\n"
    "    old = tl.atomic_cas(flags + offs, 0, pid + 1)\n"
    "    tl.store(seen + pid * NF + offs, old)\n";

static void cas_first(Ex *ex) {
  enum { NF = 256, P = 512 };
  char sig[64];
  snprintf(sig, sizeof sig, "*i32:16,*i32:16,%d", NF);
  tlc_kernel *k = compile(ex, kCas, "cas_first", sig);
  if (!k) return;
  tlc_devptr dflags = ex_alloc(ex, NF * 4), dseen = ex_alloc(ex, (size_t)P * NF * 4);
  ex_ok(ex, tlc_memset_d8(ex->rt, dflags, 0, NF * 4), "flags");
  ex_ok(ex, tlc_memset_d8(ex->rt, dseen, 0xa5, (size_t)P * NF * 4), "poison");
  tlc_arg args[2] = {TLC_PTR(dflags), TLC_PTR(dseen)};
  ex_ok(ex, tlc_launch(k, P, 1, 1, NULL, args, 2), "launch");
  ex_ok(ex, tlc_synchronize(ex->rt), "synchronize");
  int32_t *flags = ex_xmalloc(NF * 4), *seen = ex_xmalloc((size_t)P * NF * 4);
  ex_download(ex, flags, dflags, NF * 4), ex_download(ex, seen, dseen, (size_t)P * NF * 4);
  int bad = 0;
  for (int f = 0; f < NF; f++) {
    int zeros = 0, winner = -1;
    bool consistent = flags[f] >= 1 && flags[f] <= P;
    for (int p = 0; p < P; p++) {
      int32_t o = seen[(size_t)p * NF + f];
      if (o == 0) zeros++, winner = p;
      else consistent &= o == flags[f]; /* everyone after the winner saw its id */
    }
    if (zeros != 1 || winner + 1 != flags[f] || !consistent) bad++;
  }
  char detail[96];
  snprintf(detail, sizeof detail, "flags=%d programs=%d bad_flags=%d", NF, P, bad);
  report("cas_first", !bad, detail);
  free(flags), free(seen);
  ex_free(ex, dflags), ex_free(ex, dseen);
}

/* ---- pointers to pointers ---------------------------------------------------------- */

static const char kGather[] =
    "import triton\nimport triton.language as tl\n\n"
    "@triton.jit\n"
    "def gather_ptr(ptrs, out, n, BLOCK: tl.constexpr):\n"
    "    g = tl.program_id(0)\n"
    "    p = tl.load(ptrs + g)\n"
    "    offs = tl.arange(0, BLOCK)\n"
    "    x = tl.load(p + offs, mask=offs < n)\n"
    "    tl.store(out + g * n + offs, x * 2, mask=offs < n)\n\n"
    "@triton.jit\n"
    "def gather_i64(addrs, out, n, BLOCK: tl.constexpr):\n"
    "    g = tl.program_id(0)\n"
    "    p = tl.load(addrs + g).to(tl.pointer_type(tl.float32))\n"
    "    offs = tl.arange(0, BLOCK)\n"
    "    x = tl.load(p + offs, mask=offs < n)\n"
    "    tl.store(out + g * n + offs, x * 2, mask=offs < n)\n";

static void pointers(Ex *ex) {
  enum { G = 37, NE = 300, BLOCK = 512 };
  tlc_devptr rows[G];
  float *host = ex_xmalloc(sizeof(float) * G * NE);
  for (int g = 0; g < G; g++) {
    ex_fill_f32(&ex->rng, host + (size_t)g * NE, NE, -10, 10);
    rows[g] = ex_alloc(ex, sizeof(float) * NE);
    ex_upload(ex, rows[g], host + (size_t)g * NE, sizeof(float) * NE);
  }
  tlc_devptr dptrs = ex_alloc(ex, sizeof rows), dout = ex_alloc(ex, sizeof(float) * G * NE);
  ex_upload(ex, dptrs, rows, sizeof rows);
  float *out = ex_xmalloc(sizeof(float) * G * NE);
  static const char *const names[] = {"gather_ptr", "gather_i64"};
  static const char *const sigs[] = {"**fp32:16,*fp32:16,i32,512", "*i64:16,*fp32:16,i32,512"};
  for (int v = 0; v < 2; v++) {
    tlc_kernel *k = compile(ex, kGather, names[v], sigs[v]);
    if (!k) continue;
    ex_ok(ex, tlc_memset_d8(ex->rt, dout, 0xff, sizeof(float) * G * NE), "poison");
    tlc_arg args[3] = {TLC_PTR(dptrs), TLC_PTR(dout), TLC_I32(NE)};
    ex_ok(ex, tlc_launch(k, G, 1, 1, NULL, args, 3), "launch");
    ex_ok(ex, tlc_synchronize(ex->rt), "synchronize");
    ex_download(ex, out, dout, sizeof(float) * G * NE);
    int bad = 0;
    for (size_t i = 0; i < (size_t)G * NE; i++)
      if (out[i] != host[i] * 2) bad++;
    char detail[96];
    snprintf(detail, sizeof detail, "signature=%s rows=%d mismatched=%d", sigs[v], G, bad);
    report(v ? "pointer_type" : "ptr_to_ptr", !bad, detail);
  }
  for (int g = 0; g < G; g++) ex_free(ex, rows[g]);
  ex_free(ex, dptrs), ex_free(ex, dout);
  free(host), free(out);
}

int main(int argc, char **argv) {
  Ex ex;
  ex_open(&ex, argc, argv, "test_memory_gpu");
  if (ex_selected(&ex, "spin_lock", "")) spin_lock(&ex);
  if (ex_selected(&ex, "cas_first", "")) cas_first(&ex);
  if (ex_selected(&ex, "pointers", "")) pointers(&ex);
  printf("%s: %d failure%s\n", failures ? "FAIL" : "PASS", failures, failures == 1 ? "" : "s");
  ex.nfail += failures;
  ex.npass += !failures;
  return ex_finish(&ex);
}
