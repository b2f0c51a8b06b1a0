%{
int yylex(void); void yyerror(const char *s);
%}
%%
top: ;
%%
