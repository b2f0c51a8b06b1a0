/* test_linear_layout.c — the linear form of layouts (ir/linear.c) agrees with
 * the fragment rules of ir.h for blocked layouts and their slices, for every
 * thread and register; and the mma / dot-operand maps are bijections onto
 * their tiles with exactly the PTX fragment positions for lane 5 (g=1, t=1). */
#include "ir/ir.h"
#include "tests/unit/test_util.h"

#include <stdio.h>
#include <string.h>

/* Coordinates from the fragment rules written out directly (ir.h). */
static void frag_coord(const LayoutFrag *f, int lane, int warp, int i, int64_t *c) {
  const Layout *l = f->base;
  int idx[IR_MAX_RANK], ld[IR_MAX_RANK], wd[IR_MAX_RANK];
  lay_frag_index(f, i, idx);
  for (int k = 0; k < f->rank; k++) {
    int d = l->order[k];
    ld[d] = lane % l->tpw[d], lane /= l->tpw[d];
    wd[d] = warp % l->wpc[d], warp /= l->wpc[d];
  }
  for (int d = 0; d < f->rank; d++) {
    int r = idx[d] / f->sptu[d], j = idx[d] % f->sptu[d];
    int64_t base = ((int64_t)wd[d] * l->tpw[d] + ld[d]) * l->spt[d];
    c[d] = ((int64_t)r * f->tile[d] + base + j) % f->shape[d];
  }
}

static void check_blocked(IrContext *c, const Layout *l, int rank, const int64_t *shape, int nw) {
  LinearLayout ll;
  LayoutFrag f;
  CHECK(ll_from_layout(l, rank, shape, &ll), "from_layout");
  CHECK(lay_frag(l, rank, shape, &f), "frag");
  CHECK((1 << ll.nreg) == f.count, "reg bits %d vs count %d", ll.nreg, f.count);
  for (int w = 0; w < nw; w++)
    for (int ln = 0; ln < 32; ln++)
      for (int i = 0; i < f.count; i++) {
        int64_t a[IR_MAX_RANK], b[IR_MAX_RANK];
        ll_coord(&ll, i, ln, w, a);
        frag_coord(&f, ln, w, i, b);
        bool same = true;
        for (int d = 0; d < rank; d++) same &= a[d] == b[d];
        CHECK(same, "lane %d warp %d reg %d", ln, w, i);
      }
  /* slices: the sliced dims dropped from the parent's coordinates */
  for (int d = 0; d < rank && rank > 1; d++) {
    const Layout *s = lay_slice(c, d, l);
    int64_t sh[IR_MAX_RANK], full[IR_MAX_RANK];
    for (int i = 0, j = 0; i < rank; i++) {
      full[i] = i == d ? 1 : shape[i];
      if (i != d) sh[j++] = shape[i];
    }
    LinearLayout sl, pl;
    CHECK(ll_from_layout(s, rank - 1, sh, &sl), "slice");
    ll_from_layout(l, rank, full, &pl);
    CHECK(sl.nreg == pl.nreg, "slice keeps the parent's distinct registers");
    CHECK(lay_elems_per_thread(s, rank - 1, sh) == 1 << sl.nreg, "slice count");
    for (int w = 0; w < nw; w++)
      for (int ln = 0; ln < 32; ln++)
        for (int i = 0; i < 1 << sl.nreg; i++) {
          int64_t a[IR_MAX_RANK], b[IR_MAX_RANK];
          ll_coord(&sl, i, ln, w, a);
          ll_coord(&pl, i, ln, w, b);
          for (int k = 0, j = 0; k < rank; k++)
            if (k != d) CHECK(a[j++] == b[k], "slice coord");
        }
  }
}

/* Each element of the tile is held by exactly one (owner lane, warp, reg). */
static void check_bijective(const LinearLayout *ll, int nw, const char *what) {
  int64_t M = ll->shape[0], N = ll->shape[1];
  static int seen[1 << 16];
  memset(seen, 0, sizeof seen);
  for (int w = 0; w < nw; w++)
    for (int ln = 0; ln < 32; ln++) {
      if (!ll_is_owner(ll, ln, w)) continue;
      for (int i = 0; i < 1 << ll->nreg; i++) {
        int64_t c[IR_MAX_RANK];
        ll_coord(ll, i, ln, w, c);
        CHECK(c[0] < M && c[1] < N, "%s in range", what);
        if (c[0] < M && c[1] < N) seen[c[0] * N + c[1]]++;
      }
    }
  for (int64_t e = 0; e < M * N; e++) CHECK(seen[e] == 1, "%s element %lld held %d times", what, (long long)e, seen[e]);
}

