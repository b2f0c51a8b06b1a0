/* cg_dot.c — tl.dot on mma.sync (m16n8k{8kw}, sm_80+), its ldmatrix operand
 * loads, and dots as per-thread FMAs.  wgmma (mma version 3) is cg_wgmma.c;
 * the shared buffers themselves are cg_shared.c.
 *
 * Fragments are the ones ir/linear.c defines; with kw elements per 32-bit
 * register, one m16n8 tile of the mma layouts holds
 *   accumulator  4 elements: (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1)
 *   operand A    4kw elements = 4 registers of kw (PTX a0..a3)
 *   operand B    2kw elements = 2 registers of kw (PTX b0, b1)
 * in register order e | rn << 2 | rm << (2 + log2 RN) for the accumulator,
 * e | rk << log2(4kw) | rm << ... for A and e | rk << log2(2kw) | rn << ...
 * for B, where (rm, rn, rk) number the m16/n8/k(8kw) tiles a warp owns.
 * A batched (rank-3) dot's operands and accumulator hold one such 2-D
 * fragment per batch the thread works on, as consecutive runs of registers
 * (the batch's register bits are the highest): each run is one 2-D dot.
 *
 * ldmatrix: for 16-bit operands each lane gives the address of one 16-byte
 * row of one of the four 8x8 matrices; .trans is used when the buffer's
 * contiguous dim is not the operand's K (A stored M-major, B stored N-major,
 * the usual row-major B).  A local_load right before the mma.sync dot that
 * is its only use is left to that dot (cg_ldmatrix_defer): the dot issues
 * each k step's ldmatrix just before the step's mmas, so the operand's
 * registers are not all live at once (a deferred B runs its n tiles outside
 * the m tiles, loading them in pairs). */
#include "codegen/cg_internal.h"

#include <stdio.h>
#include <string.h>

static int log2i(int64_t x) {
  int n = 0;
  while (x > 1) x >>= 1, n++;
  return n;
}

/* ---- LOCAL_LOAD -------------------------------------------------------------------- */

static LLVMValueRef warp_index(CgCtx *cg, int shift, int n) {
  LLVMValueRef w = cg->warp;
  if (shift) w = cg_build_lshr(cg->b, w, cg_i32(cg, shift), "");
  return cg_build_and(cg->b, w, cg_i32(cg, n - 1), "");
}

static void split_words(CgCtx *cg, DType d, LLVMValueRef word, LLVMValueRef *out) {
  LLVMValueRef w = word;
  cg_unpack_words(cg, d, &w, 2, 32, 1, out);
}

/* ldmatrix.x4 of the 2-D mma operand fragment of one batch (16-bit types)
 * from the buffer (or batch slice) b: the registers out[0 .. 2-D count). */
