/* cuda_driver.h — tlc's own declarations of the part of the CUDA Driver API
 * that the runtime uses, and the table of entry points driver.c fills with
 * dlsym.
 *
 * Owns: the driver's types (opaque handles, CUdeviceptr), the enum values the
 * runtime passes or tests (from the public Driver API documentation), and one
 * X-macro list, RT_CUDA_API, that gives every entry point its member name, the
 * exported symbol it is looked up by (the _v2 names where the driver ABI has
 * them) and its parameter list.  The typedefs and the RtDriver struct are
 * generated from that list, so adding a call means adding one line.
 *
 * It does not own: loading (driver.c) or any policy about errors.  No CUDA
 * toolkit header is included anywhere in tlc: this file is the whole contract
 * with libcuda.so.1.  Every entry point returns CUresult. */
#ifndef TLC_RUNTIME_CUDA_DRIVER_H
#define TLC_RUNTIME_CUDA_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/* ---- handles ---------------------------------------------------------------- */

typedef int CUdevice;                       /* a device ordinal as the driver knows it */
typedef unsigned long long CUdeviceptr;     /* a device address (64-bit on every ABI tlc targets) */
typedef struct RtCuContext *CUcontext;      /* opaque driver objects: tlc never looks inside */
typedef struct RtCuModule *CUmodule;
typedef struct RtCuFunction *CUfunction;
typedef struct RtCuStream *CUstream;        /* NULL = the legacy default stream */
typedef struct RtCuEvent *CUevent;
typedef struct RtCuLinkState *CUlinkState;  /* a cuLink* session: PTX in, a cubin out */

/* ---- status codes ----------------------------------------------------------- */

/* The values tlc names in messages or tests; any other value still comes back
 * from the driver and is named by cuGetErrorName. */
typedef enum CUresult {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_DEINITIALIZED = 4,
  CUDA_ERROR_STUB_LIBRARY = 34,           /* the toolkit's link stub, not a real driver */
  CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER = 36,
  CUDA_ERROR_DEVICE_UNAVAILABLE = 46,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221,
  CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
  CUDA_ERROR_INVALID_SOURCE = 300,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_NOT_READY = 600,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  CUDA_ERROR_LAUNCH_TIMEOUT = 702,
  CUDA_ERROR_ASSERT = 710,
  CUDA_ERROR_HARDWARE_STACK_ERROR = 714,
  CUDA_ERROR_ILLEGAL_INSTRUCTION = 715,
  CUDA_ERROR_MISALIGNED_ADDRESS = 716,
  CUDA_ERROR_INVALID_ADDRESS_SPACE = 717,
  CUDA_ERROR_INVALID_PC = 718,
  CUDA_ERROR_LAUNCH_FAILED = 719,
  CUDA_ERROR_NOT_SUPPORTED = 801,
  CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
  CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804,
  CUDA_ERROR_UNKNOWN = 999,
} CUresult;

/* ---- attributes and options ------------------------------------------------- */

typedef enum CUdevice_attribute {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,  /* without opt-in: 48 KiB */
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
} CUdevice_attribute;

typedef enum CUfunction_attribute {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,  /* limited by the kernel's register use */
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,      /* static shared memory */
  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
} CUfunction_attribute;

/* Options of cuLinkCreate (and cuModuleLoadDataEx).  Values travel in a
 * void* array; the two size options are read back after the call (bytes the
 * driver wrote), so for a link session the array must outlive the session. */
typedef enum CUjit_option {
  CU_JIT_WALL_TIME = 2,                    /* out: float milliseconds */
  CU_JIT_INFO_LOG_BUFFER = 3,              /* char* */
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,   /* in: capacity, out: bytes written */
  CU_JIT_ERROR_LOG_BUFFER = 5,             /* char* */
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,  /* in: capacity, out: bytes written */
  CU_JIT_LOG_VERBOSE = 12,                 /* int, 1 = verbose info log */
} CUjit_option;

/* What cuLinkAddData is given. */
typedef enum CUjitInputType {
  CU_JIT_INPUT_CUBIN = 0,
  CU_JIT_INPUT_PTX = 1,
} CUjitInputType;

