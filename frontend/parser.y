%code top {
/* parser.y — the grammar of .tile files: Python's statement and expression
 * syntax, as far as Triton kernels and the host helpers beside them use it.
 *
 * Owns: the grammar, AST construction and every syntax error message
 * (including the checks Python makes while parsing: assignment targets,
 * argument order, parameter order).  Does not own tokens or layout
 * (lexer.l), node layout (frontend.h) or meaning (specialization).
 *
 * Conventions, after PostgreSQL's gram.y:
 *   - pure and reentrant: the ParseState (parse_internal.h) is the parse
 *     parameter and the scanner's extra data; there is no global state;
 *   - an action makes a node, fills it and attaches its span (@n); anything
 *     more is a parse_* builder in parse_build.c (declared in parse_internal.h);
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
  | '*' NAME                    { $$ = parse_star_param(ps, $2, 1, NULL, @2); }
  | '*' NAME ':' test           { $$ = parse_star_param(ps, $2, 1, $4, loc_join(@2, @4)); }
  | POW NAME                    { $$ = parse_star_param(ps, $2, 2, NULL, @2); }
  | POW NAME ':' test           { $$ = parse_star_param(ps, $2, 2, $4, loc_join(@2, @4)); }
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
  | '*' NAME                    { $$ = parse_star_param(ps, $2, 1, NULL, @2); }
  | POW NAME                    { $$ = parse_star_param(ps, $2, 2, NULL, @2); }
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
