/* test_runtime_fake.c — the whole runtime against a fake driver
 * (test_runtime_fakecuda.c, picked through $TLC_CUDA_DRIVER), so every path
 * that needs a device runs without one: opening and device facts, the arch
 * string (and the arch picked for devices newer than tlc knows), memory, argument checking and packing (the bytes the driver would
 * copy are checked), host tensor descriptors and their expansion at launch,
 * grid limits, shared-memory opt-in, driver failures at launch and
 * synchronize, PTX rejection with the JIT log and a repro file,
 * events, timing a launch (tlc_bench_launch: the median, memory zeroed and
 * restored around each launch, refusals), calls from another thread, the JIT layer's compile errors, file
 * errors and caches (the disk cache is seeded with a hand-written entry, hit,
 * corrupted and not trusted), and that close releases everything. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compiler/tlc_compiler.h"
#include "runtime/cache.h"
#include "runtime/tlc_runtime.h"
#include "tests/unit/test_runtime_fakecuda.h"
#include "tests/unit/test_util.h"

static FakeCudaState *fake;

static const char kPtx[] =
    ".version 7.8\n.target sm_80\n.address_size 64\n\n"
    ".visible .entry add_one(.param .u64 x, .param .u32 n)\n{\n\tret;\n}\n"
    ".visible .entry mixed(.param .u64 a, .param .u64 b, .param .u8 c, .param .u16 d,\n"
    "    .param .u32 e, .param .u64 f, .param .b16 g, .param .b16 h, .param .f64 i)\n{\n\tret;\n}\n";

static const tlc_param_desc kAddParams[] = {{"x", "ptr"}, {"n", "i32"}};

static char g_cache_dir[256];

static uint64_t slot_u64(int i) {
  uint64_t v;
  memcpy(&v, fake->params[i], 8);
  return v;
}

static tlc_runtime *open_fake(int cc_major, int cc_minor) {
  fake->cc_major = cc_major;
  fake->cc_minor = cc_minor;
  tlc_runtime *rt = NULL;
  tlc_status st = tlc_runtime_open(0, &rt);
  if (st != TLC_OK)
    fprintf(stderr, "open on the fake driver: %s: %s\n", tlc_status_name(st), tlc_runtime_error(rt));
  CHECK(st == TLC_OK);
  return rt;
}

/* ---- device ------------------------------------------------------------------------ */

static void test_open(void) {
  tlc_runtime *rt = open_fake(9, 0);
  CHECK(tlc_device_capability(rt) == 90);
  CHECK(!strcmp(tlc_device_arch(rt), "sm_90a"));
  CHECK(tlc_device_sm_count(rt) == 132);
  CHECK(strstr(tlc_device_name(rt), "Fake GPU") != NULL);
  CHECK(fake->primary_refs == 1);
  tlc_runtime_close(rt);
  CHECK(fake->primary_refs == 0);

  rt = open_fake(8, 0);
  CHECK(!strcmp(tlc_device_arch(rt), "sm_80"));
  tlc_runtime_close(rt);
  rt = open_fake(8, 6);
  CHECK(!strcmp(tlc_device_arch(rt), "sm_86"));
  CHECK(!strcmp(tlc_device_arch_note(rt), ""));
  tlc_runtime_close(rt);
  fake->cc_major = 9;
  fake->cc_minor = 0;

  rt = NULL;
  EXPECT(rt, tlc_runtime_open(3, &rt), TLC_ERR_NO_DEVICE, "there is no CUDA device 3");
  CHECK(tlc_malloc(rt, 4, &(tlc_devptr){0}) == TLC_ERR_NO_DEVICE);
  tlc_runtime_close(rt);
  fake->device_count = 0;
  EXPECT(rt, tlc_runtime_open(0, &rt), TLC_ERR_NO_DEVICE, "sees no device");
  tlc_runtime_close(rt);
  fake->device_count = 1;
  CHECK(fake->primary_refs == 0);

  /* cuInit failing: the toolkit's link stub installed as libcuda.so.1, and a
   * driver that finds no device at initialisation. */
  fake->fail_init = 34; /* CUDA_ERROR_STUB_LIBRARY */
  EXPECT(rt, tlc_runtime_open(0, &rt), TLC_ERR_NO_DRIVER, "link stub, not the NVIDIA driver");
  CHECK(tlc_synchronize(rt) == TLC_ERR_NO_DRIVER);
  tlc_runtime_close(rt);
  fake->fail_init = 100; /* CUDA_ERROR_NO_DEVICE */
  EXPECT(rt, tlc_runtime_open(0, &rt), TLC_ERR_NO_DEVICE, "cuInit failed");
  tlc_runtime_close(rt);
  fake->fail_init = 0;
  CHECK(fake->primary_refs == 0);
}

/* ---- memory ------------------------------------------------------------------------ */

static void test_memory(tlc_runtime *rt) {
  tlc_devptr d = 0;
  OK(rt, tlc_malloc(rt, 64 * sizeof(uint32_t), &d));
  OK(rt, tlc_memset_d32(rt, d, 0xdeadbeefu, 64));
  uint32_t host[64];
  OK(rt, tlc_memcpy_dtoh(rt, host, d, sizeof host));
  CHECK(host[0] == 0xdeadbeefu && host[63] == 0xdeadbeefu);
  OK(rt, tlc_memset_d8(rt, d, 0x5a, 4));
  OK(rt, tlc_memcpy_dtoh(rt, host, d, 8));
  CHECK(host[0] == 0x5a5a5a5au && host[1] == 0xdeadbeefu);
  for (int i = 0; i < 64; i++) host[i] = (uint32_t)i;
  OK(rt, tlc_memcpy_htod(rt, d, host, sizeof host));
  uint32_t back[64] = {0};
  OK(rt, tlc_memcpy_dtoh(rt, back, d, sizeof back));
  CHECK(!memcmp(host, back, sizeof host));

  tlc_devptr none = 1;
  EXPECT(rt, tlc_malloc(rt, 0, &none), TLC_ERR_INVALID, "size 0");
  CHECK(none == 0);
  OK(rt, tlc_memcpy_dtoh(rt, back, d, 0)); /* zero bytes: nothing to do */
  EXPECT(rt, tlc_memset_d32(rt, d + 2, 0, 1), TLC_ERR_INVALID, "not 4-byte aligned");
  OK(rt, tlc_free(rt, d));
  EXPECT(rt, tlc_free(rt, d), TLC_ERR_INVALID, "already freed");
  EXPECT(rt, tlc_free(rt, 0x12345678), TLC_ERR_INVALID, "not an allocation of this runtime");
  OK(rt, tlc_free(rt, 0)); /* like free(NULL) */
  fake->fail_alloc = 2; /* CUDA_ERROR_OUT_OF_MEMORY */
  none = 1;
  EXPECT(rt, tlc_malloc(rt, (size_t)1 << 40, &none), TLC_ERR_CUDA, "CUDA_ERROR_OUT_OF_MEMORY");
  CHECK(none == 0);

  /* Many allocations: the live set grows, shrinks and stays consistent. */
  tlc_devptr many[300];
  for (int i = 0; i < 300; i++) OK(rt, tlc_malloc(rt, 16, &many[i]));
  for (int i = 0; i < 300; i += 2) OK(rt, tlc_free(rt, many[i]));
  for (int i = 1; i < 300; i += 2) OK(rt, tlc_free(rt, many[i]));
  CHECK(fake->live_allocs == 0);

  /* A sync failure names the driver's error. */
  OK(rt, tlc_synchronize(rt));
  fake->fail_sync = 700;
  EXPECT(rt, tlc_synchronize(rt), TLC_ERR_CUDA,
         "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)");
  fake->fail_sync = 0;
}

/* ---- kernels and launches ------------------------------------------------------------ */

static void test_launch(tlc_runtime *rt) {
  tlc_kernel *k = NULL;
  OK(rt, tlc_kernel_from_ptx(rt, kPtx, "add_one", 4, 0, kAddParams, 2, &k));
  if (!k) return;
  CHECK(tlc_kernel_num_params(k) == 2);
  CHECK(tlc_kernel_num_warps(k) == 4);
  CHECK(tlc_kernel_shared_bytes(k) == 0);
  CHECK(tlc_kernel_compile_ms(k) == 0.0);
  CHECK(!strcmp(tlc_kernel_ptx(k), kPtx));
  CHECK(fake->dynamic_smem_attr == -1); /* no opt-in needed */

  tlc_arg args[] = {TLC_PTR(0x7000), TLC_I32(-5)};
  int before = fake->launches;
  OK(rt, tlc_launch(k, 10, 2, 3, NULL, args, 2));
  CHECK(fake->launches == before + 1);
  CHECK(fake->grid[0] == 10 && fake->grid[1] == 2 && fake->grid[2] == 3);
  CHECK(fake->block[0] == 128 && fake->block[1] == 1 && fake->block[2] == 1);
  CHECK(fake->shared_bytes == 0);
  CHECK(slot_u64(0) == 0x7000);
  int32_t n;
  memcpy(&n, fake->params[1], 4);
  CHECK(n == -5);

  /* i64 -> i32 when it fits */
  tlc_arg a64[] = {TLC_PTR(0x7000), TLC_I64(123456)};
  OK(rt, tlc_launch(k, 1, 1, 1, NULL, a64, 2));
  memcpy(&n, fake->params[1], 4);
  CHECK(n == 123456);

  /* the messages */
  EXPECT(rt, tlc_launch(k, 1, 1, 1, NULL, args, 1), TLC_ERR_ARGS,
         "kernel 'add_one' takes 2 arguments (x: ptr, n: i32) but 1 was given");
  EXPECT(rt, tlc_launch(k, 1, 1, 1, NULL, NULL, 0), TLC_ERR_ARGS, "but 0 were given");
  tlc_arg f[] = {TLC_PTR(0x7000), TLC_F32(1.0f)};
  EXPECT(rt, tlc_launch(k, 1, 1, 1, NULL, f, 2), TLC_ERR_ARGS,
         "kernel 'add_one' parameter 1 ('n') is i32 but argument 1 is fp32");
  tlc_arg u[] = {TLC_PTR(0x7000), TLC_U32(1)};
  EXPECT(rt, tlc_launch(k, 1, 1, 1, NULL, u, 2), TLC_ERR_ARGS,
         "parameter 1 ('n') is i32 but argument 1 is u32");
  tlc_arg big[] = {TLC_PTR(0x7000), TLC_I64(1ll << 31)};
  EXPECT(rt, tlc_launch(k, 1, 1, 1, NULL, big, 2), TLC_ERR_ARGS,
         "parameter 1 ('n') is i32 but argument 1 is i64 2147483648, which does not fit");
  tlc_arg p[] = {TLC_I64(0x7000), TLC_I32(1)};
  EXPECT(rt, tlc_launch(k, 1, 1, 1, NULL, p, 2), TLC_ERR_ARGS,
         "parameter 0 ('x') is ptr but argument 0 is i64");
  EXPECT(rt, tlc_launch(k, 1, 1, 1, NULL, NULL, 2), TLC_ERR_INVALID, "NULL argument array");

  /* grid checks */
  before = fake->launches;
  EXPECT(rt, tlc_launch(k, 0, 1, 1, NULL, args, 2), TLC_ERR_LAUNCH, "grid (0, 1, 1) has a zero x dimension");
  EXPECT(rt, tlc_launch(k, 1, 1, 0, NULL, args, 2), TLC_ERR_LAUNCH, "zero z dimension");
  EXPECT(rt, tlc_launch(k, 1, 70000, 1, NULL, args, 2), TLC_ERR_LAUNCH,
         "grid y dimension 70000 exceeds the limit 65535 of Fake GPU (tlc test driver)");
  OK(rt, tlc_launch(k, 2147483647u, 65535, 65535, NULL, args, 2));
  EXPECT(rt, tlc_launch(k, 2147483648u, 1, 1, NULL, args, 2), TLC_ERR_LAUNCH, "grid x dimension");
  CHECK(fake->launches == before + 1); /* nothing bad reached the driver */

  /* the driver refusing a launch */
  fake->fail_launch = 701;
  EXPECT(rt, tlc_launch(k, 1, 1, 1, NULL, args, 2), TLC_ERR_LAUNCH,
         "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES");
}

