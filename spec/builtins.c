/* builtins.c — the Triton language's builtins (tl.*, tl.math.*,
 * triton.*), tensor attributes and methods, and the Python builtins a kernel
 * may use (range, float, min, ...).
 *
 * One table lists every builtin with its parameter list in Python form, so
 * positional and keyword arguments bind the same way and unknown keywords or
 * missing arguments get precise messages.  Handlers receive the bound
 * arguments (NULL where an optional one was not given). */
#include "spec/spec_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef SVal *(*BuiltinFn)(Spec *s, SVal **argv, CallArgs *a);

typedef struct Builtin {
  const char *name;    /* name in messages and lookups ("load", "math.exp", "py.range") */
  const char *params;  /* "pointer,mask=,other=": '=' optional, '*' varargs */
  BuiltinFn fn;
  int opkind;          /* for the unary-math family */
} Builtin;

#define MAXP 12

/* ---- helpers ---------------------------------------------------------------- */

static Value *need_tensor(Spec *s, SVal *v, Loc loc, const char *what) {
  if (is_poison(v)) return NULL;
  return sv_to_value(s, v, loc, what);
}

static Loc argloc(CallArgs *a, int i) { return i < MAXP && a->plocs[i].line ? a->plocs[i] : a->loc; }

static bool const_ints(Spec *s, SVal *v, Loc loc, const char *what, int64_t *out, int *n, int max) {
  if (is_poison(v)) return false;
  if (v->kind == SV_INT || v->kind == SV_BOOL) {
    out[0] = v->i;
    *n = 1;
    return true;
  }
  if (v->kind != SV_TUPLE) {
    return sv_const_int(s, v, loc, what, out);
  }
  if (v->n > max) {
    spec_error(s, loc, "%s has %d entries; at most %d are supported", what, v->n, max);
    return false;
  }
  for (int i = 0; i < v->n; i++)
    if (!sv_const_int(s, v->items[i], loc, what, &out[i])) return false;
  *n = v->n;
  return true;
}

static const char *str_arg(Spec *s, SVal *v, Loc loc, const char *what) {
  if (!v || v->kind == SV_NONE) return "";
  if (v->kind != SV_STR) {
    spec_error(s, loc, "%s must be a string, not a %s", what, sv_kind_name(v));
    return NULL;
  }
  return v->s;
}

static const Type *dtype_arg(Spec *s, SVal *v, Loc loc, const char *what) {
  if (is_poison(v)) return NULL;
  if (v->kind == SV_DTYPE) return v->type;
  if (v->kind == SV_TYPEOBJ) return ty_elem(s->m->ctx, v->type);
  spec_error(s, loc, "%s must be a dtype such as tl.float32, not a %s", what, sv_kind_name(v));
  return NULL;
}

static int norm_axis(Spec *s, int64_t axis, int rank, Loc loc) {
  if (axis < -rank || axis >= rank) {
    spec_error(s, loc, "axis %lld is out of range for a tensor of rank %d", (long long)axis, rank);
    return -1;
  }
  return (int)(axis < 0 ? axis + rank : axis);
}

static IrContext *ctx(Spec *s) { return s->m->ctx; }

/* ---- program structure -------------------------------------------------------- */

static SVal *b_program_id(Spec *s, SVal **v, CallArgs *a, bool num) {
  int64_t axis;
  if (!sv_const_int(s, v[0], argloc(a, 0), "axis", &axis)) return s->poison;
  if (axis < 0 || axis > 2) {
    spec_error(s, argloc(a, 0), "axis must be 0, 1 or 2, got %lld", (long long)axis);
    return s->poison;
  }
  spec_at(s, a->loc);
  Op *op = irb_op(&s->b, num ? OP_NUM_PROGRAMS : OP_PROGRAM_ID, NULL, 0, ty_scalar(ctx(s), DT_I32));
  op->attr.axis = (int)axis;
  return sv_tensor(s, op->results[0]);
}
static SVal *b_pid(Spec *s, SVal **v, CallArgs *a) { return b_program_id(s, v, a, false); }
static SVal *b_nprog(Spec *s, SVal **v, CallArgs *a) { return b_program_id(s, v, a, true); }

static SVal *b_arange(Spec *s, SVal **v, CallArgs *a) {
  int64_t lo, hi;
  if (!sv_const_int(s, v[0], argloc(a, 0), "the start of tl.arange", &lo) ||
      !sv_const_int(s, v[1], argloc(a, 1), "the end of tl.arange", &hi))
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

static bool shape_arg(Spec *s, SVal *v, Loc loc, int64_t *shape, int *rank) {
  if (!const_ints(s, v, loc, "shape", shape, rank, IR_MAX_RANK)) return false;
  return spec_check_block_shape(s, *rank, shape, loc);
}

static Value *splat_constant(Spec *s, SVal *value, const Type *elem, int rank, const int64_t *shape,
                             Loc loc) {
  spec_at(s, loc);
  const Type *t = rank ? ty_tensor(ctx(s), elem, rank, shape, NULL) : elem;
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

static SVal *b_zeros(Spec *s, SVal **v, CallArgs *a) {
  int64_t shape[IR_MAX_RANK];
  int rank;
  if (!shape_arg(s, v[0], argloc(a, 0), shape, &rank)) return s->poison;
  const Type *dt = dtype_arg(s, v[1], argloc(a, 1), "dtype");
  if (!dt) return s->poison;
  return sv_tensor(s, splat_constant(s, sv_int(s, 0), dt, rank, shape, a->loc));
}

static SVal *b_full(Spec *s, SVal **v, CallArgs *a) {
  int64_t shape[IR_MAX_RANK];
  int rank;
  if (!shape_arg(s, v[0], argloc(a, 0), shape, &rank)) return s->poison;
  const Type *dt = dtype_arg(s, v[2], argloc(a, 2), "dtype");
  if (!dt || is_poison(v[1])) return s->poison;
  return sv_tensor(s, splat_constant(s, v[1], dt, rank, shape, a->loc));
}

static SVal *b_zeros_like(Spec *s, SVal **v, CallArgs *a) {
  Value *x = need_tensor(s, v[0], argloc(a, 0), "input");
  if (!x) return s->poison;
  const Type *dt = v[1] ? dtype_arg(s, v[1], argloc(a, 1), "dtype") : val_elem(s, x);
  if (!dt) return s->poison;
  return sv_tensor(s, splat_constant(s, sv_int(s, 0), dt, x->type->rank, x->type->shape, a->loc));
}

static SVal *b_full_like(Spec *s, SVal **v, CallArgs *a) {
  Value *x = need_tensor(s, v[0], argloc(a, 0), "input");
  if (!x || is_poison(v[1])) return s->poison;
  const Type *dt = v[2] ? dtype_arg(s, v[2], argloc(a, 2), "dtype") : val_elem(s, x);
  if (!dt) return s->poison;
  return sv_tensor(s, splat_constant(s, v[1], dt, x->type->rank, x->type->shape, a->loc));
}

/* ---- memory ------------------------------------------------------------------------ */

static bool parse_cache(Spec *s, SVal *v, Loc loc, CacheMod *out) {
  const char *c = str_arg(s, v, loc, "cache_modifier");
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
  const char *c = str_arg(s, v, loc, "eviction_policy");
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
  if (!const_ints(s, v, loc, "boundary_check", d, &cnt, IR_MAX_RANK)) return false;
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
  const Type *i8 = ty_scalar(ctx(s), DT_I8);
  return spec_cast(s, p, ty_ptr(ctx(s), i8), loc);
}

static SVal *b_load(Spec *s, SVal **v, CallArgs *a) {
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
    const char *pad = str_arg(s, v[4], loc, "padding_option");
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
      other = splat_constant(s, fill, elem, p->type->rank, p->type->shape, loc);
    }
  } else {
    if (ptr->kind != SV_TENSOR || ptr->v->type->dtype != DT_PTR) {
      spec_error(s, argloc(a, 0), "tl.load needs a pointer or a block pointer, not a %s",
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
          spec_error(s, argloc(a, 1), "mask is the constant False: nothing would be loaded");
          return s->poison;
        }
      } else {
        mask = need_tensor(s, v[1], argloc(a, 1), "mask");
        if (!mask) return s->poison;
        if (dt_is_float(val_elem(s, mask)->dtype)) {
          spec_error(s, argloc(a, 1), "mask must be a boolean tensor (a comparison), not floating point");
          return s->poison;
        }
        mask = spec_to_bool(s, mask, loc);
        if (!p->type->rank && mask->type->rank) p = spec_broadcast_to(s, p, mask->type->rank, mask->type->shape, loc);
        else mask = spec_broadcast_to_as(s, mask, p->type->rank, p->type->shape, argloc(a, 1), "the mask",
                                         "the pointers'");
        if (!p || !mask) return s->poison;
      }
    }
    elem = p->type->pointee;
    if (v[2] && v[2]->kind != SV_NONE) {
      if (!mask) {
        if (!(v[1] && v[1]->kind != SV_NONE)) {
          spec_error(s, argloc(a, 2), "'other' needs a 'mask' (it fills the masked-off elements)");
          return s->poison;
        }
      } else {
        const Type *oe = elem->dtype == DT_I1 ? ty_scalar(ctx(s), DT_I8) : elem;
        other = sv_to_value_as(s, v[2], oe, argloc(a, 2));
        if (other) other = spec_broadcast_to_as(s, other, p->type->rank, p->type->shape, argloc(a, 2),
                                                "'other'", "the pointers'");
        if (!other) return s->poison;
      }
    }
  }
  bool is_bool = elem->dtype == DT_I1;
  if (is_bool) p = bool_ptr_as_i8(s, p, loc);
  const Type *rt = ty_with_elem(ctx(s), p->type, p->type->pointee);
  Value *ops[3] = {p, mask, other};
  spec_at(s, loc);
  Op *op = irb_op(&s->b, OP_LOAD, ops, 3, rt);
  op->attr.cache = cache, op->attr.evict = evict, op->attr.is_volatile = vol;
  Value *r = op->results[0];
  if (is_bool) r = spec_to_bool(s, r, loc);
  return sv_tensor(s, r);
}

