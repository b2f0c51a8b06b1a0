/* test_codegen.c — codegen end to end: tile IR built by hand with layouts
 * assigned as the passes would, lowered with cg_compile for sm_90a and
 * sm_80; checks the PTX text for the instructions each lowering must use and
 * runs ptxas on every PTX when it is on the PATH (skipped otherwise).
 *
 * Usage: test_codegen [-v]   (-v prints the PTX of every case) */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codegen/codegen.h"
#include "tests/unit/test_util.h"

static int gpu_runs;
static bool verbose, have_ptxas, use_gpu;

/* ---- building IR ------------------------------------------------------------ */

typedef struct T {
  Arena arena;
  IrModule *m;
  IrFunc *f;
  IrContext *c;
  IrBuilder b;
} T;

static void t_init(T *t, const char *name, int num_warps) {
  arena_init(&t->arena);
  t->m = ir_module_new(&t->arena);
  t->m->num_warps = num_warps;
  t->c = t->m->ctx;
  t->f = ir_func_new(t->m, name, (Loc){0});
  irb_init(&t->b, t->m, t->f, t->f->body);
}

static void t_free(T *t) { arena_free(&t->arena); }

static const Type *sc(T *t, DType d) { return ty_scalar(t->c, d); }
static const Type *ptr(T *t, DType d) { return ty_ptr(t->c, sc(t, d)); }
static const Type *ten(T *t, DType d, int rank, const int64_t *shape, const Layout *l) {
  return ty_tensor(t->c, sc(t, d), rank, shape, l);
}
static const Type *tenp(T *t, DType d, int rank, const int64_t *shape, const Layout *l) {
  return ty_tensor(t->c, ptr(t, d), rank, shape, l);
}

static Value *arg(T *t, const char *name, const Type *ty) {
  return ir_func_add_arg(t->m, t->f, name, ty, ty_is_ptr(ty) ? 16 : 1);
}

static const Layout *blocked(T *t, int rank, const int *spt, const int *tpw, const int *wpc,
                             const int *order) {
  return lay_blocked(t->c, rank, spt, tpw, wpc, order);
}

static const Layout *blocked1(T *t, int spt, int tpw, int wpc) {
  int o = 0;
  return lay_blocked(t->c, 1, &spt, &tpw, &wpc, &o);
}

static Value *arange(T *t, int64_t n, const Layout *l) {
  Value *v = irb_arange(&t->b, 0, n);
  v->type = ty_with_layout(t->c, v->type, l);
  return v;
}

static Value *splat(T *t, Value *x, const Type *to) { return irb_splat(&t->b, x, to); }

static Value *ci(T *t, DType d, int64_t v) { return irb_const_int(&t->b, sc(t, d), v); }

static Value *addptr(T *t, Value *p, Value *off) {
  Value *ops[2] = {p, off};
  return irb_op(&t->b, OP_ADDPTR, ops, 2, p->type)->results[0];
}

static Value *load(T *t, Value *p, Value *mask, Value *other, int vec) {
  Value *ops[3] = {p, mask, other};
  const Type *rt = ty_with_elem(t->c, p->type, p->type->pointee);
  Op *op = irb_op(&t->b, OP_LOAD, ops, 3, rt);
  op->attr.vec = vec;
  return op->results[0];
}

static void store(T *t, Value *p, Value *v, Value *mask, int vec) {
  Value *ops[3] = {p, v, mask};
  Op *op = irb_op(&t->b, OP_STORE, ops, 3, NULL);
  op->attr.vec = vec;
}

static Value *reduce(T *t, Value *x, int axis, CombineKind k, const Type *rt) {
  Op *op = irb_op(&t->b, OP_REDUCE, &x, 1, rt);
  op->attr.axis = axis;
  op->attr.combine = k;
  return op->results[0];
}

static void ret(T *t) { irb_op(&t->b, OP_RETURN, NULL, 0, NULL); }

/* ---- the GPU (optional): the Driver API through dlopen -------------------------- */

typedef unsigned long long DevPtr;
static struct {
  bool ok;
  int major;
  int (*Init)(unsigned);
  int (*DeviceGet)(int *, int);
  int (*DeviceGetAttribute)(int *, int, int);
  int (*PrimaryCtxRetain)(void **, int);
  int (*CtxSetCurrent)(void *);
  int (*ModuleLoadDataEx)(void **, const void *, unsigned, int *, void **);
  int (*ModuleGetFunction)(void **, void *, const char *);
  int (*ModuleUnload)(void *);
  int (*MemAlloc)(DevPtr *, size_t);
  int (*MemFree)(DevPtr);
  int (*MemcpyHtoD)(DevPtr, const void *, size_t);
  int (*MemcpyDtoH)(void *, DevPtr, size_t);
  int (*LaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                      unsigned, void *, void **, void **);
  int (*CtxSynchronize)(void);
  int (*FuncSetAttribute)(void *, int, int);
  int (*GetErrorString)(int, const char **);
} cu;

static bool gpu_init(void) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (!lib) return false;
#define SYM(field, name) *(void **)&cu.field = dlsym(lib, name); if (!cu.field) return false
  SYM(Init, "cuInit"); SYM(DeviceGet, "cuDeviceGet");
  SYM(DeviceGetAttribute, "cuDeviceGetAttribute");
  SYM(PrimaryCtxRetain, "cuDevicePrimaryCtxRetain"); SYM(CtxSetCurrent, "cuCtxSetCurrent");
  SYM(ModuleLoadDataEx, "cuModuleLoadDataEx"); SYM(ModuleGetFunction, "cuModuleGetFunction");
  SYM(ModuleUnload, "cuModuleUnload"); SYM(MemAlloc, "cuMemAlloc_v2");
  SYM(MemFree, "cuMemFree_v2"); SYM(MemcpyHtoD, "cuMemcpyHtoD_v2");
  SYM(MemcpyDtoH, "cuMemcpyDtoH_v2"); SYM(LaunchKernel, "cuLaunchKernel");
  SYM(CtxSynchronize, "cuCtxSynchronize"); SYM(FuncSetAttribute, "cuFuncSetAttribute");
  SYM(GetErrorString, "cuGetErrorString");
#undef SYM
  int dev;
  void *ctx;
  if (cu.Init(0) || cu.DeviceGet(&dev, 0) || cu.PrimaryCtxRetain(&ctx, dev) || cu.CtxSetCurrent(ctx))
    return false;
  cu.DeviceGetAttribute(&cu.major, 75 /* COMPUTE_CAPABILITY_MAJOR */, dev);
  return true;
}

enum { GA_BUF, GA_I32, GA_I64, GA_F32 };
typedef struct GArg {
  int kind;
  void *host;      /* GA_BUF: copied in before and out after the launch */
  size_t bytes;
  int64_t i;
  float f;
} GArg;

static GArg gbuf(void *p, size_t bytes) { return (GArg){.kind = GA_BUF, .host = p, .bytes = bytes}; }
static GArg gi32(int32_t v) { return (GArg){.kind = GA_I32, .i = v}; }
static GArg gi64(int64_t v) { return (GArg){.kind = GA_I64, .i = v}; }

static bool cu_ok(int rc, const char *what, const char *name) {
  if (!rc) return true;
  const char *s = "?";
  cu.GetErrorString(rc, &s);
  printf("FAIL %s: %s: %s\n", name, what, s);
  failures++;
  return false;
}

/* Load `ptx`, run kernel `kernel` on grid x 1 x 1 with `threads` threads and
 * `smem` bytes of dynamic shared memory; buffers are copied both ways. */
static bool gpu_launch(const char *ptx, const char *kernel, const char *name, int grid,
                       int threads, int smem, GArg *args, int nargs) {
  char log[8192] = "";
  int opts[2] = {5 /* ERROR_LOG_BUFFER */, 6 /* ERROR_LOG_BUFFER_SIZE_BYTES */};
  void *vals[2] = {log, (void *)(uintptr_t)sizeof log};
  void *mod = NULL, *fn = NULL;
  if (!cu_ok(cu.ModuleLoadDataEx(&mod, ptx, 2, opts, vals), "cuModuleLoadDataEx", name)) {
    printf("%s\n", log);
    return false;
  }
  bool ok = cu_ok(cu.ModuleGetFunction(&fn, mod, kernel), "cuModuleGetFunction", name);
  if (ok && smem > 48 * 1024)
    ok = cu_ok(cu.FuncSetAttribute(fn, 8 /* MAX_DYNAMIC_SHARED_SIZE_BYTES */, smem), "smem", name);
  DevPtr dp[16] = {0};
  int64_t sv[16];
  float fv[16];
  void *params[16];
  for (int i = 0; ok && i < nargs; i++) {
    switch (args[i].kind) {
    case GA_BUF:
      ok = cu_ok(cu.MemAlloc(&dp[i], args[i].bytes), "cuMemAlloc", name) &&
           cu_ok(cu.MemcpyHtoD(dp[i], args[i].host, args[i].bytes), "cuMemcpyHtoD", name);
      params[i] = &dp[i];
      break;
    case GA_I32: {
      int32_t v = (int32_t)args[i].i;
      memcpy(&sv[i], &v, sizeof v);
      params[i] = &sv[i];
      break;
    }
    case GA_I64: sv[i] = args[i].i; params[i] = &sv[i]; break;
    case GA_F32: fv[i] = args[i].f; params[i] = &fv[i]; break;
    }
  }
  if (ok)
    ok = cu_ok(cu.LaunchKernel(fn, (unsigned)grid, 1, 1, (unsigned)threads, 1, 1, (unsigned)smem,
                               NULL, params, NULL), "cuLaunchKernel", name) &&
         cu_ok(cu.CtxSynchronize(), "kernel execution", name);
  for (int i = 0; i < nargs; i++)
    if (args[i].kind == GA_BUF && dp[i]) {
      if (ok) ok = cu_ok(cu.MemcpyDtoH(args[i].host, dp[i], args[i].bytes), "cuMemcpyDtoH", name);
      cu.MemFree(dp[i]);
    }
  cu.ModuleUnload(mod);
  return ok;
}

/* ---- compiling and checking --------------------------------------------------- */

static bool run_ptxas(const char *ptx, const char *arch, const char *name) {
  char path[] = "/tmp/tlc_cg_XXXXXX.ptx";
  int fd = mkstemps(path, 4);
  if (fd < 0) return false;
  size_t len = strlen(ptx);
  bool ok = write(fd, ptx, len) == (ssize_t)len;
  close(fd);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "ptxas -arch=%s %s -o /dev/null 2>&1", arch, path);
  FILE *p = popen(cmd, "r");
  char line[512];
  StrBuf out;
  sb_init(&out);
  while (p && fgets(line, sizeof line, p)) sb_puts(&out, line);
  int rc = p ? pclose(p) : -1;
  if (rc != 0 || !ok) {
    printf("ptxas -arch=%s failed on %s:\n%s\n(repro: ptxas -arch=%s %s)\n", arch, name,
           out.data ? out.data : "", arch, path);
    ok = false;
  } else {
    unlink(path);
  }
  sb_free(&out);
  return ok;
}

