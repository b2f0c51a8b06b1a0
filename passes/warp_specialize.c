/* warp_specialize.c — the pass "warp-specialize": a TMA-pipelined loop's
 * copies move to a producer warp; the kernel's warps (the consumers) only
 * wait for the slots, compute, and hand each slot back when done with it.
 *
 * Before (pipeline.c, maybe dot-ahead), at the top level of the kernel:
 *
 *   <rings, %bars = local_alloc; mbar_init %bars; barrier>
 *   <prologue: mbar_expect %bars, s; tma_copy ... for stages 0 .. S-2>
 *   for ... iter_args(..., %rd, %ph) {
 *     mbar_wait %bars, %rd, %ph
 *     <compute on the slot views>
 *     barrier                                   (every warp is off slot rd-1)
 *     mbar_expect %bars, %wr, %p; tma_copy ...  (refill slot rd-1)
 *     yield
 *   }
 *   barrier; mbar_inval %bars; <epilogue>
 *
 * After:
 *
 *   <rings, %bars, %empty = local_alloc; mbar_init %bars;
 *    mbar_init %empty {num=num_warps}; barrier>
 *   warp_roles {                                (one producer warp)
 *     <the scalars the copies need, the prologue's copies>
 *     for ... iter_args(<the scalar iter args the copies need>, %k = 0) {
 *       %kn = %wr == 0 ? %k ^ 1 : %k            (how often slot %wr was filled, mod 2)
 *       mbar_wait %empty, %wr, %kn ^ 1          (its last reader handed it back)
 *       mbar_expect %bars, %wr, %p; tma_copy ...
 *       yield ..., %kn
 *     }
 *     barrier {num=1}                           (join)
 *   } consumers {
 *     <everything else, without the copies and the refill barrier>
 *     for ... {
 *       ...
 *       mbar_arrive %empty, <the slot released>, <pred>
 *       yield
 *     }
 *     barrier {num=1}; mbar_inval %bars; mbar_inval %empty; <epilogue>
 *   }
 *
 * The slot released at the end of iteration j: rd when every wgmma issued
 * in the body is complete at the yield (the last dot_wait {num=0}); rd-1
 * (from iteration 1 on) when the last dot_wait leaves one group in flight
 * across the back edge (matmul's `acc += dot`; attention backward's dV and
 * dK dots): groups complete in order, so every earlier one, the previous
 * iteration's among them, is done.  A fresh mbarrier counts
 * its phase -1 as complete, so the first fill of each slot does not wait.
 * The join keeps the producer's last arrivals on %bars (stages past the
 * loop's end announce no bytes) before the barriers' bytes are reused.
 *
 * Taken for a loop marked tl.range(warp_specialize=True) (the default,
 * auto), or for every loop when the compile option says 1 (none when it
 * says -1); and only when the
 * copies' inputs are scalars, the loop stands at the top level (the
 * producer runs it exactly as often as the consumers) and its ring, with
 * those of the kernel's other TMA ring loops (up to 4, taken together),
 * fits: side by side or sharing bytes (below).  m->producer_warps becomes 4 (a warpgroup: setmaxnreg and
 * the named barriers count whole warpgroups); one of them issues. */
#include "passes/pass_internal.h"

#include <stdlib.h>
#include <string.h>

/* auto takes the loops marked tl.range(warp_specialize=True) and the
 * attention-like ones auto_takes() picks.  On the H100 (every loop
 * specialized, autotuned) attention's forward pass at head dim 128 gained on
 * 4 consumer warps (b64x64: N4096 453 -> 493, N16384 465 -> 512 TFLOP/s:
 * shared memory holds it at 2 CTAs an SM either way), at head dim 64 it lost
 * (b128x64: 491 -> 450: the producer warpgroup costs the third CTA an SM),
 * the matmul was even.  The rule (one consumer warpgroup whose buffers
 * already keep it at 2 CTAs an SM), A/B in one run: D128 N16384 461 -> 497,
 * D64 unchanged. */
