/* ast_dump.c — the text form of the AST (`tlc compile --emit ast`).
 *
 * Owns: one stable, line-per-node rendering that the parser's golden tests
 * (tests/lit/parse) match with FileCheck.  The format is documented above
 * ast_dump_module in frontend.h and in docs/syntax.md; change all three together.
 *
 * Each line is: indentation (two spaces a level), an optional `role: `
 * saying which child of its parent the node is, the kind name, the node's
 * own details (name, operator, literal), ` paren` when it was written in
 * parentheses, and `@line:col` of its first character. */
#include "frontend/frontend.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void dump_block(StrBuf *o, const char *role, Block b, int ind);
static void dump_expr(StrBuf *o, const Expr *e, int ind, const char *role);

static void pad(StrBuf *o, int ind) {
  for (int i = 0; i < ind; i++) sb_puts(o, "  ");
}

/* Start a node line: indentation, role, kind. */
static void head(StrBuf *o, int ind, const char *role, const char *kind) {
  pad(o, ind);
  if (role) sb_printf(o, "%s: ", role);
  sb_puts(o, kind);
}

static void at(StrBuf *o, Loc l) { sb_printf(o, " @%d:%d\n", l.line, l.col); }

/* A double the way Python's repr() writes it: the fewest significant digits
 * that read back as the same value, positional for exponents -4..15
 * ("100.0", "0.0001", "1.44269504"), scientific otherwise ("1e-06",
 * "1e+16"). */
static void put_float(StrBuf *o, double v) {
  char buf[64];
  if (isnan(v)) {
    sb_puts(o, "nan");
    return;
  }
  if (isinf(v)) {
    sb_puts(o, v < 0 ? "-inf" : "inf");
    return;
  }
  int prec = 1;
  for (; prec < 17; prec++) {
    snprintf(buf, sizeof buf, "%.*e", prec - 1, v);
    if (strtod(buf, NULL) == v) break;
  }
  snprintf(buf, sizeof buf, "%.*e", prec - 1, v);
  int exp10 = atoi(strchr(buf, 'e') + 1);
  if (exp10 >= -4 && exp10 < 16) {
    int decimals = prec - 1 - exp10;
    snprintf(buf, sizeof buf, "%.*f", decimals > 0 ? decimals : 0, v);
    sb_puts(o, buf);
    if (!strchr(buf, '.')) sb_puts(o, ".0");
  } else {
    sb_puts(o, buf);
  }
}

/* Length of the valid UTF-8 sequence at p (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *p, size_t n) {
  size_t len = p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC2 && p[0] < 0xE0 ? 2 : 0;
  if (len == 0 || len > n) return 0;
  for (size_t i = 1; i < len; i++)
    if ((p[i] & 0xC0) != 0x80) return 0;
  /* no overlong forms, no surrogates, nothing past U+10FFFF */
  if ((p[0] == 0xE0 && p[1] < 0xA0) || (p[0] == 0xED && p[1] >= 0xA0) || (p[0] == 0xF0 && p[1] < 0x90) ||
      (p[0] == 0xF4 && p[1] >= 0x90))
    return 0;
  return len;
}

/* A string literal in double quotes with C-style escapes; valid UTF-8
 * passes through so text in any script stays readable, other bytes are
 * written \xHH. */
static void put_str(StrBuf *o, const char *s, size_t n) {
  sb_putc(o, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    switch (c) {
    case '"': sb_puts(o, "\\\""); break;
    case '\\': sb_puts(o, "\\\\"); break;
    case '\n': sb_puts(o, "\\n"); break;
    case '\t': sb_puts(o, "\\t"); break;
    case '\r': sb_puts(o, "\\r"); break;
    default:
      if (c >= 0x80) {
        size_t k = utf8_len((const unsigned char *)s + i, n - i);
        if (k) {
          sb_putn(o, s + i, k);
          i += k - 1;
        } else {
          sb_printf(o, "\\x%02x", c);
        }
      } else if (c < 0x20 || c == 0x7F) {
        sb_printf(o, "\\x%02x", c);
      } else {
        sb_putc(o, (char)c);
      }
    }
  }
  sb_putc(o, '"');
}

