/* canonicalize.c — the clean-up pass: constant folding, algebraic
 * identities, CSE, DCE and the simplification of structured control flow,
 * iterated to a fixpoint.
 *
 * Owns the exact integer and floating-point arithmetic of the IR's types at
 * compile time (shared with axis_info.c through pass_internal.h).  Owns no
 * layout decisions: it runs before and after assign-layouts and only merges
 * or removes ops whose types (layouts included) already agree.
 *
 * One round is three phases:
 *   1. a pre-order sweep that resolves each op's operands through the
 *      replacements found so far, folds the op (constants, identities,
 *      convert_layout chains, IF on a constant), moves constants out of
 *      regions to the function's top level, and otherwise looks the op up
 *      in a scoped CSE table.  The table holds the ops of the current block
 *      and of the enclosing blocks seen before the current region's op, so
 *      a match always dominates;
 *   2. DCE of pure ops (and non-volatile loads, and FOR/IF made only of
 *      such ops) whose results are unused, in reverse program order;
 *   3. FOR loop-carried values: one whose yield passes its block argument
 *      through unchanged is replaced by its init and removed; one whose
 *      result is unused and whose block argument feeds only pure ops that
 *      end up back in its own yield slot is first turned into the former.
 *      IF results: one nothing uses, or one both branches yield the same
 *      value for (replaced by that value), is removed.
 * Rounds repeat while anything changed (at most CANON_MAX_ROUNDS).
 *
 * Folding rules: integers wrap at their width and follow their type's
 * signedness; division and remainder truncate like C; a division by zero or
 * a shift by the width or more is left alone (undefined at run time).  Floats
 * are computed in double and rounded to the result type (f32 through
 * (float), f16 and bf16 by round-to-nearest-even); NaN operands, fp8, and
 * transcendental functions (whose GPU versions are approximate) are never
 * folded. */
#include "passes/pass_internal.h"

#include <math.h>
#include <string.h>

enum { CANON_MAX_ROUNDS = 16 };

/* ---- integer arithmetic of the IR's types ------------------------------------- */

int64_t pass_int_norm(DType d, int64_t v) {
  int bits = dt_bits(d);
  if (bits <= 0 || bits >= 64) return v;
  uint64_t mask = ((uint64_t)1 << bits) - 1;
  uint64_t u = (uint64_t)v & mask;
  if (dt_is_signed(d) && (u >> (bits - 1)) & 1) u |= ~mask;
  return (int64_t)u;
}

bool pass_fold_int_binary(OpKind k, DType d, int64_t a, int64_t b, int64_t *out) {
  int bits = dt_bits(d);
  bool sgn = dt_is_signed(d);
  uint64_t ua = (uint64_t)a, ub = (uint64_t)b, r;
  switch (k) {
  case OP_ADD: r = ua + ub; break;
  case OP_SUB: r = ua - ub; break;
  case OP_MUL: r = ua * ub; break;
  case OP_DIV: case OP_REM:
    if (b == 0) return false;
    if (sgn && b == -1) r = k == OP_DIV ? (uint64_t)0 - ua : 0; /* no INT64_MIN / -1 trap */
    else if (sgn) r = (uint64_t)(k == OP_DIV ? a / b : a % b);
    else r = k == OP_DIV ? ua / ub : ua % ub;
    break;
  case OP_AND: r = ua & ub; break;
  case OP_OR: r = ua | ub; break;
  case OP_XOR: r = ua ^ ub; break;
  case OP_SHL: case OP_SHR:
    if (ub >= (uint64_t)bits) return false; /* also catches negative amounts */
    if (k == OP_SHL) r = ua << ub;
    else if (sgn && a < 0) r = ~(~ua >> ub); /* arithmetic */
    else r = ua >> ub;
    break;
  case OP_MIN: r = (sgn ? a < b : ua < ub) ? ua : ub; break;
  case OP_MAX: r = (sgn ? a > b : ua > ub) ? ua : ub; break;
  default: return false;
  }
  *out = pass_int_norm(d, (int64_t)r);
  return true;
}

bool pass_fold_int_cmp(CmpPred p, DType d, int64_t a, int64_t b) {
  uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
  int c = dt_is_signed(d) ? (a < b ? -1 : a > b) : (ua < ub ? -1 : ua > ub);
  switch (p) {
  case CMP_EQ: return c == 0;
  case CMP_NE: return c != 0;
  case CMP_LT: return c < 0;
  case CMP_LE: return c <= 0;
  case CMP_GT: return c > 0;
  case CMP_GE: return c >= 0;
  }
  return false;
}

/* ---- floating point ------------------------------------------------------------- */

/* Round x to a binary format with `mant` stored mantissa bits, smallest
 * normal exponent `emin` and largest finite value `maxv`, to nearest even. */
