/* rt_internal.h — what the runtime's files share and nothing outside
 * runtime/ (and its unit tests) may include.
 *
 * Owns the layouts of the public opaque handles (tlc_runtime, tlc_kernel,
 * tlc_event), the kernel metadata record the loader and the disk cache both
 * use, and the error/context helpers every public function goes through.
 * Sections are by file, as in the public header.
 *
 * Locking: rt->lock guards the caches and the kernel, event and allocation
 * lists; rt->msg_lock guards the error message.  rt->lock may be held while
 * setting a message (lock order: lock, then msg_lock), never the reverse. */
#ifndef TLC_RUNTIME_RT_INTERNAL_H
#define TLC_RUNTIME_RT_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/cuda_driver.h"
#include "runtime/tlc_runtime.h"

/* ---- kernel metadata (kernel.c builds it, cache.c serializes it) ------------ */

typedef struct RtParam {
  char *name;            /* parameter name, for messages */
  tlc_param_kind kind;   /* what the kernel expects at launch */
} RtParam;

/* Everything needed to load and launch a kernel, owned by the record. */
typedef struct RtKernelMeta {
  char *symbol;          /* .entry name in the PTX */
  int num_warps;         /* blockDim.x = 32 * num_warps */
  int shared_bytes;      /* dynamic shared memory per program */
  int nparams;           /* runtime parameters, in launch order */
  RtParam *params;
  int ntma;              /* hidden tensor-map parameters after them (launch.c builds them) */
  tlc_tma_recipe *tma;
  char *ptx;             /* NUL-terminated PTX text */
  /* The driver's machine code for the PTX (cuLinkComplete's cubin), and the
   * device and driver it was made by: a later load on the same pair skips
   * the PTX JIT.  NULL until a load made one or the disk cache had one. */
  unsigned char *cubin;
  size_t cubin_len;
  int cubin_capability;  /* 10 * major + minor of the device it was linked for */
  int cubin_driver;      /* cuDriverGetVersion of the driver that linked it */
} RtKernelMeta;

void rt_meta_free(RtKernelMeta *m);

/* ---- cache.c: in-memory table ---------------------------------------------- */

/* A cache key: XXH3-128 of the request (cache.h). */
typedef struct RtKey {
  uint64_t lo, hi;
} RtKey;

typedef struct RtCache {
  char *dir;             /* disk cache folder; NULL = disk cache off */
  RtKey *keys;           /* open addressing, linear probing; all zero marks a free slot */
  tlc_kernel **vals;
  size_t cap, count;
} RtCache;

/* ---- memory.c: live allocations --------------------------------------------- */

typedef struct RtPtrSet {
  uint64_t *slots;       /* open addressing; 0 = free (the driver never returns 0) */
  size_t cap, count;
} RtPtrSet;

/* ---- the handles ------------------------------------------------------------ */

struct tlc_runtime {
  pthread_mutex_t lock;     /* caches, kernel/event lists, allocation set */
  pthread_mutex_t msg_lock; /* msg */
  tlc_status open_status;   /* TLC_OK, or why tlc_runtime_open failed (every call returns it) */
  char *msg;                /* the most recent failure's message; "" before any */
  size_t msg_cap;

  bool cpu;                 /* the CPU device (TLC_DEVICE=cpu, TLC_DEVICE_CPU): no driver, host
                               memory, kernels run by the interpreter (cpu_jit.c) */
  const RtDriver *drv;      /* NULL when the driver could not be loaded (and on the CPU device) */
  int ordinal;
  CUdevice dev;
  CUcontext ctx;            /* the device's primary context */
  bool ctx_retained;

  int capability;           /* 10 * major + minor */
  char arch[16];            /* "sm_90a" */
  char arch_note[224];      /* why arch is not the device's own ("" when it is) */
  char name[256];           /* "NVIDIA H100 80GB HBM3" */
  int sm_count;
  int max_grid[3];
  int max_threads_per_block;
  int smem_default;         /* shared memory per block without opt-in (48 KiB) */
  int smem_optin;           /* the opt-in maximum (227 KiB on H100) */
  int l2_bytes;             /* the L2 cache (50 MiB on H100); 0 when the driver does not say */

  RtCache cache;
  RtPtrSet allocs;          /* device memory from tlc_malloc not yet freed */
  struct RtSize { uint64_t p; size_t bytes; } *sizes; /* the same allocations with their sizes */
  int nsizes, capsizes;
  struct RtTuned *tuned;    /* autotune choices made so far (autotune.c) */
  tlc_kernel *kernels;      /* every loaded kernel, newest first */
  tlc_event *events;        /* every live event */
};

struct tlc_kernel {
  tlc_runtime *rt;
  tlc_kernel *next;         /* rt->kernels list */
  char *name;               /* the name messages use: the requested kernel or the symbol */
  RtKernelMeta meta;
  CUmodule module;
  CUfunction fn;
  int static_shared;        /* CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES */
  int num_regs;
  double compile_ms;        /* 0 when it came from a cache or from PTX */
  bool cubin_linked;        /* this load ran the PTX JIT (no usable cubin came with the meta) */
  double link_ms;           /* its wall time (tlc_kernel_link_ms) */
  /* Prepared once at load for every launch (launch.c, rt_launch_prepare):
   * the parameters as a caller counts them (a descriptor group is one), and
   * per parameter the argument kind whose value is copied as it is and how
   * many bytes (kind -1: every argument goes through the checked packer). */
  int nlogical;
  struct RtPack { signed char kind; unsigned char size; } *pack;
  struct RtTmaMemo *tma_memo; /* the last launch's tensor maps and their inputs (launch.c); NULL: none */
  bool from_ptx;            /* tlc_kernel_from_ptx loaded it: in no cache, tlc_kernel_unload may free it */
  char **cx;                /* "NAME=VALUE" constexprs it was compiled with by name */
  int ncx;
  /* The CPU device: the interpreter's program and how to run and free it,
   * set by cpu_jit.c, so that the core calls the interpreter without
   * linking it (NULL on a GPU). */
  void *cpu_prog;
  tlc_status (*cpu_launch)(tlc_kernel *k, const unsigned grid[3], const uint64_t *slots);
  void (*cpu_free)(void *prog);
};

