/* cg_module.c — cg_compile(): the LLVM context and target machine, the
 * kernel's signature and annotations, lowering of the body, the LLVM
 * verifier, the O3 pipeline and PTX emission.
 *
 * The kernel is `void @name(params)` with pointer parameters as
 * `ptr addrspace(1)` (no noalias: Triton does not assume it either) and
 * scalars as their LLVM types, marked a kernel through nvvm.annotations
 * ("kernel", and "maxntidx" = 32 * num_warps).  The entry block holds the
 * thread-invariant prologue (thread ids, per-layout lane/warp splits) and
 * branches to the body once lowering is done, so every prologue value
 * dominates every use. */
#include "codegen/cg_internal.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cg_ptx_features(const char *arch) {
  static const struct {
    const char *arch, *features;
  } table[] = {
      /* PTX 8.4 on sm_89 and sm_90: mma.sync with fp8 operands */
      {"sm_90a", "+ptx84"}, {"sm_90", "+ptx84"}, {"sm_89", "+ptx84"}, {"sm_87", "+ptx78"},
      {"sm_86", "+ptx78"},  {"sm_80", "+ptx78"}, {"sm_75", "+ptx78"}, {"sm_70", "+ptx78"},
  };
  if (!arch) return NULL;
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strcmp(table[i].arch, arch) == 0) return table[i].features;
  return NULL;
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
/* LLVM options set once for the process (the LLVM-C API has no
 * TargetOptions; our LLVM copy is private to libtlc):
 *  - FP contraction as Triton's default (enable_fp_fusion): NVPTX fuses
 *    mul + add into fma and leaves plain add/mul (not .rn) for ptxas
 *    (with contract_everywhere below, the fusions Triton's make);
 *  - 32-bit shared-memory pointers, as Triton uses (fewer registers);
 *  - the SLP vectorizer leaves horizontal reductions alone: it spent 50 M
 *    instructions of the attention forward's compile (9 %) looking for
 *    them from every accumulator phi and found none; the PTX of every
 *    kernel of bench/ptx_corpus.py's corpus, at sm_90a and sm_80, is the
 *    same without them (the ctest pipeline.same_ptx compares against
 *    LLVM's defaults: TLC_LLVM_ARGS naming -slp-vectorize-hor overrides). */
static void init_nvptx(void) {
  const char *argv[64] = {"tlc", "-nvptx-fma-level=2", "-nvptx-short-ptr"};
  int argc = 3;
  const char *user = getenv("TLC_LLVM_ARGS");
  if (!user || !strstr(user, "-slp-vectorize-hor")) argv[argc++] = "-slp-vectorize-hor=false";
  /* TLC_LLVM_ARGS: more LLVM options for the process, split at spaces, read
   * once (a developer's hook: -time-passes, -print-after=...; part of the
   * compile cache's key, tlc_compile_request) */
  static char words[1024];
  if (user && *user) {
    snprintf(words, sizeof words, "%s", user);
    char *save = NULL;
    for (char *w = strtok_r(words, " \t", &save); w && argc < 64; w = strtok_r(NULL, " \t", &save))
      argv[argc++] = w;
  }
  LLVMParseCommandLineOptions(argc, argv, NULL);
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  LLVMInitializeNVPTXAsmPrinter();
}

static void annotate(CgCtx *cg, const char *key, int value) {
  LLVMMetadataRef ops[3] = {
      LLVMValueAsMetadata(cg->fn),
      LLVMMDStringInContext2(cg->ctx, key, strlen(key)),
      LLVMValueAsMetadata(cg_i32(cg, value)),
  };
  LLVMMetadataRef node = LLVMMDNodeInContext2(cg->ctx, ops, 3);
  LLVMAddNamedMetadataOperand(cg->mod, "nvvm.annotations", LLVMMetadataAsValue(cg->ctx, node));
}

