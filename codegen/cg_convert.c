/* cg_convert.c — ops that move elements between threads or reindex them:
 * splat, arange, broadcast, expand_dims, trans, reshape, convert_layout,
 * and the shared-memory exchange they fall back on.
 *
 * Free (register-only) cases:
 *   splat         every element is the scalar;
 *   arange        element = start + coord;
 *   broadcast     same layout; a broadcast dim has extent 1 in the source
 *                 fragment, so dst element idx reads src element idx with
 *                 those dims zeroed;
 *   expand_dims   slice(axis, P) -> P: the fragment lists are the same;
 *   trans         to lay_permute(src): the fragment list is the same;
 *   convert / reshape / trans otherwise: first a compile-time check (C
 *                 evaluation of the layout formulas for every thread) whether
 *                 each thread already holds every element it needs, at the
 *                 same fragment index in every thread: then a permutation.
 * Otherwise the exchange: every thread writes its elements to a row-major
 * scratch buffer in shared memory (replicated writes store equal values),
 * barrier, every thread reads its new elements, barrier.  Accesses are
 * vectorized (up to 16 bytes) along the contiguous dim, and rows are padded
 * by the vector width to spread column accesses over the banks:
 *
 *   byte(L) = (L + (L / S_last) * pad) * elem_bytes,  L = row-major index */
#include "codegen/cg_internal.h"

#include <stdlib.h>
#include <string.h>

static void row_major(const Type *t, int64_t *strides) {
  int64_t s = 1;
  for (int d = t->rank - 1; d >= 0; d--) strides[d] = s, s *= t->shape[d];
}

/* ---- the register-permutation check ------------------------------------------ */

/* Register parts of a fragment's coordinates, one row of rank values per
 * fragment index (coordinates are XOR-linear: the element at index i of
 * thread t sits at regs[i] ^ the thread part of t). */
static int64_t *reg_parts(const CgFrag *f) {
  int64_t *r = xmalloc(sizeof(int64_t) * ((size_t)f->count * (size_t)f->rank + 1));
  for (int i = 0; i < f->count; i++) ll_coord(&f->ll, i, 0, 0, r + (size_t)i * f->rank);
  return r;
}

/* Does every thread hold, for each dst element k, the source element at
 * linear index sum_d coord_d(k) * rstride[d], at one fragment index perm[k]
 * that is the same in all threads? */
static bool find_perm(const CgFrag *fs, const Type *st, const CgFrag *fd, const int64_t *rstride,
                      int nthreads, int *perm) {
  int64_t numel = ty_numel(st);
  if (numel > (1 << 22)) return false;
  int64_t sstride[IR_MAX_RANK];
  row_major(st, sstride);
  int ns = fs->count, nd = fd->count;
  int *where = xmalloc(sizeof(int) * ((size_t)numel + 1));
  int64_t *lin = xmalloc(sizeof(int64_t) * ((size_t)ns + 1));
  int64_t *rs = reg_parts(fs), *rd = reg_parts(fd);
  bool ok = true;
  for (int64_t i = 0; i < numel; i++) where[i] = -1;
  for (int t = 0; t < nthreads && ok; t++) {
    int64_t ts[IR_MAX_RANK], td[IR_MAX_RANK];
    ll_coord(&fs->ll, 0, t & 31, t >> 5, ts);
    ll_coord(&fd->ll, 0, t & 31, t >> 5, td);
    for (int j = 0; j < ns; j++) {
      int64_t l = 0;
      for (int d = 0; d < fs->rank; d++) l += (rs[(size_t)j * fs->rank + d] ^ ts[d]) * sstride[d];
      lin[j] = l;
      if (where[l] < 0) where[l] = j;
    }
    for (int k = 0; k < nd && ok; k++) {
      int64_t l = 0;
      for (int d = 0; d < fd->rank; d++) l += (rd[(size_t)k * fd->rank + d] ^ td[d]) * rstride[d];
      int j = l >= 0 && l < numel ? where[l] : -1;
      if (j < 0) ok = false;
      else if (t == 0) perm[k] = j;
      else if (perm[k] != j) ok = false;
    }
    for (int j = 0; j < ns; j++) where[lin[j]] = -1;
  }
  free(rs), free(rd);
  free(lin);
  free(where);
  return ok;
}

/* ---- the shared-memory exchange ------------------------------------------------ */

/* Elements per vector access along the fragment's fast dim when that dim
 * has stride 1 in the scratch buffer. */
