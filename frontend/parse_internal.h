/* parse_internal.h — what lexer.l, parser.y and parse_build.c share;
 * private to the parser.
 *
 * Owns: the ParseState threaded through the reentrant scanner (as its extra
 * data) and the pure parser (as a parse-param), the heap-backed list builders
 * that grammar actions grow and then copy into the module arena, and the one
 * error funnel both halves report through.  Nothing outside those three
 * files includes this header; the rest of tlc sees only frontend.h.
 *
 * Memory convention: every AST node, name and string lives in the module
 * arena.  The only heap memory is the list builders below (and the scanner's
 * stacks); a builder is either turned into an arena array and freed by the
 * action that finishes it, or freed by bison's %destructor when error
 * recovery discards it, so no input leaks. */
#ifndef TLC_PARSE_INTERNAL_H
#define TLC_PARSE_INTERNAL_H

#include "frontend/frontend.h"

/* ---- token values ---------------------------------------------------------- */

/* A string literal's decoded bytes (arena; may hold NULs). */
typedef struct StrLit {
  const char *s;
  size_t n;
  bool bytes;  /* b'...' (may not be joined with a str literal) */
} StrLit;

/* ---- list builders (heap; see the memory convention above) ----------------- */

typedef struct ExprList { VEC(Expr *) v; } ExprList;   /* also dict items: key, value, key, ... */
typedef struct StmtList { VEC(Stmt *) v; } StmtList;
typedef struct ParamList { VEC(Param) v; } ParamList;
typedef struct CompList { VEC(CompFor) v; } CompList;
typedef struct CmpChain {
  VEC(Expr *) items;
  VEC(AstOp) ops;
} CmpChain;
typedef struct ArgList {
  VEC(Expr *) pos;
  VEC(Keyword) kw;
  bool saw_kw;      /* a keyword argument came before: a positional one now is an error */
  bool saw_kwargs;  /* a **mapping came before */
} ArgList;
typedef struct NameList {   /* import lists and `global` names */
  VEC(const char *) names;
  VEC(const char *) asnames;
} NameList;

/* ---- the state of one parse ------------------------------------------------ */

typedef struct IndentLevel {
  int col;       /* indentation width (tabs to the next multiple of 8) */
  int altcol;    /* the same with tabs as one column: when the two orders
                    disagree, the file mixes tabs and spaces ambiguously */
  bool phantom;  /* pushed without an INDENT token (after an indentation
                    error), so popping it emits no DEDENT */
} IndentLevel;

typedef struct OpenBracket {
  char ch;       /* '(', '[' or '{' */
  Loc loc;
} OpenBracket;

typedef struct ParseState {
  /* inputs and outputs */
  Arena *arena;          /* the module's: every node, name and string */
  DiagEngine *diag;
  const char *path;
  const char *src;
  size_t src_len;
  int nerrors;           /* errors this parse reported */
  VEC(Stmt *) top;       /* module body, appended statement by statement so a
                            parse that gives up still leaves what it built */

  /* raw scanner (lexer.l) */
  void *scanner;         /* yyscan_t */
  int line, col;         /* position of the next byte to scan (1-based) */
  size_t off;            /* its byte offset in src */
  size_t raw_off;        /* byte offset where the last raw token began */
  Loc str_start;         /* opening quotes of the triple-quoted string being scanned */
  size_t str_body;       /* offset of its first body byte */
  char str_quote;        /* ' or " */
  bool str_raw, str_bytes, str_fmt; /* r / b / f prefix seen */

  /* layout (lexer.l: INDENT / DEDENT / NEWLINE, brackets) */
  VEC(IndentLevel) indents;
  VEC(OpenBracket) brackets;
  bool at_line_start;    /* no token yet on this logical line */
  bool raw_eof;          /* the raw scanner hit the end of input */
  int pending_dedents;
  Loc dedent_loc;
  bool have_buffered;    /* a token held back while INDENT/DEDENT go first */
  int buf_tok;
  Loc buf_loc;
  size_t buf_off;
  char buf_val[32];      /* the held token's semantic value (a YYSTYPE fits) */
  Loc last_end;          /* zero-width Loc just past the last real token */
  bool nesting_reported, indent_depth_reported, tab_error_reported;
  VEC(int) too_deep_lines; /* lines indented past the limit: their INDENT was
                              swallowed, so no "expected an indented block" */

  /* for messages */
  Loc tok_loc;           /* the most recent token handed to the parser */
  const char *tok_text;  /* its spelling in src, tok_len bytes */
  size_t tok_len;
  const char *line_kw;   /* first keyword of the current logical line when it
                            opens a compound statement ("if", "def", ...) */
  const char *hdr_what;  /* the compound header just parsed ("'for' statement") */
  int hdr_line;
  bool line_lex_error;   /* the lexer reported an error on this logical line:
                            the parser's complaint would be an echo of it */
  bool unclosed_at_eof;  /* "'(' was never closed" was reported */
  bool pending_err;      /* a syntax error inside brackets, held back in case
                            the real cause is a bracket never closed */
  Loc pending_loc;
  char pending_msg[160];
} ParseState;

