/* vector_add_aot — the seed's add_kernel (vector_add.tile) compiled ahead
 * of time: `tlc compile --emit c -o vadd` at build time writes vadd.c and
 * vadd.h (the PTX embedded, vadd_load / vadd_launch / vadd_unload), and this
 * program links them with the runtime's core alone (no compiler, no LLVM).
 * It stands on its own (with aot_example.h, the examples' frame, beside it),
 * so that it builds the same way in the tree and from an install prefix
 * (pkg-config tlc-runtime-core; tests/install).
 *
 * Each size: fp32 inputs uniform in [-1, 1) from a printed seed, the output
 * between guard zones, all poisoned (0xFF bytes) before every run, c = a + b
 * checked against a double reference, the guards checked, a second run on
 * fresh poison compared with the first, then timed; one RESULT line each, in
 * the examples' format (docs/examples.md).  Exit status: 0 all passed, 1 a
 * failure, 77 skipped (no GPU, or the CPU device, which runs kernels from
 * .tile source and cannot run PTX). */
#include "vadd.h"

#include <math.h>

#include "aot_example.h"

enum { BLOCK_SIZE = 1024, GUARD = 4096, REPS = 20 };
static const char *const PROG = "ex_vector_add_aot";

static int npass, nfail;

/* The output run on fresh poison: the whole guarded buffer comes back. */
static void run_poisoned(tlc_devptr base, size_t total, tlc_devptr a, tlc_devptr b, int32_t n, unsigned char *host) {
  check(tlc_memset_d8(rt, base, 0xFF, total), "poison");
  check(vadd_launch(NULL, (unsigned)((n + BLOCK_SIZE - 1) / BLOCK_SIZE), 1, 1, a, b, base + GUARD, n), "launch");
  check(tlc_synchronize(rt), "synchronize");
  check(tlc_memcpy_dtoh(rt, host, base, total), "download");
}

static void run_size(uint64_t *rng, int32_t n) {
  size_t bytes = (size_t)n * sizeof(float), total = bytes + 2 * GUARD;
  float *a = malloc(bytes), *b = malloc(bytes);
  unsigned char *out1 = malloc(total), *out2 = malloc(total);
  if (!a || !b || !out1 || !out2) check(TLC_ERR_INVALID, "host memory");
  for (int32_t i = 0; i < n; i++) {
    a[i] = (float)((double)(splitmix64(rng) >> 11) / 9007199254740992.0 * 2 - 1);
    b[i] = (float)((double)(splitmix64(rng) >> 11) / 9007199254740992.0 * 2 - 1);
  }
  tlc_devptr da, db, dc;
  check(tlc_malloc(rt, bytes, &da), "malloc");
  check(tlc_malloc(rt, bytes, &db), "malloc");
  check(tlc_malloc(rt, total, &dc), "malloc");
  check(tlc_memcpy_htod(rt, da, a, bytes), "upload");
  check(tlc_memcpy_htod(rt, db, b, bytes), "upload");

  run_poisoned(dc, total, da, db, n, out1);
  run_poisoned(dc, total, da, db, n, out2);
  size_t oob = 0, unwritten = 0;
  for (size_t i = 0; i < GUARD; i++) oob += (out1[i] != 0xFF) + (out1[GUARD + bytes + i] != 0xFF);
  double err2 = 0, ref2 = 0, max_abs = 0;
  for (int32_t i = 0; i < n; i++) {
    uint32_t bits;
    float v;
    memcpy(&bits, out1 + GUARD + 4 * (size_t)i, 4);
    memcpy(&v, &bits, 4);
    if (bits == 0xFFFFFFFFu) {
      unwritten++;
      continue;
    }
    double ref = (double)a[i] + (double)b[i], d = fabs((double)v - ref);
    err2 += d * d, ref2 += ref * ref;
    if (!(d <= max_abs)) max_abs = d;
  }
  double rel = ref2 > 0 ? sqrt(err2 / ref2) : sqrt(err2);
  bool stable = memcmp(out1, out2, total) == 0;

  tlc_event *ev[2];
  check(tlc_event_create(rt, &ev[0]), "event");
  check(tlc_event_create(rt, &ev[1]), "event");
  for (int r = 0; r < warmup; r++)
    check(vadd_launch(NULL, (unsigned)((n + BLOCK_SIZE - 1) / BLOCK_SIZE), 1, 1, da, db, dc + GUARD, n), "launch");
  check(tlc_event_record(ev[0], NULL), "event");
  for (int r = 0; r < reps; r++)
    check(vadd_launch(NULL, (unsigned)((n + BLOCK_SIZE - 1) / BLOCK_SIZE), 1, 1, da, db, dc + GUARD, n), "launch");
  check(tlc_event_record(ev[1], NULL), "event");
  float ms = 0;
  check(tlc_event_elapsed_ms(ev[0], ev[1], &ms), "timing");
  tlc_event_destroy(ev[0]), tlc_event_destroy(ev[1]);
  double us = 1000.0 * ms / reps;

  bool pass = unwritten == 0 && oob == 0 && stable && rel < 1e-6 && max_abs == max_abs;
  printf("RESULT kernel=vector_add_aot size=%" PRId32 " rel_err=%.3e max_abs=%.3e tol=1e-06 unwritten=%zu "
         "oob=%zu stable=%s time_us=%.2f gbps=%.1f status=%s seed=%" PRIu64 "\n",
         n, rel, max_abs, unwritten, oob, stable ? "yes" : "no", us, us > 0 ? 3.0 * (double)bytes / us / 1e3 : 0.0,
         pass ? "PASS" : "FAIL", seed);
  fflush(stdout);
  pass ? npass++ : nfail++;
  check(tlc_free(rt, da), "free");
  check(tlc_free(rt, db), "free");
  check(tlc_free(rt, dc), "free");
  free(a), free(b), free(out1), free(out2);
}

int main(int argc, char **argv) {
  int rc = ex_start(argc, argv, PROG, REPS, vadd_unload);
  if (rc) return rc;
  check(vadd_load(rt), "vadd_load");
  uint64_t rng = seed;
  static const int32_t sizes[] = {1, 1000, 98432, 1 << 20};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) run_size(&rng, sizes[i]);
  printf("SUMMARY prog=%s passed=%d failed=%d seed=%" PRIu64 "\n", PROG, npass, nfail, seed);
  vadd_unload();
  tlc_runtime_close(rt);
  return nfail == 0 && npass > 0 ? 0 : 1;
}
