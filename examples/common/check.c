/* check.c — the examples' host machinery that needs no GPU: random numbers,
 * fp16 conversion, signatures and the checker (see host.h).  Kept apart from
 * host.c so the CPU self-test links without the runtime. */
#include "examples/common/host.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- random numbers ---------------------------------------------------------- */

uint64_t ex_rng_next(ExRng *r) {
  uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double ex_rng_uniform(ExRng *r, double lo, double hi) {
  double u = (double)(ex_rng_next(r) >> 11) * 0x1.0p-53; /* [0, 1) */
  return lo + (hi - lo) * u;
}

void ex_fill_f32(ExRng *r, float *x, size_t n, double lo, double hi) {
  for (size_t i = 0; i < n; i++) x[i] = (float)ex_rng_uniform(r, lo, hi);
}

void ex_fill_f16(ExRng *r, uint16_t *x, size_t n, double lo, double hi) {
  for (size_t i = 0; i < n; i++) x[i] = ex_f32_to_f16((float)ex_rng_uniform(r, lo, hi));
}

void ex_fill_bf16(ExRng *r, uint16_t *x, size_t n, double lo, double hi) {
  for (size_t i = 0; i < n; i++) x[i] = ex_f32_to_bf16((float)ex_rng_uniform(r, lo, hi));
}

/* ---- fp16 ------------------------------------------------------------------------ */

/* binary32 -> binary16, round to nearest, ties to even.  Normal halves: keep
 * the top 10 mantissa bits and round on the 13 dropped ones (a carry may
 * ripple into the exponent, up to infinity, which is right).  Subnormal
 * halves are k * 2^-24: k = round(|f| * 2^24) done on the integer mantissa. */
uint16_t ex_f32_to_f16(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t ax = x & 0x7FFFFFFFu;
  if (ax >= 0x7F800000u) /* Inf or NaN (NaN stays quiet NaN, payload kept) */
    return (uint16_t)(sign | 0x7C00u | (ax > 0x7F800000u ? 0x200u | ((ax >> 13) & 0x3FFu) : 0));
  if (ax >= 0x47800000u) /* >= 2^16: beyond the largest finite half after rounding */
    return (uint16_t)(sign | 0x7C00u);
  if (ax >= 0x38800000u) { /* >= 2^-14: a normal half */
    uint32_t h = ((((ax >> 23) - 127 + 15) << 10) | ((ax >> 13) & 0x3FFu));
    uint32_t rem = ax & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++;
    return (uint16_t)(sign | h);
  }
  uint32_t e = ax >> 23;
  if (e < 102) return (uint16_t)sign; /* < 2^-25: rounds to zero (ties too) */
  uint32_t mant = (ax & 0x7FFFFFu) | 0x800000u;
  uint32_t shift = 126 - e; /* 14..24: |f| * 2^24 = mant >> shift */
  uint32_t k = mant >> shift;
  uint32_t rem = mant & ((1u << shift) - 1u), half = 1u << (shift - 1);
  if (rem > half || (rem == half && (k & 1u))) k++;
  return (uint16_t)(sign | k); /* k == 0x400 is the smallest normal: right */
}

float ex_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t e = (h >> 10) & 0x1Fu, m = h & 0x3FFu, x;
  if (e == 0 && m == 0) {
    x = sign;
  } else if (e == 0) { /* subnormal: m * 2^-24, normalise */
    uint32_t sh = 0;
    while (!(m & 0x400u)) m <<= 1, sh++;
    x = sign | ((113u - sh) << 23) | ((m & 0x3FFu) << 13);
  } else if (e == 31) {
    x = sign | 0x7F800000u | (m << 13);
  } else {
    x = sign | ((e + 112u) << 23) | (m << 13);
  }
  float f;
  memcpy(&f, &x, sizeof f);
  return f;
}

/* ---- fp8 (e4m3fn, e5m2) ------------------------------------------------------------- */

