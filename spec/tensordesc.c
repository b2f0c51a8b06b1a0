/* tensordesc.c — tensor descriptors: tl.make_tensor_descriptor, kernel
 * parameters of signature type `tensordesc<T[B0, B1]>`, desc.load /
 * desc.store, and a descriptor's attributes.
 *
 * A descriptor is a compile-time record (TensorDesc: base, i32 shape, i64
 * strides, constexpr block shape, padding) like a block pointer without
 * offsets.  desc.load(offsets) lowers exactly as a block-pointer load at
 * those offsets with every dim boundary-checked (blockptr.c's
 * spec_block_ptr_access): the elements outside [0, shape) read 0, or NaN
 * with padding_option="nan"; desc.store is the block-pointer store masked to
 * the same bounds.  That is the form passes/tma_tile.c recognizes, so on
 * sm_90a a pipelined descriptor load whose base is a 16-byte aligned kernel
 * argument and whose strides allow it becomes a bulk tensor copy; elsewhere
 * it stays an ordinary load.
 *
 * Triton's rules are checked where Triton checks them, as located errors:
 * rank 1 to 5 (tlc's tensors stop at 4 dims, so rank 5 is refused), block
 * dims powers of two, the block's innermost dim at least 16 bytes, the last
 * stride 1 when it is a constant (a runtime last stride is accepted and
 * used; such loads are never TMA copies).  A descriptor crosses runtime
 * if/for/while as its base, shape and strides (stmt.c). */
#include "spec/builtins.h"

#include <math.h>
#include <string.h>

static IrContext *ctx(Spec *s) { return s->m->ctx; }

/* ---- checks shared by tl.make_tensor_descriptor and tensordesc<...> parameters ------------- */

bool spec_desc_check(Spec *s, const Type *elem, int rank, const int64_t *block, Loc loc, const Loc *elem_loc,
                     const Loc *dim_locs, int max_dim) {
  if (elem->dtype == DT_I1 || elem->dtype == DT_PTR) {
    spec_error(s, elem_loc ? *elem_loc : loc, "tensor descriptors of %s elements are not supported",
               dt_name(elem->dtype));
    return false;
  }
  if (rank < 1 || rank > 5) {
    spec_error(s, loc, "a tensor descriptor has 1 to 5 dims, not %d", rank);
    return false;
  }
  /* Tensors go to rank IR_MAX_RANK, but descriptor loads and stores of rank
   * 5 (TMA's limit) have not been run on a GPU yet: refused until they are. */
  if (rank > SPEC_DESC_MAX_RANK) {
    spec_error(s, loc, "tensor descriptors of rank %d are not supported by tlc yet (at most %d dims)",
               rank, SPEC_DESC_MAX_RANK);
    return false;
  }
  for (int i = 0; i < rank; i++) {
    Loc at = dim_locs ? dim_locs[i] : loc;
    if (block[i] < 1 || (block[i] & (block[i] - 1)) || (max_dim && block[i] > max_dim)) {
      if (max_dim)
        spec_error(s, at, "block dim %d of the tensor descriptor is %lld; block dims must be powers of two "
                   "from 1 to %d", i, (long long)block[i], max_dim);
      else
        spec_error(s, at, "block dim %d of the tensor descriptor is %lld; block dims must be powers of two",
                   i, (long long)block[i]);
      return false;
    }
  }
  if (!spec_check_block_shape(s, rank, block, loc)) return false;
  int eb = dt_bits(elem->dtype) / 8;
  if (block[rank - 1] * eb < 16) {
    spec_error(s, dim_locs ? dim_locs[rank - 1] : loc,
               "the innermost block dim of a tensor descriptor must span at least 16 bytes, but %lld %s "
               "element%s %s %lld byte%s", (long long)block[rank - 1], dt_name(elem->dtype),
               block[rank - 1] == 1 ? "" : "s", block[rank - 1] == 1 ? "is" : "are",
               (long long)(block[rank - 1] * eb), block[rank - 1] * eb == 1 ? "" : "s");
    return false;
  }
  return true;
}

static SVal *desc_val(Spec *s, TensorDesc *td) {
  SVal *r = sv_new(s, SV_TENSORDESC);
  r->td = td;
  return r;
}

/* ---- tl.make_tensor_descriptor ------------------------------------------------------------------ */

