/* values.c — abstract values and Triton's typing rules: literal
 * materialization (to_tensor), the computation type of arithmetic (weak
 * typing of Python literals, fp16/bf16/fp32/fp64 and integer promotion),
 * broadcasting with numpy rules, and casts.
 *
 * The rules follow Triton's language semantics so that a kernel computes
 * the same types under tlc as under Triton; where Triton raises an error,
 * tlc reports a located diagnostic. */
#include "spec/spec_internal.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

void spec_error(Spec *s, Loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_verror(s->d, "error", loc, fmt, ap);
  va_end(ap);
}

void spec_note(Spec *s, Loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_verror(s->d, "note", loc, fmt, ap);
  va_end(ap);
}

void spec_note_runtime_param(Spec *s, const Value *v) {
  if (!s->f) return;
  for (int i = 0; i < s->f->nargs && i < 64; i++) {
    if (s->f->args[i].value != v || !s->arg_sig_loc[i].line) continue;
    StrBuf t;
    sb_init(&t);
    ty_print(&t, v->type);
    spec_note(s, s->arg_sig_loc[i], "'%s' is a runtime %s here; to make it a compile-time value, give "
              "a value in the signature (e.g. 64) or annotate it ': tl.constexpr'", s->f->args[i].name,
              t.data);
    sb_free(&t);
    return;
  }
}

bool spec_step(Spec *s, Loc loc, int64_t n) {
  if (s->over_budget) return false;
  /* Past the error cap, or once the same errors keep repeating (an unrolled
   * loop erring in every iteration), nothing more would be shown: stop
   * evaluating instead of building messages no one sees. */
  if (diag_saturated(s->d)) {
    s->over_budget = true;
    return false;
  }
  s->steps += n;
  if (s->steps > SPEC_MAX_STEPS) {
    spec_error(s, loc, "compile-time evaluation does too much work here (more than %d steps: "
               "unrolled loops, comprehensions and inlined calls count); the kernel is too large",
               SPEC_MAX_STEPS);
    s->over_budget = true;
  } else if (s->f && s->f->nops > SPEC_MAX_OPS) {
    spec_error(s, loc, "the specialized kernel has more than %d operations (after unrolling and "
               "inlining); it is too large", SPEC_MAX_OPS);
    s->over_budget = true;
  }
  return !s->over_budget;
}

SVal *sv_new(Spec *s, SKind k) {
  SVal *v = ARENA_NEW(s->arena, SVal);
  v->kind = k;
  return v;
}
SVal *sv_int(Spec *s, int64_t x) {
  SVal *v = sv_new(s, SV_INT);
  v->i = x;
  return v;
}
SVal *sv_float(Spec *s, double x) {
  SVal *v = sv_new(s, SV_FLOAT);
  v->f = x;
  return v;
}
SVal *sv_bool(Spec *s, bool x) { return x ? s->true_ : s->false_; }
SVal *sv_str(Spec *s, const char *str) {
  SVal *v = sv_new(s, SV_STR);
  v->s = arena_strdup(s->arena, str);
  return v;
}
SVal *sv_tensor(Spec *s, Value *x) {
  if (!x) return s->poison;
  SVal *v = sv_new(s, SV_TENSOR);
  v->v = x;
  return v;
}
SVal *sv_dtype(Spec *s, const Type *t) {
  SVal *v = sv_new(s, SV_DTYPE);
  v->type = t;
  return v;
}
SVal *sv_tuple(Spec *s, SVal **items, int n, bool is_list) {
  s->steps += n; /* checked at the next statement or evaluation */
  SVal *v = sv_new(s, SV_TUPLE);
  v->items = ARENA_ARRAY(s->arena, SVal *, n ? n : 1);
  for (int i = 0; i < n; i++) v->items[i] = items[i];
  v->n = n;
  v->is_list = is_list;
  return v;
}

/* "a" or "an" before noun (its first letter a vowel: "an int", "an
 * i1 tensor", "a tensor"). */
