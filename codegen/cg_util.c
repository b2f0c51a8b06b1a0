/* cg_util.c — small LLVM helpers shared by the codegen files: the LLVM
 * types of tile element types, constants, intrinsic calls, inline PTX,
 * special registers, barriers, the shared scratch pointer, and the
 * register <-> memory <-> bits conversions of one element.
 *
 * Owns no lowering decisions; every function builds at cg->b unless it
 * takes a builder. */
#include "codegen/cg_internal.h"

#include <stdio.h>
#include <string.h>

void cg_error(CgCtx *cg, const Op *op, const char *fmt, ...) {
  cg->failed = true;
  if (op && op == cg->last_error_op) return;
  cg->last_error_op = op;
  va_list ap;
  va_start(ap, fmt);
  ir_vinternal_error(cg->diag, op, fmt, ap);
  va_end(ap);
}

LLVMTypeRef cg_type(CgCtx *cg, DType d) {
  switch (d) {
  case DT_I1: return cg->t_i1;
  case DT_I8: case DT_U8: case DT_F8E4M3: case DT_F8E5M2: return cg->t_i8;
  case DT_I16: case DT_U16: return cg->t_i16;
  case DT_I32: case DT_U32: return cg->t_i32;
  case DT_I64: case DT_U64: return cg->t_i64;
  case DT_F16: return cg->t_f16;
  case DT_BF16: return cg->t_bf16;
  case DT_F32: return cg->t_f32;
  case DT_F64: return cg->t_f64;
  case DT_PTR: return cg->t_gptr;
  default: return cg->t_i32;
  }
}

LLVMTypeRef cg_mem_type(CgCtx *cg, DType d) { return d == DT_I1 ? cg->t_i8 : cg_type(cg, d); }

int cg_dt_bytes(DType d) { return d == DT_I1 ? 1 : dt_bits(d) / 8; }

LLVMValueRef cg_int(LLVMTypeRef t, int64_t v) {
  return LLVMConstInt(t, (unsigned long long)v, v < 0);
}
LLVMValueRef cg_i32(CgCtx *cg, int64_t v) { return cg_int(cg->t_i32, v); }
LLVMValueRef cg_i64(CgCtx *cg, int64_t v) { return cg_int(cg->t_i64, v); }
LLVMValueRef cg_true(CgCtx *cg) { return LLVMConstInt(cg->t_i1, 1, 0); }

LLVMValueRef cg_zero(CgCtx *cg, DType d) { return LLVMConstNull(cg_type(cg, d)); }

bool cg_is_const_int(LLVMValueRef v, int64_t *out) {
  if (!v || !LLVMIsAConstantInt(v)) return false;
  *out = LLVMConstIntGetSExtValue(v);
  return true;
}

LLVMValueRef cg_and(CgCtx *cg, LLVMValueRef a, LLVMValueRef b) {
  int64_t c;
  if (a && cg_is_const_int(a, &c) && c) a = NULL;
  if (b && cg_is_const_int(b, &c) && c) b = NULL;
  if (!a) return b;
  if (!b) return a;
  return cg_build_and(cg->b, a, b, "");
}

/* ---- integer arithmetic without identities -------------------------------------
 * The index and bit arithmetic of the lowering (coordinates, swizzles,
 * shared-memory and descriptor offsets) meets its identities often: an
 * offset of 0, a stride of 1, a shift by 0, a mask of a warp index that is
 * 0.  LLVM's builder folds constants with constants but builds `add x, 0`
 * as written, for O3's first InstCombine to remove.  These build what
 * LLVMBuildAdd & co. build, except that an operation whose result is one of
 * its operands (or zero) is not built: the module handed to LLVM is what
 * the kernel computes (the fp16 matmul's 2678 instructions became 2544, the
 * attention forward's 5267 became 5142; the PTX of every corpus kernel is
 * the same, and so is O3's time: InstCombine removes such an instruction
 * cheaply, 2026-11-28).  Scalar integers only; anything else is built as
 * asked. */

static bool const_is(LLVMValueRef v, long long want) {
  if (!LLVMIsAConstantInt(v)) return false;
  if (want == -1) return LLVMConstIntGetSExtValue(v) == -1;
  return LLVMConstIntGetZExtValue(v) == (unsigned long long)want && LLVMConstIntGetSExtValue(v) == want;
}

LLVMValueRef cg_build_add(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y, const char *name) {
  if (const_is(y, 0)) return x;
  if (const_is(x, 0)) return y;
  return LLVMBuildAdd(b, x, y, name);
}

LLVMValueRef cg_build_sub(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y, const char *name) {
  if (const_is(y, 0)) return x;
  return LLVMBuildSub(b, x, y, name);
}

LLVMValueRef cg_build_mul(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y, const char *name) {
  if (const_is(y, 1)) return x;
  if (const_is(x, 1)) return y;
  if (const_is(y, 0)) return y;
  if (const_is(x, 0)) return x;
  return LLVMBuildMul(b, x, y, name);
}

