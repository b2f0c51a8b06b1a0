/* tlc.c — the command line, parsed as a C compiler's is (getopt_long):
 *
 *   tlc compile FILE [--kernel=NAME] [--signature=SIG] [-C NAME=V]... [--emit=KIND]
 *                    [-o OUT] [--metadata=FILE] [--arch=ARCH] [--num-warps=N] [--num-stages=N] [-ON]
 *                    [--math-lib=LIB] [--libdevice=PATH] ...
 *   tlc compile FILE --kernel=A [--signature=S1] --kernel=B [--signature=S2]... --emit=c -o NAME
 *   tlc compile FILE [--kernel=K] --signature=SIG --autotune[=LIST] --grid=EXPRS --emit=c -o NAME
 *   tlc opt FILE.tir [--pass=NAME[,NAME]]... [--split-input-file] [-o OUT]
 *   tlc autotune FILE [--kernel=NAME] [--arch=ARCH]
 *   tlc run FILE [--kernel=NAME] [--signature=SIG] [--grid=X[,Y[,Z]]] ARG...   (run.c)
 *   tlc --help | --version
 *
 * Long options take their value after '=' or as the next argument, short
 * ones attached or next (-O2, -o out.ptx); options and operands mix in any
 * order and `--` ends the options; FILE `-` is stdin and `-o -` stdout.
 *
 * Owns option parsing, the help text (from the one option table below,
 * which docs/cli.md mirrors: tests/cli/help_matches_docs.sh compares them),
 * file I/O, colors and --time.  Compilation is the library's (tlc_compile,
 * tlc_opt_ir); so are the options' defaults and limits.  Exit status: 0
 * success, 1 an error in the input (diagnostics on stderr), 2 a usage
 * error, 3 an internal compiler error. */
#include "compiler/tlc_compiler.h"
#include "tools/aot.h"
#include "tools/file_write.h"
#include "tools/grid.h"
#include "tools/run.h"

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the options ------------------------------------------------------------------ */

enum { CMD_COMPILE = 1, CMD_OPT = 2, CMD_AUTOTUNE = 4, CMD_RUN = 8, CMD_ALL = 15 };

/* Long-only options get codes above the characters. */
enum {
  OPT_KERNEL = 256, OPT_SIGNATURE, OPT_EMIT, OPT_ARCH, OPT_NUM_WARPS, OPT_NUM_STAGES,
  OPT_DUMP_AFTER, OPT_SKIP_PASS, OPT_VERIFY_EACH, OPT_COLOR, OPT_TIME, OPT_PASS, OPT_SPLIT, OPT_VERSION, OPT_DEBUG,
  OPT_MATH_LIB, OPT_LIBDEVICE, OPT_WARP_SPECIALIZE, OPT_GRID, OPT_METADATA, OPT_AUTOTUNE,
};

typedef struct CliOption {
  const char *name;   /* long name; NULL for a short-only option */
  int code;           /* the short letter, or an OPT_ code */
  int has_arg;        /* no_argument, required_argument, optional_argument */
  const char *value;  /* the value's name in the help ("N", "[=WHEN]") */
  unsigned commands;  /* CMD_ bits of the commands that take it */
  const char *help;
} CliOption;

static const CliOption cli_options[] = {
    {"kernel", OPT_KERNEL, required_argument, "NAME", CMD_COMPILE | CMD_AUTOTUNE | CMD_RUN,
     "the @jit function (default: the only one); with --emit c, several: each with the --signature after it"},
    {"signature", OPT_SIGNATURE, required_argument, "SIG", CMD_COMPILE | CMD_AUTOTUNE | CMD_RUN,
     "parameter types and constexpr values in Triton's AOT form, e.g. \"*fp32:16,i32,1024\""},
    {"constexpr", 'C', required_argument, "NAME=V", CMD_COMPILE | CMD_AUTOTUNE | CMD_RUN,
     "give a constexpr parameter by name (repeatable)"},
    {"emit", OPT_EMIT, required_argument, "KIND", CMD_COMPILE,
     "ast | tir | tir-spec | llvm | ptx (default) | c (NAME.c + NAME.h for -o NAME) | json (metadata)"},
    {"grid", OPT_GRID, required_argument, "X[,Y[,Z]]", CMD_COMPILE | CMD_RUN,
     "run: the programs to run (default 1); compile --emit c: the launch grid as expressions over the "
     "kernel's integer parameters and constants, e.g. 'cdiv(n, BLOCK)' (after a --kernel: its own)"},
    {"autotune", OPT_AUTOTUNE, optional_argument, "[=LIST]", CMD_COMPILE,
     "--emit c: compile every config of the kernel's @triton.autotune (or those of LIST, e.g. =0,2) "
     "with a dispatcher that times them per key (needs --grid)"},
    {"output", 'o', required_argument, "FILE", CMD_COMPILE | CMD_OPT, "write the output to FILE ('-': stdout, the default)"},
    {"metadata", OPT_METADATA, required_argument, "FILE", CMD_COMPILE,
     "also write the kernel's metadata (what --emit json prints) to FILE"},
    {"arch", OPT_ARCH, required_argument, "ARCH", CMD_COMPILE | CMD_OPT | CMD_AUTOTUNE,
     "sm_90a (default), sm_90 (also for 10.x and 12.x GPUs), sm_89, sm_86, sm_80, ..."},
    {"num-warps", OPT_NUM_WARPS, required_argument, "N", CMD_COMPILE | CMD_RUN, "warps per program: 1, 2, 4 (default), 8, 16, 32"},
    {"num-stages", OPT_NUM_STAGES, required_argument, "N", CMD_COMPILE | CMD_OPT,
     "software-pipelining depth, 1 to 16 (default 3)"},
    {"opt-level", 'O', optional_argument, "[=N]", CMD_COMPILE,
     "LLVM optimisation level 0-3: -O2, --opt-level=2 (default 3; -O alone is -O1)"},
    {"debug", OPT_DEBUG, no_argument, NULL, CMD_COMPILE | CMD_RUN,
     "Triton's debug mode: check tl.device_assert on the device (off: it compiles to nothing)"},
    {"warp-specialize", OPT_WARP_SPECIALIZE, optional_argument, "[=WHEN]", CMD_COMPILE,
     "sm_90: a producer warp issues TMA-pipelined loops' copies: auto (default: loops marked "
     "tl.range(warp_specialize=True)), on (every loop; --warp-specialize alone), off"},
    {"math-lib", OPT_MATH_LIB, required_argument, "LIB", CMD_COMPILE,
     "auto (default, or $TLC_MATH_LIB): libdevice when the machine has one, else libclc | libdevice "
     "(the machine's libdevice.10.bc: Triton's results bit for bit) | libclc (embedded in tlc)"},
    {"libdevice", OPT_LIBDEVICE, required_argument, "PATH", CMD_COMPILE,
     "libdevice.10.bc to link (implies --math-lib=libdevice; default: $TLC_LIBDEVICE, then a search)"},
    {"pass", OPT_PASS, required_argument, "NAME[,NAME]", CMD_OPT, "run these passes, in order (repeatable)"},
    {"split-input-file", OPT_SPLIT, no_argument, NULL, CMD_OPT,
     "treat each part between '// -----' lines as a module of its own"},
    {"dump-after", OPT_DUMP_AFTER, required_argument, "PASS", CMD_COMPILE | CMD_OPT,
     "print the tile IR after each run of PASS to stderr"},
    {"skip-pass", OPT_SKIP_PASS, required_argument, "NAME[,NAME]", CMD_COMPILE,
     "leave these optional passes out (A/B runs, bisecting); a name that may not be left out "
     "gets the list of those that may"},
    {"verify-each", OPT_VERIFY_EACH, no_argument, NULL, CMD_COMPILE, "verify the IR after every pass (tlc opt always does)"},
    {"color", OPT_COLOR, optional_argument, "[=WHEN]", CMD_ALL,
     "color diagnostics: auto (default: on a terminal, unless NO_COLOR is set), always, never"},
    {"time", OPT_TIME, no_argument, NULL, CMD_COMPILE | CMD_OPT, "print the time each stage took to stderr"},
    {"help", 'h', no_argument, NULL, CMD_ALL, "print this help and exit"},
    {"version", OPT_VERSION, no_argument, NULL, CMD_ALL, "print the version and exit"},
};
enum { NOPTIONS = sizeof cli_options / sizeof cli_options[0] };

