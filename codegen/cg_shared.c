/* cg_shared.c — shared-memory buffers: their addresses, LOCAL_ALLOC (a
 * buffer, filled from registers or left empty), LOCAL_LOAD (back into any
 * distributed layout; ldmatrix for mma.sync operands, cg_dot.c), the slot
 * views of pipelined rings (MEMDESC_INDEX) and transposed views
 * (MEMDESC_TRANS: the same base, its type reads the bytes with the dims
 * swapped).
 *
 * A buffer value lowers to one i32: its byte offset in the kernel's dynamic
 * shared memory.  A LOCAL_ALLOC's is the constant attr.smem_offset
 * (allocate-shared), a view's is computed (ring offset + slot * slot bytes),
 * so every reader takes the base from the value, never from an attribute.
 * Element (row, col) of a 2-D buffer in layout S sits at lay_shared_offset:
 * the XOR swizzle of 16-byte chunks within a row, rows of S[c] elements, or
 * of `block` elements when S cuts the contiguous dim into wgmma's
 * swizzle-row blocks (blocks outermost).  A batched operand's rank-3 buffer
 * [B, ...] (batch slowest) is B such 2-D slices one after another: element
 * (b, row, col) is b * slice bytes past (row, col) of slice 0.
 *
 * Barriers: a LOCAL_ALLOC from registers waits for readers of the previous
 * contents (barrier), stores the owners' elements (vectorized along the
 * contiguous dim within one swizzle chunk), fences the async proxy when a
 * wgmma will read the buffer (a blocked layout: wgmma's), and barriers
 * again so readers after it see the data; stagings side by side share one
 * barrier before the first and one after the last.  Views and empty buffers get no
 * barriers: the pipeliner places them (passes/pipeline.c). */
#include "codegen/cg_internal.h"

static int log2i(int64_t x) {
  int n = 0;
  while (x > 1) x >>= 1, n++;
  return n;
}

static bool buf_of(CgCtx *cg, const Op *op, const Value *v, CgBuf *b, int max_rank) {
  const Layout *S = v->type->layout;
  const Op *d = v->def;
  int rank = v->type->rank;
  if (!d || (d->kind != OP_LOCAL_ALLOC && d->kind != OP_MEMDESC_INDEX && d->kind != OP_MEMDESC_TRANS) || !S ||
      S->kind != LAY_SHARED || rank > max_rank || (rank == 3 && S->order[2] != 0)) {
    cg_error(cg, op, "expected a shared buffer (local_alloc or a ring slot) of rank 1 or 2%s",
             max_rank == 3 ? ", or of rank 3 with the batch dim 0 slowest" : "");
    return false;
  }
  b->S = S;
  b->t = v->type;
  b->base = cg_get(cg, op, v)->v[0];
  b->eb = cg_dt_bytes(v->type->dtype);
  b->cdim = rank == 1 ? 0 : S->order[0];
  b->rdim = rank == 1 ? -1 : S->order[1];
  b->bdim = rank == 3 ? 0 : -1;
  b->bbytes = rank == 3 ? v->type->shape[1] * v->type->shape[2] * b->eb : 0;
  return true;
}

bool cg_buf(CgCtx *cg, const Op *op, const Value *v, CgBuf *b) { return buf_of(cg, op, v, b, 2); }

bool cg_buf_batched(CgCtx *cg, const Op *op, const Value *v, CgBuf *b) { return buf_of(cg, op, v, b, 3); }

void cg_buf_batch(CgCtx *cg, const CgBuf *b, LLVMValueRef batch, CgBuf *slice) {
  *slice = *b;
  slice->bdim = -1;
  if (b->bdim < 0) return;
  LLVMValueRef off = cg_build_mul(cg->b, batch, cg_i32(cg, b->bbytes), "");
  slice->base = cg_build_add(cg->b, b->base, off, "");
}

/* Element offset of (row, col) before the XOR swizzle of the chunk: the
 * block's start plus the row's. */
