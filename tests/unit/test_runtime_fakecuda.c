/* test_runtime_fakecuda.c — a fake libcuda.so.1 for testing the runtime
 * on machines without a GPU.
 *
 * Exports every entry point runtime/cuda_driver.h lists, under the symbol
 * names the runtime looks up (cuMemAlloc_v2, ...), with the same signatures
 * (checked at compile time against the rt_pfn_* typedefs at the bottom).
 * One device; memory is host memory; PTX "links" into a fake cubin (a
 * header naming the capability, then the PTX) and fails with a JIT error
 * log when it contains the word SYNTAX_ERROR; a module "loads" from such a
 * cubin or from PTX and has the .entry its PTX declares; launches are
 * recorded in the FakeCudaState the test reads.
 * Every call that needs a context checks that one is current on the calling
 * thread, as the real driver does. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cuda_driver.h"
#include "tests/unit/test_runtime_fakecuda.h"

struct RtCuContext { int id; };
struct RtCuModule { char *ptx; };
struct RtCuFunction { struct RtCuModule *module; char name[128]; int nparams; };
struct RtCuEvent { int recorded; };

static FakeCudaState g_state = {
    .cc_major = 9, .cc_minor = 0, .device_count = 1,
    .max_threads_per_function = 1024, .dynamic_smem_attr = -1,
};
static struct RtCuContext g_primary = {1};
/* The runtime loads kernels from several threads (the autotuner's compile
 * pool): the module, function and link bookkeeping is done under this. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local CUcontext t_current;
static int g_inited;

FakeCudaState *fake_cuda_state(void) { return &g_state; }

static CUresult need_ctx(void) {
  if (t_current != &g_primary || g_state.primary_refs <= 0) {
    g_state.calls_without_context++;
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  return CUDA_SUCCESS;
}

/* ---- init, errors, devices ---------------------------------------------------- */

CUresult cuInit(unsigned int flags) {
  if (g_state.fail_init) return (CUresult)g_state.fail_init;
  g_inited = 1;
  return flags == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuDriverGetVersion(int *v) {
  *v = g_state.driver_version ? g_state.driver_version : 13000;
  return CUDA_SUCCESS;
}

static const struct { CUresult r; const char *name, *text; } g_errors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested for launch"},
};

CUresult cuGetErrorName(CUresult r, const char **name) {
  for (size_t i = 0; i < sizeof g_errors / sizeof *g_errors; i++)
    if (g_errors[i].r == r) {
      *name = g_errors[i].name;
      return CUDA_SUCCESS;
    }
  *name = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult r, const char **text) {
  for (size_t i = 0; i < sizeof g_errors / sizeof *g_errors; i++)
    if (g_errors[i].r == r) {
      *text = g_errors[i].text;
      return CUDA_SUCCESS;
    }
  *text = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

CUresult cuDeviceGetCount(int *n) {
  *n = g_state.device_count;
  return g_inited ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

CUresult cuDeviceGet(CUdevice *d, int ordinal) {
  if (ordinal < 0 || ordinal >= g_state.device_count) return CUDA_ERROR_INVALID_DEVICE;
  *d = ordinal;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
  const char *n = "Fake GPU (tlc test driver)";
  strncpy(name, n, (size_t)len);
  if (len > 0) name[len - 1] = 0;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d) {
  switch (a) {
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *v = 2147483647; break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: *v = 65535; break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *v = 65535; break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *v = 49152; break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
  case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *v = 64 << 10; break; /* small: trials memset 4x it */
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = g_state.cc_major; break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = g_state.cc_minor; break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = 232448; break;
  default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

/* ---- contexts ---------------------------------------------------------------------- */

CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) {
  g_state.primary_refs++;
  *c = &g_primary;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) {
  if (g_state.primary_refs <= 0) return CUDA_ERROR_INVALID_CONTEXT;
  g_state.primary_refs--;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext *c) {
  *c = t_current;
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext c) {
  t_current = c;
  return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void) {
  CUresult r = need_ctx();
  if (r) return r;
  r = (CUresult)g_state.fail_sync;
  return r;
}

/* ---- memory ------------------------------------------------------------------------- */

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
  CUresult r = need_ctx();
  if (r) return r;
  if (g_state.fail_alloc) {
    r = (CUresult)g_state.fail_alloc;
    g_state.fail_alloc = 0;
    return r;
  }
  void *m = malloc(n);
  if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
  g_state.live_allocs++;
  *p = (CUdeviceptr)(uintptr_t)m;
  return CUDA_SUCCESS;
}

CUresult cuMemFree_v2(CUdeviceptr p) {
  CUresult r = need_ctx();
  if (r) return r;
  free((void *)(uintptr_t)p);
  g_state.live_allocs--;
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) {
  CUresult r = need_ctx();
  if (r) return r;
  memcpy((void *)(uintptr_t)dst, src, n);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) {
  CUresult r = need_ctx();
  if (r) return r;
  memcpy(dst, (const void *)(uintptr_t)src, n);
  return CUDA_SUCCESS;
}

CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char v, size_t n) {
  CUresult r = need_ctx();
  if (r) return r;
  memset((void *)(uintptr_t)dst, v, n);
  return CUDA_SUCCESS;
}

CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned int v, size_t n) {
  CUresult r = need_ctx();
  if (r) return r;
  unsigned int *w = (unsigned int *)(uintptr_t)dst;
  for (size_t i = 0; i < n; i++) w[i] = v;
  return CUDA_SUCCESS;
}

