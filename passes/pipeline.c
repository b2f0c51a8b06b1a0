/* pipeline.c — software pipelining: loops whose loads feed dots become a
 * num_stages-deep ring of shared-memory buffers filled by asynchronous
 * copies while earlier stages compute; wgmma dots in them go asynchronous.
 *
 * Input: a FOR (after assign-layouts) whose body holds, at its top level,
 *   %x = load %ptr, mask=%m[, other=0]     one use:
 *   %s = local_alloc %x                     the staging of a dot operand
 * where %ptr and %m are computed by pure ops of the body from loop
 * invariants, the induction variable and "ahead-able" iter args (those
 * whose yielded value is itself such a function: `a_ptrs += BK * sak`).
 * The step must be a positive constant and num_stages S >= 2 (the loop's
 * tl.range(num_stages=) or the kernel's).  Output, with D = S - 1:
 *
 *   %ring = local_alloc : tensor<S x ...>            one per pipelined load
 *   barrier                       the ring's bytes may have held another buffer
 *   (prologue, s = 0 .. D-1: the address slice cloned at iv = lb + s*step,
 *    mask &= iv < ub; async_copy into slot s; async_commit)
 *   for %iv ... iter_args(<old>, <ahead copies of the iter args the slices
 *                                 read, D iterations ahead>, %rd = 0) {
 *     async_wait {num=D-1}          stage iv has landed (this thread's copies)
 *     barrier                       ... and everyone's; slot rd-1 is free
 *     %view = memdesc_index %ring, %rd        replaces %s
 *     <mma.sync: the next copies here; the body, reading %view>
 *     %d = dot ... {async}; dot_wait {num=1}  (wgmma: one group in flight)
 *     <wgmma: barrier, then the next copies>
 *     (next copies: the slice cloned at iv + D*step with the ahead args,
 *      mask &= iv + D*step < ub, into slot (rd - 1) mod S; async_commit)
 *     yield <old>, <ahead args advanced>, (rd + 1) mod S
 *   }
 *   async_wait {num=0}; %acc = dot_wait %r {num=0}; barrier
 *
 * Why the copies go where they go: slot (rd - 1) mod S was read in the
 * previous iteration.  mma.sync reads it synchronously, so the barrier at
 * the top already proves every thread is done.  An asynchronous wgmma of
 * the previous iteration may still be reading it until each warpgroup's
 * dot_wait {num=1} of this iteration, so the copies wait for a second
 * barrier after it.  Masked-off copies (past the loop's end) still write
 * zeros, so the ring stays busy until the async_wait {num=0} after the
 * loop; the barrier after it lets allocate-shared give the ring's bytes to
 * a later buffer (a second loop's ring is filled with no barrier first).
 * A dot is made asynchronous when it is a wgmma whose accumulator is
 * carried by the loop and used by nothing else.  With TMA copies and no
 * asynchronous dot (fp8's `acc += tl.dot(a, b)`, whose fp32 add
 * canonicalize keeps) the copies also wait for the second barrier: a
 * synchronous wgmma reads the slot until its own warpgroup's wait, and
 * warpgroups run apart. 
 *
 * No proxy fence sits between the copies and wgmma: cp.async completes
 * through cp.async.wait_group and the barrier, as in Triton's pipeliner.
 * fence.proxy.async compiles to MEMBAR.ALL.CTA, which waits for every copy
 * still in flight and so undoes the pipelining (measured on the H100:
 * 571 TFLOP/s with it at 4096^3 fp16, Triton's 690 without; the SASS of the
 * two loops differed only there).
 *
 * The loads' other= must be 0 (cp.async zero-fills), and their vector
 * width 4, 8 or 16 bytes along the buffer's contiguous dim; other loads
 * stay as they are.  In a loop pipelined for its dot operands, the other
 * loads of such addresses (a bias, per-block scales) ride along: a ring of
 * unswizzled buffers in the load's own order filled by cp.async, read back
 * with local_load where the load was (rank 1 or 2, blocked layouts).  A
 * dot operand staged through a transpose (load -> trans -> local_alloc,
 * `tl.dot(a, b.T)`) keeps the tile as loaded in its ring and is read
 * through memdesc_trans, a view of the same bytes with the dims swapped.
 * A load with several stagings (attention's backward reads qT by
 * tl.dot(k, qT) and by tl.dot(ds, tl.trans(qT))) gets one ring when every
 * use is a staging and all want the same slot type; each becomes a view. */
#include "passes/pass_internal.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_STAGINGS = 4 }; /* local_allocs one ring may serve */

typedef struct Pipe {
  IrModule *m;
  IrFunc *f;
  IrContext *ctx;
  Op *loop;
  IrBlock *body;
  int S;
  int64_t step;
  uint32_t nops;          /* op ids below this have the side tables */
  uint8_t *mark;          /* by Op.id: bit 1 = in a cloned slice, bit 2 = visited */
  int nargs;              /* iter args (block args after the iv) */
  bool *ahead;            /* by iter arg: computable D iterations ahead */
  VEC(Op *) loads;
  VEC(Op *) allocs;       /* the staging local_allocs of the loads, replaced by views of the rings */
  VEC(int) alloc_of;      /* by staging: its load (a load with none is read in registers) */
  VEC(const Type *) stypes; /* by load: the type of one slot of its ring */
  VEC(TmaTile *) tma;     /* by load: the TMA recipe, or NULL for cp.async */
  int ntma, ncp;          /* loads of each kind */
  Value **rings;          /* by load */
  Value *bars;            /* the mbarrier ring (TMA loads) */
  int64_t tma_bytes;      /* bytes of one stage's TMA copies */
} Pipe;

