/* shape.c — ops that move elements without computing: splat, broadcast,
 * expand_dims, reshape, convert_layout (all row-major copies here: there
 * are no layouts), trans, flip, gather, sort and histogram.
 *
 * Elements move as bytes of their size; a tile is row-major, the last dim
 * fastest. */
#include "interp/interp_internal.h"

#include <stdlib.h>
#include <string.h>

void ip_strides(const Type *t, int64_t *st) {
  int64_t s = 1;
  for (int d = t->rank - 1; d >= 0; d--) st[d] = s, s *= t->shape[d];
}

/* Coordinates of linear index i in `t`'s shape. */
static void coords(const Type *t, int64_t i, int64_t *c) {
  for (int d = t->rank - 1; d >= 0; d--) c[d] = i % t->shape[d], i /= t->shape[d];
}

static void copy_elem(unsigned char *dst, int64_t di, const unsigned char *src, int64_t si, int sz) {
  switch (sz) {
  case 1: dst[di] = src[si]; return;
  case 2: ((uint16_t *)dst)[di] = ((const uint16_t *)src)[si]; return;
  case 4: ((uint32_t *)dst)[di] = ((const uint32_t *)src)[si]; return;
  default: ((uint64_t *)dst)[di] = ((const uint64_t *)src)[si]; return;
  }
}

static bool broadcast(Interp *I, Op *op) {
  Value *r = op->results[0], *a = op->operands[0];
  const Type *rt = r->type, *at = a->type;
  int sz = ip_size(ip_dt(r));
  int64_t n = ty_numel(rt), ast[IR_MAX_RANK], c[IR_MAX_RANK];
  const unsigned char *src = ip_val(I, a)->data;
  unsigned char *out = ip_def(I, r, n);
  if (ip_val(I, a)->n == 1) {
    for (int64_t i = 0; i < n; i++) copy_elem(out, i, src, 0, sz);
    return true;
  }
  /* source dims align with the result's last dims; size-1 dims repeat */
  int off = rt->rank - at->rank;
  ip_strides(at, ast);
  for (int64_t i = 0; i < n; i++) {
    coords(rt, i, c);
    int64_t si = 0;
    for (int d = 0; d < at->rank; d++)
      if (at->shape[d] != 1) si += c[d + off] * ast[d];
    copy_elem(out, i, src, si, sz);
  }
  return true;
}

static bool trans(Interp *I, Op *op) {
  Value *r = op->results[0], *a = op->operands[0];
  int sz = ip_size(ip_dt(r));
  int64_t n = ty_numel(r->type), ast[IR_MAX_RANK], c[IR_MAX_RANK];
  ip_strides(a->type, ast);
  const unsigned char *src = ip_val(I, a)->data;
  unsigned char *out = ip_def(I, r, n);
  for (int64_t i = 0; i < n; i++) {
    coords(r->type, i, c);
    int64_t si = 0;
    for (int d = 0; d < r->type->rank; d++) si += c[d] * ast[op->attr.perm[d]];
    copy_elem(out, i, src, si, sz);
  }
  return true;
}

static bool flip(Interp *I, Op *op) {
  Value *r = op->results[0], *a = op->operands[0];
  int sz = ip_size(ip_dt(r)), ax = op->attr.axis;
  int64_t n = ty_numel(r->type), st[IR_MAX_RANK], c[IR_MAX_RANK];
  ip_strides(r->type, st);
  const unsigned char *src = ip_val(I, a)->data;
  unsigned char *out = ip_def(I, r, n);
  for (int64_t i = 0; i < n; i++) {
    coords(r->type, i, c);
    copy_elem(out, i, src, i + (r->type->shape[ax] - 1 - 2 * c[ax]) * st[ax], sz);
  }
  return true;
}

static bool gather(Interp *I, Op *op) {
  Value *r = op->results[0], *src = op->operands[0], *idx = op->operands[1];
  int sz = ip_size(ip_dt(r)), ax = op->attr.axis;
  int64_t n = ty_numel(r->type), sst[IR_MAX_RANK], c[IR_MAX_RANK];
  ip_strides(src->type, sst);
  const unsigned char *s = ip_val(I, src)->data, *ix = ip_val(I, idx)->data;
  unsigned char *out = ip_def(I, r, n);
  for (int64_t i = 0; i < n; i++) {
    coords(r->type, i, c);
    int64_t k = ip_get_i(ix, ip_dt(idx), i);
    if (k < 0 || k >= src->type->shape[ax])
      return ip_fail(I, op, TLC_INTERP_FAULT, "gather index %lld is outside [0, %lld) along axis %d (element %lld)",
                     (long long)k, (long long)src->type->shape[ax], ax, (long long)i);
    c[ax] = k;
    int64_t si = 0;
    for (int d = 0; d < src->type->rank; d++) si += c[d] * sst[d];
    copy_elem(out, i, s, si, sz);
  }
  return true;
}

