/* kernel.c — turning PTX into a launchable kernel.
 *
 * Owns tlc_kernel: loading a kernel's machine code — the cubin its record
 * carries when it was made for this device and driver, else the PTX through
 * the driver's linker (cuLinkCreate / cuLinkAddData / cuLinkComplete, with
 * the JIT's info and error logs), whose cubin is kept in the record for the
 * disk cache, or, for a kernel with setmaxnreg, which the linker drops,
 * through cuModuleLoadDataEx — finding the entry, checking the kernel's resources
 * against the device (threads per program against its register use, shared
 * memory against the opt-in maximum, raising the dynamic shared memory limit
 * above the default 48 KiB), the metadata record and its accessors, and
 * tlc_kernel_from_ptx, the ahead-of-time path.
 *
 * When the driver rejects PTX the message carries the driver's error, the
 * JIT error log and a command that reproduces the failure: the PTX is saved
 * beside the cache (or in $TMPDIR, /tmp) and `ptxas -arch=ARCH FILE` is
 * spelled out.  Compiling from source is jit.c's; this file never calls the
 * compiler. */
#include "runtime/rt_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cache.h"

/* ---- small shared helpers ------------------------------------------------------- */

char *rt_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

void rt_meta_free(RtKernelMeta *m) {
  free(m->symbol);
  if (m->params)
    for (int i = 0; i < m->nparams; i++) free(m->params[i].name);
  free(m->params);
  free(m->tma);
  free(m->ptx);
  free(m->cubin);
  memset(m, 0, sizeof *m);
}

/* ---- the repro file ------------------------------------------------------------------- */

/* The arch named by the PTX's .target line ("sm_90a"), else the device's. */
static void rt_ptx_target(const char *ptx, const char *fallback, char *buf, size_t len) {
  for (const char *p = strstr(ptx, ".target"); p; p = strstr(p + 1, ".target")) {
    if (p != ptx && p[-1] != '\n' && p[-1] != ' ' && p[-1] != '\t') continue;
    p += strlen(".target");
    while (*p == ' ' || *p == '\t') p++;
    size_t n = 0;
    while (n + 1 < len && (p[n] == '_' || (p[n] >= 'a' && p[n] <= 'z') || (p[n] >= '0' && p[n] <= '9')))
      n++;
    if (n > 3 && !strncmp(p, "sm_", 3)) {
      memcpy(buf, p, n);
      buf[n] = 0;
      return;
    }
  }
  snprintf(buf, len, "%s", fallback);
}

/* Save the PTX to a file a person can hand to ptxas.  Returns the path
 * (malloc'd) or NULL with *err set. */
