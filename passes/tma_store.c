/* tma_store.c — the pass "tma-store": on sm_90, a 2-D tile store
 * `base[start_r + i, start_c + j] = v` masked only by the array's extents
 * (tma_tile.c's form) goes out through shared memory and one bulk tensor
 * copy instead of per-thread global stores:
 *
 *   store %ptr, %v, mask=%m            %buf = local_alloc %src      (v before its
 *                                ->    tma_store %tmaK, %buf, c0, c1 layout change)
 *
 * (with more coordinates when the base has outer dims, tma_tile.c).
 * The buffer takes the swizzled layout a TMA box reads (128-, 64- or
 * 32-byte rows of `block` elements, as for wgmma operands), its local_alloc
 * writes each thread's elements straight from v's own layout (the
 * accumulator's registers: the convert_layout the store needed goes dead)
 * and fences the async proxy; the bulk copy writes only the elements inside
 * the tensor, which is exactly the mask.  Thread 0 issues the copies and
 * waits until the buffer has been read (codegen/cg_tma.c), so the kernel
 * may reuse or leave the shared memory after the barrier that follows.
 *
 * Only a dot's results are taken (in an mma layout, the store needed a
 * trip through shared memory anyway; a blocked value is already stored
 * coalesced), and only outside loops (epilogues: a store in a loop would
 * wait for its copy every trip).  Volatile or cache-hinted stores stay. */
#include "passes/pass_internal.h"

#include <string.h>

/* The shared layout a TMA box of `t` with contiguous dim cdim reads; NULL
 * when the rows are not 32, 64 or 128 bytes (or a multiple of 128). */
static const Layout *box_layout(IrModule *m, const Type *t, int cdim) {
  int order[2] = {cdim, 1 - cdim};
  int eb = ty_elem_bytes(t);
  int64_t inner = t->shape[cdim], rows = t->shape[1 - cdim];
  int64_t block = inner * eb > 128 ? 128 / eb : inner;
  int64_t swz = block * eb;
  if (eb < 1 || (swz != 32 && swz != 64 && swz != 128) || inner % block || rows > 256 || rows % 8) return NULL;
  return lay_shared_blocked(m->ctx, 2, 16 / eb, (int)(128 / swz), (int)(swz / 16), order, (int)block);
}

static bool in_loop(const Op *op) {
  for (const IrBlock *b = op->parent; b && b->parent; b = b->parent->parent)
    if (b->parent->kind == OP_FOR || b->parent->kind == OP_WHILE) return true;
  return false;
}

static void rewrite(IrModule *m, Op *st) {
  const Value *ptr = st->operands[0], *mask = st->operands[2];
  Value *v = st->operands[1];
  if (st->attr.is_volatile || st->attr.cache || st->attr.evict || ptr->type->rank != 2 || in_loop(st)) return;
  Value *src = v->def && v->def->kind == OP_CONVERT_LAYOUT ? v->def->operands[0] : v;
  /* a dot's result: its store needs a trip through shared memory anyway */
  if (!src->type->layout || src->type->layout->kind != LAY_MMA) return;
  TmaTile t;
  const Layout *lay = NULL;
  for (int cdim = 1; cdim >= 0 && !lay; cdim--) {
    const Layout *l = box_layout(m, v->type, cdim);
    if (l && pass_tma_tile_at(m, ptr, mask, NULL, l, &t)) lay = l;
  }
  if (!lay) return;
  IrBuilder b;
  irb_init(&b, m, m->func, st->parent);
  b.before = st;
  b.loc = st->loc;
  Value *buf = irb_op(&b, OP_LOCAL_ALLOC, &src, 1, ty_with_layout(m->ctx, v->type, lay))->results[0];
  int map = pass_tma_map(m, &t.desc); /* (may grow func->tma) */
  Value *ops[2 + IR_TMA_MAX_RANK] = {m->func->tma[map].param, buf};
  const Type *i32 = ty_scalar(m->ctx, DT_I32);
  for (int k = 0; k < t.desc.rank; k++) /* coordinates, innermost first */
    ops[2 + k] = t.coord[k] ? t.coord[k] : irb_const_int(&b, i32, 0);
  irb_op(&b, OP_TMA_STORE, ops, 2 + t.desc.rank, NULL);
  ir_remove(st);
}

static void collect(IrBlock *blk, Op ***out, int *n, int *cap) {
  for (Op *op = blk->first; op; op = op->next) {
    for (int r = 0; r < op->nregions; r++) collect(op->regions[r], out, n, cap);
    if (op->kind != OP_STORE) continue;
    if (*n == *cap) {
      *cap = *cap ? 2 * *cap : 8;
      *out = xrealloc(*out, sizeof(Op *) * (size_t)*cap);
    }
    (*out)[(*n)++] = op;
  }
}

int pass_tma_store(IrModule *m, StrBuf *errors) {
  (void)errors;
  if (!m->func || m->capability < 90) return 0;
  Op **stores = NULL;
  int n = 0, cap = 0;
  collect(m->func->body, &stores, &n, &cap);
  for (int i = 0; i < n; i++) rewrite(m, stores[i]);
  free(stores);
  return 0;
}