static bool ldmatrix_tile(CgCtx *cg, const Type *t, const CgBuf *b, const Layout *D, LLVMValueRef *out, int only_rk,
                          int only_ro) {
  const Layout *mma = D->parent;
  int o = t->rank - 2; /* dims o, o+1: the operand's matrix */
  int wm = mma->wpc[o], wn = mma->wpc[o + 1];
  DType d = t->dtype;
  bool a = D->op_idx == 0;
  int64_t K = a ? t->shape[o + 1] : t->shape[o], O = a ? t->shape[o] : t->shape[o + 1];
  int RK = (int)(K / 16), RO = (int)(a ? O / (16 * wm) : O / (8 * wn));
  if (RK < 1 || O < (a ? 16 : 8)) return false;
  if (RO < 1) RO = 1; /* more warps than tiles: the extra warps replicate */
  int kdim = o + (a ? 1 : 0);
  bool trans = b->cdim != kdim;
  LLVMValueRef lane = cg->lane;
  LLVMValueRef mat = cg_build_lshr(cg->b, lane, cg_i32(cg, 3), "");
  LLVMValueRef r8 = cg_build_and(cg->b, lane, cg_i32(cg, 7), "");
  LLVMValueRef mhi = cg_build_and(cg->b, mat, cg_i32(cg, 1), "");           /* matrix bit 0 */
  LLVMValueRef mlo = cg_build_lshr(cg->b, mat, cg_i32(cg, 1), "");          /* matrix bit 1 */
  LLVMValueRef wo = a ? warp_index(cg, 0, wm) : warp_index(cg, log2i(wm), wn);
  LLVMValueRef wbase = cg_build_mul(cg->b, wo, cg_i32(cg, a ? 16 : 8), "");
  wbase = cg_build_and(cg->b, wbase, cg_i32(cg, (int)(O - 1)), ""); /* replicas wrap */
  const char *name = trans ? "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.trans.b16"
                           : "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16";
  int lk = log2i(RK);
  for (int ro = 0; ro < RO; ro += a ? 1 : 2)
    for (int rk = 0; rk < RK; rk++) {
      if ((only_rk >= 0 && rk != only_rk) || (only_ro >= 0 && ro != only_ro)) continue;
      LLVMValueRef orow, kcol;
      if (a) {
        /* matrix i: rows (i & 1) * 8, k (i >> 1) * 8 of the m16k16 tile */
        orow = cg_build_add(cg->b, wbase, cg_i32(cg, (int64_t)ro * 16 * wm), "");
        orow = cg_build_add(cg->b, orow, cg_build_shl(cg->b, mhi, cg_i32(cg, 3), ""), "");
        kcol = cg_build_add(cg->b, cg_i32(cg, (int64_t)rk * 16), cg_build_shl(cg->b, mlo, cg_i32(cg, 3), ""), "");
      } else {
        /* matrix i: k (i & 1) * 8, n tile ro + (i >> 1) */
        int ro2 = ro + 1 < RO ? ro + 1 : ro;
        LLVMValueRef tile = LLVMBuildSelect(cg->b, LLVMBuildICmp(cg->b, LLVMIntNE, mlo, cg_i32(cg, 0), ""),
                                            cg_i32(cg, (int64_t)ro2 * 8 * wn), cg_i32(cg, (int64_t)ro * 8 * wn), "");
        orow = cg_build_add(cg->b, wbase, tile, "");
        kcol = cg_build_add(cg->b, cg_i32(cg, (int64_t)rk * 16), cg_build_shl(cg->b, mhi, cg_i32(cg, 3), ""), "");
      }
      LLVMValueRef row, col;
      if (!trans) { /* memory rows along O (m or n), 8 consecutive k */
        row = cg_build_add(cg->b, orow, r8, "");
        col = kcol;
      } else {      /* memory rows along k, 8 consecutive m or n */
        row = cg_build_add(cg->b, kcol, r8, "");
        col = orow;
      }
      LLVMValueRef ptr = cg_buf_addr(cg, b, row, col);
      LLVMTypeRef pty = LLVMTypeOf(ptr);
      LLVMValueRef res = cg_intrin(cg, name, &pty, 1, &ptr, 1);
      LLVMValueRef w[4];
      for (int i = 0; i < 4; i++) w[i] = LLVMBuildExtractValue(cg->b, res, (unsigned)i, "");
      if (a) {
        int base = (rk << 3) | (ro << (3 + lk));
        for (int i = 0; i < 4; i++) split_words(cg, d, w[i], out + base + 2 * i);
      } else {
        int b0 = (rk << 2) | (ro << (2 + lk));
        split_words(cg, d, w[0], out + b0);
        split_words(cg, d, w[1], out + b0 + 2);
        if (ro + 1 < RO) {
          int b1 = (rk << 2) | ((ro + 1) << (2 + lk));
          split_words(cg, d, w[2], out + b1);
          split_words(cg, d, w[3], out + b1 + 2);
        }
      }
    }
  return true;
}

/* A batched operand's registers are one run per batch the thread holds, in
 * the 2-D order (ir/linear.c): one 2-D load per run, from its batch's
 * slice of the buffer. */
bool cg_ldmatrix_operand(CgCtx *cg, Op *op, const CgBuf *b, const Layout *D, const CgFrag *f, LLVMValueRef *out) {
  const Type *t = op->results[0]->type;
  if (t->rank == 2) return ldmatrix_tile(cg, t, b, D, out, -1, -1);
  int nb = 0; /* the batch register bits, above all the 2-D ones */
  while (nb < f->ll.nreg && f->ll.reg[f->ll.nreg - 1 - nb][0]) nb++;
  int per = f->count >> nb;
  for (int rb = 0; rb < 1 << nb; rb++) {
    CgBuf slice;
    cg_buf_batch(cg, b, cg_coord(cg, f, rb * per, 0), &slice);
    if (!ldmatrix_tile(cg, t, &slice, D, out + rb * per, -1, -1)) return false;
  }
  return true;
}

