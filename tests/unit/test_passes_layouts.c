/* test_passes_layouts.c — AxisInfo, coalesce and assign-layouts on
 * hand-built kernels: vector add (aligned, unaligned, masked), 2-D tiles in
 * both memory orders, a row reduction, a load stored through a
 * differently-ordered pointer, and a loop advancing a pointer tensor.
 * Every case runs the whole default pipeline with --verify-each.
 *
 * Usage: test_passes_layouts [-v]   (-v prints the IR after each case) */
#include "test_passes.h"

static bool verbose;

static void show(T *t) {
  if (verbose) {
    printf("== %s\n", current_test);
    print_ir(t);
  }
}

static Value *program_id(T *t) { return irb_op(&t->b, OP_PROGRAM_ID, NULL, 0, sc(t, DT_I32))->results[0]; }

static Value *addptr(T *t, Value *base, Value *offs) {
  Value *p = base->type->rank ? base : splat_like(t, base, offs->type);
  return irb_binary(&t->b, OP_ADDPTR, p, offs);
}

static const Layout *layout_of(const Value *v) { return v->type->layout; }

/* ---- vector add ------------------------------------------------------------------ */

/* out[offs] = x[offs] + y[offs], offs = pid*1024 + arange(0, 1024),
 * masked by offs < n when `masked`. */
static void build_vector_add(T *t, int ptr_div, int n_div, bool masked) {
  const Type *pf = ptr(t, DT_F32);
  Value *x = arg(t, "x_ptr", pf, ptr_div), *y = arg(t, "y_ptr", pf, ptr_div);
  Value *o = arg(t, "out_ptr", pf, ptr_div), *n = arg(t, "n", sc(t, DT_I32), n_div);
  Value *blk = irb_binary(&t->b, OP_MUL, program_id(t), cint(t, DT_I32, 1024));
  Value *ar = irb_arange(&t->b, 0, 1024);
  Value *offs = irb_binary(&t->b, OP_ADD, splat_like(t, blk, ar->type), ar);
  Value *mask = masked ? irb_cmp(&t->b, CMP_LT, offs, splat_like(t, n, offs->type)) : NULL;
  Value *xv = load(t, addptr(t, x, offs), mask, NULL);
  Value *yv = load(t, addptr(t, y, offs), mask, NULL);
  store(t, addptr(t, o, offs), irb_binary(&t->b, OP_ADD, xv, yv), mask);
  ret(t);
}

static void test_vector_add(void) {
  T t;
  t_init(&t, "vector_add", 4);
  build_vector_add(&t, 16, 16, true);
  CHECK(pipeline(&t) == 0);
  show(&t);
  CHECK(count_ops(&t, OP_CONVERT_LAYOUT) == 0);
  CHECK(count_ops(&t, OP_LOAD) == 2);
  for (int i = 0; i < 2; i++) {
    Op *ld = nth_op(&t, OP_LOAD, i);
    CHECK(ld && ld->attr.vec == 4);
    const Layout *l = ld ? layout_of(ld->results[0]) : NULL;
    CHECK(l && l->kind == LAY_BLOCKED && l->spt[0] == 4 && l->tpw[0] == 32 && l->wpc[0] == 4);
    CHECK(ld && layout_of(ld->operands[0]) == l && layout_of(ld->operands[1]) == l);
  }
  Op *st = nth_op(&t, OP_STORE, 0);
  CHECK(st && st->attr.vec == 4);
  CHECK(st && layout_of(st->operands[0])->spt[0] == 4);
  /* the mask's splat of n and the arange were never converted */
  CHECK(count_ops(&t, OP_ARANGE) == 1);
  CHECK(verify(&t, true) == 0);
  t_free(&t);
}

