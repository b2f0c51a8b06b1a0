/* grid.c — tlc compile --grid: parse the grid's expressions, check their
 * names against a compiled kernel, write them as C (grid.h has the
 * grammar).
 *
 * A recursive-descent parser over the text builds a small tree (malloc'd
 * nodes, each with its column and length in the text for the caret of a
 * message).  Checking and writing read the kernel's compile result: its
 * runtime parameters (by name, integer kinds only) and its constants (by
 * name, integer or bool values), so one grid serves every config of an
 * autotuned kernel, each with its own constants. */
#include "tools/grid.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef enum { GX_NUM, GX_NAME, GX_NEG, GX_BIN, GX_CALL } GridKind;

typedef struct GridExpr {
  GridKind kind;
  char op;                 /* GX_BIN: + - * / %; GX_CALL: 'c' cdiv, 'm' min, 'M' max */
  int64_t num;             /* GX_NUM */
  char *name;              /* GX_NAME */
  int col, len;            /* the text it came from, for messages */
  struct GridExpr *a, *b;  /* operands */
} GridExpr;

struct AotGrid {
  char *text;
  int ndims;
  GridExpr *dims[3];
};

typedef struct Parser {
  const char *text;
  int pos, end;            /* the part being parsed: [pos, end) */
  char *why;               /* the first error's message */
  size_t whylen;
  bool failed;
} Parser;

/* "--grid: MESSAGE" then the text and a caret under [col, col + len). */
static void located(char *why, size_t whylen, const char *text, int col, int len, const char *fmt, va_list ap) {
  size_t n = (size_t)snprintf(why, whylen, "--grid: ");
  if (n < whylen) n += (size_t)vsnprintf(why + n, whylen - n, fmt, ap);
  if (n < whylen) n += (size_t)snprintf(why + n, whylen - n, "\n    %s\n    %*s^", text, col, "");
  for (int i = 1; i < len && n + 1 < whylen; i++) why[n++] = '~', why[n] = 0;
}

__attribute__((format(printf, 4, 5))) static void perr(Parser *p, int col, int len, const char *fmt, ...) {
  if (p->failed) return;
  p->failed = true;
  va_list ap;
  va_start(ap, fmt);
  located(p->why, p->whylen, p->text, col, len, fmt, ap);
  va_end(ap);
}

static GridExpr *node(GridKind kind, int col, int len) {
  GridExpr *e = calloc(1, sizeof *e);
  if (!e) abort(); /* a few dozen bytes: the command line has no recovery from this */
  e->kind = kind, e->col = col, e->len = len;
  return e;
}

static void expr_free(GridExpr *e) {
  if (!e) return;
  expr_free(e->a), expr_free(e->b);
  free(e->name);
  free(e);
}

static void skip_space(Parser *p) {
  while (p->pos < p->end && isspace((unsigned char)p->text[p->pos])) p->pos++;
}

static bool eat(Parser *p, const char *tok) {
  skip_space(p);
  size_t n = strlen(tok);
  if (p->pos + (int)n > p->end || strncmp(p->text + p->pos, tok, n)) return false;
  p->pos += (int)n;
  return true;
}

static int peek(Parser *p) {
  skip_space(p);
  return p->pos < p->end ? (unsigned char)p->text[p->pos] : 0;
}

/* What stands at the current place, for "expected X, found Y". */
static void found(Parser *p, char *buf, size_t len) {
  skip_space(p);
  if (p->pos >= p->end) snprintf(buf, len, "the end");
  else snprintf(buf, len, "'%c'", p->text[p->pos]);
}

static GridExpr *parse_expr(Parser *p);

/* A name: letters, digits, '_' and (for triton.cdiv, x_desc.shape0) '.'. */
static char *parse_name(Parser *p) {
  int start = p->pos;
  while (p->pos < p->end && (isalnum((unsigned char)p->text[p->pos]) || p->text[p->pos] == '_' ||
                             (p->text[p->pos] == '.' && p->pos > start)))
    p->pos++;
  return strndup(p->text + start, (size_t)(p->pos - start));
}

