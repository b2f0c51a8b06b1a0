%code top {
/* parser.y — the grammar of .tile files: Python's statement and expression
 * syntax, as far as Triton kernels and the host helpers beside them use it.
 *
 * Owns: the grammar, AST construction and every syntax error message
 * (including the checks Python makes while parsing: assignment targets,
 * argument order, parameter order).  Does not own tokens or layout
 * (lexer.l), node layout (ast.h) or meaning (specialization).
 *
 * Conventions, after PostgreSQL's gram.y:
 *   - pure and reentrant: the ParseState (parse_internal.h) is the parse
 *     parameter and the scanner's extra data; there is no global state;
 *   - an action makes a node, fills it and attaches its span (@n); anything
 *     more is a static parse_* helper in the epilogue;
 *   - lists grow in heap builders (VEC) and land in the module arena when
 *     their construct is complete; bison's %destructor frees builders that
 *     error recovery throws away;
 *   - error recovery is per statement: `error NEWLINE` resynchronizes at the
 *     end of the logical line and swallows an indented block that follows,
 *     so one file reports every independent error (the DiagEngine caps the
 *     count);
 *   - the grammar is written in layers, one nonterminal per precedence level
 *     (test > or_test > ... > power > primary > atom), so %expect 0 holds
 *     with precedence used only for the two error productions that need it
 *     (see the %precedence lines);
 *   - the tree's depth is bounded after parsing (parse_limit_block), so later
 *     stages may recurse over it.
 */
}

%code requires {
#include "parse_internal.h"
}

%code provides {
int tlc_yylex(TLC_YYSTYPE *lval, Loc *lloc, ParseState *ps);
}

%code {
#include <stdio.h>
#include <string.h>

/* A rule's span runs from its first symbol's start to its last one's end; an
 * empty rule gets a zero-width span just after the symbol before it. */
#define YYLLOC_DEFAULT(Cur, Rhs, N)                                 \
  do {                                                              \
    if (N) {                                                        \
      (Cur) = loc_join(YYRHSLOC(Rhs, 1), YYRHSLOC(Rhs, N));         \
    } else {                                                        \
      (Cur) = YYRHSLOC(Rhs, 0);                                     \
      (Cur).line = (Cur).end_line;                                  \
      (Cur).col = (Cur).end_col;                                    \
    }                                                               \
  } while (0)

static void yyerror(Loc *loc, ParseState *ps, const char *msg);

/* builders */
static ExprList *parse_exprs(Expr *first);
static ExprList *parse_exprs_push(ExprList *l, Expr *e);
static void parse_exprs_free(ExprList *l);
static StmtList *parse_stmts(Stmt *first);
static StmtList *parse_stmts_push(StmtList *l, Stmt *s);
static StmtList *parse_stmts_concat(StmtList *a, StmtList *b);
static void parse_stmts_free(StmtList *l);
static ParamList *parse_params(Param *first);
static ParamList *parse_params_push(ParamList *l, Param *p);
static void parse_params_free(ParamList *l);
static CompList *parse_comps(CompFor *first);
static CompList *parse_comps_push(CompList *l, CompFor *c);
static void parse_comps_free(CompList *l);
static CmpChain *parse_chain(Expr *a, AstOp op, Expr *b);
static CmpChain *parse_chain_push(CmpChain *c, AstOp op, Expr *b);
static void parse_chain_free(CmpChain *c);
static ArgList *parse_args(void);
static ArgList *parse_arg_pos(ParseState *ps, ArgList *a, Expr *e);
static ArgList *parse_arg_kw(ParseState *ps, ArgList *a, Expr *name, Expr *value, Loc loc);
static ArgList *parse_arg_kwargs(ParseState *ps, ArgList *a, Expr *value, Loc loc);
static void parse_args_free(ArgList *a);
static NameList *parse_names(const char *name, const char *asname);
static NameList *parse_names_push(NameList *l, const char *name, const char *asname);
static void parse_names_free(NameList *l);

/* statements */
static void parse_top(ParseState *ps, StmtList *l);
static Block parse_block(ParseState *ps, StmtList *l);
static Block parse_missing_block(ParseState *ps, Loc at, StmtList *unindented);
static void parse_header(ParseState *ps, const char *what, Loc kw);
static Stmt *parse_simple(ParseState *ps, StmtKind k, Loc loc);
static Stmt *parse_expr_stmt(ParseState *ps, Expr *e, Loc loc);
static Stmt *parse_assign(ParseState *ps, ExprList *chain, Loc loc);
static Stmt *parse_augassign(ParseState *ps, Expr *target, AstOp op, Expr *value, Loc loc);
static Stmt *parse_annassign(ParseState *ps, Expr *target, Expr *ann, Expr *value, Loc loc);
static Stmt *parse_return(ParseState *ps, Expr *value, Loc loc);
static Stmt *parse_assert(ParseState *ps, Expr *cond, Expr *msg, Loc loc);
static Stmt *parse_del(ParseState *ps, Expr *targets, Loc loc);
static Stmt *parse_global(ParseState *ps, NameList *names, Loc loc);
static StmtList *parse_import(ParseState *ps, NameList *mods, Loc loc);
static Stmt *parse_import_from(ParseState *ps, const char *module, NameList *names, Loc loc);
static const char *parse_dotted(ParseState *ps, const char *a, const char *b);
static Stmt *parse_if(ParseState *ps, Expr *cond, Block body, Block orelse, Loc head);
static Block parse_elif(ParseState *ps, Expr *cond, Block body, Block orelse, Loc head);
static Stmt *parse_loop_head(ParseState *ps, StmtKind k, Expr *target, Expr *cond_or_iter, Loc head);
static Stmt *parse_loop(ParseState *ps, Stmt *head, Block body, Block orelse);
static FuncDef *parse_def_head(ParseState *ps, const char *name, ParamList *params, Expr *returns, Loc loc);
static Stmt *parse_def(ParseState *ps, FuncDef *def, Block body);
static Stmt *parse_decorate(ParseState *ps, ExprList *decorators, Stmt *def);
static Stmt *parse_stray_decorators(ParseState *ps, ExprList *decorators);
static Param *parse_param(ParseState *ps, const char *name, Expr *ann, Expr *def, Loc loc);
static Param *parse_bad_param(ParseState *ps, const char *what, Loc loc);

/* expressions */
static Expr *parse_name(ParseState *ps, const char *name, Loc loc);
static Expr *parse_int(ParseState *ps, int64_t v, Loc loc);
static Expr *parse_float(ParseState *ps, double v, Loc loc);
static Expr *parse_str(ParseState *ps, StrLit s, Loc loc);
static StrLit parse_str_concat(ParseState *ps, StrLit a, StrLit b, Loc at);
static Expr *parse_const(ParseState *ps, ExprKind k, int64_t v, Loc loc);
static Expr *parse_binop(ParseState *ps, AstOp op, Expr *l, Expr *r, Loc loc);
static Expr *parse_unary(ParseState *ps, AstOp op, Expr *e, Loc loc);
static Expr *parse_boolop(ParseState *ps, AstOp op, Expr *l, Expr *r, Loc loc);
static Expr *parse_compare(ParseState *ps, CmpChain *c, Loc loc);
static Expr *parse_ifexp(ParseState *ps, Expr *body, Expr *cond, Expr *orelse, Loc loc);
static Expr *parse_lambda(ParseState *ps, ParamList *params, Expr *body, Loc loc);
static Expr *parse_attr(ParseState *ps, Expr *value, const char *name, Loc loc);
static Expr *parse_call(ParseState *ps, Expr *func, ArgList *args, Loc loc);
static Expr *parse_subscript(ParseState *ps, Expr *value, ExprList *items, bool trailing_comma, Loc loc);
static Expr *parse_slice(ParseState *ps, Expr *lo, Expr *hi, Expr *step, Loc loc);
static Expr *parse_starred(ParseState *ps, Expr *value, Loc loc);
static Expr *parse_seq(ParseState *ps, ExprKind k, ExprList *items, Loc loc);
static Expr *parse_tuple_or_single(ParseState *ps, ExprList *items, bool trailing_comma, Loc loc);
static Expr *parse_paren(ParseState *ps, Expr *e, Loc loc);
static Expr *parse_dict(ParseState *ps, ExprList *pairs, Loc loc);
static Expr *parse_listcomp(ParseState *ps, Expr *elt, CompList *fors, Loc loc);
static CompFor *parse_comp_for(ParseState *ps, Expr *target, Expr *iter, ExprList *conds);
static Expr *parse_unsupported(ParseState *ps, const char *what, Loc loc);
}

