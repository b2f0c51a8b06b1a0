/* diag.c — formats diagnostics the way C compilers do.
 *
 *   kernel.tile:12:9: error: unknown name 'BLOK'
 *      12 |     x = BLOK + 1
 *         |         ^~~~
 *
 * Columns are 1-based byte columns; the caret line copies tabs from the
 * source line so the caret stays under the right character, and counts one
 * column per UTF-8 code point so comments in any script do not shift it. */
#include "diag.h"

#include <stdio.h>
#include <string.h>

void diag_init(DiagEngine *d) {
  memset(d, 0, sizeof *d);
  sb_init(&d->out);
  d->max_errors = 20;
}

void diag_free(DiagEngine *d) { sb_free(&d->out); }

void diag_add_source(DiagEngine *d, const char *path, const char *text) {
  for (int i = 0; i < d->nsources; i++)
    if (strcmp(d->sources[i].path, path) == 0) {
      d->sources[i].text = text;
      return;
    }
  if (d->nsources < (int)(sizeof d->sources / sizeof d->sources[0]))
    d->sources[d->nsources++] = (SourceText){path, text};
}

static const char *find_line(const DiagEngine *d, const char *path, int line, size_t *len) {
  if (!path || line <= 0) return NULL;
  for (int i = 0; i < d->nsources; i++) {
    if (strcmp(d->sources[i].path, path) != 0) continue;
    const char *p = d->sources[i].text;
    for (int l = 1; l < line && p; l++) {
      p = strchr(p, '\n');
      if (p) p++;
    }
    if (!p) return NULL;
    const char *e = p;
    while (*e && *e != '\n' && *e != '\r') e++;
    *len = (size_t)(e - p);
    return p;
  }
  return NULL;
}

static void show_source(DiagEngine *d, Loc loc) {
  size_t len;
  const char *line = find_line(d, loc.file, loc.line, &len);
  if (!line) return;
  char num[16];
  snprintf(num, sizeof num, "%d", loc.line);
  int w = (int)strlen(num);
  sb_printf(&d->out, " %s | ", num);
  sb_putn(&d->out, line, len);
  sb_putc(&d->out, '\n');
  sb_printf(&d->out, " %*s | ", w, "");
  /* Caret under loc.col, squiggles to the end of the span on this line. */
  int col = 1;
  size_t i = 0;
  for (; i < len && col < loc.col; i++, col++) {
    unsigned char c = (unsigned char)line[i];
    if ((c & 0xC0) == 0x80) { col--; continue; } /* UTF-8 continuation */
    sb_putc(&d->out, c == '\t' ? '\t' : ' ');
  }
  sb_putc(&d->out, '^');
  int end = (loc.end_line == loc.line && loc.end_col > loc.col + 1) ? loc.end_col : loc.col + 1;
  for (col = loc.col + 1; col < end && (size_t)col <= len; col++) sb_putc(&d->out, '~');
  sb_putc(&d->out, '\n');
}

void diag_verror(DiagEngine *d, const char *kind, Loc loc, const char *fmt, va_list ap) {
  bool is_error = strcmp(kind, "error") == 0;
  bool is_note = strcmp(kind, "note") == 0;
  if (is_error) {
    d->nerrors++;
    if (d->nerrors == d->max_errors + 1) {
      sb_puts(&d->out, "tlc: too many errors; stopping here\n");
      return;
    }
    if (d->nerrors > d->max_errors) return;
  } else if (is_note) {
    if (d->nerrors > d->max_errors) return;
  } else {
    d->nwarnings++;
  }
  if (loc.file && loc.line > 0)
    sb_printf(&d->out, "%s:%d:%d: %s: ", loc.file, loc.line, loc.col, kind);
  else if (loc.file)
    sb_printf(&d->out, "%s: %s: ", loc.file, kind);
  else
    sb_printf(&d->out, "tlc: %s: ", kind);
  sb_vprintf(&d->out, fmt, ap);
  sb_putc(&d->out, '\n');
  show_source(d, loc);
}

#define DEFINE_DIAG(fn, kind)                              \
  void fn(DiagEngine *d, Loc loc, const char *fmt, ...) {  \
    va_list ap;                                            \
    va_start(ap, fmt);                                     \
    diag_verror(d, kind, loc, fmt, ap);                    \
    va_end(ap);                                            \
  }
DEFINE_DIAG(diag_error, "error")
DEFINE_DIAG(diag_warning, "warning")
DEFINE_DIAG(diag_note, "note")

void diag_plain(DiagEngine *d, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_verror(d, "error", (Loc){0}, fmt, ap);
  va_end(ap);
}
