/* layouts.c — assign-layouts: give every tensor value a distributed layout
 * and make each op see the layouts its lowering expects, inserting
 * convert_layout (or recomputing cheap producers) where two choices meet.
 *
 * Owns the propagation of layouts along the IR's edges, the choice of the
 * default layout, and the placement of conversions.  Owns no coalescing
 * decision: the seeds come from pass_coalesce_anchor (coalesce.c).
 *
 * The edges, each usable in both directions:
 *   equal    operands and results of elementwise ops, broadcast, assume;
 *            a load's pointer / mask / other / result; a store's or atomic's
 *            pointer / mask (/ result) — not the stored value, which keeps its
 *            producer's layout and is converted at the store; dot's acc and result;
 *            FOR init = block arg = yield = result; IF result = both yields;
 *            WHILE init = before arg = after yield, condition value = after
 *            arg = result
 *   slice    expand_dims: operand = slice(axis, result);
 *            reduce: result = slice(axis, operand)
 *   permute  trans: result = permute(operand, perm) (blocked layouts only)
 * Going up a slice edge from a layout that is not that slice, or through
 * trans from a non-blocked layout, gives nothing: a conflict that the
 * fix-up below resolves.
 *
 * The algorithm:
 *   1. seeds: every dot's accumulator layout (accelerate_matmul.c), then
 *      every memory op's anchor on its pointer, mask, other and loaded value,
 *      in program order (first assignment wins) — except loads of fewer
 *      elements than threads, which take their users' layout;
 *   2. breadth-first propagation along the edges from every seed;
 *   3. each value still without a layout, in program order, gets
 *      lay_default(shape, num_warps) and propagates in turn;
 *   4. the layouts become part of the types (Value.type), and each memory
 *      op's attr.vec is re-derived against the layout it ended with;
 *   5. fix-up, per op in program order: from the op's own layout (its
 *      result's; a store's pointer's; a reduce's or trans's operand's; a
 *      loop's block arguments') derive what every operand and result must
 *      be.  A mismatched operand is replaced by the value in the needed
 *      layout: recomputed when its producers are cheap (arange, constant,
 *      splat, broadcast, expand_dims, elementwise ops and addptr over such,
 *      at most REMAT_BUDGET ops), else converted.  Either is placed right
 *      after the value's definition (hoisted out of loops, shared by every
 *      user: one memo per (value, layout)).  A mismatched result gets the
 *      needed type and a convert back to what its users were given.
 * So `offs[:, None]` and `offs[None, :]` of one arange become two aranges
 * in two slice layouts, never a trip through shared memory. */
#include "passes/pass_internal.h"

#include <stdlib.h>
#include <string.h>

enum { REMAT_BUDGET = 16 };

typedef struct MemoEntry {
  Value *from;
  const Layout *layout;
  Value *to;
  int next;
} MemoEntry;

typedef struct Lay {
  IrModule *m;
  IrContext *ctx;
  IrFunc *f;
  uint32_t n;              /* values when the pass started */
  const Layout **lay;      /* by Value.id: the propagated layout */
  Value **order;           /* every value in program order */
  int norder;
  PassUsers users;
  VEC(Value *) queue;
  int qhead;
  /* (value, layout) -> value in that layout, for the fix-up */
  int *heads;
  uint32_t nbuckets;
  VEC(MemoEntry) memo;
  DotPlan *plans;          /* by Op.id: tensor-core plan of each dot (mma NULL: FMA) */
  uint32_t nplans;
} Lay;

/* ---- propagation ------------------------------------------------------------------ */

static const Layout *lay_of(Lay *L, const Value *v) {
  return v && v->type->rank && v->id < L->n ? L->lay[v->id] : NULL;
}

static void assign(Lay *L, Value *v, const Layout *l) {
  if (!v || !v->type->rank || !l || v->id >= L->n || L->lay[v->id]) return;
  if (l->rank != v->type->rank) return;
  L->lay[v->id] = l;
  VEC_PUSH(L->queue, v);
}

static void edge_eq(Lay *L, Value *a, Value *b) {
  if (!a || !b || !a->type->rank || !b->type->rank) return;
  const Layout *la = lay_of(L, a), *lb = lay_of(L, b);
  if (la && !lb) assign(L, b, la);
  else if (lb && !la) assign(L, a, lb);
}

