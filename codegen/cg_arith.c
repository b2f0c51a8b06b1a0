/* cg_arith.c — elementwise ops: integer and float arithmetic, min/max,
 * comparisons, select, math functions, casts and bitcasts.
 *
 * Conventions (Triton's, see docs/codegen.md):
 *  - integer signedness comes from the tile type (i* signed, u* and i1
 *    unsigned): sdiv/udiv, ashr/lshr, smin/umin, signed/unsigned compares;
 *  - fp32 division is `div.full.f32` (approximate, 2 ulp) unless the op is
 *    precise (div_rn), then IEEE fdiv (div.rn.f32);
 *  - fp16 add/sub/mul/fma/min/max/compare are native; bf16 arithmetic and
 *    every fp16/bf16 division and math function go through fp32 and round
 *    back (exact for add/sub/mul/div, whose fp32 results round innocuously);
 *  - math in fp32 uses the PTX approximations as Triton does: exp2(x) =
 *    ex2.approx.ftz(x), exp(x) = ex2.approx(x * log2 e), log(x) = lg2.approx(x) * ln 2, sqrt.approx
 *    (sqrt_rn -> IEEE sqrt), rsqrt.approx, sin/cos.approx; erf is a Taylor
 *    series below 1 and Numerical Recipes' erfc fit above (|err| < 2e-7);
 *  - fp64 exp/exp2/log/log2/sin/cos/erf/sigmoid call libclc's functions
 *    (cg_mathlib.c), as Triton calls libdevice's; MATHFN ops (the libdevice
 *    functions) are lowered there too.
 * Elementwise ops accept scalar operands next to tensor ones (the scalar is
 * used for every element). */
#include "codegen/cg_internal.h"

#include <math.h>
#include <string.h>

bool cg_is_arith(OpKind k) {
  return (k >= OP_ADD && k <= OP_CLAMP) || (k >= OP_NEG && k <= OP_BITCAST);
}

static bool is_half(DType d) { return d == DT_F16 || d == DT_BF16; }
static bool is_fp8(DType d) { return d == DT_F8E4M3 || d == DT_F8E5M2; }

static LLVMValueRef ext32(CgCtx *cg, LLVMValueRef v) {
  return LLVMBuildFPExt(cg->b, v, cg->t_f32, "");
}
static LLVMValueRef trunc_to(CgCtx *cg, DType d, LLVMValueRef v) {
  return LLVMBuildFPTrunc(cg->b, v, cg_type(cg, d), "");
}

static LLVMValueRef intrin1(CgCtx *cg, const char *name, LLVMValueRef x, bool overloaded) {
  LLVMTypeRef t = LLVMTypeOf(x);
  return cg_intrin(cg, name, overloaded ? &t : NULL, overloaded ? 1 : 0, &x, 1);
}
static LLVMValueRef intrin2(CgCtx *cg, const char *name, LLVMValueRef a, LLVMValueRef b) {
  LLVMTypeRef t = LLVMTypeOf(a);
  LLVMValueRef args[2] = {a, b};
  return cg_intrin(cg, name, &t, 1, args, 2);
}

static LLVMValueRef f32c(CgCtx *cg, double v) { return LLVMConstReal(cg->t_f32, v); }

/* a / b in fp32, approximate (div.full.f32) or IEEE. */
static LLVMValueRef fdiv32(CgCtx *cg, LLVMValueRef a, LLVMValueRef b, bool precise) {
  if (precise) return LLVMBuildFDiv(cg->b, a, b, "");
  LLVMValueRef args[2] = {a, b};
  return cg_asm(cg, cg->t_f32, "div.full.f32 $0, $1, $2;", "=f,f,f", args, 2, false);
}

static LLVMValueRef ex2(CgCtx *cg, LLVMValueRef x) {
  return intrin1(cg, "llvm.nvvm.ex2.approx.f", x, false);
}

/* tl.exp2 in fp32 as Triton emits it: ex2.approx.ftz.f32 (results below
 * 2^-126 flush to zero).  Without .ftz ptxas wraps every MUFU.EX2 in a
 * subnormal fix-up (a compare and two multiplies): in the attention
 * forward's loop 34 FSETP and 68 FMUL of its 457 instructions. */