static bool in_body(const Pipe *p, const Value *v) { return v && v->def && v->def->parent == p->body; }

/* Does the backward slice of v in the body stay pure, reading only
 * invariants, the iv and ahead-able args?  Marks the slice's ops (bit 2). */
static bool slice_ok(Pipe *p, const Value *v) {
  if (!v) return true;
  if (v->block == p->body) return v->index == 0 || p->ahead[v->index - 1];
  if (!in_body(p, v)) return true; /* defined outside the loop */
  const Op *d = v->def;
  if (d->id >= p->nops) return false;
  if (p->mark[d->id] & 2) return true;
  if (!(ir_op_info[d->kind].traits & TR_PURE) || d->nregions || d->kind == OP_DOT) return false;
  p->mark[d->id] |= 2;
  for (int i = 0; i < d->noperands; i++)
    if (!slice_ok(p, d->operands[i])) return false;
  return true;
}

static void clear_marks(Pipe *p, uint8_t bit) {
  for (uint32_t i = 0; i < p->nops; i++) p->mark[i] &= (uint8_t)~bit;
}

/* The iter args whose next value is computable ahead (a fixpoint: drop
 * the args whose update reads a dropped one). */
static void find_ahead(Pipe *p) {
  const Op *y = p->body->last;
  for (int j = 0; j < p->nargs; j++) p->ahead[j] = true;
  for (bool changed = true; changed;) {
    changed = false;
    for (int j = 0; j < p->nargs; j++) {
      if (!p->ahead[j]) continue;
      clear_marks(p, 2);
      if (!slice_ok(p, y->operands[j])) p->ahead[j] = false, changed = true;
    }
  }
  clear_marks(p, 2);
}

/* Only use of v, or NULL. */
static Op *single_user(const PassUsers *u, const Value *v) {
  if (v->id >= u->nvalues || u->start[v->id + 1] - u->start[v->id] != 1) return NULL;
  return u->op[u->start[v->id]];
}

/* Can cp.async move this load's groups into the buffer? */
static bool cp_async_ok(const Op *ld, const Type *st) {
  const Layout *S = st->layout, *L = ld->operands[0]->type->layout;
  int eb = ty_elem_bytes(st), vec = ld->attr.vec > 0 ? ld->attr.vec : 1, bytes = vec * eb;
  return L && L->kind == LAY_BLOCKED && (bytes == 4 || bytes == 8 || bytes == 16) && L->order[0] == S->order[0] &&
         vec <= S->vec && L->spt[L->order[0]] % vec == 0;
}

/* Does only wgmma (mma version 3) read buffer s?  (The bulk copies into a
 * slot then follow the wgmma waits and a barrier, all in the async proxy.) */
static bool wgmma_only(const PassUsers *u, const Value *s) {
  for (int k = u->start[s->id]; k < u->start[s->id + 1]; k++) {
    const Op *op = u->op[k];
    const Layout *l = op->kind == OP_DOT ? op->results[0]->type->layout : NULL;
    if (!l || l->kind != LAY_MMA || l->version != 3) return false;
  }
  return true;
}

/* Are load ld's address, mask and other computable ahead (slice_ok)? */
static bool address_ok(Pipe *p, const Op *ld) {
  clear_marks(p, 2);
  bool ok = slice_ok(p, ld->operands[0]) && slice_ok(p, ld->operands[1]) && slice_ok(p, ld->operands[2]);
  clear_marks(p, 2);
  return ok;
}

/* A load read in registers (bias, scales): rank 1 or 2 in a blocked
 * layout whose vector groups cp.async can copy into an unswizzled buffer of
 * the same order; *st_out its slot type. */
static bool register_load(Pipe *p, Op *ld, const Type **st_out) {
  const Type *t = ld->results[0]->type;
  const Layout *L = t->layout;
  if (t->rank > 2 || !L || L->kind != LAY_BLOCKED) return false;
  for (int d = 0; d < t->rank; d++) /* each element copied by one thread */
    if ((int64_t)L->spt[d] * L->tpw[d] * L->wpc[d] > t->shape[d]) return false;
  if (!address_ok(p, ld)) return false;
  int vec = ld->attr.vec > 0 ? ld->attr.vec : 1;
  const Type *st = ty_with_layout(p->ctx, t, lay_shared(p->ctx, t->rank, vec, 1, 1, L->order));
  if (!cp_async_ok(ld, st)) return false;
  *st_out = st;
  return true;
}

/* The slot type a staging alloc asks for: its own buffer type, or (staged
 * through a transpose) the tile as loaded, read through memdesc_trans. */
static const Type *staged_slot(Pipe *p, const Op *al) {
  const Type *st = al->results[0]->type;
  if (al->operands[0]->def->kind != OP_TRANS) return st;
  const Layout *sl = lay_shared_trans(p->ctx, st->layout);
  if (!sl) return NULL;
  int64_t shape[2] = {st->shape[1], st->shape[0]};
  return ty_tensor(p->ctx, ty_elem(p->ctx, st), 2, shape, sl);
}

