/* fuzz_compile.c — the libFuzzer harness: one input is one .tile file, run
 * through the lexer, the parser, specialization, the pass pipeline and code
 * generation up to LLVM IR (tlc_compile with TLC_EMIT_TIR, then for a
 * quarter of the inputs that succeeded TLC_EMIT_LLVM at -O0), the AST dump
 * (TLC_EMIT_AST) for an eighth of the inputs, and the autotune reader for
 * a quarter of those that mention autotune (each run parses the input
 * again, and under the sanitizers parsing is most of the cost).
 *
 * Options.  Where the input holds a line `#fuzz: OPTIONS` or a lit line
 * `RUN: ... %tlc compile %s OPTIONS`, the first such line gives tlc's own
 * command-line options (--kernel, --signature, --constexpr/-C, --num-warps,
 * --arch, -O, --emit; the value after '=' or attached as getopt takes it),
 * so the seeds taken from tests/lit keep the signature
 * their RUN line gives and mutations of that line fuzz the signature parser.
 * Without a signature the harness derives one from the kernel's parameters
 * (a pointer for names with "ptr", a power of two for tl.constexpr, i32
 * otherwise), so mutants that rename or add parameters still specialize.
 *
 * Mutation.  Half of the mutations are libFuzzer's byte-level ones (with the
 * dictionary tests/fuzz/tlc.dict); the other half work on lines and tokens
 * of the text: insert a kernel statement from a small table at the
 * indentation of a neighbour, duplicate/delete/swap lines, change a number
 * to an interesting one, rename an identifier to another one of the input,
 * indent or dedent a line.  That keeps most mutants parseable, so they reach
 * specialization and the passes.
 *
 * An input with a line starting "func @" is tile IR instead (the .tir files
 * of tests/lit and their mutants): it goes through tlc_opt_ir — the reader,
 * the verifier and the default passes, as `tlc opt --pass` runs them.
 *
 * The harness only checks that tlc returns: every outcome (success, error
 * with diagnostics, internal error) is fine; a crash, a hang, a leak or a
 * sanitizer report is a bug.  An internal compiler error is printed when
 * TLC_FUZZ_ICE is set in the environment and aborts when it is "abort";
 * TLC_FUZZ_VERBOSE prints the options used and the diagnostics. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/tlc_compiler.h"
#include "frontend/frontend.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

enum { MAX_INPUT = 1 << 16, MAX_CONSTEXPRS = 8, MAX_ARG = 256 };

/* ---- options from the input ------------------------------------------------- */

typedef struct FuzzOptions {
  char kernel[MAX_ARG];
  char signature[MAX_ARG];
  char cnames[MAX_CONSTEXPRS][64], cvalues[MAX_CONSTEXPRS][64];
  int nconstexprs;
  char arch[16];
  int num_warps;   /* 0: default */
  int opt_level;   /* LLVM level for the LLVM run; default 0 (fast) */
  bool has_sig, has_kernel, has_opt_level, want_ptx;
} FuzzOptions;

/* Next shell-like word of [p, end): '...' and "..." quote; returns the
 * position after it, or NULL at the end. */
static const char *next_word(const char *p, const char *end, char *out, size_t cap) {
  while (p < end && (*p == ' ' || *p == '\t')) p++;
  if (p >= end || *p == '|') return NULL;
  size_t n = 0;
  while (p < end && *p != ' ' && *p != '\t') {
    if (*p == '\'' || *p == '"') {
      char q = *p++;
      while (p < end && *p != q) {
        if (n + 1 < cap) out[n++] = *p;
        p++;
      }
      if (p < end) p++;
      continue;
    }
    if (n + 1 < cap) out[n++] = *p;
    p++;
  }
  out[n] = 0;
  return p;
}

static void copy_str(char *dst, size_t cap, const char *src) {
  size_t n = strlen(src);
  if (n >= cap) n = cap - 1;
  memcpy(dst, src, n);
  dst[n] = 0;
}