static LLVMValueRef ex2_ftz(CgCtx *cg, LLVMValueRef x) {
  return intrin1(cg, "llvm.nvvm.ex2.approx.ftz.f", x, false);
}

LLVMValueRef cg_max_min(CgCtx *cg, DType d, bool is_max, bool propagate_nan, LLVMValueRef a,
                        LLVMValueRef b) {
  if (dt_is_float(d)) {
    if (d == DT_BF16) return trunc_to(cg, d, cg_max_min(cg, DT_F32, is_max, propagate_nan,
                                                       ext32(cg, a), ext32(cg, b)));
    const char *nm = propagate_nan ? (is_max ? "llvm.maximum" : "llvm.minimum")
                                   : (is_max ? "llvm.maxnum" : "llvm.minnum");
    return intrin2(cg, nm, a, b);
  }
  if (d == DT_PTR) {
    LLVMValueRef c = LLVMBuildICmp(cg->b, is_max ? LLVMIntUGT : LLVMIntULT, a, b, "");
    return LLVMBuildSelect(cg->b, c, a, b, "");
  }
  bool s = dt_is_signed(d);
  const char *nm = is_max ? (s ? "llvm.smax" : "llvm.umax") : (s ? "llvm.smin" : "llvm.umin");
  return intrin2(cg, nm, a, b);
}

LLVMValueRef cg_binary(CgCtx *cg, const Op *op, OpKind k, DType d, LLVMValueRef a,
                       LLVMValueRef b) {
  LLVMBuilderRef B = cg->b;
  bool precise = op && op->attr.precise;
  if (dt_is_float(d)) {
    if (is_fp8(d)) {
      /* no fp8 arithmetic instructions: fp32 (exact for +, -, *, min, max
       * of two fp8 values), rounded back (sm_89's cvt; the specializer
       * refuses older targets) */
      LLVMValueRef r = cg_binary(cg, op, k, DT_F32, cg_cast_scalar(cg, op, a, d, DT_F32),
                                 cg_cast_scalar(cg, op, b, d, DT_F32));
      return cg_cast_scalar(cg, op, r, DT_F32, d);
    }
    bool via32 = d == DT_BF16 || (d == DT_F16 && (k == OP_DIV || k == OP_REM));
    if (via32) return trunc_to(cg, d, cg_binary(cg, op, k, DT_F32, ext32(cg, a), ext32(cg, b)));
    switch (k) {
    case OP_ADD: return LLVMBuildFAdd(B, a, b, "");
    case OP_SUB: return LLVMBuildFSub(B, a, b, "");
    case OP_MUL: return LLVMBuildFMul(B, a, b, "");
    case OP_DIV:
      if (d == DT_F32) return fdiv32(cg, a, b, precise);
      return LLVMBuildFDiv(B, a, b, "");
    case OP_REM: return LLVMBuildFRem(B, a, b, "");
    case OP_MIN: return cg_max_min(cg, d, false, op && op->attr.propagate_nan, a, b);
    case OP_MAX: return cg_max_min(cg, d, true, op && op->attr.propagate_nan, a, b);
    default: break;
    }
    cg_error(cg, op, "'%s' on floats", ir_op_info[k].name);
    return LLVMGetUndef(cg_type(cg, d));
  }
  if (d == DT_PTR) {
    cg_error(cg, op, "'%s' on pointers", ir_op_info[k].name);
    return LLVMGetUndef(cg->t_gptr);
  }
  bool s = dt_is_signed(d);
  switch (k) {
  case OP_ADD: return cg_build_add(B, a, b, "");
  case OP_SUB: return cg_build_sub(B, a, b, "");
  case OP_MUL: return cg_build_mul(B, a, b, "");
  case OP_DIV: return s ? LLVMBuildSDiv(B, a, b, "") : LLVMBuildUDiv(B, a, b, "");
  case OP_REM: return s ? LLVMBuildSRem(B, a, b, "") : LLVMBuildURem(B, a, b, "");
  case OP_AND: return cg_build_and(B, a, b, "");
  case OP_OR: return cg_build_or(B, a, b, "");
  case OP_XOR: return cg_build_xor(B, a, b, "");
  case OP_SHL: return cg_build_shl(B, a, b, "");
  case OP_SHR: return s ? cg_build_ashr(B, a, b, "") : cg_build_lshr(B, a, b, "");
  case OP_MIN: return cg_max_min(cg, d, false, false, a, b);
  case OP_MAX: return cg_max_min(cg, d, true, false, a, b);
  case OP_UMULHI: {
    unsigned w = (unsigned)dt_bits(d);
    LLVMTypeRef wide = LLVMIntTypeInContext(cg->ctx, 2 * w);
    LLVMValueRef p = cg_build_mul(B, LLVMBuildZExt(B, a, wide, ""), LLVMBuildZExt(B, b, wide, ""), "");
    p = cg_build_lshr(B, p, cg_int(wide, w), "");
    return LLVMBuildTrunc(B, p, cg_type(cg, d), "");
  }
  default: break;
  }
  cg_error(cg, op, "'%s' on integers", ir_op_info[k].name);
  return LLVMGetUndef(cg_type(cg, d));
}

