/* clock.c — the one clock of the compiler: monotonic milliseconds, for the
 * result's compile_ms and the stage times `tlc --time` prints. */
#include "support/support.h"

#include <time.h>

double clock_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
