/* test_passes_canon.c — the canonicalize pass: integer folding with the
 * types' wraparound and signedness, float folding rounded to the type,
 * casts, algebraic identities, constant shape ops, convert_layout chains,
 * CSE (and its dominance rule), DCE, loop-carried value removal and IF on a
 * constant. */
#include <math.h>

#include "test_passes.h"

static void canon(T *t) {
  StrBuf err;
  sb_init(&err);
  CHECK(pass_canonicalize(t->m, &err) == 0);
  sb_free(&err);
  CHECK(verify(t, false) == 0);
}

/* Store v through a fresh scalar pointer argument so it stays alive. */
static Op *keep(T *t, Value *v) {
  static int n;
  char name[32];
  snprintf(name, sizeof name, "keep%d", n++);
  Value *p = arg(t, name, ty_ptr(t->c, ty_elem(t->c, v->type)), 1);
  return store(t, p, v, NULL);
}

static const Op *kept_def(Op *st) { return st->operands[1]->def; }

/* ---- integers ---------------------------------------------------------------------- */

typedef struct IntCase {
  DType dt;
  OpKind k;
  int64_t a, b;
  bool folds;
  int64_t want;
} IntCase;

static void test_int_folding(void) {
  static const IntCase cases[] = {
      {DT_I32, OP_ADD, INT32_MAX, 1, true, INT32_MIN},
      {DT_U8, OP_ADD, 200, 100, true, 44},
      {DT_I8, OP_MUL, 100, 3, true, 44},
      {DT_I64, OP_SUB, INT64_MIN, 1, true, INT64_MAX},
      {DT_I32, OP_DIV, -7, 2, true, -3},
      {DT_I32, OP_REM, -7, 2, true, -1},
      {DT_I32, OP_DIV, INT32_MIN, -1, true, INT32_MIN},
      {DT_I64, OP_DIV, INT64_MIN, -1, true, INT64_MIN},
      {DT_U32, OP_DIV, -1, 2, true, 2147483647},
      {DT_I32, OP_SHR, -8, 1, true, -4},
      {DT_U32, OP_SHR, -8, 1, true, 2147483644},
      {DT_I32, OP_SHL, 1, 31, true, INT32_MIN},
      {DT_I32, OP_SHL, 1, 32, false, 0},
      {DT_I32, OP_DIV, 1, 0, false, 0},
      {DT_I32, OP_REM, 1, 0, false, 0},
      {DT_I32, OP_MIN, -1, 1, true, -1},
      {DT_U32, OP_MIN, -1, 1, true, 1},
      {DT_U16, OP_MAX, -1, 1, true, 65535},
      {DT_I16, OP_XOR, 0x7fff, -1, true, -32768},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const IntCase *c = &cases[i];
    T t;
    char name[64];
    snprintf(name, sizeof name, "int_fold_%s_%s_%zu", ir_op_info[c->k].name, dt_name(c->dt), i);
    t_init(&t, name, 4);
    Value *r = irb_binary(&t.b, c->k, cint(&t, c->dt, c->a), cint(&t, c->dt, c->b));
    Op *st = keep(&t, r);
    ret(&t);
    canon(&t);
    const Op *d = kept_def(st);
    CHECK((d->kind == OP_CONSTANT) == c->folds);
    if (c->folds) CHECK(d->kind == OP_CONSTANT && d->attr.ival == c->want);
    t_free(&t);
  }
}

static void test_int_compare(void) {
  T t;
  t_init(&t, "int_compare", 4);
  Op *s1 = keep(&t, irb_cmp(&t.b, CMP_LT, cint(&t, DT_I32, -1), cint(&t, DT_I32, 1)));
  Op *s2 = keep(&t, irb_cmp(&t.b, CMP_LT, cint(&t, DT_U32, -1), cint(&t, DT_U32, 1)));
  Op *s3 = keep(&t, irb_cmp(&t.b, CMP_GE, cint(&t, DT_I8, -128), cint(&t, DT_I8, 127)));
  ret(&t);
  canon(&t);
  CHECK(kept_def(s1)->kind == OP_CONSTANT && kept_def(s1)->attr.ival == 1);
  CHECK(kept_def(s2)->kind == OP_CONSTANT && kept_def(s2)->attr.ival == 0);
  CHECK(kept_def(s3)->kind == OP_CONSTANT && kept_def(s3)->attr.ival == 0);
  t_free(&t);
}