static const struct {
  const char *name;
  unsigned bit;
  const char *usage;
} commands[] = {
    {"compile", CMD_COMPILE, "tlc compile FILE [options]   compile a kernel of a .tile file"},
    {"opt", CMD_OPT, "tlc opt FILE.tir [options]   run passes on tile IR (as --emit tir prints it)"},
    {"autotune", CMD_AUTOTUNE, "tlc autotune FILE [options]  print a kernel's @triton.autotune configs"},
    {"run", CMD_RUN, "tlc run FILE [options] ARG...  run a kernel on the CPU (interpreted) with .npy arrays"},
};

static void print_help(FILE *out, unsigned cmd) {
  fputs("usage: ", out);
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (commands[i].bit & cmd) fprintf(out, "%s%s\n", i && cmd == CMD_ALL ? "       " : "", commands[i].usage);
  if (cmd == CMD_ALL) fputs("       tlc --help | --version\n", out);
  fputs("\noptions:\n", out);
  for (int i = 0; i < NOPTIONS; i++) {
    const CliOption *o = &cli_options[i];
    if (!(o->commands & cmd)) continue;
    char left[64];
    const char *sep = o->has_arg == required_argument ? "=" : "";
    if (o->code < 256)
      snprintf(left, sizeof left, "-%c, --%s%s%s", o->code, o->name, o->value ? sep : "", o->value ? o->value : "");
    else
      snprintf(left, sizeof left, "--%s%s%s", o->name, o->value ? sep : "", o->value ? o->value : "");
    fprintf(out, "  %-28s %s", left, o->help);
    if (cmd == CMD_ALL && o->commands != CMD_ALL) {
      fputs(" [", out);
      for (size_t c = 0, n = 0; c < sizeof commands / sizeof commands[0]; c++)
        if (o->commands & commands[c].bit) fprintf(out, "%s%s", n++ ? ", " : "", commands[c].name);
      fputc(']', out);
    }
    fputc('\n', out);
  }
  if (cmd & CMD_OPT) {
    fputs("\npasses (tlc opt --pass):\n", out);
    const char *name, *summary;
    for (int i = 0; tlc_pass_info(i, &name, &summary) == 0; i++) fprintf(out, "  %-28s %s\n", name, summary);
  }
  if (cmd & CMD_AUTOTUNE)
    fputs("\ntlc autotune prints the configs and key of a kernel's @triton.autotune\n"
          "decorator, one config per line (NAME=VALUE ... num_warps=N num_stages=N), then\n"
          "its reset_to_zero and restore_value names when it has them.\n", out);
  if (cmd & CMD_RUN)
    fputs("\ntlc run interprets the kernel on the CPU, every load and store checked: one ARG\n"
          "per runtime parameter, a .npy file for a pointer (written back when the kernel\n"
          "changed it, only after a successful run), a value for a scalar (negative ones\n"
          "after --).  docs/cli.md, docs/interpreter.md.\n", out);
  fputs("\nExit status: 0 success, 1 an error in the input, 2 a usage error, 3 an internal error.\n", out);
}

/* ---- the state of one run ------------------------------------------------------------ */

/* What the command line says of one kernel of tlc compile. */
typedef struct CliKernel {
  const char *kernel, *signature;
  const char *grid;      /* --grid's text (compile --emit c) */
  const char *autotune;  /* --autotune: NULL not given, "" every config, "0,2" those */
} CliKernel;

