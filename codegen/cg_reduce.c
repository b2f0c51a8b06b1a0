/* cg_reduce.c — REDUCE along one axis, in three steps:
 *
 *  1. in the thread: fragment elements that differ only along the axis
 *     combine into the result element with the same other coordinates
 *     (result layout = slice(axis, operand layout), same base fragment with
 *     the axis' extent 1): as a tree where the order cannot change the
 *     result (log2 n dependent combines, not n - 1), in register order for
 *     float sums (Triton's rounding), argmax and combine regions;
 *  2. in the warp: butterflies (shfl.sync.bfly) over the lane-id bits
 *     whose basis (ir/linear.c) moves along the axis (replica bits, whose
 *     basis is zero, are left out: they hold the same data already);
 *  3. across warps, over the warp-id bits whose basis moves along the axis:
 *     the threads whose axis lane bits are clear write their partials to
 *     scratch[axis warp index][out], a barrier, every thread combines the
 *     partials in order for each of its result elements, a barrier before
 *     the scratch is reused.
 * Registers, lanes and warps are found from the layout's linear form, so
 * this serves blocked, mma and dot-operand layouts alike.
 *
 * Every thread ends with the full result for its fragment; a 1-D operand
 * reduces to a scalar held by every thread.
 *
 * Operands / results.  Plain combines (sum, prod, max, min, and, or, xor)
 * reduce each operand independently into the result with its index.
 * argmax / argmin carry (value, index) pairs: the index is operand 1 when
 * present, otherwise the coordinate along the axis (i32).  With two results
 * they are (value, index); with one result it is the index.  Ties pick the
 * smallest index (Triton's tie_break_left); max / min ignore NaNs (maxnum),
 * as tl.max / tl.min do; sums combine in the element type.  A combine
 * region (tl.reduce with a @jit function) combines every operand at once,
 * one result per operand; the order of the combines is the butterfly's, so
 * the function must be commutative (as Triton's reductions assume). */
#include "codegen/cg_internal.h"

#include <string.h>

#define MAX_STREAMS 4

typedef struct Red {
  CombineKind kind;
  bool arg;
  int nstreams;               /* arg: 2 (value, index) */
  DType dt[MAX_STREAMS];
} Red;

static LLVMValueRef combine1(CgCtx *cg, const Op *op, CombineKind k, DType d, LLVMValueRef a,
                             LLVMValueRef b) {
  switch (k) {
  case COMBINE_SUM: return cg_binary(cg, op, OP_ADD, d, a, b);
  case COMBINE_PROD: return cg_binary(cg, op, OP_MUL, d, a, b);
  case COMBINE_MAX: return cg_max_min(cg, d, true, false, a, b);
  case COMBINE_MIN: return cg_max_min(cg, d, false, false, a, b);
  case COMBINE_XOR: return cg_binary(cg, op, OP_XOR, d, a, b);
  case COMBINE_AND: return cg_binary(cg, op, OP_AND, d, a, b);
  case COMBINE_OR: return cg_binary(cg, op, OP_OR, d, a, b);
  default: break;
  }
  cg_error(cg, op, "bad combine kind %d", (int)k);
  return a;
}

/* acc[s] = combine(acc[s], x[s]) for every stream.  A combine region
 * (tl.reduce's function) takes all streams at once: its block arguments are
 * bound to (acc..., x...) and its ops lowered again at each use. */
