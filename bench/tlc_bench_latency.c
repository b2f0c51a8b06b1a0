/* tlc_bench_latency.c — how long tlc takes, from C, to have a kernel ready and
 * to launch it (issue 18's acceptance): the benchmark's fp16 matmul
 * (examples/matmul/grouped_matmul_1d.tile, 128x128x64, group 8, 4 warps,
 * 4 stages) at 1024^3.
 *
 *   cold    an empty disk cache (a new folder as $TLC_CACHE_DIR):
 *           tlc_kernel_from_file (compile, the driver's link of the PTX,
 *           load), then the first launch and tlc_synchronize;
 *   warm    the same request in new processes (this program run again with
 *           --child-warm), the disk cache now holding the entry: the time
 *           from tlc_kernel_from_file's call to a loaded kernel, and to the
 *           end of the first launch; each child also says whether it
 *           compiled or ran the PTX JIT (it must not: warm=... jit=0);
 *   warm_ws the same for a kernel that moves registers (setmaxnreg: the
 *           runtime loads its PTX with cuModuleLoadDataEx, no cubin of its
 *           own, the driver's JIT cache serving a warm start): seed 004's
 *           attention forward at head dim 64, 128x64 blocks, 4 warps, 3
 *           stages (a producer warp and two consumer warpgroups), loaded
 *           cold in this process, then in new processes (--child-warm-ws),
 *           not launched (ex_attention checks it);
 *   launch  host time of one tlc_launch on a loaded kernel, the matmul (9
 *           arguments, 3 tensor maps) and vector add (4): each call timed
 *           alone with CLOCK_MONOTONIC, median and mean over --launches
 *           calls, in bursts of 128 with a wait between (one program each,
 *           so no call waits for a free slot in the device's queue); and
 *           the driver's own cuLaunchKernel of the vector add, timed alike,
 *           for scale; both again on a stream of their own (created
 *           non-blocking), which the default stream's ordering rules do not
 *           reach.
 *
 * Checked: the matmul's first result against a double reference (every 7th
 * row; C poisoned with NaN before), each warm child's result bit for bit
 * against it (a digest), and the vector add's output after its launches.
 * Runtime opening (cuInit, the primary context) is outside every figure:
 * it is the process's, not the kernel's.  The driver's JIT cache is a new
 * folder too (CUDA_CACHE_PATH), so the cold figures include its JIT.  Lines:
 *
 *   LATENCY what=cold total_ms=.. compile_ms=.. link_ms=.. first_launch_ms=..
 *   LATENCY what=warm load_ms=.. first_launch_ms=.. min_load_ms=.. processes=N compiled_or_jit=0
 *           (medians over the processes)
 *   LATENCY what=warm_ws kernel=attn_fwd cold_ms=.. compile_ms=.. jit_ms=.. load_ms=.. min_load_ms=..
 *           processes=N compiled=0 setmaxnreg=1   (load_ms: the median over the processes)
 *   LATENCY what=launch kernel=matmul median_us=.. mean_us=.. calls=N
 *   LATENCY what=driver kernel=add_kernel median_us=.. mean_us=.. calls=N
 *   LATENCY what=launch kernel=vector_add stream=own median_us=.. ...
 *   LATENCY what=driver kernel=add_kernel stream=own median_us=.. ...
 *
 * Options: --reps N (warm processes, default 11), --launches N (default
 * 20000).  Exit 77 (SKIP) without a GPU driver or device; 1 when a step
 * fails, a warm start compiled, a warm matmul start ran the PTX JIT (the
 * attention forward's always does: its cubin is the driver's, from its own
 * cache), or the attention forward did not move registers (its line would
 * time an ordinary cached cubin). */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "examples/common/host.h"
#include "runtime/cuda_driver.h"
#include "runtime/tlc_runtime.h"

enum { SIZE = 1024 };

