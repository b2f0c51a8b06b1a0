/* axis_info.c — the AxisInfo analysis: for every integer / pointer value,
 * per dim, how long its runs of consecutive values are (contiguity), what
 * power of two divides the first element of each run (divisibility; bytes
 * for pointers), how long its runs of equal values are (constancy), and
 * its value when it is a known constant.
 *
 * Owns the transfer rules (one per op kind, Triton's AxisInfo rules as the
 * reference for the facts) and the fixpoint over loop-carried values.  Owns
 * no rewriting: coalesce.c and layouts.c read the result.
 *
 * Conventions.  Every fact is a lower bound that holds for every element:
 * "contiguity 4" means the dim splits into aligned groups of 4 whose values
 * go v, v+1, v+2, v+3.  Scalars are rank 0 and keep their facts in dim 0
 * (contiguity 1, constancy 1).  The pessimistic state is all ones.  The
 * analysis is one forward walk in program order; FOR and WHILE start their
 * loop-carried values at the init facts and join (gcd, min) with what the
 * body yields until nothing changes, which terminates because every join
 * only lowers a fact.
 *
 *   offs = pid * 1024 + arange(0, 1024)     contiguity [1024]  div [1024]
 *   ptrs = addptr(splat(x_ptr :16), offs)    contiguity [1024]  div [16] bytes
 *   mask = offs < splat(n :16)               constancy  [16]
 */
#include "passes/pass_internal.h"

#include <string.h>

enum { AXIS_MAX_ITERS = 32 }; /* loop fixpoint rounds before giving up to pessimism */

typedef struct Axis {
  IrModule *m;
  AxisInfo *info; /* by Value.id */
  uint32_t n;
} Axis;

/* ---- lattice helpers ------------------------------------------------------- */

int64_t axis_gcd(int64_t a, int64_t b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b) {
    int64_t t = a % b;
    a = b, b = t;
  }
  return a;
}

static int64_t gcd3(int64_t a, int64_t b, int64_t c) { return axis_gcd(axis_gcd(a, b), c); }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

int64_t axis_pow2_divisor(int64_t v) {
  if (v == 0) return AXIS_MAX_DIV;
  uint64_t u = (uint64_t)v;
  uint64_t low = u & (~u + 1);
  return low >= (uint64_t)AXIS_MAX_DIV ? AXIS_MAX_DIV : (int64_t)low;
}

static int64_t mul_cap(int64_t a, int64_t b) {
  if (a <= 0 || b <= 0) return 1;
  if (a > AXIS_MAX_DIV / b) return AXIS_MAX_DIV;
  return a * b;
}

static int ndims(const Type *t) { return t->rank ? t->rank : 1; }
static int64_t dim_size(const Type *t, int d) { return t->rank ? t->shape[d] : 1; }

static AxisInfo pessimistic(const Type *t) {
  AxisInfo a;
  memset(&a, 0, sizeof a);
  a.rank = t->rank;
  for (int d = 0; d < ndims(t); d++) a.contiguity[d] = a.divisibility[d] = a.constancy[d] = 1;
  return a;
}

/* Every element equals `v` (a splat or scalar constant). */
static AxisInfo known_const(const Type *t, int64_t v) {
  AxisInfo a = pessimistic(t);
  for (int d = 0; d < ndims(t); d++) {
    a.divisibility[d] = axis_pow2_divisor(v);
    a.constancy[d] = dim_size(t, d);
  }
  a.has_const = true;
  a.const_val = v;
  return a;
}

static bool same_info(const AxisInfo *a, const AxisInfo *b) {
  if (a->rank != b->rank || a->has_const != b->has_const) return false;
  if (a->has_const && a->const_val != b->const_val) return false;
  int n = a->rank ? a->rank : 1;
  for (int d = 0; d < n; d++)
    if (a->contiguity[d] != b->contiguity[d] || a->divisibility[d] != b->divisibility[d] ||
        a->constancy[d] != b->constancy[d])
      return false;
  return true;
}

/* Divisibility of the first element of each run when runs of length
 * cl (from one side) and cr (from the other) are merged: a shorter run
 * starts inside a longer one, so the run lengths bound it too. */