LLVMValueRef cg_build_and(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y, const char *name) {
  if (const_is(y, -1)) return x;
  if (const_is(x, -1)) return y;
  if (const_is(y, 0)) return y;
  if (const_is(x, 0)) return x;
  return LLVMBuildAnd(b, x, y, name);
}

LLVMValueRef cg_build_or(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y, const char *name) {
  if (const_is(y, 0)) return x;
  if (const_is(x, 0)) return y;
  return LLVMBuildOr(b, x, y, name);
}

LLVMValueRef cg_build_xor(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y, const char *name) {
  if (const_is(y, 0)) return x;
  if (const_is(x, 0)) return y;
  return LLVMBuildXor(b, x, y, name);
}

LLVMValueRef cg_build_shl(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y, const char *name) {
  if (const_is(y, 0) || const_is(x, 0)) return x;
  return LLVMBuildShl(b, x, y, name);
}

LLVMValueRef cg_build_lshr(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y, const char *name) {
  if (const_is(y, 0) || const_is(x, 0)) return x;
  return LLVMBuildLShr(b, x, y, name);
}

LLVMValueRef cg_build_ashr(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y, const char *name) {
  if (const_is(y, 0) || const_is(x, 0)) return x;
  return LLVMBuildAShr(b, x, y, name);
}

LLVMValueRef cg_intrin(CgCtx *cg, const char *name, LLVMTypeRef *tys, int ntys,
                       LLVMValueRef *args, int nargs) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  if (!id || (LLVMIntrinsicIsOverloaded(id) && ntys == 0)) {
    /* a bug in codegen: report it instead of letting LLVM crash */
    cg_error(cg, NULL, "intrinsic %s is unknown or needs overload types", name);
    return LLVMGetUndef(cg->t_i32);
  }
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(cg->mod, id, tys, (size_t)ntys);
  LLVMTypeRef fty = LLVMIntrinsicGetType(cg->ctx, id, tys, (size_t)ntys);
  return LLVMBuildCall2(cg->b, fty, fn, args, (unsigned)nargs, "");
}

LLVMValueRef cg_asm(CgCtx *cg, LLVMTypeRef ret, const char *text, const char *constraints,
                    LLVMValueRef *args, int nargs, bool side_effects) {
  /* wgmma takes hundreds of operands: the types live in the arena */
  LLVMTypeRef *at = ARENA_ARRAY(&cg->arena, LLVMTypeRef, nargs > 0 ? nargs : 1);
  for (int i = 0; i < nargs; i++) at[i] = LLVMTypeOf(args[i]);
  LLVMTypeRef fty = LLVMFunctionType(ret, at, (unsigned)nargs, 0);
  LLVMValueRef fn = LLVMGetInlineAsm(fty, text, strlen(text), constraints, strlen(constraints),
                                     side_effects, 0, LLVMInlineAsmDialectATT, 0);
  return LLVMBuildCall2(cg->b, fty, fn, args, (unsigned)nargs, "");
}

LLVMValueRef cg_sreg(CgCtx *cg, LLVMBuilderRef b, const char *name) {
  char full[64];
  snprintf(full, sizeof full, "llvm.nvvm.read.ptx.sreg.%s", name);
  unsigned id = LLVMLookupIntrinsicID(full, strlen(full));
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(cg->mod, id, NULL, 0);
  LLVMTypeRef fty = LLVMIntrinsicGetType(cg->ctx, id, NULL, 0);
  return LLVMBuildCall2(b, fty, fn, NULL, 0, "");
}

LLVMBasicBlockRef cg_begin_guard(CgCtx *cg, LLVMValueRef pred) {
  if (!pred) return NULL;
  LLVMBasicBlockRef then = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "guard");
  LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "guard.cont");
  LLVMBuildCondBr(cg->b, pred, then, cont);
  LLVMPositionBuilderAtEnd(cg->b, then);
  return cont;
}

void cg_end_guard(CgCtx *cg, LLVMBasicBlockRef cont) {
  if (!cont) return;
  LLVMBuildBr(cg->b, cont);
  LLVMPositionBuilderAtEnd(cg->b, cont);
}

void cg_barrier(CgCtx *cg) {
  if (cg->role == CG_ROLE_CONSUMER) {
    LLVMValueRef args[2] = {cg_i32(cg, 1), cg_i32(cg, cg->nthreads)};
    cg_intrin(cg, "llvm.nvvm.barrier.sync.cnt", NULL, 0, args, 2);
    return;
  }
  if (cg->role == CG_ROLE_PRODUCER) cg_error(cg, NULL, "a barrier in the producer warp of warp_roles");
  cg_intrin(cg, "llvm.nvvm.barrier0", NULL, 0, NULL, 0);
}

LLVMValueRef cg_lead_tid(CgCtx *cg) { return cg_i32(cg, cg->role == CG_ROLE_PRODUCER ? cg->nthreads : 0); }

