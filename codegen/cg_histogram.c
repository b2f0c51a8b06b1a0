/* cg_histogram.c — HISTOGRAM (tl.histogram(x, num_bins, mask)): i32
 * counts of the values 0 .. num_bins-1 in a 1-D integer tensor.
 *
 * In shared memory: each thread zeroes the bins of its result elements
 * (every bin is held by some thread), a barrier; the canonical holder of
 * each input element (replicas stay out) adds 1 to its bin with a shared
 * atomic when the value is in range (and its mask is set), a barrier; each
 * thread reads its result elements, a barrier before the scratch is reused.
 * Values outside [0, num_bins) are not counted. */
#include "codegen/cg_internal.h"

void cg_lower_histogram(CgCtx *cg, Op *op) {
  const Type *xt = op->operands[0]->type, *rt = op->results[0]->type;
  CgFrag fx, fr;
  if (xt->rank != 1 || rt->rank != 1 || !cg_frag(cg, op, xt, &fx) || !cg_frag(cg, op, rt, &fr)) {
    if (xt->rank != 1 || rt->rank != 1) cg_error(cg, op, "malformed histogram");
    cg_set_undef(cg, op->results[0]);
    return;
  }
  CgVal *x = cg_get(cg, op, op->operands[0]);
  CgVal *mask = op->operands[1] ? cg_get(cg, op, op->operands[1]) : NULL;
  int64_t bins = rt->shape[0], one = 1;
  cg_smem_request(cg, op, bins * 4);
  LLVMBuilderRef B = cg->b;
  for (int i = 0; i < fr.count; i++) {
    LLVMValueRef byte = cg_build_mul(B, cg_linear(cg, &fr, i, &one), cg_i32(cg, 4), "");
    LLVMValueRef st = LLVMBuildStore(B, cg_i32(cg, 0), cg_smem_ptr(cg, byte));
    LLVMSetAlignment(st, 4);
  }
  cg_barrier(cg);
  LLVMBasicBlockRef cont = cg_begin_guard(cg, cg_owner(cg, xt));
  int bits = dt_bits(xt->dtype);
  bool sgn = dt_is_signed(xt->dtype);
  for (int i = 0; i < fx.count; i++) {
    LLVMValueRef v = cg_el(x, i);
    if (bits < 32) v = sgn ? LLVMBuildSExt(B, v, cg->t_i32, "") : LLVMBuildZExt(B, v, cg->t_i32, "");
    LLVMTypeRef vt = LLVMTypeOf(v);
    /* in range: 0 <= v < bins, one unsigned compare in the value's width */
    LLVMValueRef in = LLVMBuildICmp(B, LLVMIntULT, v, LLVMConstInt(vt, (unsigned long long)bins, 0), "");
    if (mask) in = cg_build_and(B, in, cg_el(mask, i), "");
    LLVMValueRef k = LLVMTypeOf(v) == cg->t_i32 ? v : LLVMBuildTrunc(B, v, cg->t_i32, "");
    /* out of range: add 0 to bin 0 (no branch per element) */
    k = LLVMBuildSelect(B, in, k, cg_i32(cg, 0), "");
    LLVMValueRef inc = LLVMBuildZExt(B, in, cg->t_i32, "");
    LLVMValueRef ptr = cg_smem_ptr(cg, cg_build_mul(B, k, cg_i32(cg, 4), ""));
    LLVMBuildAtomicRMW(B, LLVMAtomicRMWBinOpAdd, ptr, inc, LLVMAtomicOrderingMonotonic, 0);
  }
  cg_end_guard(cg, cont);
  cg_barrier(cg);
  LLVMValueRef *out = ARENA_ARRAY(&cg->arena, LLVMValueRef, fr.count);
  for (int i = 0; i < fr.count; i++) {
    LLVMValueRef byte = cg_build_mul(B, cg_linear(cg, &fr, i, &one), cg_i32(cg, 4), "");
    LLVMValueRef ld = LLVMBuildLoad2(B, cg->t_i32, cg_smem_ptr(cg, byte), "");
    LLVMSetAlignment(ld, 4);
    out[i] = ld;
  }
  cg_barrier(cg);
  cg_set(cg, op->results[0], out, fr.count);
}
