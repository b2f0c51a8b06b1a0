/* verifier.c — structural and type checks of the tile IR.
 *
 * Checks: arities from ops.def; SSA visibility (a value is used only after
 * its definition, in the same block or an enclosing one); region shapes and
 * terminators (FOR/IF yield what the op returns, WHILE's before region ends
 * in CONDITION, the function body in RETURN); the type rule of each op; and,
 * once layouts are assigned, that layouts agree along every op.  Problems
 * are internal errors: the specializer and passes must never produce them. */
#include "ir/ir_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct Verifier {
  const IrModule *m;
  bool layouts;
  StrBuf *out;
  int nerrors;
  uint8_t *visible; /* Value.id -> currently in scope */
  uint32_t nvalues;
} Verifier;

static void fail(Verifier *v, const Op *op, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(Verifier *v, const Op *op, const char *fmt, ...) {
  v->nerrors++;
  if (v->nerrors > 20) return;
  if (op && op->loc.file)
    sb_printf(v->out, "%s:%d:%d: ", op->loc.file, op->loc.line, op->loc.col);
  sb_puts(v->out, "error: IR verifier: ");
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(v->out, fmt, ap);
  va_end(ap);
  if (op) {
    sb_puts(v->out, "\n  in: ");
    ir_print_op(v->out, op);
  } else {
    sb_putc(v->out, '\n');
  }
}

static bool same_shape(const Type *a, const Type *b) {
  if (a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->shape[i] != b->shape[i]) return false;
  return true;
}

static void check_layout_eq(Verifier *v, const Op *op, const Value *a, const Value *b) {
  if (!v->layouts || !a || !b || !a->type->rank || !b->type->rank) return;
  if (a->type->layout != b->type->layout) fail(v, op, "operands/results of one op have different layouts");
}

/* A bulk tensor copy (tma_copy, tma_store): operand 0 the hidden tensor
 * map, operand 1 the shared buffer, one scalar integer coordinate per dim
 * from operand `first` on (and every operand from 3 on an integer scalar). */
static void check_bulk(Verifier *v, const Op *op, int first) {
  Value *const *o = op->operands;
  const char *name = ir_op_info[op->kind].name;
  const Type *bt = o[1]->type;
  if (!ty_is_ptr(o[0]->type) || o[0]->type->rank) fail(v, op, "%s's map is a hidden tensor-map parameter", name);
  if (v->layouts && (!bt->layout || bt->layout->kind != LAY_SHARED)) fail(v, op, "%s needs a shared buffer", name);
  /* one coordinate per dim of the map: the buffer's, then outer dims of box 1 */
  int rank = bt->rank;
  for (int i = 0; v->m->func && i < v->m->func->ntma; i++)
    if (v->m->func->tma[i].param == o[0]) rank = v->m->func->tma[i].rank;
  if (rank < bt->rank || op->noperands - first != rank)
    fail(v, op, "%s needs one coordinate per dim of its map (%d)", name, rank);
  for (int i = first < 3 ? first : 3; i < op->noperands; i++)
    if (o[i]->type->rank || !dt_is_int(o[i]->type->dtype)) fail(v, op, "operand %d must be a scalar integer", i);
}

/* A MATHFN op: its operand count and mathfns.def's typing rule, every
 * operand in the result's shape. */
static void check_mathfn(Verifier *v, const Op *op) {
  if (op->attr.fn < 0 || op->attr.fn >= MF__COUNT) {
    fail(v, op, "mathfn: unknown function %d", (int)op->attr.fn);
    return;
  }
  const MathFnInfo *mi = &ir_mathfn_info[op->attr.fn];
  if (op->noperands != mi->nargs) {
    fail(v, op, "mathfn %s takes %d operand%s", mi->name, mi->nargs, mi->nargs == 1 ? "" : "s");
    return;
  }
  const Type *rt = op->results[0]->type, *t0 = op->operands[0]->type;
  for (int i = 0; i < op->noperands; i++)
    if (!same_shape(op->operands[i]->type, rt)) fail(v, op, "mathfn operand %d has another shape than the result", i);
  bool ok;
  switch (mi->kind) {
  case MK_FLOAT: case MK_INT:
    ok = dt_is_float(rt->dtype) == (mi->kind == MK_FLOAT) && (mi->kind == MK_FLOAT || dt_is_int(rt->dtype));
    for (int i = 0; i < op->noperands; i++) ok &= op->operands[i]->type == rt;
    break;
  case MK_FLOAT_INT:
    ok = dt_is_float(rt->dtype) && t0 == rt && op->operands[1]->type->dtype == DT_I32;
    break;
  case MK_TEST: ok = dt_is_float(t0->dtype) && rt->dtype == DT_I1; break;
  case MK_TO_I32: ok = dt_is_float(t0->dtype) && rt->dtype == DT_I32; break;
  case MK_TO_I64: ok = dt_is_float(t0->dtype) && rt->dtype == DT_I64; break;
  case MK_INT_TO_I32: ok = dt_is_int(t0->dtype) && rt->dtype == DT_I32; break;
  case MK_CVT: {
    DType from, computed, result;
    const char *nv;
    int rm;
    ok = ir_mathfn_cvt(op->attr.fn, &from, &computed, &result, &nv, &rm) && rt->dtype == result &&
         (t0->dtype == from || (dt_is_int(from) && dt_is_int(t0->dtype) && dt_bits(t0->dtype) == dt_bits(from)));
    break;
  }
  default: ok = false; break;
  }
  if (!ok) fail(v, op, "mathfn %s: operand or result types break its rule (mathfns.def)", mi->name);
}

static void check_types(Verifier *v, const Op *op) {
  const OpInfo *info = &ir_op_info[op->kind];
  Value *const *o = op->operands;
  const Type *rt = op->nresults ? op->results[0]->type : NULL;
  IrContext *c = v->m->ctx;

  if (info->traits & TR_SAME_TYPE) {
    for (int i = 0; i < op->noperands; i++)
      if (o[i]->type != rt) {
        fail(v, op, "operand %d has a different type than the result", i);
        return;
      }
  }
  if (v->layouts && rt && rt->rank && !rt->layout && op->kind != OP_CONSTANT)
    fail(v, op, "tensor result without a layout");
  if (v->layouts && rt && rt->rank && !rt->layout && op->kind == OP_CONSTANT)
    fail(v, op, "tensor constant without a layout");

  switch (op->kind) {
  case OP_CMP:
    if (o[0]->type != o[1]->type) fail(v, op, "cmp operands differ in type");
    if (rt->dtype != DT_I1 || !same_shape(rt, o[0]->type)) fail(v, op, "cmp result must be i1 of the operands' shape");
    check_layout_eq(v, op, o[0], op->results[0]);
    break;
  case OP_SELECT:
    if (o[1]->type != rt || o[2]->type != rt) fail(v, op, "select branches must have the result type");
    if (o[0]->type->dtype != DT_I1) fail(v, op, "select condition must be i1");
    if (o[0]->type->rank && !same_shape(o[0]->type, rt)) fail(v, op, "select condition shape differs");
    check_layout_eq(v, op, o[0], op->results[0]);
    break;
  case OP_MATHFN:
    check_mathfn(v, op);
    break;
  case OP_CAST: case OP_BITCAST:
    if (!same_shape(o[0]->type, rt)) fail(v, op, "cast changes the shape");
    check_layout_eq(v, op, o[0], op->results[0]);
    break;
  case OP_ADDPTR:
    if (o[0]->type != rt || !ty_is_ptr(rt)) fail(v, op, "addptr result must have the pointer operand's type");
    if (!dt_is_int(o[1]->type->dtype) || !same_shape(o[1]->type, rt)) fail(v, op, "addptr offset must be an integer of the same shape");
    check_layout_eq(v, op, o[1], op->results[0]);
    break;
  case OP_SPLAT:
    if (o[0]->type->rank || ty_elem(c, rt) != o[0]->type) fail(v, op, "splat takes a scalar of the element type");
    break;
  case OP_BROADCAST:
    if (o[0]->type->rank != rt->rank) fail(v, op, "broadcast keeps the rank");
    else
      for (int i = 0; i < rt->rank; i++)
        if (o[0]->type->shape[i] != rt->shape[i] && o[0]->type->shape[i] != 1)
          fail(v, op, "broadcast of dim %d from %lld to %lld", i, (long long)o[0]->type->shape[i], (long long)rt->shape[i]);
    check_layout_eq(v, op, o[0], op->results[0]);
    break;
  case OP_EXPAND_DIMS:
    if (rt->rank != o[0]->type->rank + 1 || rt->shape[op->attr.axis] != 1) fail(v, op, "expand_dims shape");
    if (v->layouts && o[0]->type->layout != lay_slice(c, op->attr.axis, rt->layout))
      fail(v, op, "expand_dims operand must be in slice(axis, result layout)");
    break;
  case OP_REDUCE:
    if (op->attr.combine == COMBINE_REGION) {
      IrBlock *b = op->nregions == 1 ? op->regions[0] : NULL;
      Op *y = b ? b->last : NULL;
      if (!b || op->nresults != op->noperands || b->nargs != 2 * op->noperands || !y || y->kind != OP_YIELD ||
          y->noperands != op->noperands) {
        fail(v, op, "reduce's combine region takes 2 x %d scalars and yields %d", op->noperands, op->noperands);
        break;
      }
    }
    if (v->layouts && rt->rank && rt->layout != lay_slice(c, op->attr.axis, o[0]->type->layout))
      fail(v, op, "reduce result must be in slice(axis, operand layout)");
    break;
  case OP_HISTOGRAM:
    if (o[0]->type->rank != 1 || !dt_is_int(o[0]->type->dtype) || o[0]->type->dtype == DT_I1 || rt->rank != 1 ||
        rt->dtype != DT_I32)
      fail(v, op, "histogram counts a 1-D integer tensor into a 1-D i32 tensor");
    if (o[1] && (o[1]->type->dtype != DT_I1 || !same_shape(o[1]->type, o[0]->type))) fail(v, op, "histogram mask must be i1 of the input's shape");
    check_layout_eq(v, op, o[0], o[1]);
    break;
  case OP_GATHER: {
    const Type *st = o[0]->type, *it = o[1]->type;
    if (!dt_is_int(it->dtype) || it->rank != st->rank || op->attr.axis >= st->rank || !same_shape(it, rt) ||
        ty_elem(c, rt) != ty_elem(c, st)) {
      fail(v, op, "gather: an integer index of src's rank, the result of the index's shape and src's dtype");
      break;
    }
    for (int d = 0; d < st->rank; d++)
      if (d != op->attr.axis && it->shape[d] != st->shape[d]) fail(v, op, "gather: index and src differ off the axis");
    check_layout_eq(v, op, o[1], op->results[0]);
    break;
  }
  case OP_SORT:
  case OP_FLIP:
    if (o[0]->type != rt || op->attr.axis >= rt->rank) fail(v, op, "%s keeps the type and works along one of its dims", ir_op_info[op->kind].name);
    break;
  case OP_SCAN:
    if (op->noperands < 1 || op->noperands != op->nresults) { fail(v, op, "scan has one result per operand"); break; }
    if (o[0]->type->rank < 1 || op->attr.axis >= o[0]->type->rank) { fail(v, op, "scan axis out of the operand's rank"); break; }
    if (op->attr.combine == COMBINE_REGION) {
      IrBlock *b = op->nregions == 1 ? op->regions[0] : NULL;
      Op *y = b ? b->last : NULL;
      if (!b || b->nargs != 2 * op->noperands || !y || y->kind != OP_YIELD || y->noperands != op->noperands) {
        fail(v, op, "scan's combine region takes 2 x %d scalars and yields %d", op->noperands, op->noperands);
        break;
      }
      for (int i = 0; i < 2 * op->noperands; i++)
        if (b->args[i]->type != ty_elem(c, o[i % op->noperands]->type)) fail(v, op, "combine argument %d must be the element type", i);
      for (int i = 0; i < op->noperands; i++)
        if (y->operands[i]->type != ty_elem(c, o[i]->type)) fail(v, op, "combine value %d must be the element type", i);
    } else if (op->attr.combine != COMBINE_SUM && op->attr.combine != COMBINE_PROD) {
      fail(v, op, "scan combines by sum, prod or its region");
    }
    for (int i = 0; i < op->noperands; i++) {
      if (o[i]->type != op->results[i]->type) fail(v, op, "scan result %d must have its operand's type", i);
      if (!same_shape(o[i]->type, o[0]->type)) fail(v, op, "scan operands differ in shape");
      check_layout_eq(v, op, o[0], o[i]);
    }
    break;
  case OP_TRANS:
    if (v->layouts && o[0]->type->layout->kind == LAY_BLOCKED &&
        rt->layout != lay_permute(c, o[0]->type->layout, op->attr.perm))
      fail(v, op, "trans result layout must be the permuted operand layout");
    break;
  case OP_CONVERT_LAYOUT:
    if (!same_shape(o[0]->type, rt) || ty_elem(c, o[0]->type) != ty_elem(c, rt)) fail(v, op, "convert_layout changes more than the layout");
    break;
  case OP_LOAD: {
    const Type *pt = o[0]->type;
    if (!ty_is_ptr(pt)) { fail(v, op, "load from a non-pointer"); break; }
    if (!same_shape(pt, rt) || ty_elem(c, rt) != pt->pointee) fail(v, op, "load result must be the pointee in the pointer's shape");
    if (o[1] && (o[1]->type->dtype != DT_I1 || !same_shape(o[1]->type, pt))) fail(v, op, "load mask must be i1 of the pointer's shape");
    if (o[2] && o[2]->type != rt) fail(v, op, "load other must have the result type");
    check_layout_eq(v, op, o[0], op->results[0]);
    check_layout_eq(v, op, o[1], op->results[0]);
    break;
  }
  case OP_STORE: case OP_ATOMIC_RMW: {
    const Type *pt = o[0]->type;
    if (!ty_is_ptr(pt)) { fail(v, op, "store to a non-pointer"); break; }
    if (!same_shape(pt, o[1]->type) || ty_elem(c, o[1]->type) != pt->pointee) fail(v, op, "stored value must be the pointee in the pointer's shape");
    if (o[2] && (o[2]->type->dtype != DT_I1 || !same_shape(o[2]->type, pt))) fail(v, op, "store mask must be i1 of the pointer's shape");
    check_layout_eq(v, op, o[0], o[1]);
    check_layout_eq(v, op, o[0], o[2]);
    break;
  }
  case OP_MEMDESC_TRANS: {
    const Type *bt = o[0]->type;
    if (bt->rank != 2 || rt->rank != 2 || bt->shape[0] != rt->shape[1] || bt->shape[1] != rt->shape[0] ||
        ty_elem(c, bt) != ty_elem(c, rt)) {
      fail(v, op, "memdesc_trans swaps the two dims of a 2-D buffer");
      break;
    }
    if (v->layouts && (!bt->layout || bt->layout->kind != LAY_SHARED || rt->layout != lay_shared_trans(c, bt->layout)))
      fail(v, op, "memdesc_trans result must be the shared buffer's transposed view");
    break;
  }
  case OP_MEMDESC_INDEX: {
    const Type *bt = o[0]->type;
    if (bt->rank != rt->rank + 1 || ty_elem(c, bt) != ty_elem(c, rt)) { fail(v, op, "memdesc_index drops the leading dim"); break; }
    for (int i = 0; i < rt->rank; i++)
      if (bt->shape[i + 1] != rt->shape[i]) fail(v, op, "memdesc_index keeps the trailing shape");
    if (o[1]->type->rank || !dt_is_int(o[1]->type->dtype)) fail(v, op, "memdesc_index takes a scalar integer slot");
    if (v->layouts && (!bt->layout || bt->layout->kind != LAY_SHARED || rt->layout != lay_shared_slot(c, bt->layout)))
      fail(v, op, "memdesc_index result must be a slot of the shared ring");
    break;
  }
  case OP_LOCAL_ALLOC:
    if (o[0] && !same_shape(o[0]->type, rt)) fail(v, op, "local_alloc keeps the shape");
    if (v->layouts && (!rt->layout || rt->layout->kind != LAY_SHARED)) fail(v, op, "local_alloc result must be in a shared layout");
    break;
  case OP_LOCAL_LOAD:
    if (!same_shape(o[0]->type, rt)) fail(v, op, "local_load keeps the shape");
    if (v->layouts && (!o[0]->type->layout || o[0]->type->layout->kind != LAY_SHARED)) fail(v, op, "local_load reads a shared buffer");
    break;
  case OP_ASYNC_COPY: {
    const Type *pt = o[0]->type, *dt = o[1]->type;
    if (!ty_is_ptr(pt) || !same_shape(pt, dt) || pt->pointee != ty_elem(c, dt)) { fail(v, op, "async_copy moves the pointees into a view of their shape"); break; }
    if (o[2] && (o[2]->type->dtype != DT_I1 || !same_shape(o[2]->type, pt))) fail(v, op, "async_copy mask must be i1 of the pointer's shape");
    if (o[3] && (ty_elem(c, o[3]->type) != pt->pointee || !same_shape(o[3]->type, pt))) fail(v, op, "async_copy other must be the pointee in the pointer's shape");
    if (v->layouts && (!dt->layout || dt->layout->kind != LAY_SHARED)) fail(v, op, "async_copy writes a shared view");
    check_layout_eq(v, op, o[0], o[2]);
    check_layout_eq(v, op, o[0], o[3]);
    break;
  }
  case OP_WARP_ROLES:
    if (op->nregions != 2) fail(v, op, "warp_roles has a producer and a consumer region");
    if (!op->parent || op->parent->parent) fail(v, op, "warp_roles stands at the top level of the function");
    if (v->m->producer_warps < 1) fail(v, op, "warp_roles in a module without producer warps");
    break;
  case OP_MBAR_INIT: case OP_MBAR_INVAL: case OP_MBAR_EXPECT: case OP_MBAR_WAIT: case OP_MBAR_ARRIVE: {
    const Type *bt = o[0]->type;
    if (bt->rank != 1 || bt->dtype != DT_I64) fail(v, op, "mbarriers are a tensor<S x i64> in shared memory");
    if (v->layouts && (!bt->layout || bt->layout->kind != LAY_SHARED)) fail(v, op, "mbarriers live in shared memory");
    for (int i = 1; i < op->noperands; i++)
      if (o[i]->type->rank || !dt_is_int(o[i]->type->dtype)) fail(v, op, "operand %d must be a scalar integer", i);
    break;
  }
  case OP_TMA_COPY:
    if (op->noperands < 6) { fail(v, op, "tma_copy takes a map, a view, barriers, a slot, a predicate and coordinates"); break; }
    check_bulk(v, op, 5);
    break;
  case OP_TMA_STORE:
    if (op->noperands < 3) { fail(v, op, "tma_store takes a map, a buffer and coordinates"); break; }
    check_bulk(v, op, 2);
    break;
  case OP_DOT_WAIT:
    if (op->nresults != op->noperands) { fail(v, op, "dot_wait returns its operands"); break; }
    for (int i = 0; i < op->noperands; i++)
      if (op->results[i]->type != o[i]->type) fail(v, op, "dot_wait result %d changes type", i);
    break;
  case OP_DOT: {
    const Layout *rl = rt->layout;
    if (v->layouts && op->attr.is_async && (!rl || rl->kind != LAY_MMA || rl->version != 3))
      fail(v, op, "an async dot is a wgmma (mma version 3)");
    if (v->layouts && rl && rl->kind == LAY_MMA && rl->version == 3) {
      const Layout *la = o[0]->type->layout, *lb = o[1]->type->layout;
      if (!lb || lb->kind != LAY_SHARED) fail(v, op, "wgmma reads operand b from shared memory");
      if (!la || (la->kind != LAY_SHARED && !(la->kind == LAY_DOT_OPERAND && la->parent == rl && la->op_idx == 0)))
        fail(v, op, "wgmma operand a is shared or in the dot-operand layout of the result");
    }
    break;
  }
  case OP_FOR: {
    if (op->noperands < 3 || op->nregions != 1) { fail(v, op, "for needs lb, ub, step and a body"); break; }
    const IrBlock *b = op->regions[0];
    int n = op->noperands - 3;
    if (b->nargs != n + 1 || op->nresults != n) { fail(v, op, "for: iter args, block args and results disagree"); break; }
    for (int i = 0; i < n; i++)
      if (o[3 + i]->type != b->args[i + 1]->type || op->results[i]->type != b->args[i + 1]->type)
        fail(v, op, "for: iter arg %d changes type", i);
    const Op *y = b->last;
    if (!y || y->kind != OP_YIELD || y->noperands != n) { fail(v, op, "for body must end in yield of %d values", n); break; }
    for (int i = 0; i < n; i++)
      if (y->operands[i]->type != op->results[i]->type) fail(v, op, "for: yield %d has the wrong type", i);
    break;
  }
  case OP_IF: {
    for (int r = 0; r < op->nregions; r++) {
      const Op *y = op->regions[r]->last;
      if (op->nresults == 0 && (!y || y->kind != OP_YIELD)) continue;
      if (!y || y->kind != OP_YIELD || y->noperands != op->nresults) { fail(v, op, "if region %d must yield %d values", r, op->nresults); continue; }
      for (int i = 0; i < op->nresults; i++)
        if (y->operands[i]->type != op->results[i]->type) fail(v, op, "if: region %d yields the wrong type for result %d", r, i);
    }
    break;
  }
  case OP_WHILE: {
    const IrBlock *before = op->regions[0], *after = op->regions[1];
    const Op *cnd = before->last;
    if (!cnd || cnd->kind != OP_CONDITION || cnd->noperands != op->nresults + 1) { fail(v, op, "while: before region must end in condition"); break; }
    const Op *y = after->last;
    if (!y || y->kind != OP_YIELD || y->noperands != op->noperands) fail(v, op, "while: after region must yield the loop values");
    break;
  }
  default:
    break;
  }
  if (v->layouts && (info->traits & TR_ELEMENTWISE))
    for (int i = 0; i < op->noperands; i++) check_layout_eq(v, op, o[i], op->results[0]);
}

static void set_visible(Verifier *v, const Value *val, uint8_t on) {
  if (val->id < v->nvalues) v->visible[val->id] = on;
}

static void verify_block(Verifier *v, const IrBlock *b) {
  for (int i = 0; i < b->nargs; i++) set_visible(v, b->args[i], 1);
  for (const Op *op = b->first; op; op = op->next) {
    const OpInfo *info = &ir_op_info[op->kind];
    if (op->parent != b) fail(v, op, "op's parent link is wrong");
    if (info->noperands >= 0 && op->noperands != info->noperands)
      fail(v, op, "expects %d operands, has %d", info->noperands, op->noperands);
    if (info->nresults >= 0 && op->nresults != info->nresults)
      fail(v, op, "expects %d results, has %d", info->nresults, op->nresults);
    bool optional_ok = op->kind == OP_LOAD || op->kind == OP_STORE || op->kind == OP_ATOMIC_RMW;
    for (int i = 0; i < op->noperands; i++) {
      const Value *o = op->operands[i];
      bool optional = (optional_ok && i > 0) || (op->kind == OP_LOCAL_ALLOC && i == 0) ||
                      (op->kind == OP_ASYNC_COPY && i >= 2) || (op->kind == OP_HISTOGRAM && i == 1);
      if (!o) {
        if (!optional) fail(v, op, "operand %d is missing", i);
        continue;
      }
      if (o->id >= v->nvalues || !v->visible[o->id]) fail(v, op, "operand %d is used where its definition is not visible", i);
    }
    if ((info->traits & TR_TERMINATOR) && op->next) fail(v, op, "terminator is not the last op of its block");
    check_types(v, op);
    for (int r = 0; r < op->nregions; r++) {
      verify_block(v, op->regions[r]);
      /* values defined inside the region go out of scope */
      for (int i = 0; i < op->regions[r]->nargs; i++) set_visible(v, op->regions[r]->args[i], 0);
      for (const Op *in = op->regions[r]->first; in; in = in->next)
        for (int k = 0; k < in->nresults; k++) set_visible(v, in->results[k], 0);
    }
    for (int k = 0; k < op->nresults; k++) set_visible(v, op->results[k], 1);
  }
}

int ir_verify(const IrModule *m, bool layouts, StrBuf *out) {
  Verifier v = {.m = m, .layouts = layouts, .out = out};
  const IrFunc *f = m->func;
  if (!f) return 0;
  v.nvalues = f->nvalues;
  v.visible = xcalloc(f->nvalues + 1, 1);
  verify_block(&v, f->body);
  if (!f->body->last || f->body->last->kind != OP_RETURN) fail(&v, NULL, "function body must end in return");
  free(v.visible);
  return v.nerrors;
}
