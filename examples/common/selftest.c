/* selftest — CPU checks of the examples' own machinery, no GPU needed:
 * fp16 conversion (exhaustively against the compiler's _Float16 where it has
 * one, else against exact properties), the checker (poison, NaN, tolerance,
 * exact mode), the signature builder and the references. */
#include "examples/common/host.h"
#include "examples/common/ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define EXPECT(cond, ...)                                          \
  do {                                                             \
    if (!(cond)) {                                                 \
      failures++;                                                  \
      fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                \
      fputc('\n', stderr);                                         \
    }                                                              \
  } while (0)

#ifdef __FLT16_MAX__
static uint32_t fbits(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  return b;
}
#endif

static float bitsf(uint32_t b) {
  float f;
  memcpy(&f, &b, 4);
  return f;
}

static void test_f16(void) {
  /* known values */
  EXPECT(ex_f32_to_f16(1.0f) == 0x3C00, "1.0");
  EXPECT(ex_f32_to_f16(-2.0f) == 0xC000, "-2.0");
  EXPECT(ex_f32_to_f16(65504.0f) == 0x7BFF, "max half");
  EXPECT(ex_f32_to_f16(65519.99f) == 0x7BFF, "below the halfway point to 2^16");
  EXPECT(ex_f32_to_f16(65520.0f) == 0x7C00, "halfway to 2^16 ties to even: inf");
  EXPECT(ex_f32_to_f16(0x1p-24f) == 0x0001, "smallest subnormal");
  EXPECT(ex_f32_to_f16(0x1p-25f) == 0x0000, "half the smallest subnormal ties to even 0");
  EXPECT(ex_f32_to_f16(0x1.8p-25f) == 0x0001, "0.75 of the smallest subnormal rounds up");
  EXPECT(ex_f32_to_f16(0x1.8p-24f) == 0x0002, "1.5 ulp ties to even 2");
  EXPECT(ex_f32_to_f16(0x1p-14f) == 0x0400, "smallest normal");
  EXPECT(ex_f32_to_f16(0x1.ff8p-15f) == 0x03FF, "largest subnormal");
  EXPECT(ex_f32_to_f16(0x1.ffcp-15f) == 0x0400, "halfway to the smallest normal ties to even");
  EXPECT(ex_f32_to_f16(0x1.ffbp-15f) == 0x03FF, "just under that halfway point");
  EXPECT(ex_f32_to_f16(1.0f + 0x1p-11f) == 0x3C00, "1 + half ulp ties to even (down)");
  EXPECT(ex_f32_to_f16(1.0f + 0x1.8p-10f) == 0x3C02, "1 + 1.5 ulp ties to even (up)");
  EXPECT(ex_f32_to_f16(-0.0f) == 0x8000, "-0");
  EXPECT(ex_f32_to_f16(INFINITY) == 0x7C00, "inf");
  EXPECT((ex_f32_to_f16(NAN) & 0x7C00) == 0x7C00 && (ex_f32_to_f16(NAN) & 0x3FF), "nan");

  /* every half converts to float and back to itself */
  for (uint32_t h = 0; h < 0x10000; h++) {
    float f = ex_f16_to_f32((uint16_t)h);
    bool nan = (h & 0x7C00) == 0x7C00 && (h & 0x3FF);
    if (nan) {
      EXPECT(isnan(f), "h=%04x", h);
      continue;
    }
    EXPECT(ex_f32_to_f16(f) == h, "round trip h=%04x f=%a -> %04x", h, f, ex_f32_to_f16(f));
#ifdef __FLT16_MAX__
    _Float16 g;
    uint16_t hb = (uint16_t)h;
    memcpy(&g, &hb, 2);
    EXPECT(fbits(f) == fbits((float)g), "h=%04x vs _Float16", h);
#endif
  }

  /* floats against the compiler's conversion (or the nearest-half property) */
  ExRng r = {12345};
  for (int i = 0; i < 4000000; i++) {
    uint32_t b = (uint32_t)ex_rng_next(&r);
    if (i & 1) b = (b & 0x807FFFFFu) | ((uint32_t)(96 + (b >> 23) % 48) << 23); /* near half range */
    float f = bitsf(b);
    if (isnan(f)) continue;
    uint16_t h = ex_f32_to_f16(f);
#ifdef __FLT16_MAX__
    _Float16 g = (_Float16)f;
    uint16_t gb;
    memcpy(&gb, &g, 2);
    EXPECT(h == gb, "f=%a: %04x, _Float16 says %04x", f, h, gb);
#endif
    /* nearest: no neighbour of h is strictly closer */
    if ((h & 0x7C00) != 0x7C00) {
      double d = fabs((double)ex_f16_to_f32(h) - f);
      uint16_t up = (uint16_t)(h + 1), dn = (uint16_t)(h - 1);
      if ((up & 0x7C00) != 0x7C00 && (up & 0x7FFF)) EXPECT(fabs((double)ex_f16_to_f32(up) - f) >= d, "f=%a", f);
      if ((h & 0x7FFF) && (dn & 0x7C00) != 0x7C00) EXPECT(fabs((double)ex_f16_to_f32(dn) - f) >= d, "f=%a", f);
    }
  }
}

