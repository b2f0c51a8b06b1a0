/* parse_build.c — the node builders that parser.y's grammar actions call.
 *
 * Owns: growing the heap list builders and landing them in the module arena,
 * making and checking statement and expression nodes (the checks Python makes
 * while parsing: assignment targets, argument and parameter order, what
 * may be deleted or imported), and bounding the depth of the finished tree.
 * Does not own the grammar or the wording of syntax errors (parser.y) or
 * tokens (lexer.l).  Every function here is declared in parse_internal.h;
 * an action calls one, and the result carries the span the action gives. */
#include "frontend/parse_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ==== list builders ============================================================ */

ExprList *parse_exprs(Expr *first) {
  ExprList *l = xcalloc(1, sizeof *l);
  if (first) VEC_PUSH(l->v, first);
  return l;
}
ExprList *parse_exprs_push(ExprList *l, Expr *e) {
  VEC_PUSH(l->v, e);
  return l;
}
void parse_exprs_free(ExprList *l) {
  if (!l) return;
  VEC_FREE(l->v);
  free(l);
}

StmtList *parse_stmts(Stmt *first) {
  StmtList *l = xcalloc(1, sizeof *l);
  if (first) VEC_PUSH(l->v, first);
  return l;
}
StmtList *parse_stmts_push(StmtList *l, Stmt *s) {
  if (s) VEC_PUSH(l->v, s);
  return l;
}
StmtList *parse_stmts_concat(StmtList *a, StmtList *b) {
  for (int i = 0; i < b->v.len; i++) VEC_PUSH(a->v, b->v.data[i]);
  parse_stmts_free(b);
  return a;
}
void parse_stmts_free(StmtList *l) {
  if (!l) return;
  VEC_FREE(l->v);
  free(l);
}

ParamList *parse_params(Param *first) {
  ParamList *l = xcalloc(1, sizeof *l);
  if (first) VEC_PUSH(l->v, *first);
  return l;
}
ParamList *parse_params_push(ParamList *l, Param *p) {
  if (p) VEC_PUSH(l->v, *p);
  return l;
}
void parse_params_free(ParamList *l) {
  if (!l) return;
  VEC_FREE(l->v);
  free(l);
}

CompList *parse_comps(CompFor *first) {
  CompList *l = xcalloc(1, sizeof *l);
  VEC_PUSH(l->v, *first);
  return l;
}
CompList *parse_comps_push(CompList *l, CompFor *c) {
  VEC_PUSH(l->v, *c);
  return l;
}
void parse_comps_free(CompList *l) {
  if (!l) return;
  VEC_FREE(l->v);
  free(l);
}

CmpChain *parse_chain(Expr *a, AstOp op, Expr *b) {
  CmpChain *c = xcalloc(1, sizeof *c);
  VEC_PUSH(c->items, a);
  return parse_chain_push(c, op, b);
}
CmpChain *parse_chain_push(CmpChain *c, AstOp op, Expr *b) {
  VEC_PUSH(c->ops, op);
  VEC_PUSH(c->items, b);
  return c;
}
void parse_chain_free(CmpChain *c) {
  if (!c) return;
  VEC_FREE(c->items);
  VEC_FREE(c->ops);
  free(c);
}

ArgList *parse_args(void) { return xcalloc(1, sizeof(ArgList)); }

ArgList *parse_arg_pos(ParseState *ps, ArgList *a, Expr *e) {
  if (a->saw_kwargs && e->kind != EX_STARRED)
    parse_error(ps, e->loc, "positional argument follows keyword argument unpacking");
  else if (a->saw_kw && e->kind != EX_STARRED)
    parse_error(ps, e->loc, "positional argument follows keyword argument");
  else if (a->saw_kwargs)
    parse_error(ps, e->loc, "iterable argument unpacking follows keyword argument unpacking");
  VEC_PUSH(a->pos, e);
  return a;
}

