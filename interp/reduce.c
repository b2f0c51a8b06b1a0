/* reduce.c — reductions and scans along one axis.
 *
 * Combines run in index order along the axis (the GPU's butterflies use
 * another order, so float sums may differ in the last bits; integer
 * results are the same).  Sums and products combine in the element type,
 * rounding at every step as the GPU does; max / min ignore NaN (maxnum);
 * argmax / argmin keep the first index of the extreme value (Triton's
 * tie_break_left), the index being operand 1 when present, else the
 * coordinate along the axis.  A combine region (tl.reduce / tl.associative_scan
 * with a @jit function) runs on scalars, (acc..., next...) -> acc. */
#include "interp/interp_internal.h"

#include <math.h>
#include <string.h>

/* The extents around the axis: outer x len x inner. */
static void split(const Type *t, int axis, int64_t *outer, int64_t *len, int64_t *inner) {
  *outer = 1, *inner = 1, *len = t->shape[axis];
  for (int d = 0; d < axis; d++) *outer *= t->shape[d];
  for (int d = axis + 1; d < t->rank; d++) *inner *= t->shape[d];
}

static double round_to(DType d, double x) {
  unsigned char b[8];
  ip_set_f(b, d, 0, x);
  return ip_get_f(b, d, 0);
}

/* acc = combine(acc, x) for the built-in combines, in element type d. */
static void combine(CombineKind k, DType d, double *fa, int64_t *ia, double fx, int64_t ix) {
  if (dt_is_float(d)) {
    OpKind op = k == COMBINE_SUM ? OP_ADD : k == COMBINE_PROD ? OP_MUL : k == COMBINE_MAX ? OP_MAX : OP_MIN;
    *fa = round_to(d, ip_binary_f(op, d, *fa, fx, true, false));
    return;
  }
  OpKind op = k == COMBINE_SUM ? OP_ADD : k == COMBINE_PROD ? OP_MUL : k == COMBINE_MAX ? OP_MAX
              : k == COMBINE_MIN ? OP_MIN : k == COMBINE_XOR ? OP_XOR : k == COMBINE_AND ? OP_AND : OP_OR;
  *ia = ip_binary_i(op, d, *ia, ix);
}

/* Run a combine region: block args (acc..., x...) from the slots' elements,
 * the yielded values written back into acc. */
static bool combine_region(Interp *I, Op *op, int n, unsigned char **acc, const Value **accv,
                           const unsigned char **x, const Value **xv, int64_t xi) {
  IrBlock *b = op->regions[0];
  for (int j = 0; j < n; j++) {
    int sz = ip_size(ip_dt(accv[j]));
    memcpy(ip_def(I, b->args[j], 1), acc[j], (size_t)sz);
    memcpy(ip_def(I, b->args[n + j], 1), x[j] + xi * sz, (size_t)sz);
  }
  Op *y;
  if (!ip_exec_block(I, b, &y)) return false;
  if (!y || y->noperands != n)
    return ip_fail(I, op, TLC_INTERP_UNSUPPORTED, "a combine function that does not yield %d values", n);
  for (int j = 0; j < n; j++) memcpy(acc[j], ip_val(I, y->operands[j])->data, (size_t)ip_size(ip_dt(accv[j])));
  (void)xv;
  return true;
}

static bool reduce_region(Interp *I, Op *op) {
  int n = op->noperands;
  const Type *t = op->operands[0]->type;
  int64_t outer, len, inner;
  split(t, op->attr.axis, &outer, &len, &inner);
  unsigned char *acc[IR_MAX_RANK * 2], *out[IR_MAX_RANK * 2];
  const unsigned char *x[IR_MAX_RANK * 2];
  const Value *accv[IR_MAX_RANK * 2], *xv[IR_MAX_RANK * 2];
  if (n > IR_MAX_RANK * 2) return ip_fail(I, op, TLC_INTERP_UNSUPPORTED, "a reduction of more than %d tensors", IR_MAX_RANK * 2);
  for (int j = 0; j < n; j++) {
    out[j] = ip_def(I, op->results[j], outer * inner);
    x[j] = ip_val(I, op->operands[j])->data;
    accv[j] = op->results[j], xv[j] = op->operands[j];
  }
  for (int64_t o = 0; o < outer; o++)
    for (int64_t in = 0; in < inner; in++) {
      int64_t ri = o * inner + in;
      for (int j = 0; j < n; j++) {
        int sz = ip_size(ip_dt(accv[j]));
        acc[j] = out[j] + ri * sz;
        memcpy(acc[j], x[j] + (o * len * inner + in) * sz, (size_t)sz);
      }
      for (int64_t k = 1; k < len; k++)
        if (!combine_region(I, op, n, acc, accv, x, xv, o * len * inner + k * inner + in)) return false;
    }
  return true;
}

