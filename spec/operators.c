/* operators.c — Python operators on abstract values.
 *
 * Constexpr operands fold with Python's own semantics (floor division and
 * modulo round toward -inf, ints are checked for 64-bit overflow).  Runtime
 * operands follow Triton: the computation type of values.c, numpy
 * broadcasting, `//` and `%` on integers truncate like C, `/` is true
 * division (ints divide as fp32), pointer + int is address arithmetic. */
#include "spec/spec_internal.h"

#include <math.h>
#include <string.h>

static const char *opname(AstOp op) { return ast_op_spelling[op]; }

static bool num_is_float(const SVal *v) { return v->kind == SV_FLOAT; }
static double num_f(const SVal *v) { return v->kind == SV_FLOAT ? v->f : (double)v->i; }

static int64_t py_floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}
static int64_t py_mod(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

static SVal *fold_numbers(Spec *s, AstOp op, SVal *a, SVal *b, Loc loc) {
  bool fl = num_is_float(a) || num_is_float(b);
  int64_t x = a->i, y = b->i, r;
  double fx = num_f(a), fy = num_f(b);
  switch (op) {
  case AOP_ADD:
    if (fl) return sv_float(s, fx + fy);
    if (__builtin_add_overflow(x, y, &r)) goto overflow;
    return sv_int(s, r);
  case AOP_SUB:
    if (fl) return sv_float(s, fx - fy);
    if (__builtin_sub_overflow(x, y, &r)) goto overflow;
    return sv_int(s, r);
  case AOP_MUL:
    if (fl) return sv_float(s, fx * fy);
    if (__builtin_mul_overflow(x, y, &r)) goto overflow;
    return sv_int(s, r);
  case AOP_DIV:
    if (fy == 0) goto divzero;
    return sv_float(s, fx / fy);
  case AOP_FLOORDIV:
    if (fl) {
      if (fy == 0) goto divzero;
      return sv_float(s, floor(fx / fy));
    }
    if (y == 0) goto divzero;
    if (x == INT64_MIN && y == -1) goto overflow;
    return sv_int(s, py_floordiv(x, y));
  case AOP_MOD:
    if (fl) {
      if (fy == 0) goto divzero;
      double m = fmod(fx, fy);
      if (m != 0 && ((m < 0) != (fy < 0))) m += fy;
      return sv_float(s, m);
    }
    if (y == 0) goto divzero;
    if (y == -1) return sv_int(s, 0);
    return sv_int(s, py_mod(x, y));
  case AOP_POW:
    if (fl || y < 0) return sv_float(s, pow(fx, fy));
    /* square-and-multiply: at most 63 steps whatever y is (1 ** 10**18) */
    r = 1;
    for (int64_t base = x, e = y; e > 0; e >>= 1) {
      if ((e & 1) && __builtin_mul_overflow(r, base, &r)) goto overflow;
      if (e > 1 && __builtin_mul_overflow(base, base, &base)) goto overflow;
    }
    return sv_int(s, r);
  case AOP_BITAND: case AOP_BITOR: case AOP_BITXOR: case AOP_LSHIFT: case AOP_RSHIFT:
    if (fl) {
      spec_error(s, loc, "unsupported operand types for '%s': float", opname(op));
      return s->poison;
    }
    if (op == AOP_BITAND) r = x & y;
    else if (op == AOP_BITOR) r = x | y;
    else if (op == AOP_BITXOR) r = x ^ y;
    else if (y < 0) {
      spec_error(s, loc, "negative shift count %lld", (long long)y);
      return s->poison;
    } else if (op == AOP_LSHIFT) {
      if (y >= 63 || (x != 0 && (x > (INT64_MAX >> y) || x < (INT64_MIN >> y)))) goto overflow;
      r = (int64_t)((uint64_t)x << y); /* x << y on a negative x is undefined in C */
    } else {
      r = y >= 63 ? (x < 0 ? -1 : 0) : x >> y;
    }
    if ((op == AOP_BITAND || op == AOP_BITOR || op == AOP_BITXOR) && a->kind == SV_BOOL &&
        b->kind == SV_BOOL)
      return sv_bool(s, r != 0);
    return sv_int(s, r);
  default:
    spec_error(s, loc, "operator '%s' is not supported on constexprs", opname(op));
    return s->poison;
  }
overflow:
  spec_error(s, loc, "integer overflow in constexpr '%s' (values are 64-bit)", opname(op));
  return s->poison;
divzero:
  spec_error(s, loc, "division by zero in a constexpr expression");
  return s->poison;
}

static bool is_ptr_val(const SVal *v) {
  return v->kind == SV_TENSOR && v->v->type->dtype == DT_PTR;
}

SVal *spec_addptr(Spec *s, SVal *ptr, SVal *off, Loc loc) {
  Value *p = ptr->v;
  Value *o;
  if (off->kind == SV_TENSOR) {
    o = off->v;
    if (!dt_is_int(val_elem(s, o)->dtype) || val_elem(s, o)->dtype == DT_I1) {
      StrBuf sb;
      sb_init(&sb);
      ty_print(&sb, o->type);
      spec_error(s, loc, "pointer offset must be an integer, not %s", sb.data);
      sb_free(&sb);
      return s->poison;
    }
  } else if (off->kind == SV_INT || off->kind == SV_BOOL) {
    o = sv_to_value(s, off, loc, "pointer offset");
  } else {
    if (off->kind == SV_TENSOR && off->v->type->dtype == DT_PTR)
      spec_error(s, loc, "cannot add two pointers");
    else
      spec_error(s, loc, "pointer offset must be an integer, not a %s", sv_kind_name(off));
    return s->poison;
  }
  if (!o || !spec_broadcast_pair(s, &p, &o, loc, "+")) return s->poison;
  spec_at(s, loc);
  Value *ops[2] = {p, o};
  return sv_tensor(s, irb_op(&s->b, OP_ADDPTR, ops, 2, p->type)->results[0]);
}

static SVal *truediv(Spec *s, SVal *a, SVal *b, Loc loc) {
  Value *x, *y;
  if (!spec_arith_operands(s, a, b, true, loc, "/", &x, &y)) return s->poison;
  if (!spec_fp8_arith_ok(s, x, loc, "/")) return s->poison;
  IrContext *c = s->m->ctx;
  if (dt_is_int(val_elem(s, x)->dtype)) {
    x = spec_cast(s, x, ty_scalar(c, DT_F32), loc);
    y = spec_cast(s, y, ty_scalar(c, DT_F32), loc);
  }
  spec_at(s, loc);
  return sv_tensor(s, irb_binary(&s->b, OP_DIV, x, y));
}

SVal *spec_binop(Spec *s, AstOp op, SVal *a, SVal *b, Loc loc) {
  if (is_poison(a) || is_poison(b)) return s->poison;
  if (sv_is_number(a) && sv_is_number(b)) return fold_numbers(s, op, a, b, loc);
  /* sequences */
  if (op == AOP_ADD && a->kind == SV_STR && b->kind == SV_STR)
    return sv_str(s, arena_printf(s->arena, "%s%s", a->s, b->s));
  if (op == AOP_ADD && a->kind == SV_TUPLE && b->kind == SV_TUPLE) {
    if ((int64_t)a->n + b->n > SPEC_MAX_TUPLE) {
      spec_error(s, loc, "a constexpr %s of %lld items is too large (at most %d)", sv_kind_name(a),
                 (long long)a->n + b->n, SPEC_MAX_TUPLE);
      return s->poison;
    }
    SVal **items = ARENA_ARRAY(s->arena, SVal *, a->n + b->n + 1);
    for (int i = 0; i < a->n; i++) items[i] = a->items[i];
    for (int i = 0; i < b->n; i++) items[a->n + i] = b->items[i];
    return sv_tuple(s, items, a->n + b->n, a->is_list);
  }
  if (op == AOP_MUL && (a->kind == SV_TUPLE || b->kind == SV_TUPLE) &&
      ((a->kind == SV_INT) || (b->kind == SV_INT))) {
    SVal *t = a->kind == SV_TUPLE ? a : b;
    int64_t k = a->kind == SV_INT ? a->i : b->i;
    if (k < 0) k = 0;
    if (t->n && k > SPEC_MAX_TUPLE / t->n) {
      spec_error(s, loc, "a constexpr %s repeated %lld times is too large (at most %d items)",
                 sv_kind_name(t), (long long)k, SPEC_MAX_TUPLE);
      return s->poison;
    }
    SVal **items = ARENA_ARRAY(s->arena, SVal *, k * t->n + 1);
    for (int64_t r = 0; r < k; r++)
      for (int i = 0; i < t->n; i++) items[r * t->n + i] = t->items[i];
    return sv_tuple(s, items, (int)(k * t->n), t->is_list);
  }
  if (op == AOP_MATMUL) {
    spec_error(s, loc, "'@' is not supported; use tl.dot(a, b)");
    return s->poison;
  }
  /* pointer arithmetic */
  if (is_ptr_val(a) || is_ptr_val(b)) {
    if (op == AOP_ADD && is_ptr_val(a) && !is_ptr_val(b)) return spec_addptr(s, a, b, loc);
    if (op == AOP_ADD && is_ptr_val(b) && !is_ptr_val(a)) return spec_addptr(s, b, a, loc);
    if (op == AOP_SUB && is_ptr_val(a) && !is_ptr_val(b)) {
      SVal *neg = spec_unop(s, AOP_NEG, b, loc);
      return is_poison(neg) ? neg : spec_addptr(s, a, neg, loc);
    }
    spec_error(s, loc, "operator '%s' is not defined for %s", opname(op),
               is_ptr_val(a) && is_ptr_val(b) ? "two pointers" : "a pointer and this operand");
    return s->poison;
  }
  if ((a->kind != SV_TENSOR && !sv_is_number(a)) || (b->kind != SV_TENSOR && !sv_is_number(b))) {
    const SVal *bad = (a->kind != SV_TENSOR && !sv_is_number(a)) ? a : b;
    spec_error(s, loc, "unsupported operand type for '%s': %s", opname(op), sv_kind_name(bad));
    return s->poison;
  }
  Value *x, *y;
  OpKind k;
  switch (op) {
  case AOP_ADD: k = OP_ADD; goto arith;
  case AOP_SUB: k = OP_SUB; goto arith;
  case AOP_MUL: k = OP_MUL; goto arith;
  case AOP_DIV: return truediv(s, a, b, loc);
  case AOP_FLOORDIV:
  case AOP_MOD:
    if (!spec_arith_operands(s, a, b, true, loc, opname(op), &x, &y)) return s->poison;
    if (!spec_fp8_arith_ok(s, x, loc, opname(op))) return s->poison;
    if (op == AOP_FLOORDIV && dt_is_float(val_elem(s, x)->dtype)) {
      spec_error(s, loc, "'//' needs integer operands (use tl.math.floor(a / b) for floats)");
      return s->poison;
    }
    spec_at(s, loc);
    return sv_tensor(s, irb_binary(&s->b, op == AOP_FLOORDIV ? OP_DIV : OP_REM, x, y));
  case AOP_BITAND: k = OP_AND; goto bitwise;
  case AOP_BITOR: k = OP_OR; goto bitwise;
  case AOP_BITXOR: k = OP_XOR; goto bitwise;
  case AOP_LSHIFT: k = OP_SHL; goto bitwise;
  case AOP_RSHIFT: k = OP_SHR; goto bitwise;
  case AOP_POW:
    spec_error(s, loc, "'**' on tensors is not supported (use tl.exp2/tl.math functions)");
    return s->poison;
  default:
    spec_error(s, loc, "operator '%s' is not supported here", opname(op));
    return s->poison;
  }
arith:
  if (!spec_arith_operands(s, a, b, false, loc, opname(op), &x, &y)) return s->poison;
  if (!spec_fp8_arith_ok(s, x, loc, opname(op))) return s->poison;
  spec_at(s, loc);
  return sv_tensor(s, irb_binary(&s->b, k, x, y));
bitwise: {
  const SVal *sides[2] = {a, b};
  for (int i = 0; i < 2; i++) {
    const SVal *v = sides[i];
    bool isfloat = v->kind == SV_FLOAT || (v->kind == SV_TENSOR && dt_is_float(val_elem(s, v->v)->dtype));
    if (isfloat) {
      spec_error(s, loc, "operator '%s' needs integer or boolean operands, not floating point",
                 opname(op));
      return s->poison;
    }
  }
  if (!spec_arith_operands(s, a, b, false, loc, opname(op), &x, &y)) return s->poison;
  spec_at(s, loc);
  return sv_tensor(s, irb_binary(&s->b, k, x, y));
}
}

SVal *spec_unop(Spec *s, AstOp op, SVal *a, Loc loc) {
  if (is_poison(a)) return a;
  if (sv_is_number(a)) {
    switch (op) {
    case AOP_NEG:
      if (a->kind == SV_FLOAT) return sv_float(s, -a->f);
      if (a->i == INT64_MIN) {
        spec_error(s, loc, "integer overflow in constexpr negation");
        return s->poison;
      }
      return sv_int(s, -a->i);
    case AOP_POS: return a->kind == SV_BOOL ? sv_int(s, a->i) : a;
    case AOP_INVERT:
      if (a->kind == SV_FLOAT) break;
      return sv_int(s, ~a->i);
    case AOP_NOT: return sv_bool(s, a->kind == SV_FLOAT ? a->f == 0 : a->i == 0);
    default: break;
    }
    spec_error(s, loc, "bad operand type for unary '%s': %s", opname(op), sv_kind_name(a));
    return s->poison;
  }
  if (op == AOP_NOT) {
    bool t;
    if (sv_truthy(s, a, loc, &t)) return sv_bool(s, !t);
  }
  if (a->kind != SV_TENSOR || a->v->type->dtype == DT_PTR) {
    spec_error(s, loc, "bad operand type for unary '%s': %s", opname(op),
               a->kind == SV_TENSOR ? "pointer" : sv_kind_name(a));
    return s->poison;
  }
  Value *x = a->v;
  const Type *e = val_elem(s, x);
  spec_at(s, loc);
  switch (op) {
  case AOP_NEG: return sv_tensor(s, irb_unary(&s->b, OP_NEG, x));
  case AOP_POS: return a;
  case AOP_INVERT:
    if (dt_is_float(e->dtype)) {
      spec_error(s, loc, "'~' needs an integer or boolean operand, not floating point");
      return s->poison;
    }
    return sv_tensor(s, irb_unary(&s->b, OP_NOT, x));
  case AOP_NOT: return sv_tensor(s, irb_unary(&s->b, OP_NOT, spec_to_bool(s, x, loc)));
  default:
    spec_error(s, loc, "unsupported unary operator '%s'", opname(op));
    return s->poison;
  }
}

static bool const_equal(const SVal *a, const SVal *b) {
  if (sv_is_number(a) && sv_is_number(b)) return num_f(a) == num_f(b) && (a->kind == SV_FLOAT || b->kind == SV_FLOAT || a->i == b->i);
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case SV_NONE: return true;
  case SV_STR: return strcmp(a->s, b->s) == 0;
  case SV_DTYPE: return a->type == b->type;
  case SV_TUPLE:
    if (a->n != b->n) return false;
    for (int i = 0; i < a->n; i++)
      if (!const_equal(a->items[i], b->items[i])) return false;
    return true;
  default: return a == b;
  }
}

