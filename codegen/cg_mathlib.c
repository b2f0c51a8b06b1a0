/* cg_mathlib.c — the math library: MATHFN ops (ir/mathfns.def, Triton's
 * libdevice functions) and the fp64 forms of the tile IR's math ops, for one
 * element at a time; and the linking of libclc into the module.
 *
 * Where a function comes from:
 *  - libclc (the row's libclc column): a call of the OpenCL overload,
 *    `_Z4tanhf` / `_Z4tanhd` (Itanium-mangled: name length, name, one letter
 *    per parameter).  Before O3, cg_link_libclc links the bitcode embedded
 *    by cg_libclc_data.c (libclc's NVPTX library trimmed to these functions
 *    at build time), makes what it brought internal, and O3 inlines it
 *    (libclc marks its functions alwaysinline).  These are accurate to a few
 *    ulp in fp32 and fp64 (IEEE division and square root inside).
 *  - LLVM and NVVM intrinsics: rounding (trunc, rint, round), copysign,
 *    integer bit functions (ctlz, ctpop, bitreverse, prmt, sad, mulhi,
 *    mul24); inline PTX for the IEEE operations in a rounding mode
 *    (add.rz.f32 ...) and the conversions (cvt.rni.s32.f32 ...).
 *  - PTX's approximations (ex2/lg2/sin/cos.approx, div.approx) for the
 *    fast_* functions, as libdevice computes them.
 *  - A few lines on top of libclc for the functions libclc lacks: erfinv and
 *    erfcinv (an initial estimate refined by Newton/Halley steps on libclc's
 *    erf and erfc, in fp64), normcdf, normcdfinv, rcbrt; rhypot from IEEE
 *    sqrt and division with a Newton step.
 * fp16 and bf16 operands are computed in fp32 and rounded back (Triton's
 * rule for math on half types).  Nothing here is a polynomial of our own.
 * With --math-lib=libdevice each function is first offered to
 * cg_libdevice.c (libdevice's __nv_ function, as Triton calls it); what
 * libdevice lacks is lowered here as without it. */
#include "codegen/cg_internal.h"

#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- small helpers ---------------------------------------------------------- */

static LLVMTypeRef ftype(CgCtx *cg, DType d) { return d == DT_F64 ? cg->t_f64 : cg->t_f32; }
static LLVMValueRef fc(CgCtx *cg, DType d, double v) { return LLVMConstReal(ftype(cg, d), v); }

static LLVMValueRef intrin(CgCtx *cg, const char *name, LLVMValueRef *args, int n, bool overloaded) {
  LLVMTypeRef t = LLVMTypeOf(args[0]);
  return cg_intrin(cg, name, overloaded ? &t : NULL, overloaded ? 1 : 0, args, n);
}
static LLVMValueRef intrin1(CgCtx *cg, const char *name, LLVMValueRef x) { return intrin(cg, name, &x, 1, true); }

/* A call of libclc's `base` for fp type d: parameters `params` ('F' = the
 * float type, 'i' = i32), e.g. "FF" for pow, "Fi" for ldexp. */
static LLVMValueRef clc_call(CgCtx *cg, const char *base, DType d, const char *params, LLVMValueRef *args) {
  char name[64];
  int n = (int)strlen(params);
  int k = snprintf(name, sizeof name, "_Z%zu%s", strlen(base), base);
  LLVMTypeRef pt[4];
  for (int i = 0; i < n && i < 4; i++) {
    name[k++] = params[i] == 'i' ? 'i' : d == DT_F64 ? 'd' : 'f';
    pt[i] = params[i] == 'i' ? cg->t_i32 : ftype(cg, d);
  }
  name[k] = 0;
  LLVMTypeRef fty = LLVMFunctionType(ftype(cg, d), pt, (unsigned)n, 0);
  LLVMValueRef fn = LLVMGetNamedFunction(cg->mod, name);
  if (!fn) fn = LLVMAddFunction(cg->mod, name, fty);
  cg->uses_libclc = true;
  return LLVMBuildCall2(cg->b, fty, fn, args, (unsigned)n, "");
}
static LLVMValueRef clc1(CgCtx *cg, const char *base, DType d, LLVMValueRef x) {
  return clc_call(cg, base, d, "F", &x);
}

static LLVMValueRef mdiv(CgCtx *cg, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildFDiv(cg->b, a, b, ""); }
static LLVMValueRef mmul(CgCtx *cg, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildFMul(cg->b, a, b, ""); }
static LLVMValueRef madd(CgCtx *cg, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildFAdd(cg->b, a, b, ""); }
static LLVMValueRef msub(CgCtx *cg, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildFSub(cg->b, a, b, ""); }
static LLVMValueRef fsel(CgCtx *cg, LLVMRealPredicate p, LLVMValueRef a, LLVMValueRef b, LLVMValueRef t,
                         LLVMValueRef f) {
  return LLVMBuildSelect(cg->b, LLVMBuildFCmp(cg->b, p, a, b, ""), t, f, "");
}

/* ---- helper functions built once per module ----------------------------------
 * erfinv and its relatives are long: each becomes one internal function of
 * the module (built the first time it is needed, noinline so a thread's
 * sixteen elements share one copy) called per element. */

typedef void (*BodyFn)(CgCtx *cg, DType d, LLVMValueRef *params, LLVMValueRef *ret);

