/* cg_layout.c — where a thread's fragment elements sit, for every
 * distributed layout, through its linear form (ir/linear.c):
 *
 *   coord(i; lane, warp) = R(i) ^ T(lane, warp)
 *
 * R(i), the XOR of the register bases of i's set bits, is a compile-time
 * constant per element.  T, the XOR of the lane and warp bases of the
 * thread's set bits, is computed once per (layout, shape) in the entry
 * block: per dim, ((lane >> b) & 1) << log2(basis) summed over the bits b
 * whose basis moves along that dim.  Every basis here is a single power of
 * two, so when R's bits and T's possible bits are disjoint (always, for the
 * layouts this compiler makes) the XOR is an add, which LLVM folds into
 * addressing.
 *
 * Ownership: lane and warp bits whose basis is zero only select replicas; a
 * store or atomic runs in the thread with all those bits clear, which holds
 * each element exactly once.
 *
 * Everything also exists as plain C (cg_eval_*) for the unit test and for
 * cg_convert.c's compile-time proof that a conversion needs no exchange. */
#include "codegen/cg_internal.h"

#include <string.h>

/* ---- fragment descriptions ------------------------------------------------- */

bool cg_frag_of(const Layout *l, int rank, const int64_t *shape, CgFrag *f) {
  memset(f, 0, sizeof *f);
  if (!l || !ll_from_layout(l, rank, shape, &f->ll)) return false;
  f->layout = l;
  f->rank = rank;
  f->count = 1 << f->ll.nreg;
  f->run = ll_run(&f->ll, &f->run_dim);
  return true;
}

static bool is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

static int layout_warps(const Layout *l) {
  while (l->kind == LAY_SLICE || l->kind == LAY_DOT_OPERAND) l = l->parent;
  int n = 1;
  for (int i = 0; i < l->rank; i++) n *= l->wpc[i];
  return n;
}

bool cg_frag(CgCtx *cg, const Op *op, const Type *t, CgFrag *f) {
  if (!t->rank) {
    cg_error(cg, op, "cg_frag of a scalar");
    return false;
  }
  for (int d = 0; d < t->rank; d++)
    if (!is_pow2(t->shape[d])) {
      cg_error(cg, op, "tensor dims must be powers of two (dim %d is %lld)", d,
               (long long)t->shape[d]);
      return false;
    }
  if (!t->layout || !cg_frag_of(t->layout, t->rank, t->shape, f)) {
    StrBuf sb;
    sb_init(&sb);
    ty_print(&sb, t);
    cg_error(cg, op, "cannot lower values of type %s (layout not supported)", sb.data ? sb.data : "?");
    sb_free(&sb);
    return false;
  }
  if (layout_warps(t->layout) != cg->num_warps) {
    cg_error(cg, op, "layout spans %d warps but the kernel has %d", layout_warps(t->layout), cg->num_warps);
    return false;
  }
  return true;
}

int cg_nelems(CgCtx *cg, const Type *t) {
  if (!t->rank) return 1;
  CgFrag f;
  (void)cg;
  if (!t->layout || !cg_frag_of(t->layout, t->rank, t->shape, &f)) return 1;
  return f.count;
}

/* ---- thread ids ------------------------------------------------------------ */

void cg_thread_init(CgCtx *cg) {
  cg->tid = cg_sreg(cg, cg->pro, "tid.x");
  cg->lane = cg_build_and(cg->pro, cg->tid, cg_i32(cg, 31), "lane");
  /* The warp index through a shuffle from lane 0: ptxas then knows it is
   * warp-uniform and keeps what is computed from it (wgmma descriptors,
   * warpgroup offsets) in uniform registers. */
  LLVMValueRef w = cg_build_lshr(cg->pro, cg->tid, cg_i32(cg, 5), "");
  LLVMValueRef args[4] = {cg_i32(cg, -1), w, cg_i32(cg, 0), cg_i32(cg, 31)};
  unsigned id = LLVMLookupIntrinsicID("llvm.nvvm.shfl.sync.idx.i32", 27);
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(cg->mod, id, NULL, 0);
  LLVMTypeRef fty = LLVMIntrinsicGetType(cg->ctx, id, NULL, 0);
  cg->warp = LLVMBuildCall2(cg->pro, fty, fn, args, 4, "warp");
}

/* The thread index for one-thread guards (`tid == lead`): read again through
 * inline asm, so that LLVM does not see the guards' branches as conditions
 * on cg->tid.  Each such branch was a dominating condition that every
 * known-bits query of tid's address arithmetic walked (InstCombine, SCCP,
 * ...); none of them made the kernel better.  Made once, in the prologue. */
