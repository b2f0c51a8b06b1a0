/* builtins_math.c — the math library as kernels name it: Triton's libdevice
 * (`tl.extra.cuda.libdevice.tanh`, `from triton.language.extra import
 * libdevice`, `from triton.language.extra.libdevice import tanh`) and the
 * same names under `tl.math` (older Triton's spelling, which tl.math's own
 * builtins shadow: tl.math.exp stays the fast tl.exp).
 *
 * A name resolves to a math-function value (SV_MATHFN) of one of three
 * sorts: a function of ir/mathfns.def, called as one MATHFN op with Triton's
 * typing (libdevice's dispatch on the argument types: floats of one type
 * after promotion, pow with an integer exponent as powi, fp16/bf16 computed
 * in fp32); a reinterpretation of the bits (float_as_int and its kin); or a
 * libdevice name tlc does not have yet, which reports so where it is
 * called.  The libdevice names that are ordinary builtins (abs, sqrt, fma,
 * floor, ceil, rsqrt, div_rn, sqrt_rn) resolve to those builtins, but for
 * sqrt, sqrt_rn, div_rn and fma under --math-lib=libdevice: there they are
 * libdevice's functions, MATHFN ops (Triton calls __nv_sqrtf, an
 * approximation, for libdevice.sqrt, and __nv_fsqrt_rn, which flushes
 * subnormals, for libdevice.sqrt_rn, where tl.sqrt_rn is plain sqrt.rn). */
#include "spec/builtins.h"

#include <string.h>

enum { MATH_FN, MATH_BITCAST, MATH_UNSUPPORTED }; /* SVal.i of an SV_MATHFN */

/* libdevice names that are the ordinary builtins: libdevice's sqrt is IEEE
 * (tl.sqrt is not), its rsqrt the same approximation as tl.rsqrt. */
static const struct {
  const char *name, *builtin;
} aliases[] = {
    {"abs", "abs"},     {"sqrt", "sqrt_rn"},      {"sqrt_rn", "sqrt_rn"}, {"rsqrt", "rsqrt"},
    {"fma", "fma"},     {"floor", "floor"},       {"ceil", "ceil"},       {"div_rn", "div_rn"},
};

/* Bit reinterpretations: the operand's type and the result's. */
static const struct {
  const char *name;
  DType from, to;
} bitcasts[] = {
    {"float_as_int", DT_F32, DT_I32},        {"int_as_float", DT_I32, DT_F32},
    {"float_as_uint", DT_F32, DT_I32},       {"uint_as_float", DT_U32, DT_F32},
    {"double_as_longlong", DT_F64, DT_I64},  {"longlong_as_double", DT_I64, DT_F64},
};

/* Names of Triton's libdevice that tlc does not provide yet. */
static const char *const unsupported[] = {
    "j0", "j1", "y0", "y1", "jn", "yn", "cyl_bessel_i0", "cyl_bessel_i1", "erfcx", "rcp64h",
    "norm3d", "norm4d", "rnorm3d", "rnorm4d", "rsqrt_rn", "hiloint2double", NULL};

static bool is_libdevice(const char *mod) {
  return !strcmp(mod, "triton.language.extra.cuda.libdevice") || !strcmp(mod, "triton.language.extra.libdevice");
}

static SVal *mathfn_val(Spec *s, int sort, int index, const char *mod, const char *name) {
  SVal *v = sv_new(s, SV_MATHFN);
  v->i = sort;
  v->builtin = index;
  v->s = arena_printf(s->arena, "%s.%s", is_libdevice(mod) ? "libdevice" : "tl.math", name);
  return v;
}

/* A libdevice name that, with libdevice linked, is its own function (a
 * MATHFN row), not the builtin of the same meaning. */
static bool own_under_libdevice(const char *name) {
  return !strcmp(name, "sqrt") || !strcmp(name, "sqrt_rn") || !strcmp(name, "div_rn") || !strcmp(name, "fma");
}

SVal *spec_math_attr(Spec *s, const char *mod, const char *name) {
  if (is_libdevice(mod) && !(s->req->libdevice && own_under_libdevice(name))) {
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
      if (!strcmp(aliases[i].name, name)) return spec_builtin_val(s, aliases[i].builtin);
  }
  int fn = ir_mathfn_lookup(name);
  if (fn >= 0 && fn != MF_POWI) return mathfn_val(s, MATH_FN, fn, mod, name);
  for (size_t i = 0; i < sizeof bitcasts / sizeof bitcasts[0]; i++)
    if (!strcmp(bitcasts[i].name, name)) return mathfn_val(s, MATH_BITCAST, (int)i, mod, name);
  for (int i = 0; unsupported[i]; i++)
    if (!strcmp(unsupported[i], name)) return mathfn_val(s, MATH_UNSUPPORTED, i, mod, name);
  return NULL;
}

