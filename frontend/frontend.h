/* frontend.h — the syntax of a .tile file (a Python subset: the Triton
 * kernel language as people write it): the AST, its text dump, and the
 * parser (lexer.l + parser.y) that builds it.  The one header of frontend/.
 *
 * Owns: node kinds, node layout, constructors and the text dump used by the
 * parser's golden tests (`tlc compile --emit ast`).  Does not own meaning:
 * names are not resolved and nothing is typed here; specialization does that.
 *
 * Conventions: every node carries a Loc span (file, first and past-the-end
 * line/column); arrays are arena-allocated (pointer + count) and never
 * resized after the parser builds them; a missing optional child is NULL.
 * All nodes of a module live in Module.arena. */
#ifndef TLC_FRONTEND_H
#define TLC_FRONTEND_H

#include "support/support.h"

/* ---- expressions --------------------------------------------------------- */

#define AST_EXPR_KINDS(X)                                                    \
  X(NAME, "Name")           /* name */                                       \
  X(INT, "Int")             /* ival (Python ints up to 64 bits) */           \
  X(FLOAT, "Float")         /* fval */                                       \
  X(STR, "Str")             /* sval (escapes decoded, adjacent joined) */    \
  X(BOOL, "Bool")           /* ival 0/1 */                                   \
  X(NONE, "None")                                                            \
  X(ELLIPSIS, "Ellipsis")   /* ... */                                        \
  X(ATTR, "Attr")           /* a.value . name */                             \
  X(CALL, "Call")           /* a.value (args..., kw=...) */                  \
  X(SUBSCRIPT, "Subscript") /* a.value [ items ] (several items = a tuple) */ \
  X(SLICE, "Slice")         /* lo:hi:step inside a subscript; each may be NULL */ \
  X(BINOP, "BinOp")         /* op, lhs, rhs */                               \
  X(UNARY, "Unary")         /* op, operand (lhs) */                          \
  X(BOOLOP, "BoolOp")       /* and/or: op, lhs, rhs (chains nest left) */    \
  X(COMPARE, "Compare")     /* a < b <= c: items[n], cmp_ops[n-1] */         \
  X(IFEXP, "IfExp")         /* body if cond else orelse */                   \
  X(TUPLE, "Tuple")         /* items */                                      \
  X(LIST, "List")           /* items */                                      \
  X(DICT, "Dict")           /* items = keys, values = values */              \
  X(LAMBDA, "Lambda")       /* params, body (host-side decorators only) */   \
  X(COMPREHENSION, "ListComp") /* [elt for target in iter ... if cond] */    \
  X(STARRED, "Starred")     /* *value in calls and tuples */

typedef enum ExprKind {
#define X(k, s) EX_##k,
  AST_EXPR_KINDS(X)
#undef X
  EX__COUNT
} ExprKind;

/* Binary and unary operators, with their Python spelling.  Enumerators are
 * AOP_ADD, AOP_LT, ... (AOP_: OP_ is the tile IR's op enum). */
#define AST_OPS(X)                                                          \
  X(ADD, "+") X(SUB, "-") X(MUL, "*") X(DIV, "/") X(FLOORDIV, "//")         \
  X(MOD, "%") X(POW, "**") X(MATMUL, "@") X(LSHIFT, "<<") X(RSHIFT, ">>")   \
  X(BITAND, "&") X(BITOR, "|") X(BITXOR, "^")                               \
  X(LT, "<") X(LE, "<=") X(GT, ">") X(GE, ">=") X(EQ, "==") X(NE, "!=")     \
  X(IS, "is") X(ISNOT, "is not") X(IN, "in") X(NOTIN, "not in")             \
  X(AND, "and") X(OR, "or")                                                 \
  X(NEG, "-u") X(POS, "+u") X(INVERT, "~") X(NOT, "not")

typedef enum AstOp {
#define X(k, s) AOP_##k,
  AST_OPS(X)
#undef X
  AOP__COUNT
} AstOp;

extern const char *const ast_op_spelling[AOP__COUNT]; /* "+", "//", "not in", ... */

typedef struct Expr Expr;
typedef struct Stmt Stmt;