static char *rt_save_repro(tlc_runtime *rt, const RtKernelMeta *m, const char **err) {
  char sym[65];
  size_t n = 0;
  for (const char *s = m->symbol; *s && n < sizeof sym - 1; s++)
    sym[n++] = (*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')) ? *s : '_';
  sym[n] = 0;
  unsigned long long h = (unsigned long long)rt_hash64(m->ptx, strlen(m->ptx), 0);
  const char *tmp = getenv("TMPDIR");
  const char *dirs[2] = {rt->cache.dir, tmp && *tmp ? tmp : "/tmp"};
  *err = "no folder to write it to";
  for (int i = 0; i < 2; i++) {
    if (!dirs[i]) continue;
    size_t len = strlen(dirs[i]) + strlen(sym) + 48;
    char *path = malloc(len);
    if (!path) {
      *err = "out of memory";
      return NULL;
    }
    snprintf(path, len, "%s/tlc-failed-%s-%016llx.ptx", dirs[i], sym, h);
    if (rt_mkdir_p(dirs[i]) == 0 && rt_write_file_atomic(path, m->ptx, strlen(m->ptx)) == 0)
      return path;
    *err = strerror(errno);
    free(path);
  }
  return NULL;
}

/* Drop trailing newlines and spaces of a driver log in place. */
static char *rt_trim_log(char *log, size_t cap, uintptr_t written) {
  size_t n = written < cap ? (size_t)written : cap - 1;
  log[n] = 0;
  n = strlen(log);
  while (n && (log[n - 1] == '\n' || log[n - 1] == '\r' || log[n - 1] == ' ')) log[--n] = 0;
  return log;
}

/* ---- loading ---------------------------------------------------------------------------- */

enum { RT_LOG_BYTES = 16384 };

/* Does the kernel move registers between its warp roles (setmaxnreg, the
 * warp-specialized kernels)?  The driver's linker compiles PTX as
 * relocatable code and drops setmaxnreg there (cuobjdump of its cubin shows
 * no USETMAXREG; CU_JIT_POSITION_INDEPENDENT_CODE 0, CU_JIT_TARGET and
 * .maxnreg do not bring it back), so the consumers would keep the entry
 * register count and spill past it (bench/results/2026-11-30-h200-session23.md
 * §4, 2026-11-30-h200-session24.md §1).  Such a kernel is loaded from its PTX with
 * cuModuleLoadDataEx, which keeps it; the driver gives no cubin back, so the
 * disk entry keeps none and the driver's own JIT cache (~/.nv/ComputeCache)
 * serves the next process. */
static bool rt_moves_registers(const char *ptx) { return ptx && strstr(ptx, "setmaxnreg.") != NULL; }

/* The cubin the meta carries, when it was made for this device by this
 * driver: loaded, and true; else false (nothing loaded, the meta's cubin
 * dropped when the driver refused it). */
static bool rt_load_cached_cubin(tlc_runtime *rt, tlc_kernel *k) {
  RtKernelMeta *m = &k->meta;
  if (!m->cubin || m->cubin_capability != rt->capability || m->cubin_driver != rt->drv->version) return false;
  if (rt->drv->cuModuleLoadData(&k->module, m->cubin) == CUDA_SUCCESS) return true;
  k->module = NULL; /* (a cubin this driver cannot take after all: the PTX is linked again) */
  free(m->cubin);
  m->cubin = NULL, m->cubin_len = 0;
  return false;
}

/* The linker's half of rt_link_ptx: PTX -> cubin, kept in the meta (for
 * the disk cache) and loaded.  *step names the call that failed. */
static CUresult rt_link_cubin(tlc_runtime *rt, tlc_kernel *k, CUjit_option *opts, void **vals,
                              const char **step) {
  const RtDriver *drv = rt->drv;
  CUlinkState link = NULL;
  void *cubin = NULL;
  size_t cubin_len = 0;
  *step = "cuLinkCreate";
  CUresult r = drv->cuLinkCreate(4, opts, vals, &link);
  if (r == CUDA_SUCCESS) {
    *step = "cuLinkAddData";
    r = drv->cuLinkAddData(link, CU_JIT_INPUT_PTX, k->meta.ptx, strlen(k->meta.ptx) + 1, k->meta.symbol, 0,
                           NULL, NULL);
  }
  if (r == CUDA_SUCCESS) {
    *step = "cuLinkComplete";
    r = drv->cuLinkComplete(link, &cubin, &cubin_len);
  }
  if (r == CUDA_SUCCESS && (!cubin || !cubin_len)) r = CUDA_ERROR_INVALID_IMAGE;
  if (r == CUDA_SUCCESS) { /* the cubin belongs to the link session: copied before it ends */
    free(k->meta.cubin);
    k->meta.cubin = malloc(cubin_len);
    k->meta.cubin_len = 0;
    if (!k->meta.cubin) {
      *step = "malloc";
      r = CUDA_ERROR_OUT_OF_MEMORY;
    } else {
      memcpy(k->meta.cubin, cubin, cubin_len);
      k->meta.cubin_len = cubin_len;
      k->meta.cubin_capability = rt->capability;
      k->meta.cubin_driver = drv->version;
      *step = "cuModuleLoadData";
      r = drv->cuModuleLoadData(&k->module, cubin);
      k->cubin_linked = true;
    }
  }
  if (link) drv->cuLinkDestroy(link);
  return r;
}

/* The PTX through the driver's JIT: the linker (rt_link_cubin), or, when
 * `direct`, cuModuleLoadDataEx (a kernel that moves registers).  On failure
 * a message with the driver's error, the JIT's logs, a hint where one
 * applies and a repro command. */
static tlc_status rt_link_ptx(tlc_runtime *rt, tlc_kernel *k, bool direct) {
  const RtDriver *drv = rt->drv;
  char *info = calloc(1, RT_LOG_BYTES), *errlog = calloc(1, RT_LOG_BYTES);
  if (!info || !errlog) {
    free(info);
    free(errlog);
    return rt_fail(rt, TLC_ERR_INVALID, "kernel '%s': out of host memory", k->name);
  }
  CUjit_option opts[4] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                          CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *vals[4] = {info, (void *)(uintptr_t)RT_LOG_BYTES, errlog, (void *)(uintptr_t)RT_LOG_BYTES};
  const char *step = "cuModuleLoadDataEx";
  double t0 = rt_now_ms();
  CUresult r;
  if (direct)
    r = drv->cuModuleLoadDataEx(&k->module, k->meta.ptx, 4, opts, vals);
  else
    r = rt_link_cubin(rt, k, opts, vals, &step);
  k->link_ms = rt_now_ms() - t0;
  tlc_status st = TLC_OK;
  if (r == CUDA_ERROR_OUT_OF_MEMORY && !strcmp(step, "malloc")) {
    st = rt_fail(rt, TLC_ERR_INVALID, "kernel '%s': out of host memory", k->name);
  } else if (r != CUDA_SUCCESS) {
    k->module = NULL;
    rt_trim_log(info, RT_LOG_BYTES, (uintptr_t)vals[1]);
    rt_trim_log(errlog, RT_LOG_BYTES, (uintptr_t)vals[3]);
    char text[320], arch[32];
    rt_cuda_error_text(drv, r, text, sizeof text);
    rt_ptx_target(k->meta.ptx, rt->arch, arch, sizeof arch);
    /* A driver older than the PTX ISA the compiler targeted is common enough to name. */
    char hint[256] = "";
    if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION) {
      const char *v = strstr(k->meta.ptx, ".version");
      int major = 0, minor = 0;
      if (v && sscanf(v, ".version %d.%d", &major, &minor) == 2)
        snprintf(hint, sizeof hint,
                 "the PTX is ISA %d.%d and this driver supports CUDA %d.%d; update the driver\n",
                 major, minor, drv->version / 1000, drv->version % 1000 / 10);
    }
    /* PTX for sm_XY runs on capability XY and newer; for sm_XYa on XY only. */
    int target = atoi(arch + 3);
    size_t alen = strlen(arch);
    bool specific = alen > 3 && arch[alen - 1] == 'a';
    if (!*hint && target > 0 && (target > rt->capability || (specific && target != rt->capability)))
      snprintf(hint, sizeof hint,
               "PTX for %s runs only on compute capability %d.%d%s, and this device is %d.%d; "
               "compile it for %s\n",
               arch, target / 10, target % 10, specific ? "" : " and newer", rt->capability / 10,
               rt->capability % 10, rt->arch);
    const char *why = NULL;
    char *repro = rt_save_repro(rt, &k->meta, &why);
    st = rt_fail(rt, TLC_ERR_LOAD,
                 "kernel '%s': the CUDA driver rejected its PTX: %s: %s\n"
                 "JIT error log:\n%s\n%s%s%s%s"
                 "%s%s%s%s",
                 k->name, step, text, *errlog ? errlog : "(empty)",
                 *info ? "JIT info log:\n" : "", info, *info ? "\n" : "", hint,
                 repro ? "reproduce with: ptxas -arch=" : "(the PTX could not be saved for a repro: ",
                 repro ? arch : why, repro ? " " : ")", repro ? repro : "");
    free(repro);
  }
  free(info);
  free(errlog);
  return st;
}

