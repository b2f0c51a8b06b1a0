/* aot.h — a compiled kernel written for a C program's build (tlc compile
 * --emit c) and its metadata as JSON (--emit json, --metadata FILE).
 *
 * Owns the text of the generated NAME.c / NAME.h (the PTX embedded, a typed
 * launch function, load and unload functions that use only the runtime's
 * core: tlc_kernel_from_ptx, tlc_launch) and of the metadata document.
 * Does not own compiling (tlc_compile) or writing files (tlc.c). */
#ifndef TLC_TOOLS_AOT_H
#define TLC_TOOLS_AOT_H

#include <stddef.h>

#include "compiler/tlc_compiler.h"

/* The most kernels one --emit c pair holds. */
#define AOT_MAX_KERNELS 16

/* One compiled kernel as the command line asked for it. */
typedef struct AotKernel {
  const char *file;                  /* the .tile path as given */
  const char *source;                /* its text (for the hash) */
  const tlc_compile_options *opt;    /* the options it was compiled with */
  const tlc_compile_result *res;     /* tlc_compile's result (PTX in res->text) */
} AotKernel;

/* The metadata document (malloc'd JSON text, ending in a newline): entry,
 * parameters and their types, num_warps, num_stages, shared memory, arch,
 * constexprs, signature, hash.  NULL when out of memory. */
char *aot_metadata_json(const AotKernel *k);

/* The C prefix of output base `base` ("out/vadd" -> "vadd"; a trailing
 * ".c" or ".h" is dropped) into buf: 0, or -1 with the reason in why when it
 * is not a C identifier. */
int aot_prefix(const char *base, char *buf, size_t len, char *why, size_t whylen);

/* The header and the source of `prefix` for the n kernels ks (malloc'd, the
 * caller frees both): one kernel gets PREFIX_launch, several get
 * PREFIX_KERNEL_launch each; PREFIX_load and PREFIX_unload take them all.
 * 0, or -1 with the reason in why (a kernel the ahead-of-time loader cannot
 * take: hidden tensor-map parameters; a kernel given twice). */
int aot_emit_c(const AotKernel *ks, int n, const char *prefix, char **header, char **source, char *why,
               size_t whylen);

#endif
