/* tlc_runtime.h — the embedding API: compile a .tile kernel at run time
 * (cached), load it through the CUDA Driver API, launch it.
 *
 * The driver is opened with dlopen("libcuda.so.1"); building a program
 * against this header needs no CUDA toolkit.  The runtime uses the device's
 * primary context, so it works beside the CUDA runtime and PyTorch in one
 * process; each call that needs the context makes it current on the calling
 * thread, so any thread may call in.  Every function returns a tlc_status;
 * when it is not TLC_OK, tlc_runtime_error(rt) holds a message saying what
 * failed and why (the driver's error name, the JIT log, the compiler's
 * located diagnostics).  A NULL handle is TLC_ERR_INVALID (with no message:
 * there is no runtime to hold one).  Nothing here prints or exits.
 *
 * Libraries: tlc_runtime (everything) or tlc_runtime_core (everything but
 * tlc_kernel_from_file/_source; no libtlc, no LLVM), for programs that only
 * load ahead-of-time PTX (tlc compile --emit c writes C that needs only
 * the core).  Installed: libtlc_runtime.so / libtlc_runtime_core.so, this
 * header as <tlc/tlc_runtime.h>, pkg-config tlc / tlc-runtime-core,
 * find_package(tlc).  docs/runtime.md is the reference. */
#ifndef TLC_RUNTIME_H
#define TLC_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "support/tlc_param_kinds.h" /* tlc_param_kind, its names and sizes */

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

/* The ordinal of the CPU device: kernels run in tlc's interpreter
 * (interp/, docs/interpreter.md), tlc_malloc gives host memory, and every
 * load and store is checked against the live allocations; a kernel that
 * goes out of bounds fails its tlc_launch with TLC_ERR_CUDA and a located
 * message.  $TLC_DEVICE=cpu opens it whatever ordinal is asked for
 * (TLC_DEVICE=gpu or unset: the ordinal's device), so a program runs
 * unchanged on the CPU.  Launches there are synchronous; kernels come only
 * from .tile source (tlc_kernel_from_file/_source, autotune: its first
 * config, untimed), not PTX. */
#define TLC_DEVICE_CPU (-1)

/* Open the driver and device `ordinal`.  *out is always set to a handle (even
 * on failure, so tlc_runtime_error can say why; every later call on a handle
 * that failed to open returns the same status and leaves the message as it
 * is); close it with tlc_runtime_close.  The one exception: when even the
 * handle cannot be allocated, *out is NULL and the status TLC_ERR_INVALID. */
tlc_status tlc_runtime_open(int ordinal, tlc_runtime **out);
/* Unload every kernel, destroy every event, free every allocation still
 * live, release the primary context, free the handle.  NULL is a no-op. */
void tlc_runtime_close(tlc_runtime *rt);
/* The message of the most recent failure on rt ("" before any); successful
 * calls leave it unchanged.  Valid until the next failing call on rt. */
const char *tlc_runtime_error(const tlc_runtime *rt);
/* "TLC_OK", "TLC_ERR_NO_DRIVER", ... */
const char *tlc_status_name(tlc_status s);

/* Device facts: compute capability as 10*major+minor (90 on H100), the
 * arch tlc compiles for ("sm_90a" for 90, "sm_XY" for the others tlc knows;
 * on a newer device, 10.x or 12.x, the newest arch whose PTX the driver
 * compiles forward for it: "sm_90"), the note that says why when the arch is
 * not the device's own ("" when it is), the name, multiprocessor count.
 * 0 or "" on a runtime that did not open. */
int tlc_device_capability(const tlc_runtime *rt);
/* Is rt the CPU device?  (Its capability is 90, its arch sm_90a: what the
 * interpreter specializes for.) */
bool tlc_device_is_cpu(const tlc_runtime *rt);
const char *tlc_device_arch(const tlc_runtime *rt);
const char *tlc_device_arch_note(const tlc_runtime *rt);
const char *tlc_device_name(const tlc_runtime *rt);
int tlc_device_sm_count(const tlc_runtime *rt);

/* ---- kernels --------------------------------------------------------------- */

typedef struct tlc_kernel_options {
  int num_warps;                 /* 0 = the compiler's default (4); a power of two, 1..32 */
  int num_stages;                /* 0 = the compiler's default (3); 1..16 (pipelining depth) */
  const char *arch;              /* NULL = the device's own */
  const char *const *constexprs; /* "NAME=VALUE" strings */
  int nconstexprs;
  bool debug;                    /* Triton's debug mode: tl.device_assert checked on the device */
  int warp_specialize;           /* sm_90: 0 auto, 1 every loop, -1 none: a producer warp issues
                                    the TMA-pipelined loops' copies (tlc_compile_options.
                                    warp_specialize); TLC_WARP_SPECIALIZE=1 / 0 overrides */
} tlc_kernel_options;

