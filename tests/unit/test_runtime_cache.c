/* test_runtime_cache.c — the compile cache's internals (runtime/cache.h):
 * entries round-trip through memory and disk; every single-byte change,
 * every truncation, a trailing byte, a key mismatch, another request's
 * entry under this request's key (a forced key collision) and
 * well-checksummed nonsense are all rejected; a rejected entry is rewritten; writes leave no
 * temporary files; the size bound evicts the least recently used files and
 * stale temporary files go (rt_cache_tidy); the folder comes from the
 * environment; the in-memory table survives growth. */
#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runtime/cache.h"
#include "tests/unit/test_util.h"

static const char *kPtx =
    ".version 7.8\n.target sm_80\n.address_size 64\n\n"
    ".visible .entry add_kernel(.param .u64 p0, .param .u64 p1, .param .u32 p2)\n{\n  ret;\n}\n";

static const char *kRequest = "tlc test\nkernel 10:add_kernel\nsignature 3:i32\n";
static const char *kOtherRequest = "tlc test\nkernel 10:mul_kernel\nsignature 3:i32\n";

static RtKey key_of(uint64_t lo) { return (RtKey){lo, ~lo}; }

static RtKernelMeta make_meta(void) {
  RtKernelMeta m = {0};
  m.symbol = rt_strdup("add_kernel");
  m.num_warps = 4;
  m.shared_bytes = 65536;
  m.nparams = 3;
  m.params = calloc(4, sizeof *m.params);
  m.params[0] = (RtParam){rt_strdup("x_ptr"), TLC_PARAM_PTR};
  m.params[1] = (RtParam){rt_strdup("out_ptr"), TLC_PARAM_PTR};
  m.params[2] = (RtParam){rt_strdup("n"), TLC_PARAM_I32};
  m.ptx = rt_strdup(kPtx);
  return m;
}

static int meta_equal(const RtKernelMeta *a, const RtKernelMeta *b) {
  if (strcmp(a->symbol, b->symbol) || a->num_warps != b->num_warps ||
      a->shared_bytes != b->shared_bytes || a->nparams != b->nparams || strcmp(a->ptx, b->ptx))
    return 0;
  for (int i = 0; i < a->nparams; i++)
    if (strcmp(a->params[i].name, b->params[i].name) || a->params[i].kind != b->params[i].kind)
      return 0;
  return 1;
}

static int count_files(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  if (!d) return -1;
  for (struct dirent *e; (e = readdir(d));)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
  closedir(d);
  return n;
}

static void write_bytes(const char *path, const unsigned char *b, size_t n) {
  FILE *f = fopen(path, "wb");
  CHECK(f != NULL);
  if (!f) return;
  CHECK(fwrite(b, 1, n, f) == n);
  fclose(f);
}

static void test_hash_and_key(void) {
  CHECK(rt_hash64("abc", 3, 0) == rt_hash64("abc", 3, 0));
  CHECK(rt_hash64("abc", 3, 0) != rt_hash64("abd", 3, 0));
  CHECK(rt_hash64("abc", 3, 0) != rt_hash64("abc", 3, 1));
  CHECK(rt_key_eq(rt_cache_key(kRequest), rt_cache_key(kRequest)));
  CHECK(!rt_key_eq(rt_cache_key(kRequest), rt_cache_key(kOtherRequest)));
  RtKey k = rt_cache_key("");
  CHECK(k.lo || k.hi);
  /* XXH3-128 of "" (xxHash's published value), as 32 hex digits high half first */
  char hex[33];
  rt_key_hex(rt_hash128("", 0), hex);
  CHECK(!strcmp(hex, "99aa06d3014798d86001c324468d497f"), "%s", hex);
  rt_key_hex(key_of(0xfeedfacecafebeefull), hex);
  CHECK(!strcmp(hex, "0112053135014110feedfacecafebeef"), "%s", hex);
}

