/* aot_dispatch.c — the dispatcher that tlc compile --autotune --emit c
 * writes for a kernel compiled once per @triton.autotune config.
 *
 * For tag T (NAME, or NAME_KERNEL in a pair of several kernels) the
 * generated C has each config's PTX, a kernel handle per config, and:
 *
 *   T_launch(stream, params)               the config chosen for the key's values
 *   T_launch_config(config, stream, params) one config, as chosen by the caller
 *   T_chosen_config(key params)            the choice for these values, or -1
 *   T_choose_config(config, key params)    make a choice without timing
 *   T_config_text(config)                  "BLOCK=64 num_warps=4 num_stages=3"
 *
 * A choice is made the first time a key's values are seen: every config
 * that loaded is timed on the launch's own arguments with tlc_bench_launch
 * (reset_to_zero and restore_value honoured as the runtime's autotuner
 * honours them) and the fastest is kept in a table of T_KEYS entries (the
 * oldest replaced when it is full), under a mutex; a second mutex lets one
 * thread tune at a time, so trials never overlap.  Key values are compared
 * as 64-bit patterns (integers widened, floats as doubles' bits).  The grid
 * of each config is the --grid expressions with that config's constants
 * (grid.c).  Does not own the pair's files, load and unload (aot.c). */
#include "tools/aot.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

/* Is parameter `param` `name`, or a part of the tensor descriptor `name`
 * (NAME.base, NAME.shape0, ...)? */
static bool param_is(const char *param, const char *name) {
  size_t n = strlen(name);
  return !strcmp(param, name) || (!strncmp(param, name, n) && param[n] == '.');
}

static bool float_kind(tlc_param_kind k) {
  return k == TLC_PARAM_FP16 || k == TLC_PARAM_BF16 || k == TLC_PARAM_FP32 || k == TLC_PARAM_FP64;
}

/* The pointer parameter (a descriptor's base) that a reset_to_zero or
 * restore_value name means; -1 when there is none. */
static int pointer_param(const tlc_compile_result *r, const char *name) {
  for (int p = 0; p < r->nparams; p++)
    if (param_is(r->params[p].name, name) && r->params[p].kind == TLC_PARAM_PTR) return p;
  return -1;
}

static int nkeys(const AotEntry *e) {
  const tlc_compile_result *r = e->variants[0].res;
  int n = 0;
  for (int k = 0; k < e->tune->nkeys; k++)
    for (int p = 0; p < r->nparams; p++) n += param_is(r->params[p].name, e->tune->keys[k]);
  return n;
}

/* Calls put(p) for each runtime parameter a key names, in key order. */
#define FOR_KEY_PARAMS(e, r, p)                                                 \
  for (int k_ = 0; k_ < (e)->tune->nkeys; k_++)                                 \
    for (int p = 0; p < (r)->nparams; p++)                                      \
      if (param_is((r)->params[p].name, (e)->tune->keys[k_]))

/* "TYPE NAME, TYPE NAME" of the key parameters; `none` when there are none. */
static void put_key_decl(FILE *f, const AotEntry *e, const char *lead, const char *none) {
  const tlc_compile_result *r = e->variants[0].res;
  bool any = false;
  FOR_KEY_PARAMS(e, r, p) {
    const char *type, *maker;
    char name[96];
    aot_c_type(r->params[p].kind, &type, &maker);
    aot_c_name(r->params[p].name, name, sizeof name);
    fprintf(f, "%s%s %s", any ? ", " : lead, type, name);
    any = true;
  }
  if (!any) fputs(none, f);
}