/* Compile kernel `name` of the .tile file at `path` for `signature` (Triton
 * AOT form, e.g. "*fp32:16,*fp32:16,i32,1024") and load it.  Compiled PTX is
 * cached in memory for the runtime's life and on disk in $TLC_CACHE_DIR (or
 * ~/.cache/tlc; TLC_CACHE_DIR=off disables it); the same request returns the
 * same tlc_kernel.  `opt` may be NULL.  Errors: TLC_ERR_IO (the file),
 * TLC_ERR_COMPILE (the compiler's diagnostics), TLC_ERR_LOAD (the driver
 * rejected the PTX: its log and a ptxas command that reproduces it),
 * TLC_ERR_LAUNCH (the kernel needs more shared memory or threads than the
 * device allows), TLC_ERR_INVALID (a constexpr not NAME=VALUE). */
tlc_status tlc_kernel_from_file(tlc_runtime *rt, const char *path, const char *name,
                                const char *signature, const tlc_kernel_options *opt,
                                tlc_kernel **out);
/* The same from source text; `path` only names it in messages. */
tlc_status tlc_kernel_from_source(tlc_runtime *rt, const char *source, const char *path,
                                  const char *name, const char *signature,
                                  const tlc_kernel_options *opt, tlc_kernel **out);

/* One runtime parameter of a kernel loaded from PTX: its name (used in
 * messages) and type, the name of a tlc_param_kind: "ptr", "i1", "i8",
 * "i16", "i32", "i64", "u8", "u16", "u32", "u64", "fp16", "bf16", "fp32",
 * "fp64" (support/tlc_param_kinds.h lists them with their sizes). */
typedef struct tlc_param_desc {
  const char *name;
  const char *type;
} tlc_param_desc;

/* Load PTX that was compiled ahead of time (tlc compile --emit ptx|c) or
 * written by hand: `symbol` is its .entry, a program runs 32*num_warps
 * threads with `shared_bytes` of dynamic shared memory, and `params` are the
 * entry's parameters in order (they are checked at launch).  The PTX is
 * copied; nothing is cached. */
tlc_status tlc_kernel_from_ptx(tlc_runtime *rt, const char *ptx, const char *symbol,
                               int num_warps, int shared_bytes, const tlc_param_desc *params,
                               int nparams, tlc_kernel **out);
/* Unload a kernel that tlc_kernel_from_ptx loaded (its module is unloaded
 * and the handle freed; k must not be used again).  Kernels compiled from
 * source belong to the runtime's caches: TLC_ERR_INVALID for them (closing
 * the runtime unloads every kernel). */
tlc_status tlc_kernel_unload(tlc_kernel *k);

/* Launch metadata of a loaded kernel (0 / NULL for a NULL kernel). */
int tlc_kernel_num_params(const tlc_kernel *k);
int tlc_kernel_num_warps(const tlc_kernel *k);
int tlc_kernel_shared_bytes(const tlc_kernel *k);
const char *tlc_kernel_ptx(const tlc_kernel *k);
double tlc_kernel_compile_ms(const tlc_kernel *k); /* 0 when it came from a cache */
/* Wall time the driver spent turning the kernel's PTX into machine code when
 * it was loaded (its PTX JIT, through cuLinkCreate ... cuLinkComplete); 0 when
 * the disk cache held the machine code for this device and driver. */
double tlc_kernel_link_ms(const tlc_kernel *k);

/* The value of integer constexpr `name` that k was compiled with by name
 * (tlc_kernel_options.constexprs, an autotune config).  TLC_ERR_INVALID when
 * k has no such constexpr or it is not an integer. */
tlc_status tlc_kernel_constexpr_int(const tlc_kernel *k, const char *name, int64_t *out);

/* ---- launching ------------------------------------------------------------- */

typedef struct tlc_tensor_desc tlc_tensor_desc;

typedef enum tlc_arg_kind {
  TLC_ARG_PTR, TLC_ARG_I32, TLC_ARG_I64, TLC_ARG_U32, TLC_ARG_U64,
  TLC_ARG_FP32, TLC_ARG_FP64,
  TLC_ARG_DESC,   /* a host-made tensor descriptor (below), passed by address */
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
    const tlc_tensor_desc *desc;  /* must stay valid until tlc_launch returns */
  } v;
} tlc_arg;

