/* builtins_compute.c — builtins that compute: elementwise math (where,
 * maximum/minimum, clamp, the tl.math family, fdiv, fma, cast), reductions
 * (sum, max, min, argmax, xor_sum, softmax), tl.dot, and the hints and
 * checks (multiple_of, max_contiguous, static/device assert and print,
 * debug_barrier, cdiv, swizzle2d, next_power_of_2). */
#include "spec/builtins.h"

#include <stdlib.h>
#include <string.h>

/* ---- elementwise ------------------------------------------------------------------------------ */

SVal *b_where(Spec *s, SVal **v, CallArgs *a) {
  if (is_poison(v[0]) || is_poison(v[1]) || is_poison(v[2])) return s->poison;
  Value *c = bi_need_tensor(s, v[0], bi_argloc(a, 0), "condition");
  if (!c) return s->poison;
  c = spec_to_bool(s, c, a->loc);
  Value *x, *y;
  bool ptrs = v[1]->kind == SV_TENSOR && v[2]->kind == SV_TENSOR && v[1]->v->type->dtype == DT_PTR;
  if (ptrs) {
    x = v[1]->v, y = v[2]->v;
    if (val_elem(s, x) != val_elem(s, y)) {
      spec_error(s, a->loc, "tl.where branches are pointers of different types");
      return s->poison;
    }
    if (!spec_broadcast_pair(s, &x, &y, a->loc, "where")) return s->poison;
  } else if (!spec_arith_operands(s, v[1], v[2], false, a->loc, "where", &x, &y)) {
    return s->poison;
  }
  if (!spec_broadcast_pair(s, &c, &x, a->loc, "where") || !spec_broadcast_pair(s, &c, &y, a->loc, "where") ||
      !spec_broadcast_pair(s, &x, &y, a->loc, "where"))
    return s->poison;
  spec_at(s, a->loc);
  return sv_tensor(s, irb_select(&s->b, c, x, y));
}

/* propagate_nan= of maximum/minimum/clamp: tl.PropagateNan.ALL or .NONE
 * (or a truth value); false after reporting. */
static bool propagate_nan_arg(Spec *s, SVal *v, Loc loc, bool *out) {
  *out = false;
  if (!v || v->kind == SV_NONE) return true;
  if (v->kind == SV_STR && (!strcmp(v->s, "all") || !strcmp(v->s, "none"))) {
    *out = !strcmp(v->s, "all");
    return true;
  }
  if (v->kind != SV_STR && sv_is_constexpr(v) && sv_truthy(s, v, loc, out)) return true;
  spec_error(s, loc, "propagate_nan must be tl.PropagateNan.ALL or tl.PropagateNan.NONE, not %s",
             sv_text(s, v));
  return false;
}

SVal *bi_minmax(Spec *s, SVal **v, CallArgs *a, OpKind k) {
  Value *x, *y;
  if (is_poison(v[0]) || is_poison(v[1])) return s->poison;
  if (sv_is_number(v[0]) && sv_is_number(v[1])) {
    SVal *lt = spec_compare(s, AOP_LT, v[0], v[1], a->loc);
    return (k == OP_MIN) == (lt->i != 0) ? v[0] : v[1];
  }
  if (!spec_arith_operands(s, v[0], v[1], false, a->loc, k == OP_MIN ? "minimum" : "maximum", &x, &y) ||
      !spec_fp8_arith_ok(s, x, a->loc, k == OP_MIN ? "tl.minimum" : "tl.maximum"))
    return s->poison;
  bool pn;
  if (!propagate_nan_arg(s, v[2], bi_argloc(a, 2), &pn)) return s->poison;
  spec_at(s, a->loc);
  Value *r = irb_binary(&s->b, k, x, y);
  r->def->attr.propagate_nan = pn;
  return sv_tensor(s, r);
}
SVal *b_maximum(Spec *s, SVal **v, CallArgs *a) { return bi_minmax(s, v, a, OP_MAX); }
SVal *b_minimum(Spec *s, SVal **v, CallArgs *a) { return bi_minmax(s, v, a, OP_MIN); }

SVal *b_clamp(Spec *s, SVal **v, CallArgs *a) {
  Value *x, *lo, *hi;
  if (!spec_arith_operands(s, v[0], v[1], false, a->loc, "clamp", &x, &lo)) return s->poison;
  if (!spec_arith_operands(s, sv_tensor(s, x), v[2], false, a->loc, "clamp", &x, &hi)) return s->poison;
  if (!spec_fp8_arith_ok(s, x, a->loc, "tl.clamp")) return s->poison;
  if (!dt_is_float(val_elem(s, x)->dtype)) {
    spec_error(s, a->loc, "tl.clamp needs floating-point operands");
    return s->poison;
  }
  if (!spec_broadcast_pair(s, &x, &lo, a->loc, "clamp") || !spec_broadcast_pair(s, &x, &hi, a->loc, "clamp"))
    return s->poison;
  bool pn;
  if (!propagate_nan_arg(s, v[3], bi_argloc(a, 3), &pn)) return s->poison;
  Value *ops[3] = {x, lo, hi};
  spec_at(s, a->loc);
  Op *op = irb_op(&s->b, OP_CLAMP, ops, 3, x->type);
  op->attr.propagate_nan = pn;
  return sv_tensor(s, op->results[0]);
}

/* Unary math: operand materialized, must be floating point (abs also takes ints). */
static SVal *math1(Spec *s, SVal **v, CallArgs *a, OpKind k, const char *name, bool precise) {
  Value *x = bi_need_tensor(s, v[0], bi_argloc(a, 0), "the operand");
  if (!x) return s->poison;
  const Type *e = val_elem(s, x);
  if (k != OP_ABS && !dt_is_float(e->dtype)) {
    spec_error(s, bi_argloc(a, 0), "tl.%s needs a floating-point operand, not %s (cast it with "
               ".to(tl.float32))", name, dt_name(e->dtype));
    return s->poison;
  }
  if (e->dtype == DT_PTR) {
    spec_error(s, bi_argloc(a, 0), "tl.%s of a pointer", name);
    return s->poison;
  }
  spec_at(s, a->loc);
  Value *r = irb_unary(&s->b, k, x);
  r->def->attr.precise = precise;
  return sv_tensor(s, r);
}
#define MATH1(fn, kind, nm, precise) \
  SVal *fn(Spec *s, SVal **v, CallArgs *a) { return math1(s, v, a, kind, nm, precise); }