SVal *spec_compare(Spec *s, AstOp op, SVal *a, SVal *b, Loc loc) {
  if (is_poison(a) || is_poison(b)) return s->poison;
  if (op == AOP_IS || op == AOP_ISNOT) {
    bool same = (a->kind == SV_NONE && b->kind == SV_NONE) ||
                (a->kind != SV_TENSOR && b->kind != SV_TENSOR && const_equal(a, b) &&
                 a->kind != SV_INT && a->kind != SV_FLOAT) ||
                a == b || (a->kind == SV_TENSOR && b->kind == SV_TENSOR && a->v == b->v);
    return sv_bool(s, op == AOP_IS ? same : !same);
  }
  if (op == AOP_IN || op == AOP_NOTIN) {
    if (b->kind != SV_TUPLE && b->kind != SV_DICT) {
      spec_error(s, loc, "'in' needs a constexpr tuple or list on the right, not a %s", sv_kind_name(b));
      return s->poison;
    }
    bool found = false;
    for (int i = 0; i < b->n; i++) found |= const_equal(a, b->items[i]);
    return sv_bool(s, op == AOP_IN ? found : !found);
  }
  bool ca = sv_is_constexpr(a), cb = sv_is_constexpr(b);
  if (ca && cb) {
    if (op == AOP_EQ || op == AOP_NE) {
      bool eq = const_equal(a, b);
      return sv_bool(s, op == AOP_EQ ? eq : !eq);
    }
    if (sv_is_number(a) && sv_is_number(b)) {
      double x = num_f(a), y = num_f(b);
      bool r;
      if (!num_is_float(a) && !num_is_float(b)) {
        int64_t i = a->i, j = b->i;
        r = op == AOP_LT ? i < j : op == AOP_LE ? i <= j : op == AOP_GT ? i > j : i >= j;
      } else {
        r = op == AOP_LT ? x < y : op == AOP_LE ? x <= y : op == AOP_GT ? x > y : x >= y;
      }
      return sv_bool(s, r);
    }
    spec_error(s, loc, "'%s' is not supported between %s and %s", opname(op), sv_kind_name(a),
               sv_kind_name(b));
    return s->poison;
  }
  CmpPred p = op == AOP_EQ ? CMP_EQ : op == AOP_NE ? CMP_NE : op == AOP_LT ? CMP_LT
            : op == AOP_LE ? CMP_LE : op == AOP_GT ? CMP_GT : CMP_GE;
  Value *x, *y;
  if (is_ptr_val(a) && is_ptr_val(b)) {
    x = a->v, y = b->v;
    if (!spec_broadcast_pair(s, &x, &y, loc, opname(op))) return s->poison;
  } else if (!spec_arith_operands(s, a, b, false, loc, opname(op), &x, &y)) {
    return s->poison;
  }
  spec_at(s, loc);
  return sv_tensor(s, irb_cmp(&s->b, p, x, y));
}

