/* ast.c — node constructors, the kind and operator name tables, spans.
 *
 * Owns: allocation of AST nodes (always in a Module's arena, zeroed, so an
 * absent child is NULL and an absent list is empty), the printable names the
 * dump and diagnostics use, loc_join, and module-level lookups.  Does not own
 * parsing (parser.y) or the text dump (ast_dump.c). */
#include "frontend/frontend.h"

#include <string.h>

/* ORDER ExprKind, StmtKind, AstOp: all three come from the X-macro lists in
 * frontend.h, so the tables cannot drift from the enums. */
const char *const ast_expr_kind_name[EX__COUNT] = {
#define X(k, s) s,
    AST_EXPR_KINDS(X)
#undef X
};

const char *const ast_stmt_kind_name[ST__COUNT] = {
#define X(k, s) s,
    AST_STMT_KINDS(X)
#undef X
};

const char *const ast_op_spelling[AOP__COUNT] = {
#define X(k, s) s,
    AST_OPS(X)
#undef X
};

Expr *ast_expr(Arena *a, ExprKind k, Loc loc) {
  Expr *e = ARENA_NEW(a, Expr);
  e->kind = k;
  e->loc = loc;
  return e;
}

Stmt *ast_stmt(Arena *a, StmtKind k, Loc loc) {
  Stmt *s = ARENA_NEW(a, Stmt);
  s->kind = k;
  s->loc = loc;
  return s;
}

/* An unknown Loc (line 0) yields to the other; otherwise the span runs from
 * a's start to whichever end is later. */
Loc loc_join(Loc a, Loc b) {
  if (a.line <= 0) return b;
  if (b.line <= 0) return a;
  if (b.end_line > a.end_line || (b.end_line == a.end_line && b.end_col > a.end_col)) {
    a.end_line = b.end_line;
    a.end_col = b.end_col;
  }
  return a;
}

FuncDef *ast_find_def(const Module *m, const char *name) {
  if (!m || !name) return NULL;
  for (int i = 0; i < m->body.n; i++) {
    const Stmt *s = m->body.stmts[i];
    if (s->kind == ST_DEF && s->def && s->def->name && strcmp(s->def->name, name) == 0) return s->def;
  }
  return NULL;
}

void ast_free(Module *m) {
  if (!m) return;
  arena_free(&m->arena);
  m->body.stmts = NULL;
  m->body.n = 0;
}
