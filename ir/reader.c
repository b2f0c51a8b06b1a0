/* reader.c — the printer's text form read back into a module, so passes can
 * be run and tested on IR written by hand (`tlc opt`, tests/lit/passes).
 *
 *   #blocked0 = #blocked<{spt=[4], tpw=[32], wpc=[4], order=[0]}>
 *   func @k(%x: ptr<f32> {div=16}, %n: i32) {num_warps=4} {
 *     %0 = arange {start=0, end=1024} : tensor<1024xi32, #blocked0>
 *     %1 = load %0, mask=%2 {vec=4} : tensor<1024xf32, #blocked0>
 *     return
 *   }
 *
 * Owns the syntax only; what an op may be is ops.def's and the verifier's.
 * Everything op-specific sits in tables at the top, so that an op or an
 * attribute added to ops.def and printer.c costs a line here:
 *   - op names come from ir_op_info (a new op in ops.def is read with the
 *     generic syntax  [results =] name operands {attrs} : types  at once);
 *   - op_attrs: one entry per attribute name the printer writes, with the
 *     OpAttrs field it fills;
 *   - func_attrs: the attributes of the func line (IrModule fields);
 *   - layout_kinds: one builder per layout syntax (#blocked<{...}>, ...);
 *   - keyword operands (load's mask= / other=, store's mask=);
 *   - the ops with syntax of their own: constant (its value), for, while
 *     and if (headers and regions) — one function each.
 *
 * Conventions of the text (all the printer's): one op per line; a `{` that
 * ends its line opens a region, any other `{` an attribute list; values are
 * %names, defined once before their uses; `_` is an absent operand; `//`
 * starts a comment.  Each op gets the location of its first character, so
 * a pass's diagnostics point into the .tir file.  The first error is
 * reported (located, with the source line) and reading stops. */
#include "ir/ir.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- names -> pointers --------------------------------------------------- */

/* A string map for value names and layout aliases: open addressing on the
 * heap, keys in the module arena. */
typedef struct NameMap {
  const char **keys;
  void **vals;
  uint32_t cap, len;
} NameMap;

static uint32_t name_hash(const char *s) { return (uint32_t)hash_bytes(s, strlen(s), 0); }

static void *map_get(const NameMap *mp, const char *key) {
  if (!mp->cap) return NULL;
  for (uint32_t i = name_hash(key) & (mp->cap - 1);; i = (i + 1) & (mp->cap - 1)) {
    if (!mp->keys[i]) return NULL;
    if (!strcmp(mp->keys[i], key)) return mp->vals[i];
  }
}

static void map_put(NameMap *mp, const char *key, void *val) {
  if (2 * (mp->len + 1) > mp->cap) {
    NameMap old = *mp;
    mp->cap = old.cap ? 2 * old.cap : 64;
    mp->keys = xcalloc(mp->cap, sizeof *mp->keys);
    mp->vals = xcalloc(mp->cap, sizeof *mp->vals);
    mp->len = 0;
    for (uint32_t i = 0; i < old.cap; i++)
      if (old.keys[i]) map_put(mp, old.keys[i], old.vals[i]);
    free(old.keys);
    free(old.vals);
  }
  uint32_t i = name_hash(key) & (mp->cap - 1);
  while (mp->keys[i]) i = (i + 1) & (mp->cap - 1);
  mp->keys[i] = key, mp->vals[i] = val, mp->len++;
}

static void map_free(NameMap *mp) {
  free(mp->keys);
  free(mp->vals);
}

/* ---- the reader and its lexical helpers ----------------------------------- */

typedef struct Reader {
  const char *path;
  const char *p;           /* next character */
  const char *line_start;  /* of the line p is on */
  int line;
  IrModule *m;
  IrFunc *f;
  DiagEngine *d;
  bool failed;             /* an error was reported: stop */
  NameMap values;          /* "%3", "%x_ptr" -> Value */
  NameMap aliases;         /* "#blocked0" -> Layout */
  Loc word_at;             /* where the last word() began, for messages about it */
  size_t word_len;
} Reader;

static Loc here(const Reader *r) {
  int col = (int)(r->p - r->line_start) + 1;
  const char *e = r->p;
  while (*e && *e != '\n') e++;
  return (Loc){r->path, r->line, col, r->line, (int)(e - r->line_start) + 1};
}

static void vfail(Reader *r, Loc at, const char *fmt, va_list ap) {
  if (r->failed) return;
  r->failed = true;
  diag_verror(r->d, "error", at, fmt, ap);
}

/* The first error, at the current position; reading stops. */
__attribute__((format(printf, 2, 3))) static void fail(Reader *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail(r, here(r), fmt, ap);
  va_end(ap);
}

/* The same about the `len` characters that start at `at`. */
__attribute__((format(printf, 4, 5))) static void fail_at(Reader *r, Loc at, size_t len, const char *fmt, ...);

/* The same about the last word read (an op's or an attribute's name). */
#define fail_word(r, ...) fail_at((r), (r)->word_at, (r)->word_len, __VA_ARGS__)

/* The same about the `len` characters that start at `at`. */
__attribute__((format(printf, 4, 5))) static void fail_at(Reader *r, Loc at, size_t len, const char *fmt, ...) {
  at.end_line = at.line, at.end_col = at.col + (int)len;
  va_list ap;
  va_start(ap, fmt);
  vfail(r, at, fmt, ap);
  va_end(ap);
}

static void advance(Reader *r, size_t n) {
  for (; n && *r->p; n--, r->p++)
    if (*r->p == '\n') r->line++, r->line_start = r->p + 1;
}

/* Spaces and tabs (an op stays on its line). */
static void skip_blank(Reader *r) {
  while (*r->p == ' ' || *r->p == '\t' || *r->p == '\r') r->p++;
}

/* Blank space, line ends and // comments (between ops). */
static void skip_lines(Reader *r) {
  for (;;) {
    skip_blank(r);
    if (*r->p == '\n') advance(r, 1);
    else if (r->p[0] == '/' && r->p[1] == '/') while (*r->p && *r->p != '\n') r->p++;
    else return;
  }
}

static bool at_eol(Reader *r) {
  skip_blank(r);
  return !*r->p || *r->p == '\n' || (r->p[0] == '/' && r->p[1] == '/');
}

static bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.';
}