enum {
  CU_EVENT_DEFAULT = 0,   /* cuEventCreate flags: timing enabled, spin on sync */
};

/* ---- tensor maps (TMA, sm_90) --------------------------------------------------- */

typedef struct CUtensorMap {
  _Alignas(64) uint64_t opaque[16];     /* 128 bytes the driver fills */
} CUtensorMap;

typedef enum CUtensorMapInterleave { CU_TENSOR_MAP_INTERLEAVE_NONE = 0 } CUtensorMapInterleave;
typedef enum CUtensorMapSwizzle {
  CU_TENSOR_MAP_SWIZZLE_NONE = 0, CU_TENSOR_MAP_SWIZZLE_32B = 1, CU_TENSOR_MAP_SWIZZLE_64B = 2,
  CU_TENSOR_MAP_SWIZZLE_128B = 3,
} CUtensorMapSwizzle;
typedef enum CUtensorMapL2promotion {
  CU_TENSOR_MAP_L2_PROMOTION_NONE = 0, CU_TENSOR_MAP_L2_PROMOTION_L2_64B = 1,
  CU_TENSOR_MAP_L2_PROMOTION_L2_128B = 2, CU_TENSOR_MAP_L2_PROMOTION_L2_256B = 3,
} CUtensorMapL2promotion;
typedef enum CUtensorMapFloatOOBfill { CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0 } CUtensorMapFloatOOBfill;

/* cuTensorMapEncodeTiled (CUDA 12.0 drivers and later): looked up on its own,
 * so that an older driver still runs every kernel that takes no tensor map. */
typedef CUresult (*rt_pfn_cuTensorMapEncodeTiled)(CUtensorMap *map, int data_type, unsigned rank,
                                                   void *global_address, const uint64_t *global_dim,
                                                   const uint64_t *global_strides, const unsigned *box_dim,
                                                   const unsigned *element_strides, CUtensorMapInterleave interleave,
                                                   CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2,
                                                   CUtensorMapFloatOOBfill oob_fill);

/* ---- entry points ------------------------------------------------------------- */

/* X(member, exported symbol, parameter list).  The member name is the
 * documented API name; the symbol is what libcuda.so.1 exports for it. */