static void test_vector_add_unaligned(void) {
  T t;
  t_init(&t, "vector_add_unaligned_ptr", 4);
  build_vector_add(&t, 4, 16, true); /* *fp32:4 — only element-aligned */
  CHECK(pipeline(&t) == 0);
  show(&t);
  Op *ld = nth_op(&t, OP_LOAD, 0);
  CHECK(ld && ld->attr.vec == 1);
  CHECK(ld && layout_of(ld->results[0])->spt[0] == 1);
  CHECK(nth_op(&t, OP_STORE, 0)->attr.vec == 1);
  CHECK(count_ops(&t, OP_CONVERT_LAYOUT) == 0);
  t_free(&t);

  /* aligned pointers, but n without a divisibility hint: a 4-wide vector
   * could straddle the end of the mask, so it must not be one access */
  t_init(&t, "vector_add_unaligned_n", 4);
  build_vector_add(&t, 16, 1, true);
  CHECK(pipeline(&t) == 0);
  show(&t);
  CHECK(nth_op(&t, OP_LOAD, 0)->attr.vec == 1);
  CHECK(nth_op(&t, OP_STORE, 0)->attr.vec == 1);
  t_free(&t);

  /* no mask at all: the pointer alone decides */
  t_init(&t, "vector_add_unmasked", 4);
  build_vector_add(&t, 16, 1, false);
  CHECK(pipeline(&t) == 0);
  CHECK(nth_op(&t, OP_LOAD, 0)->attr.vec == 4);
  t_free(&t);
}

static void test_axis_info_vector_add(void) {
  T t;
  t_init(&t, "axis_info_vector_add", 4);
  build_vector_add(&t, 16, 16, true);
  AxisInfo *ai = axis_analyze(t.m);
  Op *ld = nth_op(&t, OP_LOAD, 0);
  const AxisInfo *p = &ai[ld->operands[0]->id], *mk = &ai[ld->operands[1]->id];
  Value *offs = ld->operands[0]->def->operands[1];
  CHECK(ai[offs->id].contiguity[0] == 1024 && ai[offs->id].divisibility[0] == 1024);
  CHECK(p->contiguity[0] == 1024 && p->divisibility[0] == 16 && p->constancy[0] == 1);
  CHECK(mk->constancy[0] == 16);
  free(ai);
  t_free(&t);
}

/* ---- 2-D tiles ----------------------------------------------------------------------- */

/* a[:, None] * s0 + b[None, :] * s1 over [M, N] (a stride is skipped when NULL) */
static Value *offs2d(T *t, int64_t M, int64_t N, Value *s0, Value *s1) {
  Value *rows = irb_arange(&t->b, 0, M), *cols = irb_arange(&t->b, 0, N);
  Value *r = irb_expand_dims(&t->b, rows, 1), *c = irb_expand_dims(&t->b, cols, 0);
  if (s0) r = irb_binary(&t->b, OP_MUL, r, splat_like(t, s0, r->type));
  if (s1) c = irb_binary(&t->b, OP_MUL, c, splat_like(t, s1, c->type));
  const Type *full = ten2(t, sc(t, DT_I32), M, N);
  return irb_binary(&t->b, OP_ADD, irb_broadcast(&t->b, r, full), irb_broadcast(&t->b, c, full));
}

static void test_tile_row_major(void) {
  T t;
  t_init(&t, "tile_row_major", 4);
  Value *in = arg(&t, "in_ptr", ptr(&t, DT_F32), 16), *out = arg(&t, "out_ptr", ptr(&t, DT_F32), 16);
  Value *stride = arg(&t, "stride", sc(&t, DT_I32), 16);
  Value *offs = offs2d(&t, 64, 64, stride, NULL);
  Value *x = load(&t, addptr(&t, in, offs), NULL, NULL);
  store(&t, addptr(&t, out, offs), x, NULL);
  ret(&t);
  CHECK(pipeline(&t) == 0);
  show(&t);
  Op *ld = nth_op(&t, OP_LOAD, 0);
  const Layout *l = layout_of(ld->results[0]);
  CHECK(l->kind == LAY_BLOCKED && l->order[0] == 1 && l->order[1] == 0);
  CHECK(l->spt[1] == 4 && l->spt[0] == 1 && l->tpw[1] == 16 && l->tpw[0] == 2);
  CHECK(ld->attr.vec == 4);
  CHECK(nth_op(&t, OP_STORE, 0)->attr.vec == 4);
  CHECK(count_ops(&t, OP_CONVERT_LAYOUT) == 0);
  /* rows and cols are one arange after CSE, used in two slice layouts:
   * recomputed, never converted */
  CHECK(count_ops(&t, OP_ARANGE) == 2);
  Op *ed0 = nth_op(&t, OP_EXPAND_DIMS, 0), *ed1 = nth_op(&t, OP_EXPAND_DIMS, 1);
  CHECK(ed0 && ed1 && ed0->operands[0] != ed1->operands[0]);
  CHECK(verify(&t, true) == 0);
  t_free(&t);
}

