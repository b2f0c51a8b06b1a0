/* elements.c — one element of a slot: reading it as a number, writing a
 * number into it, and the GPU's conversions between the float formats.
 *
 * Rounding follows PTX cvt: to nearest even (cvt.rn) into fp16 and bf16,
 * NaN becoming the canonical 0x7fff and overflow infinity; into fp8 (e4m3
 * "fn" and e5m2) to nearest even with .satfinite (overflow and infinity
 * saturate to the largest finite value, NaN stays NaN: ir's dt_fp8_bits);
 * float -> integer as cvt.rzi (truncated, saturated at the type's range,
 * NaN -> 0), which is also what keeps this file free of C's undefined
 * conversions.  Values computed in fp32 are rounded from the exact fp32
 * result, so a double that holds an fp32 value rounds once, as on the GPU. */
#include "interp/interp_internal.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

int ip_size(DType d) {
  switch (d) {
  case DT_I1: case DT_I8: case DT_U8: case DT_F8E4M3: case DT_F8E5M2: return 1;
  case DT_I16: case DT_U16: case DT_F16: case DT_BF16: return 2;
  case DT_I32: case DT_U32: case DT_F32: return 4;
  default: return 8;
  }
}

bool ip_is_float32ish(DType d) {
  return d == DT_F32 || d == DT_F16 || d == DT_BF16 || d == DT_F8E4M3 || d == DT_F8E5M2;
}

/* ---- decoding ----------------------------------------------------------------- */

static float f16_table[65536];
static pthread_once_t f16_once = PTHREAD_ONCE_INIT;

static void f16_table_init(void) {
  for (uint32_t h = 0; h < 65536; h++) {
    uint32_t s = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    float v;
    if (e == 0) v = ldexpf((float)m, -24);
    else if (e == 31) v = m ? NAN : INFINITY;
    else v = ldexpf((float)(1024 + m), (int)e - 25);
    f16_table[h] = s ? -v : v;
  }
}

float ip_f16_to_f32(uint16_t h) {
  pthread_once(&f16_once, f16_table_init);
  return f16_table[h];
}