static bool seq_arg(Spec *s, SVal *v, Loc loc, const char *what, SVal ***items, int *n) {
  if (v->kind != SV_TUPLE) {
    spec_error(s, loc, "%s of tl.make_tensor_descriptor must be a list or tuple, not a %s", what,
               sv_kind_name(v));
    return false;
  }
  *items = v->items;
  *n = v->n;
  return true;
}

SVal *spec_make_tensor_desc(Spec *s, CallArgs *a, SVal **v) {
  Loc loc = a->loc;
  SVal *base = v[0];
  if (base->kind != SV_TENSOR || base->v->type->dtype != DT_PTR || base->v->type->rank) {
    spec_error(s, bi_argloc(a, 0), "the base of tl.make_tensor_descriptor must be a scalar pointer, not a %s",
               base->kind == SV_TENSOR && base->v->type->rank ? "tensor" : sv_kind_name(base));
    return s->poison;
  }
  const Type *elem = base->v->type->pointee;
  SVal **shape, **strides, **block;
  int ns, nt, nb;
  if (!seq_arg(s, v[1], bi_argloc(a, 1), "shape", &shape, &ns) ||
      !seq_arg(s, v[2], bi_argloc(a, 2), "strides", &strides, &nt) ||
      !seq_arg(s, v[3], bi_argloc(a, 3), "block_shape", &block, &nb))
    return s->poison;
  if (ns != nt || ns != nb) {
    spec_error(s, loc, "tl.make_tensor_descriptor arguments disagree on the rank: shape has %d entries, "
               "strides %d, block_shape %d", ns, nt, nb);
    return s->poison;
  }
  TensorDesc *td = ARENA_NEW(s->arena, TensorDesc);
  for (int i = 0; i < nb && i < IR_MAX_RANK; i++)
    if (!sv_const_int(s, block[i], bi_argloc(a, 3), "block_shape", &td->block[i])) return s->poison;
  Loc base_loc = bi_argloc(a, 0);
  if (!spec_desc_check(s, elem, ns, td->block, bi_argloc(a, 3), &base_loc, NULL, 0)) return s->poison;
  SVal *last = strides[ns - 1];
  if ((last->kind == SV_INT || last->kind == SV_BOOL) && last->i != 1) {
    spec_error(s, bi_argloc(a, 2), "the last stride of a tensor descriptor must be 1 (its innermost dim is "
               "contiguous), not %lld", (long long)last->i);
    return s->poison;
  }
  const char *pad = bi_str_arg(s, v[4], bi_argloc(a, 4), "padding_option");
  if (!pad) return s->poison;
  if (*pad && strcmp(pad, "zero") && strcmp(pad, "nan")) {
    spec_error(s, bi_argloc(a, 4), "padding_option must be 'zero' or 'nan', not '%s'", pad);
    return s->poison;
  }
  td->pad_nan = !strcmp(pad, "nan");
  if (td->pad_nan && !dt_is_float(elem->dtype)) {
    spec_error(s, bi_argloc(a, 4), "padding_option 'nan' needs floating-point elements, not %s",
               dt_name(elem->dtype));
    return s->poison;
  }
  td->rank = ns;
  td->base = base->v;
  for (int i = 0; i < ns; i++) {
    td->shape[i] = spec_int_scalar(s, shape[i], DT_I32, bi_argloc(a, 1), "a shape entry");
    td->strides[i] = spec_int_scalar(s, strides[i], DT_I64, bi_argloc(a, 2), "a stride");
    if (!td->shape[i] || !td->strides[i]) return s->poison;
  }
  return desc_val(s, td);
}

/* ---- a tensordesc<...> kernel parameter ---------------------------------------------------------- */

static Value *hidden_arg(Spec *s, const char *name, const Type *t, int div, Loc sig_loc) {
  Value *v = ir_func_add_arg(s->m, s->f, name, t, div);
  if (s->f->nargs <= 64) s->arg_sig_loc[s->f->nargs - 1] = sig_loc;
  return v;
}

