/* compile.c — tlc_compile(): the whole pipeline for one kernel.
 *
 *   parse -> specialize (signature + constexprs) -> passes -> codegen -> PTX
 *
 * Owns option defaults, the order of the stages, timing and turning every
 * stage's failure into located diagnostics in the result.  Each stage lives
 * in its own folder; this file only calls their public headers. */
#include "compiler/compiler_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "frontend/frontend.h"
#include "spec/spec.h"
#include "ir/ir.h"
#include "passes/passes.h"

/* ---- options: the defaults and the checks, in one place ---------------------
 * Every entry point that takes options (tlc_compile, tlc_opt_ir,
 * tlc_autotune_info, the fingerprint) resolves them here first
 * (compiler_resolve_options), so a zero field means the same default
 * everywhere and nothing out of range reaches a stage. */

/* The defaults, written once.  Triton's are the same (num_warps=4,
 * num_stages=3). */
static const tlc_compile_options tlc_defaults = {
    .arch = "sm_90a", .num_warps = 4, .num_stages = 3, .emit = TLC_EMIT_PTX, .opt_level = 3,
};

void tlc_compile_options_init(tlc_compile_options *opt) { *opt = tlc_defaults; }

int tlc_math_lib_parse(const char *word, tlc_math_lib *out) {
  static const struct { const char *word; tlc_math_lib lib; } t[] = {
      {"auto", TLC_MATH_AUTO}, {"libdevice", TLC_MATH_LIBDEVICE}, {"libclc", TLC_MATH_LIBCLC}};
  for (size_t i = 0; word && i < sizeof t / sizeof t[0]; i++)
    if (!strcmp(word, t[i].word)) return *out = t[i].lib, 0;
  return -1;
}

int tlc_math_lib_from_env(tlc_math_lib *out) {
  const char *e = getenv("TLC_MATH_LIB");
  if (!e || !*e) return *out = TLC_MATH_AUTO, 0;
  return tlc_math_lib_parse(e, out);
}

/* TLC_MATH_AUTO: libdevice when a file is named (--libdevice,
 * $TLC_LIBDEVICE: it must then be usable, and code generation says why
 * not) or the search finds one, else libclc. */
static tlc_math_lib math_lib_auto(const char *given) {
  const char *env = getenv("TLC_LIBDEVICE");
  if (given || (env && *env)) return TLC_MATH_LIBDEVICE;
  char *found = cg_libdevice_locate(NULL, NULL);
  free(found);
  return found ? TLC_MATH_LIBDEVICE : TLC_MATH_LIBCLC;
}

tlc_math_lib tlc_math_lib_resolve(tlc_math_lib lib, const char *libdevice) {
  return lib == TLC_MATH_AUTO ? math_lib_auto(libdevice) : lib;
}

/* Unset fields: NULL arch, zero num_warps / num_stages, negative opt_level;
 * TLC_MATH_AUTO becomes the library it picks. */
tlc_compile_options compiler_resolve_options(const tlc_compile_options *in) {
  tlc_compile_options o = in ? *in : tlc_defaults;
  if (!o.arch) o.arch = tlc_defaults.arch;
  if (o.num_warps == 0) o.num_warps = tlc_defaults.num_warps;
  if (o.num_stages == 0) o.num_stages = tlc_defaults.num_stages;
  if (o.opt_level < 0) o.opt_level = tlc_defaults.opt_level;
  o.math_lib = tlc_math_lib_resolve(o.math_lib, o.libdevice);
  return o;
}

/* An arch NVIDIA has or may name after sm_90a ("sm_100a", "sm_120",
 * "sm_103f"): digits past 90 and at most an 'a' or 'f' suffix. */
static bool arch_is_newer(const char *arch) {
  if (strncmp(arch, "sm_", 3) != 0) return false;
  const char *p = arch + 3;
  while (*p >= '0' && *p <= '9') p++;
  if (p == arch + 3 || compiler_capability(arch) <= 90) return false;
  return !*p || ((*p == 'a' || *p == 'f') && !p[1]);
}