%define api.pure full
%define api.prefix {tlc_yy}
%define api.token.prefix {TK_}
%define api.location.type {Loc}
%define parse.error custom
%define parse.lac full
%locations
%param {ParseState *ps}
%expect 0

%initial-action {
  @$ = (Loc){ps->path, 1, 1, 1, 1};
}

%union {
  const char *str;
  int64_t ival;
  double fval;
  StrLit strlit;
  AstOp op;
  Expr *expr;
  Stmt *stmt;
  Block block;
  Param *param;
  CompFor *comp;
  FuncDef *def;
  ExprList *exprs;
  StmtList *stmts;
  ParamList *params;
  CompList *comps;
  CmpChain *chain;
  ArgList *args;
  NameList *names;
}

%destructor { parse_exprs_free($$); } <exprs>
%destructor { parse_stmts_free($$); } <stmts>
%destructor { parse_params_free($$); } <params>
%destructor { parse_comps_free($$); } <comps>
%destructor { parse_chain_free($$); } <chain>
%destructor { parse_args_free($$); } <args>
%destructor { parse_names_free($$); } <names>

%token <str> NAME "name"
%token <ival> INT "integer literal"
%token <fval> FLOAT "float literal"
%token <strlit> STRING "string literal"
%token NEWLINE "end of line" INDENT "indent" DEDENT "unindent"
%token DEF "'def'" RETURN "'return'" IF "'if'" ELIF "'elif'" ELSE "'else'"
%token FOR "'for'" IN "'in'" WHILE "'while'" BREAK "'break'" CONTINUE "'continue'"
%token PASS "'pass'" AND "'and'" OR "'or'" NOT "'not'" IS "'is'"
%token NONE "'None'" TRUE "'True'" FALSE "'False'"
%token IMPORT "'import'" FROM "'from'" AS "'as'" LAMBDA "'lambda'"
%token ASSERT "'assert'" GLOBAL "'global'" DEL "'del'"
%token <str> UNSUPPORTED "keyword"
%token <str> EXCEPT "'except'"   /* except and finally: unsupported, but a
                                   try statement's recovery swallows them */
%token <op> AUGASSIGN "augmented assignment"
%token POW "'**'" FLOORDIV "'//'" LSHIFT "'<<'" RSHIFT "'>>'"
%token LE "'<='" GE "'>='" EQ "'=='" NE "'!='"
%token ARROW "'->'" ELLIPSIS "'...'" WALRUS "':='"

/* The only two conflicts, both resolved towards shifting:
 * - a decorator line with no `def` after it is reduced (as an error) only
 *   when neither a `def` nor a further decorator follows;
 * - a header whose block is not indented (an error) takes the next line as
 *   its body when that line is a simple statement, so an `elif`/`else`
 *   after it still finds its `if`. */
%precedence DECORATORS_ALONE MISSING_BLOCK
%precedence '@' DEF NAME INT FLOAT STRING NONE TRUE FALSE ELLIPSIS LAMBDA NOT
%precedence PASS BREAK CONTINUE RETURN ASSERT DEL GLOBAL FROM IMPORT '(' '[' '{' '-' '+' '~' '*'

%type <stmts> stmts simple_line small_list import_stmt
%type <stmt> compound small_stmt expr_stmt if_stmt loop_stmt funcdef for_head while_head
%type <block> block if_tail
%type <expr> if_head elif_head opt_returns
%type <def> def_head
%type <param> param lparam
%type <params> params param_list lparams lparam_list
%type <exprs> decorators ts_items ex_items sub_items dict_items assign_chain comp_ifs
%type <expr> decorator tlist_star ts_item star_expr exprlist ex_item
%type <expr> test or_test and_test not_test comparison expr xor_expr and_expr shift_expr
%type <expr> arith term factor power primary atom lambdef
%type <strlit> strings
%type <expr> subscript slice_part opt_test
%type <op> comp_op add_op mul_op shift_op
%type <chain> cmp_chain
%type <args> arglist
%type <comps> comp_clauses
%type <comp> comp_for
%type <names> dotted_as_list import_as_list import_targets name_list
%type <str> dotted_name from_module dots

%start module

%%

/* ---- statements ------------------------------------------------------------- */

module:
    %empty
  | module simple_line          { parse_top(ps, $2); }
  | module compound             { parse_top(ps, parse_stmts($2)); }
  ;

stmts:
    simple_line                 { $$ = $1; }
  | compound                    { $$ = parse_stmts($1); }
  | stmts simple_line           { $$ = parse_stmts_concat($1, $2); }
  | stmts compound              { $$ = parse_stmts_push($1, $2); }
  ;

simple_line:
    small_list NEWLINE          { $$ = $1; }
  | small_list ';' NEWLINE      { $$ = $1; }
  ;

small_list:
    small_stmt                  { $$ = parse_stmts($1); }
  | import_stmt                 { $$ = $1; }
  | small_list ';' small_stmt   { $$ = parse_stmts_push($1, $3); }
  | small_list ';' import_stmt  { $$ = parse_stmts_concat($1, $3); }
  ;

small_stmt:
    expr_stmt                   { $$ = $1; }
  | PASS                        { $$ = parse_simple(ps, ST_PASS, @$); }
  | BREAK                       { $$ = parse_simple(ps, ST_BREAK, @$); }
  | CONTINUE                    { $$ = parse_simple(ps, ST_CONTINUE, @$); }
  | RETURN                      { $$ = parse_return(ps, NULL, @$); }
  | RETURN tlist_star           { $$ = parse_return(ps, $2, @$); }
  | ASSERT test                 { $$ = parse_assert(ps, $2, NULL, @$); }
  | ASSERT test ',' test        { $$ = parse_assert(ps, $2, $4, @$); }
  | DEL exprlist                { $$ = parse_del(ps, $2, @$); }
  | GLOBAL name_list            { $$ = parse_global(ps, $2, @$); }
  | FROM from_module IMPORT import_targets { $$ = parse_import_from(ps, $2, $4, @$); }
  ;