static void dump_param(StrBuf *o, const Param *p, int ind) {
  head(o, ind, NULL, "Param");
  sb_printf(o, " %s%s", p->star == 2 ? "**" : p->star ? "*" : "", p->name ? p->name : "?");
  at(o, p->loc);
  if (p->annotation) dump_expr(o, p->annotation, ind + 1, "annotation");
  if (p->default_) dump_expr(o, p->default_, ind + 1, "default");
}

static void dump_expr(StrBuf *o, const Expr *e, int ind, const char *role) {
  if (!e) {
    head(o, ind, role, "<null>\n");
    return;
  }
  head(o, ind, role, ast_expr_kind_name[e->kind]);
  switch (e->kind) {
  case EX_NAME: case EX_ATTR: sb_printf(o, " %s", e->name ? e->name : "?"); break;
  case EX_INT: sb_printf(o, " %lld", (long long)e->ival); break;
  case EX_FLOAT: sb_putc(o, ' '); put_float(o, e->fval); break;
  case EX_STR: sb_putc(o, ' '); put_str(o, e->sval ? e->sval : "", e->slen); break;
  case EX_BOOL: sb_puts(o, e->ival ? " True" : " False"); break;
  case EX_BINOP: case EX_UNARY: case EX_BOOLOP: sb_printf(o, " %s", ast_op_spelling[e->op]); break;
  case EX_COMPARE:
    for (int i = 0; i + 1 < e->nitems; i++) sb_printf(o, " %s", ast_op_spelling[e->cmp_ops[i]]);
    break;
  default: break;
  }
  if (e->parenthesized) sb_puts(o, " paren");
  at(o, e->loc);
  int in = ind + 1;
  switch (e->kind) {
  case EX_ATTR: case EX_STARRED:
    dump_expr(o, e->value, in, NULL);
    break;
  case EX_CALL:
    dump_expr(o, e->value, in, "func");
    for (int i = 0; i < e->nitems; i++) dump_expr(o, e->items[i], in, "arg");
    for (int i = 0; i < e->nkwargs; i++) {
      const Keyword *k = &e->kwargs[i];
      head(o, in, NULL, "Keyword");
      sb_printf(o, " %s", k->name ? k->name : "**");
      at(o, k->loc);
      dump_expr(o, k->value, in + 1, NULL);
    }
    break;
  case EX_SUBSCRIPT:
    dump_expr(o, e->value, in, "value");
    for (int i = 0; i < e->nitems; i++) dump_expr(o, e->items[i], in, "index");
    break;
  case EX_SLICE:
    if (e->lo) dump_expr(o, e->lo, in, "lo");
    if (e->hi) dump_expr(o, e->hi, in, "hi");
    if (e->step) dump_expr(o, e->step, in, "step");
    break;
  case EX_BINOP: case EX_BOOLOP:
    dump_expr(o, e->lhs, in, NULL);
    dump_expr(o, e->rhs, in, NULL);
    break;
  case EX_UNARY:
    dump_expr(o, e->lhs, in, NULL);
    break;
  case EX_COMPARE: case EX_TUPLE: case EX_LIST:
    for (int i = 0; i < e->nitems; i++) dump_expr(o, e->items[i], in, NULL);
    break;
  case EX_IFEXP:
    dump_expr(o, e->lhs, in, "body");
    dump_expr(o, e->cond, in, "cond");
    dump_expr(o, e->rhs, in, "orelse");
    break;
  case EX_DICT:
    for (int i = 0; i < e->nitems; i++) {
      dump_expr(o, e->items[i], in, "key");
      dump_expr(o, e->values[i], in, "value");
    }
    break;
  case EX_LAMBDA:
    for (int i = 0; i < e->nparams; i++) dump_param(o, &e->params[i], in);
    dump_expr(o, e->body, in, "body");
    break;
  case EX_COMPREHENSION:
    dump_expr(o, e->value, in, "elt");
    for (int i = 0; i < e->nfors; i++) {
      const CompFor *c = &e->fors[i];
      dump_expr(o, c->target, in, "for");
      dump_expr(o, c->iter, in, "in");
      for (int k = 0; k < c->nconds; k++) dump_expr(o, c->conds[k], in, "if");
    }
    break;
  default:
    break;
  }
}