/* ---- modules and functions ---------------------------------------------------------- */

static void write_log(unsigned int n, CUjit_option *opts, void **vals, CUjit_option buf_opt,
                      CUjit_option size_opt, const char *text) {
  char *buf = NULL;
  size_t cap = 0;
  int size_at = -1;
  for (unsigned i = 0; i < n; i++) {
    if (opts[i] == buf_opt) buf = vals[i];
    if (opts[i] == size_opt) {
      cap = (size_t)(uintptr_t)vals[i];
      size_at = (int)i;
    }
  }
  if (!buf || !cap || size_at < 0) return;
  size_t len = strlen(text);
  if (len >= cap) len = cap - 1;
  memcpy(buf, text, len);
  buf[len] = 0;
  vals[size_at] = (void *)(uintptr_t)(len + 1);
}

/* The checks the real JIT would fail: the word SYNTAX_ERROR, or a .target
 * the device cannot run.  0, or the error (logs written as the driver's). */
static CUresult fake_jit_check(const char *ptx, unsigned int n, CUjit_option *opts, void **vals) {
  if (strstr(ptx, "SYNTAX_ERROR")) {
    write_log(n, opts, vals, CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
              "ptxas application ptx input, line 7; error   : Unknown symbol 'SYNTAX_ERROR'\n"
              "ptxas fatal   : Ptx assembly aborted due to errors\n");
    write_log(n, opts, vals, CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, "");
    return CUDA_ERROR_INVALID_PTX;
  }
  /* The driver's rule for PTX targets: sm_XY runs on capability XY and
   * newer (the JIT compiles it forward), sm_XYa on XY only. */
  const char *t = strstr(ptx, ".target sm_");
  if (t) {
    int target = atoi(t + strlen(".target sm_")), cap = 10 * g_state.cc_major + g_state.cc_minor;
    const char *end = t + strlen(".target sm_");
    while (*end >= '0' && *end <= '9') end++;
    if (target > cap || (*end == 'a' && target != cap)) {
      write_log(n, opts, vals, CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                "ptxas fatal   : the fake device cannot run this .target\n");
      write_log(n, opts, vals, CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, "");
      return CUDA_ERROR_INVALID_PTX;
    }
  }
  write_log(n, opts, vals, CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
            "ptxas info    : 0 bytes gmem\n");
  write_log(n, opts, vals, CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, "");
  return CUDA_SUCCESS;
}

/* The fake's "cubin": this header, the capability it was made for, a
 * newline, then the PTX it came from. */
#define FAKE_CUBIN_MAGIC "FAKECUBIN sm_"

/* A module from an image: a fake cubin (of this device's capability) or PTX
 * (the JIT's logs written through the options, as the linker writes them). */