/* `const uint64_t key[N] = {...};` from the parameters (from: "" or "c->"). */
static void put_key(FILE *f, const AotEntry *e, const char *from) {
  const tlc_compile_result *r = e->variants[0].res;
  int n = nkeys(e), i = 0;
  fprintf(f, "  const uint64_t key[%d] = {", n ? n : 1);
  FOR_KEY_PARAMS(e, r, p) {
    char name[96];
    aot_c_name(r->params[p].name, name, sizeof name);
    const char *how;
    switch (r->params[p].kind) {
    case TLC_PARAM_I8: case TLC_PARAM_I16: case TLC_PARAM_I32: case TLC_PARAM_I64: how = "(uint64_t)(int64_t)"; break;
    default: how = float_kind(r->params[p].kind) ? "tlc_key_bits" : "(uint64_t)"; break;
    }
    fprintf(f, "%s%s(%s%s)", i++ ? ", " : "", how, from, name);
  }
  fputs(n ? "};\n" : "0};\n", f);
}

/* The key parameters' names as the header's comment lists them. */
static void key_names(const AotEntry *e, char *buf, size_t len) {
  size_t n = 0;
  buf[0] = 0;
  for (int k = 0; k < e->tune->nkeys && n < len; k++)
    n += (size_t)snprintf(buf + n, len - n, "%s%s", k ? ", " : "", e->tune->keys[k]);
}

static void upper(const char *tag, char *buf, size_t len) {
  size_t n = 0;
  for (; tag[n] && n + 1 < len; n++) buf[n] = (char)toupper((unsigned char)tag[n]);
  buf[n] = 0;
}

bool aot_tune_float_key(const AotEntry *e) {
  const tlc_compile_result *r = e->variants[0].res;
  FOR_KEY_PARAMS(e, r, p) if (float_kind(r->params[p].kind)) return true;
  return false;
}

void aot_tune_helpers(FILE *c) {
  fputs("/* A floating-point key value as the 64-bit pattern the choices compare. */\n"
        "static uint64_t tlc_key_bits(double v) {\n  uint64_t u;\n  memcpy(&u, &v, sizeof u);\n  return u;\n}\n\n",
        c);
}

int aot_tune_check(const AotEntry *e, char *why, size_t whylen) {
  const tlc_compile_result *r0 = e->variants[0].res;
  const char *kernel = r0->kernel_symbol;
  if (!e->grid) {
    snprintf(why, whylen, "--autotune: the dispatcher of '%s' computes each config's grid itself: give --grid", kernel);
    return -1;
  }
  for (int v = 1; v < e->nvariants; v++) {
    const tlc_compile_result *r = e->variants[v].res;
    bool same = r->nparams == r0->nparams;
    for (int p = 0; same && p < r->nparams; p++)
      same = r->params[p].kind == r0->params[p].kind && !strcmp(r->params[p].name, r0->params[p].name);
    if (!same) {
      snprintf(why, whylen, "--autotune: configs %d and %d of '%s' take different runtime parameters; one "
               "dispatcher launches them all with the same arguments", e->config_of[0], e->config_of[v], kernel);
      return -1;
    }
  }
  for (int h = 0; h < 2; h++) {
    char **names = h ? e->tune->restore_value : e->tune->reset_to_zero;
    int n = h ? e->tune->nrestore : e->tune->nreset;
    for (int i = 0; i < n; i++)
      if (pointer_param(r0, names[i]) < 0) {
        snprintf(why, whylen, "--autotune: %s names '%s', which is not a pointer parameter of '%s' as compiled; "
                 "the dispatcher puts back what a trial launch changes only in pointer arguments' memory",
                 h ? "restore_value" : "reset_to_zero", names[i], kernel);
        return -1;
      }
  }
  return 0;
}

