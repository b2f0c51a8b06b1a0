/* tlc_runtime.h — the embedding API: compile a .tile kernel at run time
 * (cached), load it through the CUDA Driver API, launch it.
 *
 * The driver is opened with dlopen("libcuda.so.1"); building a program
 * against this header needs no CUDA toolkit.  The runtime uses the device's
 * primary context, so it works beside the CUDA runtime and PyTorch in one
 * process.  Every function returns a tlc_status; when it is not TLC_OK,
 * tlc_runtime_error(rt) holds a message saying what failed and why (the
 * driver's error name, the JIT log, the compiler's located diagnostics).
 * Nothing here prints or exits. */
#ifndef TLC_RUNTIME_H
#define TLC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tlc_status {
  TLC_OK = 0,
  TLC_ERR_NO_DRIVER,   /* libcuda.so.1 missing or unusable */
  TLC_ERR_NO_DEVICE,   /* no CUDA device, or the ordinal does not exist */
  TLC_ERR_COMPILE,     /* the .tile source did not compile (diagnostics in the message) */
  TLC_ERR_LOAD,        /* the driver rejected the PTX (JIT log in the message) */
  TLC_ERR_ARGS,        /* wrong argument count or type at launch */
  TLC_ERR_LAUNCH,      /* the launch failed (bad grid, too much shared memory, ...) */
  TLC_ERR_CUDA,        /* any other driver call failed, or a kernel faulted */
  TLC_ERR_IO,          /* a file could not be read */
  TLC_ERR_INVALID,     /* a NULL handle or a nonsensical argument */
} tlc_status;

typedef struct tlc_runtime tlc_runtime;  /* driver + device + context + caches */
typedef struct tlc_kernel tlc_kernel;    /* a loaded kernel; owned by its runtime */
typedef struct tlc_event tlc_event;
typedef void *tlc_stream;                /* a CUstream; NULL = the default stream */
typedef uint64_t tlc_devptr;             /* a device address */

/* ---- runtime ------------------------------------------------------------- */

/* Open the driver and device `ordinal`.  *out is always set to a handle (even
 * on failure, so tlc_runtime_error can say why); close it with
 * tlc_runtime_close. */
tlc_status tlc_runtime_open(int ordinal, tlc_runtime **out);
void tlc_runtime_close(tlc_runtime *rt);
const char *tlc_runtime_error(const tlc_runtime *rt);
const char *tlc_status_name(tlc_status s);

/* Device facts: compute capability as 10*major+minor (90 on H100), the
 * arch tlc compiles for ("sm_90a"), the name, multiprocessor count. */
int tlc_device_capability(const tlc_runtime *rt);
const char *tlc_device_arch(const tlc_runtime *rt);
const char *tlc_device_name(const tlc_runtime *rt);
int tlc_device_sm_count(const tlc_runtime *rt);

/* ---- kernels --------------------------------------------------------------- */

typedef struct tlc_kernel_options {
  int num_warps;                 /* 0 = 4 */
  int num_stages;                /* 0 = 3 */
  const char *arch;              /* NULL = the device's own */
  const char *const *constexprs; /* "NAME=VALUE" strings */
  int nconstexprs;
} tlc_kernel_options;

/* Compile kernel `name` of the .tile file at `path` for `signature` (Triton
 * AOT form, e.g. "*fp32:16,*fp32:16,i32,1024") and load it.  Compiled PTX is
 * cached in memory for the runtime's life and on disk in $TLC_CACHE_DIR (or
 * ~/.cache/tlc); the same request returns the same tlc_kernel. */
tlc_status tlc_kernel_from_file(tlc_runtime *rt, const char *path, const char *name,
                                const char *signature, const tlc_kernel_options *opt,
                                tlc_kernel **out);
/* The same from source text; `path` only names it in messages. */
tlc_status tlc_kernel_from_source(tlc_runtime *rt, const char *source, const char *path,
                                  const char *name, const char *signature,
                                  const tlc_kernel_options *opt, tlc_kernel **out);

/* Launch metadata of a loaded kernel. */
int tlc_kernel_num_params(const tlc_kernel *k);
int tlc_kernel_num_warps(const tlc_kernel *k);
int tlc_kernel_shared_bytes(const tlc_kernel *k);
const char *tlc_kernel_ptx(const tlc_kernel *k);
double tlc_kernel_compile_ms(const tlc_kernel *k); /* 0 when it came from a cache */

/* ---- launching ------------------------------------------------------------- */

typedef enum tlc_arg_kind {
  TLC_ARG_PTR, TLC_ARG_I32, TLC_ARG_I64, TLC_ARG_U32, TLC_ARG_U64,
  TLC_ARG_FP32, TLC_ARG_FP64,
} tlc_arg_kind;

typedef struct tlc_arg {
  tlc_arg_kind kind;
  union {
    tlc_devptr ptr;
    int32_t i32;
    int64_t i64;
    uint32_t u32;
    uint64_t u64;
    float f32;
    double f64;
  } v;
} tlc_arg;

#define TLC_PTR(x) ((tlc_arg){.kind = TLC_ARG_PTR, .v.ptr = (tlc_devptr)(x)})
#define TLC_I32(x) ((tlc_arg){.kind = TLC_ARG_I32, .v.i32 = (int32_t)(x)})
#define TLC_I64(x) ((tlc_arg){.kind = TLC_ARG_I64, .v.i64 = (int64_t)(x)})
#define TLC_U32(x) ((tlc_arg){.kind = TLC_ARG_U32, .v.u32 = (uint32_t)(x)})
#define TLC_U64(x) ((tlc_arg){.kind = TLC_ARG_U64, .v.u64 = (uint64_t)(x)})
#define TLC_F32(x) ((tlc_arg){.kind = TLC_ARG_FP32, .v.f32 = (float)(x)})
#define TLC_F64(x) ((tlc_arg){.kind = TLC_ARG_FP64, .v.f64 = (double)(x)})

/* Launch k on a grid of gx*gy*gz programs.  The arguments are the kernel's
 * runtime parameters in order; each must match its declared type (an i32
 * parameter accepts TLC_I32, an fp32 one TLC_F32, a pointer TLC_PTR).
 * Asynchronous: errors inside the kernel surface at the next synchronize. */
tlc_status tlc_launch(tlc_kernel *k, unsigned gx, unsigned gy, unsigned gz,
                      tlc_stream stream, const tlc_arg *args, int nargs);

/* ---- memory, synchronisation, timing ------------------------------------- */

tlc_status tlc_malloc(tlc_runtime *rt, size_t bytes, tlc_devptr *out);
tlc_status tlc_free(tlc_runtime *rt, tlc_devptr p);
tlc_status tlc_memcpy_htod(tlc_runtime *rt, tlc_devptr dst, const void *src, size_t bytes);
tlc_status tlc_memcpy_dtoh(tlc_runtime *rt, void *dst, tlc_devptr src, size_t bytes);
tlc_status tlc_memset_d8(tlc_runtime *rt, tlc_devptr dst, unsigned char value, size_t bytes);
tlc_status tlc_memset_d32(tlc_runtime *rt, tlc_devptr dst, uint32_t value, size_t count);
tlc_status tlc_synchronize(tlc_runtime *rt);

tlc_status tlc_event_create(tlc_runtime *rt, tlc_event **out);
tlc_status tlc_event_record(tlc_event *e, tlc_stream stream);
tlc_status tlc_event_elapsed_ms(tlc_event *start, tlc_event *end, float *ms);
void tlc_event_destroy(tlc_event *e);

#ifdef __cplusplus
}
#endif
#endif
