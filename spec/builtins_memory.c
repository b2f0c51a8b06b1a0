/* builtins_memory.c — builtins that touch global memory: tl.load and
 * tl.store (masks, other, block pointers with boundary_check and
 * padding_option, cache and eviction hints, volatile) and the atomics. */
#include "spec/builtins.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- memory ------------------------------------------------------------------------ */

static bool parse_cache(Spec *s, SVal *v, Loc loc, CacheMod *out) {
  const char *c = bi_str_arg(s, v, loc, "cache_modifier");
  if (!c) return false;
  static const struct { const char *n; CacheMod m; } names[] = {
      {"", CACHE_NONE}, {".ca", CACHE_CA}, {".cg", CACHE_CG}, {".cv", CACHE_CV},
      {".wb", CACHE_WB}, {".cs", CACHE_CS}, {".wt", CACHE_WT}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(c, names[i].n)) {
      *out = names[i].m;
      return true;
    }
  spec_error(s, loc, "unknown cache_modifier '%s' (expected '', '.ca', '.cg', '.cv', '.wb', "
             "'.cs' or '.wt')", c);
  return false;
}

static bool parse_evict(Spec *s, SVal *v, Loc loc, EvictPolicy *out) {
  const char *c = bi_str_arg(s, v, loc, "eviction_policy");
  if (!c) return false;
  if (!*c || !strcmp(c, "evict_normal")) *out = EVICT_NORMAL;
  else if (!strcmp(c, "evict_first")) *out = EVICT_FIRST;
  else if (!strcmp(c, "evict_last")) *out = EVICT_LAST;
  else {
    spec_error(s, loc, "unknown eviction_policy '%s' (expected 'evict_first' or 'evict_last')", c);
    return false;
  }
  return true;
}

static bool boundary_dims(Spec *s, SVal *v, Loc loc, int rank, int *dims, int *n) {
  *n = 0;
  if (!v || v->kind == SV_NONE) return true;
  int64_t d[IR_MAX_RANK];
  int cnt;
  if (v->kind == SV_TUPLE && v->n == 0) return true;
  if (!bi_const_ints(s, v, loc, "boundary_check", d, &cnt, IR_MAX_RANK)) return false;
  for (int i = 0; i < cnt; i++) {
    if (d[i] < 0 || d[i] >= rank) {
      spec_error(s, loc, "boundary_check dim %lld is out of range for a rank-%d block pointer",
                 (long long)d[i], rank);
      return false;
    }
    dims[(*n)++] = (int)d[i];
  }
  return true;
}

static Value *bool_ptr_as_i8(Spec *s, Value *p, Loc loc) {
  const Type *i8 = ty_scalar(bi_ctx(s), DT_I8);
  return spec_cast(s, p, ty_ptr(bi_ctx(s), i8), loc);
}

