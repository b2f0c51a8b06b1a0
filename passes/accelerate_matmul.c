/* accelerate_matmul.c — how each tl.dot runs: on tensor cores (mma.sync) or
 * as per-thread FMAs, and the layouts that choice fixes.
 *
 * Owns the decision (pass_dot_plan) that assign-layouts uses as its
 * highest-priority anchor, the warp arrangement of the mma accumulator,
 * the shared-memory swizzle of operands staged for ldmatrix, and the
 * per-thread operand layouts of FMA dots.  Owns no rewriting: layouts.c
 * places the conversions.
 *
 * wgmma (version 3, m64nNk{16,8,32}) on sm_90a: fp16/bf16, tf32, fp8 and
 * int8 operands, M a multiple of 64, num_warps a multiple of 4; operands
 * are staged in wgmma's canonical swizzled shared layouts (128/64/32-byte
 * swizzle, the contiguous dim cut into swizzle-row blocks;
 * pass_wgmma_shared_layout), K-major for 8- and 32-bit types.  Chained
 * dots take all warps along M here too, and the second one reads its A
 * from the first one's accumulator registers (layouts.c, cg_wgmma.c).
 *
 * MMA (version 2, m16n8k{8kw}): fp16/bf16 operands (kw 2), fp32 with tf32
 * precision (kw 1), int8 (kw 4), fp8 (kw 4, sm_89+), M a multiple of 16,
 * N of 8, K of 8kw; rank 2, or rank 3 (batched [B, M, K] @ [B, K, N], on
 * every target: warps go to the batch first, up to B of them, the rest
 * split M and N as below for each batch's tile).  The
 * warps: a dot whose result feeds another dot's first operand (attention's
 * p = softmax(q k^T); o += p v), or that consumes one, takes all warps
 * along M ([num_warps, 1]) so the accumulator's fragment *is* the next
 * dot's A fragment (see ir/linear.c) and p never leaves registers;
 * otherwise warps split M while a warp's M tile stays at least as large as
 * its N tile (Triton's warpsPerTile heuristic in spirit), then N.
 *
 * Shared staging (operands of mma dots): the buffer keeps the source's
 * fastest dim contiguous; 16-byte chunks of a row are XOR-swizzled with
 * phase (row / per_phase) % max_phase so that the 8 row addresses of one
 * ldmatrix 8x8 load hit 8 different 16-byte bank groups:
 *   vec = 16 / elem_bytes, per_phase = max(1, 128 / row_bytes),
 *   max_phase = max(1, min(8 / per_phase, row_elems / vec)). */
#include "passes/pass_internal.h"

#include <string.h>

static int kwidth(DType d, DotPrecision p) {
  switch (d) {
  case DT_F16: case DT_BF16: return 2;
  case DT_F32: return p == PREC_TF32 ? 1 : 0;
  case DT_I8: return 4;
  default: return 0;
  }
}

/* Does v reach operand 0 of a dot through elementwise ops, casts or layout
 * conversions? */
static bool feeds_dot_a(const Value *v, const PassUsers *u, int depth) {
  if (depth > 16 || v->id >= u->nvalues) return false;
  for (int k = u->start[v->id]; k < u->start[v->id + 1]; k++) {
    const Op *op = u->op[k];
    if (op->kind == OP_DOT && op->operands[0] == v) return true;
    bool through = op->kind == OP_CAST || op->kind == OP_CONVERT_LAYOUT ||
                   ((ir_op_info[op->kind].traits & TR_ELEMENTWISE) && op->nresults == 1);
    if (through && op->results[0]->type->rank == v->type->rank && feeds_dot_a(op->results[0], u, depth + 1))
      return true;
  }
  return false;
}

/* Does v come from a dot result through the same kinds of ops? */
static bool from_dot(const Value *v, int depth) {
  if (!v || !v->def || depth > 16) return false;
  const Op *d = v->def;
  if (d->kind == OP_DOT) return true;
  bool through = d->kind == OP_CAST || d->kind == OP_CONVERT_LAYOUT ||
                 ((ir_op_info[d->kind].traits & TR_ELEMENTWISE) && d->nresults == 1);
  if (!through) return false;
  for (int i = 0; i < d->noperands; i++)
    if (d->operands[i] && d->operands[i]->type->rank == v->type->rank && from_dot(d->operands[i], depth + 1))
      return true;
  return false;
}

