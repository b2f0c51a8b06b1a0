/* builtins_movement.c — builtins that move elements without computing:
 * tl.flip, tl.join, tl.split, tl.interleave, tl.ravel, tl.gather, tl.sort,
 * and tl.histogram (which counts, but moves each element into its bin).
 *
 * flip, gather, sort and histogram are ops of their own; the others are exact compositions of existing
 * ops: join selects between its two operands broadcast along a new last dim
 * of 2; split takes each half back out by an xor-reduction of the element's
 * bits with the other half masked to zero (bit-exact: -0.0 and NaN payloads
 * survive); interleave is a join reshaped; ravel a reshape to 1-D. */
#include "spec/builtins.h"

/* i32 tensor of `t`'s shape holding the coordinate along the last dim. */
static Value *last_index(Spec *s, const Type *t) {
  int r = t->rank;
  Value *idx = irb_arange(&s->b, 0, t->shape[r - 1]);
  for (int d = 0; d < r - 1; d++) idx = irb_expand_dims(&s->b, idx, 0);
  return irb_broadcast(&s->b, idx, ty_with_elem(bi_ctx(s), t, ty_scalar(bi_ctx(s), DT_I32)));
}

/* The integer type of dtype d's width, for moving its bits. */
static DType bits_type(DType d) {
  switch (d == DT_I1 ? 1 : dt_bits(d)) {
  case 1: return DT_I1;
  case 8: return DT_I8;
  case 16: return DT_I16;
  case 64: return DT_I64;
  default: return DT_I32;
  }
}

SVal *b_flip(Spec *s, SVal **v, CallArgs *a) {
  Value *x = bi_need_tensor(s, v[0], bi_argloc(a, 0), "x");
  if (!x) return s->poison;
  if (x->type->rank == 0) {
    spec_error(s, bi_argloc(a, 0), "tl.flip needs a tensor, not a scalar");
    return s->poison;
  }
  int64_t d = x->type->rank - 1;
  if (v[1] && v[1]->kind != SV_NONE && !sv_const_int(s, v[1], bi_argloc(a, 1), "dim", &d)) return s->poison;
  int axis = bi_norm_axis(s, d, x->type->rank, bi_argloc(a, 1));
  if (axis < 0) return s->poison;
  spec_at(s, a->loc);
  Op *op = irb_op(&s->b, OP_FLIP, &x, 1, x->type);
  op->attr.axis = axis;
  return sv_tensor(s, op->results[0]);
}

/* join(a, b): shape (*a.shape, 2), [..., 0] = a and [..., 1] = b. */
static Value *join(Spec *s, SVal **v, CallArgs *a, const char *name) {
  Value *x = bi_need_tensor(s, v[0], bi_argloc(a, 0), "a");
  Value *y = bi_need_tensor(s, v[1], bi_argloc(a, 1), "b");
  if (!x || !y || !spec_broadcast_pair(s, &x, &y, a->loc, name)) return NULL;
  if (val_elem(s, x) != val_elem(s, y)) {
    spec_error(s, a->loc, "tl.%s needs two tensors of one dtype, not %s and %s", name,
               dt_name(val_elem(s, x)->dtype), dt_name(val_elem(s, y)->dtype));
    return NULL;
  }
  int r = x->type->rank;
  if (r + 1 > IR_MAX_RANK) {
    spec_error(s, a->loc, "tl.%s gives rank %d; at most %d is supported", name, r + 1, IR_MAX_RANK);
    return NULL;
  }
  spec_at(s, a->loc);
  int64_t shape[IR_MAX_RANK];
  for (int d = 0; d < r; d++) shape[d] = x->type->shape[d];
  shape[r] = 2;
  const Type *t = ty_tensor(bi_ctx(s), val_elem(s, x), r + 1, shape, NULL);
  Value *xy[2] = {x, y};
  for (int k = 0; k < 2; k++) {
    if (r == 0) {
      int64_t one = 1;
      xy[k] = irb_splat(&s->b, xy[k], ty_tensor(bi_ctx(s), val_elem(s, x), 1, &one, NULL));
    } else {
      xy[k] = irb_expand_dims(&s->b, xy[k], r);
    }
    xy[k] = irb_broadcast(&s->b, xy[k], t);
  }
  Value *idx = last_index(s, t);
  Value *first = irb_cmp(&s->b, CMP_EQ, idx, irb_const_int(&s->b, idx->type, 0));
  return irb_select(&s->b, first, xy[0], xy[1]);
}

SVal *b_join(Spec *s, SVal **v, CallArgs *a) {
  Value *r = join(s, v, a, "join");
  return r ? sv_tensor(s, r) : s->poison;
}