static bool accept(Reader *r, const char *s) {
  skip_blank(r);
  size_t n = strlen(s);
  if (strncmp(r->p, s, n) != 0) return false;
  if (n > 1 && is_word_char(s[n - 1]) && is_word_char(r->p[n])) return false; /* "to" is not "tox" */
  r->p += n;
  return true;
}

static bool expect(Reader *r, const char *s) {
  if (r->failed) return false;
  if (accept(r, s)) return true;
  fail(r, "expected '%s'", s);
  return false;
}

/* A word ([A-Za-z0-9_.]+) into buf; false (after reporting) when none. */
static bool word(Reader *r, char *buf, size_t size, const char *what) {
  skip_blank(r);
  size_t n = 0;
  while (is_word_char(r->p[n])) n++;
  if (r->failed || n == 0 || n >= size) {
    fail(r, n ? "%s is too long" : "expected %s", what);
    return false;
  }
  memcpy(buf, r->p, n);
  buf[n] = 0;
  r->word_at = here(r), r->word_len = n;
  r->p += n;
  return true;
}

static bool integer(Reader *r, int64_t *out) {
  skip_blank(r);
  char *end;
  errno = 0;
  long long v = strtoll(r->p, &end, 10);
  if (r->failed || end == r->p || errno) {
    fail(r, "expected an integer");
    return false;
  }
  r->p = end;
  *out = v;
  return true;
}

static bool small_int(Reader *r, int *out) {
  int64_t v;
  if (!integer(r, &v)) return false;
  if (v < -(1 << 30) || v > (1 << 30)) {
    fail(r, "%lld is out of range here", (long long)v);
    return false;
  }
  *out = (int)v;
  return true;
}

/* "[1,2,3]" into out[0..*n), at most max entries. */
static bool int_list(Reader *r, int *out, int *n, int max) {
  *n = 0;
  if (!expect(r, "[")) return false;
  if (accept(r, "]")) return true;
  do {
    if (*n == max) {
      fail(r, "more than %d entries", max);
      return false;
    }
    if (!small_int(r, &out[(*n)++])) return false;
  } while (accept(r, ","));
  return expect(r, "]");
}

/* A quoted string: the printer writes it unescaped, so it runs to the last
 * quote before the end of the attribute list. */
static const char *quoted(Reader *r) {
  if (!expect(r, "\"")) return NULL;
  const char *start = r->p, *end = NULL;
  for (const char *q = start; *q && *q != '\n'; q++)
    if (*q == '"' && (q[1] == '}' || !strncmp(q + 1, ", ", 2))) end = q;
  if (!end) {
    fail(r, "unterminated string");
    return NULL;
  }
  r->p = end + 1;
  return arena_strndup(r->m->arena, start, (size_t)(end - start));
}

/* ---- layouts ------------------------------------------------------------------ */

/* The fields of one #kind<{name=value, ...}>: an integer, a list or a layout. */
typedef struct LayField {
  char name[32];
  Loc at;                   /* of the name, for messages */
  int ints[8], n;           /* a list (n entries) or one integer (n = -1) */
  const Layout *layout;     /* a layout value */
  bool used;
} LayField;

typedef struct LayFields {
  LayField f[12];
  int n;
  Loc at;                   /* of the layout's '#', for messages */
} LayFields;

static LayField *field(Reader *r, LayFields *fs, const char *name) {
  for (int i = 0; i < fs->n; i++)
    if (!strcmp(fs->f[i].name, name)) {
      fs->f[i].used = true;
      return &fs->f[i];
    }
  fail_at(r, fs->at, 1, "layout field '%s' is missing", name);
  return NULL;
}

static bool field_int(Reader *r, LayFields *fs, const char *name, int lo, int hi, int *out) {
  LayField *f = field(r, fs, name);
  if (!f) return false;
  if (f->n != -1 || f->layout || f->ints[0] < lo || f->ints[0] > hi) {
    fail_at(r, f->at, strlen(name), "layout field '%s' must be an integer from %d to %d", name, lo, hi);
    return false;
  }
  *out = f->ints[0];
  return true;
}

/* A list of positive entries; *rank (when not 0) is the length it must have. */
static bool field_list(Reader *r, LayFields *fs, const char *name, int *out, int *rank) {
  LayField *f = field(r, fs, name);
  if (!f) return false;
  bool ok = f->n >= 1 && f->n <= IR_MAX_RANK && (!*rank || f->n == *rank);
  for (int i = 0; ok && i < f->n; i++) ok = f->ints[i] >= 0;
  if (!ok) {
    fail_at(r, f->at, strlen(name), "layout field '%s' must be a list of %d non-negative integers", name,
            *rank ? *rank : 1);
    return false;
  }
  memcpy(out, f->ints, sizeof(int) * (size_t)f->n);
  *rank = f->n;
  return true;
}

static bool is_permutation(const int *v, int n) {
  int seen = 0;
  for (int i = 0; i < n; i++) {
    if (v[i] < 0 || v[i] >= n || (seen >> v[i] & 1)) return false;
    seen |= 1 << v[i];
  }
  return true;
}

static bool field_order(Reader *r, LayFields *fs, int *order, int *rank) {
  if (!field_list(r, fs, "order", order, rank)) return false;
  if (!is_permutation(order, *rank))
    fail_at(r, field(r, fs, "order")->at, 5, "layout field 'order' must be a permutation of the dims");
  return !r->failed;
}

static const Layout *field_layout(Reader *r, LayFields *fs, const char *name) {
  LayField *f = field(r, fs, name);
  if (f && !f->layout) fail_at(r, f->at, strlen(name), "layout field '%s' must be a layout", name);
  return f ? f->layout : NULL;
}

static const Layout *build_blocked(Reader *r, LayFields *fs) {
  int spt[IR_MAX_RANK], tpw[IR_MAX_RANK], wpc[IR_MAX_RANK], order[IR_MAX_RANK], rank = 0;
  if (!field_list(r, fs, "spt", spt, &rank) || !field_list(r, fs, "tpw", tpw, &rank) ||
      !field_list(r, fs, "wpc", wpc, &rank) || !field_order(r, fs, order, &rank))
    return NULL;
  return lay_blocked(r->m->ctx, rank, spt, tpw, wpc, order);
}

static const Layout *build_slice(Reader *r, LayFields *fs) {
  const Layout *parent = field_layout(r, fs, "parent");
  int dim;
  if (!parent || !field_int(r, fs, "dim", 0, parent->rank - 1, &dim)) return NULL;
  if (parent->rank < 2) {
    fail_at(r, fs->at, 1, "a slice needs a parent of rank 2 or more");
    return NULL;
  }
  return lay_slice(r->m->ctx, dim, parent);
}