/* ---- floats and casts --------------------------------------------------------------------- */

static double fold_float(DType dt, OpKind k, double a, double b, bool *folded) {
  T t;
  t_init(&t, "float_fold", 4);
  Op *st = keep(&t, irb_binary(&t.b, k, cflt(&t, dt, a), cflt(&t, dt, b)));
  ret(&t);
  canon(&t);
  const Op *d = kept_def(st);
  *folded = d->kind == OP_CONSTANT;
  double r = *folded ? d->attr.fval : 0;
  t_free(&t);
  return r;
}

static void test_float_folding(void) {
  bool f;
  current_test = "float_folding";
  CHECK(fold_float(DT_F32, OP_DIV, 1.0, 3.0, &f) == (double)(float)(1.0 / 3.0) && f);
  CHECK(fold_float(DT_F64, OP_DIV, 1.0, 3.0, &f) == 1.0 / 3.0 && f);
  /* f16 has 10 mantissa bits: 1 + 2^-11 ties to even (1.0), 1 + 3*2^-11 to 1 + 2^-9 */
  CHECK(fold_float(DT_F16, OP_ADD, 1.0, ldexp(1, -11), &f) == 1.0 && f);
  CHECK(fold_float(DT_F16, OP_ADD, 1.0, 3 * ldexp(1, -11), &f) == 1.0 + ldexp(1, -9) && f);
  CHECK(isinf(fold_float(DT_F16, OP_MUL, 65504.0, 2.0, &f)) && f);
  CHECK(fold_float(DT_F16, OP_MUL, ldexp(1, -14), ldexp(1, -10), &f) == ldexp(1, -24) && f); /* subnormal */
  CHECK(fold_float(DT_BF16, OP_ADD, 1.0, ldexp(1, -8), &f) == 1.0 && f);
  CHECK(fold_float(DT_BF16, OP_ADD, 1.0, 3 * ldexp(1, -8), &f) == 1.0 + ldexp(1, -6) && f);
  fold_float(DT_F32, OP_ADD, NAN, 1.0, &f);
  CHECK(!f);
  CHECK(fold_float(DT_F32, OP_MAX, -0.0, 0.0, &f) == 0.0 && f);
}

static void test_cast_folding(void) {
  T t;
  t_init(&t, "cast_folding", 4);
  Op *a = keep(&t, irb_cast(&t.b, cflt(&t, DT_F32, 3.75), sc(&t, DT_I32)));
  Op *b = keep(&t, irb_cast(&t.b, cflt(&t, DT_F32, -3.75), sc(&t, DT_I32)));
  Op *c = keep(&t, irb_cast(&t.b, cflt(&t, DT_F32, 1e10), sc(&t, DT_I32)));
  Op *d = keep(&t, irb_cast(&t.b, cint(&t, DT_I32, -1), sc(&t, DT_U8)));
  Op *e = keep(&t, irb_cast(&t.b, cint(&t, DT_U8, 255), sc(&t, DT_I32)));
  Op *g = keep(&t, irb_cast(&t.b, cint(&t, DT_I8, -1), sc(&t, DT_I32)));
  Op *h = keep(&t, irb_cast(&t.b, cint(&t, DT_I32, 16777217), sc(&t, DT_F32)));
  Op *k = keep(&t, irb_cast(&t.b, cflt(&t, DT_F64, 0.1), sc(&t, DT_F32)));
  ret(&t);
  canon(&t);
  CHECK(kept_def(a)->kind == OP_CONSTANT && kept_def(a)->attr.ival == 3);
  CHECK(kept_def(b)->kind == OP_CONSTANT && kept_def(b)->attr.ival == -3);
  CHECK(kept_def(c)->kind == OP_CAST); /* out of range: poison, not folded */
  CHECK(kept_def(d)->kind == OP_CONSTANT && kept_def(d)->attr.ival == 255);
  CHECK(kept_def(e)->kind == OP_CONSTANT && kept_def(e)->attr.ival == 255);
  CHECK(kept_def(g)->kind == OP_CONSTANT && kept_def(g)->attr.ival == -1);
  CHECK(kept_def(h)->kind == OP_CONSTANT && kept_def(h)->attr.fval == 16777216.0);
  CHECK(kept_def(k)->kind == OP_CONSTANT && kept_def(k)->attr.fval == (double)0.1f);
  t_free(&t);
}

