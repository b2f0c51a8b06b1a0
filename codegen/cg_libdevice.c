/* cg_libdevice.c — the optional libdevice math backend (--math-lib=libdevice,
 * TLC_MATH_LIB=libdevice): NVIDIA's libdevice bitcode, found on the machine
 * (never shipped with tlc, never needed to build it), called as Triton calls
 * it, so that math results are Triton's bit for bit.
 *
 * Owns: where the file is (cg_libdevice_locate: --libdevice, $TLC_LIBDEVICE,
 * then a search), its identity for cache keys, the name of the __nv_
 * function Triton calls for each math function (a MATHFN row, or a math op
 * of the tile IR), the calls, and linking what they need into the kernel.
 * Not: how a function is computed when libdevice lacks it (cg_mathlib.c and
 * cg_arith.c keep their lowering; the hooks here return NULL for it).
 *
 * Triton's lowering, which this follows (third_party/nvidia, Triton 3.x):
 *  - libdevice.NAME(x): `__nv_NAMEf` in fp32, `__nv_NAME` in fp64, with the
 *    exceptions nv_name() lists (isnan -> __nv_isnanf / __nv_isnand, add_rn
 *    -> __nv_fadd_rn / __nv_dadd_rn, clz on i64 -> __nv_clzll, ...);
 *  - tl.log, log2, exp2, sin, cos, sqrt, rsqrt, floor, ceil, erf: the same
 *    libdevice functions (MLIR's math-to-libdevice patterns); fp64 tl.exp
 *    too, while fp32 tl.exp stays ex2.approx(x * log2 e) and tl.sqrt_rn /
 *    tl.div_rn stay IEEE sqrt.rn / div.rn, computed inline (cg_arith.c);
 *  - fp16/bf16 operands in fp32 (the callers extend and round back);
 *  - the module flag nvvm-reflect-ftz = 1 (Triton's enable_reflect_ftz
 *    default), so __nvvm_reflect("__CUDA_FTZ") picks libdevice's .ftz
 *    paths; __CUDA_ARCH is the target's, __CUDA_PREC_SQRT 0 (approximate
 *    sqrtf), as LLVM's NVVMReflect pass resolves them; tlc answers them
 *    right after linking (resolve_reflect), the same way, so that the
 *    answer does not depend on the pass pipeline.
 *
 * Linking: the file is opened lazily on the first call (in the kernel's
 * context; its functions' types are checked against the calls), every
 * definition in it made linkonce_odr, and linked before O3: the linker
 * brings over, and the reader parses, only the functions the kernel reaches
 * (a few of libdevice's hundreds), which are then made internal. */
#include "codegen/cg_internal.h"

#include <errno.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- where the file is ------------------------------------------------------------------- */

/* NULL when `path` is a readable file that starts as LLVM bitcode does
 * (raw 'BC' 0xC0DE, or the wrapper 0x0B17C0DE), else what is wrong. */
static const char *file_problem(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) return errno == ENOENT ? "no such file" : strerror(errno);
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  FILE *f = fopen(path, "rb");
  if (!f) return strerror(errno);
  unsigned char m[4] = {0};
  size_t n = fread(m, 1, 4, f);
  fclose(f);
  bool raw = m[0] == 'B' && m[1] == 'C' && m[2] == 0xC0 && m[3] == 0xDE;
  bool wrapped = m[0] == 0xDE && m[1] == 0xC0 && m[2] == 0x17 && m[3] == 0x0B;
  if (n < 4 || !(raw || wrapped)) return "not LLVM bitcode";
  return NULL;
}

/* The searched places, in order (after --libdevice and $TLC_LIBDEVICE,
 * which are taken as they are): Triton's own variable first, so that the
 * file Triton is told to use is the one tlc uses, then the toolkits. */
static const struct {
  const char *env;    /* NULL: a fixed path */
  const char *suffix; /* appended to the variable's value */
} search[] = {
    {"TRITON_LIBDEVICE_PATH", ""},
    {"CUDA_HOME", "/nvvm/libdevice/libdevice.10.bc"},
    {"CUDA_PATH", "/nvvm/libdevice/libdevice.10.bc"},
    {NULL, "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"},
    {NULL, "/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc"}, /* Debian's nvidia-cuda-toolkit */
};