static void test_encode_decode(void) {
  RtKernelMeta m = make_meta(), back;
  unsigned char *buf;
  size_t len;
  const RtKey key = key_of(0x0123456789abcdefull);
  CHECK(rt_cache_encode(key, kRequest, &m, &buf, &len) == 0);
  CHECK(len > RT_CACHE_HEADER_SIZE);
  CHECK(!memcmp(buf, RT_CACHE_MAGIC, 8));
  const char *why = NULL;
  CHECK(rt_cache_decode(buf, len, key, kRequest, &back, &why) == 0);
  CHECK(meta_equal(&m, &back));
  rt_meta_free(&back);

  /* Every single-byte change anywhere in the file is caught. */
  int accepted = 0;
  for (size_t i = 0; i < len; i++) {
    for (int bit = 0; bit < 8; bit += 7) {
      buf[i] ^= (unsigned char)(1u << bit);
      if (rt_cache_decode(buf, len, key, kRequest, &back, &why) == 0) {
        accepted++;
        rt_meta_free(&back);
      }
      buf[i] ^= (unsigned char)(1u << bit);
    }
  }
  CHECK(accepted == 0);

  /* Every truncation, and a trailing byte. */
  for (size_t n = 0; n < len; n++) {
    if (rt_cache_decode(buf, n, key, kRequest, &back, &why) == 0) {
      accepted++;
      rt_meta_free(&back);
    }
  }
  CHECK(accepted == 0);
  unsigned char *longer = malloc(len + 1);
  memcpy(longer, buf, len);
  longer[len] = 0;
  CHECK(rt_cache_decode(longer, len + 1, key, kRequest, &back, &why) != 0);
  free(longer);

  /* Another key's entry (a colliding file name can't pass for this one). */
  CHECK(rt_cache_decode(buf, len, key_of(0x0123456789abcdeeull), kRequest, &back, &why) != 0);
  CHECK(why && !strcmp(why, "key mismatch"));
  /* The right key but another request: a collision of two requests' keys. */
  CHECK(rt_cache_decode(buf, len, key, kOtherRequest, &back, &why) != 0);
  CHECK(why && !strcmp(why, "request mismatch"));
  CHECK(rt_cache_decode(buf, len, key, "", &back, &why) != 0); /* a prefix of it is not it either */
  CHECK(why && !strcmp(why, "request mismatch"));

  /* Nonsense with a valid checksum: parameter kind out of range, too many warps. */
  unsigned char *bad = malloc(len);
  memcpy(bad, buf, len);
  size_t req_len = 4 + strlen(kRequest);
  size_t kind_at = RT_CACHE_HEADER_SIZE + req_len + 12 + 4 + strlen("add_kernel"); /* first param's kind */
  bad[kind_at] = 200;
  uint64_t sum = rt_hash64(bad + RT_CACHE_HEADER_SIZE, len - RT_CACHE_HEADER_SIZE, 0);
  for (int i = 0; i < 8; i++) bad[40 + i] = (unsigned char)(sum >> (8 * i));
  CHECK(rt_cache_decode(bad, len, key, kRequest, &back, &why) != 0);
  CHECK(why && !strcmp(why, "bad parameter kind"));
  memcpy(bad, buf, len);
  bad[RT_CACHE_HEADER_SIZE + req_len] = 64; /* num_warps */
  sum = rt_hash64(bad + RT_CACHE_HEADER_SIZE, len - RT_CACHE_HEADER_SIZE, 0);
  for (int i = 0; i < 8; i++) bad[40 + i] = (unsigned char)(sum >> (8 * i));
  CHECK(rt_cache_decode(bad, len, key, kRequest, &back, &why) != 0);
  CHECK(why && !strcmp(why, "bad launch metadata"));
  free(bad);

  /* The machine code travels with the entry: bytes, capability and driver;
   * a cubin record that does not add up is rejected (valid checksum). */
  static const unsigned char cubin[] = {0x7f, 'E', 'L', 'F', 2, 1, 0, 0x33, 0, 0xff};
  m.cubin = malloc(sizeof cubin);
  memcpy(m.cubin, cubin, sizeof cubin);
  m.cubin_len = sizeof cubin, m.cubin_capability = 90, m.cubin_driver = 13000;
  unsigned char *cb;
  size_t cblen;
  CHECK(rt_cache_encode(key, kRequest, &m, &cb, &cblen) == 0);
  CHECK(cblen == len + sizeof cubin, "%zu vs %zu", cblen, len);
  CHECK(rt_cache_decode(cb, cblen, key, kRequest, &back, &why) == 0);
  CHECK(meta_equal(&m, &back) && back.cubin_len == sizeof cubin && back.cubin &&
        !memcmp(back.cubin, cubin, sizeof cubin) && back.cubin_capability == 90 && back.cubin_driver == 13000);
  rt_meta_free(&back);
  size_t rec = cblen - sizeof cubin - 16; /* u32 capability, u32 driver, u64 length */
  const struct { size_t at; unsigned char v[2]; int n; } nonsense[] = {
      {rec, {0}, 1},                     /* a cubin for capability 0 */
      {rec + 4, {0, 0}, 2},              /* made by driver version 0 */
      {rec + 8, {sizeof cubin + 1}, 1},  /* longer than the rest of the file */
  };
  for (size_t t = 0; t < sizeof nonsense / sizeof *nonsense; t++) {
    unsigned char *b = malloc(cblen);
    memcpy(b, cb, cblen);
    for (int i = 0; i < nonsense[t].n; i++) b[nonsense[t].at + (size_t)i] = nonsense[t].v[i];
    uint64_t s2 = rt_hash64(b + RT_CACHE_HEADER_SIZE, cblen - RT_CACHE_HEADER_SIZE, 0);
    for (int i = 0; i < 8; i++) b[40 + i] = (unsigned char)(s2 >> (8 * i));
    CHECK(rt_cache_decode(b, cblen, key, kRequest, &back, &why) != 0, "nonsense %zu accepted", t);
    CHECK(why && !strcmp(why, "bad cubin record"), "nonsense %zu: %s", t, why ? why : "?");
    free(b);
  }
  free(cb);
  free(m.cubin);
  m.cubin = NULL, m.cubin_len = 0;

  /* Another format version is a miss, not an error. */
  buf[8] ^= 0x02;
  CHECK(rt_cache_decode(buf, len, key, kRequest, &back, &why) != 0);
  CHECK(why && !strcmp(why, "other format version"));
  free(buf);
  rt_meta_free(&m);
}