/* Compile for one arch; returns the PTX (caller frees) or NULL. */
static char *compile_arch(T *t, const char *arch, const char *name, int *smem) {
  DiagEngine err;
  diag_init(&err);
  StrBuf vb;
  sb_init(&vb);
  int nerr = ir_verify(t->m, true, &vb);
  CHECK(nerr == 0, "%s: IR verifier: %s", name, vb.data ? vb.data : "");
  sb_free(&vb);
  CgOptions opt = {.arch = arch, .opt_level = 3, .want_ptx = true, .want_llvm = verbose};
  CgResult res;
  int rc = cg_compile(t->m, &opt, &res, &err);
  CHECK(rc == 0, "%s (%s): cg_compile failed:\n%s", name, arch, err.out.data ? err.out.data : "");
  diag_free(&err);
  if (rc != 0) return NULL;
  if (verbose) printf("==== %s %s\n%s\n%s\n", name, arch, res.llvm_ir, res.ptx);
  free(res.llvm_ir);
  if (smem) *smem = res.shared_bytes;
  if (have_ptxas) CHECK(run_ptxas(res.ptx, arch, name), "%s: ptxas -arch=%s", name, arch);
  return res.ptx;
}

/* A compiled case: PTX for sm_90a and sm_80. */
typedef struct Compiled {
  char *ptx90, *ptx80;
  int smem;
  const char *name, *kernel;
  int threads;
} Compiled;

static Compiled compile(T *t, const char *name) {
  Compiled c = {.name = name, .kernel = t->f->name, .threads = 32 * t->m->num_warps};
  c.ptx80 = compile_arch(t, "sm_80", name, NULL);
  c.ptx90 = compile_arch(t, "sm_90a", name, &c.smem);
  return c;
}

static void compiled_free(Compiled *c) {
  free(c->ptx90);
  free(c->ptx80);
}

/* Run a compiled case on the GPU with each PTX the device takes; `reset`
 * restores the buffers before each run and `check` verifies them. */
typedef void (*ResetFn)(void *ud);
typedef void (*CheckFn)(void *ud, const char *what);
static void gpu_case(const Compiled *c, int grid, GArg *args, int nargs, ResetFn reset,
                     CheckFn check, void *ud) {
  if (!use_gpu) return;
  const char *ptx[2] = {c->ptx80, cu.major == 9 ? c->ptx90 : NULL};
  const char *arch[2] = {"sm_80", "sm_90a"};
  for (int k = 0; k < 2; k++) {
    if (!ptx[k]) continue;
    reset(ud);
    char what[128];
    snprintf(what, sizeof what, "%s [%s on GPU]", c->name, arch[k]);
    gpu_runs++;
    if (gpu_launch(ptx[k], c->kernel, what, grid, c->threads, c->smem, args, nargs)) check(ud, what);
  }
}

static bool close_to(double got, double want, double rel, double abs_tol) {
  if (got != got || want != want) return (got != got) == (want != want);
  double d = got > want ? got - want : want - got;
  double m = want < 0 ? -want : want;
  return d <= abs_tol + rel * m;
}

/* IEEE binary16 / bfloat16 round-to-nearest-even from fp32 (normal and
 * zero values; what the cases use) and back. */