static const char kSig[] =
    "*fp16:16,*fp16:16,*fp16:16,i32:16,i32:16,i32:16,i32:16,1,i32:16,1,i32:16,1,128,128,64,8";

/* The fake driver of the unit tests (its device name says so): kernels do
 * not run there, so results are not checked. */
static bool g_fake;
static bool fake_driver(void) { return g_fake; }

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void die(tlc_runtime *rt, tlc_status st, const char *what) {
  fprintf(stderr, "tlc_bench_latency: %s: %s: %s\n", what, tlc_status_name(st), tlc_runtime_error(rt));
  exit(1);
}

static tlc_runtime *open_device(void) {
  tlc_runtime *rt = NULL;
  tlc_status st = tlc_runtime_open(0, &rt);
  if (st == TLC_ERR_NO_DRIVER || st == TLC_ERR_NO_DEVICE) {
    printf("SKIP: %s\n", tlc_runtime_error(rt));
    exit(77);
  }
  if (st != TLC_OK) die(rt, st, "tlc_runtime_open");
  g_fake = strstr(tlc_device_name(rt), "tlc test driver") != NULL;
  return rt;
}

/* The matmul's buffers and arguments (M = N = K = SIZE, random fp16 from
 * seed; C poisoned with NaN). */
typedef struct Mm {
  tlc_devptr a, b, c;
  uint16_t *ha, *hb;   /* the inputs as uploaded */
  tlc_arg args[9];
} Mm;

static void mm_init(tlc_runtime *rt, Mm *mm, uint64_t seed) {
  size_t n = (size_t)SIZE * SIZE, bytes = n * 2;
  mm->ha = malloc(bytes), mm->hb = malloc(bytes);
  uint16_t *poison = malloc(bytes);
  ExRng rng = {seed};
  if (!mm->ha || !mm->hb || !poison) exit(1);
  ex_fill_f16(&rng, mm->ha, n, -1.0, 1.0);
  ex_fill_f16(&rng, mm->hb, n, -1.0, 1.0);
  for (size_t i = 0; i < n; i++) poison[i] = 0x7e00; /* fp16 NaN: an unwritten element cannot pass */
  tlc_status st;
  const void *src[3] = {mm->ha, mm->hb, poison};
  tlc_devptr *bufs[3] = {&mm->a, &mm->b, &mm->c};
  for (int i = 0; i < 3; i++) {
    if ((st = tlc_malloc(rt, bytes, bufs[i])) != TLC_OK) die(rt, st, "tlc_malloc");
    if ((st = tlc_memcpy_htod(rt, *bufs[i], src[i], bytes)) != TLC_OK) die(rt, st, "tlc_memcpy_htod");
  }
  free(poison);
  tlc_arg a[9] = {TLC_PTR(mm->a), TLC_PTR(mm->b), TLC_PTR(mm->c), TLC_I32(SIZE), TLC_I32(SIZE),
                  TLC_I32(SIZE),  TLC_I32(SIZE),  TLC_I32(SIZE),  TLC_I32(SIZE)};
  memcpy(mm->args, a, sizeof a);
}

static const unsigned kGrid = (SIZE / 128) * (SIZE / 128);

static tlc_kernel *load_matmul(tlc_runtime *rt, double *ms) {
  char path[4096];
  ex_tile_path("matmul/grouped_matmul_1d.tile", path, sizeof path);
  tlc_kernel_options opt = {.num_warps = 4, .num_stages = 4};
  tlc_kernel *k = NULL;
  double t0 = now_us();
  tlc_status st = tlc_kernel_from_file(rt, path, "grouped_matmul_1d_kernel", kSig, &opt, &k);
  *ms = (now_us() - t0) / 1e3;
  if (st != TLC_OK) die(rt, st, "tlc_kernel_from_file (matmul)");
  return k;
}

/* Seed 004's attention forward (fused_attention.tile's _attn_fwd), head dim
 * 64, not causal, at the config the benchmark's ab runs use (128x64, 4
 * warps, 3 stages): warp-specialized with setmaxnreg by default. */
