/* layout.c — interned layouts, Triton-style default choices, and the
 * thread <-> element map ("fragment") of distributed layouts.
 *
 * The fragment rules are stated in ir.h above LayoutFrag; codegen turns
 * them into index arithmetic and passes use them to reason about
 * replication.  A small picture, S = [4, 8] in blocked spt=[1,2],
 * tpw=[4,8], wpc=[1,1] (order [1,0]): tile = [4, 16], so dim 1 has
 * tile > S and lanes 4..7 along dim 1 repeat lanes 0..3:
 *
 *        col: 0 1 | 2 3 | 4 5 | 6 7
 *   row 0:    t0  | t1  | t2  | t3     (t4..t7 hold the same as t0..t3)
 *   row 1:    t8  | t9  | t10 | t11
 *   ...
 */
#include "ir/ir_internal.h"

#include <string.h>

static bool layout_same(const Layout *a, const Layout *b) {
  if (a->kind != b->kind || a->rank != b->rank) return false;
  int r = a->rank;
  size_t n = sizeof(int) * (size_t)r;
  switch (a->kind) {
  case LAY_BLOCKED:
    return !memcmp(a->spt, b->spt, n) && !memcmp(a->tpw, b->tpw, n) &&
           !memcmp(a->wpc, b->wpc, n) && !memcmp(a->order, b->order, n);
  case LAY_SLICE:
    return a->dim == b->dim && a->parent == b->parent;
  case LAY_MMA:
    return a->version == b->version && !memcmp(a->wpc, b->wpc, n) &&
           !memcmp(a->instr, b->instr, sizeof a->instr);
  case LAY_DOT_OPERAND:
    return a->op_idx == b->op_idx && a->parent == b->parent && a->k_width == b->k_width;
  case LAY_SHARED:
    return a->vec == b->vec && a->per_phase == b->per_phase && a->max_phase == b->max_phase &&
           a->block == b->block && !memcmp(a->order, b->order, n);
  }
  return false;
}

static const Layout *intern_layout(IrContext *c, const Layout *key) {
  for (uint32_t i = 0; i < c->nlayouts; i++)
    if (layout_same(c->layouts[i], key)) return c->layouts[i];
  if (c->nlayouts == c->layout_cap) {
    uint32_t cap = c->layout_cap ? 2 * c->layout_cap : 32;
    Layout **tab = ARENA_ARRAY(c->arena, Layout *, cap);
    if (c->nlayouts) memcpy(tab, c->layouts, sizeof(Layout *) * c->nlayouts);
    c->layouts = tab, c->layout_cap = cap;
  }
  Layout *l = arena_dup(c->arena, key, sizeof *key);
  l->id = c->nlayouts;
  c->layouts[c->nlayouts++] = l;
  return l;
}

const Layout *lay_blocked(IrContext *c, int rank, const int *spt, const int *tpw,
                          const int *wpc, const int *order) {
  Layout k = {.kind = LAY_BLOCKED, .rank = rank};
  for (int i = 0; i < rank; i++)
    k.spt[i] = spt[i], k.tpw[i] = tpw[i], k.wpc[i] = wpc[i], k.order[i] = order[i];
  return intern_layout(c, &k);
}

const Layout *lay_slice(IrContext *c, int dim, const Layout *parent) {
  Layout k = {.kind = LAY_SLICE, .rank = parent->rank - 1, .dim = dim, .parent = parent};
  return intern_layout(c, &k);
}

const Layout *lay_mma(IrContext *c, int version, int rank, const int *wpc, const int *instr) {
  Layout k = {.kind = LAY_MMA, .rank = rank, .version = version};
  for (int i = 0; i < rank; i++) k.wpc[i] = wpc[i], k.order[i] = rank - 1 - i;
  for (int i = 0; i < 3; i++) k.instr[i] = instr[i];
  return intern_layout(c, &k);
}

const Layout *lay_dot_operand(IrContext *c, int op_idx, const Layout *parent, int k_width) {
  Layout k = {.kind = LAY_DOT_OPERAND, .rank = parent->rank, .op_idx = op_idx,
              .parent = parent, .k_width = k_width};
  return intern_layout(c, &k);
}

const Layout *lay_shared_blocked(IrContext *c, int rank, int vec, int per_phase, int max_phase,
                                 const int *order, int block) {
  Layout k = {.kind = LAY_SHARED, .rank = rank, .vec = vec, .per_phase = per_phase,
              .max_phase = max_phase, .block = block};
  for (int i = 0; i < rank; i++) k.order[i] = order[i];
  return intern_layout(c, &k);
}

const Layout *lay_shared(IrContext *c, int rank, int vec, int per_phase, int max_phase,
                         const int *order) {
  return lay_shared_blocked(c, rank, vec, per_phase, max_phase, order, 0);
}