static void test_tile_col_major(void) {
  T t;
  t_init(&t, "tile_dim0_contiguous", 4);
  Value *in = arg(&t, "in_ptr", ptr(&t, DT_F32), 16), *out = arg(&t, "out_ptr", ptr(&t, DT_F32), 16);
  Value *stride = arg(&t, "stride", sc(&t, DT_I32), 16);
  /* row[:, None] + col[None, :] * stride: dim 0 is the contiguous one */
  Value *offs = offs2d(&t, 64, 64, NULL, stride);
  Value *x = load(&t, addptr(&t, in, offs), NULL, NULL);
  store(&t, addptr(&t, out, offs), x, NULL);
  ret(&t);
  CHECK(pipeline(&t) == 0);
  show(&t);
  Op *ld = nth_op(&t, OP_LOAD, 0);
  const Layout *l = layout_of(ld->results[0]);
  CHECK(l->kind == LAY_BLOCKED && l->order[0] == 0 && l->order[1] == 1);
  CHECK(l->spt[0] == 4 && l->spt[1] == 1);
  CHECK(ld->attr.vec == 4);
  CHECK(count_ops(&t, OP_CONVERT_LAYOUT) == 0);
  CHECK(verify(&t, true) == 0);
  t_free(&t);
}

/* x - max(x, axis=1)[:, None], stored back: reduce, expand_dims and
 * broadcast stay in the load's layout family, so nothing converts. */
static void test_row_reduction(void) {
  T t;
  t_init(&t, "row_reduction", 4);
  Value *in = arg(&t, "in_ptr", ptr(&t, DT_F32), 16), *out = arg(&t, "out_ptr", ptr(&t, DT_F32), 16);
  Value *stride = arg(&t, "stride", sc(&t, DT_I32), 16);
  Value *offs = offs2d(&t, 32, 64, stride, NULL);
  Value *x = load(&t, addptr(&t, in, offs), NULL, NULL);
  Value *mx = reduce(&t, x, 1, COMBINE_MAX);
  Value *e = irb_broadcast(&t.b, irb_expand_dims(&t.b, mx, 1), x->type);
  store(&t, addptr(&t, out, offs), irb_binary(&t.b, OP_SUB, x, e), NULL);
  ret(&t);
  CHECK(pipeline(&t) == 0);
  show(&t);
  CHECK(count_ops(&t, OP_CONVERT_LAYOUT) == 0);
  Op *ld = nth_op(&t, OP_LOAD, 0), *rd = nth_op(&t, OP_REDUCE, 0);
  CHECK(rd && layout_of(rd->results[0]) == lay_slice(t.c, 1, layout_of(ld->results[0])));
  CHECK(nth_op(&t, OP_STORE, 0)->attr.vec == 4);
  CHECK(verify(&t, true) == 0);
  t_free(&t);
}

/* A tile loaded row-major and stored column-major: the two anchors
 * disagree on the value, so exactly one convert_layout moves it; the
 * index arithmetic is recomputed rather than converted. */
static void test_transpose_store(void) {
  T t;
  t_init(&t, "transpose_store", 4);
  Value *in = arg(&t, "in_ptr", ptr(&t, DT_F16), 16), *out = arg(&t, "out_ptr", ptr(&t, DT_F16), 16);
  Value *stride = arg(&t, "stride", sc(&t, DT_I32), 16);
  Value *x = load(&t, addptr(&t, in, offs2d(&t, 64, 64, stride, NULL)), NULL, NULL);
  store(&t, addptr(&t, out, offs2d(&t, 64, 64, NULL, stride)), x, NULL);
  ret(&t);
  CHECK(pipeline(&t) == 0);
  show(&t);
  CHECK(count_ops(&t, OP_CONVERT_LAYOUT) == 1);
  Op *cv = nth_op(&t, OP_CONVERT_LAYOUT, 0);
  Op *ld = nth_op(&t, OP_LOAD, 0), *st = nth_op(&t, OP_STORE, 0);
  CHECK(cv && cv->operands[0] == ld->results[0] && st->operands[1] == cv->results[0]);
  CHECK(layout_of(ld->results[0])->order[0] == 1 && layout_of(st->operands[0])->order[0] == 0);
  CHECK(layout_of(cv->results[0]) == layout_of(st->operands[0]));
  CHECK(ld->attr.vec == 8 && st->attr.vec == 8); /* f16: 16 bytes = 8 elements */
  CHECK(verify(&t, true) == 0);
  t_free(&t);
}