ArgList *parse_arg_kw(ParseState *ps, ArgList *a, Expr *name, Expr *value, Loc loc) {
  if (name->kind != EX_NAME || name->parenthesized) {
    parse_error(ps, name->loc, "expression cannot contain assignment; perhaps you meant \"==\"?");
    return a;
  }
  for (int i = 0; i < a->kw.len; i++)
    if (a->kw.data[i].name && !strcmp(a->kw.data[i].name, name->name)) {
      parse_error(ps, name->loc, "keyword argument repeated: %s", name->name);
      return a;
    }
  Keyword k = {name->name, value, loc};
  VEC_PUSH(a->kw, k);
  a->saw_kw = true;
  return a;
}

ArgList *parse_arg_kwargs(ParseState *ps, ArgList *a, Expr *value, Loc loc) {
  (void)ps;
  Keyword k = {NULL, value, loc};
  VEC_PUSH(a->kw, k);
  a->saw_kwargs = true;
  return a;
}

void parse_args_free(ArgList *a) {
  if (!a) return;
  VEC_FREE(a->pos);
  VEC_FREE(a->kw);
  free(a);
}

NameList *parse_names(const char *name, const char *asname) {
  return parse_names_push(xcalloc(1, sizeof(NameList)), name, asname);
}
NameList *parse_names_push(NameList *l, const char *name, const char *asname) {
  VEC_PUSH(l->names, name);
  VEC_PUSH(l->asnames, asname);
  return l;
}
void parse_names_free(NameList *l) {
  if (!l) return;
  VEC_FREE(l->names);
  VEC_FREE(l->asnames);
  free(l);
}

/* ==== statements =============================================================== */

void parse_top(ParseState *ps, StmtList *l) {
  for (int i = 0; i < l->v.len; i++) VEC_PUSH(ps->top, l->v.data[i]);
  parse_stmts_free(l);
}

Block parse_block(ParseState *ps, StmtList *l) {
  Block b = {VEC_TO_ARENA(ps->arena, l->v), l->v.len};
  parse_stmts_free(l);
  return b;
}

void parse_header(ParseState *ps, const char *what, Loc kw) {
  ps->hdr_what = what;
  ps->hdr_line = kw.line;
}

/* `if x:` and then no indented line: report it; the next line, when it is
 * a simple statement, becomes the body (it was most likely meant to be
 * indented), else the body is empty. */
Block parse_missing_block(ParseState *ps, Loc at, StmtList *unindented) {
  if (unindented && unindented->v.len) at = lex_point(unindented->v.data[0]->loc);
  bool swallowed = false;
  for (int i = 0; i < ps->too_deep_lines.len; i++) swallowed |= ps->too_deep_lines.data[i] == at.line;
  if (!swallowed)
    parse_error(ps, at, "expected an indented block after %s on line %d",
                ps->hdr_what ? ps->hdr_what : "this statement", ps->hdr_line);
  return unindented ? parse_block(ps, unindented) : (Block){0};
}

/* The end of a block: its last statement's end. */
static Loc block_end(Block b, Loc fallback) {
  return b.n ? b.stmts[b.n - 1]->loc : fallback;
}

Stmt *parse_simple(ParseState *ps, StmtKind k, Loc loc) { return ast_stmt(ps->arena, k, loc); }

Stmt *parse_expr_stmt(ParseState *ps, Expr *e, Loc loc) {
  Stmt *s = ast_stmt(ps->arena, ST_EXPR, loc);
  s->value = e;
  return s;
}