static double round_ieee(double x, int mant, int emin, double maxv) {
  if (x != x || isinf(x) || x == 0) return x;
  int e;
  (void)frexp(x, &e);           /* x = m * 2^e, 0.5 <= |m| < 1 */
  int lead = e - 1 < emin ? emin : e - 1;
  double q = ldexp(1.0, lead - mant);
  double r = nearbyint(x / q) * q;
  if (fabs(r) > maxv) return copysign(INFINITY, x);
  return r;
}

static bool float_foldable(DType d) { return d == DT_F16 || d == DT_BF16 || d == DT_F32 || d == DT_F64; }

static double round_to(DType d, double x) {
  switch (d) {
  case DT_F32: return (double)(float)x;
  case DT_F16: return round_ieee(x, 10, -14, ldexp(2.0 - ldexp(1.0, -10), 15));
  case DT_BF16: return round_ieee(x, 7, -126, ldexp(2.0 - ldexp(1.0, -7), 127));
  default: return x;
  }
}

/* ---- constants -------------------------------------------------------------------- */

typedef struct Const {
  bool isf;
  int64_t i;  /* normalized to the type */
  double f;
} Const;

static bool const_of(const Value *v, Const *c) {
  if (!v || !v->def || v->def->kind != OP_CONSTANT) return false;
  DType d = v->type->dtype;
  if (dt_is_float(d)) {
    if (!float_foldable(d)) return false;
    *c = (Const){true, 0, v->def->attr.fval};
    return true;
  }
  if (!dt_is_int(d)) return false; /* pointers stay as they are */
  *c = (Const){false, pass_int_norm(d, v->def->attr.ival), 0};
  return true;
}

/* A constant of any element type, for the ops that only move it (splat,
 * broadcast, layout changes): fp8 constants, which arithmetic never folds,
 * still become tensor constants. */
static bool const_moved(const Value *v, Const *c) {
  if (const_of(v, c)) return true;
  if (!v || !v->def || v->def->kind != OP_CONSTANT || !dt_is_float(v->type->dtype)) return false;
  *c = (Const){true, 0, v->def->attr.fval};
  return true;
}

static bool is_int_const(const Value *v, int64_t want) {
  Const c;
  return const_of(v, &c) && !c.isf && c.i == pass_int_norm(v->type->dtype, want);
}

static bool is_float_const(const Value *v, double want, bool neg_zero) {
  Const c;
  return const_of(v, &c) && c.isf && c.f == want && (want != 0 || (signbit(c.f) != 0) == neg_zero);
}

/* ---- the pass state ------------------------------------------------------------------ */

typedef struct CseEntry {
  uint64_t hash;
  Op *op;
  int next;          /* older entry of the same bucket, -1 at the end */
} CseEntry;

typedef struct Canon {
  IrModule *m;
  IrFunc *f;
  ValueMap vm;       /* replacements found in this sweep */
  int *heads;        /* CSE buckets: index of the newest entry, -1 = empty */
  uint32_t nbuckets;
  VEC(CseEntry) cse;
  int changes;
} Canon;

static Value *resolve(Canon *C, Value *v) {
  for (Value *n; v && (n = vmap_get(&C->vm, v)) != v;) v = n;
  return v;
}

static Value *make_const(Canon *C, Op *before, const Type *t, Const c) {
  const Type *rt[1] = {t};
  Op *k = ir_op_new(C->m, C->f, OP_CONSTANT, before->loc, NULL, 0, rt, 1, 0);
  if (c.isf) {
    k->attr.fval = c.f;
  } else {
    k->attr.ival = c.i;
    k->attr.fval = (double)c.i;
  }
  ir_insert_before(before, k);
  return k->results[0];
}

static Value *int_result(Canon *C, Op *op, int64_t v) {
  const Type *t = op->results[0]->type;
  return make_const(C, op, t, (Const){false, pass_int_norm(t->dtype, v), 0});
}

/* ---- folding --------------------------------------------------------------------------- */

static bool is_all_ones(const Value *v) { return is_int_const(v, -1); }

