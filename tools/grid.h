/* grid.h — the launch grid that tlc compile --grid gives a generated
 * launch function: one to three integer expressions over the kernel's
 * runtime parameters and the constants it was specialized with, checked at
 * compile time and written as C (tools/grid.c).
 *
 *   --grid 'cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N), 1, 1'
 *   --grid "(triton.cdiv(n, META['BLOCK']),)"       (a Triton grid lambda's body)
 *
 * Grammar: dims := expr [',' expr [',' expr]] [','], optionally inside one
 * pair of parentheses; expr over + - * / // % (unary - +), parentheses,
 * integer literals, names (a runtime integer parameter, or a constant:
 * tl.constexpr, a signature literal, a config's value), META['NAME'] for a
 * name, and the calls cdiv(a, b) (also triton.cdiv, tl.cdiv), min(a, b),
 * max(a, b).  Arithmetic is in int64_t with Python's rounding: / and //
 * round down, % takes the divisor's sign, cdiv(a, b) = (a + b - 1) // b;
 * a division by zero gives 0 (and the launch a zero grid dimension). */
#ifndef TLC_TOOLS_GRID_H
#define TLC_TOOLS_GRID_H

#include <stddef.h>
#include <stdio.h>

#include "compiler/tlc_compiler.h"

typedef struct AotGrid AotGrid;

/* Parse `text`; NULL with the message (the text and a caret under the
 * place) in why. */
AotGrid *grid_parse(const char *text, char *why, size_t whylen);
void grid_free(AotGrid *g);
const char *grid_text(const AotGrid *g);

/* Every name of g is an integer runtime parameter or an integer constant of
 * the compiled kernel res: 0, or -1 with the located message in why
 * (`what` names the kernel, or the kernel and config, in it). */
int grid_check(const AotGrid *g, const tlc_compile_result *res, const char *what, char *why, size_t whylen);

/* The C names of the launch function's parameters (aot.c's rule). */
typedef void (*GridCName)(const char *param, char *buf, size_t len);

/* Dimension d (0..2) of g as a C expression of type int64_t for res (its
 * constants written as their values, runtime parameters by their C
 * names); "1" past the last dimension given.  The helpers it calls
 * (tlc_grid_div, tlc_grid_mod, tlc_grid_cdiv, tlc_grid_min, tlc_grid_max)
 * are grid_put_helpers'. */
void grid_put_c(FILE *f, const AotGrid *g, int d, const tlc_compile_result *res, GridCName cname);
/* The helpers g's C calls (a bit set; OR them over a file's grids), and
 * those static functions, once per generated file (only those used: an
 * unused static function is a warning). */
unsigned grid_uses(const AotGrid *g);
void grid_put_helpers(FILE *f, unsigned used);

#endif