LLVMValueRef cg_guard_tid(CgCtx *cg) {
  if (cg->tid_guard) return cg->tid_guard;
  LLVMTypeRef fty = LLVMFunctionType(cg->t_i32, NULL, 0, 0);
  static const char text[] = "mov.u32 $0, %tid.x;", cons[] = "=r";
  LLVMValueRef fn = LLVMGetInlineAsm(fty, text, sizeof text - 1, cons, sizeof cons - 1, 0, 0,
                                     LLVMInlineAsmDialectATT, 0);
  cg->tid_guard = LLVMBuildCall2(cg->pro, fty, fn, NULL, 0, "tid.guard");
  return cg->tid_guard;
}

static int log2i(int64_t x) {
  int n = 0;
  while (x > 1) x >>= 1, n++;
  return n;
}

/* sum over bits b of x with a basis along d: ((x >> b) & 1) << log2(basis) */
static LLVMValueRef bits_part(CgCtx *cg, LLVMValueRef x, const int64_t (*bases)[IR_MAX_RANK], int n,
                              int d, LLVMValueRef acc, int64_t *mask) {
  LLVMBuilderRef b = cg->pro;
  for (int k = 0; k < n; k++) {
    int64_t v = bases[k][d];
    if (!v) continue;
    *mask |= v;
    int sh = log2i(v);
    LLVMValueRef bit = cg_build_and(b, x, cg_i32(cg, 1 << k), "");
    if (sh > k) bit = cg_build_shl(b, bit, cg_i32(cg, sh - k), "");
    else if (sh < k) bit = cg_build_lshr(b, bit, cg_i32(cg, k - sh), "");
    acc = acc ? cg_build_or(b, acc, bit, "") : bit;
  }
  return acc;
}

const CgThreadParts *cg_thread_parts(CgCtx *cg, const CgFrag *f) {
  for (int i = 0; i < cg->parts.len; i++) {
    const CgThreadParts *p = &cg->parts.data[i];
    if (p->layout == f->layout && p->rank == f->rank &&
        !memcmp(p->shape, f->ll.shape, sizeof(int64_t) * (size_t)f->rank))
      return p;
  }
  CgThreadParts p;
  memset(&p, 0, sizeof p);
  p.layout = f->layout;
  p.rank = f->rank;
  memcpy(p.shape, f->ll.shape, sizeof p.shape);
  for (int d = 0; d < f->rank; d++) {
    LLVMValueRef acc = bits_part(cg, cg->lane, f->ll.lane, f->ll.nlane, d, NULL, &p.bits[d]);
    acc = bits_part(cg, cg->warp, f->ll.warp, f->ll.nwarp, d, acc, &p.bits[d]);
    p.off[d] = acc ? acc : cg_i32(cg, 0);
  }
  VEC_PUSH(cg->parts, p);
  return &cg->parts.data[cg->parts.len - 1];
}

/* ---- coordinates ----------------------------------------------------------- */

void cg_reg_coord(const CgFrag *f, int i, int64_t *c) {
  for (int d = 0; d < f->rank; d++) c[d] = 0;
  for (int k = 0; k < f->ll.nreg; k++)
    if (i >> k & 1)
      for (int d = 0; d < f->rank; d++) c[d] ^= f->ll.reg[k][d];
}

LLVMValueRef cg_coord(CgCtx *cg, const CgFrag *f, int i, int tdim) {
  if (f->ll.shape[tdim] == 1) return cg_i32(cg, 0);
  const CgThreadParts *p = cg_thread_parts(cg, f);
  int64_t c[IR_MAX_RANK];
  cg_reg_coord(f, i, c);
  LLVMValueRef v = p->off[tdim];
  if (!c[tdim]) return v;
  if (p->bits[tdim] & c[tdim]) return cg_build_xor(cg->b, v, cg_i32(cg, c[tdim]), "");
  return cg_build_add(cg->b, v, cg_i32(cg, c[tdim]), "");
}

LLVMValueRef cg_linear(CgCtx *cg, const CgFrag *f, int i, const int64_t *strides) {
  LLVMValueRef acc = NULL;
  for (int t = 0; t < f->rank; t++) {
    if (f->ll.shape[t] == 1 || strides[t] == 0) continue;
    LLVMValueRef c = cg_coord(cg, f, i, t);
    if (strides[t] != 1) c = cg_build_mul(cg->b, c, cg_i32(cg, strides[t]), "");
    acc = acc ? cg_build_add(cg->b, acc, c, "") : c;
  }
  return acc ? acc : cg_i32(cg, 0);
}