static LLVMValueRef helper_call(CgCtx *cg, const char *name, DType d, int nargs, BodyFn body,
                                LLVMValueRef *args) {
  char full[64];
  snprintf(full, sizeof full, "tlc_%s_%s", name, d == DT_F64 ? "f64" : "f32");
  LLVMTypeRef pt[3] = {ftype(cg, d), ftype(cg, d), ftype(cg, d)};
  LLVMTypeRef fty = LLVMFunctionType(ftype(cg, d), pt, (unsigned)nargs, 0);
  LLVMValueRef fn = LLVMGetNamedFunction(cg->mod, full);
  if (!fn) {
    fn = LLVMAddFunction(cg->mod, full, fty);
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    unsigned noinline = LLVMGetEnumAttributeKindForName("noinline", 8);
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(cg->ctx, noinline, 0));
    LLVMBuilderRef saved = cg->b;
    cg->b = LLVMCreateBuilderInContext(cg->ctx);
    LLVMPositionBuilderAtEnd(cg->b, LLVMAppendBasicBlockInContext(cg->ctx, fn, "entry"));
    LLVMValueRef params[3], ret;
    for (int i = 0; i < nargs; i++) params[i] = LLVMGetParam(fn, (unsigned)i);
    body(cg, d, params, &ret);
    LLVMBuildRet(cg->b, ret);
    LLVMDisposeBuilder(cg->b);
    cg->b = saved;
  }
  return LLVMBuildCall2(cg->b, fty, fn, args, (unsigned)nargs, "");
}

/* The inverse of erf, in fp64, as x >= 0 with erf(x) = a (a <= 1/2:
 * `center`) or erfc(x) = tail (tail < 1/2), tail = 1 - a exactly where it
 * is used.  Start: Winitzki's closed form (relative error below 2e-3;
 * a = 0.147), or its first term (x = a sqrt(pi)/2) for a < 0.01 where the
 * closed form cancels.  Then `iters` steps: Halley's on erf(x) - a in the
 * center; in the tail Newton's on log erfc(x) - log tail (erfc falls like
 * exp(-x^2), which defeats Newton on erfc itself), the last step Halley's on
 * tail - erfc(x).  Checked against a long-double reference with glibc's
 * erf/erfc: below 1.5 ulp in fp64 (three steps), correctly rounded in fp32
 * (two steps); libclc's fp64 erf/erfc (up to 0.9 and 2.5 ulp) add theirs. */
static LLVMValueRef inv_erf_core(CgCtx *cg, LLVMValueRef a, LLVMValueRef tail, LLVMValueRef center,
                                 int iters) {
  const DType D = DT_F64;
  const double k = 0.147, two_rsqrt_pi = 1.1283791670955126;
  LLVMValueRef one = fc(cg, D, 1), two = fc(cg, D, 2);
  LLVMValueRef l_tail = clc1(cg, "log", D, mmul(cg, tail, msub(cg, two, tail)));
  LLVMValueRef l_center = clc1(cg, "log1p", D, LLVMBuildFNeg(cg->b, mmul(cg, a, a), ""));
  LLVMValueRef l = LLVMBuildSelect(cg->b, center, l_center, l_tail, "");
  LLVMValueRef b = madd(cg, fc(cg, D, 2 / (M_PI * k)), mmul(cg, l, fc(cg, D, 0.5)));
  LLVMValueRef r = msub(cg, mmul(cg, b, b), mdiv(cg, l, fc(cg, D, k)));
  LLVMValueRef x = intrin1(cg, "llvm.sqrt", msub(cg, intrin1(cg, "llvm.sqrt", r), b));
  LLVMValueRef small = cg_build_and(cg->b, center, LLVMBuildFCmp(cg->b, LLVMRealOLT, a, fc(cg, D, 0.01), ""), "");
  x = LLVMBuildSelect(cg->b, small, mmul(cg, a, fc(cg, D, 0.88622692545275801)), x, "");
  x = fsel(cg, LLVMRealOGT, x, fc(cg, D, 27), fc(cg, D, 27), x); /* erfc(27.2) is fp64's last nonzero */
  LLVMValueRef log_tail = clc1(cg, "log", D, tail);
  for (int i = 0; i < iters; i++) {
    LLVMValueRef d = mmul(cg, fc(cg, D, two_rsqrt_pi), clc1(cg, "exp", D, LLVMBuildFNeg(cg->b, mmul(cg, x, x), "")));
    LLVMValueRef e = clc1(cg, "erfc", D, x);
    LLVMValueRef f = i == iters - 1 ? msub(cg, tail, e) : NULL;
    LLVMValueRef fe = msub(cg, clc1(cg, "erf", D, x), a);
    /* Halley: x - f / (f' + x f), f' = d */
    LLVMValueRef halley_c = msub(cg, x, mdiv(cg, fe, madd(cg, d, mmul(cg, x, fe))));
    LLVMValueRef tail_step;
    if (f) {
      tail_step = msub(cg, x, mdiv(cg, f, madd(cg, d, mmul(cg, x, f))));
    } else { /* Newton on g = log erfc(x) - log tail, g' = -d / erfc(x) */
      LLVMValueRef g = msub(cg, clc1(cg, "log", D, e), log_tail);
      tail_step = madd(cg, x, mdiv(cg, mmul(cg, g, e), d));
    }
    x = LLVMBuildSelect(cg->b, center, halley_c, tail_step, "");
  }
  (void)one;
  return x;
}