static GridExpr *parse_call(Parser *p, char *name, int col) {
  static const struct { const char *name; char op; } fns[] = {
      {"cdiv", 'c'}, {"triton.cdiv", 'c'}, {"tl.cdiv", 'c'}, {"min", 'm'}, {"max", 'M'}};
  char op = 0;
  for (size_t i = 0; i < sizeof fns / sizeof *fns; i++)
    if (!strcmp(name, fns[i].name)) op = fns[i].op;
  if (!op) {
    perr(p, col, (int)strlen(name), "unknown function '%s' (a grid may call cdiv, min and max)", name);
    free(name);
    return NULL;
  }
  GridExpr *e = node(GX_CALL, col, 0);
  e->op = op;
  e->a = parse_expr(p);
  if (!eat(p, ",")) {
    char f[16];
    found(p, f, sizeof f);
    perr(p, p->pos, 1, "expected ',' before the second argument of %s, found %s", name, f);
  } else {
    e->b = parse_expr(p);
    if (!eat(p, ")")) {
      char f[16];
      found(p, f, sizeof f);
      perr(p, p->pos, 1, "expected ')' closing the call of %s, found %s", name, f);
    }
  }
  e->len = p->pos - col;
  free(name);
  return e;
}

/* META['NAME'] (or "NAME"): a Triton grid lambda's way to name a constexpr. */
static GridExpr *parse_meta(Parser *p, int col) {
  skip_space(p);
  char q = p->pos < p->end ? p->text[p->pos] : 0;
  if (q != '\'' && q != '"') {
    perr(p, p->pos, 1, "META takes a quoted name: META['BLOCK']");
    return NULL;
  }
  int start = ++p->pos;
  while (p->pos < p->end && p->text[p->pos] != q) p->pos++;
  if (p->pos >= p->end) {
    perr(p, start - 1, 1, "unterminated string");
    return NULL;
  }
  GridExpr *e = node(GX_NAME, start, p->pos - start);
  e->name = strndup(p->text + start, (size_t)(p->pos - start));
  p->pos++;
  if (!eat(p, "]")) perr(p, p->pos, 1, "expected ']' after META['%s'", e->name);
  return e;
}

static GridExpr *parse_primary(Parser *p) {
  int c = peek(p), col = p->pos;
  if (isdigit(c)) {
    char *end;
    errno = 0;
    long long v = strtoll(p->text + p->pos, &end, 0);
    int len = (int)(end - (p->text + p->pos));
    if (errno || (end < p->text + p->end && (isalnum((unsigned char)*end) || *end == '_' || *end == '.'))) {
      while (end < p->text + p->end && (isalnum((unsigned char)*end) || *end == '_' || *end == '.')) end++;
      perr(p, col, (int)(end - (p->text + col)), "'%.*s' is not an integer in int64_t range",
           (int)(end - (p->text + col)), p->text + col);
      return NULL;
    }
    p->pos += len;
    GridExpr *e = node(GX_NUM, col, len);
    e->num = v;
    return e;
  }
  if (isalpha(c) || c == '_') {
    char *name = parse_name(p);
    if (eat(p, "(")) return parse_call(p, name, col);
    if (!strcmp(name, "META") && eat(p, "[")) {
      free(name);
      return parse_meta(p, col);
    }
    GridExpr *e = node(GX_NAME, col, (int)strlen(name));
    e->name = name;
    return e;
  }
  if (eat(p, "(")) {
    GridExpr *e = parse_expr(p);
    if (!eat(p, ")")) {
      char f[16];
      found(p, f, sizeof f);
      perr(p, p->pos, 1, "expected ')' closing the '(' at column %d, found %s", col + 1, f);
    }
    return e;
  }
  char f[16];
  found(p, f, sizeof f);
  perr(p, p->pos, 1, "expected a number, a name or '(', found %s", f);
  return NULL;
}