const char *spec_article(const char *noun) {
  return noun && strchr("aeiouAEIOU", noun[0]) && noun[0] ? "an" : "a";
}

const char *sv_kind_name(const SVal *v) {
  switch (v->kind) {
  case SV_POISON: return "<error>";
  case SV_NONE: return "None";
  case SV_BOOL: return "bool";
  case SV_INT: return "int";
  case SV_FLOAT: return "float";
  case SV_STR: return "str";
  case SV_TUPLE: return v->is_list ? "list" : "tuple";
  case SV_DICT: return "dict";
  case SV_DTYPE: return "dtype";
  case SV_TENSOR: return v->v->type->rank ? "tensor" : "scalar";
  case SV_BLOCKPTR: return "block pointer";
  case SV_TENSORDESC: return "tensor descriptor";
  case SV_CLASS: return "class";
  case SV_FUNC: return "function";
  case SV_BUILTIN: return "builtin function";
  case SV_MODULE: return "module";
  case SV_METHOD: return "method";
  case SV_TYPEOBJ: return "type";
  case SV_CONSTEXPR_T: return "tl.constexpr";
  case SV_CONFIG: return "triton.Config";
  case SV_UNAVAILABLE: return "unavailable import";
  case SV_LAMBDA: return "lambda";
  case SV_MATHFN: return "math function";
  }
  return "?";
}

void sv_describe(Spec *s, StrBuf *sb, const SVal *v) {
  switch (v->kind) {
  case SV_INT: sb_printf(sb, "int %lld", (long long)v->i); break;
  case SV_BOOL: sb_puts(sb, v->i ? "True" : "False"); break;
  case SV_FLOAT: sb_printf(sb, "float %g", v->f); break;
  case SV_TENSOR: ty_print(sb, v->v->type); break;
  case SV_DTYPE: sb_puts(sb, "dtype "), ty_print(sb, v->type); break;
  case SV_STR: sb_printf(sb, "str '%s'", v->s); break;
  case SV_CLASS: sb_printf(sb, "class tl.%s", v->s); break;
  case SV_TENSORDESC:
    sb_printf(sb, "tensor descriptor of %s[", dt_name(v->td->base->type->pointee->dtype));
    for (int i = 0; i < v->td->rank; i++) sb_printf(sb, i ? ", %lld" : "%lld", (long long)v->td->block[i]);
    sb_puts(sb, v->td->pad_nan ? "] (padding nan)" : "]");
    break;
  default: sb_puts(sb, sv_kind_name(v)); break;
  }
  (void)s;
}

const char *sv_text(Spec *s, const SVal *v) {
  StrBuf sb;
  sb_init(&sb);
  sv_describe(s, &sb, v);
  const char *r = arena_strdup(s->arena, sb.data ? sb.data : "");
  sb_free(&sb);
  return r;
}

bool sv_is_number(const SVal *v) {
  return v->kind == SV_BOOL || v->kind == SV_INT || v->kind == SV_FLOAT;
}

bool sv_is_constexpr(const SVal *v) {
  switch (v->kind) {
  case SV_NONE: case SV_BOOL: case SV_INT: case SV_FLOAT: case SV_STR: case SV_DTYPE:
    return true;
  case SV_TUPLE:
    for (int i = 0; i < v->n; i++)
      if (!sv_is_constexpr(v->items[i])) return false;
    return true;
  default:
    return false;
  }
}

bool sv_truthy(Spec *s, const SVal *v, Loc loc, bool *out) {
  switch (v->kind) {
  case SV_NONE: *out = false; return true;
  case SV_BOOL: case SV_INT: *out = v->i != 0; return true;
  case SV_FLOAT: *out = v->f != 0; return true;
  case SV_STR: *out = v->s[0] != 0; return true;
  case SV_TUPLE: case SV_DICT: *out = v->n != 0; return true;
  case SV_DTYPE: case SV_FUNC: case SV_BUILTIN: case SV_MODULE: case SV_MATHFN: *out = true; return true;
  default:
    (void)s, (void)loc;
    return false;
  }
}

