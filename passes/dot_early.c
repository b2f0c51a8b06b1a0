/* dot_early.c — the pass "dot-early": in a loop body, a synchronous wgmma
 * dot whose operands are all ready at an earlier synchronous wgmma dot is
 * issued right after it, both asynchronous, each waited for where its
 * result is first read.  Attention's backward computes, every iteration,
 * S = k @ qT and dP = v @ doT from the same slots: written one after the
 * other with the softmax of S between them, the tensor cores idle while
 * the warps compute exp2, and dP's own wait then also drains the p @ do
 * issued in between.  Issued together, dP runs under the softmax:
 *
 *   %s = dot %k, %qT, 0                     %s0 = dot %k, %qT, 0 {async}
 *   ... exp2(%s - m) ...                     %d0 = dot %v, %doT, 0 {async}
 *   %dv = dot %p, %do, %dv {async}    =>     %s = dot_wait %s0 {num=1}
 *   dot_wait {num=1}                         ... exp2(%s - m) ...
 *   %d = dot %v, %doT, 0                     %dv = dot %p, %do, %dv {async}
 *   ... %d ...                               dot_wait {num=1}
 *                                            %d = dot_wait %d0 {num=K}
 *                                            ... %d ...
 *
 * K is the number of dots issued between the moved dot and its first use:
 * wgmma groups complete in order, so at most K pending means it is done.
 *
 * Taken when, between the two dots, nothing writes shared memory or waits
 * on a barrier (the moved dot reads its operands earlier), and each shared
 * operand of the moved dot is a buffer of the loop's enclosing code or a
 * view of a ring slot (memdesc_index / memdesc_trans of a buffer defined
 * outside the loop): such bytes stay allocated while the dot is in flight.
 * The moved dot starts from a zero accumulator (its result registers are
 * new, held from the earlier issue to the first use). */
#include "passes/pass_internal.h"

#include <stdlib.h>

static bool is_wgmma(const Op *op) {
  const Layout *l = op->kind == OP_DOT ? op->results[0]->type->layout : NULL;
  return l && l->kind == LAY_MMA && l->version == 3;
}

/* A shared operand whose bytes stay allocated across the loop: defined
 * outside it, or a view (index / transpose) of such a buffer. */
static bool stable_buffer(const IrBlock *body, const Value *v) {
  while (!ir_defined_outside(body, v)) {
    const Op *d = v->def;
    if (!d || (d->kind != OP_MEMDESC_INDEX && d->kind != OP_MEMDESC_TRANS)) return false;
    v = d->operands[0];
  }
  return true;
}

/* Is v ready at op `at` of the body: defined outside the body, or by an op
 * of the body before `at` (pos[] numbers the body's ops), or an argument? */
static bool ready_at(const IrBlock *body, const Value *v, int at, const int *pos) {
  if (ir_defined_outside(body, v)) return true;
  if (v->block == body) return true; /* a block argument */
  return v->def && v->def->parent == body && pos[v->def->id] < at;
}

/* May a dot read its operands earlier, past op? */
static bool transparent(const Op *op) {
  switch (op->kind) {
  case OP_BARRIER: case OP_MBAR_WAIT: case OP_MBAR_EXPECT: case OP_MBAR_ARRIVE: case OP_MBAR_INIT:
  case OP_MBAR_INVAL: case OP_ASYNC_COPY: case OP_ASYNC_WAIT: case OP_TMA_COPY:
    return false;
  case OP_LOCAL_ALLOC:
    return op->noperands == 0 || op->operands[0] == NULL; /* a buffer with no value written */
  default:
    return op->nregions == 0;
  }
}

/* Can dot d2 move up to just after d1 (both at the top level of body)? */
static bool movable(const IrBlock *body, const Op *d1, const Op *d2, const int *pos) {
  if (d2->attr.is_async || !is_wgmma(d2) || !ir_is_zero_const(d2->operands[2])) return false;
  for (int k = 0; k < 3; k++) {
    const Value *x = d2->operands[k];
    if (!ready_at(body, x, pos[d1->id], pos)) return false;
    if (k < 2 && x->type->layout && x->type->layout->kind == LAY_SHARED && !stable_buffer(body, x)) return false;
  }
  for (const Op *op = d1->next; op != d2; op = op->next)
    if (!transparent(op)) return false;
  return true;
}

/* The top-level op, from `from` on, that holds the first use of v. */
static Op *first_use(const Value *v, Op *from) {
  for (Op *op = from; op; op = op->next)
    if (ir_op_uses(op, v)) return op;
  return NULL;
}

static Value *wait_for(IrModule *m, IrBlock *body, Op *before, Value *v, int num) {
  IrBuilder b;
  irb_init(&b, m, m->func, body);
  b.before = before;
  b.loc = before->loc;
  Op *w = irb_op(&b, OP_DOT_WAIT, &v, 1, v->type);
  w->attr.num = num;
  return w->results[0];
}

/* Replace the uses of `from` by `to` in the ops from `start` on. */
static void replace_from(Op *start, Value *from, Value *to) {
  for (Op *op = start; op; op = op->next) {
    for (int i = 0; i < op->noperands; i++)
      if (op->operands[i] == from) op->operands[i] = to;
    for (int r = 0; r < op->nregions; r++) ir_replace_uses(op->regions[r], from, to);
  }
}

static bool rewrite(IrModule *m, IrBlock *body) {
  int *pos = xcalloc(m->func->nops + 1, sizeof(int));
  int i = 0;
  for (Op *op = body->first; op; op = op->next) pos[op->id] = i++;
  bool changed = false;
  for (Op *d1 = body->first; d1 && !changed; d1 = d1->next) {
    if (d1->kind != OP_DOT || d1->attr.is_async || !is_wgmma(d1)) continue;
    for (Op *d2 = d1->next; d2; d2 = d2->next) {
      if (d2->kind == OP_DOT && movable(body, d1, d2, pos)) {
        Value *r1 = d1->results[0], *r2 = d2->results[0];
        ir_remove(d2);
        ir_insert_after(d1, d2);
        d1->attr.is_async = d2->attr.is_async = true;
        Value *w1 = wait_for(m, body, d2->next, r1, 1);
        replace_from(w1->def->next, r1, w1);
        Op *use = first_use(r2, w1->def->next);
        if (use) {
          int k = 0;
          for (Op *op = w1->def->next; op != use; op = op->next) k += op->kind == OP_DOT;
          Value *w2 = wait_for(m, body, use, r2, k);
          replace_from(use, r2, w2);
        }
        changed = true;
        break;
      }
      if (!transparent(d2)) break;
    }
  }
  free(pos);
  return changed;
}

int pass_dot_early(IrModule *m, StrBuf *errors) {
  (void)errors;
  if (!m->func || m->capability < 90) return 0;
  int n;
  Op **ops = ir_collect_ops(m->func, &n);
  for (int i = 0; i < n; i++)
    if (ops[i]->kind == OP_FOR)
      while (rewrite(m, ops[i]->regions[0])) {
      }
  free(ops);
  return 0;
}
