/* linear.c — every distributed layout as a linear map over GF(2).
 *
 * For power-of-two shapes, each layout this compiler uses (blocked, slices
 * of them, mma accumulators, dot operands) assigns the element held in
 * register r of lane l of warp w the coordinate
 *
 *     coord(r, l, w) = XOR of reg[i] for each set bit i of r
 *                    ^ XOR of lane[i] for each set bit i of l
 *                    ^ XOR of warp[i] for each set bit i of w
 *
 * (per dimension; each basis vector here has at most one nonzero component,
 * a power of two, and a zero vector means "replicated along this bit").
 * Register order is the fragment order codegen keeps per-thread values in,
 * so for blocked layouts it matches LayoutFrag exactly (checked by the unit
 * test).  The mma.sync layouts are defined here, and only here:
 *
 *   MMA (version 2, instr m16 x n8), shape [M, N], warps wpc = [wm, wn]:
 *     reg bits:  n+1, m+8, then n repetitions (n + 8*wn*2^i), then m
 *                repetitions (m + 16*wm*2^i)   -> index (rm*RN + rn)*4 + e
 *     lane bits: n+2, n+4, m+1, m+2, m+4        (lane = 4*g + t)
 *     warp bits: m+16*2^i for the wm warps, then n+8*2^i for the wn warps
 *
 *   DOT_OPERAND A (op 0) of it, shape [M, K], kw = k_width (elements per
 *   32-bit register: 2 for 16-bit types, 1 for tf32, 4 for 8-bit):
 *     reg bits:  k+1 .. k+kw/2 (log2 kw bits), m+8, k+4kw, then k
 *                repetitions (k + 8kw*2^i), then m repetitions (m+16*wm*2^i)
 *     lane bits: k+kw, k+2kw, m+1, m+2, m+4
 *     warp bits: m+16*2^i for the wm warps; the wn warps replicate (zero)
 *   DOT_OPERAND B (op 1), shape [K, N]:
 *     reg bits:  k+1 .. (log2 kw bits), k+4kw, then k repetitions
 *                (k + 8kw*2^i), then n repetitions (n + 8*wn*2^i)
 *     lane bits: k+kw, k+2kw, n+1, n+2, n+4
 *     warp bits: the wm warps replicate (zero), then n+8*2^i for wn
 *
 *   Batched (rank 3, version 2 only): shape [B, M, N] (operands [B, M, K],
 *   [B, K, N]), warps wpc = [wb, wm, wn]; each batch is an independent 2-D
 *   tile.  Dims 1 and 2 take exactly the 2-D bits above, then
 *     reg bits:  batch repetitions b + wb*2^i, above every 2-D bit, so the
 *                registers of one batch are one contiguous run in the 2-D
 *                fragment's order (run j holds batch wb*j + the warp's)
 *     warp bits: after the 2-D warp bits (the most significant): b + 2^i for
 *                the wb warps, in the accumulator and in both operands
 *   so warp w works on batch w / (wm*wn) (mod wb) with the 2-D warp index
 *   w % (wm*wn).  Batches beyond B (wb > B) replicate.
 *
 *   MMA version 3 (wgmma m64 x n_instr, instr = [64, n_instr, k]): warps
 *   are in warpgroups of 4 along M (wm % 4 == 0) and a warpgroup column
 *   holds n_instr contiguous columns (N = n_instr * wn):
 *     reg bits:  n+1, m+8, n + 8*2^i (the n_instr/8 tiles of one wgmma),
 *                then m repetitions (m + 16*wm*2^i)
 *     lane bits: as version 2
 *     warp bits: m + 16*2^i for the wm warps, then n + n_instr*2^i for wn
 *   With wn = 1 this is version 2's layout.  Its operand A in registers is
 *   version 2's operand A (the m16k16 tile of a warp is mma.sync's); B has
 *   no register form.
 *
 * These are the register orders of PTX's mma.m16n8k{8kw} and wgmma
 * fragments. */
#include "ir/ir_internal.h"

#include <string.h>

static int log2i(int64_t x) {
  int n = 0;
  while (x > 1) x >>= 1, n++;
  return n;
}

