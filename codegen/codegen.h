/* codegen.h — tile IR with layouts -> LLVM IR -> PTX.
 *
 * Owns the per-thread lowering (each distributed tensor becomes a per-thread
 * array of LLVM values, in the fragment order of ir.h's LayoutFrag), the
 * shared-memory scratch allocation for layout conversions and reductions,
 * LLVM's O3 pipeline, and PTX emission through the NVPTX backend.
 * Relies on the output contract of passes.h.  Reports through the
 * diagnostics engine — internal errors (an op/layout combination it cannot
 * lower, LLVM verifier failures) with the op as a note, and limits of the
 * target the kernel as written exceeds as located user errors — and returns
 * -1; never aborts. */
#ifndef TLC_CODEGEN_H
#define TLC_CODEGEN_H

#include "ir/ir.h"

typedef struct CgOptions {
  const char *arch;  /* "sm_90a", "sm_80", ... (PTX ISA chosen to match) */
  int opt_level;     /* 0..3 */
  bool want_llvm;    /* also return the optimized LLVM IR text */
  bool want_ptx;     /* return PTX */
} CgOptions;

typedef struct CgResult {
  char *llvm_ir;     /* heap, when want_llvm */
  char *ptx;         /* heap, when want_ptx */
  int shared_bytes;  /* dynamic shared memory the kernel needs */
  double lower_ms;   /* wall time of lowering to LLVM IR (`tlc --time`) */
  double opt_ms;     /* of the LLVM O-pipeline */
  double emit_ms;    /* of NVPTX emission */
} CgResult;

/* Lower m (its one kernel) and emit.  Sets m->shared_bytes too.  Returns 0,
 * or -1 after reporting to `diag` (d->ninternal tells a bug in tlc from a
 * kernel that exceeds a limit). */
int cg_compile(IrModule *m, const CgOptions *opt, CgResult *out, DiagEngine *diag);

/* "+ptx80" for sm_90a, ... ; NULL when the arch is not known. */
const char *cg_ptx_features(const char *arch);

#endif