SVal *b_load(Spec *s, SVal **v, CallArgs *a) {
  SVal *ptr = v[0];
  if (is_poison(ptr)) return ptr;
  Loc loc = a->loc;
  CacheMod cache = CACHE_NONE;
  EvictPolicy evict = EVICT_NORMAL;
  if (!parse_cache(s, v[5], loc, &cache) || !parse_evict(s, v[6], loc, &evict)) return s->poison;
  bool vol = false;
  if (v[7] && !sv_truthy(s, v[7], loc, &vol)) {
    spec_error(s, loc, "volatile must be a constexpr bool");
    return s->poison;
  }
  Value *p, *mask = NULL, *other = NULL;
  const Type *elem;
  if (ptr->kind == SV_BLOCKPTR) {
    if ((v[1] && v[1]->kind != SV_NONE) || (v[2] && v[2]->kind != SV_NONE)) {
      spec_error(s, loc, "mask and other cannot be used with a block pointer; use boundary_check "
                 "and padding_option");
      return s->poison;
    }
    int dims[IR_MAX_RANK], nd;
    if (!boundary_dims(s, v[3], loc, ptr->bp->rank, dims, &nd)) return s->poison;
    const char *pad = bi_str_arg(s, v[4], loc, "padding_option");
    if (!pad) return s->poison;
    if (!spec_block_ptr_access(s, ptr->bp, dims, nd, loc, &p, &mask)) return s->poison;
    elem = p->type->pointee;
    if (*pad && strcmp(pad, "zero") && strcmp(pad, "nan")) {
      spec_error(s, loc, "padding_option must be 'zero' or 'nan', not '%s'", pad);
      return s->poison;
    }
    if (!strcmp(pad, "nan") && !dt_is_float(elem->dtype)) {
      spec_error(s, loc, "padding_option 'nan' needs a floating-point block");
      return s->poison;
    }
    if (mask) {
      SVal *fill = !strcmp(pad, "nan") ? sv_float(s, NAN) : sv_int(s, 0);
      other = bi_splat_constant(s, fill, elem, p->type->rank, p->type->shape, loc);
    }
  } else {
    if (ptr->kind != SV_TENSOR || ptr->v->type->dtype != DT_PTR) {
      spec_error(s, bi_argloc(a, 0), "tl.load needs a pointer or a block pointer, not a %s",
                 ptr->kind == SV_TENSOR ? "non-pointer tensor" : sv_kind_name(ptr));
      return s->poison;
    }
    if (v[3] && !(v[3]->kind == SV_TUPLE && v[3]->n == 0) && v[3]->kind != SV_NONE) {
      spec_error(s, loc, "boundary_check is only for block pointers; use mask with a pointer tensor");
      return s->poison;
    }
    p = ptr->v;
    if (v[1] && v[1]->kind != SV_NONE) {
      if (is_poison(v[1])) return s->poison;
      bool t;
      if (sv_truthy(s, v[1], loc, &t) && v[1]->kind != SV_TENSOR) {
        if (!t) {
          spec_error(s, bi_argloc(a, 1), "mask is the constant False: nothing would be loaded");
          return s->poison;
        }
      } else {
        mask = bi_need_tensor(s, v[1], bi_argloc(a, 1), "mask");
        if (!mask) return s->poison;
        if (dt_is_float(val_elem(s, mask)->dtype)) {
          spec_error(s, bi_argloc(a, 1), "mask must be a boolean tensor (a comparison), not floating point");
          return s->poison;
        }
        mask = spec_to_bool(s, mask, loc);
        if (!p->type->rank && mask->type->rank) p = spec_broadcast_to(s, p, mask->type->rank, mask->type->shape, loc);
        else mask = spec_broadcast_to_as(s, mask, p->type->rank, p->type->shape, bi_argloc(a, 1), "the mask",
                                         "the pointers'");
        if (!p || !mask) return s->poison;
      }
    }
    elem = p->type->pointee;
    if (v[2] && v[2]->kind != SV_NONE) {
      if (!mask) {
        if (!(v[1] && v[1]->kind != SV_NONE)) {
          spec_error(s, bi_argloc(a, 2), "'other' needs a 'mask' (it fills the masked-off elements)");
          return s->poison;
        }
      } else {
        const Type *oe = elem->dtype == DT_I1 ? ty_scalar(bi_ctx(s), DT_I8) : elem;
        other = sv_to_value_as(s, v[2], oe, bi_argloc(a, 2));
        if (other) other = spec_broadcast_to_as(s, other, p->type->rank, p->type->shape, bi_argloc(a, 2),
                                                "'other'", "the pointers'");
        if (!other) return s->poison;
      }
    }
  }
  bool is_bool = elem->dtype == DT_I1;
  if (is_bool) p = bool_ptr_as_i8(s, p, loc);
  const Type *rt = ty_with_elem(bi_ctx(s), p->type, p->type->pointee);
  Value *ops[3] = {p, mask, other};
  spec_at(s, loc);
  Op *op = irb_op(&s->b, OP_LOAD, ops, 3, rt);
  op->attr.cache = cache, op->attr.evict = evict, op->attr.is_volatile = vol;
  Value *r = op->results[0];
  if (is_bool) r = spec_to_bool(s, r, loc);
  return sv_tensor(s, r);
}