static GridExpr *parse_unary(Parser *p) {
  int col = (skip_space(p), p->pos);
  if (eat(p, "+")) return parse_unary(p);
  if (eat(p, "-")) {
    GridExpr *e = node(GX_NEG, col, 1);
    e->a = parse_unary(p);
    return e;
  }
  return parse_primary(p);
}

static GridExpr *binary(char op, int col, GridExpr *a, GridExpr *b) {
  GridExpr *e = node(GX_BIN, col, 1);
  e->op = op, e->a = a, e->b = b;
  return e;
}

static GridExpr *parse_term(Parser *p) {
  GridExpr *e = parse_unary(p);
  for (;;) {
    int col = (skip_space(p), p->pos);
    char op = eat(p, "//") || eat(p, "/") ? '/' : eat(p, "*") ? '*' : eat(p, "%") ? '%' : 0;
    if (!op || p->failed) return e;
    e = binary(op, col, e, parse_unary(p));
  }
}

static GridExpr *parse_expr(Parser *p) {
  GridExpr *e = parse_term(p);
  for (;;) {
    int col = (skip_space(p), p->pos);
    char op = eat(p, "+") ? '+' : eat(p, "-") ? '-' : 0;
    if (!op || p->failed) return e;
    e = binary(op, col, e, parse_term(p));
  }
}

/* dims over [pos, end): 1 to 3 expressions, a trailing ',' allowed. */
static bool parse_dims(Parser *p, AotGrid *g) {
  for (;;) {
    if (g->ndims == 3) {
      perr(p, p->pos, 1, "a grid has at most three dimensions");
      return false;
    }
    g->dims[g->ndims++] = parse_expr(p);
    if (p->failed) return false;
    if (!eat(p, ",")) break;
    if (peek(p) == 0) break; /* (x,) */
  }
  if (peek(p) != 0) {
    char f[16];
    found(p, f, sizeof f);
    perr(p, p->pos, 1, "expected ',' or the end of the grid, found %s", f);
    return false;
  }
  return true;
}

static void clear_dims(AotGrid *g) {
  for (int i = 0; i < g->ndims; i++) expr_free(g->dims[i]), g->dims[i] = NULL;
  g->ndims = 0;
}

AotGrid *grid_parse(const char *text, char *why, size_t whylen) {
  AotGrid *g = calloc(1, sizeof *g);
  if (!g || !(g->text = strdup(text))) {
    free(g);
    snprintf(why, whylen, "--grid: out of memory");
    return NULL;
  }
  int n = (int)strlen(text);
  Parser p = {g->text, 0, n, why, whylen, false};
  if (parse_dims(&p, g)) return g;
  /* a tuple, as a grid lambda returns it: (x, y) or (x,) */
  int lo = 0, hi = n;
  while (lo < hi && isspace((unsigned char)text[lo])) lo++;
  while (hi > lo && isspace((unsigned char)text[hi - 1])) hi--;
  if (hi - lo >= 2 && text[lo] == '(' && text[hi - 1] == ')' && memchr(text + lo, ',', (size_t)(hi - lo))) {
    clear_dims(g);
    Parser q = {g->text, lo + 1, hi - 1, why, whylen, false};
    if (parse_dims(&q, g)) return g;
  }
  grid_free(g);
  return NULL;
}

void grid_free(AotGrid *g) {
  if (!g) return;
  clear_dims(g);
  free(g->text);
  free(g);
}

const char *grid_text(const AotGrid *g) { return g->text; }

/* ---- names -------------------------------------------------------------------------- */

/* An integer constant's value: Python's int literal, or True / False. */
static bool const_int(const char *text, int64_t *out) {
  if (!strcmp(text, "True") || !strcmp(text, "False")) {
    *out = text[0] == 'T';
    return true;
  }
  char *end;
  errno = 0;
  long long v = strtoll(text, &end, 0);
  if (errno || end == text || *end) return false;
  *out = v;
  return true;
}

