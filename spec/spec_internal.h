/* spec_internal.h — private to specialization (the .c files of spec/):
 * the abstract values the evaluator computes with, scopes, and the shared
 * helpers.
 *
 * An SVal is what a Python expression evaluates to at compile time: a
 * constexpr (None, bool, int, float, str, tuple/list, dict, dtype), an IR
 * value (scalar or tensor), a block pointer or a tensor descriptor (records
 * of IR values), a class (for isinstance), or a callable (helper function,
 * builtin, bound method).  SVals are immutable
 * and arena-allocated, so they are shared freely between scopes.
 *
 * Errors: a failing evaluation reports one located diagnostic and returns
 * the poison value; anything computed from poison is poison and reports
 * nothing more, so one mistake gives one message. */
#ifndef TLC_SPEC_INTERNAL_H
#define TLC_SPEC_INTERNAL_H

#include "spec/spec.h"

/* The largest rank of a tensor descriptor tlc accepts (Triton's is 5). */
enum { SPEC_DESC_MAX_RANK = 4 };

typedef enum SKind {
  SV_POISON,   /* an error was already reported */
  SV_NONE, SV_BOOL, SV_INT, SV_FLOAT, SV_STR,
  SV_TUPLE,    /* tuple or list (is_list) */
  SV_DICT,
  SV_DTYPE,    /* a scalar IR type: tl.float16, pointer types */
  SV_TENSOR,   /* an IR value, scalar or tensor */
  SV_BLOCKPTR,
  SV_TENSORDESC, /* tl.make_tensor_descriptor or a tensordesc<...> parameter */
  SV_CLASS,    /* tl.tensor, tl.tensor_descriptor, tl.dtype (isinstance's classes; s names it) */
  SV_FUNC,     /* a def of the module (helper @jit function or host code) */
  SV_BUILTIN,  /* tl.load, range, float, ... */
  SV_MODULE,   /* triton, triton.language, tl.math, ... */
  SV_METHOD,   /* builtin bound to a receiver: x.to, ptr.advance */
  SV_TYPEOBJ,  /* x.type: element_ty, scalar, shape */
  SV_CONSTEXPR_T, /* tl.constexpr itself (annotations, tl.constexpr(x)) */
  SV_CONFIG,   /* triton.Config(...) */
  SV_UNAVAILABLE, /* imported from a module tlc cannot see, or a Triton name tlc lacks:
                     using it is an error, reported once (un) */
  SV_LAMBDA,   /* a lambda of host code (heuristics, autotune pruning): lambda_ is its
                  EX_LAMBDA, evaluated in the module scope when called */
  SV_MATHFN,   /* a libdevice function (builtins_math.c: i = its sort, builtin = its index, s = its name) */
} SKind;

typedef struct SVal SVal;
typedef struct BlockPtr BlockPtr;
typedef struct TensorDesc TensorDesc;
typedef struct Unavailable Unavailable;

/* What an import bound that cannot be used in a kernel (stmt.c binds it,
 * expr.c reports it on the first use). */
struct Unavailable {
  bool unknown_module;          /* `module` is not one tlc knows; else `name` is missing from it */
  const char *module;           /* as written in the import */
  const char *name;             /* the imported name (NULL for `import module`) */
  Loc import_loc;               /* the import statement */
  bool *reported;               /* shared by the names of one import statement */
};

struct BlockPtr {
  int rank;
  Value *base;                  /* scalar ptr<T> */
  Value *shape[IR_MAX_RANK];    /* i64 scalars */
  Value *strides[IR_MAX_RANK];  /* i64 scalars */
  Value *offsets[IR_MAX_RANK];  /* i32 scalars */
  int64_t block[IR_MAX_RANK];   /* constexpr block shape */
  int order[IR_MAX_RANK];
};

/* A tensor descriptor (tensordesc.c): the tensor's base, shape and strides,
 * with Triton's types, and the constexpr block that desc.load/desc.store
 * move.  Accesses lower as a block pointer at the given offsets with every
 * dim boundary-checked. */
struct TensorDesc {
  int rank;
  Value *base;                  /* scalar ptr<T> */
  Value *shape[IR_MAX_RANK];    /* i32 scalars */
  Value *strides[IR_MAX_RANK];  /* i64 scalars (the last is 1 for TMA) */
  int64_t block[IR_MAX_RANK];   /* constexpr block shape */
  bool pad_nan;                 /* padding_option="nan": out-of-bounds loads read NaN */
};