typedef struct Cli {
  unsigned cmd;
  const char *file, *out_path;
  const char *metadata_path; /* --metadata */
  enum { AOT_NONE, AOT_C, AOT_JSON } aot; /* --emit c / json: PTX compiled, then written as such */
  tlc_compile_options opt;
  /* tlc compile: each --kernel and the --signature, --grid and --autotune
   * after it (before the next --kernel); several only with --emit c (one
   * pair of files).  kernels[0] holds those given before any --kernel too:
   * every kernel's unless it gives its own (autotune: NULL none, "" all). */
  CliKernel kernels[AOT_MAX_KERNELS];
  int nkernels;
  CliKernel first;
  tlc_constexpr_def *cdefs;
  int ncdefs;
  char *passes;          /* tlc opt: the --pass lists joined with ',' (heap) */
  bool split, time, color;
  bool math_lib_given;   /* --math-lib was given (else --libdevice implies libdevice) */
  const char *color_when;
  unsigned grid[3];      /* tlc run */
  char **run_args;       /* tlc run: the operands after FILE */
  int nrun_args;
} Cli;

/* Colors for tlc's own messages and the library's diagnostics: --color, else
 * on a terminal unless NO_COLOR is set to anything (no-color.org) or TERM
 * is dumb. */
static bool want_color(const char *when) {
  if (when && !strcmp(when, "always")) return true;
  if (when && !strcmp(when, "never")) return false;
  const char *no = getenv("NO_COLOR"), *term = getenv("TERM");
  if (no && *no) return false;
  if (term && !strcmp(term, "dumb")) return false;
  return isatty(STDERR_FILENO);
}

/* "tlc: error: MESSAGE" on stderr, colored as the diagnostics are. */
static void verror(const Cli *c, const char *fmt, va_list ap) {
  fputs(c && c->color ? "\033[1mtlc: \033[1;31merror:\033[0m " : "tlc: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
}

__attribute__((format(printf, 2, 3))) static void cli_error(const Cli *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  verror(c, fmt, ap);
  va_end(ap);
}

/* A mistake on the command line: the message, a hint, exit status 2. */
__attribute__((format(printf, 2, 3))) static int usage_error(const Cli *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  verror(c, fmt, ap);
  va_end(ap);
  fputs("(run 'tlc --help' for usage)\n", stderr);
  return 2;
}

static int parse_int(const char *s, int *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || *s == 0 || *end != 0 || v < -1000000 || v > 1000000) return -1;
  *out = (int)v;
  return 0;
}

static const CliOption *find_option(int code) {
  for (int i = 0; i < NOPTIONS; i++)
    if (cli_options[i].code == code) return &cli_options[i];
  return NULL;
}

/* The kernel a --signature, --grid or --autotune belongs to: the last
 * --kernel's, or every kernel's before the first. */
static CliKernel *current_kernel(Cli *c) { return c->nkernels ? &c->kernels[c->nkernels - 1] : &c->first; }

/* One option of the command; 0, 2 after a usage error, or -1 to exit 0
 * (--help, --version). */