/* ---- loops ------------------------------------------------------------------------------- */

/* acc = 0; p = x + arange(512); for i in range(n): acc += load(p); p += step
 * then store acc.  Returns the FOR op. */
static Op *build_loop(T *t, int64_t step) {
  Value *x = arg(t, "x_ptr", ptr(t, DT_F32), 16), *out = arg(t, "out_ptr", ptr(t, DT_F32), 16);
  Value *n = arg(t, "n", sc(t, DT_I32), 1);
  Value *ar = irb_arange(&t->b, 0, 512);
  Value *p0 = addptr(t, x, ar);
  Value *acc0 = splat_like(t, cflt(t, DT_F32, 0.0), ten1(t, sc(t, DT_F32), 512));
  Value *ops[5] = {cint(t, DT_I32, 0), n, cint(t, DT_I32, 1), acc0, p0};
  const Type *rts[2] = {acc0->type, p0->type};
  Op *loop = ir_op_new(t->m, t->f, OP_FOR, (Loc){0}, ops, 5, rts, 2, 1);
  irb_insert(&t->b, loop);
  IrBlock *body = loop->regions[0];
  ir_block_add_arg(t->m, t->f, body, sc(t, DT_I32));
  Value *acc = ir_block_add_arg(t->m, t->f, body, acc0->type);
  Value *p = ir_block_add_arg(t->m, t->f, body, p0->type);
  IrBuilder saved = t->b;
  irb_init(&t->b, t->m, t->f, body);
  Value *v = load(t, p, NULL, NULL);
  Value *acc2 = irb_binary(&t->b, OP_ADD, acc, v);
  Value *p2 = irb_binary(&t->b, OP_ADDPTR, p, splat_like(t, cint(t, DT_I32, step), ar->type));
  Value *ys[2] = {acc2, p2};
  irb_op(&t->b, OP_YIELD, ys, 2, NULL);
  t->b = saved;
  store(t, addptr(t, out, ar), loop->results[0], NULL);
  ret(t);
  return loop;
}

static void test_loop_pointer(void) {
  T t;
  t_init(&t, "loop_pointer_advance", 4);
  Op *loop = build_loop(&t, 512);
  AxisInfo *ai = axis_analyze(t.m);
  const AxisInfo *pa = &ai[loop->regions[0]->args[2]->id];
  CHECK(pa->divisibility[0] == 16 && pa->contiguity[0] == 512);
  CHECK(ai[loop->results[1]->id].divisibility[0] == 16);
  free(ai);
  CHECK(pipeline(&t) == 0);
  show(&t);
  Op *ld = nth_op(&t, OP_LOAD, 0);
  CHECK(ld && ld->attr.vec == 4);
  CHECK(count_ops(&t, OP_CONVERT_LAYOUT) == 0);
  Op *f = nth_op(&t, OP_FOR, 0);
  CHECK(f && layout_of(f->results[0]) == layout_of(ld->results[0]));
  CHECK(f && layout_of(f->operands[4]) == layout_of(ld->results[0]));
  CHECK(verify(&t, true) == 0);
  t_free(&t);

  /* advancing by 3 floats (12 bytes) leaves only 4-byte alignment after
   * the first trip: the fixpoint must notice */
  t_init(&t, "loop_pointer_misaligning", 4);
  loop = build_loop(&t, 3);
  ai = axis_analyze(t.m);
  CHECK(ai[loop->regions[0]->args[2]->id].divisibility[0] == 4);
  CHECK(ai[loop->regions[0]->args[2]->id].contiguity[0] == 512);
  free(ai);
  CHECK(pipeline(&t) == 0);
  CHECK(nth_op(&t, OP_LOAD, 0)->attr.vec == 1);
  t_free(&t);
}

/* acc = load(row-major); for: acc += load(column-major); store(row-major, acc):
 * the loop-carried slot keeps the layout it entered with and the one
 * disagreeing load is converted inside the loop, once. */
