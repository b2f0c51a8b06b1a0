/* cg_wgmma.c — tl.dot on Hopper's warpgroup tensor cores (wgmma, mma
 * version 3, sm_90a) and DOT_WAIT.
 *
 * A dot of [M, K] @ [K, N] in layout #mma<{version=3, wpc=[wm, wn],
 * instr=[64, n, k]}> runs as, per warpgroup (4 consecutive warps; wm/4 of
 * them along M, wn along N), for each k step and each 64-row repetition:
 *
 *   wgmma.mma_async.sync.aligned.m64n{n}k{k}.f32.f16.f16
 *       {d0..d(n/2-1)}, descA | {a0..a3}, descB, p, 1, 1, transA, transB;
 *
 * bracketed by wgmma.fence before the first instruction and
 * wgmma.commit_group after the last.  A synchronous dot then waits
 * (wgmma.wait_group 0); an asynchronous one (attr.is_async, set by the
 * pipeliner) leaves the group in flight and a DOT_WAIT completes it.  The
 * accumulators pass through every wait as tied asm operands, so nothing
 * reads them before the wait returns.
 *
 * Warpgroup g covers rows 64 * (g % (wm/4)) + 16 * wm * rm (rm the
 * repetition) and columns n * (g / (wm/4)); its accumulator registers are
 * the fragment of ir/linear.c (version 3): for repetition rm, registers
 * [rm * n/2, (rm + 1) * n/2) in the instruction's own order.
 *
 * Shared operands are described by matrix descriptors (PTX ISA, "matrix
 * descriptor format"): start address >> 4, leading and stride byte offsets
 * >> 4, and the swizzle mode (1: 128 B, 2: 64 B, 3: 32 B) of the buffer's
 * layout, whose rows of `block` elements are one swizzle row.  K-major
 * operands (K contiguous) step along K inside a swizzle row: LBO unused (1),
 * SBO = 8 rows.  MN-major ones (M or N contiguous; 16-bit types only) step
 * along K by rows: LBO = the distance between blocks of the contiguous dim,
 * SBO = 8 rows.  Addresses are taken before the XOR swizzle: the hardware
 * applies it, which is why swizzled buffers start on 1024-byte boundaries
 * (allocate-shared).  Each operand has one descriptor a dot (at its
 * warpgroup's start); an instruction's sub-tile is an immediate added inside
 * its asm (wg_descs).  A zero accumulator is not read: the first k step runs
 * with scale-d 0 (p false: D = A B). */
#include "codegen/cg_internal.h"

#include <stdio.h>
#include <string.h>

static int log2i(int64_t x) {
  int n = 0;
  while (x > 1) x >>= 1, n++;
  return n;
}

typedef struct WgOperand {
  bool regs;            /* A in registers (the dot-operand layout) */
  CgBuf b;
  bool mn_major;        /* contiguous dim is M (A) or N (B): imm-trans 1 */
  LLVMValueRef desc0;   /* i64 descriptor of the buffer's first element */
} WgOperand;

/* Elements of the swizzle row of buffer b. */
static int row_elems(const CgBuf *b) {
  int64_t inner = b->t->shape[b->cdim];
  return b->S->block > 0 && b->S->block < inner ? b->S->block : (int)inner;
}

static LLVMValueRef desc_of(CgCtx *cg, const CgBuf *b, bool mn_major) {
  LLVMBuilderRef B = cg->b;
  int W = row_elems(b), swz = W * b->eb;
  int mode = swz == 128 ? 1 : swz == 64 ? 2 : 3;
  int64_t rows = b->t->shape[b->rdim];
  int64_t lbo = mn_major ? rows * W * b->eb : 16, sbo = 8LL * W * b->eb;
  LLVMValueRef smem = LLVMBuildPtrToInt(B, cg->smem, cg->t_i64, "");
  LLVMValueRef addr = cg_build_add(B, LLVMBuildTrunc(B, smem, cg->t_i32, ""), b->base, "");
  LLVMValueRef lo = cg_build_and(B, cg_build_lshr(B, addr, cg_i32(cg, 4), ""), cg_i32(cg, 0x3FFF), "");
  lo = cg_build_or(B, lo, cg_i32(cg, (lbo >> 4) << 16), "");
  int64_t hi = (sbo >> 4) | ((int64_t)mode << 30);
  return cg_build_or(B, LLVMBuildZExt(B, lo, cg->t_i64, ""), cg_i64(cg, (int64_t)((uint64_t)hi << 32)), "desc");
}