/* The stagings of load ld: every use is a local_alloc of the body, or a
 * 2-D transpose of the body all of whose uses are (`tl.dot(k, qT)` and
 * `tl.dot(ds, tl.trans(qT))` read one tile both ways).  Fills al[] and
 * returns how many, 0 when some use is not a staging. */
static int stagings(Pipe *p, const PassUsers *u, const Op *ld, Op **al, int cap) {
  int n = 0;
  const Value *x = ld->results[0];
  for (int k = u->start[x->id]; k < u->start[x->id + 1]; k++) {
    Op *op = u->op[k];
    if (op->parent != p->body) return 0;
    if (op->kind == OP_LOCAL_ALLOC && op->operands[0] == x && op->nresults) {
      if (n == cap) return 0;
      al[n++] = op;
      continue;
    }
    if (op->kind != OP_TRANS || op->results[0]->type->rank != 2 || op->attr.perm[0] != 1 || op->attr.perm[1] != 0)
      return 0;
    const Value *t = op->results[0];
    if (t->id >= u->nvalues || u->start[t->id] == u->start[t->id + 1]) return 0;
    for (int j = u->start[t->id]; j < u->start[t->id + 1]; j++) {
      Op *a = u->op[j];
      if (a->kind != OP_LOCAL_ALLOC || a->parent != p->body || a->operands[0] != t || n == cap) return 0;
      al[n++] = a;
    }
  }
  return n;
}

/* The load of a pointer tensor the loop carries and advances by a scalar
 * each iteration (`qT_ptrs += step_m * stride_tok`), unmasked, whose first
 * value is a TMA tile: that tile's recipe, advancing along the recipe dim
 * whose stride the scalar is a constant multiple of (t->adv elements an
 * iteration; issue_stage adds adv * (iv - lb) / step to the coordinate). */
static bool carried_tma(Pipe *p, const Op *ld, const Layout *shared, TmaTile *t) {
  const Value *ptr = ld->operands[0];
  if (ld->operands[1] || ptr->block != p->body || ptr->index < 1) return false;
  int j = ptr->index - 1;
  const Value *nx = p->body->last->operands[j];
  if (!nx->def || nx->def->kind != OP_ADDPTR || nx->def->operands[0] != ptr) return false;
  const Value *inc = nx->def->operands[1];
  if (!inc->def || inc->def->kind != OP_SPLAT) return false;
  const Value *c = inc->def->operands[0];
  while (c->def && c->def->kind == OP_CAST && dt_is_int(c->def->operands[0]->type->dtype)) c = c->def->operands[0];
  if (!pass_tma_tile_at(p->m, p->loop->operands[3 + j], NULL, NULL, shared, t)) return false;
  /* c = k * stride_d, k a constant (or c = stride_d) */
  for (int d = 1; d < t->desc.rank; d++) {
    IrTmaValue s = t->desc.strides[d];
    int64_t k = 0;
    const Op *cd = c->def;
    if (s.arg >= 0 && p->f->args[s.arg].value == c) k = 1;
    for (int i = 0; i < 2 && !k && cd && cd->kind == OP_MUL; i++) {
      const Value *a = cd->operands[i], *b = cd->operands[1 - i];
      while (b->def && b->def->kind == OP_CAST) b = b->def->operands[0];
      if (a->def && a->def->kind == OP_CONSTANT && s.arg >= 0 && p->f->args[s.arg].value == b) k = a->def->attr.ival;
    }
    if (!k && s.arg < 0 && cd && cd->kind == OP_CONSTANT && s.value && cd->attr.ival % s.value == 0)
      k = cd->attr.ival / s.value;
    if (k > 0 && k < (1 << 20)) {
      t->adv_dim = d, t->adv = k;
      return true;
    }
  }
  return false;
}

/* A load to pipeline: al[] its stagings (*nal of them, all served by one
 * ring; none: a load read in registers), *st_out the type of one slot,
 * *tma_out its TMA recipe (or NULL: cp.async). */
static bool candidate(Pipe *p, const PassUsers *u, Op *ld, Op **al, int *nal, const Type **st_out,
                      TmaTile **tma_out) {
  if (ld->kind != OP_LOAD || ld->attr.is_volatile || !ld->results[0]->type->rank) return false;
  if (ld->operands[2] && !ir_is_zero_const(ld->operands[2])) return false;
  *tma_out = NULL;
  *nal = stagings(p, u, ld, al, MAX_STAGINGS);
  if (!*nal) return register_load(p, ld, st_out);
  const Type *st = staged_slot(p, al[0]);
  if (!st || !st->layout || st->layout->kind != LAY_SHARED || st->rank != 2) return false;
  bool by_wgmma = true;
  for (int i = 0; i < *nal; i++) {
    if (staged_slot(p, al[i]) != st) return false; /* one ring, one swizzle */
    /* the buffer is read inside this loop only */
    const Value *s = al[i]->results[0];
    for (int k = u->start[s->id]; k < u->start[s->id + 1]; k++)
      if (u->op[k]->parent != p->body) return false;
    by_wgmma = by_wgmma && wgmma_only(u, s);
  }
  *st_out = st;
  if (!address_ok(p, ld)) return false;
  TmaTile t;
  if (by_wgmma && (pass_tma_tile(p->m, ld, st->layout, &t) || carried_tma(p, ld, st->layout, &t))) {
    *tma_out = xmalloc(sizeof t);
    **tma_out = t;
  } else if (!cp_async_ok(ld, st)) {
    return false;
  }
  return true;
}