SVal *b_split(Spec *s, SVal **v, CallArgs *a) {
  Value *x = bi_need_tensor(s, v[0], bi_argloc(a, 0), "a");
  if (!x) return s->poison;
  int r = x->type->rank;
  if (r == 0 || x->type->shape[r - 1] != 2) {
    spec_error(s, bi_argloc(a, 0), "tl.split needs a tensor whose last dim is 2");
    return s->poison;
  }
  const Type *e = val_elem(s, x);
  if (e->dtype == DT_PTR) {
    spec_error(s, bi_argloc(a, 0), "tl.split of pointers is not supported by tlc yet");
    return s->poison;
  }
  spec_at(s, a->loc);
  const Type *bt = ty_scalar(bi_ctx(s), bits_type(e->dtype));
  Value *bits = bt == e ? x : spec_bitcast(s, x, bt, a->loc);
  if (!bits) return s->poison;
  Value *idx = last_index(s, x->type);
  Value *zero = irb_const_int(&s->b, bits->type, 0);
  int64_t shape[IR_MAX_RANK];
  for (int d = 0; d < r - 1; d++) shape[d] = x->type->shape[d];
  const Type *rt = ty_tensor(bi_ctx(s), bt, r - 1, shape, NULL);
  SVal *items[2];
  for (int k = 0; k < 2; k++) {
    spec_at(s, a->loc);
    Value *mine = irb_cmp(&s->b, CMP_EQ, idx, irb_const_int(&s->b, idx->type, k));
    Value *m = irb_select(&s->b, mine, bits, zero);
    Op *op = irb_op(&s->b, OP_REDUCE, &m, 1, rt);
    op->attr.axis = r - 1, op->attr.combine = COMBINE_XOR;
    Value *h = op->results[0];
    if (bt != e) h = spec_bitcast(s, h, e, a->loc);
    if (!h) return s->poison;
    items[k] = sv_tensor(s, h);
  }
  return sv_tuple(s, items, 2, false);
}

SVal *b_interleave(Spec *s, SVal **v, CallArgs *a) {
  Value *j = join(s, v, a, "interleave");
  if (!j) return s->poison;
  int r = j->type->rank;
  if (r == 1) return sv_tensor(s, j); /* two scalars: [a, b] */
  int64_t shape[IR_MAX_RANK];
  for (int d = 0; d < r - 2; d++) shape[d] = j->type->shape[d];
  shape[r - 2] = 2 * j->type->shape[r - 2];
  spec_at(s, a->loc);
  const Type *t = ty_tensor(bi_ctx(s), val_elem(s, j), r - 1, shape, NULL);
  return sv_tensor(s, irb_op(&s->b, OP_RESHAPE, &j, 1, t)->results[0]);
}

SVal *b_ravel(Spec *s, SVal **v, CallArgs *a) {
  Value *x = bi_need_tensor(s, v[0], bi_argloc(a, 0), "x");
  if (!x) return s->poison;
  spec_at(s, a->loc);
  int64_t n = ty_numel(x->type);
  const Type *t = ty_tensor(bi_ctx(s), val_elem(s, x), 1, &n, NULL);
  if (x->type->rank == 0) return sv_tensor(s, irb_splat(&s->b, x, t));
  if (x->type->rank == 1) return sv_tensor(s, x);
  return sv_tensor(s, irb_op(&s->b, OP_RESHAPE, &x, 1, t)->results[0]);
}

/* gather(src, index, axis): the result has index's shape and src's dtype;
 * index is an integer tensor of src's rank matching src off the axis. */
SVal *b_gather(Spec *s, SVal **v, CallArgs *a) {
  Value *x = bi_need_tensor(s, v[0], bi_argloc(a, 0), "src");
  Value *i = bi_need_tensor(s, v[1], bi_argloc(a, 1), "index");
  if (!x || !i) return s->poison;
  if (!dt_is_int(val_elem(s, i)->dtype) || val_elem(s, i)->dtype == DT_I1) {
    spec_error(s, bi_argloc(a, 1), "tl.gather's index must be an integer tensor");
    return s->poison;
  }
  int r = x->type->rank;
  if (r == 0 || i->type->rank != r) {
    spec_error(s, a->loc, "tl.gather needs src and index tensors of one rank, not %d and %d", r, i->type->rank);
    return s->poison;
  }
  int64_t ax;
  if (!sv_const_int(s, v[2], bi_argloc(a, 2), "axis", &ax)) return s->poison;
  int axis = bi_norm_axis(s, ax, r, bi_argloc(a, 2));
  if (axis < 0) return s->poison;
  for (int d = 0; d < r; d++)
    if (d != axis && x->type->shape[d] != i->type->shape[d]) {
      spec_error(s, a->loc, "tl.gather's src and index must have one size off the axis: dim %d is %lld and %lld", d,
                 (long long)x->type->shape[d], (long long)i->type->shape[d]);
      return s->poison;
    }
  spec_at(s, a->loc);
  Value *ops[2] = {x, i};
  const Type *rt = ty_with_elem(bi_ctx(s), i->type, val_elem(s, x));
  Op *op = ir_op_new(s->m, s->f, OP_GATHER, a->loc, ops, 2, &rt, 1, 0);
  op->attr.axis = axis;
  irb_insert(&s->b, op);
  return sv_tensor(s, op->results[0]);
}

