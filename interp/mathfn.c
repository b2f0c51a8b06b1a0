/* mathfn.c — the math ops: tl.exp, tl.log, ... (EXP .. SIGMOID) and the
 * libdevice functions of a MATHFN op (ir/mathfns.def), computed with C's
 * libm in the operand's precision (fp16 / bf16 in fp32, rounded back).
 *
 * Where the GPU differs (docs/interpreter.md): tl.exp, exp2, log, log2,
 * sqrt, rsqrt, sin, cos and sigmoid in fp32 are PTX approximations on the
 * GPU (ex2.approx, lg2.approx, sqrt.approx, ...; a few ulp, exp2 flushing
 * subnormal results to zero) and glibc's correctly rounded (or nearly)
 * functions here; the libdevice / libclc functions differ from glibc's by
 * an ulp or two.  Inputs that a GPU function defines and libm does not
 * are not special-cased.  The rounding-mode functions (add_rz, sqrt_ru,
 * double2float_rd, ...) run under fesetround and are exact. */
#include "interp/interp_internal.h"

#include <fenv.h>
#include <math.h>
#include <string.h>

static const double LOG2E = 1.4426950408889634, LN2 = 0.6931471805599453;

/* tl.exp ... tl.sigmoid on one value of precision `dbl` (else fp32). */
static double unary(OpKind k, bool dbl, bool precise, double v) {
  if (dbl) {
    switch (k) {
    case OP_EXP: return exp(v);
    case OP_EXP2: return exp2(v);
    case OP_LOG: return log(v);
    case OP_LOG2: return log2(v);
    case OP_SQRT: return sqrt(v);
    case OP_RSQRT: return 1.0 / sqrt(v);
    case OP_SIN: return sin(v);
    case OP_COS: return cos(v);
    case OP_FLOOR: return floor(v);
    case OP_CEIL: return ceil(v);
    case OP_ERF: return erf(v);
    case OP_SIGMOID: return 1.0 / (1.0 + exp(-v));
    default: return NAN;
    }
  }
  float x = (float)v;
  switch (k) {
  case OP_EXP: return exp2f(x * (float)LOG2E); /* ex2.approx(x * log2 e), the product in fp32 */
  case OP_EXP2: {
    float r = exp2f(x);
    return fabsf(r) < 0x1p-126f ? 0.0f : r; /* .ftz */
  }
  case OP_LOG: return log2f(x) * (float)LN2;
  case OP_LOG2: return log2f(x);
  case OP_SQRT: return precise ? sqrtf(x) : sqrtf(x);
  case OP_RSQRT: return 1.0f / sqrtf(x);
  case OP_SIN: return sinf(x);
  case OP_COS: return cosf(x);
  case OP_FLOOR: return floorf(x);
  case OP_CEIL: return ceilf(x);
  case OP_ERF: return erff(x);
  case OP_SIGMOID: return 1.0f / (1.0f + exp2f(x * -(float)LOG2E));
  default: return NAN;
  }
}

bool ip_unary_math(Interp *I, Op *op) {
  Value *r = op->results[0], *a = op->operands[0];
  DType d = ip_dt(r);
  if (!dt_is_float(d) || d == DT_F8E4M3 || d == DT_F8E5M2)
    return ip_fail(I, op, TLC_INTERP_UNSUPPORTED, "%s needs a float operand, not %s", ir_op_info[op->kind].name,
                   dt_name(d));
  IVal *s = ip_val(I, a);
  int64_t n = ty_numel(r->type);
  unsigned char *out = ip_def(I, r, n);
  int64_t st = s->n == 1 ? 0 : 1;
  for (int64_t i = 0; i < n; i++)
    ip_set_f(out, d, i, unary(op->kind, d == DT_F64, op->attr.precise, ip_get_f(s->data, d, i * st)));
  return true;
}

/* ---- MATHFN ------------------------------------------------------------------ */

static const int rounding_modes[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};