bool cg_ldmatrix_defer(CgCtx *cg, Op *op) {
  const Op *d = op->next;
  const Value *r = op->results[0];
  if (!d || d->kind != OP_DOT || r->type->rank != 2 || cg->use_counts[r->id] != 1) return false;
  const Layout *l = d->results[0]->type->layout;
  if (!l || l->kind != LAY_MMA || l->version != 2 || (d->operands[0] != r && d->operands[1] != r)) return false;
  for (int k = 0; k < 2; k++)
    if (!cg->lazy_ld[k]) {
      cg->lazy_ld[k] = op;
      return true;
    }
  return false;
}

/* ---- DOT: tensor cores --------------------------------------------------------------- */

/* kw elements of type d packed in a 32-bit register as the mma wants it */
static LLVMValueRef pack_reg(CgCtx *cg, DType d, LLVMValueRef *el, int kw) {
  LLVMBuilderRef B = cg->b;
  if (d == DT_F16) {
    LLVMValueRef v = LLVMGetUndef(LLVMVectorType(cg->t_f16, 2));
    for (int k = 0; k < 2; k++) v = LLVMBuildInsertElement(B, v, el[k], cg_i32(cg, k), "");
    return v;
  }
  if (d == DT_F32) { /* tf32: round to nearest, ties away, as Triton does */
    LLVMValueRef bits = cg_asm(cg, cg->t_i32, "cvt.rna.tf32.f32 $0, $1;", "=r,f", &el[0], 1, false);
    return bits;
  }
  int wbits, nw;
  LLVMValueRef w;
  cg_words_for(d, kw, &wbits, &nw);
  cg_pack_words(cg, d, el, kw, 32, 1, &w);
  return w;
}

/* n operand registers of one mma.sync, each packing kw consecutive
 * elements of x from element base on. */
static void pack_regs(CgCtx *cg, DType d, const CgVal *x, int base, int kw, LLVMValueRef *out, int n) {
  for (int j = 0; j < n; j++) {
    LLVMValueRef el[4];
    for (int k = 0; k < kw; k++) el[k] = cg_el(x, base + j * kw + k);
    out[j] = pack_reg(cg, d, el, kw);
  }
}

/* A batched dot [B, M, K] @ [B, K, N]: each thread holds RB = B / wb
 * batches (at least 1), each a contiguous run of registers in the 2-D
 * fragment's order in all three operands (ir/linear.c); batch run rb is a
 * 2-D dot over registers [rb * count/RB, (rb+1) * count/RB). */