static int take_option(Cli *c, int code, const char *arg) {
  const CliOption *o = find_option(code);
  if (o && !(o->commands & c->cmd))
    return usage_error(c, "--%s is not an option of 'tlc %s'", o->name,
                       c->cmd == CMD_OPT ? "opt" : c->cmd == CMD_AUTOTUNE ? "autotune" : c->cmd == CMD_RUN ? "run" : "compile");
  switch (code) {
  case OPT_KERNEL:
    c->opt.kernel = arg;
    if (c->cmd != CMD_COMPILE) break;
    if (c->nkernels == AOT_MAX_KERNELS)
      return usage_error(c, "--kernel given more than %d times (one --emit c pair holds at most %d)",
                         AOT_MAX_KERNELS, AOT_MAX_KERNELS);
    c->kernels[c->nkernels++] = (CliKernel){.kernel = arg};
    break;
  case OPT_SIGNATURE:
    c->opt.signature = arg;
    current_kernel(c)->signature = arg;
    break;
  case OPT_AUTOTUNE: {
    const char *p = arg ? arg : "";
    for (bool digit = false; *p; p++) { /* N[,N]... */
      if (*p >= '0' && *p <= '9') digit = true;
      else if (*p == ',' && digit && p[1]) digit = false;
      else return usage_error(c, "--autotune=LIST expects config indices as tlc autotune lists them, from 0 "
                              "(--autotune=0,2), got '%s'", arg);
    }
    current_kernel(c)->autotune = arg ? arg : "";
    break;
  }
  case OPT_ARCH: c->opt.arch = arg; break;
  case OPT_DUMP_AFTER: c->opt.dump_after = arg; break;
  case OPT_SKIP_PASS: c->opt.skip_passes = arg; break;
  case OPT_VERIFY_EACH: c->opt.verify_each = true; break;
  case OPT_DEBUG: c->opt.debug = true; break;
  case OPT_WARP_SPECIALIZE:
    if (!arg || !strcmp(arg, "on")) c->opt.warp_specialize = 1;
    else if (!strcmp(arg, "off")) c->opt.warp_specialize = -1;
    else if (!strcmp(arg, "auto")) c->opt.warp_specialize = 0;
    else return usage_error(c, "--warp-specialize expects on, off or auto, got '%s'", arg);
    break;
  case OPT_LIBDEVICE: c->opt.libdevice = arg; break;
  case OPT_MATH_LIB:
    c->math_lib_given = true;
    if (tlc_math_lib_parse(arg, &c->opt.math_lib) != 0)
      return usage_error(c, "--math-lib expects auto, libdevice or libclc, got '%s'", arg);
    break;
  case OPT_SPLIT: c->split = true; break;
  case OPT_GRID: { /* X[,Y[,Z]]: one to three positive integers; compile: expressions */
    if (c->cmd == CMD_COMPILE) {
      char why[1024];
      AotGrid *g = grid_parse(arg, why, sizeof why);
      if (!g) return usage_error(c, "%s", why);
      grid_free(g);
      current_kernel(c)->grid = arg;
      break;
    }
    unsigned g[3] = {1, 1, 1};
    bool ok = false;
    const char *p = arg;
    for (int n = 0; n < 3 && *p >= '0' && *p <= '9'; n++) {
      char *end;
      unsigned long v = strtoul(p, &end, 10);
      if (v == 0 || v > 0x7fffffffUL) break;
      g[n] = (unsigned)v;
      if (!*end) ok = true;
      if (*end != ',') break;
      p = end + 1;
    }
    if (!ok) return usage_error(c, "--grid expects X[,Y[,Z]] of positive integers, got '%s'", arg);
    memcpy(c->grid, g, sizeof g);
    break;
  }
  case OPT_TIME: c->time = true; break;
  case 'o': c->out_path = arg; break;
  case OPT_METADATA: c->metadata_path = arg; break;
  case 'C': {
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg) return usage_error(c, "--constexpr expects NAME=VALUE, got '%s'", arg);
    c->cdefs[c->ncdefs++] = (tlc_constexpr_def){strndup(arg, (size_t)(eq - arg)), eq + 1};
    break;
  }
  case OPT_EMIT: {
    static const char *const kinds[] = {"ast", "tir", "tir-spec", "llvm", "ptx", "c", "json"};
    static const tlc_emit emits[] = {TLC_EMIT_AST, TLC_EMIT_TIR, TLC_EMIT_TIR_SPEC, TLC_EMIT_LLVM,
                                     TLC_EMIT_PTX, TLC_EMIT_PTX, TLC_EMIT_PTX};
    size_t k = 0;
    while (k < 7 && strcmp(kinds[k], arg)) k++;
    if (k == 7) return usage_error(c, "unknown --emit kind '%s' (ast, tir, tir-spec, llvm, ptx, c, json)", arg);
    c->opt.emit = emits[k];
    c->aot = k == 5 ? AOT_C : k == 6 ? AOT_JSON : AOT_NONE;
    break;
  }
  case OPT_NUM_WARPS: case OPT_NUM_STAGES: case 'O': {
    int *dst = code == 'O' ? &c->opt.opt_level : code == OPT_NUM_WARPS ? &c->opt.num_warps : &c->opt.num_stages;
    if (code == 'O' && !arg) arg = "1";
    if (parse_int(arg, dst)) return usage_error(c, "%s expects a number, got '%s'", code == 'O' ? "-O" : o->name, arg);
    break;
  }
  case OPT_PASS: {
    size_t n = c->passes ? strlen(c->passes) : 0;
    c->passes = realloc(c->passes, n + strlen(arg) + 2);
    snprintf(c->passes + n, strlen(arg) + 2, "%s%s", n ? "," : "", arg);
    break;
  }
  case OPT_COLOR:
    if (arg && strcmp(arg, "auto") && strcmp(arg, "always") && strcmp(arg, "never"))
      return usage_error(c, "--color expects auto, always or never, got '%s'", arg);
    c->color_when = arg ? arg : "always";
    c->color = want_color(c->color_when);
    break;
  case 'h': print_help(stdout, c->cmd); return -1;
  case OPT_VERSION: printf("tlc %s\n", TLC_VERSION_STRING); return -1;
  default: return usage_error(c, "internal: unhandled option %d", code);
  }
  return 0;
}

/* getopt_long over argv[1..]: the command's options and its one operand. */
static int parse_args(Cli *c, int argc, char **argv) {
  struct option longopts[NOPTIONS + 1];
  char shortopts[64] = ":"; /* ':' first: a missing value is ':', not '?' */
  size_t ns = 1;
  for (int i = 0; i < NOPTIONS; i++) {
    const CliOption *o = &cli_options[i];
    longopts[i] = (struct option){o->name, o->has_arg, NULL, o->code};
    if (o->code < 256) {
      shortopts[ns++] = (char)o->code;
      if (o->has_arg != no_argument) shortopts[ns++] = ':';
      if (o->has_arg == optional_argument) shortopts[ns++] = ':';
    }
  }
  shortopts[ns] = 0;
  longopts[NOPTIONS] = (struct option){0};
  opterr = 0;
  optind = 1;
  int code;
  while ((code = getopt_long(argc - 1, argv + 1, shortopts, longopts, NULL)) != -1) {
    const char *bad = argv[optind];
    if (code == '?') return usage_error(c, "unknown option '%s'", optopt ? (char[]){'-', (char)optopt, 0} : bad);
    if (code == ':') return usage_error(c, "option '%s' needs a value", bad);
    int rc = take_option(c, code, optarg);
    if (rc) return rc;
  }
  for (int i = optind + 1; i < argc; i++) {
    if (c->file && c->cmd == CMD_RUN) c->run_args[c->nrun_args++] = argv[i]; /* the kernel's arguments */
    else if (c->file) return usage_error(c, "more than one input file ('%s' and '%s')", c->file, argv[i]);
    else c->file = argv[i];
  }
  if (!c->file) return usage_error(c, "no input file");
  return 0;
}

/* ---- files ------------------------------------------------------------------------------ */

/* The whole of `path` ("-": stdin), NUL-terminated; NULL with *err set. */
static char *slurp(const char *path, const char **err) {
  FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
  if (!f) {
    *err = strerror(errno);
    return NULL;
  }
  size_t cap = 1 << 16, len = 0, n;
  char *buf = malloc(cap);
  while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
    len += n;
    if (cap - len < 2) buf = realloc(buf, cap *= 2);
  }
  bool bad = !buf || ferror(f);
  *err = buf ? strerror(errno) : "out of memory";
  if (f != stdin) fclose(f);
  if (!bad && memchr(buf, 0, len)) *err = "file contains NUL bytes (not a text file)", bad = true;
  if (bad) {
    free(buf);
    return NULL;
  }
  buf[len] = 0;
  return buf;
}

/* Write `text` to `path` ("-" or NULL: stdout); a file through file_write
 * (support/file_write.c): a failed write never leaves a truncated file where
 * a good one was, a link stays a link, /dev/null stays a device. */