static LLVMValueRef row_start(CgCtx *cg, const CgBuf *b, LLVMValueRef row, LLVMValueRef col, int64_t *inner) {
  LLVMBuilderRef B = cg->b;
  *inner = b->t->shape[b->cdim];
  LLVMValueRef start = LLVMConstNull(cg->t_i32);
  int W = b->S->block;
  if (W > 0 && W < *inner) {
    LLVMValueRef blk = cg_build_lshr(B, col, cg_i32(cg, log2i(W)), "");
    start = cg_build_mul(B, blk, cg_i32(cg, b->t->shape[b->rdim] * W), "");
    *inner = W;
  }
  return cg_build_add(B, start, cg_build_mul(B, row, cg_i32(cg, *inner), ""), "");
}

/* Byte offset of (row, col) from the buffer's base, swizzle included. */
static LLVMValueRef buf_offset(CgCtx *cg, const CgBuf *b, LLVMValueRef row, LLVMValueRef col) {
  LLVMBuilderRef B = cg->b;
  LLVMValueRef off;
  if (b->rdim < 0) {
    off = col;
  } else {
    int64_t inner;
    LLVMValueRef start = row_start(cg, b, row, col, &inner);
    if (inner < b->t->shape[b->cdim]) col = cg_build_and(B, col, cg_i32(cg, inner - 1), "");
    int vec = b->S->vec > 0 ? b->S->vec : 1;
    LLVMValueRef chunk = cg_build_lshr(B, col, cg_i32(cg, log2i(vec)), "");
    if (b->S->max_phase > 1) {
      LLVMValueRef ph = cg_build_lshr(B, row, cg_i32(cg, log2i(b->S->per_phase)), "");
      ph = cg_build_and(B, ph, cg_i32(cg, b->S->max_phase - 1), "");
      chunk = cg_build_xor(B, chunk, ph, "");
    }
    off = cg_build_shl(B, chunk, cg_i32(cg, log2i(vec)), "");
    off = cg_build_or(B, off, cg_build_and(B, col, cg_i32(cg, vec - 1), ""), "");
    off = cg_build_add(B, off, start, "");
  }
  return cg_build_mul(B, off, cg_i32(cg, b->eb), "");
}

LLVMValueRef cg_buf_addr(CgCtx *cg, const CgBuf *b, LLVMValueRef row, LLVMValueRef col) {
  return cg_smem_abs(cg, cg_build_add(cg->b, buf_offset(cg, b, row, col), b->base, ""));
}

/* (batch, row, col) of a batched buffer; batch is NULL for 1-D and 2-D ones. */
static LLVMValueRef buf_addr_b(CgCtx *cg, const CgBuf *b, LLVMValueRef batch, LLVMValueRef row,
                               LLVMValueRef col) {
  LLVMValueRef byte = buf_offset(cg, b, row, col);
  if (batch) byte = cg_build_add(cg->b, byte, cg_build_mul(cg->b, batch, cg_i32(cg, b->bbytes), ""), "");
  return cg_smem_abs(cg, cg_build_add(cg->b, byte, b->base, ""));
}

int64_t cg_buf_linear_bytes(const CgBuf *b, int64_t row, int64_t col) {
  int64_t inner = b->t->shape[b->cdim], start = 0;
  int W = b->S->block;
  if (W > 0 && W < inner) {
    start = (col / W) * b->t->shape[b->rdim] * W;
    col %= W;
    inner = W;
  }
  return (start + row * inner + col) * b->eb;
}

/* The thread's coordinate along dim d (its lane and warp part), as
 * cg_coord has it for a register offset of zero. */
static LLVMValueRef thread_coord(CgCtx *cg, const CgFrag *f, const CgThreadParts *tp, int d) {
  return d < 0 || f->ll.shape[d] == 1 ? cg_i32(cg, 0) : tp->off[d];
}

