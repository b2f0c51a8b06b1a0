/* interp_internal.h — what the interpreter's files share; nothing outside
 * interp/ includes it (the public interface is tlc_interp.h).
 *
 * Model.  Every IR value of the running program has a slot (IVal, indexed
 * by Value.id) holding its elements densely, row-major, in their memory
 * representation (i1 as one byte 0/1, fp16/bf16 as their 16 bits, fp8 as
 * one byte, pointers as 64-bit addresses).  A scalar is a slot of one
 * element.  Ops read their operands' slots and write their results'; a
 * slot's buffer is reused when the op runs again (loop bodies).
 *
 * Errors: every executing function returns false after ip_fail recorded a
 * located message; nothing longjmps, so no buffer is lost.
 *
 * Sections by file:
 *   program.c     specialization into a program; parameters
 *   exec.c        the launch, the op dispatcher, control flow, errors
 *   elements.c    element access and the GPU's conversions (fp16, bf16, fp8)
 *   arith.c       elementwise arithmetic, comparisons, select, casts
 *   mathfn.c      unary math and the MATHFN library (libm)
 *   shape.c       splat, broadcast, expand_dims, reshape, trans, flip, gather, sort, histogram
 *   memory.c      the memory checker; loads, stores and atomics
 *   reduce.c      reductions and scans
 *   dot.c         tl.dot */
#ifndef TLC_INTERP_INTERNAL_H
#define TLC_INTERP_INTERNAL_H

#include "interp/tlc_interp.h"

#include "frontend/frontend.h"
#include "ir/ir.h"
#include "support/support.h"

/* ---- program.c ------------------------------------------------------------- */

struct tlc_interp_program {
  char *path, *source;       /* owned copies (diagnostics point into them) */
  Module ast;                /* kept: the IR's names and locations live in it */
  Arena arena;               /* the IR */
  IrModule *m;
  int nparams;
  tlc_param_kind *kinds;
  char **elem_names;         /* pointer params: the pointee as signatures spell it */
};

/* ---- exec.c ------------------------------------------------------------------ */

typedef struct IVal {
  unsigned char *data;
  int64_t n;                 /* elements */
  size_t cap;                /* bytes allocated */
} IVal;

typedef struct Interp {
  tlc_interp_program *p;
  IrFunc *f;
  IVal *vals;                /* by Value.id */
  unsigned pid[3], grid[3];
  tlc_interp_alloc *allocs;  /* sorted by base */
  int nallocs;
  int last;                  /* the allocation the last access hit */
  tlc_interp_status status;
  char *error;               /* heap, set by ip_fail */
  bool returned;             /* the kernel executed `return` */
} Interp;

/* Record a located error about `op` (file:line:col: error: ... in program
 * (x, y, z)) and return false. */
bool ip_fail(Interp *I, const Op *op, tlc_interp_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same with `tail` after the program (", element [3, 4] of the tile"). */
bool ip_fail_tail(Interp *I, const Op *op, tlc_interp_status st, const char *tail, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The slot of v, its buffer sized for n elements of v's element type. */
unsigned char *ip_def(Interp *I, const Value *v, int64_t n);
static inline IVal *ip_val(Interp *I, const Value *v) { return &I->vals[v->id]; }
/* The element type stored in v's slot (a pointer's DT_PTR). */
static inline DType ip_dt(const Value *v) { return v->type->dtype; }

/* ---- elements.c ---------------------------------------------------------------- */

int ip_size(DType d);                        /* bytes of one element in a slot */
double ip_get_f(const void *buf, DType d, int64_t i);  /* any numeric element as a double */
int64_t ip_get_i(const void *buf, DType d, int64_t i); /* integers: sign or zero extended; floats: truncated */
void ip_set_f(void *buf, DType d, int64_t i, double v); /* rounded to d as the GPU's cvt.rn does */
void ip_set_i(void *buf, DType d, int64_t i, int64_t v); /* integers: truncated to the width */
float ip_f16_to_f32(uint16_t h);
float ip_bf16_to_f32(uint16_t h);
float ip_f8_to_f32(uint8_t b, DType d);
/* x rounded to nearest even into fp16 / bf16 bits (NaN: 0x7fff, overflow: inf). */
uint16_t ip_to_f16(double x);
uint16_t ip_to_bf16(double x);
/* x rounded toward zero into d (fp16, bf16, fp32): tl.cast's fp_downcast_rounding="rtz". */
void ip_set_f_rtz(void *buf, DType d, int64_t i, double x);
/* float -> integer as PTX cvt.rzi does: truncated, saturated, NaN -> 0. */
int64_t ip_float_to_int(double x, DType to);
bool ip_is_float32ish(DType d);              /* fp8/fp16/bf16/fp32: computed in fp32 */

/* ---- arith.c / mathfn.c ----------------------------------------------------------- */

bool ip_elementwise(Interp *I, Op *op);      /* every TR_ELEMENTWISE op but ADDPTR */
bool ip_unary_math(Interp *I, Op *op);       /* EXP ... SIGMOID */
bool ip_mathfn(Interp *I, Op *op);           /* MATHFN */
/* a OP b in the element type d (the combine of reductions and atomics). */
double ip_binary_f(OpKind k, DType d, double a, double b, bool precise, bool propagate_nan);
int64_t ip_binary_i(OpKind k, DType d, int64_t a, int64_t b);

/* ---- shape.c ------------------------------------------------------------------------- */

bool ip_shape_op(Interp *I, Op *op);         /* SPLAT .. GATHER */
/* Row-major strides of a shape (elements). */
void ip_strides(const Type *t, int64_t *st);

/* ---- memory.c -------------------------------------------------------------------------- */

bool ip_memory_op(Interp *I, Op *op);        /* ADDPTR, LOAD, STORE, ATOMIC_RMW, ATOMIC_CAS */

/* ---- reduce.c / dot.c ------------------------------------------------------------------ */

bool ip_reduce(Interp *I, Op *op);
bool ip_scan(Interp *I, Op *op);
bool ip_dot(Interp *I, Op *op);
/* Run the ops of block b (exec.c); *term is its terminator (yield,
 * condition, return) or NULL.  Reductions run their combine regions so. */
bool ip_exec_block(Interp *I, IrBlock *b, Op **term);

#endif