static void test_f8(void) {
  for (int e5 = 0; e5 < 2; e5++) {
    bool e5m2 = e5;
    /* every finite byte converts to float and back to itself */
    int bad = 0;
    for (int b = 0; b < 256; b++) {
      float f = ex_f8_to_f32((uint8_t)b, e5m2);
      if (f == f && !isinf(f) && ex_f32_to_f8(f, e5m2) != b) bad++;
    }
    EXPECT(bad == 0, e5m2 ? "e5m2 round trip" : "e4m3 round trip");
  }
  EXPECT(ex_f8_to_f32(0x38, false) == 1.0f && ex_f8_to_f32(0x3c, true) == 1.0f, "1.0");
  EXPECT(ex_f8_to_f32(0x7e, false) == 448.0f && ex_f8_to_f32(0x7b, true) == 57344.0f, "largest finite");
  EXPECT(ex_f8_to_f32(0x01, false) == 0x1p-9f && ex_f8_to_f32(0x01, true) == 0x1p-16f, "smallest subnormal");
  EXPECT(ex_f8_to_f32(0x7f, false) != ex_f8_to_f32(0x7f, false), "e4m3 NaN");
  EXPECT(isinf(ex_f8_to_f32(0x7c, true)), "e5m2 infinity");
  EXPECT(ex_f32_to_f8(1000.0f, false) == 0x7e && ex_f32_to_f8(-1e6f, true) == 0xfb, "saturation");
  EXPECT(ex_f32_to_f8(1.0625f, false) == 0x38, "1 + half ulp ties to even (down)");
  EXPECT(ex_f32_to_f8(1.1875f, false) == 0x3a, "1 + 1.5 ulp ties to even (up)");
  EXPECT(ex_f32_to_f8(0x1p-10f, false) == 0x00 && ex_f32_to_f8(0x1.8p-10f, false) == 0x01, "subnormal rounding");
  EXPECT(ex_f32_to_f8(-0.0f, false) == 0x80, "-0");
}

static void test_check(void) {
  double ref[4] = {1, -2, 3, 0.5};
  float out[4] = {1, -2, 3, 0.5};
  ExCheck c = ex_check(out, EX_F32, ref, 4, 1e-5, false);
  EXPECT(c.pass && c.rel_err == 0 && c.max_abs == 0, "exact equal");
  out[2] = 3.0f * (1 + 1e-4f);
  c = ex_check(out, EX_F32, ref, 4, 1e-5, false);
  EXPECT(!c.pass && c.rel_err > 1e-5, "rel_err %g", c.rel_err);
  c = ex_check(out, EX_F32, ref, 4, 1e-3, false);
  EXPECT(c.pass, "within 1e-3");
  double want = ((double)out[2] - 3) / sqrt(1 + 4 + 9 + 0.25);
  EXPECT(fabs(c.rel_err - want) < 1e-6 * want + 1e-9, "rel_err %g want %g", c.rel_err, want);
  out[2] = 3;
  out[1] = bitsf(0xFFFFFFFFu); /* poison */
  c = ex_check(out, EX_F32, ref, 4, 1e-5, false);
  EXPECT(!c.pass && c.unwritten == 1, "poison counts as unwritten");
  out[1] = NAN;
  c = ex_check(out, EX_F32, ref, 4, 1e-5, false);
  EXPECT(!c.pass && c.nonfinite == 1, "NaN never passes");
  out[1] = INFINITY;
  c = ex_check(out, EX_F32, ref, 4, 1e30, false);
  EXPECT(!c.pass && c.nonfinite == 1, "Inf never passes");

  uint16_t h[3] = {0x3C00, 0xC000, 0x3555};
  double hr[3] = {1.0, -2.0, ex_f16_to_f32(0x3555)};
  c = ex_check(h, EX_F16, hr, 3, 0, true);
  EXPECT(c.pass && c.mismatched == 0, "fp16 exact");
  h[2] = 0x3556;
  c = ex_check(h, EX_F16, hr, 3, 0, true);
  EXPECT(!c.pass && c.mismatched == 1, "fp16 one ulp off is a mismatch");
  h[2] = 0xFFFF;
  c = ex_check(h, EX_F16, hr, 3, 0, true);
  EXPECT(!c.pass && c.unwritten == 1, "fp16 poison");
}

