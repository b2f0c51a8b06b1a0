/* lang_semantics — Triton semantics tlc honours, on the GPU against CPU
 * references (lang_semantics.tile), through the examples' harness:
 *   cast_rounding  fp_downcast_rounding "rtz" and "rtne": f32 -> f16, f32 ->
 *                  bf16, f64 -> f32, bit-exact (rtz truncates; an rtz
 *                  overflow gives the largest finite value)
 *   nan_minmax     tl.PropagateNan.ALL / .NONE in maximum, minimum, clamp
 *   fp8_arith      arithmetic on fp8 e4m3: each operation rounds to fp8
 *                  (saturating), bit-exact; needs sm_89 or newer
 *   heur_rowsum    @triton.heuristics: the block and the masking computed
 *                  from N (left out of the signature)
 *   printer        tl.device_print: the lines vprintf writes to stdout
 *   checked        tl.device_assert: nothing without debug mode; with it a
 *                  false element stops the kernel (run in a child process,
 *                  since the fault leaves the context unusable)
 * Exit 77 (skipped) without a GPU. */
#include "examples/common/host.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char TILE[] = "../tests/gpu/lang_semantics.tile";
enum { BLOCK = 256 };

/* ---- references ---------------------------------------------------------------- */

/* f32 -> f16 rounding toward zero, as a double (exact in f16) */
static double f16_rtz(float f) {
  if (isnan(f) || isinf(f)) return f;
  double a = fabs((double)f);
  if (a >= 65504) return copysign(65504, f);
  int e;
  (void)frexp(a, &e);
  int ex = e - 1 < -14 ? -14 : e - 1; /* subnormals share 2^-14's quantum */
  double q = ldexp(1.0, ex - 10);
  return copysign(floor(a / q) * q, f);
}

/* f32 -> bf16 rounding toward zero: the top 16 bits */
static double bf16_rtz(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  u &= 0xffff0000u;
  float r;
  memcpy(&r, &u, 4);
  return r;
}

/* f64 -> f32 rounding toward zero */
static double f32_rtz(double d) {
  float r = (float)d;
  if (isinf(r) && !isinf(d)) return copysign(FLT_MAX, d);
  if (fabs((double)r) > fabs(d)) r = nextafterf(r, 0.0f);
  return r;
}

/* magnitudes from 2^-26 to 2^17 (subnormal f16 to past its largest), both signs */
static double wide_value(ExRng *r) {
  double m = ex_rng_uniform(r, 1, 2), e = floor(ex_rng_uniform(r, -26, 18));
  return (ex_rng_next(r) & 1 ? -1 : 1) * ldexp(m, (int)e);
}

/* ---- cases ----------------------------------------------------------------------- */

static void cast_case(Ex *ex, bool from64, const char *dst, bool rtz, int64_t n) {
  size_t in_bytes = (size_t)n * (from64 ? 8 : 4);
  void *x = ex_xmalloc(in_bytes);
  double *ref = ex_xmalloc((size_t)n * sizeof(double));
  bool bf = !strcmp(dst, "bfloat16");
  ExElem elem = from64 ? EX_F32 : bf ? EX_BF16 : EX_F16;
  for (int64_t i = 0; i < n; i++) {
    double v = wide_value(&ex->rng);
    if (from64) {
      ((double *)x)[i] = v * (1 + ldexp(ex_rng_uniform(&ex->rng, 0, 1), -30)); /* bits below f32's */
      ref[i] = rtz ? f32_rtz(((double *)x)[i]) : (double)(float)((double *)x)[i];
    } else {
      float f = (float)v;
      ((float *)x)[i] = f;
      /* rtne: the exact check rounds the reference to the output type itself,
       * except past fp16's range: from 65520 (halfway to 2^16) on, IEEE
       * round-to-nearest-even gives infinity */
      ref[i] = rtz ? (bf ? bf16_rtz(f) : f16_rtz(f)) : f;
      if (!rtz && !bf && fabsf(f) >= 65520.0f) ref[i] = copysign(INFINITY, f);
    }
  }
  tlc_devptr dx = ex_alloc(ex, in_bytes);
  ex_upload(ex, dx, x, in_bytes);
  ExOut o = ex_out_alloc(ex, (size_t)n * ex_elem_size(elem));
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, from64 ? "fp64" : "fp32", dx);
  ex_sig_ptr(&sig, from64 ? "fp32" : bf ? "bf16" : "fp16", o.p);
  ex_sig_int(&sig, n);
  char dt[32], size[64], label[64];
  snprintf(dt, sizeof dt, "tl.%s", dst);
  ex_sig_const(&sig, dt);
  ex_sig_const(&sig, rtz ? "True" : "False");
  ex_sig_const_int(&sig, BLOCK);
  snprintf(size, sizeof size, "%lld", (long long)n);
  snprintf(label, sizeof label, "cast_%s_%s_%s", from64 ? "f64" : "f32", dst, rtz ? "rtz" : "rtne");
  ExCase c = {
      .label = label, .size = size, .tile = TILE, .kernel = "cast_rounding", .sig = &sig,
      .grid = {(unsigned)ex_cdiv(n, BLOCK), 1, 1}, .out = o.p, .out_elems = (size_t)n, .elem = elem,
      .ref = ref, .exact = true, .bytes = (double)in_bytes + (double)n * (double)ex_elem_size(elem),
  };
  ex_run_case(ex, &c, &o);
  ex_out_free(ex, &o), ex_free(ex, dx), free(x), free(ref);
}

