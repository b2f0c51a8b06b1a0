/* dot_behind.c — the pass "dot-behind": in a warp-specialized consumer loop
 * with two wgmma dots (attention's S = q @ k_j and acc = p @ v_j + acc'),
 * the second dot is issued one iteration behind, right after the next
 * iteration's first dot, so the tensor cores compute p_j @ v_j while the
 * warpgroup runs the softmax of S_{j+1} (FlashAttention-3's intra-warpgroup
 * overlap):
 *
 *   for ... iter_args(..., %acc, %rd, %ph) {       for ... iter_args(..., %x, %rd, %ph, %p0, %rd0) {
 *     mbar_wait %full, %rd, %ph                      mbar_wait %full, %rd, %ph
 *     %s = dot %q, view(%ring, %rd), 0               %s1 = dot %q, view(%ring, %rd), 0 {async}
 *     ... softmax of %s: %p, %alpha ...              %a = dot %p0, view(%ring', %rd0), %x {async}
 *     %c = mul %acc, %alpha                  =>      %s = dot_wait %s1 {num=1}
 *     %acc2 = dot %p, view(%ring', %rd), %c          ... softmax of %s: %p, %alpha ...
 *     mbar_arrive %empty, %rd, %t                    %acc = dot_wait %a {num=0}
 *     yield ..., %acc2, ...                          mbar_arrive %empty, %rd0, %t && iv != lb
 *   }                                                %c = mul %acc, %alpha
 *                                                    yield ..., %c, ..., %p, %rd
 *                                                  }
 *                                                  %f = dot %p_last, view(%ring', %rd_last), %x_last
 *                                                  mbar_arrive %empty, %rd_last, %t && lb < ub
 *                                                  %acc_out = select(lb < ub, %f, %x_last)
 *
 * The loop carries the second dot's accumulator input (%x), its register
 * operand (%p0, zero before the first iteration) and its slot (%rd0, the
 * first slot before the first iteration), so iteration j completes
 * iteration j-1's product.  In the first iteration that product is 0 @ v_0
 * + acc_init = acc_init: slot rd0 is the slot the iteration has just waited
 * for, so its bytes have landed (and are finite where the kernel's own
 * first product reads them).  The slot is handed back to the producer one
 * iteration later than before, after the wait on the product that reads
 * it (not in the first iteration, whose product reads the slot it still
 * holds); the last product completes after the loop, and when the loop ran
 * no iteration its result is dropped (the select) and no slot is handed
 * back.  The warpgroup's dot groups complete in order: the first dot is
 * issued before the deferred one, so `num=1` waits for it alone.
 *
 * Taken for a loop of the consumers of warp_roles (warp-specialize's form):
 * the body opens with mbar_wait on a ring's barriers at the slot argument,
 * holds exactly two dots, both synchronous wgmma, the first with a zero
 * accumulator, the second with its first operand in registers and its
 * second a view of slot %rd of a ring defined outside, its result read
 * only by the yield; one mbar_arrive at slot %rd after it, with a
 * predicate from outside the loop; no barrier, copy or nested loop; the
 * step a positive constant.  The kernels split onto two consumer
 * warpgroups (the head-dim-128 forward), where dot-ahead is not taken. */
#include "passes/pass_internal.h"

#include <stdlib.h>

enum { MAX_CHAIN = 3 };

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

static bool is_sync_wgmma(const Op *op) {
  const Layout *l = op->kind == OP_DOT ? op->results[0]->type->layout : NULL;
  return l && l->kind == LAY_MMA && l->version == 3 && !op->attr.is_async;
}

typedef struct Behind {
  Op *d1, *d2, *arrive;
  Op *chain[MAX_CHAIN];
  int nchain;
  int ia; /* the yield operand holding d2's result */
} Behind;

