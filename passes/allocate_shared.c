/* allocate_shared.c — allocate-shared: a byte offset in shared memory for
 * every LOCAL_ALLOC buffer.
 *
 * Buffers are placed one after the other in program order, 128-byte
 * aligned (so a swizzled row of up to 128 bytes starts on a bank-group
 * boundary), and never overlap: each LOCAL_ALLOC is one buffer however many
 * loop iterations rewrite it.  m->smem_buffers_end is where codegen starts
 * its own per-op scratch.  (Reusing the space of buffers that are no longer
 * live is a possible refinement; kernels here need far less than the
 * 227 KiB an H100 program can have.) */
#include "passes/pass_internal.h"

typedef struct Alloc {
  int64_t end;
} Alloc;

static void place(Op *op, void *ud) {
  Alloc *a = ud;
  if (op->kind != OP_LOCAL_ALLOC) return;
  const Type *t = op->results[0]->type;
  int64_t bytes = ty_numel(t) * ty_elem_bytes(t);
  a->end = (a->end + 127) & ~(int64_t)127;
  op->attr.smem_offset = (int)a->end;
  a->end += bytes;
}

int pass_allocate_shared(IrModule *m, StrBuf *errors) {
  (void)errors;
  Alloc a = {0};
  if (m->func) ir_walk(m->func->body, place, &a);
  m->smem_buffers_end = (int)((a.end + 15) & ~(int64_t)15);
  return 0;
}
