/* tma_tile.c — recognizing a 2-D tile load that the bulk tensor copy engine
 * (TMA) can do, and writing the tensor-map recipe for it.
 *
 * Owns the question "is this load `base[start_0 + i, start_1 + j]` over a
 * strided 2-D array, masked only by the array's extents?", asked by the
 * pipeliner.  The accepted forms are what a Triton kernel writes:
 *
 *   ptr  = splat(base) + x_r[:, None] * s_r + x_c[None, :] * s_c   (any order,
 *          one addptr or a chain of them)
 *   x_d  = start_d + arange(0, B_d)        (or arange alone: start 0)
 *   mask = (x_r[:, None] < R) & (x_c[None, :] < C)   (either, both or none)
 *
 * and a block pointer's lowering of the same (spec/blockptr.c): the index in
 * i64 over i32 values, scaled before it is expanded, its mask
 * (0 <= x_d) & (x_d < extent_d) per dim,
 *
 * with base a kernel pointer argument aligned to 16 bytes, or such an
 * argument plus scalar offsets c_k * s_k (`K + off_z * stride_z + off_h *
 * stride_h`, attention's batch and head): each term becomes an outer dim of
 * the tensor map, of stride s_k (an argument or constant, 16-byte
 * multiple), box 1, unbounded extent and coordinate c_k (an i32 the pass
 * proves non-negative, so the copy reads where the pointer did), the contiguous
 * dim's stride the constant 1, the other stride a kernel argument or a
 * constant whose byte size is a multiple of 16 (TMA's rule), and the extents
 * kernel arguments or constants (an unmasked dim gets 2^31 - 1).  A constexpr
 * stride or extent arrives as a constant tensor, not a splat: the same.  The
 * masked-off elements of such a load are exactly the ones outside the array,
 * which TMA fills with zeros: other= must be 0 or absent.  Looks through
 * convert_layout, broadcast and expand_dims (layouts are assigned by now).
 *
 * The recipe's box is one swizzle row of the shared buffer by the tile's
 * rows (at most 256 each): a tile wider than one swizzle row is several
 * copies, one per column block of the buffer (codegen, cg_tma.c). */
#include "passes/pass_internal.h"

#include <string.h>

typedef struct Term {
  const Value *x;         /* the 1-D index along this dim (start + arange) */
  const Value *stride;    /* scalar; NULL = 1 */
} Term;

static const Value *strip(const Value *v) {
  while (v && v->def && (v->def->kind == OP_CONVERT_LAYOUT || v->def->kind == OP_BROADCAST))
    v = v->def->operands[0];
  return v;
}

/* v without widenings of a signed integer to i64 (a block pointer's index
 * arithmetic is in i64 over i32 values): the value it had before. */
static const Value *narrow(const Value *v) {
  while (v && v->def && v->def->kind == OP_CAST && v->type->dtype == DT_I64) {
    DType from = v->def->operands[0]->type->dtype;
    if (from != DT_I32 && from != DT_I16 && from != DT_I8) break;
    v = v->def->operands[0];
  }
  return v;
}

static bool is_arange(const Value *a, int64_t n) {
  a = narrow(strip(a)); /* arange is never negative: any widening keeps it */
  return a && a->def && a->def->kind == OP_ARANGE && a->def->attr.start == 0 && a->def->attr.end == n;
}

/* x = start + arange(0, n) (either order), or arange alone; *start is an
 * i32 scalar (NULL: 0). */
static bool index_like(const Value *x, int64_t n, const Value **start) {
  x = strip(x);
  if (!x || !x->def || x->type->rank != 1) return false;
  if (is_arange(x, n)) {
    *start = NULL;
    return true;
  }
  const Op *d = x->def;
  if (d->kind != OP_ADD) return false;
  for (int k = 0; k < 2; k++) {
    const Value *s = strip(d->operands[1 - k]);
    if (is_arange(d->operands[k], n) && s && s->def && s->def->kind == OP_SPLAT) {
      const Value *st = narrow(s->def->operands[0]);
      if (st->type->dtype != DT_I32) return false; /* TMA coordinates are i32 */
      *start = st;
      return true;
    }
  }
  return false;
}

/* The scalar s of splat(s); an integer constant tensor (every element the
 * same: `x * 128` with a constexpr folded) stands for its own value and
 * comes back whole (tma_value reads it); else NULL. */