expr_stmt:
    tlist_star                  { $$ = parse_expr_stmt(ps, $1, @$); }
  | assign_chain                { $$ = parse_assign(ps, $1, @$); }
  | tlist_star AUGASSIGN tlist_star { $$ = parse_augassign(ps, $1, $2, $3, @$); }
  | tlist_star ':' test         { $$ = parse_annassign(ps, $1, $3, NULL, @$); }
  | tlist_star ':' test '=' tlist_star { $$ = parse_annassign(ps, $1, $3, $5, @$); }
  ;

/* a = b = value: every expression but the last is a target */
assign_chain:
    tlist_star '=' tlist_star   { $$ = parse_exprs_push(parse_exprs($1), $3); }
  | assign_chain '=' tlist_star { $$ = parse_exprs_push($1, $3); }
  ;

import_stmt:
    IMPORT dotted_as_list       { $$ = parse_import(ps, $2, @$); }
  ;

dotted_as_list:
    dotted_name                 { $$ = parse_names($1, NULL); }
  | dotted_name AS NAME         { $$ = parse_names($1, $3); }
  | dotted_as_list ',' dotted_name { $$ = parse_names_push($1, $3, NULL); }
  | dotted_as_list ',' dotted_name AS NAME { $$ = parse_names_push($1, $3, $5); }
  ;

dotted_name:
    NAME                        { $$ = $1; }
  | dotted_name '.' NAME        { $$ = parse_dotted(ps, $1, $3); }
  ;

from_module:
    dotted_name                 { $$ = $1; }
  | dots                        { $$ = $1; }
  | dots dotted_name            { $$ = parse_dotted(ps, $1, $2); }
  ;

dots:
    '.'                         { $$ = "."; }
  | ELLIPSIS                    { $$ = "..."; }
  | dots '.'                    { $$ = parse_dotted(ps, $1, "."); }
  | dots ELLIPSIS               { $$ = parse_dotted(ps, $1, "..."); }
  ;

import_targets:
    '*'                         { $$ = parse_names("*", NULL); }
  | import_as_list              { $$ = $1; }
  | '(' import_as_list ')'      { $$ = $2; }
  | '(' import_as_list ',' ')'  { $$ = $2; }
  ;

import_as_list:
    NAME                        { $$ = parse_names($1, NULL); }
  | NAME AS NAME                { $$ = parse_names($1, $3); }
  | import_as_list ',' NAME     { $$ = parse_names_push($1, $3, NULL); }
  | import_as_list ',' NAME AS NAME { $$ = parse_names_push($1, $3, $5); }
  ;

name_list:
    NAME                        { $$ = parse_names($1, NULL); }
  | name_list ',' NAME          { $$ = parse_names_push($1, $3, NULL); }
  ;

compound:
    if_stmt                     { $$ = $1; }
  | loop_stmt                   { $$ = $1; }
  | funcdef                     { $$ = $1; }
  | decorators funcdef          { $$ = parse_decorate(ps, $1, $2); }
  | decorators %prec DECORATORS_ALONE { $$ = parse_stray_decorators(ps, $1); }
  | recover_head                { $$ = NULL; }
  | recover_head recover_block recover_tail { $$ = NULL; }
  ;

/* Error recovery: skip to the end of the logical line; when an indented
 * block follows, the line was a compound statement's header: swallow the
 * block and the else/elif/except clauses that belonged to it.  The block is
 * its own nonterminal so that a later error pops it whole (with its DEDENT)
 * instead of resuming inside it. */
recover_head:
    error NEWLINE               { yyerrok; }
  ;

recover_block:
    INDENT stmts DEDENT         { parse_stmts_free($2); }
  ;

recover_tail:
    %empty
  | ELSE ':' block
  | ELIF test ':' block recover_tail
  | EXCEPT opt_test ':' block recover_tail
  | EXCEPT test AS NAME ':' block recover_tail
  ;

block:
    simple_line                 { $$ = parse_block(ps, $1); }
  | NEWLINE INDENT stmts DEDENT { $$ = parse_block(ps, $3); }
  | NEWLINE %prec MISSING_BLOCK { $$ = parse_missing_block(ps, yychar == TK_TLC_YYEMPTY ? @1 : yylloc, NULL); }
  | NEWLINE simple_line         { $$ = parse_missing_block(ps, @2, $2); }
  ;

if_stmt:
    if_head block if_tail       { $$ = parse_if(ps, $1, $2, $3, @1); }
  ;

if_head:
    IF test ':'                 { $$ = $2; parse_header(ps, "'if' statement", @1); }
  ;

elif_head:
    ELIF test ':'               { $$ = $2; parse_header(ps, "'elif' statement", @1); }
  ;

else_head:
    ELSE ':'                    { parse_header(ps, "'else' statement", @1); }
  ;

if_tail:
    %empty                      { $$ = (Block){0}; }
  | else_head block             { $$ = $2; }
  | elif_head block if_tail     { $$ = parse_elif(ps, $1, $2, $3, @1); }
  ;

loop_stmt:
    for_head block              { $$ = parse_loop(ps, $1, $2, (Block){0}); }
  | for_head block else_head block { $$ = parse_loop(ps, $1, $2, $4); }
  | while_head block            { $$ = parse_loop(ps, $1, $2, (Block){0}); }
  | while_head block else_head block { $$ = parse_loop(ps, $1, $2, $4); }
  ;

for_head:
    FOR exprlist IN tlist_star ':' { $$ = parse_loop_head(ps, ST_FOR, $2, $4, @$); }
  ;

while_head:
    WHILE test ':'              { $$ = parse_loop_head(ps, ST_WHILE, NULL, $2, @$); }
  ;

/* The def's Stmt is made with the header; funcdef returns it complete. */
funcdef:
    def_head block              { $$ = parse_def(ps, $1, $2); }
  ;

def_head:
    DEF NAME '(' params ')' opt_returns ':' { $$ = parse_def_head(ps, $2, $4, $6, @$); }
  ;

opt_returns:
    %empty                      { $$ = NULL; }
  | ARROW test                  { $$ = $2; }
  ;

params:
    %empty                      { $$ = parse_params(NULL); }
  | param_list                  { $$ = $1; }
  | param_list ','              { $$ = $1; }
  ;

param_list:
    param                       { $$ = parse_params($1); }
  | param_list ',' param        { $$ = parse_params_push($1, $3); }
  ;

param:
    NAME                        { $$ = parse_param(ps, $1, NULL, NULL, @$); }
  | NAME ':' test               { $$ = parse_param(ps, $1, $3, NULL, @$); }
  | NAME '=' test               { $$ = parse_param(ps, $1, NULL, $3, @$); }
  | NAME ':' test '=' test      { $$ = parse_param(ps, $1, $3, $5, @$); }
  | '*'                         { $$ = parse_bad_param(ps, "'*' (keyword-only parameters)", @$); }
  | '*' NAME                    { $$ = parse_bad_param(ps, "'*args' parameters", @$); }
  | '*' NAME ':' test           { $$ = parse_bad_param(ps, "'*args' parameters", @$); }
  | POW NAME                    { $$ = parse_bad_param(ps, "'**kwargs' parameters", @$); }
  | POW NAME ':' test           { $$ = parse_bad_param(ps, "'**kwargs' parameters", @$); }
  | '/'                         { $$ = parse_bad_param(ps, "'/' (positional-only parameters)", @$); }
  ;