static void add_constexpr(FuzzOptions *o, const char *nv) {
  const char *eq = strchr(nv, '=');
  if (!eq || o->nconstexprs >= MAX_CONSTEXPRS) return;
  size_t n = (size_t)(eq - nv);
  if (n == 0 || n >= sizeof o->cnames[0]) return;
  memcpy(o->cnames[o->nconstexprs], nv, n);
  o->cnames[o->nconstexprs][n] = 0;
  copy_str(o->cvalues[o->nconstexprs], sizeof o->cvalues[0], eq + 1);
  o->nconstexprs++;
}

/* The value given in the word itself, as getopt_long takes it
 * (--signature=SIG, -O2, -CBLOCK=64): split off into v; false when none. */
static bool attached_value(char *w, char *v, size_t cap) {
  char *eq = strchr(w, '=');
  if (w[0] == '-' && w[1] == '-' && eq) {
    copy_str(v, cap, eq + 1);
    *eq = 0;
    return true;
  }
  if (w[0] == '-' && (w[1] == 'O' || w[1] == 'C') && w[2]) {
    copy_str(v, cap, w + 2);
    w[2] = 0;
    return true;
  }
  return false;
}

static void parse_option_line(FuzzOptions *o, const char *p, const char *end) {
  char w[MAX_ARG], v[MAX_ARG];
  while ((p = next_word(p, end, w, sizeof w))) {
    bool attached = attached_value(w, v, sizeof v);
    bool takes = !strcmp(w, "--kernel") || !strcmp(w, "--signature") || !strcmp(w, "--constexpr") ||
                 !strcmp(w, "-C") || !strcmp(w, "--num-warps") || !strcmp(w, "--arch") ||
                 !strcmp(w, "-O") || !strcmp(w, "--emit");
    if (!takes) continue;
    if (!attached) {
      const char *q = next_word(p, end, v, sizeof v);
      if (!q) return;
      p = q;
    }
    if (!strcmp(w, "--kernel")) copy_str(o->kernel, sizeof o->kernel, v), o->has_kernel = true;
    else if (!strcmp(w, "--signature")) copy_str(o->signature, sizeof o->signature, v), o->has_sig = true;
    else if (!strcmp(w, "--constexpr") || !strcmp(w, "-C")) add_constexpr(o, v);
    else if (!strcmp(w, "--num-warps")) o->num_warps = atoi(v);
    else if (!strcmp(w, "--arch")) copy_str(o->arch, sizeof o->arch, v);
    else if (!strcmp(w, "-O")) o->opt_level = atoi(v) & 3, o->has_opt_level = true;
    else if (!strcmp(w, "--emit")) o->want_ptx = !strcmp(v, "ptx");
  }
}

static void read_options(const char *src, FuzzOptions *o) {
  memset(o, 0, sizeof *o);
  for (const char *line = src; line && *line;) {
    const char *nl = strchr(line, '\n');
    const char *end = nl ? nl : line + strlen(line);
    const char *f = NULL;
    for (const char *p = line; p + 6 <= end && !f; p++)
      if (!strncmp(p, "#fuzz:", 6)) f = p + 6;
    if (!f)
      for (const char *p = line; p + 12 <= end && !f; p++)
        if (!strncmp(p, "tlc compile ", 12)) f = p + 12;
    if (f) {
      parse_option_line(o, f, end);
      return;
    }
    line = nl ? nl + 1 : NULL;
  }
}

/* ---- a signature from the parameter list -------------------------------------- */

