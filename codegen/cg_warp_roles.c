/* cg_warp_roles.c — warp-specialized code: WARP_ROLES (the producer warps
 * and the consumer warps running different regions) and the BARRIERs
 * inside it.
 *
 * The block is num_warps consumer warps (threads 0 .. nthreads-1, the
 * threads every layout spans) followed by the producer warps:
 *
 *   tid >= nthreads ? producer : consumers
 *   producer:  tid < nthreads + 32 ? lead : join      (one warp issues)
 *   lead:      region 0 (scalars, mbarrier waits, TMA copies from its
 *              first thread: cg_lead_tid)  -> join
 *   join:      barrier.sync 0 (when region 0 ends in the join barrier)
 *   consumers: region 1, its barriers `barrier.sync 1, nthreads`, the join
 *              barrier (attr.num = 1) barrier.sync 0 with the producer warps
 *
 * The producer's other warps only wait at the join, so every thread of the
 * CTA reaches barrier.sync 0 exactly once per join. */
#include "codegen/cg_internal.h"

#include <stdio.h>
#include <stdlib.h>

/* The join: bar.sync 0 is barrier.sync.aligned, which every thread must
 * reach at the same instruction; the producer and the consumers reach the
 * join at two, so it is the unaligned barrier.sync 0 (all threads). */
static void join_all(CgCtx *cg) { /* (inline: LLVM merges the intrinsic form into bar.sync 0) */
  cg_asm(cg, cg->t_void, "barrier.sync 0;", "~{memory}", NULL, 0, true);
}

void cg_lower_barrier(CgCtx *cg, Op *op) {
  if (op->attr.num != 1) {
    cg_barrier(cg);
    return;
  }
  if (cg->role == CG_ROLE_NONE) {
    cg_error(cg, op, "the join barrier (barrier {num=1}) outside warp_roles");
    return;
  }
  if (cg->role == CG_ROLE_PRODUCER) { /* every producer warp joins after region 0 */
    if (op->next && !(ir_op_info[op->next->kind].traits & TR_TERMINATOR))
      cg_error(cg, op, "the producer's join barrier must end its region");
    cg->producer_joins = true;
    return;
  }
  join_all(cg);
}

/* Registers (ir_ws_consumer_regs): every thread starts at the count
 * cg_ws_ctas_per_sm CTAs an SM allow (.minnctapersm tells ptxas, which then
 * knows it); the producer warps give theirs back down to IR_WS_PRODUCER_REGS
 * (setmaxnreg.dec), the consumers take the rest of the CTA's allocation
 * (setmaxnreg.inc, a multiple of 8, at most 256). */

/* ir_ws_ctas_per_sm: two for one or two consumer warpgroups unless their
 * registers cannot hold the work there; one when the kernel's buffers
 * alone keep a second CTA off the SM (its registers would be halved for
 * nothing: seed 004's D64 forward split at 7 stages, 128 KB). */
int cg_ws_ctas_per_sm(const CgCtx *cg) {
  int ctas = ir_ws_ctas_per_sm(cg->f, cg->nthreads);
  return ctas > 1 && cg->m->smem_buffers_end > ir_smem_per_cta(cg->capability, ctas) ? 1 : ctas;
}

static int consumer_regs(const CgCtx *cg) {
  return ir_ws_consumer_regs(cg->ws_ctas_per_sm, cg->nthreads, cg->launch_threads - cg->nthreads);
}

static void setmaxnreg(CgCtx *cg, bool inc, int regs) {
  char text[64];
  snprintf(text, sizeof text, "setmaxnreg.%s.sync.aligned.u32 %d;", inc ? "inc" : "dec", regs);
  cg_asm(cg, cg->t_void, text, "", NULL, 0, true);
}

static LLVMBasicBlockRef block(CgCtx *cg, const char *name) {
  return LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, name);
}

void cg_lower_warp_roles(CgCtx *cg, Op *op) {
  if (op->nregions != 2 || cg->role != CG_ROLE_NONE || cg->launch_threads <= cg->nthreads) {
    cg_error(cg, op, "warp_roles needs two regions, the top level and producer warps");
    return;
  }
  LLVMBasicBlockRef prod = block(cg, "ws.producer"), lead = block(cg, "ws.lead"), join = block(cg, "ws.join");
  LLVMBasicBlockRef cons = block(cg, "ws.consumers"), end = block(cg, "ws.end");
  LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntUGE, cg->tid, cg_i32(cg, cg->nthreads), ""), prod, cons);

  LLVMPositionBuilderAtEnd(cg->b, prod);
  if (cg->capability == 90) setmaxnreg(cg, false, IR_WS_PRODUCER_REGS);
  LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntULT, cg->tid, cg_i32(cg, cg->nthreads + 32), ""), lead, join);
  LLVMPositionBuilderAtEnd(cg->b, lead);
  cg->role = CG_ROLE_PRODUCER;
  cg->producer_joins = false;
  cg_lower_block(cg, op->regions[0]);
  LLVMBuildBr(cg->b, join);
  LLVMPositionBuilderAtEnd(cg->b, join);
  if (cg->producer_joins) join_all(cg);
  LLVMBuildBr(cg->b, end);

  LLVMPositionBuilderAtEnd(cg->b, cons);
  cg->role = CG_ROLE_CONSUMER;
  if (cg->capability == 90) setmaxnreg(cg, true, consumer_regs(cg));
  cg_lower_block(cg, op->regions[1]);
  LLVMBuildBr(cg->b, end);
  cg->role = CG_ROLE_NONE;
  LLVMPositionBuilderAtEnd(cg->b, end);
}