SVal *spec_logical(Spec *s, bool is_and, SVal *a, SVal *b, Loc loc) {
  if (is_poison(a) || is_poison(b)) return s->poison;
  Value *x = sv_to_value(s, a, loc, is_and ? "operand of 'and'" : "operand of 'or'");
  Value *y = sv_to_value(s, b, loc, is_and ? "operand of 'and'" : "operand of 'or'");
  if (!x || !y) return s->poison;
  x = spec_to_bool(s, x, loc);
  y = spec_to_bool(s, y, loc);
  if (!spec_broadcast_pair(s, &x, &y, loc, is_and ? "and" : "or")) return s->poison;
  spec_at(s, loc);
  return sv_tensor(s, irb_binary(&s->b, is_and ? OP_AND : OP_OR, x, y));
}

SVal *spec_index_tensor(Spec *s, Value *x, const int *kinds, int n, Loc loc) {
  int dim = 0, nall = 0;
  for (int i = 0; i < n; i++) nall += kinds[i] == IDX_ALL;
  if (nall > x->type->rank) {
    spec_error(s, loc, "too many ':' for a tensor of rank %d", x->type->rank);
    return s->poison;
  }
  int newrank = x->type->rank + (n - nall);
  if (newrank > IR_MAX_RANK) {
    spec_error(s, loc, "indexing gives a rank-%d tensor; at most %d dims are supported", newrank,
               IR_MAX_RANK);
    return s->poison;
  }
  spec_at(s, loc);
  for (int i = 0; i < n; i++) {
    if (kinds[i] == IDX_NEWAXIS) {
      x = irb_expand_dims(&s->b, x, dim);
      dim++;
    } else if (kinds[i] == IDX_ALL) {
      dim++;
    } else {
      spec_error(s, loc, "tensors can only be indexed with None and ':' (integer indices and "
                 "partial slices are not supported)");
      return s->poison;
    }
  }
  return sv_tensor(s, x);
}