/* ---- parser.y -------------------------------------------------------------- */

/* Report an error at `loc` (the only way either half reports one). */
void parse_error(ParseState *ps, Loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Emit a syntax error held back while brackets were open. */
void parse_flush_pending(ParseState *ps);

/* ---- parse_build.c: what grammar actions call ------------------------------ */

/* list builders */
ExprList *parse_exprs(Expr *first);
ExprList *parse_exprs_push(ExprList *l, Expr *e);
void parse_exprs_free(ExprList *l);
StmtList *parse_stmts(Stmt *first);
StmtList *parse_stmts_push(StmtList *l, Stmt *s);
StmtList *parse_stmts_concat(StmtList *a, StmtList *b);
void parse_stmts_free(StmtList *l);
ParamList *parse_params(Param *first);
ParamList *parse_params_push(ParamList *l, Param *p);
void parse_params_free(ParamList *l);
CompList *parse_comps(CompFor *first);
CompList *parse_comps_push(CompList *l, CompFor *c);
void parse_comps_free(CompList *l);
CmpChain *parse_chain(Expr *a, AstOp op, Expr *b);
CmpChain *parse_chain_push(CmpChain *c, AstOp op, Expr *b);
void parse_chain_free(CmpChain *c);
ArgList *parse_args(void);
ArgList *parse_arg_pos(ParseState *ps, ArgList *a, Expr *e);
ArgList *parse_arg_kw(ParseState *ps, ArgList *a, Expr *name, Expr *value, Loc loc);
ArgList *parse_arg_kwargs(ParseState *ps, ArgList *a, Expr *value, Loc loc);
void parse_args_free(ArgList *a);
NameList *parse_names(const char *name, const char *asname);
NameList *parse_names_push(NameList *l, const char *name, const char *asname);
void parse_names_free(NameList *l);

/* statements */
void parse_top(ParseState *ps, StmtList *l);
Block parse_block(ParseState *ps, StmtList *l);
Block parse_missing_block(ParseState *ps, Loc at, StmtList *unindented);
void parse_header(ParseState *ps, const char *what, Loc kw);
Stmt *parse_simple(ParseState *ps, StmtKind k, Loc loc);
Stmt *parse_expr_stmt(ParseState *ps, Expr *e, Loc loc);
Stmt *parse_assign(ParseState *ps, ExprList *chain, Loc loc);
Stmt *parse_augassign(ParseState *ps, Expr *target, AstOp op, Expr *value, Loc loc);
Stmt *parse_annassign(ParseState *ps, Expr *target, Expr *ann, Expr *value, Loc loc);
Stmt *parse_return(ParseState *ps, Expr *value, Loc loc);
Stmt *parse_assert(ParseState *ps, Expr *cond, Expr *msg, Loc loc);
Stmt *parse_del(ParseState *ps, Expr *targets, Loc loc);
Stmt *parse_global(ParseState *ps, NameList *names, Loc loc);
StmtList *parse_import(ParseState *ps, NameList *mods, Loc loc);
Stmt *parse_import_from(ParseState *ps, const char *module, NameList *names, Loc loc);
const char *parse_dotted(ParseState *ps, const char *a, const char *b);
Stmt *parse_if(ParseState *ps, Expr *cond, Block body, Block orelse, Loc head);
Block parse_elif(ParseState *ps, Expr *cond, Block body, Block orelse, Loc head);
Stmt *parse_loop_head(ParseState *ps, StmtKind k, Expr *target, Expr *cond_or_iter, Loc head);
Stmt *parse_loop(ParseState *ps, Stmt *head, Block body, Block orelse);
FuncDef *parse_def_head(ParseState *ps, const char *name, ParamList *params, Expr *returns, Loc loc);
Stmt *parse_def(ParseState *ps, FuncDef *def, Block body);
Stmt *parse_decorate(ParseState *ps, ExprList *decorators, Stmt *def);
Stmt *parse_stray_decorators(ParseState *ps, ExprList *decorators);
Param *parse_param(ParseState *ps, const char *name, Expr *ann, Expr *def, Loc loc);
Param *parse_bad_param(ParseState *ps, const char *what, Loc loc);
/* `*name` (star 1) or `**name` (star 2) */
Param *parse_star_param(ParseState *ps, const char *name, int star, Expr *ann, Loc loc);

/* expressions */
Expr *parse_name(ParseState *ps, const char *name, Loc loc);
Expr *parse_int(ParseState *ps, int64_t v, Loc loc);
Expr *parse_float(ParseState *ps, double v, Loc loc);
Expr *parse_str(ParseState *ps, StrLit s, Loc loc);
StrLit parse_str_concat(ParseState *ps, StrLit a, StrLit b, Loc at);
Expr *parse_const(ParseState *ps, ExprKind k, int64_t v, Loc loc);
Expr *parse_binop(ParseState *ps, AstOp op, Expr *l, Expr *r, Loc loc);
Expr *parse_unary(ParseState *ps, AstOp op, Expr *e, Loc loc);
Expr *parse_boolop(ParseState *ps, AstOp op, Expr *l, Expr *r, Loc loc);
Expr *parse_compare(ParseState *ps, CmpChain *c, Loc loc);
Expr *parse_ifexp(ParseState *ps, Expr *body, Expr *cond, Expr *orelse, Loc loc);
Expr *parse_lambda(ParseState *ps, ParamList *params, Expr *body, Loc loc);
Expr *parse_attr(ParseState *ps, Expr *value, const char *name, Loc loc);
Expr *parse_call(ParseState *ps, Expr *func, ArgList *args, Loc loc);
Expr *parse_subscript(ParseState *ps, Expr *value, ExprList *items, bool trailing_comma, Loc loc);
Expr *parse_slice(ParseState *ps, Expr *lo, Expr *hi, Expr *step, Loc loc);
Expr *parse_starred(ParseState *ps, Expr *value, Loc loc);
Expr *parse_seq(ParseState *ps, ExprKind k, ExprList *items, Loc loc);
Expr *parse_tuple_or_single(ParseState *ps, ExprList *items, bool trailing_comma, Loc loc);
Expr *parse_paren(ParseState *ps, Expr *e, Loc loc);
Expr *parse_dict(ParseState *ps, ExprList *pairs, Loc loc);
Expr *parse_listcomp(ParseState *ps, Expr *elt, CompList *fors, Loc loc);
CompFor *parse_comp_for(ParseState *ps, Expr *target, Expr *iter, ExprList *conds);
Expr *parse_unsupported(ParseState *ps, const char *what, Loc loc);

/* Bound the depth of the finished tree (PARSE_MAX_DEPTH): deeper subtrees are
 * reported once and replaced by None, so later stages may recurse. */
void parse_limit_block(ParseState *ps, Block b, int depth, bool *reported);

/* ---- lexer.l --------------------------------------------------------------- */

void lex_init(ParseState *ps);
void lex_destroy(ParseState *ps);
/* The INDENT just handed to the parser was not expected: its level will be
 * closed without a DEDENT. */
void lex_indent_unexpected(ParseState *ps);
/* A zero-width Loc at the start of `l`. */
Loc lex_point(Loc l);

#endif
