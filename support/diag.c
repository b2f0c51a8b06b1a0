/* diag.c — formats diagnostics the way C compilers do.
 *
 *   kernel.tile:12:9: error: unknown name 'BLOK'
 *      12 |     x = BLOK + 1
 *         |         ^~~~
 *
 * Columns are 1-based byte columns; the caret line copies tabs from the
 * source line so the caret stays under the right character, and counts one
 * column per UTF-8 code point so comments in any script do not shift it. */
#include "support/support.h"

#include <stdarg.h>
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

/* Display width of the code point starting at p: 2 for East Asian wide
 * characters, 1 otherwise. */
static int cp_width(const unsigned char *p, size_t n) {
  unsigned cp;
  if (p[0] < 0x80) return 1;
  if ((p[0] & 0xE0) == 0xC0 && n >= 2) cp = (p[0] & 0x1Fu) << 6 | (p[1] & 0x3Fu);
  else if ((p[0] & 0xF0) == 0xE0 && n >= 3) cp = (p[0] & 0x0Fu) << 12 | (p[1] & 0x3Fu) << 6 | (p[2] & 0x3Fu);
  else if ((p[0] & 0xF8) == 0xF0 && n >= 4)
    cp = (p[0] & 0x07u) << 18 | (p[1] & 0x3Fu) << 12 | (p[2] & 0x3Fu) << 6 | (p[3] & 0x3Fu);
  else return 1;
  if ((cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) || (cp >= 0xAC00 && cp <= 0xD7A3) ||
      (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
      (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x20000 && cp <= 0x3FFFD))
    return 2;
  return 1;
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
  /* Columns are bytes; the caret line gets one column per code point (UTF-8
   * continuation bytes take none) and copies tabs. */
  size_t i = 0;
  for (; i < len && (int)i + 1 < loc.col; i++) {
    unsigned char c = (unsigned char)line[i];
    if ((c & 0xC0) == 0x80) continue;
    if (c == '\t') sb_putc(&d->out, '\t');
    else sb_puts(&d->out, cp_width((const unsigned char *)line + i, len - i) == 2 ? "  " : " ");
  }
  sb_puts(&d->out, i < len && cp_width((const unsigned char *)line + i, len - i) == 2 ? "^~" : "^");
  int end = (loc.end_line == loc.line && loc.end_col > loc.col + 1) ? loc.end_col : loc.col + 1;
  /* skip the rest of the character under the caret */
  for (i++; i < len && ((unsigned char)line[i] & 0xC0) == 0x80; i++) {}
  for (; i < len && (int)i + 1 < end; i++)
    if (((unsigned char)line[i] & 0xC0) != 0x80)
      sb_puts(&d->out, cp_width((const unsigned char *)line + i, len - i) == 2 ? "~~" : "~");
  sb_putc(&d->out, '\n');
}

/* FNV-1a over the place and the words of an error. */
static unsigned long long error_hash(Loc loc, const char *fmt, va_list ap) {
  char text[512];
  va_list aq;
  va_copy(aq, ap);
  vsnprintf(text, sizeof text, fmt, aq);
  va_end(aq);
  unsigned long long h = 1469598103934665603ull;
  char where[96];
  snprintf(where, sizeof where, "%s:%d:%d:", loc.file ? loc.file : "", loc.line, loc.col);
  for (const char *p = where; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
  for (const char *p = text; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
  return h;
}

void diag_verror(DiagEngine *d, const char *kind, Loc loc, const char *fmt, va_list ap) {
  bool is_error = strcmp(kind, "error") == 0;
  bool is_note = strcmp(kind, "note") == 0;
  if (is_note && d->in_repeat) return;
  if (is_error) {
    unsigned long long h = error_hash(loc, fmt, ap);
    d->in_repeat = false;
    for (int i = 0; i < d->nseen; i++)
      if (d->seen[i] == h) {
        d->nrepeats++;
        d->in_repeat = true;
        return;
      }
    if (d->nseen < (int)(sizeof d->seen / sizeof d->seen[0])) d->seen[d->nseen++] = h;
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
