/* libclc_trim.c — a build-time tool: libclc's NVPTX bitcode cut down to the
 * math functions tlc calls, for codegen to embed (cg_libclc_data.c) and link
 * into kernels that use them (cg_mathlib.c).
 *
 *   tlc_libclc_trim IN.bc OUT.bc
 *
 * IN is Debian's libclc-19 `nvptx64--nvidiacl.bc` (the whole OpenCL
 * library, 8 MB).  Kept: the scalar fp32/fp64 overloads (`_Z4tanhf`,
 * `_Z3powdd`, `_Z5ldexpfi`: the mangled name's parameters are only f, d and
 * i) of every libclc name in ir/mathfns.def, and whatever they reference.
 * Everything else is made internal and deleted by globaldce; the kept
 * functions stay linkonce_odr, so that linking the result into a kernel
 * copies only those the kernel calls.  The target attributes libclc was
 * compiled with ("+ptx42") are dropped so the functions inline into kernels
 * built for any PTX version, and the triple becomes tlc's.  Fails (status 1)
 * when a listed function is missing from IN, so a libclc without one stops
 * the build rather than a kernel. */
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const char *const wanted[] = {
#define MATHFN(e, name, nargs, kind, libclc) libclc,
#include "ir/mathfns.def"
#undef MATHFN
};
enum { NWANTED = sizeof wanted / sizeof wanted[0] };

/* Is `fn` a scalar fp32/fp64 overload of libclc function `base`?  Then
 * *params is its mangled parameter list ("f", "dd", "fi"). */
static bool is_overload(const char *fn, const char *base, const char **params) {
  char prefix[64];
  snprintf(prefix, sizeof prefix, "_Z%zu%s", strlen(base), base);
  size_t n = strlen(prefix);
  if (strncmp(fn, prefix, n) || !fn[n]) return false;
  for (const char *p = fn + n; *p; p++)
    if (*p != 'f' && *p != 'd' && *p != 'i') return false;
  *params = fn + n;
  return true;
}

static int wanted_index(const char *fn, const char **params) {
  for (int i = 0; i < NWANTED; i++)
    if (wanted[i] && is_overload(fn, wanted[i], params)) return i;
  return -1;
}

static void drop_target_attrs(LLVMValueRef f) {
  static const char *const keys[] = {"target-features", "target-cpu", "frame-pointer"};
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
    LLVMRemoveStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, keys[k], (unsigned)strlen(keys[k]));
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s LIBCLC.bc OUT.bc\n", argv[0]);
    return 2;
  }
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMMemoryBufferRef buf;
  char *msg = NULL;
  if (LLVMCreateMemoryBufferWithContentsOfFile(argv[1], &buf, &msg)) {
    fprintf(stderr, "%s: cannot read %s: %s\n", argv[0], argv[1], msg ? msg : "?");
    return 1;
  }
  LLVMModuleRef m;
  if (LLVMParseBitcodeInContext2(ctx, buf, &m)) {
    fprintf(stderr, "%s: %s is not LLVM bitcode this LLVM reads\n", argv[0], argv[1]);
    return 1;
  }
  LLVMDisposeMemoryBuffer(buf);

  int found[NWANTED][2] = {{0}}; /* [i][0]: an fp32 overload, [i][1]: fp64 */
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f)) continue;
    drop_target_attrs(f);
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    const char *params;
    int w = wanted_index(name, &params);
    if (w < 0) {
      LLVMSetLinkage(f, LLVMInternalLinkage);
      continue;
    }
    LLVMSetLinkage(f, LLVMExternalLinkage); /* kept through globaldce; linkonce_odr again below */
    for (int i = 0; i < NWANTED; i++) /* several rows may share one libclc name (ldexp) */
      if (wanted[i] && !strcmp(wanted[i], wanted[w])) found[i][params[0] == 'd'] = 1;
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
    if (!LLVMIsDeclaration(g)) LLVMSetLinkage(g, LLVMInternalLinkage);
  int missing = 0;
  for (int i = 0; i < NWANTED; i++)
    for (int t = 0; wanted[i] && t < 2; t++)
      if (!found[i][t]) {
        fprintf(stderr, "%s: %s has no %s overload of '%s'\n", argv[0], argv[1], t ? "fp64" : "fp32", wanted[i]);
        missing++;
      }
  if (missing) return 1;

  LLVMSetTarget(m, "nvptx64-nvidia-cuda");
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  LLVMErrorRef err = LLVMRunPasses(m, "globaldce,strip-dead-prototypes", NULL, po);
  LLVMDisposePassBuilderOptions(po);
  if (err) {
    char *em = LLVMGetErrorMessage(err);
    fprintf(stderr, "%s: %s\n", argv[0], em);
    LLVMDisposeErrorMessage(em);
    return 1;
  }
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && LLVMGetLinkage(f) == LLVMExternalLinkage) LLVMSetLinkage(f, LLVMLinkOnceODRLinkage);
  if (LLVMWriteBitcodeToFile(m, argv[2])) {
    fprintf(stderr, "%s: cannot write %s\n", argv[0], argv[2]);
    return 1;
  }
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return 0;
}