static int64_t div_merge(const AxisInfo *l, const AxisInfo *r, int d) {
  int64_t g = axis_gcd(l->divisibility[d], r->divisibility[d]);
  if (l->contiguity[d] == r->contiguity[d]) return g;
  return gcd3(g, l->contiguity[d], r->contiguity[d]);
}

/* What holds for a value that is either a or b. */
static AxisInfo join(const AxisInfo *a, const AxisInfo *b) {
  AxisInfo j;
  memset(&j, 0, sizeof j);
  j.rank = a->rank;
  int n = a->rank ? a->rank : 1;
  for (int d = 0; d < n; d++) {
    j.contiguity[d] = axis_gcd(a->contiguity[d], b->contiguity[d]);
    j.divisibility[d] = div_merge(a, b, d);
    j.constancy[d] = axis_gcd(a->constancy[d], b->constancy[d]);
  }
  if (a->has_const && b->has_const && a->const_val == b->const_val)
    j.has_const = true, j.const_val = a->const_val;
  return j;
}

static AxisInfo *at(Axis *A, const Value *v) { return &A->info[v->id]; }
static void set(Axis *A, const Value *v, AxisInfo a) {
  a.rank = v->type->rank;
  A->info[v->id] = a;
}

static bool is_int_like(const Type *t) { return dt_is_int(t->dtype); }

/* ---- transfer rules ------------------------------------------------------------ */

/* Runs of equal inputs give equal outputs for any elementwise function. */
static AxisInfo elementwise_constancy(Axis *A, const Op *op) {
  const Type *rt = op->results[0]->type;
  AxisInfo r = pessimistic(rt);
  for (int d = 0; d < ndims(rt); d++) r.constancy[d] = dim_size(rt, d);
  for (int i = 0; i < op->noperands; i++) {
    const Value *o = op->operands[i];
    if (!o || o->type->rank != rt->rank) continue; /* scalars are constant everywhere */
    for (int d = 0; d < ndims(rt); d++) r.constancy[d] = axis_gcd(r.constancy[d], at(A, o)->constancy[d]);
  }
  return r;
}

static AxisInfo rule_add_sub(const Op *op, const AxisInfo *l, const AxisInfo *r, int64_t rhs_scale) {
  const Type *rt = op->results[0]->type;
  AxisInfo a = pessimistic(rt);
  for (int d = 0; d < ndims(rt); d++) {
    if (op->kind == OP_SUB) /* a decreasing rhs breaks the runs */
      a.contiguity[d] = axis_gcd(l->contiguity[d], r->constancy[d]);
    else
      a.contiguity[d] = max64(axis_gcd(l->constancy[d], r->contiguity[d]),
                              axis_gcd(l->contiguity[d], r->constancy[d]));
    a.divisibility[d] = axis_gcd(l->divisibility[d], mul_cap(r->divisibility[d], rhs_scale));
    a.constancy[d] = axis_gcd(l->constancy[d], r->constancy[d]);
  }
  return a;
}

static bool is_const_eq(const AxisInfo *a, int64_t v) { return a->has_const && a->const_val == v; }

static AxisInfo rule_mul(const Type *rt, const AxisInfo *l, const AxisInfo *r) {
  AxisInfo a = pessimistic(rt);
  for (int d = 0; d < ndims(rt); d++) {
    int64_t c = 1;
    if (is_const_eq(r, 1)) c = l->contiguity[d];
    if (is_const_eq(l, 1)) c = max64(c, r->contiguity[d]);
    a.contiguity[d] = c;
    /* [2^n, 2^n+1, ...] only promises 2^n for its first element */
    int64_t dl = l->contiguity[d] > 1 && !is_const_eq(r, 1) ? 1 : l->divisibility[d];
    int64_t dr = r->contiguity[d] > 1 && !is_const_eq(l, 1) ? 1 : r->divisibility[d];
    a.divisibility[d] = mul_cap(dl, dr);
    a.constancy[d] = axis_gcd(l->constancy[d], r->constancy[d]);
  }
  return a;
}

