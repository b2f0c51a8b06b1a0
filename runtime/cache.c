/* cache.c — the compile caches: the in-memory key -> kernel table and the
 * on-disk entry format (layout in cache.h).
 *
 * Owns hashing, the cache folder's location, encoding and checking entries,
 * and atomic file writes (also used for the PTX repro files kernel.c
 * leaves).  It does not compile or load anything and knows nothing of the
 * driver; jit.c decides when to look and when to write.  Every read is
 * checked field by field: a file that is not exactly a well-formed entry for
 * the key asked for is a miss, never an error and never trusted. */
#include "runtime/cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* xxHash (Debian's libxxhash-dev), header-only: nothing to link. */
#define XXH_INLINE_ALL
#include <xxhash.h>

/* ---- hashing -------------------------------------------------------------------- */

uint64_t rt_hash64(const void *data, size_t len, uint64_t seed) {
  return XXH3_64bits_withSeed(data, len, seed);
}

RtKey rt_hash128(const void *data, size_t len) {
  XXH128_hash_t h = XXH3_128bits(data, len);
  return (RtKey){h.low64, h.high64};
}

void rt_key_hex(RtKey key, char out[33]) {
  snprintf(out, 33, "%016llx%016llx", (unsigned long long)key.hi, (unsigned long long)key.lo);
}

static int rt_key_free(RtKey k) { return !k.lo && !k.hi; }

RtKey rt_cache_key(const char *request) {
  RtKey k = rt_hash128(request, strlen(request));
  if (rt_key_free(k)) k.lo = 1; /* all zero marks a free slot in the table */
  return k;
}

/* ---- location --------------------------------------------------------------------- */

char *rt_cache_dir_from_env(void) {
  const char *env = getenv("TLC_CACHE_DIR");
  if (env && *env) {
    if (!strcmp(env, "off") || !strcmp(env, "OFF") || !strcmp(env, "0")) return NULL;
    return rt_strdup(env);
  }
  const char *home = getenv("HOME");
  if (!home || !*home) return NULL;
  size_t n = strlen(home) + sizeof "/.cache/tlc";
  char *dir = malloc(n);
  if (dir) snprintf(dir, n, "%s/.cache/tlc", home);
  return dir;
}

void rt_cache_init(RtCache *c) {
  memset(c, 0, sizeof *c);
  c->dir = rt_cache_dir_from_env();
}

void rt_cache_free(RtCache *c) {
  free(c->dir);
  free(c->keys);
  free(c->vals);
  memset(c, 0, sizeof *c);
}

/* ---- in-memory table ------------------------------------------------------------- */

tlc_kernel *rt_cache_get(const RtCache *c, RtKey key) {
  if (!c->cap || rt_key_free(key)) return NULL;
  for (size_t i = key.lo & (c->cap - 1);; i = (i + 1) & (c->cap - 1)) {
    if (rt_key_eq(c->keys[i], key)) return c->vals[i];
    if (rt_key_free(c->keys[i])) return NULL;
  }
}

static void rt_cache_insert_slot(RtKey *keys, tlc_kernel **vals, size_t cap, RtKey key, tlc_kernel *k) {
  size_t i = key.lo & (cap - 1);
  while (!rt_key_free(keys[i]) && !rt_key_eq(keys[i], key)) i = (i + 1) & (cap - 1);
  keys[i] = key;
  vals[i] = k;
}

int rt_cache_put(RtCache *c, RtKey key, tlc_kernel *k) {
  if (rt_key_free(key)) return -1;
  if ((c->count + 1) * 2 > c->cap) { /* keep the load under one half */
    size_t cap = c->cap ? c->cap * 2 : 16;
    RtKey *keys = calloc(cap, sizeof *keys);
    tlc_kernel **vals = calloc(cap, sizeof *vals);
    if (!keys || !vals) {
      free(keys);
      free(vals);
      return -1;
    }
    for (size_t i = 0; i < c->cap; i++)
      if (!rt_key_free(c->keys[i])) rt_cache_insert_slot(keys, vals, cap, c->keys[i], c->vals[i]);
    free(c->keys);
    free(c->vals);
    c->keys = keys;
    c->vals = vals;
    c->cap = cap;
  }
  if (!rt_cache_get(c, key)) c->count++;
  rt_cache_insert_slot(c->keys, c->vals, c->cap, key, k);
  return 0;
}