/* x op y with a constant on one side that makes the op trivial. */
static Value *fold_identity(Op *op) {
  Value *x = op->operands[0], *y = op->operands[1];
  bool ints = dt_is_int(op->results[0]->type->dtype);
  switch (op->kind) {
  case OP_ADD:
    if (ints && is_int_const(y, 0)) return x;
    if (ints && is_int_const(x, 0)) return y;
    if (!ints && is_float_const(y, 0.0, true)) return x; /* x + -0.0 == x, also for x = -0.0 */
    break;
  case OP_SUB:
    if (ints && is_int_const(y, 0)) return x;
    if (!ints && is_float_const(y, 0.0, false)) return x;
    break;
  case OP_MUL:
    if (ints && (is_int_const(y, 0) || is_int_const(x, 1))) return y;
    if (ints && (is_int_const(x, 0) || is_int_const(y, 1))) return x;
    if (!ints && is_float_const(y, 1.0, false)) return x;
    if (!ints && is_float_const(x, 1.0, false)) return y;
    break;
  case OP_DIV:
    if (ints && is_int_const(y, 1)) return x;
    break;
  case OP_AND:
    if (is_all_ones(y) || is_int_const(x, 0) || x == y) return x;
    if (is_all_ones(x) || is_int_const(y, 0)) return y;
    break;
  case OP_OR:
    if (is_int_const(y, 0) || is_all_ones(x) || x == y) return x;
    if (is_int_const(x, 0) || is_all_ones(y)) return y;
    break;
  case OP_XOR:
    if (is_int_const(y, 0)) return x;
    if (is_int_const(x, 0)) return y;
    break;
  case OP_SHL: case OP_SHR:
    if (is_int_const(y, 0)) return x;
    break;
  case OP_MIN: case OP_MAX:
    if (ints && x == y) return x;
    break;
  case OP_ADDPTR:
    if (is_int_const(y, 0)) return x;
    break;
  default:
    break;
  }
  return NULL;
}

static Value *fold_binary(Canon *C, Op *op) {
  Const a, b;
  if (!const_of(op->operands[0], &a) || !const_of(op->operands[1], &b)) return NULL;
  const Type *rt = op->results[0]->type;
  if (op->kind == OP_CMP) {
    DType d = op->operands[0]->type->dtype;
    bool r;
    if (a.isf) {
      if (a.f != a.f || b.f != b.f) return NULL; /* ordered vs unordered is codegen's call */
      int c = a.f < b.f ? -1 : a.f > b.f;
      r = op->attr.pred == CMP_EQ ? c == 0 : op->attr.pred == CMP_NE ? c != 0
        : op->attr.pred == CMP_LT ? c < 0 : op->attr.pred == CMP_LE ? c <= 0
        : op->attr.pred == CMP_GT ? c > 0 : c >= 0;
    } else {
      r = pass_fold_int_cmp(op->attr.pred, d, a.i, b.i);
    }
    return int_result(C, op, r);
  }
  if (!a.isf) {
    int64_t r;
    if (!pass_fold_int_binary(op->kind, rt->dtype, a.i, b.i, &r)) return NULL;
    return int_result(C, op, r);
  }
  if (a.f != a.f || b.f != b.f) return NULL;
  double r;
  switch (op->kind) {
  case OP_ADD: r = a.f + b.f; break;
  case OP_SUB: r = a.f - b.f; break;
  case OP_MUL: r = a.f * b.f; break;
  case OP_DIV: r = a.f / b.f; break;
  case OP_MIN: r = a.f < b.f ? a.f : a.f > b.f ? b.f : (signbit(a.f) ? a.f : b.f); break;
  case OP_MAX: r = a.f > b.f ? a.f : a.f < b.f ? b.f : (signbit(a.f) ? b.f : a.f); break;
  default: return NULL;
  }
  return make_const(C, op, rt, (Const){true, 0, round_to(rt->dtype, r)});
}

static Value *fold_unary(Canon *C, Op *op) {
  Const a;
  if (!const_of(op->operands[0], &a)) return NULL;
  const Type *rt = op->results[0]->type;
  if (!a.isf) {
    switch (op->kind) {
    case OP_NEG: return int_result(C, op, (int64_t)(0 - (uint64_t)a.i));
    case OP_NOT: return int_result(C, op, ~a.i);
    case OP_ABS:
      return int_result(C, op, dt_is_signed(rt->dtype) && a.i < 0 ? (int64_t)(0 - (uint64_t)a.i) : a.i);
    default: return NULL;
    }
  }
  switch (op->kind) {
  case OP_NEG: return make_const(C, op, rt, (Const){true, 0, -a.f});
  case OP_ABS: return make_const(C, op, rt, (Const){true, 0, fabs(a.f)});
  default: return NULL;
  }
}

static Value *fold_cast(Canon *C, Op *op) {
  Const a;
  if (!const_of(op->operands[0], &a)) return NULL;
  const Type *rt = op->results[0]->type;
  DType from = op->operands[0]->type->dtype, to = rt->dtype;
  if (to == DT_I1 || to == DT_PTR || (dt_is_float(to) && !float_foldable(to))) return NULL;
  if (op->attr.rounding == ROUND_RTZ) return NULL; /* the folding rounds to nearest */
  if (!a.isf && dt_is_int(to)) return int_result(C, op, a.i);
  if (!a.isf) {
    bool sgn = dt_is_signed(from);
    if (sgn ? (a.i > ((int64_t)1 << 53) || a.i < -((int64_t)1 << 53)) : (uint64_t)a.i > ((uint64_t)1 << 53))
      return NULL; /* not exact in double: would round twice */
    double x = sgn ? (double)a.i : (double)(uint64_t)a.i;
    return make_const(C, op, rt, (Const){true, 0, round_to(to, x)});
  }
  if (dt_is_float(to)) return make_const(C, op, rt, (Const){true, 0, round_to(to, a.f)});
  /* float -> int: truncate; out of range is poison at run time, leave it */
  if (a.f != a.f || isinf(a.f)) return NULL;
  double t = trunc(a.f);
  int bits = dt_bits(to);
  if (dt_is_signed(to)) {
    double lo = -ldexp(1.0, bits - 1), hi = ldexp(1.0, bits - 1);
    if (t < lo || t >= hi) return NULL;
    return int_result(C, op, (int64_t)t);
  }
  if (t < 0 || t >= ldexp(1.0, bits)) return NULL;
  return int_result(C, op, (int64_t)(uint64_t)t);
}