/* part = slice(axis, whole) */
static void edge_slice(Lay *L, Value *part, Value *whole, int axis) {
  if (!part || !whole || !part->type->rank || !whole->type->rank) return;
  const Layout *lp = lay_of(L, part), *lw = lay_of(L, whole);
  if (lw && !lp) assign(L, part, lay_slice(L->ctx, axis, lw));
  else if (lp && !lw) assign(L, whole, lay_unslice(lp, axis)); /* NULL: a conflict */
}

static void invert_perm(const int *perm, int rank, int *inv) {
  for (int i = 0; i < rank; i++) inv[perm[i]] = i;
}

/* dst = permute(src, perm) */
static void edge_perm(Lay *L, Value *src, Value *dst, const int *perm) {
  const Layout *ls = lay_of(L, src), *ld = lay_of(L, dst);
  int inv[IR_MAX_RANK];
  if (ls && !ld && ls->kind == LAY_BLOCKED) {
    assign(L, dst, lay_permute(L->ctx, ls, perm));
  } else if (ld && !ls && ld->kind == LAY_BLOCKED) {
    invert_perm(perm, ld->rank, inv);
    assign(L, src, lay_permute(L->ctx, ld, inv));
  }
}

static Op *yield_of(IrBlock *b, OpKind k) { return b && b->last && b->last->kind == k ? b->last : NULL; }

/* Push layouts across every edge of op (whichever side is known). */
static void relate(Lay *L, Op *op) {
  Value **o = op->operands, **r = op->results;
  switch (op->kind) {
  case OP_EXPAND_DIMS: edge_slice(L, o[0], r[0], op->attr.axis); break;
  case OP_REDUCE:
    for (int i = 1; i < op->noperands; i++) edge_eq(L, o[0], o[i]);
    for (int k = 0; k < op->nresults; k++) edge_slice(L, r[k], o[0], op->attr.axis);
    break;
  case OP_SCAN:
    for (int i = 1; i < op->noperands; i++) edge_eq(L, o[0], o[i]);
    for (int k = 0; k < op->nresults; k++) edge_eq(L, o[0], r[k]);
    break;
  case OP_TRANS: edge_perm(L, o[0], r[0], op->attr.perm); break;
  case OP_BROADCAST: case OP_ASSUME: case OP_FLIP: case OP_SORT: edge_eq(L, o[0], r[0]); break;
  case OP_GATHER: edge_eq(L, o[1], r[0]); break; /* src keeps its own layout */
  case OP_HISTOGRAM: edge_eq(L, o[0], o[1]); break; /* the counts have a layout of their own */
  case OP_LOAD:
    for (int i = 0; i < 3; i++) edge_eq(L, o[i], r[0]);
    for (int i = 0; i < 3; i++) edge_eq(L, o[i], r[0]);
    break;
  case OP_STORE: case OP_ATOMIC_RMW: case OP_ATOMIC_CAS:
    /* the address side only: the stored value keeps its producer's layout
     * and is converted at the store (fix-up), so an accumulator or a row
     * statistic is not pulled out of its layout for a whole loop */
    for (int pass = 0; pass < 2; pass++) {
      if (op->kind == OP_STORE) edge_eq(L, o[0], o[2]);
      else if (op->kind == OP_ATOMIC_RMW) edge_eq(L, o[0], o[2]);
      if (op->nresults) edge_eq(L, o[0], r[0]);
    }
    break;
  case OP_DOT: edge_eq(L, o[2], r[0]); break;
  case OP_FOR: {
    IrBlock *b = op->regions[0];
    Op *y = yield_of(b, OP_YIELD);
    for (int i = 0; i < op->nresults && 1 + i < b->nargs; i++)
      for (int pass = 0; pass < 2; pass++) {
        edge_eq(L, o[3 + i], b->args[1 + i]);
        if (y && i < y->noperands) edge_eq(L, b->args[1 + i], y->operands[i]);
        edge_eq(L, b->args[1 + i], r[i]);
      }
    break;
  }
  case OP_IF: {
    Op *t = op->nregions > 0 ? yield_of(op->regions[0], OP_YIELD) : NULL;
    Op *e = op->nregions > 1 ? yield_of(op->regions[1], OP_YIELD) : NULL;
    for (int i = 0; i < op->nresults; i++)
      for (int pass = 0; pass < 2; pass++) {
        if (t && i < t->noperands) edge_eq(L, r[i], t->operands[i]);
        if (e && i < e->noperands) edge_eq(L, r[i], e->operands[i]);
      }
    break;
  }
  case OP_WHILE: {
    IrBlock *before = op->regions[0], *after = op->regions[1];
    Op *c = yield_of(before, OP_CONDITION), *y = yield_of(after, OP_YIELD);
    for (int i = 0; i < op->noperands && i < before->nargs; i++)
      for (int pass = 0; pass < 2; pass++) {
        edge_eq(L, o[i], before->args[i]);
        if (y && i < y->noperands) edge_eq(L, before->args[i], y->operands[i]);
      }
    for (int i = 0; i < op->nresults && i < after->nargs; i++)
      for (int pass = 0; pass < 2; pass++) {
        if (c && 1 + i < c->noperands) edge_eq(L, c->operands[1 + i], after->args[i]);
        edge_eq(L, after->args[i], r[i]);
      }
    break;
  }
  default:
    if ((ir_op_info[op->kind].traits & TR_ELEMENTWISE) && op->nresults == 1)
      for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < op->noperands; i++) edge_eq(L, o[i], r[0]);
    break;
  }
}