SVal *b_store(Spec *s, SVal **v, CallArgs *a) {
  SVal *ptr = v[0];
  if (is_poison(ptr) || is_poison(v[1])) return s->poison;
  Loc loc = a->loc;
  CacheMod cache = CACHE_NONE;
  EvictPolicy evict = EVICT_NORMAL;
  if (!parse_cache(s, v[4], loc, &cache) || !parse_evict(s, v[5], loc, &evict)) return s->poison;
  Value *p, *mask = NULL;
  if (ptr->kind == SV_BLOCKPTR) {
    if (v[2] && v[2]->kind != SV_NONE) {
      spec_error(s, loc, "mask cannot be used with a block pointer; use boundary_check");
      return s->poison;
    }
    int dims[IR_MAX_RANK], nd;
    if (!boundary_dims(s, v[3], loc, ptr->bp->rank, dims, &nd)) return s->poison;
    if (!spec_block_ptr_access(s, ptr->bp, dims, nd, loc, &p, &mask)) return s->poison;
    if (v[1]->kind == SV_TENSOR && v[1]->v->type->rank) {
      const Type *vt = v[1]->v->type;
      bool same = vt->rank == p->type->rank;
      for (int i = 0; same && i < vt->rank; i++) same = vt->shape[i] == p->type->shape[i];
      if (!same) {
        StrBuf sb;
        sb_init(&sb);
        ty_print(&sb, vt);
        spec_error(s, bi_argloc(a, 1), "the stored value (%s) does not have the block pointer's shape", sb.data);
        sb_free(&sb);
        return s->poison;
      }
    }
  } else {
    if (ptr->kind != SV_TENSOR || ptr->v->type->dtype != DT_PTR) {
      spec_error(s, bi_argloc(a, 0), "tl.store needs a pointer or a block pointer, not a %s",
                 ptr->kind == SV_TENSOR ? "non-pointer tensor" : sv_kind_name(ptr));
      return s->poison;
    }
    p = ptr->v;
    if (v[1]->kind == SV_TENSOR && v[1]->v->type->rank && !p->type->rank) {
      spec_error(s, bi_argloc(a, 1), "cannot store a tensor through a scalar pointer (the pointer "
                 "must be a tensor of pointers of the value's shape)");
      return s->poison;
    }
    if (v[2] && v[2]->kind != SV_NONE) {
      mask = bi_need_tensor(s, v[2], bi_argloc(a, 2), "mask");
      if (!mask) return s->poison;
      if (dt_is_float(val_elem(s, mask)->dtype)) {
        spec_error(s, bi_argloc(a, 2), "mask must be a boolean tensor (a comparison), not floating point");
        return s->poison;
      }
      mask = spec_to_bool(s, mask, loc);
      if (!p->type->rank && mask->type->rank) {
        spec_error(s, bi_argloc(a, 2), "a tensor mask needs a tensor of pointers");
        return s->poison;
      }
      mask = spec_broadcast_to_as(s, mask, p->type->rank, p->type->shape, bi_argloc(a, 2), "the mask",
                                  "the pointers'");
      if (!mask) return s->poison;
    }
  }
  const Type *elem = p->type->pointee;
  bool is_bool = elem->dtype == DT_I1;
  if (is_bool) {
    p = bool_ptr_as_i8(s, p, loc);
    elem = p->type->pointee;
  }
  if (v[1]->kind == SV_TENSOR && v[1]->v->type->dtype == DT_PTR && elem->dtype != DT_PTR) {
    spec_error(s, bi_argloc(a, 1), "cannot store a pointer into a non-pointer location");
    return s->poison;
  }
  Value *val = sv_to_value(s, v[1], bi_argloc(a, 1), "the stored value");
  if (!val) return s->poison;
  val = spec_cast(s, val, elem, bi_argloc(a, 1));
  if (val) val = spec_broadcast_to_as(s, val, p->type->rank, p->type->shape, bi_argloc(a, 1), "the stored value",
                                     "the pointers'");
  if (!val) return s->poison;
  Value *ops[3] = {p, val, mask};
  spec_at(s, loc);
  Op *op = irb_op(&s->b, OP_STORE, ops, 3, NULL);
  op->attr.cache = cache, op->attr.evict = evict;
  return s->none;
}