LLVMValueRef cg_smem_abs(CgCtx *cg, LLVMValueRef byte_off) {
  return LLVMBuildGEP2(cg->b, cg->t_i8, cg->smem, &byte_off, 1, "");
}

LLVMValueRef cg_smem_ptr(CgCtx *cg, LLVMValueRef byte_off) {
  int base = cg->scratch_base;
  if (base) byte_off = cg_build_add(cg->b, byte_off, cg_i32(cg, base), "");
  return cg_smem_abs(cg, byte_off);
}

void cg_user_error(CgCtx *cg, const Op *op, const char *fmt, ...) {
  cg->user_failed = true;
  va_list ap;
  va_start(ap, fmt);
  diag_verror(cg->diag, "error", op ? op->loc : cg->f->loc, fmt, ap);
  va_end(ap);
}

/* Over the limit is the user's problem (blocks too large), reported by
 * cg_compile once the kernel is built, at the first op that went over. */
void cg_smem_request(CgCtx *cg, const Op *op, int64_t bytes) {
  /* Scratch in the space of a dead buffer: its last readers (local_load,
   * wgmma, ldmatrix in other warps) may still be at it. */
  if (cg->scratch_base < cg->m->smem_buffers_end) cg_barrier(cg);
  bytes += cg->scratch_base;
  if (bytes > ir_smem_limit(cg->capability) && !cg->smem_over_op) cg->smem_over_op = op;
  if (bytes > INT32_MAX) bytes = INT32_MAX;
  if (bytes > cg->smem_bytes) cg->smem_bytes = (int)bytes;
}

LLVMValueRef cg_to_mem(CgCtx *cg, DType d, LLVMValueRef v) {
  return d == DT_I1 ? LLVMBuildZExt(cg->b, v, cg->t_i8, "") : v;
}

LLVMValueRef cg_from_mem(CgCtx *cg, DType d, LLVMValueRef v) {
  return d == DT_I1 ? LLVMBuildICmp(cg->b, LLVMIntNE, v, LLVMConstNull(cg->t_i8), "") : v;
}

LLVMValueRef cg_to_bits(CgCtx *cg, DType d, LLVMValueRef v) {
  if (d == DT_PTR) return LLVMBuildPtrToInt(cg->b, v, cg->t_i64, "");
  if (dt_is_float(d) && d != DT_F8E4M3 && d != DT_F8E5M2)
    return LLVMBuildBitCast(cg->b, v, LLVMIntTypeInContext(cg->ctx, (unsigned)dt_bits(d)), "");
  return v;
}

LLVMValueRef cg_from_bits(CgCtx *cg, DType d, LLVMValueRef v) {
  if (d == DT_PTR) return LLVMBuildIntToPtr(cg->b, v, cg->t_gptr, "");
  if (dt_is_float(d) && d != DT_F8E4M3 && d != DT_F8E5M2)
    return LLVMBuildBitCast(cg->b, v, cg_type(cg, d), "");
  return v;
}

/* Butterfly shuffle of one element of dtype d across lane mask m (64-bit
 * values as two 32-bit shuffles; reductions, scans and sorts). */
LLVMValueRef cg_shfl_bfly(CgCtx *cg, DType d, LLVMValueRef v, int m) {
  LLVMBuilderRef B = cg->b;
  int bits = d == DT_I1 ? 1 : dt_bits(d);
  LLVMValueRef x = cg_to_bits(cg, d, v);
  LLVMValueRef args[4] = {cg_i32(cg, -1), NULL, cg_i32(cg, m), cg_i32(cg, 31)};
  if (bits == 64) {
    LLVMValueRef lo = LLVMBuildTrunc(B, x, cg->t_i32, "");
    LLVMValueRef hi = LLVMBuildTrunc(B, cg_build_lshr(B, x, cg_i64(cg, 32), ""), cg->t_i32, "");
    args[1] = lo;
    lo = cg_intrin(cg, "llvm.nvvm.shfl.sync.bfly.i32", NULL, 0, args, 4);
    args[1] = hi;
    hi = cg_intrin(cg, "llvm.nvvm.shfl.sync.bfly.i32", NULL, 0, args, 4);
    x = cg_build_or(B, LLVMBuildZExt(B, lo, cg->t_i64, ""),
                    cg_build_shl(B, LLVMBuildZExt(B, hi, cg->t_i64, ""), cg_i64(cg, 32), ""), "");
    return cg_from_bits(cg, d, x);
  }
  LLVMTypeRef xt = LLVMTypeOf(x);
  args[1] = bits < 32 ? LLVMBuildZExt(B, x, cg->t_i32, "") : x;
  LLVMValueRef r = cg_intrin(cg, "llvm.nvvm.shfl.sync.bfly.i32", NULL, 0, args, 4);
  if (bits < 32) r = LLVMBuildTrunc(B, r, xt, "");
  return cg_from_bits(cg, d, r);
}