static uint32_t name_hash(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

static bool is_constexpr_annotation(const Expr *a) {
  if (!a) return false;
  const char *n = a->kind == EX_ATTR || a->kind == EX_NAME ? a->name : "";
  return n && !strcmp(n, "constexpr");
}

static bool has_jit(const FuncDef *f) {
  for (int i = 0; i < f->ndecorators; i++) {
    const Expr *d = f->decorators[i];
    if (d->kind == EX_CALL) d = d->value;
    if ((d->kind == EX_ATTR || d->kind == EX_NAME) && d->name &&
        (!strcmp(d->name, "jit") || !strcmp(d->name, "autotune") || !strcmp(d->name, "heuristics")))
      return true;
  }
  return false;
}

static void derive_signature(const char *src, FuzzOptions *o) {
  DiagEngine d;
  diag_init(&d);
  Module m;
  parse_module("<fuzz>", src, &d, &m);
  const FuncDef *k = NULL;
  if (o->has_kernel) k = ast_find_def(&m, o->kernel);
  for (int i = 0; !k && i < m.body.n; i++)
    if (m.body.stmts[i]->kind == ST_DEF && has_jit(m.body.stmts[i]->def)) k = m.body.stmts[i]->def;
  if (k) {
    static const char *const ptrs[] = {"*fp32:16", "*fp16:16", "*fp32:16", "*i32:16", "*fp32", "*bf16", "*fp16", "*i8", "*fp64", "*i1"};
    static const char *const consts[] = {"64", "128", "16", "32", "1", "256", "8", "2"};
    static const char *const scalars[] = {"i32", "i32:16", "i32", "i64", "1", "i32", "fp32", "u32"};
    size_t n = 0;
    o->signature[0] = 0;
    for (int i = 0; i < k->nparams; i++) {
      const Param *p = &k->params[i];
      uint32_t h = name_hash(p->name) >> 3;
      const char *e;
      if (is_constexpr_annotation(p->annotation)) e = p->default_ ? "_" : consts[h % 8];
      else if (strstr(p->name, "ptr") || strstr(p->name, "Ptr") || strstr(p->name, "PTR")) e = ptrs[h % 10];
      else if (p->default_) e = "_";
      else e = scalars[h % 8];
      int w = snprintf(o->signature + n, sizeof o->signature - n, "%s%s", i ? "," : "", e);
      if (w < 0 || (size_t)w >= sizeof o->signature - n) break;
      n += (size_t)w;
    }
    o->has_sig = true;
    if (!o->has_kernel) copy_str(o->kernel, sizeof o->kernel, k->name), o->has_kernel = true;
  }
  ast_free(&m);
  diag_free(&d);
}

/* ---- the target ------------------------------------------------------------------ */

static void check_ice(tlc_compile_status st, const char *what, const tlc_compile_result *r) {
  if (st != TLC_COMPILE_INTERNAL) return;
  const char *mode = getenv("TLC_FUZZ_ICE");
  if (!mode) return;
  fprintf(stderr, "tlc_fuzz: internal compiler error (%s):\n%s\n", what, r->diagnostics);
  if (!strcmp(mode, "abort")) abort();
}

/* Tile IR text: a line starting "func @" (the .tir seeds and their mutants). */
static bool is_tile_ir(const char *src) {
  for (const char *p = src; p; p = strchr(p, '\n')) {
    if (*p == '\n') p++;
    if (!strncmp(p, "func @", 6)) return true;
  }
  return false;
}

/* The reader and the default passes, as `tlc opt --pass` runs them. */
static void fuzz_tile_ir(const char *src) {
  tlc_compile_result r;
  tlc_compile_status st =
      tlc_opt_ir("fuzz.tir", src, "canonicalize,coalesce,assign-layouts,canonicalize,allocate-shared", NULL, &r);
  check_ice(st, "opt", &r);
  if (getenv("TLC_FUZZ_VERBOSE")) fprintf(stderr, "tlc_fuzz: tile IR, status=%d\n%s", (int)st, r.diagnostics);
  tlc_compile_result_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > MAX_INPUT) return 0;
  char *src = malloc(size + 1);
  memcpy(src, data, size);
  src[size] = 0;
  if (is_tile_ir(src)) {
    fuzz_tile_ir(src);
    free(src);
    return 0;
  }

  FuzzOptions o;
  read_options(src, &o);
  if (!o.has_sig) derive_signature(src, &o);

  tlc_constexpr_def defs[MAX_CONSTEXPRS];
  for (int i = 0; i < o.nconstexprs; i++) defs[i] = (tlc_constexpr_def){o.cnames[i], o.cvalues[i]};
  tlc_compile_options opt;
  tlc_compile_options_init(&opt);
  opt.kernel = o.has_kernel ? o.kernel : NULL;
  opt.signature = o.has_sig ? o.signature : NULL;
  opt.constexprs = defs;
  opt.nconstexprs = o.nconstexprs;
  if (o.arch[0]) opt.arch = o.arch;
  if (o.num_warps) opt.num_warps = o.num_warps;
  opt.verify_each = true;
  char fp[33];
  tlc_compile_fingerprint(src, &opt, fp);

  opt.emit = TLC_EMIT_TIR;
  tlc_compile_result r;
  tlc_compile_status st = tlc_compile("fuzz.tile", src, &opt, &r);
  check_ice(st, "tir", &r);
  if (getenv("TLC_FUZZ_VERBOSE"))
    fprintf(stderr, "tlc_fuzz: kernel=%s signature=%s status=%d %.2f ms\n%s", opt.kernel ? opt.kernel : "-",
            opt.signature ? opt.signature : "-", (int)st, r.compile_ms, r.diagnostics);
  tlc_compile_result_free(&r);
  /* Code generation costs several times what the rest does: run it for a
   * quarter of the inputs that got through the passes (chosen by a hash of
   * the input, so a given input always does the same), and always when the
   * options ask for an -O level or PTX. */
  bool codegen = o.has_opt_level || o.want_ptx || (name_hash(src) & 3) == 0;
  if (st == TLC_COMPILE_OK && codegen) {
    opt.emit = o.want_ptx ? TLC_EMIT_PTX : TLC_EMIT_LLVM;
    opt.opt_level = o.opt_level;
    opt.verify_each = false;
    st = tlc_compile("fuzz.tile", src, &opt, &r);
    check_ice(st, o.want_ptx ? "ptx" : "llvm", &r);
    if (getenv("TLC_FUZZ_VERBOSE")) fprintf(stderr, "tlc_fuzz: llvm status=%d %.2f ms\n", (int)st, r.compile_ms);
    tlc_compile_result_free(&r);
  }
  if ((name_hash(src) & 7) == 1) { /* the AST dump, for an eighth of the inputs */
    opt.emit = TLC_EMIT_AST;
    st = tlc_compile("fuzz.tile", src, &opt, &r);
    check_ice(st, "ast", &r);
    tlc_compile_result_free(&r);
  }
  if ((name_hash(src) & 3) == 2 && strstr(src, "autotune")) { /* a quarter: parsing dominates */
    tlc_tune_info ti;
    tlc_autotune_info("fuzz.tile", src, opt.kernel, opt.arch, &ti);
    tlc_tune_info_free(&ti);
  }
  free(src);
  return 0;
}