static void test_disk(const char *root) {
  char dir[512];
  snprintf(dir, sizeof dir, "%s/nested/cache", root); /* created on first write */
  RtKernelMeta m = make_meta(), back;
  const RtKey key = key_of(0xfeedfacecafebeefull);
  const char *why = NULL;

  CHECK(rt_cache_read(dir, key, kRequest, &back, &why) != 0); /* absent */
  CHECK(rt_cache_write(dir, key, kRequest, &m) == 0);
  CHECK(count_files(dir) == 1); /* no temporary left behind */
  char *path = rt_cache_entry_path(dir, key);
  char expect[600];
  snprintf(expect, sizeof expect, "%s/0112053135014110feedfacecafebeef.tlc", dir);
  CHECK(!strcmp(path, expect));
  CHECK(rt_cache_read(dir, key, kRequest, &back, &why) == 0);
  CHECK(meta_equal(&m, &back));
  rt_meta_free(&back);

  /* The same file asked for under another key. */
  CHECK(rt_cache_read(dir, key_of(0xfeedfacecafebeeeull), kRequest, &back, &why) != 0);

  /* A forced collision: another request's entry written under this key is
   * never read for this request, and the rewrite answers this one again. */
  CHECK(rt_cache_write(dir, key, kOtherRequest, &m) == 0);
  CHECK(rt_cache_read(dir, key, kRequest, &back, &why) != 0);
  CHECK(why && !strcmp(why, "request mismatch"));
  CHECK(rt_cache_read(dir, key, kOtherRequest, &back, &why) == 0);
  rt_meta_free(&back);
  CHECK(rt_cache_write(dir, key, kRequest, &m) == 0);
  CHECK(rt_cache_read(dir, key, kRequest, &back, &why) == 0);
  rt_meta_free(&back);

  /* Flip a byte in the PTX on disk: rejected; rewriting repairs it. */
  FILE *f = fopen(path, "rb");
  unsigned char file[4096];
  size_t n = f ? fread(file, 1, sizeof file, f) : 0;
  if (f) fclose(f);
  CHECK(n > RT_CACHE_HEADER_SIZE);
  file[n - 10] ^= 0x20;
  write_bytes(path, file, n);
  CHECK(rt_cache_read(dir, key, kRequest, &back, &why) != 0);
  CHECK(why && !strcmp(why, "checksum mismatch"));
  CHECK(rt_cache_write(dir, key, kRequest, &m) == 0);
  CHECK(rt_cache_read(dir, key, kRequest, &back, &why) == 0);
  rt_meta_free(&back);

  /* Truncated (a crash mid-write by something that did not rename). */
  CHECK(truncate(path, (off_t)(n / 2)) == 0);
  CHECK(rt_cache_read(dir, key, kRequest, &back, &why) != 0);
  CHECK(truncate(path, 0) == 0);
  CHECK(rt_cache_read(dir, key, kRequest, &back, &why) != 0);

  /* Garbage of the right size. */
  memset(file, 'x', n);
  write_bytes(path, file, n);
  CHECK(rt_cache_read(dir, key, kRequest, &back, &why) != 0);
  CHECK(why && !strcmp(why, "bad magic"));

  /* A folder where the entry should be is a miss, and writing over it fails cleanly. */
  unlink(path);
  CHECK(mkdir(path, 0755) == 0);
  CHECK(rt_cache_read(dir, key, kRequest, &back, &why) != 0);
  CHECK(rt_cache_write(dir, key, kRequest, &m) != 0);
  CHECK(count_files(dir) == 1); /* the failed write removed its temporary */
  rmdir(path);

  /* Atomic write of arbitrary bytes, and mkdir -p of an existing folder. */
  CHECK(rt_mkdir_p(dir) == 0);
  CHECK(rt_write_file_atomic(path, "hello", 5) == 0);
  CHECK(rt_cache_read(dir, key, kRequest, &back, &why) != 0);
  unlink(path);
  free(path);
  rt_meta_free(&m);

  /* A file where the folder should be. */
  char blocked[600];
  snprintf(blocked, sizeof blocked, "%s/file", root);
  write_bytes(blocked, (const unsigned char *)"x", 1);
  char under[700];
  snprintf(under, sizeof under, "%s/sub", blocked);
  m = make_meta();
  CHECK(rt_cache_write(under, key, kRequest, &m) != 0);
  rt_meta_free(&m);
  unlink(blocked);
}