int main(void) {
  Arena a;
  arena_init(&a);
  IrContext *c = ir_context_new(&a);
  int64_t shapes[][2] = {{1024, 1}, {64, 64}, {32, 256}, {16, 8}, {128, 32}, {4, 512}, {1, 64}, {2, 2}};
  for (int nw = 1; nw <= 8; nw *= 2)
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
      int64_t sh2[2] = {shapes[s][0], shapes[s][1]};
      for (int vec = 1; vec <= 8; vec *= 2) {
        int o10[2] = {1, 0}, o01[2] = {0, 1};
        check_blocked(c, lay_blocked_for(c, 2, sh2, nw, o10, vec), 2, sh2, nw);
        check_blocked(c, lay_blocked_for(c, 2, sh2, nw, o01, vec), 2, sh2, nw);
      }
      int64_t n1 = shapes[s][0];
      int o0[1] = {0};
      check_blocked(c, lay_blocked_for(c, 1, &n1, nw, o0, 4), 1, &n1, nw);
      int64_t sh3[3] = {2, shapes[s][0], shapes[s][1]};
      int o3[3] = {2, 1, 0};
      check_blocked(c, lay_blocked_for(c, 3, sh3, nw, o3, 2), 3, sh3, nw);
    }

  /* mma v2 and its operands */
  int wpcs[][2] = {{1, 1}, {2, 2}, {4, 1}, {1, 4}, {2, 4}, {4, 2}};
  for (size_t wi = 0; wi < sizeof wpcs / sizeof wpcs[0]; wi++) {
    int instr[3] = {16, 8, 16};
    const Layout *mma = lay_mma(c, 2, 2, wpcs[wi], instr);
    int nw = wpcs[wi][0] * wpcs[wi][1];
    int64_t sh[2] = {16 * wpcs[wi][0] * 2, 8 * wpcs[wi][1] * 4};
    LinearLayout ll;
    CHECK(ll_from_layout(mma, 2, sh, &ll), "mma");
    check_bijective(&ll, nw, "mma acc");
    for (int kw = 1; kw <= 4; kw *= 2) {
      int64_t K = 8 * kw * 2;
      const Layout *A = lay_dot_operand(c, 0, mma, kw), *B = lay_dot_operand(c, 1, mma, kw);
      int64_t sa[2] = {sh[0], K}, sb[2] = {K, sh[1]};
      LinearLayout la, lb;
      CHECK(ll_from_layout(A, 2, sa, &la) && ll_from_layout(B, 2, sb, &lb), "dot operands");
      check_bijective(&la, nw, "operand A");
      check_bijective(&lb, nw, "operand B");
      /* every thread of a warp row holds the same A elements as its wn peers */
      if (wpcs[wi][1] > 1) {
        int64_t x[IR_MAX_RANK], y[IR_MAX_RANK];
        ll_coord(&la, 3, 7, 0, x);
        ll_coord(&la, 3, 7, wpcs[wi][0], y);
        CHECK(x[0] == y[0] && x[1] == y[1], "A replicated across n warps");
      }
    }
  }
  /* PTX fragment positions, lane 5 = (g 1, t 1), one 16x8x16 tile */
  int one[2] = {1, 1}, instr[3] = {16, 8, 16};
  const Layout *mma = lay_mma(c, 2, 2, one, instr);
  int64_t cs[2] = {16, 8}, as[2] = {16, 16}, bs[2] = {16, 8};
  LinearLayout lc, la, lb;
  ll_from_layout(mma, 2, cs, &lc);
  ll_from_layout(lay_dot_operand(c, 0, mma, 2), 2, as, &la);
  ll_from_layout(lay_dot_operand(c, 1, mma, 2), 2, bs, &lb);
  int64_t want_c[4][2] = {{1, 2}, {1, 3}, {9, 2}, {9, 3}};
  int64_t want_a[8][2] = {{1, 2}, {1, 3}, {9, 2}, {9, 3}, {1, 10}, {1, 11}, {9, 10}, {9, 11}};
  int64_t want_b[4][2] = {{2, 1}, {3, 1}, {10, 1}, {11, 1}};
  for (int e = 0; e < 4; e++) {
    int64_t x[IR_MAX_RANK];
    ll_coord(&lc, e, 5, 0, x);
    CHECK(x[0] == want_c[e][0] && x[1] == want_c[e][1], "c%d at (%lld,%lld)", e, (long long)x[0], (long long)x[1]);
    ll_coord(&lb, e, 5, 0, x);
    CHECK(x[0] == want_b[e][0] && x[1] == want_b[e][1], "b%d at (%lld,%lld)", e, (long long)x[0], (long long)x[1]);
  }
  for (int e = 0; e < 8; e++) {
    int64_t x[IR_MAX_RANK];
    ll_coord(&la, e, 5, 0, x);
    CHECK(x[0] == want_a[e][0] && x[1] == want_a[e][1], "a%d at (%lld,%lld)", e, (long long)x[0], (long long)x[1]);
  }
  arena_free(&a);
  return test_summary("test_linear_layout");
}