struct tlc_event {
  tlc_runtime *rt;
  tlc_event *prev, *next;   /* rt->events list */
  CUevent ev;
  double cpu_ms;            /* the CPU device: when it was recorded (host clock, ms) */
};

/* ---- runtime.c: errors and context ------------------------------------------ */

/* Set rt's message (printf-style) and return st.  rt may be NULL. */
tlc_status rt_fail(tlc_runtime *rt, tlc_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same, with ": <driver error name> (<driver text>)" appended. */
tlc_status rt_fail_cuda(tlc_runtime *rt, tlc_status st, CUresult r, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* TLC_OK when rt can be used: not NULL (TLC_ERR_INVALID) and opened
 * (otherwise the status of the failed open, message unchanged). */
tlc_status rt_usable(const tlc_runtime *rt);
/* rt_usable, then make the primary context current on this thread. */
tlc_status rt_enter(tlc_runtime *rt);

/* ---- memory.c ----------------------------------------------------------------- */

/* The live allocations as (base, bytes) pairs (heap; the caller frees it),
 * for the CPU device's memory checker. */
struct RtSize *rt_alloc_list(tlc_runtime *rt, int *n);

/* Free every allocation still live (runtime close). */
void rt_memory_release_all(tlc_runtime *rt);
/* The allocation holding device address p: its base and size (false: none). */
bool rt_alloc_find(tlc_runtime *rt, uint64_t p, uint64_t *base, size_t *bytes);

/* ---- launch.c ------------------------------------------------------------------- */

/* "ptr", "i32", ..., "a tensor descriptor": an argument's kind in messages. */
const char *rt_arg_kind_name(tlc_arg_kind k);
/* k->nlogical and k->pack from its parameters; TLC_ERR_INVALID when out of
 * memory. */
tlc_status rt_launch_prepare(tlc_kernel *k);

/* ---- tensor_desc.c -------------------------------------------------------------- */

/* The rank of the tensor-descriptor parameter group (NAME.base, NAME.shapeI,
 * NAME.strideI) that starts at parameter i of k; 0 when none starts there. */
int rt_desc_group(const tlc_kernel *k, int i);
/* k's parameters as a caller counts them: a descriptor group is one. */
int rt_desc_logical_params(const tlc_kernel *k);
/* "a_desc: tensor descriptor of rank 2, n: i32" into buf (truncated with
 * "..."), for the argument-count message. */
void rt_describe_params(const tlc_kernel *k, char *buf, size_t len);
/* args (one per logical parameter) with every TLC_DESC replaced by its base,
 * shapes and strides: *out has k's nparams values, (*argno)[i] the caller's
 * argument that parameter i's value came from (heap arrays, the caller
 * frees both).  TLC_ERR_ARGS naming the argument when a descriptor does not
 * fit its parameter or one is passed where none is expected. */
tlc_status rt_desc_expand(tlc_kernel *k, const tlc_arg *args, int nargs, tlc_arg **out, int **argno);

/* ---- jit.c (more) ---------------------------------------------------------------- */

/* A whole text file (heap); NULL with *err set on failure. */
char *rt_read_text_file(const char *path, const char **err);

/* ---- autotune choices (made by autotune.c, freed at close by runtime.c) ---------- */

struct RtTuned {
  struct RtTuned *next;
  RtKey key;
  tlc_kernel *k;
  int config;
};

/* ---- event.c ------------------------------------------------------------------ */

void rt_events_release_all(tlc_runtime *rt);
/* CLOCK_MONOTONIC in milliseconds. */
double rt_now_ms(void);

/* ---- kernel.c ----------------------------------------------------------------- */

/* Load meta's PTX as a module, find its entry, check and set its launch
 * resources, and link the kernel into rt.  Takes ownership of *meta (zeroed
 * on return, success or not).  `name` names the kernel in messages (NULL =
 * the symbol). */
tlc_status rt_kernel_load(tlc_runtime *rt, RtKernelMeta *meta, const char *name,
                          double compile_ms, tlc_kernel **out);
/* Unload and free every kernel of rt (runtime close). */
void rt_kernels_release_all(tlc_runtime *rt);
char *rt_strdup(const char *s);

/* ---- cpu_jit.c: kernels on the CPU device (the JIT layer) ------------------------ */

/* Specialize the request for the interpreter and link the kernel into rt
 * with its launch hooks.  `opt` and constexprs as tlc_kernel_from_source. */
tlc_status rt_cpu_kernel(tlc_runtime *rt, const char *source, const char *path, const char *name,
                         const char *signature, const tlc_kernel_options *opt, tlc_kernel **out);

/* ---- jit.c -------------------------------------------------------------------- */

/* Remember the "NAME=VALUE" constexprs of opt in k (tlc_kernel_constexpr_int). */
void rt_kernel_keep_constexprs(tlc_kernel *k, const tlc_kernel_options *opt);

/* The cache key tlc_kernel_from_source would use for this request, and
 * (when request is not NULL) the request text it stores in the entry,
 * malloc'd (the unit tests seed the disk cache with them). */
tlc_status rt_jit_key(tlc_runtime *rt, const char *source, const char *name, const char *signature,
                      const tlc_kernel_options *opt, RtKey *key, char **request);

#endif