static const Value *splatted(const Value *v) {
  v = strip(v);
  if (!v || !v->def) return NULL;
  if (v->def->kind == OP_SPLAT) return v->def->operands[0];
  return v->def->kind == OP_CONSTANT && dt_is_int(v->type->dtype) ? v : NULL;
}

/* A stride of the constant 1 (`x[:, None] * 1` not folded) is no stride. */
static const Value *unit_is_none(const Value *s) {
  const Value *n = narrow(s);
  return n && n->def && n->def->kind == OP_CONSTANT && n->def->attr.ival == 1 ? NULL : s;
}

/* A zero constant tensor or splat of zero. */
static bool zero_tensor(const Value *v) {
  const Value *s = splatted(v);
  v = s ? s : strip(v);
  return ir_is_zero_const(v);
}

/* offsets = sum over dims of x_d * stride_d (2-D, each dim at most once). */
static bool affine(const Value *v, const int64_t *shape, Term *t) {
  v = strip(v);
  if (!v || !v->def || v->type->rank != 2) return false;
  const Op *d = v->def;
  switch (d->kind) {
  case OP_ADD: {
    Term a[2] = {{0}}, b[2] = {{0}};
    if (!affine(d->operands[0], shape, a) || !affine(d->operands[1], shape, b)) return false;
    for (int k = 0; k < 2; k++) {
      if (a[k].x && b[k].x) return false;
      t[k] = a[k].x ? a[k] : b[k];
    }
    return true;
  }
  case OP_MUL:
    for (int k = 0; k < 2; k++) {
      const Value *s = splatted(d->operands[k]);
      Term u[2] = {{0}};
      if (!s || !affine(d->operands[1 - k], shape, u)) continue;
      if ((u[0].x != NULL) + (u[1].x != NULL) != 1) return false;
      for (int j = 0; j < 2; j++) {
        if (!u[j].x) continue;
        if (u[j].stride) return false;
        t[j] = (Term){u[j].x, unit_is_none(s)};
        t[1 - j] = (Term){0};
      }
      return true;
    }
    return false;
  case OP_EXPAND_DIMS: {
    int dim = 1 - d->attr.axis;
    const Value *start, *x = strip(d->operands[0]), *stride = NULL;
    if (d->attr.axis < 0 || d->attr.axis > 1) return false;
    /* the index scaled before it is expanded: expand_dims(x * splat(s)) */
    bool scaled = false;
    if (x && x->def && x->def->kind == OP_MUL)
      for (int k = 0; k < 2 && !scaled; k++) {
        const Value *s = splatted(x->def->operands[k]);
        if (s && index_like(x->def->operands[1 - k], shape[dim], &start))
          scaled = true, stride = unit_is_none(s), x = strip(x->def->operands[1 - k]);
      }
    if (!scaled && !index_like(x, shape[dim], &start)) return false;
    t[0] = t[1] = (Term){0};
    t[dim] = (Term){x, stride};
    return true;
  }
  default:
    return false;
  }
}

static int arg_index(const IrFunc *f, const Value *v) {
  for (int i = 0; i < f->nargs; i++)
    if (f->args[i].value == v) return i;
  return -1;
}

/* A kernel argument or a constant (a scalar, or a constant tensor: one
 * value), as a recipe value. */
static bool tma_value(const IrFunc *f, const Value *v, IrTmaValue *out) {
  v = narrow(v);
  if (!v || !dt_is_int(v->type->dtype)) return false;
  if (v->def && v->def->kind == OP_CONSTANT) {
    *out = (IrTmaValue){-1, v->def->attr.ival};
    return true;
  }
  int a = v->type->rank ? -1 : arg_index(f, v);
  if (a < 0) return false;
  *out = (IrTmaValue){a, 0};
  return true;
}

/* mask = and-tree of (x_d broadcast) < bound, and of x_d >= 0 (TMA
 * zero-fills below 0 too), either before or after x_d is expanded: the
 * bounds, by dim. */