/* ---- encoding --------------------------------------------------------------------- */

typedef struct RtBuf {
  unsigned char *data;
  size_t len, cap;
  int failed;              /* out of memory */
} RtBuf;

static void rt_buf_put(RtBuf *b, const void *p, size_t n) {
  if (b->failed) return;
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n) cap *= 2;
    unsigned char *d = realloc(b->data, cap);
    if (!d) {
      b->failed = 1;
      return;
    }
    b->data = d;
    b->cap = cap;
  }
  memcpy(b->data + b->len, p, n);
  b->len += n;
}

static void rt_buf_u32(RtBuf *b, uint32_t v) {
  unsigned char e[4];
  for (int i = 0; i < 4; i++) e[i] = (unsigned char)(v >> (8 * i));
  rt_buf_put(b, e, sizeof e);
}

static void rt_buf_u64(RtBuf *b, uint64_t v) {
  unsigned char e[8];
  for (int i = 0; i < 8; i++) e[i] = (unsigned char)(v >> (8 * i));
  rt_buf_put(b, e, sizeof e);
}

static void rt_buf_str(RtBuf *b, const char *s) {
  size_t n = strlen(s);
  rt_buf_u32(b, (uint32_t)n);
  rt_buf_put(b, s, n);
}

static void rt_put_u64_at(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

int rt_cache_encode(RtKey key, const char *request, const RtKernelMeta *m, unsigned char **out,
                    size_t *len) {
  if (strlen(request) > RT_CACHE_MAX_REQUEST) return -1;
  RtBuf b = {0};
  rt_buf_put(&b, RT_CACHE_MAGIC, 8);
  rt_buf_u32(&b, RT_CACHE_VERSION);
  rt_buf_u32(&b, RT_CACHE_HEADER_SIZE);
  rt_buf_u64(&b, key.lo);
  rt_buf_u64(&b, key.hi);
  rt_buf_u64(&b, 0); /* payload length and checksum, patched below */
  rt_buf_u64(&b, 0);
  rt_buf_str(&b, request);
  rt_buf_u32(&b, (uint32_t)m->num_warps);
  rt_buf_u32(&b, (uint32_t)m->shared_bytes);
  rt_buf_u32(&b, (uint32_t)m->nparams);
  rt_buf_str(&b, m->symbol);
  for (int i = 0; i < m->nparams; i++) {
    rt_buf_u32(&b, (uint32_t)m->params[i].kind);
    rt_buf_str(&b, m->params[i].name);
  }
  rt_buf_u32(&b, (uint32_t)m->ntma);
  for (int i = 0; i < m->ntma; i++) {
    const tlc_tma_recipe *t = &m->tma[i];
    int32_t f[5] = {t->base_param, t->data_type, t->elem_bytes, t->rank, t->swizzle};
    for (int k = 0; k < 5; k++) rt_buf_u32(&b, (uint32_t)f[k]);
    for (int k = 0; k < TLC_TMA_MAX_RANK; k++) {
      rt_buf_u32(&b, (uint32_t)t->dims[k].param), rt_buf_u64(&b, (uint64_t)t->dims[k].value);
      rt_buf_u32(&b, (uint32_t)t->strides[k].param), rt_buf_u64(&b, (uint64_t)t->strides[k].value);
      rt_buf_u32(&b, (uint32_t)t->box[k]);
    }
  }
  size_t ptx_len = strlen(m->ptx);
  rt_buf_u64(&b, ptx_len);
  rt_buf_put(&b, m->ptx, ptx_len);
  bool cubin = m->cubin && m->cubin_len;
  rt_buf_u32(&b, cubin ? (uint32_t)m->cubin_capability : 0u);
  rt_buf_u32(&b, cubin ? (uint32_t)m->cubin_driver : 0u);
  rt_buf_u64(&b, cubin ? m->cubin_len : 0u);
  if (cubin) rt_buf_put(&b, m->cubin, m->cubin_len);
  if (b.failed) {
    free(b.data);
    return -1;
  }
  size_t payload = b.len - RT_CACHE_HEADER_SIZE;
  rt_put_u64_at(b.data + 32, payload);
  rt_put_u64_at(b.data + 40, rt_hash64(b.data + RT_CACHE_HEADER_SIZE, payload, 0));
  *out = b.data;
  *len = b.len;
  return 0;
}

/* ---- decoding ---------------------------------------------------------------------- */

typedef struct RtReader {
  const unsigned char *p;
  size_t left;
  int bad;                 /* ran past the end */
} RtReader;

static uint64_t rt_read_le(RtReader *r, int bytes) {
  if (r->bad || r->left < (size_t)bytes) {
    r->bad = 1;
    return 0;
  }
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++) v |= (uint64_t)r->p[i] << (8 * i);
  r->p += bytes;
  r->left -= (size_t)bytes;
  return v;
}