static const char kAttnSig[] =
    "*fp16:16,*fp16:16,*fp16:16,fp32,*fp32:16,*fp16:16,i32:16,i32:16,i32:16,1,i32:16,i32:16,i32:16,1,"
    "i32:16,i32:16,i32:16,1,i32:16,i32:16,i32:16,1,i32,i32:16,i32:16,64,_,_,1";

static tlc_kernel *load_attention(tlc_runtime *rt, double *ms) {
  char path[4096];
  ex_tile_path("attention/fused_attention.tile", path, sizeof path);
  const char *cx[2] = {"BLOCK_M=128", "BLOCK_N=64"};
  tlc_kernel_options opt = {.num_warps = 4, .num_stages = 3, .constexprs = cx, .nconstexprs = 2};
  tlc_kernel *k = NULL;
  double t0 = now_us();
  tlc_status st = tlc_kernel_from_file(rt, path, "_attn_fwd", kAttnSig, &opt, &k);
  *ms = (now_us() - t0) / 1e3;
  if (st != TLC_OK) die(rt, st, "tlc_kernel_from_file (attention forward)");
  return k;
}

static bool moves_registers(tlc_kernel *k) { return strstr(tlc_kernel_ptx(k), "setmaxnreg.") != NULL; }

/* One launch and the wait for it, in ms. */
static double first_launch(tlc_runtime *rt, tlc_kernel *k, const Mm *mm) {
  double t0 = now_us();
  tlc_status st = tlc_launch(k, kGrid, 1, 1, NULL, mm->args, 9);
  if (st == TLC_OK) st = tlc_synchronize(rt);
  if (st != TLC_OK) die(rt, st, "the first launch");
  return (now_us() - t0) / 1e3;
}

/* C as the device holds it (fp16 bits, heap). */
static uint16_t *mm_result(tlc_runtime *rt, const Mm *mm) {
  size_t bytes = (size_t)SIZE * SIZE * 2;
  uint16_t *c = malloc(bytes);
  tlc_status st;
  if (!c) exit(1);
  if ((st = tlc_memcpy_dtoh(rt, c, mm->c, bytes)) != TLC_OK) die(rt, st, "tlc_memcpy_dtoh");
  return c;
}

/* ||C - A B|| / ||A B|| against a double reference over every 7th row (the
 * output is checked whole for NaN: unwritten elements keep the poison). */
static double mm_check(const Mm *mm, const uint16_t *c) {
  double num = 0, den = 0;
  for (size_t i = 0; i < (size_t)SIZE * SIZE; i++)
    if (ex_f16_to_f32(c[i]) != ex_f16_to_f32(c[i])) return INFINITY;
  float *bt = malloc(sizeof *bt * (size_t)SIZE * SIZE);
  if (!bt) exit(1);
  for (int k = 0; k < SIZE; k++)
    for (int j = 0; j < SIZE; j++) bt[(size_t)j * SIZE + k] = ex_f16_to_f32(mm->hb[(size_t)k * SIZE + j]);
  float *arow = malloc(sizeof *arow * SIZE);
  for (int i = 0; i < SIZE; i += 7) {
    for (int k = 0; k < SIZE; k++) arow[k] = ex_f16_to_f32(mm->ha[(size_t)i * SIZE + k]);
    for (int j = 0; j < SIZE; j++) {
      double ref = 0;
      const float *bc = bt + (size_t)j * SIZE;
      for (int k = 0; k < SIZE; k++) ref += (double)arow[k] * bc[k];
      double d = ex_f16_to_f32(c[(size_t)i * SIZE + j]) - ref;
      num += d * d, den += ref * ref;
    }
  }
  free(bt), free(arow);
  return sqrt(num / den);
}

/* The matmul on the seed-42 inputs, timed: the kernel ready (*load_ms), its
 * first launch and wait (*launch_ms); C into *c (heap) and its digest
 * returned (the same inputs and machine code give the same bits). */
