/* strbuf.c — a growable heap string and file reading.
 *
 * Printers (AST dump, IR printer, diagnostics) write into a StrBuf so the
 * same code serves files, stdout and in-memory golden comparisons. */
#include "support.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_init(StrBuf *sb) { sb->data = NULL, sb->len = sb->cap = 0; }

static void sb_reserve(StrBuf *sb, size_t extra) {
  if (sb->len + extra + 1 <= sb->cap) return;
  size_t cap = sb->cap ? sb->cap : 64;
  while (cap < sb->len + extra + 1) cap *= 2;
  sb->data = xrealloc(sb->data, cap);
  sb->cap = cap;
}

void sb_putn(StrBuf *sb, const char *s, size_t n) {
  sb_reserve(sb, n);
  memcpy(sb->data + sb->len, s, n);
  sb->len += n;
  sb->data[sb->len] = 0;
}
void sb_putc(StrBuf *sb, char c) { sb_putn(sb, &c, 1); }
void sb_puts(StrBuf *sb, const char *s) { sb_putn(sb, s, strlen(s)); }

void sb_vprintf(StrBuf *sb, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  sb_reserve(sb, (size_t)n);
  vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  sb->len += (size_t)n;
}
void sb_printf(StrBuf *sb, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(sb, fmt, ap);
  va_end(ap);
}

char *sb_take(StrBuf *sb) {
  char *s = sb->data ? sb->data : xstrdup("");
  sb_init(sb);
  return s;
}
void sb_free(StrBuf *sb) { free(sb->data), sb_init(sb); }

char *read_file(const char *path, size_t *len_out, const char **err) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    *err = strerror(errno);
    return NULL;
  }
  StrBuf sb;
  sb_init(&sb);
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) sb_putn(&sb, buf, n);
  if (ferror(f)) {
    *err = strerror(errno);
    fclose(f);
    sb_free(&sb);
    return NULL;
  }
  fclose(f);
  if (len_out) *len_out = sb.len;
  return sb_take(&sb);
}
