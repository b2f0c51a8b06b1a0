/* blockptr.c — tl.make_block_ptr, tl.advance, and lowering a block
 * pointer access to a pointer tensor plus a boundary mask.
 *
 * A block pointer is a compile-time record (base, shape, strides, offsets,
 * block shape, order); loops carry its IR parts like any other values.  An
 * access expands, per dim d, the 1-D index vector offsets[d] + arange(block[d])
 * (in i64), scales it by strides[d], and sums the broadcast terms onto the
 * base: the same addresses Triton's block pointers reach.  boundary_check
 * dims add `0 <= index < shape[d]` to the mask.  `order` is validated and
 * kept for later passes (it does not change the addresses). */
#include "spec/spec_internal.h"

#include <string.h>

static IrContext *ctx(Spec *s) { return s->m->ctx; }

static bool tuple_arg(Spec *s, SVal *v, Loc loc, const char *what, SVal ***items, int *n) {
  if (is_poison(v)) return false;
  if (v->kind == SV_INT || v->kind == SV_TENSOR) {
    /* `order=(0)` is an int in Python; Triton takes a single value as a
     * one-element tuple, and so do we */
    *items = ARENA_ARRAY(s->arena, SVal *, 1);
    (*items)[0] = v;
    *n = 1;
    return true;
  }
  if (v->kind != SV_TUPLE) {
    spec_error(s, loc, "%s of tl.make_block_ptr must be a tuple, not a %s", what, sv_kind_name(v));
    return false;
  }
  *items = v->items;
  *n = v->n;
  return true;
}

Value *spec_int_scalar(Spec *s, SVal *v, DType dt, Loc loc, const char *what) {
  if (is_poison(v)) return NULL;
  if (v->kind == SV_TENSOR && (v->v->type->rank || !dt_is_int(v->v->type->dtype))) {
    spec_error(s, loc, "%s must be an integer scalar", what);
    return NULL;
  }
  if (v->kind != SV_TENSOR && v->kind != SV_INT && v->kind != SV_BOOL) {
    spec_error(s, loc, "%s must be an integer, not a %s", what, sv_kind_name(v));
    return NULL;
  }
  return sv_to_value_as(s, v, ty_scalar(ctx(s), dt), loc);
}

SVal *spec_make_block_ptr(Spec *s, CallArgs *a, SVal **v) {
  Loc loc = a->loc;
  if (is_poison(v[0])) return s->poison;
  if (v[0]->kind != SV_TENSOR || v[0]->v->type->dtype != DT_PTR || v[0]->v->type->rank) {
    spec_error(s, loc, "the base of tl.make_block_ptr must be a scalar pointer, not a %s",
               v[0]->kind == SV_TENSOR && v[0]->v->type->rank ? "tensor" : sv_kind_name(v[0]));
    return s->poison;
  }
  SVal **shape, **strides, **offsets, **block, **order;
  int ns, nt, no, nb, nr;
  if (!tuple_arg(s, v[1], loc, "shape", &shape, &ns) || !tuple_arg(s, v[2], loc, "strides", &strides, &nt) ||
      !tuple_arg(s, v[3], loc, "offsets", &offsets, &no) ||
      !tuple_arg(s, v[4], loc, "block_shape", &block, &nb) || !tuple_arg(s, v[5], loc, "order", &order, &nr))
    return s->poison;
  if (ns != nt || ns != no || ns != nb || ns != nr) {
    spec_error(s, loc, "tl.make_block_ptr arguments disagree on the rank: shape has %d entries, "
               "strides %d, offsets %d, block_shape %d, order %d", ns, nt, no, nb, nr);
    return s->poison;
  }
  if (ns < 1 || ns > IR_MAX_RANK) {
    spec_error(s, loc, "block pointers of rank %d are not supported", ns);
    return s->poison;
  }
  BlockPtr *bp = ARENA_NEW(s->arena, BlockPtr);
  bp->rank = ns;
  bp->base = v[0]->v;
  int seen[IR_MAX_RANK] = {0};
  for (int i = 0; i < ns; i++) {
    bp->shape[i] = spec_int_scalar(s, shape[i], DT_I64, loc, "a shape entry");
    bp->strides[i] = spec_int_scalar(s, strides[i], DT_I64, loc, "a stride");
    bp->offsets[i] = spec_int_scalar(s, offsets[i], DT_I32, loc, "an offset");
    int64_t o;
    if (!bp->shape[i] || !bp->strides[i] || !bp->offsets[i]) return s->poison;
    if (!sv_const_int(s, block[i], loc, "block_shape", &bp->block[i])) return s->poison;
    if (!sv_const_int(s, order[i], loc, "order", &o)) return s->poison;
    if (o < 0 || o >= ns || seen[o]++) {
      spec_error(s, loc, "order must be a permutation of 0..%d", ns - 1);
      return s->poison;
    }
    bp->order[i] = (int)o;
  }
  if (!spec_check_block_shape(s, ns, bp->block, loc)) return s->poison;
  SVal *r = sv_new(s, SV_BLOCKPTR);
  r->bp = bp;
  return r;
}

