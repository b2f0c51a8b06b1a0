/* test_runtime_gpu.c — the runtime on a real GPU: memory, copies and
 * memsets; a hand-written PTX kernel (sm_80, so any Ampere or newer GPU
 * runs it) loaded with tlc_kernel_from_ptx, launched and checked; timing;
 * dynamic shared memory above 48 KiB; argument, grid and shared-memory
 * errors; malformed PTX (TLC_ERR_LOAD with the JIT log and a ptxas
 * command), PTX of an unknown version or for a GPU that does not exist, a
 * .maxntid entry loaded with too many warps, a device ordinal that does not
 * exist, an allocation larger than the device, a copy from an unmapped
 * address; and, last because it poisons the context, a store to an
 * unmapped address that must surface at tlc_synchronize.
 *
 * Exit 77 (ctest: skipped) when there is no driver or no device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/tlc_runtime.h"
#include "tests/unit/test_util.h"

static const char kPtx[] =
    ".version 7.8\n"
    ".target sm_80\n"
    ".address_size 64\n"
    "\n"
    "// x[i] += 1 for i < n, one element per thread\n"
    ".visible .entry add_one(\n"
    "\t.param .u64 add_one_x,\n"
    "\t.param .u32 add_one_n\n"
    ")\n"
    "{\n"
    "\t.reg .pred %p<2>;\n"
    "\t.reg .b32 %r<8>;\n"
    "\t.reg .b64 %rd<5>;\n"
    "\n"
    "\tld.param.u64 %rd1, [add_one_x];\n"
    "\tld.param.u32 %r2, [add_one_n];\n"
    "\tmov.u32 %r3, %ctaid.x;\n"
    "\tmov.u32 %r4, %ntid.x;\n"
    "\tmov.u32 %r5, %tid.x;\n"
    "\tmad.lo.s32 %r1, %r3, %r4, %r5;\n"
    "\tsetp.ge.s32 %p1, %r1, %r2;\n"
    "\t@%p1 bra DONE;\n"
    "\tcvta.to.global.u64 %rd2, %rd1;\n"
    "\tmul.wide.s32 %rd3, %r1, 4;\n"
    "\tadd.s64 %rd4, %rd2, %rd3;\n"
    "\tld.global.u32 %r6, [%rd4];\n"
    "\tadd.s32 %r7, %r6, 1;\n"
    "\tst.global.u32 [%rd4], %r7;\n"
    "DONE:\n"
    "\tret;\n"
    "}\n"
    "\n"
    "// thread t writes 3t+1 to word (words-1-t) of dynamic shared memory,\n"
    "// reads it back after a barrier and stores it to out[t]\n"
    ".extern .shared .align 16 .b8 smem_probe_buf[];\n"
    "\n"
    ".visible .entry smem_probe(\n"
    "\t.param .u64 smem_probe_out,\n"
    "\t.param .u32 smem_probe_words\n"
    ")\n"
    "{\n"
    "\t.reg .b32 %r<10>;\n"
    "\t.reg .b64 %rd<5>;\n"
    "\n"
    "\tld.param.u64 %rd1, [smem_probe_out];\n"
    "\tld.param.u32 %r1, [smem_probe_words];\n"
    "\tmov.u32 %r2, %tid.x;\n"
    "\tsub.s32 %r3, %r1, 1;\n"
    "\tsub.s32 %r3, %r3, %r2;\n"
    "\tshl.b32 %r4, %r3, 2;\n"
    "\tmov.u32 %r5, smem_probe_buf;\n"
    "\tadd.s32 %r6, %r5, %r4;\n"
    "\tmad.lo.s32 %r7, %r2, 3, 1;\n"
    "\tst.shared.u32 [%r6], %r7;\n"
    "\tbar.sync 0;\n"
    "\tld.shared.u32 %r8, [%r6];\n"
    "\tcvta.to.global.u64 %rd2, %rd1;\n"
    "\tmul.wide.u32 %rd3, %r2, 4;\n"
    "\tadd.s64 %rd4, %rd2, %rd3;\n"
    "\tst.global.u32 [%rd4], %r8;\n"
    "\tret;\n"
    "}\n"
    "\n"
    "// *p = 7\n"
    ".visible .entry poke(\n"
    "\t.param .u64 poke_p\n"
    ")\n"
    "{\n"
    "\t.reg .b32 %r<2>;\n"
    "\t.reg .b64 %rd<2>;\n"
    "\n"
    "\tld.param.u64 %rd1, [poke_p];\n"
    "\tmov.u32 %r1, 7;\n"
    "\tst.global.u32 [%rd1], %r1;\n"
    "\tret;\n"
    "}\n";

static const tlc_param_desc kAddParams[] = {{"x", "ptr"}, {"n", "i32"}};
static const tlc_param_desc kProbeParams[] = {{"out", "ptr"}, {"words", "u32"}};
static const tlc_param_desc kPokeParams[] = {{"p", "ptr"}};

static void test_memory(tlc_runtime *rt) {
  enum { N = 1000 };
  static uint32_t host[N];
  tlc_devptr d = 0;
  OK(rt, tlc_malloc(rt, N * sizeof(uint32_t), &d));
  CHECK(d != 0);
  OK(rt, tlc_memset_d32(rt, d, 0xa5b6c7d8u, N));
  OK(rt, tlc_memcpy_dtoh(rt, host, d, sizeof host));
  int bad = 0;
  for (int i = 0; i < N; i++) bad += host[i] != 0xa5b6c7d8u;
  CHECK(bad == 0);
  OK(rt, tlc_memset_d8(rt, d + 4, 0x11, 8));
  OK(rt, tlc_memcpy_dtoh(rt, host, d, 4 * sizeof(uint32_t)));
  CHECK(host[0] == 0xa5b6c7d8u && host[1] == 0x11111111u && host[2] == 0x11111111u &&
        host[3] == 0xa5b6c7d8u);
  for (int i = 0; i < N; i++) host[i] = (uint32_t)i * 7u;
  OK(rt, tlc_memcpy_htod(rt, d, host, sizeof host));
  memset(host, 0, sizeof host);
  OK(rt, tlc_memcpy_dtoh(rt, host, d, sizeof host));
  bad = 0;
  for (int i = 0; i < N; i++) bad += host[i] != (uint32_t)i * 7u;
  CHECK(bad == 0);
  OK(rt, tlc_free(rt, d));
  EXPECT(rt, tlc_free(rt, d), TLC_ERR_INVALID, "already freed");
}

static void test_add_one(tlc_runtime *rt) {
  enum { N = 100003 }; /* not a multiple of the block: the guard matters */
  int32_t *host = malloc(N * sizeof *host);
  for (int i = 0; i < N; i++) host[i] = i - 50000;
  tlc_devptr x = 0;
  OK(rt, tlc_malloc(rt, N * sizeof *host, &x));
  OK(rt, tlc_memcpy_htod(rt, x, host, N * sizeof *host));

  tlc_kernel *k = NULL;
  OK(rt, tlc_kernel_from_ptx(rt, kPtx, "add_one", 4, 0, kAddParams, 2, &k));
  if (!k) {
    free(host);
    return;
  }
  CHECK(tlc_kernel_num_params(k) == 2);
  CHECK(tlc_kernel_num_warps(k) == 4);
  CHECK(tlc_kernel_compile_ms(k) == 0.0);
  CHECK(tlc_kernel_ptx(k) && strstr(tlc_kernel_ptx(k), ".entry add_one"));

  tlc_event *start = NULL, *end = NULL;
  OK(rt, tlc_event_create(rt, &start));
  OK(rt, tlc_event_create(rt, &end));
  tlc_arg args[] = {TLC_PTR(x), TLC_I32(N)};
  unsigned grid = (N + 127) / 128;
  OK(rt, tlc_event_record(start, NULL));
  OK(rt, tlc_launch(k, grid, 1, 1, NULL, args, 2));
  OK(rt, tlc_event_record(end, NULL));
  /* an i64 that fits is accepted for an i32 parameter: a second +1 */
  tlc_arg args64[] = {TLC_PTR(x), TLC_I64(N)};
  OK(rt, tlc_launch(k, grid, 1, 1, NULL, args64, 2));
  OK(rt, tlc_synchronize(rt));
  float ms = -1;
  OK(rt, tlc_event_elapsed_ms(start, end, &ms));
  CHECK(ms >= 0.0f);
  printf("  add_one over %d elements: %.3f ms\n", N, ms);
  tlc_event_destroy(start);
  tlc_event_destroy(end);

  int32_t *back = malloc(N * sizeof *back);
  OK(rt, tlc_memcpy_dtoh(rt, back, x, N * sizeof *back));
  int bad = 0;
  for (int i = 0; i < N; i++) bad += back[i] != host[i] + 2;
  CHECK(bad == 0);
  if (bad) fprintf(stderr, "  %d of %d elements wrong (x[0] = %d, expected %d)\n", bad, N, back[0], host[0] + 2);

  /* Argument and grid errors are caught before the driver sees them. */
  EXPECT(rt, tlc_launch(k, grid, 1, 1, NULL, args, 1), TLC_ERR_ARGS,
         "kernel 'add_one' takes 2 arguments (x: ptr, n: i32) but 1 was given");
  tlc_arg wrong[] = {TLC_PTR(x), TLC_F32(1.0f)};
  EXPECT(rt, tlc_launch(k, grid, 1, 1, NULL, wrong, 2), TLC_ERR_ARGS,
         "kernel 'add_one' parameter 1 ('n') is i32 but argument 1 is fp32");
  tlc_arg notptr[] = {TLC_I64(x), TLC_I32(N)};
  EXPECT(rt, tlc_launch(k, grid, 1, 1, NULL, notptr, 2), TLC_ERR_ARGS,
         "parameter 0 ('x') is ptr but argument 0 is i64");
  tlc_arg toobig[] = {TLC_PTR(x), TLC_I64(1ll << 40)};
  EXPECT(rt, tlc_launch(k, grid, 1, 1, NULL, toobig, 2), TLC_ERR_ARGS, "does not fit");
  EXPECT(rt, tlc_launch(k, 0, 1, 1, NULL, args, 2), TLC_ERR_LAUNCH, "zero x dimension");
  EXPECT(rt, tlc_launch(k, 1, 1u << 20, 1, NULL, args, 2), TLC_ERR_LAUNCH, "exceeds the limit");
  EXPECT(rt, tlc_launch(k, 0x80000000u, 1, 1, NULL, args, 2), TLC_ERR_LAUNCH, "grid x dimension 2147483648");
  EXPECT(rt, tlc_launch(k, 1, 1, 1u << 17, NULL, args, 2), TLC_ERR_LAUNCH, "grid z dimension 131072");
  EXPECT(rt, tlc_launch(k, 1, 1, 1, NULL, NULL, 2), TLC_ERR_INVALID, "NULL argument array");
  /* none of the failed launches reached the device: x is still as it was */
  OK(rt, tlc_synchronize(rt));
  OK(rt, tlc_memcpy_dtoh(rt, back, x, sizeof *back));
  CHECK(back[0] == host[0] + 2);

  OK(rt, tlc_free(rt, x));
  free(back);
  free(host);
}