SVal *spec_desc_param(Spec *s, const char *name, const Type *elem, int rank, const int64_t *block,
                      Loc sig_loc) {
  IrContext *c = ctx(s);
  TensorDesc *td = ARENA_NEW(s->arena, TensorDesc);
  td->rank = rank;
  /* the runtime checks (tlc_tensor_desc_make) what these divisibilities promise:
   * a 16-byte aligned base, strides that are multiples of 16 bytes */
  int eb = dt_bits(elem->dtype) / 8;
  td->base = hidden_arg(s, arena_printf(s->arena, "%s.base", name), ty_ptr(c, elem), 16, sig_loc);
  for (int i = 0; i < rank; i++)
    td->shape[i] = hidden_arg(s, arena_printf(s->arena, "%s.shape%d", name, i), ty_scalar(c, DT_I32), 1, sig_loc);
  for (int i = 0; i + 1 < rank; i++)
    td->strides[i] = hidden_arg(s, arena_printf(s->arena, "%s.stride%d", name, i), ty_scalar(c, DT_I64),
                                eb < 16 ? 16 / eb : 1, sig_loc);
  td->strides[rank - 1] = irb_const_int(&s->b, ty_scalar(c, DT_I64), 1);
  for (int i = 0; i < rank; i++) td->block[i] = block[i];
  return desc_val(s, td);
}

/* ---- desc.load / desc.store ----------------------------------------------------------------------- */

static const TensorDesc *need_desc(Spec *s, SVal *d, Loc loc, const char *fn) {
  if (d->kind == SV_TENSORDESC) return d->td;
  spec_error(s, loc, "%s needs a tensor descriptor, not a %s", fn, sv_kind_name(d));
  return NULL;
}

/* The block pointer that `td` at `offs` (a list of rank integers) is. */
static bool as_block_ptr(Spec *s, const TensorDesc *td, SVal *offs, Loc loc, const char *fn, BlockPtr *bp) {
  if (offs->kind != SV_TUPLE || offs->n != td->rank) {
    spec_error(s, loc, "%s needs a list of %d offset%s (one per dim), not %s", fn, td->rank,
               td->rank == 1 ? "" : "s", offs->kind == SV_TUPLE ? arena_printf(s->arena, "%d", offs->n)
                                                                  : sv_text(s, offs));
    return false;
  }
  memset(bp, 0, sizeof *bp);
  bp->rank = td->rank;
  bp->base = td->base;
  for (int i = 0; i < td->rank; i++) {
    bp->offsets[i] = spec_int_scalar(s, offs->items[i], DT_I32, loc, "an offset");
    if (!bp->offsets[i]) return false;
    spec_at(s, loc);
    bp->shape[i] = spec_cast(s, td->shape[i], ty_scalar(ctx(s), DT_I64), loc);
    bp->strides[i] = td->strides[i];
    bp->block[i] = td->block[i];
    bp->order[i] = td->rank - 1 - i;
  }
  return true;
}

static const int ALL_DIMS[IR_MAX_RANK] = {0, 1, 2, 3};

/* How the call was written, for messages: desc.load(...) binds the receiver
 * without a location of its own. */
static const char *call_name(CallArgs *a, const char *method_name, const char *builtin) {
  return a->plocs[0].line ? builtin : method_name;
}

SVal *spec_desc_load(Spec *s, CallArgs *a, SVal **v) {
  const char *fn = call_name(a, "desc.load", "tl.load_tensor_descriptor");
  const TensorDesc *td = need_desc(s, v[0], bi_argloc(a, 0), fn);
  BlockPtr bp;
  if (!td || !as_block_ptr(s, td, v[1], bi_argloc(a, 1), fn, &bp)) return s->poison;
  Value *p, *mask;
  if (!spec_block_ptr_access(s, &bp, ALL_DIMS, td->rank, a->loc, &p, &mask)) return s->poison;
  const Type *elem = p->type->pointee;
  SVal *fill = td->pad_nan ? sv_float(s, NAN) : sv_int(s, 0);
  Value *other = bi_splat_constant(s, fill, elem, p->type->rank, p->type->shape, a->loc);
  if (!other) return s->poison;
  Value *ops[3] = {p, mask, other};
  spec_at(s, a->loc);
  return sv_tensor(s, irb_op(&s->b, OP_LOAD, ops, 3, ty_with_elem(ctx(s), p->type, elem))->results[0]);
}

static void shape_text(StrBuf *sb, int rank, const int64_t *shape) {
  sb_putc(sb, '[');
  for (int i = 0; i < rank; i++) sb_printf(sb, i ? ", %lld" : "%lld", (long long)shape[i]);
  sb_putc(sb, ']');
}