MATH1(b_exp, OP_EXP, "exp", false)
MATH1(b_exp2, OP_EXP2, "exp2", false)
MATH1(b_log, OP_LOG, "log", false)
MATH1(b_log2, OP_LOG2, "log2", false)
MATH1(b_sqrt, OP_SQRT, "sqrt", false)
MATH1(b_sqrt_rn, OP_SQRT, "sqrt_rn", true)
MATH1(b_rsqrt, OP_RSQRT, "rsqrt", false)
MATH1(b_abs, OP_ABS, "abs", false)
MATH1(b_sin, OP_SIN, "sin", false)
MATH1(b_cos, OP_COS, "cos", false)
MATH1(b_floor, OP_FLOOR, "floor", false)
MATH1(b_ceil, OP_CEIL, "ceil", false)
MATH1(b_erf, OP_ERF, "erf", false)
MATH1(b_sigmoid, OP_SIGMOID, "sigmoid", false)

static SVal *fdiv_impl(Spec *s, SVal **v, CallArgs *a, bool precise) {
  Value *x, *y;
  if (!spec_arith_operands(s, v[0], v[1], true, a->loc, "/", &x, &y)) return s->poison;
  if (!spec_fp8_arith_ok(s, x, a->loc, "/")) return s->poison;
  if (!dt_is_float(val_elem(s, x)->dtype)) {
    spec_error(s, a->loc, "tl.fdiv/div_rn need floating-point operands");
    return s->poison;
  }
  bool ieee = precise;
  if (!precise && v[2]) sv_truthy(s, v[2], a->loc, &ieee);
  spec_at(s, a->loc);
  Value *r = irb_binary(&s->b, OP_DIV, x, y);
  r->def->attr.precise = ieee;
  return sv_tensor(s, r);
}
SVal *b_fdiv(Spec *s, SVal **v, CallArgs *a) { return fdiv_impl(s, v, a, false); }
SVal *b_div_rn(Spec *s, SVal **v, CallArgs *a) { return fdiv_impl(s, v, a, true); }

SVal *b_fma(Spec *s, SVal **v, CallArgs *a) {
  Value *x, *y, *z;
  if (!spec_arith_operands(s, v[0], v[1], false, a->loc, "fma", &x, &y) ||
      !spec_arith_operands(s, sv_tensor(s, x), v[2], false, a->loc, "fma", &x, &z) ||
      !spec_broadcast_pair(s, &x, &y, a->loc, "fma") || !spec_broadcast_pair(s, &y, &z, a->loc, "fma") ||
      !spec_broadcast_pair(s, &x, &z, a->loc, "fma"))
    return s->poison;
  if (!spec_fp8_arith_ok(s, x, a->loc, "tl.fma")) return s->poison;
  if (y->type != x->type) y = spec_cast(s, y, val_elem(s, x), a->loc);
  Value *ops[3] = {x, y, z};
  spec_at(s, a->loc);
  return sv_tensor(s, irb_op(&s->b, OP_FMA, ops, 3, x->type)->results[0]);
}

SVal *b_umulhi(Spec *s, SVal **v, CallArgs *a) {
  Value *x, *y;
  if (!spec_arith_operands(s, v[0], v[1], false, a->loc, "umulhi", &x, &y)) return s->poison;
  if (!dt_is_int(val_elem(s, x)->dtype)) {
    spec_error(s, a->loc, "tl.umulhi needs integer operands");
    return s->poison;
  }
  spec_at(s, a->loc);
  return sv_tensor(s, irb_binary(&s->b, OP_UMULHI, x, y));
}

SVal *b_cast(Spec *s, SVal **v, CallArgs *a) {
  if (is_poison(v[0])) return s->poison;
  const Type *dt = bi_dtype_arg(s, v[1], bi_argloc(a, 1), "dtype");
  if (!dt) return s->poison;
  bool bitcast = false, rtz = false;
  if (v[3]) sv_truthy(s, v[3], a->loc, &bitcast);
  if (v[2] && v[2]->kind != SV_NONE) {
    const char *r = bi_str_arg(s, v[2], a->loc, "fp_downcast_rounding");
    if (!r) return s->poison;
    if (strcmp(r, "rtne") && strcmp(r, "rtz")) {
      spec_error(s, a->loc, "fp_downcast_rounding must be 'rtne' or 'rtz', not '%s'", r);
      return s->poison;
    }
    rtz = !strcmp(r, "rtz");
  }
  if (v[0]->kind == SV_BLOCKPTR) {
    spec_error(s, bi_argloc(a, 0), "cannot cast a block pointer");
    return s->poison;
  }
  Value *x = bi_need_tensor(s, v[0], bi_argloc(a, 0), "the value to cast");
  if (!x) return s->poison;
  if (v[2] && v[2]->kind != SV_NONE) {
    /* as Triton: only a float narrowing takes a rounding mode */
    DType from = val_elem(s, x)->dtype, to = dt->dtype;
    if (bitcast || !dt_is_float(from) || !dt_is_float(to) || dt_bits(to) >= dt_bits(from)) {
      spec_error(s, bi_argloc(a, 2), "fp_downcast_rounding applies only to a conversion to a narrower float "
                 "type, not %s to %s", dt_name(from), dt_name(to));
      return s->poison;
    }
    if (rtz && (to == DT_F8E4M3 || to == DT_F8E5M2)) {
      spec_error(s, bi_argloc(a, 2), "fp_downcast_rounding='rtz' to %s is not supported by tlc yet (fp8 "
                 "conversions round to nearest even)", dt_name(to));
      return s->poison;
    }
  }
  Value *r = bitcast ? spec_bitcast(s, x, dt, a->loc) : spec_cast(s, x, dt, a->loc);
  if (r && rtz && r->def && r->def->kind == OP_CAST) r->def->attr.rounding = ROUND_RTZ;
  return r ? sv_tensor(s, r) : s->poison;
}

/* ---- reductions ---------------------------------------------------------------------------------- */