static void test_shared_memory(tlc_runtime *rt) {
  /* 100 KiB of dynamic shared memory needs the opt-in attribute on every GPU
   * tlc targets (sm_80: 163 KiB max, sm_90: 227 KiB). */
  enum { BYTES = 100 * 1024, THREADS = 128 };
  tlc_kernel *k = NULL;
  OK(rt, tlc_kernel_from_ptx(rt, kPtx, "smem_probe", THREADS / 32, BYTES, kProbeParams, 2, &k));
  if (!k) return;
  tlc_devptr out = 0;
  OK(rt, tlc_malloc(rt, THREADS * sizeof(uint32_t), &out));
  tlc_arg args[] = {TLC_PTR(out), TLC_U32(BYTES / 4)};
  OK(rt, tlc_launch(k, 1, 1, 1, NULL, args, 2));
  OK(rt, tlc_synchronize(rt));
  uint32_t back[THREADS];
  OK(rt, tlc_memcpy_dtoh(rt, back, out, sizeof back));
  int bad = 0;
  for (int t = 0; t < THREADS; t++) bad += back[t] != 3u * (uint32_t)t + 1u;
  CHECK(bad == 0);
  OK(rt, tlc_free(rt, out));

  tlc_kernel *huge = NULL;
  EXPECT(rt, tlc_kernel_from_ptx(rt, kPtx, "smem_probe", 4, 4 << 20, kProbeParams, 2, &huge),
         TLC_ERR_LAUNCH, "bytes of shared memory per program");
  CHECK(huge == NULL);
}