/* A length-prefixed string of at most `max` bytes, with no NUL inside. */
static char *rt_read_str(RtReader *r, uint64_t len, size_t max) {
  if (r->bad || len > r->left || len > max || memchr(r->p, 0, (size_t)len)) {
    r->bad = 1;
    return NULL;
  }
  char *s = malloc((size_t)len + 1);
  if (!s) {
    r->bad = 1;
    return NULL;
  }
  memcpy(s, r->p, (size_t)len);
  s[len] = 0;
  r->p += len;
  r->left -= (size_t)len;
  return s;
}

/* The tensor-map recipes; each field is checked against what launch.c can
 * use (parameter indices within the kernel's, ranks 1..5, boxes 1..256). */
static int rt_read_tma(RtReader *r, RtKernelMeta *m) {
  uint64_t n = rt_read_le(r, 4);
  if (r->bad || n > 64) return -1;
  if (!n) return 0;
  m->tma = calloc((size_t)n, sizeof *m->tma);
  if (!m->tma) return -1;
  m->ntma = (int)n;
  for (uint64_t i = 0; i < n; i++) {
    tlc_tma_recipe *t = &m->tma[i];
    t->base_param = (int32_t)rt_read_le(r, 4), t->data_type = (int32_t)rt_read_le(r, 4);
    t->elem_bytes = (int32_t)rt_read_le(r, 4), t->rank = (int32_t)rt_read_le(r, 4);
    t->swizzle = (int32_t)rt_read_le(r, 4);
    for (int k = 0; k < TLC_TMA_MAX_RANK; k++) {
      t->dims[k].param = (int32_t)rt_read_le(r, 4), t->dims[k].value = (int64_t)rt_read_le(r, 8);
      t->strides[k].param = (int32_t)rt_read_le(r, 4), t->strides[k].value = (int64_t)rt_read_le(r, 8);
      t->box[k] = (int32_t)rt_read_le(r, 4);
      if (t->dims[k].param >= m->nparams || t->strides[k].param >= m->nparams) return -1;
      if (k < t->rank && (t->box[k] < 1 || t->box[k] > 256)) return -1;
    }
    if (r->bad || t->base_param < 0 || t->base_param >= m->nparams || t->rank < 1 || t->rank > TLC_TMA_MAX_RANK ||
        (t->elem_bytes != 1 && t->elem_bytes != 2 && t->elem_bytes != 4 && t->elem_bytes != 8))
      return -1;
  }
  return 0;
}

static int rt_reject(RtKernelMeta *m, const char **why, const char *reason) {
  rt_meta_free(m);
  if (why) *why = reason;
  return -1;
}