SVal *spec_advance(Spec *s, SVal *base, SVal *offs, Loc loc) {
  if (is_poison(base) || is_poison(offs)) return s->poison;
  if (base->kind != SV_BLOCKPTR) {
    spec_error(s, loc, "tl.advance needs a block pointer, not a %s", sv_kind_name(base));
    return s->poison;
  }
  const BlockPtr *bp = base->bp;
  if (offs->kind != SV_TUPLE || offs->n != bp->rank) {
    spec_error(s, loc, "tl.advance needs a tuple of %d offsets", bp->rank);
    return s->poison;
  }
  BlockPtr *nb = ARENA_NEW(s->arena, BlockPtr);
  *nb = *bp;
  for (int i = 0; i < bp->rank; i++) {
    SVal *d = offs->items[i];
    if ((d->kind == SV_INT || d->kind == SV_BOOL) && d->i == 0) continue;
    Value *dv = spec_int_scalar(s, d, DT_I32, loc, "an advance offset");
    if (!dv) return s->poison;
    spec_at(s, loc);
    nb->offsets[i] = irb_binary(&s->b, OP_ADD, bp->offsets[i], dv);
  }
  SVal *r = sv_new(s, SV_BLOCKPTR);
  r->bp = nb;
  return r;
}

/* v (1-D, length block[d]) placed along dim d of the block and broadcast. */
static Value *place(Spec *s, Value *v, int d, int rank, const int64_t *block) {
  for (int k = 0; k < rank; k++)
    if (k != d) v = irb_expand_dims(&s->b, v, k);
  return irb_broadcast(&s->b, v, ty_tensor(ctx(s), val_elem(s, v), rank, block, NULL));
}

bool spec_block_ptr_access(Spec *s, const BlockPtr *bp, const int *check, int ncheck, Loc loc,
                           Value **ptrs, Value **mask) {
  IrContext *c = ctx(s);
  const Type *i64 = ty_scalar(c, DT_I64);
  int r = bp->rank;
  spec_at(s, loc);
  Value *sum = NULL;
  *mask = NULL;
  for (int d = 0; d < r; d++) {
    int64_t n = bp->block[d];
    const Type *vt = ty_tensor(c, i64, 1, &n, NULL);
    Value *idx = irb_cast(&s->b, irb_arange(&s->b, 0, n), vt);
    Value *off = irb_splat(&s->b, irb_cast(&s->b, bp->offsets[d], i64), vt);
    idx = irb_binary(&s->b, OP_ADD, idx, off);
    Value *term = irb_binary(&s->b, OP_MUL, idx, irb_splat(&s->b, bp->strides[d], vt));
    term = place(s, term, d, r, bp->block);
    sum = sum ? irb_binary(&s->b, OP_ADD, sum, term) : term;
    bool checked = false;
    for (int k = 0; k < ncheck; k++) checked |= check[k] == d;
    if (!checked) continue;
    Value *zero = irb_splat(&s->b, irb_const_int(&s->b, i64, 0), vt);
    Value *lo = irb_cmp(&s->b, CMP_GE, idx, zero);
    Value *hi = irb_cmp(&s->b, CMP_LT, idx, irb_splat(&s->b, bp->shape[d], vt));
    Value *m = place(s, irb_binary(&s->b, OP_AND, lo, hi), d, r, bp->block);
    *mask = *mask ? irb_binary(&s->b, OP_AND, *mask, m) : m;
  }
  const Type *pt = ty_tensor(c, bp->base->type, r, bp->block, NULL);
  Value *ops[2] = {irb_splat(&s->b, bp->base, pt), sum};
  *ptrs = irb_op(&s->b, OP_ADDPTR, ops, 2, pt)->results[0];
  return true;
}