/* erf in fp32.  |x| < 1: the Taylor series 2/sqrt(pi) * sum (-1)^n x^(2n+1)
 * / (n! (2n+1)) to n = 10 (truncation < 1.5e-8); |x| >= 1: 1 - erfc(|x|)
 * with Numerical Recipes' erfcc fit (fractional error < 1.2e-7). */
static LLVMValueRef erf32(CgCtx *cg, LLVMValueRef x) {
  LLVMBuilderRef B = cg->b;
  static const double taylor[11] = {
      1.1283791670955126,     -0.37612638903183754,  0.11283791670955126,
      -0.026866170645131252,  0.0052239776254421878, -0.00085483270234508529,
      0.00012055332981789664, -1.4925650358406251e-05, 1.6462114365889247e-06,
      -1.6365844691234924e-07, 1.4807192815879218e-08};
  LLVMValueRef x2 = LLVMBuildFMul(B, x, x, "");
  LLVMValueRef p = f32c(cg, taylor[10]);
  for (int i = 9; i >= 0; i--) p = LLVMBuildFAdd(B, LLVMBuildFMul(B, p, x2, ""), f32c(cg, taylor[i]), "");
  LLVMValueRef small = LLVMBuildFMul(B, p, x, "");

  static const double nr[10] = {-1.26551223, 1.00002368, 0.37409196,  0.09678418, -0.18628806,
                                0.27886807,  -1.13520398, 1.48851587, -0.82215223, 0.17087277};
  LLVMValueRef z = intrin1(cg, "llvm.fabs", x, true);
  LLVMValueRef t = fdiv32(cg, f32c(cg, 1.0),
                          LLVMBuildFAdd(B, f32c(cg, 1.0), LLVMBuildFMul(B, z, f32c(cg, 0.5), ""), ""),
                          false);
  LLVMValueRef q = f32c(cg, nr[9]);
  for (int i = 8; i >= 0; i--) q = LLVMBuildFAdd(B, LLVMBuildFMul(B, q, t, ""), f32c(cg, nr[i]), "");
  LLVMValueRef e = LLVMBuildFSub(B, q, LLVMBuildFMul(B, z, z, ""), "");
  LLVMValueRef erfc = LLVMBuildFMul(B, t, ex2(cg, LLVMBuildFMul(B, e, f32c(cg, 1.4426950408889634), "")), "");
  LLVMValueRef big = intrin2(cg, "llvm.copysign", LLVMBuildFSub(B, f32c(cg, 1.0), erfc, ""), x);
  LLVMValueRef is_small = LLVMBuildFCmp(B, LLVMRealOLT, z, f32c(cg, 1.0), "");
  return LLVMBuildSelect(B, is_small, small, big, "");
}