SVal *spec_desc_store(Spec *s, CallArgs *a, SVal **v) {
  const char *fn = call_name(a, "desc.store", "tl.store_tensor_descriptor");
  const TensorDesc *td = need_desc(s, v[0], bi_argloc(a, 0), fn);
  if (!td) return s->poison;
  SVal *val = v[2];
  bool same = val->kind == SV_TENSOR && val->v->type->rank == td->rank;
  for (int i = 0; same && i < td->rank; i++) same = val->v->type->shape[i] == td->block[i];
  if (!same) {
    StrBuf want, got;
    sb_init(&want), sb_init(&got);
    shape_text(&want, td->rank, td->block);
    if (val->kind == SV_TENSOR && val->v->type->rank) shape_text(&got, val->v->type->rank, val->v->type->shape);
    else sb_puts(&got, val->kind == SV_TENSOR ? "a scalar" : sv_text(s, val));
    spec_error(s, bi_argloc(a, 2), "the value stored through a tensor descriptor must have its block shape "
               "%s, not %s", want.data, got.data);
    sb_free(&want), sb_free(&got);
    return s->poison;
  }
  BlockPtr bp;
  if (!as_block_ptr(s, td, v[1], bi_argloc(a, 1), fn, &bp)) return s->poison;
  const Type *elem = td->base->type->pointee;
  Value *x = spec_cast(s, val->v, elem, bi_argloc(a, 2));
  if (!x) return s->poison;
  Value *p, *mask;
  if (!spec_block_ptr_access(s, &bp, ALL_DIMS, td->rank, a->loc, &p, &mask)) return s->poison;
  Value *ops[3] = {p, x, mask};
  spec_at(s, a->loc);
  irb_op(&s->b, OP_STORE, ops, 3, NULL);
  return s->none;
}

SVal *b_load_tensor_descriptor(Spec *s, SVal **v, CallArgs *a) { return spec_desc_load(s, a, v); }
SVal *b_store_tensor_descriptor(Spec *s, SVal **v, CallArgs *a) { return spec_desc_store(s, a, v); }
SVal *b_make_tensor_descriptor(Spec *s, SVal **v, CallArgs *a) { return spec_make_tensor_desc(s, a, v); }

/* ---- attributes ---------------------------------------------------------------------------------- */

const char *const spec_desc_attr_names[] = {"load", "store", "shape", "strides", "block_shape", "dtype",
                                            "block_type", NULL};

/* Triton's other descriptor methods: known, not lowered yet. */
static const char *const unsupported_methods[] = {"atomic_add", "atomic_min", "atomic_max", "atomic_and",
                                                  "atomic_or", "atomic_xor", "gather", "scatter", NULL};

static SVal *method(Spec *s, SVal *self, const char *builtin) {
  SVal *m = sv_new(s, SV_METHOD);
  m->builtin = spec_builtin_index(builtin);
  m->self = self;
  return m;
}

static SVal *value_tuple(Spec *s, Value *const *vals, int n) {
  SVal *items[IR_MAX_RANK];
  for (int i = 0; i < n; i++) items[i] = sv_tensor(s, vals[i]);
  return sv_tuple(s, items, n, false);
}

SVal *spec_desc_attr(Spec *s, SVal *d, const char *name, Loc loc, bool *reported) {
  const TensorDesc *td = d->td;
  const Type *elem = td->base->type->pointee;
  *reported = false;
  if (!strcmp(name, "load")) return method(s, d, "load_tensor_descriptor");
  if (!strcmp(name, "store")) return method(s, d, "store_tensor_descriptor");
  if (!strcmp(name, "shape")) return value_tuple(s, td->shape, td->rank);
  if (!strcmp(name, "strides")) return value_tuple(s, td->strides, td->rank);
  if (!strcmp(name, "dtype")) return sv_dtype(s, elem);
  if (!strcmp(name, "block_shape")) {
    SVal *items[IR_MAX_RANK];
    for (int i = 0; i < td->rank; i++) items[i] = sv_int(s, td->block[i]);
    return sv_tuple(s, items, td->rank, true);
  }
  if (!strcmp(name, "block_type")) {
    SVal *t = sv_new(s, SV_TYPEOBJ);
    t->type = ty_tensor(ctx(s), elem, td->rank, td->block, NULL);
    t->self = d;
    return t;
  }
  for (int i = 0; unsupported_methods[i]; i++)
    if (!strcmp(name, unsupported_methods[i])) {
      spec_error(s, loc, "tensor descriptor method '%s' is not supported yet", name);
      *reported = true;
      return s->poison;
    }
  return NULL;
}