static int smem_vec(const CgFrag *f, const int64_t *stride, int eb) {
  if (f->run_dim < 0 || stride[f->run_dim] != 1) return 1;
  int v = f->run;
  while (v > 1 && v * eb > 16) v /= 2;
  return v;
}

typedef struct Scratch {
  DType d;
  int eb;
  int64_t last;   /* S_last of the source shape (row length) */
  int pad;        /* elements of padding per row */
} Scratch;

static LLVMValueRef scratch_addr(CgCtx *cg, const Scratch *s, LLVMValueRef lin) {
  if (s->pad && s->last > 1) {
    LLVMValueRef row = LLVMBuildUDiv(cg->b, lin, cg_i32(cg, s->last), "");
    lin = cg_build_add(cg->b, lin, cg_build_mul(cg->b, row, cg_i32(cg, s->pad), ""), "");
  }
  return cg_smem_ptr(cg, cg_build_mul(cg->b, lin, cg_i32(cg, s->eb), ""));
}

static void smem_store(CgCtx *cg, const Scratch *s, LLVMValueRef lin, LLVMValueRef *el, int vec) {
  LLVMValueRef ptr = scratch_addr(cg, s, lin);
  if (vec == 1) {
    LLVMValueRef st = LLVMBuildStore(cg->b, cg_to_mem(cg, s->d, el[0]), ptr);
    LLVMSetAlignment(st, (unsigned)s->eb);
    return;
  }
  cg_store_group(cg, s->d, ptr, el, vec);
}

static void smem_load(CgCtx *cg, const Scratch *s, LLVMValueRef lin, int vec, LLVMValueRef *out) {
  LLVMValueRef ptr = scratch_addr(cg, s, lin);
  if (vec == 1) {
    LLVMValueRef ld = LLVMBuildLoad2(cg->b, cg_mem_type(cg, s->d), ptr, "");
    LLVMSetAlignment(ld, (unsigned)s->eb);
    out[0] = cg_from_mem(cg, s->d, ld);
    return;
  }
  cg_load_group(cg, s->d, ptr, vec, out);
}

void cg_smem_exchange(CgCtx *cg, const Op *op, const Type *st, const CgVal *src,
                      const Type *dt, const int64_t *rstride, LLVMValueRef wpred,
                      LLVMValueRef *out) {
  Scratch s = {.d = st->dtype, .eb = cg_dt_bytes(st->dtype)};
  if (!st->rank || !dt->rank) {
    if (st->rank || dt->rank) {
      cg_error(cg, op, "shared-memory exchange between a scalar and a tensor");
      return;
    }
    cg_smem_request(cg, op, s.eb);
    LLVMBasicBlockRef c = cg_begin_guard(cg, wpred);
    smem_store(cg, &s, cg_i32(cg, 0), src->v, 1);
    cg_end_guard(cg, c);
    cg_barrier(cg);
    smem_load(cg, &s, cg_i32(cg, 0), 1, out);
    cg_barrier(cg);
    return;
  }
  CgFrag fs, fd;
  if (!cg_frag(cg, op, st, &fs) || !cg_frag(cg, op, dt, &fd)) return;
  int64_t sstride[IR_MAX_RANK];
  row_major(st, sstride);
  int wv = smem_vec(&fs, sstride, s.eb), rv = smem_vec(&fd, rstride, s.eb);
  s.last = st->shape[st->rank - 1];
  /* a read must stay within one (padded) source row: a reshape's reads run
   * along the flattened index */
  while (rv > s.last) rv /= 2;
  s.pad = st->rank >= 2 ? (wv > rv ? wv : rv) : 0;
  int64_t rows = ty_numel(st) / s.last;
  cg_smem_request(cg, op, (ty_numel(st) + rows * s.pad) * s.eb);

  LLVMBasicBlockRef c = cg_begin_guard(cg, wpred);
  for (int j = 0; j < fs.count; j += wv)
    smem_store(cg, &s, cg_linear(cg, &fs, j, sstride), src->v + j, wv);
  cg_end_guard(cg, c);
  cg_barrier(cg);
  for (int k = 0; k < fd.count; k += rv)
    smem_load(cg, &s, cg_linear(cg, &fd, k, rstride), rv, out + k);
  cg_barrier(cg);
}

/* ---- the ops ------------------------------------------------------------------- */

/* dst element k = src element at linear index sum coord_d(k) * rstride[d];
 * register permutation when possible, else through shared memory. */
