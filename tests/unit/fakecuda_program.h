/* fakecuda_program.h — what a stand-alone test program run on the fake CUDA
 * driver needs (tests/install/consumer/consumer.c, tests/cli/aot_several.c):
 * a CHECK that prints each failure and counts it, the fake's state found
 * through $TLC_CUDA_DRIVER, and the closing verdict.  Header-only: these
 * programs are built outside the tree's test library. */
#ifndef TLC_TESTS_FAKECUDA_PROGRAM_H
#define TLC_TESTS_FAKECUDA_PROGRAM_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "test_runtime_fakecuda.h"

static int failures;

#define CHECK(cond, ...)                          \
  do {                                            \
    if (!(cond)) {                                \
      printf("FAIL %s:%d: ", __FILE__, __LINE__); \
      printf(__VA_ARGS__);                        \
      putchar('\n');                              \
      failures++;                                 \
    }                                             \
  } while (0)

/* The fake driver's state, from the library $TLC_CUDA_DRIVER names; NULL
 * (and a FAIL line) when it names none. */
static inline FakeCudaState *fake_state_from_env(void) {
  const char *drv = getenv("TLC_CUDA_DRIVER");
  void *h = drv ? dlopen(drv, RTLD_NOW) : NULL;
  fake_cuda_state_fn state = h ? (fake_cuda_state_fn)dlsym(h, "fake_cuda_state") : NULL;
  if (!state) {
    printf("FAIL: TLC_CUDA_DRIVER must name the fake driver (%s)\n", drv ? drv : "unset");
    return NULL;
  }
  return state();
}

/* "PASS: 0 failures" or "FAIL: N failures"; the exit status. */
static inline int fake_verdict(void) {
  printf("%s: %d failure%s\n", failures ? "FAIL" : "PASS", failures, failures == 1 ? "" : "s");
  return failures != 0;
}

#endif