/* The split form of buf_offset for coordinates T | R, the thread's part T
 * and the register's R with no bit in common along any dim (so | is + and
 * ^, and shifts and masks by powers of two apply to each part alone):
 *   chunk = (T's chunk ^ T's phase) ^ (R's chunk ^ R's phase)
 *   bytes = ((chunk << log2 vec) + (col & (vec - 1)) + start) * eb (+ batch)
 * split_parts gives the thread's two parts (chunk, shifted and in bytes; the
 * rest in bytes, base and batch included), split_consts the register's. */
typedef struct SplitShape {
  int64_t rows, inner, W;
  int lW, lv, lpp, vec, mp;
} SplitShape;

static SplitShape split_shape(const CgBuf *b) {
  SplitShape s = {0};
  if (b->rdim < 0) return s;
  s.rows = b->t->shape[b->rdim];
  s.inner = b->t->shape[b->cdim];
  s.W = b->S->block > 0 && b->S->block < s.inner ? b->S->block : s.inner;
  s.lW = log2i(s.W);
  s.vec = b->S->vec > 0 ? b->S->vec : 1;
  s.lv = log2i(s.vec);
  s.mp = b->S->max_phase > 1 ? b->S->max_phase : 1;
  s.lpp = s.mp > 1 ? log2i(b->S->per_phase) : 0;
  return s;
}

static void split_consts(const CgBuf *b, const SplitShape *s, const int64_t *rc, int64_t *xk, int64_t *rest) {
  int64_t c = rc[b->cdim], bt = b->bdim < 0 ? 0 : rc[b->bdim] * b->bbytes;
  if (b->rdim < 0) {
    *xk = 0, *rest = c * b->eb + bt;
    return;
  }
  int64_t r = rc[b->rdim], ci = c & (s->W - 1);
  int64_t start = (s->W < s->inner ? (c >> s->lW) * s->rows * s->W : 0) + r * s->W;
  int64_t k = ci >> s->lv;
  if (s->mp > 1) k ^= (r >> s->lpp) & (s->mp - 1);
  *xk = (k << s->lv) * b->eb;
  *rest = ((ci & (s->vec - 1)) + start) * b->eb + bt;
  if (s->mp == 1) *rest += *xk, *xk = 0; /* no swizzle: the chunks add */
}

static void split_parts(CgCtx *cg, const CgBuf *b, const SplitShape *s, const CgFrag *f, CgFragAddrs *fa) {
  LLVMBuilderRef B = cg->b;
  const CgThreadParts *tp = cg_thread_parts(cg, f);
  LLVMValueRef c = thread_coord(cg, f, tp, b->cdim), rest, chunk = NULL;
  if (b->rdim < 0) {
    rest = cg_build_mul(B, c, cg_i32(cg, b->eb), "");
  } else {
    LLVMValueRef r = thread_coord(cg, f, tp, b->rdim);
    LLVMValueRef start = cg_build_mul(B, r, cg_i32(cg, s->W), "");
    LLVMValueRef ci = c;
    if (s->W < s->inner) {
      LLVMValueRef blk = cg_build_lshr(B, c, cg_i32(cg, s->lW), "");
      start = cg_build_add(B, start, cg_build_mul(B, blk, cg_i32(cg, s->rows * s->W), ""), "");
      ci = cg_build_and(B, c, cg_i32(cg, s->W - 1), "");
    }
    LLVMValueRef k = cg_build_lshr(B, ci, cg_i32(cg, s->lv), "");
    if (s->mp > 1)
      k = cg_build_xor(B, k, cg_build_and(B, cg_build_lshr(B, r, cg_i32(cg, s->lpp), ""), cg_i32(cg, s->mp - 1), ""), "");
    chunk = cg_build_mul(B, cg_build_shl(B, k, cg_i32(cg, s->lv), ""), cg_i32(cg, b->eb), "");
    LLVMValueRef lo = cg_build_and(B, ci, cg_i32(cg, s->vec - 1), "");
    rest = cg_build_mul(B, cg_build_add(B, lo, start, ""), cg_i32(cg, b->eb), "");
    if (s->mp == 1) rest = cg_build_add(B, rest, chunk, ""), chunk = NULL;
  }
  if (b->bdim >= 0) {
    LLVMValueRef bt = thread_coord(cg, f, tp, b->bdim);
    rest = cg_build_add(B, rest, cg_build_mul(B, bt, cg_i32(cg, b->bbytes), ""), "");
  }
  fa->rest = cg_build_add(B, rest, b->base, "");
  fa->chunk = chunk;
}