/* The op whose edges a terminator's operands take part in. */
static Op *edge_owner(Op *user) {
  if (user->kind == OP_YIELD || user->kind == OP_CONDITION) return user->parent ? user->parent->parent : NULL;
  return user;
}

static void drain(Lay *L) {
  while (L->qhead < L->queue.len) {
    Value *v = L->queue.data[L->qhead++];
    if (v->def) relate(L, v->def);
    if (v->block && v->block->parent) relate(L, v->block->parent);
    if (v->id < L->users.nvalues)
      for (int k = L->users.start[v->id]; k < L->users.start[v->id + 1]; k++) {
        Op *owner = edge_owner(L->users.op[k]);
        if (owner) relate(L, owner);
      }
  }
}

/* ---- collecting values in program order --------------------------------------------- */

static void collect_block(Lay *L, IrBlock *b) {
  for (int i = 0; i < b->nargs; i++) L->order[L->norder++] = b->args[i];
  for (Op *op = b->first; op; op = op->next) {
    for (int r = 0; r < op->nregions; r++) collect_block(L, op->regions[r]);
    for (int i = 0; i < op->nresults; i++) L->order[L->norder++] = op->results[i];
  }
}

/* Dots first: their accumulators fix the layouts of whole loops. */
static void seed_dots(Lay *L) {
  int n;
  Op **ops = ir_collect_ops(L->f, &n);
  L->nplans = L->f->nops;
  L->plans = xcalloc(L->nplans + 1, sizeof(DotPlan));
  for (int i = 0; i < n; i++) {
    Op *op = ops[i];
    if (op->kind != OP_DOT) continue;
    DotPlan p;
    if (!pass_dot_plan(L->m, op, &L->users, &p)) continue;
    L->plans[op->id] = p;
    assign(L, op->results[0], p.mma);
    assign(L, op->operands[2], p.mma);
  }
  free(ops);
}

/* A load of fewer elements than the program has threads: whatever its
 * layout, several threads hold each element, so coalescing it gains
 * nothing.  It takes its users' layout instead (attention's backward: the
 * row statistics `m` and `Di` of a block, read in the dot's slice layout,
 * where a blocked anchor would cost a conversion through shared memory,
 * and its barriers, every iteration). */
static bool small_load(const Lay *L, const Op *op) {
  return op->kind == OP_LOAD && op->results[0]->type->rank && ty_numel(op->results[0]->type) < pass_threads(L->m);
}

static void seed_anchors(Lay *L, const AxisInfo *ai) {
  int n;
  Op **ops = ir_collect_ops(L->f, &n);
  for (int i = 0; i < n; i++) {
    Op *op = ops[i];
    if (!pass_is_memory_op(op) || small_load(L, op)) continue;
    int vec;
    const Layout *a = pass_coalesce_anchor(L->m, op, ai, &vec);
    if (!a) continue;
    for (int k = 0; k < op->noperands; k++) {
      bool value = (op->kind == OP_STORE && k == 1) || (op->kind != OP_LOAD && op->kind != OP_STORE && k >= 1 &&
                                                        !(op->kind == OP_ATOMIC_RMW && k == 2));
      if (!value) assign(L, op->operands[k], a);
    }
    for (int k = 0; k < op->nresults; k++) assign(L, op->results[k], a);
  }
  free(ops);
}

/* ---- fix-up: values in the layout an op needs ------------------------------------------ */

static Value *memo_get(Lay *L, const Value *v, const Layout *l) {
  uint32_t b = (uint32_t)((v->id * 2654435761u) ^ l->id) & (L->nbuckets - 1);
  for (int e = L->heads[b]; e >= 0; e = L->memo.data[e].next)
    if (L->memo.data[e].from == v && L->memo.data[e].layout == l) return L->memo.data[e].to;
  return NULL;
}