/* ---- identities and shape ops ------------------------------------------------------------------ */

static void test_identities(void) {
  T t;
  t_init(&t, "identities", 4);
  Value *x = arg(&t, "x", sc(&t, DT_I32), 1), *bl = arg(&t, "b", sc(&t, DT_I1), 1);
  Value *fx = arg(&t, "fx", sc(&t, DT_F32), 1);
  Op *s[10];
  s[0] = keep(&t, irb_binary(&t.b, OP_ADD, x, cint(&t, DT_I32, 0)));
  s[1] = keep(&t, irb_binary(&t.b, OP_ADD, cint(&t, DT_I32, 0), x));
  s[2] = keep(&t, irb_binary(&t.b, OP_MUL, x, cint(&t, DT_I32, 1)));
  s[3] = keep(&t, irb_binary(&t.b, OP_SUB, x, cint(&t, DT_I32, 0)));
  s[4] = keep(&t, irb_binary(&t.b, OP_AND, bl, cint(&t, DT_I1, 1)));
  s[5] = keep(&t, irb_binary(&t.b, OP_OR, bl, cint(&t, DT_I1, 0)));
  s[6] = keep(&t, irb_binary(&t.b, OP_MUL, x, cint(&t, DT_I32, 0)));
  s[7] = keep(&t, irb_binary(&t.b, OP_MUL, fx, cflt(&t, DT_F32, 1.0)));
  s[8] = keep(&t, irb_binary(&t.b, OP_ADD, fx, cflt(&t, DT_F32, 0.0))); /* not an identity: -0 + 0 = +0 */
  s[9] = keep(&t, irb_select(&t.b, cint(&t, DT_I1, 0), x, cint(&t, DT_I32, 7)));
  ret(&t);
  canon(&t);
  for (int i = 0; i < 4; i++) CHECK(s[i]->operands[1] == x);
  CHECK(s[4]->operands[1] == bl && s[5]->operands[1] == bl);
  CHECK(kept_def(s[6])->kind == OP_CONSTANT && kept_def(s[6])->attr.ival == 0);
  CHECK(s[7]->operands[1] == fx);
  CHECK(kept_def(s[8]) && kept_def(s[8])->kind == OP_ADD);
  CHECK(kept_def(s[9])->kind == OP_CONSTANT && kept_def(s[9])->attr.ival == 7);
  t_free(&t);
}

static void test_constant_shapes(void) {
  T t;
  t_init(&t, "constant_shapes", 4);
  const Type *v64 = ten1(&t, sc(&t, DT_I32), 64);
  Value *sp = splat_like(&t, cint(&t, DT_I32, 5), v64);                /* -> tensor constant */
  Value *ed = irb_expand_dims(&t.b, sp, 0);                            /* -> constant [1, 64] */
  Value *bc = irb_broadcast(&t.b, ed, ten2(&t, sc(&t, DT_I32), 8, 64)); /* -> constant [8, 64] */
  Value *sum = irb_binary(&t.b, OP_ADD, bc, bc);                       /* -> constant 10 */
  Op *st = store(&t, splat_like(&t, arg(&t, "p", ptr(&t, DT_I32), 16), sum->type), sum, NULL);
  ret(&t);
  canon(&t);
  const Op *d = kept_def(st);
  CHECK(d->kind == OP_CONSTANT && d->attr.ival == 10 && d->results[0]->type == sum->type);
  CHECK(count_ops(&t, OP_SPLAT) == 1); /* only the pointer's */
  CHECK(count_ops(&t, OP_EXPAND_DIMS) == 0 && count_ops(&t, OP_BROADCAST) == 0);
  CHECK(count_ops(&t, OP_CONSTANT) == 1);
  t_free(&t);
}