/* erfinv(y) for y of type d (fp32 computed in fp64): |y| = 1 -> inf, |y| > 1 or NaN -> NaN. */
static void body_erfinv(CgCtx *cg, DType d, LLVMValueRef *p, LLVMValueRef *ret) {
  LLVMValueRef y = d == DT_F64 ? p[0] : LLVMBuildFPExt(cg->b, p[0], cg->t_f64, "");
  LLVMValueRef a = intrin1(cg, "llvm.fabs", y);
  LLVMValueRef tail = msub(cg, fc(cg, DT_F64, 1), a);
  LLVMValueRef center = LLVMBuildFCmp(cg->b, LLVMRealOLE, a, fc(cg, DT_F64, 0.5), "");
  LLVMValueRef x = inv_erf_core(cg, a, tail, center, d == DT_F64 ? 3 : 2);
  x = fsel(cg, LLVMRealOEQ, a, fc(cg, DT_F64, 1), fc(cg, DT_F64, INFINITY), x);
  x = fsel(cg, LLVMRealUGT, a, fc(cg, DT_F64, 1), fc(cg, DT_F64, NAN), x);
  x = intrin(cg, "llvm.copysign", (LLVMValueRef[]){x, y}, 2, true);
  *ret = d == DT_F64 ? x : LLVMBuildFPTrunc(cg->b, x, cg->t_f32, "");
}

/* erfcinv(t): the inverse of erfc on (0, 2); 0 -> inf, 2 -> -inf, outside -> NaN.
 * t > 1 maps to -erfcinv(2 - t) (2 - t exact there). */
static void body_erfcinv(CgCtx *cg, DType d, LLVMValueRef *p, LLVMValueRef *ret) {
  const DType D = DT_F64;
  LLVMValueRef t = d == DT_F64 ? p[0] : LLVMBuildFPExt(cg->b, p[0], cg->t_f64, "");
  LLVMValueRef upper = LLVMBuildFCmp(cg->b, LLVMRealOGT, t, fc(cg, D, 1), "");
  LLVMValueRef tail = LLVMBuildSelect(cg->b, upper, msub(cg, fc(cg, D, 2), t), t, "");
  LLVMValueRef a = LLVMBuildSelect(cg->b, upper, msub(cg, t, fc(cg, D, 1)), msub(cg, fc(cg, D, 1), t), "");
  LLVMValueRef center = LLVMBuildFCmp(cg->b, LLVMRealOGE, tail, fc(cg, D, 0.5), "");
  LLVMValueRef x = inv_erf_core(cg, a, tail, center, d == DT_F64 ? 3 : 2);
  x = LLVMBuildSelect(cg->b, upper, LLVMBuildFNeg(cg->b, x, ""), x, "");
  x = fsel(cg, LLVMRealOEQ, t, fc(cg, D, 0), fc(cg, D, INFINITY), x);
  x = fsel(cg, LLVMRealOEQ, t, fc(cg, D, 2), fc(cg, D, -INFINITY), x);
  LLVMValueRef out = cg_build_or(cg->b, LLVMBuildFCmp(cg->b, LLVMRealULT, t, fc(cg, D, 0), ""),
                                 LLVMBuildFCmp(cg->b, LLVMRealOGT, t, fc(cg, D, 2), ""), "");
  x = LLVMBuildSelect(cg->b, out, fc(cg, D, NAN), x, "");
  *ret = d == DT_F64 ? x : LLVMBuildFPTrunc(cg->b, x, cg->t_f32, "");
}

/* normcdf(x) = erfc(-x / sqrt 2) / 2.  In fp64 the rounding of z = -x/sqrt 2
 * matters in the tails (erfc's relative slope is about 2 z^2 there): the
 * product's error dz (fma) and the second half of 1/sqrt 2 correct erfc to
 * first order, erfc(z + dz) = erfc(z) - dz 2/sqrt(pi) exp(-z^2). */
static void body_normcdf(CgCtx *cg, DType d, LLVMValueRef *p, LLVMValueRef *ret) {
  const DType D = DT_F64;
  const double hi = 0.70710678118654757, lo = -4.8336466567264567e-17; /* 1/sqrt 2 = hi + lo */
  LLVMValueRef x = d == DT_F64 ? p[0] : LLVMBuildFPExt(cg->b, p[0], cg->t_f64, "");
  LLVMValueRef nx = LLVMBuildFNeg(cg->b, x, "");
  LLVMValueRef z = mmul(cg, nx, fc(cg, D, hi));
  LLVMValueRef err = intrin(cg, "llvm.fma", (LLVMValueRef[]){nx, fc(cg, D, hi), LLVMBuildFNeg(cg->b, z, "")}, 3, true);
  LLVMValueRef dz = intrin(cg, "llvm.fma", (LLVMValueRef[]){nx, fc(cg, D, lo), err}, 3, true);
  LLVMValueRef slope = mmul(cg, fc(cg, D, 1.1283791670955126), clc1(cg, "exp", D, LLVMBuildFNeg(cg->b, mmul(cg, z, z), "")));
  LLVMValueRef e = msub(cg, clc1(cg, "erfc", D, z), mmul(cg, dz, slope));
  e = mmul(cg, e, fc(cg, D, 0.5));
  *ret = d == DT_F64 ? e : LLVMBuildFPTrunc(cg->b, e, cg->t_f32, "");
}