/* ---- building ----------------------------------------------------------------- */

static Value *iconst(IrBuilder *b, const Type *t, int64_t v) { return irb_const_int(b, t, v); }

/* Clone, in body order, the ops of the slices of the pipelined loads (and
 * of the ahead args' updates) with vm mapping iv and the iter args. */
static void clone_slices(Pipe *p, IrBuilder *b, ValueMap *vm) {
  for (Op *op = p->body->first; op; op = op->next)
    if (op->id < p->nops && (p->mark[op->id] & 1)) irb_clone(b, op, vm);
}

/* mask & splat(guard) in the pointer's layout. */
static Value *guarded_mask(Pipe *p, IrBuilder *b, const Type *pt, Value *mask, Value *guard) {
  const Type *mt = ty_with_elem(p->ctx, pt, ty_scalar(p->ctx, DT_I1));
  Value *g = irb_splat(b, guard, mt);
  return mask ? irb_binary(b, OP_AND, mask, g) : g;
}

static Value *slot_view(Pipe *p, IrBuilder *b, int i, Value *slot) {
  Value *idx[2] = {p->rings[i], slot};
  return irb_op(b, OP_MEMDESC_INDEX, idx, 2, p->stypes.data[i])->results[0];
}

/* The copies of one stage: iv at `iv`, args mapped in vm, into slot `slot`:
 * cp.async groups (masked, guarded by iv < ub) and one commit; the TMA
 * copies after their barrier's arrival (both only when iv < ub). */
static void issue_stage(Pipe *p, IrBuilder *b, ValueMap *vm, Value *iv, Value *slot) {
  Value *ub = p->loop->operands[1];
  const Type *i32 = ty_scalar(p->ctx, DT_I32);
  Value *guard = irb_cmp(b, CMP_LT, iv, ub);
  clone_slices(p, b, vm);
  if (p->ntma) {
    Value *ops[3] = {p->bars, slot, guard};
    Op *ex = irb_op(b, OP_MBAR_EXPECT, ops, 3, NULL);
    ex->attr.num = (int)p->tma_bytes;
  }
  for (int i = 0; i < p->loads.len; i++) {
    Op *ld = p->loads.data[i];
    const TmaTile *t = p->tma.data[i];
    Value *view = slot_view(p, b, i, slot);
    if (t) {
      Value *ops[5 + IR_TMA_MAX_RANK] = {p->m->func->tma[t->map].param, view, p->bars, slot, guard};
      for (int k = 0; k < t->desc.rank; k++) /* coordinates, innermost first */
        ops[5 + k] = t->coord[k] ? vmap_get(vm, t->coord[k]) : iconst(b, i32, 0);
      if (t->adv) { /* a carried pointer: + adv * (iv - lb) / step */
        Value *it = irb_binary(b, OP_SUB, iv, p->loop->operands[0]);
        if (p->step != 1) it = irb_binary(b, OP_DIV, it, iconst(b, it->type, p->step));
        if (it->type != i32) it = irb_cast(b, it, i32);
        Value *off = irb_binary(b, OP_MUL, it, iconst(b, i32, t->adv));
        ops[5 + t->adv_dim] = irb_binary(b, OP_ADD, ops[5 + t->adv_dim], off);
      }
      irb_op(b, OP_TMA_COPY, ops, 5 + t->desc.rank, NULL);
      continue;
    }
    Value *ptr = vmap_get(vm, ld->operands[0]);
    Value *mask = ld->operands[1] ? vmap_get(vm, ld->operands[1]) : NULL;
    mask = guarded_mask(p, b, ptr->type, mask, guard);
    Value *ops[4] = {ptr, view, mask, NULL};
    Op *cp = irb_op(b, OP_ASYNC_COPY, ops, 4, NULL);
    cp->attr.vec = ld->attr.vec;
  }
  if (p->ncp) irb_op(b, OP_ASYNC_COMMIT, NULL, 0, NULL);
}

/* Mark (bit 1) the ops clone_slices copies: the slices of the loads'
 * operands and of the ahead args' updates. */
static void mark_slices(Pipe *p, Op *const *lds, int n) {
  const Op *y = p->body->last;
  clear_marks(p, 3);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < lds[i]->noperands; k++) slice_ok(p, lds[i]->operands[k]);
  for (int j = 0; j < p->nargs; j++)
    if (p->ahead[j]) slice_ok(p, y->operands[j]);
  for (uint32_t i = 0; i < p->nops; i++)
    if (p->mark[i] & 2) p->mark[i] |= 1;
  clear_marks(p, 2);
}

/* wgmma dots of the body that can stay in flight: accumulator carried by
 * the loop (iter arg j) and used by nothing else. */
static int async_dots(Pipe *p, const PassUsers *u, Op **dots, int *accs, int cap) {
  int n = 0;
  const Op *y = p->body->last;
  for (Op *op = p->body->first; op && n < cap; op = op->next) {
    if (op->kind != OP_DOT || op->id >= p->nops) continue;
    const Layout *l = op->results[0]->type->layout;
    if (!l || l->kind != LAY_MMA || l->version != 3) continue;
    Op *only = single_user(u, op->results[0]);
    const Value *acc = op->operands[2];
    if (only != y || acc->block != p->body || acc->index == 0 || single_user(u, acc) != op) continue;
    int j = acc->index - 1;
    if (y->operands[j] != op->results[0]) continue;
    dots[n] = op, accs[n] = j, n++;
  }
  return n;
}