static int write_output(const Cli *c, const char *path, const char *text) {
  size_t len = strlen(text);
  if (!path || !strcmp(path, "-")) {
    if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0) {
      cli_error(c, "cannot write to stdout: %s", strerror(errno));
      return 1;
    }
    return 0;
  }
  const void *parts[1] = {text};
  int e = file_write(path, parts, &len, 1);
  if (e) cli_error(c, "cannot write '%s': %s", path, strerror(e));
  return e != 0;
}

/* ---- the commands ------------------------------------------------------------------------ */

static int exit_status(tlc_compile_status st) {
  return st == TLC_COMPILE_OK ? 0 : st == TLC_COMPILE_ERROR ? 1 : 3;
}

/* Diagnostics and the --dump-after output to stderr; --time's table. */
static void report(const Cli *c, const tlc_compile_result *res) {
  if (res->diagnostics && *res->diagnostics) fputs(res->diagnostics, stderr);
  if (res->dump) fputs(res->dump, stderr);
  if (!c->time) return;
  fprintf(stderr, "tlc: time per stage (ms):\n");
  for (int s = 0; s < TLC_STAGE__COUNT; s++) {
    if (res->stage_ms[s] > 0) fprintf(stderr, "  %-14s %9.3f\n", tlc_stage_name((tlc_stage)s), res->stage_ms[s]);
    else fprintf(stderr, "  %-14s %9s\n", tlc_stage_name((tlc_stage)s), "-");
  }
  fprintf(stderr, "  %-14s %9.3f\n", "total", res->compile_ms);
}

/* NAME.h, then NAME.c, for -o NAME (or NAME.c / NAME.h): the header first,
 * so that a failure leaves no source without its header. */
static int write_pair(Cli *c, const char *header, const char *src) {
  size_t n = strlen(c->out_path);
  const char *ext = strrchr(c->out_path, '.');
  if (ext && (!strcmp(ext, ".c") || !strcmp(ext, ".h")) && !strchr(ext, '/')) n -= 2;
  char *path = malloc(n + 3);
  memcpy(path, c->out_path, n);
  int rc = 0;
  snprintf(path + n, 3, ".h");
  rc = write_output(c, path, header);
  snprintf(path + n, 3, ".c");
  if (rc == 0) rc = write_output(c, path, src);
  free(path);
  return rc;
}

/* One kernel of an --emit c pair as it is built: compiled once, or once
 * per chosen config of its autotune decorator. */
typedef struct AotBuild {
  CliKernel spec;                      /* with every kernel's defaults filled in */
  AotGrid *grid;
  tlc_tune_info info;                  /* --autotune: the decorator */
  int nvariants, config_of[AOT_MAX_CONFIGS];
  tlc_compile_options opts[AOT_MAX_CONFIGS];
  tlc_constexpr_def *defs[AOT_MAX_CONFIGS]; /* -C's and the config's (heap) */
  tlc_compile_result res[AOT_MAX_CONFIGS];
  AotKernel ks[AOT_MAX_CONFIGS];
  int compiled;                        /* res[0..compiled) to free */
} AotBuild;

/* The configs --autotune asks for into b->config_of: LIST's, or every one
 * prune_configs_by keeps for what the build knows (all when it keeps none). */
static int choose_configs(Cli *c, AotBuild *b, const char *kernel) {
  const tlc_tune_info *info = &b->info;
  if (!*b->spec.autotune) {
    for (int pass = 0; pass < 2 && b->nvariants == 0; pass++)
      for (int i = 0; i < info->nconfigs && b->nvariants < AOT_MAX_CONFIGS; i++)
        if (pass || !info->configs[i].pruned) b->config_of[b->nvariants++] = i;
    if (info->nconfigs > AOT_MAX_CONFIGS)
      cli_error(c, "--autotune: %s has %d configs; one pair holds at most %d of them (choose with --autotune=LIST)",
                kernel, info->nconfigs, AOT_MAX_CONFIGS);
    return info->nconfigs > AOT_MAX_CONFIGS;
  }
  for (const char *p = b->spec.autotune; *p;) {
    char *end;
    long i = strtol(p, &end, 10);
    p = *end ? end + 1 : end;
    if (i >= info->nconfigs) {
      cli_error(c, "--autotune=%s: %s has %d config%s (0 to %d, as tlc autotune lists them), not %ld",
                b->spec.autotune, kernel, info->nconfigs, info->nconfigs == 1 ? "" : "s", info->nconfigs - 1, i);
      return 1;
    }
    for (int j = 0; j < b->nvariants; j++)
      if (b->config_of[j] == i) {
        cli_error(c, "--autotune=%s: config %ld is listed twice", b->spec.autotune, i);
        return 1;
      }
    if (b->nvariants == AOT_MAX_CONFIGS) {
      cli_error(c, "--autotune=%s: one pair holds at most %d configs of a kernel", b->spec.autotune, AOT_MAX_CONFIGS);
      return 1;
    }
    b->config_of[b->nvariants++] = (int)i;
  }
  return 0;
}

/* "'NAME'", or "the kernel" when no --kernel names it, for messages. */
static const char *kernel_label(const CliKernel *k, char *buf, size_t len) {
  if (!k->kernel) return "the kernel";
  snprintf(buf, len, "'%s'", k->kernel);
  return buf;
}

/* Variant v's options into b->opts[v]: the options shared by every kernel,
 * its kernel and signature, and (autotuned) its config's constexprs and
 * warps/stages.  -1 when all is well, else the index j of the config's
 * constexpr that -C gives too (say_conflict reports it). */