/* x OP y (OP by the function's stem) in the rounding mode rm. */
static double rounded_op(MathFn f, int rm, bool dbl, double x, double y, double z) {
  int first = f >= MF_ADD_RN && f <= MF_ADD_RU ? MF_ADD_RN : f >= MF_SUB_RN && f <= MF_SUB_RU ? MF_SUB_RN
              : f >= MF_MUL_RN && f <= MF_MUL_RU ? MF_MUL_RN : f >= MF_DIV_RN && f <= MF_DIV_RU ? MF_DIV_RN
              : f >= MF_RCP_RN && f <= MF_RCP_RU ? MF_RCP_RN : f >= MF_SQRT_RN && f <= MF_SQRT_RU ? MF_SQRT_RN
              : MF_FMA_RN;
  int old = fegetround();
  fesetround(rounding_modes[rm]);
  volatile double r;
  if (dbl) {
    volatile double a = x, b = y, c = z;
    switch (first) {
    case MF_ADD_RN: r = a + b; break;
    case MF_SUB_RN: r = a - b; break;
    case MF_MUL_RN: r = a * b; break;
    case MF_DIV_RN: r = a / b; break;
    case MF_RCP_RN: r = 1.0 / a; break;
    case MF_SQRT_RN: r = sqrt(a); break;
    default: r = fma(a, b, c); break;
    }
  } else {
    volatile float a = (float)x, b = (float)y, c = (float)z, q;
    switch (first) {
    case MF_ADD_RN: q = a + b; break;
    case MF_SUB_RN: q = a - b; break;
    case MF_MUL_RN: q = a * b; break;
    case MF_DIV_RN: q = a / b; break;
    case MF_RCP_RN: q = 1.0f / a; break;
    case MF_SQRT_RN: q = sqrtf(a); break;
    default: q = fmaf(a, b, c); break;
    }
    r = q;
  }
  fesetround(old);
  return r;
}

/* The inverse error functions, in double (an fp32 result rounds it):
 * Newton's method on erfc(x) = y, in log space below 0.5 (erfc's tail,
 * where y itself may be tiny), from erfc's asymptote or the series of erf
 * near zero.  erfinv(y) = erfcinv(1 - y), exact in double for |y| >= 0.5;
 * below, Newton on erf(x) = y directly. */
static double erf_newton(double y, bool complement) {
  double x;
  if (complement) {
    double t = sqrt(-log(y));
    x = t - (log(t) + 0.5 * log(M_PI)) / (2 * t);
  } else {
    x = y * sqrt(M_PI) / 2 * (1 + M_PI / 12 * y * y);
  }
  for (int i = 0; i < 60; i++) {
    double dx;
    if (complement) { /* f = log erfc(x) - log y, f' = -2/sqrt(pi) e^-x^2 / erfc(x) */
      double e = erfc(x);
      dx = (log(e) - log(y)) * e / (2 / sqrt(M_PI) * exp(-x * x));
    } else {
      dx = -(erf(x) - y) / (2 / sqrt(M_PI) * exp(-x * x));
    }
    x += dx;
    if (!(fabs(dx) > 1e-17 * fabs(x))) break;
  }
  return x;
}

static double erfcinv_d(double y) {
  if (isnan(y) || y < 0 || y > 2) return NAN;
  if (y == 0) return INFINITY;
  if (y == 2) return -INFINITY;
  if (y > 1) return -erfcinv_d(2 - y);
  if (y >= 0.5) return erf_newton(1 - y, false);
  return erf_newton(y, true);
}

static double erfinv_d(double y) {
  if (isnan(y) || fabs(y) > 1) return NAN;
  if (fabs(y) == 1) return copysign(INFINITY, y);
  if (fabs(y) >= 0.5) return copysign(erfcinv_d(1 - fabs(y)), y);
  return erf_newton(y, false);
}

