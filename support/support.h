/* support.h — the small utilities every other folder uses.
 *
 * Owns: the arena allocator (all compiler memory comes from an arena and is
 * freed in one call), growable vectors, a string builder, and source
 * locations.  Owns nothing about the language or the GPU.
 *
 * Convention: functions are prefixed by their file: arena_, vec_/VEC_, sb_.
 * Out-of-memory aborts with a message: there is no sensible recovery inside a
 * compiler pass, and every other failure is returned, never exit()ed.
 */
#ifndef TLC_SUPPORT_H
#define TLC_SUPPORT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* ---- loc.h: where something came from ------------------------------------ */

/* A source span: 1-based line and column of the first character, and of the
 * character just past the end.  `file` is owned by whoever loaded the source
 * (it outlives every AST and IR node that points at it). */
typedef struct Loc {
  const char *file;  /* path as given on the command line, or "<string>" */
  int line, col;     /* start; 0 when unknown */
  int end_line, end_col;
} Loc;

/* ---- arena.c ------------------------------------------------------------- */

typedef struct ArenaChunk ArenaChunk;
typedef struct Arena {
  ArenaChunk *head;   /* newest chunk first */
  size_t used_total;  /* bytes handed out, for statistics */
} Arena;

void arena_init(Arena *a);
void *arena_alloc(Arena *a, size_t size);        /* zeroed, 16-byte aligned */
void *arena_dup(Arena *a, const void *p, size_t size);
char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void arena_free(Arena *a);                       /* frees every chunk */

/* Allocate an array of n T's in arena a. */
#define ARENA_NEW(a, T) ((T *)arena_alloc((a), sizeof(T)))
#define ARENA_ARRAY(a, T, n) ((T *)arena_alloc((a), sizeof(T) * (size_t)(n)))

/* ---- vec.h: growable arrays on the heap ---------------------------------- */

/* A vector is a struct { T *data; int len, cap; }.  Declare one with
 * VEC(T) name;  push with VEC_PUSH(v, x); free with VEC_FREE(v). */
#define VEC(T) struct { T *data; int len, cap; }
#define VEC_PUSH(v, x)                                                      \
  do {                                                                      \
    if ((v).len == (v).cap) {                                               \
      (v).cap = (v).cap ? 2 * (v).cap : 8;                                  \
      (v).data = xrealloc((v).data, sizeof(*(v).data) * (size_t)(v).cap);   \
    }                                                                       \
    (v).data[(v).len++] = (x);                                              \
  } while (0)
#define VEC_FREE(v) (free((v).data), (v).data = NULL, (v).len = (v).cap = 0)
/* Copy a vector's contents into the arena (for AST/IR arrays). */
#define VEC_TO_ARENA(a, v) \
  ((v).len ? arena_dup((a), (v).data, sizeof(*(v).data) * (size_t)(v).len) : NULL)

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

/* ---- strbuf.c: a growable string ---------------------------------------- */

typedef struct StrBuf {
  char *data;  /* always NUL-terminated once anything was written */
  size_t len, cap;
} StrBuf;

void sb_init(StrBuf *sb);
void sb_putc(StrBuf *sb, char c);
void sb_puts(StrBuf *sb, const char *s);
void sb_putn(StrBuf *sb, const char *s, size_t n);
void sb_printf(StrBuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void sb_vprintf(StrBuf *sb, const char *fmt, va_list ap);
char *sb_take(StrBuf *sb);  /* returns the heap string; sb is reset */
void sb_free(StrBuf *sb);

/* Read a whole file into a heap buffer (NUL-terminated).  Returns NULL and
 * sets *err (a static string from strerror) on failure. */
char *read_file(const char *path, size_t *len_out, const char **err);

/* 64-bit FNV-1a, for cache keys and interning. */
uint64_t hash_bytes(const void *p, size_t n, uint64_t seed);

#endif