static bool create_target(CgCtx *cg, const char *arch, int opt_level) {
  const char *triple = "nvptx64-nvidia-cuda";
  const char *features = cg_ptx_features(arch);
  if (!features) {
    cg_error(cg, NULL, "unknown target architecture '%s' (expected sm_80, sm_90a, ...)", arch);
    return false;
  }
  LLVMTargetRef target;
  char *msg = NULL;
  if (LLVMGetTargetFromTriple(triple, &target, &msg)) {
    cg_error(cg, NULL, "NVPTX target unavailable: %s", msg ? msg : "?");
    LLVMDisposeMessage(msg);
    return false;
  }
  /* The codegen level: -O2 and -O3 both generate code at Default.  NVPTX's
   * Aggressive only runs GVN where Default runs EarlyCSE among its IR passes
   * (after straight-line strength reduction): 6 % of the attention forward's
   * compile, and the same PTX for 539 of bench/ptx_corpus.py's 544 kernels
   * (the other 5: libdevice's fp64 sin, cos and tan, code of the same size
   * within 128 bytes). */
  LLVMCodeGenOptLevel lvl = opt_level <= 0 ? LLVMCodeGenLevelNone
                            : opt_level == 1 ? LLVMCodeGenLevelLess
                                             : LLVMCodeGenLevelDefault;
  cg->tm = LLVMCreateTargetMachine(target, triple, arch, features, lvl, LLVMRelocDefault,
                                   LLVMCodeModelDefault);
  if (!cg->tm) {
    cg_error(cg, NULL, "cannot create an NVPTX target machine for %s", arch);
    return false;
  }
  LLVMSetTarget(cg->mod, triple);
  LLVMTargetDataRef td = LLVMCreateTargetDataLayout(cg->tm);
  LLVMSetModuleDataLayout(cg->mod, td);
  LLVMDisposeTargetData(td);
  return true;
}

static void init_types(CgCtx *cg) {
  LLVMContextRef c = cg->ctx;
  cg->t_void = LLVMVoidTypeInContext(c);
  cg->t_i1 = LLVMInt1TypeInContext(c);
  cg->t_i8 = LLVMInt8TypeInContext(c);
  cg->t_i16 = LLVMInt16TypeInContext(c);
  cg->t_i32 = LLVMInt32TypeInContext(c);
  cg->t_i64 = LLVMInt64TypeInContext(c);
  cg->t_f16 = LLVMHalfTypeInContext(c);
  cg->t_bf16 = LLVMBFloatTypeInContext(c);
  cg->t_f32 = LLVMFloatTypeInContext(c);
  cg->t_f64 = LLVMDoubleTypeInContext(c);
  cg->t_gptr = LLVMPointerTypeInContext(c, 1);
  cg->t_sptr = LLVMPointerTypeInContext(c, 3);
}

/* The hidden tensor-map parameters (IrFunc.tma) after the kernel's own:
 * 128 bytes, 64-byte aligned, by value and grid-constant, so that their
 * address is a generic address of the parameter (cvta.param). */
static void tma_params(CgCtx *cg, int first) {
  IrFunc *f = cg->f;
  LLVMTypeRef map = LLVMArrayType2(cg->t_i8, 128);
  unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5), align = LLVMGetEnumAttributeKindForName("align", 5);
  LLVMMetadataRef idx[64];
  for (int i = 0; i < f->ntma && i < 64; i++) {
    unsigned pos = (unsigned)(first + i + 1); /* attribute index: parameters count from 1 */
    LLVMAddAttributeAtIndex(cg->fn, pos, LLVMCreateTypeAttribute(cg->ctx, byval, map));
    LLVMAddAttributeAtIndex(cg->fn, pos, LLVMCreateEnumAttribute(cg->ctx, align, 64));
    idx[i] = LLVMValueAsMetadata(cg_i32(cg, (int64_t)pos));
  }
  if (!f->ntma) return;
  const char *key = "grid_constant";
  LLVMMetadataRef ops[3] = {LLVMValueAsMetadata(cg->fn), LLVMMDStringInContext2(cg->ctx, key, strlen(key)),
                            LLVMMDNodeInContext2(cg->ctx, idx, (size_t)(f->ntma < 64 ? f->ntma : 64))};
  LLVMMetadataRef node = LLVMMDNodeInContext2(cg->ctx, ops, 3);
  LLVMAddNamedMetadataOperand(cg->mod, "nvvm.annotations", LLVMMetadataAsValue(cg->ctx, node));
}