static Value *reduce_axis(Spec *s, Value *x, int axis, CombineKind k, Loc loc, Value **index_out) {
  const Type *t = x->type;
  int64_t shape[IR_MAX_RANK];
  for (int i = 0, j = 0; i < t->rank; i++)
    if (i != axis) shape[j++] = t->shape[i];
  const Type *elem = val_elem(s, x);
  const Type *rt = ty_tensor(bi_ctx(s), elem, t->rank - 1, shape, NULL);
  spec_at(s, loc);
  if (k == COMBINE_ARGMAX || k == COMBINE_ARGMIN) {
    /* (value, index) pairs: the index is arange along the axis */
    Value *idx = irb_arange(&s->b, 0, t->shape[axis]);
    for (int d = 0; d < t->rank; d++)
      if (d != axis) idx = irb_expand_dims(&s->b, idx, d);
    idx = irb_broadcast(&s->b, idx, ty_with_elem(bi_ctx(s), t, ty_scalar(bi_ctx(s), DT_I32)));
    Value *ops[2] = {x, idx};
    const Type *rts[2] = {rt, ty_tensor(bi_ctx(s), ty_scalar(bi_ctx(s), DT_I32), t->rank - 1, shape, NULL)};
    Op *op = ir_op_new(s->m, s->f, OP_REDUCE, loc, ops, 2, rts, 2, 0);
    op->attr.axis = axis, op->attr.combine = k;
    irb_insert(&s->b, op);
    *index_out = op->results[1];
    return op->results[0];
  }
  Op *op = irb_op(&s->b, OP_REDUCE, &x, 1, rt);
  op->attr.axis = axis, op->attr.combine = k;
  return op->results[0];
}

/* The input of a reduction or scan along an axis: a tensor (not a scalar)
 * of numbers (not pointers); NULL (reported) otherwise. */
static Value *axis_input(Spec *s, SVal **v, CallArgs *a, const char *name) {
  Value *x = bi_need_tensor(s, v[0], bi_argloc(a, 0), "input");
  if (!x) return NULL;
  if (x->type->rank == 0) {
    spec_error(s, bi_argloc(a, 0), "tl.%s needs a tensor, not a scalar", name);
    return NULL;
  }
  if (val_elem(s, x)->dtype == DT_PTR) {
    spec_error(s, bi_argloc(a, 0), "tl.%s of pointers is not supported", name);
    return NULL;
  }
  return x;
}

static SVal *reduce(Spec *s, SVal **v, CallArgs *a, CombineKind k, const char *name, bool has_dtype) {
  Value *x = axis_input(s, v, a, name);
  if (!x) return s->poison;
  const Type *e = val_elem(s, x);
  if ((k == COMBINE_XOR || k == COMBINE_AND || k == COMBINE_OR) && !dt_is_int(e->dtype)) {
    spec_error(s, bi_argloc(a, 0), "tl.%s needs an integer tensor", name);
    return s->poison;
  }
  bool keep = false;
  int kd = has_dtype ? 3 : 2;
  if (v[kd] && !sv_truthy(s, v[kd], a->loc, &keep)) {
    spec_error(s, a->loc, "keep_dims must be a constexpr bool");
    return s->poison;
  }
  /* dtype: explicit, or Triton's choice for sums of narrow integers */
  if (has_dtype && v[2] && v[2]->kind != SV_NONE) {
    const Type *dt = bi_dtype_arg(s, v[2], a->loc, "dtype");
    if (!dt) return s->poison;
    x = spec_cast(s, x, dt, a->loc);
  } else if (k == COMBINE_SUM && dt_is_int(e->dtype) && dt_bits(e->dtype) < 32) {
    x = spec_cast(s, x, ty_scalar(bi_ctx(s), dt_is_unsigned(e->dtype) && e->dtype != DT_I1 ? DT_U32 : DT_I32), a->loc);
  }
  int rank = x->type->rank;
  Value *idx = NULL;
  if (!v[1] || v[1]->kind == SV_NONE) {
    if (k == COMBINE_ARGMAX || k == COMBINE_ARGMIN) {
      if (rank != 1) {
        spec_error(s, a->loc, "tl.%s without an axis needs a 1-D tensor", name);
        return s->poison;
      }
      Value *r = reduce_axis(s, x, 0, k, a->loc, &idx);
      (void)r;
      return sv_tensor(s, idx);
    }
    for (int d = rank - 1; d >= 0; d--) x = reduce_axis(s, x, d, k, a->loc, &idx);
    if (keep) {
      spec_at(s, a->loc);
      int64_t ones[IR_MAX_RANK];
      for (int d = 0; d < IR_MAX_RANK; d++) ones[d] = 1;
      x = irb_splat(&s->b, x, ty_tensor(bi_ctx(s), val_elem(s, x), rank, ones, NULL));
    }
    return sv_tensor(s, x);
  }
  int64_t ax;
  if (!sv_const_int(s, v[1], bi_argloc(a, 1), "axis", &ax)) return s->poison;
  int axis = bi_norm_axis(s, ax, rank, bi_argloc(a, 1));
  if (axis < 0) return s->poison;
  Value *r = reduce_axis(s, x, axis, k, a->loc, &idx);
  if (keep) {
    spec_at(s, a->loc);
    if (r->type->rank == 0) {
      int64_t one = 1;
      r = irb_splat(&s->b, r, ty_tensor(bi_ctx(s), val_elem(s, r), 1, &one, NULL));
      if (idx) idx = irb_splat(&s->b, idx, ty_tensor(bi_ctx(s), val_elem(s, idx), 1, &one, NULL));
    } else {
      r = irb_expand_dims(&s->b, r, axis);
      if (idx) idx = irb_expand_dims(&s->b, idx, axis);
    }
  }
  return sv_tensor(s, idx && (k == COMBINE_ARGMAX || k == COMBINE_ARGMIN) ? idx : r);
}
SVal *b_sum(Spec *s, SVal **v, CallArgs *a) { return reduce(s, v, a, COMBINE_SUM, "sum", true); }
SVal *b_xor_sum(Spec *s, SVal **v, CallArgs *a) { return reduce(s, v, a, COMBINE_XOR, "xor_sum", false); }
SVal *b_argmax(Spec *s, SVal **v, CallArgs *a) {
  SVal *args[3] = {v[0], v[1], v[3]};
  return reduce(s, args, a, COMBINE_ARGMAX, "argmax", false);
}
SVal *b_argmin(Spec *s, SVal **v, CallArgs *a) {
  SVal *args[3] = {v[0], v[1], v[3]};
  return reduce(s, args, a, COMBINE_ARGMIN, "argmin", false);
}

/* ---- scans ----------------------------------------------------------------------------------------
 * tl.cumsum(input, axis=0, reverse=False, dtype=None) and tl.cumprod(input,
 * axis=0, reverse=False): one SCAN op, the result of the input's shape.
 * Triton's typing: bf16 scans in fp32; a sum of narrow integers in i32 (u32
 * for unsigned ones), or in `dtype` when given. */
