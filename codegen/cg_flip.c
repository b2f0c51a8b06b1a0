/* cg_flip.c — FLIP (tl.flip): the order along one axis reversed, the type
 * and layout kept.
 *
 * When the whole axis lies in each thread's registers (no lane or warp bit
 * moves along it and the register bases along it add up to n - 1), the flip
 * is a register permutation: n - 1 - c = c ^ (n - 1) for a power of two n,
 * so element i takes register i ^ (the axis' register bits).  Otherwise it
 * goes through shared memory: every thread writes each of its elements at
 * the row-major index of its flipped coordinates (replicas write the same
 * value to the same place), a barrier, reads its own coordinates back, a
 * barrier before the scratch is reused. */
#include "codegen/cg_internal.h"

void cg_lower_flip(CgCtx *cg, Op *op) {
  const Type *t = op->operands[0]->type;
  int axis = op->attr.axis;
  CgFrag f;
  if (t->rank < 1 || axis < 0 || axis >= t->rank || !cg_frag(cg, op, t, &f)) {
    if (t->rank < 1 || axis < 0 || axis >= t->rank) cg_error(cg, op, "malformed flip");
    cg_set_undef(cg, op->results[0]);
    return;
  }
  CgVal *x = cg_get(cg, op, op->operands[0]);
  int n = f.count;
  int64_t len = t->shape[axis];
  LLVMValueRef *out = ARENA_ARRAY(&cg->arena, LLVMValueRef, n);

  int regmask = 0;
  int64_t covered = 0;
  for (int k = 0; k < f.ll.nreg; k++)
    if (f.ll.reg[k][axis]) regmask |= 1 << k, covered += f.ll.reg[k][axis];
  if (!cg_lane_mask(&f, axis) && !cg_warp_mask(&f, axis) && covered == len - 1 && x->n == n) {
    for (int i = 0; i < n; i++) out[i] = x->v[i ^ regmask];
    cg_set(cg, op->results[0], out, n);
    return;
  }

  int64_t stride[IR_MAX_RANK], st = 1;
  for (int d = t->rank - 1; d >= 0; d--) stride[d] = st, st *= t->shape[d];
  int eb = cg_dt_bytes(t->dtype);
  cg_smem_request(cg, op, ty_numel(t) * eb);
  LLVMBuilderRef B = cg->b;
  for (int i = 0; i < n; i++) {
    LLVMValueRef lin = cg_i32(cg, 0);
    for (int d = 0; d < t->rank; d++) {
      LLVMValueRef c = cg_coord(cg, &f, i, d);
      if (d == axis) c = cg_build_sub(B, cg_i32(cg, len - 1), c, "");
      lin = cg_build_add(B, lin, cg_build_mul(B, c, cg_i32(cg, stride[d]), ""), "");
    }
    LLVMValueRef byte = cg_build_mul(B, lin, cg_i32(cg, eb), "");
    LLVMValueRef s = LLVMBuildStore(B, cg_to_mem(cg, t->dtype, cg_el(x, i)), cg_smem_ptr(cg, byte));
    LLVMSetAlignment(s, (unsigned)eb);
  }
  cg_barrier(cg);
  for (int i = 0; i < n; i++) {
    LLVMValueRef byte = cg_build_mul(B, cg_linear(cg, &f, i, stride), cg_i32(cg, eb), "");
    LLVMValueRef ld = LLVMBuildLoad2(B, cg_mem_type(cg, t->dtype), cg_smem_ptr(cg, byte), "");
    LLVMSetAlignment(ld, (unsigned)eb);
    out[i] = cg_from_mem(cg, t->dtype, ld);
  }
  cg_barrier(cg);
  cg_set(cg, op->results[0], out, n);
}