/* Descriptor of the sub-tile starting at (row, col) of the buffer: the
 * element offset before the swizzle, added to the start address field. */
static LLVMValueRef desc_at(CgCtx *cg, const WgOperand *o, LLVMValueRef row, LLVMValueRef col) {
  LLVMBuilderRef B = cg->b;
  const CgBuf *b = &o->b;
  int W = row_elems(b);
  int64_t inner = b->t->shape[b->cdim];
  LLVMValueRef off = cg_build_mul(B, row, cg_i32(cg, W), "");
  if (W < inner) {
    LLVMValueRef blk = cg_build_lshr(B, col, cg_i32(cg, log2i(W)), "");
    off = cg_build_add(B, off, cg_build_mul(B, blk, cg_i32(cg, b->t->shape[b->rdim] * W), ""), "");
    col = cg_build_and(B, col, cg_i32(cg, W - 1), "");
  }
  off = cg_build_add(B, off, col, "");
  off = cg_build_lshr(B, cg_build_mul(B, off, cg_i32(cg, b->eb), ""), cg_i32(cg, 4), "");
  return cg_build_add(B, o->desc0, LLVMBuildZExt(B, off, cg->t_i64, ""), "");
}

/* desc_at's offset for constant (row, col), in the descriptor's 16-byte
 * units. */
static int64_t desc_delta(const WgOperand *o, int64_t row, int64_t col) {
  const CgBuf *b = &o->b;
  int64_t W = row_elems(b), off = row * W;
  if (W < b->t->shape[b->cdim]) off += (col / W) * b->t->shape[b->rdim] * W, col %= W;
  return (off + col) * b->eb / 16;
}

/* A wgmma operand's descriptors for one dot: `base` at the warpgroup's
 * first row or column (row0/col0, the same for every instruction), each
 * instruction's sub-tile `base + imm`, the immediate added inside the
 * instruction's asm.  LLVM then cannot hoist a loop-invariant buffer's
 * KS x RM descriptors out of a loop (2 registers each, live across it:
 * attention's backward reads q and do that way).  The split is exact when
 * the varying start is a multiple of the swizzle row along the contiguous
 * dim (`vstep`, the distance between warpgroups' starts there, 0: none);
 * otherwise each instruction gets its whole descriptor (split = false). */
typedef struct WgDescs {
  bool split;
  LLVMValueRef base;
} WgDescs;

static WgDescs wg_descs(CgCtx *cg, const WgOperand *o, LLVMValueRef row0, LLVMValueRef col0, int64_t vstep) {
  WgDescs d = {.split = vstep % row_elems(&o->b) == 0};
  if (d.split) d.base = desc_at(cg, o, row0, col0);
  return d;
}

/* Descriptor of the sub-tile at (row0 + dr, col0 + dc): base + *imm when
 * split, else whole (and *imm 0). */
static LLVMValueRef wg_desc(CgCtx *cg, const WgOperand *o, const WgDescs *d, LLVMValueRef row0, LLVMValueRef col0,
                            int64_t dr, int64_t dc, int64_t *imm) {
  if (d->split) {
    *imm = desc_delta(o, dr, dc);
    return d->base;
  }
  *imm = 0;
  LLVMBuilderRef B = cg->b;
  return desc_at(cg, o, cg_build_add(B, row0, cg_i32(cg, dr), ""), cg_build_add(B, col0, cg_i32(cg, dc), ""));
}