static AxisInfo rule_div(const Type *rt, const AxisInfo *l, const AxisInfo *r) {
  AxisInfo a = pessimistic(rt);
  for (int d = 0; d < ndims(rt); d++) {
    int64_t S = dim_size(rt, d);
    a.contiguity[d] = is_const_eq(r, 1) ? l->contiguity[d] : 1;
    int64_t c = axis_gcd(l->constancy[d], r->constancy[d]);
    /* an aligned contiguous run divided by a constant whose divisibility
     * relates to the run's start stays constant over gcd(...) elements */
    if (l->contiguity[d] >= S && r->constancy[d] >= S)
      c = max64(c, gcd3(l->contiguity[d], l->divisibility[d], r->divisibility[d]));
    a.constancy[d] = c;
    int64_t dv = 1;
    if (is_const_eq(l, 0) || is_const_eq(r, 1)) {
      dv = l->divisibility[d];
    } else if (r->has_const && r->const_val != 0 && l->contiguity[d] == 1) {
      int64_t q = r->const_val < 0 ? -r->const_val : r->const_val;
      if ((q & (q - 1)) == 0) dv = max64(1, l->divisibility[d] / q);
    }
    a.divisibility[d] = dv;
  }
  return a;
}

static AxisInfo rule_rem(const Type *rt, const AxisInfo *l, const AxisInfo *r) {
  AxisInfo a = pessimistic(rt);
  for (int d = 0; d < ndims(rt); d++) {
    int64_t S = dim_size(rt, d);
    if (l->contiguity[d] >= S && r->constancy[d] >= S)
      a.contiguity[d] = gcd3(l->contiguity[d], l->divisibility[d], r->divisibility[d]);
    a.divisibility[d] = r->constancy[d] > 1 ? axis_gcd(l->divisibility[d], r->divisibility[d]) : 1;
    a.constancy[d] = is_const_eq(r, 1) ? S : axis_gcd(l->constancy[d], r->constancy[d]);
  }
  if (is_const_eq(r, 1)) {
    AxisInfo z = known_const(rt, 0);
    return z;
  }
  return a;
}

static AxisInfo rule_shift(OpKind k, const Type *rt, const AxisInfo *l, const AxisInfo *r) {
  AxisInfo a = pessimistic(rt);
  int bits = dt_bits(rt->dtype);
  for (int d = 0; d < ndims(rt); d++) {
    a.contiguity[d] = is_const_eq(r, 0) ? l->contiguity[d] : 1;
    a.constancy[d] = axis_gcd(l->constancy[d], r->constancy[d]);
    int64_t sh = r->has_const ? r->const_val : -1;
    int64_t dl = l->contiguity[d] > 1 && sh != 0 ? 1 : l->divisibility[d];
    if (k == OP_SHL) {
      /* x << s keeps every factor of x whatever s is */
      a.divisibility[d] = sh > 0 && sh < bits && sh < 31 ? mul_cap(dl, (int64_t)1 << sh) : dl;
    } else {
      a.divisibility[d] = sh >= 0 && sh < 31 ? max64(1, dl >> sh) : 1;
    }
  }
  return a;
}

static AxisInfo rule_minmax(const Type *rt, const AxisInfo *l, const AxisInfo *r) {
  AxisInfo a = pessimistic(rt);
  for (int d = 0; d < ndims(rt); d++) {
    a.contiguity[d] = axis_gcd(l->contiguity[d], r->contiguity[d]);
    a.divisibility[d] = div_merge(l, r, d);
    a.constancy[d] = axis_gcd(l->constancy[d], r->constancy[d]);
  }
  return a;
}

/* (l PRED r) where one side is an aligned contiguous run and the other a
 * constant: the result flips at most at the constant, which sits on a
 * multiple of the common divisibility, so it is constant over gcd(...). */
static AxisInfo rule_cmp(const Op *op, const AxisInfo *l, const AxisInfo *r) {
  const Type *rt = op->results[0]->type, *ot = op->operands[0]->type;
  AxisInfo a = pessimistic(rt);
  bool ints = is_int_like(ot);
  CmpPred p = op->attr.pred;
  for (int d = 0; d < ndims(rt); d++) {
    int64_t S = dim_size(rt, d);
    int64_t c = axis_gcd(l->constancy[d], r->constancy[d]);
    if (ints && (p == CMP_GT || p == CMP_LE) && l->constancy[d] >= S)
      c = max64(c, gcd3(r->contiguity[d], l->divisibility[d], r->divisibility[d]));
    else if (ints && (p == CMP_LT || p == CMP_GE) && r->constancy[d] >= S)
      c = max64(c, gcd3(l->contiguity[d], l->divisibility[d], r->divisibility[d]));
    a.constancy[d] = min64(c, S);
  }
  return a;
}