int rt_cache_decode(const unsigned char *buf, size_t len, RtKey key, const char *request,
                    RtKernelMeta *m, const char **why) {
  memset(m, 0, sizeof *m);
  if (len < RT_CACHE_HEADER_SIZE) return rt_reject(m, why, "shorter than the header");
  if (memcmp(buf, RT_CACHE_MAGIC, 8)) return rt_reject(m, why, "bad magic");
  RtReader h = {buf + 8, RT_CACHE_HEADER_SIZE - 8, 0};
  uint64_t version = rt_read_le(&h, 4), hsize = rt_read_le(&h, 4);
  RtKey fkey;
  fkey.lo = rt_read_le(&h, 8), fkey.hi = rt_read_le(&h, 8);
  uint64_t plen = rt_read_le(&h, 8), sum = rt_read_le(&h, 8);
  if (version != RT_CACHE_VERSION) return rt_reject(m, why, "other format version");
  if (hsize != RT_CACHE_HEADER_SIZE) return rt_reject(m, why, "bad header size");
  if (!rt_key_eq(fkey, key)) return rt_reject(m, why, "key mismatch");
  if (plen != len - RT_CACHE_HEADER_SIZE) return rt_reject(m, why, "payload length mismatch");
  const unsigned char *payload = buf + RT_CACHE_HEADER_SIZE;
  if (rt_hash64(payload, (size_t)plen, 0) != sum) return rt_reject(m, why, "checksum mismatch");

  /* The checksum matched, but a writer with a bug is no more trusted than a
   * torn file: every field is still checked. */
  RtReader r = {payload, (size_t)plen, 0};
  uint64_t rlen = rt_read_le(&r, 4);
  /* The request this entry answers: another request's entry under this key
   * (the keys of two requests collided) is never loaded for it. */
  if (r.bad || rlen != strlen(request) || rlen > r.left || memcmp(r.p, request, (size_t)rlen))
    return rt_reject(m, why, "request mismatch");
  r.p += rlen, r.left -= (size_t)rlen;
  uint64_t warps = rt_read_le(&r, 4), shared = rt_read_le(&r, 4), np = rt_read_le(&r, 4);
  if (r.bad || warps < 1 || warps > 32 || shared > 0x7fffffff || np > 4096)
    return rt_reject(m, why, "bad launch metadata");
  m->num_warps = (int)warps;
  m->shared_bytes = (int)shared;
  m->symbol = rt_read_str(&r, rt_read_le(&r, 4), 4096);
  if (!m->symbol || !*m->symbol) return rt_reject(m, why, "bad kernel symbol");
  m->params = calloc((size_t)np + 1, sizeof *m->params);
  if (!m->params) return rt_reject(m, why, "out of memory");
  for (uint64_t i = 0; i < np; i++) {
    uint64_t kind = rt_read_le(&r, 4);
    if (r.bad || kind >= (uint64_t)TLC_PARAM__COUNT) return rt_reject(m, why, "bad parameter kind");
    m->params[i].kind = (tlc_param_kind)kind;
    m->params[i].name = rt_read_str(&r, rt_read_le(&r, 4), 4096);
    m->nparams = (int)i + 1; /* so rt_meta_free frees what was read */
    if (!m->params[i].name) return rt_reject(m, why, "bad parameter name");
  }
  if (rt_read_tma(&r, m) != 0) return rt_reject(m, why, "bad tensor-map recipe");
  m->ptx = rt_read_str(&r, rt_read_le(&r, 8), RT_CACHE_MAX_FILE);
  if (!m->ptx || !*m->ptx) return rt_reject(m, why, "bad PTX");
  /* the machine code: capability, driver version, length (0: none) and bytes */
  uint64_t cap = rt_read_le(&r, 4), drv = rt_read_le(&r, 4), clen = rt_read_le(&r, 8);
  if (r.bad || clen > r.left || (clen && (cap < 10 || cap > 1000 || !drv || drv > 0x7fffffff)) ||
      (!clen && (cap || drv)))
    return rt_reject(m, why, "bad cubin record");
  if (clen) {
    m->cubin = malloc((size_t)clen);
    if (!m->cubin) return rt_reject(m, why, "out of memory");
    memcpy(m->cubin, r.p, (size_t)clen);
    m->cubin_len = (size_t)clen;
    m->cubin_capability = (int)cap;
    m->cubin_driver = (int)drv;
    r.p += clen, r.left -= (size_t)clen;
  }
  if (r.left) return rt_reject(m, why, "trailing bytes");
  return 0;
}