enum { PRODUCER_WARPS = 4, AUTO_WARPS = 4, AUTO_MIN_DOTS = 2 };
/* auto: when the kernel's buffers alone keep it at 2 CTAs an SM or fewer
 * (more than a third of the bytes a CTA may take, ir_smem_limit), the
 * producer warpgroup costs no CTA; below it does (attention D64 b128x64:
 * 3 -> 2). */

/* The bytes of the shared buffers live in the loop: those allocated before
 * it at the top level (the rings, staged invariants; the epilogue's come
 * after and may reuse the rings' bytes) and inside it. */
static int64_t loop_buffer_bytes(const IrFunc *f, const Op *loop) {
  int64_t total = 0;
  for (const Op *op = f->body->first; op && op != loop; op = op->next)
    if (op->kind == OP_LOCAL_ALLOC) total += ty_numel(op->results[0]->type) * ty_elem_bytes(op->results[0]->type);
  for (const Op *op = loop->regions[0]->first; op; op = op->next)
    if (op->kind == OP_LOCAL_ALLOC) total += ty_numel(op->results[0]->type) * ty_elem_bytes(op->results[0]->type);
  return total;
}

/* auto's choice: one consumer warpgroup, an attention-like body (two dots
 * or more: the softmax between them is what the producer frees the warps
 * for), and buffers that already hold the CTA at 2 an SM. */
static bool auto_takes(const IrModule *m, const Op *loop) {
  /* consumer-warpgroups split it for the producer (not a split for registers alone) */
  if (pass_split_for_producer(m)) return true;
  if (m->num_warps != AUTO_WARPS) return false;
  int dots = 0;
  for (const Op *op = loop->regions[0]->first; op; op = op->next) dots += op->kind == OP_DOT;
  /* at two CTAs an SM the loop's carried tensors and widest dot result must
   * stay within IR_WS_CARRIED_REGS_AT_2_CTAS (attention D128 with 128-row
   * blocks spilled; D64's gained nothing on one warpgroup: it is split onto
   * two by consumer-warpgroups instead) */
  int64_t regs = ir_loop_regs(loop->regions[0], pass_threads(m));
  return dots >= AUTO_MIN_DOTS && regs <= IR_WS_CARRIED_REGS_AT_2_CTAS && loop_buffer_bytes(m->func, loop) > ir_smem_limit(m->capability) / 3;
}

enum { MAX_RING_BUFS = 8 };

typedef struct Ws {
  IrModule *m;
  IrFunc *f;
  Op *loop;
  IrBlock *body;
  Value *bars, *rd;
  int64_t S;
  Op **fills;                  /* prologue and body: mbar_expect and tma_copy on bars */
  int nfills;
  Op *expect;                  /* the body's mbar_expect */
  Op *refill_barrier;          /* the body's barrier before the refill */
  Op *inval;                   /* mbar_inval %bars after the loop (a barrier before it) */
  Op *rings[MAX_RING_BUFS];    /* the ring's buffers (local_alloc), each once */
  int nrings;
  bool release_prev;           /* one async dot stays in flight: release slot rd-1 */
  ValueMap *vm;                /* originals -> the producer's clones (shared by the loops) */
  uint8_t *prefix;             /* by Op.id: stays before warp_roles (shared by the loops) */
  uint8_t *need;               /* by Op.id: a body op the producer runs */
  uint8_t *need_arg;           /* by body arg index */
  uint8_t *carry;              /* by body arg index: a later loop's copies start from its result */
  const Value *missing;        /* build_producer: the earlier loop's result it lacked */
} Ws;

static bool is_fill(const Ws *w, const Op *op) {
  return (op->kind == OP_MBAR_EXPECT && op->operands[0] == w->bars) ||
         (op->kind == OP_TMA_COPY && op->operands[2] == w->bars);
}

/* A scalar op the producer may recompute: pure, no regions, scalar results
 * (or a ring view). */
static bool recomputable(const Op *op) {
  if (!(ir_op_info[op->kind].traits & TR_PURE) || op->nregions) return false;
  if (op->kind == OP_MEMDESC_INDEX) return true;
  for (int i = 0; i < op->nresults; i++)
    if (op->results[i]->type->rank) return false;
  return true;
}

/* The copies, the refill barrier and how slots are released; false when
 * the loop is not one this pass handles. */
