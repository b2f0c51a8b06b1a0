/* arith.c — elementwise arithmetic, comparisons, select, fma, clamp, casts
 * and bitcasts, with the GPU's semantics (codegen/cg_arith.c lowers the
 * same ops; docs/interpreter.md lists where the results may differ):
 *
 *  - integers wrap at their width; signedness comes from the type; a
 *    shift by the width or more gives 0 (sign bits for a signed shr), as
 *    PTX's clamped shifts do; division by zero gives -1 (rem: the
 *    dividend), where the GPU's result is unspecified;
 *  - fp8, fp16, bf16 and fp32 compute in fp32 and round once into the
 *    result type (exact for +, -, *, as fp32 holds their products); fp64
 *    in double.  fp32 division is IEEE here, div.full.f32 (2 ulp) on the
 *    GPU unless precise (div_rn);
 *  - min / max ignore NaN (maxnum) unless propagate_nan;
 *  - operands of one element stand for every element (a scalar next to a
 *    tensor). */
#include "interp/interp_internal.h"

#include <math.h>
#include <string.h>

/* ---- one element -------------------------------------------------------------- */

static float minmax_f(bool is_max, bool pn, float a, float b) {
  if (isnan(a) || isnan(b)) return pn ? NAN : isnan(a) ? b : a;
  return is_max ? (a > b ? a : b) : (a < b ? a : b);
}

static double minmax_d(bool is_max, bool pn, double a, double b) {
  if (isnan(a) || isnan(b)) return pn ? NAN : isnan(a) ? b : a;
  return is_max ? (a > b ? a : b) : (a < b ? a : b);
}

double ip_binary_f(OpKind k, DType d, double a, double b, bool precise, bool pn) {
  (void)precise;
  if (d != DT_F64) {
    float x = (float)a, y = (float)b;
    switch (k) {
    case OP_ADD: return x + y;
    case OP_SUB: return x - y;
    case OP_MUL: return x * y;
    case OP_DIV: return x / y;
    case OP_REM: return fmodf(x, y);
    case OP_MIN: return minmax_f(false, pn, x, y);
    case OP_MAX: return minmax_f(true, pn, x, y);
    default: return NAN;
    }
  }
  switch (k) {
  case OP_ADD: return a + b;
  case OP_SUB: return a - b;
  case OP_MUL: return a * b;
  case OP_DIV: return a / b;
  case OP_REM: return fmod(a, b);
  case OP_MIN: return minmax_d(false, pn, a, b);
  case OP_MAX: return minmax_d(true, pn, a, b);
  default: return NAN;
  }
}

int64_t ip_binary_i(OpKind k, DType d, int64_t a, int64_t b) {
  bool s = dt_is_signed(d);
  int bits = dt_bits(d);
  uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
  uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  switch (k) {
  case OP_ADD: return (int64_t)(ua + ub);
  case OP_SUB: return (int64_t)(ua - ub);
  case OP_MUL: return (int64_t)(ua * ub);
  case OP_DIV:
    if (b == 0) return -1;
    if (s) return b == -1 ? (int64_t)(0 - ua) : a / b;
    return (int64_t)((ua & mask) / (ub & mask));
  case OP_REM:
    if (b == 0) return a;
    if (s) return b == -1 ? 0 : a % b;
    return (int64_t)((ua & mask) % (ub & mask));
  case OP_AND: return a & b;
  case OP_OR: return a | b;
  case OP_XOR: return a ^ b;
  case OP_SHL: return (ub & mask) >= (uint64_t)bits ? 0 : (int64_t)(ua << (ub & mask));
  case OP_SHR:
    if ((ub & mask) >= (uint64_t)bits) return s && a < 0 ? -1 : 0;
    return s ? a >> (ub & mask) : (int64_t)((ua & mask) >> (ub & mask));
  case OP_MIN: return s ? (a < b ? a : b) : ((ua & mask) < (ub & mask) ? a : b);
  case OP_MAX: return s ? (a > b ? a : b) : ((ua & mask) > (ub & mask) ? a : b);
  case OP_UMULHI:
    if (bits == 64) return (int64_t)(uint64_t)(((unsigned __int128)ua * ub) >> 64);
    return (int64_t)(((ua & mask) * (ub & mask)) >> bits);
  default: return 0;
  }
}

static bool cmp_f(CmpPred p, double a, double b) {
  switch (p) {
  case CMP_EQ: return a == b;
  case CMP_NE: return a != b || isnan(a) || isnan(b); /* une */
  case CMP_LT: return a < b;
  case CMP_LE: return a <= b;
  case CMP_GT: return a > b;
  case CMP_GE: return a >= b;
  }
  return false;
}

static bool cmp_i(CmpPred p, bool s, int64_t a, int64_t b) {
  if (!s) {
    uint64_t x = (uint64_t)a, y = (uint64_t)b;
    switch (p) {
    case CMP_EQ: return x == y;
    case CMP_NE: return x != y;
    case CMP_LT: return x < y;
    case CMP_LE: return x <= y;
    case CMP_GT: return x > y;
    case CMP_GE: return x >= y;
    }
  }
  switch (p) {
  case CMP_EQ: return a == b;
  case CMP_NE: return a != b;
  case CMP_LT: return a < b;
  case CMP_LE: return a <= b;
  case CMP_GT: return a > b;
  case CMP_GE: return a >= b;
  }
  return false;
}