static bool int_kind(tlc_param_kind k) {
  switch (k) {
  case TLC_PARAM_I1: case TLC_PARAM_I8: case TLC_PARAM_I16: case TLC_PARAM_I32: case TLC_PARAM_I64:
  case TLC_PARAM_U8: case TLC_PARAM_U16: case TLC_PARAM_U32: case TLC_PARAM_U64: return true;
  default: return false;
  }
}

/* The names a grid of res may use, for the message about one it may not. */
static void list_names(const tlc_compile_result *res, char *buf, size_t len) {
  size_t n = 0;
  buf[0] = 0;
  for (int i = 0; i < res->nparams && n < len; i++)
    if (int_kind(res->params[i].kind))
      n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", res->params[i].name);
  int64_t v;
  for (int i = 0; i < res->nconstexprs && n < len; i++)
    if (const_int(res->constexprs[i].value, &v))
      n += (size_t)snprintf(buf + n, len - n, "%s%s=%s", n ? ", " : "", res->constexprs[i].name,
                            res->constexprs[i].value);
  if (!n) snprintf(buf, len, "none: the kernel has no integer parameter or constant");
}

__attribute__((format(printf, 5, 6))) static int check_fail(const AotGrid *g, const GridExpr *e, char *why,
                                                             size_t whylen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  located(why, whylen, g->text, e->col, e->len, fmt, ap);
  va_end(ap);
  return -1;
}

static int check_expr(const AotGrid *g, const GridExpr *e, const tlc_compile_result *res, const char *what,
                      char *why, size_t whylen) {
  if (!e) return 0;
  if (e->kind == GX_NAME) {
    for (int i = 0; i < res->nparams; i++) {
      if (strcmp(res->params[i].name, e->name)) continue;
      if (int_kind(res->params[i].kind)) return 0;
      return check_fail(g, e, why, whylen, "'%s' is a%s %s parameter of %s; a grid is computed from integers",
                        e->name, res->params[i].kind == TLC_PARAM_PTR ? "" : "n",
                        res->params[i].kind == TLC_PARAM_PTR ? "pointer" : tlc_param_kind_name(res->params[i].kind),
                        what);
    }
    for (int i = 0; i < res->nconstexprs; i++) {
      if (strcmp(res->constexprs[i].name, e->name)) continue;
      int64_t v;
      if (const_int(res->constexprs[i].value, &v)) return 0;
      return check_fail(g, e, why, whylen, "'%s' is %s in %s, not an integer", e->name,
                        res->constexprs[i].value, what);
    }
    char names[512];
    list_names(res, names, sizeof names);
    return check_fail(g, e, why, whylen, "unknown name '%s': not a parameter of %s (a grid may use %s)",
                      e->name, what, names);
  }
  if (check_expr(g, e->a, res, what, why, whylen)) return -1;
  return check_expr(g, e->b, res, what, why, whylen);
}

int grid_check(const AotGrid *g, const tlc_compile_result *res, const char *what, char *why, size_t whylen) {
  for (int d = 0; d < g->ndims; d++)
    if (check_expr(g, g->dims[d], res, what, why, whylen)) return -1;
  return 0;
}

/* ---- C ------------------------------------------------------------------------------- */