static bool mask_bounds(const IrFunc *f, const Value *m, const Term *t, IrTmaValue *bound, bool *has) {
  m = strip(m);
  if (!m || !m->def) return false;
  const Op *d = m->def;
  if (d->kind == OP_AND)
    return mask_bounds(f, d->operands[0], t, bound, has) && mask_bounds(f, d->operands[1], t, bound, has);
  if (d->kind == OP_EXPAND_DIMS) return mask_bounds(f, d->operands[0], t, bound, has);
  if (d->kind != OP_CMP || (d->attr.pred != CMP_LT && d->attr.pred != CMP_GE)) return false;
  const Value *x = strip(d->operands[0]), *b = splatted(d->operands[1]);
  if (x && x->def && x->def->kind == OP_EXPAND_DIMS) x = strip(x->def->operands[0]);
  if (d->attr.pred == CMP_GE) {
    for (int k = 0; k < 2; k++)
      if (t[k].x && t[k].x == x && zero_tensor(d->operands[1])) return true;
    return false;
  }
  for (int k = 0; k < 2; k++)
    if (t[k].x && t[k].x == x && !has[k] && tma_value(f, b, &bound[k])) {
      /* a constant extent the map can hold, [1, 2^32]: below 1 the mask
       * hides every element, which a map cannot say */
      if (bound[k].arg < 0 && (bound[k].value < 1 || bound[k].value > (INT64_C(1) << 32))) return false;
      has[k] = true;
      return true;
    }
  return false;
}

/* A stride (elements of eb bytes) a map can hold: an argument, or a
 * positive constant below 2^40 bytes. */
static bool stride_fits(IrTmaValue s, int eb) {
  return s.arg >= 0 || (s.value > 0 && s.value < (INT64_C(1) << 40) / eb);
}

/* Is scalar v >= 0 whatever the arguments?  Program ids, non-negative
 * constants, sums, products and minima of such, and their quotients and
 * remainders by such or by an integer kernel argument: an argument that
 * divides a program id is a count (`off_z = pid // H`), taken as positive. */
static bool nonneg(const IrFunc *f, const Value *v, int depth) {
  v = narrow(v);
  if (!v || v->type->rank || !dt_is_int(v->type->dtype) || !v->def || depth > 8) return false;
  const Op *d = v->def;
  switch (d->kind) {
  case OP_CONSTANT: return d->attr.ival >= 0;
  case OP_PROGRAM_ID: case OP_NUM_PROGRAMS: return true;
  case OP_ADD: case OP_MUL: case OP_MIN:
    return nonneg(f, d->operands[0], depth + 1) && nonneg(f, d->operands[1], depth + 1);
  case OP_DIV: case OP_REM:
    return nonneg(f, d->operands[0], depth + 1) &&
           (arg_index(f, narrow(d->operands[1])) >= 0 || nonneg(f, d->operands[1], depth + 1));
  default:
    return false;
  }
}

/* One outer dim of a base offset: coordinate times stride (elements). */
typedef struct Outer {
  const Value *coord;
  IrTmaValue stride;
} Outer;

/* off = sum of c * s, c a non-negative i32 scalar and s an argument or
 * constant: the terms appended to o[] (*n of them, at most cap). */
static bool offset_terms(const IrFunc *f, const Value *off, Outer *o, int *n, int cap) {
  const Op *d = off->def;
  if (!d || off->type->rank) return false;
  /* a sum formed in i32 and widened (`(stride_h * (bhid % H) + ...).to(tl.int64)`):
   * the map computes it in 64 bits, which differs only where the i32 sum wrapped */
  if (d->kind == OP_CAST && off->type->dtype == DT_I64 && d->operands[0]->type->dtype == DT_I32)
    return offset_terms(f, d->operands[0], o, n, cap);
  if (d->kind == OP_ADD)
    return offset_terms(f, d->operands[0], o, n, cap) && offset_terms(f, d->operands[1], o, n, cap);
  if (d->kind != OP_MUL || *n == cap) return false;
  for (int k = 0; k < 2; k++) {
    const Value *c = narrow(d->operands[1 - k]);
    IrTmaValue s;
    if (c->type->dtype != DT_I32 || !nonneg(f, c, 0) || !tma_value(f, d->operands[k], &s)) continue;
    o[(*n)++] = (Outer){c, s};
    return true;
  }
  return false;
}

/* The kernel argument under a scalar base pointer `arg (+ off)*`, with the
 * offsets' terms in o[]; -1 when the base has another form. */
static int base_of(const IrFunc *f, const Value *p, Outer *o, int *n, int cap) {
  while (p && p->def && p->def->kind == OP_ADDPTR && !p->type->rank)
    if (!offset_terms(f, p->def->operands[1], o, n, cap)) return -1;
    else p = p->def->operands[0];
  return arg_index(f, p);
}

static bool zero_value(const Value *v) {
  return !v || ir_is_zero_const(v);
}

/* Divisibility (elements) that recipe value v is known to have. */
static int64_t value_div(const IrFunc *f, IrTmaValue v) {
  if (v.arg < 0) return axis_pow2_divisor(v.value);
  return f->args[v.arg].divisibility;
}