struct SVal {
  SKind kind;
  bool is_list;                 /* SV_TUPLE from [...] */
  int64_t i;                    /* BOOL, INT */
  double f;                     /* FLOAT */
  const char *s;                /* STR, MODULE name */
  SVal **items;                 /* TUPLE items; DICT keys */
  SVal **values;                /* DICT values */
  int n;
  const Type *type;             /* DTYPE, TYPEOBJ */
  Value *v;                     /* TENSOR */
  BlockPtr *bp;                 /* BLOCKPTR */
  TensorDesc *td;               /* TENSORDESC */
  FuncDef *fn;                  /* FUNC */
  int builtin;                  /* BUILTIN, METHOD */
  SVal *self;                   /* METHOD receiver, TYPEOBJ owner */
  Unavailable *un;              /* UNAVAILABLE */
  const Expr *lambda_;          /* LAMBDA */
};

typedef struct Binding {
  const char *name;
  SVal *val;
} Binding;

typedef struct Scope {
  VEC(Binding) vars;
  struct Scope *parent;         /* module scope for function scopes */
} Scope;

typedef struct Frame {
  FuncDef *fn;
  Loc call_loc;
  SVal *ret;                    /* value of `return` once reached outside runtime control flow */
  bool returned;                /* ... and so the rest of the body is not run */
  int runtime_depth;            /* nesting of runtime if/for/while (and exit guards) */
  int loop_depth;               /* nesting of loops, runtime or unrolled (break/continue) */
  int runtime_loop_depth;       /* nesting of runtime for/while */
  Loc value_ret, none_ret;      /* first `return x` / bare `return` under runtime control flow */
} Frame;

/* Limits on compile-time work, so that no input makes specialization run
 * (or allocate) without bound: `tl.static_range` nests, comprehensions,
 * tuple arithmetic and helper inlining all count against them.  Exceeding
 * one is a located error, reported once; evaluation then stops quietly. */
enum {
  SPEC_MAX_TUPLE = 65536,     /* items in one constexpr tuple or list */
  SPEC_MAX_STEPS = 1000000,   /* statements run + expressions evaluated + tuple items made */
  SPEC_MAX_OPS = 200000,      /* tile IR ops of the specialized kernel */
  SPEC_MAX_EVAL_DEPTH = 2000, /* nested evaluations, across inlined helpers */
};

typedef struct Spec {
  const Module *ast;
  const SpecRequest *req;
  DiagEngine *d;
  Arena *arena;
  IrModule *m;
  IrFunc *f;
  IrBuilder b;
  Scope *globals;
  Frame *frames[64];
  int depth;
  SVal *poison, *none, *true_, *false_;
  Loc arg_sig_loc[64];          /* signature entry of each IR argument (for notes) */
  int64_t steps;                /* compile-time work so far (SPEC_MAX_STEPS) */
  int eval_depth;               /* spec_eval nesting (SPEC_MAX_EVAL_DEPTH) */
  bool over_budget;             /* a limit was hit and reported: stop evaluating */
} Spec;

/* When v is a kernel argument (a runtime parameter), a note at its
 * signature entry saying how to make it a compile-time value. */
void spec_note_runtime_param(Spec *s, const Value *v);

/* Count n units of compile-time work at loc; false (after reporting once)
 * when a limit is exceeded. */
bool spec_step(Spec *s, Loc loc, int64_t n);

/* ---- values.c: values, conversions, Triton's typing rules ---------- */

SVal *sv_new(Spec *s, SKind k);
SVal *sv_int(Spec *s, int64_t v);
SVal *sv_float(Spec *s, double v);
SVal *sv_bool(Spec *s, bool v);
SVal *sv_str(Spec *s, const char *str);
SVal *sv_tensor(Spec *s, Value *v);
SVal *sv_dtype(Spec *s, const Type *t);
SVal *sv_tuple(Spec *s, SVal **items, int n, bool is_list);
const char *sv_kind_name(const SVal *v);       /* "int", "tensor", "block pointer", ... */
const char *spec_article(const char *noun); /* "a" or "an" before noun */
void sv_describe(Spec *s, StrBuf *sb, const SVal *v); /* for messages: "tensor<128xf32>" */
const char *sv_text(Spec *s, const SVal *v);          /* the same as an arena string */

bool sv_is_constexpr(const SVal *v);
bool sv_is_number(const SVal *v);              /* bool, int, float constexpr */
bool sv_truthy(Spec *s, const SVal *v, Loc loc, bool *out); /* constexpr truth value */

/* Materialize a constexpr (or pass through a tensor) as an IR value, the
 * way Triton's to_tensor does: bool -> i1, int -> i32 (u32/i64/u64 when out
 * of range), float -> f32.  Reports and returns NULL for other kinds. */
