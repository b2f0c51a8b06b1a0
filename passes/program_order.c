/* program_order.c — the pass "program-order": which program a launched
 * block runs, when the programs' work grows with program_id(0).
 *
 * The GPU starts blocks in launch order (x fastest, then y, then z) as
 * slots free up.  In a causal attention forward the loop over key blocks of
 * program (m, head) runs m+1 times: in launch order the last blocks started
 * are the heaviest of the last heads, and the SMs that took the light ones
 * before them sit idle while those finish.  This pass finds such kernels;
 * codegen (cg_program_order.c) then hands the blocks out heaviest first:
 * the grid's rows (one row: the programs sharing y and z) are taken in
 * groups of IR_PROGRAM_ORDER_GROUP, and inside a group block after block
 * gets program_id(0) from the largest down, one row after the other, so
 * the blocks of a group that run at the same time still read the same few
 * rows' data (attention: the keys and values of a few heads, which stay in
 * L2) and the last blocks started are the lightest.
 *
 * Programs are independent in the Triton model: which block runs which
 * program is the compiler's choice.  A kernel whose programs may wait for
 * each other (atomics, a while loop, a volatile load) keeps the launch
 * order, since its author may rely on the lower ids having started first.
 *
 * The test: every loop's trip count, (ub - lb) / step, as a function of
 * program_id(0): a * program_id(0) + something independent of it, or only
 * known to grow, or to shrink, or unknown.  The order changes when one
 * loop's trip count grows with program_id(0) and none shrinks or is
 * unknown.  Sets m->program_order; changes no op. */
#include "passes/pass_internal.h"

#include <stdint.h>

/* A scalar as a function of program_id(0) = p, the other ids and every
 * argument fixed: exactly a * p + (what does not depend on p), or only
 * non-decreasing, or only non-increasing, or unknown. */
typedef enum { SL_LINEAR, SL_UP, SL_DOWN, SL_UNKNOWN } SlopeKind;
typedef struct Slope {
  SlopeKind kind;
  int64_t a;   /* SL_LINEAR */
} Slope;

static const Slope kUnknown = {SL_UNKNOWN, 0};

static Slope linear(int64_t a) { return (Slope){SL_LINEAR, a}; }

static bool rising(Slope s) { return s.kind == SL_UP || (s.kind == SL_LINEAR && s.a >= 0); }
static bool falling(Slope s) { return s.kind == SL_DOWN || (s.kind == SL_LINEAR && s.a <= 0); }

static Slope sl_scale(Slope s, int64_t c) {
  if (c == 0) return linear(0);
  switch (s.kind) {
  case SL_LINEAR:
    if (s.a > INT32_MAX || s.a < -INT32_MAX || c > INT32_MAX || c < -INT32_MAX) return kUnknown;
    return linear(s.a * c);
  case SL_UP: return (Slope){c > 0 ? SL_UP : SL_DOWN, 0};
  case SL_DOWN: return (Slope){c > 0 ? SL_DOWN : SL_UP, 0};
  default: return kUnknown;
  }
}

/* What x + y, min(x, y) and max(x, y) share when they are not both
 * exact: growing when both grow, shrinking when both shrink. */
static Slope sl_monotone(Slope x, Slope y) {
  if (x.kind == SL_UNKNOWN || y.kind == SL_UNKNOWN) return kUnknown;
  if (rising(x) && rising(y)) return (Slope){SL_UP, 0};
  if (falling(x) && falling(y)) return (Slope){SL_DOWN, 0};
  return kUnknown;
}

static Slope sl_add(Slope x, Slope y) {
  if (x.kind == SL_LINEAR && y.kind == SL_LINEAR) return sl_scale(linear(x.a + y.a), 1); /* bounds a */
  return sl_monotone(x, y);
}

static bool const_int(const Value *v, int64_t *out) {
  if (!v || !v->def || v->def->kind != OP_CONSTANT || v->type->rank || !dt_is_int(v->type->dtype))
    return false;
  *out = v->def->attr.ival;
  return true;
}

/* The walk up the definitions of one loop bound: a value reached along two
 * paths is visited twice, so the visits are counted, not only the depth. */
typedef struct Walk {
  const IrFunc *f;
  int budget;
  const Value *fixed[8]; /* induction variables taken as independent of p */
  int nfixed;
} Walk;

