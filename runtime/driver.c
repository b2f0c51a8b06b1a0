/* driver.c — finding libcuda.so.1 and its entry points.
 *
 * Owns the one process-wide RtDriver table: dlopen(RTLD_NOW | RTLD_LOCAL) of
 * the driver library, one dlsym per RT_CUDA_API entry, cuInit and the
 * driver's version, and turning CUresult codes into text.  A missing library
 * or symbol is reported with the name that was looked for and dlerror().
 *
 * Once loaded the library stays loaded for the life of the process: the
 * driver starts threads, and unloading code that a thread still runs would
 * crash.  A failed load leaves nothing behind, so a later open tries again.
 * It does not own devices or contexts (runtime.c). */
#include "runtime/cuda_driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t g_driver_lock = PTHREAD_MUTEX_INITIALIZER;
static RtDriver g_driver;
static bool g_driver_loaded;

/* Where each entry point lives in RtDriver, by exported symbol. */
typedef struct RtDriverSym {
  const char *symbol;
  size_t offset;
} RtDriverSym;

static const RtDriverSym rt_driver_syms[] = {
#define RT_CUDA_SYM(member, symbol, params) {symbol, offsetof(RtDriver, member)},
    RT_CUDA_API(RT_CUDA_SYM)
#undef RT_CUDA_SYM
};

/* dlopen + dlsym into *drv; 0 on success, else -1 with a message. */
static int rt_driver_open_library(RtDriver *drv, char *err, size_t errlen) {
  const char *env = getenv("TLC_CUDA_DRIVER");
  const char *name = env && *env ? env : RT_CUDA_LIBRARY;
  const char *why_name = env && *env ? " (from $TLC_CUDA_DRIVER; the default is " RT_CUDA_LIBRARY ")" : "";
  dlerror();
  void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *de = dlerror();
    snprintf(err, errlen,
             "cannot load the CUDA driver library %s%s: %s; is the NVIDIA driver installed "
             "and its folder on the loader's path (LD_LIBRARY_PATH)?",
             name, why_name, de ? de : "dlopen failed");
    return -1;
  }
  memset(drv, 0, sizeof *drv);
  drv->lib = lib;
  for (size_t i = 0; i < sizeof rt_driver_syms / sizeof *rt_driver_syms; i++) {
    dlerror();
    void *fn = dlsym(lib, rt_driver_syms[i].symbol);
    if (!fn) {
      const char *de = dlerror();
      snprintf(err, errlen,
               "the CUDA driver library %s%s has no entry point %s (%s); the driver is too old "
               "or this is not libcuda",
               name, why_name, rt_driver_syms[i].symbol, de ? de : "dlsym returned NULL");
      dlclose(lib);
      memset(drv, 0, sizeof *drv);
      return -1;
    }
    /* POSIX guarantees a data pointer from dlsym converts to a function pointer. */
    memcpy((char *)drv + rt_driver_syms[i].offset, &fn, sizeof fn);
  }
  void *tm = dlsym(lib, "cuTensorMapEncodeTiled"); /* optional: only kernels with tensor maps need it */
  memcpy(&drv->cuTensorMapEncodeTiled, &tm, sizeof tm);
  return 0;
}

const RtDriver *rt_driver_load(char *err, size_t errlen, CUresult *res) {
  *res = CUDA_SUCCESS;
  pthread_mutex_lock(&g_driver_lock);
  if (!g_driver_loaded) {
    RtDriver drv;
    if (rt_driver_open_library(&drv, err, errlen) != 0) {
      pthread_mutex_unlock(&g_driver_lock);
      return NULL;
    }
    int version = 0;
    if (drv.cuDriverGetVersion(&version) == CUDA_SUCCESS) drv.version = version;
    g_driver = drv;
    g_driver_loaded = true;
  }
  pthread_mutex_unlock(&g_driver_lock);

  /* cuInit is cheap after the first call and may fail differently later
   * (a device that went away), so every open calls it. */
  CUresult r = g_driver.cuInit(0);
  if (r != CUDA_SUCCESS) {
    char text[256];
    snprintf(err, errlen, "cuInit failed: %s%s", rt_cuda_error_text(&g_driver, r, text, sizeof text),
             r == CUDA_ERROR_STUB_LIBRARY
                 ? "; this libcuda is the CUDA toolkit's link stub, not the NVIDIA driver"
                 : "");
    *res = r;
    return NULL;
  }
  return &g_driver;
}