/* A MK_FLOAT / MK_FLOAT_INT function; *ok false when not supported. */
static double float_fn(MathFn f, bool dbl, double x, double y, double z, bool *ok) {
  if (f >= MF_ADD_RN && f <= MF_FMA_RU) return rounded_op(f, (f - MF_ADD_RN) % 4, dbl, x, y, z);
  if (f == MF_ERFINV || f == MF_ERFCINV || f == MF_NORMCDFINV) {
    double v = dbl ? x : (double)(float)x;
    double r = f == MF_ERFINV ? erfinv_d(v) : f == MF_ERFCINV ? erfcinv_d(v) : -M_SQRT2 * erfcinv_d(2 * v);
    return dbl ? r : (double)(float)r;
  }
  if (dbl) {
    switch (f) {
    case MF_ACOS: return acos(x);
    case MF_ACOSH: return acosh(x);
    case MF_ASIN: return asin(x);
    case MF_ASINH: return asinh(x);
    case MF_ATAN: return atan(x);
    case MF_ATANH: return atanh(x);
    case MF_CBRT: return cbrt(x);
    case MF_COS: return cos(x);
    case MF_COSH: return cosh(x);
    case MF_COSPI: return cos(M_PI * x);
    case MF_ERF: return erf(x);
    case MF_ERFC: return erfc(x);
    case MF_EXP: return exp(x);
    case MF_EXP10: return exp10(x);
    case MF_EXP2: return exp2(x);
    case MF_EXPM1: return expm1(x);
    case MF_LGAMMA: return lgamma(x);
    case MF_LOG: return log(x);
    case MF_LOG10: return log10(x);
    case MF_LOG1P: return log1p(x);
    case MF_LOG2: return log2(x);
    case MF_LOGB: return logb(x);
    case MF_SIN: return sin(x);
    case MF_SINH: return sinh(x);
    case MF_SINPI: return sin(M_PI * x);
    case MF_TAN: return tan(x);
    case MF_TANH: return tanh(x);
    case MF_TGAMMA: return tgamma(x);
    case MF_ATAN2: return atan2(x, y);
    case MF_FMOD: return fmod(x, y);
    case MF_HYPOT: return hypot(x, y);
    case MF_NEXTAFTER: return nextafter(x, y);
    case MF_POW: return pow(x, y);
    case MF_REMAINDER: return remainder(x, y);
    case MF_POWI: return pow(x, y);
    case MF_LDEXP: case MF_SCALBN: return ldexp(x, (int)(y < -100000 ? -100000 : y > 100000 ? 100000 : y));
    case MF_RCBRT: return 1.0 / cbrt(x);
    case MF_RHYPOT: return 1.0 / hypot(x, y);
    case MF_NORMCDF: return 0.5 * erfc(-x / M_SQRT2);
    case MF_TRUNC: return trunc(x);
    case MF_RINT: case MF_NEARBYINT: return nearbyint(x);
    case MF_ROUND: return round(x);
    case MF_SATURATE: return isnan(x) ? 0 : x < 0 ? 0 : x > 1 ? 1 : x;
    case MF_COPYSIGN: return copysign(x, y);
    case MF_FDIM: return x > y ? x - y : 0.0;
    case MF_SQRT: return sqrt(x);
    case MF_FMA: return fma(x, y, z);
    default: break;
    }
  } else {
    float a = (float)x, b = (float)y, c = (float)z;
    switch (f) {
    case MF_ACOS: return acosf(a);
    case MF_ACOSH: return acoshf(a);
    case MF_ASIN: return asinf(a);
    case MF_ASINH: return asinhf(a);
    case MF_ATAN: return atanf(a);
    case MF_ATANH: return atanhf(a);
    case MF_CBRT: return cbrtf(a);
    case MF_COS: case MF_FAST_COS: return cosf(a);
    case MF_COSH: return coshf(a);
    case MF_COSPI: return (float)cos(M_PI * a);
    case MF_ERF: return erff(a);
    case MF_ERFC: return erfcf(a);
    case MF_EXP: case MF_FAST_EXP: return expf(a);
    case MF_EXP10: case MF_FAST_EXP10: return exp10f(a);
    case MF_EXP2: return exp2f(a);
    case MF_EXPM1: return expm1f(a);
    case MF_LGAMMA: return lgammaf(a);
    case MF_LOG: case MF_FAST_LOG: return logf(a);
    case MF_LOG10: case MF_FAST_LOG10: return log10f(a);
    case MF_LOG1P: return log1pf(a);
    case MF_LOG2: case MF_FAST_LOG2: return log2f(a);
    case MF_LOGB: return logbf(a);
    case MF_SIN: case MF_FAST_SIN: return sinf(a);
    case MF_SINH: return sinhf(a);
    case MF_SINPI: return (float)sin(M_PI * a);
    case MF_TAN: case MF_FAST_TAN: return tanf(a);
    case MF_TANH: return tanhf(a);
    case MF_TGAMMA: return tgammaf(a);
    case MF_ATAN2: return atan2f(a, b);
    case MF_FMOD: return fmodf(a, b);
    case MF_HYPOT: return hypotf(a, b);
    case MF_NEXTAFTER: return nextafterf(a, b);
    case MF_POW: case MF_FAST_POW: return powf(a, b);
    case MF_REMAINDER: return remainderf(a, b);
    case MF_POWI: return powf(a, (float)y);
    case MF_LDEXP: case MF_SCALBN: return ldexpf(a, (int)(y < -100000 ? -100000 : y > 100000 ? 100000 : y));
    case MF_RCBRT: return 1.0f / cbrtf(a);
    case MF_RHYPOT: return 1.0f / hypotf(a, b);
    case MF_NORMCDF: return 0.5f * erfcf(-a / (float)M_SQRT2);
    case MF_TRUNC: return truncf(a);
    case MF_RINT: case MF_NEARBYINT: return nearbyintf(a);
    case MF_ROUND: return roundf(a);
    case MF_SATURATE: return isnan(a) ? 0 : a < 0 ? 0 : a > 1 ? 1 : a;
    case MF_COPYSIGN: return copysignf(a, b);
    case MF_FDIM: return a > b ? a - b : 0.0f;
    case MF_SQRT: return sqrtf(a);
    case MF_FMA: return fmaf(a, b, c);
    case MF_FAST_DIV: return a / b;
    default: break;
    }
  }
  *ok = false;
  return 0;
}