static void test_sig(void) {
  ExSig s;
  ex_sig_init(&s);
  ex_sig_ptr(&s, "fp32", 0x7f0000000000ull);
  ex_sig_ptr(&s, "fp16", 0x7f0000000008ull);
  ex_sig_int(&s, 1000);
  ex_sig_int(&s, 4096);
  ex_sig_int(&s, 1);
  ex_sig_int(&s, 5000000001ll);
  ex_sig_const_int(&s, 1024);
  EXPECT(!strcmp(s.text, "*fp32:16,*fp16,i32,i32:16,1,i64,1024"), "%s", s.text);
  EXPECT(s.nargs == 5, "nargs %d (the constexpr 1 is not passed)", s.nargs);
  EXPECT(s.args[2].kind == TLC_ARG_I32 && s.args[2].v.i32 == 1000, "arg 2");
  EXPECT(s.args[4].kind == TLC_ARG_I64 && s.args[4].v.i64 == 5000000001ll, "arg 4");
  EXPECT(ex_cdiv(1, 1024) == 1 && ex_cdiv(1024, 1024) == 1 && ex_cdiv(1025, 1024) == 2, "cdiv");
  EXPECT(ex_next_pow2(1) == 1 && ex_next_pow2(781) == 1024 && ex_next_pow2(4096) == 4096, "next_pow2");
}

static void test_refs(void) {
  /* softmax: rows sum to 1, shift invariance, pad model */
  enum { R = 3, C = 5 };
  float x[R * C];
  ExRng r = {7};
  ex_fill_f32(&r, x, R * C, -4, 4);
  for (int i = 0; i < R * C; i++) x[i] = roundf(x[i] * 1024) / 1024; /* so x + 64 is exact */
  double y[R * C], y2[R * C];
  ref_softmax(x, R, C, 0, y);
  for (int i = 0; i < R; i++) {
    double s = 0;
    for (int j = 0; j < C; j++) {
      s += y[i * C + j];
      EXPECT(y[i * C + j] > 0, "positive");
    }
    EXPECT(fabs(s - 1) < 1e-12, "row %d sums to %.17g", i, s);
  }
  float xs[R * C];
  for (int i = 0; i < R * C; i++) xs[i] = x[i] + 64.0f; /* exact: x is a multiple of 2^-10 */
  ref_softmax(xs, R, C, 0, y2);
  for (int i = 0; i < R * C; i++) EXPECT(fabs(y[i] - y2[i]) < 1e-12, "shift invariant");
  /* pad: same as the softmax of the row with `pad` zeros appended, restricted */
  float xp[C + 3];
  memcpy(xp, x, C * sizeof(float));
  xp[C] = xp[C + 1] = xp[C + 2] = 0;
  double yp[C + 3], ypad[R * C];
  ref_softmax(xp, 1, C + 3, 0, yp);
  ref_softmax(x, R, C, 3, ypad);
  for (int j = 0; j < C; j++) EXPECT(fabs(yp[j] - ypad[j]) < 1e-15, "pad model col %d", j);
  /* a direct check of one value */
  double m = -INFINITY, s = 0;
  for (int j = 0; j < C; j++) m = fmax(m, x[C + j]);
  for (int j = 0; j < C; j++) s += exp(x[C + j] - m);
  EXPECT(fabs(y[C + 2] - exp(x[C + 2] - m) / s) < 1e-15, "value");

  /* transpose */
  uint16_t t[6] = {1, 2, 3, 4, 5, 6}; /* 2 x 3 of tiny subnormals: exact values */
  double ty[6];
  ref_transpose_f16(t, 2, 3, ty);
  const uint16_t want[6] = {1, 4, 2, 5, 3, 6};
  for (int i = 0; i < 6; i++) EXPECT(ty[i] == ex_f16_to_f32(want[i]), "transpose %d", i);

  /* weighted sum */
  float wx[6] = {1, 2, 3, 4, 5, 6}, ww[3] = {1, -1, 0.5f};
  double wo[2];
  ref_weighted_sum(wx, ww, 2, 3, wo);
  EXPECT(wo[0] == 1 - 2 + 1.5 && wo[1] == 4 - 5 + 3, "weighted sum %g %g", wo[0], wo[1]);

  /* add */
  float a[2] = {1e-8f, 1}, b[2] = {1, 1e-8f};
  double o[2];
  ref_add(a, b, o, 2);
  EXPECT(o[0] == (double)1e-8f + 1.0 && o[1] == o[0], "add in double");
}

int main(void) {
  test_f16();
  test_f8();
  test_check();
  test_sig();
  test_refs();
#ifdef __FLT16_MAX__
  const char *f16 = "checked against _Float16";
#else
  const char *f16 = "no _Float16 here: checked against properties only";
#endif
  if (failures) {
    printf("selftest: %d FAILED\n", failures);
    return 1;
  }
  printf("selftest: all passed (fp16 %s)\n", f16);
  return 0;
}
