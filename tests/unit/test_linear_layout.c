/* test_linear_layout.c — the linear form of layouts (ir/linear.c) agrees with
 * the fragment rules of ir.h for blocked layouts and their slices, for every
 * thread and register; and the mma / dot-operand maps are bijections onto
 * their tiles with exactly the PTX fragment positions for lane 5 (g=1, t=1);
 * their batched (rank-3) forms hold each batch's 2-D fragment in one run of
 * registers per batch, warps split over the batch above the 2-D warps. */
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

/* Each element of the tile (rank 2 or 3) is held by exactly one (owner
 * lane, warp, reg). */
static void check_bijective(const LinearLayout *ll, int nw, const char *what) {
  int r = ll->rank;
  int64_t total = 1;
  for (int d = 0; d < r; d++) total *= ll->shape[d];
  static int seen[1 << 16];
  CHECK(total <= (int64_t)(sizeof seen / sizeof seen[0]), "%s: tile too large for the test", what);
  if (total > (int64_t)(sizeof seen / sizeof seen[0])) return;
  memset(seen, 0, sizeof seen);
  for (int w = 0; w < nw; w++)
    for (int ln = 0; ln < 32; ln++) {
      if (!ll_is_owner(ll, ln, w)) continue;
      for (int i = 0; i < 1 << ll->nreg; i++) {
        int64_t c[IR_MAX_RANK], e = 0;
        bool in = true;
        ll_coord(ll, i, ln, w, c);
        for (int d = 0; d < r; d++) in &= c[d] < ll->shape[d], e = e * ll->shape[d] + c[d];
        CHECK(in, "%s in range", what);
        if (in) seen[e]++;
      }
    }
  for (int64_t e = 0; e < total; e++) CHECK(seen[e] == 1, "%s element %lld held %d times", what, (long long)e, seen[e]);
}

/* A batched (rank-3) mma layout l3 over [B, X, Y] against the 2-D layout
 * l2 of one batch's [X, Y] (same warps along the matrix dims): warp w holds,
 * in register run rb (registers [rb * per, (rb + 1) * per)), batch
 * (w / w2 + rb * wb) mod B, at exactly the 2-D coordinates that 2-D warp
 * w % w2 holds in the same register of the run. */
static void check_batched(const Layout *l3, const Layout *l2, const int64_t *sh3, int wb, int w2, const char *what) {
  LinearLayout a, b;
  CHECK(ll_from_layout(l3, 3, sh3, &a), "%s: rank 3", what);
  CHECK(ll_from_layout(l2, 2, sh3 + 1, &b), "%s: rank 2", what);
  check_bijective(&a, wb * w2, what);
  int64_t B = sh3[0], rb_n = B / wb > 1 ? B / wb : 1;
  CHECK((1 << a.nreg) == (1 << b.nreg) * rb_n, "%s: %d batch runs of %d registers", what, (int)rb_n, 1 << b.nreg);
  int per = 1 << b.nreg;
  for (int w = 0; w < wb * w2; w++)
    for (int ln = 0; ln < 32; ln++)
      for (int i = 0; i < 1 << a.nreg; i++) {
        int64_t x[IR_MAX_RANK], y[IR_MAX_RANK];
        ll_coord(&a, i, ln, w, x);
        ll_coord(&b, i % per, ln, w % w2, y);
        int64_t batch = (w / w2 + (int64_t)(i / per) * wb) % B;
        CHECK(x[0] == batch && x[1] == y[0] && x[2] == y[1], "%s: warp %d lane %d reg %d at (%lld,%lld,%lld)",
              what, w, ln, i, (long long)x[0], (long long)x[1], (long long)x[2]);
      }
}

/* Batched mma v2 layouts [B, M, N] with warps [wb, wm, wn] and their
 * operands, for batches fewer than, as many as and more than wb. */
static void check_batched_mma(IrContext *c) {
  int wpcs[][3] = {{1, 1, 1}, {2, 1, 1}, {4, 1, 1}, {8, 1, 1}, {2, 2, 1}, {2, 1, 2}, {4, 2, 1}, {1, 2, 2}, {2, 2, 2}};
  for (size_t wi = 0; wi < sizeof wpcs / sizeof wpcs[0]; wi++)
    for (int64_t B = 1; B <= 16; B *= 4)
      for (int kw = 1; kw <= 4; kw *= 2) {
        const int *w = wpcs[wi];
        int instr[3] = {16, 8, 8 * kw};
        const Layout *m3 = lay_mma(c, 2, 3, w, instr), *m2 = lay_mma(c, 2, 2, w + 1, instr);
        int64_t M = 16 * w[1] * 2, N = 8 * w[2] * 2, K = 8 * kw * 2;
        int64_t sc[3] = {B, M, N}, sa[3] = {B, M, K}, sb[3] = {B, K, N};
        char what[96];
        snprintf(what, sizeof what, "mma [%lld,%lld,%lld] wpc [%d,%d,%d]", (long long)B, (long long)M,
                 (long long)N, w[0], w[1], w[2]);
        check_batched(m3, m2, sc, w[0], w[1] * w[2], what);
        snprintf(what, sizeof what, "A [%lld,%lld,%lld] kw %d wpc [%d,%d,%d]", (long long)B, (long long)M,
                 (long long)K, kw, w[0], w[1], w[2]);
        check_batched(lay_dot_operand(c, 0, m3, kw), lay_dot_operand(c, 0, m2, kw), sa, w[0], w[1] * w[2], what);
        snprintf(what, sizeof what, "B [%lld,%lld,%lld] kw %d wpc [%d,%d,%d]", (long long)B, (long long)K,
                 (long long)N, kw, w[0], w[1], w[2]);
        check_batched(lay_dot_operand(c, 1, m3, kw), lay_dot_operand(c, 1, m2, kw), sb, w[0], w[1] * w[2], what);
      }
  /* wgmma (version 3) has no batched form */
  int w3[3] = {1, 4, 1}, i3[3] = {64, 64, 16};
  int64_t s3[3] = {2, 64, 64};
  LinearLayout ll;
  CHECK(!ll_from_layout(lay_mma(c, 3, 3, w3, i3), 3, s3, &ll), "no rank-3 wgmma layout");
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
  check_batched_mma(c);
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