static void test_convert_chains(void) {
  T t;
  t_init(&t, "convert_chains", 4);
  int64_t n = 256;
  int o = 0, one = 1, four = 4, w32 = 32, w8 = 8;
  const Layout *l1 = lay_blocked(t.c, 1, &one, &w32, &four, &o);
  const Layout *l2 = lay_blocked(t.c, 1, &four, &w32, &one, &o);
  const Layout *l3 = lay_blocked(t.c, 1, &one, &w8, &four, &o);
  (void)n;
  Value *p = arg(&t, "p", ptr(&t, DT_F32), 16);
  Value *pt = irb_splat(&t.b, p, ty_tensor(t.c, ptr(&t, DT_F32), 1, &n, l1));
  Value *x = load(&t, pt, NULL, NULL);
  Value *a = irb_convert(&t.b, irb_convert(&t.b, x, l2), l3);         /* -> one convert to l3 */
  Value *b = irb_convert(&t.b, irb_convert(&t.b, x, l2), l1);         /* -> x itself */
  Value *c = irb_op(&t.b, OP_CONVERT_LAYOUT, &x, 1, x->type)->results[0]; /* to its own layout */
  Op *s1 = keep(&t, irb_op(&t.b, OP_REDUCE, &a, 1, sc(&t, DT_F32))->results[0]);
  Op *s2 = store(&t, pt, b, NULL);
  Op *s3 = store(&t, pt, c, NULL);
  ret(&t);
  canon(&t);
  Op *r = s1->operands[1]->def;
  CHECK(r->kind == OP_REDUCE && r->operands[0]->def->kind == OP_CONVERT_LAYOUT &&
        r->operands[0]->def->operands[0] == x && r->operands[0]->type->layout == l3);
  CHECK(s2->operands[1] == x && s3->operands[1] == x);
  CHECK(count_ops(&t, OP_CONVERT_LAYOUT) == 1);
  t_free(&t);
}

/* ---- CSE and DCE ------------------------------------------------------------------------------------ */

static void test_cse(void) {
  T t;
  t_init(&t, "cse", 4);
  Value *x = arg(&t, "x", sc(&t, DT_I32), 1), *y = arg(&t, "y", sc(&t, DT_I32), 1);
  Value *c = arg(&t, "c", sc(&t, DT_I1), 1);
  Op *s1 = keep(&t, irb_binary(&t.b, OP_ADD, x, y));
  Op *s2 = keep(&t, irb_binary(&t.b, OP_ADD, y, x)); /* commutative */
  Op *s3 = keep(&t, irb_binary(&t.b, OP_SUB, y, x)); /* not */
  Value *u = irb_binary(&t.b, OP_MUL, x, y);
  keep(&t, u);
  /* if c: (mul x y, sub x x... ) — the then-branch's mul is u; the two
   * branches' xor ops must not merge with each other or with the one after */
  const Type *i32 = sc(&t, DT_I32);
  Op *iff = ir_op_new(t.m, t.f, OP_IF, (Loc){0}, &c, 1, &i32, 1, 2);
  irb_insert(&t.b, iff);
  IrBuilder saved = t.b;
  irb_init(&t.b, t.m, t.f, iff->regions[0]);
  Value *m2 = irb_binary(&t.b, OP_MUL, x, y);
  Value *x1 = irb_binary(&t.b, OP_XOR, x, y);
  Value *ty = irb_binary(&t.b, OP_ADD, m2, x1);
  irb_op(&t.b, OP_YIELD, &ty, 1, NULL);
  irb_init(&t.b, t.m, t.f, iff->regions[1]);
  Value *x2 = irb_binary(&t.b, OP_XOR, x, y);
  irb_op(&t.b, OP_YIELD, &x2, 1, NULL);
  t.b = saved;
  keep(&t, iff->results[0]);
  Op *s5 = keep(&t, irb_binary(&t.b, OP_XOR, x, y));
  ret(&t);
  canon(&t);
  CHECK(s1->operands[1] == s2->operands[1]);
  CHECK(s3->operands[1] != s1->operands[1] && s3->operands[1]->def->kind == OP_SUB);
  CHECK(count_ops(&t, OP_MUL) == 1);
  CHECK(count_ops(&t, OP_XOR) == 3);
  CHECK(s5->operands[1]->def->parent == t.f->body);
  Op *then_add = iff->regions[0]->last->operands[0]->def;
  CHECK(then_add->kind == OP_ADD && then_add->operands[0] == u);
  t_free(&t);
}

