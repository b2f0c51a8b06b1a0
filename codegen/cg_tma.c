/* cg_tma.c — bulk tensor copies (TMA, sm_90) and the mbarriers they complete
 * on: MBAR_INIT, MBAR_EXPECT, MBAR_WAIT, MBAR_INVAL, TMA_COPY, TMA_STORE,
 * and the hidden tensor-map parameters (IrFunc.tma).
 *
 * A tensor map arrives as a kernel parameter `.param .align 64 .b8 [128]`
 * marked grid-constant (nvvm.annotations "grid_constant"), so its address
 * (cvta.param) is what cp.async.bulk.tensor reads; its value is that
 * 64-bit generic address.  A ring of mbarriers is a shared buffer of
 * 8-byte words.  Thread 0 (in a warp-specialized kernel's producer region:
 * the producer's first thread) does everything one thread must do
 * (initialize, arrive with the expected byte count, issue the copies,
 * invalidate); every thread waits; a consumer warp releases a slot with
 * one arrival (MBAR_ARRIVE, lane 0):
 *
 *   mbarrier.init.shared::cta.b64 [bar], count;  fence.mbarrier_init.release.cluster;
 *   mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], bytes;
 *   cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes   (3d..5d: outer dims)
 *       [dst], [map, {c0, c1}], [bar];
 *   waitLoop: mbarrier.try_wait.parity.shared::cta.b64 p, [bar], phase; @!p bra waitLoop;
 *
 * A copy's box is one swizzle row of the buffer (the recipe's box[0]) by
 * its rows; a tile of several column blocks is one copy per block, block b
 * landing at b * rows * block elements (the buffer's layout, ir.h), with the
 * coordinate along the contiguous dim advanced by b * block.  The
 * hardware swizzles the bytes as wgmma reads them (the buffers are
 * 1024-byte aligned).  A store goes the other way, block by block, from
 * thread 0 in one bulk group it waits on until the buffer has been read:
 *
 *   cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [map, {c0, c1}], [src];
 *   cp.async.bulk.commit_group;  cp.async.bulk.wait_group.read 0;
 *
 * (its local_alloc fenced the generic-proxy writes for the async proxy),
 * then every thread passes a barrier before the buffer may be reused. */
#include "codegen/cg_internal.h"

#include <stdio.h>

/* Shared address (i32) of barrier `slot` of ring `bars`. */
static LLVMValueRef bar_addr(CgCtx *cg, const Op *op, const Value *bars, const Value *slot) {
  LLVMValueRef base = cg_get(cg, op, bars)->v[0];
  LLVMValueRef s = cg_get(cg, op, slot)->v[0];
  if (LLVMTypeOf(s) != cg->t_i32) s = LLVMBuildTrunc(cg->b, s, cg->t_i32, "");
  LLVMValueRef off = cg_build_add(cg->b, base, cg_build_shl(cg->b, s, cg_i32(cg, 3), ""), "");
  return LLVMBuildPtrToInt(cg->b, cg_smem_abs(cg, off), cg->t_i32, "");
}

/* Run the code emitted between begin and end in the lead thread only (and when
 * `pred`, an i1, holds; NULL = always). */
static LLVMBasicBlockRef begin_thread0(CgCtx *cg, LLVMValueRef pred) {
  LLVMValueRef c = LLVMBuildICmp(cg->b, LLVMIntEQ, cg_guard_tid(cg), cg_lead_tid(cg), "");
  if (pred) c = cg_build_and(cg->b, c, pred, "");
  return cg_begin_guard(cg, c);
}

