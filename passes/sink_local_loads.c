/* sink_local_loads.c — the pass "sink-local-loads": a read of shared memory
 * into registers (`local_load`, a dot operand's ldmatrix) moves down its
 * block to just before its first use, past register arithmetic, so its
 * registers are not held through that arithmetic.
 *
 * The pipeliner reads every operand of a loop iteration from its ring slot
 * at the top of the body.  In attention, V's operand is read there, before
 * the softmax, but first used by `p @ v` after it: on seed 000's 2-warp
 * forward at head dim 128 it is 64 registers a thread held through the
 * whole softmax, beside Q's 64, the accumulator's 128 and the scores, and
 * the kernel spilled.  Sunk:
 *
 *   %k = local_load view(%ringk, %rd)        %k = local_load view(%ringk, %rd)
 *   %v = local_load view(%ringv, %rd)        %s = dot %q, %k, 0
 *   %s = dot %q, %k, 0                 =>    ... softmax of %s: %p ...
 *   ... softmax of %s: %p ...                %v = local_load view(%ringv, %rd)
 *   %o = dot %p, %v, %acc                    %o = dot %p, %v, %acc
 *
 * A load moves only past ops that cannot write shared memory or wait on a
 * barrier: other local_loads and pure ops without regions other than
 * stagings (a pure op may use shared scratch of its own, which
 * allocate-shared keeps apart from the buffers live across it, and its
 * barriers only add order).  The bytes it reads are then the same where it
 * lands.  Only a read of a buffer allocated through the whole loop moves (a
 * ring slot, a buffer from before the loop): a staging made in the body
 * would stay allocated longer, over the scratch of the ops passed.
 *
 * A load before loops whose only uses are mma.sync dots in their bodies
 * (attention's q, staged once, read by the causal kernel's two loops) is
 * read again in each body, before each such dot, when the registers it
 * holds through a loop and that loop's carried values pass REMAT_REGS a
 * thread: q is then read again every iteration (ldmatrix
 * from its staged copy, which allocate-shared keeps live through the loop)
 * instead of held, as Triton does with the same kernel text.  Seed 000's
 * 2-warp forward at head dim 128 carries a 64x128 fp32 accumulator (128
 * registers a thread) beside q's 64; held, the kernel spilled.  The buffer
 * must be a staging (written once, by its local_alloc) defined outside the
 * loops, and every buffer of the kernel must fit in shared memory side by
 * side, beside room for the largest tensor in registers (an op's scratch):
 * the staged q then stays
 * allocated through the loops, where its bytes used to go to the rings, and
 * a config that fits without this must still fit. */
#include "passes/pass_internal.h"

#include <stdlib.h>

/* May a local_load move below op? */
static bool passable(const Op *op) {
  if (op->nregions || op->kind == OP_LOCAL_ALLOC) return false;
  return op->kind == OP_LOCAL_LOAD || (ir_op_info[op->kind].traits & TR_PURE) != 0; /* (reads commute) */
}

enum { REMAT_REGS = 176, SCRATCH_MARGIN = 16384 };

/* Do all of the function's buffers fit side by side, with room for the
 * ops' scratch?  Then keeping one alive longer cannot push the kernel past
 * the shared memory it may take (a config that fits today keeps fitting).
 * An op's scratch (a layout conversion, a cross-warp reduction) holds at
 * most the tensors it converts: the room is the largest tensor in
 * registers of the function (its rows padded by a vector), and at least
 * SCRATCH_MARGIN. */
static bool buffers_fit_side_by_side(IrModule *m, Op **ops, int n) {
  int64_t bufs = 0, scratch = SCRATCH_MARGIN;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < ops[i]->nresults; k++) {
      const Type *t = ops[i]->results[k]->type;
      if (!t->rank) continue;
      int64_t bytes = ty_numel(t) * ty_elem_bytes(t);
      if (ops[i]->kind == OP_LOCAL_ALLOC) {
        bufs += (bytes + 1023) / 1024 * 1024;
      } else if (t->layout && t->layout->kind != LAY_SHARED) {
        /* a conversion pads each row by at most one 16-byte vector */
        int64_t rows = t->rank >= 2 ? ty_numel(t) / t->shape[t->rank - 1] : 0;
        if (bytes + rows * 16 > scratch) scratch = bytes + rows * 16;
      }
    }
  return bufs + scratch <= ir_smem_limit(m->capability);
}