/* ---- files ---------------------------------------------------------------------------- */

char *rt_cache_entry_path(const char *dir, RtKey key) {
  size_t n = strlen(dir) + 48;
  char *p = malloc(n);
  char hex[33];
  rt_key_hex(key, hex);
  if (p) snprintf(p, n, "%s/%s.tlc", dir, hex);
  return p;
}

int rt_mkdir_p(const char *dir) {
  if (!*dir) {
    errno = ENOENT;
    return -1;
  }
  char *p = rt_strdup(dir);
  if (!p) {
    errno = ENOMEM;
    return -1;
  }
  for (char *s = p + 1;; s++) {
    if (*s != '/' && *s != 0) continue;
    char c = *s;
    *s = 0;
    if (mkdir(p, 0755) != 0 && errno != EEXIST) {
      int e = errno;
      free(p);
      errno = e;
      return -1;
    }
    *s = c;
    if (!c) break;
  }
  free(p);
  struct stat st;
  if (stat(dir, &st) != 0) return -1;
  if (!S_ISDIR(st.st_mode)) {
    errno = ENOTDIR;
    return -1;
  }
  return 0;
}

int rt_write_file_atomic(const char *path, const void *data, size_t len) {
  static atomic_uint counter;
  size_t n = strlen(path) + 64;
  char *tmp = malloc(n);
  if (!tmp) {
    errno = ENOMEM;
    return -1;
  }
  /* pid + a counter: unique among this process's threads and other processes. */
  snprintf(tmp, n, "%s.tmp.%ld.%u", path, (long)getpid(), atomic_fetch_add(&counter, 1));
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    int e = errno;
    free(tmp);
    errno = e;
    return -1;
  }
  const unsigned char *p = data;
  size_t left = len;
  int rc = 0;
  while (left) {
    ssize_t w = write(fd, p, left);
    if (w < 0) {
      if (errno == EINTR) continue;
      rc = -1;
      break;
    }
    p += w;
    left -= (size_t)w;
  }
  int e = errno;
  if (close(fd) != 0 && rc == 0) {
    rc = -1;
    e = errno;
  }
  if (rc == 0 && rename(tmp, path) != 0) {
    rc = -1;
    e = errno;
  }
  if (rc != 0) unlink(tmp);
  free(tmp);
  errno = e;
  return rc;
}

int rt_cache_read(const char *dir, RtKey key, const char *request, RtKernelMeta *m, const char **why) {
  memset(m, 0, sizeof *m);
  char *path = rt_cache_entry_path(dir, key);
  if (!path) return rt_reject(m, why, "out of memory");
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  free(path);
  if (fd < 0) return rt_reject(m, why, "absent");
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
      (uint64_t)st.st_size > RT_CACHE_MAX_FILE) {
    close(fd);
    return rt_reject(m, why, "not a regular file of a sensible size");
  }
  size_t len = (size_t)st.st_size;
  unsigned char *buf = malloc(len ? len : 1);
  size_t got = 0;
  while (buf && got < len) {
    ssize_t r = read(fd, buf + got, len - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += (size_t)r;
  }
  if (buf && got == len) futimens(fd, NULL); /* a use: the size bound evicts the least recently used */
  close(fd);
  if (!buf || got != len) {
    free(buf);
    return rt_reject(m, why, "could not read the file");
  }
  int rc = rt_cache_decode(buf, len, key, request, m, why);
  free(buf);
  return rc;
}