/* The instruction's shape and types, e.g. "m64n256k16.f32.f16.f16". */
static bool instr_name(DType ad, DType bd, DType cd, int n, int k, char *out, size_t cap) {
  const char *at, *bt;
  switch (ad) {
  case DT_F16: at = "f16"; break;
  case DT_BF16: at = "bf16"; break;
  case DT_F32: at = "tf32"; break;
  case DT_F8E4M3: at = "e4m3"; break;
  case DT_F8E5M2: at = "e5m2"; break;
  case DT_I8: at = "s8"; break;
  default: return false;
  }
  bt = bd == DT_F8E4M3 ? "e4m3" : bd == DT_F8E5M2 ? "e5m2" : at;
  if ((ad == DT_F8E4M3 || ad == DT_F8E5M2) != (bd == DT_F8E4M3 || bd == DT_F8E5M2)) return false;
  if (!(ad == DT_F8E4M3 || ad == DT_F8E5M2) && ad != bd) return false;
  snprintf(out, cap, "m64n%dk%d.%s.%s.%s", n, k, cd == DT_I32 ? "s32" : "f32", at, bt);
  return true;
}

/* The accumulators as a wgmma asm's first operands: outputs ("=f", or
 * "=r" for an integer accumulator) tied to inputs args[0..nacc), undefined
 * when `fresh` (not read); their types into rts. */
static void acc_operands(CgCtx *cg, StrBuf *cons, LLVMValueRef *args, LLVMTypeRef *rts, const LLVMValueRef *acc,
                         int nacc, bool int_acc, bool fresh) {
  for (int i = 0; i < nacc; i++) {
    sb_printf(cons, i ? ",=%s" : "=%s", int_acc ? "r" : "f");
    rts[i] = int_acc ? cg->t_i32 : cg->t_f32;
    args[i] = fresh ? LLVMGetUndef(rts[i]) : acc[i];
  }
  for (int i = 0; i < nacc; i++) sb_printf(cons, ",%d", i);
}

/* Call the asm, its result the accumulators' struct, and read them back. */
static void acc_call(CgCtx *cg, const char *text, const char *cons, LLVMValueRef *args, int nargs,
                     LLVMTypeRef *rts, LLVMValueRef *acc, int nacc) {
  LLVMTypeRef st = LLVMStructTypeInContext(cg->ctx, rts, (unsigned)nacc, 0);
  LLVMValueRef r = cg_asm(cg, st, text, cons, args, nargs, true);
  for (int i = 0; i < nacc; i++) acc[i] = LLVMBuildExtractValue(cg->b, r, (unsigned)i, "");
}

/* One wgmma with A in registers (aregs, 4 words), behind a wgmma.fence of
 * its own in the same asm (the A words and the accumulators are its
 * operands, so they are written before the fence): acc[0..nacc) in and out;
 * with `fresh` the accumulator is not read (scale-d 0: D = A B), its inputs
 * left undefined. */
static void emit_one(CgCtx *cg, const char *name, bool int_acc, bool fresh, bool f16_like, LLVMValueRef *acc, int nacc,
                     LLVMValueRef *aregs, LLVMValueRef bdesc, int64_t bimm, bool trans_b) {
  StrBuf text, cons;
  sb_init(&text), sb_init(&cons);
  int nin = nacc + 4 + 2;
  LLVMValueRef *args = ARENA_ARRAY(&cg->arena, LLVMValueRef, nin);
  LLVMTypeRef *rts = ARENA_ARRAY(&cg->arena, LLVMTypeRef, nacc);
  int ai = nacc * 2, bi = ai + 4, pi = bi + 1;
  sb_printf(&text, "{\n.reg .pred p;\n.reg .b64 db;\nwgmma.fence.sync.aligned;\nsetp.ne.b32 p, $%d, 0;\n", pi);
  /* the sub-tile offset (wg_desc's immediate) */
  sb_printf(&text, "add.s64 db, $%d, %lld;\nwgmma.mma_async.sync.aligned.%s {", bi, (long long)bimm, name);
  for (int i = 0; i < nacc; i++) sb_printf(&text, i ? ", $%d" : "$%d", i);
  sb_puts(&text, "}, ");
  acc_operands(cg, &cons, args, rts, acc, nacc, int_acc, fresh);
  int n = nacc;
  sb_printf(&text, "{$%d, $%d, $%d, $%d}, ", ai, ai + 1, ai + 2, ai + 3);
  for (int i = 0; i < 4; i++) args[n++] = aregs[i], sb_puts(&cons, ",r");
  sb_puts(&text, "db, p");
  args[n++] = bdesc, sb_puts(&cons, ",l");
  args[n++] = cg_i32(cg, fresh ? 0 : 1), sb_puts(&cons, ",r");
  if (!int_acc) sb_puts(&text, ", 1, 1");
  if (f16_like) sb_printf(&text, ", %d", trans_b ? 1 : 0);
  sb_puts(&text, ";\n}");
  acc_call(cg, text.data, cons.data, args, n, rts, acc, nacc);
  sb_free(&text), sb_free(&cons);
}