/* How scalar v moves with p. */
static Slope slope(Walk *w, const Value *v, int depth) {
  if (!v || v->type->rank || depth > 64 || --w->budget < 0) return kUnknown;
  const IrFunc *f = w->f;
  const Op *d = v->def;
  if (!d) { /* a kernel argument, or a loop's or branch's block argument */
    for (int i = 0; i < f->nargs; i++)
      if (f->args[i].value == v) return linear(0);
    for (int i = 0; i < w->nfixed; i++)
      if (w->fixed[i] == v) return linear(0);
    return kUnknown;
  }
  int64_t c;
  switch (d->kind) {
  case OP_CONSTANT: case OP_NUM_PROGRAMS:
    return linear(0);
  case OP_PROGRAM_ID:
    return linear(d->attr.axis == 0);
  case OP_ASSUME:
    return slope(w, d->operands[0], depth + 1);
  case OP_CAST: /* an integer widening keeps the value; a narrowing may wrap */
    if (!dt_is_int(d->operands[0]->type->dtype) || !dt_is_int(v->type->dtype) ||
        dt_bits(v->type->dtype) < dt_bits(d->operands[0]->type->dtype))
      break;
    return slope(w, d->operands[0], depth + 1);
  case OP_ADD:
    return sl_add(slope(w, d->operands[0], depth + 1), slope(w, d->operands[1], depth + 1));
  case OP_SUB:
    return sl_add(slope(w, d->operands[0], depth + 1), sl_scale(slope(w, d->operands[1], depth + 1), -1));
  case OP_MUL:
    for (int i = 0; i < 2; i++)
      if (const_int(d->operands[i], &c)) return sl_scale(slope(w, d->operands[1 - i], depth + 1), c);
    break;
  case OP_DIV: /* by a positive constant: (a*p + b) / c is (a/c)*p + b/c when c divides a */
    if (const_int(d->operands[1], &c) && c > 0) {
      Slope s = slope(w, d->operands[0], depth + 1);
      if (s.kind != SL_LINEAR) return s;
      if (s.a % c == 0) return linear(s.a / c);
      return (Slope){s.a > 0 ? SL_UP : SL_DOWN, 0};
    }
    break;
  case OP_MIN: case OP_MAX: {
    Slope x = slope(w, d->operands[0], depth + 1), y = slope(w, d->operands[1], depth + 1);
    if (x.kind == SL_LINEAR && y.kind == SL_LINEAR && x.a == y.a) return x;
    return sl_monotone(x, y);
  }
  default:
    break;
  }
  /* Anything else: independent of p when all it reads is. */
  for (int i = 0; i < d->noperands; i++) {
    if (!d->operands[i]) continue;
    Slope s = slope(w, d->operands[i], depth + 1);
    if (s.kind != SL_LINEAR || s.a != 0) return kUnknown;
  }
  return d->nregions ? kUnknown : linear(0);
}

/* How the truth of scalar condition v moves with p, for fixed induction
 * variables: TR_UP when true at p implies true at every larger p (the set of
 * iterations that take a branch only grows), TR_DOWN the reverse, TR_FLAT
 * independent of p. */
typedef enum { TR_FLAT, TR_UP, TR_DOWN, TR_UNKNOWN } Trend;

static Trend tr_not(Trend t) { return t == TR_UP ? TR_DOWN : t == TR_DOWN ? TR_UP : t; }

static bool const_bool(const Value *v, bool *out) {
  if (!v || !v->def || v->def->kind != OP_CONSTANT || v->type->rank || v->type->dtype != DT_I1) return false;
  *out = v->def->attr.ival != 0;
  return true;
}

/* The value a one-op block yields (an if's branch: `yield %c`). */
static const Value *yielded(const IrBlock *b, int i) {
  const Op *y = b ? b->last : NULL;
  return y && y->kind == OP_YIELD && i < y->noperands ? y->operands[i] : NULL;
}