/* A value that replaces op's (single) result, or NULL. */
static Value *fold(Canon *C, Op *op) {
  Value *const *o = op->operands;
  const Type *rt = op->nresults == 1 ? op->results[0]->type : NULL;
  Const c;
  switch (op->kind) {
  case OP_SPLAT: case OP_BROADCAST: case OP_EXPAND_DIMS: case OP_RESHAPE: case OP_TRANS:
    if (const_moved(o[0], &c)) return make_const(C, op, rt, c);
    if (o[0]->type != rt) return NULL;
    if (op->kind == OP_TRANS) /* a square tile keeps its type: only the identity is a no-op */
      for (int d = 0; d < rt->rank; d++)
        if (op->attr.perm[d] != d) return NULL;
    return o[0];
  case OP_FLIP: /* a splat constant, or a dim of one element, reads the same flipped */
    if (const_moved(o[0], &c)) return make_const(C, op, rt, c);
    return rt && rt->rank > op->attr.axis && rt->shape[op->attr.axis] == 1 ? o[0] : NULL;
  case OP_CONVERT_LAYOUT:
    if (o[0]->def && o[0]->def->kind == OP_CONVERT_LAYOUT) {
      op->operands[0] = o[0]->def->operands[0]; /* convert(convert(x)) = convert(x) */
      C->changes++;
    }
    if (o[0]->type == rt) return o[0];
    if (const_moved(o[0], &c)) return make_const(C, op, rt, c);
    return NULL;
  case OP_ASSUME:
    return const_of(o[0], &c) ? o[0] : NULL; /* a hint on a constant says nothing new */
  case OP_SELECT:
    if (const_of(o[0], &c) && !c.isf) return c.i ? o[1] : o[2];
    if (o[1] == o[2]) return o[1];
    return NULL;
  case OP_CAST:
    if (o[0]->type == rt) return o[0];
    return fold_cast(C, op);
  case OP_NEG: case OP_NOT: case OP_ABS:
    return fold_unary(C, op);
  case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_REM: case OP_AND: case OP_OR:
  case OP_XOR: case OP_SHL: case OP_SHR: case OP_MIN: case OP_MAX: case OP_CMP: case OP_ADDPTR: {
    Value *v = op->kind == OP_CMP ? NULL : fold_identity(op);
    if (v) return v;
    if (op->kind == OP_SUB && o[0] == o[1] && dt_is_int(rt->dtype)) return int_result(C, op, 0);
    if (op->kind == OP_ADDPTR) return NULL;
    return fold_binary(C, op);
  }
  default:
    return NULL;
  }
}

/* ---- CSE ------------------------------------------------------------------------------------ */

static uint64_t mix(uint64_t h, uint64_t v) {
  h = (h ^ v) * 0x100000001b3ull;
  return h ^ (h >> 29); /* high bits into the low ones the bucket index takes */
}

static bool is_constant_op(const Value *v) { return v && v->def && v->def->kind == OP_CONSTANT; }

static uint64_t op_hash(const Op *op) {
  uint64_t h = mix(0xcbf29ce484222325ull, (uint64_t)op->kind);
  bool comm = ir_op_info[op->kind].traits & TR_COMMUTATIVE;
  uint64_t sym = 0;
  for (int i = 0; i < op->noperands; i++) {
    uint64_t id = op->operands[i] ? op->operands[i]->id + 1 : 0;
    if (comm) sym += id * 0x9e3779b97f4a7c15ull;
    else h = mix(h, id);
  }
  h = mix(h, sym);
  for (int i = 0; i < op->nresults; i++) h = mix(h, op->results[i]->type->id);
  const OpAttrs *a = &op->attr;
  /* A constant is its ival or its fval by its type (attrs_equal): the other
   * field may hold anything and must not split equal constants. */
  bool fconst = op->kind == OP_CONSTANT && dt_is_float(op->results[0]->type->dtype);
  if (op->kind != OP_CONSTANT || !fconst) h = mix(h, (uint64_t)a->ival);
  uint64_t fbits = 0; /* float constants differ only here: without it they share one chain */
  memcpy(&fbits, &a->fval, sizeof fbits < sizeof a->fval ? sizeof fbits : sizeof a->fval);
  if (op->kind != OP_CONSTANT || fconst) h = mix(h, fbits);
  h = mix(h, (uint64_t)a->axis);
  h = mix(h, (uint64_t)a->start), h = mix(h, (uint64_t)a->end);
  h = mix(h, (uint64_t)a->pred);
  return h;
}