void spec_math_names(void (*consider)(void *ctx, const char *name), void *ctx) {
  for (int i = 0; i < MF__COUNT; i++)
    if (i != MF_POWI) consider(ctx, ir_mathfn_info[i].name);
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) consider(ctx, aliases[i].name);
  for (size_t i = 0; i < sizeof bitcasts / sizeof bitcasts[0]; i++) consider(ctx, bitcasts[i].name);
}

/* ---- calls ---------------------------------------------------------------------------------- */

static bool is_fp32_only(MathFn fn) { return !strncmp(ir_mathfn_info[fn].name, "fast_", 5) || fn == MF_SATURATE; }

/* The operands as IR values of one type (Triton's promotion) and one shape. */
static bool unify(Spec *s, SVal **args, int n, CallArgs *a, const char *name, Value **out) {
  if (n == 1) {
    out[0] = bi_need_tensor(s, args[0], bi_argloc(a, 0), "the operand");
    return out[0] != NULL;
  }
  Value *x, *y;
  if (!spec_arith_operands(s, args[0], args[1], false, a->loc, name, &x, &y)) return false;
  if (n == 3) {
    Value *z;
    if (!spec_arith_operands(s, sv_tensor(s, x), args[2], false, a->loc, name, &x, &z) ||
        !spec_arith_operands(s, sv_tensor(s, y), sv_tensor(s, z), false, a->loc, name, &y, &z) ||
        !spec_broadcast_pair(s, &x, &z, a->loc, name) || !spec_broadcast_pair(s, &y, &z, a->loc, name))
      return false;
    out[2] = z;
  }
  if (!spec_broadcast_pair(s, &x, &y, a->loc, name)) return false;
  out[0] = x, out[1] = y;
  return true;
}

static SVal *call_bitcast(Spec *s, SVal *fn, CallArgs *a) {
  DType from = bitcasts[fn->builtin].from, to = bitcasts[fn->builtin].to;
  Value *x = bi_need_tensor(s, a->pos[0], a->poslocs[0], "the operand");
  if (!x) return s->poison;
  DType d = x->type->dtype;
  bool ok = d == from || (dt_is_int(from) && dt_is_int(d) && dt_bits(d) == dt_bits(from) && d != DT_I1);
  if (!ok) {
    spec_error(s, a->poslocs[0], "%s() takes %s, not %s", fn->s, dt_name(from), dt_name(d));
    return s->poison;
  }
  Value *r = spec_bitcast(s, x, ty_scalar(bi_ctx(s), to), a->loc);
  return r ? sv_tensor(s, r) : s->poison;
}

/* float2int_rn and its kin: the operand as the conversion's source type (a
 * narrower float widens exactly; an integer of the same width is taken as
 * is, whatever its signedness). */
static SVal *call_cvt(Spec *s, SVal *fn, MathFn f, CallArgs *a) {
  IrContext *c = bi_ctx(s);
  DType from, computed, result;
  const char *nv;
  int rm;
  ir_mathfn_cvt(f, &from, &computed, &result, &nv, &rm);
  Value *x = bi_need_tensor(s, a->pos[0], a->poslocs[0], "the operand");
  if (!x) return s->poison;
  DType d = x->type->dtype;
  bool ok = dt_is_float(from) ? dt_is_float(d) && d != DT_F8E4M3 && d != DT_F8E5M2 && dt_bits(d) <= dt_bits(from)
                              : dt_is_int(d) && d != DT_I1 && dt_bits(d) == dt_bits(from);
  if (!ok) {
    spec_error(s, a->poslocs[0], "%s() converts %s, not %s", fn->s, dt_name(from), dt_name(d));
    return s->poison;
  }
  x = dt_is_float(from) ? spec_cast(s, x, ty_scalar(c, from), a->loc) : spec_bitcast(s, x, ty_scalar(c, from), a->loc);
  if (!x) return s->poison;
  spec_at(s, a->loc);
  Op *op = irb_op(&s->b, OP_MATHFN, &x, 1, ty_with_elem(c, x->type, ty_scalar(c, result)));
  op->attr.fn = f;
  return sv_tensor(s, op->results[0]);
}

