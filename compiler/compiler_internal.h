/* compiler_internal.h — private to compiler/: what compile.c shares with
 * opt.c.  Nothing outside compiler/ includes it; the public interface is
 * tlc_compiler.h. */
#ifndef TLC_COMPILER_INTERNAL_H
#define TLC_COMPILER_INTERNAL_H

#include "compiler/tlc_compiler.h"
#include "ir/ir.h"

/* `in` (NULL: all defaults) with its unset fields given the defaults of
 * tlc_compile_options_init: the one place they are filled in. */
tlc_compile_options compiler_resolve_options(const tlc_compile_options *in);
/* 90 for "sm_90a", 80 for "sm_80"; 0 when arch is not "sm_NN...". */
int compiler_capability(const char *arch);
/* The passes split the kernel into two consumer warpgroups for a producer
 * (consumer-warpgroups) that warp-specialize did not add: the compiler and
 * `tlc opt` then run them again with the split refused (IrModule.keep_warps). */
bool compiler_split_orphaned(const IrModule *m);

#endif
