/* cg_gather.c — GATHER (tl.gather(src, index, axis)): result element i is
 * the element of src at i's coordinates with the one along `axis` replaced
 * by index[i].
 *
 * Through shared memory: every thread writes its src elements at their
 * row-major index (replicas write the same value to the same place), a
 * barrier, each thread reads, for each of its index elements (the result
 * has the index's layout), src at the gathered coordinates, a barrier
 * before the scratch is reused.  An index outside [0, n) is taken modulo n
 * (n, the axis' extent, is a power of two), so a bad index reads some
 * element of src, never outside the scratch (Triton leaves it undefined). */
#include "codegen/cg_internal.h"

void cg_lower_gather(CgCtx *cg, Op *op) {
  const Type *st = op->operands[0]->type, *it = op->operands[1]->type;
  int axis = op->attr.axis;
  CgFrag fs, fi;
  bool ok = st->rank >= 1 && it->rank == st->rank && axis >= 0 && axis < st->rank;
  if (!ok) cg_error(cg, op, "malformed gather");
  if (!ok || !cg_frag(cg, op, st, &fs) || !cg_frag(cg, op, it, &fi)) {
    cg_set_undef(cg, op->results[0]);
    return;
  }
  CgVal *src = cg_get(cg, op, op->operands[0]);
  CgVal *idx = cg_get(cg, op, op->operands[1]);
  int64_t stride[IR_MAX_RANK], s = 1;
  for (int d = st->rank - 1; d >= 0; d--) stride[d] = s, s *= st->shape[d];
  DType d = st->dtype;
  int eb = cg_dt_bytes(d);
  cg_smem_request(cg, op, ty_numel(st) * eb);
  LLVMBuilderRef B = cg->b;
  for (int i = 0; i < fs.count; i++) {
    LLVMValueRef byte = cg_build_mul(B, cg_linear(cg, &fs, i, stride), cg_i32(cg, eb), "");
    LLVMValueRef w = LLVMBuildStore(B, cg_to_mem(cg, d, cg_el(src, i)), cg_smem_ptr(cg, byte));
    LLVMSetAlignment(w, (unsigned)eb);
  }
  cg_barrier(cg);
  LLVMValueRef *out = ARENA_ARRAY(&cg->arena, LLVMValueRef, fi.count);
  for (int i = 0; i < fi.count; i++) {
    LLVMValueRef k = cg_el(idx, i);
    int bits = dt_bits(it->dtype);
    if (bits > 32) k = LLVMBuildTrunc(B, k, cg->t_i32, "");
    else if (bits < 32) k = LLVMBuildZExt(B, k, cg->t_i32, "");
    k = cg_build_and(B, k, cg_i32(cg, st->shape[axis] - 1), "");
    LLVMValueRef lin = cg_build_mul(B, k, cg_i32(cg, stride[axis]), "");
    for (int dd = 0; dd < st->rank; dd++)
      if (dd != axis)
        lin = cg_build_add(B, lin, cg_build_mul(B, cg_coord(cg, &fi, i, dd), cg_i32(cg, stride[dd]), ""), "");
    LLVMValueRef byte = cg_build_mul(B, lin, cg_i32(cg, eb), "");
    LLVMValueRef ld = LLVMBuildLoad2(B, cg_mem_type(cg, d), cg_smem_ptr(cg, byte), "");
    LLVMSetAlignment(ld, (unsigned)eb);
    out[i] = cg_from_mem(cg, d, ld);
  }
  cg_barrier(cg);
  cg_set(cg, op->results[0], out, fi.count);
}