#define TLC_PTR(x) ((tlc_arg){.kind = TLC_ARG_PTR, .v.ptr = (tlc_devptr)(x)})
#define TLC_I32(x) ((tlc_arg){.kind = TLC_ARG_I32, .v.i32 = (int32_t)(x)})
#define TLC_I64(x) ((tlc_arg){.kind = TLC_ARG_I64, .v.i64 = (int64_t)(x)})
#define TLC_U32(x) ((tlc_arg){.kind = TLC_ARG_U32, .v.u32 = (uint32_t)(x)})
#define TLC_U64(x) ((tlc_arg){.kind = TLC_ARG_U64, .v.u64 = (uint64_t)(x)})
#define TLC_F32(x) ((tlc_arg){.kind = TLC_ARG_FP32, .v.f32 = (float)(x)})
#define TLC_F64(x) ((tlc_arg){.kind = TLC_ARG_FP64, .v.f64 = (double)(x)})
#define TLC_DESC(d) ((tlc_arg){.kind = TLC_ARG_DESC, .v.desc = (d)}) /* d: const tlc_tensor_desc * */

/* Launch k on a grid of gx*gy*gz programs of 32*num_warps threads.  The
 * arguments are the kernel's runtime parameters in order; each must match its
 * declared type (an i32 parameter accepts TLC_I32, an fp32 one TLC_F32, a
 * pointer TLC_PTR only); the only conversions are those that keep the value:
 * between I32 and I64 (and U32 and U64) when it fits, I32/I64 to i1/i8/i16
 * and U32/U64 to u8/u16 when it fits, F32 to fp16/bf16 (rounded to nearest
 * even).  A `tensordesc<...>` parameter takes one TLC_DESC argument, which
 * the launcher expands into the kernel's hidden parameters NAME.base,
 * NAME.shape0.., NAME.stride0.. (or those values one by one, every
 * descriptor of the call expanded).  A mismatch is TLC_ERR_ARGS naming the
 * parameter; a zero or too-large grid dimension TLC_ERR_LAUNCH.
 * Asynchronous: errors inside the kernel surface at the next synchronize. */
tlc_status tlc_launch(tlc_kernel *k, unsigned gx, unsigned gy, unsigned gz,
                      tlc_stream stream, const tlc_arg *args, int nargs);

/* ---- tensor descriptors --------------------------------------------------------
 *
 * A host-made tensor descriptor (Triton's TensorDescriptor): a tensor in
 * device memory and the block shape the kernel moves through it.  A kernel
 * compiled with the signature entry tlc_tensor_desc_signature writes
 * ("tensordesc<fp16[64,64]>") takes it as one TLC_DESC argument.  The dtype
 * and block shape are compiled into the kernel; the launcher checks the
 * rank and the values, not that they match what the kernel was compiled
 * with. */
struct tlc_tensor_desc {
  tlc_devptr base;          /* 16-byte aligned */
  const char *dtype;        /* element type: "fp16", "bf16", "fp32", "fp64", "fp8e4nv", "fp8e5",
                               "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64" */
  int rank;                 /* 1..5 */
  int64_t shape[5];         /* extents, elements: 1 <= shape < 2^31 */
  int64_t strides[5];       /* elements; the last is 1, the others multiples of 16 bytes */
  int32_t block_shape[5];   /* powers of two from 1 to 256; the last one at least 16 bytes */
};

/* Fill *out after checking everything above; TLC_ERR_INVALID with a message
 * naming the first problem otherwise (*out is then zeroed).  out->dtype
 * points at a static copy of the name, so `dtype` need not outlive the call. */
tlc_status tlc_tensor_desc_make(tlc_runtime *rt, tlc_devptr base, const char *dtype, int rank,
                                const int64_t *shape, const int64_t *strides,
                                const int32_t *block_shape, tlc_tensor_desc *out);
/* Write d's signature entry ("tensordesc<fp16[64,128]>") into buf as
 * snprintf does: the return value is the entry's length (the output is
 * truncated, still NUL-terminated, when it is >= len); -1 when d is NULL or
 * its dtype or rank is not one tlc_tensor_desc_make accepts. */
int tlc_tensor_desc_signature(const tlc_tensor_desc *d, char *buf, size_t len);

/* ---- autotuning ---------------------------------------------------------------
 *
 * tlc_kernel_autotune reads the kernel's @triton.autotune(configs, key, ...)
 * decorator, compiles the kernel once per config (the config's constexprs
 * are given by name, so the signature writes `_` for them and the config's
 * num_warps / num_stages replace opt's), times each on `args` (launching
 * each with the grid the callback gives for it; reset_to_zero pointer
 * arguments are zeroed before every trial) and returns the fastest.  The
 * choice is remembered per (source, kernel, signature, options, values of
 * the key arguments) in memory and on disk next to the compile cache.  A
 * kernel without the decorator is simply compiled (tlc_kernel_from_file).
 * Configs that fail to compile or launch are skipped; if all fail, the
 * message of the first failure is returned. */
