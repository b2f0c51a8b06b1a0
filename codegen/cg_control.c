/* cg_control.c — structured control flow to LLVM basic blocks.
 *
 *   for:   pre -> header(phi iv, phi per element of every iter arg;
 *                        iv < ub ? body : exit)
 *          body ... latch(iv += step) -> header;   results = header phis
 *          (a constant negative step tests iv > ub; a step of unknown sign
 *          selects the test on step > 0; unsigned ivs count up)
 *   if:    cond ? then : else -> merge(phi per element of every result)
 *   while: pre -> before(phi per element of the loop values) ... condition
 *          ? after : exit; after ... yield -> before;  results = the values
 *          forwarded by the condition (they dominate the exit)
 *
 * Conditions are scalars, so every thread of the CTA takes the same path and
 * barriers inside regions are safe. */
#include "codegen/cg_internal.h"

#include <llvm-c/DebugInfo.h>

#include <string.h>

static LLVMBasicBlockRef new_block(CgCtx *cg, const char *name) {
  return LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, name);
}

/* One phi per element of a value of type t at the start of block bb
 * (the builder must be positioned there). */
static CgVal make_phis(CgCtx *cg, const Type *t) {
  CgVal v;
  v.n = cg_nelems(cg, t);
  v.v = ARENA_ARRAY(&cg->arena, LLVMValueRef, v.n);
  LLVMTypeRef lt = cg_type(cg, t->dtype);
  for (int i = 0; i < v.n; i++) v.v[i] = LLVMBuildPhi(cg->b, lt, "");
  return v;
}

static void add_incoming(CgCtx *cg, const Op *op, CgVal *phis, const CgVal *in,
                         LLVMBasicBlockRef from) {
  if (in->n != phis->n && in->n != 1) {
    cg_error(cg, op, "loop-carried value changes its element count (%d vs %d)", in->n, phis->n);
    return;
  }
  for (int i = 0; i < phis->n; i++) {
    LLVMValueRef v = cg_el(in, i);
    LLVMAddIncoming(phis->v[i], &v, &from, 1);
  }
}

static LLVMValueRef scalar(CgCtx *cg, const Op *op, const Value *v) {
  return cg_get(cg, op, v)->v[0];
}

/* ---- for ---------------------------------------------------------------------- */

/* !llvm.loop !{self, !{"llvm.loop.unroll.count", n}} on the back edge: LLVM
 * unrolls the loop n times (a remainder loop takes the rest): the
 * tl.range(loop_unroll_factor=) of the kernel.  LLVM declines loops with a
 * barrier in them (convergent: the remainder would split them) and says so
 * on stderr. */
static void unroll_hint(CgCtx *cg, LLVMValueRef br, int n) {
  static const char key[] = "llvm.loop.unroll.count";
  LLVMMetadataRef kv[2] = {LLVMMDStringInContext2(cg->ctx, key, sizeof key - 1),
                           LLVMValueAsMetadata(cg_i32(cg, n))};
  LLVMMetadataRef self = LLVMTemporaryMDNode(cg->ctx, NULL, 0);
  LLVMMetadataRef ops[2] = {self, LLVMMDNodeInContext2(cg->ctx, kv, 2)};
  LLVMMetadataRef loop = LLVMMDNodeInContext2(cg->ctx, ops, 2);
  LLVMMetadataReplaceAllUsesWith(self, loop);
  LLVMSetMetadata(br, LLVMGetMDKindIDInContext(cg->ctx, "llvm.loop", 9), LLVMMetadataAsValue(cg->ctx, loop));
}