static void build_kernel(CgCtx *cg) {
  IrFunc *f = cg->f;
  int n = f->nargs;
  if (f->ntma > 64) cg_error(cg, NULL, "more than 64 tensor maps");
  LLVMTypeRef *pt = ARENA_ARRAY(&cg->arena, LLVMTypeRef, n + f->ntma + 1);
  for (int i = 0; i < n; i++) {
    const Type *t = f->args[i].value->type;
    if (t->rank) cg_error(cg, NULL, "kernel argument '%s' is a tensor", f->args[i].name);
    pt[i] = cg_type(cg, t->dtype);
  }
  for (int i = 0; i < f->ntma; i++) pt[n + i] = LLVMPointerTypeInContext(cg->ctx, 0);
  LLVMTypeRef fty = LLVMFunctionType(cg->t_void, pt, (unsigned)(n + f->ntma), 0);
  cg->fn = LLVMAddFunction(cg->mod, f->name, fty);
  annotate(cg, "kernel", 1);
  annotate(cg, "maxntidx", cg->launch_threads);
  if (cg->launch_threads > cg->nthreads) { /* setmaxnreg needs the entry's register count known */
    cg->ws_ctas_per_sm = cg_ws_ctas_per_sm(cg);
    annotate(cg, "minctasm", cg->ws_ctas_per_sm);
  }
  tma_params(cg, n);

  cg->smem = LLVMAddGlobalInAddressSpace(cg->mod, LLVMArrayType2(cg->t_i8, 0), "global_smem", 3);
  LLVMSetLinkage(cg->smem, LLVMExternalLinkage);
  LLVMSetAlignment(cg->smem, 1024); /* wgmma's 128-byte swizzle repeats every 1024 bytes */

  cg->entry = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "entry");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "body");
  cg->pro = LLVMCreateBuilderInContext(cg->ctx);
  LLVMPositionBuilderAtEnd(cg->pro, cg->entry);
  cg->b = LLVMCreateBuilderInContext(cg->ctx);
  LLVMPositionBuilderAtEnd(cg->b, body);
  cg_thread_init(cg);
  cg_program_order_init(cg);

  for (int i = 0; i < n; i++) {
    LLVMValueRef p = LLVMGetParam(cg->fn, (unsigned)i);
    const char *nm = f->args[i].name ? f->args[i].name : "";
    LLVMSetValueName2(p, nm, strlen(nm));
    cg_set(cg, f->args[i].value, &p, 1);
  }
  for (int i = 0; i < f->ntma; i++) { /* a map's value: its generic address */
    LLVMValueRef p = LLVMGetParam(cg->fn, (unsigned)(n + i));
    LLVMValueRef a = LLVMBuildPtrToInt(cg->pro, p, cg->t_i64, f->tma[i].param->name);
    cg_set(cg, f->tma[i].param, &a, 1);
  }

  Op *term = cg_lower_block(cg, f->body);
  if (term && term->kind != OP_RETURN) cg_error(cg, term, "function body must end in return");
  LLVMBuildRetVoid(cg->b);
  LLVMBuildBr(cg->pro, body);
}

void cg_link_on_demand(LLVMModuleRef lib) {
  for (LLVMValueRef f = LLVMGetFirstFunction(lib); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f)) LLVMSetLinkage(f, LLVMLinkOnceODRLinkage);
  for (LLVMValueRef g = LLVMGetFirstGlobal(lib); g; g = LLVMGetNextGlobal(g))
    if (!LLVMIsDeclaration(g)) LLVMSetLinkage(g, LLVMLinkOnceODRLinkage);
}