/* wpc: [wm, wn], or [wb, wm, wn] for a batched mma.sync (version 2); warp
 * counts are powers of two. */
static const Layout *build_mma(Reader *r, LayFields *fs) {
  int version, wpc[IR_MAX_RANK], instr[IR_MAX_RANK], rank = 0, three = 3;
  if (!field_int(r, fs, "version", 2, 3, &version) || !field_list(r, fs, "wpc", wpc, &rank) ||
      !field_list(r, fs, "instr", instr, &three))
    return NULL;
  bool ok = rank == 2 || (rank == 3 && version == 2);
  for (int i = 0; ok && i < rank; i++) ok = wpc[i] >= 1 && !(wpc[i] & (wpc[i] - 1));
  if (!ok) {
    fail_at(r, field(r, fs, "wpc")->at, 3,
            "layout field 'wpc' of an mma must be 2 powers of two ([wm, wn]), or 3 for version 2 ([wb, wm, wn])");
    return NULL;
  }
  return lay_mma(r->m->ctx, version, rank, wpc, instr);
}

static const Layout *build_dot_op(Reader *r, LayFields *fs) {
  const Layout *parent = field_layout(r, fs, "parent");
  int op, k_width;
  if (!parent || !field_int(r, fs, "op", 0, 1, &op) || !field_int(r, fs, "k_width", 0, 64, &k_width))
    return NULL;
  return lay_dot_operand(r->m->ctx, op, parent, k_width);
}

/* Is the optional field `name` given? */
static bool has_field(const LayFields *fs, const char *name) {
  for (int i = 0; i < fs->n; i++)
    if (!strcmp(fs->f[i].name, name)) return true;
  return false;
}

static const Layout *build_shared(Reader *r, LayFields *fs) {
  int vec, per_phase, max_phase, order[IR_MAX_RANK], rank = 0, block = 0;
  if (!field_int(r, fs, "vec", 1, 1024, &vec) || !field_int(r, fs, "per_phase", 1, 1024, &per_phase) ||
      !field_int(r, fs, "max_phase", 1, 1024, &max_phase) || !field_order(r, fs, order, &rank))
    return NULL;
  if (has_field(fs, "block") && !field_int(r, fs, "block", 1, 1 << 20, &block)) return NULL;
  return lay_shared_blocked(r->m->ctx, rank, vec, per_phase, max_phase, order, block);
}

/* One entry per layout syntax #NAME<{...}>: lay_print's spellings. */
static const struct {
  const char *name;
  const Layout *(*build)(Reader *r, LayFields *fs);
} layout_kinds[] = {
    {"blocked", build_blocked}, {"slice", build_slice},   {"mma", build_mma},
    {"dot_op", build_dot_op},   {"shared", build_shared},
};

static const Layout *layout(Reader *r);

static bool layout_field(Reader *r, LayField *f) {
  if (!word(r, f->name, sizeof f->name, "a layout field name") || !expect(r, "=")) return false;
  f->at = r->word_at;
  skip_blank(r);
  if (*r->p == '#') return (f->layout = layout(r)) != NULL;
  if (*r->p == '[') return int_list(r, f->ints, &f->n, 8);
  f->n = -1;
  return small_int(r, &f->ints[0]);
}

/* "#blocked<{...}>" (after the '#' and the kind's name) */
static const Layout *layout_body(Reader *r, const char *kind, Loc at) {
  size_t k = 0, nk = sizeof layout_kinds / sizeof layout_kinds[0];
  while (k < nk && strcmp(layout_kinds[k].name, kind)) k++;
  if (k == nk) {
    fail_at(r, at, strlen(kind) + 1, "unknown layout kind '#%s'", kind);
    return NULL;
  }
  LayFields fs = {.n = 0, .at = at};
  if (!expect(r, "<{")) return NULL;
  if (!accept(r, "}>")) {
    do {
      if (fs.n == (int)(sizeof fs.f / sizeof fs.f[0])) {
        fail(r, "too many layout fields");
        return NULL;
      }
      memset(&fs.f[fs.n], 0, sizeof fs.f[0]);
      if (!layout_field(r, &fs.f[fs.n++])) return NULL;
    } while (accept(r, ","));
    if (!expect(r, "}>")) return NULL;
  }
  const Layout *l = layout_kinds[k].build(r, &fs);
  for (int i = 0; l && i < fs.n; i++)
    if (!fs.f[i].used) fail_at(r, fs.f[i].at, strlen(fs.f[i].name), "#%s has no field '%s'", kind, fs.f[i].name);
  return r->failed ? NULL : l;
}

/* "#blocked0" (an alias) or "#kind<{...}>". */
static const Layout *layout(Reader *r) {
  char name[64];
  skip_blank(r);
  Loc at = here(r);
  if (!expect(r, "#") || !word(r, name, sizeof name, "a layout")) return NULL;
  if (*r->p == '<') return layout_body(r, name, at);
  const Layout *l = map_get(&r->aliases, name);
  if (!l) fail_at(r, at, strlen(name) + 1, "unknown layout alias '#%s'", name);
  return l;
}

/* ---- types ----------------------------------------------------------------------- */

static const Type *scalar_type(Reader *r) {
  if (accept(r, "ptr<")) {
    const Type *pointee = scalar_type(r);
    if (!pointee || !expect(r, ">")) return NULL;
    return r->failed ? NULL : ty_ptr(r->m->ctx, pointee); /* ptr<ptr<f16>>: an array of pointers */
  }
  char name[16];
  skip_blank(r);
  size_t n = 0;
  while (n + 1 < sizeof name && ((r->p[n] >= 'a' && r->p[n] <= 'z') || (r->p[n] >= '0' && r->p[n] <= '9')))
    name[n] = r->p[n], n++;
  name[n] = 0;
  for (int d = 0; d < DT__COUNT; d++)
    if (d != DT_PTR && !strcmp(dt_name((DType)d), name)) {
      r->p += n;
      return ty_scalar(r->m->ctx, (DType)d);
    }
  fail(r, "expected a type (i32, f16, ptr<f32>, tensor<...>)");
  return NULL;
}