static void memo_put(Lay *L, Value *v, const Layout *l, Value *to) {
  uint32_t b = (uint32_t)((v->id * 2654435761u) ^ l->id) & (L->nbuckets - 1);
  MemoEntry e = {v, l, to, L->heads[b]};
  L->heads[b] = L->memo.len;
  VEC_PUSH(L->memo, e);
}

static bool remat_kind(const Op *op) {
  switch (op->kind) {
  case OP_CONSTANT: case OP_ARANGE: case OP_SPLAT: case OP_BROADCAST: case OP_EXPAND_DIMS:
  case OP_ADDPTR:
    return true;
  default:
    return (ir_op_info[op->kind].traits & (TR_PURE | TR_ELEMENTWISE)) == (TR_PURE | TR_ELEMENTWISE) &&
           op->nresults == 1 && op->nregions == 0;
  }
}

/* The layout operand i of `op` needs for op's result to be in l (NULL for
 * scalar operands). */
static const Layout *operand_need(Lay *L, const Op *op, int i, const Layout *l) {
  const Value *o = op->operands[i];
  if (!o || !o->type->rank) return NULL;
  if (op->kind == OP_EXPAND_DIMS) return lay_slice(L->ctx, op->attr.axis, l);
  return l;
}

static bool cheap(Lay *L, const Value *v, const Layout *l, int *budget) {
  if (!v->type->rank || v->type->layout == l || memo_get(L, v, l)) return true;
  const Op *d = v->def;
  if (!d || !remat_kind(d) || --*budget < 0) return false;
  for (int i = 0; i < d->noperands; i++) {
    const Layout *need = operand_need(L, d, i, l);
    if (need && !cheap(L, d->operands[i], need, budget)) return false;
  }
  return true;
}

/* Recompute v (cheap, see above) in layout l, right after its definition. */
static Value *remat(Lay *L, Value *v, const Layout *l) {
  if (!v->type->rank || v->type->layout == l) return v;
  Value *done = memo_get(L, v, l);
  if (done) return done;
  Op *d = v->def;
  ValueMap vm = {0};
  for (int i = 0; i < d->noperands; i++) {
    const Layout *need = operand_need(L, d, i, l);
    if (need) vmap_set(&vm, d->operands[i], remat(L, d->operands[i], need));
  }
  IrBuilder b;
  irb_init(&b, L->m, L->f, d->parent);
  b.before = d->next;
  b.loc = d->loc;
  Op *c = irb_clone(&b, d, &vm);
  vmap_free(&vm);
  c->results[0]->type = ty_with_layout(L->ctx, v->type, l);
  memo_put(L, v, l, c->results[0]);
  return c->results[0];
}

/* A builder placed right after v's definition (a block argument: at the
 * top of its block), at the definition's location. */
static void after_def(Lay *L, Value *v, IrBuilder *b) {
  if (v->def) {
    irb_init(b, L->m, L->f, v->def->parent);
    b->before = v->def->next;
    b->loc = v->def->loc;
  } else {
    irb_init(b, L->m, L->f, v->block);
    b->before = v->block->first;
    b->loc = v->block->parent ? v->block->parent->loc : L->f->loc;
  }
}

static Value *convert_after_def(Lay *L, Value *v, const Layout *l) {
  IrBuilder b;
  after_def(L, v, &b);
  return irb_convert(&b, v, l);
}

/* v as seen in layout l. */
static Value *in_layout(Lay *L, Value *v, const Layout *l) {
  if (!v || !v->type->rank || !l || v->type->layout == l) return v;
  Value *done = memo_get(L, v, l);
  if (done) return done;
  int budget = REMAT_BUDGET;
  if (cheap(L, v, l, &budget)) return remat(L, v, l);
  Value *c = convert_after_def(L, v, l);
  memo_put(L, v, l, c);
  return c;
}

static void need(Lay *L, Op *op, int i, const Layout *l) {
  if (i < op->noperands && op->operands[i]) op->operands[i] = in_layout(L, op->operands[i], l);
}

/* Result k of op must be in layout l: retype it and convert back for the
 * users that were given the old layout. */
static void need_result(Lay *L, Op *op, int k, const Layout *l) {
  Value *r = op->results[k];
  if (!r->type->rank || !l || r->type->layout == l) return;
  const Layout *old = r->type->layout;
  r->type = ty_with_layout(L->ctx, r->type, l);
  IrBuilder b;
  irb_init(&b, L->m, L->f, op->parent);
  b.before = op->next;
  b.loc = op->loc;
  Value *back = irb_convert(&b, r, old);
  ir_replace_uses(op->parent, r, back);
  back->def->operands[0] = r;
  memo_put(L, r, old, back);
  memo_put(L, back, l, r);
}

