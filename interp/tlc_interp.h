/* tlc_interp.h — the CPU interpreter of the tile IR: run a kernel without a
 * GPU, every load and store checked against the memory it may touch.
 *
 * A program is a kernel specialized to a signature (the tile IR straight
 * after specialization, `tlc compile --emit tir-spec`: no layouts, no
 * passes).  Launching it runs the programs of the grid one after another on
 * the calling thread, each tile a plain array, with the GPU's arithmetic
 * where it is exact (integers, IEEE fp32/fp64, fp16/bf16/fp8 rounding to
 * nearest even, Triton's random numbers) and the C library's math where the
 * GPU uses approximations (docs/interpreter.md lists the differences).
 *
 * Memory is the caller's: the launch gets the allocations pointers may
 * point into (host memory), and a load or store outside them, or one that
 * is misaligned, stops the run with a located error:
 *
 *   k.tile:7:13: error: out-of-bounds load of x + 4096 (allocation of 4096 bytes) in program (3, 0, 0)
 *
 * Used by the runtime's CPU device (TLC_DEVICE=cpu) and by `tlc run`.
 * Nothing from the IR leaks through this header; nothing here prints or
 * exits.  Not thread-safe per program: one launch at a time on a program. */
#ifndef TLC_INTERP_H
#define TLC_INTERP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "support/tlc_param_kinds.h" /* tlc_param_kind */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tlc_interp_program tlc_interp_program;

typedef enum tlc_interp_status {
  TLC_INTERP_OK = 0,
  TLC_INTERP_COMPILE_ERROR,  /* the source did not specialize (located diagnostics) */
  TLC_INTERP_ARGS,           /* the launch's grid or arguments are wrong */
  TLC_INTERP_FAULT,          /* the kernel went out of bounds, failed an assertion, ... */
  TLC_INTERP_UNSUPPORTED,    /* an op the interpreter does not support yet */
} tlc_interp_status;

typedef struct tlc_interp_request {
  const char *path;          /* names the source in messages */
  const char *source;        /* the .tile text (copied) */
  const char *kernel;        /* NULL: the only @jit function */
  const char *signature;     /* Triton AOT form, as tlc compile takes it */
  const char *const *constexprs; /* "NAME=VALUE" strings */
  int nconstexprs;
  int num_warps;             /* 0: 4 (tl.num_warps-dependent code sees it) */
  bool debug;                /* device_assert checked (as tlc_compile_options.debug) */
} tlc_interp_request;

/* Specialize the kernel.  On failure *out is NULL and *diagnostics (heap,
 * the caller frees it; always set) holds the located errors. */
tlc_interp_status tlc_interp_compile(const tlc_interp_request *req, tlc_interp_program **out,
                                     char **diagnostics);
void tlc_interp_program_free(tlc_interp_program *p);

/* The runtime parameters (constexprs are compiled in), in launch order. */
int tlc_interp_num_params(const tlc_interp_program *p);
const char *tlc_interp_param_name(const tlc_interp_program *p, int i);
tlc_param_kind tlc_interp_param_kind(const tlc_interp_program *p, int i);
/* A pointer parameter's element type as signatures write it ("fp32",
 * "fp16", "bf16", "fp8e4nv", "fp8e5", "i32", "u8", "i1", ...) and its
 * size in bytes; NULL / 0 for other parameters. */
const char *tlc_interp_param_elem(const tlc_interp_program *p, int i);
int tlc_interp_param_elem_bytes(const tlc_interp_program *p, int i);
const char *tlc_interp_kernel_name(const tlc_interp_program *p);
int tlc_interp_num_warps(const tlc_interp_program *p);

/* Scalar parameter i's value from its text ("42", "-3", "0x10", "1.5",
 * "True") into an argument slot as tlc_interp_launch reads it (an fp16 /
 * bf16 value rounded to nearest even).  0, or -1 with the reason in err
 * (not a number, out of the type's range, a pointer parameter). */
int tlc_interp_parse_scalar(const tlc_interp_program *p, int i, const char *text, uint64_t *slot, char *err,
                            size_t errlen);

/* One block of host memory a kernel may read or write. */
typedef struct tlc_interp_alloc {
  uint64_t base;             /* its address */
  size_t bytes;
  const char *name;          /* in messages ("x", "a.npy"); NULL: "allocation 0x..." */
} tlc_interp_alloc;

/* Run the grid gx x gy x gz.  args: one 8-byte slot per runtime parameter
 * holding its value as the GPU receives it (the value in the low bytes:
 * an i32 in the first 4 bytes, an fp16 in the first 2, a pointer as its
 * address).  Pointers must point into `allocs`; every access is checked
 * against them.  On failure *error (heap; the caller frees it) says what
 * and where: the source line, the program, the element.  Stores made
 * before a fault stay in memory, as on a GPU. */
tlc_interp_status tlc_interp_launch(tlc_interp_program *p, unsigned gx, unsigned gy, unsigned gz,
                                    const uint64_t *args, const tlc_interp_alloc *allocs,
                                    int nallocs, char **error);

#ifdef __cplusplus
}
#endif
#endif