/* What a non-target expression is called in messages. */
static const char *expr_what(const Expr *e) {
  switch (e->kind) {
  case EX_CALL: return "function call";
  case EX_INT: case EX_FLOAT: case EX_STR: return "literal";
  case EX_BOOL: return e->ival ? "True" : "False";
  case EX_NONE: return "None";
  case EX_ELLIPSIS: return "ellipsis";
  case EX_BINOP: case EX_UNARY: return "expression";
  case EX_BOOLOP: return "expression";
  case EX_COMPARE: return "comparison";
  case EX_IFEXP: return "conditional expression";
  case EX_LAMBDA: return "lambda";
  case EX_DICT: return "dict literal";
  case EX_COMPREHENSION: return "list comprehension";
  case EX_SLICE: return "slice";
  case EX_TUPLE: return "tuple";
  case EX_LIST: return "list";
  case EX_STARRED: return "starred";
  default: return "expression";
  }
}

/* Is `e` something one can assign to (or delete, when `verb` is "delete")?
 * Reports the first offender.  Tuples and lists nest, with one starred
 * element at most (assignment only). */
static bool check_target(ParseState *ps, const Expr *e, const char *verb, bool top) {
  switch (e->kind) {
  case EX_NAME: case EX_ATTR: case EX_SUBSCRIPT:
    return true;
  case EX_TUPLE: case EX_LIST: {
    int stars = 0;
    for (int i = 0; i < e->nitems; i++) {
      const Expr *it = e->items[i];
      if (it->kind == EX_STARRED) {
        if (verb[0] == 'd') {
          parse_error(ps, it->loc, "cannot delete starred");
          return false;
        }
        if (++stars == 2) {
          parse_error(ps, it->loc, "multiple starred expressions in assignment");
          return false;
        }
        if (!check_target(ps, it->value, verb, false)) return false;
      } else if (!check_target(ps, it, verb, false)) {
        return false;
      }
    }
    return true;
  }
  case EX_STARRED:
    if (top && verb[0] != 'd') {
      parse_error(ps, e->loc, "starred assignment target must be in a list or tuple");
      return false;
    }
    break;
  default:
    break;
  }
  parse_error(ps, e->loc, "cannot %s %s", verb, expr_what(e));
  return false;
}

Stmt *parse_assign(ParseState *ps, ExprList *chain, Loc loc) {
  Stmt *s = ast_stmt(ps->arena, ST_ASSIGN, loc);
  int n = chain->v.len - 1;
  for (int i = 0; i < n; i++) check_target(ps, chain->v.data[i], "assign to", true);
  s->value = chain->v.data[n];
  s->ntargets = n;
  s->targets = ARENA_ARRAY(ps->arena, Expr *, n);
  memcpy(s->targets, chain->v.data, sizeof(Expr *) * (size_t)n);
  parse_exprs_free(chain);
  return s;
}

Stmt *parse_augassign(ParseState *ps, Expr *target, AstOp op, Expr *value, Loc loc) {
  if (target->kind != EX_NAME && target->kind != EX_ATTR && target->kind != EX_SUBSCRIPT)
    parse_error(ps, target->loc, "'%s' is an illegal expression for augmented assignment", expr_what(target));
  Stmt *s = ast_stmt(ps->arena, ST_AUGASSIGN, loc);
  s->target = target;
  s->op = op;
  s->value = value;
  return s;
}

Stmt *parse_annassign(ParseState *ps, Expr *target, Expr *ann, Expr *value, Loc loc) {
  if (target->kind == EX_TUPLE)
    parse_error(ps, target->loc, "only a single target (not a tuple) can be annotated");
  else if (target->kind == EX_LIST)
    parse_error(ps, target->loc, "only a single target (not a list) can be annotated");
  else if (target->kind != EX_NAME && target->kind != EX_ATTR && target->kind != EX_SUBSCRIPT)
    parse_error(ps, target->loc, "illegal target for annotation");
  Stmt *s = ast_stmt(ps->arena, ST_ANNASSIGN, loc);
  s->target = target;
  s->annotation = ann;
  s->value = value;
  return s;
}

Stmt *parse_return(ParseState *ps, Expr *value, Loc loc) {
  Stmt *s = ast_stmt(ps->arena, ST_RETURN, loc);
  s->value = value;
  return s;
}