static unsigned long long matmul_once(tlc_runtime *rt, Mm *mm, tlc_kernel **k, double *load_ms, double *launch_ms,
                                      uint16_t **c) {
  mm_init(rt, mm, 42);
  tlc_synchronize(rt);
  *k = load_matmul(rt, load_ms);
  *launch_ms = first_launch(rt, *k, mm);
  *c = mm_result(rt, mm);
  unsigned long long h = 1469598103934665603ull;
  for (size_t i = 0; i < (size_t)SIZE * SIZE; i++) h = (h ^ (*c)[i]) * 1099511628211ull;
  return h;
}

/* --child-warm: a new process finding the disk cache warm.  A warm start
 * compiles nothing (compile_ms 0) and links nothing (link_ms 0: the cached
 * cubin was loaded); its C's digest goes to the parent, which checked C. */
static int child_warm(void) {
  tlc_runtime *rt = open_device();
  Mm mm;
  tlc_kernel *k;
  double load_ms, launch_ms;
  uint16_t *c;
  unsigned long long h = matmul_once(rt, &mm, &k, &load_ms, &launch_ms, &c);
  free(c);
  free(mm.ha), free(mm.hb);
  printf("CHILD load_ms=%.4f first_launch_ms=%.4f compiled=%d jit=%d digest=%016llx\n", load_ms, launch_ms,
         tlc_kernel_compile_ms(k) > 0.0, tlc_kernel_link_ms(k) > 0.0, h);
  tlc_runtime_close(rt);
  return 0;
}

/* --child-warm-ws: the attention forward in a new process, the disk cache
 * (PTX) and the driver's JIT cache warm. */
static int child_warm_ws(void) {
  tlc_runtime *rt = open_device();
  double load_ms;
  tlc_kernel *k = load_attention(rt, &load_ms);
  printf("CHILD load_ms=%.4f compiled=%d setmaxnreg=%d\n", load_ms, tlc_kernel_compile_ms(k) > 0.0,
         moves_registers(k));
  tlc_runtime_close(rt);
  return 0;
}

/* The temporary folder (disk cache and driver JIT cache) main made, removed
 * at exit however the program ends (die() exits too). */
static char g_tmp_dir[] = "/tmp/tlc-latency-XXXXXX";
static void remove_dir(const char *dir);
static void remove_tmp_dir(void) { remove_dir(g_tmp_dir); }

/* Path of this program (for its children); false when it cannot be read. */
static bool self_path(char *self, size_t cap) {
  ssize_t n = readlink("/proc/self/exe", self, cap - 1);
  if (n <= 0) {
    perror("readlink /proc/self/exe");
    return false;
  }
  self[n] = 0;
  return true;
}

/* This program run again with `flag` (a new process): its CHILD line into
 * line[cap]; false, with a message naming child r, when it failed or printed
 * none. */
static bool run_child(const char *flag, int r, char *line, size_t cap) {
  char self[4096], cmd[4200], buf[512];
  if (!self_path(self, sizeof self)) return false;
  snprintf(cmd, sizeof cmd, "'%s' %s", self, flag);
  FILE *p = popen(cmd, "r");
  bool got = false;
  while (p && fgets(buf, sizeof buf, p))
    if (!strncmp(buf, "CHILD ", 6)) snprintf(line, cap, "%s", buf), got = true;
  int rc = p ? pclose(p) : -1;
  if (!got || rc != 0) fprintf(stderr, "tlc_bench_latency: %s child %d failed (status %d)\n", flag, r, rc);
  return got && rc == 0;
}

/* The warm_ws line: the attention forward cold here, then warm in `reps`
 * new processes; the warm starts that compiled (each must find the disk
 * cache), -1 when a step failed. */