void cg_lower_for(CgCtx *cg, Op *op) {
  IrBlock *body = op->regions[0];
  int nargs = op->noperands - 3;
  if (nargs < 0 || body->nargs != nargs + 1) {
    cg_error(cg, op, "malformed for");
    for (int i = 0; i < op->nresults; i++) cg_set_undef(cg, op->results[i]);
    return;
  }
  DType ivt = op->operands[0]->type->dtype;
  LLVMTypeRef ivty = cg_type(cg, ivt);
  LLVMValueRef lb = scalar(cg, op, op->operands[0]);
  LLVMValueRef ub = scalar(cg, op, op->operands[1]);
  LLVMValueRef step = scalar(cg, op, op->operands[2]);
  /* bounds of another integer type than the iv: convert */
  DType ubt = op->operands[1]->type->dtype, stt = op->operands[2]->type->dtype;
  if (LLVMTypeOf(ub) != ivty) ub = cg_cast_scalar(cg, op, ub, ubt, ivt);
  if (LLVMTypeOf(step) != ivty) step = cg_cast_scalar(cg, op, step, stt, ivt);
  CgVal *init = ARENA_ARRAY(&cg->arena, CgVal, nargs ? nargs : 1);
  for (int k = 0; k < nargs; k++) init[k] = *cg_get(cg, op, op->operands[3 + k]);

  LLVMBasicBlockRef pre = LLVMGetInsertBlock(cg->b);
  LLVMBasicBlockRef header = new_block(cg, "for.header");
  LLVMBasicBlockRef bodyb = new_block(cg, "for.body");
  LLVMBasicBlockRef exitb = new_block(cg, "for.exit");
  LLVMBuildBr(cg->b, header);

  LLVMPositionBuilderAtEnd(cg->b, header);
  LLVMValueRef iv = LLVMBuildPhi(cg->b, ivty, "iv");
  CgVal *phis = ARENA_ARRAY(&cg->arena, CgVal, nargs ? nargs : 1);
  for (int k = 0; k < nargs; k++) phis[k] = make_phis(cg, body->args[k + 1]->type);
  LLVMAddIncoming(iv, &lb, &pre, 1);
  for (int k = 0; k < nargs; k++) add_incoming(cg, op, &phis[k], &init[k], pre);

  LLVMValueRef cond;
  int64_t sc;
  bool sgn = dt_is_signed(ivt);
  LLVMValueRef up = LLVMBuildICmp(cg->b, sgn ? LLVMIntSLT : LLVMIntULT, iv, ub, "");
  if (!sgn || (cg_is_const_int(step, &sc) && sc > 0)) {
    cond = up;
  } else {
    LLVMValueRef down = LLVMBuildICmp(cg->b, LLVMIntSGT, iv, ub, "");
    if (cg_is_const_int(step, &sc)) {
      cond = sc < 0 ? down : up;
    } else {
      LLVMValueRef pos = LLVMBuildICmp(cg->b, LLVMIntSGT, step, LLVMConstNull(ivty), "");
      cond = LLVMBuildSelect(cg->b, pos, up, down, "");
    }
  }
  LLVMBuildCondBr(cg->b, cond, bodyb, exitb);

  LLVMPositionBuilderAtEnd(cg->b, bodyb);
  cg_set(cg, body->args[0], &iv, 1);
  for (int k = 0; k < nargs; k++) cg_set(cg, body->args[k + 1], phis[k].v, phis[k].n);
  Op *y = cg_lower_block(cg, body);
  if (!y || y->kind != OP_YIELD || y->noperands != nargs) {
    cg_error(cg, op, "for body must end in yield of %d values", nargs);
  } else {
    LLVMValueRef next = cg_build_add(cg->b, iv, step, "iv.next");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(cg->b);
    LLVMAddIncoming(iv, &next, &latch, 1);
    for (int k = 0; k < nargs; k++) add_incoming(cg, op, &phis[k], cg_get(cg, y, y->operands[k]), latch);
  }
  LLVMValueRef back = LLVMBuildBr(cg->b, header);
  if (op->attr.loop.unroll > 1) unroll_hint(cg, back, op->attr.loop.unroll);

  LLVMPositionBuilderAtEnd(cg->b, exitb);
  for (int k = 0; k < op->nresults && k < nargs; k++) cg_set(cg, op->results[k], phis[k].v, phis[k].n);
}

/* ---- if ------------------------------------------------------------------------ */

