/* cg_sort.c — SORT (tl.sort(x, dim, descending)): a bitonic sorting network
 * along one axis, for any distributed layout.
 *
 * As for scans (cg_scan.c), the axis' coordinate bits are the register,
 * lane and warp bits whose basis moves along the axis, ordered by basis:
 * coordinate bit j is axis bit j.  For block sizes 2^k (k = 1 .. m, n = 2^m)
 * and j = k-1 down to 0, every element meets its partner (coordinate bit j
 * flipped) and keeps the smaller of the two when its bit j and the block's
 * direction agree:
 *
 *     ascending block  = coordinate bit k clear (all blocks when k = m),
 *                        inverted for descending=True;
 *     keep the minimum = (bit j clear) == ascending block.
 *
 * Partners are registers of the thread, shfl.sync.bfly lanes, or other warps
 * through shared memory, as in the scan.  Equal elements are exchangeable,
 * so ties need no rule; NaNs compare false and stay where the network
 * leaves them. */
#include "codegen/cg_internal.h"

#include <string.h>

/* i1: coordinate bit `b` of register element i is set. */
static LLVMValueRef coord_bit(CgCtx *cg, const AxisBit *b, int i) {
  if (b->kind == AXIS_REG) return LLVMConstInt(LLVMInt1TypeInContext(cg->ctx), (unsigned long long)(i >> b->bit & 1), 0);
  LLVMValueRef id = b->kind == AXIS_LANE ? cg->lane : cg->warp;
  return LLVMBuildICmp(cg->b, LLVMIntNE, cg_build_and(cg->b, id, cg_i32(cg, 1 << b->bit), ""), cg_i32(cg, 0), "");
}

/* i1: a < b in dtype d. */
static LLVMValueRef less(CgCtx *cg, const Op *op, DType d, LLVMValueRef a, LLVMValueRef b) {
  LLVMBuilderRef B = cg->b;
  if (dt_is_float(d)) {
    if (dt_bits(d) < 32) {
      a = cg_cast_scalar(cg, op, a, d, DT_F32);
      b = cg_cast_scalar(cg, op, b, d, DT_F32);
    }
    return LLVMBuildFCmp(B, LLVMRealOLT, a, b, "");
  }
  return LLVMBuildICmp(B, dt_is_signed(d) ? LLVMIntSLT : LLVMIntULT, a, b, "");
}

void cg_lower_sort(CgCtx *cg, Op *op) {
  const Type *t = op->operands[0]->type;
  int axis = op->attr.axis;
  CgFrag f;
  bool ok = t->rank >= 1 && axis >= 0 && axis < t->rank;
  if (!ok) cg_error(cg, op, "malformed sort");
  ok = ok && cg_frag(cg, op, t, &f);
  AxisBit bits[CG_MAX_AXIS_BITS];
  int nb = 0;
  if (ok && !cg_axis_bits(&f, axis, bits, &nb)) {
    cg_error(cg, op, "sort over a layout whose bases mix dimensions");
    ok = false;
  }
  if (!ok) {
    cg_set_undef(cg, op->results[0]);
    return;
  }
  int n = f.count;
  DType d = t->dtype;
  CgVal *in = cg_get(cg, op, op->operands[0]);
  LLVMValueRef *x = ARENA_ARRAY(&cg->arena, LLVMValueRef, n), *p = ARENA_ARRAY(&cg->arena, LLVMValueRef, n);
  for (int i = 0; i < n; i++) x[i] = cg_el(in, i);
  bool any_warp = false;
  for (int k = 0; k < nb; k++) any_warp |= bits[k].kind == AXIS_WARP;
  int eb = cg_dt_bytes(d), nthreads = 32 << f.ll.nwarp;
  if (any_warp) cg_smem_request(cg, op, (int64_t)nthreads * n * eb);
  LLVMBuilderRef B = cg->b;
  LLVMValueRef one = LLVMConstInt(LLVMInt1TypeInContext(cg->ctx), 1, 0);
  for (int k = 1; k <= nb; k++)
    for (int j = k - 1; j >= 0; j--) {
      const AxisBit *bj = &bits[j];
      /* the partners' values */
      if (bj->kind == AXIS_REG) {
        for (int i = 0; i < n; i++) p[i] = x[i ^ (1 << bj->bit)];
      } else if (bj->kind == AXIS_LANE) {
        for (int i = 0; i < n; i++) p[i] = cg_shfl_bfly(cg, d, x[i], 1 << bj->bit);
      } else {
        LLVMValueRef tid = cg_build_add(B, cg_build_mul(B, cg->warp, cg_i32(cg, 32), ""), cg->lane, "");
        LLVMValueRef ptid = cg_build_xor(B, tid, cg_i32(cg, 32 << bj->bit), "");
        for (int i = 0; i < n; i++) {
          LLVMValueRef slot = cg_build_add(B, cg_build_mul(B, tid, cg_i32(cg, n), ""), cg_i32(cg, i), "");
          LLVMValueRef st = LLVMBuildStore(B, cg_to_mem(cg, d, x[i]),
                                           cg_smem_ptr(cg, cg_build_mul(B, slot, cg_i32(cg, eb), "")));
          LLVMSetAlignment(st, (unsigned)eb);
        }
        cg_barrier(cg);
        for (int i = 0; i < n; i++) {
          LLVMValueRef slot = cg_build_add(B, cg_build_mul(B, ptid, cg_i32(cg, n), ""), cg_i32(cg, i), "");
          LLVMValueRef ld = LLVMBuildLoad2(B, cg_mem_type(cg, d), cg_smem_ptr(cg, cg_build_mul(B, slot, cg_i32(cg, eb), "")), "");
          LLVMSetAlignment(ld, (unsigned)eb);
          p[i] = cg_from_mem(cg, d, ld);
        }
        cg_barrier(cg);
      }
      LLVMValueRef *nx = ARENA_ARRAY(&cg->arena, LLVMValueRef, n);
      for (int i = 0; i < n; i++) {
        LLVMValueRef asc = k < nb ? cg_build_xor(B, coord_bit(cg, &bits[k], i), one, "") : one;
        if (op->attr.reverse) asc = cg_build_xor(B, asc, one, "");
        LLVMValueRef low = cg_build_xor(B, coord_bit(cg, bj, i), one, "");
        LLVMValueRef keep_min = LLVMBuildICmp(B, LLVMIntEQ, low, asc, "");
        LLVMValueRef lt = less(cg, op, d, x[i], p[i]);
        LLVMValueRef mn = LLVMBuildSelect(B, lt, x[i], p[i], "");
        LLVMValueRef mx = LLVMBuildSelect(B, lt, p[i], x[i], "");
        nx[i] = LLVMBuildSelect(B, keep_min, mn, mx, "");
      }
      memcpy(x, nx, sizeof(LLVMValueRef) * (size_t)n);
    }
  cg_set(cg, op->results[0], x, n);
}
