/* sink_stagings.c — the pass "sink-stagings": a dot operand's staging
 * (`local_alloc %x`, registers into a shared buffer) moves down its block,
 * past the global loads and register arithmetic that follow it, to just
 * after the last of those loads.
 *
 * assign-layouts stages an operand right after its definition.  Where the
 * pipeliner did not turn the loads into a ring (num_stages=1, a load it
 * leaves alone), a loop reading A and B then waits for A, stages it between
 * two CTA barriers, and only then issues the load of B: two memory round
 * trips an iteration, the second behind a barrier no thread may pass early.
 * Sunk, both loads are in flight together, and the two stagings stand side
 * by side (codegen then brackets the pair with one barrier each side):
 *
 *   %a = load ...                          %a = load ...
 *   %sa = local_alloc %a                   %b = load ...
 *   %b = load ...                    =>    %sa = local_alloc %a
 *   %sb = local_alloc %b                   %sb = local_alloc %b
 *   dot %sa, %sb, %acc                     dot %sa, %sb, %acc
 *
 * A staging moves only past ops that touch no shared memory and wait on no
 * barrier (elementwise ops, shape ops that stay in registers, global loads,
 * other stagings), up to the first op that reads the buffer or that it may
 * not pass; it lands right after the last global load on the way (the
 * round trip it saves: going further would only hold the staged registers
 * longer), before the stagings that follow that load, so the stagings keep
 * their order.  Its bytes are not placed yet (allocate-shared runs next). */
#include "passes/pass_internal.h"

/* May a staging move below op?  Nothing of op uses shared memory or a
 * barrier: elementwise ops, values out of nothing, shape ops that only
 * rename registers, global loads, and other stagings (they keep their
 * order). */
static bool passable(const Op *op) {
  if (op->nregions) return false;
  if (ir_is_staging(op) || op->kind == OP_LOAD) return true;
  if (ir_op_info[op->kind].traits & TR_ELEMENTWISE) return true;
  switch (op->kind) {
  case OP_CONSTANT: case OP_ARANGE: case OP_PROGRAM_ID: case OP_NUM_PROGRAMS:
  case OP_SPLAT: case OP_BROADCAST: case OP_EXPAND_DIMS:
    return true;
  default:
    return false;
  }
}

static void sink_block(IrBlock *b) {
  for (Op *op = b->first; op;) {
    Op *next = op->next;
    for (int r = 0; r < op->nregions; r++) sink_block(op->regions[r]);
    if (ir_is_staging(op)) {
      const Value *buf = op->results[0];
      Op *last_load = NULL;
      for (Op *o = op->next; o && !ir_op_uses(o, buf) && passable(o); o = o->next)
        if (o->kind == OP_LOAD) last_load = o;
      if (last_load) { /* right after the last load it may pass: before any staging that follows */
        ir_remove(op);
        ir_insert_after(last_load, op);
      }
    }
    op = next;
  }
}

int pass_sink_stagings(IrModule *m, StrBuf *errors) {
  (void)errors;
  if (m->func) sink_block(m->func->body);
  return 0;
}
