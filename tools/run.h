/* run.h — `tlc run`: a kernel run by the CPU interpreter on .npy arrays
 * and scalar values (run.c; tlc.c parses the command line). */
#ifndef TLC_TOOLS_RUN_H
#define TLC_TOOLS_RUN_H

#include <stdbool.h>

typedef struct RunRequest {
  const char *file, *source;     /* the .tile file and its text */
  const char *kernel, *signature;
  const char *const *constexprs; /* "NAME=VALUE" */
  int nconstexprs;
  int num_warps;                 /* 0: the default */
  bool debug;
  unsigned grid[3];
  char **args;                   /* one per runtime parameter: a .npy path or a value */
  int nargs;
} RunRequest;

/* Run it; the exit status: 0 success (outputs written back), 1 an error
 * in the input or a fault of the kernel (nothing written), 2 a usage
 * error (the arguments do not fit the kernel). */
int run_kernel(const RunRequest *r);

#endif