static void test_dce(void) {
  T t;
  t_init(&t, "dce", 4);
  Value *x = arg(&t, "x", sc(&t, DT_I32), 1);
  Value *p = arg(&t, "p", ptr(&t, DT_I32), 1);
  Value *a = irb_binary(&t.b, OP_ADD, x, cint(&t, DT_I32, 3));
  irb_binary(&t.b, OP_MUL, a, cint(&t, DT_I32, 5)); /* dead chain */
  load(&t, p, NULL, NULL);                          /* dead load */
  Op *vl = irb_op(&t.b, OP_LOAD, (Value *[]){p, NULL, NULL}, 3, sc(&t, DT_I32));
  vl->attr.is_volatile = true;                      /* kept */
  store(&t, p, x, NULL);                            /* kept */
  ret(&t);
  canon(&t);
  CHECK(count_ops(&t, OP_ADD) == 0 && count_ops(&t, OP_MUL) == 0);
  CHECK(count_ops(&t, OP_CONSTANT) == 0);
  CHECK(count_ops(&t, OP_LOAD) == 1 && nth_op(&t, OP_LOAD, 0)->attr.is_volatile);
  CHECK(count_ops(&t, OP_STORE) == 1);
  t_free(&t);
}

/* ---- control flow ------------------------------------------------------------------------------------ */

/* for i in [0, n): carries (a, b, c); the body is filled by `body`. */
typedef void (*BodyFn)(T *t, Value *iv, Value **args, Value **yields);

static Op *build_for(T *t, Value *n, Value **inits, int k, BodyFn body) {
  Value *ops[8] = {cint(t, DT_I32, 0), n, cint(t, DT_I32, 1)};
  const Type *rts[5];
  for (int i = 0; i < k; i++) ops[3 + i] = inits[i], rts[i] = inits[i]->type;
  Op *loop = ir_op_new(t->m, t->f, OP_FOR, (Loc){0}, ops, 3 + k, rts, k, 1);
  irb_insert(&t->b, loop);
  IrBlock *b = loop->regions[0];
  Value *iv = ir_block_add_arg(t->m, t->f, b, sc(t, DT_I32));
  Value *args[5], *ys[5];
  for (int i = 0; i < k; i++) args[i] = ir_block_add_arg(t->m, t->f, b, rts[i]);
  IrBuilder saved = t->b;
  irb_init(&t->b, t->m, t->f, b);
  body(t, iv, args, ys);
  irb_op(&t->b, OP_YIELD, ys, k, NULL);
  t->b = saved;
  return loop;
}

static Value *g_ptr;

/* a is passed through unchanged; b += a; c += 1 but c's result is unused */
static void body_unchanged(T *t, Value *iv, Value **a, Value **y) {
  (void)iv;
  y[0] = a[0];
  y[1] = irb_binary(&t->b, OP_ADD, a[1], a[0]);
  y[2] = irb_binary(&t->b, OP_ADD, a[2], cint(t, DT_I32, 1));
}