/* TLC_CHECK_SHARED_ADDR=1 (a developer's check, tests/cli): the split
 * form of register offset rc against the layout's own offset
 * (lay_shared_offset, what buf_offset builds) for every lane and warp of f,
 * on integers; false (and an internal error) on the first difference. */
static bool split_checked(CgCtx *cg, const CgBuf *b, const CgFrag *f, const int64_t *rc, int64_t xk, int64_t rest) {
  static int on = -1;
  if (on < 0) {
    const char *e = getenv("TLC_CHECK_SHARED_ADDR");
    on = e && *e && strcmp(e, "0") != 0;
  }
  if (!on) return true;
  SplitShape s = split_shape(b);
  for (int lane = 0; lane < 1 << f->ll.nlane; lane++)
    for (int warp = 0; warp < 1 << f->ll.nwarp; warp++) {
      int64_t T[IR_MAX_RANK], C[IR_MAX_RANK];
      ll_coord(&f->ll, 0, lane, warp, T);
      for (int d = 0; d < f->rank; d++) C[d] = T[d] ^ rc[d];
      /* the thread's parts: split_consts of T, as split_parts builds them */
      int64_t txk, trest;
      split_consts(b, &s, T, &txk, &trest);
      int64_t split = (txk ^ xk) + trest + rest;
      int64_t full = lay_shared_offset(b->S, b->t->shape, b->rdim < 0 ? 0 : C[b->rdim], C[b->cdim]) * b->eb +
                     (b->bdim < 0 ? 0 : C[b->bdim] * b->bbytes);
      if (full != split) {
        cg_error(cg, NULL, "split shared address of register offset (%lld, %lld) differs at lane %d, warp %d: %lld != %lld",
                 (long long)rc[b->cdim], (long long)(b->rdim < 0 ? 0 : rc[b->rdim]), lane, warp, (long long)split,
                 (long long)full);
        return false;
      }
    }
  return true;
}

/* Element i in the split form; NULL when its register bits meet the
 * thread's or the bases are used up. */
static LLVMValueRef split_addr(CgCtx *cg, const CgBuf *b, const CgFrag *f, const int64_t *rc, CgFragAddrs *fa) {
  const CgThreadParts *tp = cg_thread_parts(cg, f);
  int dims[3] = {b->cdim, b->rdim, b->bdim};
  for (int j = 0; j < 3; j++)
    if (dims[j] >= 0 && (tp->bits[dims[j]] & rc[dims[j]])) return NULL;
  SplitShape s = split_shape(b);
  int64_t xk, rest;
  split_consts(b, &s, rc, &xk, &rest);
  if (!split_checked(cg, b, f, rc, xk, rest)) return NULL;
  if (!fa->rest) split_parts(cg, b, &s, f, fa);
  int j = 0;
  while (j < fa->nxor && fa->xkey[j] != xk) j++;
  if (j == fa->nxor) {
    if (j == CG_FRAG_XORS) return NULL;
    LLVMValueRef off = fa->rest;
    if (fa->chunk) off = cg_build_add(cg->b, cg_build_xor(cg->b, fa->chunk, cg_i32(cg, xk), ""), off, "");
    fa->xkey[j] = xk, fa->xbase[j] = cg_smem_abs(cg, off), fa->nxor++;
  }
  if (!rest) return fa->xbase[j];
  LLVMValueRef off = cg_i32(cg, rest);
  return LLVMBuildGEP2(cg->b, cg->t_i8, fa->xbase[j], &off, 1, "");
}