static const char kHint[] =
    "give its path with --libdevice PATH (the runtime: TLC_LIBDEVICE=PATH): libdevice.10.bc of a CUDA "
    "toolkit (nvvm/libdevice/), or the one a Triton install ships (triton/backends/nvidia/lib/), which "
    "is the file Triton's own results come from";

char *cg_libdevice_locate(const char *given, StrBuf *why) {
  const char *label = given ? "--libdevice" : "$TLC_LIBDEVICE";
  const char *explicit_path = given;
  if (!explicit_path) {
    const char *e = getenv("TLC_LIBDEVICE");
    if (e && *e) explicit_path = e;
  }
  if (explicit_path) { /* named by the user: it must be right */
    const char *p = file_problem(explicit_path);
    if (!p) return xstrdup(explicit_path);
    if (why) sb_printf(why, "the libdevice file '%s' (%s) cannot be used: %s", explicit_path, label, p);
    return NULL;
  }
  StrBuf tried;
  sb_init(&tried);
  for (size_t i = 0; i < sizeof search / sizeof search[0]; i++) {
    const char *base = search[i].env ? getenv(search[i].env) : "";
    if (i) sb_puts(&tried, ", ");
    if (search[i].env && (!base || !*base)) {
      sb_printf(&tried, "$%s%s (unset)", search[i].env, search[i].suffix);
      continue;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s%s", base, search[i].suffix);
    const char *p = file_problem(path);
    if (!p) {
      sb_free(&tried);
      return xstrdup(path);
    }
    struct stat st;
    if (stat(path, &st) == 0) { /* there, but not usable: say so rather than pass over it */
      if (why) sb_printf(why, "the libdevice file '%s' cannot be used: %s; %s", path, p, kHint);
      sb_free(&tried);
      return NULL;
    }
    sb_printf(&tried, "%s (%s)", path, p);
  }
  if (why) sb_printf(why, "no libdevice bitcode found for --math-lib=libdevice; tried %s; %s", tried.data, kHint);
  sb_free(&tried);
  return NULL;
}

uint64_t cg_libdevice_identity(const char *given) {
  char *path = cg_libdevice_locate(given, NULL);
  if (!path) return 0;
  uint64_t h = hash_bytes(path, strlen(path), 0x11bde71ce);
  struct stat st;
  if (stat(path, &st) == 0) {
    long long facts[4] = {(long long)st.st_size, (long long)st.st_mtim.tv_sec, (long long)st.st_mtim.tv_nsec,
                          (long long)st.st_ino};
    h = hash_bytes(facts, sizeof facts, h);
  }
  free(path);
  return h ? h : 1;
}

bool cg_libdevice_open(CgCtx *cg) {
  StrBuf why;
  sb_init(&why);
  cg->ld_path = cg_libdevice_locate(cg->opt->libdevice_path, &why);
  if (!cg->ld_path) {
    diag_plain(cg->diag, "%s", why.data);
    cg->user_failed = true;
  }
  sb_free(&why);
  return cg->ld_path != NULL;
}

/* ---- the functions ------------------------------------------------------------------------ */

/* LLVM reports parse and link errors through the context's diagnostic
 * handler, whose default prints them and exits: while libdevice is parsed
 * and linked, this one collects the errors instead. */
typedef struct LdDiag {
  LLVMDiagnosticHandler saved;
  void *saved_ctx;
  StrBuf errors;
} LdDiag;

static void ld_diag_handler(LLVMDiagnosticInfoRef di, void *ctx) {
  LdDiag *d = ctx;
  if (LLVMGetDiagInfoSeverity(di) != LLVMDSError) return;
  char *s = LLVMGetDiagInfoDescription(di);
  sb_printf(&d->errors, "%s%s", d->errors.len ? "; " : "", s);
  LLVMDisposeMessage(s);
}

static void ld_diag_begin(CgCtx *cg, LdDiag *d) {
  sb_init(&d->errors);
  d->saved = LLVMContextGetDiagnosticHandler(cg->ctx);
  d->saved_ctx = LLVMContextGetDiagnosticContext(cg->ctx);
  LLVMContextSetDiagnosticHandler(cg->ctx, ld_diag_handler, d);
}

/* Restores the handler; the errors collected (heap, "" when none). */
static char *ld_diag_end(CgCtx *cg, LdDiag *d) {
  LLVMContextSetDiagnosticHandler(cg->ctx, d->saved, d->saved_ctx);
  sb_puts(&d->errors, "");
  return sb_take(&d->errors);
}

/* libdevice's function `name` of type fty, declared in the kernel's module;
 * NULL when the file has no such function (the caller lowers it its own
 * way) or after reporting that the file cannot be parsed or types it
 * otherwise. */
static LLVMValueRef ld_function(CgCtx *cg, const char *name, LLVMTypeRef fty) {
  if (!cg->ld_tried) {
    cg->ld_tried = true;
    LLVMMemoryBufferRef buf = NULL;
    char *msg = NULL;
    if (LLVMCreateMemoryBufferWithContentsOfFile(cg->ld_path, &buf, &msg)) {
      diag_plain(cg->diag, "the libdevice file '%s' cannot be read: %s", cg->ld_path, msg ? msg : "?");
      LLVMDisposeMessage(msg);
      cg->user_failed = true;
      return NULL;
    }
    LdDiag d;
    ld_diag_begin(cg, &d);
    /* lazily: the functions' bodies are read only when linking brings them over */
    bool bad = LLVMGetBitcodeModuleInContext2(cg->ctx, buf, &cg->ld_mod);
    char *errors = ld_diag_end(cg, &d);
    if (bad) {
      diag_plain(cg->diag, "the libdevice file '%s' cannot be read as LLVM 19 bitcode: %s", cg->ld_path,
                 *errors ? errors : "?");
      cg->ld_mod = NULL;
      cg->user_failed = true;
      LLVMDisposeMemoryBuffer(buf); /* (the module owns it once read) */
    }
    free(errors);
  }
  if (!cg->ld_mod) return NULL;
  LLVMValueRef def = LLVMGetNamedFunction(cg->ld_mod, name);
  if (!def || LLVMIsDeclaration(def)) return NULL;
  if (LLVMGlobalGetValueType(def) != fty) {
    char *have = LLVMPrintTypeToString(LLVMGlobalGetValueType(def)), *want = LLVMPrintTypeToString(fty);
    diag_plain(cg->diag, "the libdevice file '%s' defines %s as '%s', not '%s' as libdevice does", cg->ld_path,
               name, have, want);
    LLVMDisposeMessage(have);
    LLVMDisposeMessage(want);
    cg->user_failed = true;
    return NULL;
  }
  LLVMValueRef fn = LLVMGetNamedFunction(cg->mod, name);
  if (!fn) fn = LLVMAddFunction(cg->mod, name, fty);
  cg->uses_libdevice = true;
  return fn;
}

/* A call of `name` (result `ret`, parameters of args' types); NULL as ld_function. */
static LLVMValueRef ld_call(CgCtx *cg, const char *name, LLVMTypeRef ret, LLVMValueRef *args, int n) {
  LLVMTypeRef pt[4];
  for (int i = 0; i < n && i < 4; i++) pt[i] = LLVMTypeOf(args[i]);
  LLVMTypeRef fty = LLVMFunctionType(ret, pt, (unsigned)n, 0);
  LLVMValueRef fn = ld_function(cg, name, fty);
  return fn ? LLVMBuildCall2(cg->b, fty, fn, args, (unsigned)n, "") : NULL;
}

/* The integer functions: 32- and 64-bit (signedness from the type) where
 * libdevice has both.  false where it has none. */
static bool int_name(MathFn fn, DType d, char *buf, size_t size) {
  bool wide = dt_bits(d) == 64, u = !dt_is_signed(d);
  if (dt_bits(d) != 32 && !wide) return false;
  const char *nm = NULL;
  switch (fn) {
  case MF_CLZ: nm = wide ? "clzll" : "clz"; break;
  case MF_POPC: nm = wide ? "popcll" : "popc"; break;
  case MF_FFS: nm = wide ? "ffsll" : "ffs"; break;
  case MF_BREV: nm = wide ? "brevll" : "brev"; break;
  case MF_MULHI: nm = wide ? (u ? "umul64hi" : "mul64hi") : (u ? "umulhi" : "mulhi"); break;
  case MF_MUL24: nm = wide ? NULL : u ? "umul24" : "mul24"; break;
  case MF_HADD: nm = wide ? NULL : u ? "uhadd" : "hadd"; break;
  case MF_RHADD: nm = wide ? NULL : u ? "urhadd" : "rhadd"; break;
  case MF_SAD: nm = wide ? NULL : u ? "usad" : "sad"; break;
  case MF_BYTE_PERM: nm = wide ? NULL : "byte_perm"; break;
  default: break;
  }
  return nm && snprintf(buf, size, "__nv_%s", nm) < (int)size;
}

/* The __nv_ function Triton's libdevice.py names for row `fn` on type d
 * (fp32/fp64 for the float kinds, the integer type for the integer ones,
 * ignored for the conversions); false where libdevice has none. */
static bool nv_name(MathFn fn, DType d, char *buf, size_t size) {
  const MathFnInfo *mi = &ir_mathfn_info[fn];
  const char *nm = mi->name;
  bool f64 = d == DT_F64;
  int n = -1;
  if (mi->kind == MK_CVT) return snprintf(buf, size, "__nv_%s", nm) < (int)size; /* float2int_rn ... */
  if (mi->kind == MK_INT || mi->kind == MK_INT_TO_I32) return int_name(fn, d, buf, size);
  /* add_rn -> __nv_fadd_rn / __nv_dadd_rn; fma_rn -> __nv_fmaf_rn / __nv_fma_rn */
  if (fn >= MF_ADD_RN && fn <= MF_FMA_RU) {
    const char *us = strchr(nm, '_');
    int oplen = (int)(us - nm);
    if (!strncmp(nm, "fma", 3)) n = snprintf(buf, size, "__nv_fma%s_%s", f64 ? "" : "f", us + 1);
    else n = snprintf(buf, size, "__nv_%c%.*s_%s", f64 ? 'd' : 'f', oplen, nm, us + 1);
    return n > 0 && n < (int)size;
  }
  switch (fn) {
  case MF_FINITE: case MF_ISFINITE: n = snprintf(buf, size, "%s", f64 ? "__nv_isfinited" : "__nv_finitef"); break;
  case MF_ISNAN: case MF_ISINF: case MF_SIGNBIT: n = snprintf(buf, size, "__nv_%s%c", nm, f64 ? 'd' : 'f'); break;
  case MF_SATURATE: if (!f64) n = snprintf(buf, size, "__nv_saturatef"); break;
  case MF_FAST_DIV: if (!f64) n = snprintf(buf, size, "__nv_fast_fdividef"); break;
  default:
    if (!strncmp(nm, "fast_", 5)) { /* fast_expf ...: fp32 only, named with their f */
      if (!f64) n = snprintf(buf, size, "__nv_%s", nm);
    } else {
      n = snprintf(buf, size, "__nv_%s%s", nm, f64 ? "" : "f");
    }
  }
  return n > 0 && n < (int)size;
}

LLVMValueRef cg_libdevice_mathfn(CgCtx *cg, MathFn fn, DType d, LLVMValueRef *args) {
  const MathFnInfo *mi = &ir_mathfn_info[fn];
  char name[64];
  if (!nv_name(fn, d, name, sizeof name)) return NULL;
  LLVMTypeRef ret;
  int n = mi->nargs;
  switch (mi->kind) {
  case MK_FLOAT: case MK_FLOAT_INT: ret = LLVMTypeOf(args[0]); break;
  case MK_TEST: case MK_TO_I32: case MK_INT_TO_I32: ret = cg->t_i32; break;
  case MK_TO_I64: ret = cg->t_i64; break;
  case MK_INT: ret = LLVMTypeOf(args[0]); break;
  case MK_CVT: {
    DType from, computed, result;
    const char *nvvm;
    int rm;
    if (!ir_mathfn_cvt(fn, &from, &computed, &result, &nvvm, &rm)) return NULL;
    ret = cg_type(cg, result);
    n = 1;
    break;
  }
  default: return NULL;
  }
  LLVMValueRef r = ld_call(cg, name, ret, args, n);
  if (r && mi->kind == MK_TEST) /* libdevice answers in an int, Triton's .to(int1) tests it */
    r = LLVMBuildICmp(cg->b, LLVMIntNE, r, cg_i32(cg, 0), "");
  return r;
}

LLVMValueRef cg_libdevice_op(CgCtx *cg, const Op *op, OpKind k, DType d, LLVMValueRef x) {
  const char *base = NULL;
  switch (k) {
  case OP_EXP: base = d == DT_F64 ? "exp" : NULL; break; /* fp32: ex2.approx(x log2 e), inline in Triton too */
  case OP_EXP2: base = "exp2"; break;
  case OP_LOG: base = "log"; break;
  case OP_LOG2: base = "log2"; break;
  case OP_SQRT: base = op->attr.precise ? NULL : "sqrt"; break; /* sqrt_rn: IEEE sqrt.rn, inline in Triton */
  case OP_RSQRT: base = "rsqrt"; break;
  case OP_SIN: base = "sin"; break;
  case OP_COS: base = "cos"; break;
  case OP_FLOOR: base = "floor"; break;
  case OP_CEIL: base = "ceil"; break;
  case OP_ERF: base = "erf"; break;
  default: break;
  }
  if (!base || (d != DT_F32 && d != DT_F64)) return NULL;
  char name[32];
  snprintf(name, sizeof name, "__nv_%s%s", base, d == DT_F64 ? "" : "f");
  return ld_call(cg, name, LLVMTypeOf(x), &x, 1);
}

/* ---- linking -------------------------------------------------------------------------------- */

/* The string a reflect call asks about: its argument through the constant
 * casts and GEPs to the global holding it; NULL when it is not one. */
static const char *reflect_name(LLVMValueRef arg, size_t *len) {
  while (arg && LLVMIsAConstantExpr(arg)) {
    LLVMOpcode op = LLVMGetConstOpcode(arg);
    if (op != LLVMAddrSpaceCast && op != LLVMGetElementPtr && op != LLVMBitCast) return NULL;
    arg = LLVMGetOperand(arg, 0);
  }
  if (!arg || !LLVMIsAGlobalVariable(arg)) return NULL;
  LLVMValueRef init = LLVMGetInitializer(arg);
  if (!init || !LLVMIsConstantString(init)) return NULL;
  const char *s = LLVMGetAsString(init, len);
  while (*len && !s[*len - 1]) (*len)--; /* (the NUL) */
  return s;
}

/* The call replaced by constant c, and the integer compares of the call
 * with a constant folded (NVVMReflect folds what its answer makes constant,
 * so that a branch on it already takes one way). */
static void replace_reflect(CgCtx *cg, LLVMValueRef call, LLVMValueRef c) {
  LLVMValueRef cmps[16];
  int n = 0;
  for (LLVMUseRef u = LLVMGetFirstUse(call); u && n < 16; u = LLVMGetNextUse(u)) {
    LLVMValueRef i = LLVMGetUser(u);
    bool seen = false;
    for (int j = 0; j < n; j++) seen |= cmps[j] == i;
    if (!seen && LLVMIsAICmpInst(i)) cmps[n++] = i;
  }
  LLVMReplaceAllUsesWith(call, c);
  LLVMInstructionEraseFromParent(call);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(cg->ctx);
  for (int j = 0; j < n; j++) {
    LLVMValueRef i = cmps[j];
    if (!LLVMIsConstant(LLVMGetOperand(i, 0)) || !LLVMIsConstant(LLVMGetOperand(i, 1))) continue;
    LLVMPositionBuilderBefore(b, i);
    LLVMValueRef f = LLVMBuildICmp(b, LLVMGetICmpPredicate(i), LLVMGetOperand(i, 0), LLVMGetOperand(i, 1), "");
    if (!LLVMIsAConstantInt(f)) { /* (the builder folds two constants: never so) */
      if (LLVMIsAInstruction(f)) LLVMInstructionEraseFromParent(f);
      continue;
    }
    LLVMReplaceAllUsesWith(i, f);
    LLVMInstructionEraseFromParent(i);
  }
  LLVMDisposeBuilder(b);
}

/* libdevice asks __nvvm_reflect("__CUDA_FTZ") and ("__CUDA_ARCH") which
 * path to take.  They are answered here, right after linking, as LLVM 19's
 * NVVMReflect pass answers them (__CUDA_FTZ: the module's nvvm-reflect-ftz
 * flag, 1; __CUDA_ARCH: 10 x the target's SM version, 900 on sm_90a; any
 * other name: 0), so that the answer does not depend on the pass pipeline:
 * the default pipelines run NVVMReflect with the target's SM version, while
 * a pipeline written as text (cg_pipeline.c, TLC_LLVM_PIPELINE) can only
 * run it without one, which answers __CUDA_ARCH with 0. */
static void resolve_reflect(CgCtx *cg) {
  static const char *const fns[] = {"__nvvm_reflect", "llvm.nvvm.reflect"};
  for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
    LLVMValueRef fn = LLVMGetNamedFunction(cg->mod, fns[f]);
    if (!fn) continue;
    for (LLVMUseRef u = LLVMGetFirstUse(fn), next; u; u = next) {
      next = LLVMGetNextUse(u);
      LLVMValueRef call = LLVMGetUser(u);
      if (!LLVMIsACallInst(call) || LLVMGetCalledValue(call) != fn || LLVMGetNumArgOperands(call) != 1) continue;
      size_t len = 0;
      const char *name = reflect_name(LLVMGetOperand(call, 0), &len);
      if (!name) continue; /* left to NVVMReflect */
      long long v = 0;
      if (len == 10 && !memcmp(name, "__CUDA_FTZ", 10)) v = 1; /* the nvvm-reflect-ftz flag set below */
      else if (len == 11 && !memcmp(name, "__CUDA_ARCH", 11)) v = 10LL * cg->capability;
      replace_reflect(cg, call, LLVMConstInt(LLVMTypeOf(call), (unsigned long long)v, 1));
    }
  }
}