static CUresult cuModuleLoadData_locked(CUmodule *m, const void *image, unsigned int n, CUjit_option *opts,
                                        void **vals) {
  CUresult r = need_ctx();
  if (r) return r;
  const char *text = image;
  if (!strncmp(text, FAKE_CUBIN_MAGIC, strlen(FAKE_CUBIN_MAGIC))) {
    int made_for = atoi(text + strlen(FAKE_CUBIN_MAGIC));
    if (made_for != 10 * g_state.cc_major + g_state.cc_minor) return CUDA_ERROR_NO_BINARY_FOR_GPU;
    if (g_state.fail_cubin > 0) {
      g_state.fail_cubin--;
      return CUDA_ERROR_NO_BINARY_FOR_GPU;
    }
    text = strchr(text, '\n');
    if (!text) return CUDA_ERROR_INVALID_IMAGE;
    text++;
    g_state.cubins_loaded++;
  } else if ((r = fake_jit_check(text, n, opts, vals)) != CUDA_SUCCESS) {
    return r;
  } else {
    g_state.ptx_jits++;
    g_state.ptx_loads++;
  }
  struct RtCuModule *mod = calloc(1, sizeof *mod);
  mod->ptx = strdup(text);
  *m = mod;
  g_state.live_modules++;
  g_state.modules_loaded++;
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadData(CUmodule *m, const void *image) {
  pthread_mutex_lock(&g_lock);
  CUresult r = cuModuleLoadData_locked(m, image, 0, NULL, NULL);
  pthread_mutex_unlock(&g_lock);
  return r;
}

CUresult cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned int n, CUjit_option *opts, void **vals) {
  pthread_mutex_lock(&g_lock);
  CUresult r = cuModuleLoadData_locked(m, image, n, opts, vals);
  int logs = 0; /* the info and error log buffers, each with its size */
  for (unsigned i = 0; i < n; i++)
    logs += opts[i] == CU_JIT_INFO_LOG_BUFFER || opts[i] == CU_JIT_ERROR_LOG_BUFFER ||
            opts[i] == CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES || opts[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES;
  if (r == CUDA_SUCCESS && logs == 4 && strncmp(image, FAKE_CUBIN_MAGIC, strlen(FAKE_CUBIN_MAGIC))) g_state.ptx_loads_ex++;
  pthread_mutex_unlock(&g_lock);
  return r;
}

/* ---- the linker: PTX in, a fake cubin out --------------------------------------------- */

struct RtCuLinkState {
  unsigned int nopts;
  CUjit_option *opts;   /* the caller's arrays: the logs are written through them */
  void **vals;
  char *ptx;
  char *cubin;
};

static CUresult cuLinkCreate_v2_locked(unsigned int n, CUjit_option *opts, void **vals, CUlinkState *state) {
  CUresult r = need_ctx();
  if (r) return r;
  struct RtCuLinkState *l = calloc(1, sizeof *l);
  l->nopts = n, l->opts = opts, l->vals = vals;
  *state = l;
  g_state.live_links++;
  return CUDA_SUCCESS;
}

CUresult cuLinkCreate_v2(unsigned int n, CUjit_option *opts, void **vals, CUlinkState *state) {
  pthread_mutex_lock(&g_lock);
  CUresult r = cuLinkCreate_v2_locked(n, opts, vals, state);
  pthread_mutex_unlock(&g_lock);
  return r;
}

static CUresult cuLinkAddData_v2_locked(CUlinkState l, CUjitInputType type, void *data, size_t bytes, const char *name,
                          unsigned int n, CUjit_option *opts, void **vals) {
  CUresult r = need_ctx();
  if (r) return r;
  if (type != CU_JIT_INPUT_PTX || !data || !bytes || ((const char *)data)[bytes - 1] != 0 || l->ptx)
    return CUDA_ERROR_INVALID_VALUE;
  if ((r = fake_jit_check(data, l->nopts, l->opts, l->vals)) != CUDA_SUCCESS) return r;
  l->ptx = strdup(data);
  return CUDA_SUCCESS;
}

CUresult cuLinkAddData_v2(CUlinkState l, CUjitInputType type, void *data, size_t bytes, const char *name,
                          unsigned int n, CUjit_option *opts, void **vals) {
  pthread_mutex_lock(&g_lock);
  CUresult r = cuLinkAddData_v2_locked(l, type, data, bytes, name, n, opts, vals);
  pthread_mutex_unlock(&g_lock);
  return r;
}

static CUresult cuLinkComplete_locked(CUlinkState l, void **cubin, size_t *bytes) {
  CUresult r = need_ctx();
  if (r) return r;
  if (!l->ptx) return CUDA_ERROR_INVALID_VALUE;
  size_t len = strlen(FAKE_CUBIN_MAGIC) + 16 + strlen(l->ptx) + 1;
  free(l->cubin);
  l->cubin = malloc(len);
  int n = snprintf(l->cubin, len, "%s%d\n%s", FAKE_CUBIN_MAGIC, 10 * g_state.cc_major + g_state.cc_minor, l->ptx);
  *cubin = l->cubin;
  *bytes = (size_t)n + 1;
  g_state.ptx_jits++;
  return CUDA_SUCCESS;
}

CUresult cuLinkComplete(CUlinkState l, void **cubin, size_t *bytes) {
  pthread_mutex_lock(&g_lock);
  CUresult r = cuLinkComplete_locked(l, cubin, bytes);
  pthread_mutex_unlock(&g_lock);
  return r;
}

static CUresult cuLinkDestroy_locked(CUlinkState l) {
  free(l->ptx);
  if (l->cubin) memset(l->cubin, 0, strlen(l->cubin)); /* a caller that kept the pointer reads nothing */
  free(l->cubin);
  free(l);
  g_state.live_links--;
  return CUDA_SUCCESS;
}

CUresult cuLinkDestroy(CUlinkState l) {
  pthread_mutex_lock(&g_lock);
  CUresult r = cuLinkDestroy_locked(l);
  pthread_mutex_unlock(&g_lock);
  return r;
}

/* Functions are handed out per lookup and owned by the module list below. */
static struct RtCuFunction *g_functions[256];
static int g_nfunctions;

static CUresult cuModuleGetFunction_locked(CUfunction *f, CUmodule m, const char *name) {
  CUresult r = need_ctx();
  if (r) return r;
  char pat[160];
  snprintf(pat, sizeof pat, ".entry %s(", name);
  const char *hit = strstr(m->ptx, pat);
  if (!hit) {
    snprintf(pat, sizeof pat, ".entry %s ", name);
    hit = strstr(m->ptx, pat);
  }
  if (!hit || g_nfunctions == 256) return CUDA_ERROR_NOT_FOUND;
  struct RtCuFunction *fn = calloc(1, sizeof *fn);
  fn->module = m;
  /* Count the entry's .param declarations, as the driver knows its parameters. */
  const char *open = strchr(hit, '('), *close = open ? strchr(open, ')') : NULL;
  for (const char *p = open; p && p < close && (p = strstr(p, ".param")) && p < close; p++)
    fn->nparams++;
  snprintf(fn->name, sizeof fn->name, "%s", name);
  g_functions[g_nfunctions++] = fn;
  *f = fn;
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
  pthread_mutex_lock(&g_lock);
  CUresult r = cuModuleGetFunction_locked(f, m, name);
  pthread_mutex_unlock(&g_lock);
  return r;
}

static CUresult cuModuleUnload_locked(CUmodule m) {
  CUresult r = need_ctx();
  if (r) return r;
  for (int i = 0; i < g_nfunctions;) {
    if (g_functions[i]->module == m) {
      free(g_functions[i]);
      g_functions[i] = g_functions[--g_nfunctions];
    } else {
      i++;
    }
  }
  free(m->ptx);
  free(m);
  g_state.live_modules--;
  return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule m) {
  pthread_mutex_lock(&g_lock);
  CUresult r = cuModuleUnload_locked(m);
  pthread_mutex_unlock(&g_lock);
  return r;
}

static CUresult cuFuncGetAttribute_locked(int *v, CUfunction_attribute a, CUfunction f) {
  switch (a) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = g_state.max_threads_per_function; break;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *v = g_state.static_shared; break;
  case CU_FUNC_ATTRIBUTE_NUM_REGS: *v = g_state.num_regs ? g_state.num_regs : 40; break;
  default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult cuFuncGetAttribute(int *v, CUfunction_attribute a, CUfunction f) {
  pthread_mutex_lock(&g_lock);
  CUresult r = cuFuncGetAttribute_locked(v, a, f);
  pthread_mutex_unlock(&g_lock);
  return r;
}

static CUresult cuFuncSetAttribute_locked(CUfunction f, CUfunction_attribute a, int v) {
  if (a != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) return CUDA_ERROR_INVALID_VALUE;
  if (v + g_state.static_shared > 232448) return CUDA_ERROR_INVALID_VALUE;
  g_state.dynamic_smem_attr = v;
  return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v) {
  pthread_mutex_lock(&g_lock);
  CUresult r = cuFuncSetAttribute_locked(f, a, v);
  pthread_mutex_unlock(&g_lock);
  return r;
}

CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                        unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared,
                        CUstream s, void **params, void **extra) {
  CUresult r = need_ctx();
  if (r) return r;
  if (g_state.fail_launch) {
    r = (CUresult)g_state.fail_launch;
    g_state.fail_launch = 0;
    return r;
  }
  g_state.launches++;
  g_state.grid[0] = gx, g_state.grid[1] = gy, g_state.grid[2] = gz;
  g_state.block[0] = bx, g_state.block[1] = by, g_state.block[2] = bz;
  g_state.shared_bytes = shared;
  memset(g_state.params, 0, sizeof g_state.params);
  /* The runtime hands 8-byte slots; reading 8 bytes from each is safe. */
  if (f->nparams && !params) return CUDA_ERROR_INVALID_VALUE;
  for (int i = 0; i < f->nparams && i < FAKE_MAX_PARAMS; i++)
    memcpy(g_state.params[i], params[i], 8);
  return CUDA_SUCCESS;
}

/* ---- tensor maps ------------------------------------------------------------------------- */

/* The map is the inputs written into its words (the runtime only passes it
 * on); each call is counted. */
CUresult cuTensorMapEncodeTiled(CUtensorMap *map, int data_type, unsigned rank, void *global_address,
                                const uint64_t *global_dim, const uint64_t *global_strides,
                                const unsigned *box_dim, const unsigned *element_strides,
                                CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob_fill) {
  if (rank < 1 || rank > 5 || ((uintptr_t)global_address & 15)) return CUDA_ERROR_INVALID_VALUE;
  memset(map, 0, sizeof *map);
  map->opaque[0] = (uint64_t)(uintptr_t)global_address;
  map->opaque[1] = (uint64_t)data_type | (uint64_t)rank << 8 | (uint64_t)swizzle << 16;
  for (unsigned d = 0; d < rank; d++) {
    map->opaque[2 + d] = global_dim[d];
    map->opaque[7 + d] = box_dim[d];
    if (d + 1 < rank) map->opaque[12 + d] = global_strides[d];
  }
  g_state.tensor_maps_encoded++;
  return CUDA_SUCCESS;
}

/* ---- events ---------------------------------------------------------------------------- */

CUresult cuEventCreate(CUevent *e, unsigned int flags) {
  CUresult r = need_ctx();
  if (r) return r;
  *e = calloc(1, sizeof **e);
  g_state.live_events++;
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent e, CUstream s) {
  CUresult r = need_ctx();
  if (r) return r;
  e->recorded = 1;
  return CUDA_SUCCESS;
}

CUresult cuEventSynchronize(CUevent e) {
  return need_ctx();
}

CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b) {
  CUresult r = need_ctx();
  if (r) return r;
  if (!a->recorded || !b->recorded) return CUDA_ERROR_NOT_READY;
  unsigned warps = g_state.block[0] / 32;
  *ms = warps <= 32 && g_state.ms_by_warps[warps] > 0 ? g_state.ms_by_warps[warps] : 1.25f;
  return CUDA_SUCCESS;
}