decorators:
    decorator                   { $$ = parse_exprs($1); }
  | decorators decorator        { $$ = parse_exprs_push($1, $2); }
  ;

decorator:
    '@' test NEWLINE            { $$ = $2; }
  ;

/* ---- expression lists ------------------------------------------------------- */

/* `a, *b` (assignment sides, return values, for iterables): one expression
 * without a comma, else an unparenthesized Tuple */
tlist_star:
    ts_items                    { $$ = parse_tuple_or_single(ps, $1, false, @$); }
  | ts_items ','                { $$ = parse_tuple_or_single(ps, $1, true, @$); }
  ;

ts_items:
    ts_item                     { $$ = parse_exprs($1); }
  | ts_items ',' ts_item        { $$ = parse_exprs_push($1, $3); }
  ;

ts_item:
    test                        { $$ = $1; }
  | star_expr                   { $$ = $1; }
  ;

star_expr:
    '*' expr                    { $$ = parse_starred(ps, $2, @$); }
  ;

/* for-loop and comprehension targets, del: no comparisons, so that `in`
 * ends them */
exprlist:
    ex_items                    { $$ = parse_tuple_or_single(ps, $1, false, @$); }
  | ex_items ','                { $$ = parse_tuple_or_single(ps, $1, true, @$); }
  ;

ex_items:
    ex_item                     { $$ = parse_exprs($1); }
  | ex_items ',' ex_item        { $$ = parse_exprs_push($1, $3); }
  ;

ex_item:
    expr                        { $$ = $1; }
  | star_expr                   { $$ = $1; }
  ;

/* ---- expressions, loosest binding first ------------------------------------- */

test:
    or_test                     { $$ = $1; }
  | or_test IF or_test ELSE test { $$ = parse_ifexp(ps, $1, $3, $5, @$); }
  | lambdef                     { $$ = $1; }
  ;

lambdef:
    LAMBDA ':' test             { $$ = parse_lambda(ps, NULL, $3, @$); }
  | LAMBDA lparams ':' test     { $$ = parse_lambda(ps, $2, $4, @$); }
  ;

lparams:
    lparam_list                 { $$ = $1; }
  | lparam_list ','             { $$ = $1; }
  ;

lparam_list:
    lparam                      { $$ = parse_params($1); }
  | lparam_list ',' lparam      { $$ = parse_params_push($1, $3); }
  ;

lparam:
    NAME                        { $$ = parse_param(ps, $1, NULL, NULL, @$); }
  | NAME '=' test               { $$ = parse_param(ps, $1, NULL, $3, @$); }
  | '*'                         { $$ = parse_bad_param(ps, "'*' (keyword-only parameters)", @$); }
  | '*' NAME                    { $$ = parse_bad_param(ps, "'*args' parameters", @$); }
  | POW NAME                    { $$ = parse_bad_param(ps, "'**kwargs' parameters", @$); }
  ;

or_test:
    and_test                    { $$ = $1; }
  | or_test OR and_test         { $$ = parse_boolop(ps, AOP_OR, $1, $3, @$); }
  ;

and_test:
    not_test                    { $$ = $1; }
  | and_test AND not_test       { $$ = parse_boolop(ps, AOP_AND, $1, $3, @$); }
  ;

not_test:
    comparison                  { $$ = $1; }
  | NOT not_test                { $$ = parse_unary(ps, AOP_NOT, $2, @$); }
  ;

/* a < b <= c is one Compare with three operands */
comparison:
    expr                        { $$ = $1; }
  | cmp_chain                   { $$ = parse_compare(ps, $1, @$); }
  ;

cmp_chain:
    expr comp_op expr           { $$ = parse_chain($1, $2, $3); }
  | cmp_chain comp_op expr      { $$ = parse_chain_push($1, $2, $3); }
  ;

comp_op:
    '<'                         { $$ = AOP_LT; }
  | '>'                         { $$ = AOP_GT; }
  | EQ                          { $$ = AOP_EQ; }
  | GE                          { $$ = AOP_GE; }
  | LE                          { $$ = AOP_LE; }
  | NE                          { $$ = AOP_NE; }
  | IN                          { $$ = AOP_IN; }
  | NOT IN                      { $$ = AOP_NOTIN; }
  | IS                          { $$ = AOP_IS; }
  | IS NOT                      { $$ = AOP_ISNOT; }
  ;

expr:
    xor_expr                    { $$ = $1; }
  | expr '|' xor_expr           { $$ = parse_binop(ps, AOP_BITOR, $1, $3, @$); }
  ;

xor_expr:
    and_expr                    { $$ = $1; }
  | xor_expr '^' and_expr       { $$ = parse_binop(ps, AOP_BITXOR, $1, $3, @$); }
  ;

and_expr:
    shift_expr                  { $$ = $1; }
  | and_expr '&' shift_expr     { $$ = parse_binop(ps, AOP_BITAND, $1, $3, @$); }
  ;

shift_expr:
    arith                       { $$ = $1; }
  | shift_expr shift_op arith   { $$ = parse_binop(ps, $2, $1, $3, @$); }
  ;

shift_op:
    LSHIFT                      { $$ = AOP_LSHIFT; }
  | RSHIFT                      { $$ = AOP_RSHIFT; }
  ;

arith:
    term                        { $$ = $1; }
  | arith add_op term           { $$ = parse_binop(ps, $2, $1, $3, @$); }
  ;

add_op:
    '+'                         { $$ = AOP_ADD; }
  | '-'                         { $$ = AOP_SUB; }
  ;

term:
    factor                      { $$ = $1; }
  | term mul_op factor          { $$ = parse_binop(ps, $2, $1, $3, @$); }
  ;

mul_op:
    '*'                         { $$ = AOP_MUL; }
  | '/'                         { $$ = AOP_DIV; }
  | FLOORDIV                    { $$ = AOP_FLOORDIV; }
  | '%'                         { $$ = AOP_MOD; }
  | '@'                         { $$ = AOP_MATMUL; }
  ;

/* -x ** y is -(x ** y); x ** -y is allowed */
factor:
    power                       { $$ = $1; }
  | '-' factor                  { $$ = parse_unary(ps, AOP_NEG, $2, @$); }
  | '+' factor                  { $$ = parse_unary(ps, AOP_POS, $2, @$); }
  | '~' factor                  { $$ = parse_unary(ps, AOP_INVERT, $2, @$); }
  ;

power:
    primary                     { $$ = $1; }
  | primary POW factor          { $$ = parse_binop(ps, AOP_POW, $1, $3, @$); }
  ;

primary:
    atom                        { $$ = $1; }
  | primary '.' NAME            { $$ = parse_attr(ps, $1, $3, @$); }
  | primary '(' ')'             { $$ = parse_call(ps, $1, NULL, @$); }
  | primary '(' arglist ')'     { $$ = parse_call(ps, $1, $3, @$); }
  | primary '(' arglist ',' ')' { $$ = parse_call(ps, $1, $3, @$); }
  | primary '(' test comp_clauses ')' {
                                  parse_comps_free($4);
                                  $$ = parse_unsupported(ps, "generator expressions are", loc_join(@3, @4));
                                }
  | primary '[' sub_items ']'   { $$ = parse_subscript(ps, $1, $3, false, @$); }
  | primary '[' sub_items ',' ']' { $$ = parse_subscript(ps, $1, $3, true, @$); }
  ;