Stmt *parse_assert(ParseState *ps, Expr *cond, Expr *msg, Loc loc) {
  Stmt *s = ast_stmt(ps->arena, ST_ASSERT, loc);
  s->cond = cond;
  s->msg = msg;
  return s;
}

/* `del a, b` deletes two targets; `del (a, b)` one tuple. */
Stmt *parse_del(ParseState *ps, Expr *targets, Loc loc) {
  Stmt *s = ast_stmt(ps->arena, ST_DEL, loc);
  if (targets->kind == EX_TUPLE && !targets->parenthesized) {
    s->targets = targets->items;
    s->ntargets = targets->nitems;
  } else {
    s->targets = ARENA_ARRAY(ps->arena, Expr *, 1);
    s->targets[0] = targets;
    s->ntargets = 1;
  }
  for (int i = 0; i < s->ntargets; i++) check_target(ps, s->targets[i], "delete", false);
  return s;
}

Stmt *parse_global(ParseState *ps, NameList *names, Loc loc) {
  Stmt *s = ast_stmt(ps->arena, ST_GLOBAL, loc);
  s->nnames = names->names.len;
  s->names = VEC_TO_ARENA(ps->arena, names->names);
  parse_names_free(names);
  return s;
}

/* `import a.b as c, d` is two Import statements. */
StmtList *parse_import(ParseState *ps, NameList *mods, Loc loc) {
  StmtList *l = parse_stmts(NULL);
  for (int i = 0; i < mods->names.len; i++) {
    Stmt *s = ast_stmt(ps->arena, ST_IMPORT, loc);
    s->module = mods->names.data[i];
    s->asname = mods->asnames.data[i];
    VEC_PUSH(l->v, s);
  }
  parse_names_free(mods);
  return l;
}

Stmt *parse_import_from(ParseState *ps, const char *module, NameList *names, Loc loc) {
  Stmt *s = ast_stmt(ps->arena, ST_IMPORTFROM, loc);
  s->module = module;
  s->nnames = names->names.len;
  s->names = VEC_TO_ARENA(ps->arena, names->names);
  s->asnames = VEC_TO_ARENA(ps->arena, names->asnames);
  parse_names_free(names);
  return s;
}

/* "a" + "b" -> "a.b"; dots of a relative import join without a separator. */
const char *parse_dotted(ParseState *ps, const char *a, const char *b) {
  bool a_dots = a[strspn(a, ".")] == 0;
  return arena_printf(ps->arena, a_dots ? "%s%s" : "%s.%s", a, b);
}

Stmt *parse_if(ParseState *ps, Expr *cond, Block body, Block orelse, Loc head) {
  Stmt *s = ast_stmt(ps->arena, ST_IF, loc_join(head, block_end(orelse.n ? orelse : body, head)));
  s->cond = cond;
  s->body = body;
  s->orelse = orelse;
  return s;
}

/* elif c: ... becomes an else block holding one If. */
Block parse_elif(ParseState *ps, Expr *cond, Block body, Block orelse, Loc head) {
  Block b = {ARENA_ARRAY(ps->arena, Stmt *, 1), 1};
  b.stmts[0] = parse_if(ps, cond, body, orelse, head);
  return b;
}

Stmt *parse_loop_head(ParseState *ps, StmtKind k, Expr *target, Expr *cond_or_iter, Loc head) {
  Stmt *s = ast_stmt(ps->arena, k, head);
  if (k == ST_FOR) {
    check_target(ps, target, "assign to", true);
    s->target = target;
    s->value = cond_or_iter;
    parse_header(ps, "'for' statement", head);
  } else {
    s->cond = cond_or_iter;
    parse_header(ps, "'while' statement", head);
  }
  return s;
}

Stmt *parse_loop(ParseState *ps, Stmt *head, Block body, Block orelse) {
  (void)ps;
  head->body = body;
  head->orelse = orelse;
  head->loc = loc_join(head->loc, block_end(orelse.n ? orelse : body, head->loc));
  return head;
}