LLVMValueRef cg_buf_frag_addr(CgCtx *cg, const CgBuf *b, const CgFrag *f, int i, CgFragAddrs *fa) {
  if (!fa->addr0) {
    LLVMValueRef c0 = cg_coord(cg, f, 0, b->cdim);
    LLVMValueRef r0 = b->rdim < 0 ? cg_i32(cg, 0) : cg_coord(cg, f, 0, b->rdim);
    LLVMValueRef b0 = b->bdim < 0 ? NULL : cg_coord(cg, f, 0, b->bdim);
    fa->addr0 = buf_addr_b(cg, b, b0, r0, c0);
  }
  int64_t rc[IR_MAX_RANK], r0[IR_MAX_RANK];
  cg_reg_coord(f, i, rc);
  cg_reg_coord(f, 0, r0);
  const CgThreadParts *tp = cg_thread_parts(cg, f);
  int64_t dc = rc[b->cdim] - r0[b->cdim], dr = b->rdim < 0 ? 0 : rc[b->rdim] - r0[b->rdim];
  int64_t db = b->bdim < 0 ? 0 : rc[b->bdim] - r0[b->bdim];
  bool disjoint = !(tp->bits[b->cdim] & (rc[b->cdim] | r0[b->cdim])) &&
                  (b->rdim < 0 || !(tp->bits[b->rdim] & (rc[b->rdim] | r0[b->rdim]))) &&
                  (b->bdim < 0 || !(tp->bits[b->bdim] & (rc[b->bdim] | r0[b->bdim])));
  int64_t inner = b->t->shape[b->cdim], W = b->S->block > 0 && b->S->block < inner ? b->S->block : inner;
  int vec = b->S->vec > 0 ? b->S->vec : 1, mp = b->S->max_phase > 1 ? b->S->max_phase : 1;
  int64_t period = b->rdim < 0 || mp == 1 ? 1 : (int64_t)b->S->per_phase * mp;
  bool keeps = disjoint && dc >= 0 && dr >= 0 && db >= 0 && dr % period == 0 &&
               (b->rdim < 0 || (W < inner ? dc % W == 0 : dc % ((int64_t)vec * mp) == 0));
  if (!keeps) {
    LLVMValueRef a = split_addr(cg, b, f, rc, fa);
    if (a) return a;
    LLVMValueRef col = cg_coord(cg, f, i, b->cdim);
    LLVMValueRef row = b->rdim < 0 ? cg_i32(cg, 0) : cg_coord(cg, f, i, b->rdim);
    LLVMValueRef batch = b->bdim < 0 ? NULL : cg_coord(cg, f, i, b->bdim);
    return buf_addr_b(cg, b, batch, row, col);
  }
  int64_t delta = b->rdim < 0 ? dc : (W < inner ? (dc / W) * b->t->shape[b->rdim] * W + dr * W : dr * inner + dc);
  LLVMValueRef off = cg_i32(cg, delta * b->eb + db * b->bbytes);
  return LLVMBuildGEP2(cg->b, cg->t_i8, fa->addr0, &off, 1, "");
}

/* Elements per shared access for fragment f against buffer b. */
int cg_buf_group(const CgFrag *f, const CgBuf *b) {
  if (f->run_dim != b->cdim) return 1;
  int g = f->run, vec = b->rdim < 0 ? 16 / b->eb : b->S->vec;
  if (g > vec) g = vec;
  while (g > 1 && g * b->eb > 16) g /= 2;
  return g;
}

/* Orders this thread's shared stores before the async proxy's reads (wgmma). */
static void fence_async(CgCtx *cg) {
  cg_asm(cg, cg->t_void, "fence.proxy.async.shared::cta;", "", NULL, 0, true);
}

/* ---- LOCAL_ALLOC ----------------------------------------------------------------- */