/* A MK_CVT function: from -> computed in rounding mode rm, into result. */
static void cvt_fn(MathFn f, const void *src, int64_t si, void *dst, DType rd, int64_t di) {
  DType from, computed, result;
  const char *nvvm;
  int rm;
  ir_mathfn_cvt(f, &from, &computed, &result, &nvvm, &rm);
  int old = fegetround();
  fesetround(rounding_modes[rm]);
  if (dt_is_float(from) && !dt_is_float(computed)) {
    volatile double v = nearbyint(ip_get_f(src, from, si)); /* rounds in the current mode */
    fesetround(old);
    ip_set_i(dst, rd, di, ip_float_to_int(v, computed));
    return;
  }
  if (dt_is_float(from)) { /* double2float */
    volatile double v = ip_get_f(src, from, si);
    volatile float q = (float)v;
    fesetround(old);
    ip_set_f(dst, rd, di, q);
    return;
  }
  int64_t v = ip_get_i(src, from, si);
  bool u64 = from == DT_U64;
  volatile double dq = 0;
  volatile float fq = 0;
  if (computed == DT_F32) fq = u64 ? (float)(uint64_t)v : (float)v;
  else dq = u64 ? (double)(uint64_t)v : (double)v;
  fesetround(old);
  ip_set_f(dst, rd, di, computed == DT_F32 ? (double)fq : dq);
}

static int64_t int_fn(MathFn f, DType d, int64_t a, int64_t b, int64_t c, bool *ok) {
  int bits = dt_bits(d);
  uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1, ua = (uint64_t)a & mask;
  switch (f) {
  case MF_CLZ: return ua ? (int64_t)(__builtin_clzll(ua) - (64 - bits)) : bits;
  case MF_POPC: return __builtin_popcountll(ua);
  case MF_FFS: return ua ? __builtin_ctzll(ua) + 1 : 0;
  case MF_BREV: {
    uint64_t r = 0;
    for (int i = 0; i < bits; i++) r |= ((ua >> i) & 1) << (bits - 1 - i);
    return (int64_t)r;
  }
  case MF_MULHI:
    if (dt_is_signed(d)) return (int64_t)(((__int128)a * b) >> bits);
    return (int64_t)(((unsigned __int128)ua * ((uint64_t)b & mask)) >> bits);
  case MF_MUL24: {
    int64_t x = dt_is_signed(d) ? (int64_t)((uint64_t)a << 40) >> 40 : (int64_t)(ua & 0xffffff);
    int64_t y = dt_is_signed(d) ? (int64_t)((uint64_t)b << 40) >> 40 : (int64_t)((uint64_t)b & 0xffffff);
    return (int64_t)((uint64_t)x * (uint64_t)y);
  }
  case MF_HADD: return dt_is_signed(d) ? (int64_t)(((__int128)a + b) >> 1) : (int64_t)(((unsigned __int128)ua + ((uint64_t)b & mask)) >> 1);
  case MF_RHADD: return dt_is_signed(d) ? (int64_t)(((__int128)a + b + 1) >> 1) : (int64_t)(((unsigned __int128)ua + ((uint64_t)b & mask) + 1) >> 1);
  case MF_SAD: {
    bool gt = dt_is_signed(d) ? a > b : ua > ((uint64_t)b & mask);
    return (int64_t)((gt ? (uint64_t)a - (uint64_t)b : (uint64_t)b - (uint64_t)a) + (uint64_t)c);
  }
  case MF_BYTE_PERM: {
    uint64_t bytes = (ua & 0xffffffffu) | ((uint64_t)b & 0xffffffffu) << 32, r = 0;
    for (int i = 0; i < 4; i++) r |= ((bytes >> (8 * (((uint64_t)c >> (4 * i)) & 7))) & 0xff) << (8 * i);
    return (int64_t)r;
  }
  default: *ok = false; return 0;
  }
}