static bool str_eq(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

static bool attrs_equal(const Op *x, const Op *y) {
  const OpAttrs *a = &x->attr, *b = &y->attr;
  if (x->kind == OP_CONSTANT) {
    if (dt_is_float(x->results[0]->type->dtype)) return !memcmp(&a->fval, &b->fval, sizeof a->fval);
    return a->ival == b->ival;
  }
  return a->ival == b->ival && !memcmp(&a->fval, &b->fval, sizeof a->fval) && a->axis == b->axis &&
         a->start == b->start && a->end == b->end && !memcmp(a->perm, b->perm, sizeof a->perm) &&
         a->pred == b->pred && a->combine == b->combine && a->rmw == b->rmw && a->sem == b->sem &&
         a->scope == b->scope && a->cache == b->cache && a->evict == b->evict &&
         a->is_volatile == b->is_volatile && a->precise == b->precise &&
         a->propagate_nan == b->propagate_nan && a->rounding == b->rounding && a->vec == b->vec &&
         a->precision == b->precision && a->max_imprecise == b->max_imprecise && a->fn == b->fn &&
         !memcmp(a->hint_div, b->hint_div, sizeof a->hint_div) &&
         !memcmp(a->hint_contig, b->hint_contig, sizeof a->hint_contig) && str_eq(a->str, b->str) &&
         a->hex == b->hex && a->reverse == b->reverse &&
         a->smem_offset == b->smem_offset;
}

static bool ops_equal(const Op *x, const Op *y) {
  if (x->kind != y->kind || x->noperands != y->noperands || x->nresults != y->nresults) return false;
  for (int i = 0; i < x->nresults; i++)
    if (x->results[i]->type != y->results[i]->type) return false;
  bool same = true;
  for (int i = 0; i < x->noperands && same; i++) same = x->operands[i] == y->operands[i];
  if (!same && (ir_op_info[x->kind].traits & TR_COMMUTATIVE) && x->noperands == 2)
    same = x->operands[0] == y->operands[1] && x->operands[1] == y->operands[0];
  return same && attrs_equal(x, y);
}

static bool cse_candidate(const Op *op) {
  return (ir_op_info[op->kind].traits & TR_PURE) && op->nregions == 0 && op->nresults > 0;
}

/* Returns an equivalent dominating op, or records op and returns NULL. */
static Op *cse_lookup_or_insert(Canon *C, Op *op) {
  uint64_t h = op_hash(op);
  uint32_t b = (uint32_t)h & (C->nbuckets - 1);
  for (int e = C->heads[b]; e >= 0; e = C->cse.data[e].next)
    if (C->cse.data[e].hash == h && ops_equal(C->cse.data[e].op, op)) return C->cse.data[e].op;
  CseEntry ent = {h, op, C->heads[b]};
  C->heads[b] = C->cse.len;
  VEC_PUSH(C->cse, ent);
  return NULL;
}

/* Leave a region: forget its entries (always the newest of their buckets). */
static void cse_pop(Canon *C, int mark) {
  while (C->cse.len > mark) {
    CseEntry *e = &C->cse.data[--C->cse.len];
    C->heads[(uint32_t)e->hash & (C->nbuckets - 1)] = e->next;
  }
}

/* ---- phase 1: the sweep ------------------------------------------------------------------- */

static void replace_results(Canon *C, Op *op, Value *const *with) {
  for (int i = 0; i < op->nresults; i++) vmap_set(&C->vm, op->results[i], with[i]);
  ir_remove(op);
  C->changes++;
}

/* IF on a constant: splice the taken region in place of the op.  Returns
 * the first spliced op (to be visited next), or `next`. */
static Op *inline_if(Canon *C, Op *op, bool taken, Op *next) {
  IrBlock *r = taken ? op->regions[0] : op->nregions > 1 ? op->regions[1] : NULL;
  Op *first = NULL, *y = r && r->last && r->last->kind == OP_YIELD ? r->last : NULL;
  if (op->nresults && !y) return next; /* malformed: leave it to the verifier */
  if (r) {
    for (Op *x = r->first, *nx; x && x != y; x = nx) {
      nx = x->next;
      ir_remove(x);
      ir_insert_before(op, x);
      if (!first) first = x;
    }
  }
  for (int i = 0; i < op->nresults; i++) vmap_set(&C->vm, op->results[i], y->operands[i]);
  ir_remove(op);
  C->changes++;
  return first ? first : next;
}

static void sweep_block(Canon *C, IrBlock *b);

static Op *visit(Canon *C, Op *op, Op *next) {
  for (int i = 0; i < op->noperands; i++) {
    Value *r = resolve(C, op->operands[i]);
    if (r != op->operands[i]) op->operands[i] = r, C->changes++;
  }
  Const c;
  if (op->kind == OP_IF && const_of(op->operands[0], &c) && !c.isf) return inline_if(C, op, c.i != 0, next);
  if (op->kind == OP_CONSTANT && op->parent->parent) {
    /* constants live at the top level, where CSE merges them across loops */
    Op *top = op->parent->parent;
    while (top->parent && top->parent->parent) top = top->parent->parent;
    ir_remove(op);
    ir_insert_before(top, op);
    C->changes++;
    return next;
  }
  if (op->nresults == 1 && (ir_op_info[op->kind].traits & TR_PURE)) {
    Value *v = fold(C, op);
    if (v) {
      replace_results(C, op, &v);
      return next;
    }
  }
  /* commutative ops keep their constant on the right */
  if ((ir_op_info[op->kind].traits & TR_COMMUTATIVE) && op->noperands == 2 &&
      is_constant_op(op->operands[0]) && !is_constant_op(op->operands[1])) {
    Value *t = op->operands[0];
    op->operands[0] = op->operands[1], op->operands[1] = t;
    C->changes++;
  }
  if (cse_candidate(op)) {
    Op *prev = cse_lookup_or_insert(C, op);
    if (prev) {
      replace_results(C, op, prev->results);
      return next;
    }
  }
  for (int r = 0; r < op->nregions; r++) sweep_block(C, op->regions[r]);
  return next;
}

static void sweep_block(Canon *C, IrBlock *b) {
  int mark = C->cse.len;
  for (Op *op = b->first, *next; op; op = next) next = visit(C, op, op->next);
  cse_pop(C, mark);
}

static int sweep(IrModule *m) {
  Canon C = {.m = m, .f = m->func};
  C.nbuckets = 64;
  while (C.nbuckets < 2 * (m->func->nops + 1)) C.nbuckets *= 2;
  C.heads = xmalloc(sizeof(int) * C.nbuckets);
  memset(C.heads, 0xff, sizeof(int) * C.nbuckets);
  sweep_block(&C, m->func->body);
  free(C.heads);
  VEC_FREE(C.cse);
  vmap_free(&C.vm);
  return C.changes;
}

/* ---- phase 2: DCE ---------------------------------------------------------------------------- */

static bool removable(const Op *op);

static bool region_removable(const IrBlock *b) {
  for (const Op *x = b->first; x; x = x->next)
    if (x->kind != OP_YIELD && !removable(x)) return false;
  return true;
}

/* Could op disappear if nothing used its results? */
static bool removable(const Op *op) {
  if (op->kind == OP_LOAD) return !op->attr.is_volatile;
  if (op->kind == OP_FOR || op->kind == OP_IF || op->kind == OP_SCAN || op->kind == OP_REDUCE) {
    for (int r = 0; r < op->nregions; r++)
      if (!region_removable(op->regions[r])) return false;
    return true;
  }
  return (ir_op_info[op->kind].traits & TR_PURE) && op->nregions == 0;
}

static void drop_uses(int *uses, Op *op) {
  for (int i = 0; i < op->noperands; i++)
    if (op->operands[i]) uses[op->operands[i]->id]--;
  for (int r = 0; r < op->nregions; r++)
    for (Op *x = op->regions[r]->first; x; x = x->next) drop_uses(uses, x);
}

static int dce(IrModule *m) {
  IrFunc *f = m->func;
  int *uses = ir_use_counts(f), n, changes = 0;
  Op **ops = ir_collect_ops(f, &n);
  for (int i = n - 1; i >= 0; i--) {
    Op *op = ops[i];
    if (!op->parent || !removable(op)) continue;
    bool used = false;
    for (int r = 0; r < op->nresults && !used; r++) used = uses[op->results[r]->id] > 0;
    if (used) continue;
    drop_uses(uses, op);
    ir_remove(op);
    changes++;
  }
  free(ops);
  free(uses);
  return changes;
}

/* ---- phase 3: loop-carried values ------------------------------------------------------------ */

void pass_users_build(IrFunc *f, PassUsers *u) {
  int n;
  Op **ops = ir_collect_ops(f, &n);
  u->nvalues = f->nvalues;
  u->start = xcalloc(f->nvalues + 2, sizeof(int));
  int total = 0;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < ops[i]->noperands; k++)
      if (ops[i]->operands[k]) u->start[ops[i]->operands[k]->id + 1]++, total++;
  for (uint32_t v = 0; v < f->nvalues; v++) u->start[v + 1] += u->start[v];
  u->op = xcalloc((size_t)total + 1, sizeof(Op *));
  int *fill = xcalloc(f->nvalues + 1, sizeof(int));
  for (int i = 0; i < n; i++)
    for (int k = 0; k < ops[i]->noperands; k++) {
      Value *v = ops[i]->operands[k];
      if (v) u->op[u->start[v->id] + fill[v->id]++] = ops[i];
    }
  free(fill);
  free(ops);
}

