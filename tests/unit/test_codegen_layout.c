/* test_codegen_layout.c — CPU check of codegen's layout arithmetic.
 *
 * For blocked layouts, slices of them and shapes with and without
 * replication, evaluates cg_layout's per-element coordinate formula
 * (cg_eval_coord, the C twin of the LLVM it emits) for every thread and
 * checks it against an independent model of ir.h's LayoutFrag rules, that
 * every element of the shape is held by some thread, that the owners
 * (cg_eval_owner, the store predicate) hold each element exactly once, that
 * a thread's elements are distinct, and that runs along the fastest dim are
 * consecutive (what vector accesses rely on). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg_internal.h"
#include "tests/unit/test_util.h"


/* The model: thread `tid` of blocked layout B over `shape` (base rank, with
 * sliced dims of size 1) holds, along base dim d, the coordinates
 *   (warp_d * tpw_d * spt_d + lane_d * spt_d + r * tile_d + j) mod S_d
 * for r < max(1, S_d / tile_d), j < min(spt_d, S_d), where lane_d / warp_d
 * come from peeling tpw / wpc off the lane / warp id in `order`.  Element
 * index i is the mixed-radix number of (r, j) per dim, order[0] fastest. */
static void model_coords(const Layout *b, const int64_t *shape, int tid, int i, int64_t *out) {
  int lane = tid % 32, warp = tid / 32;
  int ld[IR_MAX_RANK], wd[IR_MAX_RANK];
  for (int k = 0; k < b->rank; k++) {
    int d = b->order[k];
    ld[d] = lane % b->tpw[d];
    lane /= b->tpw[d];
    wd[d] = warp % b->wpc[d];
    warp /= b->wpc[d];
  }
  for (int k = 0; k < b->rank; k++) {
    int d = b->order[k];
    int64_t S = shape[d], tile = (int64_t)b->spt[d] * b->tpw[d] * b->wpc[d];
    int64_t sptu = b->spt[d] < S ? b->spt[d] : S;
    int64_t reps = S / tile > 1 ? S / tile : 1;
    int64_t ext = sptu * reps;
    int64_t idx = i % ext;
    i = (int)(i / ext);
    int64_t r = idx / sptu, j = idx % sptu;
    out[d] = ((int64_t)wd[d] * b->tpw[d] * b->spt[d] + (int64_t)ld[d] * b->spt[d] + r * tile + j) % S;
  }
}

static void check_layout(const char *name, const Layout *l, int rank, const int64_t *shape) {
  CgFrag f;
  if (!cg_frag_of(l, rank, shape, &f)) {
    CHECK(0, "%s: cg_frag_of failed", name);
    return;
  }
  LayoutFrag lf;
  if (!lay_frag(l, rank, shape, &lf)) {
    CHECK(0, "%s: lay_frag failed", name);
    return;
  }
  const Layout *b = lf.base;
  int t2b[IR_MAX_RANK], b2t[IR_MAX_RANK];
  for (int d = 0, t = 0; d < lf.rank; d++) {
    b2t[d] = lf.sliced[d] ? -1 : t;
    if (!lf.sliced[d]) t2b[t++] = d;
  }
  int nthreads = 32 * lay_num_warps(b);
  int64_t numel = 1, bshape[IR_MAX_RANK];
  for (int d = 0; d < rank; d++) numel *= shape[d];
  for (int d = 0; d < b->rank; d++) bshape[d] = b2t[d] >= 0 ? shape[b2t[d]] : 1;
  CHECK(f.count == lf.count, "%s: %d registers, fragment has %d", name, f.count, lf.count);
  int *held = calloc((size_t)numel, sizeof(int));
  int *owned = calloc((size_t)numel, sizeof(int));
  int *mine = calloc((size_t)numel, sizeof(int));
  int n = f.count;
  for (int t = 0; t < nthreads; t++) {
    bool owner = cg_eval_owner(&f, t);
    for (int i = 0; i < n; i++) {
      int idx[IR_MAX_RANK];
      lay_frag_index(&lf, i, idx);
      CHECK(lay_frag_linear(&lf, idx) == i, "%s: frag index round trip at %d", name, i);
      int64_t m[IR_MAX_RANK], lin = 0;
      model_coords(b, bshape, t, i, m);
      for (int d = 0; d < rank; d++) {
        int64_t c = cg_eval_coord(&f, t, i, d);
        CHECK(c == m[t2b[d]], "%s: thread %d elem %d dim %d: coord %lld, model %lld", name, t,
              i, d, (long long)c, (long long)m[t2b[d]]);
        CHECK(c >= 0 && c < shape[d], "%s: coord out of range", name);
        lin = lin * shape[d] + c;
      }
      for (int d = 0; d < b->rank; d++)
        if (b2t[d] < 0) CHECK(m[d] == 0, "%s: sliced dim %d has coord %lld", name, d, (long long)m[d]);
      if (lin < 0 || lin >= numel) continue;
      held[lin]++;
      if (owner) owned[lin]++;
      CHECK(mine[lin] != t + 1, "%s: thread %d holds element %lld twice", name, t, (long long)lin);
      mine[lin] = t + 1;
      /* runs along the fast dim are consecutive */
      if (f.run_dim >= 0 && i % f.run != f.run - 1 && i + 1 < n) {
        int td = f.run_dim;
        CHECK(cg_eval_coord(&f, t, i + 1, td) == cg_eval_coord(&f, t, i, td) + 1,
              "%s: thread %d elems %d,%d not consecutive", name, t, i, i + 1);
      }
    }
  }
  for (int64_t e = 0; e < numel; e++) {
    CHECK(held[e] > 0, "%s: element %lld is held by no thread", name, (long long)e);
    CHECK(owned[e] == 1, "%s: element %lld has %d owners", name, (long long)e, owned[e]);
  }
  free(held);
  free(owned);
  free(mine);
}