/* ---- sort ----------------------------------------------------------------------- */

typedef struct SortKey {
  double f;
  int64_t i;
  uint64_t u;
} SortKey;

/* 0 float, 1 signed, 2 unsigned: what cmp_key compares (set before each qsort) */
static _Thread_local int tls_sort_kind;

static int cmp_key(const void *pa, const void *pb) {
  const SortKey *a = pa, *b = pb;
  switch (tls_sort_kind) {
  case 0: return (a->f > b->f) - (a->f < b->f);
  case 1: return (a->i > b->i) - (a->i < b->i);
  default: return (a->u > b->u) - (a->u < b->u);
  }
}

static bool sort_op(Interp *I, Op *op) {
  Value *r = op->results[0], *a = op->operands[0];
  DType d = ip_dt(r);
  int ax = op->attr.axis;
  int64_t n = ty_numel(r->type), st[IR_MAX_RANK], c[IR_MAX_RANK], len = r->type->shape[ax];
  ip_strides(r->type, st);
  const unsigned char *src = ip_val(I, a)->data;
  unsigned char *out = ip_def(I, r, n);
  memcpy(out, src, (size_t)n * (size_t)ip_size(d));
  SortKey *keys = xcalloc((size_t)len, sizeof *keys);
  tls_sort_kind = dt_is_float(d) ? 0 : dt_is_signed(d) ? 1 : 2;
  for (int64_t i = 0; i < n; i++) {
    coords(r->type, i, c);
    if (c[ax] != 0) continue; /* i starts a line along the axis */
    for (int64_t k = 0; k < len; k++) {
      int64_t e = i + k * st[ax];
      keys[k].f = dt_is_float(d) ? ip_get_f(src, d, e) : 0;
      keys[k].i = dt_is_float(d) ? 0 : ip_get_i(src, d, e);
      keys[k].u = (uint64_t)keys[k].i;
    }
    qsort(keys, (size_t)len, sizeof *keys, cmp_key);
    for (int64_t k = 0; k < len; k++) {
      int64_t e = i + k * st[ax];
      const SortKey *s = &keys[op->attr.reverse ? len - 1 - k : k];
      if (dt_is_float(d)) ip_set_f(out, d, e, s->f);
      else ip_set_i(out, d, e, s->i);
    }
  }
  free(keys);
  return true;
}

static bool histogram(Interp *I, Op *op) {
  Value *r = op->results[0], *x = op->operands[0], *m = op->noperands > 1 ? op->operands[1] : NULL;
  int64_t bins = ty_numel(r->type);
  IVal *xs = ip_val(I, x);
  const unsigned char *mk = m ? ip_val(I, m)->data : NULL;
  int64_t mst = m && ip_val(I, m)->n == 1 ? 0 : 1;
  unsigned char *out = ip_def(I, r, bins);
  memset(out, 0, (size_t)bins * (size_t)ip_size(ip_dt(r)));
  for (int64_t i = 0; i < xs->n; i++) {
    if (mk && !mk[i * mst]) continue;
    int64_t v = ip_get_i(xs->data, ip_dt(x), i);
    if (v >= 0 && v < bins) ip_set_i(out, ip_dt(r), v, ip_get_i(out, ip_dt(r), v) + 1);
  }
  return true;
}

bool ip_shape_op(Interp *I, Op *op) {
  switch (op->kind) {
  case OP_SPLAT: case OP_BROADCAST: return broadcast(I, op);
  case OP_EXPAND_DIMS: case OP_RESHAPE: case OP_CONVERT_LAYOUT: {
    Value *r = op->results[0], *a = op->operands[0];
    int64_t n = ty_numel(r->type);
    unsigned char *out = ip_def(I, r, n);
    memcpy(out, ip_val(I, a)->data, (size_t)n * (size_t)ip_size(ip_dt(r)));
    return true;
  }
  case OP_TRANS: return trans(I, op);
  case OP_FLIP: return flip(I, op);
  case OP_GATHER: return gather(I, op);
  case OP_SORT: return sort_op(I, op);
  case OP_HISTOGRAM: return histogram(I, op);
  default:
    return ip_fail(I, op, TLC_INTERP_UNSUPPORTED, "the interpreter does not support %s yet", ir_op_info[op->kind].name);
  }
}
