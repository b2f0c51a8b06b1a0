/* run.c — `tlc run FILE --kernel K --signature SIG --grid X[,Y[,Z]] ARG...`:
 * the kernel specialized and run by the CPU interpreter (interp/), each
 * pointer argument a .npy file (read, and written back when the kernel
 * changed it), each scalar a value.
 *
 * Owns matching the arguments to the kernel's parameters (a .npy file's
 * dtype must be the pointer's element type; the same file given twice is
 * one array), and writing outputs back only after a successful run,
 * through a temporary file and a rename: a fault, a bad argument or a full
 * disk leaves every input file as it was. */
#include "tools/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "interp/tlc_interp.h"
#include "tools/npy.h"

/* Two arguments naming one .npy file: the same text, or paths (a link,
 * ./x.npy) that reach the same file.  It is one array, read and written
 * once: two copies would have one's results overwrite the other's. */
static bool same_file(const char *a, const char *b) {
  struct stat sa, sb;
  if (!strcmp(a, b)) return true;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int run_error(const char *fmt, const char *a, const char *b, const char *c) {
  fputs("tlc: error: ", stderr);
  fprintf(stderr, fmt, a, b, c);
  fputc('\n', stderr);
  return 1;
}

/* The .npy dtypes that hold a pointer's elements ("<f4" for fp32; raw bits
 * for the types NumPy lacks: bf16 as uint16, fp8 as uint8). */
static bool dtype_fits(const char *elem, const char *descr) {
  static const struct {
    const char *elem, *kinds;
  } t[] = {
      {"fp32", "f4"}, {"fp64", "f8"}, {"fp16", "f2"}, {"bf16", "u2 i2 V2"}, {"fp8e4nv", "u1 i1 V1"},
      {"fp8e5", "u1 i1 V1"}, {"i1", "b1 u1 i1"}, {"i8", "i1"}, {"u8", "u1"}, {"i16", "i2"}, {"u16", "u2"},
      {"i32", "i4"}, {"u32", "u4"}, {"i64", "i8"}, {"u64", "u8"},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    if (!strcmp(t[i].elem, elem)) {
      const char *k = strstr(t[i].kinds, descr + 1);
      return k && strlen(descr + 1) == 2;
    }
  return false;
}

static void describe_params(const tlc_interp_program *p, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = 0;
  for (int i = 0; i < tlc_interp_num_params(p) && n < cap; i++) {
    const char *e = tlc_interp_param_elem(p, i);
    n += (size_t)snprintf(buf + n, cap - n, "%s%s: %s%s%s", i ? ", " : "", tlc_interp_param_name(p, i),
                          e ? "*" : tlc_param_kind_name(tlc_interp_param_kind(p, i)), e ? e : "", e ? " (.npy)" : "");
  }
}

typedef struct Arg {
  Npy npy;            /* pointer arguments */
  void *before;       /* the data as read, to see what the kernel changed */
  int same_as;        /* -1, or the earlier argument naming the same file */
} Arg;

int run_kernel(const RunRequest *r) {
  tlc_interp_request req = {r->file, r->source, r->kernel, r->signature, r->constexprs, r->nconstexprs,
                            r->num_warps, r->debug};
  tlc_interp_program *p = NULL;
  char *diag = NULL;
  if (tlc_interp_compile(&req, &p, &diag) != TLC_INTERP_OK) {
    fputs(diag, stderr);
    free(diag);
    return 1;
  }
  free(diag);
  int np = tlc_interp_num_params(p), rc = 0;
  if (r->nargs != np) {
    char desc[1024], counts[64];
    describe_params(p, desc, sizeof desc);
    snprintf(counts, sizeof counts, "%d argument%s but %d %s given", np, np == 1 ? "" : "s", r->nargs,
             r->nargs == 1 ? "was" : "were");
    run_error("kernel '%s' takes %s (%s)", tlc_interp_kernel_name(p), counts, desc);
    tlc_interp_program_free(p);
    return 2;
  }
  Arg *a = calloc((size_t)np + 1, sizeof *a);
  uint64_t *slots = calloc((size_t)np + 1, sizeof *slots);
  tlc_interp_alloc *allocs = calloc((size_t)np + 1, sizeof *allocs);
  int nallocs = 0;
  char err[512];
  for (int i = 0; i < np && rc == 0; i++) {
    a[i].same_as = -1;
    const char *name = tlc_interp_param_name(p, i), *elem = tlc_interp_param_elem(p, i);
    if (!elem) {
      if (tlc_interp_parse_scalar(p, i, r->args[i], &slots[i], err, sizeof err) != 0)
        rc = run_error("argument %s (%s): %s", r->args[i], name, err) + 1;
      continue;
    }
    for (int j = 0; j < i; j++)
      if (tlc_interp_param_elem(p, j) && same_file(r->args[j], r->args[i])) a[i].same_as = j;
    if (a[i].same_as >= 0) {
      int j = a[i].same_as;
      if (strcmp(tlc_interp_param_elem(p, j), elem)) {
        rc = run_error("%s is given as both *%s and *%s", r->args[i], tlc_interp_param_elem(p, j), elem) + 1;
        continue;
      }
      slots[i] = (uint64_t)(uintptr_t)a[j].npy.data;
      continue;
    }
    if (npy_read(r->args[i], &a[i].npy, err, sizeof err) != 0) {
      rc = run_error("cannot read %s (argument %s): %s", r->args[i], name, err);
      continue;
    }
    if (!dtype_fits(elem, a[i].npy.descr)) {
      char want[64];
      snprintf(want, sizeof want, "%s: *%s", name, elem);
      rc = run_error("%s holds '%s', which is not the element type of %s", r->args[i], a[i].npy.descr, want);
      continue;
    }
    a[i].before = malloc(a[i].npy.bytes + 1);
    memcpy(a[i].before, a[i].npy.data, a[i].npy.bytes);
    slots[i] = (uint64_t)(uintptr_t)a[i].npy.data;
    allocs[nallocs++] = (tlc_interp_alloc){slots[i], a[i].npy.bytes, NULL};
  }
  if (rc == 0) {
    char *fault = NULL;
    tlc_interp_status s = tlc_interp_launch(p, r->grid[0], r->grid[1], r->grid[2], slots, allocs, nallocs, &fault);
    if (s != TLC_INTERP_OK) {
      fputs(fault ? fault : "tlc: error: the run failed\n", stderr);
      fputs("tlc: note: no output was written\n", stderr);
      rc = 1;
    }
    free(fault);
  }
  for (int i = 0; i < np && rc == 0; i++) {
    if (!a[i].npy.data || !memcmp(a[i].before, a[i].npy.data, a[i].npy.bytes)) continue;
    if (npy_write(r->args[i], &a[i].npy, err, sizeof err) != 0)
      rc = run_error("cannot write %s back: %s%s", r->args[i], err, "");
  }
  for (int i = 0; i < np; i++) {
    npy_free(&a[i].npy);
    free(a[i].before);
  }
  free(a), free(slots), free(allocs);
  tlc_interp_program_free(p);
  return rc;
}