static void combine(CgCtx *cg, const Op *op, const Red *r, LLVMValueRef *acc, LLVMValueRef *x) {
  if (r->kind == COMBINE_REGION) {
    IrBlock *b = op->regions[0];
    for (int s = 0; s < r->nstreams; s++) {
      cg_set(cg, b->args[s], &acc[s], 1);
      cg_set(cg, b->args[r->nstreams + s], &x[s], 1);
    }
    Op *y = cg_lower_block(cg, b);
    for (int s = 0; s < r->nstreams; s++)
      if (y && s < y->noperands) acc[s] = cg_el(cg_get(cg, y, y->operands[s]), 0);
    return;
  }
  if (!r->arg) {
    for (int s = 0; s < r->nstreams; s++) acc[s] = combine1(cg, op, r->kind, r->dt[s], acc[s], x[s]);
    return;
  }
  LLVMBuilderRef B = cg->b;
  DType vd = r->dt[0], id = r->dt[1];
  LLVMValueRef av = acc[0], bv = x[0];
  bool mx = r->kind == COMBINE_ARGMAX;
  LLVMValueRef better, eq;
  if (dt_is_float(vd)) {
    if (vd == DT_BF16) {
      av = LLVMBuildFPExt(B, av, cg->t_f32, "");
      bv = LLVMBuildFPExt(B, bv, cg->t_f32, "");
    }
    better = LLVMBuildFCmp(B, mx ? LLVMRealOGT : LLVMRealOLT, av, bv, "");
    eq = LLVMBuildFCmp(B, LLVMRealOEQ, av, bv, "");
  } else {
    bool s = dt_is_signed(vd);
    better = LLVMBuildICmp(B, mx ? (s ? LLVMIntSGT : LLVMIntUGT) : (s ? LLVMIntSLT : LLVMIntULT),
                           av, bv, "");
    eq = LLVMBuildICmp(B, LLVMIntEQ, av, bv, "");
  }
  LLVMValueRef lt = LLVMBuildICmp(B, dt_is_signed(id) ? LLVMIntSLT : LLVMIntULT, acc[1], x[1], "");
  LLVMValueRef take = cg_build_or(B, better, cg_build_and(B, eq, lt, ""), "");
  acc[0] = LLVMBuildSelect(B, take, acc[0], x[0], "");
  acc[1] = LLVMBuildSelect(B, take, acc[1], x[1], "");
}

/* Butterfly shuffle of one element of dtype d across lane mask `m`. */

static int align16(int64_t v) { return (int)((v + 15) & ~(int64_t)15); }

/* Register bits whose basis moves along `axis`. */
static int axis_regs(const CgFrag *f, int axis) {
  int m = 0;
  for (int k = 0; k < f->ll.nreg; k++)
    if (f->ll.reg[k][axis]) m |= 1 << k;
  return m;
}

/* Bits of x at the positions of mask, packed (parallel bit extract). */
static int pext(int x, int mask) {
  int r = 0, o = 0;
  for (int k = 0; k < 31; k++)
    if (mask >> k & 1) r |= (x >> k & 1) << o++;
  return r;
}

/* Can the combines of r run in any order with the same result?  max / min
 * (maxnum / minnum: the largest non-NaN), the bitwise ones and integer sums
 * and products; not float sums (rounding), argmax (kept in register order
 * with the index tie break as written) or a combine region. */
static bool order_free(const Red *r) {
  if (r->arg || r->kind == COMBINE_REGION) return false;
  for (int s = 0; s < r->nstreams; s++)
    if ((r->kind == COMBINE_SUM || r->kind == COMBINE_PROD) && dt_is_float(r->dt[s])) return false;
  return true;
}

/* Step 1 as a tree: acc[o] = the combine of the thread's elements i with
 * pext(i, keep) == o, paired level by level. */
static void thread_tree(CgCtx *cg, const Op *op, const Red *r, CgVal **in, int n, int m, int keep,
                        LLVMValueRef *acc) {
  int per = n / m;
  LLVMValueRef *v = ARENA_ARRAY(&cg->arena, LLVMValueRef, (size_t)n * MAX_STREAMS);
  int *cnt = ARENA_ARRAY(&cg->arena, int, m);
  for (int i = 0; i < n; i++) {
    int o = pext(i, keep), k = cnt[o]++;
    for (int s = 0; s < r->nstreams; s++) v[((size_t)o * per + k) * MAX_STREAMS + s] = cg_el(in[s], i);
  }
  for (int o = 0; o < m; o++) {
    LLVMValueRef *l = v + (size_t)o * per * MAX_STREAMS;
    for (int len = cnt[o]; len > 1; len = (len + 1) / 2) {
      for (int k = 0; k < len / 2; k++) {
        LLVMValueRef *a = l + (size_t)(2 * k) * MAX_STREAMS, *b = l + (size_t)(2 * k + 1) * MAX_STREAMS;
        combine(cg, op, r, a, b);
        if (k) memcpy(l + (size_t)k * MAX_STREAMS, a, sizeof *a * MAX_STREAMS);
      }
      if (len & 1) /* an odd tail moves up a level untouched */
        memcpy(l + (size_t)(len / 2) * MAX_STREAMS, l + (size_t)(len - 1) * MAX_STREAMS, sizeof *l * MAX_STREAMS);
    }
    memcpy(acc + (size_t)o * MAX_STREAMS, l, sizeof *l * MAX_STREAMS);
  }
}