arglist:
    test                        { $$ = parse_arg_pos(ps, parse_args(), $1); }
  | test '=' test               { $$ = parse_arg_kw(ps, parse_args(), $1, $3, @$); }
  | '*' test                    { $$ = parse_arg_pos(ps, parse_args(), parse_starred(ps, $2, @$)); }
  | POW test                    { $$ = parse_arg_kwargs(ps, parse_args(), $2, @$); }
  | arglist ',' test            { $$ = parse_arg_pos(ps, $1, $3); }
  | arglist ',' test '=' test   { $$ = parse_arg_kw(ps, $1, $3, $5, loc_join(@3, @5)); }
  | arglist ',' '*' test        { $$ = parse_arg_pos(ps, $1, parse_starred(ps, $4, loc_join(@3, @4))); }
  | arglist ',' POW test        { $$ = parse_arg_kwargs(ps, $1, $4, loc_join(@3, @4)); }
  ;

sub_items:
    subscript                   { $$ = parse_exprs($1); }
  | sub_items ',' subscript     { $$ = parse_exprs_push($1, $3); }
  ;

subscript:
    test                        { $$ = $1; }
  | slice_part                  { $$ = $1; }
  ;

slice_part:
    opt_test ':' opt_test       { $$ = parse_slice(ps, $1, $3, NULL, $1 ? @$ : loc_join(@2, @$)); }
  | opt_test ':' opt_test ':' opt_test { $$ = parse_slice(ps, $1, $3, $5, $1 ? @$ : loc_join(@2, @$)); }
  ;

opt_test:
    %empty                      { $$ = NULL; }
  | test                        { $$ = $1; }
  ;

atom:
    NAME                        { $$ = parse_name(ps, $1, @$); }
  | INT                         { $$ = parse_int(ps, $1, @$); }
  | FLOAT                       { $$ = parse_float(ps, $1, @$); }
  | strings                     { $$ = parse_str(ps, $1, @$); }
  | NONE                        { $$ = parse_const(ps, EX_NONE, 0, @$); }
  | TRUE                        { $$ = parse_const(ps, EX_BOOL, 1, @$); }
  | FALSE                       { $$ = parse_const(ps, EX_BOOL, 0, @$); }
  | ELLIPSIS                    { $$ = parse_const(ps, EX_ELLIPSIS, 0, @$); }
  | '(' ')'                     { $$ = parse_paren(ps, parse_seq(ps, EX_TUPLE, NULL, @$), @$); }
  | '(' tlist_star ')'          { $$ = parse_paren(ps, $2, @$); }
  | '(' test comp_clauses ')'   {
                                  parse_comps_free($3);
                                  $$ = parse_unsupported(ps, "generator expressions are", @$);
                                }
  | '[' ']'                     { $$ = parse_seq(ps, EX_LIST, NULL, @$); }
  | '[' ts_items ']'            { $$ = parse_seq(ps, EX_LIST, $2, @$); }
  | '[' ts_items ',' ']'        { $$ = parse_seq(ps, EX_LIST, $2, @$); }
  | '[' test comp_clauses ']'   { $$ = parse_listcomp(ps, $2, $3, @$); }
  | '{' '}'                     { $$ = parse_dict(ps, NULL, @$); }
  | '{' dict_items '}'          { $$ = parse_dict(ps, $2, @$); }
  | '{' dict_items ',' '}'      { $$ = parse_dict(ps, $2, @$); }
  | '{' ts_items '}'            { parse_exprs_free($2); $$ = parse_unsupported(ps, "set literals are", @$); }
  | '{' ts_items ',' '}'        { parse_exprs_free($2); $$ = parse_unsupported(ps, "set literals are", @$); }
  | '{' test comp_clauses '}'   {
                                  parse_comps_free($3);
                                  $$ = parse_unsupported(ps, "set comprehensions are", @$);
                                }
  | '{' test ':' test comp_clauses '}' {
                                  parse_comps_free($5);
                                  $$ = parse_unsupported(ps, "dict comprehensions are", @$);
                                }
  ;

/* adjacent literals join: 'a' "b" == 'ab' */
strings:
    STRING                      { $$ = $1; }
  | strings STRING              { $$ = parse_str_concat(ps, $1, $2, @2); }
  ;

dict_items:
    test ':' test               { $$ = parse_exprs_push(parse_exprs($1), $3); }
  | dict_items ',' test ':' test { $$ = parse_exprs_push(parse_exprs_push($1, $3), $5); }
  ;

comp_clauses:
    comp_for                    { $$ = parse_comps($1); }
  | comp_clauses comp_for       { $$ = parse_comps_push($1, $2); }
  ;

comp_for:
    FOR exprlist IN or_test     { $$ = parse_comp_for(ps, $2, $4, NULL); }
  | FOR exprlist IN or_test comp_ifs { $$ = parse_comp_for(ps, $2, $4, $5); }
  ;

comp_ifs:
    IF or_test                  { $$ = parse_exprs($2); }
  | comp_ifs IF or_test         { $$ = parse_exprs_push($1, $3); }
  ;

%%

/* ==== errors ================================================================= */

void parse_flush_pending(ParseState *ps) {
  if (!ps->pending_err) return;
  ps->pending_err = false;
  diag_error(ps->diag, ps->pending_loc, "%s", ps->pending_msg);
  ps->nerrors++;
}

void parse_error(ParseState *ps, Loc loc, const char *fmt, ...) {
  parse_flush_pending(ps);
  va_list ap;
  va_start(ap, fmt);
  diag_verror(ps->diag, "error", loc, fmt, ap);
  va_end(ap);
  ps->nerrors++;
}

/* Only reached when the parser stack overflows (absurd nesting). */
static void yyerror(Loc *loc, ParseState *ps, const char *msg) {
  parse_error(ps, *loc, "%s (the code is nested too deeply)", msg);
}

static bool sym_in(yysymbol_kind_t k, const yysymbol_kind_t *set, int n) {
  for (int i = 0; i < n; i++)
    if (set[i] == k) return true;
  return false;
}

/* Can this token begin an expression? */
static bool starts_expr(yysymbol_kind_t k) {
  switch (k) {
  case YYSYMBOL_NAME: case YYSYMBOL_INT: case YYSYMBOL_FLOAT: case YYSYMBOL_STRING:
  case YYSYMBOL_NONE: case YYSYMBOL_TRUE: case YYSYMBOL_FALSE: case YYSYMBOL_ELLIPSIS:
  case YYSYMBOL_LAMBDA: case YYSYMBOL_NOT:
    return true;
  default:
    return k == YYTRANSLATE('(') || k == YYTRANSLATE('[') || k == YYTRANSLATE('{') ||
           k == YYTRANSLATE('~');
  }
}

static bool is_keyword(yysymbol_kind_t k) { return k >= YYSYMBOL_DEF && k <= YYSYMBOL_DEL; }

