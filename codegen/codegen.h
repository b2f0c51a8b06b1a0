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
  bool libdevice;    /* math functions from libdevice, as Triton calls them (cg_libdevice.c) */
  const char *libdevice_path; /* its file (--libdevice); NULL = cg_libdevice_locate's search */
} CgOptions;

typedef struct CgResult {
  char *llvm_ir;     /* heap, when want_llvm */
  char *ptx;         /* heap, when want_ptx */
  int shared_bytes;  /* dynamic shared memory the kernel needs */
  double lower_ms;   /* wall time of lowering to LLVM IR, linking the math library and the verifier (`tlc --time`) */
  double opt_ms;     /* of the LLVM O-pipeline */
  double emit_ms;    /* of NVPTX emission */
} CgResult;

/* Lower m (its one kernel) and emit.  Sets m->shared_bytes too.  Returns 0,
 * or -1 after reporting to `diag` (d->ninternal tells a bug in tlc from a
 * kernel that exceeds a limit). */
int cg_compile(IrModule *m, const CgOptions *opt, CgResult *out, DiagEngine *diag);

/* "+ptx80" for sm_90a, ... ; NULL when the arch is not known. */
const char *cg_ptx_features(const char *arch);

/* cg_libdevice.c: the libdevice file a compilation links: `given` (the
 * --libdevice option) or, when NULL, $TLC_LIBDEVICE, else the first file
 * that exists of $TRITON_LIBDEVICE_PATH, $CUDA_HOME and $CUDA_PATH's
 * nvvm/libdevice/libdevice.10.bc, /usr/local/cuda's and Debian's toolkit's;
 * checked to be a readable file that starts as LLVM bitcode does.  Returns
 * the path (heap), or NULL with `why` (when not NULL) holding the message:
 * every path tried and what was wrong with it. */
char *cg_libdevice_locate(const char *given, StrBuf *why);
/* Path, size, modification time and inode of that file, hashed (0: none):
 * what the runtime's cache key needs to tell one libdevice from another. */
uint64_t cg_libdevice_identity(const char *given);

#endif