/* A kernel that moves registers never takes a cubin (one the meta carries
 * is a linker's, an older runtime's or an AOT record's, compiled without its
 * setmaxnreg, and none comes back from its load); any other, the cached
 * cubin when it fits, else the linker's. */
static tlc_status rt_load_module(tlc_runtime *rt, tlc_kernel *k) {
  if (rt_moves_registers(k->meta.ptx)) {
    free(k->meta.cubin);
    k->meta.cubin = NULL, k->meta.cubin_len = 0;
    return rt_link_ptx(rt, k, true);
  }
  if (rt_load_cached_cubin(rt, k)) return TLC_OK;
  return rt_link_ptx(rt, k, false);
}

/* Look up the entry and fit its resources to the device. */
static tlc_status rt_prepare_function(tlc_runtime *rt, tlc_kernel *k) {
  const RtDriver *drv = rt->drv;
  CUresult r = drv->cuModuleGetFunction(&k->fn, k->module, k->meta.symbol);
  if (r != CUDA_SUCCESS)
    return rt_fail_cuda(rt, TLC_ERR_LOAD, r, "kernel '%s': the PTX has no .entry '%s'", k->name,
                        k->meta.symbol);
  int max_threads = 0;
  if ((r = drv->cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k->fn)) ||
      (r = drv->cuFuncGetAttribute(&k->static_shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k->fn)) ||
      (r = drv->cuFuncGetAttribute(&k->num_regs, CU_FUNC_ATTRIBUTE_NUM_REGS, k->fn)))
    return rt_fail_cuda(rt, TLC_ERR_CUDA, r, "kernel '%s': cuFuncGetAttribute", k->name);

  int threads = 32 * k->meta.num_warps;
  /* Two things cap the threads of a program: the registers (64 Ki 32-bit
   * registers per block on every GPU tlc targets) and a .maxntid/.reqntid
   * directive in the PTX.  Name the one that applies. */
  if (threads > max_threads && (long long)k->num_regs * threads > 65536)
    return rt_fail(rt, TLC_ERR_LAUNCH,
                   "kernel '%s' runs %d threads per program (num_warps=%d) but uses %d registers "
                   "per thread, so %s allows at most %d threads per program; use fewer warps",
                   k->name, threads, k->meta.num_warps, k->num_regs, rt->name, max_threads);
  if (threads > max_threads)
    return rt_fail(rt, TLC_ERR_LAUNCH,
                   "kernel '%s' runs %d threads per program (num_warps=%d) but its PTX allows at "
                   "most %d (a .maxntid or .reqntid directive); use fewer warps",
                   k->name, threads, k->meta.num_warps, max_threads);
  long long total = (long long)k->static_shared + k->meta.shared_bytes;
  if (total > rt->smem_optin)
    return rt_fail(rt, TLC_ERR_LAUNCH,
                   "kernel '%s' needs %lld bytes of shared memory per program (%d dynamic + %d "
                   "static) but %s allows at most %d per block; use fewer stages or smaller blocks",
                   k->name, total, k->meta.shared_bytes, k->static_shared, rt->name, rt->smem_optin);
  if (total > rt->smem_default) {
    /* Above the default (48 KiB) a kernel must opt in to dynamic shared memory. */
    r = drv->cuFuncSetAttribute(k->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                k->meta.shared_bytes);
    if (r != CUDA_SUCCESS)
      return rt_fail_cuda(rt, TLC_ERR_LAUNCH, r,
                          "kernel '%s': cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, %d)",
                          k->name, k->meta.shared_bytes);
  }
  return TLC_OK;
}