/* normcdfinv(p) = -sqrt 2 erfcinv(2 p) (2 p exact). */
static void body_normcdfinv(CgCtx *cg, DType d, LLVMValueRef *p, LLVMValueRef *ret) {
  LLVMValueRef t = mmul(cg, p[0], fc(cg, d, 2));
  LLVMValueRef x = helper_call(cg, "erfcinv", d, 1, body_erfcinv, &t);
  *ret = mmul(cg, x, fc(cg, d, -1.4142135623730951));
}

/* rhypot(x, y) = 1 / sqrt(x^2 + y^2).  1 / libclc's hypot rounds twice on
 * top of hypot's error (2.2 ulp in fp32 and fp64).  fp32: in fp64, where
 * x^2 + y^2 cannot overflow and is nearly exact, rounded once (0.5 ulp).
 * fp64: m = max(|x|, |y|) and the other, s, scaled by the power of two
 * 2^(1023 - e) (e = m's biased exponent, at most 2045) to a = m 2^(1023-e)
 * in [1, 4) (m normal) and b; S = fma(a, a, b*b) and eq = b*b's rounding
 * error; r0 = 1 / sqrt(S) (IEEE, within ~1.5 ulp); then one Newton step
 * r = r0 + r0/2 (1 - (S + eq) r0^2), its residual from fma's (r0^2 split
 * in t + tl), and the scale back.  Every product that meets a sum is an
 * explicit fma, so contraction changes nothing.  Checked on the CPU against
 * 1/hypotl over 2M pairs: 0.99 ulp (fp64), 0.50 (fp32).  Special values as
 * 1/hypot: an infinity gives +0 (even beside a NaN), else NaN gives NaN,
 * both zero +inf. */
static LLVMValueRef rhypot(CgCtx *cg, DType d, LLVMValueRef *a) {
  LLVMBuilderRef B = cg->b;
  const DType D = DT_F64;
  LLVMValueRef inf = fc(cg, D, INFINITY);
  LLVMValueRef x = d == D ? a[0] : LLVMBuildFPExt(B, a[0], cg->t_f64, "");
  LLVMValueRef y = d == D ? a[1] : LLVMBuildFPExt(B, a[1], cg->t_f64, "");
  LLVMValueRef ax = intrin1(cg, "llvm.fabs", x), ay = intrin1(cg, "llvm.fabs", y);
  LLVMValueRef any_inf = cg_build_or(B, LLVMBuildFCmp(B, LLVMRealOEQ, ax, inf, ""),
                                     LLVMBuildFCmp(B, LLVMRealOEQ, ay, inf, ""), "");
  LLVMValueRef r;
  if (d != D) { /* exact squares, one rounding of the sum: contraction is harmless */
    LLVMValueRef sum = madd(cg, mmul(cg, x, x), mmul(cg, y, y));
    r = mdiv(cg, fc(cg, D, 1), intrin1(cg, "llvm.sqrt", sum));
  } else {
    LLVMValueRef fma3[3];
#define FMA(p, q, s) (fma3[0] = (p), fma3[1] = (q), fma3[2] = (s), intrin(cg, "llvm.fma", fma3, 3, true))
    LLVMValueRef m = intrin(cg, "llvm.maxnum", (LLVMValueRef[]){ax, ay}, 2, true);
    LLVMValueRef s = intrin(cg, "llvm.minnum", (LLVMValueRef[]){ax, ay}, 2, true);
    LLVMValueRef e = cg_build_lshr(B, LLVMBuildBitCast(B, m, cg->t_i64, ""), LLVMConstInt(cg->t_i64, 52, 0), "");
    e = intrin(cg, "llvm.umin", (LLVMValueRef[]){e, LLVMConstInt(cg->t_i64, 2045, 0)}, 2, true);
    LLVMValueRef sbits = cg_build_shl(B, cg_build_sub(B, LLVMConstInt(cg->t_i64, 2046, 0), e, ""),
                                      LLVMConstInt(cg->t_i64, 52, 0), "");
    LLVMValueRef scale = LLVMBuildBitCast(B, sbits, cg->t_f64, ""); /* 2^(1023 - e), normal */
    LLVMValueRef am = mmul(cg, m, scale), bs = mmul(cg, s, scale);
    LLVMValueRef q = mmul(cg, bs, bs);
    LLVMValueRef S = FMA(am, am, q);
    LLVMValueRef eq = FMA(bs, bs, LLVMBuildFNeg(B, q, ""));
    LLVMValueRef r0 = mdiv(cg, fc(cg, D, 1), intrin1(cg, "llvm.sqrt", S));
    LLVMValueRef t = mmul(cg, r0, r0);
    LLVMValueRef tl = FMA(r0, r0, LLVMBuildFNeg(B, t, ""));
    LLVMValueRef nS = LLVMBuildFNeg(B, S, "");
    LLVMValueRef u = FMA(nS, t, fc(cg, D, 1));
    u = FMA(nS, tl, u);
    u = FMA(LLVMBuildFNeg(B, eq, ""), t, u);
    r = mmul(cg, FMA(mmul(cg, r0, fc(cg, D, 0.5)), u, r0), scale);
#undef FMA
    r = fsel(cg, LLVMRealOEQ, m, fc(cg, D, 0), inf, r);
    r = fsel(cg, LLVMRealUNO, x, y, fc(cg, D, NAN), r);
  }
  r = LLVMBuildSelect(B, any_inf, fc(cg, D, 0), r, "");
  return d == D ? r : LLVMBuildFPTrunc(B, r, cg->t_f32, "");
}