static void test_loop_conflict(void) {
  T t;
  t_init(&t, "loop_conflict", 4);
  Value *a = arg(&t, "a_ptr", ptr(&t, DT_F32), 16), *bp = arg(&t, "b_ptr", ptr(&t, DT_F32), 16);
  Value *out = arg(&t, "out_ptr", ptr(&t, DT_F32), 16);
  Value *stride = arg(&t, "stride", sc(&t, DT_I32), 16), *n = arg(&t, "n", sc(&t, DT_I32), 1);
  Value *rm = offs2d(&t, 32, 32, stride, NULL), *cm = offs2d(&t, 32, 32, NULL, stride);
  Value *acc0 = load(&t, addptr(&t, a, rm), NULL, NULL);
  Value *ops[4] = {cint(&t, DT_I32, 0), n, cint(&t, DT_I32, 1), acc0};
  Op *loop = ir_op_new(t.m, t.f, OP_FOR, (Loc){0}, ops, 4, &acc0->type, 1, 1);
  irb_insert(&t.b, loop);
  IrBlock *body = loop->regions[0];
  ir_block_add_arg(t.m, t.f, body, sc(&t, DT_I32));
  Value *acc = ir_block_add_arg(t.m, t.f, body, acc0->type);
  IrBuilder saved = t.b;
  irb_init(&t.b, t.m, t.f, body);
  Value *v = load(&t, addptr(&t, bp, cm), NULL, NULL);
  Value *sum = irb_binary(&t.b, OP_ADD, acc, v);
  irb_op(&t.b, OP_YIELD, &sum, 1, NULL);
  t.b = saved;
  store(&t, addptr(&t, out, rm), loop->results[0], NULL);
  ret(&t);
  CHECK(pipeline(&t) == 0);
  show(&t);
  CHECK(count_ops(&t, OP_CONVERT_LAYOUT) == 1);
  Op *cv = nth_op(&t, OP_CONVERT_LAYOUT, 0), *f = nth_op(&t, OP_FOR, 0);
  CHECK(cv && f && cv->parent == f->regions[0] && cv->operands[0]->def->kind == OP_LOAD);
  CHECK(f && f->results[0]->type == f->operands[3]->type &&
        f->regions[0]->args[1]->type == f->operands[3]->type);
  CHECK(f && f->operands[3]->type->layout->order[0] == 1);
  CHECK(verify(&t, true) == 0);
  t_free(&t);
}

/* ---- AxisInfo transfer rules ------------------------------------------------------------------ */

static void test_axis_rules(void) {
  T t;
  t_init(&t, "axis_rules", 4);
  Value *ar = irb_arange(&t.b, 0, 128);
  Value *c32 = splat_like(&t, cint(&t, DT_I32, 32), ar->type);
  Value *rem = irb_binary(&t.b, OP_REM, ar, c32);                  /* runs of 32 */
  Value *dv = irb_binary(&t.b, OP_DIV, ar, c32);                   /* constant over 32 */
  Value *sh = irb_binary(&t.b, OP_SHL, ar, splat_like(&t, cint(&t, DT_I32, 2), ar->type));
  Value *ext = irb_cast(&t.b, ar, ten1(&t, sc(&t, DT_I64), 128));  /* keeps everything */
  Value *hint = irb_unary(&t.b, OP_ASSUME, irb_binary(&t.b, OP_MUL, ar, ar));
  hint->def->attr.hint_div[0] = 8, hint->def->attr.hint_contig[0] = 4;
  Value *ge = irb_cmp(&t.b, CMP_GE, ar, splat_like(&t, cint(&t, DT_I32, 64), ar->type));
  ret(&t);
  AxisInfo *ai = axis_analyze(t.m);
  CHECK(ai[ar->id].contiguity[0] == 128);
  CHECK(ai[rem->id].contiguity[0] == 32 && ai[rem->id].constancy[0] == 1);
  CHECK(ai[dv->id].constancy[0] == 32 && ai[dv->id].contiguity[0] == 1);
  CHECK(ai[sh->id].contiguity[0] == 1 && ai[sh->id].divisibility[0] == 4);
  CHECK(ai[ext->id].contiguity[0] == 128);
  CHECK(ai[hint->id].divisibility[0] == 8 && ai[hint->id].contiguity[0] == 4);
  CHECK(ai[ge->id].constancy[0] == 64);
  CHECK(ai[c32->id].has_const && ai[c32->id].const_val == 32 && ai[c32->id].constancy[0] == 128);
  free(ai);
  t_free(&t);
}

/* ---- every op kind through the pipeline ---------------------------------------------------- */