void aot_tune_declare(FILE *h, const AotEntry *e, const char *tag, const char *prefix) {
  const tlc_compile_result *r = e->variants[0].res;
  const char *kernel = r->kernel_symbol;
  char up[160], keys[512];
  upper(tag, up, sizeof up);
  key_names(e, keys, sizeof keys);
  fprintf(h, "/* %s's configs, as the banner lists them: 0 to %s_NUM_CONFIGS - 1. */\n"
             "#define %s_NUM_CONFIGS %d\n\n", kernel, up, up, e->nvariants);
  fprintf(h, "/* Launch %s on `stream` (NULL: the default stream) with the config\n"
             " * chosen for the values of its key, asynchronously (as tlc_launch):\n"
             " *   key:  %s\n"
             " *   grid: %s, with that config's constants\n"
             " * Key values not seen before choose first, synchronously: every config is\n"
             " * timed on these arguments (tlc_bench_launch: one warm-up and 7 timed\n"
             " * launches) and the fastest is remembered (for the last %s_KEYS key\n"
             " * values: 64 unless defined when compiling %s.c).  A config that cannot\n"
             " * run here (TLC_ERR_LAUNCH, TLC_ERR_LOAD) is left out.\n",
          kernel, *keys ? keys : "none: one choice for every launch", grid_text(e->grid), up, prefix);
  for (int h2 = 0; h2 < 2; h2++) {
    char **names = h2 ? e->tune->restore_value : e->tune->reset_to_zero;
    int n = h2 ? e->tune->nrestore : e->tune->nreset;
    if (!n) continue;
    fputs(h2 ? " *   restore_value:" : " *   reset_to_zero:", h);
    for (int i = 0; i < n; i++) fprintf(h, " %s", names[i]);
    fputs(h2 ? " (copied aside first, back after each trial launch)\n"
             : " (zeroed before each trial launch and after the last)\n", h);
  }
  fprintf(h, " * TLC_PRINT_AUTOTUNING=1 prints each trial.  TLC_ERR_INVALID before\n"
             " * %s_load. */\n", prefix);
  fprintf(h, "tlc_status %s_launch(tlc_stream stream", tag);
  aot_put_params(h, r, AOT_DECL);
  fputs(");\n", h);
  fprintf(h, "/* Launch config `config` as %s_launch would, without choosing.\n"
             " * TLC_ERR_INVALID for a config out of range or before %s_load; a config\n"
             " * that did not load on this device gives the status of its load. */\n", tag, prefix);
  fprintf(h, "tlc_status %s_launch_config(int config, tlc_stream stream", tag);
  aot_put_params(h, r, AOT_DECL);
  fputs(");\n", h);
  fprintf(h, "/* The config %s_launch uses for these key values; -1 before it chose one. */\n"
             "int %s_chosen_config(", tag, tag);
  put_key_decl(h, e, "", "void");
  fprintf(h, ");\n/* Make %s_launch use `config` for these key values without timing\n"
             " * (a choice kept from an earlier run).  TLC_ERR_INVALID out of range. */\n"
             "tlc_status %s_choose_config(int config", tag, tag);
  put_key_decl(h, e, ", ", "");
  fprintf(h, ");\n/* Config `config` as text (\"BLOCK=64 num_warps=4 num_stages=3\"); NULL out\n"
             " * of range. */\nconst char *%s_config_text(int config);\n\n", tag);
}

void aot_tune_objects(FILE *c, const AotEntry *e, const char *tag) {
  char up[160], text[1024];
  upper(tag, up, sizeof up);
  for (int v = 0; v < e->nvariants; v++) {
    char name[200];
    snprintf(name, sizeof name, "%s_ptx_%d", tag, v);
    aot_put_ptx(c, name, e->variants[v].res->text);
  }
  aot_put_param_descs(c, tag, e->variants[0].res);
  fprintf(c, "/* Each config: its PTX and .entry, warps, dynamic shared memory, text. */\n"
             "static const struct {\n  const char *ptx, *symbol;\n  int num_warps, shared_bytes;\n"
             "  const char *text;\n} %s_configs[%d] = {\n", tag, e->nvariants);
  for (int v = 0; v < e->nvariants; v++) {
    const tlc_compile_result *r = e->variants[v].res;
    tlc_tune_config_text(&e->tune->configs[e->config_of[v]], text, sizeof text);
    fprintf(c, "    {%s_ptx_%d, \"%s\", %d, %d, \"%s\"},\n", tag, v, r->kernel_symbol, r->num_warps,
            r->shared_bytes, text);
  }
  fputs("};\n", c);
  fprintf(c, "static tlc_kernel *%s_kernel[%d];       /* NULL: not loaded */\n"
             "static tlc_status %s_load_status[%d];   /* TLC_OK, or why config c did not load */\n\n",
          tag, e->nvariants, tag, e->nvariants);
  int n = nkeys(e);
  fprintf(c, "#ifndef %s_KEYS\n#define %s_KEYS 64\n#endif\n", up, up);
  fprintf(c, "/* The choices: key values (64-bit patterns) and the config chosen for them. */\n"
             "static struct {\n  uint64_t key[%d];\n  int config;\n} %s_chosen[%s_KEYS];\n"
             "static int %s_nchosen, %s_oldest;  /* entries used; the next to replace when full */\n"
             "static pthread_mutex_t %s_lock = PTHREAD_MUTEX_INITIALIZER;       /* the choices */\n"
             "static pthread_mutex_t %s_tune_lock = PTHREAD_MUTEX_INITIALIZER;  /* one choosing at a time */\n\n",
          n ? n : 1, tag, up, tag, tag, tag, tag);
}