/* ---- float functions ---------------------------------------------------------- */

/* PTX's approximations (fp32): ex2/lg2.approx, sin/cos.approx, div.approx. */
static LLVMValueRef approx(CgCtx *cg, const char *what, LLVMValueRef x) {
  char name[48];
  snprintf(name, sizeof name, "llvm.nvvm.%s.approx.f", what);
  return cg_intrin(cg, name, NULL, 0, &x, 1);
}
static LLVMValueRef fast_div(CgCtx *cg, LLVMValueRef a, LLVMValueRef b) {
  LLVMValueRef args[2] = {a, b};
  return cg_intrin(cg, "llvm.nvvm.div.approx.f", NULL, 0, args, 2);
}

/* An IEEE operation in rounding mode `rm` ("rn", "rz", "rm", "rp") as inline
 * PTX: an instruction with an explicit rounding modifier is never fused
 * (ptxas leaves add.rn/mul.rn alone), while NVVM's add.rn/mul.rn intrinsics
 * become plain fadd/fmul that contraction may turn into an fma. */
static LLVMValueRef rounded(CgCtx *cg, const char *op, const char *rm, DType d, LLVMValueRef *a, int n) {
  static const char *const operands[4] = {"", " $0, $1;", " $0, $1, $2;", " $0, $1, $2, $3;"};
  char text[64], cons[16];
  const char *reg = d == DT_F64 ? "d" : "f";
  snprintf(text, sizeof text, "%s.%s.%s%s", op, rm, d == DT_F64 ? "f64" : "f32", operands[n]);
  snprintf(cons, sizeof cons, "=%s", reg);
  for (int i = 0; i < n; i++) snprintf(cons + strlen(cons), sizeof cons - strlen(cons), ",%s", reg);
  return cg_asm(cg, ftype(cg, d), text, cons, a, n, false);
}

/* libclc's fp32 functions whose error reaches 1.5 ulp or more (measured
 * against long-double references over wide sweeps: tanh 2.0, sinh and cosh
 * 2.2, tan 2.3, atan2 2.2, asinh 1.6, sin/cos 1.55, sinpi/cospi 1.9,
 * lgamma 3, erfc 63 in the far tail, tgamma 170): their fp32 forms call the
 * fp64 function and round once, which is correctly rounded but for rare
 * cases (below 0.51 ulp), at the price of fp64 arithmetic (half the fp32
 * rate on sm_80/sm_90, much less on consumer GPUs). */
static bool fp32_through_fp64(MathFn fn) {
  switch (fn) {
  case MF_LOG: /* 1.2 ulp; correctly rounded it matches libdevice's logf wherever that is (tl.randn) */
  case MF_TANH: case MF_SINH: case MF_COSH: case MF_TAN: case MF_ATAN2: case MF_ASINH: case MF_SIN: case MF_COS:
  case MF_SINPI: case MF_COSPI: case MF_LGAMMA: case MF_ERFC: case MF_TGAMMA:
    return true;
  default:
    return false;
  }
}

