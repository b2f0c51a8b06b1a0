/* cg_scan.c — SCAN (tl.cumsum, tl.cumprod, tl.associative_scan) along one axis, for any
 * distributed layout, through the layout's linear form (ir/linear.c).
 *
 * Along the axis an element's coordinate is the sum of the bases of its
 * register, lane and warp bits that move along the axis (each a distinct
 * power of two).  Taking those bits from the smallest basis to the largest,
 * step k merges blocks of 2^k consecutive elements pairwise, as a butterfly:
 * every element keeps x (the scan of its block so far) and t (the total of
 * its block); with p the partner's total (the element whose bit k differs),
 *
 *     the element is in the later half:   x = p + x,  t = p + t
 *     it is in the earlier half:          t = t + p
 *
 * ("+" the combine, its left operand always the earlier elements, so no
 * commutativity is assumed; a user combine function, tl.associative_scan's,
 * is the op's region, lowered again at each use over all operands at once).  The partner is found where the bit lives:
 *   register bit  another register of the same thread;
 *   lane bit      shfl.sync.bfly with that lane mask;
 *   warp bit      through shared memory: every thread writes its totals at
 *                 scratch[tid][register], a barrier, reads the partner
 *                 thread's, a barrier before the scratch is reused.
 * Replica bits (basis zero) and bits along other dims are left out: they do
 * not change the coordinate along the axis.  `reverse` scans from the last
 * element to the first: the "later half" is then the one with the bit clear.
 *
 *     a 1-D scan of 8 elements, 2 registers x 4 lanes (basis: reg 1, lanes 2, 4)
 *     step reg bit:   [x0 x0+x1] [x2 x2+x3] ...        totals per pair
 *     step lane bit0: [x0 .. x0+x1+x2+x3] ...           totals per 4
 *     step lane bit1: the full inclusive prefix          totals per 8 */
#include "codegen/cg_internal.h"

#include <string.h>

#define MAX_STREAMS 4


/* out[s] = a[s] (+) b[s] over the streams: sum and prod per stream; a
 * combine region (tl.associative_scan's function) takes every stream at
 * once, its block arguments bound to (a..., b...) and its ops lowered again
 * at each use. */
static void comb(CgCtx *cg, Op *op, const DType *dt, int ns, LLVMValueRef *a, LLVMValueRef *b,
                 LLVMValueRef *out) {
  if (op->attr.combine != COMBINE_REGION) {
    OpKind k = op->attr.combine == COMBINE_PROD ? OP_MUL : OP_ADD;
    for (int s = 0; s < ns; s++) out[s] = cg_binary(cg, op, k, dt[s], a[s], b[s]);
    return;
  }
  IrBlock *r = op->regions[0];
  for (int s = 0; s < ns; s++) {
    cg_set(cg, r->args[s], &a[s], 1);
    cg_set(cg, r->args[ns + s], &b[s], 1);
  }
  Op *y = cg_lower_block(cg, r);
  for (int s = 0; s < ns; s++) out[s] = y && s < y->noperands ? cg_el(cg_get(cg, y, y->operands[s]), 0) : a[s];
}

static int align16(int64_t v) { return (int)((v + 15) & ~(int64_t)15); }