/* "i32", "ptr<f16>", "tensor<128x64xf16, #blocked0>" */
static const Type *type(Reader *r) {
  if (!accept(r, "tensor<")) return scalar_type(r);
  int64_t shape[IR_MAX_RANK];
  int rank = 0;
  while (*r->p >= '0' && *r->p <= '9') {
    if (rank == IR_MAX_RANK) {
      fail(r, "a tensor has at most %d dims", IR_MAX_RANK);
      return NULL;
    }
    if (!integer(r, &shape[rank])) return NULL;
    if (shape[rank] < 1 || shape[rank] > (1 << 30)) {
      fail(r, "a tensor dim must be from 1 to 2^30");
      return NULL;
    }
    rank++;
    if (!expect(r, "x")) return NULL;
  }
  if (!rank) fail(r, "a tensor needs a shape (tensor<128xf32>)");
  const Type *elem = r->failed ? NULL : scalar_type(r);
  const Layout *l = NULL;
  if (elem && accept(r, ",")) {
    skip_blank(r);
    Loc at = here(r);
    l = layout(r);
    if (l && l->rank != rank) fail_at(r, at, 1, "a layout of rank %d on a tensor of rank %d", l->rank, rank);
  }
  if (!elem || !expect(r, ">")) return NULL;
  return ty_tensor(r->m->ctx, elem, rank, shape, l);
}

typedef VEC(const Type *) TypeList;

static bool push_type(Reader *r, TypeList *out) {
  const Type *t = type(r);
  if (t) VEC_PUSH(*out, t);
  return t != NULL;
}

/* ": T", ": S -> T" or ": (T, U)" after an op. */
static bool type_suffix(Reader *r, TypeList *out) {
  if (!accept(r, ":")) return true;
  if (accept(r, "(")) {
    do
      if (!push_type(r, out)) return false;
    while (accept(r, ","));
    return expect(r, ")");
  }
  if (!push_type(r, out)) return false;
  return !accept(r, "->") || push_type(r, out);
}

/* ---- values ----------------------------------------------------------------------- */

/* "%name" (the '%' included) into buf. */
static bool value_name(Reader *r, char *buf, size_t size) {
  if (!expect(r, "%")) return false;
  buf[0] = '%';
  return word(r, buf + 1, size - 1, "a value name after '%'");
}

static Value *use(Reader *r) {
  if (accept(r, "_")) return NULL;
  char name[64];
  skip_blank(r);
  Loc at = here(r);
  if (!value_name(r, name, sizeof name)) return NULL;
  Value *v = map_get(&r->values, name);
  if (!v) fail_at(r, at, strlen(name), "use of undefined value '%s'", name);
  return v;
}

/* A value's definition; `at` is where its name was written. */
static void define_at(Reader *r, Loc at, const char *name, Value *v) {
  if (map_get(&r->values, name)) {
    fail_at(r, at, strlen(name), "value '%s' is defined twice", name);
    return;
  }
  map_put(&r->values, arena_strdup(r->m->arena, name), v);
}

static void define(Reader *r, const char *name, Value *v) { define_at(r, here(r), name, v); }

/* "%a = %x": a block argument of b typed like the init, and the init. */
static Value *arg_and_init(Reader *r, IrBlock *b, Value **init) {
  char name[64];
  if (!value_name(r, name, sizeof name) || !expect(r, "=")) return NULL;
  *init = use(r);
  if (r->failed) return NULL;
  if (!*init) {
    fail(r, "an initial value cannot be absent ('_')");
    return NULL;
  }
  Value *a = ir_block_add_arg(r->m, r->f, b, (*init)->type);
  define(r, name, a);
  return a;
}

/* ---- attributes ------------------------------------------------------------------- */

typedef enum AttrKind { AK_INT, AK_I64, AK_BOOL, AK_ENUM, AK_INTS, AK_INDEXED, AK_STR } AttrKind;

static const char *const evict_names[] = {"normal", "first", "last", NULL};
static const char *pred_name(int i) { return ir_pred_name((CmpPred)i); }
static const char *combine_name(int i) { return ir_combine_name((CombineKind)i); }
static const char *rmw_name(int i) { return ir_rmw_name((RmwKind)i); }
static const char *sem_name(int i) { return ir_sem_name((MemSem)i); }
static const char *scope_name(int i) { return ir_scope_name((MemScope)i); }
static const char *mathfn_name(int i) { return ir_mathfn_info[i].name; }
static const char *const precision_names[] = {"ieee", "tf32", "tf32x3", NULL};
static const char *const rounding_names[] = {"rtne", "rtz", NULL}; /* ORDER FpRounding */

/* One entry per attribute name printer.c writes, with the OpAttrs field it
 * fills.  AK_INT, AK_INDEXED ("div0", "contig1": the digit indexes the
 * array) and AK_INTS (each entry) hold values in [lo, hi] — a dim index is
 * below IR_MAX_RANK, so no later stage indexes an array out of bounds;
 * AK_ENUM: names[i] is the enumerator i (NULL-terminated), or name_of(i)
 * for i < count. */