/* The mma.sync dots at the top level of loop bodies after ld (in its block)
 * that read ld's result, when those are all of its uses: their count, the
 * dots in dots[], the largest register estimate of a loop in *regs. */
static int remat_uses(IrModule *m, Op *ld, Op **dots, int cap, int64_t *regs) {
  const Value *r = ld->results[0], *buf = ld->operands[0];
  int n = 0;
  int64_t threads = pass_threads(m);
  *regs = 0;
  for (Op *op = ld->next; op; op = op->next) {
    if (!ir_op_uses(op, r)) continue;
    if (op->kind != OP_FOR) return 0;
    IrBlock *body = op->regions[0];
    if (!ir_defined_outside(body, buf)) return 0;
    for (Op *d = body->first; d; d = d->next) {
      if (!ir_op_uses(d, r)) continue;
      const Layout *l = d->kind == OP_DOT ? d->results[0]->type->layout : NULL;
      if (!l || l->kind != LAY_MMA || l->version != 2 || n == cap) return 0;
      dots[n++] = d;
    }
    int64_t k = ir_carried_regs(body, threads) + ty_thread_regs(r->type, threads);
    if (k > *regs) *regs = k;
  }
  return n;
}

/* Read ld again in every loop that uses it, before each dot, instead of
 * holding it through the loops, when that costs too many registers. */
static void remat(IrModule *m, Op *ld, const int *uses) {
  enum { CAP = 8 };
  Op *dots[CAP];
  int64_t regs;
  const Value *r = ld->results[0];
  if (!ld->operands[0]->def || !ir_is_staging(ld->operands[0]->def)) return;
  int n = remat_uses(m, ld, dots, CAP, &regs);
  if (!n || n != uses[r->id] || regs <= REMAT_REGS) return;
  for (int i = 0; i < n; i++) {
    IrBuilder b;
    irb_init(&b, m, m->func, dots[i]->parent);
    b.before = dots[i], b.loc = ld->loc;
    ValueMap vm = {0};
    Op *c = irb_clone(&b, ld, &vm);
    vmap_free(&vm);
    for (int k = 0; k < dots[i]->noperands; k++)
      if (dots[i]->operands[k] == r) ir_set_operand(dots[i], k, c->results[0]);
  }
  ir_remove(ld);
}

/* Is the buffer ld reads defined outside the loop body it is in, directly or
 * through slot views (memdesc_index / memdesc_trans) made in the body?  Its
 * bytes are then allocated through the whole loop, wherever the read is. */
static bool outer_buffer(const Op *ld) {
  const IrBlock *body = ld->parent;
  const Value *v = ld->operands[0];
  while (!ir_defined_outside(body, v)) {
    const Op *d = v->def;
    if (!d || (d->kind != OP_MEMDESC_INDEX && d->kind != OP_MEMDESC_TRANS)) return false;
    v = d->operands[0];
  }
  return true;
}

static void sink(Op *ld) {
  if (!outer_buffer(ld)) return;
  Op *to = ld->next;
  while (to && !ir_op_uses(to, ld->results[0])) {
    if (!passable(to)) return;
    to = to->next;
  }
  if (!to || to == ld->next) return;
  ir_remove(ld);
  ir_insert_before(to, ld);
}

int pass_sink_local_loads(IrModule *m, StrBuf *errors) {
  (void)errors;
  if (!m->func) return 0;
  int n;
  Op **ops = ir_collect_ops(m->func, &n);
  int *uses = ir_use_counts(m->func);
  if (buffers_fit_side_by_side(m, ops, n))
    for (int i = 0; i < n; i++)
      if (ops[i]->kind == OP_LOCAL_LOAD) remat(m, ops[i], uses);
  free(uses);
  for (int i = n - 1; i >= 0; i--) /* (later loads first: each lands before its use) */
    if (ops[i]->kind == OP_LOCAL_LOAD && ops[i]->parent && ops[i]->parent->parent &&
        ops[i]->parent->parent->kind == OP_FOR)
      sink(ops[i]);
  free(ops);
  return 0;
}
