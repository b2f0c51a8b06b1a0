/* runtime.c — opening and closing a runtime: driver, device, primary
 * context; the error message; device facts.
 *
 * Owns tlc_runtime's life cycle and the two helpers every other file starts
 * with: rt_usable (is this a handle that opened?) and rt_enter (make the
 * primary context current on the calling thread).  The runtime uses the
 * device's primary context, the one the CUDA runtime and PyTorch use, and
 * sets it current on each call that needs it, so it can be mixed with them
 * in one process and called from any thread.
 *
 * A failed open still returns a handle: it remembers the status and message,
 * and every later call on it returns that status with the message unchanged. */
#include "runtime/rt_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cache.h"

/* ---- the message ------------------------------------------------------------- */

/* Format into rt->msg, growing it; when memory runs out the message is
 * truncated to the buffer it already has rather than lost. */
static void rt_set_message_v(tlc_runtime *rt, const char *suffix, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) n = 0;
  size_t need = (size_t)n + strlen(suffix) + 1;
  pthread_mutex_lock(&rt->msg_lock);
  if (need > rt->msg_cap) {
    char *m = realloc(rt->msg, need);
    if (m) {
      rt->msg = m;
      rt->msg_cap = need;
    }
  }
  vsnprintf(rt->msg, rt->msg_cap, fmt, ap);
  size_t len = strlen(rt->msg);
  snprintf(rt->msg + len, rt->msg_cap - len, "%s", suffix);
  pthread_mutex_unlock(&rt->msg_lock);
}

tlc_status rt_fail(tlc_runtime *rt, tlc_status st, const char *fmt, ...) {
  if (!rt || !rt->msg) return st;
  va_list ap;
  va_start(ap, fmt);
  rt_set_message_v(rt, "", fmt, ap);
  va_end(ap);
  return st;
}

tlc_status rt_fail_cuda(tlc_runtime *rt, tlc_status st, CUresult r, const char *fmt, ...) {
  if (!rt || !rt->msg) return st;
  char text[320], suffix[330];
  snprintf(suffix, sizeof suffix, ": %s", rt_cuda_error_text(rt->drv, r, text, sizeof text));
  va_list ap;
  va_start(ap, fmt);
  rt_set_message_v(rt, suffix, fmt, ap);
  va_end(ap);
  return st;
}

const char *tlc_runtime_error(const tlc_runtime *rt) {
  if (!rt) return "NULL tlc_runtime handle (tlc_runtime_open could not allocate one)";
  return rt->msg ? rt->msg : "";
}

const char *tlc_status_name(tlc_status s) {
  switch (s) {
  case TLC_OK: return "TLC_OK";
  case TLC_ERR_NO_DRIVER: return "TLC_ERR_NO_DRIVER";
  case TLC_ERR_NO_DEVICE: return "TLC_ERR_NO_DEVICE";
  case TLC_ERR_COMPILE: return "TLC_ERR_COMPILE";
  case TLC_ERR_LOAD: return "TLC_ERR_LOAD";
  case TLC_ERR_ARGS: return "TLC_ERR_ARGS";
  case TLC_ERR_LAUNCH: return "TLC_ERR_LAUNCH";
  case TLC_ERR_CUDA: return "TLC_ERR_CUDA";
  case TLC_ERR_IO: return "TLC_ERR_IO";
  case TLC_ERR_INVALID: return "TLC_ERR_INVALID";
  }
  return "TLC_ERR_(unknown status)";
}

/* ---- using a runtime ---------------------------------------------------------- */

tlc_status rt_usable(const tlc_runtime *rt) {
  if (!rt) return TLC_ERR_INVALID;
  return rt->open_status;
}

tlc_status rt_enter(tlc_runtime *rt) {
  tlc_status st = rt_usable(rt);
  if (st != TLC_OK || rt->cpu) return st;
  CUcontext cur = NULL;
  if (rt->drv->cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur == rt->ctx) return TLC_OK;
  CUresult r = rt->drv->cuCtxSetCurrent(rt->ctx);
  if (r != CUDA_SUCCESS)
    return rt_fail_cuda(rt, TLC_ERR_CUDA, r, "cuCtxSetCurrent (the primary context of device %d)",
                        rt->ordinal);
  return TLC_OK;
}

/* ---- opening ------------------------------------------------------------------ */

static tlc_status rt_device_attr(tlc_runtime *rt, CUdevice_attribute attr, const char *what,
                                 int *out) {
  CUresult r = rt->drv->cuDeviceGetAttribute(out, attr, rt->dev);
  if (r != CUDA_SUCCESS)
    return rt_fail_cuda(rt, TLC_ERR_CUDA, r, "cuDeviceGetAttribute(%s) on device %d", what,
                        rt->ordinal);
  return TLC_OK;
}