static AxisInfo rule_select(Axis *A, const Op *op) {
  const Type *rt = op->results[0]->type;
  const AxisInfo *c = at(A, op->operands[0]), *l = at(A, op->operands[1]), *r = at(A, op->operands[2]);
  if (c->has_const) return c->const_val ? *l : *r;
  AxisInfo a = pessimistic(rt);
  bool scalar_cond = op->operands[0]->type->rank == 0;
  for (int d = 0; d < ndims(rt); d++) {
    int64_t cc = scalar_cond ? dim_size(rt, d) : c->constancy[d];
    a.constancy[d] = gcd3(l->constancy[d], r->constancy[d], cc);
    a.contiguity[d] = gcd3(l->contiguity[d], r->contiguity[d], cc);
    a.divisibility[d] = div_merge(l, r, d);
  }
  if (l->has_const && r->has_const && l->const_val == r->const_val)
    a.has_const = true, a.const_val = l->const_val;
  return a;
}

static AxisInfo rule_expand_dims(const Op *op, const AxisInfo *s) {
  const Type *rt = op->results[0]->type;
  int axis = op->attr.axis;
  AxisInfo a = pessimistic(rt);
  int64_t nd = 1;
  if (s->has_const) {
    nd = axis_pow2_divisor(s->const_val);
  } else {
    for (int d = 0; d < ndims(op->operands[0]->type); d++) {
      int64_t dd = s->contiguity[d] > 1 ? 1 : s->divisibility[d];
      nd = d == 0 ? dd : axis_gcd(nd, dd);
    }
  }
  for (int i = 0, j = 0; i < rt->rank; i++) {
    if (i == axis) {
      a.contiguity[i] = 1, a.divisibility[i] = nd, a.constancy[i] = 1;
      continue;
    }
    a.contiguity[i] = s->contiguity[j], a.divisibility[i] = s->divisibility[j];
    a.constancy[i] = s->constancy[j];
    j++;
  }
  a.has_const = s->has_const, a.const_val = s->const_val;
  return a;
}

static AxisInfo rule_broadcast(const Op *op, const AxisInfo *s) {
  const Type *rt = op->results[0]->type, *st = op->operands[0]->type;
  AxisInfo a = pessimistic(rt);
  for (int d = 0; d < rt->rank; d++) {
    bool grown = st->shape[d] == 1 && rt->shape[d] != 1;
    a.contiguity[d] = grown ? 1 : s->contiguity[d];
    a.divisibility[d] = s->divisibility[d];
    a.constancy[d] = grown ? rt->shape[d] : s->constancy[d];
  }
  a.has_const = s->has_const, a.const_val = s->const_val;
  return a;
}

static AxisInfo rule_cast(const Op *op, const AxisInfo *s) {
  const Type *rt = op->results[0]->type, *st = op->operands[0]->type;
  AxisInfo a = pessimistic(rt);
  for (int d = 0; d < ndims(rt); d++) a.constancy[d] = s->constancy[d];
  DType from = st->dtype, to = rt->dtype;
  bool keep_contig = false, keep_div = false;
  if (dt_is_int(from) && dt_is_int(to) && to != DT_I1 && from != DT_I1) {
    /* widening keeps every fact; narrowing below 32 bits may wrap runs */
    keep_div = true;
    keep_contig = dt_bits(to) >= dt_bits(from) || dt_bits(to) >= 32;
    if (s->has_const) return known_const(rt, pass_int_norm(to, s->const_val));
  } else if (from == DT_PTR && to == DT_PTR) {
    keep_div = true; /* bytes */
    keep_contig = ty_elem_bytes(st->pointee) == ty_elem_bytes(rt->pointee);
  } else if ((from == DT_PTR && dt_is_int(to) && dt_bits(to) == 64) ||
             (to == DT_PTR && dt_is_int(from) && dt_bits(from) == 64)) {
    /* an address as an integer: divisibility in bytes carries over, runs
     * of elements are runs of integers only for byte-sized elements */
    const Type *pt = from == DT_PTR ? st->pointee : rt->pointee;
    keep_div = true;
    keep_contig = ty_elem_bytes(pt) == 1;
  }
  for (int d = 0; d < ndims(rt); d++) {
    if (keep_div) a.divisibility[d] = s->divisibility[d];
    if (keep_contig) a.contiguity[d] = s->contiguity[d];
  }
  return a;
}