/* ---- the line/token mutator ------------------------------------------------------- */

static uint64_t rng_state;
static uint32_t rnd(uint32_t n) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return n ? (uint32_t)((rng_state >> 33) % n) : 0;
}

/* Statements a kernel body is made of; the mutator inserts them. */
static const char *const snippets[] = {
    "pid = tl.program_id(0)",
    "pid = tl.program_id(axis=1)",
    "offs = pid * BLOCK + tl.arange(0, BLOCK)",
    "offs = tl.arange(0, 64)",
    "mask = offs < n",
    "x = tl.load(x_ptr + offs, mask=mask, other=0.0)",
    "x = tl.load(x_ptr + offs)",
    "tl.store(out_ptr + offs, x, mask=mask)",
    "tl.store(x_ptr + offs, x)",
    "acc = tl.zeros([BLOCK, BLOCK], dtype=tl.float32)",
    "acc += tl.dot(a, b)",
    "acc = tl.dot(a, b, acc)",
    "x = x[:, None] + x[None, :]",
    "x = tl.sum(x, axis=0)",
    "x = tl.max(x, axis=1, keep_dims=True)",
    "x = tl.where(mask, x, 0.0)",
    "x = x.to(tl.float16)",
    "x = tl.exp(x - tl.max(x, axis=0))",
    "x = tl.reshape(x, (BLOCK, 1))",
    "x = tl.trans(x)",
    "y = tl.broadcast_to(x, (BLOCK, BLOCK))",
    "for i in range(0, n, BLOCK):",
    "for i in tl.static_range(4):",
    "for i in tl.range(0, n, 1, num_stages=2):",
    "while x < n:",
    "if pid == 0:",
    "if BLOCK >= 64:",
    "else:",
    "    x = x + 1",
    "x = x * 2.0",
    "n = n // 2",
    "tl.static_assert(BLOCK % 16 == 0, \"BLOCK\")",
    "bp = tl.make_block_ptr(x_ptr, (n, n), (n, 1), (0, 0), (BLOCK, BLOCK), (1, 0))",
    "x = tl.load(bp, boundary_check=(0, 1))",
    "bp = tl.advance(bp, (BLOCK, 0))",
    "tl.atomic_add(x_ptr + offs, x, mask=mask)",
    "a, b = tl.broadcast(x, y)",
    "x = helper(x, BLOCK)",
    "return x",
    "return",
    "x = tl.cdiv(n, BLOCK)",
    "x = tl.full([BLOCK], 1, tl.int32)",
    "x = tl.argmax(x, axis=0)",
    "x = tl.math.rsqrt(x)",
    "x = tl.multiple_of(offs, 16)",
    "x = tl.expand_dims(x, 0)",
    "x = tl.permute(x, (1, 0))",
    "x = tl.cast(x, tl.int8, bitcast=True)",
    "x = tl.fma(x, y, x)",
    "x = -x if n > 0 else x",
    "x = tl.minimum(x, y)",
    "x = (x >> 1) & 0xFF",
    "@triton.jit",
    "def helper(x, B: tl.constexpr):",
    "def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):",
};
enum { NSNIPPETS = sizeof snippets / sizeof snippets[0] };