void aot_tune_load(FILE *c, const AotEntry *e, const char *tag) {
  int n = e->nvariants, np = e->variants[0].res->nparams;
  fprintf(c, "  /* %s: every config; one this device cannot run (too much shared memory,\n"
             "   * a PTX the driver rejects) is left out while another loads */\n", tag);
  fprintf(c, "  for (int c = 0; st == TLC_OK && c < %d; c++) {\n"
             "    %s_load_status[c] = tlc_kernel_from_ptx(rt, %s_configs[c].ptx, %s_configs[c].symbol,\n"
             "        %s_configs[c].num_warps, %s_configs[c].shared_bytes, %s_params, %d, &%s_kernel[c]);\n"
             "    if (%s_load_status[c] != TLC_OK && %s_load_status[c] != TLC_ERR_LOAD && %s_load_status[c] != TLC_ERR_LAUNCH)\n"
             "      st = %s_load_status[c];\n  }\n",
          n, tag, tag, tag, tag, tag, tag, np, tag, tag, tag, tag, tag);
  fprintf(c, "  if (st == TLC_OK) {\n    int loaded = 0;\n    for (int c = 0; c < %d; c++) loaded += %s_kernel[c] != NULL;\n"
             "    if (!loaded) st = %s_load_status[0];\n  }\n", n, tag, tag);
}

void aot_tune_unload(FILE *c, const AotEntry *e, const char *tag) {
  fprintf(c, "  for (int c = 0; c < %d; c++) {\n    if (%s_kernel[c]) tlc_kernel_unload(%s_kernel[c]);\n"
             "    %s_kernel[c] = NULL, %s_load_status[c] = TLC_OK;\n  }\n",
          e->nvariants, tag, tag, tag, tag);
  fprintf(c, "  pthread_mutex_lock(&%s_lock);  /* choices were made on that device */\n"
             "  %s_nchosen = %s_oldest = 0;\n  pthread_mutex_unlock(&%s_lock);\n", tag, tag, tag, tag);
}

/* T_find and T_remember: the table of choices. */
static void put_table(FILE *c, const char *tag, const char *up) {
  fprintf(c, "static int %s_find(const uint64_t *key) {\n  int config = -1;\n"
             "  pthread_mutex_lock(&%s_lock);\n"
             "  for (int i = 0; i < %s_nchosen && config < 0; i++)\n"
             "    if (!memcmp(%s_chosen[i].key, key, sizeof %s_chosen[i].key)) config = %s_chosen[i].config;\n"
             "  pthread_mutex_unlock(&%s_lock);\n  return config;\n}\n\n",
          tag, tag, tag, tag, tag, tag, tag);
  fprintf(c, "static void %s_remember(const uint64_t *key, int config) {\n"
             "  pthread_mutex_lock(&%s_lock);\n  int i = 0;\n"
             "  while (i < %s_nchosen && memcmp(%s_chosen[i].key, key, sizeof %s_chosen[i].key)) i++;\n"
             "  if (i == %s_nchosen && %s_nchosen < %s_KEYS) %s_nchosen++;\n"
             "  else if (i == %s_nchosen) i = %s_oldest, %s_oldest = (%s_oldest + 1) %% %s_KEYS;\n"
             "  memcpy(%s_chosen[i].key, key, sizeof %s_chosen[i].key);\n  %s_chosen[i].config = config;\n"
             "  pthread_mutex_unlock(&%s_lock);\n}\n\n",
          tag, tag, tag, tag, tag, tag, tag, up, tag, tag, tag, tag, tag, up, tag, tag, tag, tag);
}