void cg_lower_reduce(CgCtx *cg, Op *op) {
  const Type *xt = op->operands[0]->type;
  int axis = op->attr.axis;
  Red r;
  memset(&r, 0, sizeof r);
  r.kind = op->attr.combine;
  r.arg = r.kind == COMBINE_ARGMAX || r.kind == COMBINE_ARGMIN;
  r.nstreams = r.arg ? 2 : op->noperands;
  CgFrag f, fr;
  bool scalar_out = xt->rank == 1;
  bool ok = op->noperands >= 1 && op->nresults >= 1 && r.nstreams <= MAX_STREAMS &&
            (r.arg || op->nresults == op->noperands) && xt->rank > 0 && axis >= 0 &&
            axis < xt->rank;
  if (!ok) cg_error(cg, op, "malformed reduce");
  ok = ok && cg_frag(cg, op, xt, &f);
  if (ok && !scalar_out) {
    ok = cg_frag(cg, op, op->results[0]->type, &fr);
    if (ok && fr.count != (1 << (f.ll.nreg - __builtin_popcount(axis_regs(&f, axis))))) {
      cg_error(cg, op, "reduce result must be in slice(axis, operand layout)");
      ok = false;
    }
  }
  if (!ok) {
    for (int i = 0; i < op->nresults; i++) cg_set_undef(cg, op->results[i]);
    return;
  }
  int n = f.count, m = scalar_out ? 1 : fr.count;
  int keep = ((1 << f.ll.nreg) - 1) & ~axis_regs(&f, axis);

  /* inputs per stream */
  CgVal *in[MAX_STREAMS] = {NULL};
  for (int s = 0; s < op->noperands && s < MAX_STREAMS; s++) in[s] = cg_get(cg, op, op->operands[s]);
  r.dt[0] = xt->dtype;
  if (r.arg) r.dt[1] = op->noperands >= 2 ? op->operands[1]->type->dtype : DT_I32;
  else
    for (int s = 1; s < r.nstreams; s++) r.dt[s] = op->operands[s]->type->dtype;

  LLVMValueRef *acc = ARENA_ARRAY(&cg->arena, LLVMValueRef, (size_t)m * MAX_STREAMS);
  bool *have = ARENA_ARRAY(&cg->arena, bool, m);
  /* 1. within the thread: in register order (a float sum rounds as Triton's
   * does), or, where the order cannot change the result, as a tree: a
   * chain of n - 1 dependent combines becomes log2(n) deep */
  if (order_free(&r)) {
    thread_tree(cg, op, &r, in, n, m, scalar_out ? 0 : keep, acc);
  } else {
    for (int i = 0; i < n; i++) {
      int o = 0;
      if (!scalar_out) o = pext(i, keep);
      LLVMValueRef x[MAX_STREAMS];
      for (int s = 0; s < r.nstreams; s++) {
        if (r.arg && s == 1 && op->noperands < 2) x[s] = cg_coord(cg, &f, i, axis);
        else x[s] = cg_el(in[s], i);
      }
      LLVMValueRef *a = acc + (size_t)o * MAX_STREAMS;
      if (!have[o]) {
        memcpy(a, x, sizeof(LLVMValueRef) * (size_t)r.nstreams);
        have[o] = true;
      } else {
        combine(cg, op, &r, a, x);
      }
    }
  }

  /* 2. across the lanes of the axis */
  int lmask = cg_lane_mask(&f, axis);
  for (int bit = 0; bit < 5; bit++) {
    if (!(lmask >> bit & 1)) continue;
    for (int o = 0; o < m; o++) {
      LLVMValueRef *a = acc + (size_t)o * MAX_STREAMS, x[MAX_STREAMS];
      for (int k = 0; k < r.nstreams; k++) x[k] = cg_shfl_bfly(cg, r.dt[k], a[k], 1 << bit);
      combine(cg, op, &r, a, x);
    }
  }

  /* 3. across the warps of the axis */
  int wmask = cg_warp_mask(&f, axis);
  int uw = 1 << __builtin_popcount(wmask);
  if (uw > 1) {
    const Type *rt = op->results[0]->type;
    int64_t nout = ty_numel(rt);
    int64_t rstride[IR_MAX_RANK], st = 1;
    for (int d = rt->rank - 1; d >= 0; d--) rstride[d] = st, st *= rt->shape[d];
    int off[MAX_STREAMS], total = 0;
    for (int k = 0; k < r.nstreams; k++) {
      off[k] = total;
      total = align16(total + (int64_t)uw * nout * cg_dt_bytes(r.dt[k]));
    }
    cg_smem_request(cg, op, total);
    /* writers: axis lane bits clear (after the butterflies they all agree) */
    LLVMValueRef wsel = NULL;
    if (lmask)
      wsel = LLVMBuildICmp(cg->pro, LLVMIntEQ, cg_build_and(cg->pro, cg->lane, cg_i32(cg, lmask), ""),
                           cg_i32(cg, 0), "");
    /* the warp's index along the axis: its axis warp bits, packed */
    LLVMValueRef widx = NULL;
    for (int k = 0, o = 0; k < 5; k++) {
      if (!(wmask >> k & 1)) continue;
      LLVMValueRef bit = cg_build_and(cg->pro, cg->warp, cg_i32(cg, 1 << k), "");
      if (k > o) bit = cg_build_lshr(cg->pro, bit, cg_i32(cg, k - o), "");
      widx = widx ? cg_build_or(cg->pro, widx, bit, "") : bit;
      o++;
    }
    LLVMValueRef *lin = ARENA_ARRAY(&cg->arena, LLVMValueRef, m);
    LLVMBasicBlockRef cont = cg_begin_guard(cg, wsel);
    LLVMValueRef wbase = cg_build_mul(cg->b, widx, cg_i32(cg, nout), "");
    for (int o = 0; o < m; o++) {
      LLVMValueRef l = scalar_out ? cg_i32(cg, 0) : cg_linear(cg, &fr, o, rstride);
      LLVMValueRef slot = cg_build_add(cg->b, wbase, l, "");
      for (int k = 0; k < r.nstreams; k++) {
        int eb = cg_dt_bytes(r.dt[k]);
        LLVMValueRef byte = cg_build_add(cg->b, cg_build_mul(cg->b, slot, cg_i32(cg, eb), ""),
                                         cg_i32(cg, off[k]), "");
        LLVMValueRef v = cg_to_mem(cg, r.dt[k], acc[(size_t)o * MAX_STREAMS + k]);
        LLVMValueRef stv = LLVMBuildStore(cg->b, v, cg_smem_ptr(cg, byte));
        LLVMSetAlignment(stv, (unsigned)eb);
      }
    }
    cg_end_guard(cg, cont);
    cg_barrier(cg);
    for (int o = 0; o < m; o++) lin[o] = scalar_out ? cg_i32(cg, 0) : cg_linear(cg, &fr, o, rstride);
    for (int o = 0; o < m; o++) {
      LLVMValueRef *a = acc + (size_t)o * MAX_STREAMS;
      for (int w = 0; w < uw; w++) {
        LLVMValueRef x[MAX_STREAMS];
        for (int k = 0; k < r.nstreams; k++) {
          int eb = cg_dt_bytes(r.dt[k]);
          LLVMValueRef slot = cg_build_add(cg->b, lin[o], cg_i32(cg, (int64_t)w * nout), "");
          LLVMValueRef byte = cg_build_add(cg->b, cg_build_mul(cg->b, slot, cg_i32(cg, eb), ""),
                                           cg_i32(cg, off[k]), "");
          LLVMValueRef ld = LLVMBuildLoad2(cg->b, cg_mem_type(cg, r.dt[k]), cg_smem_ptr(cg, byte), "");
          LLVMSetAlignment(ld, (unsigned)eb);
          x[k] = cg_from_mem(cg, r.dt[k], ld);
        }
        if (w == 0) memcpy(a, x, sizeof(LLVMValueRef) * (size_t)r.nstreams);
        else combine(cg, op, &r, a, x);
      }
    }
    cg_barrier(cg);
  }

  /* results */
  LLVMValueRef *res = ARENA_ARRAY(&cg->arena, LLVMValueRef, m);
  for (int k = 0; k < op->nresults; k++) {
    int s = r.arg ? (op->nresults == 2 ? k : 1) : k;
    DType want = op->results[k]->type->dtype;
    for (int o = 0; o < m; o++) {
      LLVMValueRef v = acc[(size_t)o * MAX_STREAMS + s];
      if (want != r.dt[s]) v = cg_cast_scalar(cg, op, v, r.dt[s], want);
      res[o] = v;
    }
    cg_set(cg, op->results[k], res, m);
  }
}
