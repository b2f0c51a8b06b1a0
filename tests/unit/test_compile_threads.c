/* test_compile_threads.c — compilations on several threads at once, as the
 * autotuner's compile pool makes them (runtime/autotune.c): each must give
 * the PTX the same request gives alone.  Four kernels (an elementwise one;
 * a matmul on wgmma with a TMA ring; a reduction; a math function through
 * the math library, libclc and libdevice where the machine has one) at two
 * warp counts, compiled once in this thread, then 8 threads compile the
 * whole list 3 times each in different orders and compare every PTX byte
 * for byte with the reference. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/tlc_compiler.h"
#include "tests/unit/test_util.h"

static const char *kSrc =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def scale(x_ptr, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    x = tl.load(x_ptr + offs, mask=offs < n)\n"
    "    tl.store(x_ptr + offs, x * 2.0 + 1.0, mask=offs < n)\n"
    "\n"
    "@triton.jit\n"
    "def mm(a_ptr, b_ptr, c_ptr, K, stride_am, stride_bk, stride_cm,\n"
    "       BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):\n"
    "    rm = tl.program_id(0) * BM + tl.arange(0, BM)\n"
    "    rn = tl.program_id(1) * BN + tl.arange(0, BN)\n"
    "    rk = tl.arange(0, BK)\n"
    "    acc = tl.zeros((BM, BN), dtype=tl.float32)\n"
    "    for k in range(0, K, BK):\n"
    "        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk)[None, :])\n"
    "        b = tl.load(b_ptr + (k + rk)[:, None] * stride_bk + rn[None, :])\n"
    "        acc += tl.dot(a, b)\n"
    "    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(tl.float16))\n"
    "\n"
    "@triton.jit\n"
    "def rowmax(x_ptr, y_ptr, N: tl.constexpr):\n"
    "    r = tl.program_id(0)\n"
    "    x = tl.load(x_ptr + r * N + tl.arange(0, N))\n"
    "    tl.store(y_ptr + r, tl.max(tl.exp(x - tl.max(x, axis=0)), axis=0))\n"
    "\n"
    "@triton.jit\n"
    "def tanh_it(x_ptr, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    x = tl.load(x_ptr + offs, mask=offs < n)\n"
    "    tl.store(x_ptr + offs, tl.extra.cuda.libdevice.tanh(x), mask=offs < n)\n";

typedef struct Req {
  const char *kernel, *signature;
  int warps;
  tlc_math_lib lib;
  char *ref; /* the PTX compiled alone */
} Req;

static Req reqs[] = {
    {"scale", "*fp32:16,i32,1024", 4, TLC_MATH_LIBCLC, NULL},
    {"scale", "*fp32:16,i32,256", 8, TLC_MATH_LIBCLC, NULL},
    {"mm", "*fp16:16,*fp16:16,*fp16:16,i32:16,i32:16,i32:16,i32:16,128,128,64", 4, TLC_MATH_LIBCLC, NULL},
    {"mm", "*fp16:16,*fp16:16,*fp16:16,i32:16,i32:16,i32:16,i32:16,64,128,32", 4, TLC_MATH_LIBCLC, NULL},
    {"rowmax", "*fp32:16,*fp32:16,1024", 4, TLC_MATH_LIBCLC, NULL},
    {"rowmax", "*fp32:16,*fp32:16,2048", 8, TLC_MATH_LIBCLC, NULL},
    {"tanh_it", "*fp32:16,i32,1024", 4, TLC_MATH_LIBCLC, NULL},
    {"tanh_it", "*fp32:16,i32,1024", 4, TLC_MATH_AUTO, NULL}, /* libdevice where there is one */
};
enum { NREQ = sizeof reqs / sizeof reqs[0], NTHREADS = 8, ROUNDS = 3 };

static char *compile(const Req *q) {
  tlc_compile_options o;
  tlc_compile_options_init(&o);
  o.kernel = q->kernel;
  o.signature = q->signature;
  o.num_warps = q->warps;
  o.math_lib = q->lib;
  tlc_compile_result r;
  char *ptx = NULL;
  if (tlc_compile("threads.tile", kSrc, &o, &r) == TLC_COMPILE_OK && r.text) ptx = strdup(r.text);
  else fprintf(stderr, "%s %s: %s\n", q->kernel, q->signature, r.diagnostics ? r.diagnostics : "?");
  tlc_compile_result_free(&r);
  return ptx;
}

static int mismatches[NTHREADS];

static void *worker(void *arg) {
  int t = (int)(intptr_t)arg;
  for (int round = 0; round < ROUNDS; round++)
    for (int n = 0; n < NREQ; n++) {
      const Req *q = &reqs[(n * (t + 1) + round + t) % NREQ]; /* every thread its own order */
      char *ptx = compile(q);
      if (!ptx || !q->ref || strcmp(ptx, q->ref)) mismatches[t]++;
      free(ptx);
    }
  return NULL;
}

int main(void) {
  for (int i = 0; i < NREQ; i++) {
    reqs[i].ref = compile(&reqs[i]);
    CHECK(reqs[i].ref != NULL, "%s %s did not compile", reqs[i].kernel, reqs[i].signature);
  }
  CHECK(reqs[2].ref && strstr(reqs[2].ref, "wgmma.mma_async"), "the matmul is not on wgmma");
  CHECK(reqs[2].ref && strstr(reqs[2].ref, "cp.async.bulk.tensor"), "the matmul has no TMA ring");
  pthread_t tid[NTHREADS];
  for (int t = 0; t < NTHREADS; t++) CHECK(pthread_create(&tid[t], NULL, worker, (void *)(intptr_t)t) == 0);
  for (int t = 0; t < NTHREADS; t++) pthread_join(tid[t], NULL);
  for (int t = 0; t < NTHREADS; t++) CHECK(mismatches[t] == 0, "thread %d: %d compiles differ from the reference", t, mismatches[t]);
  for (int i = 0; i < NREQ; i++) free(reqs[i].ref);
  return test_summary("test_compile_threads");
}