static SVal *scan(Spec *s, SVal **v, CallArgs *a, CombineKind k, const char *name) {
  Value *x = axis_input(s, v, a, name);
  if (!x) return s->poison;
  const Type *e = val_elem(s, x);
  int64_t ax = 0;
  if (v[1] && v[1]->kind != SV_NONE && !sv_const_int(s, v[1], bi_argloc(a, 1), "axis", &ax)) return s->poison;
  int axis = bi_norm_axis(s, ax, x->type->rank, bi_argloc(a, 1));
  if (axis < 0) return s->poison;
  bool rev = false;
  if (v[2] && v[2]->kind != SV_NONE && !sv_truthy(s, v[2], bi_argloc(a, 2), &rev)) {
    spec_error(s, bi_argloc(a, 2), "reverse must be a constexpr bool");
    return s->poison;
  }
  if (k == COMBINE_SUM && v[3] && v[3]->kind != SV_NONE) {
    const Type *dt = bi_dtype_arg(s, v[3], bi_argloc(a, 3), "dtype");
    if (!dt) return s->poison;
    x = spec_cast(s, x, dt, a->loc);
  } else if (e->dtype == DT_BF16) {
    x = spec_cast(s, x, ty_scalar(bi_ctx(s), DT_F32), a->loc);
  } else if (k == COMBINE_SUM && dt_is_int(e->dtype) && dt_bits(e->dtype) < 32) {
    x = spec_cast(s, x, ty_scalar(bi_ctx(s), dt_is_unsigned(e->dtype) && e->dtype != DT_I1 ? DT_U32 : DT_I32), a->loc);
  }
  spec_at(s, a->loc);
  Op *op = irb_op(&s->b, OP_SCAN, &x, 1, x->type);
  op->attr.axis = axis, op->attr.combine = k, op->attr.reverse = rev;
  return sv_tensor(s, op->results[0]);
}
SVal *b_cumsum(Spec *s, SVal **v, CallArgs *a) { return scan(s, v, a, COMBINE_SUM, "cumsum"); }
SVal *b_cumprod(Spec *s, SVal **v, CallArgs *a) {
  SVal *args[4] = {v[0], v[1], v[2], NULL};
  return scan(s, args, a, COMBINE_PROD, "cumprod");
}

/* Inline `fn` once into op's region (its one block) on 2 x n scalar block
 * arguments of the element types of xs (lhs..., rhs...) and end it with a
 * yield of its n values, cast to those types.  False (reported) when the
 * function does not return n scalars. */
enum { SCAN_MAX_INPUTS = 4 };
static bool combine_region(Spec *s, Op *op, FuncDef *fn, Value **xs, int n, Loc loc, Loc fnloc) {
  IrBlock *body = op->regions[0];
  SVal *args[2 * SCAN_MAX_INPUTS];
  for (int k = 0; k < 2 * n; k++)
    args[k] = sv_tensor(s, ir_block_add_arg(s->m, s->f, body, val_elem(s, xs[k % n])));
  IrBuilder saved = s->b;
  irb_init(&s->b, s->m, s->f, body);
  s->b.loc = loc;
  SVal *r = spec_call_function(s, fn, args, 2 * n, NULL, NULL, 0, fnloc);
  Value *ys[SCAN_MAX_INPUTS];
  bool ok = !is_poison(r);
  if (ok && (r->kind == SV_TUPLE ? r->n : 1) != n) {
    spec_error(s, fnloc, "combine_fn '%s' must return %d value%s, one per input tensor", fn->name, n,
               n == 1 ? "" : "s");
    ok = false;
  }
  for (int i = 0; ok && i < n; i++) {
    SVal *ri = r->kind == SV_TUPLE ? r->items[i] : r;
    Value *y = sv_to_value_as(s, ri, val_elem(s, xs[i]), loc);
    if (y && y->type->rank) {
      spec_error(s, fnloc, "combine_fn '%s' must return scalars: it gets one element of each input", fn->name);
      y = NULL;
    }
    if (y && y->type != val_elem(s, xs[i])) y = spec_cast(s, y, val_elem(s, xs[i]), loc);
    ys[i] = y;
    ok = y != NULL;
  }
  if (ok) irb_op(&s->b, OP_YIELD, ys, n, NULL);
  s->b = saved;
  return ok;
}

/* The tensors of `input` (one, or a tuple of 1 to SCAN_MAX_INPUTS of one
 * shape) into xs; their count, or 0 (reported). */
static int combine_inputs(Spec *s, SVal *in, Loc loc, const char *name, Value **xs) {
  bool tuple = in->kind == SV_TUPLE;
  int n = tuple ? in->n : 1;
  if (n < 1 || n > SCAN_MAX_INPUTS) {
    spec_error(s, loc, "tl.%s takes 1 to %d tensors, not %d", name, SCAN_MAX_INPUTS, n);
    return 0;
  }
  for (int i = 0; i < n; i++) {
    xs[i] = bi_need_tensor(s, tuple ? in->items[i] : in, loc, "input");
    if (!xs[i]) return 0;
    if (xs[i]->type->rank == 0) {
      spec_error(s, loc, "tl.%s needs tensors, not scalars", name);
      return 0;
    }
    if (i && (xs[i]->type->rank != xs[0]->type->rank ||
              memcmp(xs[i]->type->shape, xs[0]->type->shape, sizeof(int64_t) * (size_t)xs[0]->type->rank))) {
      spec_error(s, loc, "tl.%s's tensors must have one shape", name);
      return 0;
    }
  }
  return n;
}

/* tl.associative_scan(input, axis, combine_fn, reverse=False): input a
 * tensor or a tuple of up to 4 tensors of one shape; combine_fn a @jit
 * function of 2 x N scalars (lhs..., rhs...) returning N values.  The
 * function is inlined once, on scalar block arguments, into the SCAN's
 * combine region; its values are cast to the element types (as Triton's
 * scan requires them). */