/* T_call, T_trial and T_tune: timing every config on one launch's arguments. */
static void put_tuning(FILE *c, const AotEntry *e, const char *tag, const char *prefix) {
  const tlc_compile_result *r = e->variants[0].res;
  const char *kernel = r->kernel_symbol;
  fprintf(c, "/* One launch's arguments, for the trials. */\ntypedef struct %s_call {\n  int config;\n", tag);
  aot_put_params(c, r, AOT_FIELDS);
  fprintf(c, "} %s_call;\n\n", tag);
  fprintf(c, "static tlc_status %s_trial(void *user, tlc_stream stream) {\n  const %s_call *c = user;\n"
             "  return %s_launch_config(c->config, stream", tag, tag, tag);
  aot_put_params(c, r, AOT_FROM);
  fputs(");\n}\n\n", c);

  fprintf(c, "/* Time every config that loaded on c's arguments and remember the fastest\n"
             " * for key (unless another thread did meanwhile): *chosen, or the status\n"
             " * of the failure that stopped it. */\n"
             "static tlc_status %s_tune(const uint64_t *key, %s_call *c, tlc_stream stream, int *chosen) {\n",
          tag, tag);
  fprintf(c, "  pthread_mutex_lock(&%s_tune_lock);\n  int best = %s_find(key);\n"
             "  tlc_status st = TLC_OK, left_out = TLC_OK;\n  if (best < 0) {\n", tag, tag);
  const char *arrays[2] = {"zero", "restore"};
  for (int h = 0; h < 2; h++) {
    char **names = h ? e->tune->restore_value : e->tune->reset_to_zero;
    int n = h ? e->tune->nrestore : e->tune->nreset;
    if (!n) continue;
    fprintf(c, "    const tlc_devptr %s[] = {", arrays[h]);
    for (int i = 0; i < n; i++) {
      char name[96];
      aot_c_name(r->params[pointer_param(r, names[i])].name, name, sizeof name);
      fprintf(c, "%sc->%s", i ? ", " : "", name);
    }
    fputs("};\n", c);
  }
  fprintf(c, "    const tlc_bench_options o = {.warmup = 1, .reps = 7, .zero = %s, .nzero = %d,\n"
             "                                 .restore = %s, .nrestore = %d};\n",
          e->tune->nreset ? "zero" : "NULL", e->tune->nreset, e->tune->nrestore ? "restore" : "NULL",
          e->tune->nrestore);
  fprintf(c, "    const char *print = getenv(\"TLC_PRINT_AUTOTUNING\");\n"
             "    bool verbose = print && *print && strcmp(print, \"0\") != 0;\n"
             "    float best_ms = -1;\n"
             "    for (int i = 0; i < %d && st == TLC_OK; i++) {\n"
             "      float ms = -1;\n      c->config = i;\n"
             "      tlc_status s = %s_kernel[i] ? tlc_bench_launch(%s_runtime, %s_trial, c, stream, &o, &ms)\n"
             "                                 : %s_load_status[i];\n",
          e->nvariants, tag, prefix, tag, tag);
  fprintf(c, "      if (verbose && s == TLC_OK)\n"
             "        fprintf(stderr, \"autotune: %s config %%d (%%s): %%.1f us\\n\", i, %s_configs[i].text, ms * 1e3);\n"
             "      else if (verbose)\n"
             "        fprintf(stderr, \"autotune: %s config %%d (%%s): %%s\\n\", i, %s_configs[i].text, tlc_status_name(s));\n",
          kernel, tag, kernel, tag);
  fputs("      if (s == TLC_ERR_LAUNCH || s == TLC_ERR_LOAD) { /* cannot run here (for these arguments) */\n"
        "        if (left_out == TLC_OK) left_out = s;\n"
        "      } else if (s != TLC_OK) {\n"
        "        st = s; /* a fault or a bad argument: every config would fail alike */\n"
        "      } else if (best < 0 || ms < best_ms) {\n"
        "        best = i, best_ms = ms;\n      }\n    }\n", c);
  fprintf(c, "    if (st == TLC_OK && best < 0) st = left_out;\n"
             "    if (st == TLC_OK) %s_remember(key, best);\n"
             "    if (st == TLC_OK && verbose) fprintf(stderr, \"autotune: %s chose config %%d (%%s)\\n\", best, %s_configs[best].text);\n"
             "  }\n  pthread_mutex_unlock(&%s_tune_lock);\n  *chosen = best;\n  return st;\n}\n\n",
          tag, kernel, tag, tag);
}

