/* dot_ahead.c — the pass "dot-ahead": in a pipelined loop, the wgmma dot
 * that reads only a TMA ring slot and loop invariants (attention's
 * S = q @ k_j) is issued one iteration early, so the tensor cores compute
 * S_{j+1} while the warps run iteration j's softmax on S_j:
 *
 *   mbar_wait %bars, %rd0, %ph0                 (stage 0 has landed)
 *   %s0 = dot %q, view(%ring, %rd0), 0          (iteration 0's S)
 *   for ... iter_args(..., %rd, %ph, %s = %s0) {
 *     mbar_wait %bars, %rd, %ph
 *     %rdn, %phn = the next slot and its phase
 *     mbar_wait %bars, %rdn, %phn               (stage j+1 has landed)
 *     %sn = dot %q, view(%ring, %rdn), 0 {async}
 *     <the body, reading %s where it read the dot>
 *     %sd = dot_wait %sn {num=0}
 *     yield ..., %sd
 *   }
 *
 * Why it is safe: stage j+1 was issued (or, past the loop's end, announced
 * with no bytes, which completes its phase at once) at iteration j+1-D or
 * in the prologue, D = S-1 >= 2 ahead, so its wait cannot hang; slot rd+1
 * is neither slot rd (read by this iteration) nor slot rd-1 (refilled at
 * the end of this iteration) when the ring has S >= 3 slots; the async dot
 * is complete before the yield.  A loop that runs no iteration computes
 * %s0 from a slot that was not filled and never reads it.
 *
 * Taken only when the loop's tensors fit the registers with a second S
 * live: the per-thread 32-bit registers of the carried tensors plus twice
 * the dot's result at most REG_BUDGET.  Past it the kernel loses more to
 * occupancy than it gains (measured on the H100: attention at head dim 64
 * with 128x64 blocks on 4 warps went from 167 to 241 registers, 3 to 2
 * CTAs an SM, 443 to under 424 TFLOP/s; the fp8 matmul's 128x128 `acc +=`
 * on 8 warps from 1041 to 957), or spills (a 128x128 accumulator beside
 * two 128x64 products on one warpgroup).  cp.async rings are left alone (their
 * completion is counted in groups, in order: stage j+1 cannot be waited
 * for apart from stage j+2's copies).
 *
 * Not taken in a kernel that consumer-warpgroups split onto two consumer
 * warpgroups beside a producer: there the other warpgroup's dots fill the
 * tensor cores while one runs its softmax, and a q @ k issued early only
 * crowds them (ptxas spreads its wgmmas through the softmax, each a
 * warpgroup-wide issue point).  H200, seed-004 forward at head dim 128,
 * 128x64 blocks, two runs each (tlc_bench_tc --fwd-config 128,64,4,S,
 * TFLOP/s): N16384 s3 498.5 / 496.3 -> 535.5 / 536.0; N4096 s3 526.1 /
 * 525.8 -> 559.1 / 541.3, s4 509.7 / 525.4 -> 546.2 / 541.3; N4096 causal
 * s3 464.8 / 460.0 -> 517.1 / 517.5. */
#include "passes/pass_internal.h"

#include <stdlib.h>

enum { REG_BUDGET = 160, MAX_CHAIN = 3 };

/* v = memdesc_index(%ring, %rd) of the body, or memdesc_trans of one, with
 * %ring defined outside: the chain (index first) in ch[], its length. */
static int view_chain(const IrBlock *body, const Value *v, const Value *rd, Op **ch, int cap) {
  Op *d = v->def;
  if (!d || d->parent != body || cap < 1) return 0;
  if (d->kind == OP_MEMDESC_TRANS) {
    int n = view_chain(body, d->operands[0], rd, ch, cap - 1);
    if (n) ch[n++] = d;
    return n;
  }
  if (d->kind != OP_MEMDESC_INDEX || d->operands[1] != rd || !ir_defined_outside(body, d->operands[0])) return 0;
  ch[0] = d;
  return 1;
}

/* Is ring filled by TMA copies in this body? */
static bool tma_filled(const IrBlock *body, const Value *ring) {
  for (const Op *op = body->first; op; op = op->next)
    if (op->kind == OP_TMA_COPY && op->operands[1]->def && op->operands[1]->def->kind == OP_MEMDESC_INDEX &&
        op->operands[1]->def->operands[0] == ring)
      return true;
  return false;
}


typedef struct Ahead {
  Op *dot;
  Op *chain[2][MAX_CHAIN]; /* per operand: its view chain (none: invariant) */
  int nchain[2];
} Ahead;

/* The dot to issue early: wgmma, synchronous, zero accumulator, operands
 * invariant or views of a TMA ring at slot rd (at least one). */
