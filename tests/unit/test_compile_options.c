/* test_compile_options.c — the compile API's one home for options: the
 * defaults tlc_compile_options_init gives, an unset field meaning the same
 * default everywhere (the fingerprint of {num_warps=0} is that of
 * {num_warps=4}), and values out of range refused by
 * tlc_compile_options_check and by tlc_compile alike (num_warps=64 used to
 * compile).  The math library is in the cache key, and with libdevice the
 * file's identity: another file, or the same path rewritten, is another
 * key.  The result names the constants the options and the signature gave
 * (what tlc compile --grid reads). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compiler/tlc_compiler.h"
#include "tests/unit/test_util.h"

static const char *src =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def k(x_ptr, BLOCK: tl.constexpr):\n"
    "    offs = tl.arange(0, BLOCK)\n"
    "    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1.0)\n";

static tlc_compile_options base(void) {
  tlc_compile_options o;
  tlc_compile_options_init(&o);
  o.signature = "*fp32:16,128";
  o.emit = TLC_EMIT_TIR;
  return o;
}

/* opt is refused with a message containing `part`, by the check and by
 * tlc_compile (as a diagnostic, status TLC_COMPILE_ERROR). */
static void refused(tlc_compile_options o, const char *part) {
  char msg[256] = "";
  CHECK(tlc_compile_options_check(&o, msg, sizeof msg) == -1, "accepted; expected \"%s\"", part);
  CHECK_CONTAINS(msg, part);
  tlc_compile_result r;
  CHECK(tlc_compile("k.tile", src, &o, &r) == TLC_COMPILE_ERROR, "tlc_compile accepted it");
  CHECK_CONTAINS(r.diagnostics, part);
  CHECK(r.text == NULL);
  tlc_compile_result_free(&r);
}

/* Whether two option sets have the same fingerprint (cache key). */
static int fp_eq(const char *text, const tlc_compile_options *a, const tlc_compile_options *b) {
  char x[33], y[33];
  tlc_compile_fingerprint(text, a, x);
  tlc_compile_fingerprint(text, b, y);
  return !strcmp(x, y);
}

