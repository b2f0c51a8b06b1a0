/* diag.h — located diagnostics: "file:line:col: error: message", the source
 * line, and a caret under the offending span.
 *
 * Owns: the DiagEngine that collects diagnostics of one compilation into a
 * buffer (the CLI prints it; the runtime returns it as the error message),
 * counts errors and stops recording after a cap.  Library code never prints
 * directly and never exits. */
#ifndef TLC_DIAG_H
#define TLC_DIAG_H

#include "../support/support.h"

typedef struct SourceText {
  const char *path;  /* as shown in messages */
  const char *text;  /* whole file, NUL-terminated; not owned */
} SourceText;

typedef struct DiagEngine {
  StrBuf out;              /* everything reported so far */
  int nerrors, nwarnings;
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

/* An error with no location (driver-level: bad option, unreadable file). */
void diag_plain(DiagEngine *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static inline bool diag_has_errors(const DiagEngine *d) { return d->nerrors > 0; }
/* Nothing more would be shown: past the error cap, or many repeats. */
static inline bool diag_saturated(const DiagEngine *d) {
  return d->nerrors > d->max_errors || d->nrepeats > 100;
}

#endif