static bool analyze(Ws *w) {
  IrBlock *fb = w->f->body, *body = w->body;
  VEC(Op *) fills = {0};
  for (Op *op = fb->first; op && op != w->loop; op = op->next)
    if (is_fill(w, op)) VEC_PUSH(fills, op);
  Op *last_wait = NULL, *first_fill = NULL;
  int nasync = 0;
  bool async_after_wait = false;
  for (Op *op = body->first; op; op = op->next) {
    if (op->nregions) goto no; /* (no region inside reads a slot) */
    if (op->kind == OP_ASYNC_COPY || op->kind == OP_ASYNC_WAIT) goto no;
    if (is_fill(w, op)) {
      if (!first_fill) first_fill = op;
      if (op->kind == OP_MBAR_EXPECT) {
        if (w->expect) goto no;
        w->expect = op;
      }
      VEC_PUSH(fills, op);
    }
    if (op->kind == OP_DOT && op->attr.is_async) nasync++, async_after_wait = true;
    if (op->kind == OP_DOT_WAIT) last_wait = op, async_after_wait = false;
  }
  if (!w->expect || !first_fill) goto no;
  for (int i = 0; i < fills.len; i++) /* every refill writes the slot the expect announces */
    if (fills.data[i]->parent == body && fills.data[i]->operands[fills.data[i]->kind == OP_TMA_COPY ? 3 : 1] !=
                                             w->expect->operands[1])
      goto no;
  if (nasync && (async_after_wait || !last_wait)) goto no;
  if (nasync && last_wait->attr.num == 1) w->release_prev = true;
  else if (nasync && last_wait->attr.num != 0) goto no;
  /* the refill barrier: only pure ops between it and the first refill
   * (nothing else relies on it) */
  for (Op *op = first_fill->prev; op; op = op->prev) {
    if (op->kind == OP_BARRIER && !op->attr.num) {
      w->refill_barrier = op;
      break;
    }
    if (!(ir_op_info[op->kind].traits & TR_PURE) || op->nregions) goto no;
  }
  if (!w->refill_barrier) goto no;
  for (int i = 0; i < body->last->noperands; i++) { /* no view of a slot outlives its iteration */
    const Layout *l = body->last->operands[i]->type->layout;
    if (l && l->kind == LAY_SHARED) goto no;
  }
  w->fills = fills.data, w->nfills = fills.len;
  return true;
no:
  VEC_FREE(fills);
  return false;
}

static bool in_body(const Ws *w, const Value *v) {
  return v->block == w->body || (v->def && v->def->parent == w->body);
}

/* The producer's copy of v (defined before the loop, at the top level),
 * cloned at b with what it needs; false when it cannot be recomputed. */
static bool outer_clone(Ws *w, IrBuilder *b, Value *v) {
  if (!v || !v->def || (v->def && w->prefix[v->def->id]) || vmap_get(w->vm, v) != v) return true;
  Op *d = v->def;
  if (d->kind == OP_FOR) w->missing = v; /* (an earlier producer loop may carry it: specialize) */
  if (d->parent != w->f->body || !recomputable(d)) return false;
  for (int i = 0; i < d->noperands; i++)
    if (!outer_clone(w, b, d->operands[i])) return false;
  irb_clone(b, d, w->vm);
  return true;
}

/* Mark what the body's copies need (ops and iter args, through the yield). */
static bool mark_body(Ws *w, Value *v) {
  if (!v) return true;
  if (v->block == w->body) {
    if (v->index == 0 || w->need_arg[v->index]) return true;
    w->need_arg[v->index] = 1;
    return mark_body(w, w->body->last->operands[v->index - 1]);
  }
  Op *d = v->def;
  if (!d || d->parent != w->body) return true; /* from outside: cloned before the loop */
  if (w->need[d->id]) return true;
  if (!recomputable(d)) return false;
  w->need[d->id] = 1;
  for (int i = 0; i < d->noperands; i++)
    if (!mark_body(w, d->operands[i])) return false;
  return true;
}

/* Region 0: the prologue's copies, then the loop of waits and refills;
 * first, when the ring shares bytes with the previous loop's, the wait on
 * that loop's drain barrier. */
