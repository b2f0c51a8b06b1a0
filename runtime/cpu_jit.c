/* cpu_jit.c — kernels on the CPU device: specialized by the interpreter
 * (interp/tlc_interp.h) instead of compiled to PTX, and launched through
 * the hooks of their tlc_kernel.
 *
 * Part of the JIT layer (tlc_runtime), like jit.c: the runtime core only
 * calls k->cpu_launch / k->cpu_free and never links the interpreter.  A
 * launch gives the interpreter the live allocations of the runtime, so
 * every load and store of the kernel is checked against them; a fault is
 * the launch's TLC_ERR_CUDA with the interpreter's located message. */
#include "runtime/rt_internal.h"

#include <stdlib.h>
#include <string.h>

#include "interp/tlc_interp.h"

static void cpu_free(void *prog) { tlc_interp_program_free(prog); }

static tlc_status cpu_launch(tlc_kernel *k, const unsigned grid[3], const uint64_t *slots) {
  tlc_runtime *rt = k->rt;
  int n = 0;
  struct RtSize *l = rt_alloc_list(rt, &n);
  tlc_interp_alloc *a = calloc((size_t)n + 1, sizeof *a);
  if (!l || !a) {
    free(l), free(a);
    return rt_fail(rt, TLC_ERR_INVALID, "kernel '%s': out of host memory", k->name);
  }
  for (int i = 0; i < n; i++) a[i] = (tlc_interp_alloc){l[i].p, l[i].bytes, NULL};
  char *err = NULL;
  tlc_interp_status s = tlc_interp_launch(k->cpu_prog, grid[0], grid[1], grid[2], slots, a, n, &err);
  free(l), free(a);
  tlc_status st = TLC_OK;
  if (s != TLC_INTERP_OK) {
    size_t len = err ? strlen(err) : 0;
    while (len && err[len - 1] == '\n') len--;
    st = rt_fail(rt, s == TLC_INTERP_ARGS ? TLC_ERR_LAUNCH : TLC_ERR_CUDA, "kernel '%s' on the CPU device:\n%.*s",
                 k->name, (int)len, err ? err : "");
  }
  free(err);
  return st;
}

tlc_status rt_cpu_kernel(tlc_runtime *rt, const char *source, const char *path, const char *name,
                         const char *signature, const tlc_kernel_options *opt, tlc_kernel **out) {
  *out = NULL;
  tlc_interp_request req = {path, source, name, signature, opt ? opt->constexprs : NULL,
                            opt ? opt->nconstexprs : 0, opt ? opt->num_warps : 0, opt && opt->debug};
  tlc_interp_program *p = NULL;
  char *diag = NULL;
  tlc_interp_status s = tlc_interp_compile(&req, &p, &diag);
  if (s != TLC_INTERP_OK) {
    size_t len = diag ? strlen(diag) : 0;
    while (len && diag[len - 1] == '\n') len--;
    tlc_status st = rt_fail(rt, TLC_ERR_COMPILE, "%.*s", (int)len, diag ? diag : "");
    free(diag);
    return st;
  }
  free(diag);
  RtKernelMeta m = {0};
  int np = tlc_interp_num_params(p);
  m.symbol = rt_strdup(tlc_interp_kernel_name(p));
  m.num_warps = tlc_interp_num_warps(p);
  m.params = calloc((size_t)np + 1, sizeof *m.params);
  for (int i = 0; m.params && i < np; i++) {
    m.params[i].kind = tlc_interp_param_kind(p, i);
    m.params[i].name = rt_strdup(tlc_interp_param_name(p, i));
    m.nparams = i + 1;
  }
  if (!m.symbol || !m.params) {
    rt_meta_free(&m);
    tlc_interp_program_free(p);
    return rt_fail(rt, TLC_ERR_INVALID, "out of host memory");
  }
  tlc_kernel *k;
  tlc_status st = rt_kernel_load(rt, &m, name, 0.0, &k);
  if (st != TLC_OK) {
    tlc_interp_program_free(p);
    return st;
  }
  k->cpu_prog = p;
  k->cpu_launch = cpu_launch;
  k->cpu_free = cpu_free;
  rt_kernel_keep_constexprs(k, opt);
  *out = k;
  return TLC_OK;
}