int rt_cache_write(const char *dir, RtKey key, const char *request, const RtKernelMeta *m) {
  if (rt_mkdir_p(dir) != 0) return -1;
  unsigned char *buf;
  size_t len;
  if (rt_cache_encode(key, request, m, &buf, &len) != 0) {
    errno = ENOMEM;
    return -1;
  }
  char *path = rt_cache_entry_path(dir, key);
  int rc = -1;
  if (path) rc = rt_write_file_atomic(path, buf, len);
  else errno = ENOMEM;
  int e = errno;
  free(path);
  free(buf);
  if (rc == 0) rt_cache_tidy(dir, rt_cache_max_bytes_from_env(), time(NULL));
  errno = e;
  return rc;
}

/* ---- hygiene ------------------------------------------------------------------------------ */

uint64_t rt_cache_max_bytes_from_env(void) {
  const char *env = getenv("TLC_CACHE_MAX_BYTES");
  if (!env || !*env) return RT_CACHE_DEFAULT_MAX_BYTES;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(env, &end, 10);
  uint64_t unit = 1;
  if (*end == 'K' || *end == 'k') unit = 1ull << 10, end++;
  else if (*end == 'M' || *end == 'm') unit = 1ull << 20, end++;
  else if (*end == 'G' || *end == 'g') unit = 1ull << 30, end++;
  if (errno || end == env || *end || env[0] == '-') return RT_CACHE_DEFAULT_MAX_BYTES; /* not a size: the default */
  return (uint64_t)v * unit;
}

/* A file this cache writes: an entry (an older format's too, so that the
 * size bound evicts what is never read again), an autotune choice, or a
 * temporary file of either (NAME.tmp.PID.N, NAME.tmpPID).  Nothing else in
 * the folder is touched. */
static int rt_cache_file_kind(const char *name) {
  const char *tmp = strstr(name, ".tmp");
  size_t hex = strspn(name, "0123456789abcdef"); /* 32 digits; 16: an entry of format 3 or older */
  bool ours = (strlen(name) > 4 && !strncmp(name, "tune-", 5)) || hex == 32 || hex == 16;
  if (!ours) return 0;
  if (tmp) return 2;
  size_t n = strlen(name);
  if ((n > 4 && !strcmp(name + n - 4, ".tlc")) || (n > 5 && !strcmp(name + n - 5, ".json"))) return 1;
  return 0;
}

typedef struct RtCacheFile {
  char *name;
  uint64_t bytes;
  struct timespec used;
} RtCacheFile;

static int rt_cmp_used(const void *a, const void *b) {
  const RtCacheFile *x = a, *y = b;
  if (x->used.tv_sec != y->used.tv_sec) return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
  return x->used.tv_nsec < y->used.tv_nsec ? -1 : x->used.tv_nsec > y->used.tv_nsec;
}

int rt_cache_tidy(const char *dir, uint64_t max_bytes, time_t now) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int dfd = dirfd(d);
  RtCacheFile *files = NULL;
  size_t n = 0, cap = 0;
  uint64_t total = 0;
  int removed = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    int kind = rt_cache_file_kind(e->d_name);
    struct stat st;
    if (!kind || fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
    if (kind == 2) { /* a writer that died between open and rename left it */
      if (now - st.st_mtime > RT_CACHE_STALE_TMP_SECONDS && unlinkat(dfd, e->d_name, 0) == 0) removed++;
      continue;
    }
    if (n == cap) {
      RtCacheFile *f = realloc(files, (cap = cap ? 2 * cap : 64) * sizeof *files);
      if (!f) break;
      files = f;
    }
    files[n] = (RtCacheFile){rt_strdup(e->d_name), (uint64_t)st.st_size, st.st_mtim};
    if (!files[n].name) break;
    total += files[n++].bytes;
  }
  if (max_bytes && total > max_bytes) { /* least recently used first (reads touch the time) */
    qsort(files, n, sizeof *files, rt_cmp_used);
    for (size_t i = 0; i < n && total > max_bytes; i++)
      if (unlinkat(dfd, files[i].name, 0) == 0) total -= files[i].bytes, removed++;
  }
  for (size_t i = 0; i < n; i++) free(files[i].name);
  free(files);
  closedir(d);
  return removed;
}