/* histogram(input, num_bins, mask=None): i32 counts [num_bins] of the
 * values 0 .. num_bins-1 in a 1-D integer tensor (other values, and masked
 * elements, are not counted). */
SVal *b_histogram(Spec *s, SVal **v, CallArgs *a) {
  Value *x = bi_need_tensor(s, v[0], bi_argloc(a, 0), "input");
  if (!x) return s->poison;
  if (x->type->rank != 1 || !dt_is_int(val_elem(s, x)->dtype) || val_elem(s, x)->dtype == DT_I1) {
    spec_error(s, bi_argloc(a, 0), "tl.histogram needs a 1-D integer tensor");
    return s->poison;
  }
  int64_t bins;
  if (!sv_const_int(s, v[1], bi_argloc(a, 1), "num_bins", &bins)) return s->poison;
  if (!spec_check_block_shape(s, 1, &bins, bi_argloc(a, 1))) return s->poison;
  Value *ops[2] = {x, NULL};
  if (v[2] && v[2]->kind != SV_NONE) {
    Value *m = bi_need_tensor(s, v[2], bi_argloc(a, 2), "mask");
    if (!m) return s->poison;
    spec_at(s, a->loc);
    if (val_elem(s, m)->dtype != DT_I1) m = spec_cast(s, m, ty_scalar(bi_ctx(s), DT_I1), a->loc);
    if (m && m->type->rank == 0) m = irb_splat(&s->b, m, ty_with_elem(bi_ctx(s), x->type, val_elem(s, m)));
    if (!m || m->type->rank != 1 || m->type->shape[0] != x->type->shape[0]) {
      spec_error(s, bi_argloc(a, 2), "tl.histogram's mask must have the input's shape");
      return s->poison;
    }
    ops[1] = m;
  }
  spec_at(s, a->loc);
  const Type *rt = ty_tensor(bi_ctx(s), ty_scalar(bi_ctx(s), DT_I32), 1, &bins, NULL);
  Op *op = ir_op_new(s->m, s->f, OP_HISTOGRAM, a->loc, ops, 2, &rt, 1, 0);
  irb_insert(&s->b, op);
  return sv_tensor(s, op->results[0]);
}

/* sort(x, dim=None, descending=False): sorted along dim (the last by
 * default), in the input's type. */
SVal *b_sort(Spec *s, SVal **v, CallArgs *a) {
  Value *x = bi_need_tensor(s, v[0], bi_argloc(a, 0), "x");
  if (!x) return s->poison;
  if (x->type->rank == 0) {
    spec_error(s, bi_argloc(a, 0), "tl.sort needs a tensor, not a scalar");
    return s->poison;
  }
  if (val_elem(s, x)->dtype == DT_PTR) {
    spec_error(s, bi_argloc(a, 0), "tl.sort of pointers is not supported");
    return s->poison;
  }
  int64_t d = x->type->rank - 1;
  if (v[1] && v[1]->kind != SV_NONE && !sv_const_int(s, v[1], bi_argloc(a, 1), "dim", &d)) return s->poison;
  int axis = bi_norm_axis(s, d, x->type->rank, bi_argloc(a, 1));
  if (axis < 0) return s->poison;
  bool desc = false;
  if (v[2] && v[2]->kind != SV_NONE && !sv_truthy(s, v[2], bi_argloc(a, 2), &desc)) {
    spec_error(s, bi_argloc(a, 2), "descending must be a constexpr bool");
    return s->poison;
  }
  spec_at(s, a->loc);
  Op *op = irb_op(&s->b, OP_SORT, &x, 1, x->type);
  op->attr.axis = axis, op->attr.reverse = desc;
  return sv_tensor(s, op->results[0]);
}