/* The first problem with resolved options, written into msg; 0 when none. */
static int options_problem(const tlc_compile_options *o, char *msg, size_t size) {
  int w = o->num_warps;
  const char *bad;
  size_t bad_len = 0;
  if (!cg_ptx_features(o->arch) && arch_is_newer(o->arch))
    /* Blackwell and later: LLVM 19's NVPTX backend stops at sm_90a and PTX
     * ISA 8.5.  PTX for sm_90 (not sm_90a: an 'a' target runs on its own
     * GPU only) is what such a device runs, through the driver's JIT. */
    snprintf(msg, size, "arch '%s' is newer than tlc can compile for (LLVM 19's NVPTX backend "
             "stops at sm_90a); compile for sm_90, whose PTX the driver compiles forward for "
             "newer GPUs", o->arch);
  else if (!cg_ptx_features(o->arch))
    snprintf(msg, size, "unknown arch '%s' (expected sm_70, sm_75, sm_80, sm_86, sm_87, sm_89, "
             "sm_90 or sm_90a)", o->arch);
  else if (w < 1 || w > SPEC_MAX_WARPS || (w & (w - 1)))
    snprintf(msg, size, "num_warps must be a power of two from 1 to %d, not %d", SPEC_MAX_WARPS, w);
  else if (o->num_stages < 1 || o->num_stages > SPEC_MAX_STAGES)
    snprintf(msg, size, "num_stages must be from 1 to %d, not %d", SPEC_MAX_STAGES, o->num_stages);
  else if (o->opt_level > 3)
    snprintf(msg, size, "the optimisation level must be 0, 1, 2 or 3, not %d", o->opt_level);
  else if ((unsigned)o->emit > TLC_EMIT_PTX)
    snprintf(msg, size, "unknown emit kind %d", (int)o->emit);
  else if ((unsigned)o->math_lib > TLC_MATH_AUTO)
    snprintf(msg, size, "unknown math library %d (TLC_MATH_LIBCLC, TLC_MATH_LIBDEVICE or TLC_MATH_AUTO)",
             (int)o->math_lib);
  else if (o->nconstexprs < 0 || (o->nconstexprs > 0 && !o->constexprs))
    snprintf(msg, size, "%d constexprs but %s", o->nconstexprs,
             o->nconstexprs < 0 ? "a negative count" : "a NULL array");
  else if (o->dump_after && !pass_exists(o->dump_after))
    snprintf(msg, size, "dump_after: no pass named '%s'", o->dump_after);
  else if ((bad = pass_not_skippable(o->skip_passes, &bad_len))) {
    char names[256];
    pass_optional_names(names, sizeof names);
    int n = bad_len > 64 ? 64 : (int)bad_len; /* (a name is never that long) */
    snprintf(msg, size, "skip_passes: '%.*s' is not a pass that may be left out (%s)", n, bad, names);
  } else
    return 0;
  return -1;
}

int tlc_compile_options_check(const tlc_compile_options *opt, char *msg, size_t size) {
  char buf[512];
  tlc_compile_options o = compiler_resolve_options(opt);
  int rc = options_problem(&o, buf, sizeof buf);
  if (rc && msg && size) snprintf(msg, size, "%s", buf);
  return rc;
}

bool compiler_split_orphaned(const IrModule *m) {
  return m->warps_asked && !m->producer_warps && !m->split_alone;
}

int compiler_capability(const char *arch) {
  int cap = 0;
  if (arch && !strncmp(arch, "sm_", 3)) cap = atoi(arch + 3);
  return cap;
}

/* CUtensorMapDataType of an element type (8-bit types move as bytes). */
static int tma_data_type(DType d) {
  switch (d) {
  case DT_F16: return 6;
  case DT_BF16: return 9;
  case DT_F32: return 7;
  case DT_F64: return 8;
  case DT_I32: return 3;
  case DT_U32: return 2;
  case DT_I64: return 5;
  case DT_U64: return 4;
  case DT_I16: case DT_U16: return 1;
  default: return 0;
  }
}