static double nan_or(double v) { return isnan(v) ? 1000 : v; }

static void nan_case(Ex *ex, int64_t n) {
  float *x = ex_xmalloc((size_t)n * 4), *y = ex_xmalloc((size_t)n * 4);
  double *ref = ex_xmalloc((size_t)n * 4 * sizeof(double));
  for (int64_t i = 0; i < n; i++) {
    x[i] = ex_rng_uniform(&ex->rng, 0, 1) < 0.2 ? NAN : (float)ex_rng_uniform(&ex->rng, -1, 1);
    y[i] = ex_rng_uniform(&ex->rng, 0, 1) < 0.2 ? NAN : (float)ex_rng_uniform(&ex->rng, -1, 1);
    bool any = isnan(x[i]) || isnan(y[i]);
    ref[4 * i + 0] = any ? 1000 : fmaxf(x[i], y[i]);
    ref[4 * i + 1] = any ? 1000 : fminf(x[i], y[i]);
    ref[4 * i + 2] = nan_or(fmaxf(x[i], y[i])); /* fmax: the other operand */
    ref[4 * i + 3] = any ? 1000 : fminf(fmaxf(x[i], -0.5f), y[i]);
  }
  tlc_devptr dx = ex_alloc(ex, (size_t)n * 4), dy = ex_alloc(ex, (size_t)n * 4);
  ex_upload(ex, dx, x, (size_t)n * 4);
  ex_upload(ex, dy, y, (size_t)n * 4);
  ExOut o = ex_out_alloc(ex, (size_t)n * 16);
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, "fp32", dx);
  ex_sig_ptr(&sig, "fp32", dy);
  ex_sig_ptr(&sig, "fp32", o.p);
  ex_sig_int(&sig, n);
  ex_sig_const_int(&sig, BLOCK);
  char size[32];
  snprintf(size, sizeof size, "%lld", (long long)n);
  ExCase c = {
      .label = "nan_minmax", .size = size, .tile = TILE, .kernel = "nan_minmax", .sig = &sig,
      .grid = {(unsigned)ex_cdiv(n, BLOCK), 1, 1}, .out = o.p, .out_elems = (size_t)n * 4, .elem = EX_F32,
      .ref = ref, .exact = true, .bytes = (double)n * 24,
  };
  ex_run_case(ex, &c, &o);
  ex_out_free(ex, &o), ex_free(ex, dx), ex_free(ex, dy), free(x), free(y), free(ref);
}

static float f8(float v) { return ex_f8_to_f32(ex_f32_to_f8(v, false), false); }

