/* hash.c — the one hash function: XXH3 from xxHash (Debian's libxxhash-dev,
 * header-only, nothing to link).
 *
 * hash128 (XXH3-128) names things that must not collide: the compiler's
 * request fingerprint and the source digest inside it (compiler/compile.c).
 * hash_bytes (XXH3-64 with a seed) spreads keys of in-memory tables (type
 * interning, name maps, the diagnostics' repeated-error filter): only
 * equality of the keys matters there, never the order of a table, so the
 * printed IR does not depend on it. */
#include "support.h"

#include <stdio.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

uint64_t hash_bytes(const void *p, size_t n, uint64_t seed) { return XXH3_64bits_withSeed(p, n, seed); }

Hash128 hash128(const void *p, size_t n) {
  XXH128_hash_t h = XXH3_128bits(p, n);
  return (Hash128){h.low64, h.high64};
}

void hash128_hex(Hash128 h, char out[33]) {
  snprintf(out, 33, "%016llx%016llx", (unsigned long long)h.hi, (unsigned long long)h.lo);
}