/* The rings (and the mbarriers of TMA loads), their recipes, and the
 * prologue: stages 0 .. D-1 before the loop.  Returns the ahead values of
 * the iter args at iteration D in cur[]. */
static void build_prologue(Pipe *p, IrBuilder *b, Value **cur) {
  IrContext *c = p->ctx;
  Op *loop = p->loop;
  int S = p->S, D = S - 1;
  const Type *ivt = loop->operands[0]->type, *i32 = ty_scalar(c, DT_I32);
  /* the rings' bytes may have held another buffer until now (allocate-shared
   * reuses space): every thread is done with it before the first copy */
  irb_op(b, OP_BARRIER, NULL, 0, NULL);
  for (int i = 0; i < p->loads.len; i++) {
    const Type *st = p->stypes.data[i];
    int64_t shape[IR_MAX_RANK] = {S};
    for (int d = 0; d < st->rank; d++) shape[d + 1] = st->shape[d];
    const Type *rt = ty_tensor(c, ty_elem(c, st), st->rank + 1, shape, lay_shared_ring(c, st->layout));
    Value *none = NULL;
    p->rings[i] = irb_op(b, OP_LOCAL_ALLOC, &none, 1, rt)->results[0];
    TmaTile *t = p->tma.data[i];
    if (!t) continue;
    t->map = pass_tma_map(p->m, &t->desc);
    p->tma_bytes += ty_numel(st) * ty_elem_bytes(st);
  }
  if (p->ntma) {
    int64_t n = S;
    int ord[1] = {0};
    const Type *bt = ty_tensor(c, ty_scalar(c, DT_I64), 1, &n, lay_shared(c, 1, 1, 1, 1, ord));
    Value *none = NULL;
    p->bars = irb_op(b, OP_LOCAL_ALLOC, &none, 1, bt)->results[0];
    irb_op(b, OP_MBAR_INIT, &p->bars, 1, NULL);
    irb_op(b, OP_BARRIER, NULL, 0, NULL); /* the barriers are initialized before any use */
  }
  for (int j = 0; j < p->nargs; j++) cur[j] = loop->operands[3 + j];
  const Op *y = p->body->last;
  for (int s = 0; s < D; s++) {
    ValueMap vm = {0};
    Value *iv = irb_binary(b, OP_ADD, loop->operands[0], iconst(b, ivt, s * p->step));
    vmap_set(&vm, p->body->args[0], iv);
    for (int j = 0; j < p->nargs; j++)
      if (p->ahead[j]) vmap_set(&vm, p->body->args[j + 1], cur[j]);
    issue_stage(p, b, &vm, iv, iconst(b, i32, s));
    for (int j = 0; j < p->nargs; j++)
      if (p->ahead[j]) cur[j] = vmap_get(&vm, y->operands[j]);
    vmap_free(&vm);
  }
}

/* Top of the body: wait for stage iv (the thread's cp.async groups and a
 * barrier; the TMA copies' mbarrier phase), then read the slot views in
 * place of the staged loads.  Returns the last op inserted. */
static Op *rewrite_top(Pipe *p, IrBuilder *b, Value *rd, Value *ph) {
  Op *top = NULL;
  if (p->ntma) {
    Value *ops[3] = {p->bars, rd, ph};
    top = irb_op(b, OP_MBAR_WAIT, ops, 3, NULL);
  }
  if (p->ncp) {
    Op *w = irb_op(b, OP_ASYNC_WAIT, NULL, 0, NULL);
    w->attr.num = p->S - 2;
    top = irb_op(b, OP_BARRIER, NULL, 0, NULL);
  }
  for (int i = 0; i < p->loads.len; i++) {
    top = slot_view(p, b, i, rd)->def;
    Value *view = top->results[0];
    bool staged = false;
    for (int k = 0; k < p->allocs.len; k++) {
      if (p->alloc_of.data[k] != i) continue;
      Value *al = p->allocs.data[k]->results[0], *v = view;
      if (al->type != view->type) /* staged through a trans: read the slot transposed */
        v = irb_op(b, OP_MEMDESC_TRANS, &view, 1, al->type)->results[0];
      top = v->def, staged = true;
      ir_replace_uses(p->body, al, v);
    }
    if (staged) continue;
    /* a load read in registers: from its slot, where it was read before */
    const Type *rt = p->loads.data[i]->results[0]->type;
    top = irb_op(b, OP_LOCAL_LOAD, &view, 1, rt);
    ir_replace_uses(p->body, p->loads.data[i]->results[0], top->results[0]);
  }
  /* the stagings, then their transposes (every use of one was a staging;
   * several may share it) */
  for (int k = 0; k < p->allocs.len; k++) {
    Op *al = p->allocs.data[k], *tr = al->operands[0]->def;
    bool first = tr != p->loads.data[p->alloc_of.data[k]];
    for (int j = 0; j < k && first; j++) first = p->allocs.data[j]->operands[0]->def != tr;
    ir_remove(al);
    if (first) ir_remove(tr);
  }
  for (int i = 0; i < p->loads.len; i++) ir_remove(p->loads.data[i]);
  return top;
}