static const Layout *result_layout(const Op *op, int k) {
  return k < op->nresults && op->results[k]->type->rank ? op->results[k]->type->layout : NULL;
}

static const Layout *arg_layout(const IrBlock *b, int i) {
  return i < b->nargs && b->args[i]->type->rank ? b->args[i]->type->layout : NULL;
}

static void fix_yield(Lay *L, Op *t) {
  Op *owner = t->parent ? t->parent->parent : NULL;
  if (!owner) return;
  if (owner->kind == OP_FOR && t->kind == OP_YIELD) {
    for (int i = 0; i < t->noperands; i++) need(L, t, i, arg_layout(owner->regions[0], 1 + i));
  } else if (owner->kind == OP_IF && t->kind == OP_YIELD) {
    for (int i = 0; i < t->noperands; i++) need(L, t, i, result_layout(owner, i));
  } else if (owner->kind == OP_WHILE && t->kind == OP_YIELD) {
    for (int i = 0; i < t->noperands; i++) need(L, t, i, arg_layout(owner->regions[0], i));
  } else if (owner->kind == OP_WHILE && t->kind == OP_CONDITION) {
    for (int i = 1; i < t->noperands; i++) need(L, t, i, arg_layout(owner->regions[1], i - 1));
  }
}

static bool same_linear(const Layout *a, const Layout *b, int rank, const int64_t *shape) {
  LinearLayout x, y;
  if (!a || !b || !ll_from_layout(a, rank, shape, &x) || !ll_from_layout(b, rank, shape, &y)) return false;
  if (x.nreg != y.nreg || x.nlane != y.nlane || x.nwarp != y.nwarp) return false;
  return !memcmp(x.reg, y.reg, sizeof(x.reg[0]) * (size_t)x.nreg) &&
         !memcmp(x.lane, y.lane, sizeof(x.lane[0]) * (size_t)x.nlane) &&
         !memcmp(x.warp, y.warp, sizeof(x.warp[0]) * (size_t)x.nwarp);
}

/* Is v a dot operand hoist-invariants moved (m->hoisted) out of the
 * innermost loop around `op`? */
static bool hoisted_out_of_loop(const IrModule *m, const Op *op, const Value *v) {
  if (v->id >= m->nhoisted || !m->hoisted[v->id]) return false;
  const Op *loop = op->parent->parent;
  while (loop && loop->kind != OP_FOR) loop = loop->parent ? loop->parent->parent : NULL;
  return loop && ir_defined_outside(loop->regions[0], v);
}

/* v in mma dot-operand layout `target`: a register-only convert when v's
 * fragment already is the operand's (a chained dot's accumulator), else
 * staged through a swizzled shared buffer and read back (ldmatrix), right
 * after v's definition.  A value hoist-invariants moved out of the loop of
 * `user` is staged there once and read back inside the loop, before
 * `user`: no register stays live across the loop for it. */
static Value *dot_operand(Lay *L, Value *v, const Layout *target, Op *user) {
  if (v->type->layout == target) return v;
  if (user && hoisted_out_of_loop(L->m, user, v) && !same_linear(v->type->layout, target, v->type->rank, v->type->shape)) {
    const Layout *sl = pass_dot_shared_layout(L->m, v->type);
    Value *buf = memo_get(L, v, sl);
    IrBuilder b;
    if (!buf) {
      after_def(L, v, &b);
      buf = irb_op(&b, OP_LOCAL_ALLOC, &v, 1, ty_with_layout(L->ctx, v->type, sl))->results[0];
      memo_put(L, v, sl, buf);
    }
    irb_init(&b, L->m, L->f, user->parent);
    b.before = user;
    b.loc = user->loc;
    return irb_op(&b, OP_LOCAL_LOAD, &buf, 1, ty_with_layout(L->ctx, v->type, target))->results[0];
  }
  Value *done = memo_get(L, v, target);
  if (done) return done;
  /* already read into registers for another dot whose fragment is the same
   * (q of the backward's two dQ loops, one per mma shape): one ldmatrix
   * pass, and a convert that moves nothing */
  Value *src = v;
  for (int e = 0; e < L->memo.len && src == v; e++) {
    const MemoEntry *me = &L->memo.data[e];
    if (me->from == v && me->to->type->layout->kind == LAY_DOT_OPERAND &&
        same_linear(me->layout, target, v->type->rank, v->type->shape))
      src = me->to;
  }
  Value *r;
  if (same_linear(src->type->layout, target, v->type->rank, v->type->shape)) {
    r = convert_after_def(L, src, target);
  } else {
    IrBuilder b;
    after_def(L, v, &b);
    const Type *st = ty_with_layout(L->ctx, v->type, pass_dot_shared_layout(L->m, v->type));
    Value *buf = irb_op(&b, OP_LOCAL_ALLOC, &v, 1, st)->results[0];
    r = irb_op(&b, OP_LOCAL_LOAD, &buf, 1, ty_with_layout(L->ctx, v->type, target))->results[0];
  }
  memo_put(L, v, target, r);
  return r;
}