static bool build_producer(Ws *w, IrBlock *region, Value *empty, Value *drain, bool last) {
  IrModule *m = w->m;
  IrBuilder b;
  irb_init(&b, m, w->f, region);
  b.loc = w->loop->loc;
  const Type *i32 = ty_scalar(m->ctx, DT_I32);
  if (drain) {
    Value *zero = irb_const_int(&b, i32, 0), *ops[3] = {drain, zero, zero};
    irb_op(&b, OP_MBAR_WAIT, ops, 3, NULL);
  }
  for (int i = 0; i < w->nfills; i++) {
    Op *op = w->fills[i];
    if (op->parent == w->body) continue;
    for (int k = 0; k < op->noperands; k++)
      if (!outer_clone(w, &b, op->operands[k])) return false;
    irb_clone(&b, op, w->vm);
  }
  for (int i = 0; i < w->nfills; i++) {
    Op *op = w->fills[i];
    if (op->parent != w->body) continue;
    w->need[op->id] = 1;
    for (int k = 0; k < op->noperands; k++)
      if (!mark_body(w, op->operands[k])) return false;
  }
  /* what the marked ops take from outside the body, and the bounds */
  for (Op *op = w->body->first; op; op = op->next)
    if (w->need[op->id])
      for (int k = 0; k < op->noperands; k++)
        if (op->operands[k] && !in_body(w, op->operands[k]) && !outer_clone(w, &b, op->operands[k])) return false;
  int nargs = w->body->nargs - 1, n = 0;
  Value **inits = xcalloc((size_t)nargs + 4, sizeof(Value *));
  int *which = xcalloc((size_t)nargs + 1, sizeof(int));
  for (int k = 0; k < 3; k++)
    if (!outer_clone(w, &b, w->loop->operands[k])) goto fail;
  for (int a = 1; a <= nargs; a++) {
    if (!w->need_arg[a]) continue;
    if (!outer_clone(w, &b, w->loop->operands[2 + a])) goto fail;
    which[n] = a, inits[3 + n] = vmap_get(w->vm, w->loop->operands[2 + a]), n++;
  }
  for (int k = 0; k < 3; k++) inits[k] = vmap_get(w->vm, w->loop->operands[k]);
  inits[3 + n] = irb_const_int(&b, i32, 0);
  const Type **rts = xcalloc((size_t)n + 2, sizeof(Type *));
  for (int i = 0; i <= n; i++) rts[i] = inits[3 + i]->type;
  Op *pl = ir_op_new(m, w->f, OP_FOR, w->loop->loc, inits, 4 + n, rts, n + 1, 1);
  pl->attr = w->loop->attr;
  irb_insert(&b, pl);
  IrBlock *pb = pl->regions[0];
  vmap_set(w->vm, w->body->args[0], ir_block_add_arg(m, w->f, pb, w->body->args[0]->type));
  for (int i = 0; i < n; i++) vmap_set(w->vm, w->body->args[which[i]], ir_block_add_arg(m, w->f, pb, rts[i]));
  Value *k = ir_block_add_arg(m, w->f, pb, i32);
  /* a later loop's copies may start where this one's scalars ended */
  for (int i = 0; i < n; i++) vmap_set(w->vm, w->loop->results[which[i] - 1], pl->results[i]);
  IrBuilder ib;
  irb_init(&ib, m, w->f, pb);
  ib.loc = w->loop->loc;
  Value *kn = NULL;
  for (Op *op = w->body->first; op && op != w->body->last; op = op->next) {
    if (!w->need[op->id]) continue;
    if (op == w->expect) { /* wait until the slot's last reader has handed it back */
      Value *wr = vmap_get(w->vm, op->operands[1]), *one = irb_const_int(&ib, i32, 1);
      Value *wrap = irb_cmp(&ib, CMP_EQ, wr, irb_const_int(&ib, i32, 0));
      kn = irb_select(&ib, wrap, irb_binary(&ib, OP_XOR, k, one), k);
      Value *ops[3] = {empty, wr, irb_binary(&ib, OP_XOR, kn, one)};
      irb_op(&ib, OP_MBAR_WAIT, ops, 3, NULL);
    }
    irb_clone(&ib, op, w->vm);
  }
  Value **ys = xcalloc((size_t)n + 1, sizeof(Value *));
  for (int i = 0; i < n; i++) ys[i] = vmap_get(w->vm, w->body->last->operands[which[i] - 1]);
  ys[n] = kn;
  irb_op(&ib, OP_YIELD, ys, n + 1, NULL);
  free(ys);
  free(rts);
  free(inits);
  free(which);
  if (last) {
    Op *join = irb_op(&b, OP_BARRIER, NULL, 0, NULL);
    join->attr.num = 1;
  }
  return true;
fail:
  free(inits);
  free(which);
  return false;
}