void cg_internalize_linked(CgCtx *cg) {
  for (LLVMValueRef f = LLVMGetFirstFunction(cg->mod); f; f = LLVMGetNextFunction(f))
    if (f != cg->fn && !LLVMIsDeclaration(f)) LLVMSetLinkage(f, LLVMInternalLinkage);
  for (LLVMValueRef g = LLVMGetFirstGlobal(cg->mod); g; g = LLVMGetNextGlobal(g))
    if (g != cg->smem && !LLVMIsDeclaration(g)) LLVMSetLinkage(g, LLVMInternalLinkage);
}

/* Run an LLVM pass pipeline over the module; false after an error: an
 * internal one for tlc's own pipeline, the user's for TLC_LLVM_PIPELINE's
 * text. */
static bool run_passes(CgCtx *cg, const char *pipeline, bool from_env) {
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  LLVMErrorRef err = LLVMRunPasses(cg->mod, pipeline, cg->tm, po);
  LLVMDisposePassBuilderOptions(po);
  if (!err) return true;
  char *em = LLVMGetErrorMessage(err);
  if (from_env) { /* the environment's mistake, not the kernel's: no location */
    diag_plain(cg->diag, "TLC_LLVM_PIPELINE='%s': %s", pipeline, em);
    cg->user_failed = true;
  } else {
    cg_error(cg, NULL, "LLVM pass pipeline: %s", em);
  }
  LLVMDisposeErrorMessage(em);
  return false;
}

/* Floating-point contraction as Triton's: its NVPTX target machine allows
 * fusion everywhere (AllowFPOpFusion = Fast, enable_fp_fusion), so that
 * SelectionDAG's combiner fuses any fmul with the fadd or fsub it feeds, a
 * multiply of several uses into each (NVPTX fuses aggressively).  The LLVM-C
 * API cannot set that option; the `contract` flag on every fmul, fadd, fsub
 * and fneg of the optimized module lets the combiner make the same fusions
 * (-nvptx-fma-level=2 alone fused only NVPTX's own patterns: Triton's
 * __nv_powf then came out with 4 fewer fma, and up to 3 ulp off).  Set after
 * O3, so that no IR pass reassociates on it. */
static void contract_everywhere(CgCtx *cg) {
  for (LLVMValueRef f = LLVMGetFirstFunction(cg->mod); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
        LLVMOpcode op = LLVMGetInstructionOpcode(i);
        if ((op == LLVMFAdd || op == LLVMFSub || op == LLVMFMul || op == LLVMFNeg) && LLVMCanValueUseFastMathFlags(i))
          LLVMSetFastMathFlags(i, LLVMGetFastMathFlags(i) | LLVMFastMathAllowContract);
      }
}

/* Each extractvalue of an inline asm's struct result (a wgmma's
 * accumulators) moves up to just after the asm when the O-pipeline left it
 * in another block (InstCombine sinks an instruction into its users' block).
 * SelectionDAG builds a block at a time: a struct defined in another block is
 * read back through CopyFromReg nodes for all of its members at every
 * extractvalue, 64 x 64 nodes for one 64-register accumulator, 6.8 % of the
 * head-dim-128 attention backward's compile.  Moving a pure instruction up to
 * its operand's block, which dominates every use, changes nothing else. */
static void hoist_asm_extracts(CgCtx *cg) {
  enum { MAX_AGGS = 64 };
  LLVMValueRef agg[MAX_AGGS], last[MAX_AGGS];
  int nagg = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(cg->mod); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
        next = LLVMGetNextInstruction(i);
        if (LLVMGetInstructionOpcode(i) != LLVMExtractValue) continue;
        LLVMValueRef a = LLVMGetOperand(i, 0);
        if (!LLVMIsACallInst(a) || !LLVMIsAInlineAsm(LLVMGetCalledValue(a)) || LLVMGetInstructionParent(a) == bb)
          continue;
        int k = 0;
        while (k < nagg && agg[k] != a) k++;
        if (k == nagg) {
          if (nagg == MAX_AGGS) continue;
          agg[nagg] = last[nagg] = a, nagg++;
        }
        LLVMInstructionRemoveFromParent(i);
        LLVMPositionBuilderBefore(cg->b, LLVMGetNextInstruction(last[k]));
        LLVMInsertIntoBuilder(cg->b, i);
        last[k] = i;
      }
}