static bool find_dot(const IrBlock *body, const Value *rd, Ahead *a) {
  for (Op *op = body->first; op; op = op->next) {
    if (op->kind != OP_DOT || op->attr.is_async || !ir_is_zero_const(op->operands[2])) continue;
    const Layout *l = op->results[0]->type->layout;
    if (!l || l->kind != LAY_MMA || l->version != 3 || !ir_defined_outside(body, op->operands[2])) continue;
    bool ok = true, viewed = false;
    for (int k = 0; k < 2 && ok; k++) {
      const Value *x = op->operands[k];
      a->nchain[k] = ir_defined_outside(body, x) ? 0 : view_chain(body, x, rd, a->chain[k], MAX_CHAIN);
      if (!ir_defined_outside(body, x) && !a->nchain[k]) ok = false;
      if (a->nchain[k]) viewed = true, ok = ok && tma_filled(body, a->chain[k][0]->operands[0]);
    }
    if (ok && viewed) {
      a->dot = op;
      return true;
    }
  }
  return false;
}

/* The view chains and the dot cloned at slot `slot` by b. */
static Value *clone_dot(IrBuilder *b, const Ahead *a, Value *rd, Value *slot, bool async) {
  ValueMap vm = {0};
  vmap_set(&vm, rd, slot);
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < a->nchain[k]; i++) irb_clone(b, a->chain[k][i], &vm);
  Op *d = irb_clone(b, a->dot, &vm);
  d->attr.is_async = async;
  vmap_free(&vm);
  return d->results[0];
}

static void rewrite(IrModule *m, Op *loop) {
  IrBlock *body = loop->regions[0];
  Value *bars, *rd, *ph;
  if (!pass_tma_ring_loop(loop, 2, &bars, &rd, &ph)) return;
  Op *wait = body->first;
  int64_t S = bars->type->shape[0];
  if (S < 3) return;
  Ahead a = {0};
  if (!find_dot(body, rd, &a)) return;
  int64_t regs = 2 * ty_thread_regs(a.dot->results[0]->type, pass_threads(m)) + ir_carried_regs(body, pass_threads(m));
  if (regs > REG_BUDGET) return;

  IrFunc *f = m->func;
  const Type *i32 = ty_scalar(m->ctx, DT_I32);
  /* before the loop: iteration 0's S from the first slot */
  IrBuilder b;
  irb_init(&b, m, f, loop->parent);
  b.before = loop, b.loc = a.dot->loc;
  Value *rd0 = loop->operands[2 + rd->index], *ph0 = loop->operands[2 + ph->index];
  Value *wops[3] = {bars, rd0, ph0};
  irb_op(&b, OP_MBAR_WAIT, wops, 3, NULL);
  Value *s0 = clone_dot(&b, &a, rd, rd0, false);
  loop = ir_for_add_iter_args(m, f, loop, &s0, 1);
  Value *s = body->args[body->nargs - 1];
  Value *old = a.dot->results[0];
  /* at the top: wait for the next slot, issue its dot */
  Op *pos = wait->next;
  while (pos && (pos->kind == OP_MEMDESC_INDEX || pos->kind == OP_MEMDESC_TRANS)) pos = pos->next;
  irb_init(&b, m, f, body);
  b.before = pos, b.loc = a.dot->loc;
  Value *rd1 = irb_binary(&b, OP_ADD, rd, irb_const_int(&b, i32, 1));
  Value *wrap = irb_cmp(&b, CMP_EQ, rd1, irb_const_int(&b, i32, S));
  Value *rdn = irb_select(&b, wrap, irb_const_int(&b, i32, 0), rd1);
  Value *phn = irb_select(&b, wrap, irb_binary(&b, OP_XOR, ph, irb_const_int(&b, i32, 1)), ph);
  Value *nops[3] = {bars, rdn, phn};
  irb_op(&b, OP_MBAR_WAIT, nops, 3, NULL);
  Value *sn = clone_dot(&b, &a, rd, rdn, true);
  ir_replace_uses(body, old, s);
  ir_remove(a.dot);
  /* complete it before the yield */
  Op *y = body->last;
  irb_init(&b, m, f, body);
  b.before = y, b.loc = a.dot->loc;
  Op *dw = irb_op(&b, OP_DOT_WAIT, &sn, 1, sn->type);
  dw->attr.num = 0;
  Value *sd = dw->results[0];
  ir_add_operands(m, y, &sd, 1);
}

int pass_dot_ahead(IrModule *m, StrBuf *errors) {
  (void)errors;
  if (!m->func || m->capability < 90 || pass_split_for_producer(m)) return 0;
  int n;
  Op **ops = ir_collect_ops(m->func, &n);
  for (int i = n - 1; i >= 0; i--) /* (pre-order backwards: inner loops first) */
    if (ops[i]->kind == OP_FOR) rewrite(m, ops[i]);
  free(ops);
  return 0;
}