/* The order Python requires: plain parameters, then *args, then **kwargs. */
static void check_star_order(ParseState *ps, const ParamList *params) {
  int seen = 0; /* the largest star kind so far */
  for (int i = 0; i < params->v.len; i++) {
    const Param *p = &params->v.data[i];
    if (p->star == 2 && i + 1 < params->v.len)
      parse_error(ps, params->v.data[i + 1].loc, "a parameter cannot follow '**%s'", p->name);
    else if (p->star == 1 && seen >= 1)
      parse_error(ps, p->loc, "only one '*' parameter is allowed");
    if (p->star > seen) seen = p->star;
  }
}

FuncDef *parse_def_head(ParseState *ps, const char *name, ParamList *params, Expr *returns, Loc loc) {
  FuncDef *f = ARENA_NEW(ps->arena, FuncDef);
  f->name = name;
  f->loc = loc;
  f->returns = returns;
  bool saw_default = false;
  for (int i = 0; i < params->v.len; i++) {
    Param *p = &params->v.data[i];
    for (int j = 0; j < i; j++)
      if (!strcmp(params->v.data[j].name, p->name))
        parse_error(ps, p->loc, "duplicate parameter '%s' in function definition", p->name);
    if (p->default_) saw_default = true;
    else if (saw_default && !p->star)
      parse_error(ps, p->loc, "parameter without a default follows parameter with a default");
  }
  check_star_order(ps, params);
  f->nparams = params->v.len;
  f->params = VEC_TO_ARENA(ps->arena, params->v);
  parse_params_free(params);
  parse_header(ps, "function definition", loc);
  return f;
}

/* The DEF statement: header, body and docstring. */
Stmt *parse_def(ParseState *ps, FuncDef *f, Block body) {
  f->body = body;
  if (body.n && body.stmts[0]->kind == ST_EXPR && body.stmts[0]->value->kind == EX_STR)
    f->docstring = body.stmts[0]->value->sval;
  Stmt *s = ast_stmt(ps->arena, ST_DEF, loc_join(f->loc, block_end(body, f->loc)));
  s->def = f;
  return s;
}

/* Decorators apply bottom-up but are kept in source order; the statement's
 * span grows to start at the first '@'. */
Stmt *parse_decorate(ParseState *ps, ExprList *decorators, Stmt *def) {
  FuncDef *f = def->def;
  f->ndecorators = decorators->v.len;
  f->decorators = VEC_TO_ARENA(ps->arena, decorators->v);
  Loc first = decorators->v.data[0]->loc;
  if (first.col > 1) first.col--; /* the '@' (the parser keeps no Loc for it) */
  def->loc = loc_join(first, def->loc);
  parse_exprs_free(decorators);
  return def;
}

Stmt *parse_stray_decorators(ParseState *ps, ExprList *decorators) {
  Loc at = decorators->v.data[decorators->v.len - 1]->loc;
  parse_error(ps, at, "a decorator must be followed by a function definition ('def')");
  parse_exprs_free(decorators);
  return NULL;
}

Param *parse_param(ParseState *ps, const char *name, Expr *ann, Expr *def, Loc loc) {
  Param *p = ARENA_NEW(ps->arena, Param);
  p->name = name;
  p->annotation = ann;
  p->default_ = def;
  p->loc = loc;
  return p;
}

Param *parse_star_param(ParseState *ps, const char *name, int star, Expr *ann, Loc loc) {
  Param *p = parse_param(ps, name, ann, NULL, loc);
  p->star = star;
  return p;
}

Param *parse_bad_param(ParseState *ps, const char *what, Loc loc) {
  parse_error(ps, loc, "%s are not supported in tile kernels", what);
  return NULL;
}

/* ==== expressions ============================================================== */

