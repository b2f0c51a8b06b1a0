/* triton_names.c — the names of the real Triton language (triton,
 * triton.language, tl.math, libdevice, the methods of tl.tensor), so that a
 * name tlc does not have yet is reported as "not supported by tlc yet"
 * rather than as a typo with a far-fetched "did you mean".
 *
 * Owns only the lists (facts about Triton's public API as of Triton 3.x,
 * plus the libdevice functions that Triton 2.x also exposed as tl.math.*),
 * not what tlc implements: a name here that tlc has resolves normally and
 * is never looked up.  Keep each list sorted. */
#include "spec/spec_internal.h"

#include <string.h>

/* triton.language (and tl.core): functions, dtypes, classes and modules */
static const char *const language_names[] = {
    "PropagateNan", "TRITON_MAX_TENSOR_NUMEL", "abs", "add", "advance", "arange", "argmax", "argmin",
    "associative_scan", "assume", "async_task", "atomic_add", "atomic_and", "atomic_cas", "atomic_max",
    "atomic_min", "atomic_or", "atomic_xchg", "atomic_xor", "bfloat16", "bitonic_merge", "block_type",
    "broadcast", "broadcast_to", "cast", "cat", "cdiv", "ceil", "clamp", "condition", "const", "constexpr",
    "constexpr_type", "core", "cos", "cumprod", "cumsum", "debug_barrier", "device_assert", "device_print",
    "div_rn", "dot", "dot_scaled", "dtype", "erf", "exp", "exp2", "expand_dims", "extra", "fdiv", "flip",
    "float16", "float32", "float64", "float8e4b15", "float8e4b8", "float8e4nv", "float8e5", "float8e5b16",
    "floor", "fma", "full", "full_like", "gather", "histogram", "inline_asm_elementwise", "int1", "int16",
    "int32", "int64", "int8", "interleave", "join", "load", "load_tensor_descriptor", "log", "log2",
    "make_block_ptr", "make_tensor_descriptor", "map_elementwise", "math", "max", "max_constancy",
    "max_contiguous", "maximum", "min", "minimum", "multiple_of", "num_programs", "pair_uniform_to_normal",
    "permute", "philox", "philox_impl", "pi32_t", "pointer_type", "program_id", "rand", "rand4x", "randint",
    "randint4x", "randn", "randn4x", "random", "range", "ravel", "reduce", "reduce_or", "reshape", "rsqrt",
    "sigmoid", "sin", "slice", "softmax", "sort", "split", "sqrt", "sqrt_rn", "standard", "static_assert",
    "static_print", "static_range", "store", "store_tensor_descriptor", "str_to_ty", "sub", "sum",
    "swizzle2d", "target_info", "tensor", "tensor_descriptor", "topk", "trans", "tuple", "tuple_type",
    "uint16", "uint32", "uint64", "uint8", "uint_to_uniform_float", "umulhi", "view", "void", "where",
    "xor_sum", "zeros", "zeros_like", NULL};

/* the functions of CUDA's libdevice that Triton wraps
 * (triton.language.extra.cuda.libdevice; tl.math in Triton 2.x); the
 * conversions (double2float_rn, float2int_rz, ...) are matched by shape */
static const char *const libdevice_names[] = {
    "abs", "acos", "acosh", "add_rd", "add_rn", "add_ru", "add_rz", "asin", "asinh", "atan", "atan2",
    "atanh", "brev", "byte_perm", "cbrt", "ceil", "clz", "copysign", "cos", "cosh", "cospi",
    "cyl_bessel_i0", "cyl_bessel_i1", "div_rd", "div_rn", "div_ru", "div_rz", "double2hiint",
    "double2loint", "double_as_longlong", "erf", "erfc", "erfcinv", "erfcx", "erfinv", "exp", "exp10",
    "exp2", "expm1", "fast_cosf", "fast_dividef", "fast_exp10f", "fast_expf", "fast_log10f", "fast_log2f",
    "fast_logf", "fast_powf", "fast_sinf", "fast_tanf", "fdim", "ffs", "finitef", "float_as_int",
    "float_as_uint", "floor", "fma", "fma_rd", "fma_rn", "fma_ru", "fma_rz", "fmax", "fmin", "fmod",
    "frexp", "hadd", "hiloint2double", "hypot", "ilogb", "int_as_float", "isfinited", "isinf", "isnan",
    "j0", "j1", "jn", "ldexp", "lgamma", "llrint", "llround", "log", "log10", "log1p", "log2", "logb",
    "longlong_as_double", "max", "min", "modf", "mul24", "mul64hi", "mul_rd", "mul_rn", "mul_ru", "mul_rz",
    "mulhi", "nearbyint", "nextafter", "norm3d", "norm4d", "normcdf", "normcdfinv", "popc", "pow",
    "rcbrt", "rcp64h", "rcp_rd", "rcp_rn", "rcp_ru", "rcp_rz", "remainder", "rhadd", "rhypot", "rint",
    "rnorm3d", "rnorm4d", "round", "rsqrt", "rsqrt_rn", "sad", "saturatef", "scalbn", "signbit", "sin",
    "sinh", "sinpi", "sqrt", "sqrt_rd", "sqrt_rn", "sqrt_ru", "sqrt_rz", "sub_rd", "sub_rn", "sub_ru",
    "sub_rz", "tan", "tanh", "tgamma", "trunc", "uint_as_float", "ulonglong2double_rn", "y0", "y1", "yn",
    NULL};

