/* test_passes.c — what the lit tests of tests/lit/passes cannot see: the
 * AxisInfo analysis itself (contiguity, divisibility and constancy of each
 * value through arithmetic, casts, hints and loops) and the pass manager's
 * plumbing (--dump-after, --verify-each naming the pass that broke the IR).
 * The IR is text read by ir/reader.c, as in the lit tests; what the passes
 * make of it is checked there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "passes/passes.h"
#include "tests/unit/test_util.h"

static Arena arena;

static IrModule *read_ir(const char *name, const char *text) {
  DiagEngine d;
  diag_init(&d);
  diag_add_source(&d, name, text);
  IrModule *m = ir_read_module(name, text, &arena, &d);
  CHECK(m != NULL, "%s does not read: %s", name, d.out.data ? d.out.data : "");
  diag_free(&d);
  return m;
}

typedef struct Found {
  OpKind kind;
  int nth;
  Op *op;
} Found;

static void find_visit(Op *op, void *ud) {
  Found *f = ud;
  if (op->kind == f->kind && f->nth-- == 0) f->op = op;
}

/* The nth op of kind k in program order (pre-order), or NULL. */
static Op *nth_op(IrModule *m, OpKind k, int nth) {
  Found f = {k, nth, NULL};
  ir_walk(m->func->body, find_visit, &f);
  CHECK(f.op != NULL, "no %s number %d", ir_op_info[k].name, nth);
  return f.op;
}

/* ---- AxisInfo ------------------------------------------------------------------------------ */

static const char *vector_add =
    "func @vector_add(%x: ptr<f32> {div=16}, %out: ptr<f32> {div=16}, %n: i32 {div=16}) {num_warps=4} {\n"
    "  %0 = program_id {axis=0} : i32\n"
    "  %1 = constant 1024 : i32\n"
    "  %2 = mul %0, %1 : i32\n"
    "  %3 = arange {start=0, end=1024} : tensor<1024xi32>\n"
    "  %4 = splat %2 : i32 -> tensor<1024xi32>\n"
    "  %5 = add %4, %3 : tensor<1024xi32>\n"
    "  %6 = splat %n : i32 -> tensor<1024xi32>\n"
    "  %7 = cmp %5, %6 {pred=lt} : tensor<1024xi1>\n"
    "  %8 = splat %x : ptr<f32> -> tensor<1024xptr<f32>>\n"
    "  %9 = addptr %8, %5 : tensor<1024xptr<f32>>\n"
    "  %10 = load %9, mask=%7 : tensor<1024xf32>\n"
    "  %11 = splat %out : ptr<f32> -> tensor<1024xptr<f32>>\n"
    "  %12 = addptr %11, %5 : tensor<1024xptr<f32>>\n"
    "  store %12, %10, mask=%7 : tensor<1024xf32>\n"
    "  return\n"
    "}\n";

static void test_axis_vector_add(void) {
  IrModule *m = read_ir("vector_add", vector_add);
  if (!m) return;
  AxisInfo *ai = axis_analyze(m);
  Op *ld = nth_op(m, OP_LOAD, 0);
  const AxisInfo *p = &ai[ld->operands[0]->id], *mk = &ai[ld->operands[1]->id];
  const AxisInfo *offs = &ai[nth_op(m, OP_ADD, 0)->results[0]->id];
  CHECK(offs->contiguity[0] == 1024 && offs->divisibility[0] == 1024);
  CHECK(p->contiguity[0] == 1024 && p->divisibility[0] == 16 && p->constancy[0] == 1);
  CHECK(mk->constancy[0] == 16, "the mask is constant over runs of n's divisibility");
  free(ai);
}

/* acc += load(p); p += STEP, through the loop-carried pointer */
static const char *loop_text = /* STEP is replaced */
    "func @loop(%x: ptr<f32> {div=16}, %n: i32) {num_warps=4} {\n"
    "  %0 = arange {start=0, end=512} : tensor<512xi32>\n"
    "  %1 = splat %x : ptr<f32> -> tensor<512xptr<f32>>\n"
    "  %2 = addptr %1, %0 : tensor<512xptr<f32>>\n"
    "  %3 = constant 0 : tensor<512xf32>\n"
    "  %4 = constant 0 : i32\n"
    "  %5 = constant 1 : i32\n"
    "  %6 = constant STEP : tensor<512xi32>\n"
    "  %7, %8 = for %9 = %4 to %n step %5 iter_args(%10 = %3, %11 = %2) : (tensor<512xf32>, tensor<512xptr<f32>>) {\n"
    "    %12 = load %11 : tensor<512xf32>\n"
    "    %13 = add %10, %12 : tensor<512xf32>\n"
    "    %14 = addptr %11, %6 : tensor<512xptr<f32>>\n"
    "    yield %13, %14 : tensor<512xf32>\n"
    "  }\n"
    "  store %2, %7 : tensor<512xf32>\n"
    "  return\n"
    "}\n";

