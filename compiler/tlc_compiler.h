/* tlc_compiler.h — the public compiler API: one .tile source in, one
 * artifact out (AST dump, tile IR, LLVM IR or PTX) plus what a launcher needs
 * to know about the kernel.
 *
 * This is the only header the runtime's JIT layer and the command line use
 * to reach the compiler.  Nothing from LLVM, the AST or the IR leaks through
 * it.  Every failure comes back as TLC_COMPILE_ERROR with the located
 * diagnostics in result.diagnostics; the library never prints or exits. */
#ifndef TLC_COMPILER_H
#define TLC_COMPILER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "support/tlc_param_kinds.h" /* tlc_param_kind, its names and sizes */

#ifdef __cplusplus
extern "C" {
#endif

#define TLC_VERSION_STRING "0.1.0"

typedef enum tlc_emit {
  TLC_EMIT_AST,        /* the parsed file, as `ast_dump` writes it */
  TLC_EMIT_TIR,        /* tile IR after the whole pass pipeline (layouts chosen) */
  TLC_EMIT_TIR_SPEC,   /* tile IR straight after specialization (no passes) */
  TLC_EMIT_LLVM,       /* LLVM IR after the O-pipeline (codegen/cg_pipeline.c) */
  TLC_EMIT_PTX,        /* PTX text */
} tlc_emit;

/* Where the math functions (tl.log, tl.sin, libdevice.*) come from. */
typedef enum tlc_math_lib {
  TLC_MATH_LIBCLC = 0,      /* libclc's, embedded in tlc, and tlc's own (the default) */
  TLC_MATH_LIBDEVICE = 1,   /* NVIDIA's libdevice bitcode found on the machine, called as
                               Triton calls it: results bit for bit Triton's */
  TLC_MATH_AUTO = 2,        /* libdevice when the machine has one (a file named by
                               `libdevice` / $TLC_LIBDEVICE must be usable), else libclc;
                               the runtime's and the command line's default */
} tlc_math_lib;

typedef struct tlc_constexpr_def {
  const char *name;   /* parameter name */
  const char *value;  /* Python-literal text: "128", "True", "1.5", "tl.float16" */
} tlc_constexpr_def;

typedef struct tlc_compile_options {
  const char *kernel;       /* function to compile; NULL = the only @jit function */
  const char *signature;    /* Triton AOT form, e.g. "*fp32:16,*fp32:16,i32,1024";
                               NULL = every parameter must be a constexpr given below */
  const tlc_constexpr_def *constexprs; /* constexpr values by name (--constexpr N=V) */
  int nconstexprs;
  const char *arch;         /* NULL = the default; "sm_90a", "sm_90", "sm_80", ... */
  int num_warps;            /* 0 = the default; a power of two from 1 to 32 */
  int num_stages;           /* 0 = the default; 1 to 16 */
  tlc_emit emit;
  const char *dump_after;   /* pass name: append the IR after that pass to result.dump */
  bool verify_each;         /* run the IR verifier after every pass */
  int opt_level;            /* LLVM optimisation level 0..3; -1 = the default */
  bool color;               /* diagnostics with ANSI colors, as GCC and clang print them on
                               a terminal (not part of the fingerprint) */
  bool debug;               /* Triton's debug mode: tl.device_assert (and `assert` on a runtime
                               value) checked on the device; off by default, as in Triton,
                               when they compile to nothing */
  int warp_specialize;      /* sm_90, the warp-specialize pass (a producer warp issues a
                               TMA-pipelined loop's copies): 0 = auto (the loops marked
                               tl.range(warp_specialize=True)), 1 = every loop it can take,
                               -1 = none */
  tlc_math_lib math_lib;    /* the math library (0: libclc; the runtime and the CLI ask for
                               TLC_MATH_AUTO unless $TLC_MATH_LIB says otherwise) */
  const char *skip_passes;  /* optional passes not to run, comma-separated ("pingpong,dot-ahead"):
                               A/B runs and bisecting a miscompile; NULL or "" = none
                               (tlc_pass_skippable lists them; the runtime's TLC_SKIP_PASSES) */
  const char *libdevice;    /* with TLC_MATH_LIBDEVICE: libdevice.10.bc's path; NULL = look
                               for it ($TLC_LIBDEVICE, $TRITON_LIBDEVICE_PATH, $CUDA_HOME,
                               $CUDA_PATH, /usr/local/cuda, Debian's toolkit; docs/cli.md) */
} tlc_compile_options;

typedef struct tlc_param_info {
  const char *name;
  tlc_param_kind kind;
} tlc_param_info;

/* The stages `tlc --time` reports, in pipeline order. */
typedef enum tlc_stage {
  TLC_STAGE_FRONTEND,       /* parsing and specialization (or reading tile IR) */
  TLC_STAGE_PASSES,         /* the tile-IR passes */
  TLC_STAGE_LLVM_IR,        /* lowering to LLVM IR */
  TLC_STAGE_OPTIMIZE,       /* LLVM's O-pipeline */
  TLC_STAGE_PTX,            /* NVPTX emission */
  TLC_STAGE__COUNT
} tlc_stage;

/* "front end", "passes", "LLVM IR", "optimisation", "PTX". */
const char *tlc_stage_name(tlc_stage s);

typedef struct tlc_compile_result {
  char *text;               /* the requested artifact, NUL-terminated; NULL on error */
  char *diagnostics;        /* all errors/warnings/notes, formatted; "" when none */
  char *dump;               /* --dump-after output, or NULL */
  char *kernel_symbol;      /* entry name in the PTX */
  int num_warps;            /* threads per program = 32 * num_warps */
  int shared_bytes;         /* dynamic shared memory the kernel needs */
  int nparams;              /* runtime parameters, in launch order */
  tlc_param_info *params;
  int ntma;                 /* hidden tensor-map parameters after them */
  tlc_tma_recipe *tma;
  int nconstexprs;          /* the parameters specialization made constants (tl.constexpr ones,
                               the signature's literal entries, defaults, heuristics), in order */
  tlc_constexpr_def *constexprs; /* each one's name and value as Python-literal text: "128",
                               "True", "tl.float16" */
  double compile_ms;        /* wall time of the whole compilation */
  double stage_ms[TLC_STAGE__COUNT]; /* wall time of each stage (0: did not run) */
} tlc_compile_result;

typedef enum tlc_compile_status {
  TLC_COMPILE_OK = 0,
  TLC_COMPILE_ERROR = 1,    /* a diagnostic in the user's input */
  TLC_COMPILE_INTERNAL = 2, /* a bug in tlc (the message says so) */
} tlc_compile_status;

/* Set every option to its default: sm_90a, num_warps 4, num_stages 3, PTX,
 * opt_level 3 (compile.c writes them once; an unset field means the same
 * default in every function below). */
void tlc_compile_options_init(tlc_compile_options *opt);
/* Check options as tlc_compile would (the arch is known, num_warps a power
 * of two from 1 to 32, num_stages from 1 to 16, opt_level at most 3, the
 * emit kind, math library and --dump-after pass exist; whether libdevice
 * is on the machine is tlc_compile's to find out).  Returns 0, or -1 with the
 * problem in msg (when msg is not NULL), e.g. "num_warps must be a power of
 * two from 1 to 32, not 64".  tlc_compile reports the same as an error. */
int tlc_compile_options_check(const tlc_compile_options *opt, char *msg, size_t size);

/* "auto", "libdevice" or "libclc" into *out: 0, or -1 for another word.
 * tlc_math_lib_from_env reads $TLC_MATH_LIB the same way (unset or empty:
 * TLC_MATH_AUTO), the default of the runtime and of the command line. */
int tlc_math_lib_parse(const char *word, tlc_math_lib *out);
int tlc_math_lib_from_env(tlc_math_lib *out);
/* The library `lib` means on this machine: TLC_MATH_AUTO becomes
 * TLC_MATH_LIBDEVICE when `libdevice` or $TLC_LIBDEVICE names a file or the
 * search (docs/cli.md) finds one, else TLC_MATH_LIBCLC; the others stay. */
tlc_math_lib tlc_math_lib_resolve(tlc_math_lib lib, const char *libdevice);

/* Compile `source` (the text of a .tile file named `path`, used in messages).
 * Always fills *result (free it with tlc_compile_result_free). */
tlc_compile_status tlc_compile(const char *path, const char *source,
                               const tlc_compile_options *opt,
                               tlc_compile_result *result);

void tlc_compile_result_free(tlc_compile_result *result);

/* ---- passes on tile IR (tlc opt) ---------------------------------------------
 * Read tile IR as `--emit tir` prints it (`path` names it in messages), check
 * it with the IR verifier, run the passes named in `passes` in order
 * ("coalesce,canonicalize"; NULL or "" = none) with the IR verified after
 * each, and print the module into result->text.  From opt: dump_after,
 * color, and arch and num_stages (the module's target, which the text does
 * not carry).  Errors in the text are located diagnostics, as for
 * tlc_compile. */
tlc_compile_status tlc_opt_ir(const char *path, const char *text, const char *passes,
                              const tlc_compile_options *opt, tlc_compile_result *result);

/* Pass i of the pass table (0, 1, ...): its name and a one-line summary;
 * -1 past the last. */
int tlc_pass_info(int i, const char **name, const char **summary);

/* ---- autotuning -------------------------------------------------------------
 * What a kernel's @triton.autotune(configs=[triton.Config(...)], key=[...])
 * decorator says, evaluated at compile time (module-level lists,
 * comprehensions and filter functions included). */
typedef struct tlc_tune_config {
  int nconstexprs;
  tlc_constexpr_def *constexprs;  /* e.g. BLOCK_M=128 */
  int num_warps, num_stages;
  int pruned;               /* prune_configs_by dropped it (tlc_autotune_info_for) */
} tlc_tune_config;

typedef struct tlc_tune_info {
  int present;              /* 0 when the kernel has no autotune decorator */
  int nconfigs;
  tlc_tune_config *configs;
  int nkeys;
  char **keys;              /* parameter names whose values select a config */
  int nreset;
  char **reset_to_zero;     /* pointer parameters zeroed before each trial (and once after) */
  int nrestore;
  char **restore_value;     /* pointer parameters copied aside before the trials, back after each */
  char *diagnostics;        /* errors, formatted like tlc_compile's */
} tlc_tune_info;

tlc_compile_status tlc_autotune_info(const char *path, const char *source, const char *kernel,
                                     const char *arch, tlc_tune_info *out);
/* The same for one launch: the signature's literal entries and `args`
 * (NAME=VALUE: the launch's scalar arguments, the caller's constexprs) are
 * the named arguments prune_configs_by's early_config_prune and perf_model
 * see (the other parameters are None); the configs they drop are marked
 * `pruned`.  A pruning function tlc cannot evaluate prunes nothing, with a
 * warning in `diagnostics`. */
tlc_compile_status tlc_autotune_info_for(const char *path, const char *source, const char *kernel,
                                         const char *arch, const char *signature,
                                         const tlc_constexpr_def *args, int nargs, tlc_tune_info *out);
void tlc_tune_info_free(tlc_tune_info *info);
/* Config c as `tlc autotune` prints it, "BLOCK=64 num_warps=4 num_stages=3",
 * into buf (truncated to len - 1 characters, always NUL-terminated). */
void tlc_tune_config_text(const tlc_tune_config *c, char *buf, size_t len);

/* The request: a text naming everything that determines the output of
 * tlc_compile (the tlc version, the XXH3-128 digest of the source, kernel,
 * signature, constexprs, arch, warps, stages, emit, optimisation level,
 * debug, warp specialization, math library; with TLC_MATH_LIBDEVICE the
 * identity of the libdevice file it would link: path, size, modification
 * time), defaults resolved to their values.  One field a line, strings as
 * LENGTH:BYTES.  malloc'd; the runtime's cache stores it in each entry and
 * compares it on read. */
char *tlc_compile_request(const char *source, const tlc_compile_options *opt);
/* Its fingerprint: XXH3-128 of the request, as 32 hex digits and a NUL. */
void tlc_compile_fingerprint(const char *source, const tlc_compile_options *opt, char hex[33]);

#ifdef __cplusplus
}
#endif
#endif
