/* hoist_invariants.c — the pass "hoist-invariants": the operand of a dot
 * computed inside a loop from values the loop does not change is computed
 * once, before the loop.
 *
 * Kernel text often writes `tl.dot(ds, tl.trans(k))` or
 * `tl.dot(p, v.to(tl.float32))` inside the loop over blocks while k and v
 * were loaded before it (seed 001's backward).  Left in the loop, the
 * transpose or conversion runs every iteration, and so does the operand's
 * staging into shared memory that assign-layouts places after it (a store
 * and two barriers an iteration).  Moved before the loop, the staging is
 * done once; assign-layouts reads the buffer back inside the loop
 * (passes/layouts.c, dot_operand), so no register stays live across it.
 *
 * Taken: a pure op without regions, at the top of a `for` body, every
 * operand defined outside the body (or by an op taken before it), whose
 * tensor result is used only as an A or B operand of dots or by other ops
 * taken (the chain `trans(k).to(tl.float32)` moves whole); integer
 * division and remainder stay.  What moved is recorded in m->hoisted.  Scalars and
 * what other ops use stay: LLVM hoists scalars itself, and an invariant
 * tensor kept in registers across the loop would cost registers.
 * Innermost loops first, so a chain can leave a nest one loop at a time. */
#include "passes/pass_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct Hoist {
  IrModule *m;
  IrFunc *f;
  PassUsers users;
  bool *taken;   /* by Op.id */
  uint32_t nops;
} Hoist;

/* Record v in m->hoisted (by Value.id), growing the table as needed. */
static void mark(Hoist *h, const Value *v) {
  IrModule *m = h->m;
  if (v->id >= m->nhoisted) {
    uint32_t n = h->f->nvalues > v->id ? h->f->nvalues : v->id + 1;
    uint8_t *t = arena_alloc(m->arena, n);
    if (m->hoisted) memcpy(t, m->hoisted, m->nhoisted);
    m->hoisted = t, m->nhoisted = n;
  }
  m->hoisted[v->id] = 1;
}

/* Integer division and remainder are left in place: before a loop that runs
 * zero times, a zero divisor the loop never reached would become undefined
 * behaviour. */
static bool divides(const Op *op) {
  return (op->kind == OP_DIV || op->kind == OP_REM) && dt_is_int(op->results[0]->type->dtype);
}

static bool takeable(const Hoist *h, const IrBlock *body, const Op *op) {
  if (!(ir_op_info[op->kind].traits & TR_PURE) || op->nregions || op->nresults != 1 ||
      !op->results[0]->type->rank || divides(op))
    return false;
  for (int i = 0; i < op->noperands; i++) {
    const Value *v = op->operands[i];
    if (!v) continue;
    if (v->def && v->def->id < h->nops && h->taken[v->def->id]) continue;
    if (!ir_defined_outside(body, v)) return false;
  }
  return true;
}

/* Is every use of op's result an A/B operand of a dot or an op taken? */
static bool feeds_dots(const Hoist *h, const Op *op) {
  const Value *r = op->results[0];
  if (r->id >= h->users.nvalues) return false;
  int n = 0;
  for (int k = h->users.start[r->id]; k < h->users.start[r->id + 1]; k++, n++) {
    const Op *u = h->users.op[k];
    if (u->kind == OP_DOT && (u->operands[0] == r || u->operands[1] == r) && u->operands[2] != r) continue;
    if (u->id < h->nops && h->taken[u->id]) continue;
    return false;
  }
  return n > 0;
}

static bool is_taken(const Hoist *h, const Op *op) { return op->id < h->nops && h->taken[op->id]; }

static void hoist_loop(Hoist *h, Op *loop) {
  IrBlock *body = loop->regions[0];
  for (Op *op = body->first; op; op = op->next)
    if (op->id < h->nops) h->taken[op->id] = true;
  /* to a fixed point: an op stays taken while its operands come from
   * outside or from ops taken, and its result only feeds dots or ops taken */
  for (bool changed = true; changed;) {
    changed = false;
    for (Op *op = body->first; op; op = op->next)
      if (is_taken(h, op) && !takeable(h, body, op)) h->taken[op->id] = false, changed = true;
    for (Op *op = body->last; op; op = op->prev)
      if (is_taken(h, op) && !feeds_dots(h, op)) h->taken[op->id] = false, changed = true;
  }
  for (Op *op = body->first, *next; op; op = next) {
    next = op->next;
    if (op->id >= h->nops || !h->taken[op->id]) continue;
    ir_remove(op);
    ir_insert_before(loop, op);
    mark(h, op->results[0]);
    h->taken[op->id] = false; /* outside now: an operand like any other for the enclosing loop */
  }
}

static void visit_block(Hoist *h, IrBlock *b) {
  for (Op *op = b->first, *next; op; op = next) {
    next = op->next;
    for (int r = 0; r < op->nregions; r++) visit_block(h, op->regions[r]); /* inner loops first */
    if (op->kind == OP_FOR) hoist_loop(h, op);
  }
}

int pass_hoist_invariants(IrModule *m, StrBuf *errors) {
  (void)errors;
  if (!m->func) return 0;
  uint32_t nops = m->func->nops;
  Hoist h = {m, m->func, {0}, calloc(nops ? nops : 1, sizeof(bool)), nops};
  pass_users_build(m->func, &h.users);
  visit_block(&h, m->func->body);
  pass_users_free(&h.users);
  free(h.taken);
  return 0;
}
