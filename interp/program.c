/* program.c — a kernel specialized for the interpreter: parse, specialize
 * (as `tlc compile --emit tir-spec` does, for sm_90a), verify; the
 * parameters a launch passes.
 *
 * Owns the program's lifetime: the copies of path and source the
 * diagnostics point into, the AST and the IR arena.  No pass runs: the
 * interpreter reads the IR before layouts and shared memory exist. */
#include "interp/interp_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec.h"

/* The interpreter specializes for the newest target tlc knows, so every
 * builtin (fp8 casts, tensor descriptors) is available. */
static const char *const interp_arch = "sm_90a";
enum { INTERP_CAPABILITY = 90, INTERP_DEFAULT_WARPS = 4, INTERP_STAGES = 3 };

/* A pointee as Triton's signatures spell it. */
static const char *sig_name(DType d) {
  switch (d) {
  case DT_F32: return "fp32";
  case DT_F64: return "fp64";
  case DT_F16: return "fp16";
  case DT_BF16: return "bf16";
  case DT_F8E4M3: return "fp8e4nv";
  case DT_F8E5M2: return "fp8e5";
  default: return dt_name(d);
  }
}

void tlc_interp_program_free(tlc_interp_program *p) {
  if (!p) return;
  for (int i = 0; i < p->nparams; i++) free(p->elem_names[i]);
  free(p->elem_names);
  free(p->kinds);
  if (p->ast.path) ast_free(&p->ast);
  arena_free(&p->arena);
  free(p->path);
  free(p->source);
  free(p);
}

/* "NAME=VALUE" strings into spec's pairs (names copied into the arena). */
static SpecConstexpr *constexprs(const tlc_interp_request *req, Arena *a, DiagEngine *d, int *n) {
  *n = req->nconstexprs > 0 ? req->nconstexprs : 0;
  SpecConstexpr *defs = arena_alloc(a, sizeof *defs * ((size_t)*n + 1));
  for (int i = 0; i < *n; i++) {
    const char *s = req->constexprs[i], *eq = s ? strchr(s, '=') : NULL;
    if (!eq || eq == s || !eq[1]) {
      diag_plain(d, "constexpr '%s' is not of the form NAME=VALUE", s ? s : "(null)");
      return NULL;
    }
    defs[i].name = arena_strndup(a, s, (size_t)(eq - s));
    defs[i].value = arena_strdup(a, eq + 1);
  }
  return defs;
}

tlc_interp_status tlc_interp_compile(const tlc_interp_request *req, tlc_interp_program **out,
                                     char **diagnostics) {
  *out = NULL;
  tlc_interp_program *p = xcalloc(1, sizeof *p);
  p->path = xstrdup(req->path ? req->path : "<string>");
  p->source = xstrdup(req->source ? req->source : "");
  arena_init(&p->arena);
  DiagEngine d;
  diag_init(&d);
  diag_add_source(&d, p->path, p->source);
  int n = 0;
  SpecConstexpr *defs = constexprs(req, &p->arena, &d, &n);
  if (defs && parse_module(p->path, p->source, &d, &p->ast) == 0) {
    SpecRequest sr = {req->kernel, req->signature, defs, n,
                      req->num_warps > 0 ? req->num_warps : INTERP_DEFAULT_WARPS, INTERP_STAGES,
                      interp_arch, INTERP_CAPABILITY};
    sr.debug = req->debug;
    p->m = spec_kernel(&p->ast, &sr, &p->arena, &d);
    if (p->m && ir_verify_report(p->m, false, &d, true, "after specialization")) p->m = NULL;
  } else if (!defs) {
    memset(&p->ast, 0, sizeof p->ast);
  }
  if (!p->m && d.nerrors == 0) diag_plain(&d, "specialization failed without a diagnostic");
  *diagnostics = sb_take(&d.out);
  diag_free(&d);
  if (!p->m) {
    tlc_interp_program_free(p);
    return TLC_INTERP_COMPILE_ERROR;
  }
  IrFunc *f = p->m->func;
  p->nparams = f->nargs;
  p->kinds = xcalloc((size_t)f->nargs + 1, sizeof *p->kinds);
  p->elem_names = xcalloc((size_t)f->nargs + 1, sizeof *p->elem_names);
  for (int i = 0; i < f->nargs; i++) {
    const Type *t = f->args[i].value->type;
    p->kinds[i] = dt_param_kind(t->dtype);
    if (t->dtype == DT_PTR) p->elem_names[i] = xstrdup(sig_name(t->pointee->dtype));
  }
  *out = p;
  return TLC_INTERP_OK;
}