static void tma_recipe(const IrTmaDesc *d, tlc_tma_recipe *r) {
  r->base_param = d->base_arg;
  r->data_type = tma_data_type(d->dtype);
  r->elem_bytes = dt_bits(d->dtype) / 8;
  r->rank = d->rank;
  for (int k = 0; k < d->rank && k < TLC_TMA_MAX_RANK; k++) {
    r->dims[k] = (tlc_tma_value){d->dims[k].arg, d->dims[k].value};
    r->strides[k] = (tlc_tma_value){d->strides[k].arg, d->strides[k].value};
    r->box[k] = d->box[k];
  }
  r->swizzle = d->swizzle;
}

/* What a failed stage left in diag: an internal error if one was reported
 * (or nothing at all, which is itself a bug), else the user's error. */
static tlc_compile_status failed_status(DiagEngine *diag, const char *stage) {
  if (diag->nerrors == 0)
    diag_internal(diag, (Loc){0}, NULL, "%s failed without a diagnostic", stage);
  return diag->ninternal ? TLC_COMPILE_INTERNAL : TLC_COMPILE_ERROR;
}

static char *print_module(const IrModule *m) {
  StrBuf sb;
  sb_init(&sb);
  ir_print_module(&sb, m);
  return sb_take(&sb);
}

/* The launch facts of the compiled kernel, for the result. */
static void describe_kernel(const IrModule *m, const CgResult *cr, tlc_compile_result *res) {
  res->kernel_symbol = xstrdup(m->func->name);
  res->num_warps = m->num_warps + m->producer_warps; /* the launch: consumers and producer */
  res->shared_bytes = cr->shared_bytes;
  res->nparams = m->func->nargs;
  res->params = xcalloc((size_t)m->func->nargs + 1, sizeof *res->params);
  for (int i = 0; i < m->func->nargs; i++) {
    res->params[i].name = xstrdup(m->func->args[i].name);
    res->params[i].kind = dt_param_kind(m->func->args[i].value->type->dtype);
  }
  res->ntma = m->func->ntma;
  res->tma = xcalloc((size_t)m->func->ntma + 1, sizeof *res->tma);
  for (int i = 0; i < m->func->ntma; i++) tma_recipe(&m->func->tma[i], &res->tma[i]);
  res->nconstexprs = m->nconsts;
  res->constexprs = xcalloc((size_t)m->nconsts + 1, sizeof *res->constexprs);
  for (int i = 0; i < m->nconsts; i++)
    res->constexprs[i] = (tlc_constexpr_def){xstrdup(m->const_names[i]), xstrdup(m->const_values[i])};
}

/* Specialize, run the passes, generate code; fills res on success.  Every
 * failure has been reported to diag by the stage that failed. */
