/* coalesce.c — the coalescing pass: for every load, store and atomic on a
 * tensor of pointers, the dim order and the vector width that make a warp's
 * accesses whole, aligned cache-line transactions, decided from AxisInfo.
 *
 * Owns the decision, as pure functions of the IR and its AxisInfo
 * (pass_internal.h): pass_coalesce_order, pass_coalesce_vec and
 * pass_coalesce_anchor.  The pass itself records the width in attr.vec;
 * assign-layouts asks pass_coalesce_anchor the same question to seed its
 * propagation (so no state travels between passes), and later re-derives
 * attr.vec against the layout each access finally gets.  Owns no layout
 * propagation and no rewriting of types.
 *
 * The choice, for pointer tensor P of shape S and element size eb bytes:
 *   order  = dims of P by contiguity, most contiguous first (ties keep
 *            rank-1 .. 0, Triton's default order)
 *   vec    = the largest power of two that divides the contiguity of P
 *            along order[0] (and the constancy of the mask and of `other`
 *            there: one vector needs one predicate and one fill value), and
 *            is at most the alignment divisibility(P)/eb, 16/eb (one
 *            128-bit access) and numel/threads (every thread gets work)
 *   anchor = lay_blocked_for(S, num_warps, order, vec): vec elements per
 *            thread along order[0], lanes then warps along `order`.
 * Consecutive lanes then touch consecutive vectors, so a warp's access of a
 * contiguous row is one run of memory.  Atomics get vec = 1 (no vector
 * atomics) and scalar accesses vec = 1. */
#include "passes/pass_internal.h"

bool pass_is_memory_op(const Op *op) {
  return op->kind == OP_LOAD || op->kind == OP_STORE || op->kind == OP_ATOMIC_RMW ||
         op->kind == OP_ATOMIC_CAS;
}

int pass_coalesce_order(const AxisInfo *ptr, int rank, int *order) {
  for (int i = 0; i < rank; i++) order[i] = rank - 1 - i;
  for (int i = 1; i < rank; i++) /* stable insertion sort, descending */
    for (int j = i; j > 0 && ptr->contiguity[order[j - 1]] < ptr->contiguity[order[j]]; j--) {
      int t = order[j];
      order[j] = order[j - 1], order[j - 1] = t;
    }
  return rank;
}

static int64_t pow2_floor(int64_t v) {
  int64_t p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

static const Value *mask_of(const Op *op) {
  if (op->kind == OP_LOAD) return op->operands[1];
  if (op->kind == OP_STORE || op->kind == OP_ATOMIC_RMW) return op->operands[2];
  return NULL;
}

/* May this atomic move several elements in one instruction?  sm_90's
 * `atom.global.add.v2.f32` / `.v4.f32` (each element still its own atomic
 * add, as Triton's element-wise atomic_add is): fp32 adds only. */
bool pass_atomic_vectorizes(const IrModule *m, const Op *op) {
  return op->kind == OP_ATOMIC_RMW && (op->attr.rmw == RMW_ADD || op->attr.rmw == RMW_FADD) &&
         op->operands[0]->type->pointee && op->operands[0]->type->pointee->dtype == DT_F32 && m->capability >= 90;
}

int pass_coalesce_vec(const IrModule *m, const Op *op, const AxisInfo *ai, int dim) {
  const Value *p = op->operands[0];
  if (!p || !p->type->rank || op->kind == OP_ATOMIC_CAS) return 1;
  /* atomics: only an fp32 add has vector forms (sm_90: atom.global.add.v2/v4.f32) */
  if (op->kind == OP_ATOMIC_RMW && !pass_atomic_vectorizes(m, op)) return 1;
  const Type *t = p->type;
  const AxisInfo *pi = &ai[p->id];
  int64_t eb = ty_elem_bytes(t->pointee);
  /* run lengths the vector must fit in */
  int64_t runs = pi->contiguity[dim] < t->shape[dim] ? pi->contiguity[dim] : t->shape[dim];
  const Value *mask = mask_of(op);
  if (mask) {
    runs = axis_gcd(runs, ai[mask->id].constancy[dim]);
    if (op->kind == OP_LOAD && op->operands[2]) runs = axis_gcd(runs, ai[op->operands[2]->id].constancy[dim]);
  }
  if (runs < 1) runs = 1;
  int64_t v = runs & -runs; /* largest power of two dividing every run length */
  /* caps */
  int64_t align = pi->divisibility[dim] / eb;
  int64_t bytes16 = 16 / eb;
  int64_t threads = (int64_t)(m->threads_per_warp > 0 ? m->threads_per_warp : 32) * m->num_warps;
  int64_t per_thread = ty_numel(t) / (threads > 0 ? threads : 1);
  int64_t cap = align;
  if (bytes16 < cap) cap = bytes16;
  if (per_thread < cap) cap = per_thread;
  cap = cap < 1 ? 1 : pow2_floor(cap);
  while (v > cap) v /= 2;
  return (int)v;
}

const Layout *pass_coalesce_anchor(IrModule *m, const Op *op, const AxisInfo *ai, int *vec) {
  const Value *p = op->operands[0];
  *vec = 1;
  if (!p || !p->type->rank) return NULL;
  const Type *t = p->type;
  int order[IR_MAX_RANK];
  pass_coalesce_order(&ai[p->id], t->rank, order);
  *vec = pass_coalesce_vec(m, op, ai, order[0]);
  return lay_blocked_for(m->ctx, t->rank, t->shape, m->num_warps, order, *vec);
}

typedef struct Coalesce {
  IrModule *m;
  const AxisInfo *ai;
} Coalesce;

static void annotate(Op *op, void *ud) {
  Coalesce *c = ud;
  if (!pass_is_memory_op(op)) return;
  int vec;
  (void)pass_coalesce_anchor(c->m, op, c->ai, &vec);
  op->attr.vec = vec;
}

int pass_coalesce(IrModule *m, StrBuf *errors) {
  (void)errors;
  if (!m->func) return 0;
  AxisInfo *ai = axis_analyze(m);
  Coalesce c = {m, ai};
  ir_walk(m->func->body, annotate, &c);
  free(ai);
  return 0;
}