/* Verify, optimize and emit.  Returns false after an error. */
static bool finish(CgCtx *cg, CgResult *out) {
  char *msg = NULL;
  double tl = clock_ms(); /* linking the math library and verifying: the "LLVM IR" stage's */
  if (cg->uses_libclc && !cg_link_libclc(cg)) return false;
  if (cg->uses_libdevice && !cg_link_libdevice(cg)) return false;
  if (LLVMVerifyModule(cg->mod, LLVMReturnStatusAction, &msg)) {
    cg->failed = true;
    char *ir = LLVMPrintModuleToString(cg->mod);
    StrBuf detail;
    sb_init(&detail);
    sb_printf(&detail, "the offending LLVM IR:\n%s", ir);
    diag_internal(cg->diag, cg->f->loc, detail.data, "LLVM verifier: %s", msg ? msg : "?");
    sb_free(&detail);
    LLVMDisposeMessage(ir);
    LLVMDisposeMessage(msg);
    return false;
  }
  LLVMDisposeMessage(msg);
  out->lower_ms += clock_ms() - tl;

  double t0 = clock_ms();
  int lvl = cg->opt->opt_level;
  if (lvl < 0 || lvl > 3) lvl = 3;
  char level[32];
  const char *arch = cg->opt->arch ? cg->opt->arch : cg->m->arch;
  const char *pipeline = cg_pipeline(arch, lvl, level, sizeof level);
  /* TLC_LLVM_PIPELINE: the O-pipeline replaced by this text (a developer's
   * hook for choosing passes, bench/pipeline_search.py; part of the cache
   * key, tlc_compile_request) */
  const char *custom = getenv("TLC_LLVM_PIPELINE");
  if (custom && *custom) pipeline = custom;
  cg->passes_ran = true;
  if (!run_passes(cg, pipeline, custom && *custom)) return false;
  out->opt_ms = clock_ms() - t0;

  if (cg->opt->want_llvm) {
    char *ir = LLVMPrintModuleToString(cg->mod);
    out->llvm_ir = xstrdup(ir);
    LLVMDisposeMessage(ir);
  }
  if (cg->opt->want_ptx) {
    double t1 = clock_ms();
    contract_everywhere(cg); /* (after --emit llvm's text: that is O3's output) */
    hoist_asm_extracts(cg);
    LLVMMemoryBufferRef buf = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(cg->tm, cg->mod, LLVMAssemblyFile, &msg, &buf)) {
      cg_error(cg, NULL, "NVPTX emission: %s", msg ? msg : "?");
      LLVMDisposeMessage(msg);
      return false;
    }
    cg->printed = true;
    size_t len = LLVMGetBufferSize(buf);
    char *ptx = xmalloc(len + 1);
    memcpy(ptx, LLVMGetBufferStart(buf), len);
    ptx[len] = 0;
    out->ptx = ptx;
    LLVMDisposeMemoryBuffer(buf);
    out->emit_ms = clock_ms() - t1;
  }
  return true;
}

/* LLVM 19's NVPTX backend keeps each module's nvvm.annotations in one
 * process-wide table keyed by the addresses of the Module and its functions:
 * the NVVM passes of the O-pipeline fill it (NVVMIntrRange reads maxntidx to
 * bound the thread ids), and only the PTX printer's finalization removes the
 * module's entries.  A module that ran the pipeline but never reached the
 * printer (--emit llvm, or an error after the passes) would leave entries
 * behind, and a later module that happens to be allocated at the same
 * addresses would read them as its own (an old .maxntid, old thread-id
 * ranges); the table would also grow with every such compilation.  Such a
 * module is therefore printed anyway, emptied of its function bodies first,
 * which costs next to nothing and returns nothing. */
