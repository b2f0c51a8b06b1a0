/* aot_example.h — the frame of the ahead-of-time example programs
 * (vector_add_aot.c, matmul_autotune_aot.c): the options every example
 * program takes (--seed N, --reps N, --warmup N, as gpu-suite passes them),
 * device 0 opened or a skip (77: no GPU, or the CPU device, which runs
 * kernels from .tile source and cannot run PTX), the DEVICE and SEED lines,
 * a check that ends the program with a FATAL line, and the seeded
 * generator.  Header-only, beside the programs: they build on their own,
 * from an install prefix too (tests/install). */
#ifndef TLC_EXAMPLES_AOT_EXAMPLE_H
#define TLC_EXAMPLES_AOT_EXAMPLE_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tlc/tlc_runtime.h>

static tlc_runtime *rt;
static uint64_t seed;
static int reps, warmup = 1;          /* --reps, --warmup: the timed launches and those before */
static const char *ex_prog;           /* the program's name in its lines */
static void (*ex_unload)(void);       /* the pair's PREFIX_unload */

/* st must be TLC_OK; otherwise the message, a FATAL line, exit 1. */
static inline void check(tlc_status st, const char *what) {
  if (st == TLC_OK) return;
  fprintf(stderr, "%s: error: %s: %s: %s\n", ex_prog, what, tlc_status_name(st), tlc_runtime_error(rt));
  printf("FATAL prog=%s what=\"%s\" status=%s seed=%" PRIu64 "\n", ex_prog, what, tlc_status_name(st), seed);
  ex_unload();
  tlc_runtime_close(rt);
  exit(1);
}

static inline uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* The options, device 0 and the first lines: 0 to go on (rt open on a
 * GPU), else the exit status (2 a usage error, 77 skipped). */
static inline int ex_start(int argc, char **argv, const char *prog, int default_reps, void (*unload)(void)) {
  ex_prog = prog, ex_unload = unload, reps = default_reps;
  seed = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ULL ^ (uint64_t)clock();
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
      seed = strtoull(argv[++i], NULL, 10);
    } else if (!strcmp(argv[i], "--reps") && i + 1 < argc && atoi(argv[i + 1]) > 0) {
      reps = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--warmup") && i + 1 < argc && atoi(argv[i + 1]) >= 0) {
      warmup = atoi(argv[++i]);
    } else {
      fprintf(stderr, "usage: %s [--seed N] [--reps N] [--warmup N]\n", prog);
      return 2;
    }
  }
  tlc_status st = tlc_runtime_open(0, &rt);
  if (st == TLC_ERR_NO_DRIVER || st == TLC_ERR_NO_DEVICE) {
    printf("SKIP: %s\n", rt ? tlc_runtime_error(rt) : tlc_status_name(st));
    tlc_runtime_close(rt);
    return 77;
  }
  check(st, "tlc_runtime_open");
  if (tlc_device_is_cpu(rt)) {
    printf("SKIP: the CPU device (TLC_DEVICE=cpu) runs kernels from .tile source; this program carries PTX\n");
    tlc_runtime_close(rt);
    return 77;
  }
  printf("DEVICE prog=%s name=\"%s\" arch=%s capability=%d sms=%d\n", prog, tlc_device_name(rt),
         tlc_device_arch(rt), tlc_device_capability(rt), tlc_device_sm_count(rt));
  printf("SEED prog=%s seed=%" PRIu64 " (reproduce: %s --seed %" PRIu64 ")\n", prog, seed, prog, seed);
  return 0;
}

#endif