static int measure_warm_ws(tlc_runtime *rt, int reps) {
  double cold_ms;
  tlc_kernel *k = load_attention(rt, &cold_ms);
  double *load = malloc(sizeof *load * (size_t)reps);
  if (!load) exit(1);
  int compiled = 0, moves = 1;
  bool ok = true;
  for (int r = 0; r < reps && ok; r++) {
    char line[512];
    int c = -1, m = -1;
    ok = run_child("--child-warm-ws", r, line, sizeof line) &&
         sscanf(line, "CHILD load_ms=%lf compiled=%d setmaxnreg=%d", &load[r], &c, &m) == 3;
    compiled += c > 0, moves &= m > 0;
  }
  if (ok && !(moves && moves_registers(k))) {
    fprintf(stderr, "tlc_bench_latency: the attention forward holds no setmaxnreg (TLC_WARP_SPECIALIZE=0, or "
                    "the compiler no longer specializes it): warm_ws would time an ordinary cached cubin\n");
    ok = false;
  }
  if (ok) {
    double med = median(load, reps); /* sorts load: load[0] is then the fastest */
    printf("LATENCY what=warm_ws kernel=attn_fwd cold_ms=%.3f compile_ms=%.3f jit_ms=%.3f load_ms=%.4f "
           "min_load_ms=%.4f processes=%d compiled=%d setmaxnreg=%d\n",
           cold_ms, tlc_kernel_compile_ms(k), tlc_kernel_link_ms(k), med, load[0], reps, compiled, 1);
  }
  free(load);
  return ok ? compiled : -1;
}

/* Launches go in bursts of BURST with a wait after each (not timed), so the
 * device's queue never fills and a call's time is the host's alone, not a
 * wait for a free slot behind kernels still running. */
enum { BURST = 128 };

/* One launch (nonzero: it failed) and the wait for the device, by whoever
 * launches: tlc or the driver itself. */
typedef struct Launcher {
  int (*launch)(void *ctx);
  int (*wait)(void *ctx);
  void *ctx;
} Launcher;

/* Host time of one launch over `calls` launches after 100 to warm up: one
 * LATENCY line with the median and mean (us); false when a launch failed. */
static bool time_launches(const Launcher *l, int calls, const char *what, const char *name, bool own) {
  double *t = malloc(sizeof *t * (size_t)calls), sum = 0;
  if (!t) exit(1);
  bool ok = true;
  for (int i = 0; i < 100 && ok; i++) ok = !l->launch(l->ctx);
  ok = ok && !l->wait(l->ctx);
  for (int i = 0; i < calls && ok; i++) {
    double t0 = now_us();
    ok = !l->launch(l->ctx);
    t[i] = now_us() - t0;
    sum += t[i];
    if (ok && i % BURST == BURST - 1) ok = !l->wait(l->ctx);
  }
  ok = ok && !l->wait(l->ctx);
  if (ok)
    printf("LATENCY what=%s kernel=%s%s median_us=%.3f mean_us=%.3f calls=%d\n", what, name,
           own ? " stream=own" : "", median(t, calls), sum / calls, calls);
  free(t);
  return ok;
}

/* The driver's entry points this program calls itself, looked up in
 * libcuda apart from tlc's runtime (its "alone" rows must not go through
 * tlc): the types are runtime/cuda_driver.h's; the stream calls, which the
 * runtime does not make, are declared here in its style. */
typedef CUresult (*pfn_cuStreamCreate)(CUstream *stream, unsigned int flags);
typedef CUresult (*pfn_cuStreamSynchronize)(CUstream stream);
typedef CUresult (*pfn_cuStreamDestroy)(CUstream stream);
enum { STREAM_NON_BLOCKING = 1 }; /* CU_STREAM_NON_BLOCKING */

typedef struct Drv {
  rt_pfn_cuModuleLoadData load;
  rt_pfn_cuModuleGetFunction getfn;
  rt_pfn_cuLaunchKernel launch;
  rt_pfn_cuCtxSynchronize sync;
  pfn_cuStreamCreate stream_create;
  pfn_cuStreamSynchronize stream_sync;
  pfn_cuStreamDestroy stream_destroy;
} Drv;