Value *sv_to_value(Spec *s, SVal *v, Loc loc, const char *what);
/* Materialize with a required scalar element type (weak literal typing). */
Value *sv_to_value_as(Spec *s, SVal *v, const Type *elem, Loc loc);
/* A constexpr int from v; reports "expected a constexpr integer" otherwise. */
bool sv_const_int(Spec *s, SVal *v, Loc loc, const char *what, int64_t *out);

const Type *val_elem(Spec *s, Value *v);        /* element type */
/* Broadcast the two operands to a common shape (numpy rules, scalars
 * splat); reports "incompatible shapes" at loc. */
bool spec_broadcast_pair(Spec *s, Value **a, Value **b, Loc loc, const char *opname);
Value *spec_broadcast_to(Spec *s, Value *v, int rank, const int64_t *shape, Loc loc);
/* The same, naming the operand in the message: "<what> has shape [16, 32],
 * which does not broadcast to <target> shape [128]". */
Value *spec_broadcast_to_as(Spec *s, Value *v, int rank, const int64_t *shape, Loc loc,
                            const char *what, const char *target);
/* Cast v to element type `elem` keeping its shape. */
Value *spec_cast(Spec *s, Value *v, const Type *elem, Loc loc);
Value *spec_bitcast(Spec *s, Value *v, const Type *elem, Loc loc);
/* Triton's computation type for arithmetic between a and b (either may be
 * a constexpr literal); NULL after reporting. */
const Type *spec_computation_type(Spec *s, SVal *a, SVal *b, bool div_or_mod, Loc loc, const char *opname);
/* Convert both operands of an arithmetic op to IR values of the
 * computation type with a common shape. */
bool spec_arith_operands(Spec *s, SVal *a, SVal *b, bool div_or_mod, Loc loc, const char *opname,
                         Value **va, Value **vb);
/* Arithmetic whose result is fp8 (x's type) computes in fp32 and converts
 * back, which needs sm_89's cvt: false after reporting on older targets. */
bool spec_fp8_arith_ok(Spec *s, Value *x, Loc loc, const char *opname);
/* Truth of a runtime value as i1 (x != 0 for non-bools). */
Value *spec_to_bool(Spec *s, Value *v, Loc loc);
bool spec_check_block_shape(Spec *s, int rank, const int64_t *shape, Loc loc);
/* A float constexpr as an integer constant: truncated, saturated at the
 * 64-bit bounds, NaN as 0 (C leaves those conversions undefined). */
int64_t spec_float_to_int(double f);

/* ---- operators.c: Python operators on SVals -------------------------------- */

SVal *spec_binop(Spec *s, AstOp op, SVal *a, SVal *b, Loc loc);
SVal *spec_unop(Spec *s, AstOp op, SVal *a, Loc loc);
SVal *spec_compare(Spec *s, AstOp op, SVal *a, SVal *b, Loc loc);
/* x[None, :] on a tensor: kinds[i] is IDX_NEWAXIS or IDX_ALL. */
enum { IDX_NEWAXIS = -1, IDX_ALL = -2 };
SVal *spec_index_tensor(Spec *s, Value *x, const int *kinds, int n, Loc loc);
SVal *spec_logical(Spec *s, bool is_and, SVal *a, SVal *b, Loc loc);
SVal *spec_addptr(Spec *s, SVal *ptr, SVal *off, Loc loc);

/* ---- expr.c / stmt.c ------------------------------------------------------ */

SVal *spec_eval(Spec *s, Scope *sc, const Expr *e);
/* Evaluate a statement list; stops after `return`. */
void spec_exec_block(Spec *s, Scope *sc, const Block *b);
SVal *scope_lookup(Scope *sc, const char *name);
void scope_set(Spec *s, Scope *sc, const char *name, SVal *v);
void scope_remove(Scope *sc, const char *name);
SVal *spec_call_function(Spec *s, FuncDef *fn, SVal **args, int nargs, const Keyword *kw,
                         SVal **kwvals, int nkw, Loc loc);
/* Call a host-code callable (a lambda or a module def) with positional
 * arguments; reports "not callable" for anything else. */
SVal *spec_call_value(Spec *s, SVal *fn, SVal **args, int nargs, Loc loc);

/* Module-level `NAME = expr` evaluated on first use (NULL when none). */
SVal *spec_global_lazy(Spec *s, const char *name, Loc use);
void spec_bind_import(Spec *s, Scope *sc, const Stmt *st);