static tlc_compile_status run_pipeline(const Module *mod, const tlc_compile_options *opt,
                                       Arena *arena, DiagEngine *diag, StrBuf *dump,
                                       tlc_compile_result *res) {
  double t = clock_ms();
  SpecConstexpr *cdefs = xcalloc((size_t)opt->nconstexprs + 1, sizeof *cdefs);
  for (int i = 0; i < opt->nconstexprs; i++)
    cdefs[i] = (SpecConstexpr){opt->constexprs[i].name, opt->constexprs[i].value};
  SpecRequest req = {opt->kernel, opt->signature, cdefs, opt->nconstexprs, opt->num_warps,
                     opt->num_stages, opt->arch, compiler_capability(opt->arch)};
  req.debug = opt->debug;
  req.libdevice = opt->math_lib == TLC_MATH_LIBDEVICE;
  IrModule *m = NULL;
  size_t dump_start = dump ? dump->len : 0;
  /* a second try when the consumer-warpgroups split found no producer */
  for (bool keep_warps = false;; keep_warps = true) {
    m = spec_kernel(mod, &req, arena, diag);
    res->stage_ms[TLC_STAGE_FRONTEND] += clock_ms() - t;
    if (!m) {
      free(cdefs);
      return failed_status(diag, "specialization");
    }
    m->warp_specialize = opt->warp_specialize;
    m->keep_warps = keep_warps;
    if (ir_verify_report(m, false, diag, true, "after specialization")) {
      free(cdefs);
      return TLC_COMPILE_INTERNAL;
    }
    if (opt->emit == TLC_EMIT_TIR_SPEC) {
      free(cdefs);
      res->text = print_module(m);
      return TLC_COMPILE_OK;
    }
    PassOptions po = {opt->verify_each, opt->dump_after, dump, diag, opt->skip_passes};
    t = clock_ms();
    int prc = pass_run_pipeline(m, &po);
    res->stage_ms[TLC_STAGE_PASSES] += clock_ms() - t;
    if (prc != 0) {
      free(cdefs);
      return failed_status(diag, "the pass pipeline");
    }
    if (!compiler_split_orphaned(m)) break;
    if (dump && dump->data) dump->len = dump_start, dump->data[dump_start] = 0; /* --dump-after: the try kept */
    t = clock_ms();
  }
  free(cdefs);
  if (opt->emit == TLC_EMIT_TIR) {
    res->text = print_module(m);
    return TLC_COMPILE_OK;
  }
  CgOptions co = {opt->arch, opt->opt_level, opt->emit == TLC_EMIT_LLVM, opt->emit == TLC_EMIT_PTX,
                  opt->math_lib == TLC_MATH_LIBDEVICE, opt->libdevice};
  CgResult cr = {0};
  int crc = cg_compile(m, &co, &cr, diag);
  res->stage_ms[TLC_STAGE_LLVM_IR] = cr.lower_ms;
  res->stage_ms[TLC_STAGE_OPTIMIZE] = cr.opt_ms;
  res->stage_ms[TLC_STAGE_PTX] = cr.emit_ms;
  if (crc != 0) {
    free(cr.llvm_ir);
    free(cr.ptx);
    return failed_status(diag, "code generation");
  }
  res->text = opt->emit == TLC_EMIT_LLVM ? cr.llvm_ir : cr.ptx;
  free(opt->emit == TLC_EMIT_LLVM ? cr.ptx : cr.llvm_ir);
  describe_kernel(m, &cr, res);
  return TLC_COMPILE_OK;
}

tlc_compile_status tlc_compile(const char *path, const char *source,
                               const tlc_compile_options *opt_in,
                               tlc_compile_result *res) {
  double t0 = clock_ms();
  memset(res, 0, sizeof *res);
  tlc_compile_options opt = compiler_resolve_options(opt_in);
  if (!path) path = "<string>";

  DiagEngine diag;
  diag_init(&diag);
  diag.color = opt.color;
  diag_add_source(&diag, path, source);
  tlc_compile_status st = TLC_COMPILE_OK;

  Module mod;
  memset(&mod, 0, sizeof mod);
  Arena arena;
  arena_init(&arena);
  StrBuf dump;
  sb_init(&dump);
  char problem[512];
  if (options_problem(&opt, problem, sizeof problem)) {
    diag_plain(&diag, "%s", problem);
    st = TLC_COMPILE_ERROR;
  } else if (parse_module(path, source, &diag, &mod) != 0) {
    res->stage_ms[TLC_STAGE_FRONTEND] = clock_ms() - t0;
    st = TLC_COMPILE_ERROR;
  } else if (opt.emit == TLC_EMIT_AST) {
    StrBuf sb;
    sb_init(&sb);
    ast_dump_module(&sb, &mod);
    res->text = sb_take(&sb);
  } else {
    res->stage_ms[TLC_STAGE_FRONTEND] = clock_ms() - t0;
    st = run_pipeline(&mod, &opt, &arena, &diag, &dump, res);
  }
  if (diag.ninternal)
    diag_note(&diag, (Loc){0}, "this is a bug in tlc %s, not in the kernel; please report it with "
              "the .tile file and the command line", TLC_VERSION_STRING);
  if (dump.len) res->dump = sb_take(&dump);
  sb_free(&dump);
  ast_free(&mod);
  arena_free(&arena);
  if (st != TLC_COMPILE_OK) {
    free(res->text);
    res->text = NULL;
  }

  res->diagnostics = sb_take(&diag.out);
  diag_free(&diag);
  res->compile_ms = clock_ms() - t0;
  return st;
}

const char *tlc_stage_name(tlc_stage s) {
  static const char *const names[TLC_STAGE__COUNT] = {"front end", "passes", "LLVM IR", "optimisation",
                                                      "PTX"};
  return (unsigned)s < TLC_STAGE__COUNT ? names[s] : "?";
}