static void put(int64_t *v, int rank, int d, int64_t val, const int64_t *shape) {
  for (int i = 0; i < rank; i++) v[i] = 0;
  if (d >= 0 && val < shape[d]) v[d] = val; /* beyond the shape: replicated */
}

static bool from_blocked(const Layout *l, int rank, const int64_t *shape, LinearLayout *ll) {
  LayoutFrag f;
  if (!lay_frag(l, rank, shape, &f)) return false;
  ll->nreg = ll->nlane = ll->nwarp = 0;
  /* registers: dims in `order`, each dim's bits low (j) then high (r) */
  for (int k = 0; k < rank; k++) {
    int d = l->order[k];
    int jb = log2i(f.sptu[d]), rb = log2i(f.extent[d] / f.sptu[d]);
    for (int b = 0; b < jb; b++) put(ll->reg[ll->nreg++], rank, d, (int64_t)1 << b, shape);
    for (int b = 0; b < rb; b++) put(ll->reg[ll->nreg++], rank, d, (int64_t)f.tile[d] << b, shape);
  }
  for (int k = 0; k < rank; k++) {
    int d = l->order[k];
    for (int b = 0; b < log2i(l->tpw[d]); b++)
      put(ll->lane[ll->nlane++], rank, d, (int64_t)l->spt[d] << b, shape);
  }
  for (int k = 0; k < rank; k++) {
    int d = l->order[k];
    for (int b = 0; b < log2i(l->wpc[d]); b++)
      put(ll->warp[ll->nwarp++], rank, d, (int64_t)l->spt[d] * l->tpw[d] << b, shape);
  }
  return true;
}

/* The batch part of a rank-3 (batched) mma.sync layout: register bits for
 * the batches a thread repeats over, above every 2-D bit, and warp bits
 * above the 2-D warp bits.  wb warps along the batch. */
static void batch_bits(LinearLayout *ll, int rank, const int64_t *shape, int wb) {
  if (rank != 3) return;
  int64_t rb = shape[0] / wb;
  for (int b = 0; b < log2i(rb); b++) put(ll->reg[ll->nreg++], 3, 0, (int64_t)wb << b, shape);
  for (int b = 0; b < log2i(wb); b++) put(ll->warp[ll->nwarp++], 3, 0, (int64_t)1 << b, shape);
}

/* An mma layout this file can map: version 2 of rank 2 or 3, version 3 of
 * rank 2, warp counts powers of two. */
static bool mma_ok(const Layout *l, int rank) {
  if (l->kind != LAY_MMA || l->rank != rank || (l->version != 2 && l->version != 3)) return false;
  if (rank != 2 && !(rank == 3 && l->version == 2)) return false;
  for (int d = 0; d < rank; d++)
    if (l->wpc[d] < 1 || (l->wpc[d] & (l->wpc[d] - 1))) return false;
  return true;
}

static bool from_mma(const Layout *l, int rank, const int64_t *shape, LinearLayout *ll) {
  if (!mma_ok(l, rank)) return false;
  int o = rank - 2; /* dims o, o+1 are M, N; dim 0 of rank 3 is the batch */
  int wm = l->wpc[o], wn = l->wpc[o + 1];
  int64_t M = shape[o], N = shape[o + 1];
  /* n8 tiles of a warp and their stride; the stride of the wn warps */
  int64_t rn = N / (8 * wn), rn_stride = 8 * wn, wn_stride = 8;
  if (l->version == 3) { /* a warpgroup column holds n_instr contiguous columns */
    if (wm % 4 || l->instr[1] < 8) return false;
    rn = l->instr[1] / 8, rn_stride = 8, wn_stride = l->instr[1];
  }
  int64_t rm = M / (16 * wm);
  if (rm < 1) rm = 1;
  if (rn < 1) rn = 1;
  int dm = o, dn = o + 1;
  ll->nreg = ll->nlane = ll->nwarp = 0;
  put(ll->reg[ll->nreg++], rank, dn, 1, shape);
  put(ll->reg[ll->nreg++], rank, dm, 8, shape);
  for (int b = 0; b < log2i(rn); b++) put(ll->reg[ll->nreg++], rank, dn, rn_stride << b, shape);
  for (int b = 0; b < log2i(rm); b++) put(ll->reg[ll->nreg++], rank, dm, (int64_t)16 * wm << b, shape);
  put(ll->lane[ll->nlane++], rank, dn, 2, shape);
  put(ll->lane[ll->nlane++], rank, dn, 4, shape);
  put(ll->lane[ll->nlane++], rank, dm, 1, shape);
  put(ll->lane[ll->nlane++], rank, dm, 2, shape);
  put(ll->lane[ll->nlane++], rank, dm, 4, shape);
  for (int b = 0; b < log2i(wm); b++) put(ll->warp[ll->nwarp++], rank, dm, (int64_t)16 << b, shape);
  for (int b = 0; b < log2i(wn); b++) put(ll->warp[ll->nwarp++], rank, dn, wn_stride << b, shape);
  batch_bits(ll, rank, shape, rank == 3 ? l->wpc[0] : 1);
  return true;
}

