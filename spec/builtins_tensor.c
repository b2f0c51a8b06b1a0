/* builtins_tensor.c — builtins that make tensors and change their shape:
 * tl.program_id, num_programs, arange, zeros, full (and *_like), trans,
 * permute, expand_dims, broadcast(_to), reshape/view. */
#include "spec/builtins.h"

#include <string.h>

/* ---- program structure -------------------------------------------------------- */

static SVal *b_program_id(Spec *s, SVal **v, CallArgs *a, bool num) {
  int64_t axis;
  if (!sv_const_int(s, v[0], bi_argloc(a, 0), "axis", &axis)) return s->poison;
  if (axis < 0 || axis > 2) {
    spec_error(s, bi_argloc(a, 0), "axis must be 0, 1 or 2, got %lld", (long long)axis);
    return s->poison;
  }
  spec_at(s, a->loc);
  Op *op = irb_op(&s->b, num ? OP_NUM_PROGRAMS : OP_PROGRAM_ID, NULL, 0, ty_scalar(bi_ctx(s), DT_I32));
  op->attr.axis = (int)axis;
  return sv_tensor(s, op->results[0]);
}
SVal *b_pid(Spec *s, SVal **v, CallArgs *a) { return b_program_id(s, v, a, false); }
SVal *b_nprog(Spec *s, SVal **v, CallArgs *a) { return b_program_id(s, v, a, true); }

SVal *b_arange(Spec *s, SVal **v, CallArgs *a) {
  int64_t lo, hi;
  if (!sv_const_int(s, v[0], bi_argloc(a, 0), "the start of tl.arange", &lo) ||
      !sv_const_int(s, v[1], bi_argloc(a, 1), "the end of tl.arange", &hi))
    return s->poison;
  if (hi <= lo) {
    spec_error(s, a->loc, "tl.arange(%lld, %lld) is empty; the end must be greater than the start",
               (long long)lo, (long long)hi);
    return s->poison;
  }
  if (lo < INT32_MIN || hi > INT32_MAX) {
    spec_error(s, a->loc, "tl.arange bounds must fit in int32");
    return s->poison;
  }
  int64_t n = hi - lo;
  if (n & (n - 1)) {
    spec_error(s, a->loc, "tl.arange(%lld, %lld) has %lld elements; its length must be a power "
               "of two", (long long)lo, (long long)hi, (long long)n);
    return s->poison;
  }
  if (!spec_check_block_shape(s, 1, &n, a->loc)) return s->poison;
  spec_at(s, a->loc);
  return sv_tensor(s, irb_arange(&s->b, lo, hi));
}

bool bi_shape_arg(Spec *s, SVal *v, Loc loc, int64_t *shape, int *rank) {
  if (!bi_const_ints(s, v, loc, "shape", shape, rank, IR_MAX_RANK)) return false;
  return spec_check_block_shape(s, *rank, shape, loc);
}

Value *bi_splat_constant(Spec *s, SVal *value, const Type *elem, int rank, const int64_t *shape,
                             Loc loc) {
  spec_at(s, loc);
  const Type *t = rank ? ty_tensor(bi_ctx(s), elem, rank, shape, NULL) : elem;
  if (value->kind == SV_TENSOR) {
    if (value->v->type->rank) {
      spec_error(s, loc, "the fill value must be a scalar, not a tensor");
      return NULL;
    }
    Value *x = spec_cast(s, value->v, elem, loc);
    return rank ? irb_splat(&s->b, x, t) : x;
  }
  if (!sv_is_number(value)) {
    spec_error(s, loc, "the fill value must be a number, not a %s", sv_kind_name(value));
    return NULL;
  }
  if (dt_is_float(elem->dtype))
    return irb_const_float(&s->b, t, value->kind == SV_FLOAT ? value->f : (double)value->i);
  if (elem->dtype == DT_PTR) {
    spec_error(s, loc, "cannot fill a pointer tensor with a number");
    return NULL;
  }
  int64_t x = value->kind == SV_FLOAT ? spec_float_to_int(value->f) : value->i;
  if (elem->dtype == DT_I1) x = value->kind == SV_FLOAT ? value->f != 0 : x != 0;
  return irb_const_int(&s->b, t, x);
}