void cg_lower_local_alloc(CgCtx *cg, Op *op) {
  const Value *x = op->operands[0];
  const Type *t = op->results[0]->type;
  int base = op->attr.smem_offset;
  int64_t end = (int64_t)base + ty_numel(t) * cg_dt_bytes(t->dtype);
  LLVMValueRef off = cg_i32(cg, base);
  cg_set(cg, op->results[0], &off, 1);
  if (end > ir_smem_limit(cg->capability) && !cg->smem_over_op)
    cg->smem_over_op = op; /* the operand buffers alone are too large: point at this dot */
  if (end > cg->m->smem_buffers_end) {
    cg_error(cg, op, "local_alloc buffer lies outside the allocated shared memory");
    return;
  }
  CgFrag f;
  CgBuf b;
  if (!x || !x->type->rank || !cg_frag(cg, op, x->type, &f) || !cg_buf_batched(cg, op, op->results[0], &b)) return;
  CgVal *xv = cg_get(cg, op, x);
  /* Stagings side by side (sink-stagings puts a dot's two operands so)
   * share their barriers: the first's leading one finds every earlier
   * reader done for all of them, the last's trailing one publishes all. */
  if (!ir_is_staging(op->prev)) cg_barrier(cg); /* readers of the previous contents are done */
  LLVMValueRef own = cg_owner(cg, x->type);
  LLVMBasicBlockRef cont = cg_begin_guard(cg, own);
  int g = cg_buf_group(&f, &b);
  CgFragAddrs a0 = {0};
  for (int i = 0; i < f.count; i += g) cg_store_group(cg, b.t->dtype, cg_buf_frag_addr(cg, &b, &f, i, &a0), xv->v + i, g);
  cg_end_guard(cg, cont);
  if (b.S->block && cg->capability >= 90) fence_async(cg); /* a wgmma reads it next */
  if (!ir_is_staging(op->next)) cg_barrier(cg); /* the data is visible to every reader */
}

/* ---- LOCAL_LOAD ------------------------------------------------------------------ */

void cg_lower_local_load(CgCtx *cg, Op *op) {
  const Type *t = op->results[0]->type;
  CgBuf b;
  CgFrag f;
  if (!cg_buf_batched(cg, op, op->operands[0], &b) || !cg_frag(cg, op, t, &f)) {
    cg_set_undef(cg, op->results[0]);
    return;
  }
  LLVMValueRef *e = ARENA_ARRAY(&cg->arena, LLVMValueRef, f.count);
  const Layout *D = t->layout;
  bool ld16 = D->kind == LAY_DOT_OPERAND && D->k_width == 2 && cg_dt_bytes(t->dtype) == 2 && b.rdim >= 0 &&
              D->parent->kind == LAY_MMA;
  if (ld16 && cg_ldmatrix_defer(cg, op)) { /* the dot right after issues it (cg_dot.c) */
    for (int i = 0; i < f.count; i++) e[i] = NULL;
    cg_set(cg, op->results[0], e, f.count);
    return;
  }
  if (ld16 && cg_ldmatrix_operand(cg, op, &b, D, &f, e)) {
    cg_set(cg, op->results[0], e, f.count);
    return;
  }
  int g = cg_buf_group(&f, &b);
  CgFragAddrs a0 = {0};
  for (int i = 0; i < f.count; i += g) cg_load_group(cg, t->dtype, cg_buf_frag_addr(cg, &b, &f, i, &a0), g, e + i);
  cg_set(cg, op->results[0], e, f.count);
}

/* ---- MEMDESC_INDEX: slot `i` of a ring buffer[S, ...] ---------------------------- */

void cg_lower_memdesc_index(CgCtx *cg, Op *op) {
  const Type *rt = op->results[0]->type;
  LLVMValueRef ring = cg_get(cg, op, op->operands[0])->v[0];
  LLVMValueRef idx = cg_get(cg, op, op->operands[1])->v[0];
  if (LLVMTypeOf(idx) != cg->t_i32) idx = LLVMBuildTrunc(cg->b, idx, cg->t_i32, "");
  int64_t slot = ty_numel(rt) * cg_dt_bytes(rt->dtype);
  LLVMValueRef off = cg_build_add(cg->b, ring, cg_build_mul(cg->b, idx, cg_i32(cg, slot), ""), "slot");
  cg_set(cg, op->results[0], &off, 1);
}