/* wgmma's instruction K for operands of d (0: none). */
static int wgmma_k(DType d, DotPrecision p) {
  switch (d) {
  case DT_F16: case DT_BF16: return 16;
  case DT_F32: return p == PREC_TF32 ? 8 : 0;
  case DT_F8E4M3: case DT_F8E5M2: case DT_I8: return 32;
  default: return 0;
  }
}

/* Does this target run wgmma (sm_90a)? */
static bool has_wgmma(const IrModule *m) {
  size_t n = m->arch ? strlen(m->arch) : 0;
  return m->capability == 90 && n > 0 && m->arch[n - 1] == 'a';
}

/* The wgmma plan (mma version 3): warpgroups of 4 warps along M while M
 * has rows for them, then along N; each warpgroup column takes N / wn
 * contiguous columns in one instruction (8 <= n <= 256). */
static bool plan_wgmma(IrModule *m, const Op *dot, int kw, bool chained, DotPlan *plan) {
  const Type *a = dot->operands[0]->type, *r = dot->results[0]->type;
  int k = wgmma_k(a->dtype, dot->attr.precision), nw = m->num_warps;
  int64_t M = r->shape[0], N = r->shape[1], K = a->shape[1];
  if (!has_wgmma(m) || k == 0 || nw % 4 || M % 64 || K % k) return false;
  if (a->dtype == DT_I8 ? r->dtype != DT_I32 : r->dtype != DT_F32) return false;
  /* the operands' shared rows hold 32 bytes or more (B's may be its N) */
  int eb = dt_bits(a->dtype) / 8;
  if (K * eb < 32 || (eb == 2 && N * eb < 32) || N % 8) return false;
  int wpc[2] = {4, 1};
  if (chained) /* all warps along M: the accumulator is the next dot's A */
    wpc[0] = nw;
  while (wpc[0] * wpc[1] < nw) {
    if (M > 16 * wpc[0]) wpc[0] *= 2;
    else wpc[1] *= 2;
  }
  if (M % (16 * wpc[0]) || N % wpc[1]) return false;
  int64_t n = N / wpc[1];
  if (n < 8 || n > 256 || n % 8 || (a->dtype == DT_I8 && n > 32 && n % 16)) return false;
  int instr[3] = {64, (int)n, k};
  plan->mma = lay_mma(m->ctx, 3, 2, wpc, instr);
  plan->kw = kw;
  return true;
}

bool pass_dot_plan(IrModule *m, const Op *dot, const PassUsers *users, DotPlan *plan) {
  memset(plan, 0, sizeof *plan);
  const Type *a = dot->operands[0]->type, *r = dot->results[0]->type;
  int kw = kwidth(a->dtype, dot->attr.precision);
  if (a->dtype == DT_F8E4M3 || a->dtype == DT_F8E5M2) kw = 4;
  DType bd = dot->operands[1]->type->dtype;
  bool fp8 = (a->dtype == DT_F8E4M3 || a->dtype == DT_F8E5M2) && (bd == DT_F8E4M3 || bd == DT_F8E5M2);
  if (a->dtype != bd && !fp8) kw = 0; /* the two fp8 formats mix */
  if ((r->rank != 2 && r->rank != 3) || kw == 0) return false;
  int o = r->rank - 2; /* a batched dot's [B, M, N]: dims 1, 2 are M, N */
  int64_t B = o ? r->shape[0] : 1, M = r->shape[o], N = r->shape[o + 1], K = a->shape[o + 1];
  if (M < 16 || N < 8 || K < 8 * kw || M % 16 || N % 8 || K % (8 * kw)) return false;
  if (a->dtype == DT_I8 && r->dtype != DT_I32) return false;
  if (dt_is_float(a->dtype) && r->dtype != DT_F32 && !(r->dtype == DT_F16 && a->dtype == DT_F16))
    return false;
  int nw = m->num_warps, wpc[3] = {1, 1, 1}, *w2 = wpc + o;
  bool chained = feeds_dot_a(dot->results[0], users, 0) || from_dot(dot->operands[0], 0);
  /* batched dots run on mma.sync everywhere */
  if (!o && plan_wgmma(m, dot, kw, chained, plan)) return true;
  /* mma.sync takes fp8 from sm_89 on (m16n8k32, the int8 fragments) */
  if ((a->dtype == DT_F8E4M3 || a->dtype == DT_F8E5M2) && (m->capability < 89 || r->dtype != DT_F32))
    return false;
  /* batched: warps along the batch first (independent tiles, no operand
   * shared between them), as many as there are batches */
  while (o && wpc[0] * 2 <= nw && wpc[0] * 2 <= B) wpc[0] *= 2;
  int nw2 = nw / wpc[0];
  if (chained && M >= 16 * nw2) {
    w2[0] = nw2;
  } else {
    while (w2[0] * w2[1] < nw2) {
      bool m_ok = M >= 16 * w2[0] * 2, n_ok = N >= 8 * w2[1] * 2;
      if (m_ok && (M / (16 * w2[0]) >= N / (8 * w2[1]) || !n_ok)) w2[0] *= 2;
      else if (n_ok) w2[1] *= 2;
      else w2[0] *= 2; /* replicate along M rather than fail */
    }
  }
  int instr[3] = {16, 8, 8 * kw};
  plan->mma = lay_mma(m->ctx, 2, r->rank, wpc, instr);
  plan->kw = kw;
  return true;
}