/* trans, argmax, dot, reshape, atomics, scalar accesses, IF and WHILE with
 * tensor values: the pipeline must leave IR the verifier accepts with
 * layouts, and the per-op layout rules must hold. */
static void test_all_kinds(void) {
  T t;
  t_init(&t, "all_kinds", 4);
  IrBuilder *b = &t.b;
  Value *in = arg(&t, "in_ptr", ptr(&t, DT_F32), 16), *out = arg(&t, "out_ptr", ptr(&t, DT_F32), 16);
  Value *iout = arg(&t, "idx_ptr", ptr(&t, DT_I32), 16);
  Value *stride = arg(&t, "stride", sc(&t, DT_I32), 16), *n = arg(&t, "n", sc(&t, DT_I32), 1);
  Value *c = arg(&t, "c", sc(&t, DT_I1), 1);
  Value *offs = offs2d(&t, 32, 32, stride, NULL);
  Value *x = load(&t, addptr(&t, in, offs), NULL, NULL);
  const Type *tile = x->type;

  /* trans, stored through the row-major pointer */
  Op *tr = irb_op(b, OP_TRANS, &x, 1, tile);
  tr->attr.perm[0] = 1, tr->attr.perm[1] = 0;
  store(&t, addptr(&t, out, offs), tr->results[0], NULL);

  /* argmax along dim 0 */
  Value *idx = irb_arange(b, 0, 32);
  idx = irb_broadcast(b, irb_expand_dims(b, idx, 1), ten2(&t, sc(&t, DT_I32), 32, 32));
  Value *rops[2] = {x, idx};
  const Type *rts[2] = {ten1(&t, sc(&t, DT_F32), 32), ten1(&t, sc(&t, DT_I32), 32)};
  Op *am = ir_op_new(t.m, t.f, OP_REDUCE, (Loc){0}, rops, 2, rts, 2, 0);
  am->attr.axis = 0, am->attr.combine = COMBINE_ARGMAX;
  irb_insert(b, am);
  Value *col = irb_arange(b, 0, 32);
  store(&t, addptr(&t, iout, col), am->results[1], NULL);

  /* dot */
  Value *zeros = splat_like(&t, cflt(&t, DT_F32, 0.0), tile);
  Value *dops[3] = {x, tr->results[0], zeros};
  Op *dot = irb_op(b, OP_DOT, dops, 3, tile);
  store(&t, addptr(&t, out, offs), dot->results[0], NULL);

  /* reshape to 1-D and a masked atomic add */
  Value *flat = irb_op(b, OP_RESHAPE, &x, 1, ten1(&t, sc(&t, DT_F32), 1024))->results[0];
  Value *f1 = irb_arange(b, 0, 1024);
  Value *fm = irb_cmp(b, CMP_LT, f1, splat_like(&t, n, f1->type));
  Value *aops[3] = {addptr(&t, out, f1), flat, fm};
  Op *at = irb_op(b, OP_ATOMIC_RMW, aops, 3, flat->type);
  at->attr.rmw = RMW_FADD;

  /* scalar load and store */
  Value *s = load(&t, in, NULL, NULL);
  store(&t, out, s, NULL);

  /* if c: x else zeros */
  Op *iff = ir_op_new(t.m, t.f, OP_IF, (Loc){0}, &c, 1, &tile, 1, 2);
  irb_insert(b, iff);
  IrBuilder saved = t.b;
  irb_init(b, t.m, t.f, iff->regions[0]);
  irb_op(b, OP_YIELD, &x, 1, NULL);
  irb_init(b, t.m, t.f, iff->regions[1]);
  Value *z2 = splat_like(&t, cflt(&t, DT_F32, 1.0), tile);
  irb_op(b, OP_YIELD, &z2, 1, NULL);
  t.b = saved;

  /* while i < n: v = v + v; i += 1 */
  Value *wops[2] = {iff->results[0], cint(&t, DT_I32, 0)};
  const Type *wts[2] = {tile, sc(&t, DT_I32)};
  Op *wh = ir_op_new(t.m, t.f, OP_WHILE, (Loc){0}, wops, 2, wts, 2, 2);
  irb_insert(b, wh);
  Value *bv = ir_block_add_arg(t.m, t.f, wh->regions[0], tile);
  Value *bi = ir_block_add_arg(t.m, t.f, wh->regions[0], sc(&t, DT_I32));
  Value *av = ir_block_add_arg(t.m, t.f, wh->regions[1], tile);
  Value *ai_ = ir_block_add_arg(t.m, t.f, wh->regions[1], sc(&t, DT_I32));
  saved = t.b;
  irb_init(b, t.m, t.f, wh->regions[0]);
  Value *cops[3] = {irb_cmp(b, CMP_LT, bi, n), bv, bi};
  irb_op(b, OP_CONDITION, cops, 3, NULL);
  irb_init(b, t.m, t.f, wh->regions[1]);
  Value *yops[2] = {irb_binary(b, OP_ADD, av, av), irb_binary(b, OP_ADD, ai_, cint(&t, DT_I32, 1))};
  irb_op(b, OP_YIELD, yops, 2, NULL);
  t.b = saved;
  store(&t, addptr(&t, out, offs), wh->results[0], NULL);
  ret(&t);

  CHECK(pipeline(&t) == 0);
  show(&t);
  CHECK(verify(&t, true) == 0);
  Op *tr2 = nth_op(&t, OP_TRANS, 0);
  CHECK(tr2 && tr2->results[0]->type->layout ==
                   lay_permute(t.c, tr2->operands[0]->type->layout, tr2->attr.perm));
  Op *d2 = nth_op(&t, OP_DOT, 0);
  CHECK(d2 && d2->operands[2]->type->layout == d2->results[0]->type->layout);
  Op *r2 = nth_op(&t, OP_REDUCE, 0);
  CHECK(r2 && r2->operands[1]->type->layout == r2->operands[0]->type->layout &&
        r2->results[1]->type->layout == r2->results[0]->type->layout);
  Op *a2 = nth_op(&t, OP_ATOMIC_RMW, 0);
  CHECK(a2 && a2->attr.vec == 1 && a2->results[0]->type->layout == a2->operands[0]->type->layout);
  Op *w2 = nth_op(&t, OP_WHILE, 0);
  CHECK(w2 && w2->operands[0]->type == w2->regions[0]->args[0]->type &&
        w2->results[0]->type == w2->regions[1]->args[0]->type);
  CHECK(nth_op(&t, OP_LOAD, 1) && nth_op(&t, OP_LOAD, 1)->attr.vec == 1); /* the scalar load */
  t_free(&t);
}

