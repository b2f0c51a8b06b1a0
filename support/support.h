/* support.h — the small utilities every other folder uses.
 *
 * Owns: the arena allocator (all compiler memory comes from an arena and is
 * freed in one call), growable vectors, a string builder, source locations
 * and the diagnostics engine every stage reports through.  Owns nothing about the language or the GPU.
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

/* ---- hash.c: the one hash function, XXH3 (xxHash) -------------------------- */

/* XXH3-64 with a seed: for in-memory tables (interning, name maps). */
uint64_t hash_bytes(const void *p, size_t n, uint64_t seed);
/* XXH3-128: for names that must not collide (the compile fingerprint). */
typedef struct Hash128 {
  uint64_t lo, hi;
} Hash128;
Hash128 hash128(const void *p, size_t n);
/* 32 lowercase hex digits, high half first, and a NUL. */
void hash128_hex(Hash128 h, char out[33]);

/* ---- clock.c ------------------------------------------------------------- */

/* Milliseconds on a monotonic clock (differences only). */
double clock_ms(void);

/* ---- diag.c: located diagnostics ----------------------------------------
 * "file:line:col: error: message", the source line, and a caret under the
 * offending span, as C compilers print them.  One DiagEngine collects the
 * diagnostics of one compilation into a buffer (the CLI prints it; the
 * runtime returns it as the error message), counts errors and stops
 * recording after a cap.  Every stage reports through it: the frontend and
 * specialization (user errors), the passes, the verifier and codegen
 * (internal errors, with the offending op as a note).  Library code never
 * prints directly and never exits. */

typedef struct SourceText {
  const char *path;  /* as shown in messages */
  const char *text;  /* whole file, NUL-terminated; not owned */
} SourceText;

typedef struct DiagEngine {
  StrBuf out;              /* everything reported so far */
  int nerrors, nwarnings;
  int ninternal;           /* of the errors, internal compiler errors (bugs in tlc) */
  bool color;              /* ANSI colors and bold, as GCC and clang use on a terminal */
  int max_errors;          /* stop recording after this many (default 20) */
  /* An error identical to one already reported (same place, same words: an
   * unrolled loop repeating a mistake) is not shown again, nor its notes;
   * `nrepeats` counts them so evaluation can stop. */
  unsigned long long seen[32];  /* hashes of the errors reported */
  int nseen, nrepeats;
  bool in_repeat;               /* the last error was a repeat: drop its notes */
  SourceText sources[16];  /* where to find source lines by path */
  int nsources;
} DiagEngine;

void diag_init(DiagEngine *d);
void diag_free(DiagEngine *d);
/* Register a source text so messages about `path` can show its lines. */
void diag_add_source(DiagEngine *d, const char *path, const char *text);

void diag_error(DiagEngine *d, Loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void diag_warning(DiagEngine *d, Loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A note attached to the previous error ("note: BLOCK is declared here"). */
void diag_note(DiagEngine *d, Loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void diag_verror(DiagEngine *d, const char *kind, Loc loc, const char *fmt, va_list ap);

/* An internal compiler error — a bug in tlc, not in the kernel — about the
 * code at `loc` (an op's location; {0} when none): "file:line:col:
 * internal compiler error: ...", the source line and caret like any error,
 * then `detail` (the op being compiled, a verifier report; NULL = none) as
 * a note.  Counted in nerrors and ninternal. */
void diag_internal(DiagEngine *d, Loc loc, const char *detail, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void diag_vinternal(DiagEngine *d, Loc loc, const char *detail, const char *fmt, va_list ap);

/* An error with no location (driver-level: bad option, unreadable file). */
void diag_plain(DiagEngine *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Speculative work (evaluating host code that may not be evaluable, such as
 * autotune's pruning functions): mark the engine, and if the work failed,
 * roll back to the mark, forgetting what it reported; diag_rollback returns
 * the text of the first error since the mark (without its place), or NULL,
 * malloc'ed. */
typedef struct DiagMark {
  size_t len;
  int nerrors, nwarnings, ninternal, nseen, nrepeats;
  bool in_repeat;
} DiagMark;
DiagMark diag_mark(const DiagEngine *d);
char *diag_rollback(DiagEngine *d, DiagMark m);

static inline bool diag_has_errors(const DiagEngine *d) { return d->nerrors > 0; }
/* Nothing more would be shown: past the error cap, or many repeats. */
static inline bool diag_saturated(const DiagEngine *d) {
  return d->nerrors > d->max_errors || d->nrepeats > 100;
}

#endif
