/* cg_async.c — asynchronous copies from global into shared memory (cp.async,
 * sm_80+): ASYNC_COPY, ASYNC_COMMIT, ASYNC_WAIT.
 *
 * ASYNC_COPY's pointer tensor is in a blocked layout whose attr.vec
 * elements per thread are contiguous and aligned in global memory (the load
 * it replaces had them, passes.h); each such group becomes one
 *
 *   cp.async.cg.shared.global [dst], [src], 16, src_size;   (.ca for 4 or 8 bytes)
 *
 * with dst the group's address in the shared view (its 16-byte chunk stays
 * whole under the swizzle) and src_size = mask ? bytes : 0, so masked-off
 * groups are zero-filled: tl.load's `other=0`.  Only the canonical owner of
 * replicated elements copies.  The copies a thread issued since its last
 * ASYNC_COMMIT form one group; ASYNC_WAIT num returns once at most `num` of
 * the thread's groups are pending.  Visibility to other threads (and to
 * wgmma's async proxy) is the pipeliner's barrier and fence. */
#include "codegen/cg_internal.h"

#include <stdio.h>

void cg_lower_async_copy(CgCtx *cg, Op *op) {
  const Value *ptr = op->operands[0], *mask = op->operands[2];
  const Type *pt = ptr->type;
  CgFrag f;
  CgBuf b;
  if (!cg_frag(cg, op, pt, &f) || !cg_buf(cg, op, op->operands[1], &b)) return;
  if (op->operands[3] && !ir_is_zero_const(op->operands[3])) {
    cg_error(cg, op, "async_copy fills masked-off elements with zeros only");
    return;
  }
  int eb = b.eb, g = op->attr.vec > 0 ? op->attr.vec : 1;
  /* groups of one element need no run along the buffer's contiguous dim */
  if ((g > 1 && (f.run_dim != b.cdim || f.run < g)) || g * eb > 16 || (g * eb != 4 && g * eb != 8 && g * eb != 16) ||
      (b.rdim >= 0 && g > b.S->vec)) {
    cg_error(cg, op, "async_copy of %d-byte groups does not fit cp.async (runs of %d along dim %d, "
             "buffer contiguous along %d)", g * eb, f.run, f.run_dim, b.cdim);
    return;
  }
  CgVal *pv = cg_get(cg, op, ptr);
  CgVal *mv = mask ? cg_get(cg, op, mask) : NULL;
  LLVMValueRef own = cg_owner(cg, pt);
  LLVMBasicBlockRef cont = cg_begin_guard(cg, own);
  /* inline PTX: LLVM 19 cannot select the .s intrinsics with 32-bit
   * shared pointers (-nvptx-short-ptr) */
  int bytes = g * eb;
  char text[96];
  snprintf(text, sizeof text, "cp.async.%s.shared.global [$0], [$1], %d, $2;", bytes == 16 ? "cg" : "ca", bytes);
  /* every operand first, then the copies back to back: the copies do not
   * wait for one another's address registers to be read */
  CgFragAddrs a0 = {0};
  int n = (f.count + g - 1) / g;
  LLVMValueRef *args = ARENA_ARRAY(&cg->arena, LLVMValueRef, 3 * n);
  for (int i = 0, k = 0; i < f.count; i += g, k++) {
    LLVMValueRef size = cg_i32(cg, bytes);
    if (mv) {
      LLVMValueRef m = cg_el(mv, i);
      int64_t c;
      if (cg_is_const_int(m, &c)) size = cg_i32(cg, c ? bytes : 0);
      else size = LLVMBuildSelect(cg->b, m, size, cg_i32(cg, 0), "");
    }
    args[3 * k] = LLVMBuildPtrToInt(cg->b, cg_buf_frag_addr(cg, &b, &f, i, &a0), cg->t_i32, "");
    args[3 * k + 1] = cg_el(pv, i);
    args[3 * k + 2] = size;
  }
  for (int k = 0; k < n; k++) cg_asm(cg, cg->t_void, text, "r,l,r,~{memory}", args + 3 * k, 3, true);
  cg_end_guard(cg, cont);
}

void cg_lower_async_commit(CgCtx *cg, Op *op) {
  (void)op;
  cg_intrin(cg, "llvm.nvvm.cp.async.commit.group", NULL, 0, NULL, 0);
}

void cg_lower_async_wait(CgCtx *cg, Op *op) {
  LLVMValueRef n = cg_i32(cg, op->attr.num < 0 ? 0 : op->attr.num);
  cg_intrin(cg, "llvm.nvvm.cp.async.wait.group", NULL, 0, &n, 1);
}