/* Unsigned values of 64 bits read back as uint64 bits; ip_get_i keeps
 * them, and the unsigned compare above reads them so. */

/* ---- casts -------------------------------------------------------------------- */

static void cast_elem(const Op *op, const void *src, DType from, int64_t si, void *dst, DType to,
                      int64_t di) {
  if (to == DT_I1) { /* != 0, as Triton's casts to int1 */
    bool nz = dt_is_float(from) ? ip_get_f(src, from, si) != 0 || isnan(ip_get_f(src, from, si))
                                : ip_get_i(src, from, si) != 0;
    ((uint8_t *)dst)[di] = nz;
    return;
  }
  if (!dt_is_float(from) && !dt_is_float(to)) { /* ints and pointers: extend or truncate */
    ip_set_i(dst, to, di, ip_get_i(src, from, si));
    return;
  }
  if (!dt_is_float(from)) { /* int -> float, rounded once */
    int64_t v = ip_get_i(src, from, si);
    bool u64 = from == DT_U64 || from == DT_PTR;
    if (to == DT_F32) ((float *)dst)[di] = u64 ? (float)(uint64_t)v : (float)v;
    else if (to == DT_F64) ((double *)dst)[di] = u64 ? (double)(uint64_t)v : (double)v;
    else ip_set_f(dst, to, di, u64 ? (double)(uint64_t)v : (double)v); /* exact in double below 2^53 */
    return;
  }
  double v = ip_get_f(src, from, si);
  if (!dt_is_float(to)) {
    ip_set_i(dst, to, di, ip_float_to_int(v, to));
    return;
  }
  if (op->attr.rounding == ROUND_RTZ && dt_bits(to) < dt_bits(from) && (to == DT_F32 || to == DT_F16 || to == DT_BF16))
    ip_set_f_rtz(dst, to, di, v);
  else
    ip_set_f(dst, to, di, v);
}

/* ---- the element loop ------------------------------------------------------------ */

static bool is_fp8(DType d) { return d == DT_F8E4M3 || d == DT_F8E5M2; }

static double unary_f(OpKind k, DType d, double x) {
  switch (k) {
  case OP_NEG: return -x;
  case OP_ABS: return fabs(x);
  default: return x;
  }
}