/* v staged in shared buffer layout `sl` right after its definition (a
 * wgmma operand: the dot reads the buffer itself); the buffer carries the
 * dot's location (a block too large for shared memory is the dot's). */
static Value *shared_operand(Lay *L, Value *v, const Layout *sl, Loc loc) {
  const Type *st = ty_with_layout(L->ctx, v->type, sl);
  Value *done = memo_get(L, v, sl);
  if (done) return done;
  IrBuilder b;
  after_def(L, v, &b);
  b.loc = loc;
  Value *buf = irb_op(&b, OP_LOCAL_ALLOC, &v, 1, st)->results[0];
  memo_put(L, v, sl, buf);
  return buf;
}

/* A wgmma instruction of N columns a warpgroup reads, per k-step, 64 x 16
 * of A and 16 x N of B from shared memory (128 bytes a clock an SM) while
 * it computes 64 x N x 16 (2048 multiply-adds a clock): below N = 64 the
 * reads take longer than the math.  A loop-invariant A read from registers
 * (loaded once, before the loop) halves them or better. */
enum { SMEM_BOUND_N = 64, A_REGS_BUDGET = 168 };

/* The body of the loop whose invariant A dot `op` reads (a narrow wgmma,
 * fp16/bf16, A defined outside the loop), or NULL. */
static const IrBlock *invariant_a(const Lay *L, const Op *op) {
  const DotPlan *p = op->id < L->nplans ? &L->plans[op->id] : NULL;
  const Op *loop = op->parent ? op->parent->parent : NULL;
  if (!p || !p->mma || p->mma->version != 3 || !loop || loop->kind != OP_FOR) return NULL;
  int wn = p->mma->wpc[1] > 0 ? p->mma->wpc[1] : 1;
  if (op->results[0]->type->shape[1] / wn >= SMEM_BOUND_N || !dt_is_float(op->operands[0]->type->dtype) ||
      ty_elem_bytes(op->operands[0]->type) != 2)
    return NULL;
  return ir_defined_outside(loop->regions[0], op->operands[0]) ? loop->regions[0] : NULL;
}

/* The 32-bit registers a thread needs for a loop's tensors: carried ones
 * (pointer tensors left out: the pipeliner makes them scalar offsets) and
 * the products of its dots that are not carried; with `a_regs`, also the
 * invariant A operands invariant_a would hold in registers. */
static int64_t loop_regs(const Lay *L, const IrBlock *body, bool a_regs) {
  int64_t threads = pass_threads(L->m), regs = ir_carried_data_regs(body, threads);
  const Op *y = body->last;
  for (const Op *d = body->first; d; d = d->next) {
    if (d->kind != OP_DOT) continue;
    bool carried = false;
    for (int k = 0; y && k < y->noperands; k++) carried = carried || y->operands[k] == d->results[0];
    if (!carried) regs += ty_thread_regs(d->results[0]->type, threads);
    if (a_regs && invariant_a(L, d)) regs += ty_thread_regs(d->operands[0]->type, threads);
  }
  return regs;
}

/* Hold the loop's invariant A operands in registers?  When that costs the
 * kernel no registers it does not already need: the loop with them stays
 * within A_REGS_BUDGET and within what another loop of the kernel needs
 * (ptxas gives the whole kernel one count).  The backward at head dim 128 on
 * two warpgroups: its dQ loops, dq 64 + q, do 64 + S, dP 32 = 160, beside
 * the dK/dV loop's 192 (dk, dv 128 + S, dP 32; with k and v, 224, it keeps
 * them in shared memory).  A kernel of one loop keeps its A in shared memory
 * (seed 000's forward with 32-column blocks: 168 -> 215 registers, a CTA
 * less an SM). */