Expr *parse_name(ParseState *ps, const char *name, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_NAME, loc);
  e->name = name;
  return e;
}

Expr *parse_int(ParseState *ps, int64_t v, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_INT, loc);
  e->ival = v;
  return e;
}

Expr *parse_float(ParseState *ps, double v, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_FLOAT, loc);
  e->fval = v;
  return e;
}

Expr *parse_str(ParseState *ps, StrLit s, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_STR, loc);
  e->sval = s.s;
  e->slen = s.n;
  return e;
}

StrLit parse_str_concat(ParseState *ps, StrLit a, StrLit b, Loc at) {
  if (a.bytes != b.bytes) parse_error(ps, at, "cannot mix bytes and nonbytes literals");
  char *s = arena_alloc(ps->arena, a.n + b.n + 1);
  memcpy(s, a.s, a.n);
  memcpy(s + a.n, b.s, b.n);
  a.s = s;
  a.n += b.n;
  return a;
}

Expr *parse_const(ParseState *ps, ExprKind k, int64_t v, Loc loc) {
  Expr *e = ast_expr(ps->arena, k, loc);
  e->ival = v;
  return e;
}

Expr *parse_binop(ParseState *ps, AstOp op, Expr *l, Expr *r, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_BINOP, loc);
  e->op = op;
  e->lhs = l;
  e->rhs = r;
  return e;
}

Expr *parse_unary(ParseState *ps, AstOp op, Expr *x, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_UNARY, loc);
  e->op = op;
  e->lhs = x;
  return e;
}

Expr *parse_boolop(ParseState *ps, AstOp op, Expr *l, Expr *r, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_BOOLOP, loc);
  e->op = op;
  e->lhs = l;
  e->rhs = r;
  return e;
}

Expr *parse_compare(ParseState *ps, CmpChain *c, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_COMPARE, loc);
  e->nitems = c->items.len;
  e->items = VEC_TO_ARENA(ps->arena, c->items);
  e->cmp_ops = VEC_TO_ARENA(ps->arena, c->ops);
  parse_chain_free(c);
  return e;
}

Expr *parse_ifexp(ParseState *ps, Expr *body, Expr *cond, Expr *orelse, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_IFEXP, loc);
  e->lhs = body;
  e->cond = cond;
  e->rhs = orelse;
  return e;
}

Expr *parse_lambda(ParseState *ps, ParamList *params, Expr *body, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_LAMBDA, loc);
  if (params) {
    bool saw_default = false;
    for (int i = 0; i < params->v.len; i++) {
      Param *p = &params->v.data[i];
      if (p->default_) saw_default = true;
      else if (saw_default && !p->star)
        parse_error(ps, p->loc, "parameter without a default follows parameter with a default");
    }
    check_star_order(ps, params);
    e->nparams = params->v.len;
    e->params = VEC_TO_ARENA(ps->arena, params->v);
    parse_params_free(params);
  }
  e->body = body;
  return e;
}

Expr *parse_attr(ParseState *ps, Expr *value, const char *name, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_ATTR, loc);
  e->value = value;
  e->name = name;
  return e;
}

Expr *parse_call(ParseState *ps, Expr *func, ArgList *args, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_CALL, loc);
  e->value = func;
  if (args) {
    e->nitems = args->pos.len;
    e->items = VEC_TO_ARENA(ps->arena, args->pos);
    e->nkwargs = args->kw.len;
    e->kwargs = VEC_TO_ARENA(ps->arena, args->kw);
    parse_args_free(args);
  }
  return e;
}

/* x[a, b] has two items; x[a,] one item, a one-element Tuple. */
Expr *parse_subscript(ParseState *ps, Expr *value, ExprList *items, bool trailing_comma, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_SUBSCRIPT, loc);
  e->value = value;
  if (trailing_comma && items->v.len == 1) {
    Expr *t = parse_seq(ps, EX_TUPLE, items, items->v.data[0]->loc);
    e->items = ARENA_ARRAY(ps->arena, Expr *, 1);
    e->items[0] = t;
    e->nitems = 1;
    return e;
  }
  e->nitems = items->v.len;
  e->items = VEC_TO_ARENA(ps->arena, items->v);
  parse_exprs_free(items);
  return e;
}