SVal *b_associative_scan(Spec *s, SVal **v, CallArgs *a) {
  bool tuple = v[0]->kind == SV_TUPLE;
  Value *xs[SCAN_MAX_INPUTS];
  int n = combine_inputs(s, v[0], bi_argloc(a, 0), "associative_scan", xs);
  if (!n) return s->poison;
  int64_t ax;
  if (!sv_const_int(s, v[1], bi_argloc(a, 1), "axis", &ax)) return s->poison;
  int axis = bi_norm_axis(s, ax, xs[0]->type->rank, bi_argloc(a, 1));
  if (axis < 0) return s->poison;
  if (is_poison(v[2])) return s->poison;
  if (v[2]->kind != SV_FUNC) {
    spec_error(s, bi_argloc(a, 2), "combine_fn must be a @triton.jit function");
    return s->poison;
  }
  bool rev = false;
  if (v[3] && v[3]->kind != SV_NONE && !sv_truthy(s, v[3], bi_argloc(a, 3), &rev)) {
    spec_error(s, bi_argloc(a, 3), "reverse must be a constexpr bool");
    return s->poison;
  }
  spec_at(s, a->loc);
  const Type *rts[SCAN_MAX_INPUTS];
  for (int i = 0; i < n; i++) rts[i] = xs[i]->type;
  Op *op = ir_op_new(s->m, s->f, OP_SCAN, a->loc, xs, n, rts, n, 1);
  op->attr.axis = axis, op->attr.combine = COMBINE_REGION, op->attr.reverse = rev;
  if (!combine_region(s, op, v[2]->fn, xs, n, a->loc, bi_argloc(a, 2))) return s->poison;
  irb_insert(&s->b, op);
  if (!tuple) return sv_tensor(s, op->results[0]);
  SVal *items[SCAN_MAX_INPUTS];
  for (int i = 0; i < n; i++) items[i] = sv_tensor(s, op->results[i]);
  return sv_tuple(s, items, n, false);
}

/* tl.reduce(input, axis, combine_fn, keep_dims=False): input and
 * combine_fn as for tl.associative_scan; one REDUCE per axis reduced (all
 * of them, last first, when axis is None), each with the function inlined
 * into its combine region.  The order of the combines is the butterfly's:
 * as in Triton, combine_fn must be commutative as well as associative. */
SVal *b_reduce(Spec *s, SVal **v, CallArgs *a) {
  bool tuple = v[0]->kind == SV_TUPLE;
  Value *xs[SCAN_MAX_INPUTS];
  int n = combine_inputs(s, v[0], bi_argloc(a, 0), "reduce", xs);
  if (!n) return s->poison;
  int rank = xs[0]->type->rank, first = 0, last = rank - 1;
  if (v[1] && v[1]->kind != SV_NONE) {
    int64_t ax;
    if (!sv_const_int(s, v[1], bi_argloc(a, 1), "axis", &ax)) return s->poison;
    first = last = bi_norm_axis(s, ax, rank, bi_argloc(a, 1));
    if (first < 0) return s->poison;
  }
  if (is_poison(v[2])) return s->poison;
  if (v[2]->kind != SV_FUNC) {
    spec_error(s, bi_argloc(a, 2), "combine_fn must be a @triton.jit function");
    return s->poison;
  }
  bool keep = false;
  if (v[3] && v[3]->kind != SV_NONE && !sv_truthy(s, v[3], bi_argloc(a, 3), &keep)) {
    spec_error(s, bi_argloc(a, 3), "keep_dims must be a constexpr bool");
    return s->poison;
  }
  for (int axis = last; axis >= first; axis--) {
    const Type *t = xs[0]->type;
    int64_t shape[IR_MAX_RANK];
    for (int i = 0, j = 0; i < t->rank; i++)
      if (i != axis) shape[j++] = t->shape[i];
    const Type *rts[SCAN_MAX_INPUTS];
    for (int i = 0; i < n; i++) rts[i] = ty_tensor(bi_ctx(s), val_elem(s, xs[i]), t->rank - 1, shape, NULL);
    spec_at(s, a->loc);
    Op *op = ir_op_new(s->m, s->f, OP_REDUCE, a->loc, xs, n, rts, n, 1);
    op->attr.axis = axis, op->attr.combine = COMBINE_REGION;
    if (!combine_region(s, op, v[2]->fn, xs, n, a->loc, bi_argloc(a, 2))) return s->poison;
    irb_insert(&s->b, op);
    for (int i = 0; i < n; i++) xs[i] = op->results[i];
  }
  SVal *items[SCAN_MAX_INPUTS];
  for (int i = 0; i < n; i++) {
    Value *r = xs[i];
    if (keep) {
      spec_at(s, a->loc);
      if (first != last || r->type->rank == 0) {
        int64_t ones[IR_MAX_RANK];
        for (int d = 0; d < IR_MAX_RANK; d++) ones[d] = 1;
        int kr = first != last ? rank : 1;
        if (r->type->rank == 0) r = irb_splat(&s->b, r, ty_tensor(bi_ctx(s), val_elem(s, r), kr, ones, NULL));
      } else {
        r = irb_expand_dims(&s->b, r, first);
      }
    }
    items[i] = sv_tensor(s, r);
  }
  return tuple ? sv_tuple(s, items, n, false) : items[0];
}

static SVal *maxmin_reduce(Spec *s, SVal **v, CallArgs *a, bool is_max) {
  /* max(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False) */
  bool ret_idx = false;
  if (v[2]) sv_truthy(s, v[2], a->loc, &ret_idx);
  SVal *args[4] = {v[0], v[1], v[4], NULL};
  SVal *r = reduce(s, args, a, is_max ? COMBINE_MAX : COMBINE_MIN, is_max ? "max" : "min", false);
  if (!ret_idx || is_poison(r)) return r;
  SVal *i = reduce(s, args, a, is_max ? COMBINE_ARGMAX : COMBINE_ARGMIN, is_max ? "max" : "min", false);
  SVal *items[2] = {r, i};
  return sv_tuple(s, items, 2, false);
}
SVal *b_max(Spec *s, SVal **v, CallArgs *a) { return maxmin_reduce(s, v, a, true); }
SVal *b_min(Spec *s, SVal **v, CallArgs *a) { return maxmin_reduce(s, v, a, false); }

SVal *b_softmax(Spec *s, SVal **v, CallArgs *a) {
  Value *x = bi_need_tensor(s, v[0], bi_argloc(a, 0), "input");
  if (!x) return s->poison;
  int last = x->type->rank - 1;
  SVal *axis = sv_int(s, last), *t = sv_bool(s, true);
  SVal *margs[5] = {v[0], axis, NULL, NULL, t};
  SVal *m = b_max(s, margs, a);
  SVal *z = spec_binop(s, AOP_SUB, v[0], m, a->loc);
  SVal *eargs[1] = {z};
  SVal *num = b_exp(s, eargs, a);
  SVal *sargs[4] = {num, axis, NULL, t};
  SVal *den = b_sum(s, sargs, a);
  return spec_binop(s, AOP_DIV, num, den, a->loc);
}