const Type *val_elem(Spec *s, Value *v) { return ty_elem(s->m->ctx, v->type); }

static const Type *literal_type(Spec *s, const SVal *v) {
  IrContext *c = s->m->ctx;
  switch (v->kind) {
  case SV_BOOL: return ty_scalar(c, DT_I1);
  case SV_INT:
    if (v->i >= INT32_MIN && v->i <= INT32_MAX) return ty_scalar(c, DT_I32);
    if (v->i >= 0 && v->i <= (int64_t)UINT32_MAX) return ty_scalar(c, DT_U32);
    return ty_scalar(c, DT_I64);
  case SV_FLOAT: {
    double a = fabs(v->f);
    if (v->f != v->f || isinf(v->f) || a == 0 || (a >= FLT_MIN && a <= FLT_MAX))
      return ty_scalar(c, DT_F32);
    return ty_scalar(c, DT_F64);
  }
  default: return NULL;
  }
}

Value *sv_to_value_as(Spec *s, SVal *v, const Type *elem, Loc loc) {
  if (v->kind == SV_TENSOR) return spec_cast(s, v->v, elem, loc);
  spec_at(s, loc);
  if (dt_is_float(elem->dtype)) {
    double x = v->kind == SV_FLOAT ? v->f : (double)v->i;
    return irb_const_float(&s->b, elem, x);
  }
  if (elem->dtype == DT_PTR) {
    spec_error(s, loc, "cannot use a %s as a pointer", sv_kind_name(v));
    return NULL;
  }
  int64_t x = v->kind == SV_FLOAT ? spec_float_to_int(v->f) : v->i;
  if (elem->dtype == DT_I1) x = v->kind == SV_FLOAT ? v->f != 0 : x != 0;
  return irb_const_int(&s->b, elem, x);
}

Value *sv_to_value(Spec *s, SVal *v, Loc loc, const char *what) {
  if (is_poison(v)) return NULL;
  if (v->kind == SV_TENSOR) return v->v;
  const Type *t = literal_type(s, v);
  if (!t) {
    spec_error(s, loc, "%s must be a tensor or a number, not a %s", what, sv_kind_name(v));
    return NULL;
  }
  return sv_to_value_as(s, v, t, loc);
}

bool sv_const_int(Spec *s, SVal *v, Loc loc, const char *what, int64_t *out) {
  if (is_poison(v)) return false;
  if (v->kind == SV_INT || v->kind == SV_BOOL) {
    *out = v->i;
    return true;
  }
  if (v->kind == SV_TENSOR) {
    spec_error(s, loc, "%s must be a compile-time constant (tl.constexpr), but this is a runtime %s",
               what, v->v->type->rank ? "tensor" : "value");
    spec_note_runtime_param(s, v->v);
  } else
    spec_error(s, loc, "%s must be a constexpr integer, not a %s", what, sv_kind_name(v));
  return false;
}

int64_t spec_float_to_int(double f) {
  /* C leaves out-of-range conversions undefined; saturate like the GPU's cvt.rzi */
  if (f != f) return 0;
  if (f >= 9223372036854775808.0) return INT64_MAX;
  if (f <= -9223372036854775808.0) return INT64_MIN;
  return (int64_t)f;
}

bool spec_check_block_shape(Spec *s, int rank, const int64_t *shape, Loc loc) {
  int64_t numel = 1;
  if (rank > IR_MAX_RANK) {
    spec_error(s, loc, "tensors of rank %d are not supported (at most %d)", rank, IR_MAX_RANK);
    return false;
  }
  for (int i = 0; i < rank; i++) {
    if (shape[i] <= 0 || (shape[i] & (shape[i] - 1))) {
      spec_error(s, loc, "tile dimension %d is %lld; tile sizes must be powers of two", i,
                 (long long)shape[i]);
      return false;
    }
    if (shape[i] > (1 << 20)) numel = (int64_t)1 << 21; /* too large either way; no overflow */
    else numel *= shape[i];
    if (numel > (1 << 20)) break;
  }
  if (numel > (1 << 20)) {
    spec_error(s, loc, "tile of %lld elements is too large (at most 1048576)", (long long)numel);
    return false;
  }
  return true;
}