void cg_lower_if(CgCtx *cg, Op *op) {
  LLVMValueRef c = scalar(cg, op, op->operands[0]);
  if (op->operands[0]->type->rank) cg_error(cg, op, "if condition must be a scalar");
  LLVMBasicBlockRef thenb = new_block(cg, "if.then");
  LLVMBasicBlockRef elseb = new_block(cg, "if.else");
  LLVMBasicBlockRef merge = new_block(cg, "if.end");
  LLVMBuildCondBr(cg->b, c, thenb, elseb);

  int nr = op->nresults;
  CgVal *vals[2];
  LLVMBasicBlockRef ends[2];
  for (int r = 0; r < 2; r++) {
    LLVMPositionBuilderAtEnd(cg->b, r == 0 ? thenb : elseb);
    vals[r] = ARENA_ARRAY(&cg->arena, CgVal, nr ? nr : 1);
    if (r < op->nregions) {
      Op *y = cg_lower_block(cg, op->regions[r]);
      if (nr && (!y || y->kind != OP_YIELD || y->noperands != nr))
        cg_error(cg, op, "if region %d must yield %d values", r, nr);
      else
        for (int k = 0; k < nr; k++) vals[r][k] = *cg_get(cg, y, y->operands[k]);
    } else if (nr) {
      cg_error(cg, op, "if without an else region yields values");
    }
    ends[r] = LLVMGetInsertBlock(cg->b);
    LLVMBuildBr(cg->b, merge);
  }
  LLVMPositionBuilderAtEnd(cg->b, merge);
  if (cg->failed) {
    for (int k = 0; k < nr; k++) cg_set_undef(cg, op->results[k]);
    return;
  }
  for (int k = 0; k < nr; k++) {
    CgVal p = make_phis(cg, op->results[k]->type);
    add_incoming(cg, op, &p, &vals[0][k], ends[0]);
    add_incoming(cg, op, &p, &vals[1][k], ends[1]);
    cg_set(cg, op->results[k], p.v, p.n);
  }
}

/* ---- while ---------------------------------------------------------------------- */

void cg_lower_while(CgCtx *cg, Op *op) {
  IrBlock *before = op->regions[0], *after = op->regions[1];
  int n = op->noperands;
  if (op->nregions != 2 || before->nargs != n || after->nargs != op->nresults) {
    cg_error(cg, op, "malformed while");
    for (int i = 0; i < op->nresults; i++) cg_set_undef(cg, op->results[i]);
    return;
  }
  CgVal *init = ARENA_ARRAY(&cg->arena, CgVal, n ? n : 1);
  for (int k = 0; k < n; k++) init[k] = *cg_get(cg, op, op->operands[k]);
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(cg->b);
  LLVMBasicBlockRef header = new_block(cg, "while.before");
  LLVMBasicBlockRef afterb = new_block(cg, "while.after");
  LLVMBasicBlockRef exitb = new_block(cg, "while.exit");
  LLVMBuildBr(cg->b, header);

  LLVMPositionBuilderAtEnd(cg->b, header);
  CgVal *phis = ARENA_ARRAY(&cg->arena, CgVal, n ? n : 1);
  for (int k = 0; k < n; k++) {
    phis[k] = make_phis(cg, before->args[k]->type);
    add_incoming(cg, op, &phis[k], &init[k], pre);
    cg_set(cg, before->args[k], phis[k].v, phis[k].n);
  }
  Op *c = cg_lower_block(cg, before);
  if (!c || c->kind != OP_CONDITION || c->noperands != op->nresults + 1) {
    cg_error(cg, op, "while: before region must end in condition");
    LLVMBuildBr(cg->b, exitb);
    LLVMPositionBuilderAtEnd(cg->b, afterb);
    LLVMBuildBr(cg->b, header);
    LLVMPositionBuilderAtEnd(cg->b, exitb);
    for (int i = 0; i < op->nresults; i++) cg_set_undef(cg, op->results[i]);
    return;
  }
  LLVMBuildCondBr(cg->b, scalar(cg, c, c->operands[0]), afterb, exitb);
  for (int k = 0; k < op->nresults; k++) {
    CgVal *fw = cg_get(cg, c, c->operands[k + 1]);
    cg_set(cg, after->args[k], fw->v, fw->n);
    cg_set(cg, op->results[k], fw->v, fw->n);
  }

  LLVMPositionBuilderAtEnd(cg->b, afterb);
  Op *y = cg_lower_block(cg, after);
  if (!y || y->kind != OP_YIELD || y->noperands != n) {
    cg_error(cg, op, "while: after region must yield the loop values");
  } else {
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(cg->b);
    for (int k = 0; k < n; k++) add_incoming(cg, op, &phis[k], cg_get(cg, y, y->operands[k]), latch);
  }
  LLVMBuildBr(cg->b, header);
  LLVMPositionBuilderAtEnd(cg->b, exitb);
}