/* The consumers' side: no copies, no refill barrier, the slot handed back
 * before the yield, the join and the release of the second ring after.
 * The last loop's barrier before its mbar_inval becomes the join; an earlier
 * loop's mbar_inval moves after `last_inval` (the producer may still announce
 * stages past that loop's end until the join; its barrier stays, for the
 * consumers).  With a drain barrier (the next loop's ring shares bytes with
 * this one's), each warp arrives on it after that barrier, once no wgmma of
 * its own is in flight. */
static void rewrite_consumers(Ws *w, Value *empty, Value *drain, Op *last_inval) {
  IrModule *m = w->m;
  const Type *i32 = ty_scalar(m->ctx, DT_I32);
  Op *inval = w->inval, *after_loop = inval->prev;
  IrBuilder b;
  if (drain) {
    irb_init(&b, m, w->f, after_loop->parent);
    b.before = after_loop->next, b.loc = after_loop->loc;
    Op *dw = irb_op(&b, OP_DOT_WAIT, NULL, 0, NULL);
    dw->attr.num = 0;
    Value *ops[3] = {drain, irb_const_int(&b, i32, 0), irb_const_int(&b, ty_scalar(m->ctx, DT_I1), 1)};
    irb_op(&b, OP_MBAR_ARRIVE, ops, 3, NULL);
  }
  if (last_inval) {
    ir_remove(inval);
    ir_insert_after(last_inval, inval);
  } else {
    after_loop->attr.num = 1; /* the join */
  }
  irb_init(&b, m, w->f, inval->parent);
  b.before = inval->next, b.loc = inval->loc;
  irb_op(&b, OP_MBAR_INVAL, &empty, 1, NULL);
  if (drain) irb_op(&b, OP_MBAR_INVAL, &drain, 1, NULL);

  for (int i = 0; i < w->nfills; i++) ir_remove(w->fills[i]);
  ir_remove(w->refill_barrier);
  Op *y = w->body->last;
  irb_init(&b, m, w->f, w->body);
  b.before = y, b.loc = y->loc;
  Value *slot = w->rd, *pred = irb_const_int(&b, ty_scalar(m->ctx, DT_I1), 1);
  if (w->release_prev) {
    Value *first = irb_cmp(&b, CMP_EQ, w->rd, irb_const_int(&b, i32, 0));
    slot = irb_select(&b, first, irb_const_int(&b, i32, w->S - 1),
                      irb_binary(&b, OP_SUB, w->rd, irb_const_int(&b, i32, 1)));
    pred = irb_cmp(&b, CMP_NE, w->body->args[0], w->loop->operands[0]);
  }
  Value *ops[3] = {empty, slot, pred};
  irb_op(&b, OP_MBAR_ARRIVE, ops, 3, NULL);
}

/* The ring's allocations, its mbar_init and the barrier after it; the
 * barrier and mbar_inval after the loop. */