static void shape_str(StrBuf *sb, const Type *t) {
  sb_putc(sb, '[');
  for (int i = 0; i < t->rank; i++) sb_printf(sb, i ? ", %lld" : "%lld", (long long)t->shape[i]);
  sb_putc(sb, ']');
}

static void dims_str(StrBuf *sb, int rank, const int64_t *shape) {
  sb_putc(sb, '[');
  for (int i = 0; i < rank; i++) sb_printf(sb, i ? ", %lld" : "%lld", (long long)shape[i]);
  sb_putc(sb, ']');
}

Value *spec_broadcast_to_as(Spec *s, Value *v, int rank, const int64_t *shape, Loc loc,
                            const char *what, const char *target) {
  IrContext *c = s->m->ctx;
  const Type *t = v->type;
  spec_at(s, loc);
  if (t->rank == rank && !memcmp(t->shape, shape, sizeof(int64_t) * (size_t)rank)) return v;
  if (t->rank == 0)
    return irb_splat(&s->b, v, ty_tensor(c, t, rank, shape, NULL));
  /* numpy rule: align on the right; each dim equal or 1; no fewer dims */
  int bad = t->rank > rank ? -1 : rank;
  for (int i = 0; bad == rank && i < t->rank; i++) {
    int64_t have = t->shape[i], want = shape[rank - t->rank + i];
    if (have != want && have != 1) bad = rank - t->rank + i;
  }
  if (bad != rank) {
    StrBuf from, to;
    sb_init(&from), sb_init(&to);
    shape_str(&from, t);
    dims_str(&to, rank, shape);
    if (what)
      spec_error(s, loc, "%s has shape %s, which does not broadcast to %s shape %s", what, from.data,
                 target, to.data);
    else if (bad < 0)
      spec_error(s, loc, "cannot broadcast shape %s to %s: it has more dimensions", from.data, to.data);
    else
      spec_error(s, loc, "cannot broadcast shape %s to %s (dimension %d: %lld is neither 1 nor %lld)",
                 from.data, to.data, bad, (long long)t->shape[bad - (rank - t->rank)],
                 (long long)shape[bad]);
    sb_free(&from), sb_free(&to);
    return NULL;
  }
  while (v->type->rank < rank) v = irb_expand_dims(&s->b, v, 0);
  return irb_broadcast(&s->b, v, ty_tensor(c, val_elem(s, v), rank, shape, NULL));
}

Value *spec_broadcast_to(Spec *s, Value *v, int rank, const int64_t *shape, Loc loc) {
  return spec_broadcast_to_as(s, v, rank, shape, loc, NULL, NULL);
}

bool spec_broadcast_pair(Spec *s, Value **a, Value **b, Loc loc, const char *opname) {
  const Type *ta = (*a)->type, *tb = (*b)->type;
  if (ta->rank == 0 && tb->rank == 0) return true;
  int rank = ta->rank > tb->rank ? ta->rank : tb->rank;
  int64_t shape[IR_MAX_RANK];
  for (int i = 0; i < rank; i++) {
    int ia = i - (rank - ta->rank), ib = i - (rank - tb->rank);
    int64_t da = ta->rank == 0 ? 1 : ia >= 0 ? ta->shape[ia] : 1;
    int64_t db = tb->rank == 0 ? 1 : ib >= 0 ? tb->shape[ib] : 1;
    if (da != db && da != 1 && db != 1) {
      StrBuf sa, sbb;
      sb_init(&sa), sb_init(&sbb);
      shape_str(&sa, ta), shape_str(&sbb, tb);
      spec_error(s, loc, "incompatible shapes for '%s': %s and %s (dimension %d: %lld vs %lld)",
                 opname, sa.data, sbb.data, i, (long long)da, (long long)db);
      sb_free(&sa), sb_free(&sbb);
      return false;
    }
    shape[i] = da == 1 ? db : da;
  }
  /* [M, 1] op [1, N] can make a tile larger than either operand. */
  if (!spec_check_block_shape(s, rank, shape, loc)) return false;
  *a = spec_broadcast_to(s, *a, rank, shape, loc);
  *b = spec_broadcast_to(s, *b, rank, shape, loc);
  return *a && *b;
}