/* The message for a syntax error, Python's where Python has one. */
static void parse_syntax_message(ParseState *ps, yysymbol_kind_t la, const yysymbol_kind_t *exp, int n,
                                 char *msg, size_t size) {
  bool stmt_start = sym_in(YYSYMBOL_PASS, exp, n);
  bool in_brackets = ps->brackets.len > 0;
  const char *kw = ps->line_kw;
  if (la == YYSYMBOL_INDENT) {
    snprintf(msg, size, "unexpected indent");
  } else if (la == YYSYMBOL_UNSUPPORTED || la == YYSYMBOL_EXCEPT) {
    snprintf(msg, size, "'%.*s' is not supported in tile kernels", (int)ps->tok_len, ps->tok_text);
  } else if (la == YYSYMBOL_WALRUS) {
    snprintf(msg, size, "assignment expressions (':=') are not supported");
  } else if (la == YYSYMBOL_NEWLINE && sym_in(YYTRANSLATE(':'), exp, n) && kw) {
    if (!strcmp(kw, "if") || !strcmp(kw, "elif") || !strcmp(kw, "while"))
      snprintf(msg, size, "expected ':' after '%s' condition", kw);
    else if (!strcmp(kw, "for"))
      snprintf(msg, size, "expected ':' at the end of the 'for' statement");
    else if (!strcmp(kw, "def"))
      snprintf(msg, size, "expected ':' at the end of the function header");
    else
      snprintf(msg, size, "expected ':' after '%s'", kw);
  } else if (la == YYSYMBOL_NEWLINE && sym_in(YYTRANSLATE(':'), exp, n) && !sym_in(YYSYMBOL_NAME, exp, n)) {
    snprintf(msg, size, "expected ':'");
  } else if (sym_in(YYSYMBOL_ELSE, exp, n) && !stmt_start && la != YYSYMBOL_ELSE &&
             !sym_in(YYSYMBOL_NAME, exp, n)) {
    snprintf(msg, size, "expected 'else' after 'if' expression");
  } else if (la == YYTRANSLATE('=') && sym_in(YYSYMBOL_EQ, exp, n)) {
    snprintf(msg, size, "invalid syntax; maybe you meant '==' instead of '='?");
  } else if (sym_in(YYSYMBOL_IN, exp, n) && !sym_in(YYSYMBOL_EQ, exp, n) && la != YYSYMBOL_IN) {
    snprintf(msg, size, "expected 'in'");
  } else if (in_brackets && starts_expr(la) && sym_in(YYTRANSLATE(','), exp, n)) {
    snprintf(msg, size, "invalid syntax; perhaps you forgot a comma?");
  } else if (is_keyword(la) || la == YYSYMBOL_AS) {
    snprintf(msg, size, "unexpected '%.*s'", (int)ps->tok_len, ps->tok_text);
  } else if (sym_in(YYSYMBOL_INT, exp, n) && !stmt_start && !starts_expr(la)) {
    snprintf(msg, size, "expected an expression");
  } else if (n == 1 && exp[0] == YYSYMBOL_NAME) {
    snprintf(msg, size, "expected a name");
  } else if (la == YYSYMBOL_YYEOF) {
    snprintf(msg, size, "unexpected end of file");
  } else if (n == 1) {
    snprintf(msg, size, "expected %s", yysymbol_name(exp[0]));
  } else {
    snprintf(msg, size, "invalid syntax");
  }
}

static int yyreport_syntax_error(const yypcontext_t *ctx, ParseState *ps) {
  yysymbol_kind_t exp[YYNTOKENS];
  int n = yypcontext_expected_tokens(ctx, exp, YYNTOKENS);
  if (n < 0) n = 0;
  yysymbol_kind_t la = yypcontext_token(ctx);
  Loc loc = *yypcontext_location(ctx);
  if (ps->unclosed_at_eof) return 0; /* "'(' was never closed" said it all */
  if (ps->line_lex_error && la != YYSYMBOL_INDENT) return 0;
  char msg[sizeof ps->pending_msg];
  parse_syntax_message(ps, la, exp, n, msg, sizeof msg);
  if (la == YYSYMBOL_INDENT) lex_indent_unexpected(ps);
  if (ps->brackets.len > 0 && !ps->raw_eof) {
    /* Hold it: if a bracket turns out never closed, that is the error. */
    parse_flush_pending(ps);
    ps->pending_err = true;
    ps->pending_loc = loc;
    memcpy(ps->pending_msg, msg, sizeof msg);
  } else {
    parse_error(ps, loc, "%s", msg);
  }
  return 0;
}

/* ==== list builders ============================================================ */

static ExprList *parse_exprs(Expr *first) {
  ExprList *l = xcalloc(1, sizeof *l);
  if (first) VEC_PUSH(l->v, first);
  return l;
}
static ExprList *parse_exprs_push(ExprList *l, Expr *e) {
  VEC_PUSH(l->v, e);
  return l;
}
static void parse_exprs_free(ExprList *l) {
  if (!l) return;
  VEC_FREE(l->v);
  free(l);
}

static StmtList *parse_stmts(Stmt *first) {
  StmtList *l = xcalloc(1, sizeof *l);
  if (first) VEC_PUSH(l->v, first);
  return l;
}
static StmtList *parse_stmts_push(StmtList *l, Stmt *s) {
  if (s) VEC_PUSH(l->v, s);
  return l;
}
static StmtList *parse_stmts_concat(StmtList *a, StmtList *b) {
  for (int i = 0; i < b->v.len; i++) VEC_PUSH(a->v, b->v.data[i]);
  parse_stmts_free(b);
  return a;
}
static void parse_stmts_free(StmtList *l) {
  if (!l) return;
  VEC_FREE(l->v);
  free(l);
}

static ParamList *parse_params(Param *first) {
  ParamList *l = xcalloc(1, sizeof *l);
  if (first) VEC_PUSH(l->v, *first);
  return l;
}
static ParamList *parse_params_push(ParamList *l, Param *p) {
  if (p) VEC_PUSH(l->v, *p);
  return l;
}
static void parse_params_free(ParamList *l) {
  if (!l) return;
  VEC_FREE(l->v);
  free(l);
}

static CompList *parse_comps(CompFor *first) {
  CompList *l = xcalloc(1, sizeof *l);
  VEC_PUSH(l->v, *first);
  return l;
}
static CompList *parse_comps_push(CompList *l, CompFor *c) {
  VEC_PUSH(l->v, *c);
  return l;
}
static void parse_comps_free(CompList *l) {
  if (!l) return;
  VEC_FREE(l->v);
  free(l);
}

static CmpChain *parse_chain(Expr *a, AstOp op, Expr *b) {
  CmpChain *c = xcalloc(1, sizeof *c);
  VEC_PUSH(c->items, a);
  return parse_chain_push(c, op, b);
}
static CmpChain *parse_chain_push(CmpChain *c, AstOp op, Expr *b) {
  VEC_PUSH(c->ops, op);
  VEC_PUSH(c->items, b);
  return c;
}
static void parse_chain_free(CmpChain *c) {
  if (!c) return;
  VEC_FREE(c->items);
  VEC_FREE(c->ops);
  free(c);
}

static ArgList *parse_args(void) { return xcalloc(1, sizeof(ArgList)); }

static ArgList *parse_arg_pos(ParseState *ps, ArgList *a, Expr *e) {
  if (a->saw_kwargs && e->kind != EX_STARRED)
    parse_error(ps, e->loc, "positional argument follows keyword argument unpacking");
  else if (a->saw_kw && e->kind != EX_STARRED)
    parse_error(ps, e->loc, "positional argument follows keyword argument");
  else if (a->saw_kwargs)
    parse_error(ps, e->loc, "iterable argument unpacking follows keyword argument unpacking");
  VEC_PUSH(a->pos, e);
  return a;
}

