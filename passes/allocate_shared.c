/* allocate-shared: a byte offset in shared memory for every LOCAL_ALLOC
 * buffer, reusing the space of buffers that are no longer live.
 *
 * Ops are numbered in program order (pre-order: an op before its regions).
 * A buffer is live from its local_alloc to its last use; a use inside a
 * loop that the local_alloc is not in keeps the buffer live to the end of
 * that loop (the next iteration reads it again).  Buffers are placed
 * first-fit, largest first among overlapping ranges, 128-byte aligned (a
 * swizzled row of up to 128 bytes starts on a bank-group boundary), 1024
 * for wgmma's layouts (their swizzle pattern repeats every 1024 bytes), so two
 * buffers share bytes only when their live ranges are disjoint, or when
 * they are rings of different attr.ring_phase (warp-specialize drains one
 * group of loops' rings before the producer fills the next's).  That is
 * safe because every local_alloc of a value starts with a barrier (codegen)
 * and a pipelined ring's first copies follow one (pipeline.c): the readers
 * of whatever lived there before are done.  m->smem_buffers_end is the end
 * of all buffers; every other op gets attr.scratch_offset = the end of the
 * buffers live at it (128-aligned), where codegen puts the op's scratch
 * (layout conversions, cross-warp reductions), so the epilogue after a
 * pipelined loop converts inside the ring's dead space. */
#include "passes/pass_internal.h"

#include <stdlib.h>

typedef struct Buf {
  Op *op;
  int64_t bytes;
  int64_t align;      /* 1024 for wgmma's swizzled layouts (the swizzle repeats every 1024 bytes), else 128 */
  int start, end;     /* live range in op positions, inclusive */
  int64_t offset;
} Buf;

typedef struct Alloc {
  int *pos;           /* by Op.id: position in program order */
  int *last;          /* by Op.id: position of the last op inside its regions */
  int next;
  VEC(Buf) bufs;
} Alloc;

static void number(Alloc *a, IrBlock *b) {
  for (Op *op = b->first; op; op = op->next) {
    a->pos[op->id] = a->next++;
    for (int r = 0; r < op->nregions; r++) number(a, op->regions[r]);
    a->last[op->id] = a->next - 1;
  }
}

/* Is op (transitively) inside `outer`'s regions? */
static bool inside(const Op *op, const Op *outer) {
  for (const IrBlock *b = op->parent; b && b->parent; b = b->parent->parent)
    if (b->parent == outer) return true;
  return false;
}

static void scan(Alloc *a, IrBlock *b) {
  for (Op *op = b->first; op; op = op->next) {
    if (op->kind == OP_LOCAL_ALLOC) {
      const Type *t = op->results[0]->type;
      Buf buf = {op, ty_numel(t) * ty_elem_bytes(t), ir_smem_align(t), a->pos[op->id], a->pos[op->id], 0};
      VEC_PUSH(a->bufs, buf);
    }
    for (int r = 0; r < op->nregions; r++) scan(a, op->regions[r]);
  }
}

static void extend(Alloc *a, Op *user, void *ud) {
  (void)ud;
  for (int i = 0; i < user->noperands; i++) {
    Value *v = user->operands[i];
    if (!v || !v->def || v->def->kind != OP_LOCAL_ALLOC) continue;
    for (int k = 0; k < a->bufs.len; k++) {
      Buf *buf = &a->bufs.data[k];
      if (buf->op != v->def) continue;
      int end = a->pos[user->id];
      /* the outermost loop around the use that does not hold the alloc */
      for (Op *l = user->parent ? user->parent->parent : NULL; l; l = l->parent ? l->parent->parent : NULL)
        if ((l->kind == OP_FOR || l->kind == OP_WHILE) && !inside(buf->op, l) && a->last[l->id] > end)
          end = a->last[l->id];
      if (end > buf->end) buf->end = end;
    }
  }
}

typedef struct Walk {
  Alloc *a;
} Walk;

static void visit(Op *op, void *ud) { extend(((Walk *)ud)->a, op, NULL); }

static int by_size(const void *x, const void *y) {
  const Buf *p = x, *q = y;
  if (p->bytes != q->bytes) return p->bytes > q->bytes ? -1 : 1;
  return p->start - q->start;
}

int pass_allocate_shared(IrModule *m, StrBuf *errors) {
  (void)errors;
  m->smem_buffers_end = 0;
  if (!m->func) return 0;
  Alloc a = {0};
  a.pos = xcalloc(m->func->nops + 1, sizeof(int));
  a.last = xcalloc(m->func->nops + 1, sizeof(int));
  number(&a, m->func->body);
  scan(&a, m->func->body);
  Walk w = {&a};
  ir_walk(m->func->body, visit, &w);
  if (a.bufs.len > 1) qsort(a.bufs.data, (size_t)a.bufs.len, sizeof(Buf), by_size);
  int64_t end = 0;
  for (int i = 0; i < a.bufs.len; i++) {
    Buf *b = &a.bufs.data[i];
    /* lowest aligned offset not overlapping a placed, live-overlapping buffer */
    int64_t off = 0, align = b->align;
    for (bool moved = true; moved;) {
      moved = false;
      for (int k = 0; k < i; k++) {
        Buf *o = &a.bufs.data[k];
        bool live = b->start <= o->end && o->start <= b->end;
        int pb = b->op->attr.ring_phase, po = o->op->attr.ring_phase;
        if (pb && po && pb != po) live = false; /* rings warp-specialize drains in between */
        bool bytes = off < o->offset + o->bytes && o->offset < off + b->bytes;
        if (live && bytes) {
          off = (o->offset + o->bytes + align - 1) & ~(align - 1);
          moved = true;
        }
      }
    }
    b->offset = off;
    b->op->attr.smem_offset = (int)off;
    if (off + b->bytes > end) end = off + b->bytes;
  }
  m->smem_buffers_end = (int)((end + 15) & ~(int64_t)15);
  /* every other op's scratch starts above the buffers live at it */
  int n;
  Op **ops = ir_collect_ops(m->func, &n);
  for (int i = 0; i < n; i++) {
    if (ops[i]->kind == OP_LOCAL_ALLOC) continue;
    int p = a.pos[ops[i]->id];
    int64_t live_end = 0;
    for (int k = 0; k < a.bufs.len; k++) {
      const Buf *b = &a.bufs.data[k];
      if (b->start <= p && p <= b->end && b->offset + b->bytes > live_end) live_end = b->offset + b->bytes;
    }
    ops[i]->attr.scratch_offset = (int)((live_end + 127) & ~(int64_t)127);
  }
  free(ops);
  m->scratch_per_op = true;
  VEC_FREE(a.bufs);
  free(a.pos);
  free(a.last);
  return 0;
}
