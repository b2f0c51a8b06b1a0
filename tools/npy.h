/* npy.h — NumPy's .npy files (format versions 1.0, 2.0 and 3.0), read and
 * written back, for `tlc run`.  Little-endian, C order only; the header
 * is kept verbatim so a file written back differs only in its data. */
#ifndef TLC_TOOLS_NPY_H
#define TLC_TOOLS_NPY_H

#include <stddef.h>
#include <stdint.h>

typedef struct Npy {
  char *header;        /* the bytes before the data (magic, version, length, dict), verbatim */
  size_t header_len;
  char descr[16];      /* "<f4", "|u1", "|b1" */
  int ndim;
  int64_t shape[32];
  size_t count;        /* elements */
  size_t itemsize;
  void *data;          /* count * itemsize bytes, 256-byte aligned (a GPU allocation's alignment) */
  size_t bytes;
} Npy;

/* Read `path` into *out; 0, or -1 with the reason in err ("not a .npy
 * file", "big-endian data (<f4 expected)", ...). */
int npy_read(const char *path, Npy *out, char *err, size_t errlen);
/* Write n's header and data to `path` through a temporary file in the
 * same folder and a rename, so the old file stays whole if anything fails. */
int npy_write(const char *path, const Npy *n, char *err, size_t errlen);
void npy_free(Npy *n);

#endif