static bool a_regs_fit(const Lay *L, const IrBlock *body) {
  int64_t with = loop_regs(L, body, true), other = 0;
  if (with > A_REGS_BUDGET) return false;
  int n;
  Op **ops = ir_collect_ops(L->f, &n);
  for (int i = 0; i < n; i++)
    if (ops[i]->kind == OP_FOR && ops[i]->regions[0] != body) {
      int64_t r = loop_regs(L, ops[i]->regions[0], false);
      if (r > other) other = r;
    }
  free(ops);
  return with <= other;
}

static void fix_dot(Lay *L, Op *op) {
  const DotPlan *p = op->id < L->nplans ? &L->plans[op->id] : NULL;
  if (p && p->mma && p->mma->version == 3) {
    need_result(L, op, 0, p->mma);
    need(L, op, 2, p->mma);
    const IrBlock *body = invariant_a(L, op);
    bool a_regs = body && a_regs_fit(L, body);
    for (int i = 0; i < 2; i++) {
      Value *v = op->operands[i];
      const Layout *reg = lay_dot_operand(L->ctx, 0, p->mma, p->kw);
      if (i == 0 && (a_regs || same_linear(v->type->layout, reg, v->type->rank, v->type->shape))) {
        op->operands[i] = dot_operand(L, v, reg, NULL); /* a computed A, or an invariant one, in registers */
        continue;
      }
      const Layout *sl = pass_wgmma_shared_layout(L->m, v->type, i);
      op->operands[i] = sl ? shared_operand(L, v, sl, op->loc) : v;
    }
    return;
  }
  if (p && p->mma) {
    need_result(L, op, 0, p->mma);
    need(L, op, 2, p->mma);
    for (int i = 0; i < 2; i++)
      op->operands[i] = dot_operand(L, op->operands[i], lay_dot_operand(L->ctx, i, p->mma, p->kw), op);
    return;
  }
  /* FMA: a blocked result; operands with whole K rows / columns per thread */
  const Type *rt = op->results[0]->type;
  const Layout *rl = rt->layout;
  if (!rl || rl->kind != LAY_BLOCKED) {
    rl = lay_default(L->ctx, rt->rank, rt->shape, L->m->num_warps, 1);
    need_result(L, op, 0, rl);
  }
  need(L, op, 2, rl);
  int64_t K = op->operands[0]->type->shape[rt->rank - 1];
  for (int i = 0; i < 2; i++) need(L, op, i, pass_fma_operand_layout(L->m, rl, i, K));
}

static void fix_op(Lay *L, Op *op) {
  Value **o = op->operands;
  const Layout *rl = result_layout(op, 0);
  switch (op->kind) {
  case OP_EXPAND_DIMS:
    if (rl) need(L, op, 0, lay_slice(L->ctx, op->attr.axis, rl));
    break;
  case OP_REDUCE: {
    /* the operand leads: converting the (smaller) result is cheaper */
    const Layout *p = o[0]->type->layout;
    for (int i = 1; i < op->noperands; i++) need(L, op, i, p);
    for (int k = 0; k < op->nresults; k++) need_result(L, op, k, lay_slice(L->ctx, op->attr.axis, p));
    break;
  }
  case OP_SCAN: {
    /* operands and results share the first operand's layout */
    const Layout *p = o[0]->type->layout;
    for (int i = 1; i < op->noperands; i++) need(L, op, i, p);
    for (int k = 0; k < op->nresults; k++) need_result(L, op, k, p);
    break;
  }
  case OP_TRANS: {
    const Layout *src = o[0]->type->layout;
    int rank = o[0]->type->rank;
    if (src->kind != LAY_BLOCKED) {
      int inv[IR_MAX_RANK];
      invert_perm(op->attr.perm, rank, inv);
      src = rl && rl->kind == LAY_BLOCKED ? lay_permute(L->ctx, rl, inv)
                                          : lay_default(L->ctx, rank, o[0]->type->shape, L->m->num_warps, 1);
      need(L, op, 0, src);
    }
    need_result(L, op, 0, lay_permute(L->ctx, src, op->attr.perm));
    break;
  }
  case OP_BROADCAST: case OP_ASSUME: case OP_FLIP: case OP_SORT: need(L, op, 0, rl); break;
  case OP_GATHER: need(L, op, 1, rl); break;
  case OP_HISTOGRAM: need(L, op, 1, o[0]->type->layout); break;
  case OP_LOAD:
    for (int i = 0; i < 3; i++) need(L, op, i, rl);
    break;
  case OP_STORE: case OP_ATOMIC_RMW: case OP_ATOMIC_CAS: {
    const Layout *p = o[0]->type->layout;
    if (!o[0]->type->rank) break;
    for (int i = 1; i < op->noperands; i++) need(L, op, i, p);
    if (op->nresults) need_result(L, op, 0, p);
    break;
  }
  case OP_DOT: fix_dot(L, op); break;
  case OP_FOR:
    for (int i = 0; i < op->nresults; i++) {
      const Layout *a = arg_layout(op->regions[0], 1 + i);
      need(L, op, 3 + i, a);
      need_result(L, op, i, a);
    }
    break;
  case OP_WHILE:
    for (int i = 0; i < op->noperands; i++) need(L, op, i, arg_layout(op->regions[0], i));
    for (int i = 0; i < op->nresults; i++) need_result(L, op, i, arg_layout(op->regions[1], i));
    break;
  case OP_YIELD: case OP_CONDITION: fix_yield(L, op); break;
  default:
    if ((ir_op_info[op->kind].traits & TR_ELEMENTWISE) && rl)
      for (int i = 0; i < op->noperands; i++) need(L, op, i, rl);
    break;
  }
}