static uint16_t f2h(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  int32_t e = (int32_t)((x >> 23) & 0xff) - 127 + 15;
  uint32_t m = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0) return (uint16_t)sign;
  if (e >= 31) return (uint16_t)(sign | 0x7c00);
  if (e <= 0) {
    /* subnormal half */
    m |= 0x800000;
    int shift = 14 - e;
    uint32_t r = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (r & 1))) r++;
    return (uint16_t)(sign | r);
  }
  uint32_t r = ((uint32_t)e << 10) | (m >> 13), rem = m & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (r & 1))) r++;
  return (uint16_t)(sign | r);
}
static float h2f(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, x;
  if (e == 0) {
    float f = (float)m / 16777216.0f;
    return sign ? -f : f;
  }
  if (e == 31) x = sign | 0x7f800000 | (m << 13);
  else x = sign | ((e - 15 + 127) << 23) | (m << 13);
  float f;
  memcpy(&f, &x, 4);
  return f;
}
static uint16_t f2bf(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t r = x >> 16, rem = x & 0xffff;
  if (rem > 0x8000 || (rem == 0x8000 && (r & 1))) r++;
  return (uint16_t)r;
}
static float bf2f(uint16_t b) {
  uint32_t x = (uint32_t)b << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

#define HAS(ptx, s) CHECK((ptx) && strstr((ptx), (s)), "PTX lacks '%s'", (s))
#define LACKS(ptx, s) CHECK((ptx) && !strstr((ptx), (s)), "PTX has '%s'", (s))

/* ---- the cases ------------------------------------------------------------------ */

#define SENTINEL -7.0f

/* out[i] = x[i] + y[i] for i < n; BLOCK = 1024, 4 warps, 4 fp32 per access. */
typedef struct VaddData {
  int n, total;
  float x[3072], y[3072], out[3072];
} VaddData;

static void vadd_reset(void *ud) {
  VaddData *d = ud;
  for (int i = 0; i < d->total; i++) d->x[i] = 0.5f * i, d->y[i] = 1.0f - i, d->out[i] = SENTINEL;
}

static void vadd_check(void *ud, const char *what) {
  VaddData *d = ud;
  int bad = 0;
  for (int i = 0; i < d->total; i++) {
    float want = i < d->n ? d->x[i] + d->y[i] : SENTINEL;
    if (d->out[i] != want && bad++ < 3) printf("  out[%d] = %g, want %g\n", i, d->out[i], want);
  }
  CHECK(bad == 0, "%s: %d wrong elements", what, bad);
}

static void test_vector_add(bool masked) {
  T t;
  t_init(&t, "add_kernel", 4);
  int64_t N = 1024;
  const Layout *l = blocked1(&t, 4, 32, 4);
  Value *x = arg(&t, "x_ptr", ptr(&t, DT_F32));
  Value *y = arg(&t, "y_ptr", ptr(&t, DT_F32));
  Value *o = arg(&t, "out_ptr", ptr(&t, DT_F32));
  Value *n = arg(&t, "n", sc(&t, DT_I32));
  Value *pid = irb_op(&t.b, OP_PROGRAM_ID, NULL, 0, sc(&t, DT_I32))->results[0];
  Value *start = irb_binary(&t.b, OP_MUL, pid, ci(&t, DT_I32, N));
  const Type *ti = ten(&t, DT_I32, 1, &N, l), *tp = tenp(&t, DT_F32, 1, &N, l);
  Value *offs = irb_binary(&t.b, OP_ADD, splat(&t, start, ti), arange(&t, N, l));
  Value *mask = masked ? irb_cmp(&t.b, CMP_LT, offs, splat(&t, n, ti)) : NULL;
  Value *xv = load(&t, addptr(&t, splat(&t, x, tp), offs), mask, NULL, 4);
  Value *yv = load(&t, addptr(&t, splat(&t, y, tp), offs), mask, NULL, 4);
  Value *z = irb_binary(&t.b, OP_ADD, xv, yv);
  store(&t, addptr(&t, splat(&t, o, tp), offs), z, mask, 4);
  ret(&t);
  Compiled c = compile(&t, masked ? "vector_add_masked" : "vector_add");
  char *ptx = c.ptx90;
  HAS(ptx, ".entry add_kernel");
  HAS(ptx, ".maxntid 128");
  HAS(ptx, "ctaid.x");
  HAS(ptx, "ld.global.v4");
  HAS(ptx, "st.global.v4");
  CHECK(ptx && count(ptx, "ld.global.v4") == 4, "expected 4 vector loads (2 per operand), got %d",
        ptx ? count(ptx, "ld.global.v4") : -1);
  LACKS(ptx, "ld.global.f32");
  LACKS(ptx, ".local");
  LACKS(ptx, "bar.sync");
  CHECK(c.smem == 0, "vector add needs no shared memory (got %d)", c.smem);
  /* -O0 still gives valid PTX */
  CgOptions o0 = {.arch = "sm_90a", .opt_level = 0, .want_ptx = true, .want_llvm = true};
  CgResult r0;
  DiagEngine e0;
  diag_init(&e0);
  CHECK(cg_compile(t.m, &o0, &r0, &e0) == 0, "-O0: %s", e0.out.data ? e0.out.data : "");
  if (r0.ptx && have_ptxas) CHECK(run_ptxas(r0.ptx, "sm_90a", "vector_add -O0"), "-O0 ptxas");
  CHECK(r0.llvm_ir && strstr(r0.llvm_ir, "nvvm.annotations"), "-O0: LLVM IR returned");
  free(r0.ptx);
  free(r0.llvm_ir);
  diag_free(&e0);
  static VaddData d;
  d.total = 3072;
  d.n = masked ? 2500 : 3072;
  GArg a[4] = {gbuf(d.x, sizeof d.x), gbuf(d.y, sizeof d.y), gbuf(d.out, sizeof d.out), gi32(d.n)};
  gpu_case(&c, 3, a, 4, vadd_reset, vadd_check, &d);
  compiled_free(&c);
  t_free(&t);
}

/* Row softmax over [4, 512] tiles (one per program): each row spans 4 warps
 * along the reduced axis (cross-warp reduction through shared memory). */
typedef struct SoftmaxData {
  int rows, ncols, stride;
  float in[8 * 512], out[8 * 512];
} SoftmaxData;

static void softmax_reset(void *ud) {
  SoftmaxData *d = ud;
  for (int i = 0; i < d->rows * d->stride; i++)
    d->in[i] = (float)((i * 37 + (i / 512) * 11) % 97) / 10.0f - 4.0f, d->out[i] = SENTINEL;
}

static void softmax_check(void *ud, const char *what) {
  SoftmaxData *d = ud;
  int bad = 0;
  for (int r = 0; r < d->rows; r++) {
    const float *x = d->in + r * d->stride;
    double mx = -1e30, s = 0;
    for (int c = 0; c < d->ncols; c++) mx = x[c] > mx ? x[c] : mx;
    for (int c = 0; c < d->ncols; c++) s += exp(x[c] - mx);
    for (int c = 0; c < d->stride; c++) {
      double want = c < d->ncols ? exp(x[c] - mx) / s : SENTINEL;
      float got = d->out[r * d->stride + c];
      if (!close_to(got, want, 1e-5, 1e-7) && bad++ < 3)
        printf("  out[%d][%d] = %g, want %g\n", r, c, got, want);
    }
  }
  CHECK(bad == 0, "%s: %d wrong elements", what, bad);
}

static void test_softmax(void) {
  T t;
  t_init(&t, "softmax_kernel", 4);
  int64_t M = 4, N = 512, shape[2] = {M, N};
  int spt[2] = {1, 4}, tpw[2] = {1, 32}, wpc[2] = {1, 4}, order[2] = {1, 0};
  const Layout *l = blocked(&t, 2, spt, tpw, wpc, order);
  const Layout *rows_l = lay_slice(t.c, 1, l), *cols_l = lay_slice(t.c, 0, l);
  Value *in = arg(&t, "in_ptr", ptr(&t, DT_F32));
  Value *out = arg(&t, "out_ptr", ptr(&t, DT_F32));
  Value *stride = arg(&t, "stride", sc(&t, DT_I32));
  Value *ncols = arg(&t, "n_cols", sc(&t, DT_I32));
  Value *pid = irb_op(&t.b, OP_PROGRAM_ID, NULL, 0, sc(&t, DT_I32))->results[0];
  Value *row0 = irb_binary(&t.b, OP_MUL, pid, ci(&t, DT_I32, M));
  Value *rows = arange(&t, M, rows_l);
  rows = irb_binary(&t.b, OP_ADD, rows, splat(&t, row0, rows->type));
  Value *cols = arange(&t, N, cols_l);
  Value *r2 = irb_expand_dims(&t.b, rows, 1); /* [M,1] */
  Value *c2 = irb_expand_dims(&t.b, cols, 0); /* [1,N] */
  r2 = irb_binary(&t.b, OP_MUL, r2, splat(&t, stride, r2->type));
  const Type *ti = ten(&t, DT_I32, 2, shape, l), *tp = tenp(&t, DT_F32, 2, shape, l);
  Value *offs = irb_binary(&t.b, OP_ADD, irb_broadcast(&t.b, r2, ti), irb_broadcast(&t.b, c2, ti));
  Value *cm = irb_cmp(&t.b, CMP_LT, c2, splat(&t, ncols, c2->type));
  Value *mask = irb_broadcast(&t.b, cm, ten(&t, DT_I1, 2, shape, l));
  const Type *tf = ten(&t, DT_F32, 2, shape, l);
  Value *ninf = splat(&t, irb_const_float(&t.b, sc(&t, DT_F32), -1.0 / 0.0), tf);
  Value *x = load(&t, addptr(&t, splat(&t, in, tp), offs), mask, ninf, 4);
  const Type *tr = ten(&t, DT_F32, 1, &M, rows_l);
  Value *mx = reduce(&t, x, 1, COMBINE_MAX, tr);
  Value *mxb = irb_broadcast(&t.b, irb_expand_dims(&t.b, mx, 1), tf);
  Value *e = irb_unary(&t.b, OP_EXP, irb_binary(&t.b, OP_SUB, x, mxb));
  Value *s = reduce(&t, e, 1, COMBINE_SUM, tr);
  Value *sb = irb_broadcast(&t.b, irb_expand_dims(&t.b, s, 1), tf);
  Value *yv = irb_binary(&t.b, OP_DIV, e, sb);
  store(&t, addptr(&t, splat(&t, out, tp), offs), yv, mask, 4);
  ret(&t);
  Compiled c = compile(&t, "softmax");
  char *ptx = c.ptx90;
  HAS(ptx, "shfl.sync.bfly");
  HAS(ptx, "bar.sync");
  HAS(ptx, "ex2.approx");
  HAS(ptx, "div.full.f32");
  HAS(ptx, "max.f32");
  HAS(ptx, "ld.global.v4");
  HAS(ptx, "st.global.v4");
  LACKS(ptx, ".local");
  /* 4 warps x 4 rows x 4 bytes of partials */
  CHECK(c.smem == 64, "softmax scratch: got %d bytes, want 64", c.smem);
  /* 5 butterfly steps per row and reduction = 2 * 4 * 5 */
  CHECK(ptx && count(ptx, "shfl.sync.bfly") == 40, "got %d shuffles, want 40",
        ptx ? count(ptx, "shfl.sync.bfly") : -1);
  static SoftmaxData d = {.rows = 8, .ncols = 300, .stride = 512};
  GArg a[4] = {gbuf(d.in, sizeof d.in), gbuf(d.out, sizeof d.out), gi32(d.stride), gi32(d.ncols)};
  gpu_case(&c, 2, a, 4, softmax_reset, softmax_check, &d);
  compiled_free(&c);
  t_free(&t);
}

/* sum / argmax of a 1-D block to a scalar stored by one thread. */
typedef struct RedData {
  bool argmax;
  float in[1024];
  union {
    float f;
    int32_t i;
  } out[4];
} RedData;

static void red_reset(void *ud) {
  RedData *d = ud;
  for (int i = 0; i < 1024; i++) d->in[i] = (float)((i * 7) % 13) * 0.25f;
  if (d->argmax) d->in[700] = 3.0f, d->in[300] = 3.0f; /* ties: the smaller index wins */
  memset(d->out, 0x7f, sizeof d->out);
}

static void red_check(void *ud, const char *what) {
  RedData *d = ud;
  if (d->argmax) {
    int best = 0;
    for (int i = 1; i < 1024; i++)
      if (d->in[i] > d->in[best]) best = i;
    CHECK(d->out[0].i == best, "%s: argmax %d, want %d", what, d->out[0].i, best);
  } else {
    float s = 0;
    for (int i = 0; i < 1024; i++) s += d->in[i];
    CHECK(d->out[0].f == s, "%s: sum %g, want %g", what, d->out[0].f, s);
  }
  CHECK(d->out[1].i == 0x7f7f7f7f, "%s: wrote past the scalar", what);
}

static void test_full_reduce(int num_warps, CombineKind kind) {
  T t;
  t_init(&t, "reduce_kernel", num_warps);
  int64_t N = 1024;
  const Layout *l = blocked1(&t, 4, 32, num_warps);
  Value *in = arg(&t, "in_ptr", ptr(&t, DT_F32));
  bool arg_kind = kind == COMBINE_ARGMAX;
  Value *out = arg(&t, "out_ptr", ptr(&t, arg_kind ? DT_I32 : DT_F32));
  Value *x = load(&t, addptr(&t, splat(&t, in, tenp(&t, DT_F32, 1, &N, l)), arange(&t, N, l)),
                  NULL, NULL, 4);
  Value *s = reduce(&t, x, 0, kind, sc(&t, arg_kind ? DT_I32 : DT_F32));
  store(&t, out, s, NULL, 1);
  ret(&t);
  char name[64];
  snprintf(name, sizeof name, "full_reduce_%s_w%d", arg_kind ? "argmax" : "sum", num_warps);
  Compiled c = compile(&t, name);
  char *ptx = c.ptx90;
  HAS(ptx, "shfl.sync.bfly");
  if (num_warps > 1) HAS(ptx, "bar.sync");
  else LACKS(ptx, "bar.sync");
  /* the scalar store is predicated on thread 0 */
  HAS(ptx, "%tid.x");
  HAS(ptx, "@%p");
  LACKS(ptx, ".local");
  int want = num_warps > 1 ? num_warps * 4 : 0;
  if (arg_kind && num_warps > 1) want = (16 * ((num_warps * 4 + 15) / 16) + num_warps * 4 + 15) / 16 * 16;
  CHECK(c.smem == want, "%s: scratch %d, want %d", name, c.smem, want);
  static RedData d;
  d.argmax = arg_kind;
  GArg a[2] = {gbuf(d.in, sizeof d.in), gbuf(d.out, sizeof d.out)};
  gpu_case(&c, 1, a, 2, red_reset, red_check, &d);
  compiled_free(&c);
  t_free(&t);
}

/* A [64, 64] fp16 tile converted between a row-major and a column-major
 * blocked layout (through shared memory), and a conversion between two
 * layouts that place the same elements in the same threads (free). */
typedef struct CopyData {
  int n;
  uint16_t in[4096], out[4096];
} CopyData;

static void copy_reset(void *ud) {
  CopyData *d = ud;
  for (int i = 0; i < d->n; i++) d->in[i] = f2h((float)(i % 2048)), d->out[i] = 0xffff;
}

static void copy_check(void *ud, const char *what) {
  CopyData *d = ud;
  int bad = 0;
  for (int i = 0; i < d->n; i++)
    if (d->out[i] != d->in[i] && bad++ < 3) printf("  out[%d] = %#x, want %#x\n", i, d->out[i], d->in[i]);
  CHECK(bad == 0, "%s: %d wrong elements", what, bad);
}

typedef struct Copy32Data {
  float in[32], out[32];
} Copy32Data;
static void copy32_reset(void *ud) {
  Copy32Data *d = ud;
  for (int i = 0; i < 32; i++) d->in[i] = (float)i * 1.5f, d->out[i] = SENTINEL;
}
static void copy32_check(void *ud, const char *what) {
  Copy32Data *d = ud;
  int bad = 0;
  for (int i = 0; i < 32; i++) bad += d->out[i] != d->in[i];
  CHECK(bad == 0, "%s: %d wrong elements", what, bad);
}

static void test_convert(void) {
  T t;
  t_init(&t, "convert_kernel", 4);
  int64_t shape[2] = {64, 64};
  int sa[2] = {1, 4}, ta[2] = {2, 16}, wa[2] = {4, 1}, oa[2] = {1, 0};
  int sb[2] = {4, 1}, tb[2] = {16, 2}, wb[2] = {1, 4}, ob[2] = {0, 1};
  const Layout *la = blocked(&t, 2, sa, ta, wa, oa), *lb = blocked(&t, 2, sb, tb, wb, ob);
  Value *in = arg(&t, "in_ptr", ptr(&t, DT_F16));
  Value *out = arg(&t, "out_ptr", ptr(&t, DT_F16));
  /* offsets r * 64 + c in layout la */
  Value *r = irb_expand_dims(&t.b, arange(&t, 64, lay_slice(t.c, 1, la)), 1);
  Value *c = irb_expand_dims(&t.b, arange(&t, 64, lay_slice(t.c, 0, la)), 0);
  r = irb_binary(&t.b, OP_MUL, r, splat(&t, ci(&t, DT_I32, 64), r->type));
  const Type *ti = ten(&t, DT_I32, 2, shape, la);
  Value *offs = irb_binary(&t.b, OP_ADD, irb_broadcast(&t.b, r, ti), irb_broadcast(&t.b, c, ti));
  Value *x = load(&t, addptr(&t, splat(&t, in, tenp(&t, DT_F16, 2, shape, la)), offs), NULL, NULL, 4);
  Value *xb = irb_convert(&t.b, x, lb);
  Value *ob2 = irb_convert(&t.b, offs, lb);
  store(&t, addptr(&t, splat(&t, out, tenp(&t, DT_F16, 2, shape, lb)), ob2), xb, NULL, 1);
  ret(&t);
  Compiled cc = compile(&t, "convert_layout");
  char *ptx = cc.ptx90;
  HAS(ptx, "st.shared");
  HAS(ptx, "ld.shared");
  HAS(ptx, "bar.sync");
  LACKS(ptx, ".local");
  /* 64 rows of 64 + 4 padding; i32 offsets need (64 + 4) * 64 * 4 bytes */
  CHECK(cc.smem == 68 * 64 * 4, "convert scratch %d, want %d", cc.smem, 68 * 64 * 4);
  static CopyData d = {.n = 4096};
  GArg a[2] = {gbuf(d.in, sizeof d.in), gbuf(d.out, sizeof d.out)};
  gpu_case(&cc, 1, a, 2, copy_reset, copy_check, &d);
  compiled_free(&cc);
  t_free(&t);

  /* free: a 1-D layout and a slice of a 2-D one with the same mapping */
  t_init(&t, "convert_free", 1);
  int64_t n = 32;
  const Layout *l1 = blocked1(&t, 1, 32, 1);
  int s2[2] = {1, 1}, t2[2] = {1, 32}, w2[2] = {1, 1}, o2[2] = {1, 0};
  const Layout *l2 = blocked(&t, 2, s2, t2, w2, o2);
  const Layout *l2s = lay_slice(t.c, 0, l2);
  in = arg(&t, "in_ptr", ptr(&t, DT_F32));
  out = arg(&t, "out_ptr", ptr(&t, DT_F32));
  Value *o1 = arange(&t, n, l1);
  x = load(&t, addptr(&t, splat(&t, in, tenp(&t, DT_F32, 1, &n, l1)), o1), NULL, NULL, 1);
  Value *x2 = irb_convert(&t.b, x, l2s);
  Value *o3 = irb_convert(&t.b, o1, l2s);
  store(&t, addptr(&t, splat(&t, out, tenp(&t, DT_F32, 1, &n, l2s)), o3), x2, NULL, 1);
  ret(&t);
  cc = compile(&t, "convert_free");
  LACKS(cc.ptx90, "bar.sync");
  LACKS(cc.ptx90, ".shared.");
  CHECK(cc.smem == 0, "free conversion used %d bytes of scratch", cc.smem);
  static Copy32Data d32;
  GArg a2[2] = {gbuf(d32.in, sizeof d32.in), gbuf(d32.out, sizeof d32.out)};
  gpu_case(&cc, 1, a2, 2, copy32_reset, copy32_check, &d32);
  compiled_free(&cc);
  t_free(&t);
}

/* acc = 0; s = 0; for i in range(0, k): acc += x[i*256 + arange]; s += i */
typedef struct ForData {
  int k;
  float in[5 * 256], out[256];
  int32_t s[2];
} ForData;

static void for_reset(void *ud) {
  ForData *d = ud;
  for (int i = 0; i < 5 * 256; i++) d->in[i] = (float)(i % 256) + (float)(i / 256) * 0.5f;
  for (int i = 0; i < 256; i++) d->out[i] = SENTINEL;
  d->s[0] = d->s[1] = -1;
}

static void for_check(void *ud, const char *what) {
  ForData *d = ud;
  int bad = 0;
  for (int j = 0; j < 256; j++) {
    float want = 0;
    for (int i = 0; i < d->k; i++) want += d->in[i * 256 + j];
    bad += d->out[j] != want;
  }
  CHECK(bad == 0, "%s: %d wrong sums", what, bad);
  CHECK(d->s[0] == d->k * (d->k - 1) / 2, "%s: s = %d", what, d->s[0]);
}

static void test_for_loop(void) {
  T t;
  t_init(&t, "for_kernel", 2);
  int64_t N = 256;
  const Layout *l = blocked1(&t, 4, 32, 2);
  Value *in = arg(&t, "in_ptr", ptr(&t, DT_F32));
  Value *out = arg(&t, "out_ptr", ptr(&t, DT_F32));
  Value *sout = arg(&t, "s_ptr", ptr(&t, DT_I32));
  Value *k = arg(&t, "k", sc(&t, DT_I32));
  const Type *tf = ten(&t, DT_F32, 1, &N, l), *tp = tenp(&t, DT_F32, 1, &N, l);
  Value *acc0 = irb_const_float(&t.b, tf, 0.0);
  Value *s0 = ci(&t, DT_I32, 0);
  Value *offs = arange(&t, N, l);
  Value *ops[5] = {ci(&t, DT_I32, 0), k, ci(&t, DT_I32, 1), acc0, s0};
  const Type *rts[2] = {tf, sc(&t, DT_I32)};
  Op *loop = ir_op_new(t.m, t.f, OP_FOR, (Loc){0}, ops, 5, rts, 2, 1);
  irb_insert(&t.b, loop);
  IrBlock *body = loop->regions[0];
  Value *iv = ir_block_add_arg(t.m, t.f, body, sc(&t, DT_I32));
  Value *acc = ir_block_add_arg(t.m, t.f, body, tf);
  Value *s = ir_block_add_arg(t.m, t.f, body, sc(&t, DT_I32));
  IrBuilder saved = t.b;
  irb_init(&t.b, t.m, t.f, body);
  Value *base = irb_binary(&t.b, OP_MUL, iv, ci(&t, DT_I32, N));
  Value *o2 = irb_binary(&t.b, OP_ADD, offs, splat(&t, base, offs->type));
  Value *x = load(&t, addptr(&t, splat(&t, in, tp), o2), NULL, NULL, 4);
  Value *acc2 = irb_binary(&t.b, OP_ADD, acc, x);
  Value *s2 = irb_binary(&t.b, OP_ADD, s, iv);
  Value *yops[2] = {acc2, s2};
  irb_op(&t.b, OP_YIELD, yops, 2, NULL);
  t.b = saved;
  store(&t, addptr(&t, splat(&t, out, tp), offs), loop->results[0], NULL, 4);
  store(&t, sout, loop->results[1], NULL, 1);
  ret(&t);
  Compiled c = compile(&t, "for_loop");
  HAS(c.ptx90, "ld.global.v4");
  HAS(c.ptx90, "bra");
  LACKS(c.ptx90, ".local");
  static ForData d;
  for (int trips = 0; trips <= 5; trips += 5) {
    d.k = trips;
    GArg a[4] = {gbuf(d.in, sizeof d.in), gbuf(d.out, sizeof d.out), gbuf(d.s, sizeof d.s),
                 gi32(trips)};
    gpu_case(&c, 1, a, 4, for_reset, for_check, &d);
  }
  compiled_free(&c);
  t_free(&t);
}

/* r = flag ? x * 2 : x + 1 (tensor result of an if), plus a while loop
 * doubling a scalar until it reaches n. */
typedef struct IfData {
  int flag;
  int64_t n;
  float in[128], out[128];
  int64_t w[2];
} IfData;

static void if_reset(void *ud) {
  IfData *d = ud;
  for (int i = 0; i < 128; i++) d->in[i] = (float)i - 50.0f, d->out[i] = SENTINEL;
  d->w[0] = d->w[1] = -1;
}

static void if_check(void *ud, const char *what) {
  IfData *d = ud;
  int bad = 0;
  for (int i = 0; i < 128; i++) bad += d->out[i] != (d->flag ? d->in[i] * 2 : d->in[i] + 1);
  CHECK(bad == 0, "%s: %d wrong elements", what, bad);
  int64_t v = 1;
  while (v < d->n) v *= 2;
  CHECK(d->w[0] == v && d->w[1] == -1, "%s: while gave %lld, want %lld", what, (long long)d->w[0],
        (long long)v);
}

static void test_if_while(void) {
  T t;
  t_init(&t, "if_kernel", 4);
  int64_t N = 128;
  const Layout *l = blocked1(&t, 1, 32, 4);
  Value *in = arg(&t, "in_ptr", ptr(&t, DT_F32));
  Value *out = arg(&t, "out_ptr", ptr(&t, DT_F32));
  Value *wout = arg(&t, "w_ptr", ptr(&t, DT_I64));
  Value *n = arg(&t, "n", sc(&t, DT_I64));
  Value *flag = arg(&t, "flag", sc(&t, DT_I32));
  const Type *tf = ten(&t, DT_F32, 1, &N, l), *tp = tenp(&t, DT_F32, 1, &N, l);
  Value *offs = arange(&t, N, l);
  Value *x = load(&t, addptr(&t, splat(&t, in, tp), offs), NULL, NULL, 1);
  Value *c = irb_cmp(&t.b, CMP_NE, flag, ci(&t, DT_I32, 0));
  const Type *rts[1] = {tf};
  Op *iff = ir_op_new(t.m, t.f, OP_IF, (Loc){0}, &c, 1, rts, 1, 2);
  irb_insert(&t.b, iff);
  IrBuilder saved = t.b;
  irb_init(&t.b, t.m, t.f, iff->regions[0]);
  Value *a = irb_binary(&t.b, OP_MUL, x, irb_const_float(&t.b, tf, 2.0));
  irb_op(&t.b, OP_YIELD, &a, 1, NULL);
  irb_init(&t.b, t.m, t.f, iff->regions[1]);
  Value *bb = irb_binary(&t.b, OP_ADD, x, irb_const_float(&t.b, tf, 1.0));
  irb_op(&t.b, OP_YIELD, &bb, 1, NULL);
  t.b = saved;
  store(&t, addptr(&t, splat(&t, out, tp), offs), iff->results[0], NULL, 1);

  /* while (v < n) v = v * 2 */
  Value *v0 = ci(&t, DT_I64, 1);
  const Type *wr[1] = {sc(&t, DT_I64)};
  Op *w = ir_op_new(t.m, t.f, OP_WHILE, (Loc){0}, &v0, 1, wr, 1, 2);
  irb_insert(&t.b, w);
  Value *bv = ir_block_add_arg(t.m, t.f, w->regions[0], sc(&t, DT_I64));
  Value *av = ir_block_add_arg(t.m, t.f, w->regions[1], sc(&t, DT_I64));
  irb_init(&t.b, t.m, t.f, w->regions[0]);
  Value *cops[2] = {irb_cmp(&t.b, CMP_LT, bv, n), bv};
  irb_op(&t.b, OP_CONDITION, cops, 2, NULL);
  irb_init(&t.b, t.m, t.f, w->regions[1]);
  Value *dbl = irb_binary(&t.b, OP_MUL, av, ci(&t, DT_I64, 2));
  irb_op(&t.b, OP_YIELD, &dbl, 1, NULL);
  t.b = saved;
  store(&t, wout, w->results[0], NULL, 1);
  ret(&t);
  Compiled cc = compile(&t, "if_while");
  HAS(cc.ptx90, "add.f32");
  HAS(cc.ptx90, "st.global.b64"); /* the while result, by thread 0 */
  HAS(cc.ptx90, "bra");
  LACKS(cc.ptx90, ".local");
  static IfData d;
  for (int f = 0; f < 2; f++) {
    d.flag = f;
    d.n = f ? 100 : 1;
    GArg ga[5] = {gbuf(d.in, sizeof d.in), gbuf(d.out, sizeof d.out), gbuf(d.w, sizeof d.w),
                  gi64(d.n), gi32(d.flag)};
    gpu_case(&cc, 1, ga, 5, if_reset, if_check, &d);
  }
  compiled_free(&cc);
  t_free(&t);
}

/* f32 -> f16 -> bf16 -> f32, i32 -> i64 -> f32, u8 -> f32, f32 -> i32 ->
 * bool -> i32 -> f32, f32 -> f64 -> bf16, bf16 add. */
typedef struct CastData {
  float f[512], out[512];
  int32_t i[512];
  uint8_t u[512];
  uint16_t h[512];
} CastData;

static void cast_reset(void *ud) {
  CastData *d = ud;
  for (int k = 0; k < 512; k++) {
    d->f[k] = (float)(k - 256) * 0.3711f + (k % 3 ? 0.0f : 0.4f);
    d->i[k] = (k - 200) * 123457;
    d->u[k] = (uint8_t)(k * 31);
    d->out[k] = SENTINEL;
    d->h[k] = 0xffff;
  }
}

static void cast_check(void *ud, const char *what) {
  CastData *d = ud;
  int bad = 0, badh = 0;
  for (int k = 0; k < 512; k++) {
    float f2 = bf2f(f2bf(h2f(f2h(d->f[k]))));
    float fi = (float)(int64_t)d->i[k];
    float fu = (float)d->u[k];
    float bif = (float)((int32_t)d->f[k] != 0);
    float want = ((f2 + fi) + fu) + bif;
    if (d->out[k] != want && bad++ < 3) printf("  out[%d] = %.9g, want %.9g\n", k, d->out[k], want);
    uint16_t wh = f2bf(bf2f(f2bf(d->f[k])) + f2);
    if (d->h[k] != wh && badh++ < 3) printf("  h[%d] = %#x, want %#x\n", k, d->h[k], wh);
  }
  CHECK(bad == 0 && badh == 0, "%s: %d / %d wrong elements", what, bad, badh);
}

static void test_casts(void) {
  T t;
  t_init(&t, "cast_kernel", 4);
  int64_t N = 512;
  const Layout *l = blocked1(&t, 4, 32, 4);
  Value *fin = arg(&t, "f_ptr", ptr(&t, DT_F32));
  Value *iin = arg(&t, "i_ptr", ptr(&t, DT_I32));
  Value *bin = arg(&t, "b_ptr", ptr(&t, DT_U8));
  Value *out = arg(&t, "out_ptr", ptr(&t, DT_F32));
  Value *hout = arg(&t, "h_ptr", ptr(&t, DT_BF16));
  Value *offs = arange(&t, N, l);
  Value *f = load(&t, addptr(&t, splat(&t, fin, tenp(&t, DT_F32, 1, &N, l)), offs), NULL, NULL, 4);
  Value *i = load(&t, addptr(&t, splat(&t, iin, tenp(&t, DT_I32, 1, &N, l)), offs), NULL, NULL, 4);
  Value *u = load(&t, addptr(&t, splat(&t, bin, tenp(&t, DT_U8, 1, &N, l)), offs), NULL, NULL, 4);
  Value *h = irb_cast(&t.b, f, ten(&t, DT_F16, 1, &N, l));
  Value *bf = irb_cast(&t.b, h, ten(&t, DT_BF16, 1, &N, l));
  Value *f2 = irb_cast(&t.b, bf, ten(&t, DT_F32, 1, &N, l));
  Value *i64 = irb_cast(&t.b, i, ten(&t, DT_I64, 1, &N, l));
  Value *fi = irb_cast(&t.b, i64, ten(&t, DT_F32, 1, &N, l));
  Value *fu = irb_cast(&t.b, u, ten(&t, DT_F32, 1, &N, l));
  Value *ti = irb_cast(&t.b, f, ten(&t, DT_I32, 1, &N, l));
  Value *bo = irb_cast(&t.b, ti, ten(&t, DT_I1, 1, &N, l));
  Value *bi = irb_cast(&t.b, bo, ten(&t, DT_I32, 1, &N, l));
  Value *bif = irb_cast(&t.b, bi, ten(&t, DT_F32, 1, &N, l));
  Value *d = irb_cast(&t.b, f, ten(&t, DT_F64, 1, &N, l));
  Value *db = irb_cast(&t.b, d, ten(&t, DT_BF16, 1, &N, l));
  Value *sum = irb_binary(&t.b, OP_ADD, f2, fi);
  sum = irb_binary(&t.b, OP_ADD, sum, fu);
  sum = irb_binary(&t.b, OP_ADD, sum, bif);
  store(&t, addptr(&t, splat(&t, out, tenp(&t, DT_F32, 1, &N, l)), offs), sum, NULL, 4);
  Value *bsum = irb_binary(&t.b, OP_ADD, db, bf);
  store(&t, addptr(&t, splat(&t, hout, tenp(&t, DT_BF16, 1, &N, l)), offs), bsum, NULL, 4);
  ret(&t);
  Compiled c = compile(&t, "casts");
  HAS(c.ptx90, "cvt.rn.f16x2.f32"); /* fp32 -> fp16 two at a time (cg_arith.c) */
  HAS(c.ptx90, "cvt.rn.bf16.f32");
  HAS(c.ptx90, "cvt.rzi.s32.f32");
  HAS(c.ptx90, "ld.global.u32"); /* 4 x u8 in one word */
  LACKS(c.ptx90, ".local");
  static CastData cd;
  GArg a[5] = {gbuf(cd.f, sizeof cd.f), gbuf(cd.i, sizeof cd.i), gbuf(cd.u, sizeof cd.u),
               gbuf(cd.out, sizeof cd.out), gbuf(cd.h, sizeof cd.h)};
  gpu_case(&c, 1, a, 5, cast_reset, cast_check, &cd);
  compiled_free(&c);
  t_free(&t);
}

/* Block-pointer-like i64 index math: rows pid * 64 + [0, 64) (i64) times an
 * i64 stride, [32] columns, a boundary mask on the rows, fp16 x * x. */
typedef struct BpData {
  int m;
  int64_t stride;
  uint16_t in[128 * 48], out[128 * 48];
} BpData;

static void bp_reset(void *ud) {
  BpData *d = ud;
  for (int i = 0; i < 128 * 48; i++) d->in[i] = f2h((float)(i % 61) * 0.125f - 3.0f), d->out[i] = 0xffff;
}

static void bp_check(void *ud, const char *what) {
  BpData *d = ud;
  int bad = 0;
  for (int r = 0; r < 128; r++)
    for (int c = 0; c < 48; c++) {
      int i = r * 48 + c;
      float x = h2f(d->in[i]);
      uint16_t want = r < d->m && c < 32 ? f2h(x * x) : 0xffff;
      if (d->out[i] != want && bad++ < 3) printf("  out[%d][%d] = %#x, want %#x\n", r, c, d->out[i], want);
    }
  CHECK(bad == 0, "%s: %d wrong elements", what, bad);
}

static void test_i64_index(void) {
  T t;
  t_init(&t, "bp_kernel", 4);
  int64_t shape[2] = {64, 32};
  int spt[2] = {1, 4}, tpw[2] = {4, 8}, wpc[2] = {4, 1}, order[2] = {1, 0};
  const Layout *l = blocked(&t, 2, spt, tpw, wpc, order);
  Value *in = arg(&t, "in_ptr", ptr(&t, DT_F16));
  Value *out = arg(&t, "out_ptr", ptr(&t, DT_F16));
  Value *stride = arg(&t, "stride_m", sc(&t, DT_I64));
  Value *m = arg(&t, "M", sc(&t, DT_I32));
  Value *pid = irb_op(&t.b, OP_PROGRAM_ID, NULL, 0, sc(&t, DT_I32))->results[0];
  Value *row0 = irb_cast(&t.b, irb_binary(&t.b, OP_MUL, pid, ci(&t, DT_I32, 64)), sc(&t, DT_I64));
  Value *r = arange(&t, 64, lay_slice(t.c, 1, l));
  Value *c = arange(&t, 32, lay_slice(t.c, 0, l));
  Value *r64 = irb_cast(&t.b, r, ty_with_elem(t.c, r->type, sc(&t, DT_I64)));
  r64 = irb_binary(&t.b, OP_ADD, r64, splat(&t, row0, r64->type));
  Value *rmask = irb_cmp(&t.b, CMP_LT, r64, splat(&t, irb_cast(&t.b, m, sc(&t, DT_I64)), r64->type));
  Value *c64 = irb_cast(&t.b, c, ty_with_elem(t.c, c->type, sc(&t, DT_I64)));
  Value *ro = irb_binary(&t.b, OP_MUL, r64, splat(&t, stride, r64->type));
  const Type *ti = ten(&t, DT_I64, 2, shape, l);
  Value *offs = irb_binary(&t.b, OP_ADD, irb_broadcast(&t.b, irb_expand_dims(&t.b, ro, 1), ti),
                           irb_broadcast(&t.b, irb_expand_dims(&t.b, c64, 0), ti));
  Value *mask = irb_broadcast(&t.b, irb_expand_dims(&t.b, rmask, 1), ten(&t, DT_I1, 2, shape, l));
  const Type *tp = tenp(&t, DT_F16, 2, shape, l);
  Value *x = load(&t, addptr(&t, splat(&t, in, tp), offs), mask,
                  irb_const_float(&t.b, ten(&t, DT_F16, 2, shape, l), 0.0), 4);
  Value *y = irb_binary(&t.b, OP_MUL, x, x);
  store(&t, addptr(&t, splat(&t, out, tp), offs), y, mask, 4);
  ret(&t);
  Compiled cc = compile(&t, "i64_index");
  HAS(cc.ptx90, "ld.global.v2.b32");
  HAS(cc.ptx90, "st.global.v2.b32");
  HAS(cc.ptx90, "mul.lo.s64");
  LACKS(cc.ptx90, ".local");
  static BpData d = {.m = 100, .stride = 48};
  GArg a[4] = {gbuf(d.in, sizeof d.in), gbuf(d.out, sizeof d.out), gi64(d.stride), gi32(d.m)};
  gpu_case(&cc, 2, a, 4, bp_reset, bp_check, &d);
  compiled_free(&cc);
  t_free(&t);
}

/* Masked float atomics on a replicated layout (64 elements over 128
 * threads: each element must be updated once per program), float max/min
 * through the integer trick, and a scalar counter whose old value every
 * thread uses. */
typedef struct AtomData {
  int n, grid;
  float p[3 * 64];
  int32_t counter[2], out[2];
} AtomData;

static void atom_reset(void *ud) {
  AtomData *d = ud;
  for (int i = 0; i < 3 * 64; i++) d->p[i] = (float)(i % 64 - 32) * 0.25f;
  d->counter[0] = d->counter[1] = 0;
  d->out[0] = d->out[1] = -1;
}

static void atom_check(void *ud, const char *what) {
  AtomData *d = ud;
  int bad = 0;
  for (int i = 0; i < 3 * 64; i++) {
    float v = (float)(i % 64 - 32) * 0.25f;
    if (i % 64 < d->n) { /* program i / 64 updates its own slice */
      v += 1.0f;
      v = v > 0.5f ? v : 0.5f;
      v = v > -100.0f ? v : -100.0f;
      v = v < 3.0f ? v : 3.0f;
    }
    if (d->p[i] != v && bad++ < 3) printf("  p[%d] = %g, want %g\n", i, d->p[i], v);
  }
  CHECK(bad == 0, "%s: %d wrong elements", what, bad);
  CHECK(d->counter[0] == d->grid, "%s: counter %d, want %d", what, d->counter[0], d->grid);
  CHECK(d->out[0] >= 0 && d->out[0] < d->grid, "%s: old value %d", what, d->out[0]);
}

static void test_atomics(void) {
  T t;
  t_init(&t, "atomic_kernel", 4);
  int64_t N = 64;
  const Layout *l = blocked1(&t, 1, 32, 4);
  Value *p = arg(&t, "p", ptr(&t, DT_F32));
  Value *cnt = arg(&t, "counter", ptr(&t, DT_I32));
  Value *out = arg(&t, "out", ptr(&t, DT_I32));
  Value *n = arg(&t, "n", sc(&t, DT_I32));
  const Type *tf = ten(&t, DT_F32, 1, &N, l);
  Value *offs = arange(&t, N, l);
  Value *mask = irb_cmp(&t.b, CMP_LT, offs, splat(&t, n, offs->type));
  Value *pid = irb_op(&t.b, OP_PROGRAM_ID, NULL, 0, sc(&t, DT_I32))->results[0];
  Value *poffs = irb_binary(&t.b, OP_ADD, offs, splat(&t, irb_binary(&t.b, OP_MUL, pid, ci(&t, DT_I32, N)), offs->type));
  static const struct {
    RmwKind k;
    double v;
  } seq[4] = {{RMW_FADD, 1.0}, {RMW_MAX, 0.5}, {RMW_MAX, -100.0}, {RMW_MIN, 3.0}};
  for (int i = 0; i < 4; i++) {
    Value *ops[3] = {addptr(&t, splat(&t, p, tenp(&t, DT_F32, 1, &N, l)), poffs),
                     irb_const_float(&t.b, tf, seq[i].v), mask};
    Op *a = irb_op(&t.b, OP_ATOMIC_RMW, ops, 3, tf);
    a->attr.rmw = seq[i].k;
  }
  Value *ops2[3] = {cnt, ci(&t, DT_I32, 1), NULL};
  Op *b = irb_op(&t.b, OP_ATOMIC_RMW, ops2, 3, sc(&t, DT_I32));
  b->attr.rmw = RMW_ADD;
  b->attr.sem = SEM_RELAXED;
  store(&t, out, b->results[0], NULL, 1);
  ret(&t);
  Compiled c = compile(&t, "atomics");
  HAS(c.ptx90, "atom.acq_rel.gpu.global.add.f32");
  HAS(c.ptx90, "atom.relaxed.gpu.global.add.u32");
  HAS(c.ptx90, "atom.acq_rel.gpu.global.max.s32");
  HAS(c.ptx90, "atom.acq_rel.gpu.global.min.u32");
  HAS(c.ptx90, "bar.sync"); /* broadcast of the scalar's old value */
  CHECK(c.smem == 4, "atomic broadcast scratch %d, want 4", c.smem);
  static AtomData d = {.n = 50, .grid = 3};
  GArg a[4] = {gbuf(d.p, sizeof d.p), gbuf(d.counter, sizeof d.counter), gbuf(d.out, sizeof d.out),
               gi32(d.n)};
  gpu_case(&c, d.grid, a, 4, atom_reset, atom_check, &d);
  compiled_free(&c);
  t_free(&t);
}

/* Every math function on fp32 and fp16 inputs, stored one per row of the
 * output; then min/max/precise div/fma and integer ops. */
static const OpKind math_ops[] = {OP_EXP, OP_EXP2, OP_LOG,  OP_LOG2, OP_SQRT,    OP_RSQRT, OP_SIN,
                                  OP_COS, OP_FLOOR, OP_CEIL, OP_ERF, OP_SIGMOID, OP_ABS,   OP_NEG};
#define NMATH ((int)(sizeof math_ops / sizeof math_ops[0]))

#define NMISC 7
typedef struct MathData {
  float x[512], out[2 * NMATH * 512], misc[NMISC * 512];
  uint16_t h[512];
  int32_t iout[3 * 512];
} MathData;

static void math_reset(void *ud) {
  MathData *d = ud;
  for (int i = 0; i < 512; i++) {
    d->x[i] = (float)(i - 256) / 64.0f + 0.0078125f * (i % 5);
    d->h[i] = f2h(d->x[i] * 0.5f);
  }
  for (int i = 0; i < 2 * NMATH * 512; i++) d->out[i] = SENTINEL;
  for (int i = 0; i < NMISC * 512; i++) d->misc[i] = SENTINEL;
  for (int i = 0; i < 3 * 512; i++) d->iout[i] = -12345;
}

static double ref_math(OpKind k, double x) {
  switch (k) {
  case OP_EXP: return exp(x);
  case OP_EXP2: return exp2(x);
  case OP_LOG: return log(x);
  case OP_LOG2: return log2(x);
  case OP_SQRT: return sqrt(x);
  case OP_RSQRT: return 1 / sqrt(x);
  case OP_SIN: return sin(x);
  case OP_COS: return cos(x);
  case OP_FLOOR: return floor(x);
  case OP_CEIL: return ceil(x);
  case OP_ERF: return erf(x);
  case OP_SIGMOID: return 1 / (1 + exp(-x));
  case OP_ABS: return fabs(x);
  case OP_NEG: return -x;
  default: return 0;
  }
}

static void math_check(void *ud, const char *what) {
  MathData *d = ud;
  int bad = 0;
  for (int k = 0; k < NMATH; k++)
    for (int i = 0; i < 512; i++) {
      bool dom_ok = !((math_ops[k] == OP_LOG || math_ops[k] == OP_LOG2 || math_ops[k] == OP_SQRT ||
                       math_ops[k] == OP_RSQRT) && d->x[i] <= 0);
      if (!dom_ok) continue;
      double want = ref_math(math_ops[k], d->x[i]);
      float got = d->out[k * 512 + i];
      if (!close_to(got, want, 2e-6, 4e-6) && bad++ < 5)
        printf("  %s(%.9g) = %.9g, want %.9g\n", ir_op_info[math_ops[k]].name, d->x[i], got, want);
      float hx = h2f(d->h[i]);
      if (hx <= 0 && !dom_ok) continue;
      if ((math_ops[k] == OP_LOG || math_ops[k] == OP_LOG2 || math_ops[k] == OP_SQRT ||
           math_ops[k] == OP_RSQRT) && hx <= 0)
        continue;
      double hw = h2f(f2h((float)ref_math(math_ops[k], hx)));
      float hg = d->out[(NMATH + k) * 512 + i];
      if (!close_to(hg, hw, 1e-3, 1e-3) && bad++ < 5)
        printf("  f16 %s(%.9g) = %.9g, want %.9g\n", ir_op_info[math_ops[k]].name, hx, hg, hw);
    }
  for (int i = 0; i < 512; i++) {
    float x = d->x[i], y = x * 0.75f - 0.5f;
    float mn = x < y ? x : y, mx = x > y ? x : y;
    float dv = x / 3.0f; /* IEEE division */
    float fm = fmaf(x, y, 1.0f);
    float rm = fmodf(x, 0.7f);
    float cl = x < -1.0f ? -1.0f : x > 1.0f ? 1.0f : x;
    float sel = x > 0 ? x : y;
    float want[NMISC] = {mn, mx, dv, fm, rm, cl, sel};
    for (int j = 0; j < NMISC; j++)
      if (d->misc[j * 512 + i] != want[j] && bad++ < 5)
        printf("  misc %d at %d = %.9g, want %.9g\n", j, i, d->misc[j * 512 + i], want[j]);
    int32_t ix = (int32_t)(x * 1000.0f);
    uint32_t ux = (uint32_t)ix * 2654435761u;
    int32_t wi[3] = {(ix / 7) >> 1, ix % 7, (int32_t)(uint32_t)(((uint64_t)ux * 3000000000ull) >> 32)};
    for (int j = 0; j < 3; j++)
      if (d->iout[j * 512 + i] != wi[j] && bad++ < 5)
        printf("  int %d at %d = %d, want %d\n", j, i, d->iout[j * 512 + i], wi[j]);
  }
  CHECK(bad == 0, "%s: %d wrong results", what, bad);
}

static void test_math(void) {
  T t;
  t_init(&t, "math_kernel", 4);
  int64_t N = 512;
  const Layout *l = blocked1(&t, 4, 32, 4);
  Value *in = arg(&t, "in_ptr", ptr(&t, DT_F32));
  Value *hin = arg(&t, "h_ptr", ptr(&t, DT_F16));
  Value *out = arg(&t, "out_ptr", ptr(&t, DT_F32));
  Value *misc = arg(&t, "misc_ptr", ptr(&t, DT_F32));
  Value *iout = arg(&t, "iout_ptr", ptr(&t, DT_I32));
  Value *offs = arange(&t, N, l);
  const Type *tp = tenp(&t, DT_F32, 1, &N, l), *tip = tenp(&t, DT_I32, 1, &N, l);
  Value *x = load(&t, addptr(&t, splat(&t, in, tp), offs), NULL, NULL, 4);
  Value *h = load(&t, addptr(&t, splat(&t, hin, tenp(&t, DT_F16, 1, &N, l)), offs), NULL, NULL, 4);
  Value *row = splat(&t, ci(&t, DT_I32, N), offs->type);
  Value *o = offs;
  for (int k = 0; k < 2 * NMATH; k++) {
    Value *v = k < NMATH ? irb_unary(&t.b, math_ops[k], x)
                         : irb_cast(&t.b, irb_unary(&t.b, math_ops[k - NMATH], h), x->type);
    store(&t, addptr(&t, splat(&t, out, tp), o), v, NULL, 4);
    o = irb_binary(&t.b, OP_ADD, o, row);
  }
  Value *y = irb_binary(&t.b, OP_SUB, irb_binary(&t.b, OP_MUL, x, irb_const_float(&t.b, x->type, 0.75)),
                        irb_const_float(&t.b, x->type, 0.5));
  Value *mn = irb_binary(&t.b, OP_MIN, x, y);
  Op *mxo = irb_op(&t.b, OP_MAX, (Value *[]){x, y}, 2, x->type);
  mxo->attr.propagate_nan = true;
  Op *dv = irb_op(&t.b, OP_DIV, (Value *[]){x, irb_const_float(&t.b, x->type, 3.0)}, 2, x->type);
  dv->attr.precise = true;
  Value *fm = irb_op(&t.b, OP_FMA, (Value *[]){x, y, irb_const_float(&t.b, x->type, 1.0)}, 3,
                     x->type)->results[0];
  Value *rm = irb_binary(&t.b, OP_REM, x, irb_const_float(&t.b, x->type, 0.7));
  Value *cl = irb_op(&t.b, OP_CLAMP, (Value *[]){x, irb_const_float(&t.b, x->type, -1.0),
                                                 irb_const_float(&t.b, x->type, 1.0)}, 3, x->type)->results[0];
  Value *pos = irb_cmp(&t.b, CMP_GT, x, irb_const_float(&t.b, x->type, 0.0));
  Value *sel = irb_select(&t.b, pos, x, y);
  Value *mres[NMISC] = {mn, mxo->results[0], dv->results[0], fm, rm, cl, sel};
  o = offs;
  for (int k = 0; k < NMISC; k++) {
    store(&t, addptr(&t, splat(&t, misc, tp), o), mres[k], NULL, 4);
    o = irb_binary(&t.b, OP_ADD, o, row);
  }
  const Type *ti = ty_with_elem(t.c, x->type, sc(&t, DT_I32)), *tu = ty_with_elem(t.c, x->type, sc(&t, DT_U32));
  Value *ix = irb_cast(&t.b, irb_binary(&t.b, OP_MUL, x, irb_const_float(&t.b, x->type, 1000.0)), ti);
  Value *ux = irb_binary(&t.b, OP_MUL, irb_cast(&t.b, ix, tu), irb_const_int(&t.b, tu, 2654435761u));
  Value *seven = irb_const_int(&t.b, ti, 7);
  Value *ires[3] = {irb_binary(&t.b, OP_SHR, irb_binary(&t.b, OP_DIV, ix, seven), irb_const_int(&t.b, ti, 1)),
                    irb_binary(&t.b, OP_REM, ix, seven),
                    irb_cast(&t.b, irb_binary(&t.b, OP_UMULHI, ux, irb_const_int(&t.b, tu, 3000000000u)), ti)};
  o = offs;
  for (int k = 0; k < 3; k++) {
    store(&t, addptr(&t, splat(&t, iout, tip), o), ires[k], NULL, 4);
    o = irb_binary(&t.b, OP_ADD, o, row);
  }
  ret(&t);
  Compiled c = compile(&t, "math");
  char *ptx = c.ptx90;
  HAS(ptx, "lg2.approx");
  HAS(ptx, "sqrt.approx");
  HAS(ptx, "rsqrt.approx");
  HAS(ptx, "sin.approx");
  HAS(ptx, "cos.approx");
  HAS(ptx, "max.NaN.f32");
  HAS(ptx, "div.rn.f32");
  HAS(ptx, "cvt.rmi.f32.f32");
  HAS(ptx, "mul.hi.u32");
  LACKS(ptx, ".local");
  static MathData d;
  GArg a[5] = {gbuf(d.x, sizeof d.x), gbuf(d.h, sizeof d.h), gbuf(d.out, sizeof d.out),
               gbuf(d.misc, sizeof d.misc), gbuf(d.iout, sizeof d.iout)};
  gpu_case(&c, 1, a, 5, math_reset, math_check, &d);
  compiled_free(&c);
  t_free(&t);
}

/* A [32, 64] tile: trans to the permuted layout (free) and column sums of
 * it (reduce over a dim spread over 2 lanes and 4 warps); trans to a
 * non-permuted layout (shared memory) stored transposed; reshape to [2048]. */
typedef struct TransData {
  float in[2048], sums[64], flat[2048], tr[2048];
} TransData;

static void trans_reset(void *ud) {
  TransData *d = ud;
  for (int i = 0; i < 2048; i++) d->in[i] = (float)(i % 13) - 6.0f, d->flat[i] = d->tr[i] = SENTINEL;
  for (int i = 0; i < 64; i++) d->sums[i] = SENTINEL;
}

static void trans_check(void *ud, const char *what) {
  TransData *d = ud;
  int bad = 0;
  for (int c = 0; c < 64; c++) {
    float s = 0;
    for (int r = 0; r < 32; r++) s += d->in[r * 64 + c];
    if (d->sums[c] != s && bad++ < 3) printf("  sum[%d] = %g, want %g\n", c, d->sums[c], s);
  }
  for (int i = 0; i < 2048; i++) {
    if (d->flat[i] != d->in[i] && bad++ < 3) printf("  flat[%d] = %g\n", i, d->flat[i]);
    int r = i / 32, c = i % 32; /* tr is [64, 32] = in^T */
    if (d->tr[i] != d->in[c * 64 + r] && bad++ < 3) printf("  tr[%d][%d] = %g\n", r, c, d->tr[i]);
  }
  CHECK(bad == 0, "%s: %d wrong elements", what, bad);
}

static void test_trans_reshape(void) {
  T t;
  t_init(&t, "trans_kernel", 4);
  int64_t shape[2] = {32, 64}, tshape[2] = {64, 32}, flat = 2048;
  int spt[2] = {1, 4}, tpw[2] = {2, 16}, wpc[2] = {4, 1}, order[2] = {1, 0};
  const Layout *l = blocked(&t, 2, spt, tpw, wpc, order);
  int perm[2] = {1, 0};
  const Layout *lt = lay_permute(t.c, l, perm);
  Value *in = arg(&t, "in_ptr", ptr(&t, DT_F32));
  Value *sums = arg(&t, "sums_ptr", ptr(&t, DT_F32));
  Value *flatp = arg(&t, "flat_ptr", ptr(&t, DT_F32));
  Value *trp = arg(&t, "tr_ptr", ptr(&t, DT_F32));
  Value *r = irb_expand_dims(&t.b, arange(&t, 32, lay_slice(t.c, 1, l)), 1);
  Value *c = irb_expand_dims(&t.b, arange(&t, 64, lay_slice(t.c, 0, l)), 0);
  r = irb_binary(&t.b, OP_MUL, r, splat(&t, ci(&t, DT_I32, 64), r->type));
  const Type *ti = ten(&t, DT_I32, 2, shape, l);
  Value *offs = irb_binary(&t.b, OP_ADD, irb_broadcast(&t.b, r, ti), irb_broadcast(&t.b, c, ti));
  Value *x = load(&t, addptr(&t, splat(&t, in, tenp(&t, DT_F32, 2, shape, l)), offs), NULL, NULL, 4);
  Op *tr = irb_op(&t.b, OP_TRANS, &x, 1, ten(&t, DT_F32, 2, tshape, lt));
  tr->attr.perm[0] = 1, tr->attr.perm[1] = 0;
  Op *tro = irb_op(&t.b, OP_TRANS, &offs, 1, ten(&t, DT_I32, 2, tshape, lt));
  tro->attr.perm[0] = 1, tro->attr.perm[1] = 0;
  /* column sums of x = row sums of the transposed tile; the destination of
   * column c is the smallest offset of the row, c */
  const Layout *ls = lay_slice(t.c, 1, lt);
  Value *cs = reduce(&t, tr->results[0], 1, COMBINE_SUM, ten(&t, DT_F32, 1, tshape, ls));
  Value *ro = reduce(&t, tro->results[0], 1, COMBINE_MIN, ten(&t, DT_I32, 1, tshape, ls));
  store(&t, addptr(&t, splat(&t, sums, tenp(&t, DT_F32, 1, tshape, ls)), ro), cs, NULL, 1);
  /* reshape [32, 64] -> [2048] */
  const Layout *l1 = blocked1(&t, 4, 32, 4);
  Value *xf = irb_op(&t.b, OP_RESHAPE, &x, 1, ten(&t, DT_F32, 1, &flat, l1))->results[0];
  Value *of = irb_op(&t.b, OP_RESHAPE, &offs, 1, ten(&t, DT_I32, 1, &flat, l1))->results[0];
  store(&t, addptr(&t, splat(&t, flatp, tenp(&t, DT_F32, 1, &flat, l1)), of), xf, NULL, 4);
  /* the transposed tile converted to layout l (shape [64, 32]): through
   * shared memory */
  Value *tr2 = irb_convert(&t.b, tr->results[0], l);
  Value *r2 = irb_expand_dims(&t.b, arange(&t, 64, lay_slice(t.c, 1, l)), 1);
  Value *c2 = irb_expand_dims(&t.b, arange(&t, 32, lay_slice(t.c, 0, l)), 0);
  r2 = irb_binary(&t.b, OP_MUL, r2, splat(&t, ci(&t, DT_I32, 32), r2->type));
  const Type *ti2 = ten(&t, DT_I32, 2, tshape, l);
  Value *offs2 = irb_binary(&t.b, OP_ADD, irb_broadcast(&t.b, r2, ti2), irb_broadcast(&t.b, c2, ti2));
  store(&t, addptr(&t, splat(&t, trp, tenp(&t, DT_F32, 2, tshape, l)), offs2), tr2, NULL, 4);
  ret(&t);
  Compiled cc = compile(&t, "trans_reshape");
  HAS(cc.ptx90, "shfl.sync.bfly");
  HAS(cc.ptx90, "bar.sync");
  LACKS(cc.ptx90, ".local");
  static TransData d;
  GArg a[4] = {gbuf(d.in, sizeof d.in), gbuf(d.sums, sizeof d.sums), gbuf(d.flat, sizeof d.flat),
               gbuf(d.tr, sizeof d.tr)};
  gpu_case(&cc, 1, a, 4, trans_reset, trans_check, &d);
  compiled_free(&cc);
  t_free(&t);
}

/* fp8 round trips: f32 -> e5m2 -> f32 on every target (e5m2 -> f16 is a
 * shift; the f32 -> e5m2 conversion needs sm_89+, so sm_80 rejects it) and
 * f32 -> e4m3 -> f16 -> f32 on sm_90a. */
typedef struct Fp8Data {
  float in[256], o5[256], o4[256];
} Fp8Data;

/* Round |x| to a float format with `m` mantissa bits and exponent bias
 * `bias` (round to nearest even, saturating to `max`). */
static float fp8_ref(float x, int m, int bias, float max) {
  float a = fabsf(x);
  if (a == 0) return x;
  int e = ilogbf(a);
  if (e < 1 - bias) e = 1 - bias;
  float q = ldexpf(1.0f, e - m);
  float r = rintf(a / q) * q;
  if (r > max) r = max;
  return x < 0 ? -r : r;
}

static void fp8_reset(void *ud) {
  Fp8Data *d = ud;
  for (int i = 0; i < 256; i++) {
    d->in[i] = (float)(i - 128) * 0.173f + (i % 7) * 0.0009f;
    d->o5[i] = d->o4[i] = SENTINEL;
  }
  d->in[3] = 1000.0f; /* saturates in e4m3 (448) */
  d->in[4] = 0.0013f; /* subnormal in e4m3 */
}

static void fp8_check(void *ud, const char *what) {
  Fp8Data *d = ud;
  int bad = 0;
  bool e4 = strstr(what, "sm_90a") != NULL;
  for (int i = 0; i < 256; i++) {
    float w5 = fp8_ref(d->in[i], 2, 15, 57344.0f), w4 = fp8_ref(d->in[i], 3, 7, 448.0f);
    if (d->o5[i] != w5 && bad++ < 3) printf("  e5m2(%g) = %g, want %g\n", d->in[i], d->o5[i], w5);
    if (e4 && d->o4[i] != w4 && bad++ < 3) printf("  e4m3(%g) = %g, want %g\n", d->in[i], d->o4[i], w4);
  }
  CHECK(bad == 0, "%s: %d wrong elements", what, bad);
}

static void test_fp8(void) {
  T t;
  t_init(&t, "fp8_kernel", 2);
  int64_t N = 256;
  const Layout *l = blocked1(&t, 4, 32, 2);
  Value *in = arg(&t, "in_ptr", ptr(&t, DT_F32));
  Value *o5 = arg(&t, "o5_ptr", ptr(&t, DT_F32));
  Value *o4 = arg(&t, "o4_ptr", ptr(&t, DT_F32));
  Value *offs = arange(&t, N, l);
  const Type *tp = tenp(&t, DT_F32, 1, &N, l), *tf = ten(&t, DT_F32, 1, &N, l);
  Value *x = load(&t, addptr(&t, splat(&t, in, tp), offs), NULL, NULL, 4);
  Value *e5 = irb_cast(&t.b, x, ten(&t, DT_F8E5M2, 1, &N, l));
  store(&t, addptr(&t, splat(&t, o5, tp), offs), irb_cast(&t.b, e5, tf), NULL, 4);
  Value *e4 = irb_cast(&t.b, x, ten(&t, DT_F8E4M3, 1, &N, l));
  Value *h = irb_cast(&t.b, e4, ten(&t, DT_F16, 1, &N, l));
  store(&t, addptr(&t, splat(&t, o4, tp), offs), irb_cast(&t.b, h, tf), NULL, 4);
  ret(&t);
  /* sm_80 has no fp8 cvt: an internal error, not a crash */
  DiagEngine err;
  diag_init(&err);
  CgOptions opt = {.arch = "sm_80", .opt_level = 3, .want_ptx = true};
  CgResult res;
  CHECK(cg_compile(t.m, &opt, &res, &err) == -1 && err.ninternal && strstr(err.out.data, "sm_89"),
        "fp8 on sm_80 must be rejected: %s", err.out.data ? err.out.data : "(no message)");
  diag_free(&err);
  char *ptx = compile_arch(&t, "sm_90a", "fp8", NULL);
  HAS(ptx, "cvt.rn.satfinite.e5m2x2.f32");
  HAS(ptx, "cvt.rn.satfinite.e4m3x2.f32");
  HAS(ptx, "cvt.rn.f16x2.e4m3x2");
  Compiled c = {.ptx90 = ptx, .name = "fp8", .kernel = "fp8_kernel", .threads = 64};
  static Fp8Data d;
  GArg a[3] = {gbuf(d.in, sizeof d.in), gbuf(d.o5, sizeof d.o5), gbuf(d.o4, sizeof d.o4)};
  gpu_case(&c, 1, a, 3, fp8_reset, fp8_check, &d);
  compiled_free(&c);
  t_free(&t);
}

/* device_print of a replicated [8] tensor and a scalar: one line per
 * element (owners only), through vprintf.  The GPU run prints 9 lines. */
typedef struct PrintData {
  int dummy;
} PrintData;
static void print_reset(void *ud) { (void)ud; }
static void print_check(void *ud, const char *what) { (void)ud, (void)what; }

static void test_print(void) {
  T t;
  t_init(&t, "print_kernel", 2);
  int64_t N = 8;
  const Layout *l = blocked1(&t, 1, 32, 2);
  Value *offs = arange(&t, N, l);
  Value *sq = irb_binary(&t.b, OP_MUL, offs, offs);
  Op *p = irb_op(&t.b, OP_PRINT, &sq, 1, NULL);
  p->attr.str = "sq:";
  Value *f = irb_const_float(&t.b, sc(&t, DT_F32), 2.5);
  Op *p2 = irb_op(&t.b, OP_PRINT, &f, 1, NULL);
  p2->attr.str = "100% scalar";
  ret(&t);
  Compiled c = compile(&t, "print");
  HAS(c.ptx90, "vprintf");
  static PrintData d;
  gpu_case(&c, 1, NULL, 0, print_reset, print_check, &d);
  compiled_free(&c);
  t_free(&t);
}

/* reshape [64, 2] -> [128] where the destination's vector run (4) is longer
 * than a source row (2) */
typedef struct ReshapeData {
  float in[128], out[128];
} ReshapeData;
static void reshape_reset(void *ud) {
  ReshapeData *d = ud;
  for (int i = 0; i < 128; i++) d->in[i] = (float)i + 0.5f, d->out[i] = SENTINEL;
}
static void reshape_check(void *ud, const char *what) {
  ReshapeData *d = ud;
  int bad = 0;
  for (int i = 0; i < 128; i++) bad += d->out[i] != d->in[i];
  CHECK(bad == 0, "%s: %d wrong elements", what, bad);
}

static void test_reshape_narrow(void) {
  T t;
  t_init(&t, "reshape_kernel", 2);
  int64_t shape[2] = {64, 2}, flat = 128;
  int spt[2] = {1, 2}, tpw[2] = {32, 1}, wpc[2] = {2, 1}, order[2] = {1, 0};
  const Layout *l = blocked(&t, 2, spt, tpw, wpc, order);
  const Layout *l1 = blocked1(&t, 4, 32, 2);
  Value *in = arg(&t, "in_ptr", ptr(&t, DT_F32));
  Value *out = arg(&t, "out_ptr", ptr(&t, DT_F32));
  Value *r = irb_expand_dims(&t.b, arange(&t, 64, lay_slice(t.c, 1, l)), 1);
  Value *c = irb_expand_dims(&t.b, arange(&t, 2, lay_slice(t.c, 0, l)), 0);
  r = irb_binary(&t.b, OP_MUL, r, splat(&t, ci(&t, DT_I32, 2), r->type));
  const Type *ti = ten(&t, DT_I32, 2, shape, l);
  Value *offs = irb_binary(&t.b, OP_ADD, irb_broadcast(&t.b, r, ti), irb_broadcast(&t.b, c, ti));
  Value *x = load(&t, addptr(&t, splat(&t, in, tenp(&t, DT_F32, 2, shape, l)), offs), NULL, NULL, 2);
  Value *xf = irb_op(&t.b, OP_RESHAPE, &x, 1, ten(&t, DT_F32, 1, &flat, l1))->results[0];
  store(&t, addptr(&t, splat(&t, out, tenp(&t, DT_F32, 1, &flat, l1)), arange(&t, flat, l1)), xf, NULL, 4);
  ret(&t);
  Compiled cc = compile(&t, "reshape_narrow");
  HAS(cc.ptx90, "bar.sync");
  static ReshapeData d;
  GArg a[2] = {gbuf(d.in, sizeof d.in), gbuf(d.out, sizeof d.out)};
  gpu_case(&cc, 1, a, 2, reshape_reset, reshape_check, &d);
  compiled_free(&cc);
  t_free(&t);
}

/* A dot whose operands are not in the layouts its lowering needs (here all
 * three in the result's default layout) is an internal error, not a crash. */
static void test_dot_rejected(void) {
  T t;
  t_init(&t, "dot_kernel", 4);
  int64_t shape[2] = {16, 16};
  const Layout *l = lay_default(t.c, 2, shape, 4, 1);
  const Type *tf = ten(&t, DT_F32, 2, shape, l);
  Value *a = irb_const_float(&t.b, tf, 1.0);
  irb_op(&t.b, OP_DOT, (Value *[]){a, a, a}, 3, tf);
  ret(&t);
  DiagEngine err;
  diag_init(&err);
  CgOptions opt = {.arch = "sm_90a", .opt_level = 3, .want_ptx = true};
  CgResult res;
  int rc = cg_compile(t.m, &opt, &res, &err);
  CHECK(rc == -1, "dot must fail");
  CHECK_CONTAINS(err.out.data, "internal compiler error: FMA dot operands do not hold whole K");
  CHECK(err.ninternal == 1, "one internal error");
  CHECK(!res.ptx, "no PTX on failure");
  diag_free(&err);
  t_free(&t);
  /* a tensor without a layout, and a non-power-of-two shape */
  for (int k = 0; k < 2; k++) {
    t_init(&t, "bad_kernel", 4);
    int64_t n = k ? 96 : 64;
    const Layout *bl = k ? blocked1(&t, 1, 32, 4) : NULL;
    Value *x = irb_const_float(&t.b, ten(&t, DT_F32, 1, &n, bl), 1.0);
    irb_unary(&t.b, OP_EXP, x);
    ret(&t);
    diag_init(&err);
    rc = cg_compile(t.m, &opt, &res, &err);
    CHECK(rc == -1 && err.out.data && strstr(err.out.data, k ? "powers of two" : "layout not supported"),
          "bad tensor %d: %s", k, err.out.data ? err.out.data : "");
    diag_free(&err);
    t_free(&t);
  }
  /* invalid IR (a value of an if region used after the if) reaches the
   * LLVM verifier: reported with the module, no crash */
  t_init(&t, "bad_ssa", 1);
  Value *flag = arg(&t, "flag", sc(&t, DT_I1));
  Value *o = arg(&t, "out", ptr(&t, DT_I32));
  Op *iff = ir_op_new(t.m, t.f, OP_IF, (Loc){0}, &flag, 1, NULL, 0, 2);
  irb_insert(&t.b, iff);
  IrBuilder saved = t.b;
  irb_init(&t.b, t.m, t.f, iff->regions[0]);
  Value *inner = irb_binary(&t.b, OP_ADD, ci(&t, DT_I32, 1), arg(&t, "v", sc(&t, DT_I32)));
  t.b = saved;
  store(&t, o, inner, NULL, 1);
  ret(&t);
  diag_init(&err);
  rc = cg_compile(t.m, &opt, &res, &err);
  CHECK(rc == -1 && err.out.data && strstr(err.out.data, "LLVM verifier") && strstr(err.out.data, "define"),
        "bad SSA: %s", err.out.data ? err.out.data : "");
  diag_free(&err);
  t_free(&t);
  CHECK(cg_ptx_features("sm_90a") && !strcmp(cg_ptx_features("sm_90a"), "+ptx84"), "sm_90a");
  CHECK(cg_ptx_features("sm_80") && !strcmp(cg_ptx_features("sm_80"), "+ptx78"), "sm_80");
  CHECK(!cg_ptx_features("sm_12"), "unknown arch");
}

/* fp8 constants (lower_constant): the bits of a value, rounded to nearest
 * even and saturated as the satfinite conversions do. */
static void test_fp8_bits(void) {
  CHECK(dt_fp8_bits(DT_F8E4M3, 1.0) == 0x38 && dt_fp8_bits(DT_F8E5M2, 1.0) == 0x3c, "1.0");
  CHECK(dt_fp8_bits(DT_F8E4M3, 0.0) == 0 && dt_fp8_bits(DT_F8E4M3, -0.0) == 0x80, "zeros");
  CHECK(dt_fp8_bits(DT_F8E4M3, 448) == 0x7e && dt_fp8_bits(DT_F8E4M3, 470) == 0x7e &&
            dt_fp8_bits(DT_F8E4M3, -1e9) == 0xfe, "e4m3 saturates at 448");
  CHECK(dt_fp8_bits(DT_F8E5M2, 57344) == 0x7b && dt_fp8_bits(DT_F8E5M2, 1e9) == 0x7b, "e5m2 saturates");
  CHECK(dt_fp8_bits(DT_F8E4M3, 0x1p-9) == 0x01 && dt_fp8_bits(DT_F8E5M2, 0x1p-16) == 0x01, "subnormals");
  CHECK(dt_fp8_bits(DT_F8E4M3, 0x1p-10) == 0x00 && dt_fp8_bits(DT_F8E4M3, 0x1.8p-10) == 0x01, "ties to even");
  CHECK(dt_fp8_bits(DT_F8E4M3, 1.0625) == 0x38 && dt_fp8_bits(DT_F8E4M3, 1.1875) == 0x3a, "normal ties");
  CHECK(dt_fp8_bits(DT_F8E4M3, 0x1p-6) == 0x08 && dt_fp8_bits(DT_F8E4M3, 0x1.cp-7) == 0x07, "normal edge");
  CHECK(dt_fp8_bits(DT_F8E4M3, NAN) == 0x7f, "NaN");
}

int main(int argc, char **argv) {
  bool want_gpu = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-v")) verbose = true;
    else if (!strcmp(argv[i], "--gpu")) want_gpu = true;
  }
  have_ptxas = system("command -v ptxas >/dev/null 2>&1") == 0;
  if (!have_ptxas) printf("note: ptxas not on the PATH; PTX is not assembled\n");
  if (want_gpu) {
    use_gpu = gpu_init();
    if (!use_gpu) {
      printf("SKIP: no usable GPU (libcuda.so.1 / device)\n");
      return 77;
    }
  }
  test_fp8_bits();
  test_vector_add(true);
  test_vector_add(false);
  test_softmax();
  test_full_reduce(4, COMBINE_SUM);
  test_full_reduce(1, COMBINE_SUM);
  test_full_reduce(8, COMBINE_ARGMAX);
  test_full_reduce(2, COMBINE_ARGMAX);
  test_convert();
  test_for_loop();
  test_if_while();
  test_casts();
  test_i64_index();
  test_atomics();
  test_math();
  test_trans_reshape();
  test_reshape_narrow();
  test_fp8();
  test_print();
  test_dot_rejected();
  printf("%s: %d checks, %d failures%s", failures ? "FAIL" : "ok", checks, failures,
         use_gpu ? "" : "\n");
  if (use_gpu) printf(", %d GPU runs\n", gpu_runs);
  return failures ? 1 : 0;
}