static void test_axis_loop(int step, int64_t want_div) {
  char text[2048];
  const char *at = strstr(loop_text, "STEP");
  snprintf(text, sizeof text, "%.*s%d%s", (int)(at - loop_text), loop_text, step, at + 4);
  IrModule *m = read_ir("loop", text);
  if (!m) return;
  AxisInfo *ai = axis_analyze(m);
  Op *f = nth_op(m, OP_FOR, 0);
  const AxisInfo *arg = &ai[f->regions[0]->args[2]->id], *res = &ai[f->results[1]->id];
  CHECK(arg->divisibility[0] == want_div && arg->contiguity[0] == 512, "step %d: div %lld contig %lld", step,
        (long long)arg->divisibility[0], (long long)arg->contiguity[0]);
  CHECK(res->divisibility[0] == want_div, "step %d: the loop's result", step);
  free(ai);
}

static const char *rules =
    "func @rules() {num_warps=4} {\n"
    "  %0 = arange {start=0, end=128} : tensor<128xi32>\n"
    "  %1 = constant 32 : tensor<128xi32>\n"
    "  %2 = rem %0, %1 : tensor<128xi32>\n"
    "  %3 = div %0, %1 : tensor<128xi32>\n"
    "  %4 = constant 2 : tensor<128xi32>\n"
    "  %5 = shl %0, %4 : tensor<128xi32>\n"
    "  %6 = cast %0 : tensor<128xi32> -> tensor<128xi64>\n"
    "  %7 = mul %0, %0 : tensor<128xi32>\n"
    "  %8 = assume %7 {div0=8, contig0=4} : tensor<128xi32>\n"
    "  %9 = constant 64 : tensor<128xi32>\n"
    "  %10 = cmp %0, %9 {pred=ge} : tensor<128xi1>\n"
    "  return\n"
    "}\n";

static void test_axis_rules(void) {
  IrModule *m = read_ir("rules", rules);
  if (!m) return;
  AxisInfo *ai = axis_analyze(m);
#define AI(kind, n) (&ai[nth_op(m, kind, n)->results[0]->id])
  CHECK(AI(OP_ARANGE, 0)->contiguity[0] == 128);
  CHECK(AI(OP_REM, 0)->contiguity[0] == 32 && AI(OP_REM, 0)->constancy[0] == 1, "arange rem 32: runs of 32");
  CHECK(AI(OP_DIV, 0)->constancy[0] == 32 && AI(OP_DIV, 0)->contiguity[0] == 1, "arange div 32: constant over 32");
  CHECK(AI(OP_SHL, 0)->contiguity[0] == 1 && AI(OP_SHL, 0)->divisibility[0] == 4);
  CHECK(AI(OP_CAST, 0)->contiguity[0] == 128, "a widening cast keeps everything");
  CHECK(AI(OP_ASSUME, 0)->divisibility[0] == 8 && AI(OP_ASSUME, 0)->contiguity[0] == 4, "multiple_of, max_contiguous");
  CHECK(AI(OP_CMP, 0)->constancy[0] == 64);
  const AxisInfo *c32 = AI(OP_CONSTANT, 0);
  CHECK(c32->has_const && c32->const_val == 32 && c32->constancy[0] == 128);
#undef AI
  free(ai);
}

/* ---- the pass manager ---------------------------------------------------------------------- */

static void test_dump_after(void) {
  IrModule *m = read_ir("vector_add", vector_add);
  if (!m) return;
  StrBuf dump;
  sb_init(&dump);
  DiagEngine d;
  diag_init(&d);
  PassOptions po = {.verify_each = true, .dump_after = "canonicalize", .dump = &dump, .diag = &d};
  CHECK(pass_run_pipeline(m, &po) == 0, "%s", d.out.data ? d.out.data : "");
  const char *hdr = "// -----// IR after canonicalize //----- //\n";
  const char *first = dump.data ? strstr(dump.data, hdr) : NULL;
  CHECK(first && strstr(first + 1, hdr), "canonicalize runs twice, dumped twice");
  CHECK(first && strstr(first + 1, "#blocked0"), "the second dump has layouts");
  CHECK(d.nerrors == 0);
  CHECK(pass_exists("coalesce") && pass_exists("assign-layouts") && !pass_exists("nope"));
  sb_free(&dump);
  diag_free(&d);
}

/* --verify-each names the pass that broke the IR: a function without a
 * return (which the reader accepts) fails right after the first pass, as an
 * internal error. */
static void test_verify_each(void) {
  IrModule *m = read_ir("no_return", "func @no_return() {num_warps=4} {\n  %0 = constant 1 : i32\n}\n");
  if (!m) return;
  DiagEngine d;
  diag_init(&d);
  PassOptions po = {.verify_each = true, .diag = &d};
  CHECK(pass_run_pipeline(m, &po) != 0);
  CHECK(d.ninternal == 1, "one internal error, got %d", d.ninternal);
  CHECK_CONTAINS(d.out.data, "after pass 'canonicalize'");
  diag_free(&d);
}

int main(void) {
  arena_init(&arena);
  test_axis_vector_add();
  test_axis_loop(512, 16);
  test_axis_loop(3, 4); /* 12 bytes a trip: only 4-byte alignment after the first */
  test_axis_rules();
  test_dump_after();
  test_verify_each();
  arena_free(&arena);
  return test_summary("test_passes");
}