static bool from_dot_operand(const Layout *l, int rank, const int64_t *shape, LinearLayout *ll) {
  const Layout *p = l->parent;
  if (!p || !mma_ok(p, rank)) return false;
  if (p->version == 3 && l->op_idx != 0) return false; /* wgmma reads B from shared memory only */
  int o = rank - 2;
  int kw = l->k_width, wm = p->wpc[o], wn = p->wpc[o + 1];
  if (kw != 1 && kw != 2 && kw != 4) return false;
  bool a = l->op_idx == 0;
  int kd = o + (a ? 1 : 0), od = o + (a ? 0 : 1); /* k dim, other (m or n) dim */
  int64_t K = shape[kd], O = shape[od];
  int64_t rk = K / (8 * kw), ro = a ? O / (16 * wm) : O / (8 * wn);
  if (rk < 1) rk = 1;
  if (ro < 1) ro = 1;
  ll->nreg = ll->nlane = ll->nwarp = 0;
  for (int b = 0; b < log2i(kw); b++) put(ll->reg[ll->nreg++], rank, kd, (int64_t)1 << b, shape);
  if (a) put(ll->reg[ll->nreg++], rank, od, 8, shape);
  put(ll->reg[ll->nreg++], rank, kd, 4 * kw, shape);
  for (int b = 0; b < log2i(rk); b++) put(ll->reg[ll->nreg++], rank, kd, (int64_t)8 * kw << b, shape);
  for (int b = 0; b < log2i(ro); b++)
    put(ll->reg[ll->nreg++], rank, od, (a ? (int64_t)16 * wm : (int64_t)8 * wn) << b, shape);
  put(ll->lane[ll->nlane++], rank, kd, kw, shape);
  put(ll->lane[ll->nlane++], rank, kd, 2 * kw, shape);
  put(ll->lane[ll->nlane++], rank, od, 1, shape);
  put(ll->lane[ll->nlane++], rank, od, 2, shape);
  put(ll->lane[ll->nlane++], rank, od, 4, shape);
  for (int b = 0; b < log2i(wm); b++)
    put(ll->warp[ll->nwarp++], rank, a ? od : -1, (int64_t)16 << b, shape);
  for (int b = 0; b < log2i(wn); b++)
    put(ll->warp[ll->nwarp++], rank, a ? -1 : od, (int64_t)8 << b, shape);
  batch_bits(ll, rank, shape, rank == 3 ? p->wpc[0] : 1);
  return true;
}

static bool ll_build(const Layout *l, int rank, const int64_t *shape, LinearLayout *ll);

/* A fragment holds distinct elements only: register bits whose basis fell
 * outside the shape (zero vectors) are dropped. */
bool ll_from_layout(const Layout *l, int rank, const int64_t *shape, LinearLayout *ll) {
  if (!ll_build(l, rank, shape, ll)) return false;
  int n = 0;
  for (int i = 0; i < ll->nreg; i++) {
    bool zero = true;
    for (int d = 0; d < rank; d++) zero &= ll->reg[i][d] == 0;
    if (!zero) memmove(ll->reg[n++], ll->reg[i], sizeof ll->reg[i]);
  }
  ll->nreg = n;
  return true;
}