static const struct {
  const char *name;
  AttrKind kind;
  size_t offset;
  int lo, hi;
  const char *const *names;
  const char *(*name_of)(int i);
  int count;
} op_attrs[] = {
#define A(name, kind, field, lo, hi) {name, kind, offsetof(OpAttrs, field), lo, hi, NULL, NULL, 0}
    A("axis", AK_INT, axis, 0, IR_MAX_RANK - 1),
    A("start", AK_I64, start, 0, 0),
    A("end", AK_I64, end, 0, 0),
    A("perm", AK_INTS, perm, 0, IR_MAX_RANK - 1),
    A("precise", AK_BOOL, precise, 0, 0),
    A("propagate_nan", AK_BOOL, propagate_nan, 0, 0),
    A("vec", AK_INT, vec, 0, 64),
    A("cache", AK_INT, cache, 0, CACHE_WT),
    A("volatile", AK_BOOL, is_volatile, 0, 0),
    A("div", AK_INDEXED, hint_div, 0, 1 << 30),
    A("contig", AK_INDEXED, hint_contig, 0, 1 << 30),
    A("msg", AK_STR, str, 0, 0),
    A("hex", AK_BOOL, hex, 0, 0),
    A("reverse", AK_BOOL, reverse, 0, 0),
    A("descending", AK_BOOL, reverse, 0, 0),
    A("smem", AK_INT, smem_offset, 0, 1 << 30),
    A("phase", AK_INT, ring_phase, 0, 1 << 30),
    A("num_stages", AK_INT, loop.num_stages, 0, 64),
    A("unroll", AK_INT, loop.unroll, 0, 1024),
    A("flatten", AK_BOOL, loop.flatten, 0, 0),
    A("warp_specialize", AK_BOOL, loop.warp_specialize, 0, 0),
    A("disallow_acc_multi_buffer", AK_BOOL, loop.no_acc_multibuf, 0, 0),
    A("num", AK_INT, num, 0, 1 << 30),
    A("async", AK_BOOL, is_async, 0, 0),
    A("max_imprecise", AK_INT, max_imprecise, 0, 1 << 30),
#undef A
    {"evict", AK_ENUM, offsetof(OpAttrs, evict), 0, 0, evict_names, NULL, 0},
    {"precision", AK_ENUM, offsetof(OpAttrs, precision), 0, 0, precision_names, NULL, 0},
    {"rounding", AK_ENUM, offsetof(OpAttrs, rounding), 0, 0, rounding_names, NULL, 0},
    /* the counts: the last enumerator of ir.h's CmpPred, CombineKind, RmwKind */
    {"pred", AK_ENUM, offsetof(OpAttrs, pred), 0, 0, NULL, pred_name, CMP_GE + 1},
    {"combine", AK_ENUM, offsetof(OpAttrs, combine), 0, 0, NULL, combine_name, COMBINE_REGION + 1},
    {"rmw", AK_ENUM, offsetof(OpAttrs, rmw), 0, 0, NULL, rmw_name, RMW_XCHG + 1},
    {"sem", AK_ENUM, offsetof(OpAttrs, sem), 0, 0, NULL, sem_name, SEM_RELAXED + 1},
    {"scope", AK_ENUM, offsetof(OpAttrs, scope), 0, 0, NULL, scope_name, SCOPE_SYS + 1},
    {"fn", AK_ENUM, offsetof(OpAttrs, fn), 0, 0, NULL, mathfn_name, MF__COUNT},
};

/* The func line's attributes: IrModule fields. */
static const struct {
  const char *name;
  size_t offset;
} func_attrs[] = {
    {"num_warps", offsetof(IrModule, num_warps)},
    {"producer_warps", offsetof(IrModule, producer_warps)},
    {"warps_asked", offsetof(IrModule, warps_asked)},
    {"warp_specialize", offsetof(IrModule, warp_specialize)},
    {"program_order", offsetof(IrModule, program_order)},
    {"smem_buffers", offsetof(IrModule, smem_buffers_end)},
    {"shared", offsetof(IrModule, shared_bytes)},
};

static bool enum_attr(Reader *r, int k, int *out) {
  char name[32];
  if (!word(r, name, sizeof name, "a name")) return false;
  for (int i = 0; op_attrs[k].names ? op_attrs[k].names[i] != NULL : i < op_attrs[k].count; i++) {
    const char *n = op_attrs[k].names ? op_attrs[k].names[i] : op_attrs[k].name_of(i);
    if (!strcmp(n, name)) {
      *out = i;
      return true;
    }
  }
  fail_word(r, "'%s' is not a value of attribute '%s'", name, op_attrs[k].name);
  return false;
}

/* One "name" or "name=value" of an op's attribute list. */
static bool op_attr(Reader *r, Op *op, const char *name) {
  size_t nk = sizeof op_attrs / sizeof op_attrs[0], k = 0, len = strlen(name);
  int index = 0;
  for (; k < nk; k++) {
    size_t n = strlen(op_attrs[k].name);
    if (op_attrs[k].kind == AK_INDEXED && len == n + 1 && !strncmp(name, op_attrs[k].name, n) &&
        name[n] >= '0' && name[n] < '0' + IR_MAX_RANK) {
      index = name[n] - '0';
      break;
    }
    if (!strcmp(name, op_attrs[k].name)) break;
  }
  if (k == nk) {
    fail_word(r, "unknown attribute '%s'", name);
    return false;
  }
  char *field = (char *)&op->attr + op_attrs[k].offset;
  AttrKind kind = op_attrs[k].kind;
  if (kind == AK_BOOL) {
    *(bool *)field = true;
    return true;
  }
  if (!expect(r, "=")) return false;
  int n = 1;
  int64_t v;
  int *ints = (int *)field + (kind == AK_INDEXED ? index : 0);
  switch (kind) {
  case AK_INT: case AK_INDEXED:
    if (!small_int(r, ints)) return false;
    break;
  case AK_INTS:
    if (!int_list(r, ints, &n, IR_MAX_RANK)) return false;
    break;
  case AK_I64:
    if (!integer(r, &v)) return false;
    *(int64_t *)field = v;
    return true;
  case AK_ENUM: return enum_attr(r, (int)k, (int *)field);
  case AK_STR: return (*(const char **)field = quoted(r)) != NULL;
  default: return false;
  }
  for (int i = 0; i < n; i++)
    if (ints[i] < op_attrs[k].lo || ints[i] > op_attrs[k].hi) {
      fail_word(r, "attribute '%s' must be from %d to %d, not %d", name, op_attrs[k].lo, op_attrs[k].hi, ints[i]);
      return false;
    }
  return true;
}

/* "{name=value, flag, ...}" when present (a '{' that does not end the line). */
static bool attr_list(Reader *r, Op *op) {
  skip_blank(r);
  if (*r->p != '{') return true;
  const char *q = r->p + 1;
  while (*q == ' ' || *q == '\t') q++;
  if (!*q || *q == '\n') return true; /* a region */
  r->p++;
  do {
    char name[40];
    if (!word(r, name, sizeof name, "an attribute name") || !op_attr(r, op, name)) return false;
  } while (accept(r, ","));
  return expect(r, "}");
}

/* ---- ops --------------------------------------------------------------------------- */

static void block(Reader *r, IrBlock *b);

/* "{", the ops, "}" */
static void region(Reader *r, IrBlock *b) {
  if (!expect(r, "{")) return;
  if (!at_eol(r)) {
    fail(r, "a region's '{' ends its line");
    return;
  }
  block(r, b);
  skip_lines(r);
  expect(r, "}");
}

/* Operand keywords the printer writes instead of positions. */
static const struct {
  OpKind kind;
  const char *name;
  int slot;
} keyword_operands[] = {
    {OP_LOAD, "mask", 1},  {OP_LOAD, "other", 2},  {OP_STORE, "mask", 2},
    {OP_ATOMIC_RMW, "mask", 2}, {OP_ASYNC_COPY, "mask", 2}, {OP_ASYNC_COPY, "other", 3},
};