static void fp8_case(Ex *ex, int64_t n) {
  double *xv = ex_xmalloc((size_t)n * sizeof(double)), *yv = ex_xmalloc((size_t)n * sizeof(double));
  double *ref = ex_xmalloc((size_t)n * sizeof(double));
  tlc_devptr dx = ex_upload_random(ex, EX_F8E4M3, (size_t)n, -150, 150, xv);
  tlc_devptr dy = ex_upload_random(ex, EX_F8E4M3, (size_t)n, -20, 20, yv);
  for (int64_t i = 0; i < n; i++) {
    float r = f8(f8((float)xv[i] * 4.0f) + (float)yv[i]);
    if (r > 64.0f) r = 448.0f;
    ref[i] = fmaxf(r, -fabsf((float)yv[i]));
  }
  ExOut o = ex_out_alloc(ex, (size_t)n);
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, "fp8e4nv", dx);
  ex_sig_ptr(&sig, "fp8e4nv", dy);
  ex_sig_ptr(&sig, "fp8e4nv", o.p);
  ex_sig_int(&sig, n);
  ex_sig_const_int(&sig, BLOCK);
  char size[32];
  snprintf(size, sizeof size, "%lld", (long long)n);
  ExCase c = {
      .label = "fp8_arith", .size = size, .tile = TILE, .kernel = "fp8_arith", .sig = &sig,
      .grid = {(unsigned)ex_cdiv(n, BLOCK), 1, 1}, .out = o.p, .out_elems = (size_t)n, .elem = EX_F8E4M3,
      .ref = ref, .exact = true, .bytes = (double)n * 3,
  };
  ex_run_case(ex, &c, &o);
  ex_out_free(ex, &o), ex_free(ex, dx), ex_free(ex, dy), free(xv), free(yv), free(ref);
}

static void heur_case(Ex *ex, int rows, int n) {
  size_t cnt = (size_t)rows * n;
  float *x = ex_xmalloc(cnt * 4);
  double *ref = ex_xmalloc((size_t)rows * sizeof(double));
  ex_fill_f32(&ex->rng, x, cnt, -1, 1);
  for (int r = 0; r < rows; r++) {
    double acc = 0;
    for (int i = 0; i < n; i++) acc += x[(size_t)r * n + i];
    ref[r] = acc;
  }
  tlc_devptr dx = ex_alloc(ex, cnt * 4);
  ex_upload(ex, dx, x, cnt * 4);
  ExOut o = ex_out_alloc(ex, (size_t)rows * 4);
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, "fp32", dx);
  ex_sig_ptr(&sig, "fp32", o.p);
  ex_sig_const_int(&sig, n); /* BLOCK_N and EVEN_N: the heuristics */
  char size[32];
  snprintf(size, sizeof size, "%dx%d", rows, n);
  ExCase c = {
      .label = "heur_rowsum", .size = size, .tile = TILE, .kernel = "heur_rowsum", .sig = &sig,
      .grid = {(unsigned)rows, 1, 1}, .out = o.p, .out_elems = (size_t)rows, .elem = EX_F32,
      .ref = ref, .tol = 1e-5, .bytes = (double)cnt * 4,
  };
  ex_run_case(ex, &c, &o);
  ex_out_free(ex, &o), ex_free(ex, dx), free(x), free(ref);
}

/* tl.device_print: the kernel's stdout, captured in a file around one launch */
static void print_case(Ex *ex) {
  const float x[4] = {0.5f, -1.25f, 3.0f, 10.0f};
  tlc_devptr dx = ex_alloc(ex, sizeof x);
  ex_upload(ex, dx, x, sizeof x);
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, "fp32", dx);
  ex_sig_arg(&sig, "i32", TLC_I32(255));
  tlc_kernel *k;
  if (ex_kernel(ex, TILE, "printer", sig.text, NULL, &k) != TLC_OK) {
    ex_result_error(ex, "device_print", "4");
    ex->nfail++;
    return;
  }
  char path[] = "/tmp/tlc_print_XXXXXX";
  int fd = mkstemp(path);
  fflush(stdout);
  int saved = dup(1);
  dup2(fd, 1);
  ex_ok(ex, tlc_launch(k, 1, 1, 1, NULL, sig.args, sig.nargs), "tlc_launch (printer)");
  ex_ok(ex, tlc_synchronize(ex->rt), "tlc_synchronize (printer)");
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  char text[4096] = {0};
  lseek(fd, 0, SEEK_SET);
  ssize_t got = read(fd, text, sizeof text - 1);
  close(fd);
  unlink(path);
  static const char *const want[] = {
      "pid (0, 0, 0) idx (0) x= 0.500000\n", "pid (0, 0, 0) idx (1) x= -1.250000\n",
      "pid (0, 0, 0) idx (2) x= 3.000000\n", "pid (0, 0, 0) idx (3) x= 10.000000\n",
      "pid (0, 0, 0) n 0x000000ff\n",        "pid (0, 0, 0) hello\n"};
  int missing = 0;
  for (size_t i = 0; i < sizeof want / sizeof *want; i++)
    if (got <= 0 || !strstr(text, want[i])) {
      printf("DETAIL device_print: missing line: %s", want[i]);
      missing++;
    }
  printf("RESULT kernel=device_print size=4 lines_missing=%d status=%s seed=%llu\n", missing,
         missing ? "FAIL" : "PASS", (unsigned long long)ex->seed);
  if (missing) {
    printf("DETAIL device_print output:\n%s", got > 0 ? text : "(nothing)\n");
    ex->nfail++;
  } else {
    ex->npass++;
  }
  ex_free(ex, dx);
}