/* like body_unchanged, but c is also stored each trip: it must stay */
static void body_observed(T *t, Value *iv, Value **a, Value **y) {
  body_unchanged(t, iv, a, y);
  store(t, g_ptr, a[2], NULL);
}

static void test_loop_carried(void) {
  T t;
  t_init(&t, "loop_unchanged_iter_arg", 4);
  Value *x = arg(&t, "x", sc(&t, DT_I32), 1), *y = arg(&t, "y", sc(&t, DT_I32), 1);
  Value *n = arg(&t, "n", sc(&t, DT_I32), 1);
  Value *inits[3] = {x, y, cint(&t, DT_I32, 0)};
  Op *loop = build_for(&t, n, inits, 3, body_unchanged);
  Op *sa = keep(&t, loop->results[0]);
  Op *sb = keep(&t, loop->results[1]);
  ret(&t);
  canon(&t);
  Op *f = nth_op(&t, OP_FOR, 0);
  CHECK(f && f->nresults == 1 && f->noperands == 4 && f->regions[0]->nargs == 2);
  CHECK(sa->operands[1] == x);                    /* a's result is its init */
  CHECK(f && sb->operands[1] == f->results[0]);
  CHECK(f && f->operands[3] == y);
  Op *add = f ? f->regions[0]->last->operands[0]->def : NULL;
  CHECK(add && add->kind == OP_ADD && add->operands[1] == x); /* b += x now */
  CHECK(f && f->regions[0]->args[1]->index == 1);
  CHECK(count_ops(&t, OP_ADD) == 1); /* c's increment died with its slot */
  t_free(&t);

  t_init(&t, "loop_observed_iter_arg", 4);
  x = arg(&t, "x", sc(&t, DT_I32), 1), y = arg(&t, "y", sc(&t, DT_I32), 1);
  n = arg(&t, "n", sc(&t, DT_I32), 1);
  g_ptr = arg(&t, "p", ptr(&t, DT_I32), 1);
  inits[0] = x, inits[1] = y, inits[2] = cint(&t, DT_I32, 0);
  loop = build_for(&t, n, inits, 3, body_observed);
  keep(&t, loop->results[1]);
  ret(&t);
  canon(&t);
  f = nth_op(&t, OP_FOR, 0);
  CHECK(f && f->nresults == 2); /* a removed; c kept: the store reads it */
  CHECK(count_ops(&t, OP_ADD) == 2);
  t_free(&t);
}

static void test_if_constant(void) {
  T t;
  t_init(&t, "if_constant", 4);
  Value *x = arg(&t, "x", sc(&t, DT_I32), 1), *y = arg(&t, "y", sc(&t, DT_I32), 1);
  Value *c = cint(&t, DT_I1, 1);
  const Type *i32 = sc(&t, DT_I32);
  Op *iff = ir_op_new(t.m, t.f, OP_IF, (Loc){0}, &c, 1, &i32, 1, 2);
  irb_insert(&t.b, iff);
  IrBuilder saved = t.b;
  irb_init(&t.b, t.m, t.f, iff->regions[0]);
  Value *a = irb_binary(&t.b, OP_MUL, x, y);
  irb_op(&t.b, OP_YIELD, &a, 1, NULL);
  irb_init(&t.b, t.m, t.f, iff->regions[1]);
  irb_op(&t.b, OP_YIELD, &y, 1, NULL);
  t.b = saved;
  Op *st = keep(&t, iff->results[0]);
  ret(&t);
  canon(&t);
  CHECK(count_ops(&t, OP_IF) == 0);
  CHECK(st->operands[1] == a && a->def->parent == t.f->body);
  t_free(&t);
}

int main(void) {
  test_int_folding();
  test_int_compare();
  test_float_folding();
  test_cast_folding();
  test_identities();
  test_constant_shapes();
  test_convert_chains();
  test_cse();
  test_dce();
  test_loop_carried();
  test_if_constant();
  return finish("test_passes_canon");
}