static int variant_options(Cli *c, AotBuild *b, int v) {
  tlc_compile_options *o = &b->opts[v];
  *o = c->opt;
  o->kernel = b->spec.kernel;
  o->signature = b->spec.signature;
  const tlc_tune_config *tc = b->spec.autotune ? &b->info.configs[b->config_of[v]] : NULL;
  if (!tc) return -1;
  for (int j = 0; j < tc->nconstexprs; j++)
    for (int i = 0; i < c->ncdefs; i++)
      if (!strcmp(c->cdefs[i].name, tc->constexprs[j].name)) return j;
  free(b->defs[v]);
  b->defs[v] = calloc((size_t)(c->ncdefs + tc->nconstexprs) + 1, sizeof *b->defs[v]);
  memcpy(b->defs[v], c->cdefs, sizeof *c->cdefs * (size_t)c->ncdefs);
  for (int j = 0; j < tc->nconstexprs; j++) b->defs[v][c->ncdefs + j] = tc->constexprs[j];
  o->constexprs = b->defs[v];
  o->nconstexprs = c->ncdefs + tc->nconstexprs;
  o->num_warps = tc->num_warps, o->num_stages = tc->num_stages;
  return -1;
}

static void say_conflict(Cli *c, AotBuild *b, int v, int j) {
  const tlc_tune_config *tc = &b->info.configs[b->config_of[v]];
  char label[160];
  const char *kernel = kernel_label(&b->spec, label, sizeof label);
  for (int i = 0; i < c->ncdefs; i++)
    if (!strcmp(c->cdefs[i].name, tc->constexprs[j].name))
      cli_error(c, "-C %s=%s: config %d of the @triton.autotune of %s gives '%s' too (%s=%s); leave it out of -C",
                c->cdefs[i].name, c->cdefs[i].value, b->config_of[v], kernel, tc->constexprs[j].name,
                tc->constexprs[j].name, tc->constexprs[j].value);
}

/* Variants [0, n) compiled into b->res on several threads (the online CPUs,
 * at most 16, $TLC_COMPILE_THREADS; each compile is independent, so each
 * result is the one a compile alone gives); their statuses into st. */
typedef struct AotJobs {
  AotBuild *b;
  const char *source, *path;
  tlc_compile_status *st;
  int n;
  atomic_int next;
} AotJobs;

static void *aot_compile_worker(void *arg) {
  AotJobs *j = arg;
  for (int v; (v = atomic_fetch_add(&j->next, 1)) < j->n;)
    j->st[v] = tlc_compile(j->path, j->source, &j->b->opts[v], &j->b->res[v]);
  return NULL;
}