bool ip_reduce(Interp *I, Op *op) {
  if (op->attr.combine == COMBINE_REGION) return reduce_region(I, op);
  Value *a = op->operands[0];
  DType d = ip_dt(a);
  int64_t outer, len, inner;
  split(a->type, op->attr.axis, &outer, &len, &inner);
  const unsigned char *x = ip_val(I, a)->data;
  CombineKind k = op->attr.combine;
  bool arg = k == COMBINE_ARGMAX || k == COMBINE_ARGMIN;
  /* argmax with one result: that result is the index */
  Value *rv = arg && op->nresults == 1 ? NULL : op->results[0];
  Value *ri = arg ? op->results[op->nresults - 1] : NULL;
  const unsigned char *idx = arg && op->noperands > 1 ? ip_val(I, op->operands[1])->data : NULL;
  DType idd = arg && op->noperands > 1 ? ip_dt(op->operands[1]) : DT_I32;
  unsigned char *ov = rv ? ip_def(I, rv, outer * inner) : NULL, *oi = ri ? ip_def(I, ri, outer * inner) : NULL;
  bool fl = dt_is_float(d);
  for (int64_t o = 0; o < outer; o++)
    for (int64_t in = 0; in < inner; in++) {
      int64_t e0 = o * len * inner + in, r = o * inner + in;
      double fa = fl ? ip_get_f(x, d, e0) : 0;
      int64_t ia = fl ? 0 : ip_get_i(x, d, e0), best = 0;
      for (int64_t j = 1; j < len; j++) {
        int64_t e = e0 + j * inner;
        if (arg) {
          bool is_max = k == COMBINE_ARGMAX, better;
          if (fl) {
            double v = ip_get_f(x, d, e);
            better = (isnan(fa) && !isnan(v)) || (is_max ? v > fa : v < fa);
            if (better) fa = v, best = j;
          } else {
            int64_t v = ip_get_i(x, d, e);
            int64_t m = ip_binary_i(is_max ? OP_MAX : OP_MIN, d, ia, v);
            better = m != ia && m == v;
            if (better) ia = v, best = j;
          }
        } else {
          combine(k, d, &fa, &ia, fl ? ip_get_f(x, d, e) : 0, fl ? 0 : ip_get_i(x, d, e));
        }
      }
      if (ov) {
        if (fl) ip_set_f(ov, d, r, fa);
        else ip_set_i(ov, d, r, ia);
      }
      if (oi) ip_set_i(oi, ip_dt(ri), r, idx ? ip_get_i(idx, idd, e0 + best * inner) : best);
    }
  return true;
}

bool ip_scan(Interp *I, Op *op) {
  int n = op->noperands;
  const Type *t = op->operands[0]->type;
  int64_t outer, len, inner;
  split(t, op->attr.axis, &outer, &len, &inner);
  bool rev = op->attr.reverse;
  if (op->attr.combine == COMBINE_REGION) {
    unsigned char *acc[16], *out[16];
    const unsigned char *x[16];
    const Value *accv[16], *xv[16];
    if (n > 16) return ip_fail(I, op, TLC_INTERP_UNSUPPORTED, "a scan of more than 16 tensors");
    for (int j = 0; j < n; j++) {
      out[j] = ip_def(I, op->results[j], ty_numel(t));
      x[j] = ip_val(I, op->operands[j])->data;
      accv[j] = op->results[j], xv[j] = op->operands[j];
    }
    for (int64_t o = 0; o < outer; o++)
      for (int64_t in = 0; in < inner; in++)
        for (int64_t s = 0; s < len; s++) {
          int64_t k = rev ? len - 1 - s : s, e = o * len * inner + k * inner + in;
          for (int j = 0; j < n; j++) {
            int sz = ip_size(ip_dt(accv[j]));
            acc[j] = out[j] + e * sz;
            if (s == 0) memcpy(acc[j], x[j] + e * sz, (size_t)sz);
            else memcpy(acc[j], out[j] + (e + (rev ? inner : -inner)) * sz, (size_t)sz);
          }
          if (s > 0 && !combine_region(I, op, n, acc, accv, x, xv, e)) return false;
        }
    return true;
  }
  Value *a = op->operands[0], *r = op->results[0];
  DType d = ip_dt(a);
  bool fl = dt_is_float(d);
  const unsigned char *x = ip_val(I, a)->data;
  unsigned char *out = ip_def(I, r, ty_numel(t));
  for (int64_t o = 0; o < outer; o++)
    for (int64_t in = 0; in < inner; in++) {
      double fa = 0;
      int64_t ia = 0;
      for (int64_t s = 0; s < len; s++) {
        int64_t k = rev ? len - 1 - s : s, e = o * len * inner + k * inner + in;
        double fx = fl ? ip_get_f(x, d, e) : 0;
        int64_t ix = fl ? 0 : ip_get_i(x, d, e);
        if (s == 0) fa = fx, ia = ix;
        else combine(op->attr.combine, d, &fa, &ia, fx, ix);
        if (fl) ip_set_f(out, d, e, fa);
        else ip_set_i(out, d, e, ia);
      }
    }
  return true;
}
