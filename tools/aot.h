/* aot.h — compiled kernels written for a C program's build (tlc compile
 * --emit c) and their metadata as JSON (--emit json, --metadata FILE).
 *
 * Owns the text of the generated NAME.c / NAME.h (the PTX embedded, typed
 * launch functions, load and unload functions that use only the runtime's
 * core: tlc_kernel_from_ptx, tlc_launch, tlc_bench_launch) and of the
 * metadata document: aot.c the pair and a kernel's plain launch,
 * aot_dispatch.c the dispatcher over an autotuned kernel's configs.  Does
 * not own compiling (tlc_compile), the grid's expressions (grid.c) or
 * writing files (tlc.c). */
#ifndef TLC_TOOLS_AOT_H
#define TLC_TOOLS_AOT_H

#include <stdbool.h>
#include <stddef.h>

#include "compiler/tlc_compiler.h"
#include "tools/grid.h"

/* The most kernels one --emit c pair holds, and configs one kernel has. */
#define AOT_MAX_KERNELS 16
#define AOT_MAX_CONFIGS 64

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

/* One kernel of a pair: compiled once, or (tune) once per autotune config. */
typedef struct AotEntry {
  const AotKernel *variants;   /* one, or one per config: the pair's config i */
  int nvariants;
  const AotGrid *grid;         /* --grid; NULL: the launch function takes gx, gy, gz */
  const tlc_tune_info *tune;   /* the decorator, for a kernel compiled per config; else NULL */
  const int *config_of;        /* tune: the decorator's index of each variant */
} AotEntry;

/* The header and the source of `prefix` for the n entries es (malloc'd, the
 * caller frees both): one kernel's functions are PREFIX_launch, ..., several
 * kernels' PREFIX_KERNEL_launch, ...; PREFIX_load and PREFIX_unload take
 * them all.  A plain kernel gets a launch function (without gx, gy, gz when
 * it has a grid), an autotuned one the dispatcher (aot_dispatch.c).  0, or
 * -1 with the reason in why (a kernel the ahead-of-time loader cannot take:
 * hidden tensor-map parameters; a kernel given twice; a grid name that is
 * not an integer parameter or constant; a reset_to_zero or restore_value
 * name that is not a pointer parameter). */
int aot_emit_c(const AotEntry *es, int n, const char *prefix, char **header, char **source, char *why,
               size_t whylen);

/* ---- shared by aot.c and aot_dispatch.c --------------------------------------- */

/* A parameter's name as a C identifier that clashes with neither a keyword
 * nor a name the generated functions use. */
void aot_c_name(const char *name, char *buf, size_t len);
/* The C type of a parameter of kind k, and the tlc_arg maker that passes it. */
void aot_c_type(tlc_param_kind k, const char **type, const char **maker);

/* How aot_put_params writes the kernel's parameters. */
typedef enum AotParamForm {
  AOT_DECL,     /* ",\n    TYPE NAME" each: after a launch function's leading parameters */
  AOT_ARGS,     /* "TLC_X(NAME), ...": a tlc_arg array's elements */
  AOT_NAMES,    /* ", NAME" each: passing them on */
  AOT_FIELDS,   /* "  TYPE NAME;\n" each: a struct's members */
  AOT_FROM,     /* ", c->NAME" each: passing them on from a struct */
} AotParamForm;
void aot_put_params(FILE *f, const tlc_compile_result *r, AotParamForm form);

/* The C name of entry e's objects and functions: PREFIX, or PREFIX_KERNEL
 * in a pair of several kernels. */
void aot_tag(const AotEntry *es, int n, int i, const char *prefix, char *buf, size_t len);

/* Kernel `kernel_expr` (a C expression of type tlc_kernel *) launched on
 * variant r's grid (g, or gx, gy, gz when g is NULL) with the parameters:
 * the statements ending a launch function (or a block), each line after
 * `indent`, and the closing brace. */
void aot_put_launch_body(FILE *f, const tlc_compile_result *r, const AotGrid *g, const char *kernel_expr,
                         const char *indent);

/* `static const char NAME[] = ...;`: text (a PTX) as C string literals, one
 * per line of it. */
void aot_put_ptx(FILE *f, const char *name, const char *text);
/* `static const tlc_param_desc TAG_params[]`: r's parameters as
 * tlc_kernel_from_ptx takes them. */
void aot_put_param_descs(FILE *f, const char *tag, const tlc_compile_result *r);

/* aot_dispatch.c: an autotuned entry.  The header's declarations; the
 * source's objects (the configs' PTX, the kernel handles, the table of
 * choices); the statements of PREFIX_load and PREFIX_unload for it; its
 * functions. */
void aot_tune_declare(FILE *h, const AotEntry *e, const char *tag, const char *prefix);
void aot_tune_objects(FILE *c, const AotEntry *e, const char *tag);
void aot_tune_load(FILE *c, const AotEntry *e, const char *tag);
void aot_tune_unload(FILE *c, const AotEntry *e, const char *tag);
void aot_tune_define(FILE *c, const AotEntry *e, const char *tag, const char *prefix);
/* The static helper the dispatchers of one file share when one has a
 * floating-point key (aot_tune_float_key). */
void aot_tune_helpers(FILE *c);
bool aot_tune_float_key(const AotEntry *e);
/* The checks of an autotuned entry that aot_emit_c makes: 0, or -1 with why. */
int aot_tune_check(const AotEntry *e, char *why, size_t whylen);

#endif