/* The kernel `checked` on values above 0.5: with debug on it must fault,
 * without it run and copy.  Returns the process exit status to report. */
static int assert_child(int argc, char **argv, bool debug) {
  Ex ex;
  ex_open(&ex, argc, argv, "gpu_lang_semantics (assert child)");
  enum { N = 1000 };
  float x[N];
  for (int i = 0; i < N; i++) x[i] = i == 777 ? 0.75f : 0.25f;
  tlc_devptr dx = ex_alloc(&ex, sizeof x), dy = ex_alloc(&ex, sizeof x);
  ex_upload(&ex, dx, x, sizeof x);
  ExSig sig;
  ex_sig_init(&sig);
  ex_sig_ptr(&sig, "fp32", dx);
  ex_sig_ptr(&sig, "fp32", dy);
  ex_sig_int(&sig, N);
  ex_sig_const_int(&sig, BLOCK);
  tlc_kernel_options opt = {.debug = debug};
  tlc_kernel *k;
  if (ex_kernel(&ex, TILE, "checked", sig.text, &opt, &k) != TLC_OK) return 1;
  if (tlc_launch(k, (unsigned)ex_cdiv(N, BLOCK), 1, 1, NULL, sig.args, sig.nargs) != TLC_OK) return 1;
  tlc_status st = tlc_synchronize(ex.rt);
  printf("assert child (debug %s): tlc_synchronize: %s\n", debug ? "on" : "off", tlc_status_name(st));
  if (debug) return st == TLC_ERR_CUDA ? 0 : 1; /* the assertion stopped the kernel */
  if (st != TLC_OK) return 1;
  float y[N];
  ex_download(&ex, y, dy, sizeof y);
  return memcmp(x, y, sizeof y) ? 1 : 0;
}

static void assert_case(Ex *ex, const char *self, bool debug) {
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "'%s' --assert-child-%s --seed %llu 2>&1", self, debug ? "on" : "off",
           (unsigned long long)ex->seed);
  fflush(stdout);
  int rc = system(cmd);
  bool ok = rc == 0;
  printf("RESULT kernel=device_assert size=%s status=%s seed=%llu\n", debug ? "debug" : "nodebug",
         ok ? "PASS" : "FAIL", (unsigned long long)ex->seed);
  if (ok) ex->npass++;
  else ex->nfail++;
}

int main(int argc, char **argv) {
  if (argc > 1 && !strncmp(argv[1], "--assert-child-", 15)) {
    bool debug = !strcmp(argv[1] + 15, "on");
    argv[1] = argv[0];
    return assert_child(argc - 1, argv + 1, debug);
  }
  Ex ex;
  ex_open(&ex, argc, argv, "gpu_lang_semantics");
  static const char *const dsts[] = {"float16", "bfloat16"};
  for (int d = 0; d < 2; d++)
    for (int rtz = 0; rtz < 2; rtz++) cast_case(&ex, false, dsts[d], rtz, 100000);
  cast_case(&ex, true, "float32", true, 100000);
  cast_case(&ex, true, "float32", false, 4097);
  nan_case(&ex, 10001);
  if (tlc_device_capability(ex.rt) >= 89) fp8_case(&ex, 50000); /* fp8 conversions need sm_89 */
  heur_case(&ex, 300, 1000);
  heur_case(&ex, 64, 512);
  print_case(&ex);
  assert_case(&ex, argv[0], false);
  assert_case(&ex, argv[0], true);
  return ex_finish(&ex);
}