/* Only a keyword slot may be absent (a load's mask and other), the value
 * of a local_alloc (an empty buffer) and a histogram's mask (printed `_`). */
static bool optional_slot(OpKind k, int slot) {
  if ((k == OP_LOCAL_ALLOC && slot == 0) || (k == OP_HISTOGRAM && slot == 1)) return true;
  for (size_t i = 0; i < sizeof keyword_operands / sizeof keyword_operands[0]; i++)
    if (keyword_operands[i].kind == k && keyword_operands[i].slot == slot) return true;
  return false;
}

static int keyword_slot(Reader *r, OpKind k) {
  for (size_t i = 0; i < sizeof keyword_operands / sizeof keyword_operands[0]; i++)
    if (keyword_operands[i].kind == k && accept(r, keyword_operands[i].name)) {
      if (!expect(r, "=")) return -1;
      return keyword_operands[i].slot;
    }
  return -2; /* none: positional */
}

/* The op being read: everything its syntax gives before the op is made
 * (heap vectors, freed once the op is made). */
typedef struct OpText {
  OpKind kind;
  Loc loc;
  VEC(const char *) results; /* the names on the left of '=' (arena) */
  VEC(Value *) operands;     /* NULL where absent ('_', a keyword not given) */
  TypeList types;            /* after ':' */
} OpText;

static void set_operand(OpText *t, int slot, Value *v) {
  while (t->operands.len <= slot) VEC_PUSH(t->operands, NULL);
  t->operands.data[slot] = v;
}

/* "%a, mask=%b, _" up to the attributes, the types or the end of the line. */
static void operand_list(Reader *r, OpText *t) {
  int fixed = ir_op_info[t->kind].noperands;
  if (fixed > 0) set_operand(t, fixed - 1, NULL);
  int pos = 0;
  skip_blank(r);
  if (at_eol(r) || *r->p == '{' || *r->p == ':') return;
  do {
    int slot = keyword_slot(r, t->kind);
    if (slot == -1) return;
    if (slot < 0) slot = pos++;
    if (fixed >= 0 && slot >= fixed) {
      fail(r, "too many operands for '%s'", ir_op_info[t->kind].name);
      return;
    }
    set_operand(t, slot, use(r));
    if (r->failed) return;
  } while (accept(r, ","));
}

/* The result types: the last of ": S -> T" or ": T", or each of ": (T, U)". */
static const Type **result_types(Reader *r, OpText *t) {
  int n = t->results.len, nt = t->types.len;
  if (n == 0) return t->types.data;
  if (nt == 0) {
    fail_at(r, t->loc, 0, "'%s' needs its result type%s after ':'", ir_op_info[t->kind].name, n > 1 ? "s" : "");
    return NULL;
  }
  if (n == 1) return &t->types.data[nt - 1];
  if (nt != n) fail_at(r, t->loc, 0, "%d results but %d types", n, nt);
  return r->failed ? NULL : t->types.data;
}

/* Make the op from its text: results defined, appended to b. */
static Op *make_op(Reader *r, IrBlock *b, OpText *t, int nregions) {
  int want = ir_op_info[t->kind].nresults, n = t->results.len;
  if (want >= 0 && want != n) {
    fail_at(r, t->loc, 0, "'%s' has %d result%s, not %d", ir_op_info[t->kind].name, want, want == 1 ? "" : "s", n);
    return NULL;
  }
  const Type **rt = result_types(r, t);
  if (r->failed) return NULL;
  Op *op = ir_op_new(r->m, r->f, t->kind, t->loc, t->operands.data, t->operands.len, rt, n, nregions);
  for (int i = 0; i < n; i++) define_at(r, t->loc, t->results.data[i], op->results[i]);
  ir_append(b, op);
  return op;
}

/* constant VALUE {attrs} : T   — an integer or a float by the type. */
static Op *constant_op(Reader *r, IrBlock *b, OpText *t) {
  skip_blank(r);
  const char *start = r->p;
  char *end;
  double fv = strtod(start, &end);
  if (end == start) {
    fail(r, "expected the constant's value");
    return NULL;
  }
  int64_t iv = 0;
  bool is_int = false;
  char *iend;
  errno = 0;
  iv = strtoll(start, &iend, 10);
  is_int = iend == end && !errno;
  r->p = end;
  Op tmp = {0};
  if (!attr_list(r, &tmp) || !type_suffix(r, &t->types)) return NULL;
  Op *op = make_op(r, b, t, 0);
  if (!op) return NULL;
  op->attr = tmp.attr;
  if (dt_is_float(op->results[0]->type->dtype)) {
    op->attr.fval = fv;
  } else if (!is_int) {
    fail_at(r, t->loc, 0, "an integer constant of type %s", dt_name(op->results[0]->type->dtype));
    return NULL;
  } else {
    op->attr.ival = iv;
    op->attr.fval = (double)iv; /* as irb_const_int */
  }
  return op;
}

/* Attributes and types, then the op with its regions. */
static Op *finish_op(Reader *r, IrBlock *b, OpText *t, int nregions, Op *attrs) {
  if (!attr_list(r, attrs) || !type_suffix(r, &t->types)) return NULL;
  Op *op = make_op(r, b, t, nregions);
  if (op) op->attr = attrs->attr;
  return op;
}

/* "%a = %x, ...)": block arguments of tmp (typed like their initial
 * values, which become the op's next operands), up to the ')'. */
static bool init_list(Reader *r, OpText *t, IrBlock *tmp) {
  if (accept(r, ")")) return true;
  do {
    Value *init = NULL;
    if (!arg_and_init(r, tmp, &init)) return false;
    set_operand(t, t->operands.len, init);
  } while (accept(r, ","));
  return expect(r, ")");
}

/* Make the op; the block arguments read into tmp (before the op existed)
 * become its first region's. */
static Op *finish_with_args(Reader *r, IrBlock *b, OpText *t, int nregions, IrBlock *tmp) {
  Op attrs = {0};
  Op *op = finish_op(r, b, t, nregions, &attrs);
  if (!op) return NULL;
  IrBlock *first = op->regions[0];
  first->args = tmp->args, first->nargs = tmp->nargs;
  for (int i = 0; i < tmp->nargs; i++) tmp->args[i]->block = first;
  return op;
}