static void test_param_kinds(tlc_runtime *rt) {
  static const tlc_param_desc params[] = {{"a", "i64"}, {"b", "u64"}, {"c", "i8"}, {"d", "u16"},
                                          {"e", "u32"}, {"f", "ptr"}, {"g", "fp16"}, {"h", "bf16"},
                                          {"i", "fp64"}};
  tlc_kernel *k = NULL;
  OK(rt, tlc_kernel_from_ptx(rt, kPtx, "mixed", 1, 0, params, 9, &k));
  if (!k) return;
  tlc_arg args[] = {TLC_I32(-7), TLC_U32(0xfffffffeu), TLC_I32(-128), TLC_U64(65535),
                    TLC_U64(7),  TLC_PTR(0xabc0),      TLC_F32(1.0f), TLC_F32(-2.5f),
                    TLC_F64(0.1)};
  OK(rt, tlc_launch(k, 1, 1, 1, NULL, args, 9));
  int64_t a;
  memcpy(&a, fake->params[0], 8);
  CHECK(a == -7);                          /* i32 widened with its sign */
  CHECK(slot_u64(1) == 0xfffffffeull);     /* u32 widened with zeros */
  CHECK(fake->params[2][0] == 0x80);       /* -128 as one byte */
  uint16_t h;
  memcpy(&h, fake->params[3], 2);
  CHECK(h == 65535);
  uint32_t e;
  memcpy(&e, fake->params[4], 4);
  CHECK(e == 7);
  CHECK(slot_u64(5) == 0xabc0);
  memcpy(&h, fake->params[6], 2);
  CHECK(h == 0x3c00);                      /* fp16 1.0 */
  memcpy(&h, fake->params[7], 2);
  CHECK(h == 0xc020);                      /* bf16 -2.5 */
  double dv;
  memcpy(&dv, fake->params[8], 8);
  CHECK(dv == 0.1);

  /* fp16 rounding corners: max finite, overflow, smallest subnormal, tie to even */
  struct { float in; uint16_t out; } f16[] = {
      {65504.0f, 0x7bff}, {65520.0f, 0x7c00}, {1e9f, 0x7c00}, {-1e9f, 0xfc00},
      {5.9604645e-8f, 0x0001}, {2.9802322e-8f, 0x0000}, {1.0f + 1.0f / 2048, 0x3c00},
      {1.0f + 3.0f / 2048, 0x3c02}, {0.0f, 0x0000}, {-0.0f, 0x8000}, {6.1035156e-5f, 0x0400},
  };
  for (size_t i = 0; i < sizeof f16 / sizeof *f16; i++) {
    args[6] = TLC_F32(f16[i].in);
    OK(rt, tlc_launch(k, 1, 1, 1, NULL, args, 9));
    memcpy(&h, fake->params[6], 2);
    if (h != f16[i].out) {
      fprintf(stderr, "fp16(%g) = 0x%04x, expected 0x%04x\n", (double)f16[i].in, h, f16[i].out);
      failures++;
    }
  }
  args[6] = TLC_F32(1.0f);

  tlc_arg bad[9];
  memcpy(bad, args, sizeof bad);
  bad[2] = TLC_I32(128);
  EXPECT(rt, tlc_launch(k, 1, 1, 1, NULL, bad, 9), TLC_ERR_ARGS,
         "parameter 2 ('c') is i8 but argument 2 is i32 128, which does not fit");
  memcpy(bad, args, sizeof bad);
  bad[3] = TLC_U64(65536);
  EXPECT(rt, tlc_launch(k, 1, 1, 1, NULL, bad, 9), TLC_ERR_ARGS, "('d') is u16 but argument 3 is u64 65536");
  memcpy(bad, args, sizeof bad);
  bad[1] = TLC_I64(5);
  EXPECT(rt, tlc_launch(k, 1, 1, 1, NULL, bad, 9), TLC_ERR_ARGS, "('b') is u64 but argument 1 is i64");
  memcpy(bad, args, sizeof bad);
  bad[8] = TLC_F32(1.0f);
  EXPECT(rt, tlc_launch(k, 1, 1, 1, NULL, bad, 9), TLC_ERR_ARGS, "('i') is fp64 but argument 8 is fp32");
  memcpy(bad, args, sizeof bad);
  bad[6] = TLC_F64(1.0);
  EXPECT(rt, tlc_launch(k, 1, 1, 1, NULL, bad, 9), TLC_ERR_ARGS, "('g') is fp16 but argument 6 is fp64");

  tlc_kernel *k2 = NULL;
  static const tlc_param_desc typo[] = {{"x", "f32"}};
  EXPECT(rt, tlc_kernel_from_ptx(rt, kPtx, "add_one", 4, 0, typo, 1, &k2), TLC_ERR_INVALID,
         "parameter 0 ('x') has unknown type 'f32'");
  EXPECT(rt, tlc_kernel_from_ptx(rt, kPtx, "add_one", 0, 0, kAddParams, 2, &k2), TLC_ERR_INVALID,
         "num_warps 0 is outside 1..32");
}

/* ---- tensor descriptors ------------------------------------------------------------------ */

static const char kDescPtx[] =
    ".version 7.8\n.target sm_80\n.address_size 64\n\n"
    ".visible .entry desc_k(.param .u64 a, .param .u32 b, .param .u32 c, .param .u64 d, .param .u32 n)\n"
    "{\n\tret;\n}\n";