/* ---- exits.c: return/break/continue inside runtime control flow --------- */

/* The hidden variables of a function's scope (exits.c says what each means). */
extern const char SPEC_EXIT_RETURN[], SPEC_EXIT_VALUE[], SPEC_EXIT_BREAK[], SPEC_EXIT_CONTINUE[];
/* A name of the evaluator's own ('$...'): never visible to or suggested for the user. */
bool spec_is_hidden_name(const char *name);
bool spec_is_exit_flag(const char *name);          /* $return, $break, $continue */
/* For messages: "'acc'", "the return value". */
const char *spec_var_label(Spec *s, const char *name);

typedef enum { EXITS_NONE, EXITS_MAYBE, EXITS_ALWAYS } ExitsKind;
typedef struct SpecExits {
  ExitsKind kind;
  Value *stop;                  /* MAYBE: i1, an exit happened (the OR of the runtime flags) */
  const char *only;             /* MAYBE: the one flag that is runtime, NULL when several are */
} SpecExits;
/* Where execution stands in scope sc: no exit, maybe one (run the rest under
 * `stop`'s guard), or certainly one (the rest is dead).  May emit the OR at loc. */
SpecExits spec_exit_state(Spec *s, Scope *sc, Loc loc);
/* Set every flag present in sc to False (code that runs only when none is set). */
void spec_exit_clear(Spec *s, Scope *sc);
bool spec_exit_returned(Scope *sc);      /* $return is True: every path returned */
bool spec_exit_may_return(Scope *sc);    /* $return is True or a runtime value */

typedef struct SpecLoopExits {
  bool has_break, has_continue;   /* of this loop (not of loops nested in it) */
  bool has_return;                /* anywhere in the body */
} SpecLoopExits;
SpecLoopExits spec_loop_exits(const Block *body);
/* A loop's own $break/$continue: the enclosing loop's are set aside on entry
 * and put back on exit. */
typedef struct SpecLoopSave {
  SVal *brk, *cont;
} SpecLoopSave;
void spec_loop_enter(Spec *s, Scope *sc, SpecLoopSave *save);
void spec_loop_leave(Spec *s, Scope *sc, const SpecLoopSave *save);
/* The value a function returns once its body ran in scope sc (reports a
 * path that returns a value where another returns None). */
SVal *spec_exit_result(Spec *s, Scope *sc, Frame *fr, bool is_kernel);

/* ---- builtins_compute.c ------------------------------------------------------ */

/* A checked assertion (debug mode): cond (where mask holds, when given) must
 * be true on the device, else the kernel stops with msg (the condition's
 * source text when msg is empty) and its file and line. */
void spec_device_assert(Spec *s, SVal *cond, SVal *mask, const char *msg, Loc loc, Loc cond_loc);

/* ---- builtins.c: calling a builtin (the table is builtins.def) ------------------ */

typedef struct CallArgs {
  SVal **pos;
  int npos;
  const char **kwnames;
  SVal **kw;
  Loc *kwlocs;
  int nkw;
  Loc loc;        /* the whole call */
  Loc *poslocs;
  Loc plocs[12];  /* filled by binding: the location of each bound parameter's argument */
} CallArgs;

SVal *spec_call_builtin(Spec *s, int id, SVal *self, CallArgs *a);
const char *spec_builtin_name(int id);

/* ---- builtins_math.c: libdevice and tl.math's library names ---------------------- */

/* `name` of a math module (tl.math, libdevice): a math-function value, a
 * builtin (libdevice.abs), or NULL when the library has no such name. */
SVal *spec_math_attr(Spec *s, const char *mod, const char *name);
/* Every name spec_math_attr resolves to a function (for "did you mean"). */
void spec_math_names(void (*consider)(void *ctx, const char *name), void *ctx);
SVal *spec_call_mathfn(Spec *s, SVal *fn, CallArgs *a);

/* ---- attributes.c --------------------------------------------------------------- */

/* Look up `name` as an attribute of module `mod` ("triton.language", ...);
 * NULL when there is none. */
SVal *spec_module_attr(Spec *s, const char *mod, const char *name);
/* Attribute of a non-module value (x.dtype, x.shape, x.to, ptr.advance...). */
SVal *spec_value_attr(Spec *s, SVal *v, const char *name, Loc loc);
/* The attribute of `base` (a module or a value) closest to the unknown
 * `name`, for a "did you mean" note; NULL when none is close. */