SVal *b_zeros(Spec *s, SVal **v, CallArgs *a) {
  int64_t shape[IR_MAX_RANK];
  int rank;
  if (!bi_shape_arg(s, v[0], bi_argloc(a, 0), shape, &rank)) return s->poison;
  const Type *dt = bi_dtype_arg(s, v[1], bi_argloc(a, 1), "dtype");
  if (!dt) return s->poison;
  return sv_tensor(s, bi_splat_constant(s, sv_int(s, 0), dt, rank, shape, a->loc));
}

SVal *b_full(Spec *s, SVal **v, CallArgs *a) {
  int64_t shape[IR_MAX_RANK];
  int rank;
  if (!bi_shape_arg(s, v[0], bi_argloc(a, 0), shape, &rank)) return s->poison;
  const Type *dt = bi_dtype_arg(s, v[2], bi_argloc(a, 2), "dtype");
  if (!dt || is_poison(v[1])) return s->poison;
  return sv_tensor(s, bi_splat_constant(s, v[1], dt, rank, shape, a->loc));
}

SVal *b_zeros_like(Spec *s, SVal **v, CallArgs *a) {
  Value *x = bi_need_tensor(s, v[0], bi_argloc(a, 0), "input");
  if (!x) return s->poison;
  const Type *dt = v[1] ? bi_dtype_arg(s, v[1], bi_argloc(a, 1), "dtype") : val_elem(s, x);
  if (!dt) return s->poison;
  return sv_tensor(s, bi_splat_constant(s, sv_int(s, 0), dt, x->type->rank, x->type->shape, a->loc));
}

SVal *b_full_like(Spec *s, SVal **v, CallArgs *a) {
  Value *x = bi_need_tensor(s, v[0], bi_argloc(a, 0), "input");
  if (!x || is_poison(v[1])) return s->poison;
  const Type *dt = v[2] ? bi_dtype_arg(s, v[2], bi_argloc(a, 2), "dtype") : val_elem(s, x);
  if (!dt) return s->poison;
  return sv_tensor(s, bi_splat_constant(s, v[1], dt, x->type->rank, x->type->shape, a->loc));
}


/* ---- shape ops ----------------------------------------------------------------------- */

static SVal *permute(Spec *s, Value *x, const int64_t *perm, int n, Loc loc) {
  int rank = x->type->rank;
  if (n != rank) {
    spec_error(s, loc, "permutation has %d entries but the tensor has rank %d", n, rank);
    return s->poison;
  }
  int seen[IR_MAX_RANK] = {0};
  int64_t shape[IR_MAX_RANK];
  for (int i = 0; i < n; i++) {
    if (perm[i] < 0 || perm[i] >= rank || seen[perm[i]]++) {
      spec_error(s, loc, "invalid permutation of the tensor's dims");
      return s->poison;
    }
    shape[i] = x->type->shape[perm[i]];
  }
  bool ident = true;
  for (int i = 0; i < n; i++) ident &= perm[i] == i;
  if (ident) return sv_tensor(s, x);
  spec_at(s, loc);
  Op *op = irb_op(&s->b, OP_TRANS, &x, 1, ty_tensor(bi_ctx(s), val_elem(s, x), rank, shape, NULL));
  for (int i = 0; i < n; i++) op->attr.perm[i] = (int)perm[i];
  return sv_tensor(s, op->results[0]);
}

static bool dims_from(Spec *s, SVal *v, Loc loc, int64_t *out, int *n) {
  /* varargs tuple: either (d0, d1, ...) or ((d0, d1, ...),) */
  if (v->kind == SV_TUPLE && v->n == 1 && v->items[0]->kind == SV_TUPLE) v = v->items[0];
  return bi_const_ints(s, v, loc, "dims", out, n, IR_MAX_RANK);
}

SVal *b_trans(Spec *s, SVal **v, CallArgs *a) {
  Value *x = bi_need_tensor(s, v[0], bi_argloc(a, 0), "input");
  if (!x) return s->poison;
  int64_t perm[IR_MAX_RANK];
  int n = 0;
  if (v[1] && v[1]->n > 0) {
    if (!dims_from(s, v[1], a->loc, perm, &n)) return s->poison;
  } else {
    if (x->type->rank != 2) {
      spec_error(s, a->loc, "tl.trans without dims needs a 2-D tensor (this one has rank %d)",
                 x->type->rank);
      return s->poison;
    }
    perm[0] = 1, perm[1] = 0, n = 2;
  }
  return permute(s, x, perm, n, a->loc);
}