static void test_tensor_desc(tlc_runtime *rt) {
  int64_t shape[2] = {100, 64}, strides[2] = {64, 1};
  int32_t block[2] = {32, 64};
  char dt[] = "fp16"; /* out->dtype must not point at the caller's string */
  tlc_tensor_desc d;
  OK(rt, tlc_tensor_desc_make(rt, 0x1000, dt, 2, shape, strides, block, &d));
  dt[0] = 'x';
  CHECK(!strcmp(d.dtype, "fp16"));
  CHECK(d.base == 0x1000 && d.rank == 2 && d.shape[0] == 100 && d.shape[1] == 64 && d.strides[0] == 64 &&
        d.strides[1] == 1 && d.block_shape[0] == 32 && d.block_shape[1] == 64 && d.shape[2] == 0);

  char sig[64];
  CHECK(tlc_tensor_desc_signature(&d, sig, sizeof sig) == 23);
  CHECK(!strcmp(sig, "tensordesc<fp16[32,64]>"), "signature '%s'", sig);
  char small[8];
  CHECK(tlc_tensor_desc_signature(&d, small, sizeof small) == 23);
  CHECK(!strcmp(small, "tensord"));
  CHECK(tlc_tensor_desc_signature(NULL, sig, sizeof sig) == -1);
  tlc_tensor_desc odd = d;
  odd.dtype = "bool";
  CHECK(tlc_tensor_desc_signature(&odd, sig, sizeof sig) == -1);

  /* every rule, each with its message; a failed make leaves *out zeroed */
  tlc_tensor_desc z;
  EXPECT(rt, tlc_tensor_desc_make(rt, 0x1008, "fp16", 2, shape, strides, block, &z), TLC_ERR_INVALID,
         "tlc_tensor_desc_make: base 0x1008 is not 16-byte aligned");
  CHECK(z.rank == 0 && z.dtype == NULL);
  EXPECT(rt, tlc_tensor_desc_make(rt, 0x1000, "f16", 2, shape, strides, block, &z), TLC_ERR_INVALID,
         "unknown element type 'f16'");
  EXPECT(rt, tlc_tensor_desc_make(rt, 0x1000, NULL, 2, shape, strides, block, &z), TLC_ERR_INVALID,
         "unknown element type '(null)'");
  EXPECT(rt, tlc_tensor_desc_make(rt, 0x1000, "fp16", 0, shape, strides, block, &z), TLC_ERR_INVALID,
         "rank 0 is outside 1..5");
  EXPECT(rt, tlc_tensor_desc_make(rt, 0x1000, "fp16", 6, shape, strides, block, &z), TLC_ERR_INVALID,
         "rank 6 is outside 1..5");
  static const struct {
    int64_t shape[2], strides[2];
    int32_t block[2];
    const char *msg;
  } bad[] = {
      {{0, 64}, {64, 1}, {32, 64}, "shape[0] is 0; extents must be from 1 to 2^31-1"},
      {{100, 1ll << 31}, {64, 1}, {32, 64}, "shape[1] is 2147483648"},
      {{100, 64}, {64, 2}, {32, 64}, "the last stride is 2; it must be 1"},
      {{100, 64}, {36, 1}, {32, 64},
       "strides[0] is 36 elements of 2 bytes; strides must be positive multiples of 16 bytes"},
      {{100, 64}, {-64, 1}, {32, 64}, "strides[0] is -64 elements"},
      {{100, 64}, {64, 1}, {3, 64}, "block_shape[0] is 3; block dims must be powers of two from 1 to 256"},
      {{100, 64}, {64, 1}, {32, 512}, "block_shape[1] is 512"},
      {{100, 64}, {64, 1}, {32, 4}, "the innermost block dim spans 8 bytes; it must span at least 16"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    EXPECT(rt, tlc_tensor_desc_make(rt, 0x1000, "fp16", 2, bad[i].shape, bad[i].strides, bad[i].block, &z),
           TLC_ERR_INVALID, bad[i].msg);
  OK(rt, tlc_tensor_desc_make(rt, 0x1000, "fp8e4nv", 2, shape, strides, (int32_t[]){32, 16}, &z));
  EXPECT(rt, tlc_tensor_desc_make(rt, 0x1000, "fp16", 2, NULL, strides, block, &z), TLC_ERR_INVALID,
         "tlc_tensor_desc_make: NULL shape");
  EXPECT(rt, tlc_tensor_desc_make(rt, 0x1000, "fp16", 2, shape, strides, block, NULL), TLC_ERR_INVALID,
         "NULL result pointer");
  CHECK(tlc_tensor_desc_make(NULL, 0x1000, "fp16", 2, shape, strides, block, &z) == TLC_ERR_INVALID);

  /* a kernel compiled with a tensordesc<fp16[32, 64]> parameter 'a' and an i32 'n' */
  static const tlc_param_desc params[] = {{"a.base", "ptr"}, {"a.shape0", "i32"}, {"a.shape1", "i32"},
                                          {"a.stride0", "i64"}, {"n", "i32"}};
  tlc_kernel *k = NULL;
  OK(rt, tlc_kernel_from_ptx(rt, kDescPtx, "desc_k", 4, 0, params, 5, &k));
  if (!k) return;
  tlc_arg args[] = {TLC_DESC(&d), TLC_I32(7)};
  OK(rt, tlc_launch(k, 1, 1, 1, NULL, args, 2));
  int32_t v;
  int64_t w;
  CHECK(slot_u64(0) == 0x1000);
  memcpy(&v, fake->params[1], 4);
  CHECK(v == 100);
  memcpy(&v, fake->params[2], 4);
  CHECK(v == 64);
  memcpy(&w, fake->params[3], 8);
  CHECK(w == 64);
  memcpy(&v, fake->params[4], 4);
  CHECK(v == 7);
  /* the parts one by one */
  tlc_arg parts[] = {TLC_PTR(0x2000), TLC_I64(5), TLC_I32(6), TLC_I64(128), TLC_I32(8)};
  OK(rt, tlc_launch(k, 1, 1, 1, NULL, parts, 5));
  CHECK(slot_u64(0) == 0x2000 && slot_u64(3) == 128);

  EXPECT(rt, tlc_launch(k, 1, 1, 1, NULL, args, 1), TLC_ERR_ARGS,
         "kernel 'desc_k' takes 2 arguments (a: tensor descriptor of rank 2, n: i32) but 1 was given");
  EXPECT(rt, tlc_launch(k, 1, 1, 1, NULL, parts, 4), TLC_ERR_ARGS, "takes 2 arguments");
  tlc_arg scalar[] = {TLC_I32(1), TLC_I32(7)};
  EXPECT(rt, tlc_launch(k, 1, 1, 1, NULL, scalar, 2), TLC_ERR_ARGS,
         "kernel 'desc_k' parameter 'a' is a tensor descriptor of rank 2 but argument 0 is i32; pass a "
         "tlc_tensor_desc with TLC_DESC");
  tlc_arg two[] = {TLC_DESC(&d), TLC_DESC(&d)};
  EXPECT(rt, tlc_launch(k, 1, 1, 1, NULL, two, 2), TLC_ERR_ARGS,
         "kernel 'desc_k' parameter 4 ('n') is i32 but argument 1 is a tensor descriptor");
  tlc_tensor_desc d3;
  OK(rt, tlc_tensor_desc_make(rt, 0x1000, "fp32", 3, (int64_t[]){2, 3, 4}, (int64_t[]){64, 4, 1},
                              (int32_t[]){1, 2, 4}, &d3));
  args[0] = TLC_DESC(&d3);
  EXPECT(rt, tlc_launch(k, 1, 1, 1, NULL, args, 2), TLC_ERR_ARGS,
         "kernel 'desc_k' argument 0 is a tensor descriptor of rank 3 but parameter 'a' is one of rank 2");
  tlc_tensor_desc hand = d;
  hand.base = 0x1001;
  args[0] = TLC_DESC(&hand);
  EXPECT(rt, tlc_launch(k, 1, 1, 1, NULL, args, 2), TLC_ERR_ARGS,
         "kernel 'desc_k' argument 0 ('a'): base 0x1001 is not 16-byte aligned");
  args[0] = TLC_DESC(NULL);
  EXPECT(rt, tlc_launch(k, 1, 1, 1, NULL, args, 2), TLC_ERR_ARGS, "argument 0 ('a') is TLC_DESC(NULL)");
  /* packing errors name the caller's argument, not the expanded parameter */
  tlc_arg after[] = {TLC_DESC(&d), TLC_F32(1)};
  EXPECT(rt, tlc_launch(k, 1, 1, 1, NULL, after, 2), TLC_ERR_ARGS,
         "kernel 'desc_k' parameter 4 ('n') is i32 but argument 1 is fp32");

  /* a descriptor where a kernel has none */
  tlc_kernel *plain = NULL;
  OK(rt, tlc_kernel_from_ptx(rt, kPtx, "add_one", 4, 0, kAddParams, 2, &plain));
  tlc_arg wrong[] = {TLC_DESC(&d), TLC_I32(1)};
  if (plain)
    EXPECT(rt, tlc_launch(plain, 1, 1, 1, NULL, wrong, 2), TLC_ERR_ARGS,
           "kernel 'add_one' parameter 0 ('x') is ptr but argument 0 is a tensor descriptor");
}

static void test_load(tlc_runtime *rt) {
  /* Rejected PTX: driver error, JIT log, and a saved repro. */
  char bad[sizeof kPtx + 32];
  snprintf(bad, sizeof bad, "%s// SYNTAX_ERROR\n", kPtx);
  tlc_kernel *k = NULL;
  EXPECT(rt, tlc_kernel_from_ptx(rt, bad, "add_one", 4, 0, kAddParams, 2, &k), TLC_ERR_LOAD,
         "kernel 'add_one': the CUDA driver rejected its PTX: cuLinkAddData: "
         "CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed)\n"
         "JIT error log:\nptxas application ptx input, line 7; error   : Unknown symbol "
         "'SYNTAX_ERROR'\nptxas fatal   : Ptx assembly aborted due to errors\n");
  const char *msg = tlc_runtime_error(rt);
  const char *cmd = strstr(msg, "reproduce with: ptxas -arch=sm_80 ");
  CHECK(cmd != NULL);
  CHECK(k == NULL);
  if (cmd) {
    const char *path = cmd + strlen("reproduce with: ptxas -arch=sm_80 ");
    CHECK(!strncmp(path, g_cache_dir, strlen(g_cache_dir))); /* beside the cache */
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (f) {
      char text[sizeof bad];
      size_t n = fread(text, 1, sizeof text - 1, f);
      text[n] = 0;
      fclose(f);
      CHECK(!strcmp(text, bad));
    }
  }

  EXPECT(rt, tlc_kernel_from_ptx(rt, kPtx, "nope", 4, 0, NULL, 0, &k), TLC_ERR_LOAD,
         "kernel 'nope': the PTX has no .entry 'nope': CUDA_ERROR_NOT_FOUND");

  /* Shared memory: the opt-in attribute above 48 KiB, a clear error above the device's maximum. */
  OK(rt, tlc_kernel_from_ptx(rt, kPtx, "add_one", 4, 100000, kAddParams, 2, &k));
  CHECK(fake->dynamic_smem_attr == 100000);
  tlc_arg args[] = {TLC_PTR(0x7000), TLC_I32(1)};
  if (k) OK(rt, tlc_launch(k, 1, 1, 1, NULL, args, 2));
  CHECK(fake->shared_bytes == 100000);
  EXPECT(rt, tlc_kernel_from_ptx(rt, kPtx, "add_one", 4, 300000, kAddParams, 2, &k), TLC_ERR_LAUNCH,
         "kernel 'add_one' needs 300000 bytes of shared memory per program (300000 dynamic + 0 "
         "static) but Fake GPU (tlc test driver) allows at most 232448 per block");
  fake->static_shared = 40000; /* static + dynamic over 48 KiB: opt-in too */
  fake->dynamic_smem_attr = -1;
  OK(rt, tlc_kernel_from_ptx(rt, kPtx, "add_one", 4, 10000, kAddParams, 2, &k));
  CHECK(fake->dynamic_smem_attr == 10000);
  fake->static_shared = 0;

  /* Too many threads for the kernel's registers (168 x 512 > 64 Ki)... */
  fake->max_threads_per_function = 384;
  fake->num_regs = 168;
  EXPECT(rt, tlc_kernel_from_ptx(rt, kPtx, "add_one", 16, 0, kAddParams, 2, &k), TLC_ERR_LAUNCH,
         "runs 512 threads per program (num_warps=16) but uses 168 registers per thread, so Fake "
         "GPU (tlc test driver) allows at most 384 threads per program");
  /* ... or for a .maxntid directive, with registers to spare. */
  fake->max_threads_per_function = 256;
  fake->num_regs = 40;
  EXPECT(rt, tlc_kernel_from_ptx(rt, kPtx, "add_one", 16, 0, kAddParams, 2, &k), TLC_ERR_LAUNCH,
         "runs 512 threads per program (num_warps=16) but its PTX allows at most 256 (a .maxntid");
  fake->max_threads_per_function = 1024;
  fake->num_regs = 0;
}

static void test_events(tlc_runtime *rt) {
  tlc_event *a = NULL, *b = NULL, *c = NULL;
  OK(rt, tlc_event_create(rt, &a));
  OK(rt, tlc_event_create(rt, &b));
  OK(rt, tlc_event_create(rt, &c)); /* left for close to destroy */
  float ms = 0;
  EXPECT(rt, tlc_event_elapsed_ms(a, b, &ms), TLC_ERR_CUDA, "cuEventElapsedTime");
  OK(rt, tlc_event_record(a, NULL));
  OK(rt, tlc_event_record(b, NULL));
  OK(rt, tlc_event_elapsed_ms(a, b, &ms));
  CHECK(ms == 1.25f);
  tlc_event_destroy(a);
  tlc_event_destroy(b);
  CHECK(fake->live_events == 1);
}

/* ---- timing a launch ------------------------------------------------------------------ */

/* A kernel that accumulates, as the fake runs none: the callback checks
 * what the trial promises before each launch (acc zero, x as the caller
 * left it), then scribbles on both. */
typedef struct BenchJob {
  tlc_kernel *k;
  tlc_devptr acc, x, flush; /* flush: 0, or the buffer the trial memsets before each launch */
  int launches, bad_acc, bad_x, bad_flush;
  tlc_status fail_at_3;
} BenchJob;

static tlc_status bench_cb(void *user, tlc_stream stream) {
  BenchJob *j = user;
  unsigned char *acc = (unsigned char *)(uintptr_t)j->acc, *x = (unsigned char *)(uintptr_t)j->x;
  for (int i = 0; i < 64; i++) j->bad_acc += acc[i] != 0, j->bad_x += x[i] != (unsigned char)i;
  acc[5] += 3, x[7] = 0xEE;
  if (j->flush) { /* launch r (from 0) comes after the memset of its buffer to r, its last word too */
    const uint32_t *f = (const uint32_t *)(uintptr_t)j->flush;
    j->bad_flush += f[0] != (uint32_t)j->launches || f[255] != (uint32_t)j->launches;
  }
  if (++j->launches == 3 && j->fail_at_3) return j->fail_at_3;
  return tlc_launch(j->k, 1, 1, 1, stream, (tlc_arg[]){TLC_PTR(j->x), TLC_I32(64)}, 2);
}

static void test_bench(tlc_runtime *rt) {
  tlc_kernel *k = NULL;
  OK(rt, tlc_kernel_from_ptx(rt, kPtx, "add_one", 2, 0, kAddParams, 2, &k));
  BenchJob j = {.k = k};
  OK(rt, tlc_malloc(rt, 64, &j.acc));
  OK(rt, tlc_malloc(rt, 64, &j.x));
  unsigned char init[64];
  for (int i = 0; i < 64; i++) init[i] = (unsigned char)i;
  OK(rt, tlc_memcpy_htod(rt, j.x, init, 64));
  OK(rt, tlc_memset_d8(rt, j.acc, 0x55, 64));
  tlc_devptr zero = j.acc + 8, restore = j.x + 60; /* inside their allocations: the whole one is meant */
  OK(rt, tlc_malloc(rt, 1024, &j.flush));
  tlc_bench_options o = {.warmup = 2, .reps = 5, .zero = &zero, .nzero = 1, .restore = &restore, .nrestore = 1,
                         .flush = j.flush, .flush_bytes = 1024};
  fake->ms_by_warps[2] = 0.5f;
  float ms = 0;
  int launches = fake->launches;
  OK(rt, tlc_bench_launch(rt, bench_cb, &j, NULL, &o, &ms));
  CHECK(ms == 0.5f, "median %g, want the fake's 0.5 ms for 2 warps", (double)ms);
  CHECK(j.launches == 7 && fake->launches == launches + 7, "%d launches, want 2 + 5", j.launches);
  CHECK(j.bad_acc == 0 && j.bad_x == 0, "before a launch: %d bytes of acc not zero, %d of x not restored",
        j.bad_acc, j.bad_x);
  CHECK(j.bad_flush == 0, "%d launches did not follow the memset of the flush buffer", j.bad_flush);
  tlc_devptr flush = j.flush;
  j.flush = 0;
  unsigned char back[64];
  OK(rt, tlc_memcpy_dtoh(rt, back, j.acc, 64));
  CHECK(back[5] == 0 && back[0] == 0, "acc is not zero after the trial");
  OK(rt, tlc_memcpy_dtoh(rt, back, j.x, 64));
  CHECK(!memcmp(back, init, 64), "x is not restored after the trial");
  /* defaults: NULL options are one warm-up and 7 timed launches */
  j.launches = 0;
  OK(rt, tlc_bench_launch(rt, bench_cb, &j, NULL, NULL, &ms));
  CHECK(j.launches == 8, "%d launches with NULL options, want 8", j.launches);
  /* a failing launch: its status, the memory still put back */
  OK(rt, tlc_memcpy_htod(rt, j.x, init, 64)); /* (the run without restore left x scribbled on) */
  j.launches = 0, j.fail_at_3 = TLC_ERR_LAUNCH;
  EXPECT(rt, tlc_bench_launch(rt, bench_cb, &j, NULL, &o, &ms), TLC_ERR_LAUNCH, "");
  CHECK(ms == -1 && j.launches == 3, "ms %g after %d launches", (double)ms, j.launches);
  OK(rt, tlc_memcpy_dtoh(rt, back, j.x, 64));
  CHECK(!memcmp(back, init, 64), "x is not restored after a failed trial");
  j.fail_at_3 = TLC_OK;
  /* refusals */
  tlc_devptr stray = 0x1000;
  o.zero = &stray;
  EXPECT(rt, tlc_bench_launch(rt, bench_cb, &j, NULL, &o, &ms), TLC_ERR_INVALID,
         "zero[0] (0x1000) is not inside memory that tlc_malloc of this runtime gave");
  o = (tlc_bench_options){.reps = 1001};
  EXPECT(rt, tlc_bench_launch(rt, bench_cb, &j, NULL, &o, &ms), TLC_ERR_INVALID, "reps 1001 (1 to 1000");
  o = (tlc_bench_options){.flush = j.acc, .flush_bytes = 2};
  EXPECT(rt, tlc_bench_launch(rt, bench_cb, &j, NULL, &o, &ms), TLC_ERR_INVALID, "flush buffer of under 4 bytes");
  o = (tlc_bench_options){.flush = j.acc + 8, .flush_bytes = 64}; /* past the end of its 64 bytes */
  EXPECT(rt, tlc_bench_launch(rt, bench_cb, &j, NULL, &o, &ms), TLC_ERR_INVALID, "flush buffer (0x");
  o = (tlc_bench_options){.nrestore = 1};
  EXPECT(rt, tlc_bench_launch(rt, bench_cb, &j, NULL, &o, &ms), TLC_ERR_INVALID, "restore (1) count without");
  EXPECT(rt, tlc_bench_launch(rt, NULL, &j, NULL, NULL, &ms), TLC_ERR_INVALID, "NULL launch callback");
  fake->ms_by_warps[2] = 0;
  OK(rt, tlc_free(rt, flush));
  OK(rt, tlc_free(rt, j.acc));
  OK(rt, tlc_free(rt, j.x));
  OK(rt, tlc_kernel_unload(k));
}

/* ---- threads ------------------------------------------------------------------------- */

typedef struct {
  tlc_runtime *rt;
  tlc_kernel *k;
  tlc_status st;
} ThreadJob;

static void *thread_main(void *arg) {
  /* A fresh thread has no current context; the runtime must set it. */
  ThreadJob *j = arg;
  tlc_devptr d = 0;
  j->st = tlc_malloc(j->rt, 16, &d);
  tlc_arg args[] = {TLC_PTR(d), TLC_I32(4)};
  if (j->st == TLC_OK) j->st = tlc_launch(j->k, 1, 1, 1, NULL, args, 2);
  if (j->st == TLC_OK) j->st = tlc_synchronize(j->rt);
  if (j->st == TLC_OK) j->st = tlc_free(j->rt, d);
  return NULL;
}

static void test_threads(tlc_runtime *rt) {
  tlc_kernel *k = NULL;
  OK(rt, tlc_kernel_from_ptx(rt, kPtx, "add_one", 4, 0, kAddParams, 2, &k));
  ThreadJob job = {rt, k, TLC_ERR_INVALID};
  pthread_t t;
  CHECK(pthread_create(&t, NULL, thread_main, &job) == 0);
  pthread_join(t, NULL);
  CHECK(job.st == TLC_OK);
  CHECK(fake->calls_without_context == 0);
}

/* ---- the JIT layer ---------------------------------------------------------------------- */

static const char kAddSource[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
    "    pid = tl.program_id(0)\n"
    "    offs = pid * BLOCK + tl.arange(0, BLOCK)\n"
    "    mask = offs < n\n"
    "    x = tl.load(x_ptr + offs, mask=mask)\n"
    "    y = tl.load(y_ptr + offs, mask=mask)\n"
    "    tl.store(out_ptr + offs, x + y, mask=mask)\n";

static const char kAddPtx[] =
    ".version 8.0\n.target sm_90a\n.address_size 64\n\n"
    ".visible .entry add_kernel(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 d)\n"
    "{\n\tret;\n}\n";

/* An entry holding kAddPtx under `key`, answering `request`. */
static void seed_entry(RtKey key, const char *request) {
  RtKernelMeta m = {0};
  m.symbol = rt_strdup("add_kernel");
  m.num_warps = 4;
  m.shared_bytes = 0;
  m.nparams = 4;
  m.params = calloc(5, sizeof *m.params);
  const char *names[] = {"x_ptr", "y_ptr", "out_ptr", "n"};
  for (int i = 0; i < 4; i++)
    m.params[i] = (RtParam){rt_strdup(names[i]), i < 3 ? TLC_PARAM_PTR : TLC_PARAM_I32};
  m.ptx = rt_strdup(kAddPtx);
  CHECK(rt_cache_write(g_cache_dir, key, request, &m) == 0);
  rt_meta_free(&m);
}

static void test_jit(void) {
  tlc_runtime *rt = open_fake(9, 0);
  tlc_kernel *k = NULL;

  /* Compile errors come back as the compiler's located diagnostics. */
  EXPECT(rt, tlc_kernel_from_source(rt, "@triton.jit\ndef k(x):\n    y = x +* 2\n", "bad.tile", "k",
                                    "i32", NULL, &k),
         TLC_ERR_COMPILE, "error");
  if (!strstr(tlc_runtime_error(rt), "not written yet")) /* until the parser lands */
    CHECK(strstr(tlc_runtime_error(rt), "bad.tile:3:") != NULL);
  CHECK(k == NULL);
  EXPECT(rt, tlc_kernel_from_file(rt, "/nonexistent/dir/k.tile", "k", "i32", NULL, &k), TLC_ERR_IO,
         "cannot read '/nonexistent/dir/k.tile': No such file or directory");
  EXPECT(rt, tlc_kernel_from_file(rt, "/", "k", "i32", NULL, &k), TLC_ERR_IO, "cannot read '/'");
  const char *bad_ce[] = {"BLOCK"};
  tlc_kernel_options o = {.constexprs = bad_ce, .nconstexprs = 1};
  EXPECT(rt, tlc_kernel_from_source(rt, kAddSource, "add.tile", "add_kernel", "*fp32", &o, &k),
         TLC_ERR_INVALID, "constexpr 0 ('BLOCK') is not of the form NAME=VALUE");

  tlc_kernel_options warps = {.num_warps = 6};
  EXPECT(rt, tlc_kernel_from_source(rt, kAddSource, "add.tile", "add_kernel", "*fp32", &warps, &k),
         TLC_ERR_INVALID, "num_warps must be a power of two from 1 to 32, not 6");
  warps.num_warps = 64;
  EXPECT(rt, tlc_kernel_from_source(rt, kAddSource, "add.tile", "add_kernel", "*fp32", &warps, &k),
         TLC_ERR_INVALID, "num_warps must be a power of two from 1 to 32, not 64");

  /* Seed the disk cache for a request, then ask for it: no compile. */
  const char *ce[] = {"BLOCK=1024"};
  tlc_kernel_options opt = {.num_warps = 4, .constexprs = ce, .nconstexprs = 1};
  const char *sig = "*fp32:16,*fp32:16,*fp32:16,i32";
  RtKey key = {0};
  char *request = NULL;
  OK(rt, rt_jit_key(rt, kAddSource, "add_kernel", sig, &opt, &key, &request));
  CHECK(request && strstr(request, "\ncompiler-library tlc "), "the request names the compiler library");
  /* Defaults are part of the key as values: 0 warps means 4, no arch means the device's. */
  RtKey key2 = {0};
  tlc_kernel_options opt2 = {.num_warps = 0, .arch = "sm_90a", .constexprs = ce, .nconstexprs = 1};
  OK(rt, rt_jit_key(rt, kAddSource, "add_kernel", sig, &opt2, &key2, NULL));
  CHECK(rt_key_eq(key, key2));
  opt2.num_warps = 8;
  OK(rt, rt_jit_key(rt, kAddSource, "add_kernel", sig, &opt2, &key2, NULL));
  CHECK(!rt_key_eq(key, key2));
  /* TLC_MATH_LIB picks the math library, part of the key: auto (the default:
   * libdevice where the machine has one, else libclc), libdevice, libclc; a
   * bad value is refused */
  setenv("TLC_MATH_LIB", "auto", 1);
  OK(rt, rt_jit_key(rt, kAddSource, "add_kernel", sig, &opt, &key2, NULL));
  CHECK(rt_key_eq(key, key2), "TLC_MATH_LIB=auto is the default");
  RtKey clc = {0}, auto_named = {0};
  setenv("TLC_MATH_LIB", "libclc", 1);
  OK(rt, rt_jit_key(rt, kAddSource, "add_kernel", sig, &opt, &clc, NULL));
  setenv("TLC_MATH_LIB", "libdevice", 1);
  setenv("TLC_LIBDEVICE", "/nonexistent/tlc-test/libdevice.10.bc", 1);
  OK(rt, rt_jit_key(rt, kAddSource, "add_kernel", sig, &opt, &key2, NULL));
  CHECK(!rt_key_eq(clc, key2), "TLC_MATH_LIB=libdevice kept libclc's key");
  setenv("TLC_MATH_LIB", "auto", 1); /* a file named: auto is libdevice */
  OK(rt, rt_jit_key(rt, kAddSource, "add_kernel", sig, &opt, &auto_named, NULL));
  CHECK(rt_key_eq(auto_named, key2), "auto with $TLC_LIBDEVICE is not libdevice");
  setenv("TLC_MATH_LIB", "cuda", 1);
  EXPECT(rt, rt_jit_key(rt, kAddSource, "add_kernel", sig, &opt, &key2, NULL), TLC_ERR_INVALID,
         "TLC_MATH_LIB=cuda: expected auto (the default), libdevice or libclc");
  /* libdevice not there: the compile fails saying where it looked, under
   * auto too (a file the user named is never passed over for libclc) */
  setenv("TLC_MATH_LIB", "libdevice", 1);
  EXPECT(rt, tlc_kernel_from_source(rt, kAddSource, "add.tile", "add_kernel", sig, &opt, &k), TLC_ERR_COMPILE,
         "the libdevice file '/nonexistent/tlc-test/libdevice.10.bc' ($TLC_LIBDEVICE) cannot be used: no such file");
  setenv("TLC_MATH_LIB", "auto", 1);
  EXPECT(rt, tlc_kernel_from_source(rt, kAddSource, "add.tile", "add_kernel", sig, &opt, &k), TLC_ERR_COMPILE,
         "the libdevice file '/nonexistent/tlc-test/libdevice.10.bc' ($TLC_LIBDEVICE) cannot be used: no such file");
  unsetenv("TLC_MATH_LIB");
  unsetenv("TLC_LIBDEVICE");

  seed_entry(key, request);
  int loads = fake->modules_loaded;
  OK(rt, tlc_kernel_from_source(rt, kAddSource, "add.tile", "add_kernel", sig, &opt, &k));
  CHECK(k != NULL);
  CHECK(fake->modules_loaded == loads + 1);
  if (k) {
    CHECK(tlc_kernel_compile_ms(k) == 0.0);
    CHECK(!strcmp(tlc_kernel_ptx(k), kAddPtx));
    CHECK(tlc_kernel_num_params(k) == 4);
    tlc_arg bad[] = {TLC_PTR(1), TLC_PTR(2), TLC_PTR(3), TLC_F32(4)};
    EXPECT(rt, tlc_launch(k, 1, 1, 1, NULL, bad, 4), TLC_ERR_ARGS,
           "kernel 'add_kernel' parameter 3 ('n') is i32 but argument 3 is fp32");
  }
  /* The same request again: the same handle, from memory. */
  tlc_kernel *again = NULL;
  OK(rt, tlc_kernel_from_source(rt, kAddSource, "other/path.tile", "add_kernel", sig, &opt, &again));
  CHECK(again == k);
  CHECK(fake->modules_loaded == loads + 1);
  char path[600];
  snprintf(path, sizeof path, "%s/add.tile", g_cache_dir);
  FILE *f = fopen(path, "w");
  if (f) {
    fputs(kAddSource, f);
    fclose(f);
  }
  OK(rt, tlc_kernel_from_file(rt, path, "add_kernel", sig, &opt, &again));
  CHECK(again == k);
  tlc_runtime_close(rt);

  /* A new runtime, a corrupted entry: it must not be loaded. */
  char *entry = rt_cache_entry_path(g_cache_dir, key);
  f = fopen(entry, "r+b");
  CHECK(f != NULL);
  if (f) {
    fseek(f, -3, SEEK_END);
    fputc('#', f);
    fclose(f);
  }
  rt = open_fake(9, 0);
  loads = fake->modules_loaded;
  k = NULL;
  tlc_status st = tlc_kernel_from_source(rt, kAddSource, "add.tile", "add_kernel", sig, &opt, &k);
  if (st == TLC_OK) {
    /* The compiler is complete: it recompiled and rewrote the entry. */
    CHECK(tlc_kernel_compile_ms(k) > 0.0);
    CHECK(strcmp(tlc_kernel_ptx(k), kAddPtx) != 0);
    RtKernelMeta m;
    CHECK(rt_cache_read(g_cache_dir, key, request, &m, NULL) == 0);
    if (m.ptx) CHECK(!strcmp(m.ptx, tlc_kernel_ptx(k)));
    rt_meta_free(&m);
  } else {
    /* The compiler cannot produce PTX yet: still never the corrupt entry. */
    CHECK(st == TLC_ERR_COMPILE);
    CHECK(fake->modules_loaded == loads);
    printf("note: recompilation after corruption failed (compiler incomplete?): %s\n",
           tlc_runtime_error(rt));
  }
  free(entry);
  tlc_runtime_close(rt);

  /* A forced key collision: an entry under this request's key that answers
   * another request (the same kernel with 8 warps) is never loaded for it;
   * the kernel is compiled and the entry rewritten for this request. */
  rt = open_fake(9, 0);
  char *other = NULL;
  tlc_kernel_options opt8 = opt;
  opt8.num_warps = 8;
  OK(rt, rt_jit_key(rt, kAddSource, "add_kernel", sig, &opt8, &key2, &other));
  CHECK(other && request && strcmp(other, request) != 0);
  seed_entry(key, other ? other : "");
  RtKernelMeta probe;
  const char *why = NULL;
  CHECK(rt_cache_read(g_cache_dir, key, request, &probe, &why) != 0);
  CHECK(why && !strcmp(why, "request mismatch"));
  loads = fake->modules_loaded;
  k = NULL;
  st = tlc_kernel_from_source(rt, kAddSource, "add.tile", "add_kernel", sig, &opt, &k);
  if (st == TLC_OK) {
    CHECK(strcmp(tlc_kernel_ptx(k), kAddPtx) != 0, "the other request's PTX was loaded");
    CHECK(rt_cache_read(g_cache_dir, key, request, &probe, NULL) == 0, "the entry was not rewritten");
    if (probe.ptx) CHECK(!strcmp(probe.ptx, tlc_kernel_ptx(k)));
    rt_meta_free(&probe);
  } else {
    CHECK(st == TLC_ERR_COMPILE);
    CHECK(fake->modules_loaded == loads);
  }
  tlc_runtime_close(rt);
  free(other);

  /* TLC_CACHE_DIR=off: nothing is read from or written to disk. */
  setenv("TLC_CACHE_DIR", "off", 1);
  rt = open_fake(9, 0);
  seed_entry(key, request);
  k = NULL;
  loads = fake->modules_loaded;
  st = tlc_kernel_from_source(rt, kAddSource, "add.tile", "add_kernel", sig, &opt, &k);
  CHECK(st == TLC_OK || st == TLC_ERR_COMPILE);
  if (k) CHECK(strcmp(tlc_kernel_ptx(k), kAddPtx) != 0); /* not the seeded entry */
  tlc_runtime_close(rt);
  setenv("TLC_CACHE_DIR", g_cache_dir, 1);
  free(request);
}

/* A new runtime (as a new process) loads the kernel: the driver's PTX JITs
 * and cubin loads it took must be the ones given. */
static void load_counting(const char *src, const char *sig, const tlc_kernel_options *opt, int jits, int cubins,
                          const char *what) {
  tlc_runtime *rt = open_fake(9, 0);
  int j0 = fake->ptx_jits, c0 = fake->cubins_loaded;
  tlc_kernel *k = NULL;
  OK(rt, tlc_kernel_from_source(rt, src, "add.tile", "add_kernel", sig, opt, &k));
  CHECK(fake->ptx_jits == j0 + jits && fake->cubins_loaded == c0 + cubins, "%s", what);
  tlc_runtime_close(rt);
}

/* The disk entry's cubin made to say it came from another device or driver. */
static void set_entry_cubin(RtKey key, const char *request, int capability, int driver) {
  RtKernelMeta m;
  CHECK(rt_cache_read(g_cache_dir, key, request, &m, NULL) == 0);
  m.cubin_capability = capability, m.cubin_driver = driver;
  CHECK(rt_cache_write(g_cache_dir, key, request, &m) == 0);
  rt_meta_free(&m);
}

/* The machine-code cache: the first load links the PTX (the driver's JIT)
 * and the entry keeps the cubin; a new runtime loads that cubin with no
 * JIT; a cubin another driver made, or one the driver refuses, is linked
 * again from the PTX and the entry rewritten. */
static void test_cubin_cache(void) {
  const char *ce[] = {"BLOCK=512"};
  tlc_kernel_options opt = {.num_warps = 4, .constexprs = ce, .nconstexprs = 1};
  const char *sig = "*fp32:16,*fp32:16,*fp32:16,i32";
  tlc_runtime *rt = open_fake(9, 0);
  RtKey key = {0};
  char *request = NULL;
  OK(rt, rt_jit_key(rt, kAddSource, "add_kernel", sig, &opt, &key, &request));
  char *entry = rt_cache_entry_path(g_cache_dir, key);
  if (entry) unlink(entry);
  int jits = fake->ptx_jits, cubins = fake->cubins_loaded, links = fake->live_links;
  tlc_kernel *k = NULL;
  OK(rt, tlc_kernel_from_source(rt, kAddSource, "add.tile", "add_kernel", sig, &opt, &k));
  CHECK(fake->ptx_jits == jits + 1 && fake->cubins_loaded == cubins + 1, "the first load runs the JIT once");
  CHECK(fake->live_links == links, "the link session was not destroyed");
  RtKernelMeta m;
  CHECK(rt_cache_read(g_cache_dir, key, request, &m, NULL) == 0);
  CHECK(m.cubin && m.cubin_len > 13 && !memcmp(m.cubin, "FAKECUBIN sm_90\n", 16), "the entry has no cubin");
  CHECK(m.cubin_capability == 90 && m.cubin_driver == 13000);
  if (m.cubin && m.ptx) CHECK(!strcmp((const char *)m.cubin + 16, m.ptx), "the cubin is not the PTX's");
  rt_meta_free(&m);
  tlc_runtime_close(rt);

  /* a new runtime, as a new process: the cubin loads, no JIT */
  rt = open_fake(9, 0);
  jits = fake->ptx_jits, cubins = fake->cubins_loaded;
  OK(rt, tlc_kernel_from_source(rt, kAddSource, "add.tile", "add_kernel", sig, &opt, &k));
  CHECK(fake->ptx_jits == jits && fake->cubins_loaded == cubins + 1, "a warm start ran the JIT");
  CHECK(tlc_kernel_compile_ms(k) == 0.0);
  tlc_arg args[] = {TLC_PTR(16), TLC_PTR(32), TLC_PTR(48), TLC_I32(7)};
  OK(rt, tlc_launch(k, 2, 1, 1, NULL, args, 4));
  tlc_runtime_close(rt);

  /* an entry another driver wrote (the process's driver never changes: the
   * entry is made to say so): its cubin is not trusted, the PTX is linked
   * and the entry rewritten with this driver's, which the next start loads */
  set_entry_cubin(key, request, 90, 12080);
  load_counting(kAddSource, sig, &opt, 1, 1, "another driver's cubin was loaded");
  CHECK(rt_cache_read(g_cache_dir, key, request, &m, NULL) == 0);
  CHECK(m.cubin_driver == 13000, "the entry was not rewritten for this driver");
  rt_meta_free(&m);
  load_counting(kAddSource, sig, &opt, 0, 1, "the rewritten entry's cubin was not loaded");
  /* a cubin the driver refuses: linked again from the PTX, still a kernel */
  fake->fail_cubin = 1; /* (the cached one; the new one loads) */
  load_counting(kAddSource, sig, &opt, 1, 1, "a refused cubin was not replaced by the PTX's");
  CHECK(fake->fail_cubin == 0);
  /* a cubin made for another capability (an entry carried to another GPU
   * with the same arch name cannot happen, but the record is checked) */
  set_entry_cubin(key, request, 80, 13000);
  load_counting(kAddSource, sig, &opt, 1, 1, "another capability's cubin was loaded");

  /* the ahead-of-time path links its PTX the same way */
  rt = open_fake(9, 0);
  jits = fake->ptx_jits;
  OK(rt, tlc_kernel_from_ptx(rt, kPtx, "add_one", 4, 0, kAddParams, 2, &k));
  CHECK(fake->ptx_jits == jits + 1 && k && k->meta.cubin && k->meta.cubin_capability == 90);
  tlc_runtime_close(rt);
  free(entry);
  free(request);
}

/* A kernel that moves registers between warp roles (setmaxnreg) is loaded
 * from its PTX (cuModuleLoadDataEx: the linker would drop setmaxnreg), no
 * cubin kept; a PTX the driver rejects that way is reported with the call,
 * the JIT's error log and a repro. */
static void test_setmaxnreg_load(void) {
  static const char ws[] = ".version 8.0\n.target sm_90a\n.address_size 64\n\n"
                           ".visible .entry ws(.param .u64 x, .param .u32 n)\n{\n"
                           "\tsetmaxnreg.inc.sync.aligned.u32 232;\n\tret;\n}\n";
  tlc_runtime *rt = open_fake(9, 0);
  int jits = fake->ptx_jits, loads = fake->ptx_loads, ex = fake->ptx_loads_ex, links = fake->live_links;
  tlc_kernel *k = NULL;
  OK(rt, tlc_kernel_from_ptx(rt, ws, "ws", 4, 0, kAddParams, 2, &k));
  CHECK(fake->ptx_jits == jits + 1 && fake->ptx_loads == loads + 1, "a setmaxnreg kernel went through the linker");
  CHECK(fake->ptx_loads_ex == ex + 1, "a setmaxnreg kernel was not loaded with cuModuleLoadDataEx and its logs");
  CHECK(fake->live_links == links);
  CHECK(k && !k->meta.cubin && !k->meta.cubin_len && !k->cubin_linked, "a cubin was kept for the disk cache");
  tlc_arg args[] = {TLC_PTR(16), TLC_I32(7)};
  OK(rt, tlc_launch(k, 2, 1, 1, NULL, args, 2));
  /* the plain kernel beside it still links (and keeps its cubin) */
  loads = fake->ptx_loads;
  OK(rt, tlc_kernel_from_ptx(rt, kPtx, "add_one", 4, 0, kAddParams, 2, &k));
  CHECK(fake->ptx_loads == loads && k->meta.cubin, "a kernel without setmaxnreg was not linked");
  static const char bad[] = ".version 8.6\n.target sm_100a\n.address_size 64\n\n" /* not this device's */
                            ".visible .entry ws(.param .u64 x, .param .u32 n)\n{\n"
                            "\tsetmaxnreg.inc.sync.aligned.u32 232;\n\tret;\n}\n";
  k = NULL;
  CHECK(tlc_kernel_from_ptx(rt, bad, "ws", 4, 0, kAddParams, 2, &k) == TLC_ERR_LOAD && !k);
  const char *msg = tlc_runtime_error(rt);
  CHECK(strstr(msg, "cuModuleLoadDataEx") && strstr(msg, "the fake device cannot run this .target") &&
            strstr(msg, "reproduce with: ptxas"),
        "%s", msg);
  tlc_runtime_close(rt);
}

/* A kernel whose loads became bulk tensor copies gets its tensor maps built
 * at launch from the arguments; a launch with the same arguments reuses the
 * last launch's maps (no driver call), other values build them again. */
static void test_tma_memo(void) {
  static const char src[] =
      "import triton\nimport triton.language as tl\n\n@triton.jit\n"
      "def mm(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,\n"
      "       BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):\n"
      "    pid_m = tl.program_id(0)\n"
      "    pid_n = tl.program_id(1)\n"
      "    rm = pid_m * BM + tl.arange(0, BM)\n"
      "    rn = pid_n * BN + tl.arange(0, BN)\n"
      "    rk = tl.arange(0, BK)\n"
      "    acc = tl.zeros((BM, BN), dtype=tl.float32)\n"
      "    for k in range(0, K, BK):\n"
      "        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk)[None, :])\n"
      "        b = tl.load(b_ptr + (k + rk)[:, None] * stride_bk + rn[None, :])\n"
      "        acc += tl.dot(a, b)\n"
      "    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(tl.float16))\n";
  tlc_runtime *rt = open_fake(9, 0);
  tlc_kernel *k = NULL;
  OK(rt, tlc_kernel_from_source(rt, src, "mm.tile", "mm",
                                "*fp16:16,*fp16:16,*fp16:16,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16,128,128,64",
                                NULL, &k));
  int nt = k ? k->meta.ntma : 0;
  CHECK(nt >= 2, "the loads did not become bulk tensor copies (%d maps)", nt);
  tlc_arg args[] = {TLC_PTR(0x10000), TLC_PTR(0x20000), TLC_PTR(0x30000), TLC_I32(256), TLC_I32(256),
                    TLC_I32(256),     TLC_I32(256),     TLC_I32(256),     TLC_I32(256)};
  int enc = fake->tensor_maps_encoded;
  OK(rt, tlc_launch(k, 2, 2, 1, NULL, args, 9));
  CHECK(fake->tensor_maps_encoded == enc + nt);
  unsigned char first[8][8];
  for (int j = 0; j < nt && j < 8; j++) memcpy(first[j], fake->params[9 + j], 8); /* each map's first word */
  OK(rt, tlc_launch(k, 2, 2, 1, NULL, args, 9));
  CHECK(fake->tensor_maps_encoded == enc + nt, "the same arguments encoded the maps again");
  for (int j = 0; j < nt && j < 7; j++)
    CHECK(!memcmp(first[j], fake->params[9 + j], 8), "map %d is not the one built before", j);
  args[1] = TLC_PTR(0x40000); /* another B: its map is built again (all of them, in one go) */
  OK(rt, tlc_launch(k, 2, 2, 1, NULL, args, 9));
  CHECK(fake->tensor_maps_encoded == enc + 2 * nt);
  bool saw_new_b = false;
  for (int j = 0; j < nt && j < 7; j++) saw_new_b |= slot_u64(9 + j) == 0x40000;
  CHECK(saw_new_b, "no map over the new B");
  args[6] = TLC_I32(512); /* another stride of A: its row pitch changed */
  OK(rt, tlc_launch(k, 2, 2, 1, NULL, args, 9));
  CHECK(fake->tensor_maps_encoded == enc + 3 * nt);
  args[0] = TLC_PTR(0x10008); /* a base the driver refuses (not 16-byte aligned): an error, no memo */
  EXPECT(rt, tlc_launch(k, 2, 2, 1, NULL, args, 9), TLC_ERR_ARGS, "cannot be built");
  args[0] = TLC_PTR(0x10000);
  int before = fake->tensor_maps_encoded;
  OK(rt, tlc_launch(k, 2, 2, 1, NULL, args, 9));
  CHECK(fake->tensor_maps_encoded == before + nt, "a failed build was remembered");
  tlc_runtime_close(rt);
}

/* A kernel compiled at run time with a tensordesc<...> signature entry: the
 * compiler reports the descriptor's hidden parameters by name, so the
 * launcher expands TLC_DESC into them. */
static void test_jit_desc(void) {
  static const char src[] =
      "import triton\nimport triton.language as tl\n\n@triton.jit\n"
      "def scale(x_desc, y_desc, s):\n"
      "    off = tl.program_id(0) * x_desc.block_shape[0]\n"
      "    y_desc.store([off, 0], x_desc.load([off, 0]) * s)\n";
  tlc_runtime *rt = open_fake(9, 0);
  int64_t shape[2] = {100, 64}, strides[2] = {64, 1};
  int32_t block[2] = {16, 64};
  tlc_tensor_desc x, y;
  OK(rt, tlc_tensor_desc_make(rt, 0x1000, "fp32", 2, shape, strides, block, &x));
  OK(rt, tlc_tensor_desc_make(rt, 0x9000, "fp32", 2, shape, strides, block, &y));
  char sig[160], e[48];
  CHECK(tlc_tensor_desc_signature(&x, e, sizeof e) > 0);
  snprintf(sig, sizeof sig, "%s,%s,fp32", e, e);
  tlc_kernel *k = NULL;
  OK(rt, tlc_kernel_from_source(rt, src, "scale.tile", "scale", sig, NULL, &k));
  if (k) {
    CHECK(tlc_kernel_num_params(k) == 9);
    tlc_arg args[] = {TLC_DESC(&x), TLC_DESC(&y), TLC_F32(2)};
    OK(rt, tlc_launch(k, 7, 1, 1, NULL, args, 3));
    CHECK(slot_u64(0) == 0x1000 && slot_u64(4) == 0x9000);
    int32_t n;
    memcpy(&n, fake->params[5], 4);
    CHECK(n == 100);
    EXPECT(rt, tlc_launch(k, 7, 1, 1, NULL, args, 2), TLC_ERR_ARGS,
           "kernel 'scale' takes 3 arguments (x_desc: tensor descriptor of rank 2, y_desc: tensor descriptor "
           "of rank 2, s: fp32) but 2 were given");
  }
  tlc_runtime_close(rt);
}

/* tlc_kernel_autotune with descriptor arguments: the trials launch with the
 * caller's TLC_DESC arguments, a key naming a descriptor hashes its parts,
 * and reset_to_zero naming one zeroes its base's allocation. */
/* ---- devices newer than tlc's newest arch ---------------------------------------------- */

/* Compute capability 10.x and 12.x (and 7.2, between two arches tlc knows)
 * get the newest arch below them that is not an 'a' one, with a note; every
 * arch the runtime picks is one the compiler accepts; a kernel compiled on
 * such a device loads (the fake driver enforces PTX's forward-compatibility
 * rule); PTX for sm_90a is refused there with a hint. */
static void test_newer_devices(void) {
  static const struct { int major, minor; const char *arch; bool note; } cases[] = {
      {7, 0, "sm_70", false}, {7, 2, "sm_70", true},   {7, 5, "sm_75", false},
      {8, 0, "sm_80", false}, {8, 6, "sm_86", false},  {8, 7, "sm_87", false},
      {8, 9, "sm_89", false}, {9, 0, "sm_90a", false}, {10, 0, "sm_90", true},
      {10, 3, "sm_90", true}, {11, 0, "sm_90", true},  {12, 0, "sm_90", true},
      {12, 1, "sm_90", true},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    tlc_runtime *rt = open_fake(cases[i].major, cases[i].minor);
    const char *arch = tlc_device_arch(rt), *note = tlc_device_arch_note(rt);
    if (strcmp(arch, cases[i].arch) || (*note != 0) != cases[i].note)
      fprintf(stderr, "capability %d.%d: arch '%s', note '%s'\n", cases[i].major, cases[i].minor,
              arch, note);
    CHECK(!strcmp(arch, cases[i].arch));
    CHECK((*note != 0) == cases[i].note);
    if (cases[i].note) {
      char cap[16];
      snprintf(cap, sizeof cap, "%d.%d", cases[i].major, cases[i].minor);
      CHECK_CONTAINS(note, cap);
      CHECK_CONTAINS(note, arch);
    }
    char why[256];
    tlc_compile_options co;
    tlc_compile_options_init(&co);
    co.arch = arch;
    CHECK(tlc_compile_options_check(&co, why, sizeof why) == 0);
    tlc_runtime_close(rt);
  }

  /* A kernel compiled from source on 10.0 and 12.0: sm_90 PTX, loaded. */
  setenv("TLC_CACHE_DIR", "off", 1);
  for (int major = 10; major <= 12; major += 2) {
    tlc_runtime *rt = open_fake(major, 0);
    tlc_kernel *k = NULL;
    int loads = fake->modules_loaded;
    const char *ce[] = {"BLOCK=1024"};
    tlc_kernel_options opt = {.constexprs = ce, .nconstexprs = 1};
    OK(rt, tlc_kernel_from_source(rt, kAddSource, "add.tile", "add_kernel",
                                  "*fp32:16,*fp32:16,*fp32:16,i32", &opt, &k));
    CHECK(fake->modules_loaded == loads + 1);
    if (k) CHECK_CONTAINS(tlc_kernel_ptx(k), ".target sm_90\n");
    /* Asking for the device's own Blackwell arch says what to do instead. */
    opt.arch = major == 10 ? "sm_100a" : "sm_120";
    EXPECT(rt, tlc_kernel_from_source(rt, kAddSource, "add.tile", "add_kernel",
                                      "*fp32:16,*fp32:16,*fp32:16,i32", &opt, &k),
           TLC_ERR_INVALID, "is newer than tlc can compile for");
    CHECK_CONTAINS(tlc_runtime_error(rt), "compile for sm_90,");
    static const tlc_param_desc params[] = {{"a", "ptr"}, {"b", "ptr"}, {"c", "ptr"}, {"d", "i32"}};
    /* PTX for sm_90a is not forward compatible: the driver refuses it. */
    EXPECT(rt, tlc_kernel_from_ptx(rt, kAddPtx, "add_kernel", 4, 0, params, 4, &k), TLC_ERR_LOAD,
           "PTX for sm_90a runs only on compute capability 9.0, and this device is");
    CHECK_CONTAINS(tlc_runtime_error(rt), "compile it for sm_90\n");
    tlc_runtime_close(rt);
  }
  setenv("TLC_CACHE_DIR", g_cache_dir, 1);
  fake->cc_major = 9;
  fake->cc_minor = 0;
}

static void autotune_grid(const tlc_kernel *k, void *user, unsigned grid[3]) {
  (void)k, (void)user;
  grid[0] = 2, grid[1] = grid[2] = 1;
}

/* Write a kernel source to path (a failure is a failed check). */
static bool write_source(const char *path, const char *src) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL, "cannot write %s", path);
  if (!f) return false;
  fputs(src, f);
  fclose(f);
  return true;
}

static void test_autotune_desc(void) {
  static const char src[] =
      "import triton\nimport triton.language as tl\n\n"
      "@triton.autotune(configs=[triton.Config({}, num_warps=1), triton.Config({}, num_warps=2)],\n"
      "                 key=['x_desc'], reset_to_zero=['y_desc'])\n"
      "@triton.jit\n"
      "def scale(x_desc, y_desc, s):\n"
      "    off = tl.program_id(0) * 16\n"
      "    y_desc.store([off, 0], x_desc.load([off, 0]) * s)\n";
  char path[600];
  snprintf(path, sizeof path, "%s/../tune_desc.tile", g_cache_dir);
  if (!write_source(path, src)) return;
  tlc_runtime *rt = open_fake(9, 0);
  tlc_devptr xp = 0, yp = 0;
  OK(rt, tlc_malloc(rt, 32 * 64 * 4, &xp));
  OK(rt, tlc_malloc(rt, 32 * 64 * 4, &yp));
  OK(rt, tlc_memset_d8(rt, yp, 0xab, 32 * 64 * 4));
  int64_t shape[2] = {32, 64}, strides[2] = {64, 1};
  int32_t block[2] = {16, 64};
  tlc_tensor_desc x, y;
  OK(rt, tlc_tensor_desc_make(rt, xp, "fp32", 2, shape, strides, block, &x));
  OK(rt, tlc_tensor_desc_make(rt, yp, "fp32", 2, shape, strides, block, &y));
  char sig[160], e[48];
  CHECK(tlc_tensor_desc_signature(&x, e, sizeof e) > 0);
  snprintf(sig, sizeof sig, "%s,%s,fp32", e, e);
  tlc_arg args[] = {TLC_DESC(&x), TLC_DESC(&y), TLC_F32(2)};
  tlc_kernel *k = NULL, *again = NULL, *other = NULL;
  int launches = fake->launches;
  OK(rt, tlc_kernel_autotune(rt, path, "scale", sig, NULL, autotune_grid, NULL, args, 3, &k));
  CHECK(k != NULL && tlc_kernel_tuned_config(k) >= 0);
  CHECK(fake->launches > launches); /* the trials launched with the TLC_DESC arguments */
  unsigned char byte = 0xff;
  OK(rt, tlc_memcpy_dtoh(rt, &byte, yp + 100, 1));
  CHECK(byte == 0, "reset_to_zero 'y_desc' left 0x%02x", byte);
  /* the same key values: the remembered choice; another x shape: another key */
  launches = fake->launches;
  OK(rt, tlc_kernel_autotune(rt, path, "scale", sig, NULL, autotune_grid, NULL, args, 3, &again));
  CHECK(again == k && fake->launches == launches);
  x.shape[0] = 31;
  OK(rt, tlc_kernel_autotune(rt, path, "scale", sig, NULL, autotune_grid, NULL, args, 3, &other));
  CHECK(fake->launches > launches);
  EXPECT(rt, tlc_kernel_autotune(rt, path, "scale", sig, NULL, autotune_grid, NULL, args, 2, &other),
         TLC_ERR_ARGS, "autotune: kernel 'scale' takes 3 arguments but 2 were given");
  tlc_runtime_close(rt);
  remove(path);
}

/* The configs compile on several threads (TLC_COMPILE_THREADS): with 4
 * threads every config is compiled and loaded once, as with 1, each to the
 * same PTX, and the trials make the same choice (the fake times a launch by
 * its warps: 8 warps is the fastest here). */
static void test_autotune_threads(void) {
  static const char src[] =
      "import triton\nimport triton.language as tl\n\n"
      "@triton.autotune(configs=[triton.Config({'BLOCK': 128}, num_warps=1),\n"
      "                          triton.Config({'BLOCK': 256}, num_warps=2),\n"
      "                          triton.Config({'BLOCK': 512}, num_warps=4),\n"
      "                          triton.Config({'BLOCK': 1024}, num_warps=8),\n"
      "                          triton.Config({'BLOCK': 2048}, num_warps=8, num_stages=2)], key=['n'])\n"
      "@triton.jit\n"
      "def twice(x_ptr, n, BLOCK: tl.constexpr):\n"
      "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
      "    x = tl.load(x_ptr + offs, mask=offs < n)\n"
      "    tl.store(x_ptr + offs, x * 2.0, mask=offs < n)\n";
  char path[600];
  snprintf(path, sizeof path, "%s/../tune_threads.tile", g_cache_dir);
  if (!write_source(path, src)) return;
  char *ptx[2][5] = {{NULL}};
  int chosen[2] = {-1, -1};
  for (int pass = 0; pass < 2; pass++) {
    setenv("TLC_COMPILE_THREADS", pass ? "4" : "1", 1);
    setenv("TLC_CACHE_DIR", "off", 1); /* every config compiled, JIT-linked and loaded */
    for (int i = 0; i < 5; i++) fake->ms_by_warps[1 << (i < 4 ? i : 3)] = 1.0f - 0.1f * (float)(i < 4 ? i : 3);
    tlc_runtime *rt = open_fake(9, 0);
    tlc_devptr xp = 0;
    OK(rt, tlc_malloc(rt, 4096 * 4, &xp));
    tlc_arg args[] = {TLC_PTR(xp), TLC_I32(3000)};
    int jits = fake->ptx_jits, live = fake->live_modules, noctx = fake->calls_without_context;
    tlc_kernel *k = NULL;
    OK(rt, tlc_kernel_autotune(rt, path, "twice", "*fp32:16,i32", NULL, autotune_grid, NULL, args, 2, &k));
    CHECK(fake->ptx_jits == jits + 5, "pass %d: %d configs linked, not 5", pass, fake->ptx_jits - jits);
    CHECK(fake->live_modules == live + 5);
    CHECK(fake->calls_without_context == noctx, "a compile thread called the driver with no context");
    chosen[pass] = k ? tlc_kernel_tuned_config(k) : -1;
    for (int i = 0; i < 5; i++) { /* each config's kernel, from the memory cache */
      const char *cx[1];
      char b[32];
      snprintf(b, sizeof b, "BLOCK=%d", 128 << i);
      cx[0] = b;
      tlc_kernel_options o = {.num_warps = i < 4 ? 1 << i : 8, .num_stages = i == 4 ? 2 : 0, .constexprs = cx,
                              .nconstexprs = 1};
      tlc_kernel *ki = NULL;
      int before = fake->ptx_jits;
      OK(rt, tlc_kernel_from_source(rt, src, path, "twice", "*fp32:16,i32", &o, &ki));
      CHECK(fake->ptx_jits == before, "config %d was not among the compiled ones", i);
      ptx[pass][i] = ki ? rt_strdup(tlc_kernel_ptx(ki)) : NULL;
    }
    tlc_runtime_close(rt);
  }
  CHECK(chosen[0] == 3 && chosen[1] == 3, "the choices: %d with one thread, %d with four", chosen[0], chosen[1]);
  for (int i = 0; i < 5; i++) {
    CHECK(ptx[0][i] && ptx[1][i] && !strcmp(ptx[0][i], ptx[1][i]), "config %d's PTX differs", i);
    free(ptx[0][i]), free(ptx[1][i]);
  }
  memset(fake->ms_by_warps, 0, sizeof fake->ms_by_warps);
  unsetenv("TLC_COMPILE_THREADS");
  setenv("TLC_CACHE_DIR", g_cache_dir, 1);
  remove(path);
}

/* prune_configs_by at run time: early_config_prune sees the launch's scalar
 * argument n and keeps the configs with num_warps <= n // 100, so only
 * those are compiled and timed (8 launches each: a warm-up and 7 timed). */
static void test_autotune_prune(void) {
  static const char src[] =
      "import triton\nimport triton.language as tl\n\n"
      "def keep_small(configs, named_args, **kwargs):\n"
      "    return [c for c in configs if c.num_warps <= named_args['n'] // 100]\n\n"
      "@triton.autotune(configs=[triton.Config({}, num_warps=w) for w in [1, 2, 4, 8]], key=['n'],\n"
      "                 prune_configs_by={'early_config_prune': keep_small})\n"
      "@triton.jit\n"
      "def fill(x_ptr, n):\n"
      "    offs = tl.arange(0, 128)\n"
      "    tl.store(x_ptr + offs, 1.0, mask=offs < n)\n";
  char path[600];
  snprintf(path, sizeof path, "%s/../tune_prune.tile", g_cache_dir);
  if (!write_source(path, src)) return;
  tlc_runtime *rt = open_fake(9, 0);
  tlc_devptr xp = 0;
  OK(rt, tlc_malloc(rt, 1024 * 4, &xp));
  tlc_arg args[] = {TLC_PTR(xp), TLC_I32(250)};
  tlc_kernel *k = NULL;
  int launches = fake->launches;
  OK(rt, tlc_kernel_autotune(rt, path, "fill", "*fp32:16,i32", NULL, autotune_grid, NULL, args, 2, &k));
  CHECK(k != NULL && tlc_kernel_tuned_config(k) >= 0 && tlc_kernel_tuned_config(k) <= 1,
        "the choice %d is a pruned config", tlc_kernel_tuned_config(k));
  /* per config two rounds of 1 + 7 launches (autotune.c's trials) */
  CHECK(fake->launches - launches == 2 * 2 * 8, "%d launches: pruning kept %d configs, not 2",
        fake->launches - launches, (fake->launches - launches) / 16);
  tlc_runtime_close(rt);
  remove(path);
}

int main(void) {
  char root[] = "/tmp/tlc-test-fake-XXXXXX";
  if (!mkdtemp(root)) {
    perror("mkdtemp");
    return 1;
  }
  snprintf(g_cache_dir, sizeof g_cache_dir, "%s/cache", root);
  setenv("TLC_CACHE_DIR", g_cache_dir, 1);
  setenv("TLC_CUDA_DRIVER", TLC_FAKE_CUDA, 1);

  void *lib = dlopen(TLC_FAKE_CUDA, RTLD_NOW | RTLD_LOCAL);
  fake_cuda_state_fn get = lib ? (fake_cuda_state_fn)dlsym(lib, "fake_cuda_state") : NULL;
  if (!get) {
    fprintf(stderr, "cannot load the fake driver %s: %s\n", TLC_FAKE_CUDA, dlerror());
    return 1;
  }
  fake = get();

  test_open();
  tlc_runtime *rt = open_fake(9, 0);
  if (rt) {
    test_memory(rt);
    test_launch(rt);
    test_param_kinds(rt);
    test_tensor_desc(rt);
    test_load(rt);
    test_events(rt);
    test_bench(rt);
    test_threads(rt);
    tlc_devptr leak = 0;
    OK(rt, tlc_malloc(rt, 100, &leak)); /* left for close to free */
    tlc_runtime_close(rt);
  }
  /* close released every module, event, allocation and the context */
  CHECK(fake->live_modules == 0);
  CHECK(fake->live_events == 0);
  CHECK(fake->live_allocs == 0);
  CHECK(fake->primary_refs == 0);

  test_jit();
  test_jit_desc();
  test_cubin_cache();
  test_setmaxnreg_load();
  test_tma_memo();
  test_autotune_threads();
  test_newer_devices();
  test_autotune_desc();
  test_autotune_prune();
  CHECK(fake->live_modules == 0);
  CHECK(fake->primary_refs == 0);
  CHECK(fake->calls_without_context == 0);

  dlclose(lib);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  if (system(cmd) != 0) fprintf(stderr, "warning: could not remove %s\n", root);
  return test_summary("test_runtime_fake");
}