/* ---- the pass --------------------------------------------------------------------------------- */

/* attr.vec against the layout the access ended with: the op's own layout
 * (a load's result, a store's pointer), computed before fix-up so every
 * operand still has its AxisInfo. */
static void final_vec(Lay *L, Op *op, const AxisInfo *ai) {
  const Value *p = op->operands[0];
  const Layout *l = op->kind == OP_LOAD ? lay_of(L, op->results[0]) : lay_of(L, p);
  op->attr.vec = 1;
  if (!p || !p->type->rank || !l) return;
  int d;
  int64_t spt;
  if (l->kind == LAY_BLOCKED) {
    d = l->order[0];
    spt = l->spt[d] < p->type->shape[d] ? l->spt[d] : p->type->shape[d];
  } else { /* a small load in its users' layout (a slice of a dot's, say) */
    LinearLayout ll;
    if (!ll_from_layout(l, p->type->rank, p->type->shape, &ll)) return;
    spt = ll_run(&ll, &d);
    if (d < 0) return;
  }
  int v = pass_coalesce_vec(L->m, op, ai, d);
  while (v > 1 && (v > spt || spt % v)) v /= 2;
  op->attr.vec = v;
}

int pass_assign_layouts(IrModule *m, StrBuf *errors) {
  (void)errors;
  IrFunc *f = m->func;
  if (!f) return 0;
  Lay L = {.m = m, .ctx = m->ctx, .f = f, .n = f->nvalues};
  L.lay = xcalloc(L.n + 1, sizeof(Layout *));
  L.order = xcalloc(L.n + 1, sizeof(Value *));
  collect_block(&L, f->body);
  pass_users_build(f, &L.users);
  AxisInfo *ai = axis_analyze(m);

  /* 1-3: seeds, propagation, defaults */
  for (int i = 0; i < L.norder; i++) /* a layout already in the type is kept */
    if (L.order[i]->type->rank && L.order[i]->type->layout) assign(&L, L.order[i], L.order[i]->type->layout);
  seed_dots(&L);      /* accumulators first, */
  seed_anchors(&L, ai); /* then every memory op's coalesced layout, */
  drain(&L);          /* then propagation from all of them */
  for (int i = 0; i < L.norder; i++) {
    Value *v = L.order[i];
    if (!v->type->rank || lay_of(&L, v)) continue;
    assign(&L, v, lay_default(m->ctx, v->type->rank, v->type->shape, m->num_warps, 1));
    drain(&L);
  }

  /* 4: into the types; vector widths */
  for (int i = 0; i < L.norder; i++) {
    Value *v = L.order[i];
    if (v->type->rank) v->type = ty_with_layout(m->ctx, v->type, L.lay[v->id]);
  }
  int nops;
  Op **ops = ir_collect_ops(f, &nops);
  for (int i = 0; i < nops; i++)
    if (pass_is_memory_op(ops[i])) final_vec(&L, ops[i], ai);

  /* 5: fix-up */
  L.nbuckets = 64;
  while (L.nbuckets < 2 * L.n) L.nbuckets *= 2;
  L.heads = xmalloc(sizeof(int) * L.nbuckets);
  memset(L.heads, 0xff, sizeof(int) * L.nbuckets);
  for (int i = 0; i < nops; i++) fix_op(&L, ops[i]);

  free(ops);
  free(ai);
  free(L.heads);
  free(L.plans);
  VEC_FREE(L.memo);
  VEC_FREE(L.queue);
  pass_users_free(&L.users);
  free(L.order);
  free(L.lay);
  return 0;
}