int main(void) {
  tlc_compile_options d;
  tlc_compile_options_init(&d);
  CHECK(d.arch && !strcmp(d.arch, "sm_90a"));
  CHECK(d.num_warps == 4 && d.num_stages == 3 && d.opt_level == 3 && d.emit == TLC_EMIT_PTX);
  CHECK(tlc_compile_options_check(&d, NULL, 0) == 0);
  CHECK(tlc_compile_options_check(NULL, NULL, 0) == 0, "NULL options are the defaults");

  /* Unset fields are the defaults, in the cache key too. */
  tlc_compile_options o = base(), z = base();
  z.arch = NULL, z.num_warps = 0, z.num_stages = 0, z.opt_level = -1;
  CHECK(fp_eq(src, &o, &z));
  z.num_warps = 8;
  CHECK(!fp_eq(src, &o, &z));
  /* The request names each field once, the defaults resolved; the
   * fingerprint is its XXH3-128 in 32 hex digits. */
  char *req = tlc_compile_request(src, &o);
  CHECK(req && strstr(req, "\nnum_warps 4\n") && strstr(req, "\narch 6:sm_90a\n") && strstr(req, "\nsource xxh3-128 "),
        "%s", req ? req : "(null)");
  free(req);
  char hex[33];
  tlc_compile_fingerprint(src, &o, hex);
  CHECK(strlen(hex) == 32 && strspn(hex, "0123456789abcdef") == 32, "%s", hex);
  tlc_compile_result r;
  z.num_warps = 0;
  CHECK(tlc_compile("k.tile", src, &z, &r) == TLC_COMPILE_OK, "%s", r.diagnostics);
  CHECK_CONTAINS(r.text, "{num_warps=4}");
  tlc_compile_result_free(&r);
  /* constants: the signature's literal entry and a --constexpr, in parameter order */
  static const char two[] = "import triton\nimport triton.language as tl\n@triton.jit\n"
                            "def k2(x_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr = True):\n"
                            "    tl.store(x_ptr + tl.arange(0, BLOCK), n)\n";
  tlc_constexpr_def block = {"BLOCK", "64"};
  z = base(), z.signature = "*i32,7", z.constexprs = &block, z.nconstexprs = 1, z.emit = TLC_EMIT_PTX;
  CHECK(tlc_compile("k2.tile", two, &z, &r) == TLC_COMPILE_OK, "%s", r.diagnostics);
  CHECK(r.nparams == 1 && r.nconstexprs == 3, "%d params, %d constants", r.nparams, r.nconstexprs);
  if (r.nconstexprs == 3)
    CHECK(!strcmp(r.constexprs[0].name, "n") && !strcmp(r.constexprs[0].value, "7") &&
              !strcmp(r.constexprs[1].name, "BLOCK") && !strcmp(r.constexprs[1].value, "64") &&
              !strcmp(r.constexprs[2].name, "EVEN") && !strcmp(r.constexprs[2].value, "True"),
          "constants %s=%s %s=%s %s=%s", r.constexprs[0].name, r.constexprs[0].value, r.constexprs[1].name,
          r.constexprs[1].value, r.constexprs[2].name, r.constexprs[2].value);
  tlc_compile_result_free(&r);

  o = base(), o.num_warps = 64;
  refused(o, "num_warps must be a power of two from 1 to 32, not 64");
  o = base(), o.num_warps = 6;
  refused(o, "not 6");
  o = base(), o.num_warps = -4;
  refused(o, "not -4");
  o = base(), o.num_stages = 17;
  refused(o, "num_stages must be from 1 to 16, not 17");
  o = base(), o.arch = "sm_99z";
  refused(o, "unknown arch 'sm_99z'");
  /* Blackwell's arches: past LLVM 19's NVPTX, with what to use instead. */
  const char *newer[] = {"sm_100a", "sm_100", "sm_103f", "sm_120", "sm_121a"};
  for (int i = 0; i < 5; i++) {
    o = base(), o.arch = newer[i];
    refused(o, "is newer than tlc can compile for (LLVM 19's NVPTX backend stops at sm_90a); "
               "compile for sm_90,");
  }
  o = base(), o.arch = "sm_100x";
  refused(o, "unknown arch 'sm_100x'");
  o = base(), o.opt_level = 4;
  refused(o, "optimisation level must be 0, 1, 2 or 3, not 4");
  o = base(), o.emit = (tlc_emit)42;
  refused(o, "unknown emit kind 42");
  o = base(), o.dump_after = "no-such-pass";
  refused(o, "no pass named 'no-such-pass'");
  o = base(), o.nconstexprs = 2;
  refused(o, "2 constexprs but a NULL array");

  o = base(), o.math_lib = (tlc_math_lib)7;
  refused(o, "unknown math library 7");

  /* Optional passes may be left out, by name, and that is part of the key;
   * a pass the pipeline needs, or no pass at all, is refused. */
  o = base(), o.skip_passes = "dot-ahead,warp-specialize";
  char why[256];
  CHECK(tlc_compile_options_check(&o, why, sizeof why) == 0);
  tlc_compile_options plain = base(), empty = base();
  empty.skip_passes = "";
  CHECK(!fp_eq(src, &plain, &o));
  CHECK(fp_eq(src, &plain, &empty));
  o = base(), o.skip_passes = "pipeline,coalesce";
  refused(o, "skip_passes: 'coalesce' is not a pass that may be left out");
  o = base(), o.skip_passes = "dot_ahead";
  refused(o, "skip_passes: 'dot_ahead' is not a pass that may be left out");

  /* The math library and the libdevice file are part of the key. */
  char dir[] = "/tmp/tlc-options-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char bc1[64], bc2[64];
  snprintf(bc1, sizeof bc1, "%s/a.bc", dir);
  snprintf(bc2, sizeof bc2, "%s/b.bc", dir);
  FILE *f = fopen(bc1, "wb");
  fputs("BC\xc0\xde one", f);
  fclose(f);
  f = fopen(bc2, "wb");
  fputs("BC\xc0\xde another", f);
  fclose(f);
  tlc_compile_options l1 = base(), l2 = base();
  l1.math_lib = l2.math_lib = TLC_MATH_LIBDEVICE;
  l1.libdevice = bc1, l2.libdevice = bc2;
  char k1[33], k2[33];
  tlc_compile_fingerprint(src, &l1, k1);
  CHECK(tlc_compile_options_check(&l1, NULL, 0) == 0);
  CHECK(!fp_eq(src, &o, &l1), "libclc and libdevice share a key");
  CHECK(!fp_eq(src, &l1, &l2), "two libdevice files share a key");
  CHECK(fp_eq(src, &l1, &l1), "the key is not stable");
  f = fopen(bc1, "wb"); /* the same path, rewritten */
  fputs("BC\xc0\xde one, longer now", f);
  fclose(f);
  tlc_compile_fingerprint(src, &l1, k2);
  CHECK(strcmp(k1, k2) != 0, "a rewritten libdevice file keeps its key");
  unlink(bc1), unlink(bc2), rmdir(dir);

  /* Every value in range compiles. */
  for (int w = 1; w <= 32; w *= 2) {
    o = base(), o.num_warps = w;
    CHECK(tlc_compile("k.tile", src, &o, &r) == TLC_COMPILE_OK, "num_warps %d: %s", w, r.diagnostics);
    tlc_compile_result_free(&r);
  }
  return test_summary("test_compile_options");
}