/* The value of an fp8 byte: 1 sign, 4 or 5 exponent bits (bias 7 or 15),
 * 3 or 2 mantissa bits; e4m3fn has no infinity and NaN only at S.1111.111,
 * e5m2 follows IEEE (exponent 31: infinity or NaN). */
float ex_f8_to_f32(uint8_t b, bool e5m2) {
  int mant = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
  int e = (b & 0x7f) >> mant, m = b & ((1 << mant) - 1);
  float sign = b & 0x80 ? -1.0f : 1.0f;
  if (!e5m2 && (b & 0x7f) == 0x7f) return NAN;
  if (e5m2 && e == 31) return m ? NAN : sign * INFINITY;
  if (e == 0) return sign * ldexpf((float)m, 1 - bias - mant);
  return sign * ldexpf((float)((1 << mant) + m), e - bias - mant);
}

/* float -> fp8, round to nearest even, saturating at the largest finite
 * value (448 or 57344) as the device's satfinite conversions do.  Done by
 * search over the 127 non-negative finite bytes, which are ordered. */
uint8_t ex_f32_to_f8(float f, bool e5m2) {
  if (f != f) return 0x7f;
  uint8_t sign = signbit(f) ? 0x80 : 0;
  float a = fabsf(f);
  int top = e5m2 ? 0x7b : 0x7e; /* largest finite */
  if (a >= ex_f8_to_f32((uint8_t)top, e5m2)) return (uint8_t)(sign | top);
  int lo = 0, hi = top; /* value(lo) <= a < value(hi) */
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (ex_f8_to_f32((uint8_t)mid, e5m2) <= a) lo = mid;
    else hi = mid;
  }
  float dl = a - ex_f8_to_f32((uint8_t)lo, e5m2), dh = ex_f8_to_f32((uint8_t)hi, e5m2) - a;
  int k = dl < dh || (dl == dh && !(lo & 1)) ? lo : hi;
  return (uint8_t)(sign | k);
}

void ex_fill_f8(ExRng *r, uint8_t *x, size_t n, double lo, double hi, bool e5m2) {
  for (size_t i = 0; i < n; i++) x[i] = ex_f32_to_f8((float)ex_rng_uniform(r, lo, hi), e5m2);
}

/* ---- helpers ------------------------------------------------------------------- */

int64_t ex_cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t ex_next_pow2(int64_t n) {
  int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

void *ex_xmalloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr, "error: out of host memory (%zu bytes)\n", bytes);
    exit(1);
  }
  return p;
}

/* ---- signatures ----------------------------------------------------------------- */

void ex_sig_init(ExSig *s) { memset(s, 0, sizeof *s); }

static void sig_append(ExSig *s, const char *fmt, ...) {
  size_t len = strlen(s->text);
  if (len) {
    if (len + 1 >= sizeof s->text) goto overflow;
    s->text[len++] = ',';
    s->text[len] = 0;
  }
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(s->text + len, sizeof s->text - len, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof s->text - len) goto overflow;
  return;
overflow:
  fprintf(stderr, "error: signature too long: %s...\n", s->text);
  exit(1);
}

static void sig_arg(ExSig *s, tlc_arg a) {
  if (s->nargs >= EX_MAX_ARGS) {
    fprintf(stderr, "error: too many launch arguments\n");
    exit(1);
  }
  s->args[s->nargs++] = a;
}

void ex_sig_ptr(ExSig *s, const char *elem, tlc_devptr p) {
  sig_append(s, "*%s%s", elem, p % 16 == 0 ? ":16" : "");
  sig_arg(s, TLC_PTR(p));
}

void ex_sig_int(ExSig *s, int64_t v) {
  if (v == 1) { /* Triton specializes the value 1: a constexpr, not passed */
    sig_append(s, "1");
    return;
  }
  bool wide = v < INT32_MIN || v > INT32_MAX;
  sig_append(s, "%s%s", wide ? "i64" : "i32", v % 16 == 0 ? ":16" : "");
  sig_arg(s, wide ? TLC_I64(v) : TLC_I32(v));
}