static ArgList *parse_arg_kw(ParseState *ps, ArgList *a, Expr *name, Expr *value, Loc loc) {
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

static ArgList *parse_arg_kwargs(ParseState *ps, ArgList *a, Expr *value, Loc loc) {
  (void)ps;
  Keyword k = {NULL, value, loc};
  VEC_PUSH(a->kw, k);
  a->saw_kwargs = true;
  return a;
}

static void parse_args_free(ArgList *a) {
  if (!a) return;
  VEC_FREE(a->pos);
  VEC_FREE(a->kw);
  free(a);
}

static NameList *parse_names(const char *name, const char *asname) {
  return parse_names_push(xcalloc(1, sizeof(NameList)), name, asname);
}
static NameList *parse_names_push(NameList *l, const char *name, const char *asname) {
  VEC_PUSH(l->names, name);
  VEC_PUSH(l->asnames, asname);
  return l;
}
static void parse_names_free(NameList *l) {
  if (!l) return;
  VEC_FREE(l->names);
  VEC_FREE(l->asnames);
  free(l);
}

/* ==== statements =============================================================== */

static void parse_top(ParseState *ps, StmtList *l) {
  for (int i = 0; i < l->v.len; i++) VEC_PUSH(ps->top, l->v.data[i]);
  parse_stmts_free(l);
}

static Block parse_block(ParseState *ps, StmtList *l) {
  Block b = {VEC_TO_ARENA(ps->arena, l->v), l->v.len};
  parse_stmts_free(l);
  return b;
}

static void parse_header(ParseState *ps, const char *what, Loc kw) {
  ps->hdr_what = what;
  ps->hdr_line = kw.line;
}

/* `if x:` and then no indented line: report it; the next line, when it is
 * a simple statement, becomes the body (it was most likely meant to be
 * indented), else the body is empty. */
static Block parse_missing_block(ParseState *ps, Loc at, StmtList *unindented) {
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

static Stmt *parse_simple(ParseState *ps, StmtKind k, Loc loc) { return ast_stmt(ps->arena, k, loc); }

static Stmt *parse_expr_stmt(ParseState *ps, Expr *e, Loc loc) {
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

static Stmt *parse_assign(ParseState *ps, ExprList *chain, Loc loc) {
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

static Stmt *parse_augassign(ParseState *ps, Expr *target, AstOp op, Expr *value, Loc loc) {
  if (target->kind != EX_NAME && target->kind != EX_ATTR && target->kind != EX_SUBSCRIPT)
    parse_error(ps, target->loc, "'%s' is an illegal expression for augmented assignment", expr_what(target));
  Stmt *s = ast_stmt(ps->arena, ST_AUGASSIGN, loc);
  s->target = target;
  s->op = op;
  s->value = value;
  return s;
}

static Stmt *parse_annassign(ParseState *ps, Expr *target, Expr *ann, Expr *value, Loc loc) {
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

static Stmt *parse_return(ParseState *ps, Expr *value, Loc loc) {
  Stmt *s = ast_stmt(ps->arena, ST_RETURN, loc);
  s->value = value;
  return s;
}

static Stmt *parse_assert(ParseState *ps, Expr *cond, Expr *msg, Loc loc) {
  Stmt *s = ast_stmt(ps->arena, ST_ASSERT, loc);
  s->cond = cond;
  s->msg = msg;
  return s;
}

/* `del a, b` deletes two targets; `del (a, b)` one tuple. */
static Stmt *parse_del(ParseState *ps, Expr *targets, Loc loc) {
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

static Stmt *parse_global(ParseState *ps, NameList *names, Loc loc) {
  Stmt *s = ast_stmt(ps->arena, ST_GLOBAL, loc);
  s->nnames = names->names.len;
  s->names = VEC_TO_ARENA(ps->arena, names->names);
  parse_names_free(names);
  return s;
}

/* `import a.b as c, d` is two Import statements. */
static StmtList *parse_import(ParseState *ps, NameList *mods, Loc loc) {
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

static Stmt *parse_import_from(ParseState *ps, const char *module, NameList *names, Loc loc) {
  Stmt *s = ast_stmt(ps->arena, ST_IMPORTFROM, loc);
  s->module = module;
  s->nnames = names->names.len;
  s->names = VEC_TO_ARENA(ps->arena, names->names);
  s->asnames = VEC_TO_ARENA(ps->arena, names->asnames);
  parse_names_free(names);
  return s;
}

/* "a" + "b" -> "a.b"; dots of a relative import join without a separator. */
static const char *parse_dotted(ParseState *ps, const char *a, const char *b) {
  bool a_dots = a[strspn(a, ".")] == 0;
  return arena_printf(ps->arena, a_dots ? "%s%s" : "%s.%s", a, b);
}

static Stmt *parse_if(ParseState *ps, Expr *cond, Block body, Block orelse, Loc head) {
  Stmt *s = ast_stmt(ps->arena, ST_IF, loc_join(head, block_end(orelse.n ? orelse : body, head)));
  s->cond = cond;
  s->body = body;
  s->orelse = orelse;
  return s;
}

/* elif c: ... becomes an else block holding one If. */
static Block parse_elif(ParseState *ps, Expr *cond, Block body, Block orelse, Loc head) {
  Block b = {ARENA_ARRAY(ps->arena, Stmt *, 1), 1};
  b.stmts[0] = parse_if(ps, cond, body, orelse, head);
  return b;
}

static Stmt *parse_loop_head(ParseState *ps, StmtKind k, Expr *target, Expr *cond_or_iter, Loc head) {
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

static Stmt *parse_loop(ParseState *ps, Stmt *head, Block body, Block orelse) {
  (void)ps;
  head->body = body;
  head->orelse = orelse;
  head->loc = loc_join(head->loc, block_end(orelse.n ? orelse : body, head->loc));
  return head;
}

static FuncDef *parse_def_head(ParseState *ps, const char *name, ParamList *params, Expr *returns, Loc loc) {
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
    else if (saw_default)
      parse_error(ps, p->loc, "parameter without a default follows parameter with a default");
  }
  f->nparams = params->v.len;
  f->params = VEC_TO_ARENA(ps->arena, params->v);
  parse_params_free(params);
  parse_header(ps, "function definition", loc);
  return f;
}

/* The DEF statement: header, body and docstring. */
static Stmt *parse_def(ParseState *ps, FuncDef *f, Block body) {
  f->body = body;
  if (body.n && body.stmts[0]->kind == ST_EXPR && body.stmts[0]->value->kind == EX_STR)
    f->docstring = body.stmts[0]->value->sval;
  Stmt *s = ast_stmt(ps->arena, ST_DEF, loc_join(f->loc, block_end(body, f->loc)));
  s->def = f;
  return s;
}

/* Decorators apply bottom-up but are kept in source order; the statement's
 * span grows to start at the first '@'. */
static Stmt *parse_decorate(ParseState *ps, ExprList *decorators, Stmt *def) {
  FuncDef *f = def->def;
  f->ndecorators = decorators->v.len;
  f->decorators = VEC_TO_ARENA(ps->arena, decorators->v);
  Loc first = decorators->v.data[0]->loc;
  if (first.col > 1) first.col--; /* the '@' (the parser keeps no Loc for it) */
  def->loc = loc_join(first, def->loc);
  parse_exprs_free(decorators);
  return def;
}

static Stmt *parse_stray_decorators(ParseState *ps, ExprList *decorators) {
  Loc at = decorators->v.data[decorators->v.len - 1]->loc;
  parse_error(ps, at, "a decorator must be followed by a function definition ('def')");
  parse_exprs_free(decorators);
  return NULL;
}

static Param *parse_param(ParseState *ps, const char *name, Expr *ann, Expr *def, Loc loc) {
  Param *p = ARENA_NEW(ps->arena, Param);
  p->name = name;
  p->annotation = ann;
  p->default_ = def;
  p->loc = loc;
  return p;
}

static Param *parse_bad_param(ParseState *ps, const char *what, Loc loc) {
  parse_error(ps, loc, "%s are not supported in tile kernels", what);
  return NULL;
}

/* ==== expressions ============================================================== */

static Expr *parse_name(ParseState *ps, const char *name, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_NAME, loc);
  e->name = name;
  return e;
}

static Expr *parse_int(ParseState *ps, int64_t v, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_INT, loc);
  e->ival = v;
  return e;
}

static Expr *parse_float(ParseState *ps, double v, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_FLOAT, loc);
  e->fval = v;
  return e;
}

static Expr *parse_str(ParseState *ps, StrLit s, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_STR, loc);
  e->sval = s.s;
  e->slen = s.n;
  return e;
}

static StrLit parse_str_concat(ParseState *ps, StrLit a, StrLit b, Loc at) {
  if (a.bytes != b.bytes) parse_error(ps, at, "cannot mix bytes and nonbytes literals");
  char *s = arena_alloc(ps->arena, a.n + b.n + 1);
  memcpy(s, a.s, a.n);
  memcpy(s + a.n, b.s, b.n);
  a.s = s;
  a.n += b.n;
  return a;
}

static Expr *parse_const(ParseState *ps, ExprKind k, int64_t v, Loc loc) {
  Expr *e = ast_expr(ps->arena, k, loc);
  e->ival = v;
  return e;
}

static Expr *parse_binop(ParseState *ps, AstOp op, Expr *l, Expr *r, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_BINOP, loc);
  e->op = op;
  e->lhs = l;
  e->rhs = r;
  return e;
}

static Expr *parse_unary(ParseState *ps, AstOp op, Expr *x, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_UNARY, loc);
  e->op = op;
  e->lhs = x;
  return e;
}

static Expr *parse_boolop(ParseState *ps, AstOp op, Expr *l, Expr *r, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_BOOLOP, loc);
  e->op = op;
  e->lhs = l;
  e->rhs = r;
  return e;
}