CUresult cuEventDestroy_v2(CUevent e) {
  free(e);
  g_state.live_events--;
  return CUDA_SUCCESS;
}

/* ---- the signatures must be the ones the runtime calls through ------------------------- */

#define FAKE_CHECK(member, symbol, params) extern const rt_pfn_##member fake_check_##member;
RT_CUDA_API(FAKE_CHECK)
#undef FAKE_CHECK
const rt_pfn_cuInit fake_check_cuInit = cuInit;
const rt_pfn_cuDriverGetVersion fake_check_cuDriverGetVersion = cuDriverGetVersion;
const rt_pfn_cuGetErrorName fake_check_cuGetErrorName = cuGetErrorName;
const rt_pfn_cuGetErrorString fake_check_cuGetErrorString = cuGetErrorString;
const rt_pfn_cuDeviceGetCount fake_check_cuDeviceGetCount = cuDeviceGetCount;
const rt_pfn_cuDeviceGet fake_check_cuDeviceGet = cuDeviceGet;
const rt_pfn_cuDeviceGetName fake_check_cuDeviceGetName = cuDeviceGetName;
const rt_pfn_cuDeviceGetAttribute fake_check_cuDeviceGetAttribute = cuDeviceGetAttribute;
const rt_pfn_cuDevicePrimaryCtxRetain fake_check_cuDevicePrimaryCtxRetain = cuDevicePrimaryCtxRetain;
const rt_pfn_cuDevicePrimaryCtxRelease fake_check_cuDevicePrimaryCtxRelease = cuDevicePrimaryCtxRelease_v2;
const rt_pfn_cuCtxGetCurrent fake_check_cuCtxGetCurrent = cuCtxGetCurrent;
const rt_pfn_cuCtxSetCurrent fake_check_cuCtxSetCurrent = cuCtxSetCurrent;
const rt_pfn_cuCtxSynchronize fake_check_cuCtxSynchronize = cuCtxSynchronize;
const rt_pfn_cuMemAlloc fake_check_cuMemAlloc = cuMemAlloc_v2;
const rt_pfn_cuMemFree fake_check_cuMemFree = cuMemFree_v2;
const rt_pfn_cuMemcpyHtoD fake_check_cuMemcpyHtoD = cuMemcpyHtoD_v2;
const rt_pfn_cuMemcpyDtoH fake_check_cuMemcpyDtoH = cuMemcpyDtoH_v2;
const rt_pfn_cuMemsetD8 fake_check_cuMemsetD8 = cuMemsetD8_v2;
const rt_pfn_cuMemsetD32 fake_check_cuMemsetD32 = cuMemsetD32_v2;
const rt_pfn_cuModuleLoadData fake_check_cuModuleLoadData = cuModuleLoadData;
const rt_pfn_cuModuleLoadDataEx fake_check_cuModuleLoadDataEx = cuModuleLoadDataEx;
const rt_pfn_cuLinkCreate fake_check_cuLinkCreate = cuLinkCreate_v2;
const rt_pfn_cuLinkAddData fake_check_cuLinkAddData = cuLinkAddData_v2;
const rt_pfn_cuLinkComplete fake_check_cuLinkComplete = cuLinkComplete;
const rt_pfn_cuLinkDestroy fake_check_cuLinkDestroy = cuLinkDestroy;
const rt_pfn_cuModuleGetFunction fake_check_cuModuleGetFunction = cuModuleGetFunction;
const rt_pfn_cuModuleUnload fake_check_cuModuleUnload = cuModuleUnload;
const rt_pfn_cuFuncGetAttribute fake_check_cuFuncGetAttribute = cuFuncGetAttribute;
const rt_pfn_cuFuncSetAttribute fake_check_cuFuncSetAttribute = cuFuncSetAttribute;
const rt_pfn_cuLaunchKernel fake_check_cuLaunchKernel = cuLaunchKernel;
const rt_pfn_cuEventCreate fake_check_cuEventCreate = cuEventCreate;
const rt_pfn_cuEventRecord fake_check_cuEventRecord = cuEventRecord;
const rt_pfn_cuEventSynchronize fake_check_cuEventSynchronize = cuEventSynchronize;
const rt_pfn_cuEventElapsedTime fake_check_cuEventElapsedTime = cuEventElapsedTime;
const rt_pfn_cuEventDestroy fake_check_cuEventDestroy = cuEventDestroy_v2;
const rt_pfn_cuTensorMapEncodeTiled fake_check_cuTensorMapEncodeTiled = cuTensorMapEncodeTiled;