float ip_bf16_to_f32(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

float ip_f8_to_f32(uint8_t b, DType d) {
  if (d == DT_F8E5M2) return ip_f16_to_f32((uint16_t)(b << 8)); /* e5m2 is fp16's top byte */
  uint32_t s = b >> 7, e = (b >> 3) & 0xf, m = b & 7;
  float v;
  if (e == 15 && m == 7) return NAN;                              /* e4m3fn: S.1111.111 only */
  if (e == 0) v = ldexpf((float)m, -9);
  else v = ldexpf((float)(8 + m), (int)e - 10);
  return s ? -v : v;
}

/* ---- encoding ----------------------------------------------------------------- */

/* x rounded to nearest even into an IEEE-style format with `mant` stored
 * mantissa bits and `ebits` exponent bits (infinities and NaNs). */
static uint32_t enc_ieee(double x, int mant, int ebits) {
  int bias = (1 << (ebits - 1)) - 1;
  uint32_t emax = (1u << ebits) - 1, sign = signbit(x) ? 1u << (mant + ebits) : 0;
  if (isnan(x)) return (emax << mant) | ((1u << mant) - 1); /* canonical NaN: 0x7fff */
  double a = fabs(x);
  if (isinf(a)) return sign | emax << mant;
  if (a == 0) return sign;
  int e;
  (void)frexp(a, &e);
  int lead = e - 1 < 1 - bias ? 1 - bias : e - 1;
  double q = ldexp(1.0, lead - mant), r = nearbyint(a / q) * q;
  if (r == 0) return sign;
  (void)frexp(r, &e);
  int be = e - 1 + bias;
  if (be >= (int)emax) return sign | emax << mant;
  if (be <= 0) return sign | (uint32_t)(r / ldexp(1.0, 1 - bias - mant));
  uint32_t m = (uint32_t)((r / ldexp(1.0, e - 1) - 1.0) * (double)(1u << mant));
  return sign | (uint32_t)be << mant | m;
}

uint16_t ip_to_f16(double x) { return (uint16_t)enc_ieee(x, 10, 5); }

uint16_t ip_to_bf16(double x) {
  float f = (float)x;
  if ((double)f == x && !isnan(f)) { /* the common case: an fp32 value, by bits */
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
  }
  return (uint16_t)enc_ieee(x, 7, 8);
}

/* Round toward zero: the value rounded to nearest, stepped back toward
 * zero when that moved away from zero (x is not representable then). */
void ip_set_f_rtz(void *buf, DType d, int64_t i, double x) {
  ip_set_f(buf, d, i, x);
  double r = ip_get_f(buf, d, i);
  if (isnan(x) || isinf(x) || fabs(r) <= fabs(x)) return;
  if (d == DT_F32) {
    float f = nextafterf((float)r, 0.0f);
    ((float *)buf)[i] = f;
  } else if (d == DT_F16 || d == DT_BF16) {
    uint16_t *h = (uint16_t *)buf;
    h[i] = (uint16_t)(h[i] - 1); /* one step toward zero on the magnitude bits */
  }
}

int64_t ip_float_to_int(double x, DType to) {
  if (isnan(x)) return 0;
  x = trunc(x);
  int bits = dt_bits(to);
  if (dt_is_unsigned(to)) {
    if (x <= 0) return 0;
    if (bits == 64) return x >= 18446744073709551616.0 ? (int64_t)UINT64_MAX : (int64_t)(uint64_t)x;
    double hi = ldexp(1.0, bits) - 1;
    return (int64_t)(x >= hi ? hi : x);
  }
  double lo = -ldexp(1.0, bits - 1), hi = ldexp(1.0, bits - 1);
  if (x < lo) return (int64_t)lo;
  if (x >= hi) return bits == 64 ? INT64_MAX : (int64_t)hi - 1;
  return (int64_t)x;
}

/* ---- access ------------------------------------------------------------------- */

double ip_get_f(const void *buf, DType d, int64_t i) {
  switch (d) {
  case DT_F32: return ((const float *)buf)[i];
  case DT_F64: return ((const double *)buf)[i];
  case DT_F16: return ip_f16_to_f32(((const uint16_t *)buf)[i]);
  case DT_BF16: return ip_bf16_to_f32(((const uint16_t *)buf)[i]);
  case DT_F8E4M3: case DT_F8E5M2: return ip_f8_to_f32(((const uint8_t *)buf)[i], d);
  case DT_U64: case DT_PTR: return (double)((const uint64_t *)buf)[i];
  default: return (double)ip_get_i(buf, d, i);
  }
}

int64_t ip_get_i(const void *buf, DType d, int64_t i) {
  switch (d) {
  case DT_I1: case DT_U8: return ((const uint8_t *)buf)[i];
  case DT_I8: return ((const int8_t *)buf)[i];
  case DT_I16: return ((const int16_t *)buf)[i];
  case DT_U16: return ((const uint16_t *)buf)[i];
  case DT_I32: return ((const int32_t *)buf)[i];
  case DT_U32: return ((const uint32_t *)buf)[i];
  case DT_I64: case DT_U64: case DT_PTR: return ((const int64_t *)buf)[i];
  default: return ip_float_to_int(ip_get_f(buf, d, i), DT_I64);
  }
}

void ip_set_f(void *buf, DType d, int64_t i, double v) {
  switch (d) {
  case DT_F32: ((float *)buf)[i] = (float)v; return; /* a double beyond fp32 rounds to inf: no UB in C's Annex F */
  case DT_F64: ((double *)buf)[i] = v; return;
  case DT_F16: ((uint16_t *)buf)[i] = ip_to_f16(v); return;
  case DT_BF16: ((uint16_t *)buf)[i] = ip_to_bf16(v); return;
  case DT_F8E4M3: case DT_F8E5M2: ((uint8_t *)buf)[i] = (uint8_t)dt_fp8_bits(d, v); return;
  default: ip_set_i(buf, d, i, ip_float_to_int(v, d)); return;
  }
}

void ip_set_i(void *buf, DType d, int64_t i, int64_t v) {
  switch (d) {
  case DT_I1: ((uint8_t *)buf)[i] = (uint8_t)(v & 1); return;
  case DT_I8: case DT_U8: ((uint8_t *)buf)[i] = (uint8_t)v; return;
  case DT_I16: case DT_U16: ((uint16_t *)buf)[i] = (uint16_t)v; return;
  case DT_I32: case DT_U32: ((uint32_t *)buf)[i] = (uint32_t)v; return;
  case DT_I64: case DT_U64: case DT_PTR: ((int64_t *)buf)[i] = v; return;
  default: ip_set_f(buf, d, i, (double)v); return;
  }
}