bool ip_elementwise(Interp *I, Op *op) {
  Value *r = op->results[0];
  DType rd = ip_dt(r), d0 = ip_dt(op->operands[0]);
  int64_t n = ty_numel(r->type);
  const unsigned char *x[3] = {NULL, NULL, NULL};
  int64_t st[3] = {0, 0, 0};
  for (int k = 0; k < op->noperands && k < 3; k++) {
    if (!op->operands[k]) continue;
    IVal *s = ip_val(I, op->operands[k]);
    x[k] = s->data;
    st[k] = s->n == 1 ? 0 : 1;
  }
  unsigned char *out = ip_def(I, r, n);
  OpKind k = op->kind;
  bool pn = op->attr.propagate_nan, precise = op->attr.precise;

  /* the common cases first: fp32 and i32 binaries */
  if (op->noperands == 2 && rd == DT_F32 && d0 == DT_F32 && k != OP_CMP) {
    const float *a = (const float *)x[0], *b = (const float *)x[1];
    float *o = (float *)out;
    switch (k) {
    case OP_ADD: for (int64_t i = 0; i < n; i++) o[i] = a[i * st[0]] + b[i * st[1]]; return true;
    case OP_SUB: for (int64_t i = 0; i < n; i++) o[i] = a[i * st[0]] - b[i * st[1]]; return true;
    case OP_MUL: for (int64_t i = 0; i < n; i++) o[i] = a[i * st[0]] * b[i * st[1]]; return true;
    default: break;
    }
  }
  if (op->noperands == 2 && rd == DT_I32 && d0 == DT_I32 && (k == OP_ADD || k == OP_MUL || k == OP_SUB)) {
    const int32_t *a = (const int32_t *)x[0], *b = (const int32_t *)x[1];
    int32_t *o = (int32_t *)out;
    for (int64_t i = 0; i < n; i++) {
      uint32_t u = (uint32_t)a[i * st[0]], v = (uint32_t)b[i * st[1]];
      o[i] = (int32_t)(k == OP_ADD ? u + v : k == OP_SUB ? u - v : u * v);
    }
    return true;
  }

  switch (k) {
  case OP_CMP: {
    bool fl = dt_is_float(d0), s = dt_is_signed(d0);
    for (int64_t i = 0; i < n; i++)
      out[i] = fl ? cmp_f(op->attr.pred, ip_get_f(x[0], d0, i * st[0]), ip_get_f(x[1], d0, i * st[1]))
                  : cmp_i(op->attr.pred, s, ip_get_i(x[0], d0, i * st[0]), ip_get_i(x[1], d0, i * st[1]));
    return true;
  }
  case OP_SELECT: {
    int sz = ip_size(rd);
    for (int64_t i = 0; i < n; i++)
      memcpy(out + i * sz, (x[0][i * st[0]] ? x[1] + i * st[1] * sz : x[2] + i * st[2] * sz), (size_t)sz);
    return true;
  }
  case OP_CAST:
    for (int64_t i = 0; i < n; i++) cast_elem(op, x[0], d0, i * st[0], out, rd, i);
    return true;
  case OP_BITCAST: {
    int sz = ip_size(rd);
    if (ip_size(d0) != sz)
      return ip_fail(I, op, TLC_INTERP_UNSUPPORTED, "bitcast between %s and %s of different sizes", dt_name(d0),
                     dt_name(rd));
    for (int64_t i = 0; i < n; i++) memcpy(out + i * sz, x[0] + i * st[0] * sz, (size_t)sz);
    if (rd == DT_I1)
      for (int64_t i = 0; i < n; i++) out[i] &= 1;
    return true;
  }
  case OP_NOT:
    for (int64_t i = 0; i < n; i++) ip_set_i(out, rd, i, ~ip_get_i(x[0], d0, i * st[0]));
    return true;
  case OP_NEG: case OP_ABS:
    if (is_fp8(rd)) { /* the sign bit */
      for (int64_t i = 0; i < n; i++)
        out[i] = k == OP_NEG ? (uint8_t)(x[0][i * st[0]] ^ 0x80) : (uint8_t)(x[0][i * st[0]] & 0x7f);
    } else if (dt_is_float(rd)) {
      for (int64_t i = 0; i < n; i++) ip_set_f(out, rd, i, unary_f(k, rd, ip_get_f(x[0], d0, i * st[0])));
    } else {
      bool s = dt_is_signed(rd);
      for (int64_t i = 0; i < n; i++) {
        int64_t v = ip_get_i(x[0], d0, i * st[0]);
        ip_set_i(out, rd, i, k == OP_NEG ? (int64_t)(0 - (uint64_t)v) : (s && v < 0 ? (int64_t)(0 - (uint64_t)v) : v));
      }
    }
    return true;
  case OP_FMA:
    for (int64_t i = 0; i < n; i++) {
      if (dt_is_float(rd)) {
        double a = ip_get_f(x[0], rd, i * st[0]), b = ip_get_f(x[1], rd, i * st[1]), c = ip_get_f(x[2], rd, i * st[2]);
        ip_set_f(out, rd, i, rd == DT_F64 ? fma(a, b, c) : (double)fmaf((float)a, (float)b, (float)c));
      } else {
        int64_t a = ip_get_i(x[0], rd, i * st[0]), b = ip_get_i(x[1], rd, i * st[1]), c = ip_get_i(x[2], rd, i * st[2]);
        ip_set_i(out, rd, i, (int64_t)((uint64_t)a * (uint64_t)b + (uint64_t)c));
      }
    }
    return true;
  case OP_CLAMP:
    for (int64_t i = 0; i < n; i++) {
      if (dt_is_float(rd)) {
        double v = ip_get_f(x[0], rd, i * st[0]), lo = ip_get_f(x[1], rd, i * st[1]), hi = ip_get_f(x[2], rd, i * st[2]);
        double m = ip_binary_f(OP_MAX, rd, v, lo, false, pn);
        ip_set_f(out, rd, i, ip_binary_f(OP_MIN, rd, m, hi, false, pn));
      } else {
        int64_t v = ip_get_i(x[0], rd, i * st[0]), lo = ip_get_i(x[1], rd, i * st[1]), hi = ip_get_i(x[2], rd, i * st[2]);
        ip_set_i(out, rd, i, ip_binary_i(OP_MIN, rd, ip_binary_i(OP_MAX, rd, v, lo), hi));
      }
    }
    return true;
  default: break;
  }
  if (op->noperands == 2) {
    if (dt_is_float(rd)) {
      if (k == OP_AND || k == OP_OR || k == OP_XOR || k == OP_SHL || k == OP_SHR || k == OP_UMULHI)
        return ip_fail(I, op, TLC_INTERP_UNSUPPORTED, "the interpreter does not support %s on %s yet",
                       ir_op_info[k].name, dt_name(rd));
      for (int64_t i = 0; i < n; i++)
        ip_set_f(out, rd, i, ip_binary_f(k, rd, ip_get_f(x[0], rd, i * st[0]), ip_get_f(x[1], rd, i * st[1]), precise, pn));
    } else {
      for (int64_t i = 0; i < n; i++)
        ip_set_i(out, rd, i, ip_binary_i(k, rd, ip_get_i(x[0], rd, i * st[0]), ip_get_i(x[1], rd, i * st[1])));
    }
    return true;
  }
  return ip_fail(I, op, TLC_INTERP_UNSUPPORTED, "the interpreter does not support %s yet", ir_op_info[k].name);
}