void pass_users_free(PassUsers *u) {
  free(u->start), free(u->op);
  u->start = NULL, u->op = NULL;
}

/* Does block argument `arg` (slot i) feed only pure ops whose values end in
 * yield slot i?  Then, with the loop's result unused, nothing observes it. */
static bool slot_is_dead(IrFunc *f, const PassUsers *u, Value *arg, Op *yield, int slot) {
  VEC(Value *) work = {0};
  uint8_t *seen = xcalloc(f->nvalues + 1, 1);
  bool dead = true;
  VEC_PUSH(work, arg);
  seen[arg->id] = 1;
  while (work.len && dead) {
    Value *v = work.data[--work.len];
    for (int k = u->start[v->id]; k < u->start[v->id + 1] && dead; k++) {
      Op *x = u->op[k];
      if (x == yield) {
        for (int j = 0; j < yield->noperands; j++)
          if (yield->operands[j] == v && j != slot) dead = false;
        continue;
      }
      if (!(ir_op_info[x->kind].traits & TR_PURE) || x->nregions) {
        dead = false;
        break;
      }
      for (int r = 0; r < x->nresults; r++)
        if (!seen[x->results[r]->id]) {
          seen[x->results[r]->id] = 1;
          VEC_PUSH(work, x->results[r]);
        }
    }
  }
  VEC_FREE(work);
  free(seen);
  return dead;
}

