/* spec.h — specialization: from a parsed .tile module and a signature to
 * typed tile IR.  The one header of spec/ (specialize.c is its entry).
 *
 * Specialization evaluates the kernel's body abstractly: constexpr values
 * (ints, floats, bools, tuples, dtypes, constexpr parameters) are computed at
 * compile time, `if` on a constexpr picks a branch, helper @jit functions are
 * inlined, and everything that depends on runtime values becomes tile IR.
 * Type promotion, broadcasting and shape checks follow Triton's semantics
 * and fail with located diagnostics.  The IR it returns has no layouts. */
#ifndef TLC_SPEC_H
#define TLC_SPEC_H

#include "frontend/frontend.h"
#include "ir/ir.h"

/* The limits of the launch options wherever they are given: the compile
 * API (tlc_compile_options_check), triton.Config and tl.range. */
enum { SPEC_MAX_WARPS = 32, SPEC_MAX_STAGES = 16 };

typedef struct SpecConstexpr {
  const char *name;
  const char *value;  /* Python-literal text */
} SpecConstexpr;

typedef struct SpecRequest {
  const char *kernel;       /* NULL: the only @jit function of the module */
  const char *signature;    /* Triton AOT form; NULL = none */
  const SpecConstexpr *constexprs;
  int nconstexprs;
  int num_warps, num_stages; /* resolved by the driver: no defaults here */
  const char *arch;         /* "sm_90a"; never NULL */
  int capability;           /* 90 for sm_90a */
  bool debug;               /* device_assert is checked (tlc_compile_options.debug) */
  bool libdevice;           /* math from libdevice (tlc_compile_options.math_lib): libdevice.sqrt,
                               sqrt_rn, div_rn and fma are its functions, not tl's builtins */
} SpecRequest;

/* What @triton.autotune(configs, key, ...) on a kernel says, evaluated at
 * compile time (module-level lists, comprehensions and filter functions
 * included).  Values are Python-literal text ("128", "True", "tl.f16"). */
typedef struct SpecTuneConfig {
  int n;                  /* constexprs in this config */
  const char **names, **values;
  int num_warps, num_stages;
  bool pruned;            /* prune_configs_by dropped it for these arguments */
} SpecTuneConfig;

typedef struct SpecTune {
  bool present;           /* the kernel has an autotune decorator */
  int nconfigs;
  SpecTuneConfig *configs;
  int nkeys;
  const char **keys;      /* parameter names whose values key the choice */
  int nreset;
  const char **reset_to_zero; /* pointer parameters zeroed before each trial */
  int nrestore;
  const char **restore_value; /* pointer parameters copied aside before the trials and back
                                 after each */
} SpecTune;

/* Read the autotune decorator of `kernel` (NULL: the only @jit function).
 * Returns false after reporting errors; out->present is false when there is
 * no decorator.  Everything lives in `arena`.  prune_configs_by
 * (early_config_prune, perf_model with top_k) is evaluated with named_args
 * from the request: the signature's literal entries and req->constexprs
 * (the runtime passes the launch's scalar arguments there too), the other
 * parameters None; a pruning function that cannot be evaluated (it reads a
 * tensor's attributes, calls torch) is a warning and prunes nothing. */
bool spec_autotune(const Module *ast, const SpecRequest *req, Arena *arena, DiagEngine *d,
                   SpecTune *out);

/* Specialize; returns NULL after reporting errors to `d`.  The module and
 * everything in it live in `arena`. */
IrModule *spec_kernel(const Module *ast, const SpecRequest *req, Arena *arena, DiagEngine *d);

#endif