/* After the loop: drain the copies, complete the dots, release the rings. */
static void finish_after(Pipe *p, const Op *const *dots, const int *accs, int nd) {
  Op *loop = p->loop;
  IrBuilder after;
  irb_init(&after, p->m, p->f, loop->parent);
  after.before = loop->next;
  after.loc = loop->loc;
  if (p->ncp) {
    Op *w0 = irb_op(&after, OP_ASYNC_WAIT, NULL, 0, NULL);
    w0->attr.num = 0;
  }
  for (int i = 0; i < nd; i++) {
    Value *r = loop->results[accs[i]];
    Op *dw = irb_op(&after, OP_DOT_WAIT, &r, 1, r->type);
    dw->attr.num = 0;
    ir_replace_uses(loop->parent, r, dw->results[0]);
    dw->operands[0] = r;
  }
  (void)dots;
  /* every thread is done with the rings before their bytes are reused
   * (another loop's ring may start filling them right away) */
  irb_op(&after, OP_BARRIER, NULL, 0, NULL);
  if (p->ntma) irb_op(&after, OP_MBAR_INVAL, &p->bars, 1, NULL);
}

static void transform(Pipe *p, const PassUsers *u) {
  IrModule *m = p->m;
  IrContext *c = p->ctx;
  int S = p->S, D = S - 1;
  const Type *ivt = p->loop->operands[0]->type, *i32 = ty_scalar(c, DT_I32);
  mark_slices(p, p->loads.data, p->loads.len);
  p->rings = xcalloc((size_t)p->loads.len, sizeof(Value *));
  IrBuilder b;
  irb_init(&b, m, p->f, p->loop->parent);
  b.before = p->loop;
  b.loc = p->loop->loc;
  Value **cur = xcalloc((size_t)p->nargs + 1, sizeof(Value *));
  build_prologue(p, &b, cur);

  /* the loop: ahead copies of the iter args, the read slot, its phase */
  int na = 0, nold = p->nargs;
  Value **inits = xcalloc((size_t)p->nargs + 3, sizeof(Value *));
  int *ahead_of = xcalloc((size_t)p->nargs + 1, sizeof(int));
  for (int j = 0; j < p->nargs; j++)
    if (p->ahead[j]) ahead_of[na] = j, inits[na++] = cur[j];
  inits[na] = iconst(&b, i32, 0);
  inits[na + 1] = iconst(&b, i32, 0);
  p->loop = ir_for_add_iter_args(m, p->f, p->loop, inits, na + 2);
  IrBlock *body = p->body;
  Value *rd = body->args[1 + nold + na], *ph = body->args[2 + nold + na];
  Op *yield = body->last;
  irb_init(&b, m, p->f, body);
  b.before = body->first;
  b.loc = p->loop->loc;
  b.before = rewrite_top(p, &b, rd, ph)->next; /* (the old position may have been a removed load) */

  Op *dots[16];
  int accs[16];
  int nd = async_dots(p, u, dots, accs, 16);
  for (int i = 0; i < nd; i++) {
    dots[i]->attr.is_async = true;
    IrBuilder db;
    irb_init(&db, m, p->f, body);
    db.before = dots[i]->next;
    db.loc = dots[i]->loc;
    Op *dw = irb_op(&db, OP_DOT_WAIT, NULL, 0, NULL);
    dw->attr.num = 1;
  }
  /* the next stage: after the top barrier (mma.sync), or after a second
   * barrier behind the wgmma waits; a synchronous wgmma with TMA copies
   * also needs it (a warpgroup ahead of another must not refill the slot
   * the other's wgmma may still read) */
  if (nd || p->ntma) {
    b.before = yield;
    irb_op(&b, OP_BARRIER, NULL, 0, NULL);
  }
  ValueMap vm = {0};
  Value *ivd = irb_binary(&b, OP_ADD, body->args[0], iconst(&b, ivt, D * p->step));
  vmap_set(&vm, body->args[0], ivd);
  for (int k = 0; k < na; k++) vmap_set(&vm, body->args[1 + ahead_of[k]], body->args[1 + nold + k]);
  Value *first = irb_cmp(&b, CMP_EQ, rd, iconst(&b, i32, 0));
  Value *wr = irb_select(&b, first, iconst(&b, i32, S - 1), irb_binary(&b, OP_SUB, rd, iconst(&b, i32, 1)));
  issue_stage(p, &b, &vm, ivd, wr);
  Value **next = xcalloc((size_t)na + 3, sizeof(Value *));
  const Op *y = p->body->last;
  for (int k = 0; k < na; k++) next[k] = vmap_get(&vm, y->operands[ahead_of[k]]);
  vmap_free(&vm);
  b.before = yield;
  Value *rd1 = irb_binary(&b, OP_ADD, rd, iconst(&b, i32, 1));
  Value *wrap = irb_cmp(&b, CMP_EQ, rd1, iconst(&b, i32, S));
  next[na] = irb_select(&b, wrap, iconst(&b, i32, 0), rd1);
  next[na + 1] = irb_select(&b, wrap, irb_binary(&b, OP_XOR, ph, iconst(&b, i32, 1)), ph);
  ir_add_operands(m, yield, next, na + 2);
  finish_after(p, (const Op *const *)dots, accs, nd);
  free(next), free(inits), free(ahead_of), free(cur), free(p->rings);
}