static SVal *b_store(Spec *s, SVal **v, CallArgs *a) {
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
        spec_error(s, argloc(a, 1), "the stored value (%s) does not have the block pointer's shape", sb.data);
        sb_free(&sb);
        return s->poison;
      }
    }
  } else {
    if (ptr->kind != SV_TENSOR || ptr->v->type->dtype != DT_PTR) {
      spec_error(s, argloc(a, 0), "tl.store needs a pointer or a block pointer, not a %s",
                 ptr->kind == SV_TENSOR ? "non-pointer tensor" : sv_kind_name(ptr));
      return s->poison;
    }
    p = ptr->v;
    if (v[1]->kind == SV_TENSOR && v[1]->v->type->rank && !p->type->rank) {
      spec_error(s, argloc(a, 1), "cannot store a tensor through a scalar pointer (the pointer "
                 "must be a tensor of pointers of the value's shape)");
      return s->poison;
    }
    if (v[2] && v[2]->kind != SV_NONE) {
      mask = need_tensor(s, v[2], argloc(a, 2), "mask");
      if (!mask) return s->poison;
      if (dt_is_float(val_elem(s, mask)->dtype)) {
        spec_error(s, argloc(a, 2), "mask must be a boolean tensor (a comparison), not floating point");
        return s->poison;
      }
      mask = spec_to_bool(s, mask, loc);
      if (!p->type->rank && mask->type->rank) {
        spec_error(s, argloc(a, 2), "a tensor mask needs a tensor of pointers");
        return s->poison;
      }
      mask = spec_broadcast_to_as(s, mask, p->type->rank, p->type->shape, argloc(a, 2), "the mask",
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
    spec_error(s, argloc(a, 1), "cannot store a pointer into a non-pointer location");
    return s->poison;
  }
  Value *val = sv_to_value(s, v[1], argloc(a, 1), "the stored value");
  if (!val) return s->poison;
  val = spec_cast(s, val, elem, argloc(a, 1));
  if (val) val = spec_broadcast_to_as(s, val, p->type->rank, p->type->shape, argloc(a, 1), "the stored value",
                                     "the pointers'");
  if (!val) return s->poison;
  Value *ops[3] = {p, val, mask};
  spec_at(s, loc);
  Op *op = irb_op(&s->b, OP_STORE, ops, 3, NULL);
  op->attr.cache = cache, op->attr.evict = evict;
  return s->none;
}

static SVal *atomic(Spec *s, SVal **v, CallArgs *a, RmwKind kind, const char *name) {
  if (is_poison(v[0]) || is_poison(v[1])) return s->poison;
  if (v[0]->kind != SV_TENSOR || v[0]->v->type->dtype != DT_PTR) {
    spec_error(s, argloc(a, 0), "tl.%s needs a pointer tensor, not a %s", name, sv_kind_name(v[0]));
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
  Value *val = need_tensor(s, v[1], argloc(a, 1), "val");
  if (!val) return s->poison;
  if (val->type->rank && !p->type->rank) {
    spec_error(s, argloc(a, 1), "a tensor value needs a tensor of pointers");
    return s->poison;
  }
  val = spec_cast(s, val, elem, loc);
  val = val ? spec_broadcast_to(s, val, p->type->rank, p->type->shape, loc) : NULL;
  Value *mask = NULL;
  if (v[2] && v[2]->kind != SV_NONE) {
    mask = need_tensor(s, v[2], argloc(a, 2), "mask");
    if (mask) mask = spec_broadcast_to(s, spec_to_bool(s, mask, loc), p->type->rank, p->type->shape, loc);
    if (!mask) return s->poison;
  }
  if (!val) return s->poison;
  const char *sem = str_arg(s, v[3], loc, "sem"), *scope = str_arg(s, v[4], loc, "scope");
  if (!sem || !scope) return s->poison;
  MemSem ms = SEM_ACQ_REL;
  if (!*sem || !strcmp(sem, "acq_rel")) ms = SEM_ACQ_REL;
  else if (!strcmp(sem, "acquire")) ms = SEM_ACQUIRE;
  else if (!strcmp(sem, "release")) ms = SEM_RELEASE;
  else if (!strcmp(sem, "relaxed")) ms = SEM_RELAXED;
  else {
    spec_error(s, loc, "unknown sem '%s' (acq_rel, acquire, release, relaxed)", sem);
    return s->poison;
  }
  MemScope sc = SCOPE_GPU;
  if (!*scope || !strcmp(scope, "gpu")) sc = SCOPE_GPU;
  else if (!strcmp(scope, "cta")) sc = SCOPE_CTA;
  else if (!strcmp(scope, "sys")) sc = SCOPE_SYS;
  else {
    spec_error(s, loc, "unknown scope '%s' (gpu, cta, sys)", scope);
    return s->poison;
  }
  Value *ops[3] = {p, val, mask};
  spec_at(s, loc);
  Op *op = irb_op(&s->b, OP_ATOMIC_RMW, ops, 3, val->type);
  op->attr.rmw = kind, op->attr.sem = ms, op->attr.scope = sc;
  return sv_tensor(s, op->results[0]);
}
static SVal *b_atomic_add(Spec *s, SVal **v, CallArgs *a) { return atomic(s, v, a, RMW_ADD, "atomic_add"); }
static SVal *b_atomic_max(Spec *s, SVal **v, CallArgs *a) { return atomic(s, v, a, RMW_MAX, "atomic_max"); }
static SVal *b_atomic_min(Spec *s, SVal **v, CallArgs *a) { return atomic(s, v, a, RMW_MIN, "atomic_min"); }
static SVal *b_atomic_and(Spec *s, SVal **v, CallArgs *a) { return atomic(s, v, a, RMW_AND, "atomic_and"); }
static SVal *b_atomic_or(Spec *s, SVal **v, CallArgs *a) { return atomic(s, v, a, RMW_OR, "atomic_or"); }
static SVal *b_atomic_xor(Spec *s, SVal **v, CallArgs *a) { return atomic(s, v, a, RMW_XOR, "atomic_xor"); }
static SVal *b_atomic_xchg(Spec *s, SVal **v, CallArgs *a) { return atomic(s, v, a, RMW_XCHG, "atomic_xchg"); }

static SVal *b_make_block_ptr(Spec *s, SVal **v, CallArgs *a) { return spec_make_block_ptr(s, a, v); }
static SVal *b_advance(Spec *s, SVal **v, CallArgs *a) { return spec_advance(s, v[0], v[1], a->loc); }

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
  Op *op = irb_op(&s->b, OP_TRANS, &x, 1, ty_tensor(ctx(s), val_elem(s, x), rank, shape, NULL));
  for (int i = 0; i < n; i++) op->attr.perm[i] = (int)perm[i];
  return sv_tensor(s, op->results[0]);
}

static bool dims_from(Spec *s, SVal *v, Loc loc, int64_t *out, int *n) {
  /* varargs tuple: either (d0, d1, ...) or ((d0, d1, ...),) */
  if (v->kind == SV_TUPLE && v->n == 1 && v->items[0]->kind == SV_TUPLE) v = v->items[0];
  return const_ints(s, v, loc, "dims", out, n, IR_MAX_RANK);
}

static SVal *b_trans(Spec *s, SVal **v, CallArgs *a) {
  Value *x = need_tensor(s, v[0], argloc(a, 0), "input");
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

static SVal *b_permute(Spec *s, SVal **v, CallArgs *a) {
  Value *x = need_tensor(s, v[0], argloc(a, 0), "input");
  int64_t perm[IR_MAX_RANK];
  int n;
  if (!x || !dims_from(s, v[1], a->loc, perm, &n)) return s->poison;
  return permute(s, x, perm, n, a->loc);
}

static SVal *b_expand_dims(Spec *s, SVal **v, CallArgs *a) {
  Value *x = need_tensor(s, v[0], argloc(a, 0), "input");
  int64_t axes[IR_MAX_RANK];
  int n;
  if (!x || !const_ints(s, v[1], argloc(a, 1), "axis", axes, &n, IR_MAX_RANK)) return s->poison;
  int rank = x->type->rank + n;
  if (rank > IR_MAX_RANK) {
    spec_error(s, a->loc, "expand_dims gives rank %d; at most %d is supported", rank, IR_MAX_RANK);
    return s->poison;
  }
  int kinds_axes[IR_MAX_RANK];
  for (int i = 0; i < n; i++) {
    int ax = norm_axis(s, axes[i], rank, argloc(a, 1));
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
      x = irb_splat(&s->b, x, ty_tensor(ctx(s), val_elem(s, x), 1, &one, NULL));
    } else {
      x = irb_expand_dims(&s->b, x, kinds_axes[i]);
    }
  }
  return sv_tensor(s, x);
}

static SVal *b_broadcast_to(Spec *s, SVal **v, CallArgs *a) {
  Value *x = need_tensor(s, v[0], argloc(a, 0), "input");
  int64_t shape[IR_MAX_RANK];
  int n;
  if (!x || !dims_from(s, v[1], a->loc, shape, &n)) return s->poison;
  if (!spec_check_block_shape(s, n, shape, a->loc)) return s->poison;
  Value *r = spec_broadcast_to(s, x, n, shape, a->loc);
  return r ? sv_tensor(s, r) : s->poison;
}

static SVal *b_broadcast(Spec *s, SVal **v, CallArgs *a) {
  Value *x = need_tensor(s, v[0], argloc(a, 0), "input");
  Value *y = need_tensor(s, v[1], argloc(a, 1), "other");
  if (!x || !y || !spec_broadcast_pair(s, &x, &y, a->loc, "broadcast")) return s->poison;
  SVal *items[2] = {sv_tensor(s, x), sv_tensor(s, y)};
  return sv_tuple(s, items, 2, false);
}

static SVal *b_reshape(Spec *s, SVal **v, CallArgs *a) {
  Value *x = need_tensor(s, v[0], argloc(a, 0), "input");
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
  const Type *t = ty_tensor(ctx(s), val_elem(s, x), n, shape, NULL);
  if (x->type->rank == 0) return sv_tensor(s, irb_splat(&s->b, x, t));
  return sv_tensor(s, irb_op(&s->b, OP_RESHAPE, &x, 1, t)->results[0]);
}

/* ---- elementwise ------------------------------------------------------------------------------ */

static SVal *b_where(Spec *s, SVal **v, CallArgs *a) {
  if (is_poison(v[0]) || is_poison(v[1]) || is_poison(v[2])) return s->poison;
  Value *c = need_tensor(s, v[0], argloc(a, 0), "condition");
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

static SVal *minmax(Spec *s, SVal **v, CallArgs *a, OpKind k) {
  Value *x, *y;
  if (is_poison(v[0]) || is_poison(v[1])) return s->poison;
  if (sv_is_number(v[0]) && sv_is_number(v[1])) {
    SVal *lt = spec_compare(s, AOP_LT, v[0], v[1], a->loc);
    return (k == OP_MIN) == (lt->i != 0) ? v[0] : v[1];
  }
  if (!spec_arith_operands(s, v[0], v[1], false, a->loc, k == OP_MIN ? "minimum" : "maximum", &x, &y))
    return s->poison;
  spec_at(s, a->loc);
  Value *r = irb_binary(&s->b, k, x, y);
  if (v[2] && v[2]->kind != SV_NONE) {
    bool t;
    if (v[2]->kind == SV_STR) r->def->attr.propagate_nan = !strcmp(v[2]->s, "all");
    else if (sv_truthy(s, v[2], a->loc, &t)) r->def->attr.propagate_nan = t;
  }
  return sv_tensor(s, r);
}
static SVal *b_maximum(Spec *s, SVal **v, CallArgs *a) { return minmax(s, v, a, OP_MAX); }
static SVal *b_minimum(Spec *s, SVal **v, CallArgs *a) { return minmax(s, v, a, OP_MIN); }

static SVal *b_clamp(Spec *s, SVal **v, CallArgs *a) {
  Value *x, *lo, *hi;
  if (!spec_arith_operands(s, v[0], v[1], false, a->loc, "clamp", &x, &lo)) return s->poison;
  if (!spec_arith_operands(s, sv_tensor(s, x), v[2], false, a->loc, "clamp", &x, &hi)) return s->poison;
  if (!dt_is_float(val_elem(s, x)->dtype)) {
    spec_error(s, a->loc, "tl.clamp needs floating-point operands");
    return s->poison;
  }
  if (!spec_broadcast_pair(s, &x, &lo, a->loc, "clamp") || !spec_broadcast_pair(s, &x, &hi, a->loc, "clamp"))
    return s->poison;
  Value *ops[3] = {x, lo, hi};
  spec_at(s, a->loc);
  return sv_tensor(s, irb_op(&s->b, OP_CLAMP, ops, 3, x->type)->results[0]);
}

/* Unary math: operand materialized, must be floating point (abs also takes ints). */
static SVal *math1(Spec *s, SVal **v, CallArgs *a, OpKind k, const char *name, bool precise) {
  Value *x = need_tensor(s, v[0], argloc(a, 0), "the operand");
  if (!x) return s->poison;
  const Type *e = val_elem(s, x);
  if (k != OP_ABS && !dt_is_float(e->dtype)) {
    spec_error(s, argloc(a, 0), "tl.%s needs a floating-point operand, not %s (cast it with "
               ".to(tl.float32))", name, dt_name(e->dtype));
    return s->poison;
  }
  if (e->dtype == DT_PTR) {
    spec_error(s, argloc(a, 0), "tl.%s of a pointer", name);
    return s->poison;
  }
  spec_at(s, a->loc);
  Value *r = irb_unary(&s->b, k, x);
  r->def->attr.precise = precise;
  return sv_tensor(s, r);
}
#define MATH1(fn, kind, nm, precise) \
  static SVal *fn(Spec *s, SVal **v, CallArgs *a) { return math1(s, v, a, kind, nm, precise); }
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
static SVal *b_fdiv(Spec *s, SVal **v, CallArgs *a) { return fdiv_impl(s, v, a, false); }
static SVal *b_div_rn(Spec *s, SVal **v, CallArgs *a) { return fdiv_impl(s, v, a, true); }

static SVal *b_fma(Spec *s, SVal **v, CallArgs *a) {
  Value *x, *y, *z;
  if (!spec_arith_operands(s, v[0], v[1], false, a->loc, "fma", &x, &y) ||
      !spec_arith_operands(s, sv_tensor(s, x), v[2], false, a->loc, "fma", &x, &z) ||
      !spec_broadcast_pair(s, &x, &y, a->loc, "fma") || !spec_broadcast_pair(s, &y, &z, a->loc, "fma") ||
      !spec_broadcast_pair(s, &x, &z, a->loc, "fma"))
    return s->poison;
  if (y->type != x->type) y = spec_cast(s, y, val_elem(s, x), a->loc);
  Value *ops[3] = {x, y, z};
  spec_at(s, a->loc);
  return sv_tensor(s, irb_op(&s->b, OP_FMA, ops, 3, x->type)->results[0]);
}

static SVal *b_umulhi(Spec *s, SVal **v, CallArgs *a) {
  Value *x, *y;
  if (!spec_arith_operands(s, v[0], v[1], false, a->loc, "umulhi", &x, &y)) return s->poison;
  if (!dt_is_int(val_elem(s, x)->dtype)) {
    spec_error(s, a->loc, "tl.umulhi needs integer operands");
    return s->poison;
  }
  spec_at(s, a->loc);
  return sv_tensor(s, irb_binary(&s->b, OP_UMULHI, x, y));
}

static SVal *b_cast(Spec *s, SVal **v, CallArgs *a) {
  if (is_poison(v[0])) return s->poison;
  const Type *dt = dtype_arg(s, v[1], argloc(a, 1), "dtype");
  if (!dt) return s->poison;
  bool bitcast = false;
  if (v[3]) sv_truthy(s, v[3], a->loc, &bitcast);
  if (v[2] && v[2]->kind != SV_NONE) {
    const char *r = str_arg(s, v[2], a->loc, "fp_downcast_rounding");
    if (!r) return s->poison;
    if (strcmp(r, "rtne") && strcmp(r, "rtz")) {
      spec_error(s, a->loc, "fp_downcast_rounding must be 'rtne' or 'rtz', not '%s'", r);
      return s->poison;
    }
  }
  if (v[0]->kind == SV_BLOCKPTR) {
    spec_error(s, argloc(a, 0), "cannot cast a block pointer");
    return s->poison;
  }
  Value *x = need_tensor(s, v[0], argloc(a, 0), "the value to cast");
  if (!x) return s->poison;
  Value *r = bitcast ? spec_bitcast(s, x, dt, a->loc) : spec_cast(s, x, dt, a->loc);
  return r ? sv_tensor(s, r) : s->poison;
}

/* ---- reductions ---------------------------------------------------------------------------------- */

static Value *reduce_axis(Spec *s, Value *x, int axis, CombineKind k, Loc loc, Value **index_out) {
  const Type *t = x->type;
  int64_t shape[IR_MAX_RANK];
  for (int i = 0, j = 0; i < t->rank; i++)
    if (i != axis) shape[j++] = t->shape[i];
  const Type *elem = val_elem(s, x);
  const Type *rt = ty_tensor(ctx(s), elem, t->rank - 1, shape, NULL);
  spec_at(s, loc);
  if (k == COMBINE_ARGMAX || k == COMBINE_ARGMIN) {
    /* (value, index) pairs: the index is arange along the axis */
    Value *idx = irb_arange(&s->b, 0, t->shape[axis]);
    for (int d = 0; d < t->rank; d++)
      if (d != axis) idx = irb_expand_dims(&s->b, idx, d);
    idx = irb_broadcast(&s->b, idx, ty_with_elem(ctx(s), t, ty_scalar(ctx(s), DT_I32)));
    Value *ops[2] = {x, idx};
    const Type *rts[2] = {rt, ty_tensor(ctx(s), ty_scalar(ctx(s), DT_I32), t->rank - 1, shape, NULL)};
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

static SVal *reduce(Spec *s, SVal **v, CallArgs *a, CombineKind k, const char *name, bool has_dtype) {
  Value *x = need_tensor(s, v[0], argloc(a, 0), "input");
  if (!x) return s->poison;
  if (x->type->rank == 0) {
    spec_error(s, argloc(a, 0), "tl.%s needs a tensor, not a scalar", name);
    return s->poison;
  }
  const Type *e = val_elem(s, x);
  if (e->dtype == DT_PTR) {
    spec_error(s, argloc(a, 0), "tl.%s of pointers is not supported", name);
    return s->poison;
  }
  if ((k == COMBINE_XOR || k == COMBINE_AND || k == COMBINE_OR) && !dt_is_int(e->dtype)) {
    spec_error(s, argloc(a, 0), "tl.%s needs an integer tensor", name);
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
    const Type *dt = dtype_arg(s, v[2], a->loc, "dtype");
    if (!dt) return s->poison;
    x = spec_cast(s, x, dt, a->loc);
  } else if (k == COMBINE_SUM && dt_is_int(e->dtype) && dt_bits(e->dtype) < 32) {
    x = spec_cast(s, x, ty_scalar(ctx(s), dt_is_unsigned(e->dtype) && e->dtype != DT_I1 ? DT_U32 : DT_I32), a->loc);
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
      int64_t ones[IR_MAX_RANK] = {1, 1, 1, 1};
      x = irb_splat(&s->b, x, ty_tensor(ctx(s), val_elem(s, x), rank, ones, NULL));
    }
    return sv_tensor(s, x);
  }
  int64_t ax;
  if (!sv_const_int(s, v[1], argloc(a, 1), "axis", &ax)) return s->poison;
  int axis = norm_axis(s, ax, rank, argloc(a, 1));
  if (axis < 0) return s->poison;
  Value *r = reduce_axis(s, x, axis, k, a->loc, &idx);
  if (keep) {
    spec_at(s, a->loc);
    if (r->type->rank == 0) {
      int64_t one = 1;
      r = irb_splat(&s->b, r, ty_tensor(ctx(s), val_elem(s, r), 1, &one, NULL));
      if (idx) idx = irb_splat(&s->b, idx, ty_tensor(ctx(s), val_elem(s, idx), 1, &one, NULL));
    } else {
      r = irb_expand_dims(&s->b, r, axis);
      if (idx) idx = irb_expand_dims(&s->b, idx, axis);
    }
  }
  return sv_tensor(s, idx && (k == COMBINE_ARGMAX || k == COMBINE_ARGMIN) ? idx : r);
}
static SVal *b_sum(Spec *s, SVal **v, CallArgs *a) { return reduce(s, v, a, COMBINE_SUM, "sum", true); }
static SVal *b_xor_sum(Spec *s, SVal **v, CallArgs *a) { return reduce(s, v, a, COMBINE_XOR, "xor_sum", false); }
static SVal *b_argmax(Spec *s, SVal **v, CallArgs *a) {
  SVal *args[3] = {v[0], v[1], v[3]};
  return reduce(s, args, a, COMBINE_ARGMAX, "argmax", false);
}
static SVal *b_argmin(Spec *s, SVal **v, CallArgs *a) {
  SVal *args[3] = {v[0], v[1], v[3]};
  return reduce(s, args, a, COMBINE_ARGMIN, "argmin", false);
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
static SVal *b_max(Spec *s, SVal **v, CallArgs *a) { return maxmin_reduce(s, v, a, true); }
static SVal *b_min(Spec *s, SVal **v, CallArgs *a) { return maxmin_reduce(s, v, a, false); }

static SVal *b_softmax(Spec *s, SVal **v, CallArgs *a) {
  Value *x = need_tensor(s, v[0], argloc(a, 0), "input");
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

static SVal *b_dot(Spec *s, SVal **v, CallArgs *a) {
  Value *x = need_tensor(s, v[0], argloc(a, 0), "input");
  Value *y = need_tensor(s, v[1], argloc(a, 1), "other");
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
  DotPrecision prec = PREC_TF32;
  if (v[4] && v[4]->kind != SV_NONE) {
    bool t;
    if (!sv_truthy(s, v[4], a->loc, &t)) return s->poison;
    prec = t ? PREC_TF32 : PREC_IEEE;
  }
  if (v[3] && v[3]->kind != SV_NONE) {
    const char *p = str_arg(s, v[3], a->loc, "input_precision");
    if (!p) return s->poison;
    if (!strcmp(p, "tf32")) prec = PREC_TF32;
    else if (!strcmp(p, "tf32x3")) prec = PREC_TF32X3;
    else if (!strcmp(p, "ieee")) prec = PREC_IEEE;
    else {
      spec_error(s, a->loc, "input_precision must be 'tf32', 'tf32x3' or 'ieee', not '%s'", p);
      return s->poison;
    }
  }
  const Type *out = ty_scalar(ctx(s), ex->dtype == DT_I8 ? DT_I32 : DT_F32);
  if (v[6] && v[6]->kind != SV_NONE) {
    out = dtype_arg(s, v[6], a->loc, "out_dtype");
    if (!out) return s->poison;
  }
  int64_t shape[3] = {tx->shape[0], M, N};
  if (r == 2) shape[0] = M, shape[1] = N;
  const Type *rt = ty_tensor(ctx(s), out, r, shape, NULL);
  Value *acc;
  if (v[2] && v[2]->kind != SV_NONE) {
    acc = need_tensor(s, v[2], a->loc, "acc");
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
    acc = splat_constant(s, sv_int(s, 0), out, r, shape, a->loc);
  }
  Value *ops[3] = {x, y, acc};
  spec_at(s, a->loc);
  Op *op = irb_op(&s->b, OP_DOT, ops, 3, rt);
  op->attr.precision = dt_is_float(ex->dtype) && ex->dtype == DT_F32 ? prec : PREC_IEEE;
  if (ex->dtype == DT_F32) op->attr.precision = prec;
  if (v[5] && v[5]->kind == SV_INT) op->attr.max_imprecise = (int)v[5]->i;
  return sv_tensor(s, op->results[0]);
}

/* ---- hints and checks ------------------------------------------------------------------------- */

static SVal *hint(Spec *s, SVal **v, CallArgs *a, bool contig, const char *name) {
  if (is_poison(v[0])) return v[0];
  if (sv_is_number(v[0])) return v[0];
  Value *x = need_tensor(s, v[0], argloc(a, 0), "input");
  int64_t vals[IR_MAX_RANK];
  int n;
  if (!x || !const_ints(s, v[1], argloc(a, 1), "values", vals, &n, IR_MAX_RANK)) return s->poison;
  int rank = x->type->rank ? x->type->rank : 1;
  if (n != rank && !(n == 1)) {
    spec_error(s, argloc(a, 1), "tl.%s needs one value per dim (%d), got %d", name, rank, n);
    return s->poison;
  }
  spec_at(s, a->loc);
  Op *op = irb_op(&s->b, OP_ASSUME, &x, 1, x->type);
  for (int i = 0; i < rank; i++) {
    int64_t val = vals[n == 1 ? 0 : i];
    if (val <= 0) {
      spec_error(s, argloc(a, 1), "tl.%s values must be positive", name);
      return s->poison;
    }
    if (contig) op->attr.hint_contig[i] = (int)val;
    else op->attr.hint_div[i] = (int)val;
  }
  return sv_tensor(s, op->results[0]);
}
static SVal *b_multiple_of(Spec *s, SVal **v, CallArgs *a) { return hint(s, v, a, false, "multiple_of"); }
static SVal *b_max_contiguous(Spec *s, SVal **v, CallArgs *a) { return hint(s, v, a, true, "max_contiguous"); }
static SVal *b_max_constancy(Spec *s, SVal **v, CallArgs *a) { (void)a; return v[0]; }

static SVal *b_static_assert(Spec *s, SVal **v, CallArgs *a) {
  if (is_poison(v[0])) return s->poison;
  bool t;
  if (!sv_truthy(s, v[0], argloc(a, 0), &t) || !sv_is_constexpr(v[0])) {
    spec_error(s, argloc(a, 0), "tl.static_assert needs a constexpr condition, but this is a runtime %s "
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

static SVal *b_static_print(Spec *s, SVal **v, CallArgs *a) {
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

static SVal *b_device_assert(Spec *s, SVal **v, CallArgs *a) {
  if (is_poison(v[0])) return s->poison;
  /* Off outside debug mode, as in Triton: checked for type, not emitted. */
  if (v[0]->kind != SV_TENSOR && !sv_is_constexpr(v[0]))
    spec_error(s, argloc(a, 0), "tl.device_assert needs a condition, not a %s", sv_kind_name(v[0]));
  return s->none;
}

static SVal *b_device_print(Spec *s, SVal **v, CallArgs *a) {
  (void)v;
  diag_warning(s->d, a->loc, "tl.device_print is not supported yet and is ignored");
  return s->none;
}

static SVal *b_debug_barrier(Spec *s, SVal **v, CallArgs *a) {
  (void)v;
  spec_at(s, a->loc);
  irb_op(&s->b, OP_BARRIER, NULL, 0, NULL);
  return s->none;
}

static SVal *b_cdiv(Spec *s, SVal **v, CallArgs *a) {
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

static SVal *b_swizzle2d(Spec *s, SVal **v, CallArgs *a) {
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

static SVal *b_next_power_of_2(Spec *s, SVal **v, CallArgs *a) {
  int64_t n;
  if (!sv_const_int(s, v[0], argloc(a, 0), "n", &n)) return s->poison;
  int64_t p = 1;
  while (p < n && p < ((int64_t)1 << 62)) p <<= 1;
  return sv_int(s, p);
}

/* triton.Config(kwargs, num_warps=4, num_stages=3, ...): the record the
 * autotuner reads (module-level code builds lists of them). */
static SVal *b_config(Spec *s, SVal **v, CallArgs *a) {
  if (v[0]->kind != SV_DICT) {
    spec_error(s, argloc(a, 0), "triton.Config takes a dict of constexpr values, not a %s", sv_kind_name(v[0]));
    return s->poison;
  }
  for (int i = 0; i < v[0]->n; i++)
    if (v[0]->items[i]->kind != SV_STR) {
      spec_error(s, argloc(a, 0), "triton.Config keys must be parameter names (strings)");
      return s->poison;
    }
  int64_t nw = 4, ns = 3;
  if (v[1] && v[1]->kind != SV_NONE && !sv_const_int(s, v[1], argloc(a, 1), "num_warps", &nw)) return s->poison;
  if (v[2] && v[2]->kind != SV_NONE && !sv_const_int(s, v[2], argloc(a, 2), "num_stages", &ns)) return s->poison;
  if (nw < 1 || nw > 32 || (nw & (nw - 1))) {
    spec_error(s, argloc(a, 1), "num_warps must be a power of two from 1 to 32, not %lld", (long long)nw);
    return s->poison;
  }
  if (ns < 1 || ns > 16) {
    spec_error(s, argloc(a, 2), "num_stages must be from 1 to 16, not %lld", (long long)ns);
    return s->poison;
  }
  SVal *c = sv_new(s, SV_CONFIG);
  c->self = v[0];
  c->i = nw;
  c->n = (int)ns;
  return c;
}

/* filter(fn, seq): fn a module function (called at compile time) or None. */
static SVal *py_filter(Spec *s, SVal **v, CallArgs *a) {
  SVal *fn = v[0], *seq = v[1];
  if (seq->kind != SV_TUPLE) {
    spec_error(s, argloc(a, 1), "filter() needs a constexpr list or tuple, not a %s", sv_kind_name(seq));
    return s->poison;
  }
  VEC(SVal *) out = {0};
  for (int i = 0; i < seq->n; i++) {
    SVal *keep = seq->items[i];
    if (fn->kind == SV_FUNC) {
      SVal *arg[1] = {seq->items[i]};
      keep = spec_call_function(s, fn->fn, arg, 1, NULL, NULL, 0, a->loc);
    } else if (fn->kind != SV_NONE) {
      spec_error(s, argloc(a, 0), "filter() needs a function defined in this file or None");
      VEC_FREE(out);
      return s->poison;
    }
    bool t;
    if (is_poison(keep) || !sv_truthy(s, keep, a->loc, &t)) {
      if (!is_poison(keep)) spec_error(s, a->loc, "the filter function must return a constexpr");
      VEC_FREE(out);
      return s->poison;
    }
    if (t) VEC_PUSH(out, seq->items[i]);
  }
  SVal *r = sv_tuple(s, out.data, out.len, true);
  VEC_FREE(out);
  return r;
}

/* triton.runtime.driver.active.get_current_target(): the device tlc compiles
 * for, as host code like `is_hip()` asks it. */
static SVal *b_current_target(Spec *s, SVal **v, CallArgs *a) {
  (void)v, (void)a;
  SVal *m = sv_new(s, SV_MODULE);
  m->s = "triton.target";
  return m;
}

static SVal *b_jit_value(Spec *s, SVal **v, CallArgs *a) {
  (void)v;
  spec_error(s, a->loc, "this decorator or host API cannot be called inside a kernel");
  return s->poison;
}

/* ---- Python builtins ------------------------------------------------------------------------- */

static SVal *py_float(Spec *s, SVal **v, CallArgs *a) {
  SVal *x = v[0];
  if (!x) return sv_float(s, 0);
  if (is_poison(x)) return x;
  if (x->kind == SV_STR) {
    const char *t = x->s;
    while (*t == ' ') t++;
    int neg = 0;
    if (*t == '-' || *t == '+') neg = *t++ == '-';
    double r;
    if (!strcasecmp(t, "inf") || !strcasecmp(t, "infinity")) r = INFINITY;
    else if (!strcasecmp(t, "nan")) r = NAN;
    else {
      char *end;
      r = strtod(t, &end);
      if (end == t || *end) {
        spec_error(s, argloc(a, 0), "could not convert string to float: '%s'", x->s);
        return s->poison;
      }
    }
    return sv_float(s, neg ? -r : r);
  }
  if (sv_is_number(x)) return sv_float(s, x->kind == SV_FLOAT ? x->f : (double)x->i);
  if (x->kind == SV_TENSOR) {
    Value *c = spec_cast(s, x->v, ty_scalar(ctx(s), DT_F32), a->loc);
    return c ? sv_tensor(s, c) : s->poison;
  }
  spec_error(s, argloc(a, 0), "float() of a %s", sv_kind_name(x));
  return s->poison;
}

static SVal *py_int(Spec *s, SVal **v, CallArgs *a) {
  SVal *x = v[0];
  if (!x) return sv_int(s, 0);
  if (is_poison(x)) return x;
  if (x->kind == SV_FLOAT) {
    /* the range check also catches NaN; 2^63 itself does not fit */
    if (!(x->f >= -9223372036854775808.0 && x->f < 9223372036854775808.0)) {
      spec_error(s, argloc(a, 0), "cannot convert %g to an integer (it does not fit in 64 bits)", x->f);
      return s->poison;
    }
    return sv_int(s, (int64_t)x->f);
  }
  if (x->kind == SV_INT || x->kind == SV_BOOL) return sv_int(s, x->i);
  if (x->kind == SV_STR) {
    char *end;
    long long r = strtoll(x->s, &end, 10);
    if (end == x->s || *end) {
      spec_error(s, argloc(a, 0), "invalid literal for int(): '%s'", x->s);
      return s->poison;
    }
    return sv_int(s, r);
  }
  if (x->kind == SV_TENSOR) {
    Value *c = spec_cast(s, x->v, ty_scalar(ctx(s), DT_I32), a->loc);
    return c ? sv_tensor(s, c) : s->poison;
  }
  spec_error(s, argloc(a, 0), "int() of a %s", sv_kind_name(x));
  return s->poison;
}

static SVal *py_bool(Spec *s, SVal **v, CallArgs *a) {
  if (!v[0]) return sv_bool(s, false);
  bool t;
  if (sv_truthy(s, v[0], a->loc, &t)) return sv_bool(s, t);
  Value *x = need_tensor(s, v[0], argloc(a, 0), "argument");
  return x ? sv_tensor(s, spec_to_bool(s, x, a->loc)) : s->poison;
}

static SVal *py_minmax(Spec *s, SVal **v, CallArgs *a, bool is_max) {
  SVal *t = v[0];
  if (t && t->n == 1 && t->items[0]->kind == SV_TUPLE) t = t->items[0];
  if (!t || t->n == 0) {
    spec_error(s, a->loc, "%s() needs at least one argument", is_max ? "max" : "min");
    return s->poison;
  }
  SVal *best = t->items[0];
  for (int i = 1; i < t->n; i++) {
    SVal *args[3] = {best, t->items[i], NULL};
    best = minmax(s, args, a, is_max ? OP_MAX : OP_MIN);
    if (is_poison(best)) return best;
  }
  return best;
}
static SVal *py_max(Spec *s, SVal **v, CallArgs *a) { return py_minmax(s, v, a, true); }
static SVal *py_min(Spec *s, SVal **v, CallArgs *a) { return py_minmax(s, v, a, false); }

static SVal *py_len(Spec *s, SVal **v, CallArgs *a) {
  if (is_poison(v[0])) return v[0];
  if (v[0]->kind == SV_TUPLE || v[0]->kind == SV_DICT) return sv_int(s, v[0]->n);
  if (v[0]->kind == SV_STR) return sv_int(s, (int64_t)strlen(v[0]->s));
  if (v[0]->kind == SV_TENSOR && v[0]->v->type->rank) return sv_int(s, v[0]->v->type->shape[0]);
  spec_error(s, argloc(a, 0), "len() of a %s", sv_kind_name(v[0]));
  return s->poison;
}

static SVal *py_abs(Spec *s, SVal **v, CallArgs *a) {
  if (is_poison(v[0])) return v[0];
  if (v[0]->kind == SV_INT) {
    if (v[0]->i == INT64_MIN) {
      spec_error(s, a->loc, "integer overflow in constexpr abs() (values are 64-bit)");
      return s->poison;
    }
    return sv_int(s, v[0]->i < 0 ? -v[0]->i : v[0]->i);
  }
  if (v[0]->kind == SV_FLOAT) return sv_float(s, fabs(v[0]->f));
  return b_abs(s, v, a);
}

static SVal *py_range(Spec *s, SVal **v, CallArgs *a) {
  /* range() outside a for statement: a constexpr tuple */
  int64_t lo = 0, hi, st = 1;
  if (!v[1] || v[1]->kind == SV_NONE) {
    if (!sv_const_int(s, v[0], argloc(a, 0), "range bound", &hi)) return s->poison;
  } else {
    if (!sv_const_int(s, v[0], argloc(a, 0), "range start", &lo) ||
        !sv_const_int(s, v[1], argloc(a, 1), "range end", &hi))
      return s->poison;
    if (v[2] && v[2]->kind != SV_NONE && !sv_const_int(s, v[2], argloc(a, 2), "range step", &st))
      return s->poison;
  }
  if (st == 0) {
    spec_error(s, a->loc, "range step must not be zero");
    return s->poison;
  }
  VEC(SVal *) items = {0};
  for (int64_t i = lo; st > 0 ? i < hi : i > hi;) {
    if (items.len == SPEC_MAX_TUPLE) {
      spec_error(s, a->loc, "range() evaluated at compile time gives more than %d values",
                 SPEC_MAX_TUPLE);
      VEC_FREE(items);
      return s->poison;
    }
    VEC_PUSH(items, sv_int(s, i));
    if (__builtin_add_overflow(i, st, &i)) break;
  }
  SVal *r = sv_tuple(s, items.data, items.len, true);
  VEC_FREE(items);
  return r;
}

static SVal *py_print(Spec *s, SVal **v, CallArgs *a) { return b_static_print(s, v, a); }

static SVal *py_tuple(Spec *s, SVal **v, CallArgs *a) {
  if (!v[0]) return sv_tuple(s, NULL, 0, false);
  if (v[0]->kind == SV_TUPLE) return sv_tuple(s, v[0]->items, v[0]->n, false);
  spec_error(s, argloc(a, 0), "tuple() of a %s", sv_kind_name(v[0]));
  return s->poison;
}
static SVal *py_list(Spec *s, SVal **v, CallArgs *a) {
  if (!v[0]) return sv_tuple(s, NULL, 0, true);
  if (v[0]->kind == SV_TUPLE) return sv_tuple(s, v[0]->items, v[0]->n, true);
  spec_error(s, argloc(a, 0), "list() of a %s", sv_kind_name(v[0]));
  return s->poison;
}

/* ---- the table ------------------------------------------------------------------------------- */

static const Builtin builtins[] = {
    {"program_id", "axis", b_pid, 0},
    {"num_programs", "axis", b_nprog, 0},
    {"arange", "start,end", b_arange, 0},
    {"zeros", "shape,dtype", b_zeros, 0},
    {"zeros_like", "input,dtype=", b_zeros_like, 0},
    {"full", "shape,value,dtype", b_full, 0},
    {"full_like", "input,value,dtype=", b_full_like, 0},
    {"load", "pointer,mask=,other=,boundary_check=,padding_option=,cache_modifier=,eviction_policy=,volatile=", b_load, 0},
    {"store", "pointer,value,mask=,boundary_check=,cache_modifier=,eviction_policy=", b_store, 0},
    {"atomic_add", "pointer,val,mask=,sem=,scope=", b_atomic_add, 0},
    {"atomic_max", "pointer,val,mask=,sem=,scope=", b_atomic_max, 0},
    {"atomic_min", "pointer,val,mask=,sem=,scope=", b_atomic_min, 0},
    {"atomic_and", "pointer,val,mask=,sem=,scope=", b_atomic_and, 0},
    {"atomic_or", "pointer,val,mask=,sem=,scope=", b_atomic_or, 0},
    {"atomic_xor", "pointer,val,mask=,sem=,scope=", b_atomic_xor, 0},
    {"atomic_xchg", "pointer,val,mask=,sem=,scope=", b_atomic_xchg, 0},
    {"make_block_ptr", "base,shape,strides,offsets,block_shape,order", b_make_block_ptr, 0},
    {"advance", "base,offsets", b_advance, 0},
    {"dot", "input,other,acc=,input_precision=,allow_tf32=,max_num_imprecise_acc=,out_dtype=", b_dot, 0},
    {"trans", "input,*dims", b_trans, 0},
    {"permute", "input,*dims", b_permute, 0},
    {"expand_dims", "input,axis", b_expand_dims, 0},
    {"broadcast_to", "input,*shape", b_broadcast_to, 0},
    {"broadcast", "input,other", b_broadcast, 0},
    {"reshape", "input,*shape,can_reorder=", b_reshape, 0},
    {"view", "input,*shape", b_reshape, 0},
    {"where", "condition,x,y", b_where, 0},
    {"maximum", "x,y,propagate_nan=", b_maximum, 0},
    {"minimum", "x,y,propagate_nan=", b_minimum, 0},
    {"clamp", "x,min,max,propagate_nan=", b_clamp, 0},
    {"exp", "x", b_exp, 0},
    {"exp2", "x", b_exp2, 0},
    {"log", "x", b_log, 0},
    {"log2", "x", b_log2, 0},
    {"sqrt", "x", b_sqrt, 0},
    {"sqrt_rn", "x", b_sqrt_rn, 0},
    {"rsqrt", "x", b_rsqrt, 0},
    {"abs", "x", b_abs, 0},
    {"sin", "x", b_sin, 0},
    {"cos", "x", b_cos, 0},
    {"floor", "x", b_floor, 0},
    {"ceil", "x", b_ceil, 0},
    {"erf", "x", b_erf, 0},
    {"sigmoid", "x", b_sigmoid, 0},
    {"fdiv", "x,y,ieee_rounding=", b_fdiv, 0},
    {"div_rn", "x,y", b_div_rn, 0},
    {"fma", "x,y,z", b_fma, 0},
    {"umulhi", "x,y", b_umulhi, 0},
    {"cast", "input,dtype,fp_downcast_rounding=,bitcast=", b_cast, 0},
    {"to", "input,dtype,fp_downcast_rounding=,bitcast=", b_cast, 0},
    {"sum", "input,axis=,dtype=,keep_dims=", b_sum, 0},
    {"max", "input,axis=,return_indices=,return_indices_tie_break_left=,keep_dims=", b_max, 0},
    {"min", "input,axis=,return_indices=,return_indices_tie_break_left=,keep_dims=", b_min, 0},
    {"argmax", "input,axis=,tie_break_left=,keep_dims=", b_argmax, 0},
    {"argmin", "input,axis=,tie_break_left=,keep_dims=", b_argmin, 0},
    {"xor_sum", "input,axis=,keep_dims=", b_xor_sum, 0},
    {"softmax", "x,ieee_rounding=", b_softmax, 0},
    {"multiple_of", "input,values", b_multiple_of, 0},
    {"max_contiguous", "input,values", b_max_contiguous, 0},
    {"max_constancy", "input,values", b_max_constancy, 0},
    {"static_assert", "cond,msg=", b_static_assert, 0},
    {"static_print", "*values", b_static_print, 0},
    {"device_assert", "cond,msg=,mask=", b_device_assert, 0},
    {"device_print", "prefix,*args,hex=", b_device_print, 0},
    {"debug_barrier", "", b_debug_barrier, 0},
    {"cdiv", "x,div", b_cdiv, 0},
    {"swizzle2d", "i,j,size_i,size_j,size_g", b_swizzle2d, 0},
    /* triton.* host helpers usable as constexpr functions */
    {"next_power_of_2", "n", b_next_power_of_2, 0},
    {"jit", "*args", b_jit_value, 0},
    {"Config", "kwargs,num_warps=,num_stages=,num_ctas=,maxnreg=,pre_hook=", b_config, 0},
    {"get_current_target", "", b_current_target, 0},
    {"filter", "function,iterable", py_filter, 0},
    /* Python builtins */
    {"range", "start,end=,step=", py_range, 0},
    {"tl.range", "start,end=,step=,num_stages=,loop_unroll_factor=", py_range, 0},
    {"static_range", "start,end=,step=", py_range, 0},
    {"float", "x=", py_float, 0},
    {"int", "x=", py_int, 0},
    {"bool", "x=", py_bool, 0},
    {"py.min", "*args", py_min, 0},
    {"py.max", "*args", py_max, 0},
    {"len", "x", py_len, 0},
    {"py.abs", "x", py_abs, 0},
    {"print", "*values", py_print, 0},
    {"tuple", "x=", py_tuple, 0},
    {"list", "x=", py_list, 0},
};
enum { NBUILTINS = sizeof builtins / sizeof builtins[0] };

static int builtin_index(const char *name) {
  for (int i = 0; i < NBUILTINS; i++)
    if (!strcmp(builtins[i].name, name)) return i;
  return -1;
}

const char *spec_builtin_name(int id) { return builtins[id].name; }

static SVal *builtin_val(Spec *s, const char *name) {
  int i = builtin_index(name);
  if (i < 0) return NULL;
  SVal *v = sv_new(s, SV_BUILTIN);
  v->builtin = i;
  return v;
}

/* Display name in messages: tl.load, float, ... */
static const char *display_name(Spec *s, int id) {
  const char *n = builtins[id].name;
  if (!strncmp(n, "py.", 3)) return n + 3;
  static const char *const python[] = {"range", "float", "int", "bool", "len", "print", "tuple", "list"};
  for (size_t i = 0; i < sizeof python / sizeof python[0]; i++)
    if (!strcmp(n, python[i])) return n;
  if (!strncmp(n, "tl.", 3)) return n;
  return arena_printf(s->arena, "tl.%s", n);
}

/* Bind positional and keyword arguments to the builtin's parameter list. */
static bool bind(Spec *s, const Builtin *b, int id, SVal *self, CallArgs *a, SVal **argv) {
  char names[MAXP][32];
  bool optional[MAXP], vararg[MAXP];
  int np = 0;
  const char *p = b->params;
  while (*p && np < MAXP) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    vararg[np] = p[0] == '*';
    if (vararg[np]) p++, len--;
    optional[np] = len && p[len - 1] == '=';
    if (optional[np]) len--;
    memcpy(names[np], p, len);
    names[np][len] = 0;
    np++;
    p += len + (optional[np - 1] ? 1 : 0);
    if (*p == ',') p++;
  }
  const char *fname = display_name(s, id);
  for (int i = 0; i < MAXP; i++) argv[i] = NULL, a->plocs[i] = (Loc){0};
  int pi = 0;
  if (self) argv[pi++] = self;
  VEC(SVal *) rest = {0};
  int varidx = -1;
  for (int i = 0; i < np; i++)
    if (vararg[i]) varidx = i;
  for (int i = 0; i < a->npos; i++) {
    if (varidx >= 0 && pi >= varidx) {
      VEC_PUSH(rest, a->pos[i]);
      continue;
    }
    if (pi >= np) {
      spec_error(s, a->poslocs[i], "%s() takes at most %d positional argument%s but %d were given",
                 fname, np - (self ? 1 : 0), np - (self ? 1 : 0) == 1 ? "" : "s", a->npos);
      VEC_FREE(rest);
      return false;
    }
    a->plocs[pi] = a->poslocs[i];
    argv[pi++] = a->pos[i];
  }
  if (varidx >= 0) {
    argv[varidx] = sv_tuple(s, rest.data, rest.len, false);
    VEC_FREE(rest);
  }
  for (int k = 0; k < a->nkw; k++) {
    int idx = -1;
    for (int i = 0; i < np; i++)
      if (!vararg[i] && !strcmp(names[i], a->kwnames[k])) idx = i;
    if (idx < 0) {
      spec_error(s, a->kwlocs[k], "%s() got an unexpected keyword argument '%s'", fname, a->kwnames[k]);
      const char *best = NULL;
      int bestd = 3;
      for (int i = 0; i < np; i++) {
        int dd = spec_edit_distance(a->kwnames[k], names[i]);
        if (!vararg[i] && dd < bestd) bestd = dd, best = names[i];
      }
      if (best) spec_note(s, a->kwlocs[k], "did you mean '%s'?", best);
      return false;
    }
    if (argv[idx]) {
      spec_error(s, a->kwlocs[k], "%s() got multiple values for argument '%s'", fname, names[idx]);
      return false;
    }
    argv[idx] = a->kw[k];
    a->plocs[idx] = a->kwlocs[k];
  }
  for (int i = 0; i < np; i++)
    if (!argv[i] && !optional[i] && !vararg[i]) {
      spec_error(s, a->loc, "%s() missing required argument '%s'", fname, names[i]);
      return false;
    }
  return true;
}

SVal *spec_call_builtin(Spec *s, int id, SVal *self, CallArgs *a) {
  SVal *argv[MAXP];
  if (!bind(s, &builtins[id], id, self, a, argv)) return s->poison;
  for (int i = 0; i < MAXP; i++)
    if (argv[i] && is_poison(argv[i])) return s->poison;
  SVal *r = builtins[id].fn(s, argv, a);
  return r ? r : s->poison;
}

/* ---- module attributes -------------------------------------------------------------------------- */

static const struct {
  const char *name;
  DType dt;
} dtype_names[] = {
    {"float16", DT_F16},   {"bfloat16", DT_BF16}, {"float32", DT_F32},  {"float64", DT_F64},
    {"int1", DT_I1},       {"int8", DT_I8},       {"int16", DT_I16},    {"int32", DT_I32},
    {"int64", DT_I64},     {"uint8", DT_U8},      {"uint16", DT_U16},   {"uint32", DT_U32},
    {"uint64", DT_U64},    {"float8e4nv", DT_F8E4M3}, {"float8e5", DT_F8E5M2},
    {"float8_e4m3fn", DT_F8E4M3}, {"float8_e5m2", DT_F8E5M2}, {"bool", DT_I1},
};

static bool is_lang_module(const char *mod) {
  return !strcmp(mod, "triton.language") || !strcmp(mod, "triton.language.core") ||
         !strcmp(mod, "tl");
}

static bool is_math_module(const char *mod) {
  return !strcmp(mod, "triton.language.math") || !strcmp(mod, "triton.language.extra.cuda.libdevice") ||
         !strcmp(mod, "triton.language.extra.libdevice");
}

static SVal *module_val(Spec *s, const char *name) {
  SVal *m = sv_new(s, SV_MODULE);
  m->s = arena_strdup(s->arena, name);
  return m;
}

SVal *spec_module_attr(Spec *s, const char *mod, const char *name) {
  if (!strcmp(mod, "triton")) {
    if (!strcmp(name, "language")) return module_val(s, "triton.language");
    if (!strcmp(name, "cdiv")) return builtin_val(s, "cdiv");
    if (!strcmp(name, "next_power_of_2")) return builtin_val(s, "next_power_of_2");
    if (!strcmp(name, "Config")) return builtin_val(s, "Config");
    if (!strcmp(name, "runtime")) return module_val(s, "triton.runtime");
    if (!strcmp(name, "jit") || !strcmp(name, "autotune") || !strcmp(name, "heuristics"))
      return builtin_val(s, "jit");
    return NULL;
  }
  if (is_lang_module(mod) || is_math_module(mod)) {
    if (is_lang_module(mod)) {
      if (!strcmp(name, "math")) return module_val(s, "triton.language.math");
      if (!strcmp(name, "extra")) return module_val(s, "triton.language.extra");
      if (!strcmp(name, "constexpr")) return sv_new(s, SV_CONSTEXPR_T);
      for (size_t i = 0; i < sizeof dtype_names / sizeof dtype_names[0]; i++)
        if (!strcmp(dtype_names[i].name, name)) return sv_dtype(s, ty_scalar(ctx(s), dtype_names[i].dt));
      if (!strcmp(name, "range")) return builtin_val(s, "tl.range");
      if (!strcmp(name, "static_range")) return builtin_val(s, "static_range");
      if (!strcmp(name, "max")) return builtin_val(s, "max");
      if (!strcmp(name, "min")) return builtin_val(s, "min");
      if (!strcmp(name, "abs")) return builtin_val(s, "abs");
    }
    if (!strncmp(name, "py.", 3) || !strcmp(name, "float") || !strcmp(name, "int") || !strcmp(name, "len"))
      return NULL;
    return builtin_val(s, name);
  }
  if (!strcmp(mod, "triton.runtime") && !strcmp(name, "driver")) return module_val(s, "triton.runtime.driver");
  if (!strcmp(mod, "triton.runtime.driver") && !strcmp(name, "active"))
    return module_val(s, "triton.runtime.driver.active");
  if (!strcmp(mod, "triton.runtime.driver.active") && !strcmp(name, "get_current_target"))
    return builtin_val(s, "get_current_target");
  if (!strcmp(mod, "triton.target")) {
    if (!strcmp(name, "backend")) return sv_str(s, "cuda");
    if (!strcmp(name, "arch")) return sv_int(s, s->m->capability);
    if (!strcmp(name, "warp_size")) return sv_int(s, 32);
    return NULL;
  }
  if (!strcmp(mod, "triton.language.extra")) {
    if (!strcmp(name, "cuda")) return module_val(s, "triton.language.extra.cuda");
    if (!strcmp(name, "libdevice")) return module_val(s, "triton.language.extra.libdevice");
  }
  if (!strcmp(mod, "triton.language.extra.cuda") && !strcmp(name, "libdevice"))
    return module_val(s, "triton.language.extra.cuda.libdevice");
  return NULL;
}

SVal *spec_python_builtin(Spec *s, const char *name) {
  static const char *const names[] = {"range", "float", "int", "bool", "len", "print", "tuple", "list"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(names[i], name)) return builtin_val(s, name);
  if (!strcmp(name, "filter")) return builtin_val(s, "filter");
  if (!strcmp(name, "min")) return builtin_val(s, "py.min");
  if (!strcmp(name, "max")) return builtin_val(s, "py.max");
  if (!strcmp(name, "abs")) return builtin_val(s, "py.abs");
  return NULL;
}

/* ---- attributes of values ------------------------------------------------------------------------- */

static SVal *method(Spec *s, SVal *self, const char *builtin) {
  SVal *m = sv_new(s, SV_METHOD);
  m->builtin = builtin_index(builtin);
  m->self = self;
  return m;
}

static SVal *typeobj(Spec *s, const Type *t, SVal *owner) {
  SVal *v = sv_new(s, SV_TYPEOBJ);
  v->type = t;
  v->self = owner;
  return v;
}

/* Methods of tensors (x.to(...), x.sum(0)), each a builtin of the table. */
static const char *const tensor_methods[] = {
    "to", "trans", "permute", "reshape", "view", "expand_dims", "broadcast_to", "sum", "max",
    "min", "argmax", "argmin", "xor_sum", "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "abs",
    "sin", "cos", "floor", "ceil", "erf", "sigmoid", "softmax", "cast", "advance", "store",
    "load", "fma", "cdiv", "where", "multiple_of", "max_contiguous", "atomic_add", "atomic_max",
    "atomic_min", NULL};

SVal *spec_value_attr(Spec *s, SVal *v, const char *name, Loc loc) {
  if (is_poison(v)) return v;
  switch (v->kind) {
  case SV_TENSOR: {
    const Type *t = v->v->type;
    if (!strcmp(name, "dtype")) return sv_dtype(s, ty_elem(ctx(s), t));
    if (!strcmp(name, "type")) return typeobj(s, t, v);
    if (!strcmp(name, "shape")) {
      SVal *items[IR_MAX_RANK];
      for (int i = 0; i < t->rank; i++) items[i] = sv_int(s, t->shape[i]);
      return sv_tuple(s, items, t->rank, false);
    }
    if (!strcmp(name, "numel")) return sv_int(s, ty_numel(t));
    if (!strcmp(name, "T")) {
      SVal *argv[2] = {v, NULL};
      CallArgs a = {.loc = loc};
      return b_trans(s, argv, &a);
    }
    for (int i = 0; tensor_methods[i]; i++)
      if (!strcmp(tensor_methods[i], name)) return method(s, v, name);
    break;
  }
  case SV_BLOCKPTR:
    if (!strcmp(name, "advance")) return method(s, v, "advance");
    if (!strcmp(name, "type") || !strcmp(name, "dtype")) {
      const Type *pt = v->bp->base->type;
      return !strcmp(name, "dtype") ? sv_dtype(s, pt) : typeobj(s, pt, v);
    }
    break;
  case SV_DTYPE:
  case SV_TYPEOBJ: {
    const Type *t = v->type;
    const Type *e = ty_elem(ctx(s), t);
    if (!strcmp(name, "element_ty")) {
      if (e->dtype == DT_PTR) return sv_dtype(s, e->pointee);
      return sv_dtype(s, e);
    }
    if (!strcmp(name, "scalar")) return sv_dtype(s, e);
    if (!strcmp(name, "shape") && v->kind == SV_TYPEOBJ) {
      SVal *items[IR_MAX_RANK];
      for (int i = 0; i < t->rank; i++) items[i] = sv_int(s, t->shape[i]);
      return sv_tuple(s, items, t->rank, false);
    }
    if (!strcmp(name, "primitive_bitwidth")) return sv_int(s, dt_bits(e->dtype));
    break;
  }
  case SV_INT: case SV_FLOAT: case SV_BOOL:
    if (!strcmp(name, "value")) return v;
    if (!strcmp(name, "to")) {
      Value *x = sv_to_value(s, v, loc, "value");
      return x ? method(s, sv_tensor(s, x), "to") : s->poison;
    }
    break;
  case SV_CONFIG:
    if (!strcmp(name, "kwargs")) return v->self;
    if (!strcmp(name, "num_warps")) return sv_int(s, v->i);
    if (!strcmp(name, "num_stages")) return sv_int(s, v->n);
    break;
  case SV_CONSTEXPR_T:
    break;
  default:
    break;
  }
  spec_error(s, loc, "a %s has no attribute '%s'", sv_kind_name(v), name);
  const char *near = spec_suggest_attr(s, v, name);
  if (near) spec_note(s, loc, "did you mean '%s'?", near);
  return s->poison;
}

/* ---- "did you mean" for attributes ------------------------------------------------------------- */

typedef struct Nearest {
  const char *name;
  const char *best;
  int bestd;
} Nearest;

static void consider(Nearest *n, const char *cand) {
  if (!cand || !strcmp(cand, n->name)) return;
  int d = spec_edit_distance(n->name, cand);
  if (d < n->bestd) n->bestd = d, n->best = cand;
}

const char *spec_suggest_attr(Spec *s, const SVal *base, const char *name) {
  (void)s;
  int limit = (int)(strlen(name) + 2) / 3 + 1; /* close enough to be a typo */
  Nearest n = {name, NULL, limit > 3 ? 3 : limit};
  switch (base->kind) {
  case SV_MODULE:
    if (!strcmp(base->s, "triton")) {
      static const char *const names[] = {"language", "cdiv", "next_power_of_2", "Config", "jit",
                                          "autotune", "heuristics", "runtime", NULL};
      for (int i = 0; names[i]; i++) consider(&n, names[i]);
    } else if (is_lang_module(base->s) || is_math_module(base->s)) {
      for (int i = 0; i < NBUILTINS; i++) {
        const char *b = builtins[i].name;
        if (!strncmp(b, "py.", 3) || !strcmp(b, "float") || !strcmp(b, "int") || !strcmp(b, "bool") ||
            !strcmp(b, "len") || !strcmp(b, "print") || !strcmp(b, "tuple") || !strcmp(b, "list") ||
            !strcmp(b, "filter"))
          continue;
        consider(&n, !strncmp(b, "tl.", 3) ? b + 3 : b);
      }
      if (is_lang_module(base->s)) {
        for (size_t i = 0; i < sizeof dtype_names / sizeof dtype_names[0]; i++) consider(&n, dtype_names[i].name);
        consider(&n, "constexpr"), consider(&n, "math"), consider(&n, "extra");
      }
    }
    break;
  case SV_TENSOR:
    for (int i = 0; tensor_methods[i]; i++) consider(&n, tensor_methods[i]);
    consider(&n, "dtype"), consider(&n, "type"), consider(&n, "shape"), consider(&n, "numel");
    break;
  case SV_BLOCKPTR:
    consider(&n, "advance"), consider(&n, "type"), consider(&n, "dtype");
    break;
  case SV_DTYPE: case SV_TYPEOBJ:
    consider(&n, "element_ty"), consider(&n, "scalar"), consider(&n, "primitive_bitwidth");
    if (base->kind == SV_TYPEOBJ) consider(&n, "shape");
    break;
  case SV_CONFIG:
    consider(&n, "kwargs"), consider(&n, "num_warps"), consider(&n, "num_stages");
    break;
  default:
    break;
  }
  return n.best;
}
