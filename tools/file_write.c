/* file_write.c — writing an output file without losing what was there.
 *
 * Owns file_write: the one way tlc's tools put a file where the user asked
 * (`tlc compile -o`, `tlc run`'s .npy results).  A regular file, or a new
 * one, is written to a temporary file beside it and renamed over it, so a
 * failed write never leaves a truncated file where a good one was; the
 * replaced file's permission bits are kept (a new file gets 0666 less the
 * umask, as fopen gives).  A symbolic link is followed: its target is
 * replaced and the link stays.  Anything else that exists (/dev/null, a
 * FIFO, a terminal) is opened and written in place: renaming over it would
 * replace the node (run as root, /dev/null would become a regular file). */
#include "tools/file_write.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_all(int fd, const void *const *parts, const size_t *lens, int n) {
  for (int i = 0; i < n; i++) {
    const char *p = parts[i];
    for (size_t left = lens[i]; left > 0;) {
      ssize_t w = write(fd, p, left);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return w < 0 ? errno : EIO;
      p += w;
      left -= (size_t)w;
    }
  }
  return 0;
}

int file_write(const char *path, const void *const *parts, const size_t *lens, int n) {
  /* a link's target is what gets replaced (a dangling link: written through) */
  char resolved[PATH_MAX];
  struct stat st;
  const char *target = path;
  if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && realpath(path, resolved)) target = resolved;
  bool exists = stat(target, &st) == 0;
  if ((exists && !S_ISREG(st.st_mode)) || (!exists && lstat(target, &st) == 0)) {
    int fd = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) return errno;
    int e = write_all(fd, parts, lens, n);
    if (close(fd) != 0 && !e) e = errno;
    return e;
  }
  static atomic_uint counter;
  size_t tl = strlen(target) + 48;
  char *tmp = malloc(tl);
  if (!tmp) return ENOMEM;
  int fd = -1;
  for (int tries = 0; fd < 0 && tries < 100; tries++) {
    snprintf(tmp, tl, "%s.tmp%ld.%u", target, (long)getpid(), atomic_fetch_add(&counter, 1));
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    int e = errno;
    free(tmp);
    return e;
  }
  int e = write_all(fd, parts, lens, n);
  if (!e && exists && fchmod(fd, st.st_mode & 07777) != 0) e = errno;
  if (close(fd) != 0 && !e) e = errno;
  if (!e && rename(tmp, target) != 0) e = errno;
  if (e) unlink(tmp);
  free(tmp);
  return e;
}