static void test_load_errors(tlc_runtime *rt) {
  /* A misspelt instruction: ptxas inside the driver rejects it. */
  char *bad = malloc(sizeof kPtx + 8);
  strcpy(bad, kPtx);
  char *at = strstr(bad, "add.s32 %r7");
  memmove(at + 1, at, strlen(at) + 1);
  at[0] = 'a'; /* "aadd.s32" */
  tlc_kernel *k = NULL;
  EXPECT(rt, tlc_kernel_from_ptx(rt, bad, "add_one", 4, 0, kAddParams, 2, &k), TLC_ERR_LOAD,
         "JIT error log:");
  const char *msg = tlc_runtime_error(rt);
  CHECK(strstr(msg, "aadd") != NULL); /* the log names the bad instruction */
  CHECK(strstr(msg, "CUDA_ERROR_") != NULL);
  CHECK(strstr(msg, "ptxas -arch=sm_80 ") != NULL);
  CHECK(k == NULL);
  free(bad);

  EXPECT(rt, tlc_kernel_from_ptx(rt, kPtx, "no_such_kernel", 4, 0, NULL, 0, &k), TLC_ERR_LOAD,
         "has no .entry 'no_such_kernel'");

  /* A PTX ISA version no driver knows, and a target no GPU has. */
  static const char kFuture[] = ".version 99.0\n.target sm_80\n.address_size 64\n"
                                ".visible .entry f()\n{\n\tret;\n}\n";
  EXPECT(rt, tlc_kernel_from_ptx(rt, kFuture, "f", 1, 0, NULL, 0, &k), TLC_ERR_LOAD,
         "the CUDA driver rejected its PTX");
  CHECK(k == NULL);
  static const char kNoGpu[] = ".version 7.8\n.target sm_999\n.address_size 64\n"
                               ".visible .entry f()\n{\n\tret;\n}\n";
  EXPECT(rt, tlc_kernel_from_ptx(rt, kNoGpu, "f", 1, 0, NULL, 0, &k), TLC_ERR_LOAD,
         "the CUDA driver rejected its PTX");
  CHECK(k == NULL);

  /* An entry limited to 128 threads by .maxntid, loaded for 256: refused
   * when loading, naming the directive (its few registers are not why). */
  static const char kLimited[] = ".version 7.8\n.target sm_80\n.address_size 64\n"
                                 ".visible .entry limited(.param .u64 p) .maxntid 128, 1, 1\n"
                                 "{\n\tret;\n}\n";
  static const tlc_param_desc kLimitedParams[] = {{"p", "ptr"}};
  OK(rt, tlc_kernel_from_ptx(rt, kLimited, "limited", 4, 0, kLimitedParams, 1, &k));
  EXPECT(rt, tlc_kernel_from_ptx(rt, kLimited, "limited", 8, 0, kLimitedParams, 1, &k), TLC_ERR_LAUNCH,
         "runs 256 threads per program (num_warps=8) but its PTX allows at most 128");
  CHECK(k == NULL);
}