static bool mark_prefix(Ws *w, Op **init_barrier) {
  Op *init = NULL;
  for (Op *op = w->f->body->first; op && op != w->loop; op = op->next)
    if (op->kind == OP_MBAR_INIT && op->operands[0] == w->bars) init = op;
  for (Op *op = w->loop->next; op; op = op->next)
    if (op->kind == OP_MBAR_INVAL && op->operands[0] == w->bars) w->inval = op;
  if (!w->inval || !w->inval->prev || w->inval->prev->kind != OP_BARRIER || w->inval->prev->attr.num) return false;
  if (!init || !init->next || init->next->kind != OP_BARRIER || !w->bars->def ||
      w->bars->def->parent != w->f->body || w->bars->def->operands[0])
    return false;
  *init_barrier = init->next;
  w->prefix[w->bars->def->id] = w->prefix[init->id] = w->prefix[init->next->id] = 1;
  for (int i = 0; i < w->nfills; i++) {
    Op *op = w->fills[i];
    if (op->kind != OP_TMA_COPY) continue;
    Op *view = op->operands[1]->def;
    if (!view || view->kind != OP_MEMDESC_INDEX) return false;
    Op *ring = view->operands[0]->def;
    if (!ring || ring->kind != OP_LOCAL_ALLOC || ring->parent != w->f->body || ring->operands[0]) return false;
    if (!w->prefix[ring->id]) {
      if (w->nrings == MAX_RING_BUFS) return false;
      w->rings[w->nrings++] = ring;
    }
    w->prefix[ring->id] = 1;
  }
  return true;
}

static bool eligible(const IrModule *m, const Op *loop) {
  if (loop->kind != OP_FOR || m->warp_specialize < 0) return false;
  return m->warp_specialize > 0 || loop->attr.loop.warp_specialize || auto_takes(m, loop);
}

/* Several ring loops (attention's causal forward: the blocks below the
 * diagonal, then the diagonal; the backward's four) are specialized
 * together: the producer runs their copies one loop after the other, each
 * ring with its own barriers.  Side by side, each ring has bytes of its own
 * and the producer fills the next loop's first slots while the consumers
 * still read this loop's.  When that does not fit, the loops form groups of
 * consecutive ones, each as many as fit side by side (the backward's dK/dV
 * loops, then its dQ loops), and the groups' rings share bytes: group g's
 * buffers get attr.ring_phase g+1, which allocate-shared may place over
 * another phase's, and before a group's first copy the producer waits on a
 * drain barrier that every consumer warp arrives at once its reads of the
 * group before are done. */
enum { MAX_RINGS = 4, BAR_ALIGN = 128 };

/* A buffer's bytes rounded up to allocate-shared's alignment. */
static int64_t alloc_bytes(const Op *op) {
  const Type *t = op->results[0]->type;
  int64_t align = ir_smem_align(t);
  return (ty_numel(t) * ty_elem_bytes(t) + align - 1) / align * align;
}

static void add_alloc_bytes(Op *op, void *ud) {
  if (op->kind == OP_LOCAL_ALLOC) *(int64_t *)ud += alloc_bytes(op);
}

/* The bytes a group of loops (group[i] the group of loop i) needs: its
 * rings, every other top-level buffer allocated before its last loop and
 * those allocated inside its loops, and a barrier array each for the empty
 * and drain barriers.  Every top-level buffer before the loop counts, used
 * there or not: the rings move before warp_roles, so allocate-shared sees
 * them live from the kernel's start, beside a staging read before the
 * first loop and an earlier group's operands alike.  The most over the
 * groups. */
static int64_t peak_bytes(IrFunc *f, const Ws *w, int n, const int *group) {
  uint8_t *ring = xcalloc(f->nops + 1, 1);
  int64_t peak = 0;
  for (int i = 0; i < n; i++)
    for (int r = 0; r < w[i].nrings; r++) ring[w[i].rings[r]->id] = 1;
  for (int g = 0; g <= group[n - 1]; g++) {
    int64_t bytes = 3 * n * BAR_ALIGN; /* (the full barriers of later loops too: they move before warp_roles) */
    const Op *last = NULL;
    for (int i = 0; i < n; i++) {
      if (group[i] != g) continue;
      last = w[i].loop;
      for (int r = 0; r < w[i].nrings; r++) bytes += alloc_bytes(w[i].rings[r]);
      ir_walk(w[i].body, add_alloc_bytes, &bytes);
    }
    for (const Op *op = f->body->first; op && op != last; op = op->next)
      if (op->kind == OP_LOCAL_ALLOC && !ring[op->id]) bytes += alloc_bytes(op);
    if (bytes > peak) peak = bytes;
  }
  free(ring);
  return peak;
}