static AxisInfo rule_reduce(const Op *op, const AxisInfo *s, int result) {
  const Type *rt = op->results[result]->type;
  AxisInfo a = pessimistic(rt);
  int axis = op->attr.axis;
  bool ints = is_int_like(op->operands[0]->type) && result == 0;
  CombineKind k = op->attr.combine;
  for (int i = 0, j = 0; j < rt->rank; i++) {
    if (i == axis) continue;
    /* equal inputs along dim i reduce to equal outputs */
    a.constancy[j] = s->constancy[i];
    if (ints && (k == COMBINE_MAX || k == COMBINE_MIN)) {
      /* max_k (v_k + t) = max_k v_k + t: runs survive */
      a.contiguity[j] = s->contiguity[i];
      a.divisibility[j] = s->divisibility[i];
    } else if (ints && k == COMBINE_SUM && s->contiguity[i] == 1) {
      a.divisibility[j] = s->divisibility[i];
    }
    j++;
  }
  return a;
}

static void transfer(Axis *A, Op *op) {
  if (op->nresults == 0) return;
  const Type *rt = op->results[0]->type;
  Value *const *o = op->operands;
  AxisInfo r = pessimistic(rt);
  switch (op->kind) {
  case OP_CONSTANT:
    if (dt_is_int(rt->dtype) || rt->dtype == DT_PTR) {
      r = known_const(rt, rt->dtype == DT_PTR ? op->attr.ival : pass_int_norm(rt->dtype, op->attr.ival));
    } else {
      for (int d = 0; d < ndims(rt); d++) r.constancy[d] = dim_size(rt, d);
    }
    break;
  case OP_ARANGE:
    r.contiguity[0] = op->attr.end - op->attr.start;
    r.divisibility[0] = axis_pow2_divisor(op->attr.start);
    break;
  case OP_SPLAT: {
    const AxisInfo *s = at(A, o[0]);
    for (int d = 0; d < rt->rank; d++) r.divisibility[d] = s->divisibility[0], r.constancy[d] = rt->shape[d];
    r.has_const = s->has_const, r.const_val = s->const_val;
    break;
  }
  case OP_BROADCAST: r = rule_broadcast(op, at(A, o[0])); break;
  case OP_EXPAND_DIMS: r = rule_expand_dims(op, at(A, o[0])); break;
  case OP_RESHAPE: {
    const AxisInfo *s = at(A, o[0]);
    if (s->has_const) {
      r = known_const(rt, s->const_val);
      break;
    }
    bool all_const = true;
    for (int d = 0; d < ndims(o[0]->type); d++) all_const &= s->constancy[d] >= dim_size(o[0]->type, d);
    if (all_const)
      for (int d = 0; d < ndims(rt); d++) r.constancy[d] = dim_size(rt, d);
    break;
  }
  case OP_TRANS: {
    const AxisInfo *s = at(A, o[0]);
    for (int d = 0; d < rt->rank; d++) {
      int p = op->attr.perm[d];
      r.contiguity[d] = s->contiguity[p], r.divisibility[d] = s->divisibility[p];
      r.constancy[d] = s->constancy[p];
    }
    r.has_const = s->has_const, r.const_val = s->const_val;
    break;
  }
  case OP_CONVERT_LAYOUT: r = *at(A, o[0]); break;
  case OP_ASSUME:
    r = *at(A, o[0]);
    for (int d = 0; d < ndims(rt); d++) {
      if (op->attr.hint_div[d] > 0) r.divisibility[d] = min64(op->attr.hint_div[d], AXIS_MAX_DIV);
      if (op->attr.hint_contig[d] > 0) r.contiguity[d] = min64(op->attr.hint_contig[d], dim_size(rt, d));
    }
    break;
  case OP_CAST: r = rule_cast(op, at(A, o[0])); break;
  case OP_BITCAST:
    if (dt_is_int(rt->dtype) && dt_is_int(o[0]->type->dtype)) {
      r = *at(A, o[0]);
      if (r.has_const) r = known_const(rt, pass_int_norm(rt->dtype, r.const_val));
    } else {
      r = elementwise_constancy(A, op);
    }
    break;
  case OP_ADDPTR: {
    int64_t eb = ty_elem_bytes(rt->pointee);
    r = rule_add_sub(op, at(A, o[0]), at(A, o[1]), eb);
    break;
  }
  case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_REM: case OP_SHL: case OP_SHR:
  case OP_AND: case OP_OR: case OP_XOR: case OP_MIN: case OP_MAX: {
    if (!is_int_like(rt)) {
      r = elementwise_constancy(A, op);
      break;
    }
    const AxisInfo *l = at(A, o[0]), *rr = at(A, o[1]);
    int64_t folded;
    if (l->has_const && rr->has_const &&
        pass_fold_int_binary(op->kind, rt->dtype, l->const_val, rr->const_val, &folded)) {
      r = known_const(rt, folded);
      break;
    }
    switch (op->kind) {
    case OP_ADD: case OP_SUB: r = rule_add_sub(op, l, rr, 1); break;
    case OP_MUL: r = rule_mul(rt, l, rr); break;
    case OP_DIV: r = rule_div(rt, l, rr); break;
    case OP_REM: r = rule_rem(rt, l, rr); break;
    case OP_SHL: case OP_SHR: r = rule_shift(op->kind, rt, l, rr); break;
    case OP_MIN: case OP_MAX: r = rule_minmax(rt, l, rr); break;
    default: r = elementwise_constancy(A, op); break; /* and, or, xor */
    }
    break;
  }
  case OP_CMP: {
    const AxisInfo *l = at(A, o[0]), *rr = at(A, o[1]);
    if (l->has_const && rr->has_const && is_int_like(o[0]->type)) {
      r = known_const(rt, pass_fold_int_cmp(op->attr.pred, o[0]->type->dtype, l->const_val, rr->const_val));
      break;
    }
    r = rule_cmp(op, l, rr);
    break;
  }
  case OP_SELECT: r = rule_select(A, op); break;
  case OP_LOAD: {
    /* equal addresses (and equal masks / fill values) load equal values */
    const AxisInfo *p = at(A, o[0]);
    for (int d = 0; d < ndims(rt); d++) {
      int64_t c = p->constancy[d];
      if (o[1]) c = axis_gcd(c, at(A, o[1])->constancy[d]);
      if (o[1] && o[2]) c = axis_gcd(c, at(A, o[2])->constancy[d]);
      r.constancy[d] = c;
    }
    break;
  }
  case OP_REDUCE:
    for (int i = 0; i < op->nresults; i++) set(A, op->results[i], rule_reduce(op, at(A, o[0]), i));
    return;
  case OP_PROGRAM_ID: case OP_NUM_PROGRAMS: case OP_DOT: case OP_ATOMIC_RMW: case OP_ATOMIC_CAS:
    break;
  default:
    if (ir_op_info[op->kind].traits & TR_ELEMENTWISE) r = elementwise_constancy(A, op);
    break;
  }
  for (int i = 0; i < op->nresults; i++)
    set(A, op->results[i], i == 0 ? r : pessimistic(op->results[i]->type));
}

