/* test_compile_repeat.c — many compilations in one process, as a program
 * embedding tlc makes them: none keeps memory, and none sees state left by
 * another.  LLVM 19's NVPTX backend keeps per-module annotations (kernel,
 * maxntidx) in a process-wide table keyed by Module and Function addresses
 * that only its PTX printer empties; before cg_module.c's
 * release_annotations, a compilation to LLVM IR left its entries behind, the
 * table grew, and a later module allocated at the same addresses took the
 * earlier kernel's thread count for its own (the tid.x range in its IR).
 *
 *   1. after a warm-up, 200 compilations to LLVM IR (-O3 and -O0), 50 to
 *      PTX and 200 to tile IR leave the bytes in use where they were
 *      (glibc's mallinfo2 with the tcache off, see codegen.cmake; the
 *      sanitizer allocator's count under ASan);
 *   2. 200 compilations to LLVM IR alternating num_warps 4 and 8 each carry
 *      their own thread-id range, range(i32 0, 32 * num_warps). */
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "compiler/tlc_compiler.h"
#include "tests/unit/test_util.h"

#if defined(__SANITIZE_ADDRESS__)
#define TLC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TLC_ASAN 1
#endif
#endif
#ifdef TLC_ASAN
size_t __sanitizer_get_current_allocated_bytes(void); /* libasan's; gcc ships no header for it */
static size_t in_use(void) { return __sanitizer_get_current_allocated_bytes(); }
#else
static size_t in_use(void) { return mallinfo2().uordblks; }
#endif

static const char *src =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def k(x_ptr, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    x = tl.load(x_ptr + offs, mask=offs < n)\n"
    "    tl.store(x_ptr + offs, x * 2.0 + 1.0, mask=offs < n)\n";

static int compile(tlc_emit emit, int num_warps, int opt_level) {
  tlc_compile_options o;
  tlc_compile_options_init(&o);
  o.signature = "*fp32:16,i32,1024";
  o.emit = emit;
  o.num_warps = num_warps;
  o.opt_level = opt_level;
  tlc_compile_result r;
  int st = (int)tlc_compile("k.tile", src, &o, &r);
  tlc_compile_result_free(&r);
  return st;
}

static void run_round(const char *what, int n, tlc_emit emit, int opt_level) {
  for (int i = 0; i < 3; i++) compile(emit, 4, opt_level); /* LLVM's own one-time state */
  size_t before = in_use();
  int bad = 0;
  for (int i = 0; i < n; i++) bad += compile(emit, 4 << (i & 1), opt_level) != TLC_COMPILE_OK;
  size_t after = in_use();
  long grown = (long)after - (long)before;
  /* 1 KiB of slack; a retained annotation entry is ~400 bytes per compilation */
  bool ok = bad == 0 && grown < 1024;
  printf("%s %s: %d compilations, %d failed, %ld bytes more in use\n", ok ? "ok  " : "FAIL", what, n, bad,
         grown);
  CHECK(ok, "%s", what);
}

static void thread_ranges(void) {
  int wrong = 0, n = 200;
  for (int i = 0; i < n; i++) {
    tlc_compile_options o;
    tlc_compile_options_init(&o);
    o.signature = "*fp32:16,i32,1024";
    o.emit = TLC_EMIT_LLVM;
    o.num_warps = i & 1 ? 8 : 4;
    tlc_compile_result r;
    tlc_compile("k.tile", src, &o, &r);
    char want[64];
    snprintf(want, sizeof want, "range(i32 0, %d) i32 @llvm.nvvm.read.ptx.sreg.tid.x()", 32 * o.num_warps);
    if (!r.text || !strstr(r.text, want)) {
      if (wrong++ < 3) printf("     compilation %d (num_warps %d): no '%s'\n", i, o.num_warps, want);
    }
    tlc_compile_result_free(&r);
  }
  printf("%s thread-id ranges: %d of %d compilations with another kernel's\n", wrong ? "FAIL" : "ok  ", wrong, n);
  CHECK(wrong == 0, "thread-id ranges");
}

int main(void) {
  run_round("LLVM IR, -O3", 200, TLC_EMIT_LLVM, 3);
  run_round("LLVM IR, -O0", 200, TLC_EMIT_LLVM, 0);
  run_round("PTX, -O3", 50, TLC_EMIT_PTX, 3);
  run_round("tile IR", 200, TLC_EMIT_TIR, 3);
  thread_ranges();
  return test_summary("test_compile_repeat");
}
