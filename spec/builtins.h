/* builtins.h — private to the builtins files of spec/ (builtins.c,
 * builtins_*.c, attributes.c, tensordesc.c): the handler type, the
 * handlers' declarations (from builtins.def) and the argument helpers they
 * share. */
#ifndef TLC_SPEC_BUILTINS_H
#define TLC_SPEC_BUILTINS_H

#include "spec/spec_internal.h"

/* Parameters of one builtin, at most (CallArgs.plocs has as many). */
#define BI_MAXP 12

typedef SVal *(*BuiltinFn)(Spec *s, SVal **argv, CallArgs *a);

#define BUILTIN(name, params, fn) SVal *fn(Spec *s, SVal **argv, CallArgs *a);
#include "spec/builtins.def"
#undef BUILTIN

/* ---- builtins.c: the table and the argument helpers ------------------------- */

/* The index of builtin `name` in builtins.def, or -1. */
int spec_builtin_index(const char *name);
/* A callable value for builtin `name` (NULL when there is none). */
SVal *spec_builtin_val(Spec *s, const char *name);
int spec_builtin_count(void);

/* Where argument i of the call was written (the call itself when absent). */
static inline Loc bi_argloc(CallArgs *a, int i) {
  return i < BI_MAXP && a->plocs[i].line ? a->plocs[i] : a->loc;
}
static inline IrContext *bi_ctx(Spec *s) { return s->m->ctx; }

/* v as an IR value (a constexpr materialized); NULL after reporting. */
Value *bi_need_tensor(Spec *s, SVal *v, Loc loc, const char *what);
/* A constexpr int or tuple of at most `max` ints into out[0..*n). */
bool bi_const_ints(Spec *s, SVal *v, Loc loc, const char *what, int64_t *out, int *n, int max);
/* A string argument ("" for None or absent); NULL after reporting. */
const char *bi_str_arg(Spec *s, SVal *v, Loc loc, const char *what);
/* A dtype argument (tl.float32, x.dtype); NULL after reporting. */
const Type *bi_dtype_arg(Spec *s, SVal *v, Loc loc, const char *what);
/* axis in [-rank, rank) as a dim index; -1 after reporting. */
int bi_norm_axis(Spec *s, int64_t axis, int rank, Loc loc);

/* ---- builtins_tensor.c ------------------------------------------------------- */

/* A constexpr shape (a tuple of powers of two); false after reporting. */
bool bi_shape_arg(Spec *s, SVal *v, Loc loc, int64_t *shape, int *rank);
/* `value` (a number or a scalar tensor) as a tensor of `shape` (a scalar
 * when rank is 0) with element type `elem`; NULL after reporting. */
Value *bi_splat_constant(Spec *s, SVal *value, const Type *elem, int rank, const int64_t *shape,
                         Loc loc);

/* ---- builtins_compute.c ------------------------------------------------------ */

/* tl.maximum / tl.minimum (k = OP_MAX / OP_MIN) of argv[0] and argv[1]. */
SVal *bi_minmax(Spec *s, SVal **v, CallArgs *a, OpKind k);

#endif