static void lower_mma(CgCtx *cg, Op *op, const CgFrag *fa, const CgFrag *fb, const CgFrag *fc,
                      const Op *const *lazy) {
  const Type *rt = op->results[0]->type, *at = op->operands[0]->type;
  const Layout *mma = rt->layout;
  int o = rt->rank - 2;
  int wm = mma->wpc[o], wn = mma->wpc[o + 1];
  int kw = at->layout->k_width;
  int64_t M = rt->shape[o], N = rt->shape[o + 1], K = at->shape[o + 1];
  int RM = (int)(M / (16 * wm)), RN = (int)(N / (8 * wn)), RK = (int)(K / (8 * kw));
  int RB = o ? (int)(rt->shape[0] / mma->wpc[0]) : 1;
  if (RM < 1) RM = 1; /* more warps than tiles: the extra warps replicate */
  if (RN < 1) RN = 1;
  if (RB < 1) RB = 1;
  if (M < 16 || N < 8 || RK < 1 || fc->count != RB * RM * RN * 4 || fa->count != RB * RM * RK * 4 * kw ||
      fb->count != RB * RN * RK * 2 * kw) {
    cg_error(cg, op, "dot shapes do not tile the mma layout (M=%lld N=%lld K=%lld)", (long long)M,
             (long long)N, (long long)K);
    cg_set_undef(cg, op->results[0]);
    return;
  }
  DType ad = at->dtype, cd = rt->dtype;
  CgVal *A = cg_get(cg, op, op->operands[0]), *Bv = cg_get(cg, op, op->operands[1]);
  CgVal *C = cg_get(cg, op, op->operands[2]);
  LLVMValueRef *acc = ARENA_ARRAY(&cg->arena, LLVMValueRef, fc->count);
  for (int i = 0; i < fc->count; i++) acc[i] = cg_el(C, i);
  const char *name;
  char fp8[160] = "";
  DType bd = op->operands[1]->type->dtype;
  if ((ad == DT_F8E4M3 || ad == DT_F8E5M2) && cd == DT_F32) /* PTX 8.4, sm_89+: no LLVM 19 intrinsic */
    snprintf(fp8, sizeof fp8,
             "mma.sync.aligned.m16n8k32.row.col.f32.%s.%s.f32 "
             "{$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};",
             ad == DT_F8E4M3 ? "e4m3" : "e5m2", bd == DT_F8E4M3 ? "e4m3" : "e5m2");
  if (fp8[0]) name = NULL;
  else if (ad == DT_F16 && cd == DT_F32) name = "llvm.nvvm.mma.m16n8k16.row.col.f32.f32";
  else if (ad == DT_F16 && cd == DT_F16) name = "llvm.nvvm.mma.m16n8k16.row.col.f16.f16";
  else if (ad == DT_BF16) name = "llvm.nvvm.mma.m16n8k16.row.col.bf16";
  else if (ad == DT_F32) name = "llvm.nvvm.mma.m16n8k8.row.col.tf32";
  else if (ad == DT_I8) name = "llvm.nvvm.mma.m16n8k32.row.col.s8";
  else {
    cg_error(cg, op, "no mma instruction for %s operands", dt_name(ad));
    cg_set_undef(cg, op->results[0]);
    return;
  }
  int la = log2i(4 * kw), lb = log2i(2 * kw), lrk = log2i(RK), lrn = log2i(RN);
  int pa = fa->count / RB, pb = fb->count / RB, pc = fc->count / RB; /* registers of one batch */
  /* operands whose ldmatrix was left to this dot (cg_ldmatrix_defer): each
   * k step's part just before that step */
  CgBuf lzb[2];
  bool lz[2] = {false, false};
  for (int k = 0; k < 2; k++) {
    const Op *ld = lazy[k];
    int i = !ld ? -1 : op->operands[0] == ld->results[0] ? 0 : op->operands[1] == ld->results[0] ? 1 : -1;
    if (i < 0) continue;
    if (!cg_buf_batched(cg, (Op *)ld, ld->operands[0], &lzb[i])) {
      cg_error(cg, op, "the shared operand of this dot has no buffer");
      cg_set_undef(cg, op->results[0]);
      return;
    }
    lz[i] = true;
  }
  /* A lazy B (each k step's n tiles loaded in pairs, ldmatrix.x4) runs the
   * n tiles outside the m tiles, so a pair's registers die after its two
   * columns of mmas; otherwise the m tiles are outside (one A packing each) */
  bool b_outer = lz[1] && !lz[0];
  int NO = b_outer ? RN : RM, NI = b_outer ? RM : RN;
  for (int rb = 0; rb < RB; rb++)
    for (int rk = 0; rk < RK; rk++) {
      if (lz[0] && !ldmatrix_tile(cg, op->operands[0]->type, &lzb[0], op->operands[0]->type->layout, A->v, rk, -1))
        goto unreadable;
      if (lz[1] && !b_outer &&
          !ldmatrix_tile(cg, op->operands[1]->type, &lzb[1], op->operands[1]->type->layout, Bv->v, rk, -1))
        goto unreadable;
      for (int io = 0; io < NO; io++)
        for (int ii = 0; ii < NI; ii++) {
          int rm = b_outer ? ii : io, rn = b_outer ? io : ii;
          if (b_outer && rm == 0 && rn % 2 == 0 &&
              !ldmatrix_tile(cg, op->operands[1]->type, &lzb[1], op->operands[1]->type->layout, Bv->v, rk, rn))
            goto unreadable;
          LLVMValueRef areg[4], breg[2];
          pack_regs(cg, ad, A, rb * pa + ((rk << la) | (rm << (la + lrk))), kw, areg, 4);
          pack_regs(cg, ad, Bv, rb * pb + ((rk << lb) | (rn << (lb + lrk))), kw, breg, 2);
          int cbase = rb * pc + (rn << 2 | rm << (2 + lrn));
          LLVMValueRef args[10];
          int n = 0;
          for (int j = 0; j < 4; j++) args[n++] = areg[j];
          for (int j = 0; j < 2; j++) args[n++] = breg[j];
          if (cd == DT_F16) {
            for (int j = 0; j < 2; j++) {
              LLVMValueRef v = LLVMGetUndef(LLVMVectorType(cg->t_f16, 2));
              v = LLVMBuildInsertElement(cg->b, v, acc[cbase + 2 * j], cg_i32(cg, 0), "");
              v = LLVMBuildInsertElement(cg->b, v, acc[cbase + 2 * j + 1], cg_i32(cg, 1), "");
              args[n++] = v;
            }
          } else {
            for (int j = 0; j < 4; j++) args[n++] = acc[cbase + j];
          }
          LLVMValueRef res;
          if (fp8[0]) {
            LLVMTypeRef f4[4] = {cg->t_f32, cg->t_f32, cg->t_f32, cg->t_f32};
            res = cg_asm(cg, LLVMStructTypeInContext(cg->ctx, f4, 4, 0), fp8, "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3",
                         args, n, false);
          } else {
            res = cg_intrin(cg, name, NULL, 0, args, n);
          }
          if (cd == DT_F16) {
            for (int j = 0; j < 2; j++) {
              LLVMValueRef v = LLVMBuildExtractValue(cg->b, res, (unsigned)j, "");
              acc[cbase + 2 * j] = LLVMBuildExtractElement(cg->b, v, cg_i32(cg, 0), "");
              acc[cbase + 2 * j + 1] = LLVMBuildExtractElement(cg->b, v, cg_i32(cg, 1), "");
            }
          } else {
            for (int j = 0; j < 4; j++) acc[cbase + j] = LLVMBuildExtractValue(cg->b, res, (unsigned)j, "");
          }
        }
    }
  cg_set(cg, op->results[0], acc, fc->count);
  return;
unreadable:
  cg_error(cg, op, "ldmatrix cannot read this dot's shared operand");
  cg_set_undef(cg, op->results[0]);
}

