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

/* With DiagEngine.color: the place in bold, the kind in its color, the
 * caret line in green, as GCC and clang color them on a terminal. */
#define COLOR_BOLD "\033[1m"
#define COLOR_CARET "\033[1;32m"
#define COLOR_RESET "\033[0m"

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

/* The hash (hash_bytes, XXH3) of the place and the words of an error. */
static unsigned long long error_hash(Loc loc, const char *fmt, va_list ap) {
  char text[608];
  int n = snprintf(text, 96, "%s:%d:%d:", loc.file ? loc.file : "", loc.line, loc.col);
  if (n < 0 || n > 95) n = 95; /* a long file name: its first 95 bytes, as before */
  va_list aq;
  va_copy(aq, ap);
  vsnprintf(text + n, 512, fmt, aq);
  va_end(aq);
  return hash_bytes(text, strlen(text), 0);
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
  if (d->color) sb_puts(&d->out, COLOR_CARET);
  sb_puts(&d->out, i < len && cp_width((const unsigned char *)line + i, len - i) == 2 ? "^~" : "^");
  int end = (loc.end_line == loc.line && loc.end_col > loc.col + 1) ? loc.end_col : loc.col + 1;
  /* skip the rest of the character under the caret */
  for (i++; i < len && ((unsigned char)line[i] & 0xC0) == 0x80; i++) {}
  for (; i < len && (int)i + 1 < end; i++)
    if (((unsigned char)line[i] & 0xC0) != 0x80)
      sb_puts(&d->out, cp_width((const unsigned char *)line + i, len - i) == 2 ? "~~" : "~");
  if (d->color) sb_puts(&d->out, COLOR_RESET);
  sb_putc(&d->out, '\n');
}

/* The kinds a diagnostic can be, with GCC's colors.  ORDER DiagKindId. */
enum DiagKindId { KIND_ERROR, KIND_INTERNAL, KIND_WARNING, KIND_NOTE };

typedef struct DiagKind {
  const char *name;   /* as printed: "error", "internal compiler error", ... */
  const char *color;  /* ANSI SGR sequence for the name */
  bool is_error;      /* counted, capped and deduplicated as an error */
} DiagKind;

static const DiagKind kinds[] = {
    {"error", "\033[1;31m", true},
    {"internal compiler error", "\033[1;31m", true},
    {"warning", "\033[1;35m", false},
    {"note", "\033[1;36m", false},
};

static const DiagKind *kind_of(const char *name) {
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (!strcmp(kinds[i].name, name)) return &kinds[i];
  return &kinds[KIND_ERROR];
}

/* Count the diagnostic; false when it is not to be shown (a repeat, past
 * the cap, a note of something not shown). */
static bool admit(DiagEngine *d, const DiagKind *k, Loc loc, const char *fmt, va_list ap) {
  bool is_note = k == &kinds[KIND_NOTE];
  if (is_note) return !d->in_repeat && d->nerrors <= d->max_errors;
  if (!k->is_error) {
    d->nwarnings++;
    return true;
  }
  unsigned long long h = error_hash(loc, fmt, ap);
  d->in_repeat = false;
  for (int i = 0; i < d->nseen; i++)
    if (d->seen[i] == h) {
      d->nrepeats++;
      d->in_repeat = true;
      return false;
    }
  if (d->nseen < (int)(sizeof d->seen / sizeof d->seen[0])) d->seen[d->nseen++] = h;
  d->nerrors++;
  if (k == &kinds[KIND_INTERNAL]) d->ninternal++;
  if (d->nerrors == d->max_errors + 1) sb_puts(&d->out, "tlc: too many errors; stopping here\n");
  return d->nerrors <= d->max_errors;
}

void diag_verror(DiagEngine *d, const char *kind, Loc loc, const char *fmt, va_list ap) {
  const DiagKind *k = kind_of(kind);
  if (!admit(d, k, loc, fmt, ap)) return;
  if (d->color) sb_puts(&d->out, COLOR_BOLD);
  if (loc.file && loc.line > 0)
    sb_printf(&d->out, "%s:%d:%d: ", loc.file, loc.line, loc.col);
  else if (loc.file)
    sb_printf(&d->out, "%s: ", loc.file);
  else if (k != &kinds[KIND_NOTE])
    sb_puts(&d->out, "tlc: "); /* a note without a place belongs to the line above */
  if (d->color) sb_printf(&d->out, "%s%s:%s ", k->color, k->name, COLOR_RESET);
  else sb_printf(&d->out, "%s: ", k->name);
  sb_vprintf(&d->out, fmt, ap);
  sb_putc(&d->out, '\n');
  show_source(d, loc);
}

void diag_vinternal(DiagEngine *d, Loc loc, const char *detail, const char *fmt, va_list ap) {
  diag_verror(d, "internal compiler error", loc, fmt, ap);
  if (!detail || !*detail) return;
  size_t n = strlen(detail);
  while (n && detail[n - 1] == '\n') n--;
  diag_note(d, (Loc){0}, "%.*s", (int)n, detail);
}

void diag_internal(DiagEngine *d, Loc loc, const char *detail, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_vinternal(d, loc, detail, fmt, ap);
  va_end(ap);
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

DiagMark diag_mark(const DiagEngine *d) {
  return (DiagMark){d->out.len, d->nerrors, d->nwarnings, d->ninternal, d->nseen, d->nrepeats, d->in_repeat};
}

char *diag_rollback(DiagEngine *d, DiagMark m) {
  char *first = NULL;
  if (d->out.len > m.len) {
    const char *p = strstr(d->out.data + m.len, "error:");
    if (p) {
      p += strlen("error:");
      if (!strncmp(p, COLOR_RESET, strlen(COLOR_RESET))) p += strlen(COLOR_RESET);
      if (*p == ' ') p++;
      size_t n = strcspn(p, "\n");
      first = xmalloc(n + 1);
      memcpy(first, p, n);
      first[n] = 0;
    }
    d->out.len = m.len;
    d->out.data[m.len] = 0;
  }
  d->nerrors = m.nerrors, d->nwarnings = m.nwarnings, d->ninternal = m.ninternal;
  d->nseen = m.nseen, d->nrepeats = m.nrepeats, d->in_repeat = m.in_repeat;
  return first;
}