/* Math functions in fp32. */
static LLVMValueRef math32(CgCtx *cg, const Op *op, OpKind k, LLVMValueRef x) {
  LLVMBuilderRef B = cg->b;
  const double log2e = 1.4426950408889634, ln2 = 0.6931471805599453;
  switch (k) {
  case OP_EXP: return ex2(cg, LLVMBuildFMul(B, x, f32c(cg, log2e), ""));
  case OP_EXP2: return ex2_ftz(cg, x);
  case OP_LOG:
    return LLVMBuildFMul(B, intrin1(cg, "llvm.nvvm.lg2.approx.f", x, false), f32c(cg, ln2), "");
  case OP_LOG2: return intrin1(cg, "llvm.nvvm.lg2.approx.f", x, false);
  case OP_SQRT:
    return op->attr.precise ? intrin1(cg, "llvm.sqrt", x, true)
                            : intrin1(cg, "llvm.nvvm.sqrt.approx.f", x, false);
  case OP_RSQRT: return intrin1(cg, "llvm.nvvm.rsqrt.approx.f", x, false);
  case OP_SIN: return intrin1(cg, "llvm.nvvm.sin.approx.f", x, false);
  case OP_COS: return intrin1(cg, "llvm.nvvm.cos.approx.f", x, false);
  case OP_FLOOR: return intrin1(cg, "llvm.floor", x, true);
  case OP_CEIL: return intrin1(cg, "llvm.ceil", x, true);
  case OP_ERF: return erf32(cg, x);
  case OP_SIGMOID: {
    LLVMValueRef e = ex2(cg, LLVMBuildFMul(B, x, f32c(cg, -log2e), ""));
    return fdiv32(cg, f32c(cg, 1.0), LLVMBuildFAdd(B, f32c(cg, 1.0), e, ""), false);
  }
  default: break;
  }
  cg_error(cg, op, "no fp32 lowering of '%s'", ir_op_info[k].name);
  return LLVMGetUndef(cg->t_f32);
}

static LLVMValueRef unary(CgCtx *cg, const Op *op, DType d, LLVMValueRef x) {
  LLVMBuilderRef B = cg->b;
  OpKind k = op->kind;
  if (k == OP_NOT) {
    if (dt_is_float(d) || d == DT_PTR) {
      cg_error(cg, op, "bitwise not of a non-integer");
      return x;
    }
    return LLVMBuildNot(B, x, "");
  }
  if (is_fp8(d) && (k == OP_NEG || k == OP_ABS)) /* the sign bit, on any target */
    return k == OP_NEG ? cg_build_xor(B, x, LLVMConstInt(cg->t_i8, 0x80, 0), "")
                       : cg_build_and(B, x, LLVMConstInt(cg->t_i8, 0x7f, 0), "");
  if (k == OP_NEG) {
    if (d == DT_PTR) {
      cg_error(cg, op, "negation of %s", dt_name(d));
      return x;
    }
    return dt_is_float(d) ? LLVMBuildFNeg(B, x, "") : LLVMBuildNeg(B, x, "");
  }
  if (k == OP_ABS) {
    if (dt_is_float(d) && !is_fp8(d)) {
      if (d == DT_BF16) return trunc_to(cg, d, intrin1(cg, "llvm.fabs", ext32(cg, x), true));
      return intrin1(cg, "llvm.fabs", x, true);
    }
    if (dt_is_signed(d)) {
      LLVMValueRef args[2] = {x, LLVMConstInt(cg->t_i1, 0, 0)};
      LLVMTypeRef t = LLVMTypeOf(x);
      return cg_intrin(cg, "llvm.abs", &t, 1, args, 2);
    }
    if (dt_is_int(d)) return x;
    cg_error(cg, op, "abs of %s", dt_name(d));
    return x;
  }
  /* math functions */
  if (!dt_is_float(d) || is_fp8(d)) {
    cg_error(cg, op, "'%s' needs a float operand, got %s", ir_op_info[k].name, dt_name(d));
    return x;
  }
  if (cg->opt->libdevice) { /* --math-lib=libdevice: libdevice's function where Triton calls it */
    LLVMValueRef r = cg_libdevice_op(cg, op, k, d == DT_F64 ? DT_F64 : DT_F32, is_half(d) ? ext32(cg, x) : x);
    if (r) return is_half(d) ? trunc_to(cg, d, r) : r;
  }
  if (d == DT_F64) {
    static const MathFn libm[OP__COUNT] = {[OP_EXP] = MF_EXP, [OP_EXP2] = MF_EXP2, [OP_LOG] = MF_LOG,
                                           [OP_LOG2] = MF_LOG2, [OP_SIN] = MF_SIN, [OP_COS] = MF_COS,
                                           [OP_ERF] = MF_ERF};
    switch (k) {
    case OP_SQRT: return intrin1(cg, "llvm.sqrt", x, true);
    case OP_RSQRT:
      return LLVMBuildFDiv(B, LLVMConstReal(cg->t_f64, 1.0), intrin1(cg, "llvm.sqrt", x, true), "");
    case OP_FLOOR: return intrin1(cg, "llvm.floor", x, true);
    case OP_CEIL: return intrin1(cg, "llvm.ceil", x, true);
    case OP_EXP: case OP_EXP2: case OP_LOG: case OP_LOG2: case OP_SIN: case OP_COS: case OP_ERF:
      return cg_math_float(cg, op, libm[k], DT_F64, &x); /* libclc, as Triton calls libdevice */
    case OP_SIGMOID: {
      LLVMValueRef e = cg_math_float(cg, op, MF_EXP, DT_F64, (LLVMValueRef[]){LLVMBuildFNeg(B, x, "")});
      return LLVMBuildFDiv(B, LLVMConstReal(cg->t_f64, 1.0), LLVMBuildFAdd(B, LLVMConstReal(cg->t_f64, 1.0), e, ""), "");
    }
    default:
      cg_error(cg, op, "no fp64 lowering of '%s'", ir_op_info[k].name);
      return x;
    }
  }
  if (is_half(d)) return trunc_to(cg, d, math32(cg, op, k, ext32(cg, x)));
  return math32(cg, op, k, x);
}