void ast_dump_expr(StrBuf *out, const Expr *e, int indent) { dump_expr(out, e, indent, NULL); }

static void dump_names(StrBuf *o, const Stmt *s) {
  for (int i = 0; i < s->nnames; i++) {
    sb_printf(o, "%s%s", i ? ", " : " ", s->names[i]);
    if (s->asnames && s->asnames[i]) sb_printf(o, " as %s", s->asnames[i]);
  }
}

static void dump_stmt(StrBuf *o, const Stmt *s, int ind) {
  int in = ind + 1;
  if (s->kind == ST_DEF) {
    const FuncDef *f = s->def;
    head(o, ind, NULL, ast_stmt_kind_name[s->kind]);
    sb_printf(o, " %s", f->name);
    at(o, f->loc);
    for (int i = 0; i < f->ndecorators; i++) dump_expr(o, f->decorators[i], in, "decorator");
    for (int i = 0; i < f->nparams; i++) dump_param(o, &f->params[i], in);
    if (f->returns) dump_expr(o, f->returns, in, "returns");
    dump_block(o, "body", f->body, in);
    return;
  }
  head(o, ind, NULL, ast_stmt_kind_name[s->kind]);
  switch (s->kind) {
  case ST_AUGASSIGN: sb_printf(o, " %s=", ast_op_spelling[s->op]); break;
  case ST_IMPORT:
    sb_printf(o, " %s", s->module);
    if (s->asname) sb_printf(o, " as %s", s->asname);
    break;
  case ST_IMPORTFROM:
    sb_printf(o, " %s import", s->module);
    dump_names(o, s);
    break;
  case ST_GLOBAL: dump_names(o, s); break;
  default: break;
  }
  at(o, s->loc);
  switch (s->kind) {
  case ST_EXPR: case ST_RETURN:
    if (s->value) dump_expr(o, s->value, in, NULL);
    break;
  case ST_ASSIGN:
    for (int i = 0; i < s->ntargets; i++) dump_expr(o, s->targets[i], in, "target");
    dump_expr(o, s->value, in, "value");
    break;
  case ST_AUGASSIGN:
    dump_expr(o, s->target, in, "target");
    dump_expr(o, s->value, in, "value");
    break;
  case ST_ANNASSIGN:
    dump_expr(o, s->target, in, "target");
    dump_expr(o, s->annotation, in, "annotation");
    if (s->value) dump_expr(o, s->value, in, "value");
    break;
  case ST_IF: case ST_WHILE:
    dump_expr(o, s->cond, in, "cond");
    dump_block(o, "body", s->body, in);
    dump_block(o, "orelse", s->orelse, in);
    break;
  case ST_FOR:
    dump_expr(o, s->target, in, "target");
    dump_expr(o, s->value, in, "iter");
    dump_block(o, "body", s->body, in);
    dump_block(o, "orelse", s->orelse, in);
    break;
  case ST_ASSERT:
    dump_expr(o, s->cond, in, "cond");
    if (s->msg) dump_expr(o, s->msg, in, "msg");
    break;
  case ST_DEL:
    for (int i = 0; i < s->ntargets; i++) dump_expr(o, s->targets[i], in, "target");
    break;
  default:
    break;
  }
}

/* `role:` on its own line, the statements one level deeper; an empty orelse
 * is left out (an empty body only comes from an error). */
static void dump_block(StrBuf *o, const char *role, Block b, int ind) {
  if (b.n == 0 && strcmp(role, "body") != 0) return;
  pad(o, ind);
  sb_printf(o, "%s:\n", role);
  for (int i = 0; i < b.n; i++) dump_stmt(o, b.stmts[i], ind + 1);
}

void ast_dump_module(StrBuf *out, const Module *m) {
  sb_puts(out, "Module\n");
  for (int i = 0; i < m->body.n; i++) dump_stmt(out, m->body.stmts[i], 1);
}
