/* file_write.c — writing an output file without losing what was there.
 *
 * Owns file_write: the one way tlc's tools put a file where the user asked
 * (`tlc compile -o`, `tlc run`'s .npy results).  A regular file, or a new
 * one, is written to a temporary file beside it and renamed over it, so a
 * failed write never leaves a truncated file where a good one was; the
 * replaced file's permission bits are kept (a new file gets 0666 less the
 * umask, as fopen gives).  A symbolic link is followed hop by hop: a
 * regular file it ends at is replaced that way and the link stays.  Anything
 * else is opened and written in place: what exists and is not a regular file
 * (/dev/null, a FIFO, a terminal: renaming over it would replace the node,
 * and as root /dev/null would become a regular file), and a link that goes
 * through /proc or /dev or cannot be resolved.  /dev/stdout, /dev/stderr,
 * /dev/fd/N and /proc/self/fd/N are written through the descriptor itself:
 * `-o /dev/stdout >> log` appends to the log (a rename would replace the
 * file, a new open with O_TRUNC would empty it). */
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

/* The descriptor `path` names, or -1: /dev/stdout, /dev/stderr, /dev/fd/N,
 * /proc/self/fd/N.  Written through the descriptor itself, such a path
 * keeps what the shell opened it as (`>> log` appends); opening it again
 * with O_TRUNC would empty the file behind it. */
static int named_fd(const char *path) {
  if (!strcmp(path, "/dev/stdout")) return 1;
  if (!strcmp(path, "/dev/stderr")) return 2;
  const char *num = !strncmp(path, "/dev/fd/", 8) ? path + 8 : !strncmp(path, "/proc/self/fd/", 14) ? path + 14 : NULL;
  if (!num || !*num) return -1;
  char *end;
  long fd = strtol(num, &end, 10);
  return *end || fd < 0 || fd > 1 << 20 ? -1 : (int)fd;
}

static int write_in_place(const char *path, const void *const *parts, const size_t *lens, int n) {
  int nfd = named_fd(path);
  if (nfd >= 0) return write_all(nfd, parts, lens, n);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return errno;
  int e = write_all(fd, parts, lens, n);
  if (close(fd) != 0 && !e) e = errno;
  return e;
}

/* Where a link at `path` ends: 0 and the regular path in `out`; 1 and, in
 * `out`, the descriptor's name when a hop names one (/dev/stdout, ...); -1
 * when it goes through /proc or /dev otherwise, dangles, loops or is too
 * long (then it is written in place, through the link). */
static int link_target(const char *path, char *out, size_t outsz) {
  char cur[PATH_MAX], buf[PATH_MAX];
  if (strlen(path) >= sizeof cur) return -1;
  strcpy(cur, path);
  for (int hop = 0; hop < 40; hop++) {
    struct stat st;
    if (!strncmp(cur, "/proc/", 6) || !strncmp(cur, "/dev/", 5) || lstat(cur, &st) != 0) return -1;
    if (!S_ISLNK(st.st_mode)) {
      if (strlen(cur) >= outsz) return -1;
      strcpy(out, cur);
      return 0;
    }
    ssize_t n = readlink(cur, buf, sizeof buf - 1);
    if (n <= 0 || (size_t)n >= sizeof buf - 1) return -1;
    buf[n] = 0;
    if (named_fd(buf) >= 0 && strlen(buf) < outsz) {
      strcpy(out, buf);
      return 1;
    }
    if (buf[0] == '/') {
      if (!strncmp(buf, "/proc/", 6) || !strncmp(buf, "/dev/", 5)) return -1;
      strcpy(cur, buf);
    } else { /* relative to the link's folder */
      char *slash = strrchr(cur, '/');
      size_t dir = slash ? (size_t)(slash - cur) + 1 : 0;
      if (dir + (size_t)n >= sizeof cur) return -1;
      memcpy(cur + dir, buf, (size_t)n + 1);
    }
  }
  return -1;
}

int file_write(const char *path, const void *const *parts, const size_t *lens, int n) {
  char resolved[PATH_MAX];
  struct stat st;
  const char *target = path;
  if (named_fd(path) >= 0) return write_in_place(path, parts, lens, n);
  if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
    int how = link_target(path, resolved, sizeof resolved);
    if (how != 0) return write_in_place(how > 0 ? resolved : path, parts, lens, n);
    target = resolved;
  }
  bool exists = stat(target, &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) return write_in_place(target, parts, lens, n);
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