static Trend trend(Walk *w, const Value *v, int depth) {
  if (!v || v->type->rank || v->type->dtype != DT_I1 || depth > 16 || --w->budget < 0) return TR_UNKNOWN;
  const Op *d = v->def;
  bool k;
  if (const_bool(v, &k)) return TR_FLAT;
  if (!d) return TR_UNKNOWN;
  switch (d->kind) {
  case OP_CMP: { /* a < b grows with b - a */
    if (!dt_is_int(d->operands[0]->type->dtype)) break;
    Slope gap = sl_add(slope(w, d->operands[1], 0), sl_scale(slope(w, d->operands[0], 0), -1));
    if (gap.kind == SL_LINEAR && gap.a == 0) return TR_FLAT;
    Trend t = rising(gap) ? TR_UP : falling(gap) ? TR_DOWN : TR_UNKNOWN;
    switch (d->attr.pred) {
    case CMP_LT: case CMP_LE: return t;
    case CMP_GT: case CMP_GE: return tr_not(t);
    default: return TR_UNKNOWN;
    }
  }
  case OP_NOT:
    return tr_not(trend(w, d->operands[0], depth + 1));
  case OP_XOR:
    for (int i = 0; i < 2; i++)
      if (const_bool(d->operands[i], &k)) return k ? tr_not(trend(w, d->operands[1 - i], depth + 1))
                                                     : trend(w, d->operands[1 - i], depth + 1);
    break;
  case OP_AND: case OP_OR: { /* of two monotone sets, monotone the same way */
    Trend x = trend(w, d->operands[0], depth + 1), y = trend(w, d->operands[1], depth + 1);
    if (x == TR_UNKNOWN || y == TR_UNKNOWN) return TR_UNKNOWN;
    if (x == TR_FLAT) return y;
    if (y == TR_FLAT || x == y) return x;
    return TR_UNKNOWN;
  }
  case OP_SELECT: { /* c ? true : false, c ? false : true */
    bool t, e;
    if (const_bool(d->operands[1], &t) && const_bool(d->operands[2], &e) && t != e)
      return t ? trend(w, d->operands[0], depth + 1) : tr_not(trend(w, d->operands[0], depth + 1));
    break;
  }
  case OP_IF: { /* `flag = True; if c: flag = False` comes out as an if yielding constants */
    int i = 0;
    while (i < d->nresults && d->results[i] != v) i++;
    bool t, e;
    if (d->nregions == 2 && const_bool(yielded(d->regions[0], i), &t) && const_bool(yielded(d->regions[1], i), &e)) {
      if (t == e) return TR_FLAT;
      return t ? trend(w, d->operands[0], depth + 1) : tr_not(trend(w, d->operands[0], depth + 1));
    }
    break;
  }
  default:
    break;
  }
  return TR_UNKNOWN;
}

/* A scalar if inside loops whose iterations do not depend on p, with its
 * work on one side (the other only yields): when the iterations that do
 * the work only grow with p (a causal forward written as a loop over every
 * key block that skips the blocks past the diagonal), the program's work
 * grows as a longer loop's would. */
static Trend if_trend(const IrFunc *f, const Op *op) {
  Walk w = {f, 4096, {0}, 0};
  for (const Op *o = op->parent ? op->parent->parent : NULL; o; o = o->parent ? o->parent->parent : NULL) {
    if (o->kind != OP_FOR) continue;
    int64_t step;
    Slope lb = slope(&w, o->operands[0], 0), ub = slope(&w, o->operands[1], 0);
    if (!const_int(o->operands[2], &step) || lb.kind != SL_LINEAR || lb.a || ub.kind != SL_LINEAR || ub.a ||
        w.nfixed == 8)
      return TR_UNKNOWN;
    w.fixed[w.nfixed++] = o->regions[0]->args[0];
  }
  if (!w.nfixed || op->nregions != 2) return TR_UNKNOWN;
  bool then_works = op->regions[0]->first != op->regions[0]->last;
  bool else_works = op->regions[1]->first != op->regions[1]->last;
  if (then_works == else_works) return TR_UNKNOWN; /* the work is not on one side */
  Trend t = trend(&w, op->operands[0], 0);
  return then_works ? t : tr_not(t);
}

typedef struct Census {
  const IrFunc *f;
  bool up;      /* a loop whose trip count grows with program_id(0) */
  bool veto;    /* one that shrinks or is unknown; atomics, a while loop, a volatile load */
} Census;

static void visit(Op *op, void *ud) {
  Census *c = ud;
  switch (op->kind) {
  case OP_ATOMIC_RMW: case OP_ATOMIC_CAS: case OP_WHILE:
    c->veto = true;
    return;
  case OP_LOAD: /* a volatile load can watch another program's stores (a flag) */
    if (op->attr.is_volatile) c->veto = true;
    return;
  case OP_IF: {
    Trend t = if_trend(c->f, op);
    if (t == TR_UP) c->up = true;
    else if (t == TR_DOWN) c->veto = true;
    return;
  }
  case OP_FOR: {
    int64_t step;
    if (!const_int(op->operands[2], &step) || step <= 0) {
      c->veto = true;
      return;
    }
    Walk w = {c->f, 4096, {0}, 0};
    Slope s = sl_add(slope(&w, op->operands[1], 0), sl_scale(slope(&w, op->operands[0], 0), -1));
    if (s.kind == SL_LINEAR && s.a == 0) return;
    if (s.kind == SL_UP || (s.kind == SL_LINEAR && s.a > 0)) c->up = true;
    else c->veto = true;
    return;
  }
  default:
    return;
  }
}

int pass_program_order(IrModule *m, StrBuf *errors) {
  (void)errors;
  if (!m->func) return 0;
  Census c = {m->func, false, false};
  ir_walk(m->func->body, visit, &c);
  m->program_order = c.up && !c.veto ? IR_PROGRAM_ORDER_GROUP : 0;
  return 0;
}