const char *spec_suggest_attr(Spec *s, const SVal *base, const char *name);
/* Python builtins visible without import (range, float, min, ...). */
SVal *spec_python_builtin(Spec *s, const char *name);
/* A module tlc knows (triton, triton.language, tl.math, libdevice, ...). */
bool spec_module_known(const char *mod);
/* Report `written.name` (the module mod's attribute `name`, the module as
 * written, NULL when not a dotted name) that does not resolve: a real
 * Triton name is "not supported by tlc yet", anything else "has no
 * attribute" with a "did you mean" for a near name. */
void spec_report_missing_attr(Spec *s, const SVal *mod, const char *name, const char *written, Loc loc);
/* The first use, at `use` as `bound`, of a name an import could not provide:
 * one error per import statement (at the import for a module tlc cannot
 * see, at the use for a Triton name tlc lacks).  Returns the poison value. */
SVal *spec_report_unavailable(Spec *s, const SVal *v, const char *bound, Loc use);

/* ---- triton_names.c: the real Triton language's names ---------------------------- */

typedef enum TritonNames {
  TN_LANGUAGE,  /* triton.language */
  TN_MATH,      /* triton.language.math (libdevice's names too, as in Triton 2.x) */
  TN_LIBDEVICE, /* triton.language.extra(.cuda).libdevice */
  TN_TRITON,    /* triton */
  TN_TENSOR,    /* methods and properties of tl.tensor */
} TritonNames;
bool spec_triton_name(TritonNames ns, const char *name);

/* ---- blockptr.c ----------------------------------------------------------------- */

SVal *spec_make_block_ptr(Spec *s, CallArgs *a, SVal **argv);
SVal *spec_advance(Spec *s, SVal *bp, SVal *offsets, Loc loc);
/* An integer constexpr or integer scalar as an IR scalar of type dt (a
 * shape entry, stride or offset); NULL after reporting. */
Value *spec_int_scalar(Spec *s, SVal *v, DType dt, Loc loc, const char *what);
/* Pointer tensor and mask (NULL when no boundary check) for a block access. */
bool spec_block_ptr_access(Spec *s, const BlockPtr *bp, const int *check, int ncheck, Loc loc,
                           Value **ptrs, Value **mask);

/* ---- tensordesc.c ---------------------------------------------------------------- */

/* tl.make_tensor_descriptor(base, shape, strides, block_shape, padding_option)
 * with argv bound in that order. */
SVal *spec_make_tensor_desc(Spec *s, CallArgs *a, SVal **argv);
/* desc.load(offsets) / desc.store(offsets, value); argv[0] is the receiver. */
SVal *spec_desc_load(Spec *s, CallArgs *a, SVal **argv);
SVal *spec_desc_store(Spec *s, CallArgs *a, SVal **argv);
/* Triton's rules for a descriptor of `rank` dims of `elem` moving `block`:
 * elements of 1 to 8 bytes (not bool), rank 1 to 5 (and at most
 * IR_MAX_RANK), block dims powers of two (at most max_dim unless it is 0),
 * the innermost dim at least 16 bytes.  Errors at *elem_loc (the element
 * type) and dim_locs[i] (block dim i) when those are not NULL, else at loc. */
bool spec_desc_check(Spec *s, const Type *elem, int rank, const int64_t *block, Loc loc, const Loc *elem_loc,
                     const Loc *dim_locs, int max_dim);
/* An attribute of a tensor descriptor (shape, strides, block_shape, dtype,
 * block_type, load, store); NULL when there is none (reported by the caller
 * unless it was reported here). */
SVal *spec_desc_attr(Spec *s, SVal *desc, const char *name, Loc loc, bool *reported);
/* Names spec_desc_attr knows, NULL-terminated (for "did you mean"). */
extern const char *const spec_desc_attr_names[];
/* The descriptor a `tensordesc<T[B0, B1]>` kernel parameter stands for:
 * its IR arguments NAME.base, NAME.shape0.., NAME.stride0..NAME.stride{R-2}
 * added to the kernel (the last stride is the constant 1). */
SVal *spec_desc_param(Spec *s, const char *name, const Type *elem, int rank, const int64_t *block,
                      Loc sig_loc);

/* Levenshtein distance (for "did you mean" notes). */
int spec_edit_distance(const char *a, const char *b);

/* ---- diagnostics helpers ----------------------------------------------------------- */

void spec_error(Spec *s, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void spec_note(Spec *s, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static inline bool is_poison(const SVal *v) { return !v || v->kind == SV_POISON; }
/* Set the builder's location for the ops that follow. */
static inline void spec_at(Spec *s, Loc loc) { s->b.loc = loc; }

#endif
