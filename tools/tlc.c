/* tlc.c — the command line:
 *
 *   tlc compile FILE --kernel NAME --signature SIG [--constexpr NAME=V]...
 *       [--emit ast|tir|tir-spec|llvm|ptx] [-o OUT] [--arch sm_90a]
 *       [--num-warps N] [--num-stages N] [--dump-after PASS] [--verify-each]
 *   tlc --help | --version
 *
 * Owns option parsing and file I/O only; compilation is tlc_compile().
 * Exit status: 0 success, 1 an error in the input (diagnostics on stderr),
 * 2 a usage error, 3 an internal compiler error. */
#include "compiler/tlc_compiler.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
    "usage: tlc compile FILE [options]\n"
    "       tlc autotune FILE [--kernel NAME] [--arch ARCH]\n"
    "       tlc --help | --version\n"
    "\n"
    "Compile a kernel of a .tile file (the Triton kernel language) to PTX.\n"
    "\n"
    "options:\n"
    "  --kernel NAME        the @jit function to compile (default: the only one)\n"
    "  --signature SIG      parameter types and constexpr values in Triton's AOT form,\n"
    "                       e.g. \"*fp32:16,*fp32:16,i32,1024\" (a value fills a\n"
    "                       constexpr parameter; ':16' = 16-byte aligned pointer or\n"
    "                       integer divisible by 16; '1' specializes to the value 1)\n"
    "  --constexpr NAME=V   give a constexpr parameter by name (repeatable)\n"
    "  --emit KIND          ast | tir | tir-spec | llvm | ptx (default ptx)\n"
    "  -o FILE              write the output to FILE (default: stdout)\n"
    "  --arch ARCH          sm_90a (default), sm_90, sm_80, ...\n"
    "  --num-warps N        warps per program (default 4)\n"
    "  --num-stages N       software-pipelining depth (default 3)\n"
    "  --dump-after PASS    print the tile IR after PASS to stderr\n"
    "  --verify-each        verify the IR after every pass\n"
    "  -O N                 LLVM optimisation level 0-3 (default 3)\n"
    "  --help, --version\n"
    "\n"
    "tlc autotune prints the configs and key of a kernel's @triton.autotune\n"
    "decorator, one config per line (NAME=VALUE ... num_warps=N num_stages=N).\n";

static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "tlc: error: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n(run 'tlc --help' for usage)\n");
  return 2;
}

static int parse_int(const char *s, int lo, int hi, int *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || *s == 0 || *end != 0 || v < lo || v > hi) return -1;
  *out = (int)v;
  return 0;
}

static char *slurp(const char *path, const char **err) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    *err = strerror(errno);
    return NULL;
  }
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  size_t n;
  while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
    len += n;
    if (cap - len < 2) buf = realloc(buf, cap *= 2);
  }
  if (!buf || ferror(f)) {
    *err = buf ? strerror(errno) : "out of memory";
    free(buf);
    fclose(f);
    return NULL;
  }
  fclose(f);
  buf[len] = 0;
  if (memchr(buf, 0, len)) {
    *err = "file contains NUL bytes (not a text file)";
    free(buf);
    return NULL;
  }
  return buf;
}

/* Write `text` to `path` ("-" or NULL: stdout).  A regular file (or a new
 * one) is written to a temporary file beside it and renamed over it, so a
 * failed write never leaves a truncated artifact where a good one was.
 * Anything else that exists (/dev/null, a FIFO, a terminal) is opened and
 * written in place: renaming over it would replace a device node. */
static int write_output(const char *path, const char *text) {
  size_t len = strlen(text);
  if (!path || !strcmp(path, "-")) {
    if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0) {
      fprintf(stderr, "tlc: error: cannot write to stdout: %s\n", strerror(errno));
      return 1;
    }
    return 0;
  }
  struct stat st;
  bool in_place = stat(path, &st) == 0 && !S_ISREG(st.st_mode);
  char *tmp = NULL;
  if (!in_place) {
    size_t n = strlen(path) + 32;
    tmp = malloc(n);
    snprintf(tmp, n, "%s.tmp%d", path, (int)getpid());
  }
  FILE *out = fopen(in_place ? path : tmp, "wb");
  int bad = !out;
  if (out) {
    bad |= fwrite(text, 1, len, out) != len;
    bad |= fclose(out) != 0;
  }
  if (!bad && tmp) bad = rename(tmp, path) != 0;
  if (bad) {
    fprintf(stderr, "tlc: error: cannot write '%s': %s\n", path, strerror(errno));
    if (tmp) remove(tmp);
  }
  free(tmp);
  return bad;
}

