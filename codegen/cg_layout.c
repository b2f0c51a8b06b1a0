/* cg_layout.c — where a thread's fragment elements sit: thread ids, the
 * per-dim lane/warp split, per-element coordinates and the "canonical
 * owner" predicate of replicated layouts.
 *
 * The formulas are ir.h's (see LayoutFrag).  For a blocked base layout and
 * base dim d, with lane = tid & 31 and warp = tid >> 5 split over the dims
 * in `order` (order[0] fastest):
 *
 *   off_d      = (warp_d * tpw_d + lane_d) * spt_d        (prologue, per thread)
 *   coord_d(i) = (off_d + r * tile_d + j) mod S_d         (idx_d(i) = r * sptu_d + j)
 *
 * The thread part off_d is computed once in the entry block; each use adds
 * a compile-time constant, so LLVM folds the constant parts into addressing.
 * The `mod S_d` is only emitted when tile_d > S_d (replication); shapes are
 * powers of two, so it is an `and`.
 *
 * Ownership: along base dim d only the first lay_unique_lanes(d) lanes and
 * lay_unique_warps(d) warps hold distinct data, the others repeat them.  A
 * store or atomic is executed only by the thread with lane_d < U_l(d) and
 * warp_d < U_w(d) for every d, which holds each element exactly once.
 *
 * Everything here also exists as plain C (cg_eval_*), used by the unit test
 * and by cg_convert.c to prove conversions register-only at compile time. */
#include "codegen/cg_internal.h"

#include <string.h>

/* ---- fragment descriptions ------------------------------------------------- */

bool cg_frag_of(const Layout *l, int rank, const int64_t *shape, CgFrag *f) {
  memset(f, 0, sizeof *f);
  if (!lay_frag(l, rank, shape, &f->lf)) return false;
  f->rank = rank;
  for (int d = 0; d < IR_MAX_RANK; d++) f->b2t[d] = -1;
  int t = 0;
  for (int d = 0; d < f->lf.rank; d++) {
    if (f->lf.sliced[d]) continue;
    if (t >= rank) return false;
    f->t2b[t] = d;
    f->b2t[d] = t;
    t++;
  }
  if (t != rank) return false;
  f->fast = -1;
  for (int k = 0; k < f->lf.rank; k++) {
    int d = f->lf.base->order[k];
    if (!f->lf.sliced[d]) {
      f->fast = d;
      break;
    }
  }
  return true;
}

static bool is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

bool cg_frag(CgCtx *cg, const Op *op, const Type *t, CgFrag *f) {
  if (!t->rank) {
    cg_error(cg, op, "cg_frag of a scalar");
    return false;
  }
  if (!t->layout || !cg_frag_of(t->layout, t->rank, t->shape, f)) {
    StrBuf sb;
    sb_init(&sb);
    ty_print(&sb, t);
    cg_error(cg, op, "cannot lower values of type %s (layout not supported yet)",
             sb.data ? sb.data : "?");
    sb_free(&sb);
    return false;
  }
  for (int d = 0; d < t->rank; d++)
    if (!is_pow2(t->shape[d])) {
      cg_error(cg, op, "tensor dims must be powers of two (dim %d is %lld)", d,
               (long long)t->shape[d]);
      return false;
    }
  if (f->lf.base->rank && lay_num_warps(f->lf.base) != cg->num_warps) {
    cg_error(cg, op, "layout spans %d warps but the kernel has %d",
             lay_num_warps(f->lf.base), cg->num_warps);
    return false;
  }
  return true;
}

int cg_nelems(CgCtx *cg, const Type *t) {
  if (!t->rank) return 1;
  CgFrag f;
  if (!t->layout || !cg_frag_of(t->layout, t->rank, t->shape, &f)) return 1;
  (void)cg;
  return f.lf.count;
}

/* ---- thread ids ------------------------------------------------------------ */

void cg_thread_init(CgCtx *cg) {
  cg->tid = cg_sreg(cg, cg->pro, "tid.x");
  cg->lane = LLVMBuildAnd(cg->pro, cg->tid, cg_i32(cg, 31), "lane");
  cg->warp = LLVMBuildLShr(cg->pro, cg->tid, cg_i32(cg, 5), "warp");
}

int cg_lane_stride(const Layout *base, int d) {
  int s = 1;
  for (int k = 0; k < base->rank && base->order[k] != d; k++) s *= base->tpw[base->order[k]];
  return s;
}

int cg_warp_stride(const Layout *base, int d) {
  int s = 1;
  for (int k = 0; k < base->rank && base->order[k] != d; k++) s *= base->wpc[base->order[k]];
  return s;
}

/* (x / stride) % n, skipping the parts that are no-ops. */
static LLVMValueRef split(CgCtx *cg, LLVMValueRef x, int stride, int n, int total) {
  LLVMBuilderRef b = cg->pro;
  if (n == 1) return cg_i32(cg, 0);
  if (stride > 1) x = LLVMBuildUDiv(b, x, cg_i32(cg, stride), "");
  if ((int64_t)stride * n < total) x = LLVMBuildURem(b, x, cg_i32(cg, n), "");
  return x;
}