void ex_sig_const(ExSig *s, const char *value) { sig_append(s, "%s", value); }

void ex_sig_const_int(ExSig *s, int64_t v) { sig_append(s, "%" PRId64, v); }

void ex_sig_arg(ExSig *s, const char *entry, tlc_arg a) {
  sig_append(s, "%s", entry);
  sig_arg(s, a);
}

/* ---- checking ------------------------------------------------------------------- */

size_t ex_elem_size(ExElem e) { return e == EX_F32 ? 4 : e == EX_F8E4M3 || e == EX_F8E5M2 || e == EX_I8 ? 1 : 2; }

uint16_t ex_f32_to_bf16(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  if ((b & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((b >> 16) | 0x40); /* quiet NaN */
  b += 0x7fffu + ((b >> 16) & 1);
  return (uint16_t)(b >> 16);
}

float ex_bf16_to_f32(uint16_t h) {
  uint32_t b = (uint32_t)h << 16;
  float f;
  memcpy(&f, &b, 4);
  return f;
}

double ex_elem_value(const void *out, ExElem elem, size_t i, bool *poison) {
  if (elem == EX_I8) { /* an input type: no byte is left out for poison */
    *poison = false;
    return ((const int8_t *)out)[i];
  }
  if (elem == EX_F8E4M3 || elem == EX_F8E5M2) {
    uint8_t b = ((const uint8_t *)out)[i];
    *poison = b == 0xFFu;
    return ex_f8_to_f32(b, elem == EX_F8E5M2);
  }
  if (elem == EX_BF16) {
    uint16_t h = ((const uint16_t *)out)[i];
    *poison = h == 0xFFFFu;
    return ex_bf16_to_f32(h);
  }
  if (elem == EX_F16) {
    uint16_t h = ((const uint16_t *)out)[i];
    *poison = h == 0xFFFFu;
    return ex_f16_to_f32(h);
  }
  uint32_t b;
  memcpy(&b, (const char *)out + 4 * i, 4);
  *poison = b == 0xFFFFFFFFu;
  float f;
  memcpy(&f, &b, 4);
  return f;
}

bool ex_elem_bits_equal(const void *out, ExElem elem, size_t i, double ref) {
  if (elem == EX_F16) return ((const uint16_t *)out)[i] == ex_f32_to_f16((float)ref);
  if (elem == EX_BF16) return ((const uint16_t *)out)[i] == ex_f32_to_bf16((float)ref);
  if (elem == EX_F8E4M3 || elem == EX_F8E5M2)
    return ((const uint8_t *)out)[i] == ex_f32_to_f8((float)ref, elem == EX_F8E5M2);
  if (elem == EX_I8) return ((const int8_t *)out)[i] == (int8_t)ref;
  float r = (float)ref, o;
  memcpy(&o, (const char *)out + 4 * i, 4);
  return memcmp(&r, &o, 4) == 0;
}

ExCheck ex_check(const void *out, ExElem elem, const double *ref, size_t n, double tol, bool exact) {
  ExCheck c = {0};
  double num = 0, den = 0;
  for (size_t i = 0; i < n; i++) {
    bool poison;
    double v = ex_elem_value(out, elem, i, &poison), r = ref[i];
    if (exact && !ex_elem_bits_equal(out, elem, i, r)) c.mismatched++;
    if (poison) {
      c.unwritten++;
      continue;
    }
    if (!isfinite(v) || !isfinite(r)) {
      if (!(isnan(v) && isnan(r)) && v != r) c.nonfinite++;
      continue;
    }
    double d = fabs(v - r);
    num += d * d;
    den += r * r;
    if (d > c.max_abs) c.max_abs = d;
  }
  c.rel_err = den > 0 ? sqrt(num / den) : sqrt(num);
  c.pass = c.unwritten == 0 && c.nonfinite == 0 && !isnan(c.rel_err) &&
           (exact ? c.mismatched == 0 : c.rel_err < tol);
  return c;
}