/* A file of `bytes` bytes at dir/name whose modification time is `age`
 * seconds before now. */
static void make_aged(const char *dir, const char *name, size_t bytes, time_t now, time_t age) {
  char path[600];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  CHECK(f != NULL);
  if (!f) return;
  for (size_t i = 0; i < bytes; i++) fputc('x', f);
  fclose(f);
  struct timespec t[2] = {{now - age, 0}, {now - age, 0}};
  CHECK(utimensat(AT_FDCWD, path, t, 0) == 0);
}

static bool exists_in(const char *dir, const char *name) {
  char path[600];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return access(path, F_OK) == 0;
}

/* The size bound evicts the least recently used entries first, a read hit
 * counts as a use, stale temporary files go, fresh ones (a writer at work)
 * and files that are not the cache's stay. */
static void test_tidy(const char *root) {
  char dir[512];
  snprintf(dir, sizeof dir, "%s/tidy", root);
  CHECK(rt_mkdir_p(dir) == 0);
  time_t now = time(NULL);
  make_aged(dir, "00000000000000000000000000000001.tlc", 1000, now, 500);  /* oldest */
  make_aged(dir, "00000000000000000000000000000002.tlc", 1000, now, 400);
  make_aged(dir, "tune-00000000000000000000000000000003.json", 1000, now, 300);
  make_aged(dir, "00000000000000000000000000000004.tlc", 1000, now, 10);   /* newest */
  make_aged(dir, "00000000000000000000000000000005.tlc.tmp.123.0", 50, now, 2 * RT_CACHE_STALE_TMP_SECONDS); /* stale */
  make_aged(dir, "00000000000000000000000000000006.tlc.tmp.124.0", 50, now, 5);   /* a writer at work */
  make_aged(dir, "notes.txt", 5000, now, 100000);                 /* not the cache's */
  make_aged(dir, "00000000000000ff.tlc", 10, now, 200000);        /* format 3's name: the cache's, oldest */
  make_aged(dir, "tlc-failed-k-0123.ptx", 5000, now, 100000);     /* a repro file */
  /* no bound: only the stale temporary file goes */
  CHECK(rt_cache_tidy(dir, 0, now) == 1);
  CHECK(!exists_in(dir, "00000000000000000000000000000005.tlc.tmp.123.0"));
  CHECK(exists_in(dir, "00000000000000000000000000000006.tlc.tmp.124.0"));
  /* entry 1 is read (a hit touches it), so entry 2 is now the oldest */
  RtKernelMeta m = make_meta(), back;
  CHECK(rt_cache_write(dir, (RtKey){1, 0}, kRequest, &m) == 0); /* a real entry under key 1, then aged again */
  char p1[600];
  snprintf(p1, sizeof p1, "%s/00000000000000000000000000000001.tlc", dir);
  struct timespec old[2] = {{now - 500, 0}, {now - 500, 0}};
  CHECK(utimensat(AT_FDCWD, p1, old, 0) == 0);
  CHECK(rt_cache_read(dir, (RtKey){1, 0}, kRequest, &back, NULL) == 0);
  rt_meta_free(&back);
  struct stat st;
  CHECK(stat(p1, &st) == 0 && st.st_mtime >= now);
  /* entries 1, 2, 4 and the choice 3 total entry 1's size + 3000 bytes (temporary files do not
   * count) and the old format's 10 bytes; a bound of entry 1's size + 1500: the three least
   * recently used, the old entry, 2 and 3, go */
  CHECK(stat(p1, &st) == 0);
  CHECK(rt_cache_tidy(dir, (uint64_t)st.st_size + 1500, now) == 3);
  CHECK(!exists_in(dir, "00000000000000ff.tlc"));
  CHECK(!exists_in(dir, "00000000000000000000000000000002.tlc"));
  CHECK(!exists_in(dir, "tune-00000000000000000000000000000003.json"));
  CHECK(exists_in(dir, "00000000000000000000000000000001.tlc"));
  CHECK(exists_in(dir, "00000000000000000000000000000004.tlc"));
  CHECK(exists_in(dir, "notes.txt") && exists_in(dir, "tlc-failed-k-0123.ptx"));
  /* the variable: sizes with K, M, G; 0 = no bound; nonsense = the default */
  setenv("TLC_CACHE_MAX_BYTES", "64M", 1);
  CHECK(rt_cache_max_bytes_from_env() == 64ull << 20);
  setenv("TLC_CACHE_MAX_BYTES", "0", 1);
  CHECK(rt_cache_max_bytes_from_env() == 0);
  setenv("TLC_CACHE_MAX_BYTES", "lots", 1);
  CHECK(rt_cache_max_bytes_from_env() == RT_CACHE_DEFAULT_MAX_BYTES);
  unsetenv("TLC_CACHE_MAX_BYTES");
  CHECK(rt_cache_tidy("/nonexistent/tlc-cache", 0, now) == -1);
  rt_meta_free(&m);
}