static void put_expr(FILE *f, const GridExpr *e, const tlc_compile_result *res, GridCName cname) {
  switch (e->kind) {
  case GX_NUM: fprintf(f, "INT64_C(%lld)", (long long)e->num); return;
  case GX_NAME: {
    for (int i = 0; i < res->nparams; i++)
      if (!strcmp(res->params[i].name, e->name)) {
        char c[128];
        cname(e->name, c, sizeof c);
        fprintf(f, "(int64_t)%s", c);
        return;
      }
    int64_t v = 0;
    for (int i = 0; i < res->nconstexprs; i++)
      if (!strcmp(res->constexprs[i].name, e->name)) const_int(res->constexprs[i].value, &v);
    fprintf(f, "INT64_C(%lld)", (long long)v);
    return;
  }
  case GX_NEG:
    fputs("-(", f), put_expr(f, e->a, res, cname), fputc(')', f);
    return;
  case GX_BIN:
    if (e->op == '/' || e->op == '%') fputs(e->op == '/' ? "tlc_grid_div(" : "tlc_grid_mod(", f);
    else fputc('(', f);
    put_expr(f, e->a, res, cname);
    fputs(e->op == '/' || e->op == '%' ? ", " : e->op == '+' ? " + " : e->op == '-' ? " - " : " * ", f);
    put_expr(f, e->b, res, cname);
    fputc(')', f);
    return;
  case GX_CALL:
    fputs(e->op == 'c' ? "tlc_grid_cdiv(" : e->op == 'm' ? "tlc_grid_min(" : "tlc_grid_max(", f);
    put_expr(f, e->a, res, cname);
    fputs(", ", f);
    put_expr(f, e->b, res, cname);
    fputc(')', f);
    return;
  }
}

void grid_put_c(FILE *f, const AotGrid *g, int d, const tlc_compile_result *res, GridCName cname) {
  if (d >= g->ndims) fputs("INT64_C(1)", f);
  else put_expr(f, g->dims[d], res, cname);
}

/* Which helpers e calls, as GRID_USES_ bits. */
static unsigned uses(const GridExpr *e) {
  if (!e) return 0;
  unsigned u = uses(e->a) | uses(e->b);
  if (e->kind == GX_BIN && e->op == '/') u |= 1u << 0;
  if (e->kind == GX_BIN && e->op == '%') u |= 1u << 1;
  if (e->kind == GX_CALL) u |= e->op == 'c' ? 1u << 0 | 1u << 2 : e->op == 'm' ? 1u << 3 : 1u << 4;
  return u;
}

unsigned grid_uses(const AotGrid *g) {
  unsigned u = 0;
  for (int d = 0; g && d < g->ndims; d++) u |= uses(g->dims[d]);
  return u;
}

void grid_put_helpers(FILE *f, unsigned used) {
  fputs("/* The grid's arithmetic, Python's: / and // round down, % takes the\n"
        " * divisor's sign; dividing by zero gives 0 (a zero grid dimension). */\n", f);
  if (used & 1u << 0)
    fputs("static int64_t tlc_grid_div(int64_t a, int64_t b) {\n"
          "  if (b == 0) return 0;\n"
          "  int64_t q = a / b;\n"
          "  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;\n"
          "}\n", f);
  if (used & 1u << 1)
    fputs("static int64_t tlc_grid_mod(int64_t a, int64_t b) {\n"
          "  if (b == 0) return 0;\n"
          "  int64_t r = a % b;\n"
          "  return (r != 0 && (r < 0) != (b < 0)) ? r + b : r;\n"
          "}\n", f);
  if (used & 1u << 2) fputs("static int64_t tlc_grid_cdiv(int64_t a, int64_t b) { return tlc_grid_div(a + b - 1, b); }\n", f);
  if (used & 1u << 3) fputs("static int64_t tlc_grid_min(int64_t a, int64_t b) { return a < b ? a : b; }\n", f);
  if (used & 1u << 4) fputs("static int64_t tlc_grid_max(int64_t a, int64_t b) { return a > b ? a : b; }\n", f);
  fputs("/* A grid dimension as tlc_launch takes it: below 1 is 0 and above\n"
        " * 2^32 - 1 is 2^32 - 1, both refused by the launch (TLC_ERR_LAUNCH). */\n"
        "static unsigned tlc_grid_dim(int64_t v) {\n"
        "  return v < 1 ? 0u : v > INT64_C(0xffffffff) ? 0xffffffffu : (unsigned)v;\n}\n", f);
}