/* Rebuild FOR `op` keeping only the loop-carried slots with keep[i]. */
static void rebuild_for(IrModule *m, Op *op, const bool *keep) {
  IrFunc *f = m->func;
  IrBlock *body = op->regions[0];
  Op *y = body->last;
  int n = op->noperands - 3, k = 0;
  Value **ops = xcalloc((size_t)op->noperands + 1, sizeof(Value *));
  const Type **rts = xcalloc((size_t)n + 1, sizeof(Type *));
  for (int i = 0; i < 3; i++) ops[i] = op->operands[i];
  for (int i = 0; i < n; i++)
    if (keep[i]) ops[3 + k] = op->operands[3 + i], rts[k++] = op->results[i]->type;
  Op *nf = ir_op_new(m, f, OP_FOR, op->loc, ops, 3 + k, rts, k, 0);
  nf->attr = op->attr;
  nf->regions = op->regions;
  nf->nregions = op->nregions;
  body->parent = nf;
  Value **args = ARENA_ARRAY(m->arena, Value *, k + 1);
  args[0] = body->args[0];
  for (int i = 0, j = 0; i < n; i++) {
    if (!keep[i]) continue;
    args[1 + j] = body->args[1 + i];
    args[1 + j]->index = 1 + j;
    y->operands[j] = y->operands[i];
    nf->results[j]->name = op->results[i]->name;
    ir_replace_uses(op->parent, op->results[i], nf->results[j]);
    j++;
  }
  body->args = args;
  body->nargs = k + 1;
  y->noperands = k;
  ir_insert_before(op, nf);
  ir_remove(op);
  free(ops);
  free(rts);
}

static int simplify_loops(IrModule *m) {
  IrFunc *f = m->func;
  int n, changes = 0;
  Op **ops = ir_collect_ops(f, &n);
  PassUsers u;
  pass_users_build(f, &u);
  for (int i = 0; i < n; i++) {
    Op *op = ops[i];
    if (op->kind != OP_FOR || !op->parent || op->nregions != 1) continue;
    IrBlock *body = op->regions[0];
    Op *y = body->last;
    int nc = op->noperands - 3;
    if (nc <= 0 || !y || y->kind != OP_YIELD || y->noperands != nc || body->nargs != nc + 1) continue;
    bool *keep = xcalloc((size_t)nc, sizeof(bool));
    bool drop_any = false;
    for (int s = 0; s < nc; s++) {
      Value *arg = body->args[1 + s], *res = op->results[s];
      keep[s] = true;
      if (y->operands[s] != arg && u.start[res->id] == u.start[res->id + 1] &&
          slot_is_dead(f, &u, arg, y, s)) {
        /* nobody observes the slot: let it carry its block argument, which
         * the next case removes; what fed the yield dies in DCE */
        y->operands[s] = arg;
        changes++;
      }
      if (y->operands[s] == arg) {
        Value *init = op->operands[3 + s];
        ir_replace_uses(body, arg, init);
        ir_replace_uses(op->parent, res, init);
        keep[s] = false;
        drop_any = true;
      }
    }
    if (drop_any) {
      rebuild_for(m, op, keep);
      changes++;
    }
    free(keep);
  }
  pass_users_free(&u);
  free(ops);
  return changes;
}

/* ---- phase 3b: IF results ---------------------------------------------------------------------- */