static void rt_kernel_free(tlc_runtime *rt, tlc_kernel *k) {
  if (k->module) rt->drv->cuModuleUnload(k->module);
  if (k->cpu_prog && k->cpu_free) k->cpu_free(k->cpu_prog);
  rt_meta_free(&k->meta);
  free(k->pack);
  free(k->tma_memo);
  for (int i = 0; i < k->ncx; i++) free(k->cx[i]);
  free(k->cx);
  free(k->name);
  free(k);
}

tlc_status rt_kernel_load(tlc_runtime *rt, RtKernelMeta *meta, const char *name,
                          double compile_ms, tlc_kernel **out) {
  *out = NULL;
  tlc_kernel *k = calloc(1, sizeof *k);
  if (k) k->name = rt_strdup(name ? name : meta->symbol);
  if (!k || !k->name) {
    free(k);
    rt_meta_free(meta);
    return rt_fail(rt, TLC_ERR_INVALID, "out of host memory loading a kernel");
  }
  k->rt = rt;
  k->meta = *meta;
  memset(meta, 0, sizeof *meta);
  k->compile_ms = compile_ms;
  tlc_status st = rt_enter(rt);
  if (st == TLC_OK && !rt->cpu) st = rt_load_module(rt, k); /* the CPU device: cpu_jit.c sets the hooks */
  if (st == TLC_OK && !rt->cpu) st = rt_prepare_function(rt, k);
  if (st == TLC_OK) st = rt_launch_prepare(k);
  if (st != TLC_OK) {
    rt_kernel_free(rt, k);
    return st;
  }
  pthread_mutex_lock(&rt->lock);
  k->next = rt->kernels;
  rt->kernels = k;
  pthread_mutex_unlock(&rt->lock);
  *out = k;
  return TLC_OK;
}

void rt_kernels_release_all(tlc_runtime *rt) {
  while (rt->kernels) {
    tlc_kernel *k = rt->kernels;
    rt->kernels = k->next;
    rt_kernel_free(rt, k);
  }
}

/* ---- the ahead-of-time path ------------------------------------------------------------ */