/* An atomic's sem= and scope= (Triton's defaults: acq_rel, gpu). */
static bool sem_scope_args(Spec *s, SVal *semv, SVal *scopev, Loc loc, MemSem *ms, MemScope *sc) {
  const char *sem = bi_str_arg(s, semv, loc, "sem"), *scope = bi_str_arg(s, scopev, loc, "scope");
  if (!sem || !scope) return false;
  *ms = SEM_ACQ_REL;
  if (!*sem || !strcmp(sem, "acq_rel")) *ms = SEM_ACQ_REL;
  else if (!strcmp(sem, "acquire")) *ms = SEM_ACQUIRE;
  else if (!strcmp(sem, "release")) *ms = SEM_RELEASE;
  else if (!strcmp(sem, "relaxed")) *ms = SEM_RELAXED;
  else {
    spec_error(s, loc, "unknown sem '%s' (acq_rel, acquire, release, relaxed)", sem);
    return false;
  }
  *sc = SCOPE_GPU;
  if (!*scope || !strcmp(scope, "gpu")) *sc = SCOPE_GPU;
  else if (!strcmp(scope, "cta")) *sc = SCOPE_CTA;
  else if (!strcmp(scope, "sys")) *sc = SCOPE_SYS;
  else {
    spec_error(s, loc, "unknown scope '%s' (gpu, cta, sys)", scope);
    return false;
  }
  return true;
}

static SVal *atomic(Spec *s, SVal **v, CallArgs *a, RmwKind kind, const char *name) {
  if (is_poison(v[0]) || is_poison(v[1])) return s->poison;
  if (v[0]->kind != SV_TENSOR || v[0]->v->type->dtype != DT_PTR) {
    spec_error(s, bi_argloc(a, 0), "tl.%s needs a pointer tensor, not a %s", name, sv_kind_name(v[0]));
    return s->poison;
  }
  Value *p = v[0]->v;
  const Type *elem = p->type->pointee;
  Loc loc = a->loc;
  if (kind == RMW_ADD && dt_is_float(elem->dtype)) kind = RMW_FADD;
  if (dt_is_unsigned(elem->dtype) && kind == RMW_MAX) kind = RMW_UMAX;
  if (dt_is_unsigned(elem->dtype) && kind == RMW_MIN) kind = RMW_UMIN;
  if ((kind == RMW_AND || kind == RMW_OR || kind == RMW_XOR) && !dt_is_int(elem->dtype)) {
    spec_error(s, loc, "tl.%s needs an integer pointer", name);
    return s->poison;
  }
  Value *val = bi_need_tensor(s, v[1], bi_argloc(a, 1), "val");
  if (!val) return s->poison;
  if (val->type->rank && !p->type->rank) {
    spec_error(s, bi_argloc(a, 1), "a tensor value needs a tensor of pointers");
    return s->poison;
  }
  val = spec_cast(s, val, elem, loc);
  val = val ? spec_broadcast_to(s, val, p->type->rank, p->type->shape, loc) : NULL;
  Value *mask = NULL;
  if (v[2] && v[2]->kind != SV_NONE) {
    mask = bi_need_tensor(s, v[2], bi_argloc(a, 2), "mask");
    if (mask) mask = spec_broadcast_to(s, spec_to_bool(s, mask, loc), p->type->rank, p->type->shape, loc);
    if (!mask) return s->poison;
  }
  if (!val) return s->poison;
  MemSem ms;
  MemScope sc;
  if (!sem_scope_args(s, v[3], v[4], loc, &ms, &sc)) return s->poison;
  Value *ops[3] = {p, val, mask};
  spec_at(s, loc);
  Op *op = irb_op(&s->b, OP_ATOMIC_RMW, ops, 3, val->type);
  op->attr.rmw = kind, op->attr.sem = ms, op->attr.scope = sc;
  return sv_tensor(s, op->results[0]);
}
SVal *b_atomic_add(Spec *s, SVal **v, CallArgs *a) { return atomic(s, v, a, RMW_ADD, "atomic_add"); }
SVal *b_atomic_max(Spec *s, SVal **v, CallArgs *a) { return atomic(s, v, a, RMW_MAX, "atomic_max"); }
SVal *b_atomic_min(Spec *s, SVal **v, CallArgs *a) { return atomic(s, v, a, RMW_MIN, "atomic_min"); }
SVal *b_atomic_and(Spec *s, SVal **v, CallArgs *a) { return atomic(s, v, a, RMW_AND, "atomic_and"); }
SVal *b_atomic_or(Spec *s, SVal **v, CallArgs *a) { return atomic(s, v, a, RMW_OR, "atomic_or"); }
SVal *b_atomic_xor(Spec *s, SVal **v, CallArgs *a) { return atomic(s, v, a, RMW_XOR, "atomic_xor"); }
SVal *b_atomic_xchg(Spec *s, SVal **v, CallArgs *a) { return atomic(s, v, a, RMW_XCHG, "atomic_xchg"); }