/* The arch tlc compiles for on a device of this compute capability.
 *
 * tlc emits PTX through LLVM 19's NVPTX backend, whose newest targets are
 * sm_90 and sm_90a (PTX ISA 8.5).  The list below is the arches the compiler
 * accepts (codegen/cg_module.c's table; test_runtime_fake checks that every
 * pick compiles).  A device in the list gets its own arch, with the 'a'
 * (architecture-specific) variant on 9.0 where tlc uses wgmma.  A device
 * the list lacks gets the newest listed arch below it that is not an 'a'
 * one: PTX for sm_XY runs on every GPU of capability XY or more, the
 * driver's JIT compiling it for the device, while PTX for an 'a' target runs
 * only on its own GPU.  So compute capability 10.x and 12.x (Blackwell) get
 * sm_90 PTX: tl.dot on mma.sync (wgmma is sm_90a's), TMA copies (sm_90+).
 * Such a pick leaves a note saying so; below sm_70 there is nothing to pick
 * and the device's own name stays, for the compiler to refuse. */
static const int rt_compiled_arches[] = {70, 75, 80, 86, 87, 89, 90}; /* ascending */

static void rt_arch_of(int capability, char *buf, size_t len, char *note, size_t note_len) {
  const int n = (int)(sizeof rt_compiled_arches / sizeof *rt_compiled_arches);
  int pick = 0;
  note[0] = 0;
  for (int i = 0; i < n; i++)
    if (rt_compiled_arches[i] <= capability) pick = rt_compiled_arches[i];
  if (pick == capability) {
    snprintf(buf, len, capability == 90 ? "sm_%da" : "sm_%d", capability);
  } else if (pick) {
    snprintf(buf, len, "sm_%d", pick);
    snprintf(note, note_len,
             "compute capability %d.%d is not one tlc compiles for (LLVM 19's NVPTX backend "
             "stops at sm_90a): kernels are compiled for %s, whose PTX the driver compiles "
             "forward for this device",
             capability / 10, capability % 10, buf);
  } else {
    snprintf(buf, len, "sm_%d", capability);
  }
}

static tlc_status rt_open_device(tlc_runtime *rt, int ordinal) {
  char err[1024];
  CUresult r;
  const RtDriver *drv = rt_driver_load(err, sizeof err, &r);
  if (!drv) {
    /* Library or symbol missing (r == SUCCESS), or cuInit failed: no device
     * is "no device"; anything else means the driver is not usable. */
    return rt_fail(rt, r == CUDA_ERROR_NO_DEVICE ? TLC_ERR_NO_DEVICE : TLC_ERR_NO_DRIVER, "%s", err);
  }
  rt->drv = drv;

  int count = 0;
  r = drv->cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS) return rt_fail_cuda(rt, TLC_ERR_CUDA, r, "cuDeviceGetCount");
  if (count <= 0) {
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    return rt_fail(rt, TLC_ERR_NO_DEVICE, "the CUDA driver sees no device%s%s%s",
                   vis ? " (CUDA_VISIBLE_DEVICES=" : "", vis ? vis : "", vis ? ")" : "");
  }
  if (ordinal < 0 || ordinal >= count)
    return rt_fail(rt, TLC_ERR_NO_DEVICE,
                   "there is no CUDA device %d: this machine has %d (ordinals 0 to %d)", ordinal,
                   count, count - 1);
  r = drv->cuDeviceGet(&rt->dev, ordinal);
  if (r != CUDA_SUCCESS) return rt_fail_cuda(rt, TLC_ERR_NO_DEVICE, r, "cuDeviceGet(%d)", ordinal);

  int major = 0, minor = 0;
  tlc_status st;
  if ((st = rt_device_attr(rt, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "compute capability major", &major)) ||
      (st = rt_device_attr(rt, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "compute capability minor", &minor)) ||
      (st = rt_device_attr(rt, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "multiprocessor count", &rt->sm_count)) ||
      (st = rt_device_attr(rt, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, "max grid x", &rt->max_grid[0])) ||
      (st = rt_device_attr(rt, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, "max grid y", &rt->max_grid[1])) ||
      (st = rt_device_attr(rt, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, "max grid z", &rt->max_grid[2])) ||
      (st = rt_device_attr(rt, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "max threads per block", &rt->max_threads_per_block)) ||
      (st = rt_device_attr(rt, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, "max shared memory per block", &rt->smem_default)) ||
      (st = rt_device_attr(rt, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, "max shared memory per block (opt-in)", &rt->smem_optin)))
    return st;
  /* (only the autotuner's trials use it, to size their cache eviction) */
  if (drv->cuDeviceGetAttribute(&rt->l2_bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, rt->dev) != CUDA_SUCCESS ||
      rt->l2_bytes < 0)
    rt->l2_bytes = 0;
  rt->capability = 10 * major + minor;
  rt_arch_of(rt->capability, rt->arch, sizeof rt->arch, rt->arch_note, sizeof rt->arch_note);
  r = drv->cuDeviceGetName(rt->name, (int)sizeof rt->name, rt->dev);
  if (r != CUDA_SUCCESS) snprintf(rt->name, sizeof rt->name, "CUDA device %d", ordinal);
  rt->name[sizeof rt->name - 1] = 0;

  r = drv->cuDevicePrimaryCtxRetain(&rt->ctx, rt->dev);
  if (r != CUDA_SUCCESS)
    return rt_fail_cuda(rt, TLC_ERR_CUDA, r, "cuDevicePrimaryCtxRetain on device %d (%s)", ordinal,
                        rt->name);
  rt->ctx_retained = true;
  r = drv->cuCtxSetCurrent(rt->ctx);
  if (r != CUDA_SUCCESS)
    return rt_fail_cuda(rt, TLC_ERR_CUDA, r, "cuCtxSetCurrent (the primary context of device %d)",
                        ordinal);
  rt_cache_init(&rt->cache);
  return TLC_OK;
}