void cg_lower_scan(CgCtx *cg, Op *op) {
  const Type *xt = op->operands[0]->type;
  int axis = op->attr.axis, ns = op->noperands;
  CgFrag f;
  bool ok = ns >= 1 && ns <= MAX_STREAMS && op->nresults == ns && xt->rank > 0 && axis >= 0 &&
            axis < xt->rank;
  if (!ok) cg_error(cg, op, "malformed scan");
  ok = ok && cg_frag(cg, op, xt, &f);
  AxisBit bits[CG_MAX_AXIS_BITS];
  int nb = 0;
  if (ok && !cg_axis_bits(&f, axis, bits, &nb)) {
    cg_error(cg, op, "scan over a layout whose bases mix dimensions");
    ok = false;
  }
  if (!ok) {
    for (int i = 0; i < op->nresults; i++) cg_set_undef(cg, op->results[i]);
    return;
  }

  int n = f.count;
  DType dt[MAX_STREAMS];
  LLVMValueRef *x[MAX_STREAMS], *t[MAX_STREAMS];
  for (int s = 0; s < ns; s++) {
    dt[s] = op->operands[s]->type->dtype;
    CgVal *in = cg_get(cg, op, op->operands[s]);
    x[s] = ARENA_ARRAY(&cg->arena, LLVMValueRef, n);
    t[s] = ARENA_ARRAY(&cg->arena, LLVMValueRef, n);
    for (int i = 0; i < n; i++) x[s][i] = t[s][i] = cg_el(in, i);
  }
  bool rev = op->attr.reverse;
  LLVMBuilderRef B = cg->b; /* one builder: a combine region may move it to new blocks */

  /* scratch for the warp steps: one total per (thread, register, stream) */
  int nthreads = 32 << f.ll.nwarp, off[MAX_STREAMS], total = 0;
  bool any_warp = false;
  for (int k = 0; k < nb; k++) any_warp |= bits[k].kind == AXIS_WARP;
  if (any_warp) {
    for (int s = 0; s < ns; s++) {
      off[s] = total;
      total = align16(total + (int64_t)nthreads * n * cg_dt_bytes(dt[s]));
    }
    cg_smem_request(cg, op, total);
  }

  for (int k = 0; k < nb; k++) {
    const AxisBit *ab = &bits[k];
    if (ab->kind == AXIS_REG) {
      int m = 1 << ab->bit;
      for (int i = 0; i < n; i++) {
        if (i & m) continue;
        int lo = i, hi = i | m;            /* hi is later along the axis */
        int first = rev ? hi : lo, second = rev ? lo : hi;
        LLVMValueRef tf[MAX_STREAMS], ts[MAX_STREAMS], xs[MAX_STREAMS], nx[MAX_STREAMS], nt[MAX_STREAMS];
        for (int s = 0; s < ns; s++) tf[s] = t[s][first], ts[s] = t[s][second], xs[s] = x[s][second];
        comb(cg, op, dt, ns, tf, xs, nx);
        comb(cg, op, dt, ns, tf, ts, nt);
        for (int s = 0; s < ns; s++) x[s][second] = nx[s], t[s][first] = t[s][second] = nt[s];
      }
      continue;
    }
    /* the partner's totals */
    LLVMValueRef *p[MAX_STREAMS];
    LLVMValueRef upper;
    if (ab->kind == AXIS_LANE) {
      for (int s = 0; s < ns; s++) {
        p[s] = ARENA_ARRAY(&cg->arena, LLVMValueRef, n);
        for (int i = 0; i < n; i++) p[s][i] = cg_shfl_bfly(cg, dt[s], t[s][i], 1 << ab->bit);
      }
      upper = cg_build_and(B, cg->lane, cg_i32(cg, 1 << ab->bit), "");
    } else {
      LLVMValueRef tid = cg_build_add(B, cg_build_mul(B, cg->warp, cg_i32(cg, 32), ""), cg->lane, "");
      LLVMValueRef ptid = cg_build_xor(B, tid, cg_i32(cg, 32 << ab->bit), "");
      LLVMValueRef mine = cg_build_mul(B, tid, cg_i32(cg, n), "");
      LLVMValueRef theirs = cg_build_mul(B, ptid, cg_i32(cg, n), "");
      for (int s = 0; s < ns; s++) {
        int eb = cg_dt_bytes(dt[s]);
        for (int i = 0; i < n; i++) {
          LLVMValueRef slot = cg_build_add(B, mine, cg_i32(cg, i), "");
          LLVMValueRef byte = cg_build_add(B, cg_build_mul(B, slot, cg_i32(cg, eb), ""), cg_i32(cg, off[s]), "");
          LLVMValueRef st = LLVMBuildStore(B, cg_to_mem(cg, dt[s], t[s][i]), cg_smem_ptr(cg, byte));
          LLVMSetAlignment(st, (unsigned)eb);
        }
      }
      cg_barrier(cg);
      for (int s = 0; s < ns; s++) {
        int eb = cg_dt_bytes(dt[s]);
        p[s] = ARENA_ARRAY(&cg->arena, LLVMValueRef, n);
        for (int i = 0; i < n; i++) {
          LLVMValueRef slot = cg_build_add(B, theirs, cg_i32(cg, i), "");
          LLVMValueRef byte = cg_build_add(B, cg_build_mul(B, slot, cg_i32(cg, eb), ""), cg_i32(cg, off[s]), "");
          LLVMValueRef ld = LLVMBuildLoad2(B, cg_mem_type(cg, dt[s]), cg_smem_ptr(cg, byte), "");
          LLVMSetAlignment(ld, (unsigned)eb);
          p[s][i] = cg_from_mem(cg, dt[s], ld);
        }
      }
      cg_barrier(cg);
      upper = cg_build_and(B, cg->warp, cg_i32(cg, 1 << ab->bit), "");
    }
    /* later half: bit set (forward) or clear (reverse) */
    LLVMValueRef later = LLVMBuildICmp(B, rev ? LLVMIntEQ : LLVMIntNE, upper, cg_i32(cg, 0), "");
    for (int i = 0; i < n; i++) {
      LLVMValueRef pi[MAX_STREAMS], xi[MAX_STREAMS], ti[MAX_STREAMS], px[MAX_STREAMS], pt[MAX_STREAMS],
          tp[MAX_STREAMS];
      for (int s = 0; s < ns; s++) pi[s] = p[s][i], xi[s] = x[s][i], ti[s] = t[s][i];
      comb(cg, op, dt, ns, pi, xi, px);
      comb(cg, op, dt, ns, pi, ti, pt);
      comb(cg, op, dt, ns, ti, pi, tp);
      for (int s = 0; s < ns; s++) {
        x[s][i] = LLVMBuildSelect(cg->b, later, px[s], xi[s], "");
        t[s][i] = LLVMBuildSelect(cg->b, later, pt[s], tp[s], "");
      }
    }
  }
  for (int s = 0; s < ns; s++) cg_set(cg, op->results[s], x[s], n);
}
