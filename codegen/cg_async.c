/* cg_async.c — asynchronous copies from global into shared memory (cp.async,
 * sm_80+): ASYNC_COPY, ASYNC_COMMIT, ASYNC_WAIT.
 *
 * ASYNC_COPY's pointer tensor is in a blocked layout whose attr.vec
 * elements per thread are contiguous and aligned in global memory (the load
 * it replaces had them, passes.h); each such group becomes one
 *
 *   cp.async.cg.shared.global [dst], [src], 16, src_size;   (.ca for 4 or 8 bytes)
 *
 * with dst the group's address in the shared view (its 16-byte chunk stays
 * whole under the swizzle) and src_size = mask ? bytes : 0, so masked-off
 * groups are zero-filled: tl.load's `other=0`.  Only the canonical owner of
 * replicated elements copies.  The copies a thread issued since its last
 * ASYNC_COMMIT form one group; ASYNC_WAIT num returns once at most `num` of
 * the thread's groups are pending.  Visibility to other threads (and to
 * wgmma's async proxy) is the pipeliner's barrier and fence. */
#include "codegen/cg_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- constant offsets between a thread's copies -------------------------------
 * A thread's copies of one tile are usually rows (or columns) a constant
 * number of bytes apart.  Issued each from its own 64-bit address, the
 * addresses are separate registers that LLVM hoists out of the loop and
 * keeps alive across it (seed 000's 2-warp forward: 16 of them, 32
 * registers, and spills); issued as [addr0 + imm], one address serves them
 * all.  The offset is known when the pointer tensor is affine in its
 * coordinates with constant coefficients (arange, splat, constants,
 * expand_dims, broadcast, add, sub, mul and shl by a constant, addptr) and
 * the thread's elements sit at constant coordinate offsets from its element
 * 0 (the layout's register bits do not overlap its lane and warp bits).
 * The arithmetic is the IR's on integers; only a program whose i32 offsets
 * wrap within one thread's copies (already reading the wrong bytes) could
 * see a difference.  A masked-off group keeps its (unread) address. */
enum { AFFINE_VISITS = 256 }; /* ops one analysis may look at (shared chains branch) */

static bool uniform(const int64_t *c, int rank) {
  for (int d = 0; d < rank; d++)
    if (c[d]) return false;
  return true;
}

/* The constant value of a uniform operand, when it is one. */
static bool uniform_const(const Value *v, int64_t *out) {
  const Op *d = v->def;
  while (d && (d->kind == OP_SPLAT || d->kind == OP_ASSUME)) d = d->operands[0]->def;
  if (!d || d->kind != OP_CONSTANT || !dt_is_int(d->results[0]->type->dtype)) return false;
  *out = d->attr.ival;
  return true;
}

/* coef[d]: how much v grows (bytes for pointers) per step along dim d;
 * false when unknown or when a product or sum leaves int64 (*budget counts
 * the ops looked at). */
static bool affine(const Value *v, int64_t *coef, int *budget) {
  const Type *t = v->type;
  const Op *op = v->def;
  memset(coef, 0, sizeof(int64_t) * IR_MAX_RANK);
  if (t->rank == 0 || !op) return t->rank == 0; /* a scalar is uniform; a block argument is unknown */
  if (--*budget < 0) return false;
  int64_t a[IR_MAX_RANK], b[IR_MAX_RANK], k;
  switch (op->kind) {
  case OP_SPLAT: case OP_CONSTANT:
    return true;
  case OP_ARANGE:
    coef[0] = 1;
    return true;
  case OP_ASSUME: case OP_CONVERT_LAYOUT:
    return affine(op->operands[0], coef, budget);
  case OP_CAST: { /* signed to signed, as wide or wider: sign extension keeps the steps (an
                     unsigned result is zero-extended by addptr, which a negative offset breaks) */
    DType from = op->operands[0]->type->dtype;
    return dt_is_signed(t->dtype) && dt_is_signed(from) && dt_bits(t->dtype) >= dt_bits(from) &&
           affine(op->operands[0], coef, budget);
  }
  case OP_EXPAND_DIMS: {
    if (!affine(op->operands[0], a, budget)) return false;
    for (int d = 0, s = 0; d < t->rank; d++) coef[d] = d == op->attr.axis ? 0 : a[s++];
    return true;
  }
  case OP_BROADCAST: {
    const Type *st = op->operands[0]->type;
    if (st->rank != t->rank || !affine(op->operands[0], a, budget)) return false;
    for (int d = 0; d < t->rank; d++) coef[d] = st->shape[d] == 1 ? 0 : a[d];
    return true;
  }
  case OP_ADD: case OP_SUB: case OP_MUL: case OP_SHL: case OP_ADDPTR: {
    if (!affine(op->operands[0], a, budget) || !affine(op->operands[1], b, budget)) return false;
    bool ua = uniform(a, t->rank), ub = uniform(b, t->rank), ok = true;
    if (op->kind == OP_ADDPTR) {
      int64_t eb = t->pointee ? ty_elem_bytes(t->pointee) : 0, m;
      if (!eb) return false;
      for (int d = 0; d < t->rank; d++) ok = ok && !__builtin_mul_overflow(b[d], eb, &m) && !__builtin_add_overflow(a[d], m, &coef[d]);
    } else if (op->kind == OP_ADD) {
      for (int d = 0; d < t->rank; d++) ok = ok && !__builtin_add_overflow(a[d], b[d], &coef[d]);
    } else if (op->kind == OP_SUB) {
      for (int d = 0; d < t->rank; d++) ok = ok && !__builtin_sub_overflow(a[d], b[d], &coef[d]);
    } else if (ua && ub) {
      /* uniform: coef stays 0 */
    } else if (op->kind == OP_MUL && (ub ? uniform_const(op->operands[1], &k) : uniform_const(op->operands[0], &k))) {
      const int64_t *x = ub ? a : b;
      for (int d = 0; d < t->rank; d++) ok = ok && !__builtin_mul_overflow(x[d], k, &coef[d]);
    } else if (op->kind == OP_SHL && ub && uniform_const(op->operands[1], &k) && k >= 0 && k < 32) {
      for (int d = 0; d < t->rank; d++) ok = ok && !__builtin_mul_overflow(a[d], (int64_t)1 << k, &coef[d]);
    } else {
      return false;
    }
    return ok;
  }
  default:
    /* any other elementwise op of uniform operands is uniform */
    if (!(ir_op_info[op->kind].traits & TR_ELEMENTWISE)) return false;
    for (int i = 0; i < op->noperands; i++)
      if (op->operands[i] && (!affine(op->operands[i], a, budget) || !uniform(a, op->operands[i]->type->rank)))
        return false;
    return true;
  }
}

/* Byte offsets of the thread's groups (element k * g) from its element 0,
 * when they are constants that fit an address immediate (signed 32 bits). */
static bool group_offsets(const Value *ptr, const CgFrag *f, int g, int64_t *off, int n) {
  int64_t coef[IR_MAX_RANK];
  int budget = AFFINE_VISITS;
  if (!affine(ptr, coef, &budget)) return false;
  const LinearLayout *ll = &f->ll;
  for (int d = 0; d < ll->rank; d++) {
    int64_t regs = 0, thread = 0;
    for (int r = 0; r < ll->nreg; r++) regs |= ll->reg[r][d];
    for (int l = 0; l < ll->nlane; l++) thread |= ll->lane[l][d];
    for (int w = 0; w < ll->nwarp; w++) thread |= ll->warp[w][d];
    if (regs & thread) return false; /* the coordinates XOR, not add */
  }
  for (int k = 0; k < n; k++) {
    int64_t c[IR_MAX_RANK];
    ll_coord(ll, k * g, 0, 0, c);
    off[k] = 0;
    for (int d = 0; d < ll->rank; d++) {
      int64_t m;
      if (__builtin_mul_overflow(c[d], coef[d], &m) || __builtin_add_overflow(off[k], m, &off[k])) return false;
    }
    if (off[k] < INT32_MIN || off[k] > INT32_MAX) return false;
  }
  return true;
}

void cg_lower_async_copy(CgCtx *cg, Op *op) {
  const Value *ptr = op->operands[0], *mask = op->operands[2];
  const Type *pt = ptr->type;
  CgFrag f;
  CgBuf b;
  if (!cg_frag(cg, op, pt, &f) || !cg_buf(cg, op, op->operands[1], &b)) return;
  if (op->operands[3] && !ir_is_zero_const(op->operands[3])) {
    cg_error(cg, op, "async_copy fills masked-off elements with zeros only");
    return;
  }
  int eb = b.eb, g = op->attr.vec > 0 ? op->attr.vec : 1;
  /* groups of one element need no run along the buffer's contiguous dim */
  if ((g > 1 && (f.run_dim != b.cdim || f.run < g)) || g * eb > 16 || (g * eb != 4 && g * eb != 8 && g * eb != 16) ||
      (b.rdim >= 0 && g > b.S->vec)) {
    cg_error(cg, op, "async_copy of %d-byte groups does not fit cp.async (runs of %d along dim %d, "
             "buffer contiguous along %d)", g * eb, f.run, f.run_dim, b.cdim);
    return;
  }
  CgVal *pv = cg_get(cg, op, ptr);
  CgVal *mv = mask ? cg_get(cg, op, mask) : NULL;
  LLVMValueRef own = cg_owner(cg, pt);
  LLVMBasicBlockRef cont = cg_begin_guard(cg, own);
  /* inline PTX: LLVM 19 cannot select the .s intrinsics with 32-bit
   * shared pointers (-nvptx-short-ptr) */
  int bytes = g * eb;
  /* every operand first, then the copies back to back: the copies do not
   * wait for one another's address registers to be read */
  CgFragAddrs a0 = {0};
  int n = (f.count + g - 1) / g;
  LLVMValueRef *args = ARENA_ARRAY(&cg->arena, LLVMValueRef, 3 * n);
  for (int i = 0, k = 0; i < f.count; i += g, k++) {
    LLVMValueRef size = cg_i32(cg, bytes);
    if (mv) {
      LLVMValueRef m = cg_el(mv, i);
      int64_t c;
      if (cg_is_const_int(m, &c)) size = cg_i32(cg, c ? bytes : 0);
      else size = LLVMBuildSelect(cg->b, m, size, cg_i32(cg, 0), "");
    }
    args[3 * k] = LLVMBuildPtrToInt(cg->b, cg_buf_frag_addr(cg, &b, &f, i, &a0), cg->t_i32, "");
    args[3 * k + 1] = cg_el(pv, i);
    args[3 * k + 2] = size;
  }
  /* with constant offsets, one address (element 0's) + an immediate each */
  int64_t *off = ARENA_ARRAY(&cg->arena, int64_t, n);
  bool one = n > 1 && group_offsets(ptr, &f, g, off, n);
  for (int k = 0; k < n; k++) {
    char text[160], imm[32] = "";
    if (one) snprintf(imm, sizeof imm, "+%lld", (long long)off[k]), args[3 * k + 1] = args[1];
    snprintf(text, sizeof text, "cp.async.%s.shared.global [$0], [$1%s], %d, $2;", bytes == 16 ? "cg" : "ca", imm,
             bytes);
    cg_asm(cg, cg->t_void, text, "r,l,r,~{memory}", args + 3 * k, 3, true);
  }
  cg_end_guard(cg, cont);
}

void cg_lower_async_commit(CgCtx *cg, Op *op) {
  (void)op;
  cg_intrin(cg, "llvm.nvvm.cp.async.commit.group", NULL, 0, NULL, 0);
}

void cg_lower_async_wait(CgCtx *cg, Op *op) {
  LLVMValueRef n = cg_i32(cg, op->attr.num < 0 ? 0 : op->attr.num);
  cg_intrin(cg, "llvm.nvvm.cp.async.wait.group", NULL, 0, &n, 1);
}