/* ---- DOT: per-thread FMAs ---------------------------------------------------------------- */

/* The register of fragment f whose constant coordinates equal c (-1: none). */
static int reg_at(const CgFrag *f, const int64_t *c) {
  for (int j = 0; j < f->count; j++) {
    int64_t x[IR_MAX_RANK];
    cg_reg_coord(f, j, x);
    bool same = true;
    for (int d = 0; d < f->rank; d++) same &= x[d] == c[d];
    if (same) return j;
  }
  return -1;
}

static void lower_fma_dot(CgCtx *cg, Op *op, const CgFrag *fa, const CgFrag *fb, const CgFrag *fc) {
  const Type *rt = op->results[0]->type, *at = op->operands[0]->type, *bt = op->operands[1]->type;
  int r = rt->rank;
  int64_t K = at->shape[r - 1];
  DType cd = rt->dtype;
  CgVal *A = cg_get(cg, op, op->operands[0]), *Bv = cg_get(cg, op, op->operands[1]);
  CgVal *C = cg_get(cg, op, op->operands[2]);
  LLVMValueRef *acc = ARENA_ARRAY(&cg->arena, LLVMValueRef, fc->count);
  bool is_float = dt_is_float(cd);
  LLVMTypeRef ft = cg_type(cg, cd);
  for (int i = 0; i < fc->count; i++) {
    int64_t c[IR_MAX_RANK], ca[IR_MAX_RANK], cb[IR_MAX_RANK];
    cg_reg_coord(fc, i, c);
    LLVMValueRef v = cg_el(C, i);
    for (int64_t k = 0; k < K; k++) {
      memcpy(ca, c, sizeof ca), memcpy(cb, c, sizeof cb);
      ca[r - 1] = k; /* a[..., m, k] */
      cb[r - 2] = k; /* b[..., k, n] */
      if (r == 3) ca[0] = c[0], cb[0] = c[0];
      int ja = reg_at(fa, ca), jb = reg_at(fb, cb);
      if (ja < 0 || jb < 0) {
        cg_error(cg, op, "FMA dot operands do not hold whole K rows / columns");
        cg_set_undef(cg, op->results[0]);
        return;
      }
      LLVMValueRef x = cg_el(A, ja), y = cg_el(Bv, jb);
      if (at->dtype != cd) x = cg_cast_scalar(cg, op, x, at->dtype, cd);
      if (bt->dtype != cd) y = cg_cast_scalar(cg, op, y, bt->dtype, cd);
      if (is_float) {
        LLVMValueRef args[3] = {x, y, v};
        v = cg_intrin(cg, "llvm.fma", &ft, 1, args, 3);
      } else {
        v = cg_build_add(cg->b, v, cg_build_mul(cg->b, x, y, ""), "");
      }
    }
    acc[i] = v;
  }
  cg_set(cg, op->results[0], acc, fc->count);
}