int tlc_pass_info(int i, const char **name, const char **summary) {
  if (i < 0 || i >= pass_count) return -1;
  if (name) *name = pass_table[i].name;
  if (summary) *summary = pass_table[i].summary;
  return 0;
}

void tlc_compile_result_free(tlc_compile_result *r) {
  free(r->tma);
  free(r->text);
  free(r->diagnostics);
  free(r->dump);
  free(r->kernel_symbol);
  if (r->params)
    for (int i = 0; i < r->nparams; i++) free((char *)r->params[i].name);
  free(r->params);
  for (int i = 0; r->constexprs && i < r->nconstexprs; i++) {
    free((char *)r->constexprs[i].name);
    free((char *)r->constexprs[i].value);
  }
  free(r->constexprs);
  memset(r, 0, sizeof *r);
}

/* A string field: its length, a colon and its bytes (unambiguous whatever
 * it holds, newlines included); "-" for none. */
static void request_str(StrBuf *sb, const char *field, const char *s) {
  if (s) sb_printf(sb, "%s %zu:%s\n", field, strlen(s), s);
  else sb_printf(sb, "%s -\n", field);
}

char *tlc_compile_request(const char *source, const tlc_compile_options *opt_in) {
  tlc_compile_options o = compiler_resolve_options(opt_in);
  const tlc_compile_options *opt = &o;
  StrBuf sb;
  sb_init(&sb);
  char digest[33];
  hash128_hex(hash128(source, strlen(source)), digest);
  sb_printf(&sb, "tlc %s\nsource xxh3-128 %s\n", TLC_VERSION_STRING, digest);
  request_str(&sb, "kernel", opt->kernel);
  request_str(&sb, "signature", opt->signature);
  for (int i = 0; i < opt->nconstexprs; i++) {
    request_str(&sb, "constexpr", opt->constexprs[i].name);
    request_str(&sb, "value", opt->constexprs[i].value);
  }
  request_str(&sb, "arch", opt->arch);
  sb_printf(&sb, "num_warps %d\nnum_stages %d\nemit %d\nopt_level %d\ndebug %d\nwarp_specialize %d\nmath_lib %d\n",
            opt->num_warps, opt->num_stages, (int)opt->emit, opt->opt_level, opt->debug, opt->warp_specialize,
            (int)opt->math_lib);
  if (opt->math_lib == TLC_MATH_LIBDEVICE)
    sb_printf(&sb, "libdevice %016llx\n", (unsigned long long)cg_libdevice_identity(opt->libdevice));
  if (opt->skip_passes && *opt->skip_passes) request_str(&sb, "skip_passes", opt->skip_passes);
  const char *llvm_args = getenv("TLC_LLVM_ARGS"); /* (codegen reads it: it may change the PTX) */
  if (llvm_args && *llvm_args) request_str(&sb, "llvm_args", llvm_args);
  const char *llvm_pipeline = getenv("TLC_LLVM_PIPELINE"); /* (the O-pipeline's text, when replaced) */
  if (llvm_pipeline && *llvm_pipeline) request_str(&sb, "llvm_pipeline", llvm_pipeline);
  return sb_take(&sb);
}

void tlc_compile_fingerprint(const char *source, const tlc_compile_options *opt, char hex[33]) {
  char *req = tlc_compile_request(source, opt);
  hash128_hex(hash128(req, strlen(req)), hex);
  free(req);
}

/* ---- autotune decorators ---------------------------------------------------- */

tlc_compile_status tlc_autotune_info(const char *path, const char *source, const char *kernel,
                                     const char *arch, tlc_tune_info *out) {
  return tlc_autotune_info_for(path, source, kernel, arch, NULL, NULL, 0, out);
}

