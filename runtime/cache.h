/* cache.h — the compile caches, private to runtime/ and its unit tests.
 *
 * Two levels, both keyed by one 128-bit key: XXH3-128 (xxHash) of the
 * request, the text tlc_compile_request() makes of everything that selects
 * the output (tlc version, source digest, kernel, signature, constexprs,
 * arch, warps, stages, ...) followed by the identity of the compiler
 * library (jit.c), so a rebuilt libtlc never reads entries an older build
 * wrote.
 *
 *   memory: key -> tlc_kernel*, for the runtime's life (the same request
 *           returns the same handle);
 *   disk:   DIR/<key as 32 hex digits>.tlc, one file per kernel:
 *
 *     offset  size  field (integers little-endian)
 *          0     8  magic "TLCCACHE"
 *          8     4  format version (RT_CACHE_VERSION)
 *         12     4  header size (48)
 *         16    16  key (low half, high half)
 *         32     8  payload length = file size - 48
 *         40     8  checksum: rt_hash64(payload, length, 0)
 *         48     .  payload:
 *                     u32 request length, request bytes,
 *                     u32 num_warps, u32 shared_bytes, u32 nparams,
 *                     str symbol, nparams x {u32 kind, str name},
 *                     u32 ntma, ntma x {u32 base_param, data_type, elem_bytes,
 *                       rank, swizzle; 5 x {u32 dim param, u64 dim value,
 *                       u32 stride param, u64 stride value, u32 box}},
 *                     u64 ptx length, ptx bytes,
 *                     u32 cubin capability (10 * major + minor), u32 cubin
 *                       driver version, u64 cubin length, cubin bytes (the
 *                       driver's machine code for the PTX; length 0 and
 *                       both fields 0 when there is none)
 *                   (str = u32 length + bytes, no NUL)
 *
 * Files are written to a temporary name and renamed into place, so a reader
 * sees a whole entry or none.  A reader trusts nothing: a wrong magic,
 * version, key, length or checksum, a stored request that is not the one
 * asked for (two requests whose keys collide never share an entry), or a
 * payload that does not parse exactly, is a miss (the kernel is recompiled
 * and the entry rewritten). */
#ifndef TLC_RUNTIME_CACHE_H
#define TLC_RUNTIME_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "runtime/rt_internal.h"

#define RT_CACHE_MAGIC "TLCCACHE"
#define RT_CACHE_VERSION 5u /* 2: tensor-map recipes; 3: XXH3 checksums; 4: 128-bit keys, the request stored;
                              5: the cubin */
#define RT_CACHE_HEADER_SIZE 48u
#define RT_CACHE_MAX_REQUEST (1u << 20)
#define RT_CACHE_MAX_FILE (1u << 30) /* larger files are not read */

/* XXH3-128 (xxHash) of data: the keys (entries, autotune choices). */
RtKey rt_hash128(const void *data, size_t len);
/* XXH3-64 of data with seed: the entries' checksums, repro file names. */
uint64_t rt_hash64(const void *data, size_t len, uint64_t seed);
/* The key as 32 hex digits (high half first) and a NUL. */
void rt_key_hex(RtKey key, char out[33]);
static inline int rt_key_eq(RtKey a, RtKey b) { return a.lo == b.lo && a.hi == b.hi; }

/* Set up c with its disk folder from the environment ($TLC_CACHE_DIR, "off"
 * = no disk cache, else ~/.cache/tlc); creates no folder yet.  The salt is
 * left for jit.c, the only part that knows the compiler library. */
void rt_cache_init(RtCache *c);
void rt_cache_free(RtCache *c);

/* The folder $TLC_CACHE_DIR / $HOME name (malloc'd), or NULL when off. */
char *rt_cache_dir_from_env(void);
/* The cache key of a request text; never all zero. */
RtKey rt_cache_key(const char *request);

/* In-memory table: NULL when absent; put returns 0, or -1 when out of memory. */
tlc_kernel *rt_cache_get(const RtCache *c, RtKey key);
int rt_cache_put(RtCache *c, RtKey key, tlc_kernel *k);

/* Serialize m, the answer to `request`, as a complete entry (header +
 * payload); *out is malloc'd. */
int rt_cache_encode(RtKey key, const char *request, const RtKernelMeta *m, unsigned char **out,
                    size_t *len);
/* Parse an entry for `key` answering `request` (compared byte for byte).
 * 0 and *m filled (caller frees with rt_meta_free), or -1 and *why says
 * what was wrong. */
int rt_cache_decode(const unsigned char *buf, size_t len, RtKey key, const char *request,
                    RtKernelMeta *m, const char **why);

/* DIR/<32 hex>.tlc, malloc'd. */
char *rt_cache_entry_path(const char *dir, RtKey key);
/* Read the entry for key and request from dir: 0 = hit, -1 = miss (absent
 * or rejected; *why says which, may be NULL). */
int rt_cache_read(const char *dir, RtKey key, const char *request, RtKernelMeta *m, const char **why);
/* Write the entry atomically, creating dir if needed: 0 or -1 (errno set). */
int rt_cache_write(const char *dir, RtKey key, const char *request, const RtKernelMeta *m);

/* The size bound: $TLC_CACHE_MAX_BYTES (bytes, or with K, M, G; 0 = no
 * bound), else RT_CACHE_DEFAULT_MAX_BYTES. */
#define RT_CACHE_DEFAULT_MAX_BYTES (2ull << 30)
uint64_t rt_cache_max_bytes_from_env(void);
/* Temporary files older than this are a dead writer's: removed. */
#define RT_CACHE_STALE_TMP_SECONDS 3600
/* Tidy dir (after every write): remove the cache's temporary files older
 * than RT_CACHE_STALE_TMP_SECONDS at time `now`, then, while the cache's
 * files (entries and autotune choices) total more than max_bytes (0: no
 * bound), the least recently used (modification time; a read that hits
 * touches it).  Files that are not the cache's are left alone.  Returns
 * how many files it removed, or -1 when dir cannot be read. */
int rt_cache_tidy(const char *dir, uint64_t max_bytes, time_t now);

/* mkdir -p with mode 0755: 0 or -1 (errno set). */
int rt_mkdir_p(const char *dir);
/* Write data to path through a temporary file in the same folder and
 * rename(): 0 or -1 (errno set). */
int rt_write_file_atomic(const char *path, const void *data, size_t len);

#endif