/* ---- register prefetch ----------------------------------------------------------- */

enum {
  PREFETCH_ELEMS = 8,        /* elements a thread holds of one prefetched load, at most */
  PREFETCH_TOTAL = 16,       /* ... and of all of a loop's */
};

/* Does the block (or a region in it) write memory?  A load issued an
 * iteration early must not be able to miss the body's own stores. */
static bool writes_memory(const IrBlock *b) {
  for (const Op *op = b->first; op; op = op->next) {
    if (op->kind == OP_STORE || op->kind == OP_ATOMIC_RMW || op->kind == OP_ATOMIC_CAS || op->kind == OP_TMA_STORE)
      return true;
    for (int r = 0; r < op->nregions; r++)
      if (writes_memory(op->regions[r])) return true;
  }
  return false;
}

/* The loads of a pipelined loop that stay where they are, read in registers
 * (neither a dot operand's staging nor riding along in a ring: a value
 * several threads hold, like attention's per-row `m` and `Di` in a dot's
 * slice layout): few elements a thread, addresses computable ahead. */
static int prefetch_loads(Pipe *p, Op **out, int cap) {
  if (writes_memory(p->body)) return 0;
  int n = 0, total = 0;
  for (Op *op = p->body->first; op && n < cap; op = op->next) {
    if (op->kind != OP_LOAD || op->id >= p->nops || op->attr.is_volatile || !op->results[0]->type->rank) continue;
    bool ringed = false;
    for (int i = 0; i < p->loads.len && !ringed; i++) ringed = p->loads.data[i] == op;
    const Type *t = op->results[0]->type;
    LinearLayout ll;
    int e = t->layout && ll_from_layout(t->layout, t->rank, t->shape, &ll) ? 1 << ll.nreg : 0;
    if (ringed || e <= 0 || e > PREFETCH_ELEMS || total + e > PREFETCH_TOTAL) continue;
    if (!address_ok(p, op)) continue;
    out[n++] = op, total += e;
  }
  return n;
}

/* A clone of load ld with its operands mapped by vm and its mask anded
 * with `guard` (the iteration it reads exists). */
static Value *guarded_load(Pipe *p, IrBuilder *b, ValueMap *vm, Op *ld, Value *guard) {
  Value *ptr = vmap_get(vm, ld->operands[0]);
  Value *mask = guarded_mask(p, b, ptr->type, ld->operands[1] ? vmap_get(vm, ld->operands[1]) : NULL, guard);
  Value *ops[3] = {ptr, mask, ld->operands[2] ? vmap_get(vm, ld->operands[2]) : NULL};
  Op *c = irb_op(b, OP_LOAD, ops, 3, ld->results[0]->type);
  c->attr = ld->attr;
  return c->results[0];
}

/* Each load of lds[] is issued one iteration ahead, where it was, into
 * registers the loop carries (the first before the loop), so its latency
 * hides behind a whole iteration instead of stalling the first use:
 *
 *   %x0 = load <address at lb>, mask &= lb < ub
 *   for %iv ... iter_args(..., %x = %x0) {
 *     ... the body reads %x where it read the load ...
 *     %xn = load <address at iv + step, the ahead args advanced>, mask &= iv + step < ub
 *     yield ..., %xn
 *   }
 *
 * The body writes no memory (prefetch_loads), so reading early reads the
 * same bytes. */
static void prefetch(Pipe *p, Op **lds, int n) {
  IrModule *m = p->m;
  Op *loop = p->loop;
  const Op *y = p->body->last;
  const Type *ivt = loop->operands[0]->type;
  Value *lb = loop->operands[0], *ub = loop->operands[1];
  mark_slices(p, lds, n);

  IrBuilder b;
  irb_init(&b, m, p->f, loop->parent);
  b.before = loop;
  b.loc = loop->loc;
  Value **vals = xcalloc((size_t)n, sizeof(Value *));
  ValueMap vm = {0};
  vmap_set(&vm, p->body->args[0], lb);
  for (int j = 0; j < p->nargs; j++)
    if (p->ahead[j]) vmap_set(&vm, p->body->args[j + 1], loop->operands[3 + j]);
  clone_slices(p, &b, &vm);
  Value *first = irb_cmp(&b, CMP_LT, lb, ub);
  for (int i = 0; i < n; i++) vals[i] = guarded_load(p, &b, &vm, lds[i], first);
  vmap_free(&vm);

  int base = p->body->nargs;
  p->loop = loop = ir_for_add_iter_args(m, p->f, loop, vals, n);
  for (int i = 0; i < n; i++) {
    irb_init(&b, m, p->f, p->body);
    b.before = lds[i];
    b.loc = lds[i]->loc;
    ValueMap now = {0}, next = {0};
    clone_slices(p, &b, &now); /* this iteration's slices: the ahead args' next values */
    Value *iv = irb_binary(&b, OP_ADD, p->body->args[0], iconst(&b, ivt, p->step));
    vmap_set(&next, p->body->args[0], iv);
    for (int j = 0; j < p->nargs; j++)
      if (p->ahead[j]) vmap_set(&next, p->body->args[j + 1], vmap_get(&now, y->operands[j]));
    clone_slices(p, &b, &next);
    vals[i] = guarded_load(p, &b, &next, lds[i], irb_cmp(&b, CMP_LT, iv, ub));
    vmap_free(&now), vmap_free(&next);
    ir_replace_uses(p->body, lds[i]->results[0], p->body->args[base + i]);
    ir_remove(lds[i]);
  }
  ir_add_operands(m, p->body->last, vals, n);
  clear_marks(p, 1);
  free(vals);
}

