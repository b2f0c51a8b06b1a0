/* npy.c — reading and writing .npy files (npy.h).
 *
 * The format: the magic "\x93NUMPY", a major and minor version byte, the
 * header's length (2 bytes little-endian for version 1, 4 for 2 and 3),
 * then a Python dict literal {'descr': '<f4', 'fortran_order': False,
 * 'shape': (3, 4), } padded with spaces and a newline, then the data. */
#include "tools/npy.h"
#include "tools/file_write.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void npy_free(Npy *n) {
  free(n->header);
  free(n->data);
  memset(n, 0, sizeof *n);
}

/* The text after 'key': in the dict, or NULL. */
static const char *dict_value(const char *dict, const char *key) {
  char pat[32];
  snprintf(pat, sizeof pat, "'%s'", key);
  const char *p = strstr(dict, pat);
  if (!p) {
    snprintf(pat, sizeof pat, "\"%s\"", key);
    p = strstr(dict, pat);
  }
  if (!p) return NULL;
  p += strlen(pat);
  while (*p == ' ') p++;
  if (*p != ':') return NULL;
  p++;
  while (*p == ' ') p++;
  return p;
}

static int fail(char *err, size_t len, const char *fmt, const char *a) {
  snprintf(err, len, fmt, a);
  return -1;
}

static int parse_dict(const char *dict, Npy *n, char *err, size_t len) {
  const char *d = dict_value(dict, "descr");
  if (!d || (*d != '\'' && *d != '"')) return fail(err, len, "%s", "the header has no 'descr'");
  char q = *d++;
  size_t k = 0;
  while (*d && *d != q && k + 1 < sizeof n->descr) n->descr[k++] = *d++;
  n->descr[k] = 0;
  if (*d != q) return fail(err, len, "%s", "a structured dtype (only plain numbers are supported)");
  if (n->descr[0] == '>' && strcmp(n->descr + 1, "u1") && strcmp(n->descr + 1, "i1") && strcmp(n->descr + 1, "b1"))
    return fail(err, len, "big-endian data ('%s'; save it little-endian)", n->descr);
  if (!strchr("<|=>", n->descr[0]) || !n->descr[1]) return fail(err, len, "an unsupported dtype '%s'", n->descr);
  n->itemsize = (size_t)strtoul(n->descr + 2, NULL, 10);
  if (n->itemsize == 0 || n->itemsize > 16) return fail(err, len, "an unsupported dtype '%s'", n->descr);
  const char *f = dict_value(dict, "fortran_order");
  if (!f) return fail(err, len, "%s", "the header has no 'fortran_order'");
  if (!strncmp(f, "True", 4)) return fail(err, len, "%s", "Fortran order (save it in C order: np.ascontiguousarray)");
  const char *s = dict_value(dict, "shape");
  if (!s || *s != '(') return fail(err, len, "%s", "the header has no 'shape'");
  s++;
  n->ndim = 0;
  n->count = 1;
  while (*s && *s != ')') {
    while (*s == ' ' || *s == ',') s++;
    if (*s == ')') break;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || v < 0 || n->ndim >= 32) return fail(err, len, "%s", "a malformed 'shape'");
    n->shape[n->ndim++] = v;
    n->count *= (size_t)v;
    s = end;
  }
  return 0;
}

int npy_read(const char *path, Npy *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f) return fail(err, errlen, "%s", strerror(errno));
  unsigned char pre[12];
  size_t got = fread(pre, 1, 10, f);
  int rc = -1;
  if (got < 10 || memcmp(pre, "\x93NUMPY", 6)) {
    fail(err, errlen, "%s", "not a .npy file (no \\x93NUMPY magic)");
  } else if (pre[6] < 1 || pre[6] > 3) {
    fail(err, errlen, "%s", "an unknown .npy version");
  } else {
    size_t hl, pl = pre[6] == 1 ? 10 : 12;
    if (pre[6] != 1 && fread(pre + 10, 1, 2, f) != 2) hl = 0;
    hl = pre[6] == 1 ? (size_t)pre[8] | (size_t)pre[9] << 8
                     : (size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    out->header_len = pl + hl;
    out->header = malloc(out->header_len + 1);
    if (!out->header || hl > (1u << 24)) {
      fail(err, errlen, "%s", "the header is too large");
    } else {
      memcpy(out->header, pre, pl);
      if (fread(out->header + pl, 1, hl, f) != hl) {
        fail(err, errlen, "%s", "the file ends inside its header");
      } else {
        out->header[out->header_len] = 0;
        if (parse_dict(out->header + pl, out, err, errlen) == 0) {
          out->bytes = out->count * out->itemsize;
          out->data = aligned_alloc(256, (out->bytes + 255) / 256 * 256 + 256);
          if (!out->data) fail(err, errlen, "%s", "out of memory");
          else if (fread(out->data, 1, out->bytes, f) != out->bytes) fail(err, errlen, "%s", "the file ends inside its data");
          else rc = 0;
        }
      }
    }
  }
  fclose(f);
  if (rc) npy_free(out);
  return rc;
}

int npy_write(const char *path, const Npy *n, char *err, size_t errlen) {
  const void *parts[2] = {n->header, n->data};
  size_t lens[2] = {n->header_len, n->bytes};
  int e = file_write(path, parts, lens, 2);
  return e ? fail(err, errlen, "%s", strerror(e)) : 0;
}