static bool ll_build(const Layout *l, int rank, const int64_t *shape, LinearLayout *ll) {
  memset(ll, 0, sizeof *ll);
  /* The basis arrays hold 2^24 elements at most (tiles are capped at 2^20). */
  int bits = 0;
  for (int i = 0; i < rank; i++) {
    if (shape[i] <= 0 || shape[i] > ((int64_t)1 << 24)) return false;
    bits += log2i(shape[i]);
  }
  if (bits > 24) return false;
  ll->rank = rank;
  for (int i = 0; i < rank; i++) ll->shape[i] = shape[i];
  switch (l->kind) {
  case LAY_BLOCKED: return from_blocked(l, rank, shape, ll);
  case LAY_MMA: return from_mma(l, rank, shape, ll);
  case LAY_DOT_OPERAND: return from_dot_operand(l, rank, shape, ll);
  case LAY_SLICE: {
    if (rank + 1 > IR_MAX_RANK) return false;
    int64_t full[IR_MAX_RANK];
    int d = l->dim;
    for (int i = 0, j = 0; i < rank + 1; i++) full[i] = i == d ? 1 : shape[j++];
    LinearLayout p;
    if (!ll_from_layout(l->parent, rank + 1, full, &p)) return false;
    /* drop dim d (all its components are 0 since its extent is 1) and the
     * register bits that became zero vectors (a slice holds no copies) */
    ll->nlane = p.nlane, ll->nwarp = p.nwarp;
    for (int i = 0; i < p.nreg; i++) {
      int64_t v[IR_MAX_RANK];
      bool zero = true;
      for (int a = 0, b = 0; a < rank + 1; a++)
        if (a != d) v[b++] = p.reg[i][a], zero &= p.reg[i][a] == 0;
      if (zero) continue;
      memcpy(ll->reg[ll->nreg++], v, sizeof v);
    }
    for (int i = 0; i < p.nlane; i++)
      for (int a = 0, b = 0; a < rank + 1; a++)
        if (a != d) ll->lane[i][b++] = p.lane[i][a];
    for (int i = 0; i < p.nwarp; i++)
      for (int a = 0, b = 0; a < rank + 1; a++)
        if (a != d) ll->warp[i][b++] = p.warp[i][a];
    return true;
  }
  default: return false;
  }
}

void ll_coord(const LinearLayout *ll, int reg, int lane, int warp, int64_t *coord) {
  for (int d = 0; d < ll->rank; d++) coord[d] = 0;
  for (int i = 0; i < ll->nreg; i++)
    if (reg >> i & 1)
      for (int d = 0; d < ll->rank; d++) coord[d] ^= ll->reg[i][d];
  for (int i = 0; i < ll->nlane; i++)
    if (lane >> i & 1)
      for (int d = 0; d < ll->rank; d++) coord[d] ^= ll->lane[i][d];
  for (int i = 0; i < ll->nwarp; i++)
    if (warp >> i & 1)
      for (int d = 0; d < ll->rank; d++) coord[d] ^= ll->warp[i][d];
}

static bool is_zero(const int64_t *v, int rank) {
  for (int d = 0; d < rank; d++)
    if (v[d]) return false;
  return true;
}

bool ll_is_owner(const LinearLayout *ll, int lane, int warp) {
  for (int i = 0; i < ll->nlane; i++)
    if ((lane >> i & 1) && is_zero(ll->lane[i], ll->rank)) return false;
  for (int i = 0; i < ll->nwarp; i++)
    if ((warp >> i & 1) && is_zero(ll->warp[i], ll->rank)) return false;
  return true;
}

/* The dim a basis vector moves along, -1 for none, -2 for several. */
static int only_dim(const int64_t *v, int rank) {
  int d = -1;
  for (int k = 0; k < rank; k++)
    if (v[k]) {
      if (d >= 0) return -2;
      d = k;
    }
  return d;
}

int ll_run(const LinearLayout *ll, int *dim) {
  *dim = -1;
  if (ll->nreg == 0) return 1;
  int d = only_dim(ll->reg[0], ll->rank);
  if (d < 0 || ll->reg[0][d] != 1) return 1;
  int k = 0;
  while (k < ll->nreg && only_dim(ll->reg[k], ll->rank) == d && ll->reg[k][d] == (int64_t)1 << k) k++;
  *dim = d;
  return 1 << k;
}