tlc_compile_status tlc_autotune_info_for(const char *path, const char *source, const char *kernel,
                                         const char *arch, const char *signature,
                                         const tlc_constexpr_def *args, int nargs, tlc_tune_info *out) {
  memset(out, 0, sizeof *out);
  if (!path) path = "<string>";
  DiagEngine diag;
  diag_init(&diag);
  diag_add_source(&diag, path, source);
  Module mod;
  Arena arena;
  arena_init(&arena);
  tlc_compile_status st = TLC_COMPILE_OK;
  if (parse_module(path, source, &diag, &mod) != 0) {
    st = TLC_COMPILE_ERROR;
    ast_free(&mod);
  } else {
    if (!arch) arch = tlc_defaults.arch;
    SpecConstexpr *defs = xcalloc((size_t)(nargs > 0 ? nargs : 0) + 1, sizeof *defs);
    for (int i = 0; i < nargs; i++) defs[i] = (SpecConstexpr){args[i].name, args[i].value};
    SpecRequest req = {.kernel = kernel, .arch = arch, .capability = compiler_capability(arch),
                       .num_warps = tlc_defaults.num_warps, .num_stages = tlc_defaults.num_stages,
                       .signature = signature, .constexprs = defs, .nconstexprs = nargs > 0 ? nargs : 0};
    SpecTune t;
    bool ok = spec_autotune(&mod, &req, &arena, &diag, &t);
    free(defs);
    if (!ok) {
      st = TLC_COMPILE_ERROR;
    } else if (t.present) {
      out->present = 1;
      out->nconfigs = t.nconfigs;
      out->configs = xcalloc((size_t)t.nconfigs + 1, sizeof *out->configs);
      for (int i = 0; i < t.nconfigs; i++) {
        tlc_tune_config *c = &out->configs[i];
        c->num_warps = t.configs[i].num_warps;
        c->num_stages = t.configs[i].num_stages;
        c->pruned = t.configs[i].pruned;
        c->nconstexprs = t.configs[i].n;
        c->constexprs = xcalloc((size_t)c->nconstexprs + 1, sizeof *c->constexprs);
        for (int j = 0; j < c->nconstexprs; j++)
          c->constexprs[j] = (tlc_constexpr_def){xstrdup(t.configs[i].names[j]), xstrdup(t.configs[i].values[j])};
      }
      out->nkeys = t.nkeys;
      out->keys = xcalloc((size_t)t.nkeys + 1, sizeof(char *));
      for (int i = 0; i < t.nkeys; i++) out->keys[i] = xstrdup(t.keys[i]);
      out->nreset = t.nreset;
      out->reset_to_zero = xcalloc((size_t)t.nreset + 1, sizeof(char *));
      for (int i = 0; i < t.nreset; i++) out->reset_to_zero[i] = xstrdup(t.reset_to_zero[i]);
      out->nrestore = t.nrestore;
      out->restore_value = xcalloc((size_t)t.nrestore + 1, sizeof(char *));
      for (int i = 0; i < t.nrestore; i++) out->restore_value[i] = xstrdup(t.restore_value[i]);
    }
    ast_free(&mod);
  }
  arena_free(&arena);
  out->diagnostics = sb_take(&diag.out);
  diag_free(&diag);
  return st;
}

void tlc_tune_config_text(const tlc_tune_config *c, char *buf, size_t len) {
  if (!len) return;
  size_t n = 0;
  buf[0] = 0;
  for (int j = 0; j < c->nconstexprs && n < len; j++)
    n += (size_t)snprintf(buf + n, len - n, "%s=%s ", c->constexprs[j].name, c->constexprs[j].value);
  if (n < len) snprintf(buf + n, len - n, "num_warps=%d num_stages=%d", c->num_warps, c->num_stages);
}

void tlc_tune_info_free(tlc_tune_info *info) {
  for (int i = 0; i < info->nconfigs; i++) {
    for (int j = 0; j < info->configs[i].nconstexprs; j++) {
      free((char *)info->configs[i].constexprs[j].name);
      free((char *)info->configs[i].constexprs[j].value);
    }
    free(info->configs[i].constexprs);
  }
  free(info->configs);
  for (int i = 0; i < info->nkeys; i++) free(info->keys[i]);
  free(info->keys);
  for (int i = 0; i < info->nreset; i++) free(info->reset_to_zero[i]);
  free(info->reset_to_zero);
  for (int i = 0; i < info->nrestore; i++) free(info->restore_value[i]);
  free(info->restore_value);
  free(info->diagnostics);
  memset(info, 0, sizeof *info);
}