static LLVMValueRef as_i1(CgCtx *cg, LLVMValueRef v) {
  if (LLVMTypeOf(v) == cg->t_i1) return v;
  return LLVMBuildICmp(cg->b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
}

static int64_t ring_len(const Value *bars) { return bars->type->shape[0]; }

void cg_lower_mbar(CgCtx *cg, Op *op) {
  const Value *bars = op->operands[0];
  LLVMValueRef base = cg_get(cg, op, bars)->v[0];
  switch (op->kind) {
  case OP_MBAR_INIT: case OP_MBAR_INVAL: {
    LLVMBasicBlockRef cont = begin_thread0(cg, NULL);
    char init[64];
    snprintf(init, sizeof init, "mbarrier.init.shared::cta.b64 [$0], %d;", op->attr.num > 0 ? op->attr.num : 1);
    for (int64_t s = 0; s < ring_len(bars); s++) {
      LLVMValueRef off = cg_build_add(cg->b, base, cg_i32(cg, s * 8), "");
      LLVMValueRef a = LLVMBuildPtrToInt(cg->b, cg_smem_abs(cg, off), cg->t_i32, "");
      if (op->kind == OP_MBAR_INIT) cg_asm(cg, cg->t_void, init, "r", &a, 1, true);
      else cg_asm(cg, cg->t_void, "mbarrier.inval.shared::cta.b64 [$0];", "r", &a, 1, true);
    }
    if (op->kind == OP_MBAR_INIT) cg_asm(cg, cg->t_void, "fence.mbarrier_init.release.cluster;", "", NULL, 0, true);
    cg_end_guard(cg, cont);
    return;
  }
  case OP_MBAR_EXPECT: {
    LLVMValueRef a = bar_addr(cg, op, bars, op->operands[1]);
    LLVMValueRef pred = as_i1(cg, cg_get(cg, op, op->operands[2])->v[0]);
    LLVMBasicBlockRef cont = begin_thread0(cg, NULL);
    LLVMValueRef args[2] = {a, LLVMBuildSelect(cg->b, pred, cg_i32(cg, op->attr.num), cg_i32(cg, 0), "")};
    cg_asm(cg, cg->t_void, "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r,~{memory}", args, 2,
           true);
    cg_end_guard(cg, cont);
    return;
  }
  case OP_MBAR_ARRIVE: { /* lane 0 of each warp, once the warp's lanes are past their reads */
    LLVMValueRef a = bar_addr(cg, op, bars, op->operands[1]);
    LLVMValueRef pred = as_i1(cg, cg_get(cg, op, op->operands[2])->v[0]);
    LLVMValueRef all = cg_i32(cg, -1);
    cg_intrin(cg, "llvm.nvvm.bar.warp.sync", NULL, 0, &all, 1);
    LLVMValueRef lead = LLVMBuildICmp(cg->b, LLVMIntEQ, cg->lane, cg_i32(cg, 0), "");
    LLVMBasicBlockRef cont = cg_begin_guard(cg, cg_build_and(cg->b, lead, pred, ""));
    cg_asm(cg, cg->t_void, "mbarrier.arrive.shared::cta.b64 _, [$0];", "r,~{memory}", &a, 1, true);
    cg_end_guard(cg, cont);
    return;
  }
  case OP_MBAR_WAIT: {
    LLVMValueRef args[2] = {bar_addr(cg, op, bars, op->operands[1]), cg_get(cg, op, op->operands[2])->v[0]};
    if (LLVMTypeOf(args[1]) != cg->t_i32) args[1] = LLVMBuildTrunc(cg->b, args[1], cg->t_i32, "");
    cg_asm(cg, cg->t_void,
           "{\n.reg .pred p;\nwait_${:uid}:\nmbarrier.try_wait.parity.shared::cta.b64 p, [$0], $1;\n"
           "@!p bra wait_${:uid};\n}",
           "r,r,~{memory}", args, 2, true);
    return;
  }
  default:
    cg_error(cg, op, "not an mbarrier op");
  }
}

/* A bulk copy's side of op: the 2-D shared buffer (operand 1), the map
 * (operand 0), the coordinates (operands first, first+1, innermost first,
 * as i32) and the swizzle blocks of the buffer: W elements wide, `rows`
 * rows.  False (reported) when the buffer is not 2-D. */
typedef struct Bulk {
  CgBuf b;
  LLVMValueRef map, c[IR_TMA_MAX_RANK];
  int rank;                /* coordinates: the buffer's 2, then outer dims of box 1 */
  int64_t W, rows, nblocks;
} Bulk;

static bool bulk_of(CgCtx *cg, Op *op, int first, Bulk *k) {
  if (!cg_buf(cg, op, op->operands[1], &k->b) || k->b.rdim < 0) {
    cg_error(cg, op, "%s needs a 2-D shared buffer", ir_op_info[op->kind].name);
    return false;
  }
  k->map = cg_get(cg, op, op->operands[0])->v[0];
  k->rank = op->noperands - first;
  if (k->rank < 2 || k->rank > IR_TMA_MAX_RANK) {
    cg_error(cg, op, "%s takes 2 to %d coordinates", ir_op_info[op->kind].name, IR_TMA_MAX_RANK);
    return false;
  }
  for (int i = 0; i < k->rank; i++) {
    k->c[i] = cg_get(cg, op, op->operands[first + i])->v[0];
    if (LLVMTypeOf(k->c[i]) != cg->t_i32) k->c[i] = LLVMBuildTrunc(cg->b, k->c[i], cg->t_i32, "");
  }
  int64_t inner = k->b.t->shape[k->b.cdim];
  k->rows = k->b.t->shape[k->b.rdim];
  k->W = k->b.S->block > 0 && k->b.S->block < inner ? k->b.S->block : inner;
  k->nblocks = inner / k->W;
  return true;
}

/* Shared address (i32) of swizzle block blk, and its contiguous coordinate. */
static LLVMValueRef block_addr(CgCtx *cg, const Bulk *k, int64_t blk, LLVMValueRef *c0) {
  LLVMValueRef off = cg_build_add(cg->b, k->b.base, cg_i32(cg, blk * k->rows * k->W * k->b.eb), "");
  *c0 = cg_build_add(cg->b, k->c[0], cg_i32(cg, blk * k->W), "");
  return LLVMBuildPtrToInt(cg->b, cg_smem_abs(cg, off), cg->t_i32, "");
}

/* "{$f, $f+1, ...}" for the k->rank coordinates at asm operands from f,
 * and their constraints ",r,r..." */
static void coord_text(const Bulk *k, int f, char *text, size_t tn, char *cons, size_t cn) {
  size_t t = 0, c = 0;
  for (int i = 0; i < k->rank; i++) {
    t += (size_t)snprintf(text + t, tn - t, "%s$%d", i ? ", " : "{", f + i);
    c += (size_t)snprintf(cons + c, cn - c, ",r");
  }
  snprintf(text + t, tn - t, "}");
}

void cg_lower_tma_copy(CgCtx *cg, Op *op) {
  Bulk k;
  if (!bulk_of(cg, op, 5, &k)) return;
  LLVMValueRef bar = bar_addr(cg, op, op->operands[2], op->operands[3]);
  LLVMValueRef pred = as_i1(cg, cg_get(cg, op, op->operands[4])->v[0]);
  char crd[64], ccons[32], text[192], cons[64];
  coord_text(&k, 2, crd, sizeof crd, ccons, sizeof ccons);
  snprintf(text, sizeof text,
           "cp.async.bulk.tensor.%dd.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0], [$1, %s], [$%d];",
           k.rank, crd, 2 + k.rank);
  snprintf(cons, sizeof cons, "r,l%s,r,~{memory}", ccons);
  LLVMBasicBlockRef cont = begin_thread0(cg, pred);
  for (int64_t blk = 0; blk < k.nblocks; blk++) {
    LLVMValueRef c0, dst = block_addr(cg, &k, blk, &c0);
    LLVMValueRef args[3 + IR_TMA_MAX_RANK] = {dst, k.map, c0};
    for (int i = 1; i < k.rank; i++) args[2 + i] = k.c[i];
    args[2 + k.rank] = bar;
    cg_asm(cg, cg->t_void, text, cons, args, (unsigned)(3 + k.rank), true);
  }
  cg_end_guard(cg, cont);
}

void cg_lower_tma_store(CgCtx *cg, Op *op) {
  Bulk k;
  if (!bulk_of(cg, op, 2, &k)) return;
  char crd[64], ccons[32], text[160], cons[64];
  coord_text(&k, 1, crd, sizeof crd, ccons, sizeof ccons);
  snprintf(text, sizeof text, "cp.async.bulk.tensor.%dd.global.shared::cta.bulk_group [$0, %s], [$%d];", k.rank,
           crd, 1 + k.rank);
  snprintf(cons, sizeof cons, "l%s,r,~{memory}", ccons);
  LLVMBasicBlockRef cont = begin_thread0(cg, NULL);
  for (int64_t blk = 0; blk < k.nblocks; blk++) {
    LLVMValueRef c0, src = block_addr(cg, &k, blk, &c0);
    LLVMValueRef args[2 + IR_TMA_MAX_RANK] = {k.map, c0};
    for (int i = 1; i < k.rank; i++) args[1 + i] = k.c[i];
    args[1 + k.rank] = src;
    cg_asm(cg, cg->t_void, text, cons, args, (unsigned)(2 + k.rank), true);
  }
  cg_asm(cg, cg->t_void, "cp.async.bulk.commit_group;", "~{memory}", NULL, 0, true);
  cg_asm(cg, cg->t_void, "cp.async.bulk.wait_group.read 0;", "~{memory}", NULL, 0, true);
  cg_end_guard(cg, cont);
  cg_barrier(cg); /* the buffer has been read: its bytes may be reused */
}