/* ---- matrix multiply ---------------------------------------------------------------------------- */

SVal *b_dot(Spec *s, SVal **v, CallArgs *a) {
  Value *x = bi_need_tensor(s, v[0], bi_argloc(a, 0), "input");
  Value *y = bi_need_tensor(s, v[1], bi_argloc(a, 1), "other");
  if (!x || !y) return s->poison;
  const Type *tx = x->type, *ty = y->type;
  if (tx->rank < 2 || tx->rank > 3 || tx->rank != ty->rank) {
    spec_error(s, a->loc, "tl.dot needs two 2-D (or two 3-D batched) tensors, got ranks %d and %d",
               tx->rank, ty->rank);
    return s->poison;
  }
  int r = tx->rank;
  int64_t M = tx->shape[r - 2], K = tx->shape[r - 1], K2 = ty->shape[r - 2], N = ty->shape[r - 1];
  if (K != K2) {
    spec_error(s, a->loc, "tl.dot inner dimensions differ: [%lld x %lld] @ [%lld x %lld] (K = %lld vs %lld)",
               (long long)M, (long long)K, (long long)K2, (long long)N, (long long)K, (long long)K2);
    return s->poison;
  }
  if (r == 3 && tx->shape[0] != ty->shape[0]) {
    spec_error(s, a->loc, "tl.dot batch dimensions differ: %lld vs %lld", (long long)tx->shape[0],
               (long long)ty->shape[0]);
    return s->poison;
  }
  if (M < 16 || N < 16 || K < 16) {
    spec_error(s, a->loc, "tl.dot needs M, N and K of at least 16 (got M=%lld, N=%lld, K=%lld)",
               (long long)M, (long long)N, (long long)K);
    return s->poison;
  }
  int64_t out_shape[3] = {tx->shape[0], M, N};
  if (!spec_check_block_shape(s, r, r == 3 ? out_shape : out_shape + 1, a->loc)) return s->poison;
  const Type *ex = val_elem(s, x), *ey = val_elem(s, y);
  bool fp8 = (ex->dtype == DT_F8E4M3 || ex->dtype == DT_F8E5M2) && (ey->dtype == DT_F8E4M3 || ey->dtype == DT_F8E5M2);
  if (ex != ey && !fp8) {
    spec_error(s, a->loc, "tl.dot operands have different element types (%s and %s); cast one of them",
               dt_name(ex->dtype), dt_name(ey->dtype));
    return s->poison;
  }
  if (!dt_is_float(ex->dtype) && ex->dtype != DT_I8) {
    spec_error(s, a->loc, "tl.dot supports fp16, bf16, fp32, fp8 and int8 operands, not %s",
               dt_name(ex->dtype));
    return s->poison;
  }
  if (fp8 && s->m->capability > 0 && s->m->capability < 89) {
    /* no fp8 tensor-core instructions before sm_89: the operands widen to
     * fp16 (exactly), as Triton does on Ampere */
    const Type *h = ty_scalar(bi_ctx(s), DT_F16);
    x = spec_cast(s, x, h, bi_argloc(a, 0)), y = spec_cast(s, y, h, bi_argloc(a, 1));
    if (!x || !y) return s->poison;
    ex = ey = h;
  }
  DotPrecision prec = PREC_TF32;
  if (v[4] && v[4]->kind != SV_NONE) {
    bool t;
    if (!sv_truthy(s, v[4], a->loc, &t)) return s->poison;
    prec = t ? PREC_TF32 : PREC_IEEE;
  }
  if (v[3] && v[3]->kind != SV_NONE) {
    const char *p = bi_str_arg(s, v[3], a->loc, "input_precision");
    if (!p) return s->poison;
    if (!strcmp(p, "tf32")) prec = PREC_TF32;
    else if (!strcmp(p, "tf32x3")) prec = PREC_TF32X3;
    else if (!strcmp(p, "ieee")) prec = PREC_IEEE;
    else {
      spec_error(s, a->loc, "input_precision must be 'tf32', 'tf32x3' or 'ieee', not '%s'", p);
      return s->poison;
    }
  }
  const Type *out = ty_scalar(bi_ctx(s), ex->dtype == DT_I8 ? DT_I32 : DT_F32);
  if (v[6] && v[6]->kind != SV_NONE) {
    out = bi_dtype_arg(s, v[6], a->loc, "out_dtype");
    if (!out) return s->poison;
  }
  int64_t shape[3] = {tx->shape[0], M, N};
  if (r == 2) shape[0] = M, shape[1] = N;
  const Type *rt = ty_tensor(bi_ctx(s), out, r, shape, NULL);
  Value *acc;
  if (v[2] && v[2]->kind != SV_NONE) {
    acc = bi_need_tensor(s, v[2], a->loc, "acc");
    if (!acc) return s->poison;
    if (acc->type->rank != r || acc->type->shape[r - 2] != M || acc->type->shape[r - 1] != N) {
      StrBuf sb;
      sb_init(&sb);
      ty_print(&sb, acc->type);
      spec_error(s, a->loc, "the accumulator (%s) must have shape [%lld, %lld]", sb.data,
                 (long long)M, (long long)N);
      sb_free(&sb);
      return s->poison;
    }
    if (val_elem(s, acc) != out) {
      if (v[6] && v[6]->kind != SV_NONE) {
        spec_error(s, a->loc, "the accumulator is %s but out_dtype is %s", dt_name(val_elem(s, acc)->dtype),
                   dt_name(out->dtype));
        return s->poison;
      }
      out = val_elem(s, acc);
      rt = acc->type;
    }
  } else {
    acc = bi_splat_constant(s, sv_int(s, 0), out, r, shape, a->loc);
  }
  Value *ops[3] = {x, y, acc};
  spec_at(s, a->loc);
  Op *op = irb_op(&s->b, OP_DOT, ops, 3, rt);
  op->attr.precision = dt_is_float(ex->dtype) && ex->dtype == DT_F32 ? prec : PREC_IEEE;
  if (ex->dtype == DT_F32) op->attr.precision = prec;
  /* max_num_imprecise_acc: how many K elements an fp8 dot may sum in the
   * tensor cores' own (narrower than fp32) accumulation before the sum goes
   * into the fp32 accumulator; as Triton: 2^30 by default on sm_90 (no
   * promotion inside the dot, and `acc += tl.dot(a, b)` stays an fp32 add
   * per dot), 0 elsewhere; meaningless for other operand types. */
  if (fp8) {
    int64_t mi = s->m->capability == 90 ? (int64_t)1 << 30 : 0;
    if (v[5] && v[5]->kind != SV_NONE) {
      if (!sv_const_int(s, v[5], bi_argloc(a, 5), "max_num_imprecise_acc", &mi)) return s->poison;
      if (mi < 0 || mi > K) {
        spec_error(s, bi_argloc(a, 5), "max_num_imprecise_acc (%lld) must be between 0 and K (%lld)",
                   (long long)mi, (long long)K);
        return s->poison;
      }
    }
    op->attr.max_imprecise = (int)mi;
  }
  return sv_tensor(s, op->results[0]);
}