/* ---- the walk --------------------------------------------------------------------- */

static void analyze_block(Axis *A, IrBlock *b);

static Op *terminator(IrBlock *b, OpKind k, int nops) {
  Op *t = b->last;
  return t && t->kind == k && t->noperands == nops ? t : NULL;
}

static void analyze_for(Axis *A, Op *op) {
  IrBlock *body = op->regions[0];
  int n = op->noperands - 3;
  if (body->nargs != n + 1) return;
  AxisInfo iv = pessimistic(body->args[0]->type);
  iv.divisibility[0] =
      axis_gcd(at(A, op->operands[0])->divisibility[0], at(A, op->operands[2])->divisibility[0]);
  set(A, body->args[0], iv);
  for (int i = 0; i < n; i++) set(A, body->args[i + 1], *at(A, op->operands[3 + i]));
  Op *y = terminator(body, OP_YIELD, n);
  for (int round = 0;; round++) {
    analyze_block(A, body);
    if (!y) break;
    bool changed = false;
    for (int i = 0; i < n; i++) {
      AxisInfo j = join(at(A, body->args[i + 1]), at(A, y->operands[i]));
      if (!same_info(&j, at(A, body->args[i + 1]))) set(A, body->args[i + 1], j), changed = true;
    }
    if (!changed) break;
    if (round == AXIS_MAX_ITERS) {
      for (int i = 0; i < n; i++) set(A, body->args[i + 1], pessimistic(body->args[i + 1]->type));
      analyze_block(A, body);
      break;
    }
  }
  for (int i = 0; i < op->nresults && i < n; i++)
    set(A, op->results[i], y ? *at(A, body->args[i + 1]) : pessimistic(op->results[i]->type));
}