/* tl.atomic_cas(pointer, cmp, val, sem, scope): where *pointer == cmp,
 * store val; returns the old value.  No mask (as Triton). */
SVal *b_atomic_cas(Spec *s, SVal **v, CallArgs *a) {
  if (v[0]->kind != SV_TENSOR || v[0]->v->type->dtype != DT_PTR) {
    spec_error(s, bi_argloc(a, 0), "tl.atomic_cas needs a pointer or a tensor of pointers, not a %s",
               sv_kind_name(v[0]));
    return s->poison;
  }
  Value *p = v[0]->v;
  const Type *elem = p->type->pointee;
  Loc loc = a->loc;
  int bits = dt_bits(elem->dtype);
  if (elem->dtype == DT_PTR || elem->dtype == DT_I1 || (bits != 16 && bits != 32 && bits != 64)) {
    spec_error(s, bi_argloc(a, 0), "tl.atomic_cas needs 16-, 32- or 64-bit elements, not %s", dt_name(elem->dtype));
    return s->poison;
  }
  Value *ops[3] = {p, NULL, NULL};
  for (int i = 1; i <= 2; i++) {
    Value *x = bi_need_tensor(s, v[i], bi_argloc(a, i), i == 1 ? "cmp" : "val");
    if (!x) return s->poison;
    if (x->type->rank && !p->type->rank) {
      spec_error(s, bi_argloc(a, i), "a tensor %s needs a tensor of pointers", i == 1 ? "cmp" : "val");
      return s->poison;
    }
    x = spec_cast(s, x, elem, bi_argloc(a, i));
    x = x ? spec_broadcast_to_as(s, x, p->type->rank, p->type->shape, bi_argloc(a, i), i == 1 ? "cmp" : "val",
                                 "the pointers'")
          : NULL;
    if (!x) return s->poison;
    ops[i] = x;
  }
  MemSem ms;
  MemScope sc;
  if (!sem_scope_args(s, v[3], v[4], loc, &ms, &sc)) return s->poison;
  spec_at(s, loc);
  Op *op = irb_op(&s->b, OP_ATOMIC_CAS, ops, 3, ops[1]->type);
  op->attr.sem = ms, op->attr.scope = sc;
  return sv_tensor(s, op->results[0]);
}

SVal *b_make_block_ptr(Spec *s, SVal **v, CallArgs *a) { return spec_make_block_ptr(s, a, v); }
SVal *b_advance(Spec *s, SVal **v, CallArgs *a) { return spec_advance(s, v[0], v[1], a->loc); }
