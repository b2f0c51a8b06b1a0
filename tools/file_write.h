/* file_write.h — writing an output file without losing what was there
 * (file_write.c). */
#ifndef TLC_TOOLS_FILE_WRITE_H
#define TLC_TOOLS_FILE_WRITE_H

#include <stddef.h>

/* Write the n parts (lens[i] bytes at parts[i]) to `path`: a regular file or
 * a new one through a temporary file renamed over it (permission bits kept),
 * a symbolic link's target likewise (the link stays), anything else (a
 * device, a FIFO) in place.  Returns 0 or an errno value. */
int file_write(const char *path, const void *const *parts, const size_t *lens, int n);

#endif