const Layout *lay_shared_ring(IrContext *c, const Layout *slot) {
  int order[IR_MAX_RANK];
  if (slot->rank + 1 > IR_MAX_RANK) return NULL;
  for (int i = 0; i < slot->rank; i++) order[i] = slot->order[i] + 1;
  order[slot->rank] = 0;
  return lay_shared_blocked(c, slot->rank + 1, slot->vec, slot->per_phase, slot->max_phase, order,
                            slot->block);
}

const Layout *lay_shared_slot(IrContext *c, const Layout *ring) {
  int order[IR_MAX_RANK];
  if (ring->rank < 2 || ring->order[ring->rank - 1] != 0) return NULL;
  for (int i = 0; i < ring->rank - 1; i++) order[i] = ring->order[i] - 1;
  return lay_shared_blocked(c, ring->rank - 1, ring->vec, ring->per_phase, ring->max_phase, order,
                            ring->block);
}

const Layout *lay_shared_trans(IrContext *c, const Layout *l) {
  if (!l || l->kind != LAY_SHARED || l->rank != 2) return NULL;
  int order[2] = {1 - l->order[0], 1 - l->order[1]};
  return lay_shared_blocked(c, 2, l->vec, l->per_phase, l->max_phase, order, l->block);
}

static int clampi(int64_t v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : (int)v; }

const Layout *lay_blocked_for(IrContext *c, int rank, const int64_t *shape, int num_warps,
                              const int *order, int spt_fast) {
  int spt[IR_MAX_RANK], tpw[IR_MAX_RANK], wpc[IR_MAX_RANK];
  for (int i = 0; i < rank; i++) spt[i] = 1, tpw[i] = 1, wpc[i] = 1;
  if (rank == 0) return NULL;
  spt[order[0]] = spt_fast > 0 ? spt_fast : 1;
  /* Lanes, then warps, go to the fastest dims first, each dim taking at
   * most what its extent can use; the slowest dim absorbs what is left. */
  int lanes = 32, warps = num_warps, threads = 32 * num_warps;
  int used_lanes = 1, used_warps = 1;
  for (int k = 0; k < rank - 1; k++) {
    int d = order[k];
    int64_t want = shape[d] / spt[d];
    int per_cta = clampi(want, 1, threads);
    tpw[d] = clampi(per_cta, 1, lanes);
    wpc[d] = clampi(per_cta / tpw[d], 1, warps);
    lanes /= tpw[d], warps /= wpc[d], threads /= per_cta;
    if (threads < 1) threads = 1;
    used_lanes *= tpw[d], used_warps *= wpc[d];
  }
  tpw[order[rank - 1]] = 32 / used_lanes;
  wpc[order[rank - 1]] = num_warps / used_warps;
  return lay_blocked(c, rank, spt, tpw, wpc, order);
}

const Layout *lay_default(IrContext *c, int rank, const int64_t *shape, int num_warps,
                          int spt_fast) {
  int order[IR_MAX_RANK];
  for (int i = 0; i < rank; i++) order[i] = rank - 1 - i;
  return lay_blocked_for(c, rank, shape, num_warps, order, spt_fast);
}

const Layout *lay_permute(IrContext *c, const Layout *l, const int *perm) {
  if (l->kind != LAY_BLOCKED) return NULL;
  int r = l->rank, spt[IR_MAX_RANK], tpw[IR_MAX_RANK], wpc[IR_MAX_RANK], order[IR_MAX_RANK];
  int inv[IR_MAX_RANK];
  for (int i = 0; i < r; i++) inv[perm[i]] = i;
  for (int i = 0; i < r; i++) {
    spt[i] = l->spt[perm[i]], tpw[i] = l->tpw[perm[i]], wpc[i] = l->wpc[perm[i]];
    order[i] = inv[l->order[i]];
  }
  return lay_blocked(c, r, spt, tpw, wpc, order);
}

const Layout *lay_unslice(const Layout *l, int axis) {
  return l && l->kind == LAY_SLICE && l->dim == axis ? l->parent : NULL;
}

bool lay_is_distributed(const Layout *l) { return l && l->kind != LAY_SHARED; }

int lay_num_warps(const Layout *l) {
  while (l->kind == LAY_SLICE || l->kind == LAY_DOT_OPERAND) l = l->parent;
  int n = 1;
  for (int i = 0; i < l->rank; i++) n *= l->wpc[i];
  return n;
}

int64_t lay_shared_offset(const Layout *l, const int64_t *shape, int64_t row, int64_t col) {
  if (l->rank == 1) return col;
  int c = l->order[0];
  int64_t inner = shape[c], base = 0;
  if (l->block > 0 && l->block < inner) {
    base = (col / l->block) * shape[l->order[1]] * l->block;
    col %= l->block;
    inner = l->block;
  }
  int64_t phase = l->max_phase > 1 ? (row / l->per_phase) % l->max_phase : 0;
  int vec = l->vec > 0 ? l->vec : 1;
  return base + row * inner + ((col / vec) ^ phase) * vec + col % vec;
}

/* ---- fragments ------------------------------------------------------------- */