typedef struct Keyword {
  const char *name;  /* keyword name; NULL for **kwargs (unsupported) */
  Expr *value;
  Loc loc;           /* the whole `name=value` */
} Keyword;

typedef struct Param {
  const char *name;
  Expr *annotation;  /* `x: tl.constexpr`; NULL when absent */
  Expr *default_;    /* `bm: tl.constexpr = 16`; NULL when absent */
  int star;          /* 1: `*args` (the extra positional arguments), 2: `**kwargs` (the extra
                        keyword arguments); host code has them, a kernel may not */
  Loc loc;
} Param;

/* One `for target in iter if cond...` clause of a comprehension. */
typedef struct CompFor {
  Expr *target;
  Expr *iter;
  Expr **conds;
  int nconds;
} CompFor;

struct Expr {
  ExprKind kind;
  Loc loc;
  AstOp op;           /* BINOP, UNARY, BOOLOP */
  const char *name;   /* NAME, ATTR (the attribute), */
  int64_t ival;       /* INT, BOOL */
  double fval;        /* FLOAT */
  const char *sval;   /* STR */
  size_t slen;        /* STR length (may hold NULs) */
  Expr *value;        /* ATTR/CALL/SUBSCRIPT base, STARRED value, COMPREHENSION elt */
  Expr *lhs, *rhs;    /* BINOP, BOOLOP; UNARY operand in lhs; IFEXP: lhs=body rhs=orelse */
  Expr *cond;         /* IFEXP condition */
  Expr *lo, *hi, *step; /* SLICE */
  Expr **items;       /* CALL positional args, SUBSCRIPT indices, TUPLE/LIST elts, DICT keys, COMPARE operands */
  int nitems;
  Expr **values;      /* DICT values */
  AstOp *cmp_ops;     /* COMPARE: nitems-1 operators */
  Keyword *kwargs;    /* CALL */
  int nkwargs;
  Param *params;      /* LAMBDA */
  int nparams;
  Expr *body;         /* LAMBDA */
  CompFor *fors;      /* COMPREHENSION */
  int nfors;
  bool parenthesized; /* written inside ( ), so `(a, b)` vs `a, b` can be told apart */
};

/* ---- statements ---------------------------------------------------------- */

#define AST_STMT_KINDS(X)                                                     \
  X(EXPR, "ExprStmt")     /* value */                                         \
  X(ASSIGN, "Assign")     /* targets[ntargets] = value (a = b = v chains) */  \
  X(AUGASSIGN, "AugAssign") /* target op= value */                            \
  X(ANNASSIGN, "AnnAssign") /* target: annotation [= value] */                \
  X(IF, "If")             /* cond, body, orelse (elif nests an If in orelse) */ \
  X(FOR, "For")           /* target in iter: body [else: orelse] */           \
  X(WHILE, "While")       /* cond: body [else: orelse] */                     \
  X(RETURN, "Return")     /* value (NULL, an expr, or a Tuple) */             \
  X(PASS, "Pass")                                                             \
  X(BREAK, "Break")                                                           \
  X(CONTINUE, "Continue")                                                     \
  X(ASSERT, "Assert")     /* cond, msg */                                     \
  X(IMPORT, "Import")     /* import a.b as c: module, asname */               \
  X(IMPORTFROM, "ImportFrom") /* from module import names[i] as asnames[i] */ \
  X(DEF, "FunctionDef")   /* the function (decorators, params, body) */       \
  X(GLOBAL, "Global")     /* names (accepted, no effect) */                   \
  X(DEL, "Del")           /* targets */

typedef enum StmtKind {
#define X(k, s) ST_##k,
  AST_STMT_KINDS(X)
#undef X
  ST__COUNT
} StmtKind;

typedef struct Block {
  Stmt **stmts;
  int n;
} Block;

typedef struct FuncDef {
  const char *name;
  Expr **decorators;  /* in source order, e.g. triton.autotune(...), triton.jit */
  int ndecorators;
  Param *params;
  int nparams;
  Expr *returns;      /* `-> T`; NULL when absent */
  Block body;
  Loc loc;            /* the `def name(...)` header */
  const char *docstring; /* first statement when it is a string; NULL otherwise */
} FuncDef;