bool ip_mathfn(Interp *I, Op *op) {
  MathFn f = op->attr.fn;
  const MathFnInfo *info = &ir_mathfn_info[f];
  Value *r = op->results[0];
  DType rd = ip_dt(r), d0 = ip_dt(op->operands[0]);
  int64_t n = ty_numel(r->type);
  const unsigned char *x[3] = {NULL, NULL, NULL};
  DType dt[3] = {d0, d0, d0};
  int64_t st[3] = {0, 0, 0};
  for (int k = 0; k < op->noperands && k < 3; k++) {
    IVal *s = ip_val(I, op->operands[k]);
    x[k] = s->data, st[k] = s->n == 1 ? 0 : 1, dt[k] = ip_dt(op->operands[k]);
  }
  unsigned char *out = ip_def(I, r, n);
  bool ok = true;
  for (int64_t i = 0; i < n && ok; i++) {
    double a = x[0] && dt_is_float(dt[0]) ? ip_get_f(x[0], dt[0], i * st[0]) : 0;
    switch (info->kind) {
    case MK_FLOAT:
    case MK_FLOAT_INT: {
      double b = x[1] ? ip_get_f(x[1], dt[1], i * st[1]) : 0, c = x[2] ? ip_get_f(x[2], dt[2], i * st[2]) : 0;
      ip_set_f(out, rd, i, float_fn(f, d0 == DT_F64, a, b, c, &ok));
      break;
    }
    case MK_TEST: out[i] = f == MF_ISNAN ? isnan(a) != 0 : isinf(a) != 0; break;
    case MK_TO_I32:
      if (f == MF_ILOGB) ip_set_i(out, rd, i, a == 0 || isnan(a) || isinf(a) ? (a == 0 ? INT32_MIN : INT32_MAX) : ilogb(a));
      else if (f == MF_SIGNBIT) ip_set_i(out, rd, i, signbit(a) != 0);
      else if (f == MF_FINITE || f == MF_ISFINITE) ip_set_i(out, rd, i, isfinite(a) != 0);
      else {
        uint64_t bits;
        memcpy(&bits, &a, sizeof bits);
        ip_set_i(out, rd, i, (int64_t)(int32_t)(f == MF_DOUBLE2HIINT ? bits >> 32 : bits));
      }
      break;
    case MK_TO_I64:
      ip_set_i(out, rd, i, ip_float_to_int(f == MF_LLROUND ? round(a) : nearbyint(a), DT_I64));
      break;
    case MK_INT:
    case MK_INT_TO_I32:
      ip_set_i(out, rd, i, int_fn(f, d0, ip_get_i(x[0], dt[0], i * st[0]), x[1] ? ip_get_i(x[1], dt[1], i * st[1]) : 0,
                                  x[2] ? ip_get_i(x[2], dt[2], i * st[2]) : 0, &ok));
      break;
    case MK_CVT: cvt_fn(f, x[0], i * st[0], out, rd, i); break;
    }
  }
  if (!ok)
    return ip_fail(I, op, TLC_INTERP_UNSUPPORTED, "the interpreter does not support libdevice.%s yet", info->name);
  return true;
}