/* A result of an IF that nothing uses, or for which both branches yield the
 * same value (defined outside both, so it dominates the IF), is dropped from
 * the IF and its yields (the exit guards of specialization yield every
 * variable they might change, most of them unused afterwards). */
static int simplify_ifs(IrModule *m) {
  IrFunc *f = m->func;
  int n, changes = 0;
  Op **ops = ir_collect_ops(f, &n);
  int *uses = ir_use_counts(f);
  for (int i = 0; i < n; i++) {
    Op *op = ops[i];
    if (op->kind != OP_IF || !op->parent || op->nregions != 2 || !op->nresults) continue;
    Op *y[2];
    bool good = true;
    for (int r = 0; r < 2; r++) {
      y[r] = op->regions[r]->last;
      good &= y[r] && y[r]->kind == OP_YIELD && y[r]->noperands == op->nresults;
    }
    if (!good) continue;
    int nr = op->nresults, k = 0;
    bool *keep = xcalloc((size_t)nr, sizeof(bool));
    for (int j = 0; j < nr; j++) {
      Value *res = op->results[j];
      if (y[0]->operands[j] == y[1]->operands[j]) ir_replace_uses(op->parent, res, y[0]->operands[j]);
      else keep[j] = uses[res->id] > 0;
      k += keep[j];
    }
    if (k == nr) {
      free(keep);
      continue;
    }
    const Type **rts = xcalloc((size_t)k + 1, sizeof(Type *));
    for (int j = 0, t = 0; j < nr; j++)
      if (keep[j]) rts[t++] = op->results[j]->type;
    Op *ni = ir_op_new(m, f, OP_IF, op->loc, op->operands, 1, rts, k, 0);
    ni->attr = op->attr;
    ni->regions = op->regions;
    ni->nregions = op->nregions;
    for (int r = 0; r < 2; r++) op->regions[r]->parent = ni;
    for (int j = 0, t = 0; j < nr; j++) {
      if (!keep[j]) continue;
      for (int r = 0; r < 2; r++) y[r]->operands[t] = y[r]->operands[j];
      ni->results[t]->name = op->results[j]->name;
      ir_replace_uses(op->parent, op->results[j], ni->results[t]);
      t++;
    }
    y[0]->noperands = y[1]->noperands = k;
    ir_insert_before(op, ni);
    ir_remove(op);
    free(rts);
    free(keep);
    changes++;
  }
  free(uses);
  free(ops);
  return changes;
}

/* ---- the pass ------------------------------------------------------------------------------------ */

/* ---- acc + dot(a, b, 0)  ->  dot(a, b, acc) ---------------------------------------------

 * `acc += tl.dot(a, b)` specializes to an add of a fresh dot; fusing the
 * accumulator into the dot saves a whole-tile add per step (and lets the
 * tensor cores accumulate in place). */

static bool zero_tensor(const Value *v) {
  return is_float_const(v, 0.0, false) || is_float_const(v, 0.0, true) || is_int_const(v, 0);
}

/* v is available at `at`: a block argument of at's block or an enclosing
 * one, or defined earlier in at's block. */
static bool available_at(const Value *v, const Op *at) {
  if (!v->def) {
    for (const IrBlock *b = at->parent; b; b = b->parent ? b->parent->parent : NULL)
      if (b == v->block) return true;
    return false;
  }
  for (const Op *o = at->prev; o; o = o->prev)
    if (o == v->def) return true;
  return false;
}

static int fuse_dot_acc(IrModule *m) {
  int n, changes = 0;
  Op **ops = ir_collect_ops(m->func, &n);
  int *uses = ir_use_counts(m->func);
  for (int i = 0; i < n; i++) {
    Op *add = ops[i];
    if (add->kind != OP_ADD || !add->parent || !dt_is_float(add->results[0]->type->dtype)) continue;
    for (int side = 0; side < 2; side++) {
      Value *d = add->operands[side], *acc = add->operands[1 - side];
      Op *dot = d->def;
      if (!dot || dot->kind != OP_DOT || uses[d->id] != 1 || !zero_tensor(dot->operands[2])) continue;
      /* an fp8 dot that may sum imprecisely keeps its fp32 add (Triton's rule) */
      if (dot->attr.max_imprecise) continue;
      if (d->type != add->results[0]->type || acc->type != d->type || !available_at(acc, dot)) continue;
      dot->operands[2] = acc;
      ir_replace_uses(m->func->body, add->results[0], d);
      ir_remove(add);
      changes++;
      break;
    }
  }
  free(uses);
  free(ops);
  return changes;
}

int pass_canonicalize(IrModule *m, StrBuf *errors) {
  (void)errors;
  if (!m->func) return 0;
  for (int round = 0; round < CANON_MAX_ROUNDS; round++) {
    int changes = sweep(m);
    changes += dce(m);
    changes += simplify_loops(m);
    changes += simplify_ifs(m);
    changes += fuse_dot_acc(m);
    if (!changes) break;
  }
  return 0;
}