static const char *const numbers[] = {
    "0", "1", "-1", "2", "3", "7", "16", "31", "32", "64", "100", "128", "1024", "4096", "65536",
    "2147483647", "2147483648", "4294967296", "9223372036854775807", "-9223372036854775808",
    "1e308", "1e-320", "0.5", "-0.0", "float('inf')", "float('nan')", "1 << 62", "2**63", "None",
    "True", "(1, 2)", "()", "[]"};
enum { NNUMBERS = sizeof numbers / sizeof numbers[0] };

typedef struct Lines {
  const char *start[4096];
  size_t len[4096];  /* without the newline */
  int n;
} Lines;

static void split_lines(const uint8_t *d, size_t size, Lines *ls) {
  ls->n = 0;
  size_t i = 0;
  while (i < size && ls->n < 4096) {
    size_t j = i;
    while (j < size && d[j] != '\n') j++;
    ls->start[ls->n] = (const char *)d + i;
    ls->len[ls->n] = j - i;
    ls->n++;
    i = j + 1;
  }
}

static size_t indent_of(const char *s, size_t n) {
  size_t k = 0;
  while (k < n && (s[k] == ' ' || s[k] == '\t')) k++;
  return k;
}

/* Rebuild the text from line pieces into out (max_size bytes). */
typedef struct Out {
  uint8_t *buf;
  size_t len, cap;
  bool full;
} Out;

static void out_put(Out *o, const char *s, size_t n) {
  if (o->len + n > o->cap) {
    o->full = true;
    n = o->cap - o->len;
  }
  memcpy(o->buf + o->len, s, n);
  o->len += n;
}