static Expr *parse_compare(ParseState *ps, CmpChain *c, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_COMPARE, loc);
  e->nitems = c->items.len;
  e->items = VEC_TO_ARENA(ps->arena, c->items);
  e->cmp_ops = VEC_TO_ARENA(ps->arena, c->ops);
  parse_chain_free(c);
  return e;
}

static Expr *parse_ifexp(ParseState *ps, Expr *body, Expr *cond, Expr *orelse, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_IFEXP, loc);
  e->lhs = body;
  e->cond = cond;
  e->rhs = orelse;
  return e;
}

static Expr *parse_lambda(ParseState *ps, ParamList *params, Expr *body, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_LAMBDA, loc);
  if (params) {
    bool saw_default = false;
    for (int i = 0; i < params->v.len; i++) {
      Param *p = &params->v.data[i];
      if (p->default_) saw_default = true;
      else if (saw_default)
        parse_error(ps, p->loc, "parameter without a default follows parameter with a default");
    }
    e->nparams = params->v.len;
    e->params = VEC_TO_ARENA(ps->arena, params->v);
    parse_params_free(params);
  }
  e->body = body;
  return e;
}

static Expr *parse_attr(ParseState *ps, Expr *value, const char *name, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_ATTR, loc);
  e->value = value;
  e->name = name;
  return e;
}

static Expr *parse_call(ParseState *ps, Expr *func, ArgList *args, Loc loc) {
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
static Expr *parse_subscript(ParseState *ps, Expr *value, ExprList *items, bool trailing_comma, Loc loc) {
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

static Expr *parse_slice(ParseState *ps, Expr *lo, Expr *hi, Expr *step, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_SLICE, loc);
  e->lo = lo;
  e->hi = hi;
  e->step = step;
  return e;
}

static Expr *parse_starred(ParseState *ps, Expr *value, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_STARRED, loc);
  e->value = value;
  return e;
}

/* A Tuple or List of `items` (NULL: empty); frees the builder. */
static Expr *parse_seq(ParseState *ps, ExprKind k, ExprList *items, Loc loc) {
  Expr *e = ast_expr(ps->arena, k, loc);
  if (items) {
    e->nitems = items->v.len;
    e->items = VEC_TO_ARENA(ps->arena, items->v);
    parse_exprs_free(items);
  }
  return e;
}

static Expr *parse_tuple_or_single(ParseState *ps, ExprList *items, bool trailing_comma, Loc loc) {
  if (items->v.len == 1 && !trailing_comma) {
    Expr *e = items->v.data[0];
    parse_exprs_free(items);
    return e;
  }
  return parse_seq(ps, EX_TUPLE, items, loc);
}

/* ( e ): the same node, marked; a lone starred expression is not an
 * expression. */
static Expr *parse_paren(ParseState *ps, Expr *e, Loc loc) {
  if (e->kind == EX_STARRED) parse_error(ps, e->loc, "cannot use starred expression here");
  if (e->kind == EX_TUPLE) e->loc = loc;
  e->parenthesized = true;
  return e;
}

static Expr *parse_dict(ParseState *ps, ExprList *pairs, Loc loc) {
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

static Expr *parse_listcomp(ParseState *ps, Expr *elt, CompList *fors, Loc loc) {
  Expr *e = ast_expr(ps->arena, EX_COMPREHENSION, loc);
  e->value = elt;
  e->nfors = fors->v.len;
  e->fors = VEC_TO_ARENA(ps->arena, fors->v);
  parse_comps_free(fors);
  return e;
}

static CompFor *parse_comp_for(ParseState *ps, Expr *target, Expr *iter, ExprList *conds) {
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
static Expr *parse_unsupported(ParseState *ps, const char *what, Loc loc) {
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
static void parse_limit_block(ParseState *ps, Block b, int depth, bool *reported) {
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

/* ==== entry point ============================================================= */

int parse_module(const char *path, const char *source, DiagEngine *d, Module *out) {
  memset(out, 0, sizeof *out);
  arena_init(&out->arena);
  if (!path) path = "<string>";
  if (!source) source = "";
  out->path = path;
  out->source = source;
  diag_add_source(d, path, source);

  ParseState ps;
  memset(&ps, 0, sizeof ps);
  ps.arena = &out->arena;
  ps.diag = d;
  ps.path = path;
  ps.src = source;
  ps.src_len = strlen(source);
  lex_init(&ps);
  int rc = tlc_yyparse(&ps);
  lex_destroy(&ps);
  if (rc != 0 && ps.nerrors == 0) parse_error(&ps, ps.tok_loc, "invalid syntax");
  out->body.n = ps.top.len;
  out->body.stmts = VEC_TO_ARENA(&out->arena, ps.top);
  VEC_FREE(ps.top);
  bool reported = false;
  parse_limit_block(&ps, out->body, 0, &reported);
  return ps.nerrors ? -1 : 0;
}