Value *spec_to_bool(Spec *s, Value *v, Loc loc) {
  if (val_elem(s, v)->dtype == DT_I1) return v;
  spec_at(s, loc);
  const Type *e = val_elem(s, v);
  Value *zero = dt_is_float(e->dtype) ? irb_const_float(&s->b, e, 0) : irb_const_int(&s->b, e, 0);
  if (v->type->rank) zero = irb_splat(&s->b, zero, v->type);
  return irb_cmp(&s->b, CMP_NE, v, zero);
}

Value *spec_cast(Spec *s, Value *v, const Type *elem, Loc loc) {
  if (!v) return NULL;
  const Type *from = val_elem(s, v);
  if (from == elem) return v;
  if (elem->dtype == DT_I1 && from->dtype != DT_PTR) return spec_to_bool(s, v, loc);
  if ((from->dtype == DT_PTR) != (elem->dtype == DT_PTR)) {
    DType other = from->dtype == DT_PTR ? elem->dtype : from->dtype;
    if (!dt_is_int(other) || dt_bits(other) != 64) {
      StrBuf a, b;
      sb_init(&a), sb_init(&b);
      ty_print(&a, from), ty_print(&b, elem);
      spec_error(s, loc, "cannot cast %s to %s (pointers convert only to and from 64-bit integers)",
                 a.data, b.data);
      sb_free(&a), sb_free(&b);
      return NULL;
    }
  }
  bool to_fp8 = elem->dtype == DT_F8E4M3 || elem->dtype == DT_F8E5M2;
  if (to_fp8 && from->dtype != DT_F8E4M3 && from->dtype != DT_F8E5M2 && s->m->capability > 0 &&
      s->m->capability < 89) {
    spec_error(s, loc, "conversion to %s needs sm_89 or newer (the target is sm_%d)", dt_name(elem->dtype),
               s->m->capability);
    return NULL;
  }
  spec_at(s, loc);
  return irb_cast(&s->b, v, ty_with_elem(s->m->ctx, v->type, elem));
}

Value *spec_bitcast(Spec *s, Value *v, const Type *elem, Loc loc) {
  const Type *from = val_elem(s, v);
  if (from == elem) return v;
  if (dt_bits(from->dtype) != dt_bits(elem->dtype)) {
    StrBuf a, b;
    sb_init(&a), sb_init(&b);
    ty_print(&a, from), ty_print(&b, elem);
    spec_error(s, loc, "cannot bitcast %s to %s: they have different sizes", a.data, b.data);
    sb_free(&a), sb_free(&b);
    return NULL;
  }
  spec_at(s, loc);
  return irb_op(&s->b, OP_BITCAST, &v, 1, ty_with_elem(s->m->ctx, v->type, elem))->results[0];
}

/* ---- Triton's promotion rules -------------------------------------------- */

enum { KIND_BOOL, KIND_INT, KIND_FLOAT };
static int type_kind(const Type *t) {
  return t->dtype == DT_I1 ? KIND_BOOL : dt_is_float(t->dtype) ? KIND_FLOAT : KIND_INT;
}
static bool is_fp8(DType d) { return d == DT_F8E4M3 || d == DT_F8E5M2; }