/* for %iv = %lb to %ub step %st [iter_args(%a = %x, ...)] {attrs} [: types] { body } */
static Op *for_op(Reader *r, IrBlock *b, OpText *t) {
  char iv[64];
  if (!value_name(r, iv, sizeof iv) || !expect(r, "=")) return NULL;
  Value *lb = use(r), *ub = expect(r, "to") ? use(r) : NULL, *st = expect(r, "step") ? use(r) : NULL;
  if (r->failed || !lb || !ub || !st) {
    fail(r, "a for loop needs its bounds and step");
    return NULL;
  }
  set_operand(t, 0, lb), set_operand(t, 1, ub), set_operand(t, 2, st);
  IrBlock tmp = {0};
  define(r, iv, ir_block_add_arg(r->m, r->f, &tmp, lb->type));
  if (accept(r, "iter_args(") && !init_list(r, t, &tmp)) return NULL;
  Op *op = finish_with_args(r, b, t, 1, &tmp);
  if (op) region(r, op->regions[0]);
  return op;
}

/* while (%a = %x, ...) {attrs} [: types] { before } do [(%c, ...)] { after } */
static Op *while_op(Reader *r, IrBlock *b, OpText *t) {
  IrBlock tmp = {0};
  if (!expect(r, "(") || !init_list(r, t, &tmp)) return NULL;
  Op *op = finish_with_args(r, b, t, 2, &tmp);
  if (!op) return NULL;
  IrBlock *before = op->regions[0], *after = op->regions[1];
  region(r, before);
  if (!expect(r, "do")) return NULL;
  Op *cond = before->last;
  if (accept(r, "(")) {
    int i = 0;
    do {
      char name[64];
      if (!value_name(r, name, sizeof name)) return NULL;
      if (!cond || cond->kind != OP_CONDITION || i + 1 >= cond->noperands || !cond->operands[i + 1]) {
        fail(r, "the before region's condition forwards no value for '%s'", name);
        return NULL;
      }
      define(r, name, ir_block_add_arg(r->m, r->f, after, cond->operands[++i]->type));
    } while (accept(r, ","));
    if (!expect(r, ")")) return NULL;
  }
  region(r, after);
  return op;
}

/* if %c {attrs} [: types] { then } [else { else }] */
static Op *if_op(Reader *r, IrBlock *b, OpText *t) {
  set_operand(t, 0, use(r));
  if (!r->failed && !t->operands.data[0]) fail(r, "an if needs its condition");
  if (r->failed) return NULL;
  Op attrs = {0};
  Op *op = finish_op(r, b, t, 2, &attrs);
  if (!op) return NULL;
  region(r, op->regions[0]);
  if (accept(r, "else")) region(r, op->regions[1]);
  return op;
}

/* warp_roles { producer } consumers { consumers } */
static Op *warp_roles_op(Reader *r, IrBlock *b, OpText *t) {
  Op attrs = {0};
  Op *op = finish_op(r, b, t, 2, &attrs);
  if (!op) return NULL;
  region(r, op->regions[0]);
  if (!r->failed && expect(r, "consumers")) region(r, op->regions[1]);
  return op;
}

/* Any other op: operands, attributes, types. */
static Op *generic_op(Reader *r, IrBlock *b, OpText *t) {
  operand_list(r, t);
  for (int i = 0; !r->failed && i < t->operands.len; i++)
    if (!t->operands.data[i] && !optional_slot(t->kind, i))
      fail_at(r, t->loc, 0, "'%s' needs operand %d", ir_op_info[t->kind].name, i + 1);
  if (r->failed) return NULL;
  Op attrs = {0};
  Op *op = finish_op(r, b, t, 0, &attrs);
  if (op && op->noperands && op->operands[0] && t->types.len == 2 && t->results.len == 1 &&
      op->operands[0]->type != t->types.data[0])
    fail_at(r, t->loc, 0, "the source type after ':' is not the type of the operand");
  return op;
}

/* reduce / scan: a generic op, then, when its combine is `region`,
 * "combine(%a0, ..., %b0, ...) { body }": the region's arguments are
 * scalars of the operands' element types, the left operands' then the
 * right's (two per operand). */
static Op *combine_op(Reader *r, IrBlock *b, OpText *t) {
  Op *op = generic_op(r, b, t);
  if (!op || op->attr.combine != COMBINE_REGION) return op;
  if (!expect(r, "combine") || !expect(r, "(")) return NULL;
  IrBlock *body = ir_block_new(r->m, op);
  op->regions[0] = body, op->nregions = 1;
  int n = op->noperands;
  for (int i = 0; i < 2 * n; i++) {
    char name[64];
    if (i && !expect(r, ",")) return NULL;
    if (!value_name(r, name, sizeof name)) return NULL;
    define(r, name, ir_block_add_arg(r->m, r->f, body, ty_elem(r->m->ctx, op->operands[i % n]->type)));
  }
  if (!expect(r, ")")) return NULL;
  region(r, body);
  return op;
}

/* The ops with syntax of their own. */
static const struct {
  OpKind kind;
  Op *(*read)(Reader *r, IrBlock *b, OpText *t);
} special_ops[] = {
    {OP_CONSTANT, constant_op}, {OP_FOR, for_op}, {OP_WHILE, while_op}, {OP_IF, if_op},
    {OP_REDUCE, combine_op},    {OP_SCAN, combine_op},      {OP_WARP_ROLES, warp_roles_op},
};

static bool op_kind(Reader *r, const char *name, OpKind *out) {
  for (int k = 0; k < OP__COUNT; k++)
    if (!strcmp(ir_op_info[k].name, name)) {
      *out = (OpKind)k;
      return true;
    }
  fail_word(r, "unknown op '%s'", name);
  return false;
}

/* [%a, %b =] name ... */
static void op(Reader *r, IrBlock *b) {
  OpText t = {.loc = here(r)};
  char name[64];
  if (*r->p == '%') {
    do {
      if (!value_name(r, name, sizeof name)) break;
      VEC_PUSH(t.results, arena_strdup(r->m->arena, name));
    } while (accept(r, ","));
    expect(r, "=");
  }
  if (!r->failed && word(r, name, sizeof name, "an op name") && op_kind(r, name, &t.kind)) {
    Op *(*read)(Reader *, IrBlock *, OpText *) = generic_op;
    for (size_t i = 0; i < sizeof special_ops / sizeof special_ops[0]; i++)
      if (special_ops[i].kind == t.kind) read = special_ops[i].read;
    if (read(r, b, &t) && !at_eol(r)) fail(r, "unexpected text after the op");
  }
  VEC_FREE(t.results);
  VEC_FREE(t.operands);
  VEC_FREE(t.types);
}