/* Index of v in vals[0..*n), appended when absent. */
static int input_index(LLVMValueRef *vals, int *n, LLVMValueRef v) {
  for (int i = 0; i < *n; i++)
    if (vals[i] == v) return i;
  vals[*n] = v;
  return (*n)++;
}

/* A whole dot of shared operands in one asm: the fence, every wgmma (k
 * steps outer, 64-row repetitions inner), the commit and,
 * for a synchronous dot, the wait.  The PTX is the instructions the
 * separate asm statements made; LLVM sees one call whose accumulators are
 * tied through it instead of one call (and its extractvalues) per
 * instruction, a fraction of the IR for the optimizer and the instruction
 * selector to walk.  descs[2 * (kk * RM + rm) + {0, 1}] and imms[...] are
 * the A and B descriptors and immediates of each instruction. */
static void emit_dot(CgCtx *cg, const char *name, bool int_acc, bool zero_acc, bool f16_like, bool sync,
                     LLVMValueRef *acc, int nacc, int per, int RM, int KS, const WgOperand *a, bool trans_b,
                     LLVMValueRef *descs, const int64_t *imms) {
  StrBuf text, cons;
  sb_init(&text), sb_init(&cons);
  int ninstr = RM * KS;
  LLVMValueRef *ins = ARENA_ARRAY(&cg->arena, LLVMValueRef, 2 * ninstr + 2);
  int nins = 0;
  int *slot = ARENA_ARRAY(&cg->arena, int, 2 * ninstr);
  for (int i = 0; i < 2 * ninstr; i++) slot[i] = input_index(ins, &nins, descs[i]);
  int first = nins; /* $: scale-d of the first k step, then 1 for the others */
  ins[nins++] = cg_i32(cg, zero_acc ? 0 : 1);
  ins[nins++] = cg_i32(cg, 1);
  int nargs = nacc + nins, in0 = 2 * nacc;
  LLVMValueRef *args = ARENA_ARRAY(&cg->arena, LLVMValueRef, nargs);
  LLVMTypeRef *rts = ARENA_ARRAY(&cg->arena, LLVMTypeRef, nacc);
  acc_operands(cg, &cons, args, rts, acc, nacc, int_acc, zero_acc);
  for (int i = 0; i < nins; i++) {
    args[nacc + i] = ins[i];
    sb_puts(&cons, LLVMTypeOf(ins[i]) == cg->t_i64 ? ",l" : ",r");
  }
  sb_printf(&text, "{\n.reg .pred p, q;\n.reg .b64 da, db;\nwgmma.fence.sync.aligned;\n"
                   "setp.ne.b32 p, $%d, 0;\nsetp.ne.b32 q, $%d, 0;\n", in0 + first, in0 + first + 1);
  for (int kk = 0; kk < KS; kk++)
    for (int rm = 0; rm < RM; rm++) {
      int i = kk * RM + rm;
      sb_printf(&text, "add.s64 da, $%d, %lld;\nadd.s64 db, $%d, %lld;\nwgmma.mma_async.sync.aligned.%s {",
                in0 + slot[2 * i], (long long)imms[2 * i], in0 + slot[2 * i + 1], (long long)imms[2 * i + 1], name);
      for (int j = 0; j < per; j++) sb_printf(&text, j ? ", $%d" : "$%d", rm * per + j);
      sb_printf(&text, "}, da, db, %s", kk == 0 ? "p" : "q");
      if (!int_acc) sb_puts(&text, ", 1, 1");
      if (f16_like) sb_printf(&text, ", %d, %d", a->mn_major ? 1 : 0, trans_b ? 1 : 0);
      sb_puts(&text, ";\n");
    }
  sb_puts(&text, "wgmma.commit_group.sync.aligned;\n");
  if (sync) sb_puts(&text, "wgmma.wait_group.sync.aligned 0;\n");
  sb_puts(&text, "}");
  acc_call(cg, text.data, cons.data, args, nargs, rts, acc, nacc);
  sb_free(&text), sb_free(&cons);
}

