/* report.c — the tile IR's side of the diagnostics engine (support.h's
 * diag_*): an internal compiler error about an op, located at the op's
 * source position with the op printed as a note, and the verifier's
 * findings reported the same way.
 *
 * Owns no formatting of its own: the place, the source line and the caret
 * are diag's, the op's text is the printer's.  Passes and codegen report
 * internal errors through here; user errors go straight to diag_error. */
#include "ir/ir.h"

#include <stdarg.h>

void ir_vinternal_error(DiagEngine *d, const Op *op, const char *fmt, va_list ap) {
  StrBuf text;
  sb_init(&text);
  if (op) {
    sb_puts(&text, "in: ");
    ir_print_op(&text, op);
  }
  diag_vinternal(d, op ? op->loc : (Loc){0}, text.data, fmt, ap);
  sb_free(&text);
}

void ir_internal_error(DiagEngine *d, const Op *op, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ir_vinternal_error(d, op, fmt, ap);
  va_end(ap);
}

int ir_verify_report(const IrModule *m, bool layouts, DiagEngine *d, bool internal, const char *when) {
  StrBuf found;
  sb_init(&found);
  int n = ir_verify(m, layouts, &found);
  if (n) {
    Loc at = m->func ? m->func->loc : (Loc){0};
    const char *fmt = "the IR is invalid %s (%d problem%s)";
    if (internal) {
      diag_internal(d, at, found.data, fmt, when, n, n == 1 ? "" : "s");
    } else {
      diag_error(d, at, fmt, when, n, n == 1 ? "" : "s");
      diag_note(d, (Loc){0}, "%.*s", (int)(found.len && found.data[found.len - 1] == '\n' ? found.len - 1 : found.len),
                found.data);
    }
  }
  sb_free(&found);
  return n;
}