/* Does `body` have the form the header describes?  Fills *bh. */
static bool match(const Op *loop, Behind *bh) {
  IrBlock *body = loop->regions[0];
  Op *w = body->first, *y = body->last;
  if (!w || w->kind != OP_MBAR_WAIT || !y || y->kind != OP_YIELD) return false;
  Value *rd = w->operands[1];
  if (rd->block != body || rd->index == 0 || w->operands[2]->block != body || !ir_defined_outside(body, w->operands[0]))
    return false;
  const Op *step = loop->operands[2]->def;
  if (!step || step->kind != OP_CONSTANT || step->results[0]->type->rank || step->attr.ival <= 0) return false;
  int ndots = 0;
  for (Op *op = w->next; op != y; op = op->next) {
    switch (op->kind) {
    case OP_DOT:
      if (!is_sync_wgmma(op) || ++ndots > 2) return false;
      if (ndots == 1) bh->d1 = op;
      else bh->d2 = op;
      break;
    case OP_MBAR_ARRIVE:
      if (bh->arrive || !bh->d2 || op->operands[1] != rd || !ir_defined_outside(body, op->operands[0]) ||
          !ir_defined_outside(body, op->operands[2]))
        return false;
      bh->arrive = op;
      break;
    case OP_BARRIER: case OP_MBAR_WAIT: case OP_MBAR_EXPECT: case OP_MBAR_INIT: case OP_MBAR_INVAL:
    case OP_ASYNC_COPY: case OP_ASYNC_COMMIT: case OP_ASYNC_WAIT: case OP_TMA_COPY: case OP_TMA_STORE:
    case OP_DOT_WAIT: case OP_STORE: case OP_ATOMIC_RMW: case OP_ATOMIC_CAS:
      return false;
    default:
      if (op->nregions && op->kind != OP_REDUCE && op->kind != OP_SCAN) return false;
      if (op->kind == OP_LOCAL_ALLOC) return false;
    }
  }
  if (ndots != 2 || !bh->arrive || !ir_is_zero_const(bh->d1->operands[2])) return false;
  Op *d2 = bh->d2;
  const Layout *al = d2->operands[0]->type->layout;
  if (!al || al->kind == LAY_SHARED) return false;
  bh->nchain = view_chain(body, d2->operands[1], rd, bh->chain, MAX_CHAIN);
  if (!bh->nchain) return false;
  /* d2's result: read by the yield alone, once */
  bh->ia = -1;
  for (int i = 0; i < y->noperands; i++)
    if (y->operands[i] == d2->results[0]) {
      if (bh->ia >= 0) return false;
      bh->ia = i;
    }
  if (bh->ia < 0) return false;
  for (Op *op = w; op != y; op = op->next)
    if (ir_op_uses(op, d2->results[0])) return false;
  /* the accumulator argument is first read after the first dot */
  Value *acc = body->args[bh->ia + 1];
  if (acc->type != d2->results[0]->type) return false;
  for (Op *op = w; op != bh->d1->next; op = op->next)
    if (ir_op_uses(op, acc)) return false;
  return true;
}

/* d2's view chain and d2 cloned by b at slot `slot`, reading a, x. */
static Value *clone_dot(IrBuilder *b, const Behind *bh, Value *rd, Value *slot, Value *a, Value *x, bool async) {
  ValueMap vm = {0};
  vmap_set(&vm, rd, slot);
  for (int i = 0; i < bh->nchain; i++) irb_clone(b, bh->chain[i], &vm);
  vmap_set(&vm, bh->d2->operands[0], a);
  vmap_set(&vm, bh->d2->operands[2], x);
  Op *d = irb_clone(b, bh->d2, &vm);
  d->attr.is_async = async;
  vmap_free(&vm);
  return d->results[0];
}

/* Replace the uses of `from` by `to` in the ops from `start` on. */
static void replace_from(Op *start, Value *from, Value *to) {
  for (Op *op = start; op; op = op->next) {
    for (int i = 0; i < op->noperands; i++)
      if (op->operands[i] == from) op->operands[i] = to;
    for (int r = 0; r < op->nregions; r++) ir_replace_uses(op->regions[r], from, to);
  }
}

