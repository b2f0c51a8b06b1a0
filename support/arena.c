/* arena.c — bump allocation in chunks, freed all at once.
 *
 * Every AST node, IR op, type and layout of one compilation lives in one
 * arena; nothing is freed individually.  Chunks grow geometrically so large
 * kernels do not pay for many small mallocs. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ArenaChunk {
  ArenaChunk *next;
  size_t size, used;
  _Alignas(16) unsigned char data[];
};

static void oom(size_t n) {
  fprintf(stderr, "tlc: out of memory allocating %zu bytes\n", n);
  abort();
}

void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) oom(n);
  return p;
}
void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p) oom(n * size);
  return p;
}
void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) oom(n);
  return q;
}
char *xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  return memcpy(xmalloc(n), s, n);
}

void arena_init(Arena *a) { a->head = NULL, a->used_total = 0; }

void *arena_alloc(Arena *a, size_t size) {
  if (size > ((size_t)1 << 40)) oom(size); /* a negative count cast to size_t */
  size = (size + 15) & ~(size_t)15;
  ArenaChunk *c = a->head;
  if (!c || c->size - c->used < size) {
    size_t want = c ? c->size * 2 : 64 * 1024;
    if (want > 16u << 20) want = 16u << 20;
    if (want < size) want = size;
    c = malloc(sizeof(ArenaChunk) + want);
    if (!c) oom(want);
    c->size = want, c->used = 0, c->next = a->head;
    a->head = c;
  }
  void *p = c->data + c->used;
  c->used += size;
  a->used_total += size;
  memset(p, 0, size);
  return p;
}

void *arena_dup(Arena *a, const void *p, size_t size) {
  void *q = arena_alloc(a, size);
  if (size) memcpy(q, p, size);
  return q;
}
char *arena_strndup(Arena *a, const char *s, size_t n) {
  char *q = arena_alloc(a, n + 1);
  memcpy(q, s, n);
  q[n] = 0;
  return q;
}
char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_printf(Arena *a, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *s = arena_alloc(a, (size_t)n + 1);
  vsnprintf(s, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  return s;
}

void arena_free(Arena *a) {
  for (ArenaChunk *c = a->head, *n; c; c = n) n = c->next, free(c);
  a->head = NULL, a->used_total = 0;
}