static void release_annotations(CgCtx *cg) {
  for (LLVMValueRef f = LLVMGetFirstFunction(cg->mod), next; f; f = next) {
    next = LLVMGetNextFunction(f);
    if (LLVMCountBasicBlocks(f)) LLVMDeleteFunction(f);
  }
  char *msg = NULL;
  LLVMMemoryBufferRef buf = NULL;
  if (!LLVMTargetMachineEmitToMemoryBuffer(cg->tm, cg->mod, LLVMAssemblyFile, &msg, &buf))
    LLVMDisposeMemoryBuffer(buf);
  LLVMDisposeMessage(msg);
}

int cg_compile(IrModule *m, const CgOptions *opt, CgResult *out, DiagEngine *diag) {
  memset(out, 0, sizeof *out);
  double t0 = clock_ms();
  CgCtx cg;
  memset(&cg, 0, sizeof cg);
  cg.m = m;
  cg.f = m->func;
  cg.opt = opt;
  cg.diag = diag;
  arena_init(&cg.arena);
  if (!cg.f) {
    cg_error(&cg, NULL, "module has no kernel");
    arena_free(&cg.arena);
    return -1;
  }
  const char *arch = opt->arch ? opt->arch : m->arch ? m->arch : "sm_90a";
  cg.capability = 0;
  for (const char *p = arch; *p; p++)
    if (*p >= '0' && *p <= '9') cg.capability = cg.capability * 10 + (*p - '0');
  cg.num_warps = m->num_warps > 0 ? m->num_warps : 4;
  cg.nthreads = 32 * cg.num_warps;
  cg.launch_threads = 32 * (cg.num_warps + (m->producer_warps > 0 ? m->producer_warps : 0));
  cg.nvals = cg.f->nvalues;
  cg.vals = ARENA_ARRAY(&cg.arena, CgVal, cg.nvals ? cg.nvals : 1);
  cg.use_counts = ir_use_counts(cg.f);

  pthread_once(&init_once, init_nvptx);
  cg.ctx = LLVMContextCreate();
  init_types(&cg);
  cg.mod = LLVMModuleCreateWithNameInContext(cg.f->name, cg.ctx);

  bool ok = create_target(&cg, arch, opt->opt_level < 0 ? 3 : opt->opt_level);
  if (ok && opt->libdevice) ok = cg_libdevice_open(&cg);
  if (ok) {
    build_kernel(&cg);
  }
  if (cg.smem_bytes < m->smem_buffers_end) cg.smem_bytes = m->smem_buffers_end;
  int64_t limit = ir_smem_limit(cg.capability);
  if (cg.smem_bytes > limit)
    cg_user_error(&cg, cg.smem_over_op,
                  "the kernel needs %d bytes of shared memory per program (%d for dot operands, the "
                  "rest for layout conversions and reductions) but %s allows at most %lld; use "
                  "smaller blocks", cg.smem_bytes, m->smem_buffers_end, arch, (long long)limit);
  out->lower_ms = clock_ms() - t0;
  if (ok) ok = !cg.failed && !cg.user_failed && finish(&cg, out); /* no LLVM passes for a kernel refused */
  out->shared_bytes = cg.smem_bytes;
  m->shared_bytes = cg.smem_bytes;

  if (cg.b) LLVMDisposeBuilder(cg.b);
  if (cg.pro) LLVMDisposeBuilder(cg.pro);
  if (cg.passes_ran && !cg.printed) release_annotations(&cg);
  cg_libdevice_close(&cg);
  LLVMDisposeModule(cg.mod);
  if (cg.tm) LLVMDisposeTargetMachine(cg.tm);
  LLVMContextDispose(cg.ctx);
  VEC_FREE(cg.parts);
  VEC_FREE(cg.owners);
  free(cg.use_counts);
  arena_free(&cg.arena);
  if (!ok || cg.failed || cg.user_failed) {
    free(out->llvm_ir);
    free(out->ptx);
    out->llvm_ir = out->ptx = NULL;
    return -1;
  }
  return 0;
}