bool lay_frag(const Layout *l, int rank, const int64_t *shape, LayoutFrag *f) {
  if (!l) return false;
  if (l->kind == LAY_SLICE) {
    int64_t full[IR_MAX_RANK];
    int d = l->dim;
    if (rank + 1 > IR_MAX_RANK) return false;
    for (int i = 0, j = 0; i < rank + 1; i++) full[i] = i == d ? 1 : shape[j++];
    if (!lay_frag(l->parent, rank + 1, full, f)) return false;
    /* Mark which base dim this slice removed: the d-th dim among the base
     * dims not yet sliced by an enclosing (outer) slice is marked by the
     * caller chain; here we map d through the dims still visible. */
    int seen = -1;
    for (int i = 0; i < f->rank; i++) {
      if (f->sliced[i]) continue;
      if (++seen == d) {
        f->sliced[i] = 1;
        break;
      }
    }
    return true;
  }
  if (l->kind != LAY_BLOCKED || rank != l->rank) return false;
  memset(f, 0, sizeof *f);
  f->rank = rank;
  f->base = l;
  f->count = 1;
  for (int d = 0; d < rank; d++) {
    int64_t S = shape[d];
    f->shape[d] = S;
    f->tile[d] = l->spt[d] * l->tpw[d] * l->wpc[d];
    f->sptu[d] = (int)(l->spt[d] < S ? l->spt[d] : S);
    int64_t reps = S / f->tile[d];
    if (reps < 1) reps = 1;
    f->extent[d] = f->sptu[d] * (int)reps;
    f->count *= f->extent[d];
  }
  return true;
}

int lay_elems_per_thread(const Layout *l, int rank, const int64_t *shape) {
  LayoutFrag f;
  return lay_frag(l, rank, shape, &f) ? f.count : 0;
}

void lay_frag_index(const LayoutFrag *f, int i, int *idx) {
  for (int k = 0; k < f->rank; k++) {
    int d = f->base->order[k];
    idx[d] = i % f->extent[d];
    i /= f->extent[d];
  }
}

int lay_frag_linear(const LayoutFrag *f, const int *idx) {
  int i = 0;
  for (int k = f->rank - 1; k >= 0; k--) {
    int d = f->base->order[k];
    i = i * f->extent[d] + idx[d];
  }
  return i;
}

int lay_unique_lanes(const LayoutFrag *f, int d) {
  int64_t per = f->shape[d] / f->base->spt[d];
  if (per < 1) per = 1;
  return (int)(f->base->tpw[d] < per ? f->base->tpw[d] : per);
}

int lay_unique_warps(const LayoutFrag *f, int d) {
  int64_t per = f->shape[d] / ((int64_t)f->base->spt[d] * f->base->tpw[d]);
  if (per < 1) per = 1;
  return (int)(f->base->wpc[d] < per ? f->base->wpc[d] : per);
}

/* ---- printing -------------------------------------------------------------- */

static void print_ints(StrBuf *sb, const char *name, const int *v, int n) {
  sb_printf(sb, "%s=[", name);
  for (int i = 0; i < n; i++) sb_printf(sb, i ? ",%d" : "%d", v[i]);
  sb_putc(sb, ']');
}

void lay_print(StrBuf *sb, const Layout *l) {
  switch (l->kind) {
  case LAY_BLOCKED:
    sb_puts(sb, "#blocked<{");
    print_ints(sb, "spt", l->spt, l->rank);
    sb_puts(sb, ", ");
    print_ints(sb, "tpw", l->tpw, l->rank);
    sb_puts(sb, ", ");
    print_ints(sb, "wpc", l->wpc, l->rank);
    sb_puts(sb, ", ");
    print_ints(sb, "order", l->order, l->rank);
    sb_puts(sb, "}>");
    break;
  case LAY_SLICE:
    sb_printf(sb, "#slice<{dim=%d, parent=", l->dim);
    ir_print_layout_ref(sb, l->parent);
    sb_puts(sb, "}>");
    break;
  case LAY_MMA:
    sb_printf(sb, "#mma<{version=%d, ", l->version);
    print_ints(sb, "wpc", l->wpc, l->rank);
    sb_puts(sb, ", ");
    print_ints(sb, "instr", l->instr, 3);
    sb_puts(sb, "}>");
    break;
  case LAY_DOT_OPERAND:
    sb_printf(sb, "#dot_op<{op=%d, parent=", l->op_idx);
    ir_print_layout_ref(sb, l->parent);
    sb_printf(sb, ", k_width=%d}>", l->k_width);
    break;
  case LAY_SHARED:
    sb_printf(sb, "#shared<{vec=%d, per_phase=%d, max_phase=%d, ", l->vec, l->per_phase,
              l->max_phase);
    print_ints(sb, "order", l->order, l->rank);
    if (l->block) sb_printf(sb, ", block=%d", l->block);
    sb_puts(sb, "}>");
    break;
  }
}