static void compile_variants(AotBuild *b, int n, const char *source, const char *path, tlc_compile_status *st) {
  AotJobs j = {b, source, path, st, n};
  atomic_init(&j.next, 0);
  const char *e = getenv("TLC_COMPILE_THREADS");
  long nt = e && *e ? strtol(e, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
  nt = nt < 1 ? 1 : nt > 16 ? 16 : nt;
  if (nt > n) nt = n;
  pthread_t tid[16];
  int started = 0;
  for (long t = 1; t < nt; t++)
    if (pthread_create(&tid[started], NULL, aot_compile_worker, &j) == 0) started++;
  aot_compile_worker(&j);
  for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
  b->compiled = n;
}

/* Variant v's result reported as a compile alone reports it; nonzero (an
 * exit status) when it failed. */
static int finish_variant(Cli *c, AotBuild *b, int v, tlc_compile_status st, const char *source, const char *path) {
  report(c, &b->res[v]);
  b->ks[v] = (AotKernel){path, source, &b->opts[v], &b->res[v]};
  if (st != TLC_COMPILE_OK && b->spec.autotune) {
    char text[512], label[160];
    tlc_tune_config_text(&b->info.configs[b->config_of[v]], text, sizeof text);
    cli_error(c, "config %d (%s) of the @triton.autotune of %s did not compile (a config's constexprs are given "
              "by name: the signature writes '_' for them); leave the config out with --autotune=LIST",
              b->config_of[v], text, kernel_label(&b->spec, label, sizeof label));
  }
  return exit_status(st);
}

/* Read b's decorator, choose its configs, compile them (or b once).  The
 * configs compile at once on several threads; what they report comes out
 * in config order, up to the first config that fails (a -C that a config
 * gives too, a compile error, a grid the config cannot take), as when they
 * compiled one after another. */
static int build_kernel(Cli *c, AotBuild *b, const char *source, const char *path) {
  char why[1024];
  if (b->spec.grid && !(b->grid = grid_parse(b->spec.grid, why, sizeof why))) {
    cli_error(c, "%s", why);
    return 2;
  }
  tlc_compile_status st[AOT_MAX_CONFIGS];
  if (!b->spec.autotune) {
    b->nvariants = 1;
    variant_options(c, b, 0);
    compile_variants(b, 1, source, path, st);
    return finish_variant(c, b, 0, st[0], source, path);
  }
  char label[160];
  const char *kernel = kernel_label(&b->spec, label, sizeof label);
  tlc_compile_status ist = tlc_autotune_info_for(path, source, b->spec.kernel, c->opt.arch, b->spec.signature,
                                                 c->cdefs, c->ncdefs, &b->info);
  if (b->info.diagnostics && *b->info.diagnostics) fputs(b->info.diagnostics, stderr);
  if (ist != TLC_COMPILE_OK) return exit_status(ist);
  if (!b->info.present || b->info.nconfigs == 0) {
    cli_error(c, "--autotune: %s has no @triton.autotune decorator with configs; compile it without --autotune",
              kernel);
    return 1;
  }
  if (choose_configs(c, b, kernel)) return 1;
  int n = 0, conflict = -1; /* the variants before the first -C conflict compile */
  for (; n < b->nvariants && (conflict = variant_options(c, b, n)) < 0; n++) {}
  compile_variants(b, n, source, path, st);
  int rc = 0;
  for (int v = 0; v < b->nvariants && rc == 0; v++) {
    if (v == n) {
      say_conflict(c, b, v, conflict);
      return 1;
    }
    rc = finish_variant(c, b, v, st[v], source, path);
    char what[160];
    snprintf(what, sizeof what, "'%s' (config %d)", b->res[v].kernel_symbol, b->config_of[v]);
    if (rc == 0 && b->grid && grid_check(b->grid, &b->res[v], what, why, sizeof why) != 0) {
      cli_error(c, "%s", why);
      rc = 1;
    }
  }
  return rc;
}

static void build_free(AotBuild *b) {
  for (int v = 0; v < b->compiled; v++) tlc_compile_result_free(&b->res[v]);
  for (int v = 0; v < AOT_MAX_CONFIGS; v++) free(b->defs[v]);
  tlc_tune_info_free(&b->info);
  grid_free(b->grid);
}

/* --emit c: every kernel of the command line (one when no --kernel is
 * given) compiled, then one pair of files; --metadata beside a pair of one
 * plain kernel. */
static int compile_c(Cli *c, const char *source, const char *path) {
  int n = c->nkernels ? c->nkernels : 1, rc = 0, built = 0;
  AotBuild *bs = calloc((size_t)n, sizeof *bs);
  AotEntry es[AOT_MAX_KERNELS];
  if (!bs) {
    cli_error(c, "out of memory");
    return 1;
  }
  for (; built < n && rc == 0; built++) {
    AotBuild *b = &bs[built];
    b->spec = c->nkernels ? c->kernels[built] : c->first;
    if (!b->spec.signature) b->spec.signature = c->first.signature;
    if (!b->spec.grid) b->spec.grid = c->first.grid;
    if (!b->spec.autotune) b->spec.autotune = c->first.autotune;
    rc = build_kernel(c, b, source, path);
    es[built] = (AotEntry){b->ks, b->nvariants, b->grid, b->spec.autotune ? &b->info : NULL, b->config_of};
  }
  char prefix[128], why[1024], *header = NULL, *src = NULL, *meta = NULL;
  if (rc == 0 && (aot_prefix(c->out_path, prefix, sizeof prefix, why, sizeof why) != 0 ||
                  aot_emit_c(es, n, prefix, &header, &src, why, sizeof why) != 0)) {
    cli_error(c, "%s", why);
    rc = 1;
  }
  if (rc == 0 && c->metadata_path && !(meta = aot_metadata_json(&bs[0].ks[0]))) {
    cli_error(c, "out of memory writing the metadata");
    rc = 1;
  }
  if (rc == 0) rc = write_pair(c, header, src);
  if (rc == 0 && meta && write_output(c, c->metadata_path, meta) != 0) rc = 1;
  free(header), free(src), free(meta);
  for (int i = 0; i < built; i++) build_free(&bs[i]);
  free(bs);
  return rc;
}

static int compile_main(Cli *c, const char *source) {
  c->opt.constexprs = c->cdefs;
  c->opt.nconstexprs = c->ncdefs;
  const char *path = strcmp(c->file, "-") ? c->file : "<stdin>";
  if (c->aot == AOT_C) return compile_c(c, source, path);
  tlc_compile_result res;
  tlc_compile_status st = tlc_compile(path, source, &c->opt, &res);
  report(c, &res);
  int rc = exit_status(st);
  AotKernel k = {path, source, &c->opt, &res};
  char *meta = NULL;
  if (st == TLC_COMPILE_OK && (c->aot == AOT_JSON || c->metadata_path) && !(meta = aot_metadata_json(&k))) {
    cli_error(c, "out of memory writing the metadata");
    rc = 1;
  }
  if (rc == 0 && write_output(c, c->out_path, c->aot == AOT_JSON ? meta : res.text) != 0) rc = 1;
  if (rc == 0 && c->metadata_path && write_output(c, c->metadata_path, meta) != 0) rc = 1;
  free(meta);
  tlc_compile_result_free(&res);
  return rc;
}

/* tlc opt: the whole file, or (--split-input-file) each part between
 * "// -----" lines as its own module: the text up to the part's end with
 * the parts before it blanked, so that line numbers stay the file's; the
 * outputs joined by "// -----". */
static int opt_main(Cli *c, const char *text) {
  const char *path = strcmp(c->file, "-") ? c->file : "<stdin>";
  size_t len = strlen(text);
  char *part = malloc(len + 1);
  char *out = calloc(1, 1);
  size_t outlen = 0;
  int rc = 0;
  for (const char *start = text; start;) {
    const char *end = NULL;
    if (c->split)
      for (const char *q = start; (q = strstr(q, "// -----")) != NULL; q++)
        if (q == text || q[-1] == '\n') { end = q; break; }
    size_t n = end ? (size_t)(end - text) : len;
    for (size_t i = 0; i < n; i++) part[i] = text + i >= start || text[i] == '\n' ? text[i] : ' ';
    part[n] = 0;
    tlc_compile_result res;
    tlc_compile_status st = tlc_opt_ir(path, part, c->passes, &c->opt, &res);
    report(c, &res);
    if (exit_status(st) > rc) rc = exit_status(st);
    if (res.text) {
      const char *sep = outlen ? "// -----\n" : "";
      out = realloc(out, outlen + strlen(sep) + strlen(res.text) + 1);
      outlen += (size_t)sprintf(out + outlen, "%s%s", sep, res.text);
    }
    tlc_compile_result_free(&res);
    start = end ? strchr(end, '\n') : NULL;
    if (start) start++;
  }
  if (rc == 0 && write_output(c, c->out_path, out) != 0) rc = 1;
  free(out);
  free(part);
  return rc;
}

static int autotune_main(Cli *c, const char *source) {
  tlc_tune_info info;
  tlc_compile_status st = tlc_autotune_info_for(c->file, source, c->opt.kernel, c->opt.arch, c->opt.signature,
                                                c->cdefs, c->ncdefs, &info);
  if (info.diagnostics && *info.diagnostics) fputs(info.diagnostics, stderr);
  if (st == TLC_COMPILE_OK) {
    if (!info.present) printf("no autotune decorator\n");
    printf("key:");
    for (int i = 0; i < info.nkeys; i++) printf(" %s", info.keys[i]);
    printf("\n");
    for (int i = 0; i < info.nconfigs; i++) {
      char text[1024];
      tlc_tune_config_text(&info.configs[i], text, sizeof text);
      printf("%s%s\n", text, info.configs[i].pruned ? " pruned" : "");
    }
    for (int i = 0; i < info.nreset; i++) printf("%s %s", i ? "" : "reset_to_zero:", info.reset_to_zero[i]);
    if (info.nreset) printf("\n");
    for (int i = 0; i < info.nrestore; i++) printf("%s %s", i ? "" : "restore_value:", info.restore_value[i]);
    if (info.nrestore) printf("\n");
  }
  tlc_tune_info_free(&info);
  return exit_status(st);
}

/* The command's checks of what the library would refuse, as usage errors. */
static int check_options(Cli *c) {
  char why[256];
  tlc_compile_options o = c->opt;
  o.constexprs = c->cdefs, o.nconstexprs = c->ncdefs;
  if (tlc_compile_options_check(&o, why, sizeof why) != 0) return usage_error(c, "%s", why);
  return 0;
}

/* --grid and --autotune of tlc compile: only with --emit c, and an
 * autotuned kernel needs a grid. */
static int check_aot_kernels(Cli *c) {
  int n = c->nkernels ? c->nkernels : 1;
  for (int i = 0; i < n; i++) {
    CliKernel k = c->nkernels ? c->kernels[i] : c->first;
    const char *grid = k.grid ? k.grid : c->first.grid, *tune = k.autotune ? k.autotune : c->first.autotune;
    char label[160];
    const char *name = kernel_label(&k, label, sizeof label);
    if ((grid || tune) && c->aot != AOT_C)
      return usage_error(c, "--%s shapes the launch functions that --emit c writes; give --emit c -o NAME",
                         tune ? "autotune" : "grid");
    if (tune && c->metadata_path)
      return usage_error(c, "--autotune with --metadata: the metadata describes one compiled kernel, and "
                         "--autotune compiles one per config (the generated header lists them)");
    if (tune && !grid)
      return usage_error(c, "--autotune: the dispatcher of %s computes each config's grid itself: give "
                         "--grid, e.g. --grid 'cdiv(n, BLOCK)' (after --kernel, for that kernel alone)", name);
  }
  return 0;
}

static int run_main(Cli *c, const char *source) {
  char **cx = calloc((size_t)c->ncdefs + 1, sizeof *cx);
  for (int i = 0; i < c->ncdefs; i++) {
    size_t n = strlen(c->cdefs[i].name) + strlen(c->cdefs[i].value) + 2;
    cx[i] = malloc(n);
    snprintf(cx[i], n, "%s=%s", c->cdefs[i].name, c->cdefs[i].value);
  }
  RunRequest r = {c->file, source, c->opt.kernel, c->opt.signature, (const char *const *)cx, c->ncdefs,
                  c->opt.num_warps, c->opt.debug, {c->grid[0], c->grid[1], c->grid[2]}, c->run_args, c->nrun_args};
  int rc = run_kernel(&r);
  for (int i = 0; i < c->ncdefs; i++) free(cx[i]);
  free(cx);
  return rc;
}

static int run(Cli *c, int argc, char **argv) {
  int rc = parse_args(c, argc, argv);
  if (rc) return rc < 0 ? 0 : rc;
  c->opt.color = c->color;
  if (c->opt.libdevice && !c->math_lib_given) c->opt.math_lib = TLC_MATH_LIBDEVICE;
  else if (!c->math_lib_given && tlc_math_lib_from_env(&c->opt.math_lib) != 0)
    return usage_error(c, "TLC_MATH_LIB=%s: expected auto (the default), libdevice or libclc",
                       getenv("TLC_MATH_LIB"));
  if (c->cmd != CMD_AUTOTUNE && (rc = check_options(c)) != 0) return rc;
  if (c->aot == AOT_C && (!c->out_path || !strcmp(c->out_path, "-")))
    return usage_error(c, "--emit c writes two files, NAME.c and NAME.h: give -o NAME");
  if (c->nkernels > 1 && (c->aot != AOT_C || c->metadata_path))
    return usage_error(c, "--kernel given %d times ('%s', '%s'%s): several kernels go only into one --emit c "
                       "pair (tlc compile FILE --kernel A --signature S1 --kernel B --signature S2 --emit c -o NAME)%s",
                       c->nkernels, c->kernels[0].kernel, c->kernels[1].kernel, c->nkernels > 2 ? ", ..." : "",
                       c->metadata_path ? ", without --metadata" : "");
  if (c->cmd == CMD_COMPILE && (rc = check_aot_kernels(c)) != 0) return rc;
  const char *err = NULL;
  char *source = slurp(c->file, &err);
  if (!source) {
    cli_error(c, "cannot read '%s': %s", c->file, err);
    return 1;
  }
  rc = c->cmd == CMD_COMPILE ? compile_main(c, source) : c->cmd == CMD_OPT ? opt_main(c, source)
       : c->cmd == CMD_RUN ? run_main(c, source) : autotune_main(c, source);
  free(source);
  return rc;
}

int main(int argc, char **argv) {
  Cli c = {0};
  c.color = want_color(NULL);
  if (argc < 2) {
    print_help(stderr, CMD_ALL);
    return 2;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    print_help(stdout, CMD_ALL);
    return 0;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("tlc %s\n", TLC_VERSION_STRING);
    return 0;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (!strcmp(argv[1], commands[i].name)) c.cmd = commands[i].bit;
  if (!c.cmd) return usage_error(&c, "unknown command '%s' (compile, opt, autotune, run)", argv[1]);
  tlc_compile_options_init(&c.opt);
  c.cdefs = calloc((size_t)argc, sizeof *c.cdefs);
  c.run_args = calloc((size_t)argc, sizeof *c.run_args);
  c.grid[0] = c.grid[1] = c.grid[2] = 1;
  int rc = run(&c, argc, argv);
  for (int i = 0; i < c.ncdefs; i++) free((char *)c.cdefs[i].name);
  free(c.cdefs);
  free(c.run_args);
  free(c.passes);
  return rc;
}
