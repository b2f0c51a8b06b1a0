/* consumer_warpgroups.c — sm_90: how many consumer warpgroups run a loop of
 * tensor-core work.  Before any layout exists, a kernel asked for on one
 * warpgroup (num_warps 4) whose loop carries more than one warpgroup can keep
 * beside its work runs on two (num_warps 8): each takes half the rows of
 * every dot (wgmma's m64 tiles along M) and the carried tiles are split
 * between them.  m->num_warps becomes 8 and m->warps_asked keeps the 4.
 *
 * Two rules, each on sm_90 for a kernel asking for 4 warps, every dot of the
 * loops concerned 2-D with a multiple of 128 rows (64 a warpgroup or more):
 *
 *  - registers: a top-level loop holding a dot whose carried tensors alone
 *    exceed the 255 registers a thread can have on 4 warps spills whatever
 *    else happens (the seed-004 attention backward at head dim 128: dk and
 *    dv, 128 + 128 fp32 registers a thread, spilled 1464 bytes): split, with
 *    a producer or without one (m->split_alone);
 *  - producer: when warp specialization may run (auto or on), some
 *    top-level loop holds a dot, every such loop holds two or more
 *    (attention: the softmax between them; the causal forward has two such
 *    loops), and either one carries more than IR_WS_CARRIED_REGS_AT_2_CTAS
 *    registers a thread on 4 warps (head dim 128: one CTA an SM) or every
 *    one, split, fits two consumer warpgroups at two CTAs an SM (head dim
 *    64, ir_ws_loop_fits_2_ctas); both warpgroups then read the K and V
 *    slots the producer warp fills once.  warp-specialize takes the split loops (auto), and the compiler
 *    compiles the kernel again unsplit (m->keep_warps) when it does not
 *    (the rings of both causal loops must fit shared memory side by side):
 *    this split never runs without its producer.
 *
 * Measured on the H100 (seed-004 attention forward, head dim 128, 128x64
 * blocks, one config each, TFLOP/s): N4096 534 autotuned on 4 warps -> 559
 * (3 stages) and 567 (4 stages) on two consumer warpgroups with the producer
 * (12 warps); N16384 479 -> 520 and 552; the same 8 warps without the
 * producer 366 (N4096) and 396 (N16384). */
#include "passes/pass_internal.h"

#include <stdlib.h>

enum { ASKED_WARPS = 4, SPLIT_WARPS = 8, WARPGROUP_ROWS = 128, THREAD_MAX_REGS = 255 };

/* The registers a thread needs on 4 warps for the loop's carried values,
 * pointer tensors left out: they are address arithmetic, which the pipeline
 * turns into ring slots and scalar offsets (matmul's a_ptrs and b_ptrs of
 * 128x64 would count 128 registers each; ptxas gave the loop 208 in all). */
static int64_t carried_regs_asked(const IrModule *m, const Op *loop) {
  return ir_carried_data_regs(loop->regions[0], (int64_t)ASKED_WARPS * m->threads_per_warp);
}

static int count_dots(const Op *loop) {
  int dots = 0;
  for (const Op *b = loop->regions[0]->first; b; b = b->next) dots += b->kind == OP_DOT;
  return dots;
}

/* Every dot in the loop's body 2-D with a multiple of 128 rows; false when
 * it holds none. */
static bool dots_split(const Op *loop) {
  for (const Op *b = loop->regions[0]->first; b; b = b->next) {
    if (b->kind != OP_DOT) continue;
    const Type *t = b->results[0]->type;
    if (t->rank != 2 || t->shape[0] % WARPGROUP_ROWS) return false;
  }
  return count_dots(loop) > 0;
}

/* The registers rule: some top-level loop cannot fit one warpgroup, and
 * every such loop can be split. */
static bool overflows_warpgroup(const IrModule *m) {
  bool any = false;
  for (const Op *op = m->func->body->first; op; op = op->next) {
    if (op->kind != OP_FOR || carried_regs_asked(m, op) <= THREAD_MAX_REGS) continue;
    if (!dots_split(op)) return false;
    any = true;
  }
  return any;
}

/* The producer rule: every top-level loop holding a dot holds two or more
 * (attention; a causal kernel has two such loops, which warp-specialize
 * takes together) and can be split, and either one of them carries more
 * than one warpgroup keeps at two CTAs an SM (head dim 128: split, one CTA
 * an SM) or every one of them, split, fits two warpgroups at two CTAs an SM
 * (head dim 64: four consumer warpgroups an SM; ir_ws_loop_fits_2_ctas). */
static bool attention_split_pays(const IrModule *m) {
  bool any = false, over = false, fit = true;
  int64_t split_threads = (int64_t)SPLIT_WARPS * m->threads_per_warp;
  for (const Op *op = m->func->body->first; op; op = op->next) {
    if (op->kind != OP_FOR || !count_dots(op)) continue;
    if (count_dots(op) < 2 || !dots_split(op)) return false;
    any = true;
    over |= carried_regs_asked(m, op) > IR_WS_CARRIED_REGS_AT_2_CTAS;
    fit &= ir_ws_loop_fits_2_ctas(ir_loop_data_regs(op->regions[0], split_threads), split_threads);
  }
  return any && (over || fit);
}

bool pass_split_for_producer(const IrModule *m) { return m->warps_asked && !m->split_alone; }

int pass_consumer_warpgroups(IrModule *m, StrBuf *errors) {
  (void)errors;
  if (!m->func || m->capability != 90 || m->keep_warps || m->producer_warps || m->num_warps != ASKED_WARPS)
    return 0;
  if (overflows_warpgroup(m)) {
    m->split_alone = true;
  } else if (m->warp_specialize < 0 || !attention_split_pays(m)) {
    return 0;
  }
  m->warps_asked = m->num_warps;
  m->num_warps = SPLIT_WARPS;
  return 0;
}