bool cg_link_libdevice(CgCtx *cg) {
  LLVMModuleRef ld = cg->ld_mod;
  cg->ld_mod = NULL;
  /* the kernel's triple and data layout (libdevice's are nvptx64-nvidia-gpulibs and an older layout) */
  LLVMSetTarget(ld, LLVMGetTarget(cg->mod));
  LLVMSetDataLayout(ld, LLVMGetDataLayoutStr(cg->mod));
  /* linkonce_odr: the linker then brings over only what the kernel calls,
   * and what that calls, reading just those bodies from the file */
  cg_link_on_demand(ld);
  LdDiag d;
  ld_diag_begin(cg, &d);
  bool bad = LLVMLinkModules2(cg->mod, ld);
  char *errors = ld_diag_end(cg, &d);
  if (bad) {
    diag_plain(cg->diag, "linking the libdevice file '%s' into the kernel failed: %s", cg->ld_path,
               *errors ? errors : "?");
    cg->user_failed = true;
  }
  free(errors);
  if (bad) return false;
  const char *flag = "nvvm-reflect-ftz";
  LLVMAddModuleFlag(cg->mod, LLVMModuleFlagBehaviorOverride, flag, strlen(flag),
                    LLVMValueAsMetadata(cg_i32(cg, 1)));
  resolve_reflect(cg);
  cg_internalize_linked(cg);
  return true;
}

void cg_libdevice_close(CgCtx *cg) {
  if (cg->ld_mod) LLVMDisposeModule(cg->ld_mod);
  cg->ld_mod = NULL;
  free(cg->ld_path);
  cg->ld_path = NULL;
}