/* Errors of the driver's own that leave the context usable. */
static void test_driver_errors(tlc_runtime *rt) {
  tlc_runtime *other = NULL;
  EXPECT(other, tlc_runtime_open(999, &other), TLC_ERR_NO_DEVICE, "there is no CUDA device 999");
  CHECK(tlc_malloc(other, 4, &(tlc_devptr){0}) == TLC_ERR_NO_DEVICE);
  tlc_runtime_close(other);

  tlc_devptr p = 1;
  EXPECT(rt, tlc_malloc(rt, (size_t)1 << 50, &p), TLC_ERR_CUDA, "CUDA_ERROR_OUT_OF_MEMORY");
  CHECK(p == 0);
  uint32_t word = 0;
  EXPECT(rt, tlc_memcpy_dtoh(rt, &word, 0x100, sizeof word), TLC_ERR_CUDA, "tlc_memcpy_dtoh(0x100");
  /* the runtime still works after both */
  OK(rt, tlc_malloc(rt, 256, &p));
  OK(rt, tlc_memset_d32(rt, p, 7, 64));
  OK(rt, tlc_memcpy_dtoh(rt, &word, p, sizeof word));
  CHECK(word == 7);
  OK(rt, tlc_free(rt, p));
  OK(rt, tlc_synchronize(rt));
}