static void move(CgCtx *cg, Op *op, const int64_t *rstride) {
  const Type *st = op->operands[0]->type, *dt = op->results[0]->type;
  CgVal *x = cg_get(cg, op, op->operands[0]);
  CgFrag fs, fd;
  if (!cg_frag(cg, op, st, &fs) || !cg_frag(cg, op, dt, &fd)) {
    cg_set_undef(cg, op->results[0]);
    return;
  }
  int nd = fd.count;
  LLVMValueRef *e = ARENA_ARRAY(&cg->arena, LLVMValueRef, nd);
  int *perm = ARENA_ARRAY(&cg->arena, int, nd);
  if (x->n == fs.count && find_perm(&fs, st, &fd, rstride, cg->nthreads, perm)) {
    for (int k = 0; k < nd; k++) e[k] = x->v[perm[k]];
  } else {
    cg_smem_exchange(cg, op, st, x, dt, rstride, NULL, e);
    if (cg->failed) {
      cg_set_undef(cg, op->results[0]);
      return;
    }
  }
  cg_set(cg, op->results[0], e, nd);
}

/* The thread part of a fragment's coordinates along dim d, in C. */
static int64_t thread_coord(const CgFrag *f, int tid, int d) {
  int64_t c[IR_MAX_RANK], r[IR_MAX_RANK];
  ll_coord(&f->ll, 0, tid & 31, tid >> 5, c);
  cg_reg_coord(f, 0, r);
  return c[d] ^ r[d];
}

static unsigned coord_hash(const int64_t *c, int rank) {
  unsigned long long h = 0x9E3779B97F4A7C15ull;
  for (int d = 0; d < rank; d++) h = (h ^ (unsigned long long)c[d]) * 0xBF58476D1CE4E5B9ull;
  return (unsigned)(h >> 32);
}

/* Broadcast / expand_dims within one layout family: the thread parts agree
 * (the source's lane and warp bases are the destination's on the source's
 * dims, zero along size-1 dims), so destination register k reads the
 * source register whose constant coordinates match k's on those dims. */
static bool reindex(CgCtx *cg, Op *op, const CgFrag *fs, const CgFrag *fd, const CgVal *x,
                    LLVMValueRef *e) {
  const Type *st = op->operands[0]->type, *dt = op->results[0]->type;
  int map[IR_MAX_RANK]; /* destination dim of each source dim */
  for (int d = 0, j = 0; d < dt->rank; d++) {
    if (op->kind == OP_EXPAND_DIMS && d == op->attr.axis) continue;
    map[j++] = d;
  }
  bool ok = x->n == fs->count;
  for (int t = 0; ok && t < cg->nthreads; t++)
    for (int d = 0; d < st->rank && ok; d++)
      if (st->shape[d] > 1) ok = thread_coord(fs, t, d) == thread_coord(fd, t, map[d]);
  /* The source registers by their constant coordinates, in an open-addressed
   * table (a scan per destination register is quadratic in the fragment). */
  int cap = 16;
  while (ok && cap < 2 * fs->count) cap *= 2;
  int *slot = ok ? xmalloc(sizeof(int) * (size_t)cap) : NULL;
  int64_t(*cs)[IR_MAX_RANK] = ok ? xmalloc(sizeof *cs * (size_t)(fs->count ? fs->count : 1)) : NULL;
  for (int i = 0; ok && i < cap; i++) slot[i] = -1;
  for (int j = 0; ok && j < fs->count; j++) {
    cg_reg_coord(fs, j, cs[j]);
    unsigned h = coord_hash(cs[j], st->rank) & (unsigned)(cap - 1);
    while (slot[h] >= 0) h = (h + 1) & (unsigned)(cap - 1);
    slot[h] = j;
  }
  for (int k = 0; ok && k < fd->count; k++) {
    int64_t ck[IR_MAX_RANK], want[IR_MAX_RANK] = {0};
    cg_reg_coord(fd, k, ck);
    for (int d = 0; d < st->rank; d++) want[d] = st->shape[d] == 1 ? 0 : ck[map[d]];
    int found = -1;
    for (unsigned h = coord_hash(want, st->rank) & (unsigned)(cap - 1); slot[h] >= 0 && found < 0;
         h = (h + 1) & (unsigned)(cap - 1))
      if (!memcmp(cs[slot[h]], want, sizeof(int64_t) * (size_t)st->rank)) found = slot[h];
    if (found < 0) ok = false;
    else e[k] = x->v[found];
  }
  free(slot);
  free(cs);
  if (!ok) {
    cg_error(cg, op, "%s between layouts that do not share a fragment",
             op->kind == OP_EXPAND_DIMS ? "expand_dims" : "broadcast");
    cg_set_undef(cg, op->results[0]);
  }
  return ok;
}