/* ---- pipeline plumbing ---------------------------------------------------------------------------- */

static void test_pipeline_options(void) {
  T t;
  t_init(&t, "pipeline_dump_after", 4);
  build_vector_add(&t, 16, 16, true);
  StrBuf dump;
  sb_init(&dump);
  DiagEngine err;
  diag_init(&err);
  PassOptions po = {.verify_each = true, .dump_after = "canonicalize", .dump = &dump, .diag = &err};
  CHECK(pass_run_pipeline(t.m, &po) == 0);
  const char *hdr = "// -----// IR after canonicalize //----- //\n";
  const char *first = dump.data ? strstr(dump.data, hdr) : NULL;
  CHECK(first && strstr(first + 1, hdr)); /* canonicalize runs twice */
  CHECK(first && strstr(first, "#blocked0")); /* the second dump has layouts */
  CHECK(err.nerrors == 0);
  CHECK(pass_exists("coalesce") && pass_exists("assign-layouts") && !pass_exists("nope"));
  sb_free(&dump);
  diag_free(&err);
  t_free(&t);

  /* --verify-each names the pass that broke the IR: a module without a
   * return fails right after the first pass */
  t_init(&t, "pipeline_verify_each", 4);
  cint(&t, DT_I32, 1);
  diag_init(&err);
  PassOptions po2 = {.verify_each = true, .diag = &err};
  CHECK(pass_run_pipeline(t.m, &po2) != 0);
  CHECK(err.ninternal == 1 && err.out.data && strstr(err.out.data, "after pass 'canonicalize'"));
  diag_free(&err);
  t_free(&t);
}

int main(int argc, char **argv) {
  verbose = argc > 1 && !strcmp(argv[1], "-v");
  test_vector_add();
  test_vector_add_unaligned();
  test_axis_info_vector_add();
  test_tile_row_major();
  test_tile_col_major();
  test_row_reduction();
  test_transpose_store();
  test_loop_pointer();
  test_loop_conflict();
  test_axis_rules();
  test_all_kinds();
  test_pipeline_options();
  return finish("test_passes_layouts");
}