/* tl.math of Triton 3.x (the rest of Triton 2.x's tl.math is libdevice) */
static const char *const math_names[] = {
    "abs", "ceil", "cos", "div_rn", "erf", "exp", "exp2", "fdiv", "floor", "fma", "log", "log2", "rsqrt",
    "sin", "sqrt", "sqrt_rn", "umulhi", NULL};

/* the top-level triton package */
static const char *const triton_names[] = {
    "CompilationError", "Config", "InterpreterError", "JITFunction", "KernelInterface", "MockTensor",
    "OutOfResources", "TensorWrapper", "autotune", "backends", "cdiv", "compiler", "constexpr_function",
    "errors", "experimental", "heuristics", "jit", "knobs", "language", "must_use_result",
    "next_power_of_2", "reinterpret", "runtime", "set_allocator", "testing", "tools", NULL};

/* methods and properties of tl.tensor */
static const char *const tensor_names[] = {
    "T", "abs", "advance", "argmax", "argmin", "associative_scan", "atomic_add", "atomic_and",
    "atomic_cas", "atomic_max", "atomic_min", "atomic_or", "atomic_xchg", "atomic_xor", "broadcast_to",
    "cast", "cdiv", "ceil", "cos", "cumprod", "cumsum", "div_rn", "dtype", "erf", "exp", "exp2",
    "expand_dims", "flip", "floor", "gather", "histogram", "item", "log", "log2", "logical_and",
    "logical_or", "max", "min", "numel", "permute", "rand", "randint", "randint4x", "randn", "ravel",
    "reduce", "reshape", "rsqrt", "shape", "sigmoid", "sin", "softmax", "sort", "split", "sqrt", "sqrt_rn",
    "store", "sum", "to", "trans", "type", "view", "xor_sum", NULL};

static bool in_list(const char *const *list, const char *name) {
  for (int i = 0; list[i]; i++)
    if (!strcmp(list[i], name)) return true;
  return false;
}

/* libdevice's type conversions: double2float_rn, float2ll_rz, int2double_rn,
 * ull2float_ru, ... (from and to a scalar type, with a rounding mode) */
static bool libdevice_conversion(const char *name) {
  static const char *const types[] = {"double", "float", "int", "uint", "ll", "ull", NULL};
  static const char *const modes[] = {"_rn", "_rz", "_rd", "_ru", NULL};
  const char *two = strchr(name, '2');
  if (!two || strlen(two) < 4) return false;
  bool from = false, to = false, mode = false;
  for (int i = 0; types[i]; i++) from |= strlen(types[i]) == (size_t)(two - name) && !strncmp(name, types[i], strlen(types[i]));
  const char *rest = two + 1, *us = strrchr(rest, '_');
  if (!us) return false;
  for (int i = 0; types[i]; i++) to |= strlen(types[i]) == (size_t)(us - rest) && !strncmp(rest, types[i], strlen(types[i]));
  for (int i = 0; modes[i]; i++) mode |= !strcmp(us, modes[i]);
  return from && to && mode;
}

bool spec_triton_name(TritonNames ns, const char *name) {
  switch (ns) {
  case TN_LANGUAGE: return in_list(language_names, name);
  case TN_MATH: return in_list(math_names, name) || in_list(libdevice_names, name) || libdevice_conversion(name);
  case TN_LIBDEVICE: return in_list(libdevice_names, name) || libdevice_conversion(name);
  case TN_TRITON: return in_list(triton_names, name);
  case TN_TENSOR: return in_list(tensor_names, name);
  }
  return false;
}