const CgThreadParts *cg_thread_parts(CgCtx *cg, const Layout *base) {
  for (int i = 0; i < cg->parts.len; i++)
    if (cg->parts.data[i].base == base) return &cg->parts.data[i];
  CgThreadParts p;
  memset(&p, 0, sizeof p);
  p.base = base;
  for (int d = 0; d < base->rank; d++) {
    p.lane[d] = split(cg, cg->lane, cg_lane_stride(base, d), base->tpw[d], 32);
    p.warp[d] = split(cg, cg->warp, cg_warp_stride(base, d), base->wpc[d], cg->num_warps);
    LLVMValueRef w = LLVMBuildMul(cg->pro, p.warp[d], cg_i32(cg, base->tpw[d]), "");
    LLVMValueRef t = LLVMBuildAdd(cg->pro, w, p.lane[d], "");
    p.off[d] = LLVMBuildMul(cg->pro, t, cg_i32(cg, base->spt[d]), "");
  }
  VEC_PUSH(cg->parts, p);
  return &cg->parts.data[cg->parts.len - 1];
}

/* ---- coordinates ----------------------------------------------------------- */

/* Constant part r * tile + j of fragment element i along base dim bd. */
static int64_t const_part(const LayoutFrag *lf, int i, int bd) {
  int idx[IR_MAX_RANK];
  lay_frag_index(lf, i, idx);
  int r = idx[bd] / lf->sptu[bd], j = idx[bd] % lf->sptu[bd];
  return (int64_t)r * lf->tile[bd] + j;
}

LLVMValueRef cg_coord(CgCtx *cg, const CgFrag *f, int i, int tdim) {
  int bd = f->t2b[tdim];
  int64_t S = f->lf.shape[bd];
  if (S == 1) return cg_i32(cg, 0);
  const CgThreadParts *p = cg_thread_parts(cg, f->lf.base);
  int64_t c = const_part(&f->lf, i, bd);
  LLVMValueRef v = p->off[bd];
  if (c) v = LLVMBuildAdd(cg->b, v, cg_i32(cg, c), "");
  if (f->lf.tile[bd] > S) v = LLVMBuildAnd(cg->b, v, cg_i32(cg, S - 1), "");
  return v;
}

LLVMValueRef cg_linear(CgCtx *cg, const CgFrag *f, int i, const int64_t *strides) {
  LLVMValueRef acc = NULL;
  for (int t = 0; t < f->rank; t++) {
    if (f->lf.shape[f->t2b[t]] == 1 || strides[t] == 0) continue;
    LLVMValueRef c = cg_coord(cg, f, i, t);
    if (strides[t] != 1) c = LLVMBuildMul(cg->b, c, cg_i32(cg, strides[t]), "");
    acc = acc ? LLVMBuildAdd(cg->b, acc, c, "") : c;
  }
  return acc ? acc : cg_i32(cg, 0);
}

LLVMValueRef cg_owner(CgCtx *cg, const Type *t) {
  for (int i = 0; i < cg->owners.len; i++)
    if (cg->owners.data[i].type == t) return cg->owners.data[i].pred;
  LLVMValueRef pred = NULL;
  if (!t->rank) {
    pred = LLVMBuildICmp(cg->pro, LLVMIntEQ, cg->tid, cg_i32(cg, 0), "owner");
  } else {
    CgFrag f;
    if (t->layout && cg_frag_of(t->layout, t->rank, t->shape, &f)) {
      const Layout *base = f.lf.base;
      const CgThreadParts *p = cg_thread_parts(cg, base);
      for (int d = 0; d < base->rank; d++) {
        int ul = lay_unique_lanes(&f.lf, d), uw = lay_unique_warps(&f.lf, d);
        LLVMValueRef c[2] = {NULL, NULL};
        if (ul < base->tpw[d])
          c[0] = LLVMBuildICmp(cg->pro, LLVMIntULT, p->lane[d], cg_i32(cg, ul), "");
        if (uw < base->wpc[d])
          c[1] = LLVMBuildICmp(cg->pro, LLVMIntULT, p->warp[d], cg_i32(cg, uw), "");
        for (int k = 0; k < 2; k++)
          if (c[k]) pred = pred ? LLVMBuildAnd(cg->pro, pred, c[k], "") : c[k];
      }
    }
  }
  CgOwnerCache e = {t, pred};
  VEC_PUSH(cg->owners, e);
  return pred;
}

/* ---- the same in C ---------------------------------------------------------- */

static int eval_split(int x, int stride, int n) { return (x / stride) % n; }

int64_t cg_eval_coord(const CgFrag *f, int tid, int i, int tdim) {
  const Layout *base = f->lf.base;
  int bd = f->t2b[tdim];
  int64_t S = f->lf.shape[bd];
  int lane = tid & 31, warp = tid >> 5;
  int ld = eval_split(lane, cg_lane_stride(base, bd), base->tpw[bd]);
  int wd = eval_split(warp, cg_warp_stride(base, bd), base->wpc[bd]);
  int64_t off = ((int64_t)wd * base->tpw[bd] + ld) * base->spt[bd];
  return (off + const_part(&f->lf, i, bd)) % S;
}

bool cg_eval_owner(const CgFrag *f, int tid) {
  const Layout *base = f->lf.base;
  int lane = tid & 31, warp = tid >> 5;
  for (int d = 0; d < base->rank; d++) {
    int ld = eval_split(lane, cg_lane_stride(base, d), base->tpw[d]);
    int wd = eval_split(warp, cg_warp_stride(base, d), base->wpc[d]);
    if (ld >= lay_unique_lanes(&f->lf, d) || wd >= lay_unique_warps(&f->lf, d)) return false;
  }
  return true;
}