static void pipeline_loop(IrModule *m, Op *loop, const PassUsers *u, uint8_t *mark, uint32_t nops) {
  IrBlock *body = loop->regions[0];
  int S = loop->attr.loop.num_stages > 0 ? loop->attr.loop.num_stages : m->num_stages;
  const Value *st = loop->operands[2];
  if (S < 2 || !st->def || st->def->kind != OP_CONSTANT || st->def->attr.ival <= 0) return;
  if (loop->operands[1]->type != loop->operands[0]->type) return;
  if (!body->last || body->last->kind != OP_YIELD) return;
  Pipe p = {.m = m, .f = m->func, .ctx = m->ctx, .loop = loop, .body = body, .S = S,
            .step = st->def->attr.ival, .nops = nops, .mark = mark, .nargs = body->nargs - 1};
  p.ahead = xcalloc((size_t)p.nargs + 1, sizeof(bool));
  find_ahead(&p);
  int staged = 0; /* loads of dot operands: the loop is worth pipelining */
  for (Op *op = body->first; op; op = op->next) {
    Op *al[MAX_STAGINGS];
    int nal;
    TmaTile *t;
    const Type *slot_t;
    if (op->id < nops && candidate(&p, u, op, al, &nal, &slot_t, &t)) {
      for (int k = 0; k < nal; k++) {
        VEC_PUSH(p.allocs, al[k]);
        VEC_PUSH(p.alloc_of, p.loads.len);
      }
      VEC_PUSH(p.loads, op);
      VEC_PUSH(p.stypes, slot_t);
      VEC_PUSH(p.tma, t);
      if (t) p.ntma++;
      else p.ncp++;
      staged += nal > 0;
    }
  }
  if (staged) {
    Op *pref[8];
    int npref = prefetch_loads(&p, pref, 8);
    transform(&p, u);
    if (npref) prefetch(&p, pref, npref);
  }
  memset(mark, 0, nops);
  for (int i = 0; i < p.tma.len; i++) free(p.tma.data[i]);
  VEC_FREE(p.tma);
  VEC_FREE(p.loads);
  VEC_FREE(p.allocs);
  VEC_FREE(p.alloc_of);
  VEC_FREE(p.stypes);
  free(p.ahead);
}

static void collect_loops(IrBlock *b, Op ***loops, int *n, int *cap) {
  for (Op *op = b->first; op; op = op->next) {
    for (int r = 0; r < op->nregions; r++) collect_loops(op->regions[r], loops, n, cap);
    if (op->kind != OP_FOR) continue;
    if (*n == *cap) {
      *cap = *cap ? 2 * *cap : 8;
      *loops = xrealloc(*loops, sizeof(Op *) * (size_t)*cap);
    }
    (*loops)[(*n)++] = op; /* inner loops first */
  }
}

int pass_pipeline(IrModule *m, StrBuf *errors) {
  (void)errors;
  if (!m->func) return 0;
  Op **loops = NULL;
  int n = 0, cap = 0;
  collect_loops(m->func->body, &loops, &n, &cap);
  for (int i = 0; i < n; i++) {
    PassUsers u;
    pass_users_build(m->func, &u);
    uint32_t nops = m->func->nops;
    uint8_t *mark = xcalloc(nops + 1, 1);
    pipeline_loop(m, loops[i], &u, mark, nops);
    free(mark);
    pass_users_free(&u);
  }
  free(loops);
  return 0;
}

bool pass_tma_ring_loop(const Op *loop, int min_announced, Value **bars, Value **rd, Value **ph) {
  if (loop->kind != OP_FOR || loop->nregions != 1) return false;
  const IrBlock *body = loop->regions[0];
  const Op *wait = body->first;
  if (!wait || wait->kind != OP_MBAR_WAIT) return false;
  Value *b = wait->operands[0], *r = wait->operands[1], *p = wait->operands[2];
  if (!b->def || b->def->parent == body || r->block != body || p->block != body || r->index < 1 || p->index < 1)
    return false;
  const Value *nx = body->last->operands[r->index - 1];
  const Op *sel = nx->def;
  if (!sel || sel->kind != OP_SELECT) return false;
  const Op *inc = sel->operands[2]->def;
  if (!inc || inc->kind != OP_ADD || inc->operands[0] != r || !inc->operands[1]->def ||
      inc->operands[1]->def->kind != OP_CONSTANT || inc->operands[1]->def->attr.ival != 1)
    return false;
  int announced = 0;
  for (const Op *op = loop->parent->first; op && op != loop; op = op->next)
    announced += op->kind == OP_MBAR_EXPECT && op->operands[0] == b;
  if (announced < min_announced) return false;
  *bars = b, *rd = r, *ph = p;
  return true;
}

int64_t pass_threads(const IrModule *m) { return (int64_t)m->num_warps * m->threads_per_warp; }