Expr *parse_slice(ParseState *ps, Expr *lo, Expr *hi, Expr *step, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_SLICE, loc);
  e->lo = lo;
  e->hi = hi;
  e->step = step;
  return e;
}

Expr *parse_starred(ParseState *ps, Expr *value, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_STARRED, loc);
  e->value = value;
  return e;
}

/* A Tuple or List of `items` (NULL: empty); frees the builder. */
Expr *parse_seq(ParseState *ps, ExprKind k, ExprList *items, Loc loc) {
  Expr *e = ast_expr(ps->arena, k, loc);
  if (items) {
    e->nitems = items->v.len;
    e->items = VEC_TO_ARENA(ps->arena, items->v);
    parse_exprs_free(items);
  }
  return e;
}

Expr *parse_tuple_or_single(ParseState *ps, ExprList *items, bool trailing_comma, Loc loc) {
  if (items->v.len == 1 && !trailing_comma) {
    Expr *e = items->v.data[0];
    parse_exprs_free(items);
    return e;
  }
  return parse_seq(ps, EX_TUPLE, items, loc);
}

/* ( e ): the same node, marked; a lone starred expression is not an
 * expression. */
Expr *parse_paren(ParseState *ps, Expr *e, Loc loc) {
  if (e->kind == EX_STARRED) parse_error(ps, e->loc, "cannot use starred expression here");
  if (e->kind == EX_TUPLE) e->loc = loc;
  e->parenthesized = true;
  return e;
}

Expr *parse_dict(ParseState *ps, ExprList *pairs, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_DICT, loc);
  if (!pairs) return e;
  int n = pairs->v.len / 2;
  e->nitems = n;
  e->items = ARENA_ARRAY(ps->arena, Expr *, n);
  e->values = ARENA_ARRAY(ps->arena, Expr *, n);
  for (int i = 0; i < n; i++) {
    e->items[i] = pairs->v.data[2 * i];
    e->values[i] = pairs->v.data[2 * i + 1];
  }
  parse_exprs_free(pairs);
  return e;
}

Expr *parse_listcomp(ParseState *ps, Expr *elt, CompList *fors, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_COMPREHENSION, loc);
  e->value = elt;
  e->nfors = fors->v.len;
  e->fors = VEC_TO_ARENA(ps->arena, fors->v);
  parse_comps_free(fors);
  return e;
}

CompFor *parse_comp_for(ParseState *ps, Expr *target, Expr *iter, ExprList *conds) {
  check_target(ps, target, "assign to", true);
  CompFor *c = ARENA_NEW(ps->arena, CompFor);
  c->target = target;
  c->iter = iter;
  if (conds) {
    c->nconds = conds->v.len;
    c->conds = VEC_TO_ARENA(ps->arena, conds->v);
    parse_exprs_free(conds);
  }
  return c;
}

/* Syntax Python has and tile kernels do not: report, and stand in None. */
Expr *parse_unsupported(ParseState *ps, const char *what, Loc loc) {
  parse_error(ps, loc, "%s not supported in tile kernels", what);
  return ast_expr(ps->arena, EX_NONE, loc);
}

/* ==== nesting limit =========================================================== */

/* Left-recursive rules build arbitrarily deep trees in constant parser stack
 * (`a + a + ... + a`, `x.f().g()...`), and every later stage walks the tree
 * recursively.  So, like CPython, the parser bounds the depth: a subtree
 * deeper than this is reported and replaced by None, which keeps the module
 * safe to dump and free.  Real kernels stay far below it. */
enum { PARSE_MAX_DEPTH = 500 };