LLVMValueRef cg_math_float(CgCtx *cg, const Op *op, MathFn fn, DType d, LLVMValueRef *a) {
  LLVMBuilderRef B = cg->b;
  const MathFnInfo *mi = &ir_mathfn_info[fn];
  if (cg->opt->libdevice) { /* --math-lib=libdevice: Triton's call, where libdevice has the function */
    LLVMValueRef r = cg_libdevice_mathfn(cg, fn, d, a);
    if (r) return r;
  }
  if (mi->libclc) {
    const char *params = mi->kind == MK_FLOAT_INT ? "Fi" : mi->nargs == 2 ? "FF" : "F";
    if (d == DT_F32 && fp32_through_fp64(fn)) {
      LLVMValueRef w[2];
      for (int i = 0; i < mi->nargs; i++) w[i] = LLVMBuildFPExt(B, a[i], cg->t_f64, "");
      return LLVMBuildFPTrunc(B, clc_call(cg, mi->libclc, DT_F64, params, w), cg->t_f32, "");
    }
    return clc_call(cg, mi->libclc, d, params, a);
  }
  const double log2e = 1.4426950408889634, ln2 = 0.6931471805599453;
  static const char *const rms[4] = {"rn", "rz", "rm", "rp"}; /* ORDER: _RN, _RZ, _RD, _RU in mathfns.def */
  switch (fn) {
  case MF_RCBRT: return mdiv(cg, fc(cg, d, 1), clc1(cg, "cbrt", d, a[0]));
  case MF_RHYPOT: return rhypot(cg, d, a);
  case MF_ERFINV: return helper_call(cg, "erfinv", d, 1, body_erfinv, a);
  case MF_ERFCINV: return helper_call(cg, "erfcinv", d, 1, body_erfcinv, a);
  case MF_NORMCDF: return helper_call(cg, "normcdf", d, 1, body_normcdf, a);
  case MF_NORMCDFINV: return helper_call(cg, "normcdfinv", d, 1, body_normcdfinv, a);
  case MF_TRUNC: return intrin1(cg, "llvm.trunc", a[0]);
  case MF_RINT: return intrin1(cg, "llvm.rint", a[0]);
  case MF_NEARBYINT: return intrin1(cg, "llvm.nearbyint", a[0]);
  case MF_ROUND: return intrin1(cg, "llvm.round", a[0]);
  case MF_SATURATE: /* NaN and negatives -> +0, above 1 -> 1 */
    return fsel(cg, LLVMRealOGT, a[0], fc(cg, d, 0), intrin(cg, "llvm.minnum", (LLVMValueRef[]){a[0], fc(cg, d, 1)}, 2, true),
                fc(cg, d, 0));
  case MF_COPYSIGN: return intrin(cg, "llvm.copysign", a, 2, true);
  case MF_SQRT: /* libdevice's sqrt (__nv_sqrtf without __CUDA_PREC_SQRT) */
    return d == DT_F64 ? intrin1(cg, "llvm.sqrt", a[0]) : cg_intrin(cg, "llvm.nvvm.sqrt.approx.f", NULL, 0, a, 1);
  case MF_FMA: return intrin(cg, "llvm.fma", a, 3, true);
  case MF_FDIM: {
    LLVMValueRef r = fsel(cg, LLVMRealOGT, a[0], a[1], msub(cg, a[0], a[1]), fc(cg, d, 0));
    return fsel(cg, LLVMRealUNO, a[0], a[1], madd(cg, a[0], a[1]), r); /* NaN in, NaN out */
  }
  case MF_FAST_EXP: return approx(cg, "ex2", mmul(cg, a[0], fc(cg, d, log2e)));
  case MF_FAST_EXP10: return approx(cg, "ex2", mmul(cg, a[0], fc(cg, d, 3.3219280948873622)));
  case MF_FAST_LOG: return mmul(cg, approx(cg, "lg2", a[0]), fc(cg, d, ln2));
  case MF_FAST_LOG2: return approx(cg, "lg2", a[0]);
  case MF_FAST_LOG10: return mmul(cg, approx(cg, "lg2", a[0]), fc(cg, d, 0.30102999566398120));
  case MF_FAST_SIN: return approx(cg, "sin", a[0]);
  case MF_FAST_COS: return approx(cg, "cos", a[0]);
  case MF_FAST_TAN: return fast_div(cg, approx(cg, "sin", a[0]), approx(cg, "cos", a[0]));
  case MF_FAST_POW: return approx(cg, "ex2", mmul(cg, a[1], approx(cg, "lg2", a[0])));
  case MF_FAST_DIV: return fast_div(cg, a[0], a[1]);
  case MF_ADD_RN: case MF_ADD_RZ: case MF_ADD_RD: case MF_ADD_RU:
    return rounded(cg, "add", rms[fn - MF_ADD_RN], d, a, 2);
  case MF_SUB_RN: case MF_SUB_RZ: case MF_SUB_RD: case MF_SUB_RU: { /* x - y = x + (-y), exactly */
    LLVMValueRef s[2] = {a[0], LLVMBuildFNeg(B, a[1], "")};
    return rounded(cg, "add", rms[fn - MF_SUB_RN], d, s, 2);
  }
  case MF_MUL_RN: case MF_MUL_RZ: case MF_MUL_RD: case MF_MUL_RU:
    return rounded(cg, "mul", rms[fn - MF_MUL_RN], d, a, 2);
  case MF_DIV_RN: case MF_DIV_RZ: case MF_DIV_RD: case MF_DIV_RU:
    return rounded(cg, "div", rms[fn - MF_DIV_RN], d, a, 2);
  case MF_RCP_RN: case MF_RCP_RZ: case MF_RCP_RD: case MF_RCP_RU:
    return rounded(cg, "rcp", rms[fn - MF_RCP_RN], d, a, 1);
  case MF_SQRT_RN: case MF_SQRT_RZ: case MF_SQRT_RD: case MF_SQRT_RU:
    return rounded(cg, "sqrt", rms[fn - MF_SQRT_RN], d, a, 1);
  case MF_FMA_RN: case MF_FMA_RZ: case MF_FMA_RD: case MF_FMA_RU:
    return rounded(cg, "fma", rms[fn - MF_FMA_RN], d, a, 3);
  default: break;
  }
  cg_error(cg, op, "no lowering of math function '%s' for %s", mi->name, dt_name(d));
  return LLVMGetUndef(ftype(cg, d));
}

/* ---- integer functions ------------------------------------------------------- */

static LLVMValueRef to_i32(CgCtx *cg, LLVMValueRef v) {
  LLVMTypeRef t = LLVMTypeOf(v);
  if (t == cg->t_i32) return v;
  return LLVMGetIntTypeWidth(t) > 32 ? LLVMBuildTrunc(cg->b, v, cg->t_i32, "") : LLVMBuildZExt(cg->b, v, cg->t_i32, "");
}