/* The asm `text` with vals[0..n) tied through it: what reads them after it
 * reads its outputs, so nothing computing them moves past it. */
static void tied_asm(CgCtx *cg, const char *text, LLVMValueRef *vals, int n) {
  if (n == 0) {
    cg_asm(cg, cg->t_void, text, "", NULL, 0, true);
    return;
  }
  StrBuf cons;
  sb_init(&cons);
  LLVMTypeRef *rts = ARENA_ARRAY(&cg->arena, LLVMTypeRef, n);
  for (int i = 0; i < n; i++) {
    rts[i] = LLVMTypeOf(vals[i]);
    LLVMTypeKind k = LLVMGetTypeKind(rts[i]);
    const char *c = k == LLVMFloatTypeKind ? "f" : k == LLVMHalfTypeKind || k == LLVMBFloatTypeKind ? "h"
                    : k == LLVMDoubleTypeKind ? "d" : LLVMGetIntTypeWidth(rts[i]) == 64 ? "l" : "r";
    sb_printf(&cons, i ? ",=%s" : "=%s", c);
  }
  for (int i = 0; i < n; i++) sb_printf(&cons, ",%d", i);
  LLVMTypeRef st = LLVMStructTypeInContext(cg->ctx, rts, (unsigned)n, 0);
  LLVMValueRef r = cg_asm(cg, st, text, cons.data, vals, n, true);
  for (int i = 0; i < n; i++) vals[i] = LLVMBuildExtractValue(cg->b, r, (unsigned)i, "");
  sb_free(&cons);
}

/* `wgmma.wait_group.sync.aligned num;` with vals[0..n) tied through. */
static void wait_group(CgCtx *cg, int num, LLVMValueRef *vals, int n) {
  char text[64];
  snprintf(text, sizeof text, "wgmma.wait_group.sync.aligned %d;", num);
  tied_asm(cg, text, vals, n);
}

static bool wg_operand(CgCtx *cg, Op *op, int i, WgOperand *o) {
  const Value *v = op->operands[i];
  memset(o, 0, sizeof *o);
  if (v->type->layout && v->type->layout->kind == LAY_DOT_OPERAND) {
    o->regs = true;
    return i == 0;
  }
  if (!cg_buf(cg, op, v, &o->b) || o->b.rdim < 0) return false;
  int kdim = i == 0 ? 1 : 0;
  o->mn_major = o->b.cdim != kdim;
  o->desc0 = desc_of(cg, &o->b, o->mn_major);
  return true;
}

/* The 4 A registers of k step kk and repetition rm (ir/linear.c's operand
 * order: e | rk << log2(4kw) | rm << (log2(4kw) + log2 RK)). */
static void a_regs(CgCtx *cg, const CgVal *A, DType d, int kw, int kk, int rm, int RK, LLVMValueRef *out) {
  int la = log2i(4 * kw), base = (kk << la) | (rm << (la + log2i(RK)));
  for (int j = 0; j < 4; j++) {
    LLVMValueRef el[4];
    for (int k = 0; k < kw; k++) el[k] = cg_el(A, base + j * kw + k);
    if (kw == 1) {
      out[j] = LLVMBuildBitCast(cg->b, el[0], cg->t_i32, "");
      continue;
    }
    cg_pack_words(cg, d, el, kw, 32, 1, &out[j]);
  }
}