/* ---- casts ------------------------------------------------------------------ */

/* fp8 -> fp16 through the sm_89+ cvt instructions; e5m2 -> f16 is a shift
 * on every target (e5m2 is the top byte of an fp16), and before sm_89
 * e4m3 -> f16 places the 7 magnitude bits below the fp16 sign so that
 * exponent and mantissa line up (e4m3's bias is 8 less than fp16's, its
 * subnormals become fp16 normals) and multiplies by 2^8, exact; S.1111.111
 * is NaN. */
static LLVMValueRef fp8_to_f16(CgCtx *cg, const Op *op, DType from, LLVMValueRef v) {
  LLVMBuilderRef B = cg->b;
  LLVMValueRef w = LLVMBuildZExt(B, v, cg->t_i16, "");
  if (from == DT_F8E5M2) {
    w = cg_build_shl(B, w, LLVMConstInt(cg->t_i16, 8, 0), "");
    return LLVMBuildBitCast(B, w, cg->t_f16, "");
  }
  if (cg->capability < 89) {
    LLVMValueRef mag = cg_build_and(B, w, LLVMConstInt(cg->t_i16, 0x7f, 0), "");
    LLVMValueRef sign = cg_build_shl(B, cg_build_and(B, w, LLVMConstInt(cg->t_i16, 0x80, 0), ""),
                                     LLVMConstInt(cg->t_i16, 8, 0), "");
    LLVMValueRef bits = cg_build_or(B, sign, cg_build_shl(B, mag, LLVMConstInt(cg->t_i16, 7, 0), ""), "");
    LLVMValueRef h = LLVMBuildFMul(B, LLVMBuildBitCast(B, bits, cg->t_f16, ""), LLVMConstReal(cg->t_f16, 256.0), "");
    LLVMValueRef nan = LLVMBuildICmp(B, LLVMIntEQ, mag, LLVMConstInt(cg->t_i16, 0x7f, 0), "");
    return LLVMBuildSelect(B, nan, LLVMConstReal(cg->t_f16, NAN), h, "");
  }
  LLVMValueRef r = cg_asm(cg, cg->t_i32, "cvt.rn.f16x2.e4m3x2 $0, $1;", "=r,h", &w, 1, false);
  r = LLVMBuildTrunc(B, r, cg->t_i16, "");
  return LLVMBuildBitCast(B, r, cg->t_f16, "");
}

static LLVMValueRef f32_to_fp8(CgCtx *cg, const Op *op, DType to, LLVMValueRef v) {
  if (cg->capability < 89) { /* the specializer refuses these with the kernel's location */
    cg_error(cg, op, "conversion to fp8 needs sm_89 or newer");
    return LLVMGetUndef(cg->t_i8);
  }
  LLVMValueRef args[2] = {f32c(cg, 0.0), v};
  const char *text = to == DT_F8E4M3 ? "cvt.rn.satfinite.e4m3x2.f32 $0, $1, $2;"
                                     : "cvt.rn.satfinite.e5m2x2.f32 $0, $1, $2;";
  LLVMValueRef r = cg_asm(cg, cg->t_i16, text, "=h,f,f", args, 2, false);
  return LLVMBuildTrunc(cg->b, r, cg->t_i8, "");
}