typedef struct DepthItem {
  Expr **slot;
  int depth;
} DepthItem;

typedef VEC(DepthItem) DepthStack;

static void depth_push(DepthStack *st, Expr **slot, int depth) {
  if (!*slot) return;
  DepthItem it = {slot, depth};
  VEC_PUSH(*st, it);
}

/* Walk one expression tree with an explicit stack (the tree may be too deep
 * to recurse over: that is what is being checked). */
static void parse_limit_expr(ParseState *ps, Expr **root, int base, bool *reported) {
  DepthStack st = {0};
  depth_push(&st, root, base + 1);
  while (st.len) {
    DepthItem it = st.data[--st.len];
    Expr *e = *it.slot;
    if (it.depth > PARSE_MAX_DEPTH) {
      if (!*reported) parse_error(ps, e->loc, "expression is nested too deeply (more than %d levels)", PARSE_MAX_DEPTH);
      *reported = true;
      *it.slot = ast_expr(ps->arena, EX_NONE, e->loc);
      continue;
    }
    int d = it.depth + 1;
    depth_push(&st, &e->value, d);
    depth_push(&st, &e->lhs, d);
    depth_push(&st, &e->rhs, d);
    depth_push(&st, &e->cond, d);
    depth_push(&st, &e->lo, d);
    depth_push(&st, &e->hi, d);
    depth_push(&st, &e->step, d);
    depth_push(&st, &e->body, d);
    for (int i = 0; i < e->nitems; i++) depth_push(&st, &e->items[i], d);
    if (e->values)
      for (int i = 0; i < e->nitems; i++) depth_push(&st, &e->values[i], d);
    for (int i = 0; i < e->nkwargs; i++) depth_push(&st, &e->kwargs[i].value, d);
    for (int i = 0; i < e->nparams; i++) {
      depth_push(&st, &e->params[i].annotation, d);
      depth_push(&st, &e->params[i].default_, d);
    }
    for (int i = 0; i < e->nfors; i++) {
      depth_push(&st, &e->fors[i].target, d);
      depth_push(&st, &e->fors[i].iter, d);
      for (int k = 0; k < e->fors[i].nconds; k++) depth_push(&st, &e->fors[i].conds[k], d);
    }
  }
  VEC_FREE(st);
}

/* Statements nest at most as deep as indentation allows (100 levels), so
 * they are walked recursively; `depth` counts them towards the limit. */
void parse_limit_block(ParseState *ps, Block b, int depth, bool *reported) {
  for (int i = 0; i < b.n; i++) {
    Stmt *s = b.stmts[i];
    if (s->value) parse_limit_expr(ps, &s->value, depth, reported);
    if (s->target) parse_limit_expr(ps, &s->target, depth, reported);
    if (s->annotation) parse_limit_expr(ps, &s->annotation, depth, reported);
    if (s->cond) parse_limit_expr(ps, &s->cond, depth, reported);
    if (s->msg) parse_limit_expr(ps, &s->msg, depth, reported);
    for (int k = 0; k < s->ntargets; k++) parse_limit_expr(ps, &s->targets[k], depth, reported);
    if (s->def) {
      FuncDef *f = s->def;
      for (int k = 0; k < f->ndecorators; k++) parse_limit_expr(ps, &f->decorators[k], depth, reported);
      for (int k = 0; k < f->nparams; k++) {
        if (f->params[k].annotation) parse_limit_expr(ps, &f->params[k].annotation, depth, reported);
        if (f->params[k].default_) parse_limit_expr(ps, &f->params[k].default_, depth, reported);
      }
      if (f->returns) parse_limit_expr(ps, &f->returns, depth, reported);
      parse_limit_block(ps, f->body, depth + 1, reported);
    }
    parse_limit_block(ps, s->body, depth + 1, reported);
    parse_limit_block(ps, s->orelse, depth + 1, reported);
  }
}