static void specialize(IrModule *m, Op **loops, Value **bars, Value **rds, int n) {
  IrFunc *f = m->func;
  Ws w[MAX_RINGS] = {0}; /* (zeroed: done frees what the loops reached) */
  ValueMap vm = {0};
  int nops0 = f->nops; /* (the need arrays' size: build_producer adds ops) */
  uint8_t *prefix = xcalloc(f->nops + 1, 1);
  Op *init_barrier[MAX_RINGS] = {0};
  for (int i = 0; i < n; i++) {
    w[i] = (Ws){m, f, loops[i], loops[i]->regions[0], bars[i], rds[i], bars[i]->type->shape[0]};
    w[i].vm = &vm, w[i].prefix = prefix;
    w[i].need = xcalloc((size_t)nops0 + 1, 1);
    w[i].need_arg = xcalloc((size_t)w[i].body->nargs + 1, 1);
    w[i].carry = xcalloc((size_t)w[i].body->nargs + 1, 1);
    if (!analyze(&w[i]) || !mark_prefix(&w[i], &init_barrier[i])) goto done;
    /* 2 slots and one async dot in flight across the back edge (matmul): the
     * slot stage j+1 goes to is handed back at the end of iteration j, so
     * the producer could run no copy ahead of the consumers, and its
     * warpgroup would cost registers for nothing */
    if (w[i].release_prev && w[i].S < 3) goto done;
    /* auto leaves such loops alone: attention backward's (dV and dK in
     * flight across the back edge) lost with a producer on the H200, head
     * dim 64 343 -> 296 TFLOP/s, 128 (on) 387 -> 175 */
    if (w[i].release_prev && m->warp_specialize == 0 && !loops[i]->attr.loop.warp_specialize) goto done;
  }
  /* The groups: each loop joins the one before it while they fit in a
   * CTA's bytes; for consumers that codegen compiles for two CTAs an SM
   * (ir_ws_ctas_per_sm) first in half an SM's, when sharing makes that fit
   * (attention D64's causal forward at 4 stages: 144 KB side by side, one
   * CTA an SM; 80 KB shared, two, as the unspecialized kernel has). */
  int group[MAX_RINGS] = {0};
  int most = n > 1 ? ir_ws_ctas_per_sm(f, pass_threads(m)) : 1;
  for (int ctas = most; ctas >= 1; ctas--) {
    int64_t budget = ir_smem_per_cta(m->capability, ctas);
    for (int i = 1; i < n; i++) {
      group[i] = group[i - 1];
      if (peak_bytes(f, w, i + 1, group) > budget) group[i]++;
    }
    if (n == 1 || peak_bytes(f, w, n, group) <= budget) break;
    if (ctas == 1) goto done;
  }
  bool share = group[n - 1] > 0;

  /* the prefix first, then warp_roles holding the rest */
  IrBlock *fb = f->body;
  Op *first = fb->first, *ret = fb->last;
  if (!ret || ret->kind != OP_RETURN) goto done;
  Value *empty[MAX_RINGS], *drain[MAX_RINGS] = {0};
  Op *ealloc[MAX_RINGS], *dalloc[MAX_RINGS] = {0};
  for (int i = 0; i < n; i++) {
    Value *none = NULL;
    ealloc[i] = ir_op_new(m, f, OP_LOCAL_ALLOC, loops[i]->loc, &none, 1, &bars[i]->type, 1, 0);
    empty[i] = ealloc[i]->results[0];
    if (i < n - 1 && group[i + 1] != group[i]) {
      int64_t one = 1;
      const Type *t = ty_with_shape(m->ctx, bars[i]->type, 1, &one);
      dalloc[i] = ir_op_new(m, f, OP_LOCAL_ALLOC, loops[i]->loc, &none, 1, &t, 1, 0);
      drain[i] = dalloc[i]->results[0];
    }
  }
  /* The producer's loops carry the scalars their own copies need; when a
   * later loop's copies start from an earlier loop's result that the
   * earlier producer loop did not carry (the coordinates its own copies
   * compute from the induction variable), that loop carries it too and the
   * producer is built again (nothing is moved until it is complete). */
  Op *roles = NULL;
  for (int attempt = 0, built = 0; !built; attempt++) {
    roles = ir_op_new(m, f, OP_WARP_ROLES, loops[0]->loc, NULL, 0, NULL, 0, 2);
    vmap_free(&vm);
    vm = (ValueMap){0};
    built = 1;
    for (int i = 0; i < n && built; i++) {
      memset(w[i].need, 0, (size_t)nops0 + 1);
      memset(w[i].need_arg, 0, (size_t)w[i].body->nargs + 1);
      for (int a = 1; a < w[i].body->nargs; a++)
        if (w[i].carry[a] && !mark_body(&w[i], w[i].body->args[a])) goto done;
      w[i].missing = NULL;
      if (build_producer(&w[i], roles->regions[0], empty[i], i ? drain[i - 1] : NULL, i == n - 1)) continue;
      const Value *r = w[i].missing;
      int j = 0;
      while (j < i && (!r || r->def != loops[j])) j++;
      if (j == i || r->type->rank || w[j].carry[r->index + 1] || attempt > 4 * MAX_RINGS) goto done;
      w[j].carry[r->index + 1] = 1;
      built = 0;
    }
  }
  for (int i = 0; i < n && share; i++)
    for (int r = 0; r < w[i].nrings; r++) w[i].rings[r]->attr.ring_phase = group[i] + 1;
  for (Op *op = first, *next; op && op != ret; op = next) {
    next = op->next;
    if (prefix[op->id]) {
      ir_remove(op);
      ir_insert_before(first == op ? next : first, op);
    }
  }
  /* order: the rings' allocations and inits, the empty rings and their
   * inits, one barrier (the first ring's), warp_roles */
  for (int i = 0; i < n; i++) ir_remove(init_barrier[i]);
  Op *p = fb->first;
  while (p && prefix[p->id]) p = p->next;
  Op *at = NULL;
  for (int i = 0; i < n; i++) {
    ir_insert_before(p ? p : ret, ealloc[i]);
    Op *einit = ir_op_new(m, f, OP_MBAR_INIT, loops[i]->loc, &empty[i], 1, NULL, 0, 0);
    einit->attr.num = m->num_warps;
    ir_insert_after(ealloc[i], einit);
    at = einit;
    if (dalloc[i]) {
      ir_insert_after(at, dalloc[i]);
      Op *dinit = ir_op_new(m, f, OP_MBAR_INIT, loops[i]->loc, &drain[i], 1, NULL, 0, 0);
      dinit->attr.num = m->num_warps;
      ir_insert_after(dalloc[i], dinit);
      at = dinit;
    }
  }
  ir_insert_after(at, init_barrier[0]);
  ir_insert_after(init_barrier[0], roles);
  for (Op *op = roles->next, *next; op && op != ret; op = next) {
    next = op->next;
    ir_remove(op);
    ir_append(roles->regions[1], op);
  }
  rewrite_consumers(&w[n - 1], empty[n - 1], NULL, NULL);
  for (int i = n - 2; i >= 0; i--) rewrite_consumers(&w[i], empty[i], drain[i], w[n - 1].inval);
  m->producer_warps = PRODUCER_WARPS;
done:
  vmap_free(&vm);
  free(prefix);
  for (int i = 0; i < n; i++) {
    free(w[i].fills);
    free(w[i].need);
    free(w[i].need_arg);
    free(w[i].carry);
  }
}

int pass_warp_specialize(IrModule *m, StrBuf *errors) {
  (void)errors;
  if (!m->func || m->capability < 90 || m->producer_warps) return 0;
  Op *loops[MAX_RINGS];
  Value *bars[MAX_RINGS], *rds[MAX_RINGS];
  int rings = 0, n = 0;
  for (Op *op = m->func->body->first; op; op = op->next) {
    Value *b, *r, *p;
    if (op->kind == OP_MBAR_INIT) rings++;
    if (op->kind == OP_FOR && pass_tma_ring_loop(op, 1, &b, &r, &p)) {
      if (n == MAX_RINGS || !eligible(m, op)) return 0;
      loops[n] = op, bars[n] = b, rds[n] = r, n++;
    }
  }
  if (n && rings == n) specialize(m, loops, bars, rds, n);
  return 0;
}
