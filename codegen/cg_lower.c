/* cg_lower.c — the op dispatcher: walks a region in order and hands each op
 * to the file that owns its concept; keeps the Value.id -> CgVal table.
 *
 * A terminator (yield, condition, return) is not lowered here: the op that
 * owns the region (cg_control.c, or cg_module.c for the body) reads its
 * operands.  An op that cannot be lowered reports an internal error and
 * gets undef results, so lowering continues and all errors are reported. */
#include "codegen/cg_internal.h"

#include <string.h>

CgVal *cg_get(CgCtx *cg, const Op *op, const Value *v) {
  if (!v) return NULL;
  if (v->id >= cg->nvals || !cg->vals[v->id].v) {
    cg_error(cg, op, "value %u used before it was lowered", v->id);
    cg_set_undef(cg, v);
  }
  return &cg->vals[v->id];
}

LLVMValueRef cg_el(const CgVal *v, int i) { return v->v[v->n == 1 ? 0 : i]; }

void cg_set(CgCtx *cg, const Value *v, LLVMValueRef *elems, int n) {
  if (v->id >= cg->nvals) return;
  CgVal *cv = &cg->vals[v->id];
  cv->n = n;
  cv->v = ARENA_ARRAY(&cg->arena, LLVMValueRef, n > 0 ? n : 1);
  memcpy(cv->v, elems, sizeof(LLVMValueRef) * (size_t)n);
}

void cg_set_undef(CgCtx *cg, const Value *v) {
  int n = cg_nelems(cg, v->type);
  LLVMValueRef *e = ARENA_ARRAY(&cg->arena, LLVMValueRef, n);
  LLVMValueRef u = LLVMGetUndef(cg_type(cg, v->type->dtype));
  for (int i = 0; i < n; i++) e[i] = u;
  cg_set(cg, v, e, n);
}

static void lower_program_id(CgCtx *cg, Op *op, bool count) {
  int a = op->attr.axis;
  if (a < 0 || a > 2) {
    cg_error(cg, op, "program axis %d out of range", a);
    cg_set_undef(cg, op->results[0]);
    return;
  }
  LLVMValueRef v = count ? cg_num_programs(cg, cg->b, a) : cg_program_id(cg, cg->b, a);
  const Type *rt = op->results[0]->type;
  if (rt->dtype != DT_I32 && rt->dtype != DT_U32)
    v = LLVMBuildZExt(cg->b, v, cg_type(cg, rt->dtype), "");
  cg_set(cg, op->results[0], &v, 1);
}

static void lower_constant(CgCtx *cg, Op *op) {
  const Type *rt = op->results[0]->type;
  DType d = rt->dtype;
  LLVMTypeRef t = cg_type(cg, d);
  LLVMValueRef c;
  if (d == DT_F8E4M3 || d == DT_F8E5M2) {
    c = LLVMConstInt(t, dt_fp8_bits(d, op->attr.fval), false);
  } else if (dt_is_float(d)) {
    c = LLVMConstReal(t, op->attr.fval);
  } else if (d == DT_PTR) {
    c = LLVMConstIntToPtr(cg_i64(cg, op->attr.ival), t);
  } else {
    c = LLVMConstInt(t, (unsigned long long)op->attr.ival, dt_is_signed(d));
  }
  int n = cg_nelems(cg, rt);
  LLVMValueRef *e = ARENA_ARRAY(&cg->arena, LLVMValueRef, n);
  for (int i = 0; i < n; i++) e[i] = c;
  cg_set(cg, op->results[0], e, n);
}

static void lower_identity(CgCtx *cg, Op *op) {
  CgVal *x = cg_get(cg, op, op->operands[0]);
  cg_set(cg, op->results[0], x->v, x->n);
}