static void lower_arange(CgCtx *cg, Op *op) {
  const Type *rt = op->results[0]->type;
  CgFrag f;
  if (!cg_frag(cg, op, rt, &f)) {
    cg_set_undef(cg, op->results[0]);
    return;
  }
  LLVMTypeRef t = cg_type(cg, rt->dtype);
  LLVMValueRef *e = ARENA_ARRAY(&cg->arena, LLVMValueRef, f.count);
  for (int i = 0; i < f.count; i++) {
    LLVMValueRef c = cg_coord(cg, &f, i, 0);
    if (t != cg->t_i32) c = LLVMBuildZExt(cg->b, c, t, "");
    e[i] = op->attr.start ? cg_build_add(cg->b, c, cg_int(t, op->attr.start), "") : c;
  }
  cg_set(cg, op->results[0], e, f.count);
}

static void lower_splat(CgCtx *cg, Op *op) {
  CgVal *x = cg_get(cg, op, op->operands[0]);
  int n = cg_nelems(cg, op->results[0]->type);
  LLVMValueRef *e = ARENA_ARRAY(&cg->arena, LLVMValueRef, n);
  for (int i = 0; i < n; i++) e[i] = x->v[0];
  cg_set(cg, op->results[0], e, n);
}

static void lower_broadcast(CgCtx *cg, Op *op) {
  const Type *st = op->operands[0]->type, *dt = op->results[0]->type;
  if (!st->rank) {
    lower_splat(cg, op);
    return;
  }
  CgVal *x = cg_get(cg, op, op->operands[0]);
  CgFrag fs, fd;
  if (!cg_frag(cg, op, st, &fs) || !cg_frag(cg, op, dt, &fd)) {
    cg_set_undef(cg, op->results[0]);
    return;
  }
  LLVMValueRef *e = ARENA_ARRAY(&cg->arena, LLVMValueRef, fd.count);
  if (!reindex(cg, op, &fs, &fd, x, e)) return;
  cg_set(cg, op->results[0], e, fd.count);
}

static void lower_expand_dims(CgCtx *cg, Op *op) {
  const Type *st = op->operands[0]->type, *dt = op->results[0]->type;
  CgVal *x = cg_get(cg, op, op->operands[0]);
  CgFrag fs, fd;
  if (!cg_frag(cg, op, st, &fs) || !cg_frag(cg, op, dt, &fd)) {
    cg_set_undef(cg, op->results[0]);
    return;
  }
  LLVMValueRef *e = ARENA_ARRAY(&cg->arena, LLVMValueRef, fd.count);
  if (!reindex(cg, op, &fs, &fd, x, e)) return;
  cg_set(cg, op->results[0], e, fd.count);
}

void cg_lower_shape(CgCtx *cg, Op *op) {
  const Type *dt = op->results[0]->type;
  const Type *st = op->noperands ? op->operands[0]->type : NULL;
  int64_t rs[IR_MAX_RANK];
  switch (op->kind) {
  case OP_ARANGE: lower_arange(cg, op); return;
  case OP_SPLAT: lower_splat(cg, op); return;
  case OP_BROADCAST: lower_broadcast(cg, op); return;
  case OP_EXPAND_DIMS: lower_expand_dims(cg, op); return;
  case OP_CONVERT_LAYOUT:
    if (st->layout == dt->layout) {
      CgVal *x = cg_get(cg, op, op->operands[0]);
      cg_set(cg, op->results[0], x->v, x->n);
      return;
    }
    row_major(dt, rs);
    move(cg, op, rs);
    return;
  case OP_TRANS: {
    if (st->layout && dt->layout == lay_permute(cg->m->ctx, st->layout, op->attr.perm)) {
      CgVal *x = cg_get(cg, op, op->operands[0]);
      cg_set(cg, op->results[0], x->v, x->n);
      return;
    }
    int64_t ss[IR_MAX_RANK];
    row_major(st, ss);
    for (int i = 0; i < dt->rank; i++) rs[i] = ss[op->attr.perm[i]];
    move(cg, op, rs);
    return;
  }
  case OP_RESHAPE:
    if (ty_numel(st) != ty_numel(dt)) {
      cg_error(cg, op, "reshape changes the element count");
      cg_set_undef(cg, op->results[0]);
      return;
    }
    row_major(dt, rs);
    move(cg, op, rs);
    return;
  default: break;
  }
  cg_error(cg, op, "not a shape op");
  cg_set_undef(cg, op->results[0]);
}