/* The CPU device: no driver; kernels are specialized for sm_90a, the
 * newest target, so that every builtin is available to the interpreter. */
static tlc_status rt_open_cpu(tlc_runtime *rt) {
  rt->cpu = true;
  rt->capability = 90;
  snprintf(rt->arch, sizeof rt->arch, "sm_90a");
  snprintf(rt->name, sizeof rt->name, "CPU (the tlc interpreter)");
  rt->sm_count = 1;
  rt->max_grid[0] = 0x7fffffff, rt->max_grid[1] = 65535, rt->max_grid[2] = 65535;
  rt->max_threads_per_block = 1024;
  rt->smem_default = rt->smem_optin = 1 << 30;
  memset(&rt->cache, 0, sizeof rt->cache); /* in memory only: the disk cache holds PTX */
  return TLC_OK;
}

/* $TLC_DEVICE: "cpu" opens the CPU device whatever the ordinal; "gpu" or
 * unset the ordinal's device. */
static tlc_status rt_open_any(tlc_runtime *rt, int ordinal) {
  const char *dev = getenv("TLC_DEVICE");
  if (dev && *dev && strcmp(dev, "cpu") && strcmp(dev, "gpu"))
    return rt_fail(rt, TLC_ERR_INVALID, "TLC_DEVICE=%s: expected cpu or gpu", dev);
  if (ordinal == TLC_DEVICE_CPU || (dev && !strcmp(dev, "cpu"))) return rt_open_cpu(rt);
  return rt_open_device(rt, ordinal);
}

tlc_status tlc_runtime_open(int ordinal, tlc_runtime **out) {
  if (!out) return TLC_ERR_INVALID;
  tlc_runtime *rt = calloc(1, sizeof *rt);
  char *msg = calloc(1, 256);
  if (!rt || !msg) {
    free(rt);
    free(msg);
    *out = NULL; /* the one failure without a handle: tlc_runtime_error(NULL) says so */
    return TLC_ERR_INVALID;
  }
  pthread_mutex_init(&rt->lock, NULL);
  pthread_mutex_init(&rt->msg_lock, NULL);
  rt->msg = msg;
  rt->msg_cap = 256;
  rt->ordinal = ordinal;
  rt->open_status = rt_open_any(rt, ordinal);
  *out = rt;
  return rt->open_status;
}

void tlc_runtime_close(tlc_runtime *rt) {
  if (!rt) return;
  if (rt->drv && rt->ctx_retained) {
    /* Modules, events and memory belong to the primary context: make it
     * current to release them, whatever this thread had current. */
    rt->drv->cuCtxSetCurrent(rt->ctx);
    rt_events_release_all(rt);
    for (struct RtTuned *t = rt->tuned, *n; t; t = n) n = t->next, free(t);
    rt->tuned = NULL;
    rt_kernels_release_all(rt);
    rt_memory_release_all(rt);
    rt->drv->cuDevicePrimaryCtxRelease(rt->dev);
  } else if (rt->cpu) {
    rt_events_release_all(rt);
    for (struct RtTuned *t = rt->tuned, *n; t; t = n) n = t->next, free(t);
    rt->tuned = NULL;
    rt_kernels_release_all(rt);
    rt_memory_release_all(rt);
  }
  rt_cache_free(&rt->cache);
  free(rt->allocs.slots);
  free(rt->msg);
  pthread_mutex_destroy(&rt->lock);
  pthread_mutex_destroy(&rt->msg_lock);
  free(rt);
}

/* ---- device facts -------------------------------------------------------------- */

int tlc_device_capability(const tlc_runtime *rt) {
  return rt_usable(rt) == TLC_OK ? rt->capability : 0;
}

const char *tlc_device_arch(const tlc_runtime *rt) {
  return rt_usable(rt) == TLC_OK ? rt->arch : "";
}

const char *tlc_device_arch_note(const tlc_runtime *rt) {
  return rt_usable(rt) == TLC_OK ? rt->arch_note : "";
}

bool tlc_device_is_cpu(const tlc_runtime *rt) { return rt_usable(rt) == TLC_OK && rt->cpu; }

const char *tlc_device_name(const tlc_runtime *rt) {
  return rt_usable(rt) == TLC_OK ? rt->name : "";
}

int tlc_device_sm_count(const tlc_runtime *rt) {
  return rt_usable(rt) == TLC_OK ? rt->sm_count : 0;
}