/* A float narrowing that rounds toward zero (fp_downcast_rounding="rtz"):
 * cvt.rz through f32.  Truncating twice truncates once (no ties, and an
 * overflow of either step gives the largest finite value), so f64 -> f16 or
 * bf16 by way of f32 is exact. */
static LLVMValueRef narrow_rtz(CgCtx *cg, LLVMValueRef v, DType from, DType to) {
  if (from == DT_F64) v = cg_asm(cg, cg->t_f32, "cvt.rz.f32.f64 $0, $1;", "=f,d", &v, 1, false);
  else if (from != DT_F32) v = ext32(cg, v);
  if (to == DT_F32) return v;
  LLVMValueRef h = cg_asm(cg, cg->t_i16, to == DT_F16 ? "cvt.rz.f16.f32 $0, $1;" : "cvt.rz.bf16.f32 $0, $1;",
                          "=h,f", &v, 1, false);
  return LLVMBuildBitCast(cg->b, h, cg_type(cg, to), "");
}

LLVMValueRef cg_cast_scalar(CgCtx *cg, const Op *op, LLVMValueRef v, DType from, DType to) {
  LLVMBuilderRef B = cg->b;
  LLVMTypeRef tt = cg_type(cg, to);
  if (from == to) return v;
  if (is_fp8(from)) {
    if (is_fp8(to)) return cg_cast_scalar(cg, op, cg_cast_scalar(cg, op, v, from, DT_F32), DT_F32, to);
    return cg_cast_scalar(cg, op, fp8_to_f16(cg, op, from, v), DT_F16, to);
  }
  if (is_fp8(to)) return f32_to_fp8(cg, op, to, cg_cast_scalar(cg, op, v, from, DT_F32));
  if (from == DT_PTR) {
    if (to == DT_PTR) return v;
    v = LLVMBuildPtrToInt(B, v, cg->t_i64, "");
    return cg_cast_scalar(cg, op, v, DT_U64, to);
  }
  if (to == DT_PTR) {
    if (dt_is_float(from)) {
      cg_error(cg, op, "cast of a float to a pointer");
      return LLVMGetUndef(tt);
    }
    v = cg_cast_scalar(cg, op, v, from, dt_is_signed(from) ? DT_I64 : DT_U64);
    return LLVMBuildIntToPtr(B, v, tt, "");
  }
  if (to == DT_I1) {
    if (dt_is_float(from))
      return LLVMBuildFCmp(B, LLVMRealUNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
    return LLVMBuildICmp(B, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
  }
  if (dt_is_int(from) && dt_is_int(to)) {
    int fb = dt_bits(from), tb = dt_bits(to);
    if (tb > fb) return dt_is_signed(from) ? LLVMBuildSExt(B, v, tt, "") : LLVMBuildZExt(B, v, tt, "");
    if (tb < fb) return LLVMBuildTrunc(B, v, tt, "");
    return v;
  }
  if (dt_is_int(from))
    return dt_is_signed(from) ? LLVMBuildSIToFP(B, v, tt, "") : LLVMBuildUIToFP(B, v, tt, "");
  if (dt_is_int(to))
    return dt_is_signed(to) ? LLVMBuildFPToSI(B, v, tt, "") : LLVMBuildFPToUI(B, v, tt, "");
  /* float -> float */
  if (op && op->kind == OP_CAST && op->attr.rounding == ROUND_RTZ && dt_bits(to) < dt_bits(from))
    return narrow_rtz(cg, v, from, to);
  if (is_half(from) && is_half(to)) return LLVMBuildFPTrunc(B, ext32(cg, v), tt, "");
  return dt_bits(to) > dt_bits(from) ? LLVMBuildFPExt(B, v, tt, "") : LLVMBuildFPTrunc(B, v, tt, "");
}

static LLVMValueRef bitcast(CgCtx *cg, const Op *op, LLVMValueRef v, DType from, DType to) {
  if (cg_dt_bytes(from) != cg_dt_bytes(to) && !(from == DT_I1 && to == DT_I1)) {
    cg_error(cg, op, "bitcast between %s and %s", dt_name(from), dt_name(to));
    return LLVMGetUndef(cg_type(cg, to));
  }
  if (LLVMTypeOf(v) == cg_type(cg, to)) return v;
  return cg_from_bits(cg, to, cg_to_bits(cg, from, v));
}

/* ---- the element loop ------------------------------------------------------- */

static LLVMValueRef cmp(CgCtx *cg, const Op *op, DType d, LLVMValueRef a, LLVMValueRef b) {
  static const LLVMRealPredicate fp[] = {
      [CMP_EQ] = LLVMRealOEQ, [CMP_NE] = LLVMRealUNE, [CMP_LT] = LLVMRealOLT,
      [CMP_LE] = LLVMRealOLE, [CMP_GT] = LLVMRealOGT, [CMP_GE] = LLVMRealOGE};
  static const LLVMIntPredicate sp[] = {
      [CMP_EQ] = LLVMIntEQ,  [CMP_NE] = LLVMIntNE,  [CMP_LT] = LLVMIntSLT,
      [CMP_LE] = LLVMIntSLE, [CMP_GT] = LLVMIntSGT, [CMP_GE] = LLVMIntSGE};
  static const LLVMIntPredicate up[] = {
      [CMP_EQ] = LLVMIntEQ,  [CMP_NE] = LLVMIntNE,  [CMP_LT] = LLVMIntULT,
      [CMP_LE] = LLVMIntULE, [CMP_GT] = LLVMIntUGT, [CMP_GE] = LLVMIntUGE};
  CmpPred p = op->attr.pred;
  if (is_fp8(d)) /* widening is exact and needs no sm_89 instruction */
    a = cg_cast_scalar(cg, op, a, d, DT_F32), b = cg_cast_scalar(cg, op, b, d, DT_F32), d = DT_F32;
  if (dt_is_float(d)) {
    if (d == DT_BF16) a = ext32(cg, a), b = ext32(cg, b);
    return LLVMBuildFCmp(cg->b, fp[p], a, b, "");
  }
  return LLVMBuildICmp(cg->b, dt_is_signed(d) ? sp[p] : up[p], a, b, "");
}

static LLVMValueRef lower_elem(CgCtx *cg, Op *op, CgVal **x, int i) {
  DType rd = op->results[0]->type->dtype;
  DType d0 = op->operands[0]->type->dtype;
  LLVMValueRef a = cg_el(x[0], i);
  switch (op->kind) {
  case OP_CMP: return cmp(cg, op, d0, a, cg_el(x[1], i));
  case OP_SELECT: return LLVMBuildSelect(cg->b, a, cg_el(x[1], i), cg_el(x[2], i), "");
  case OP_CAST: return cg_cast_scalar(cg, op, a, d0, rd);
  case OP_BITCAST: return bitcast(cg, op, a, d0, rd);
  case OP_FMA: {
    LLVMValueRef b = cg_el(x[1], i), c = cg_el(x[2], i);
    if (!dt_is_float(rd)) return cg_build_add(cg->b, cg_build_mul(cg->b, a, b, ""), c, "");
    LLVMValueRef args[3] = {a, b, c};
    if (is_fp8(rd)) { /* in fp32, rounded back once (sm_89) */
      for (int k = 0; k < 3; k++) args[k] = cg_cast_scalar(cg, op, args[k], rd, DT_F32);
      LLVMTypeRef t = cg->t_f32;
      return cg_cast_scalar(cg, op, cg_intrin(cg, "llvm.fma", &t, 1, args, 3), DT_F32, rd);
    }
    if (rd == DT_BF16) {
      for (int k = 0; k < 3; k++) args[k] = ext32(cg, args[k]);
      LLVMTypeRef t = cg->t_f32;
      return trunc_to(cg, rd, cg_intrin(cg, "llvm.fma", &t, 1, args, 3));
    }
    LLVMTypeRef t = LLVMTypeOf(a);
    return cg_intrin(cg, "llvm.fma", &t, 1, args, 3);
  }
  case OP_MATHFN: {
    LLVMValueRef args[3];
    for (int k = 0; k < op->noperands && k < 3; k++) args[k] = cg_el(x[k], i);
    return cg_mathfn(cg, op, args);
  }
  case OP_CLAMP: {
    bool pn = op->attr.propagate_nan;
    LLVMValueRef lo = cg_el(x[1], i), hi = cg_el(x[2], i);
    if (is_fp8(rd)) { /* exact in fp32, rounded back (sm_89) */
      LLVMValueRef r = cg_max_min(cg, DT_F32, true, pn, cg_cast_scalar(cg, op, a, rd, DT_F32),
                                  cg_cast_scalar(cg, op, lo, rd, DT_F32));
      r = cg_max_min(cg, DT_F32, false, pn, r, cg_cast_scalar(cg, op, hi, rd, DT_F32));
      return cg_cast_scalar(cg, op, r, DT_F32, rd);
    }
    return cg_max_min(cg, rd, false, pn, cg_max_min(cg, rd, true, pn, a, lo), hi);
  }
  default: break;
  }
  if (op->noperands == 2) return cg_binary(cg, op, op->kind, rd, a, cg_el(x[1], i));
  if (op->noperands == 1) return unary(cg, op, rd, a);
  cg_error(cg, op, "cannot lower '%s' on %s", ir_op_info[op->kind].name, dt_name(rd));
  return LLVMGetUndef(cg_type(cg, rd));
}

/* fp32 -> fp16 / bf16, round to nearest even, two elements at a time: one
 * cvt.rn.f16x2.f32 (sm_80) where two cvt.rn.f16.f32 and a pack would be;
 * the pair lands in one 32-bit register, element i in the low half, as the
 * consumers that pack (an mma A fragment, a vector store) want it.  Same
 * values as the scalar conversion. */
static bool packed_narrowing(CgCtx *cg, const Op *op, int n, const CgVal *x) {
  DType from = op->operands[0]->type->dtype, to = op->results[0]->type->dtype;
  return op->kind == OP_CAST && from == DT_F32 && (to == DT_F16 || to == DT_BF16) &&
         op->attr.rounding != ROUND_RTZ && cg->capability >= 80 && n % 2 == 0 && x->n == n;
}

static void narrow_pairs(CgCtx *cg, const Op *op, const CgVal *x, int n, LLVMValueRef *e) {
  const char *name = op->results[0]->type->dtype == DT_F16 ? "llvm.nvvm.ff2f16x2.rn" : "llvm.nvvm.ff2bf16x2.rn";
  for (int i = 0; i < n; i += 2) {
    LLVMValueRef args[2] = {cg_el(x, i + 1), cg_el(x, i)}; /* (high, low) */
    LLVMValueRef v = cg_intrin(cg, name, NULL, 0, args, 2);
    e[i] = LLVMBuildExtractElement(cg->b, v, cg_i32(cg, 0), "");
    e[i + 1] = LLVMBuildExtractElement(cg->b, v, cg_i32(cg, 1), "");
  }
}

void cg_lower_arith(CgCtx *cg, Op *op) {
  int n = cg_nelems(cg, op->results[0]->type);
  CgVal *x[3] = {NULL, NULL, NULL};
  for (int k = 0; k < op->noperands && k < 3; k++) {
    x[k] = cg_get(cg, op, op->operands[k]);
    if (x[k]->n != 1 && x[k]->n != n) {
      cg_error(cg, op, "operand %d has %d elements per thread, the result %d", k, x[k]->n, n);
      cg_set_undef(cg, op->results[0]);
      return;
    }
  }
  LLVMValueRef *e = ARENA_ARRAY(&cg->arena, LLVMValueRef, n);
  if (packed_narrowing(cg, op, n, x[0])) {
    narrow_pairs(cg, op, x[0], n, e);
    cg_set(cg, op->results[0], e, n);
    return;
  }
  bool all_scalar = true;
  for (int k = 0; k < op->noperands && k < 3; k++) all_scalar &= x[k]->n == 1;
  for (int i = 0; i < n; i++) {
    /* Scalar operands: compute once and share. */
    if (all_scalar && i > 0) {
      e[i] = e[0];
      continue;
    }
    e[i] = lower_elem(cg, op, x, i);
  }
  cg_set(cg, op->results[0], e, n);
}