#define RT_CUDA_API(X)                                                                    \
  X(cuInit, "cuInit", (unsigned int flags))                                                \
  X(cuDriverGetVersion, "cuDriverGetVersion", (int *version))                              \
  X(cuGetErrorName, "cuGetErrorName", (CUresult error, const char **name))                 \
  X(cuGetErrorString, "cuGetErrorString", (CUresult error, const char **text))             \
  X(cuDeviceGetCount, "cuDeviceGetCount", (int *count))                                    \
  X(cuDeviceGet, "cuDeviceGet", (CUdevice *device, int ordinal))                           \
  X(cuDeviceGetName, "cuDeviceGetName", (char *name, int len, CUdevice device))            \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute",                                          \
    (int *value, CUdevice_attribute attr, CUdevice device))                                \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (CUcontext *ctx, CUdevice device)) \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", (CUdevice device))          \
  X(cuCtxGetCurrent, "cuCtxGetCurrent", (CUcontext *ctx))                                  \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", (CUcontext ctx))                                   \
  X(cuCtxSynchronize, "cuCtxSynchronize", (void))                                          \
  X(cuMemAlloc, "cuMemAlloc_v2", (CUdeviceptr *ptr, size_t bytes))                         \
  X(cuMemFree, "cuMemFree_v2", (CUdeviceptr ptr))                                          \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", (CUdeviceptr dst, const void *src, size_t bytes))     \
  X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", (void *dst, CUdeviceptr src, size_t bytes))           \
  X(cuMemsetD8, "cuMemsetD8_v2", (CUdeviceptr dst, unsigned char value, size_t count))     \
  X(cuMemsetD32, "cuMemsetD32_v2", (CUdeviceptr dst, unsigned int value, size_t count))    \
  X(cuModuleLoadData, "cuModuleLoadData", (CUmodule *module, const void *image))           \
  X(cuModuleLoadDataEx, "cuModuleLoadDataEx",                                              \
    (CUmodule *module, const void *image, unsigned int noptions, CUjit_option *options,    \
     void **values))                                                                       \
  X(cuLinkCreate, "cuLinkCreate_v2",                                                       \
    (unsigned int noptions, CUjit_option *options, void **values, CUlinkState *state))     \
  X(cuLinkAddData, "cuLinkAddData_v2",                                                     \
    (CUlinkState state, CUjitInputType type, void *data, size_t bytes, const char *name,   \
     unsigned int noptions, CUjit_option *options, void **values))                         \
  X(cuLinkComplete, "cuLinkComplete", (CUlinkState state, void **cubin, size_t *bytes))    \
  X(cuLinkDestroy, "cuLinkDestroy", (CUlinkState state))                                   \
  X(cuModuleGetFunction, "cuModuleGetFunction",                                            \
    (CUfunction *fn, CUmodule module, const char *name))                                   \
  X(cuModuleUnload, "cuModuleUnload", (CUmodule module))                                   \
  X(cuFuncGetAttribute, "cuFuncGetAttribute",                                              \
    (int *value, CUfunction_attribute attr, CUfunction fn))                                \
  X(cuFuncSetAttribute, "cuFuncSetAttribute",                                              \
    (CUfunction fn, CUfunction_attribute attr, int value))                                 \
  X(cuLaunchKernel, "cuLaunchKernel",                                                      \
    (CUfunction fn, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,    \
     unsigned int by, unsigned int bz, unsigned int shared_bytes, CUstream stream,         \
     void **params, void **extra))                                                         \
  X(cuEventCreate, "cuEventCreate", (CUevent *event, unsigned int flags))                  \
  X(cuEventRecord, "cuEventRecord", (CUevent event, CUstream stream))                      \
  X(cuEventSynchronize, "cuEventSynchronize", (CUevent event))                             \
  X(cuEventElapsedTime, "cuEventElapsedTime", (float *ms, CUevent start, CUevent end))     \
  X(cuEventDestroy, "cuEventDestroy_v2", (CUevent event))

/* rt_pfn_cuInit, rt_pfn_cuMemAlloc, ...: one pointer type per entry point. */
#define RT_CUDA_PFN(member, symbol, params) typedef CUresult (*rt_pfn_##member) params;
RT_CUDA_API(RT_CUDA_PFN)
#undef RT_CUDA_PFN

/* The loaded driver: the library handle and one pointer per entry point. */
typedef struct RtDriver {
  void *lib;    /* dlopen handle of libcuda.so.1 */
#define RT_CUDA_MEMBER(member, symbol, params) rt_pfn_##member member;
  RT_CUDA_API(RT_CUDA_MEMBER)
#undef RT_CUDA_MEMBER
  rt_pfn_cuTensorMapEncodeTiled cuTensorMapEncodeTiled; /* NULL when the driver has none */
  int version;  /* cuDriverGetVersion: 1000*major + 10*minor (13000 = CUDA 13.0) */
} RtDriver;

/* ---- driver.c ----------------------------------------------------------------- */

/* The library dlopen() is asked for: $TLC_CUDA_DRIVER when set, else
 * "libcuda.so.1". */
#define RT_CUDA_LIBRARY "libcuda.so.1"

/* Load the driver (once per process; it is never unloaded because it starts
 * threads) and call cuInit(0).  On success returns the table and sets *res
 * to CUDA_SUCCESS.  On failure returns NULL and writes a message to err:
 * with *res == CUDA_SUCCESS when the library or a symbol is missing (the
 * message names it and carries dlerror()), or with *res set to what cuInit
 * returned. */
const RtDriver *rt_driver_load(char *err, size_t errlen, CUresult *res);

/* "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)",
 * written to buf; works for codes the driver does not know. */
const char *rt_cuda_error_text(const RtDriver *drv, CUresult r, char *buf, size_t len);

#endif
