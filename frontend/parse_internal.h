/* parse_internal.h — what lexer.l and parser.y share; private to the parser.
 *
 * Owns: the ParseState threaded through the reentrant scanner (as its extra
 * data) and the pure parser (as a parse-param), the heap-backed list builders
 * that grammar actions grow and then copy into the module arena, and the one
 * error funnel both halves report through.  Nothing outside lexer.l and
 * parser.y includes this header; the rest of tlc sees only ast.h.
 *
 * Memory convention: every AST node, name and string lives in the module
 * arena.  The only heap memory is the list builders below (and the scanner's
 * stacks); a builder is either turned into an arena array and freed by the
 * action that finishes it, or freed by bison's %destructor when error
 * recovery discards it, so no input leaks. */
#ifndef TLC_PARSE_INTERNAL_H
#define TLC_PARSE_INTERNAL_H

#include "ast.h"
#include "diag.h"

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
  struct DiagEngine *diag;
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

/* ---- lexer.l --------------------------------------------------------------- */

void lex_init(ParseState *ps);
void lex_destroy(ParseState *ps);
/* The INDENT just handed to the parser was not expected: its level will be
 * closed without a DEDENT. */
void lex_indent_unexpected(ParseState *ps);
/* A zero-width Loc at the start of `l`. */
Loc lex_point(Loc l);

#endif
