/* consumer_warpgroups.c — sm_90: how many consumer warpgroups run an
 * attention-like loop.  Before any layout exists, a kernel asked for on one
 * warpgroup (num_warps 4) whose loop carries more than one warpgroup can keep
 * beside its work runs on two (num_warps 8): each takes half the rows of
 * every dot (wgmma's m64 tiles along M), the carried tiles are split between
 * them, and both read the K and V slots the producer warp fills once.
 *
 * Taken when warp specialization may run (auto or on: the producer is what
 * makes the split pay; measured below without it the split lost), the target
 * is sm_90, the kernel asks for 4 warps, and its one top-level loop holding
 * two dots or more (the softmax between them: attention) carries tensors of
 * more than IR_WS_CARRIED_REGS_AT_2_CTAS registers a thread on 4 warps, the
 * loop's first dot having a multiple of 128 rows (64 rows a warpgroup or
 * more).  m->num_warps becomes 8 and m->warps_asked keeps the 4; the
 * warp-specialize pass takes the widened loop (auto), and the compiler
 * compiles the kernel again without the split (m->keep_warps) when it does
 * not, so a split never runs without its producer.
 *
 * Measured on the H100 (seed-004 attention forward, head dim 128, 128x64
 * blocks, one config each, TFLOP/s): N4096 534 autotuned on 4 warps -> 559
 * (3 stages) and 567 (4 stages) on two consumer warpgroups with the producer
 * (12 warps); N16384 479 -> 520 and 552; the same 8 warps without the
 * producer 366 (N4096) and 396 (N16384). */
#include "passes/pass_internal.h"

#include <stdlib.h>

enum { ASKED_WARPS = 4, SPLIT_WARPS = 8, WARPGROUP_ROWS = 128 };

/* The top-level loop holding two dots or more in its body, when there is
 * exactly one loop holding a dot at the top level (a causal kernel's two
 * loops are two TMA rings, which warp-specialize does not take). */
static Op *attention_loop(IrFunc *f) {
  Op *found = NULL;
  int loops_with_dots = 0;
  for (Op *op = f->body->first; op; op = op->next) {
    if (op->kind != OP_FOR) continue;
    int dots = 0;
    for (const Op *b = op->regions[0]->first; b; b = b->next) dots += b->kind == OP_DOT;
    if (dots) loops_with_dots++;
    if (dots >= 2) found = op;
  }
  return loops_with_dots == 1 ? found : NULL;
}

static const Op *first_dot(const Op *loop) {
  for (const Op *b = loop->regions[0]->first; b; b = b->next)
    if (b->kind == OP_DOT) return b;
  return NULL;
}

int pass_consumer_warpgroups(IrModule *m, StrBuf *errors) {
  (void)errors;
  if (!m->func || m->capability != 90 || m->warp_specialize < 0 || m->keep_warps || m->producer_warps ||
      m->num_warps != ASKED_WARPS)
    return 0;
  Op *loop = attention_loop(m->func);
  if (!loop) return 0;
  const Type *acc = first_dot(loop)->results[0]->type;
  if (acc->rank != 2 || acc->shape[0] % WARPGROUP_ROWS) return 0;
  if (ir_carried_regs(loop->regions[0], (int64_t)ASKED_WARPS * m->threads_per_warp) <= IR_WS_CARRIED_REGS_AT_2_CTAS)
    return 0;
  m->warps_asked = m->num_warps;
  m->num_warps = SPLIT_WARPS;
  return 0;
}
