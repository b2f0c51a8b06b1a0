/* compile.c — tlc_compile(): the whole pipeline for one kernel.
 *
 *   parse -> specialize (signature + constexprs) -> passes -> codegen -> PTX
 *
 * Owns option defaults, the order of the stages, timing and turning every
 * stage's failure into located diagnostics in the result.  Each stage lives
 * in its own folder; this file only calls their public headers. */
#include "compiler/tlc_compiler.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "frontend/ast.h"
#include "frontend/diag.h"

void tlc_compile_options_init(tlc_compile_options *opt) {
  memset(opt, 0, sizeof *opt);
  opt->arch = "sm_90a";
  opt->num_warps = 4;
  opt->num_stages = 3;
  opt->emit = TLC_EMIT_PTX;
  opt->opt_level = -1;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

tlc_compile_status tlc_compile(const char *path, const char *source,
                               const tlc_compile_options *opt_in,
                               tlc_compile_result *res) {
  double t0 = now_ms();
  memset(res, 0, sizeof *res);
  tlc_compile_options opt;
  tlc_compile_options_init(&opt);
  if (opt_in) opt = *opt_in;
  if (!opt.arch) opt.arch = "sm_90a";
  if (opt.num_warps <= 0) opt.num_warps = 4;
  if (opt.num_stages <= 0) opt.num_stages = 3;
  if (!path) path = "<string>";

  DiagEngine diag;
  diag_init(&diag);
  diag_add_source(&diag, path, source);
  tlc_compile_status st = TLC_COMPILE_OK;

  Module mod;
  int prc = parse_module(path, source, &diag, &mod);
  if (opt.emit == TLC_EMIT_AST && prc == 0) {
    StrBuf sb;
    sb_init(&sb);
    ast_dump_module(&sb, &mod);
    res->text = sb_take(&sb);
  } else if (prc != 0) {
    st = TLC_COMPILE_ERROR;
  } else {
    diag_plain(&diag, "only --emit ast is implemented so far");
    st = TLC_COMPILE_INTERNAL;
  }
  ast_free(&mod);

  res->diagnostics = sb_take(&diag.out);
  diag_free(&diag);
  res->compile_ms = now_ms() - t0;
  return st;
}

void tlc_compile_result_free(tlc_compile_result *r) {
  free(r->text);
  free(r->diagnostics);
  free(r->dump);
  free(r->kernel_symbol);
  if (r->params)
    for (int i = 0; i < r->nparams; i++) free((char *)r->params[i].name);
  free(r->params);
  memset(r, 0, sizeof *r);
}

static const char *const param_names[] = {
    "ptr", "i1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64",
    "fp16", "bf16", "fp32", "fp64"};
static const size_t param_sizes[] = {8, 1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8};

const char *tlc_param_kind_name(tlc_param_kind k) {
  return (unsigned)k < sizeof param_names / sizeof *param_names ? param_names[k] : "?";
}
size_t tlc_param_kind_size(tlc_param_kind k) {
  return (unsigned)k < sizeof param_sizes / sizeof *param_sizes ? param_sizes[k] : 0;
}

uint64_t tlc_compile_fingerprint(const char *source, const tlc_compile_options *opt) {
  uint64_t h = hash_bytes(TLC_VERSION_STRING, strlen(TLC_VERSION_STRING), 0);
  h = hash_bytes(source, strlen(source), h);
#define MIX_STR(s) h = hash_bytes((s) ? (s) : "\x01", (s) ? strlen(s) + 1 : 1, h)
#define MIX_INT(v) do { long long _v = (v); h = hash_bytes(&_v, sizeof _v, h); } while (0)
  MIX_STR(opt->kernel);
  MIX_STR(opt->signature);
  MIX_INT(opt->nconstexprs);
  for (int i = 0; i < opt->nconstexprs; i++) {
    MIX_STR(opt->constexprs[i].name);
    MIX_STR(opt->constexprs[i].value);
  }
  MIX_STR(opt->arch);
  MIX_INT(opt->num_warps);
  MIX_INT(opt->num_stages);
  MIX_INT(opt->emit);
  MIX_INT(opt->opt_level);
  return h;
#undef MIX_STR
#undef MIX_INT
}