struct Stmt {
  StmtKind kind;
  Loc loc;
  Expr *value;         /* EXPR, ASSIGN, AUGASSIGN, ANNASSIGN (may be NULL), RETURN (may be NULL), FOR iter */
  Expr **targets;      /* ASSIGN (chain), DEL */
  int ntargets;
  Expr *target;        /* AUGASSIGN, ANNASSIGN, FOR */
  Expr *annotation;    /* ANNASSIGN */
  AstOp op;            /* AUGASSIGN: the binary operator (AOP_ADD for +=) */
  Expr *cond;          /* IF, WHILE, ASSERT */
  Expr *msg;           /* ASSERT */
  Block body;          /* IF, FOR, WHILE */
  Block orelse;        /* IF, FOR, WHILE */
  const char *module;  /* IMPORT, IMPORTFROM: dotted name; "." prefixes kept */
  const char *asname;  /* IMPORT */
  const char **names;  /* IMPORTFROM names, GLOBAL names ("*" allowed) */
  const char **asnames;/* IMPORTFROM: NULL entries where no `as` */
  int nnames;
  FuncDef *def;        /* DEF */
};

/* A parsed file.  Owns its arena; ast_free releases everything. */
typedef struct Module {
  const char *path;   /* for messages */
  const char *source; /* the text, owned by the caller, must outlive the module */
  Block body;
  Arena arena;
} Module;

/* ---- ast.c --------------------------------------------------------------- */

extern const char *const ast_expr_kind_name[EX__COUNT];
extern const char *const ast_stmt_kind_name[ST__COUNT];

Expr *ast_expr(Arena *a, ExprKind k, Loc loc);
Stmt *ast_stmt(Arena *a, StmtKind k, Loc loc);
/* Loc spanning from the start of `a` to the end of `b`. */
Loc loc_join(Loc a, Loc b);
/* Find a top-level function by name; NULL when there is none. */
FuncDef *ast_find_def(const Module *m, const char *name);
void ast_free(Module *m);

/* ---- ast_dump.c ---------------------------------------------------------- */

/* Writes an indented dump, one node per line:
 *   <2 spaces per depth>[role: ]Kind [details][ paren] @line:col
 * `role` names which child of its parent the node is where that is not
 * obvious (target/value, func/arg, value/index, lo/hi/step, cond/body/orelse,
 * key/value, annotation/default, decorator, returns, elt/for/in/if, msg);
 * BinOp/BoolOp/Unary/Compare/Tuple/List/Starred/Attr children are unlabeled,
 * in source order.  Details: a Name's or Attr's name, an operator's
 * ast_op_spelling (Compare lists all of its operators), Int in decimal,
 * Float as Python's repr() writes it, Str in double quotes with C escapes,
 * Bool True/False, a Keyword's name (`**` for **mapping), AugAssign's
 * operator (`+=`), import names.  ` paren` marks an expression written in
 * parentheses.  Statement blocks are a `body:` / `orelse:` line with the
 * statements one level deeper (an empty orelse is omitted).  FunctionDef's
 * position is its `def` (decorators have their own).  Example:
 *   Module
 *     FunctionDef add_kernel @4:1
 *       decorator: Attr jit @3:2
 *         Name triton @3:2
 *       Param n @4:16
 *       Param BLOCK @4:19
 *         annotation: Attr constexpr @4:26
 *           Name tl @4:26
 *       body:
 *         Assign @5:5
 *           target: Name pid @5:5
 *           value: Call @5:11
 *             func: Attr program_id @5:11
 *               Name tl @5:11
 *             Keyword axis @5:25
 *               Int 0 @5:30
 * The format is what the tests under tests/lit/parse check; docs/syntax.md
 * describes it too. */
void ast_dump_module(StrBuf *out, const Module *m);
void ast_dump_expr(StrBuf *out, const Expr *e, int indent);

/* ---- parse (lexer.l + parser.y) ------------------------------------------- */

/* Parse `source` (NUL-terminated) named `path` into *out.  Errors go to `d`
 * (several per file where the parser can recover).  Returns 0 on success,
 * -1 when any error was reported; *out is usable for dumping either way and
 * must be released with ast_free. */
int parse_module(const char *path, const char *source, DiagEngine *d, Module *out);

#endif