/* The ops of a block, up to its closing '}' (not consumed).  `return`
 * ends the function's body and appears nowhere else. */
static void block(Reader *r, IrBlock *b) {
  for (;;) {
    skip_lines(r);
    if (r->failed || !*r->p || *r->p == '}') return;
    if (b->last && b->last->kind == OP_RETURN) fail(r, "nothing may follow 'return'");
    Loc at = here(r);
    op(r, b);
    if (!r->failed && b->last && b->last->kind == OP_RETURN && b != r->f->body)
      fail_at(r, at, 6, "'return' only ends the function's body (no early return from a region)");
  }
}

/* ---- the module ------------------------------------------------------------------ */

/* "{num_warps=4, smem_buffers=4096}" of the func line. */
static void func_attr_list(Reader *r) {
  if (!expect(r, "{")) return;
  do {
    char name[40];
    int v;
    if (!word(r, name, sizeof name, "an attribute name") || !expect(r, "=") || !small_int(r, &v)) return;
    size_t k = 0, nk = sizeof func_attrs / sizeof func_attrs[0];
    while (k < nk && strcmp(func_attrs[k].name, name)) k++;
    if (k == nk) {
      fail_word(r, "unknown func attribute '%s'", name);
      return;
    }
    *(int *)((char *)r->m + func_attrs[k].offset) = v;
  } while (accept(r, ","));
  expect(r, "}");
}

/* A tensor-map value: a kernel argument (%n) or an integer. */
static bool tma_value(Reader *r, IrTmaValue *v) {
  skip_blank(r);
  if (*r->p != '%') {
    v->arg = -1;
    return integer(r, &v->value);
  }
  Value *x = use(r);
  if (!x) return false;
  for (int i = 0; i < r->f->nargs; i++)
    if (r->f->args[i].value == x) {
      *v = (IrTmaValue){i, 0};
      return true;
    }
  fail(r, "a tensor map's value is a kernel argument or an integer");
  return false;
}

/* "[v, v]" of a tensor map's field; sets or checks the rank. */
static bool tma_list(Reader *r, const char *field, IrTmaValue *vals, int *ints, int *rank) {
  if (!expect(r, ",") || !expect(r, field) || !expect(r, "=") || !expect(r, "[")) return false;
  int n = 0;
  do {
    if (n == IR_TMA_MAX_RANK) return fail(r, "a tensor map has at most %d dims", IR_TMA_MAX_RANK), false;
    if (vals ? !tma_value(r, &vals[n]) : !small_int(r, &ints[n])) return false;
    n++;
  } while (accept(r, ","));
  if (*rank && n != *rank) return fail(r, "a tensor map's fields have one entry per dim (%d)", *rank), false;
  *rank = n;
  return expect(r, "]");
}

/* "%tma0: tma<f16, %a_ptr, dims=[%K, %M], strides=[1, %sam], box=[64, 128], swizzle=128>" */
static void tma_param(Reader *r, const char *name) {
  IrTmaDesc d = {0};
  const Type *et = scalar_type(r);
  IrTmaValue base;
  if (!et || !expect(r, ",") || !tma_value(r, &base)) return;
  if (base.arg < 0 || r->f->args[base.arg].value->type->dtype != DT_PTR) {
    fail(r, "a tensor map's base is a pointer argument");
    return;
  }
  int rank = 0, sw;
  if (!tma_list(r, "dims", d.dims, NULL, &rank) || !tma_list(r, "strides", d.strides, NULL, &rank) ||
      !tma_list(r, "box", NULL, d.box, &rank) || !expect(r, ",") || !expect(r, "swizzle") || !expect(r, "=") ||
      !small_int(r, &sw) || !expect(r, ">"))
    return;
  d.base_arg = base.arg, d.dtype = et->dtype, d.rank = rank, d.swizzle = sw;
  int i = ir_func_add_tma(r->m, r->f, &d);
  define(r, name, r->f->tma[i].param);
}

/* "%x_ptr: ptr<f32> {div=16}" */
static void kernel_arg(Reader *r) {
  char name[64];
  if (!value_name(r, name, sizeof name) || !expect(r, ":")) return;
  if (accept(r, "tma<")) {
    tma_param(r, name);
    return;
  }
  const Type *t = type(r);
  int64_t div = 1;
  if (t && accept(r, "{") && expect(r, "div") && expect(r, "=") && integer(r, &div) && expect(r, "}") &&
      (div < 1 || div > (1 << 30)))
    fail(r, "div must be from 1 to 2^30");
  if (r->failed) return;
  define(r, name, ir_func_add_arg(r->m, r->f, name + 1, t, (int)div));
}

/* func @name(args) {attrs} { ops } */
static void func(Reader *r) {
  Loc loc = here(r);
  char name[128];
  if (!expect(r, "func") || !expect(r, "@") || !word(r, name, sizeof name, "the function's name")) return;
  r->f = ir_func_new(r->m, name, loc);
  if (!expect(r, "(")) return;
  if (!accept(r, ")")) {
    do kernel_arg(r);
    while (!r->failed && accept(r, ","));
    if (!expect(r, ")")) return;
  }
  func_attr_list(r);
  region(r, r->f->body);
}

/* "#blocked0 = #blocked<{...}>" */
static void alias(Reader *r) {
  char name[64];
  if (!expect(r, "#") || !word(r, name, sizeof name, "a layout alias") || !expect(r, "=")) return;
  const Layout *l = layout(r);
  if (!l) return;
  if (map_get(&r->aliases, name)) fail_word(r, "layout alias '#%s' is defined twice", name);
  else map_put(&r->aliases, arena_strdup(r->m->arena, name), (void *)l);
}

IrModule *ir_read_module(const char *path, const char *text, Arena *arena, DiagEngine *d) {
  Reader r = {.path = path, .p = text, .line_start = text, .line = 1, .d = d};
  r.m = ir_module_new(arena);
  skip_lines(&r);
  while (!r.failed && *r.p == '#') {
    alias(&r);
    skip_lines(&r);
  }
  if (!r.failed) func(&r);
  skip_lines(&r);
  if (!r.failed && *r.p) fail(&r, "unexpected text after the function");
  map_free(&r.values);
  map_free(&r.aliases);
  return r.failed ? NULL : r.m;
}