/* The 2-D swizzled layout of an operand tile [rows, cols] whose source
 * layout keeps order (c, r) of those two dims; a batched operand [B, ...]
 * stacks one such tile per batch (lay_shared_ring: the batch is the
 * slowest dim, the swizzle stays within each batch's slice). */
const Layout *pass_dot_shared_layout(IrModule *m, const Type *t) {
  int o = t->rank == 3 ? 1 : 0, order[2] = {1, 0};
  const Layout *l = t->layout;
  if (l && l->kind == LAY_BLOCKED && l->rank == t->rank) {
    /* the faster of the two matrix dims in the source's order */
    for (int k = 0; k < l->rank; k++)
      if (l->order[k] >= o) {
        order[0] = l->order[k] - o, order[1] = 1 - order[0];
        break;
      }
  }
  int eb = ty_elem_bytes(t);
  int64_t inner = t->shape[o + order[0]];
  int vec = 16 / eb;
  if (vec > inner) vec = (int)inner;
  int per_phase = (int)(128 / (inner * eb));
  if (per_phase < 1) per_phase = 1;
  int max_phase = 8 / per_phase;
  if (max_phase > inner / vec) max_phase = (int)(inner / vec);
  if (max_phase < 1) max_phase = 1;
  const Layout *s = lay_shared(m->ctx, 2, vec, per_phase, max_phase, order);
  return o ? lay_shared_ring(m->ctx, s) : s;
}

const Layout *pass_wgmma_shared_layout(IrModule *m, const Type *t, int op_idx) {
  int order[2] = {1, 0};
  const Layout *l = t->layout;
  if (l && l->kind == LAY_BLOCKED && l->rank == 2) order[0] = l->order[0], order[1] = l->order[1];
  int eb = ty_elem_bytes(t);
  if (eb != 2) { /* 8- and 32-bit operands: K-major only */
    order[0] = op_idx == 0 ? 1 : 0;
    order[1] = 1 - order[0];
  }
  int64_t inner = t->shape[order[0]], rows = t->shape[order[1]];
  int64_t block = inner * eb > 128 ? 128 / eb : inner;
  if (block * eb < 32 || (block * eb) & (block * eb - 1) || rows % 8) return NULL;
  int vec = 16 / eb, swz = (int)(block * eb);
  return lay_shared_blocked(m->ctx, 2, vec, 128 / swz, swz / 16, order, (int)block);
}

/* FMA dot operands: each thread holds whole K rows of a for its result rows
 * and whole K columns of b for its result columns. */
const Layout *pass_fma_operand_layout(IrModule *m, const Layout *res, int op_idx, int64_t K) {
  if (!res || res->kind != LAY_BLOCKED) return NULL;
  int r = res->rank;
  int spt[IR_MAX_RANK], tpw[IR_MAX_RANK], wpc[IR_MAX_RANK], order[IR_MAX_RANK];
  for (int d = 0; d < r; d++) spt[d] = res->spt[d], tpw[d] = res->tpw[d], wpc[d] = res->wpc[d], order[d] = res->order[d];
  spt[op_idx == 0 ? r - 1 : r - 2] = (int)K;
  return lay_blocked(m->ctx, r, spt, tpw, wpc, order);
}