bool pass_tma_tile(IrModule *m, const Op *load, const Layout *shared, TmaTile *out) {
  return pass_tma_tile_at(m, load->operands[0], load->operands[1], load->operands[2], shared, out);
}

bool pass_tma_tile_at(IrModule *m, const Value *ptr, const Value *mask, const Value *other, const Layout *shared,
                      TmaTile *out) {
  IrFunc *f = m->func;
  const Type *pt = ptr->type;
  memset(out, 0, sizeof *out);
  if (m->capability < 90 || pt->rank != 2 || !shared || shared->kind != LAY_SHARED || !zero_value(other))
    return false;
  /* ptr = addptr(...addptr(splat(base), off1)..., offn): every offset affine */
  Term t[2] = {{0}};
  const Value *p = strip(ptr);
  while (p && p->def && p->def->kind == OP_ADDPTR) {
    Term u[2] = {{0}};
    if (!affine(p->def->operands[1], pt->shape, u)) return false;
    for (int k = 0; k < 2; k++) {
      if (u[k].x && t[k].x) return false;
      if (u[k].x) t[k] = u[k];
    }
    p = strip(p->def->operands[0]);
  }
  Outer outer[IR_TMA_MAX_RANK - 2];
  int nouter = 0;
  int base_arg = base_of(f, splatted(p), outer, &nouter, IR_TMA_MAX_RANK - 2);
  if (base_arg < 0 || f->args[base_arg].divisibility < 16) return false;
  int cdim = shared->order[0], rdim = 1 - cdim;
  if (!t[0].x || !t[1].x || t[cdim].stride) return false; /* the contiguous dim's stride is 1 */
  IrTmaValue stride;
  if (!tma_value(f, t[rdim].stride, &stride)) return false;
  DType dt = pt->pointee->dtype;
  int eb = dt_bits(dt) / 8;
  if (eb < 1 || (value_div(f, stride) * eb) % 16 || !stride_fits(stride, eb)) return false;
  for (int k = 0; k < nouter; k++)
    if ((value_div(f, outer[k].stride) * eb) % 16 || !stride_fits(outer[k].stride, eb)) return false;
  IrTmaValue bound[2] = {{-1, 0x7fffffff}, {-1, 0x7fffffff}};
  bool has[2] = {false, false};
  if (mask && !mask_bounds(f, mask, t, bound, has)) return false;
  int64_t inner = pt->shape[cdim], rows = pt->shape[rdim];
  int64_t W = shared->block > 0 && shared->block < inner ? shared->block : inner;
  int swz = (int)(W * eb);
  if ((swz != 32 && swz != 64 && swz != 128) || W > 256 || rows > 256 || inner % W) return false;
  IrTmaDesc *d = &out->desc;
  d->base_arg = base_arg;
  d->dtype = dt;
  d->rank = 2 + nouter;
  d->dims[0] = bound[cdim], d->dims[1] = bound[rdim];
  d->strides[0] = (IrTmaValue){-1, 1}, d->strides[1] = stride;
  d->box[0] = (int)W, d->box[1] = (int)rows;
  d->swizzle = swz;
  for (int k = 0; k < 2; k++) {
    const Value *start = NULL;
    index_like(t[k == 0 ? cdim : rdim].x, pt->shape[k == 0 ? cdim : rdim], &start);
    out->coord[k] = (Value *)start;
  }
  for (int k = 0; k < nouter; k++) {
    d->dims[2 + k] = (IrTmaValue){-1, 0x7fffffff};
    d->strides[2 + k] = outer[k].stride;
    d->box[2 + k] = 1;
    out->coord[2 + k] = (Value *)outer[k].coord;
  }
  out->cdim = cdim;
  return true;
}

static bool same_value(IrTmaValue a, IrTmaValue b) { return a.arg == b.arg && (a.arg >= 0 || a.value == b.value); }

int pass_tma_map(IrModule *m, const IrTmaDesc *d) {
  IrFunc *f = m->func;
  for (int i = 0; i < f->ntma; i++) {
    const IrTmaDesc *e = &f->tma[i];
    bool same = e->base_arg == d->base_arg && e->dtype == d->dtype && e->rank == d->rank && e->swizzle == d->swizzle;
    for (int k = 0; same && k < d->rank; k++)
      same = same_value(e->dims[k], d->dims[k]) && same_value(e->strides[k], d->strides[k]) && e->box[k] == d->box[k];
    if (same) return i;
  }
  return ir_func_add_tma(m, f, d);
}