static bool is_ident_char(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Find a random token of the given class in data: numbers or names.
 * Returns its offset and length through *off / *len. */
static bool pick_token(const uint8_t *d, size_t size, bool number, size_t *off, size_t *len) {
  size_t count = 0;
  for (int pass = 0; pass < 2; pass++) {
    size_t want = pass ? rnd((uint32_t)count) : 0, seen = 0;
    for (size_t i = 0; i < size;) {
      if (!is_ident_char(d[i]) || (i && is_ident_char(d[i - 1]))) {
        i++;
        continue;
      }
      size_t j = i;
      while (j < size && is_ident_char(d[j])) j++;
      bool isnum = d[i] >= '0' && d[i] <= '9';
      if (isnum == number) {
        if (pass && seen == want) {
          *off = i, *len = j - i;
          return true;
        }
        seen++;
      }
      i = j;
    }
    count = seen;
    if (!count) return false;
  }
  return false;
}

static size_t splice(uint8_t *data, size_t size, size_t max_size, size_t off, size_t len,
                     const char *rep, size_t replen) {
  if (size - len + replen > max_size) return 0;
  memmove(data + off + replen, data + off + len, size - off - len);
  memcpy(data + off, rep, replen);
  return size - len + replen;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
  rng_state = seed * 0x9E3779B97F4A7C15ull + 1;
  if (rnd(2) == 0 || size == 0) return LLVMFuzzerMutate(data, size, max_size);
  uint32_t what = rnd(8);
  if (what == 5 || what == 6) {
    /* token level: a number to an interesting one, or a name to another name */
    size_t off, len;
    if (what == 5 && pick_token(data, size, true, &off, &len)) {
      const char *rep = numbers[rnd(NNUMBERS)];
      size_t r = splice(data, size, max_size, off, len, rep, strlen(rep));
      if (r) return r;
    } else if (what == 6 && pick_token(data, size, false, &off, &len)) {
      size_t off2, len2;
      if (pick_token(data, size, false, &off2, &len2) && len2 < 64) {
        char name[64];
        memcpy(name, data + off2, len2);
        size_t r = splice(data, size, max_size, off, len, name, len2);
        if (r) return r;
      }
    }
    return LLVMFuzzerMutate(data, size, max_size);
  }
  Lines *ls = malloc(sizeof *ls);
  split_lines(data, size, ls);
  uint8_t *tmp = malloc(max_size + 1);
  Out o = {tmp, 0, max_size, false};
  int a = ls->n ? (int)rnd((uint32_t)ls->n) : 0, b = ls->n ? (int)rnd((uint32_t)ls->n) : 0;
  const char *snip = snippets[rnd(NSNIPPETS)];
  for (int i = 0; i < ls->n; i++) {
    const char *s = ls->start[i];
    size_t n = ls->len[i];
    switch (what) {
    case 0: /* insert a snippet before line a, indented like it */
      if (i == a) {
        out_put(&o, s, indent_of(s, n));
        out_put(&o, snip, strlen(snip));
        out_put(&o, "\n", 1);
      }
      break;
    case 1: /* duplicate line a at b */
      if (i == b) {
        out_put(&o, ls->start[a], ls->len[a]);
        out_put(&o, "\n", 1);
      }
      break;
    case 2: /* delete line a */
      if (i == a) continue;
      break;
    case 3: /* swap lines a and b */
      if (i == a) s = ls->start[b], n = ls->len[b];
      else if (i == b) s = ls->start[a], n = ls->len[a];
      break;
    case 4: /* indent (or dedent) line a by four spaces */
      if (i == a) {
        if (rnd(2)) out_put(&o, "    ", 4);
        else if (indent_of(s, n) >= 4) s += 4, n -= 4;
      }
      break;
    default: /* 7: insert a snippet one level deeper after line a */
      if (i == a + 1) {
        out_put(&o, ls->start[a], indent_of(ls->start[a], ls->len[a]));
        out_put(&o, "    ", 4);
        out_put(&o, snip, strlen(snip));
        out_put(&o, "\n", 1);
      }
      break;
    }
    out_put(&o, s, n);
    if (i + 1 < ls->n || (size && data[size - 1] == '\n')) out_put(&o, "\n", 1);
  }
  size_t r = 0;
  if (!o.full && o.len) {
    memcpy(data, tmp, o.len);
    r = o.len;
  }
  free(tmp);
  free(ls);
  return r ? r : LLVMFuzzerMutate(data, size, max_size);
}