static LLVMValueRef math_int(CgCtx *cg, const Op *op, MathFn fn, DType d, LLVMValueRef *a) {
  LLVMBuilderRef B = cg->b;
  bool s = dt_is_signed(d), wide = dt_bits(d) == 64;
  LLVMTypeRef t = LLVMTypeOf(a[0]);
  switch (fn) {
  case MF_CLZ: return to_i32(cg, intrin(cg, "llvm.ctlz", (LLVMValueRef[]){a[0], LLVMConstInt(cg->t_i1, 0, 0)}, 2, true));
  case MF_POPC: return to_i32(cg, intrin1(cg, "llvm.ctpop", a[0]));
  case MF_FFS: {
    LLVMValueRef tz = intrin(cg, "llvm.cttz", (LLVMValueRef[]){a[0], LLVMConstInt(cg->t_i1, 0, 0)}, 2, true);
    LLVMValueRef r = cg_build_add(B, to_i32(cg, tz), cg_i32(cg, 1), "");
    LLVMValueRef zero = LLVMBuildICmp(B, LLVMIntEQ, a[0], LLVMConstNull(t), "");
    return LLVMBuildSelect(B, zero, cg_i32(cg, 0), r, "");
  }
  case MF_BREV: return intrin1(cg, "llvm.bitreverse", a[0]);
  case MF_MULHI: {
    const char *nm = wide ? (s ? "llvm.nvvm.mulhi.ll" : "llvm.nvvm.mulhi.ull") : (s ? "llvm.nvvm.mulhi.i" : "llvm.nvvm.mulhi.ui");
    return cg_intrin(cg, nm, NULL, 0, a, 2);
  }
  case MF_MUL24: return cg_intrin(cg, s ? "llvm.nvvm.mul24.i" : "llvm.nvvm.mul24.ui", NULL, 0, a, 2);
  case MF_SAD: return cg_intrin(cg, s ? "llvm.nvvm.sad.i" : "llvm.nvvm.sad.ui", NULL, 0, a, 3);
  case MF_BYTE_PERM: return cg_intrin(cg, "llvm.nvvm.prmt", NULL, 0, a, 3);
  case MF_HADD: case MF_RHADD: { /* in twice the width: no overflow */
    LLVMTypeRef w = LLVMIntTypeInContext(cg->ctx, 2 * LLVMGetIntTypeWidth(t));
    LLVMValueRef x = s ? LLVMBuildSExt(B, a[0], w, "") : LLVMBuildZExt(B, a[0], w, "");
    LLVMValueRef y = s ? LLVMBuildSExt(B, a[1], w, "") : LLVMBuildZExt(B, a[1], w, "");
    LLVMValueRef sum = cg_build_add(B, x, y, "");
    if (fn == MF_RHADD) sum = cg_build_add(B, sum, LLVMConstInt(w, 1, 0), "");
    sum = s ? cg_build_ashr(B, sum, LLVMConstInt(w, 1, 0), "") : cg_build_lshr(B, sum, LLVMConstInt(w, 1, 0), "");
    return LLVMBuildTrunc(B, sum, t, "");
  }
  default: break;
  }
  cg_error(cg, op, "no lowering of math function '%s' for %s", ir_mathfn_info[fn].name, dt_name(d));
  return LLVMGetUndef(t);
}

/* ---- conversions in a rounding mode --------------------------------------------------
 * As inline PTX `cvt`: LLVM 19's NVVM simplification turns the intrinsics
 * of the int -> float round-toward-zero conversions (llvm.nvvm.i2f.rz, ...)
 * into sitofp/uitofp, which round to nearest. */

static const char *ptx_type(DType d) {
  switch (d) {
  case DT_F32: return "f32";
  case DT_F64: return "f64";
  case DT_I32: return "s32";
  case DT_U32: return "u32";
  case DT_I64: return "s64";
  default: return "u64";
  }
}
static const char *ptx_reg(DType d) {
  return d == DT_F32 ? "f" : d == DT_F64 ? "d" : dt_bits(d) == 64 ? "l" : "r";
}

static LLVMValueRef convert(CgCtx *cg, const Op *op, MathFn fn, LLVMValueRef x) {
  DType from, computed, result;
  const char *nv;
  int rm;
  if (!ir_mathfn_cvt(fn, &from, &computed, &result, &nv, &rm)) {
    cg_error(cg, op, "math function '%s' is not a conversion", ir_mathfn_info[fn].name);
    return LLVMGetUndef(cg_type(cg, op->results[0]->type->dtype));
  }
  /* to an integer the rounding is rni/rzi/rmi/rpi, else rn/rz/rm/rp */
  static const char *const rms[4] = {"rn", "rz", "rm", "rp"};
  char text[64], cons[16];
  snprintf(text, sizeof text, "cvt.%s%s.%s.%s $0, $1;", rms[rm], dt_is_int(computed) ? "i" : "", ptx_type(computed),
           ptx_type(from));
  snprintf(cons, sizeof cons, "=%s,%s", ptx_reg(computed), ptx_reg(from));
  return cg_asm(cg, cg_type(cg, computed), text, cons, &x, 1, false);
}

/* ---- the element of a MATHFN op ------------------------------------------------ */