void aot_tune_define(FILE *c, const AotEntry *e, const char *tag, const char *prefix) {
  const tlc_compile_result *r0 = e->variants[0].res;
  char up[160];
  upper(tag, up, sizeof up);
  put_table(c, tag, up);

  fprintf(c, "tlc_status %s_launch_config(int config, tlc_stream stream", tag);
  aot_put_params(c, r0, AOT_DECL);
  fprintf(c, ") {\n  if (config < 0 || config >= %s_NUM_CONFIGS || !%s_runtime) return TLC_ERR_INVALID;\n"
             "  if (!%s_kernel[config]) return %s_load_status[config] != TLC_OK ? %s_load_status[config] : TLC_ERR_INVALID;\n"
             "  switch (config) {\n", up, prefix, tag, tag, tag);
  for (int v = 0; v < e->nvariants; v++) {
    fprintf(c, "  case %d: {\n", v);
    char kexpr[200];
    snprintf(kexpr, sizeof kexpr, "%s_kernel[%d]", tag, v);
    aot_put_launch_body(c, e->variants[v].res, e->grid, kexpr, "  ");
  }
  fputs("  default:\n    return TLC_ERR_INVALID;\n  }\n}\n\n", c);

  put_tuning(c, e, tag, prefix);

  fprintf(c, "tlc_status %s_launch(tlc_stream stream", tag);
  aot_put_params(c, r0, AOT_DECL);
  fprintf(c, ") {\n  if (!%s_runtime) return TLC_ERR_INVALID;\n", prefix);
  put_key(c, e, "");
  fprintf(c, "  int config = %s_find(key);\n  if (config < 0) {\n    %s_call call = {-1", tag, tag);
  aot_put_params(c, r0, AOT_NAMES);
  fprintf(c, "};\n    tlc_status st = %s_tune(key, &call, stream, &config);\n    if (st != TLC_OK) return st;\n  }\n"
             "  return %s_launch_config(config, stream", tag, tag);
  aot_put_params(c, r0, AOT_NAMES);
  fputs(");\n}\n\n", c);

  fprintf(c, "int %s_chosen_config(", tag);
  put_key_decl(c, e, "", "void");
  fputs(") {\n", c);
  put_key(c, e, "");
  fprintf(c, "  return %s_find(key);\n}\n\n", tag);

  fprintf(c, "tlc_status %s_choose_config(int config", tag);
  put_key_decl(c, e, ", ", "");
  fprintf(c, ") {\n  if (config < 0 || config >= %s_NUM_CONFIGS) return TLC_ERR_INVALID;\n", up);
  put_key(c, e, "");
  fprintf(c, "  %s_remember(key, config);\n  return TLC_OK;\n}\n\n", tag);

  fprintf(c, "const char *%s_config_text(int config) {\n"
             "  return config >= 0 && config < %s_NUM_CONFIGS ? %s_configs[config].text : NULL;\n}\n",
          tag, up, tag);
}