/* libcuda's entry points; false when one is missing (then nothing is timed
 * through it). */
static bool drv_open(Drv *d) {
  const char *lib = getenv("TLC_CUDA_DRIVER");
  void *h = dlopen(lib && *lib ? lib : RT_CUDA_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (!h) return false;
  d->load = (rt_pfn_cuModuleLoadData)dlsym(h, "cuModuleLoadData");
  d->getfn = (rt_pfn_cuModuleGetFunction)dlsym(h, "cuModuleGetFunction");
  d->launch = (rt_pfn_cuLaunchKernel)dlsym(h, "cuLaunchKernel");
  d->sync = (rt_pfn_cuCtxSynchronize)dlsym(h, "cuCtxSynchronize");
  d->stream_create = (pfn_cuStreamCreate)dlsym(h, "cuStreamCreate");
  d->stream_sync = (pfn_cuStreamSynchronize)dlsym(h, "cuStreamSynchronize");
  d->stream_destroy = (pfn_cuStreamDestroy)dlsym(h, "cuStreamDestroy_v2");
  return d->load && d->getfn && d->launch && d->sync && d->stream_create && d->stream_sync && d->stream_destroy;
}

/* tlc_launch of k on one program. */
typedef struct TlcLaunch {
  tlc_runtime *rt;
  tlc_kernel *k;
  const tlc_arg *args;
  int nargs;
  const Drv *drv;  /* with stream: its cuStreamSynchronize */
  void *stream;    /* NULL: the default stream */
} TlcLaunch;
static int tlc_one(void *p) {
  TlcLaunch *t = p;
  return tlc_launch(t->k, 1, 1, 1, t->stream, t->args, t->nargs) != TLC_OK;
}
static int tlc_wait(void *p) {
  TlcLaunch *t = p;
  return t->stream ? t->drv->stream_sync(t->stream) != 0 : tlc_synchronize(t->rt) != TLC_OK;
}

/* Host time per tlc_launch of k on one program, on `stream` (NULL: the
 * default one; else a stream of drv's). */
static void launch_rate(tlc_runtime *rt, tlc_kernel *k, const tlc_arg *args, int nargs, int calls, const char *name,
                        const Drv *drv, void *stream) {
  TlcLaunch t = {rt, k, args, nargs, drv, stream};
  Launcher l = {tlc_one, tlc_wait, &t};
  if (!time_launches(&l, calls, "launch", name, stream != NULL)) die(rt, TLC_ERR_LAUNCH, "tlc_launch");
}

/* The driver's own cost of the same launch, for scale: k's PTX loaded into a
 * module of this program's through libcuda itself (fn), launched with
 * cuLaunchKernel and the same arguments, timed the same way. */
typedef struct DrvLaunch {
  const Drv *drv;
  CUfunction fn;
  unsigned threads;
  void **params;
  CUstream stream;
} DrvLaunch;
static int drv_one(void *p) {
  DrvLaunch *d = p;
  return d->drv->launch(d->fn, 1, 1, 1, d->threads, 1, 1, 0, d->stream, d->params, NULL) != CUDA_SUCCESS;
}
static int drv_wait(void *p) {
  DrvLaunch *d = p;
  return (d->stream ? d->drv->stream_sync(d->stream) : d->drv->sync()) != CUDA_SUCCESS;
}

static void driver_rate(const Drv *drv, CUfunction fn, unsigned threads, const char *symbol, void **params, int calls,
                        CUstream stream) {
  DrvLaunch d = {drv, fn, threads, params, stream};
  Launcher l = {drv_one, drv_wait, &d};
  if (!time_launches(&l, calls, "driver", symbol, stream != NULL))
    printf("LATENCY what=driver kernel=%s failed\n", symbol);
}

/* The cache folder this run made, emptied and removed. */
static void remove_dir(const char *dir) {
  DIR *d = opendir(dir);
  for (struct dirent *e; d && (e = readdir(d));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    if (unlink(p) != 0 && errno == EISDIR) remove_dir(p); /* the driver's JIT cache is a tree */
  }
  if (d) closedir(d);
  rmdir(dir);
}

/* Everything timed and checked, on rt (mm: the matmul's buffers, freed by
 * the caller); the exit status. */
static int measure(tlc_runtime *rt, Mm *mm, int reps, int calls) {
  tlc_kernel *k;
  double total_ms, launch_ms;
  uint16_t *c;
  unsigned long long digest = matmul_once(rt, mm, &k, &total_ms, &launch_ms, &c);
  /* fp16 operands, fp32 accumulation, an fp16 result: METHOD.md's bound */
  double err = fake_driver() ? 0.0 : mm_check(mm, c);
  free(c);
  printf("LATENCY what=cold total_ms=%.3f compile_ms=%.3f link_ms=%.3f first_launch_ms=%.3f rel_err=%.2e%s\n",
         total_ms, tlc_kernel_compile_ms(k), tlc_kernel_link_ms(k), launch_ms, err,
         fake_driver() ? " (fake driver: not run)" : "");
  if (!(err <= 1e-2)) {
    fprintf(stderr, "tlc_bench_latency: the matmul's result is wrong (relative error %.3g)\n", err);
    return 1;
  }

  /* warm: new processes, the same cache folder */
  double *load = malloc(sizeof *load * (size_t)reps), *first = malloc(sizeof *first * (size_t)reps);
  int bad = 0, failed = 0;
  if (!load || !first) exit(1);
  for (int r = 0; r < reps; r++) {
    char line[512];
    int compiled = -1, jit = -1;
    unsigned long long h = 0;
    if (!run_child("--child-warm", r, line, sizeof line) ||
        sscanf(line, "CHILD load_ms=%lf first_launch_ms=%lf compiled=%d jit=%d digest=%llx", &load[r], &first[r],
               &compiled, &jit, &h) != 5) {
      failed = 1;
      break;
    }
    if (h != digest && !fake_driver()) {
      fprintf(stderr, "tlc_bench_latency: warm child %d computed another C (digest %016llx, not %016llx)\n", r, h,
              digest);
      failed = 1;
      break;
    }
    if (compiled || jit) bad++;
  }
  if (failed) {
    free(load), free(first);
    return 1;
  }
  /* median() sorts its array: load[0] is the fastest only after it (an
   * argument list has no order of evaluation) */
  double load_med = median(load, reps), first_med = median(first, reps);
  printf("LATENCY what=warm load_ms=%.4f first_launch_ms=%.4f min_load_ms=%.4f processes=%d compiled_or_jit=%d\n",
         load_med, first_med, load[0], reps, bad);
  free(load);
  free(first);
  int ws_compiled = measure_warm_ws(rt, reps);
  if (ws_compiled < 0) return 1;
  bad += ws_compiled;

  /* the matmul's launch cost on a one-program problem (M = N = 128, K = 64):
   * what a launch costs the host does not depend on the size */
  tlc_arg small[9];
  memcpy(small, mm->args, sizeof small);
  small[3] = TLC_I32(128), small[4] = TLC_I32(128), small[5] = TLC_I32(64);
  launch_rate(rt, k, small, 9, calls, "matmul", NULL, NULL);
  /* vector add: 4 arguments, one program */
  char path[4096];
  ex_tile_path("vector_add/vector_add.tile", path, sizeof path);
  tlc_kernel *va = NULL;
  tlc_status st = tlc_kernel_from_file(rt, path, "add_kernel", "*fp32:16,*fp32:16,*fp32:16,i32,1024", NULL, &va);
  if (st != TLC_OK) die(rt, st, "tlc_kernel_from_file (vector add)");
  tlc_arg va_args[4] = {TLC_PTR(mm->a), TLC_PTR(mm->b), TLC_PTR(mm->c), TLC_I32(1024)};
  launch_rate(rt, va, va_args, 4, calls, "vector_add", NULL, NULL);
  Drv drv;
  CUmodule mod = NULL;
  CUfunction fn = NULL;
  if (fake_driver()) {
  } else if (!drv_open(&drv)) {
    printf("LATENCY what=driver kernel=add_kernel skipped (the driver's entry points)\n");
  } else if (drv.load(&mod, tlc_kernel_ptx(va)) != CUDA_SUCCESS ||
             drv.getfn(&fn, mod, "add_kernel") != CUDA_SUCCESS) {
    printf("LATENCY what=driver kernel=add_kernel skipped (the module)\n");
  } else {
    int32_t n = 1024;
    void *params[4] = {&va_args[0].v.ptr, &va_args[1].v.ptr, &va_args[2].v.ptr, &n};
    unsigned threads = 32u * (unsigned)tlc_kernel_num_warps(va);
    driver_rate(&drv, fn, threads, "add_kernel", params, calls, NULL);
    CUstream own = NULL;
    if (drv.stream_create(&own, STREAM_NON_BLOCKING) == CUDA_SUCCESS) {
      launch_rate(rt, va, va_args, 4, calls, "vector_add", &drv, own);
      driver_rate(&drv, fn, threads, "add_kernel", params, calls, own);
      drv.stream_destroy(own);
    } else {
      printf("LATENCY what=launch kernel=vector_add stream=own skipped (cuStreamCreate failed)\n");
    }
  }
  /* the launches computed something: the first 1024 floats of C are those of
   * A and B added (the buffers read as fp32) */
  float x[1024], y[1024], z[1024];
  if ((st = tlc_memcpy_dtoh(rt, x, mm->a, sizeof x)) != TLC_OK || (st = tlc_memcpy_dtoh(rt, y, mm->b, sizeof y)) != TLC_OK ||
      (st = tlc_memcpy_dtoh(rt, z, mm->c, sizeof z)) != TLC_OK)
    die(rt, st, "tlc_memcpy_dtoh");
  for (int i = 0; i < 1024 && !fake_driver(); i++)
    if (!(z[i] == x[i] + y[i]) && !(x[i] + y[i] != x[i] + y[i] && z[i] != z[i])) {
      fprintf(stderr, "tlc_bench_latency: vector add element %d: %g + %g gave %g\n", i, x[i], y[i], z[i]);
      return 1;
    }
  if (bad) fprintf(stderr, "tlc_bench_latency: %d warm start(s) compiled or ran the PTX JIT\n", bad);
  return bad ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--child-warm")) return child_warm();
  if (argc > 1 && !strcmp(argv[1], "--child-warm-ws")) return child_warm_ws();
  int reps = 11, calls = 20000;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--launches") && i + 1 < argc) calls = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: tlc_bench_latency [--reps N] [--launches N]\n");
      return 2;
    }
  }
  if (reps < 1 || reps > 1000 || calls < 1 || calls > 10000000) {
    fprintf(stderr, "tlc_bench_latency: --reps 1..1000, --launches 1..10000000\n");
    return 2;
  }
  char *dir = g_tmp_dir;
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  atexit(remove_tmp_dir);
  setenv("TLC_CACHE_DIR", dir, 1); /* empty: the cold path */
  char jit_dir[sizeof g_tmp_dir + 16];
  snprintf(jit_dir, sizeof jit_dir, "%s/cuda-jit", dir); /* the driver's JIT cache, empty too */
  setenv("CUDA_CACHE_PATH", jit_dir, 1);
  tlc_runtime *rt = open_device();
  printf("DEVICE %s (%s)\n", tlc_device_name(rt), tlc_device_arch(rt));
  Mm mm = {0};
  int rc = measure(rt, &mm, reps, calls);
  free(mm.ha), free(mm.hb);
  tlc_runtime_close(rt);
  return rc; /* (remove_tmp_dir at exit) */
}