static int autotune_main(int argc, char **argv) {
  const char *file = NULL, *kernel = NULL, *arch = "sm_90a";
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--kernel") && i + 1 < argc) kernel = argv[++i];
    else if (!strcmp(argv[i], "--arch") && i + 1 < argc) arch = argv[++i];
    else if (argv[i][0] == '-') return usage_error("unknown or incomplete option '%s'", argv[i]);
    else if (!file) file = argv[i];
    else return usage_error("more than one input file ('%s')", argv[i]);
  }
  if (!file) return usage_error("%s", "no input file");
  const char *err = NULL;
  char *source = slurp(file, &err);
  if (!source) {
    fprintf(stderr, "tlc: error: cannot read '%s': %s\n", file, err);
    return 1;
  }
  tlc_tune_info info;
  tlc_compile_status st = tlc_autotune_info(file, source, kernel, arch, &info);
  if (info.diagnostics && *info.diagnostics) fputs(info.diagnostics, stderr);
  if (st == TLC_COMPILE_OK) {
    if (!info.present) printf("no autotune decorator\n");
    printf("key:");
    for (int i = 0; i < info.nkeys; i++) printf(" %s", info.keys[i]);
    printf("\n");
    for (int i = 0; i < info.nconfigs; i++) {
      const tlc_tune_config *c = &info.configs[i];
      for (int j = 0; j < c->nconstexprs; j++) printf("%s=%s ", c->constexprs[j].name, c->constexprs[j].value);
      printf("num_warps=%d num_stages=%d\n", c->num_warps, c->num_stages);
    }
  }
  tlc_tune_info_free(&info);
  free(source);
  return st == TLC_COMPILE_OK ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs(usage, stderr);
    return 2;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fputs(usage, stdout);
    return 0;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("tlc %s\n", TLC_VERSION_STRING);
    return 0;
  }
  if (!strcmp(argv[1], "autotune")) return autotune_main(argc, argv);
  if (strcmp(argv[1], "compile") != 0) return usage_error("unknown command '%s'", argv[1]);

  tlc_compile_options opt;
  tlc_compile_options_init(&opt);
  opt.emit = TLC_EMIT_PTX;
  const char *file = NULL, *out_path = NULL;
  tlc_constexpr_def *cdefs = calloc((size_t)argc, sizeof *cdefs);
  int ncdefs = 0;

  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
#define NEED_VALUE() \
  if (i + 1 >= argc) return usage_error("option '%s' needs a value", a)
    if (!strcmp(a, "--help")) {
      fputs(usage, stdout);
      return 0;
    } else if (!strcmp(a, "--kernel")) {
      NEED_VALUE();
      opt.kernel = argv[++i];
    } else if (!strcmp(a, "--signature")) {
      NEED_VALUE();
      opt.signature = argv[++i];
    } else if (!strcmp(a, "--constexpr") || !strcmp(a, "-C")) {
      NEED_VALUE();
      char *d = argv[++i], *eq = strchr(d, '=');
      if (!eq || eq == d) return usage_error("--constexpr expects NAME=VALUE, got '%s'", d);
      *eq = 0;
      cdefs[ncdefs++] = (tlc_constexpr_def){d, eq + 1};
    } else if (!strcmp(a, "--emit")) {
      NEED_VALUE();
      const char *k = argv[++i];
      if (!strcmp(k, "ast")) opt.emit = TLC_EMIT_AST;
      else if (!strcmp(k, "tir")) opt.emit = TLC_EMIT_TIR;
      else if (!strcmp(k, "tir-spec")) opt.emit = TLC_EMIT_TIR_SPEC;
      else if (!strcmp(k, "llvm")) opt.emit = TLC_EMIT_LLVM;
      else if (!strcmp(k, "ptx")) opt.emit = TLC_EMIT_PTX;
      else return usage_error("unknown --emit kind '%s' (ast, tir, tir-spec, llvm, ptx)", k);
    } else if (!strcmp(a, "-o")) {
      NEED_VALUE();
      out_path = argv[++i];
    } else if (!strcmp(a, "--arch")) {
      NEED_VALUE();
      opt.arch = argv[++i];
    } else if (!strcmp(a, "--num-warps")) {
      NEED_VALUE();
      if (parse_int(argv[++i], 1, 32, &opt.num_warps) || (opt.num_warps & (opt.num_warps - 1)))
        return usage_error("--num-warps expects a power of two from 1 to 32, got '%s'", argv[i]);
    } else if (!strcmp(a, "--num-stages")) {
      NEED_VALUE();
      if (parse_int(argv[++i], 1, 16, &opt.num_stages))
        return usage_error("--num-stages expects a number from 1 to 16, got '%s'", argv[i]);
    } else if (!strcmp(a, "--dump-after")) {
      NEED_VALUE();
      opt.dump_after = argv[++i];
    } else if (!strcmp(a, "--verify-each")) {
      opt.verify_each = true;
    } else if (!strcmp(a, "-O")) {
      NEED_VALUE();
      if (parse_int(argv[++i], 0, 3, &opt.opt_level))
        return usage_error("-O expects 0, 1, 2 or 3, got '%s'", argv[i]);
    } else if (a[0] == '-' && a[1]) {
      return usage_error("unknown option '%s'", a);
    } else if (!file) {
      file = a;
    } else {
      return usage_error("more than one input file ('%s')", a);
    }
#undef NEED_VALUE
  }
  if (!file) return usage_error("%s", "no input file");
  opt.constexprs = cdefs;
  opt.nconstexprs = ncdefs;

  const char *err = NULL;
  char *source = slurp(file, &err);
  if (!source) {
    fprintf(stderr, "tlc: error: cannot read '%s': %s\n", file, err);
    return 1;
  }

  tlc_compile_result res;
  tlc_compile_status st = tlc_compile(file, source, &opt, &res);
  if (res.diagnostics && *res.diagnostics) fputs(res.diagnostics, stderr);
  if (res.dump) fputs(res.dump, stderr);
  int rc = st == TLC_COMPILE_OK ? 0 : st == TLC_COMPILE_ERROR ? 1 : 3;
  if (st == TLC_COMPILE_OK && write_output(out_path, res.text) != 0) rc = 1;
  tlc_compile_result_free(&res);
  free(source);
  free(cdefs);
  return rc;
}