void cg_lower_dot(CgCtx *cg, Op *op) {
  const Type *rt = op->results[0]->type;
  /* the operand reads left to this dot (cg_ldmatrix_defer), taken here so
   * that none outlives it whatever path it lowers by */
  const Op *lazy[2] = {cg->lazy_ld[0], cg->lazy_ld[1]};
  cg->lazy_ld[0] = cg->lazy_ld[1] = NULL;
  if (rt->layout && rt->layout->kind == LAY_MMA && rt->layout->version == 3) {
    cg_lower_wgmma(cg, op);
    return;
  }
  CgFrag fa, fb, fc;
  if (!cg_frag(cg, op, op->operands[0]->type, &fa) || !cg_frag(cg, op, op->operands[1]->type, &fb) ||
      !cg_frag(cg, op, rt, &fc)) {
    cg_set_undef(cg, op->results[0]);
    return;
  }
  /* Every multiply-add of a dot is unrolled into straight-line code: bound
   * it, or a [1024 x 1024] @ [1024 x 1024] block takes LLVM minutes and
   * gigabytes to compile into a kernel that could never run well. */
  const Type *ta = op->operands[0]->type;
  int64_t M = rt->shape[rt->rank - 2], N = rt->shape[rt->rank - 1], K = ta->shape[ta->rank - 1];
  int64_t macs = M * N * K * (rt->rank == 3 ? rt->shape[0] : 1);
  bool mma = rt->layout->kind == LAY_MMA;
  int64_t per = mma ? macs / (16 * 8 * 8) / (cg->nthreads / 32) : macs / cg->nthreads;
  int64_t cap = mma ? 16384 : 65536;
  if (per > cap) {
    cg_user_error(cg, op, "tl.dot of [%lld x %lld] @ [%lld x %lld] with %d warps unrolls into %lld %s "
                  "(at most %lld); use smaller blocks or more warps", (long long)M, (long long)K,
                  (long long)K, (long long)N, cg->nthreads / 32, (long long)per,
                  mma ? "tensor-core steps (16x8x8 each) per warp" : "multiply-adds per thread",
                  (long long)cap);
    cg_set_undef(cg, op->results[0]);
    return;
  }
  if (mma) {
    const Layout *la = op->operands[0]->type->layout, *lb = op->operands[1]->type->layout;
    if (la->kind != LAY_DOT_OPERAND || lb->kind != LAY_DOT_OPERAND || la->parent != rt->layout ||
        lb->parent != rt->layout || la->op_idx != 0 || lb->op_idx != 1 || rt->layout->version != 2) {
      cg_error(cg, op, "mma dot operands must be in the dot-operand layouts of its result");
      cg_set_undef(cg, op->results[0]);
      return;
    }
    lower_mma(cg, op, &fa, &fb, &fc, lazy);
    return;
  }
  lower_fma_dot(cg, op, &fa, &fb, &fc);
}