static Value *dot_wait(IrBuilder *b, Value *v, int num) {
  Op *w = irb_op(b, OP_DOT_WAIT, &v, 1, v->type);
  w->attr.num = num;
  return w->results[0];
}

static void rewrite(IrModule *m, Op *loop) {
  Behind bh = {0};
  if (!match(loop, &bh)) return;
  IrFunc *f = m->func;
  IrBlock *body = loop->regions[0];
  Op *wait = body->first, *d1 = bh.d1, *d2 = bh.d2;
  Value *rd = wait->operands[1], *a = d2->operands[0], *c = d2->operands[2];
  Value *empty = bh.arrive->operands[0], *pred = bh.arrive->operands[2];
  IrBuilder b;

  /* before the loop: p0 = 0, rd0 = the first slot */
  irb_init(&b, m, f, loop->parent);
  b.before = loop, b.loc = d2->loc;
  Value *lb = loop->operands[0], *ub = loop->operands[1];
  Value *zero = dt_is_int(a->type->dtype) ? irb_const_int(&b, a->type, 0) : irb_const_float(&b, a->type, 0.0);
  Value *inits[2] = {zero, loop->operands[2 + rd->index]};
  loop = ir_for_add_iter_args(m, f, loop, inits, 2);
  Value *p0 = body->args[body->nargs - 2], *rd0 = body->args[body->nargs - 1];
  Value *x = body->args[bh.ia + 1], *iv = body->args[0];

  /* the first dot asynchronous, the previous iteration's product behind it */
  irb_init(&b, m, f, body);
  b.before = d1->next, b.loc = d2->loc;
  d1->attr.is_async = true;
  Value *prod = clone_dot(&b, &bh, rd, rd0, p0, x, true);
  Value *s = dot_wait(&b, d1->results[0], 1);
  replace_from(s->def->next, d1->results[0], s);

  /* the yield carries the product's inputs instead of its result */
  Op *y = body->last;
  ir_set_operand(y, bh.ia, c);
  Value *more[2] = {a, rd};
  ir_add_operands(m, y, more, 2);
  ir_remove(d2);

  /* its wait before the first read of the accumulator (at the latest the
   * yield's), then the slot back */
  Op *use = s->def->next;
  while (use && !ir_op_uses(use, x)) use = use->next;
  b.before = use, b.loc = bh.arrive->loc;
  Value *acc = dot_wait(&b, prod, 0);
  replace_from(acc->def->next, x, acc);
  Value *later = irb_cmp(&b, CMP_NE, iv, lb);
  Value *aops[3] = {empty, rd0, irb_binary(&b, OP_AND, pred, later)};
  irb_op(&b, OP_MBAR_ARRIVE, aops, 3, NULL);
  ir_remove(bh.arrive);

  /* after the loop: the last product, the last slot back */
  int nr = loop->nresults;
  Value *xl = loop->results[bh.ia], *pl = loop->results[nr - 2], *rl = loop->results[nr - 1];
  irb_init(&b, m, f, loop->parent);
  b.before = loop->next, b.loc = d2->loc;
  Value *fin = clone_dot(&b, &bh, rd, rl, pl, xl, false);
  Value *ran = irb_cmp(&b, CMP_LT, lb, ub);
  Value *fops[3] = {empty, rl, irb_binary(&b, OP_AND, pred, ran)};
  irb_op(&b, OP_MBAR_ARRIVE, fops, 3, NULL);
  Value *out = irb_select(&b, ran, fin, xl);
  replace_from(out->def->next, xl, out);
}

int pass_dot_behind(IrModule *m, StrBuf *errors) {
  (void)errors;
  if (!m->func || m->capability < 90) return 0;
  int n;
  Op **ops = ir_collect_ops(m->func, &n);
  for (int i = 0; i < n; i++) {
    Op *o = ops[i];
    if (o->kind != OP_FOR || !o->parent || !o->parent->parent || o->parent->parent->kind != OP_WARP_ROLES ||
        o->parent != o->parent->parent->regions[1])
      continue;
    rewrite(m, o);
  }
  free(ops);
  return 0;
}