/* ---- hints and checks ------------------------------------------------------------------------- */

static SVal *hint(Spec *s, SVal **v, CallArgs *a, bool contig, const char *name) {
  if (is_poison(v[0])) return v[0];
  if (sv_is_number(v[0])) return v[0];
  Value *x = bi_need_tensor(s, v[0], bi_argloc(a, 0), "input");
  int64_t vals[IR_MAX_RANK];
  int n;
  if (!x || !bi_const_ints(s, v[1], bi_argloc(a, 1), "values", vals, &n, IR_MAX_RANK)) return s->poison;
  int rank = x->type->rank ? x->type->rank : 1;
  if (n != rank && !(n == 1)) {
    spec_error(s, bi_argloc(a, 1), "tl.%s needs one value per dim (%d), got %d", name, rank, n);
    return s->poison;
  }
  spec_at(s, a->loc);
  Op *op = irb_op(&s->b, OP_ASSUME, &x, 1, x->type);
  for (int i = 0; i < rank; i++) {
    int64_t val = vals[n == 1 ? 0 : i];
    if (val <= 0) {
      spec_error(s, bi_argloc(a, 1), "tl.%s values must be positive", name);
      return s->poison;
    }
    if (contig) op->attr.hint_contig[i] = (int)val;
    else op->attr.hint_div[i] = (int)val;
  }
  return sv_tensor(s, op->results[0]);
}
SVal *b_multiple_of(Spec *s, SVal **v, CallArgs *a) { return hint(s, v, a, false, "multiple_of"); }
SVal *b_max_contiguous(Spec *s, SVal **v, CallArgs *a) { return hint(s, v, a, true, "max_contiguous"); }
SVal *b_max_constancy(Spec *s, SVal **v, CallArgs *a) { (void)a; return v[0]; }

SVal *b_static_assert(Spec *s, SVal **v, CallArgs *a) {
  if (is_poison(v[0])) return s->poison;
  bool t;
  if (!sv_truthy(s, v[0], bi_argloc(a, 0), &t) || !sv_is_constexpr(v[0])) {
    spec_error(s, bi_argloc(a, 0), "tl.static_assert needs a constexpr condition, but this is a runtime %s "
               "(use tl.device_assert for runtime checks)", sv_kind_name(v[0]));
    return s->poison;
  }
  if (!t) {
    const char *msg = v[1] && v[1]->kind == SV_STR ? v[1]->s : "";
    if (*msg) spec_error(s, a->loc, "static_assert failed: %s", msg);
    else spec_error(s, a->loc, "static_assert failed");
  }
  return s->none;
}

SVal *b_static_print(Spec *s, SVal **v, CallArgs *a) {
  StrBuf sb;
  sb_init(&sb);
  SVal *t = v[0];
  for (int i = 0; t && i < t->n; i++) {
    if (i) sb_putc(&sb, ' ');
    if (t->items[i]->kind == SV_STR) sb_puts(&sb, t->items[i]->s);
    else sv_describe(s, &sb, t->items[i]);
  }
  diag_note(s->d, a->loc, "static_print: %s", sb.data ? sb.data : "");
  sb_free(&sb);
  return s->none;
}

/* The source text of a one-line span (the condition, as Triton's message
 * quotes it); NULL when it spans lines. */
static const char *source_text(Spec *s, Loc loc) {
  const char *src = s->ast->source;
  if (!src || loc.line <= 0 || loc.line != loc.end_line || loc.end_col <= loc.col || strcmp(loc.file, s->ast->path))
    return NULL;
  for (int line = 1; line < loc.line && *src; src++)
    if (*src == '\n') line++;
  size_t len = strcspn(src, "\n");
  if ((size_t)loc.end_col - 1 > len) return NULL;
  return arena_strndup(s->arena, src + loc.col - 1, (size_t)(loc.end_col - loc.col));
}

void spec_device_assert(Spec *s, SVal *cond, SVal *mask, const char *msg, Loc loc, Loc cond_loc) {
  Value *c = sv_to_value(s, cond, cond_loc, "the condition");
  if (!c) return;
  c = spec_to_bool(s, c, cond_loc);
  if (mask && mask->kind != SV_NONE) {
    /* only where the mask holds */
    Value *m = sv_to_value(s, mask, loc, "the mask");
    if (!m) return;
    m = spec_to_bool(s, m, loc);
    spec_at(s, loc);
    Value *skip = irb_unary(&s->b, OP_NOT, m);
    if (!spec_broadcast_pair(s, &c, &skip, loc, "device_assert")) return;
    spec_at(s, loc);
    c = irb_binary(&s->b, OP_OR, c, skip);
  }
  if (!msg || !*msg) msg = source_text(s, cond_loc);
  spec_at(s, loc);
  Op *op = irb_op(&s->b, OP_ASSERT, &c, 1, NULL);
  op->attr.str = msg && *msg ? msg : "device_assert";
}

SVal *b_device_assert(Spec *s, SVal **v, CallArgs *a) {
  if (is_poison(v[0])) return s->poison;
  const char *msg = bi_str_arg(s, v[1], bi_argloc(a, 1), "the message of tl.device_assert");
  if (!msg) return s->poison;
  if (v[0]->kind != SV_TENSOR && !sv_is_constexpr(v[0])) {
    spec_error(s, bi_argloc(a, 0), "tl.device_assert needs a condition, not a %s", sv_kind_name(v[0]));
    return s->poison;
  }
  /* Off outside debug mode, as in Triton: checked for type, not emitted. */
  if (s->req->debug) spec_device_assert(s, v[0], v[2], msg, a->loc, bi_argloc(a, 0));
  return s->none;
}

/* tl.device_print(prefix, *args, hex=False): one PRINT of every argument
 * (codegen prints one line per element: pid, index, prefix, value). */