static bool zero_vec(const int64_t *v, int rank) {
  for (int d = 0; d < rank; d++)
    if (v[d]) return false;
  return true;
}

int cg_lane_mask(const CgFrag *f, int dim) {
  int m = 0;
  for (int k = 0; k < f->ll.nlane; k++)
    if (f->ll.lane[k][dim]) m |= 1 << k;
  return m;
}

int cg_warp_mask(const CgFrag *f, int dim) {
  int m = 0;
  for (int k = 0; k < f->ll.nwarp; k++)
    if (f->ll.warp[k][dim]) m |= 1 << k;
  return m;
}

int cg_lane_zero_mask(const CgFrag *f) {
  int m = 0;
  for (int k = 0; k < f->ll.nlane; k++)
    if (zero_vec(f->ll.lane[k], f->rank)) m |= 1 << k;
  return m;
}

int cg_warp_zero_mask(const CgFrag *f) {
  int m = 0;
  for (int k = 0; k < f->ll.nwarp; k++)
    if (zero_vec(f->ll.warp[k], f->rank)) m |= 1 << k;
  return m;
}

LLVMValueRef cg_owner(CgCtx *cg, const Type *t) {
  for (int i = 0; i < cg->owners.len; i++)
    if (cg->owners.data[i].type == t) return cg->owners.data[i].pred;
  LLVMValueRef pred = NULL;
  if (!t->rank) {
    pred = LLVMBuildICmp(cg->pro, LLVMIntEQ, cg_guard_tid(cg), cg_i32(cg, 0), "owner");
  } else {
    CgFrag f;
    if (t->layout && cg_frag_of(t->layout, t->rank, t->shape, &f)) {
      int lz = cg_lane_zero_mask(&f), wz = cg_warp_zero_mask(&f);
      if (lz) pred = LLVMBuildICmp(cg->pro, LLVMIntEQ, cg_build_and(cg->pro, cg->lane, cg_i32(cg, lz), ""), cg_i32(cg, 0), "");
      if (wz) {
        LLVMValueRef c = LLVMBuildICmp(cg->pro, LLVMIntEQ, cg_build_and(cg->pro, cg->warp, cg_i32(cg, wz), ""), cg_i32(cg, 0), "");
        pred = pred ? cg_build_and(cg->pro, pred, c, "") : c;
      }
    }
  }
  CgOwnerCache e = {t, pred};
  VEC_PUSH(cg->owners, e);
  return pred;
}

/* ---- the same in C ---------------------------------------------------------- */

int64_t cg_eval_coord(const CgFrag *f, int tid, int i, int tdim) {
  int64_t c[IR_MAX_RANK];
  ll_coord(&f->ll, i, tid & 31, tid >> 5, c);
  return c[tdim];
}

bool cg_eval_owner(const CgFrag *f, int tid) { return ll_is_owner(&f->ll, tid & 31, tid >> 5); }

bool cg_axis_bits(const CgFrag *f, int axis, AxisBit *bits, int *n) {
  const LinearLayout *ll = &f->ll;
  *n = 0;
  for (int k = 0; k < ll->nreg + ll->nlane + ll->nwarp; k++) {
    AxisBitKind kind = k < ll->nreg ? AXIS_REG : k < ll->nreg + ll->nlane ? AXIS_LANE : AXIS_WARP;
    int bit = kind == AXIS_REG ? k : kind == AXIS_LANE ? k - ll->nreg : k - ll->nreg - ll->nlane;
    const int64_t *v = kind == AXIS_REG ? ll->reg[bit] : kind == AXIS_LANE ? ll->lane[bit] : ll->warp[bit];
    if (!v[axis]) continue;
    if (v[axis] < 0 || (v[axis] & (v[axis] - 1))) return false;
    for (int d = 0; d < f->rank; d++)
      if (d != axis && v[d]) return false;
    if (*n == CG_MAX_AXIS_BITS) return false;
    bits[(*n)++] = (AxisBit){kind, bit, v[axis]};
  }
  for (int i = 1; i < *n; i++) /* insertion sort: at most 34 bits */
    for (int j = i; j > 0 && bits[j - 1].basis > bits[j].basis; j--) {
      AxisBit t = bits[j];
      bits[j] = bits[j - 1], bits[j - 1] = t;
    }
  return true;
}