static void analyze_if(Axis *A, Op *op) {
  for (int r = 0; r < op->nregions; r++) analyze_block(A, op->regions[r]);
  Op *t = op->nregions == 2 ? terminator(op->regions[0], OP_YIELD, op->nresults) : NULL;
  Op *e = op->nregions == 2 ? terminator(op->regions[1], OP_YIELD, op->nresults) : NULL;
  for (int i = 0; i < op->nresults; i++)
    set(A, op->results[i], t && e ? join(at(A, t->operands[i]), at(A, e->operands[i]))
                                  : pessimistic(op->results[i]->type));
}

static void analyze_while(Axis *A, Op *op) {
  IrBlock *before = op->regions[0], *after = op->regions[1];
  int n = op->noperands;
  Op *c = terminator(before, OP_CONDITION, op->nresults + 1);
  Op *y = terminator(after, OP_YIELD, n);
  bool ok = c && y && before->nargs == n && after->nargs == op->nresults;
  for (int i = 0; i < before->nargs && i < n; i++) set(A, before->args[i], *at(A, op->operands[i]));
  for (int round = 0;; round++) {
    analyze_block(A, before);
    for (int i = 0; i < after->nargs; i++)
      set(A, after->args[i], ok ? *at(A, c->operands[1 + i]) : pessimistic(after->args[i]->type));
    analyze_block(A, after);
    if (!ok) break;
    bool changed = false;
    for (int i = 0; i < n; i++) {
      AxisInfo j = join(at(A, before->args[i]), at(A, y->operands[i]));
      if (!same_info(&j, at(A, before->args[i]))) set(A, before->args[i], j), changed = true;
    }
    if (!changed) break;
    if (round == AXIS_MAX_ITERS) {
      for (int i = 0; i < n; i++) set(A, before->args[i], pessimistic(before->args[i]->type));
      ok = false; /* one more pessimistic round below */
      analyze_block(A, before);
      for (int i = 0; i < after->nargs; i++) set(A, after->args[i], pessimistic(after->args[i]->type));
      analyze_block(A, after);
      break;
    }
  }
  for (int i = 0; i < op->nresults; i++)
    set(A, op->results[i], ok ? *at(A, c->operands[1 + i]) : pessimistic(op->results[i]->type));
}

static void analyze_block(Axis *A, IrBlock *b) {
  for (Op *op = b->first; op; op = op->next) {
    switch (op->kind) {
    case OP_FOR: analyze_for(A, op); break;
    case OP_IF: analyze_if(A, op); break;
    case OP_WHILE: analyze_while(A, op); break;
    default: transfer(A, op); break;
    }
  }
}

AxisInfo *axis_analyze(IrModule *m) {
  IrFunc *f = m->func;
  Axis A = {.m = m, .n = f->nvalues};
  A.info = xcalloc(f->nvalues ? f->nvalues : 1, sizeof(AxisInfo));
  for (int i = 0; i < f->body->nargs; i++) set(&A, f->body->args[i], pessimistic(f->body->args[i]->type));
  for (int i = 0; i < f->nargs; i++) {
    const KernelArg *ka = &f->args[i];
    const Type *t = ka->value->type;
    if (t->rank == 0 && (t->dtype == DT_PTR || dt_is_int(t->dtype)) && ka->divisibility > 1)
      at(&A, ka->value)->divisibility[0] = axis_pow2_divisor(ka->divisibility);
  }
  analyze_block(&A, f->body);
  return A.info;
}