SVal *b_permute(Spec *s, SVal **v, CallArgs *a) {
  Value *x = bi_need_tensor(s, v[0], bi_argloc(a, 0), "input");
  int64_t perm[IR_MAX_RANK];
  int n;
  if (!x || !dims_from(s, v[1], a->loc, perm, &n)) return s->poison;
  return permute(s, x, perm, n, a->loc);
}

SVal *b_expand_dims(Spec *s, SVal **v, CallArgs *a) {
  Value *x = bi_need_tensor(s, v[0], bi_argloc(a, 0), "input");
  int64_t axes[IR_MAX_RANK];
  int n;
  if (!x || !bi_const_ints(s, v[1], bi_argloc(a, 1), "axis", axes, &n, IR_MAX_RANK)) return s->poison;
  int rank = x->type->rank + n;
  if (rank > IR_MAX_RANK) {
    spec_error(s, a->loc, "expand_dims gives rank %d; at most %d is supported", rank, IR_MAX_RANK);
    return s->poison;
  }
  int kinds_axes[IR_MAX_RANK];
  for (int i = 0; i < n; i++) {
    int ax = bi_norm_axis(s, axes[i], rank, bi_argloc(a, 1));
    if (ax < 0) return s->poison;
    kinds_axes[i] = ax;
  }
  /* insert in increasing order */
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      if (kinds_axes[j] < kinds_axes[i]) {
        int t = kinds_axes[i];
        kinds_axes[i] = kinds_axes[j], kinds_axes[j] = t;
      }
  spec_at(s, a->loc);
  for (int i = 0; i < n; i++) {
    if (x->type->rank == 0) {
      int64_t one = 1;
      x = irb_splat(&s->b, x, ty_tensor(bi_ctx(s), val_elem(s, x), 1, &one, NULL));
    } else {
      x = irb_expand_dims(&s->b, x, kinds_axes[i]);
    }
  }
  return sv_tensor(s, x);
}

SVal *b_broadcast_to(Spec *s, SVal **v, CallArgs *a) {
  Value *x = bi_need_tensor(s, v[0], bi_argloc(a, 0), "input");
  int64_t shape[IR_MAX_RANK];
  int n;
  if (!x || !dims_from(s, v[1], a->loc, shape, &n)) return s->poison;
  if (!spec_check_block_shape(s, n, shape, a->loc)) return s->poison;
  Value *r = spec_broadcast_to(s, x, n, shape, a->loc);
  return r ? sv_tensor(s, r) : s->poison;
}

SVal *b_broadcast(Spec *s, SVal **v, CallArgs *a) {
  Value *x = bi_need_tensor(s, v[0], bi_argloc(a, 0), "input");
  Value *y = bi_need_tensor(s, v[1], bi_argloc(a, 1), "other");
  if (!x || !y || !spec_broadcast_pair(s, &x, &y, a->loc, "broadcast")) return s->poison;
  SVal *items[2] = {sv_tensor(s, x), sv_tensor(s, y)};
  return sv_tuple(s, items, 2, false);
}

SVal *b_reshape(Spec *s, SVal **v, CallArgs *a) {
  Value *x = bi_need_tensor(s, v[0], bi_argloc(a, 0), "input");
  int64_t shape[IR_MAX_RANK];
  int n;
  if (!x || !dims_from(s, v[1], a->loc, shape, &n)) return s->poison;
  if (!spec_check_block_shape(s, n, shape, a->loc)) return s->poison;
  int64_t numel = 1;
  for (int i = 0; i < n; i++) numel *= shape[i];
  if (numel != ty_numel(x->type)) {
    spec_error(s, a->loc, "cannot reshape a tensor of %lld elements into one of %lld",
               (long long)ty_numel(x->type), (long long)numel);
    return s->poison;
  }
  spec_at(s, a->loc);
  const Type *t = ty_tensor(bi_ctx(s), val_elem(s, x), n, shape, NULL);
  if (x->type->rank == 0) return sv_tensor(s, irb_splat(&s->b, x, t));
  return sv_tensor(s, irb_op(&s->b, OP_RESHAPE, &x, 1, t)->results[0]);
}