typedef void (*tlc_grid_fn)(const tlc_kernel *k, void *user, unsigned grid[3]);

tlc_status tlc_kernel_autotune(tlc_runtime *rt, const char *path, const char *name,
                               const char *signature, const tlc_kernel_options *opt,
                               tlc_grid_fn grid, void *user, const tlc_arg *args, int nargs,
                               tlc_kernel **out);
/* Which config index of the decorator the last autotune of k chose (-1:
 * none), for reports. */
int tlc_kernel_tuned_config(const tlc_kernel *k);

/* ---- memory, synchronisation, timing ------------------------------------- */

/* Synchronous copies and memsets on the default stream; 0 bytes is a no-op.
 * tlc_free(rt, 0) is a no-op; freeing an address this runtime did not
 * allocate, or freeing twice, is TLC_ERR_INVALID.  tlc_synchronize waits for
 * all work on the device; a fault inside a kernel is reported here as
 * TLC_ERR_CUDA with the driver's error name (CUDA_ERROR_ILLEGAL_ADDRESS, ...),
 * after which the context is unusable until the process exits. */

tlc_status tlc_malloc(tlc_runtime *rt, size_t bytes, tlc_devptr *out);
tlc_status tlc_free(tlc_runtime *rt, tlc_devptr p);
tlc_status tlc_memcpy_htod(tlc_runtime *rt, tlc_devptr dst, const void *src, size_t bytes);
tlc_status tlc_memcpy_dtoh(tlc_runtime *rt, void *dst, tlc_devptr src, size_t bytes);
tlc_status tlc_memset_d8(tlc_runtime *rt, tlc_devptr dst, unsigned char value, size_t bytes);
tlc_status tlc_memset_d32(tlc_runtime *rt, tlc_devptr dst, uint32_t value, size_t count);
tlc_status tlc_synchronize(tlc_runtime *rt);

/* Timing events (owned by their runtime: close destroys any left).
 * tlc_event_elapsed_ms waits for `end`, then gives end - start in ms. */
tlc_status tlc_event_create(tlc_runtime *rt, tlc_event **out);
tlc_status tlc_event_record(tlc_event *e, tlc_stream stream);
tlc_status tlc_event_elapsed_ms(tlc_event *start, tlc_event *end, float *ms);
void tlc_event_destroy(tlc_event *e);

/* ---- timing a launch ------------------------------------------------------
 *
 * An autotuner's trial (tlc_kernel_autotune's, and that of the dispatcher
 * tlc compile --autotune --emit c writes): `launch` enqueues one launch on
 * `stream` and returns its status; tlc_bench_launch waits for the device,
 * launches `warmup` times untimed and `reps` times between events, and gives
 * the median time in ms.  Memory a kernel changes is put back as Triton's
 * autotuner does: the allocation holding each `zero` address (reset_to_zero)
 * is zeroed before every launch and once after the last; the allocation
 * holding each `restore` address (restore_value) is copied to the host
 * first and back after every launch.  Both must be tlc_malloc memory of rt
 * (TLC_ERR_INVALID otherwise).  A launch that fails stops the trial with
 * its status, the memory still put back; a fault is TLC_ERR_CUDA (the
 * context is then unusable).  *median_ms is -1 on failure.  With `flush`
 * (flush_bytes, at least 4, of tlc_malloc memory of rt), the cache is evicted
 * before every launch by a memset of it, as triton.testing.do_bench does:
 * a launch is timed with its inputs in DRAM, as it runs among other work. */
typedef tlc_status (*tlc_launch_fn)(void *user, tlc_stream stream);

typedef struct tlc_bench_options {
  int warmup;                  /* untimed launches first, 0..1000 (NULL options: 1) */
  int reps;                    /* timed launches, 1..1000; 0 = 7 */
  const tlc_devptr *zero;      /* reset_to_zero: their allocations zeroed */
  int nzero;
  const tlc_devptr *restore;   /* restore_value: their allocations restored */
  int nrestore;
  tlc_devptr flush;            /* 0: no cache eviction between launches */
  size_t flush_bytes;
} tlc_bench_options;

tlc_status tlc_bench_launch(tlc_runtime *rt, tlc_launch_fn launch, void *user, tlc_stream stream,
                            const tlc_bench_options *opt, float *median_ms);

#ifdef __cplusplus
}
#endif
#endif