int tlc_interp_num_params(const tlc_interp_program *p) { return p ? p->nparams : 0; }

const char *tlc_interp_param_name(const tlc_interp_program *p, int i) {
  return p && i >= 0 && i < p->nparams ? p->m->func->args[i].name : NULL;
}

tlc_param_kind tlc_interp_param_kind(const tlc_interp_program *p, int i) {
  return p && i >= 0 && i < p->nparams ? p->kinds[i] : TLC_PARAM_I32;
}

const char *tlc_interp_param_elem(const tlc_interp_program *p, int i) {
  return p && i >= 0 && i < p->nparams ? p->elem_names[i] : NULL;
}

int tlc_interp_param_elem_bytes(const tlc_interp_program *p, int i) {
  if (!p || i < 0 || i >= p->nparams || !p->elem_names[i]) return 0;
  return ip_size(p->m->func->args[i].value->type->pointee->dtype);
}

const char *tlc_interp_kernel_name(const tlc_interp_program *p) { return p ? p->m->func->name : NULL; }

int tlc_interp_num_warps(const tlc_interp_program *p) { return p ? p->m->num_warps : 0; }

int tlc_interp_parse_scalar(const tlc_interp_program *p, int i, const char *text, uint64_t *slot, char *err,
                            size_t errlen) {
  *slot = 0;
  if (!p || i < 0 || i >= p->nparams) return snprintf(err, errlen, "no parameter %d", i), -1;
  DType d = p->m->func->args[i].value->type->dtype;
  if (d == DT_PTR) return snprintf(err, errlen, "a pointer: give a .npy file"), -1;
  char *end;
  errno = 0;
  if (dt_is_float(d)) {
    double v = strtod(text, &end);
    if (end == text || *end) return snprintf(err, errlen, "'%s' is not a number", text), -1;
    ip_set_f(slot, d, 0, v);
    return 0;
  }
  if (d == DT_I1 && (!strcmp(text, "True") || !strcmp(text, "true"))) return *slot = 1, 0;
  if (d == DT_I1 && (!strcmp(text, "False") || !strcmp(text, "false"))) return 0;
  int bits = dt_bits(d);
  if (dt_is_signed(d)) {
    long long v = strtoll(text, &end, 0);
    long long lo = bits == 64 ? INT64_MIN : -(1ll << (bits - 1)), hi = bits == 64 ? INT64_MAX : (1ll << (bits - 1)) - 1;
    if (end == text || *end) return snprintf(err, errlen, "'%s' is not an integer", text), -1;
    if (errno == ERANGE || v < lo || v > hi) return snprintf(err, errlen, "%s does not fit in %s", text, dt_name(d)), -1;
    ip_set_i(slot, d, 0, v);
    return 0;
  }
  if (text[0] == '-') return snprintf(err, errlen, "%s is negative; %s is unsigned", text, dt_name(d)), -1;
  unsigned long long v = strtoull(text, &end, 0);
  unsigned long long hi = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
  if (end == text || *end) return snprintf(err, errlen, "'%s' is not an integer", text), -1;
  if (errno == ERANGE || v > hi) return snprintf(err, errlen, "%s does not fit in %s", text, dt_name(d)), -1;
  ip_set_i(slot, d, 0, (int64_t)v);
  return 0;
}