LLVMValueRef cg_mathfn(CgCtx *cg, const Op *op, LLVMValueRef *args) {
  LLVMBuilderRef B = cg->b;
  MathFn fn = op->attr.fn;
  const MathFnInfo *mi = &ir_mathfn_info[fn];
  DType d = op->operands[0]->type->dtype, rd = op->results[0]->type->dtype;
  bool ld = cg->opt->libdevice; /* --math-lib=libdevice: Triton's call where libdevice has the function */
  LLVMValueRef r;
  if (mi->kind == MK_INT || mi->kind == MK_INT_TO_I32) {
    if (ld && (r = cg_libdevice_mathfn(cg, fn, d, args))) return r;
    return math_int(cg, op, fn, d, args);
  }
  if (mi->kind == MK_CVT) /* one PTX cvt in the named rounding mode, libdevice's body too; not
                              its call: LLVM 19 folds the nvvm.i2f.rz inside __nv_int2float_rz
                              (and ui2f.rz) to a plain round-to-nearest conversion */
    return convert(cg, op, fn, args[0]);
  if (d != DT_F32 && d != DT_F64 && d != DT_F16 && d != DT_BF16) {
    cg_error(cg, op, "math function '%s' of %s", mi->name, dt_name(d));
    return LLVMGetUndef(cg_type(cg, rd));
  }
  /* half types: in fp32 */
  DType cd = d == DT_F64 ? DT_F64 : DT_F32;
  LLVMValueRef a[3];
  for (int i = 0; i < op->noperands && i < 3; i++)
    a[i] = mi->kind == MK_FLOAT_INT && i == 1 ? args[i]
           : d == cd                          ? args[i]
                                              : LLVMBuildFPExt(B, args[i], cg->t_f32, "");
  LLVMValueRef x = a[0];
  if (ld && mi->kind != MK_FLOAT && mi->kind != MK_FLOAT_INT && (r = cg_libdevice_mathfn(cg, fn, cd, a))) return r;
  switch (mi->kind) {
  case MK_FLOAT: case MK_FLOAT_INT:
    r = cg_math_float(cg, op, fn, cd, a);
    return d == cd ? r : LLVMBuildFPTrunc(B, r, cg_type(cg, d), "");
  case MK_TEST:
    if (fn == MF_ISNAN) return LLVMBuildFCmp(B, LLVMRealUNO, x, x, "");
    return LLVMBuildFCmp(B, LLVMRealOEQ, intrin1(cg, "llvm.fabs", x), fc(cg, cd, INFINITY), "");
  case MK_TO_I32:
    switch (fn) {
    case MF_SIGNBIT: {
      LLVMTypeRef it = cd == DT_F64 ? cg->t_i64 : cg->t_i32;
      LLVMValueRef bits = LLVMBuildBitCast(B, x, it, "");
      return to_i32(cg, cg_build_lshr(B, bits, LLVMConstInt(it, cd == DT_F64 ? 63 : 31, 0), ""));
    }
    case MF_FINITE: case MF_ISFINITE:
      return LLVMBuildZExt(B, LLVMBuildFCmp(B, LLVMRealOLT, intrin1(cg, "llvm.fabs", x), fc(cg, cd, INFINITY), ""),
                           cg->t_i32, "");
    case MF_DOUBLE2LOINT: case MF_DOUBLE2HIINT:
      return cg_intrin(cg, fn == MF_DOUBLE2LOINT ? "llvm.nvvm.d2i.lo" : "llvm.nvvm.d2i.hi", NULL, 0, &x, 1);
    case MF_ILOGB: {
      LLVMTypeRef fty = LLVMFunctionType(cg->t_i32, (LLVMTypeRef[]){ftype(cg, cd)}, 1, 0);
      const char *nm = cd == DT_F64 ? "_Z5ilogbd" : "_Z5ilogbf";
      LLVMValueRef f = LLVMGetNamedFunction(cg->mod, nm);
      if (!f) f = LLVMAddFunction(cg->mod, nm, fty);
      cg->uses_libclc = true;
      return LLVMBuildCall2(B, fty, f, &x, 1, "");
    }
    default: break;
    }
    break;
  case MK_TO_I64:
    r = intrin1(cg, fn == MF_LLRINT ? "llvm.rint" : "llvm.round", x);
    return LLVMBuildFPToSI(B, r, cg->t_i64, "");
  default: break;
  }
  cg_error(cg, op, "no lowering of math function '%s'", mi->name);
  return LLVMGetUndef(cg_type(cg, rd));
}

/* ---- linking libclc --------------------------------------------------------------- */

bool cg_link_libclc(CgCtx *cg) {
  size_t size;
  const char *data = cg_libclc_bitcode(&size);
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange(data, size, "libclc", 0);
  LLVMModuleRef clc = NULL;
  if (LLVMGetBitcodeModuleInContext2(cg->ctx, buf, &clc)) { /* lazily: bodies read as linked */
    LLVMDisposeMemoryBuffer(buf);
    cg_error(cg, NULL, "the embedded libclc bitcode does not parse (a broken build)");
    return false;
  }
  /* the kernel's triple and data layout (libclc's differ only in name) */
  LLVMSetTarget(clc, LLVMGetTarget(cg->mod));
  LLVMSetDataLayout(clc, LLVMGetDataLayoutStr(cg->mod));
  /* the library's functions are linkonce_odr: only those called come over */
  cg_link_on_demand(clc);
  if (LLVMLinkModules2(cg->mod, clc)) {
    cg_error(cg, NULL, "linking libclc into the kernel failed");
    return false;
  }
  cg_internalize_linked(cg);
  for (LLVMValueRef f = LLVMGetFirstFunction(cg->mod); f; f = LLVMGetNextFunction(f)) {
    size_t len;
    const char *nm = LLVMGetValueName2(f, &len);
    if (LLVMIsDeclaration(f) && !LLVMGetIntrinsicID(f) && len > 2 && !strncmp(nm, "_Z", 2)) {
      cg_error(cg, NULL, "libclc has no function %s", nm);
      return false;
    }
  }
  return true;
}