SVal *spec_call_mathfn(Spec *s, SVal *fn, CallArgs *a) {
  if (fn->i == MATH_UNSUPPORTED) {
    spec_error(s, a->loc, "'%s' is not supported by tlc yet", fn->s);
    return s->poison;
  }
  if (a->nkw) {
    spec_error(s, a->kwlocs[0], "%s() takes positional arguments only", fn->s);
    return s->poison;
  }
  for (int i = 0; i < a->npos; i++)
    if (is_poison(a->pos[i])) return s->poison;
  int nargs = fn->i == MATH_BITCAST ? 1 : ir_mathfn_info[fn->builtin].nargs;
  if (a->npos != nargs) {
    spec_error(s, a->loc, "%s() takes %d argument%s (%d given)", fn->s, nargs, nargs == 1 ? "" : "s", a->npos);
    return s->poison;
  }
  if (fn->i == MATH_BITCAST) return call_bitcast(s, fn, a);

  MathFn f = (MathFn)fn->builtin;
  const MathFnInfo *mi = &ir_mathfn_info[f];
  IrContext *c = bi_ctx(s);
  if (mi->kind == MK_CVT) return call_cvt(s, fn, f, a);
  Value *ops[3] = {NULL, NULL, NULL};
  SVal **args = a->pos;
  /* pow with an integer exponent is libdevice's powi */
  if (f == MF_POW) {
    SVal *e = args[1];
    if (e->kind == SV_INT || (e->kind == SV_TENSOR && dt_is_int(e->v->type->dtype) && e->v->type->dtype != DT_I1))
      f = MF_POWI, mi = &ir_mathfn_info[f];
  }
  if (mi->kind == MK_FLOAT_INT) {
    Value *x = bi_need_tensor(s, args[0], a->poslocs[0], "the operand");
    if (!x) return s->poison;
    Value *n = bi_need_tensor(s, args[1], a->poslocs[1], "the exponent");
    if (!n) return s->poison;
    if (!dt_is_int(n->type->dtype) || n->type->dtype == DT_I1) {
      spec_error(s, a->poslocs[1], "%s() needs an integer exponent, not %s", fn->s, dt_name(n->type->dtype));
      return s->poison;
    }
    n = spec_cast(s, n, ty_scalar(c, DT_I32), a->loc);
    if (!spec_broadcast_pair(s, &x, &n, a->loc, fn->s)) return s->poison;
    ops[0] = x, ops[1] = n;
  } else if (!unify(s, args, nargs, a, fn->s, ops)) {
    return s->poison;
  }
  DType d = ops[0]->type->dtype;
  bool want_float = mi->kind != MK_INT && mi->kind != MK_INT_TO_I32;
  if (want_float && (!dt_is_float(d) || d == DT_F8E4M3 || d == DT_F8E5M2)) {
    spec_error(s, a->loc, "%s() needs floating-point operands, not %s (cast with .to(tl.float32))", fn->s, dt_name(d));
    return s->poison;
  }
  if ((f == MF_DOUBLE2LOINT || f == MF_DOUBLE2HIINT) && d != DT_F64) {
    spec_error(s, a->loc, "%s() takes f64, not %s", fn->s, dt_name(d));
    return s->poison;
  }
  if (want_float && d == DT_F64 && is_fp32_only(f)) {
    spec_error(s, a->loc, "%s() is an fp32 function; it does not take fp64", fn->s);
    return s->poison;
  }
  if (!want_float) {
    bool only32 = f == MF_MUL24 || f == MF_SAD || f == MF_BYTE_PERM || f == MF_HADD || f == MF_RHADD;
    if (!dt_is_int(d) || d == DT_I1 || (dt_bits(d) != 32 && (only32 || dt_bits(d) != 64))) {
      spec_error(s, a->loc, "%s() needs %s integer operands, not %s", fn->s, only32 ? "32-bit" : "32- or 64-bit",
                 dt_name(d));
      return s->poison;
    }
  }
  DType rd = d;
  switch (mi->kind) {
  case MK_TEST: rd = DT_I1; break;
  case MK_TO_I32: case MK_INT_TO_I32: rd = DT_I32; break;
  case MK_TO_I64: rd = DT_I64; break;
  default: break;
  }
  const Type *rt = ty_with_elem(c, ops[0]->type, ty_scalar(c, rd));
  spec_at(s, a->loc);
  Op *op = irb_op(&s->b, OP_MATHFN, ops, nargs, rt);
  op->attr.fn = f;
  return sv_tensor(s, op->results[0]);
}