void cg_lower_wgmma(CgCtx *cg, Op *op) {
  const Type *rt = op->results[0]->type, *at = op->operands[0]->type, *bt = op->operands[1]->type;
  const Layout *mma = rt->layout;
  int wm = mma->wpc[0], wn = mma->wpc[1], n = mma->instr[1], kin = mma->instr[2];
  int64_t M = rt->shape[0], N = rt->shape[1], K = at->shape[1];
  int RM = (int)(M / (16 * wm)), KS = (int)(K / kin);
  CgFrag fc;
  WgOperand a, b;
  char name[64];
  if (!cg_frag(cg, op, rt, &fc) || RM < 1 || KS < 1 || N != (int64_t)n * wn || fc.count != RM * n / 2 ||
      !wg_operand(cg, op, 0, &a) || !wg_operand(cg, op, 1, &b) || b.regs ||
      !instr_name(at->dtype, bt->dtype, rt->dtype, n, kin, name, sizeof name)) {
    cg_error(cg, op, "dot does not fit wgmma (M=%lld N=%lld K=%lld, instr m64n%dk%d)", (long long)M,
             (long long)N, (long long)K, n, kin);
    cg_set_undef(cg, op->results[0]);
    return;
  }
  bool f16_like = at->dtype == DT_F16 || at->dtype == DT_BF16;
  if (!f16_like && ((!a.regs && a.mn_major) || b.mn_major)) {
    cg_error(cg, op, "wgmma reads %s operands K-major only", dt_name(at->dtype));
    cg_set_undef(cg, op->results[0]);
    return;
  }
  LLVMBuilderRef B = cg->b;
  /* this warpgroup's first row and column */
  LLVMValueRef wg = cg_build_lshr(B, cg->warp, cg_i32(cg, 2), "wg");
  LLVMValueRef mg = cg_build_and(B, wg, cg_i32(cg, wm / 4 - 1), "");
  LLVMValueRef ng = cg_build_lshr(B, wg, cg_i32(cg, log2i(wm / 4)), "");
  LLVMValueRef m0 = cg_build_mul(B, mg, cg_i32(cg, 64), "");
  LLVMValueRef n0 = cg_build_mul(B, ng, cg_i32(cg, n), "");
  if (wn == 1) n0 = cg_i32(cg, 0);
  CgVal *C = cg_get(cg, op, op->operands[2]);
  CgVal *Av = a.regs ? cg_get(cg, op, op->operands[0]) : NULL;
  LLVMValueRef *acc = ARENA_ARRAY(&cg->arena, LLVMValueRef, fc.count);
  bool int_acc = rt->dtype == DT_I32;
  /* a zero accumulator (`tl.dot(a, b)`) is never read: the first k step
   * runs with scale-d 0 */
  bool zero_acc = ir_is_zero_const(op->operands[2]);
  for (int i = 0; i < fc.count; i++) acc[i] = cg_el(C, i);
  int per = n / 2, kw = a.regs ? at->layout->k_width : 0;
  /* The fence orders the last writes of the accumulators and of register
   * A before the wgmmas read them: what is written between a fence and the
   * wgmma reading it makes ptxas add a warpgroup.arrive of its own (info
   * C7519), and one of those in a conditional block serializes every wgmma
   * of the kernel (C7520).  So the fence sits in the asm that reads them:
   * the whole dot's (emit_dot) when A is in shared memory, each
   * instruction's (emit_one) when A is in registers, its A words packed
   * just before it: attention's p @ v then starts on its first 16 columns
   * of p while the softmax still computes the next ones.  The whole
   * register-A dot in one asm (all A words packed before one fence)
   * compiles the attention kernels 4-10 % faster but runs the forward 3-13 %
   * slower on the H200 (bench/results/2026-11-30-h200-session25.md §3;
   * earlier it cost the 4-warp D64 attention 11 registers). */
  LLVMValueRef aregs[4];
  /* descriptors: per operand a base at the warpgroup's start, the steps as
   * immediates (wg_descs); the varying start moves along the contiguous dim
   * in steps of 64 rows (A, M-major) or n columns (B, N-major) */
  LLVMValueRef zero = cg_i32(cg, 0);
  WgDescs ad = {0}, bd;
  if (!a.regs) ad = a.mn_major ? wg_descs(cg, &a, zero, m0, wm > 4 ? 64 : 0) : wg_descs(cg, &a, m0, zero, 0);
  bd = b.mn_major ? wg_descs(cg, &b, zero, n0, wn > 1 ? n : 0) : wg_descs(cg, &b, n0, zero, 0);
  if (!a.regs) {
    /* shared A: the whole dot in one asm (emit_dot) */
    LLVMValueRef *descs = ARENA_ARRAY(&cg->arena, LLVMValueRef, 2 * KS * RM);
    int64_t *imms = ARENA_ARRAY(&cg->arena, int64_t, 2 * KS * RM);
    for (int kk = 0; kk < KS; kk++)
      for (int rm = 0; rm < RM; rm++) {
        int i = kk * RM + rm;
        int64_t dm = (int64_t)rm * 16 * wm, dk = (int64_t)kk * kin;
        descs[2 * i] = a.mn_major ? wg_desc(cg, &a, &ad, zero, m0, dk, dm, &imms[2 * i])
                                  : wg_desc(cg, &a, &ad, m0, zero, dm, dk, &imms[2 * i]);
        descs[2 * i + 1] = b.mn_major ? wg_desc(cg, &b, &bd, zero, n0, dk, 0, &imms[2 * i + 1])
                                      : wg_desc(cg, &b, &bd, n0, zero, 0, dk, &imms[2 * i + 1]);
      }
    emit_dot(cg, name, int_acc, zero_acc, f16_like, !op->attr.is_async, acc, fc.count, per, RM, KS, &a,
             b.mn_major, descs, imms);
    cg_set(cg, op->results[0], acc, fc.count);
    return;
  }
  /* register A: one asm per instruction, each with a fence of its own */
  for (int kk = 0; kk < KS; kk++)
    for (int rm = 0; rm < RM; rm++) {
      int64_t dk = (int64_t)kk * kin, bimm;
      a_regs(cg, Av, at->dtype, kw, kk, rm, KS, aregs);
      LLVMValueRef bdesc = b.mn_major ? wg_desc(cg, &b, &bd, zero, n0, dk, 0, &bimm)
                                      : wg_desc(cg, &b, &bd, n0, zero, 0, dk, &bimm);
      emit_one(cg, name, int_acc, zero_acc && kk == 0, f16_like, acc + rm * per, per, aregs, bdesc, bimm,
               b.mn_major);
    }
  cg_asm(cg, cg->t_void, "wgmma.commit_group.sync.aligned;", "", NULL, 0, true);
  if (!op->attr.is_async) wait_group(cg, 0, acc, fc.count);
  cg_set(cg, op->results[0], acc, fc.count);
}

void cg_lower_dot_wait(CgCtx *cg, Op *op) {
  int total = 0;
  for (int i = 0; i < op->noperands; i++) total += cg_get(cg, op, op->operands[i])->n;
  LLVMValueRef *vals = ARENA_ARRAY(&cg->arena, LLVMValueRef, total ? total : 1);
  int k = 0;
  for (int i = 0; i < op->noperands; i++) {
    CgVal *v = cg_get(cg, op, op->operands[i]);
    for (int j = 0; j < v->n; j++) vals[k++] = v->v[j];
  }
  wait_group(cg, op->attr.num, vals, total);
  k = 0;
  for (int i = 0; i < op->noperands; i++) {
    int n = cg_get(cg, op, op->operands[i])->n;
    cg_set(cg, op->results[i], vals + k, n);
    k += n;
  }
}