int main(void) {
  Arena arena;
  arena_init(&arena);
  IrContext *c = ir_context_new(&arena);
  char name[128];

  /* 1-D: exact fit, repeated passes, replication across warps and lanes,
   * a shape smaller than size-per-thread */
  {
    int o = 0, spt = 4, tpw = 32, wpc = 4;
    const Layout *l = lay_blocked(c, 1, &spt, &tpw, &wpc, &o);
    static const int64_t sizes[] = {512, 1024, 4096, 256, 64, 8, 2, 1};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
      snprintf(name, sizeof name, "1d spt4 [%lld]", (long long)sizes[i]);
      check_layout(name, l, 1, &sizes[i]);
    }
  }
  /* 2-D row-major and column-major, with slices */
  struct {
    int spt[2], tpw[2], wpc[2], order[2];
  } l2[] = {
      {{1, 4}, {2, 16}, {4, 1}, {1, 0}},
      {{4, 1}, {16, 2}, {1, 4}, {0, 1}},
      {{1, 4}, {1, 32}, {1, 4}, {1, 0}},
      {{2, 2}, {4, 8}, {2, 2}, {1, 0}},
      {{1, 1}, {32, 1}, {1, 8}, {0, 1}},
  };
  static const int64_t shapes2[][2] = {{64, 64}, {4, 512}, {2, 8}, {128, 4}, {16, 256}, {1, 1}, {32, 2}};
  for (size_t k = 0; k < sizeof l2 / sizeof l2[0]; k++) {
    const Layout *l = lay_blocked(c, 2, l2[k].spt, l2[k].tpw, l2[k].wpc, l2[k].order);
    for (size_t s = 0; s < sizeof shapes2 / sizeof shapes2[0]; s++) {
      snprintf(name, sizeof name, "2d #%zu [%lld,%lld]", k, (long long)shapes2[s][0],
               (long long)shapes2[s][1]);
      check_layout(name, l, 2, shapes2[s]);
      for (int dim = 0; dim < 2; dim++) {
        snprintf(name, sizeof name, "slice(%d) of 2d #%zu [%lld]", dim, k,
                 (long long)shapes2[s][1 - dim]);
        check_layout(name, lay_slice(c, dim, l), 1, &shapes2[s][1 - dim]);
      }
    }
  }
  /* 3-D with an unusual order, and nested slices */
  {
    int spt[3] = {1, 2, 2}, tpw[3] = {2, 4, 4}, wpc[3] = {2, 1, 2}, order[3] = {2, 0, 1};
    const Layout *l = lay_blocked(c, 3, spt, tpw, wpc, order);
    int64_t s3[3] = {8, 16, 32}, s3b[3] = {2, 2, 64};
    check_layout("3d [8,16,32]", l, 3, s3);
    check_layout("3d [2,2,64]", l, 3, s3b);
    int64_t s2[2] = {8, 32};
    check_layout("slice(1) of 3d [8,32]", lay_slice(c, 1, l), 2, s2);
    int64_t s1 = 32;
    check_layout("slice(0) of slice(1) of 3d [32]", lay_slice(c, 0, lay_slice(c, 1, l)), 1, &s1);
  }
  /* Triton's defaults */
  for (int nw = 1; nw <= 8; nw *= 2) {
    int64_t s[2] = {128, 64};
    const Layout *l = lay_default(c, 2, s, nw, 4);
    snprintf(name, sizeof name, "default nw=%d [128,64]", nw);
    check_layout(name, l, 2, s);
  }
  arena_free(&arena);
  return test_summary("test_codegen_layout");
}