static const Type *integer_promote(Spec *s, const Type *a, const Type *b) {
  int ra = dt_bits(a->dtype), rb = dt_bits(b->dtype);
  bool ua = dt_is_unsigned(a->dtype) && a->dtype != DT_I1;
  bool ub = dt_is_unsigned(b->dtype) && b->dtype != DT_I1;
  (void)s;
  if (ua == ub) return ra > rb ? a : b;
  if (ua) return ra >= rb ? a : b;
  return rb >= ra ? b : a;
}

static bool is_literal(const SVal *v) { return sv_is_number(v); }

const Type *spec_computation_type(Spec *s, SVal *a, SVal *b, bool div_or_mod, Loc loc,
                                  const char *opname) {
  IrContext *c = s->m->ctx;
  const Type *ta = is_literal(a) ? literal_type(s, a) : a->kind == SV_TENSOR ? val_elem(s, a->v) : NULL;
  const Type *tb = is_literal(b) ? literal_type(s, b) : b->kind == SV_TENSOR ? val_elem(s, b->v) : NULL;
  if (!ta || !tb) {
    const SVal *bad = !ta ? a : b;
    spec_error(s, loc, "unsupported operand for '%s': %s", opname, sv_kind_name(bad));
    return NULL;
  }
  if (ta->dtype == DT_PTR || tb->dtype == DT_PTR) {
    spec_error(s, loc, "'%s' is not defined for pointers", opname);
    return NULL;
  }
  bool sa = is_literal(a), sb = is_literal(b);
  if (sa != sb) {
    const Type *st = sa ? ta : tb, *tt = sa ? tb : ta;
    if (type_kind(st) <= type_kind(tt)) {
      if (div_or_mod && (tt->dtype == DT_F16 || tt->dtype == DT_BF16)) return ty_scalar(c, DT_F32);
      return tt;
    }
  }
  DType da = ta->dtype, db = tb->dtype;
  if (da == DT_F64 || db == DT_F64) return ty_scalar(c, DT_F64);
  if (da == DT_F32 || db == DT_F32) return ty_scalar(c, DT_F32);
  if (da == DT_F16 || db == DT_F16) return ty_scalar(c, div_or_mod ? DT_F32 : DT_F16);
  if (da == DT_BF16 && db == DT_BF16) return ty_scalar(c, div_or_mod ? DT_F32 : DT_BF16);
  if (da == DT_BF16 || db == DT_BF16) return ty_scalar(c, DT_F32);
  if (is_fp8(da) && is_fp8(db)) return da == db ? ta : ty_scalar(c, DT_F16);
  if (is_fp8(da) || is_fp8(db)) return ty_scalar(c, DT_F16);
  if (div_or_mod && da != DT_I1 && db != DT_I1 && dt_is_unsigned(da) != dt_is_unsigned(db)) {
    spec_error(s, loc, "cannot use '%s' with %s and %s: they have different signedness; cast them "
               "to the same signedness", opname, dt_name(da), dt_name(db));
    return NULL;
  }
  return integer_promote(s, ta, tb);
}

bool spec_fp8_arith_ok(Spec *s, Value *x, Loc loc, const char *opname) {
  DType d = val_elem(s, x)->dtype;
  if (!is_fp8(d) || s->m->capability <= 0 || s->m->capability >= 89) return true;
  spec_error(s, loc, "'%s' on %s computes in fp32 and rounds back to fp8, which needs sm_89 or newer (the "
             "target is %s); convert the operands with .to(tl.float32)", opname, dt_name(d), s->m->arch);
  return false;
}

bool spec_arith_operands(Spec *s, SVal *a, SVal *b, bool div_or_mod, Loc loc, const char *opname,
                         Value **va, Value **vb) {
  const Type *ct = spec_computation_type(s, a, b, div_or_mod, loc, opname);
  if (!ct) return false;
  *va = sv_to_value_as(s, a, ct, loc);
  *vb = sv_to_value_as(s, b, ct, loc);
  if (!*va || !*vb) return false;
  return spec_broadcast_pair(s, va, vb, loc, opname);
}