static void test_dir_from_env(void) {
  setenv("TLC_CACHE_DIR", "/some/where", 1);
  char *d = rt_cache_dir_from_env();
  CHECK(d && !strcmp(d, "/some/where"));
  free(d);
  setenv("TLC_CACHE_DIR", "off", 1);
  CHECK(rt_cache_dir_from_env() == NULL);
  unsetenv("TLC_CACHE_DIR");
  setenv("HOME", "/home/tester", 1);
  d = rt_cache_dir_from_env();
  CHECK(d && !strcmp(d, "/home/tester/.cache/tlc"));
  free(d);
  setenv("TLC_CACHE_DIR", "", 1); /* empty = unset */
  d = rt_cache_dir_from_env();
  CHECK(d && !strcmp(d, "/home/tester/.cache/tlc"));
  free(d);
  unsetenv("TLC_CACHE_DIR");
  unsetenv("HOME");
  CHECK(rt_cache_dir_from_env() == NULL);
}

static void test_memory_table(void) {
  RtCache c = {0};
  tlc_kernel *fake[1000];
  for (int i = 0; i < 1000; i++) fake[i] = (tlc_kernel *)(uintptr_t)(0x1000 + 16 * i);
  char req[32];
#define KEY(i) (snprintf(req, sizeof req, "request %d", (int)(i)), rt_cache_key(req))
  for (int i = 0; i < 1000; i++) CHECK(rt_cache_put(&c, KEY(i), fake[i]) == 0);
  CHECK(c.count == 1000);
  int bad = 0;
  for (int i = 0; i < 1000; i++) bad += rt_cache_get(&c, KEY(i)) != fake[i];
  CHECK(bad == 0);
  CHECK(rt_cache_get(&c, KEY(5000)) == NULL);
  CHECK(rt_cache_put(&c, KEY(7), fake[0]) == 0); /* replace */
  CHECK(c.count == 1000);
  CHECK(rt_cache_get(&c, KEY(7)) == fake[0]);
  /* keys that share the low half (the probe start) are still told apart */
  CHECK(rt_cache_put(&c, (RtKey){5, 1}, fake[1]) == 0 && rt_cache_put(&c, (RtKey){5, 2}, fake[2]) == 0);
  CHECK(rt_cache_get(&c, (RtKey){5, 1}) == fake[1] && rt_cache_get(&c, (RtKey){5, 2}) == fake[2]);
#undef KEY
  rt_cache_free(&c);
}

int main(void) {
  char root[] = "/tmp/tlc-test-cache-XXXXXX";
  if (!mkdtemp(root)) {
    perror("mkdtemp");
    return 1;
  }
  test_hash_and_key();
  test_encode_decode();
  test_disk(root);
  test_tidy(root);
  test_dir_from_env();
  test_memory_table();
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  if (system(cmd) != 0) fprintf(stderr, "warning: could not remove %s\n", root);
  return test_summary("test_runtime_cache");
}