tlc_status tlc_kernel_from_ptx(tlc_runtime *rt, const char *ptx, const char *symbol,
                               int num_warps, int shared_bytes, const tlc_param_desc *params,
                               int nparams, tlc_kernel **out) {
  if (out) *out = NULL;
  tlc_status st = rt_usable(rt);
  if (st != TLC_OK) return st;
  if (!out) return rt_fail(rt, TLC_ERR_INVALID, "tlc_kernel_from_ptx: NULL result pointer");
  if (!ptx || !*ptx) return rt_fail(rt, TLC_ERR_INVALID, "tlc_kernel_from_ptx: no PTX text");
  if (rt->cpu)
    return rt_fail(rt, TLC_ERR_LOAD, "tlc_kernel_from_ptx: the CPU device runs kernels from their .tile source "
                   "(tlc_kernel_from_file / _source), not PTX");
  if (!symbol || !*symbol) return rt_fail(rt, TLC_ERR_INVALID, "tlc_kernel_from_ptx: no entry symbol");
  if (num_warps < 1 || num_warps > 32)
    return rt_fail(rt, TLC_ERR_INVALID,
                   "tlc_kernel_from_ptx: kernel '%s': num_warps %d is outside 1..32", symbol, num_warps);
  if (shared_bytes < 0)
    return rt_fail(rt, TLC_ERR_INVALID, "tlc_kernel_from_ptx: kernel '%s': negative shared_bytes", symbol);
  if (nparams < 0 || (nparams > 0 && !params))
    return rt_fail(rt, TLC_ERR_INVALID, "tlc_kernel_from_ptx: kernel '%s': bad parameter list", symbol);

  RtKernelMeta m = {0};
  m.num_warps = num_warps;
  m.shared_bytes = shared_bytes;
  m.symbol = rt_strdup(symbol);
  m.ptx = rt_strdup(ptx);
  m.params = calloc((size_t)nparams + 1, sizeof *m.params);
  if (!m.symbol || !m.ptx || !m.params) {
    rt_meta_free(&m);
    return rt_fail(rt, TLC_ERR_INVALID, "tlc_kernel_from_ptx: out of host memory");
  }
  for (int i = 0; i < nparams; i++) {
    tlc_param_kind kind;
    if (tlc_param_kind_parse(params[i].type, &kind) != 0) {
      rt_meta_free(&m);
      return rt_fail(rt, TLC_ERR_INVALID,
                     "tlc_kernel_from_ptx: kernel '%s' parameter %d ('%s') has unknown type '%s' "
                     "(expected ptr, i1, i8, i16, i32, i64, u8, u16, u32, u64, fp16, bf16, fp32 or fp64)",
                     symbol, i, params[i].name ? params[i].name : "?",
                     params[i].type ? params[i].type : "(null)");
    }
    char pname[24];
    snprintf(pname, sizeof pname, "arg%d", i);
    m.params[i].kind = kind;
    m.params[i].name = rt_strdup(params[i].name && *params[i].name ? params[i].name : pname);
    m.nparams = i + 1;
    if (!m.params[i].name) {
      rt_meta_free(&m);
      return rt_fail(rt, TLC_ERR_INVALID, "tlc_kernel_from_ptx: out of host memory");
    }
  }
  st = rt_kernel_load(rt, &m, symbol, 0.0, out);
  if (st == TLC_OK) (*out)->from_ptx = true;
  return st;
}

tlc_status tlc_kernel_unload(tlc_kernel *k) {
  if (!k) return TLC_ERR_INVALID;
  tlc_runtime *rt = k->rt;
  if (!k->from_ptx)
    return rt_fail(rt, TLC_ERR_INVALID, "tlc_kernel_unload: kernel '%s' was compiled from source and belongs "
                   "to the runtime's cache (only kernels from tlc_kernel_from_ptx can be unloaded)", k->name);
  pthread_mutex_lock(&rt->lock);
  tlc_kernel **p = &rt->kernels;
  while (*p && *p != k) p = &(*p)->next;
  if (*p) *p = k->next;
  pthread_mutex_unlock(&rt->lock);
  if (rt_enter(rt) != TLC_OK) k->module = NULL; /* no context to unload in: the runtime's close releases it */
  rt_kernel_free(rt, k);
  return TLC_OK;
}

/* ---- accessors -------------------------------------------------------------------------- */

int tlc_kernel_num_params(const tlc_kernel *k) { return k ? k->meta.nparams : 0; }
int tlc_kernel_num_warps(const tlc_kernel *k) { return k ? k->meta.num_warps : 0; }
int tlc_kernel_shared_bytes(const tlc_kernel *k) { return k ? k->meta.shared_bytes : 0; }
const char *tlc_kernel_ptx(const tlc_kernel *k) { return k ? k->meta.ptx : NULL; }
double tlc_kernel_compile_ms(const tlc_kernel *k) { return k ? k->compile_ms : 0.0; }
double tlc_kernel_link_ms(const tlc_kernel *k) { return k ? k->link_ms : 0.0; }