SVal *b_device_print(Spec *s, SVal **v, CallArgs *a) {
  const char *prefix = bi_str_arg(s, v[0], bi_argloc(a, 0), "the prefix of tl.device_print");
  if (!prefix) return s->poison;
  bool hex = false;
  if (v[2] && (!sv_is_constexpr(v[2]) || !sv_truthy(s, v[2], bi_argloc(a, 2), &hex))) {
    spec_error(s, bi_argloc(a, 2), "hex must be a constexpr truth value");
    return s->poison;
  }
  SVal *args = v[1];
  if (args->n > 32) {
    spec_error(s, a->loc, "tl.device_print takes at most 32 values, not %d", args->n);
    return s->poison;
  }
  Value *ops[32];
  for (int i = 0; i < args->n; i++) {
    SVal *x = args->items[i];
    if (x->kind == SV_STR) {
      spec_error(s, a->loc, "tl.device_print prints tensors and numbers; put text in its prefix");
      return s->poison;
    }
    ops[i] = sv_to_value(s, x, a->loc, "a value to print");
    if (!ops[i]) return s->poison;
  }
  spec_at(s, a->loc);
  Op *op = ir_op_new(s->m, s->f, OP_PRINT, a->loc, ops, args->n, NULL, 0, 0);
  op->attr.str = prefix;
  op->attr.hex = hex;
  irb_insert(&s->b, op);
  return s->none;
}

SVal *b_debug_barrier(Spec *s, SVal **v, CallArgs *a) {
  (void)v;
  spec_at(s, a->loc);
  irb_op(&s->b, OP_BARRIER, NULL, 0, NULL);
  return s->none;
}

/* tl.assume(cond): a promise for the optimizer.  Checked to be a boolean or
 * integer condition and otherwise dropped (Triton hands it to llvm.assume;
 * tlc's own analyses take their facts from multiple_of/max_contiguous and
 * the signature's hints). */
SVal *b_assume(Spec *s, SVal **v, CallArgs *a) {
  if (sv_is_constexpr(v[0])) {
    bool t;
    if (!sv_truthy(s, v[0], bi_argloc(a, 0), &t) || (v[0]->kind != SV_BOOL && v[0]->kind != SV_INT)) {
      spec_error(s, bi_argloc(a, 0), "tl.assume needs a boolean condition, not a %s", sv_kind_name(v[0]));
      return s->poison;
    }
    return s->none;
  }
  if (v[0]->kind != SV_TENSOR || dt_is_float(v[0]->v->type->dtype) || v[0]->v->type->dtype == DT_PTR) {
    spec_error(s, bi_argloc(a, 0), "tl.assume needs a boolean condition, not %s", sv_text(s, v[0]));
    return s->poison;
  }
  return s->none;
}

/* tl.pointer_type(element_ty): the dtype of pointers to element_ty (global
 * memory, address space 1), for casts such as
 * tl.load(ptrs + g).to(tl.pointer_type(tl.float16)). */
SVal *b_pointer_type(Spec *s, SVal **v, CallArgs *a) {
  const Type *e = bi_dtype_arg(s, v[0], bi_argloc(a, 0), "element_ty");
  if (!e) return s->poison;
  if (v[1] && v[1]->kind != SV_NONE) {
    int64_t as;
    if (!sv_const_int(s, v[1], bi_argloc(a, 1), "address_space", &as)) return s->poison;
    if (as != 1) {
      spec_error(s, bi_argloc(a, 1), "tl.pointer_type: only global memory (address_space=1) is supported, not %lld",
                 (long long)as);
      return s->poison;
    }
  }
  return sv_dtype(s, ty_ptr(bi_ctx(s), e));
}

SVal *b_cdiv(Spec *s, SVal **v, CallArgs *a) {
  if (is_poison(v[0]) || is_poison(v[1])) return s->poison;
  if ((v[0]->kind == SV_INT || v[0]->kind == SV_BOOL) && (v[1]->kind == SV_INT || v[1]->kind == SV_BOOL)) {
    if (v[1]->i == 0) {
      spec_error(s, a->loc, "cdiv by zero");
      return s->poison;
    }
    int64_t x = v[0]->i, d = v[1]->i;
    if (x == INT64_MIN && d == -1) {
      spec_error(s, a->loc, "integer overflow in constexpr cdiv (values are 64-bit)");
      return s->poison;
    }
    int64_t q = x / d;
    if ((x % d != 0) && ((x < 0) == (d < 0))) q++;
    return sv_int(s, q);
  }
  SVal *t = spec_binop(s, AOP_ADD, v[0], v[1], a->loc);
  t = spec_binop(s, AOP_SUB, t, sv_int(s, 1), a->loc);
  return spec_binop(s, AOP_FLOORDIV, t, v[1], a->loc);
}

SVal *b_swizzle2d(Spec *s, SVal **v, CallArgs *a) {
  Loc l = a->loc;
  SVal *i = v[0], *j = v[1], *size_i = v[2], *size_j = v[3], *size_g = v[4];
  SVal *ij = spec_binop(s, AOP_ADD, spec_binop(s, AOP_MUL, i, size_j, l), j, l);
  SVal *size_gj = spec_binop(s, AOP_MUL, size_g, size_j, l);
  SVal *group_id = spec_binop(s, AOP_FLOORDIV, ij, size_gj, l);
  SVal *off_i = spec_binop(s, AOP_MUL, group_id, size_g, l);
  SVal *margs[3] = {spec_binop(s, AOP_SUB, size_i, off_i, l), size_g, NULL};
  SVal *g = b_minimum(s, margs, a);
  ij = spec_binop(s, AOP_MOD, ij, size_gj, l);
  SVal *new_i = spec_binop(s, AOP_ADD, off_i, spec_binop(s, AOP_MOD, ij, g, l), l);
  SVal *new_j = spec_binop(s, AOP_FLOORDIV, ij, g, l);
  if (is_poison(new_i) || is_poison(new_j)) return s->poison;
  SVal *items[2] = {new_i, new_j};
  return sv_tuple(s, items, 2, false);
}

SVal *b_next_power_of_2(Spec *s, SVal **v, CallArgs *a) {
  int64_t n;
  if (!sv_const_int(s, v[0], bi_argloc(a, 0), "n", &n)) return s->poison;
  int64_t p = 1;
  while (p < n && p < ((int64_t)1 << 62)) p <<= 1;
  return sv_int(s, p);
}

/* triton.Config(kwargs, num_warps=4, num_stages=3, ...): the record the
 * autotuner reads (module-level code builds lists of them). */