/* Last: a fault poisons the primary context for the rest of the process. */
static void test_fault(tlc_runtime *rt) {
  tlc_kernel *k = NULL;
  OK(rt, tlc_kernel_from_ptx(rt, kPtx, "poke", 1, 0, kPokeParams, 1, &k));
  if (!k) return;
  tlc_arg args[] = {TLC_PTR(0x100)}; /* the unmapped first page */
  OK(rt, tlc_launch(k, 1, 1, 1, NULL, args, 1));
  EXPECT(rt, tlc_synchronize(rt), TLC_ERR_CUDA, "CUDA_ERROR_ILLEGAL_ADDRESS");
  /* Later calls fail too, with an error rather than a crash. */
  tlc_devptr p = 0;
  tlc_status st = tlc_malloc(rt, 64, &p);
  if (st == TLC_OK) tlc_free(rt, p);
  CHECK(tlc_synchronize(rt) == TLC_ERR_CUDA);
}

int main(void) {
  test_verbose = true;
  tlc_runtime *rt = NULL;
  tlc_status st = tlc_runtime_open(0, &rt);
  if (st == TLC_ERR_NO_DRIVER || st == TLC_ERR_NO_DEVICE) {
    printf("skipped: %s: %s\n", tlc_status_name(st), tlc_runtime_error(rt));
    tlc_runtime_close(rt);
    return 77;
  }
  if (st != TLC_OK) {
    fprintf(stderr, "tlc_runtime_open: %s: %s\n", tlc_status_name(st), tlc_runtime_error(rt));
    tlc_runtime_close(rt);
    return 1;
  }
  printf("device: %s, capability %d, arch %s, %d SMs\n", tlc_device_name(rt),
         tlc_device_capability(rt), tlc_device_arch(rt), tlc_device_sm_count(rt));
  CHECK(tlc_device_capability(rt) >= 80);
  CHECK(tlc_device_sm_count(rt) > 0);
  CHECK(!strncmp(tlc_device_arch(rt), "sm_", 3));
  if (tlc_device_capability(rt) == 90) CHECK(!strcmp(tlc_device_arch(rt), "sm_90a"));

  test_memory(rt);
  test_add_one(rt);
  test_shared_memory(rt);
  test_load_errors(rt);
  test_driver_errors(rt);
  test_fault(rt);

  tlc_runtime_close(rt);
  return test_summary("test_runtime_gpu");
}