/* Names for the codes cuda_driver.h declares, for drivers that cannot name
 * them (the toolkit's link stub names nothing). */
static const char *rt_cuda_known_name(CUresult r) {
  switch (r) {
#define RT_NAME(code) case code: return #code;
    RT_NAME(CUDA_SUCCESS) RT_NAME(CUDA_ERROR_INVALID_VALUE) RT_NAME(CUDA_ERROR_OUT_OF_MEMORY)
    RT_NAME(CUDA_ERROR_NOT_INITIALIZED) RT_NAME(CUDA_ERROR_DEINITIALIZED)
    RT_NAME(CUDA_ERROR_STUB_LIBRARY) RT_NAME(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER)
    RT_NAME(CUDA_ERROR_DEVICE_UNAVAILABLE) RT_NAME(CUDA_ERROR_NO_DEVICE)
    RT_NAME(CUDA_ERROR_INVALID_DEVICE) RT_NAME(CUDA_ERROR_INVALID_IMAGE)
    RT_NAME(CUDA_ERROR_INVALID_CONTEXT) RT_NAME(CUDA_ERROR_NO_BINARY_FOR_GPU)
    RT_NAME(CUDA_ERROR_INVALID_PTX) RT_NAME(CUDA_ERROR_JIT_COMPILER_NOT_FOUND)
    RT_NAME(CUDA_ERROR_UNSUPPORTED_PTX_VERSION) RT_NAME(CUDA_ERROR_INVALID_SOURCE)
    RT_NAME(CUDA_ERROR_INVALID_HANDLE) RT_NAME(CUDA_ERROR_NOT_FOUND) RT_NAME(CUDA_ERROR_NOT_READY)
    RT_NAME(CUDA_ERROR_ILLEGAL_ADDRESS) RT_NAME(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
    RT_NAME(CUDA_ERROR_LAUNCH_TIMEOUT) RT_NAME(CUDA_ERROR_ASSERT)
    RT_NAME(CUDA_ERROR_HARDWARE_STACK_ERROR) RT_NAME(CUDA_ERROR_ILLEGAL_INSTRUCTION)
    RT_NAME(CUDA_ERROR_MISALIGNED_ADDRESS) RT_NAME(CUDA_ERROR_INVALID_ADDRESS_SPACE)
    RT_NAME(CUDA_ERROR_INVALID_PC) RT_NAME(CUDA_ERROR_LAUNCH_FAILED)
    RT_NAME(CUDA_ERROR_NOT_SUPPORTED) RT_NAME(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)
    RT_NAME(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE) RT_NAME(CUDA_ERROR_UNKNOWN)
#undef RT_NAME
  }
  return NULL;
}

const char *rt_cuda_error_text(const RtDriver *drv, CUresult r, char *buf, size_t len) {
  const char *name = NULL, *text = NULL;
  if (drv && drv->cuGetErrorName && drv->cuGetErrorName(r, &name) != CUDA_SUCCESS) name = NULL;
  if (drv && drv->cuGetErrorString && drv->cuGetErrorString(r, &text) != CUDA_SUCCESS) text = NULL;
  if (!name) name = rt_cuda_known_name(r);
  if (name && text)
    snprintf(buf, len, "%s (%s)", name, text);
  else if (name)
    snprintf(buf, len, "%s (CUresult %d)", name, (int)r);
  else
    snprintf(buf, len, "CUresult %d (unknown to this driver)", (int)r);
  return buf;
}
