/* specialize.h — from a parsed .tile module and a signature to typed tile IR.
 *
 * Specialization evaluates the kernel's body abstractly: constexpr values
 * (ints, floats, bools, tuples, dtypes, constexpr parameters) are computed at
 * compile time, `if` on a constexpr picks a branch, helper @jit functions are
 * inlined, and everything that depends on runtime values becomes tile IR.
 * Type promotion, broadcasting and shape checks follow Triton's semantics
 * and fail with located diagnostics.  The IR it returns has no layouts. */
#ifndef TLC_SPECIALIZE_H
#define TLC_SPECIALIZE_H

#include "frontend/ast.h"
#include "frontend/diag.h"
#include "ir/ir.h"

typedef struct SpecConstexpr {
  const char *name;
  const char *value;  /* Python-literal text */
} SpecConstexpr;

typedef struct SpecRequest {
  const char *kernel;       /* NULL: the only @jit function of the module */
  const char *signature;    /* Triton AOT form; NULL = none */
  const SpecConstexpr *constexprs;
  int nconstexprs;
  int num_warps, num_stages;
  const char *arch;
  int capability;           /* 90 for sm_90a */
} SpecRequest;

/* Specialize; returns NULL after reporting errors to `d`.  The module and
 * everything in it live in `arena`. */
IrModule *spec_kernel(const Module *ast, const SpecRequest *req, Arena *arena, DiagEngine *d);

#endif