static void lower_op(CgCtx *cg, Op *op) {
  cg->scratch_base = cg->m->scratch_per_op ? op->attr.scratch_offset : cg->m->smem_buffers_end;
  switch (op->kind) { /* ops on shared buffers, and ops without tensor results */
  case OP_LOCAL_ALLOC: cg_lower_local_alloc(cg, op); return;
  case OP_MEMDESC_INDEX: cg_lower_memdesc_index(cg, op); return;
  case OP_MEMDESC_TRANS: lower_identity(cg, op); return; /* the same base offset */
  case OP_ASYNC_COPY: cg_lower_async_copy(cg, op); return;
  case OP_ASYNC_COMMIT: cg_lower_async_commit(cg, op); return;
  case OP_ASYNC_WAIT: cg_lower_async_wait(cg, op); return;
  case OP_MBAR_INIT: case OP_MBAR_EXPECT: case OP_MBAR_WAIT: case OP_MBAR_INVAL: case OP_MBAR_ARRIVE:
    cg_lower_mbar(cg, op);
    return;
  case OP_WARP_ROLES: cg_lower_warp_roles(cg, op); return;
  case OP_TMA_COPY: cg_lower_tma_copy(cg, op); return;
  case OP_TMA_STORE: cg_lower_tma_store(cg, op); return;
  default: break;
  }
  /* every tensor result must be in a layout codegen can lower */
  for (int i = 0; i < op->nresults; i++) {
    CgFrag f;
    if (op->results[i]->type->rank && !cg_frag(cg, op, op->results[i]->type, &f)) {
      for (int k = 0; k < op->nresults; k++) cg_set_undef(cg, op->results[k]);
      return;
    }
  }
  if (cg_is_arith(op->kind)) {
    cg_lower_arith(cg, op);
    return;
  }
  switch (op->kind) {
  case OP_CONSTANT: lower_constant(cg, op); return;
  case OP_PROGRAM_ID: lower_program_id(cg, op, false); return;
  case OP_NUM_PROGRAMS: lower_program_id(cg, op, true); return;
  case OP_ARANGE: case OP_SPLAT: case OP_BROADCAST: case OP_EXPAND_DIMS: case OP_RESHAPE:
  case OP_TRANS: case OP_CONVERT_LAYOUT:
    cg_lower_shape(cg, op);
    return;
  case OP_ADDPTR: cg_lower_addptr(cg, op); return;
  case OP_LOAD: cg_lower_load(cg, op); return;
  case OP_STORE: cg_lower_store(cg, op); return;
  case OP_ATOMIC_RMW: case OP_ATOMIC_CAS: cg_lower_atomic(cg, op); return;
  case OP_REDUCE: cg_lower_reduce(cg, op); return;
  case OP_SCAN: cg_lower_scan(cg, op); return;
  case OP_FLIP: cg_lower_flip(cg, op); return;
  case OP_SORT: cg_lower_sort(cg, op); return;
  case OP_GATHER: cg_lower_gather(cg, op); return;
  case OP_HISTOGRAM: cg_lower_histogram(cg, op); return;
  case OP_DOT: cg_lower_dot(cg, op); return;
  case OP_LOCAL_LOAD: cg_lower_local_load(cg, op); return;
  case OP_DOT_WAIT: cg_lower_dot_wait(cg, op); return;
  case OP_ASSUME: lower_identity(cg, op); return;
  case OP_ASSERT: cg_lower_assert(cg, op); return; /* present in debug mode only */
  case OP_PRINT: cg_lower_print(cg, op); return;
  case OP_BARRIER: cg_lower_barrier(cg, op); return;
  case OP_FOR: cg_lower_for(cg, op); return;
  case OP_IF: cg_lower_if(cg, op); return;
  case OP_WHILE: cg_lower_while(cg, op); return;
  default:
    cg_error(cg, op, "no lowering for op '%s'", ir_op_info[op->kind].name);
    break;
  }
  for (int i = 0; i < op->nresults; i++) cg_set_undef(cg, op->results[i]);
}

Op *cg_lower_block(CgCtx *cg, IrBlock *b) {
  for (Op *op = b->first; op; op = op->next) {
    if (ir_op_info[op->kind].traits & TR_TERMINATOR) return op;
    lower_op(cg, op);
  }
  return NULL;
}
