/* test_passes.h — helpers shared by the pass unit tests: a module under
 * construction (T), short type constructors, op counting, and CHECK, which
 * prints the failing expression and the current IR.
 *
 * Each test builds tile IR by hand with the builder, runs a pass or the
 * pipeline, and asserts on the result.  Everything is static: each test
 * program includes this header once. */
#ifndef TLC_TEST_PASSES_H
#define TLC_TEST_PASSES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "passes/passes.h"

static int failures, checks;
static const char *current_test;

typedef struct T {
  Arena arena;
  IrModule *m;
  IrFunc *f;
  IrContext *c;
  IrBuilder b;
} T;

static T *cur;

static inline void print_ir(const T *t) {
  StrBuf sb;
  sb_init(&sb);
  ir_print_module(&sb, t->m);
  printf("%s", sb.data ? sb.data : "");
  sb_free(&sb);
}

#define CHECK(cond)                                                             \
  do {                                                                          \
    checks++;                                                                   \
    if (!(cond)) {                                                              \
      failures++;                                                               \
      printf("FAIL %s:%d [%s]: %s\n", __FILE__, __LINE__, current_test, #cond); \
      if (cur) {                                                                \
        printf("---- IR:\n");                                                   \
        print_ir(cur);                                                          \
        printf("----\n");                                                       \
      }                                                                         \
    }                                                                           \
  } while (0)

static inline void t_init(T *t, const char *name, int num_warps) {
  arena_init(&t->arena);
  t->m = ir_module_new(&t->arena);
  t->m->num_warps = num_warps;
  t->c = t->m->ctx;
  t->f = ir_func_new(t->m, name, (Loc){0});
  irb_init(&t->b, t->m, t->f, t->f->body);
  cur = t;
  current_test = name;
}

static inline void t_free(T *t) {
  arena_free(&t->arena);
  cur = NULL;
}

static inline const Type *sc(T *t, DType d) { return ty_scalar(t->c, d); }
static inline const Type *ptr(T *t, DType d) { return ty_ptr(t->c, sc(t, d)); }
static inline const Type *ten(T *t, const Type *elem, int rank, const int64_t *shape) {
  return ty_tensor(t->c, elem, rank, shape, NULL);
}
static inline const Type *ten1(T *t, const Type *elem, int64_t n) { return ten(t, elem, 1, &n); }
static inline const Type *ten2(T *t, const Type *elem, int64_t a, int64_t b) {
  int64_t s[2] = {a, b};
  return ten(t, elem, 2, s);
}

static inline Value *arg(T *t, const char *name, const Type *ty, int div) {
  return ir_func_add_arg(t->m, t->f, name, ty, div);
}

static inline Value *cint(T *t, DType d, int64_t v) { return irb_const_int(&t->b, sc(t, d), v); }
static inline Value *cflt(T *t, DType d, double v) { return irb_const_float(&t->b, sc(t, d), v); }

/* A scalar splatted to `shape_of`'s shape. */
static inline Value *splat_like(T *t, Value *x, const Type *shape_of) {
  return irb_splat(&t->b, x, ty_with_elem(t->c, shape_of, x->type));
}

static inline Value *load(T *t, Value *p, Value *mask, Value *other) {
  Value *ops[3] = {p, mask, other};
  const Type *rt = ty_with_elem(t->c, p->type, p->type->pointee);
  return irb_op(&t->b, OP_LOAD, ops, 3, rt)->results[0];
}

static inline Op *store(T *t, Value *p, Value *v, Value *mask) {
  Value *ops[3] = {p, v, mask};
  return irb_op(&t->b, OP_STORE, ops, 3, NULL);
}

static inline Value *reduce(T *t, Value *x, int axis, CombineKind k) {
  const Type *xt = x->type;
  int64_t shape[IR_MAX_RANK];
  for (int i = 0, j = 0; i < xt->rank; i++)
    if (i != axis) shape[j++] = xt->shape[i];
  Op *op = irb_op(&t->b, OP_REDUCE, &x, 1, ty_tensor(t->c, ty_elem(t->c, xt), xt->rank - 1, shape, NULL));
  op->attr.axis = axis, op->attr.combine = k;
  return op->results[0];
}

static inline void ret(T *t) { irb_op(&t->b, OP_RETURN, NULL, 0, NULL); }

/* ---- looking at the result ------------------------------------------------------ */

typedef struct Found {
  Op *ops[256];
  int n;
  OpKind kind;
} Found;

static inline void find_visit(Op *op, void *ud) {
  Found *fd = ud;
  if (op->kind == fd->kind && fd->n < 256) fd->ops[fd->n++] = op;
}

static inline int count_ops(T *t, OpKind k) {
  Found fd = {.kind = k};
  ir_walk(t->f->body, find_visit, &fd);
  return fd.n;
}

/* The nth op of kind k in program order, or NULL. */
static inline Op *nth_op(T *t, OpKind k, int nth) {
  static Found fd;
  memset(&fd, 0, sizeof fd);
  fd.kind = k;
  ir_walk(t->f->body, find_visit, &fd);
  return nth < fd.n ? fd.ops[nth] : NULL;
}

static inline int verify(T *t, bool layouts) {
  StrBuf sb;
  sb_init(&sb);
  int n = ir_verify(t->m, layouts, &sb);
  if (n) printf("%s", sb.data);
  sb_free(&sb);
  return n;
}

/* Run the whole pipeline with --verify-each; returns its status. */
static inline int pipeline(T *t) {
  DiagEngine err;
  diag_init(&err);
  PassOptions po = {.verify_each = true, .diag = &err};
  int rc = pass_run_pipeline(t->m, &po);
  if (rc) printf("pipeline errors:\n%s", err.out.data ? err.out.data : "");
  diag_free(&err);
  return rc;
}

static inline int finish(const char *prog) {
  printf("%s: %d checks, %d failures\n", prog, checks, failures);
  return failures ? 1 : 0;
}

#endif
