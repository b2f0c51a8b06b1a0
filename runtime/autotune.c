/* autotune.c — @triton.autotune at run time: compile every config of the
 * decorator, time each on the caller's arguments, keep the fastest per key.
 *
 * The decorator is read by the compiler (tlc_autotune_info); this file owns
 * the trials, the key (the cache's hash, XXH3-128, of the source, kernel,
 * signature, options and the values of the key arguments), the in-memory
 * table of choices and the disk record of each choice (<cache
 * dir>/tune-<key>.json, JSON through cJSON, holding the key, the chosen
 * config's index and text; ignored unless both still match).
 * On the CPU device nothing is timed: the first config left after pruning
 * is compiled and remembered.
 *
 * Trials (tlc_bench_launch, bench.c): every config is compiled first, on
 * several threads (compile_configs: $TLC_COMPILE_THREADS, else the CPUs);
 * then, in TRIAL_ROUNDS rounds over the configs, one launch to warm up and
 * TRIAL_REPS launches timed with events; a config's best median decides.  Arguments named in
 * reset_to_zero are zeroed (their whole allocation, found through the
 * runtime's allocation table) before each and once after the last; those in
 * restore_value are copied aside first and back after each; a buffer of
 * four L2s is memset before each launch (do_bench's cache eviction).
 * Before the trials, prune_configs_by is evaluated for the launch's scalar
 * arguments (tlc_autotune_info_for) and the configs it drops are not tried. */
#include "runtime/rt_internal.h"

#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "compiler/tlc_compiler.h" /* tlc_autotune_info */
#include "runtime/cache.h"         /* rt_hash128, atomic writes, the size bound */

enum { TRIAL_REPS = 7, TRIAL_ROUNDS = 2 };
/* the memset before each trial launch that evicts L2, as do_bench's (which
 * clears 256 MB): four times the L2 (200 MiB on H100) */
enum { TRIAL_FLUSH_L2S = 4 };

tlc_status tlc_kernel_constexpr_int(const tlc_kernel *k, const char *name, int64_t *out) {
  if (!k || !name || !out) return TLC_ERR_INVALID;
  size_t n = strlen(name);
  for (int i = 0; i < k->ncx; i++)
    if (!strncmp(k->cx[i], name, n) && k->cx[i][n] == '=') {
      char *end;
      long long v = strtoll(k->cx[i] + n + 1, &end, 0);
      if (*end) return TLC_ERR_INVALID;
      *out = v;
      return TLC_OK;
    }
  return TLC_ERR_INVALID;
}

int tlc_kernel_tuned_config(const tlc_kernel *k) {
  if (!k) return -1;
  for (struct RtTuned *t = k->rt->tuned; t; t = t->next)
    if (t->k == k) return t->config;
  return -1;
}

static bool print_tuning(void);

/* The choice's key is the cache's one hash (rt_hash128, XXH3-128) of its
 * parts, each written with its length so no two lists of parts read alike. */
static void mix(FILE *f, const void *p, size_t n) {
  uint64_t len = n;
  fwrite(&len, sizeof len, 1, f);
  fwrite(p, 1, n, f);
}
static void mix_str(FILE *f, const char *s) { mix(f, s ? s : "", s ? strlen(s) + 1 : 0); }

/* Options for config c: the caller's constexprs plus the config's. */
static tlc_kernel_options config_options(const tlc_kernel_options *opt, const tlc_tune_config *c,
                                         const char **cx, char (*store)[160]) {
  tlc_kernel_options o = opt ? *opt : (tlc_kernel_options){0};
  int n = 0;
  for (int i = 0; opt && i < opt->nconstexprs && n < 32; i++) cx[n++] = opt->constexprs[i];
  for (int j = 0; j < c->nconstexprs && n < 64; j++) {
    snprintf(store[j], sizeof store[j], "%s=%s", c->constexprs[j].name, c->constexprs[j].value);
    cx[n++] = store[j];
  }
  o.constexprs = cx;
  o.nconstexprs = n;
  o.num_warps = c->num_warps;
  o.num_stages = c->num_stages;
  return o;
}

/* Whether parameter i is `name` or a part of the tensor descriptor `name`
 * (NAME.base, NAME.shape0, ...). */
static bool param_is(const tlc_kernel *k, int i, const char *name) {
  const char *p = k->meta.params[i].name;
  size_t n = strlen(name);
  return !strcmp(p, name) || (!strncmp(p, name, n) && p[n] == '.');
}

/* The key arguments' values, for the choice's key; args are per parameter
 * (descriptors expanded). */
static void key_values(FILE *f, const tlc_kernel *k, const tlc_tune_info *info, const tlc_arg *args) {
  for (int i = 0; i < info->nkeys; i++) {
    mix_str(f, info->keys[i]);
    for (int p = 0; p < k->meta.nparams; p++)
      if (param_is(k, p, info->keys[i])) mix(f, &args[p].v, sizeof args[p].v);
    /* a key given as a constexpr is part of the signature or the options */
  }
}

/* The pointer arguments that `names` (reset_to_zero, restore_value) name,
 * into out: a descriptor's base for a descriptor; a name that is no pointer
 * parameter is left out.  Returns how many. */
static int named_ptrs(const tlc_kernel *k, char *const *names, int n, const tlc_arg *pargs, tlc_devptr *out) {
  int m = 0;
  for (int i = 0; i < n; i++)
    for (int p = 0; p < k->meta.nparams; p++)
      if (param_is(k, p, names[i]) && k->meta.params[p].kind == TLC_PARAM_PTR && pargs[p].kind == TLC_ARG_PTR) {
        out[m++] = pargs[p].v.ptr;
        break;
      }
  return m;
}

/* One trial launch: k on its grid with the caller's arguments. */
typedef struct TrialLaunch {
  tlc_kernel *k;
  unsigned g[3];
  const tlc_arg *args;
  int nargs;
} TrialLaunch;

static tlc_status trial_launch(void *user, tlc_stream stream) {
  const TrialLaunch *t = user;
  return tlc_launch(t->k, t->g[0], t->g[1], t->g[2], stream, t->args, t->nargs);
}

/* Median time of one config in ms (tlc_bench_launch: reset_to_zero and
 * restore_value honoured); < 0 when it could not run.  args are the
 * caller's, pargs the same per parameter (descriptors expanded). */
static float trial(tlc_runtime *rt, tlc_kernel *k, tlc_grid_fn grid, void *user, const tlc_tune_info *info,
                   const tlc_arg *args, int nargs, const tlc_arg *pargs, tlc_devptr flush, size_t flush_bytes) {
  TrialLaunch t = {k, {1, 1, 1}, args, nargs};
  grid(k, user, t.g);
  tlc_devptr *zero = calloc((size_t)info->nreset + 1, sizeof *zero);
  tlc_devptr *restore = calloc((size_t)info->nrestore + 1, sizeof *restore);
  float ms = -1;
  if (zero && restore) {
    tlc_bench_options o = {.warmup = 1, .reps = TRIAL_REPS, .zero = zero, .restore = restore, .flush = flush,
                           .flush_bytes = flush_bytes};
    o.nzero = named_ptrs(k, info->reset_to_zero, info->nreset, pargs, zero);
    o.nrestore = named_ptrs(k, info->restore_value, info->nrestore, pargs, restore);
    if (tlc_bench_launch(rt, trial_launch, &t, NULL, &o, &ms) != TLC_OK) ms = -1;
  }
  free(zero), free(restore);
  return ms;
}

/* A scalar argument as the Python literal prune_configs_by sees; false for
 * pointers and descriptors (None to it). */
static bool arg_literal(const tlc_arg *a, char *buf, size_t cap) {
  switch (a->kind) {
  case TLC_ARG_I32: snprintf(buf, cap, "%" PRId32, a->v.i32); return true;
  case TLC_ARG_I64: snprintf(buf, cap, "%" PRId64, a->v.i64); return true;
  case TLC_ARG_U32: snprintf(buf, cap, "%" PRIu32, a->v.u32); return true;
  case TLC_ARG_U64: snprintf(buf, cap, "%" PRIu64, a->v.u64); return true;
  case TLC_ARG_FP32: snprintf(buf, cap, "%.9g", (double)a->v.f32); return true;
  case TLC_ARG_FP64: snprintf(buf, cap, "%.17g", a->v.f64); return true;
  default: return false;
  }
}

/* prune_configs_by for this launch: the decorator read again with the
 * scalar arguments and the caller's constexprs as its named arguments; the
 * configs it drops get pruned set in info (none when it drops them all). */
static void prune_for_launch(tlc_runtime *rt, const char *path, const char *source, const char *name,
                             const char *signature, const tlc_kernel_options *opt, const tlc_kernel *k,
                             const tlc_arg *pargs, tlc_tune_info *info) {
  int n = 0, cap = k->meta.nparams + (opt ? opt->nconstexprs : 0) + 1;
  tlc_constexpr_def *defs = calloc((size_t)cap, sizeof *defs);
  char (*text)[64] = calloc((size_t)cap, sizeof *text);
  char (*names)[128] = calloc((size_t)cap, sizeof *names);
  if (!defs || !text || !names) goto done;
  for (int i = 0; opt && i < opt->nconstexprs; i++) {
    const char *eq = strchr(opt->constexprs[i], '=');
    if (!eq || (size_t)(eq - opt->constexprs[i]) >= sizeof names[n]) continue;
    memcpy(names[n], opt->constexprs[i], (size_t)(eq - opt->constexprs[i]));
    defs[n] = (tlc_constexpr_def){names[n], eq + 1};
    n++;
  }
  for (int p = 0; p < k->meta.nparams; p++)
    if (!strchr(k->meta.params[p].name, '.') && arg_literal(&pargs[p], text[n], sizeof text[n]))
      defs[n] = (tlc_constexpr_def){k->meta.params[p].name, text[n]}, n++;
  tlc_tune_info pruned;
  if (tlc_autotune_info_for(path, source, name, opt && opt->arch ? opt->arch : rt->arch, signature, defs, n,
                            &pruned) == TLC_COMPILE_OK && pruned.nconfigs == info->nconfigs) {
    int alive = 0;
    for (int i = 0; i < pruned.nconfigs; i++) alive += !pruned.configs[i].pruned;
    for (int i = 0; alive && i < pruned.nconfigs; i++) info->configs[i].pruned = pruned.configs[i].pruned;
    if (print_tuning() && pruned.diagnostics && *pruned.diagnostics) fputs(pruned.diagnostics, stderr);
  }
  tlc_tune_info_free(&pruned);
done:
  free(defs), free(text), free(names);
}

/* ---- compiling the configs on several threads ------------------------------------------- */

/* Every config still in play compiled (and loaded: the driver's PTX JIT
 * runs on the same thread) by a pool of threads, each taking the next config
 * in turn; ks[i] is config i's kernel, NULL when pruned or failed.  Each
 * compile is independent (its own LLVM context; the runtime's caches are
 * locked), so the kernels are the ones a sequential loop would make. */
typedef struct CompileJob {
  tlc_runtime *rt;
  const char *source, *path, *name, *signature;
  const tlc_kernel_options *opt;
  const tlc_tune_info *info;
  tlc_kernel **ks;
  atomic_int next;
} CompileJob;

static void *compile_worker(void *arg) {
  CompileJob *j = arg;
  const char *cx[96];
  char store[64][160];
  for (int i; (i = atomic_fetch_add(&j->next, 1)) < j->info->nconfigs;) {
    if (j->info->configs[i].pruned || j->ks[i]) continue;
    tlc_kernel_options o = config_options(j->opt, &j->info->configs[i], cx, store);
    if (tlc_kernel_from_source(j->rt, j->source, j->path, j->name, j->signature, &o, &j->ks[i]) != TLC_OK)
      j->ks[i] = NULL;
  }
  return NULL;
}

/* Threads for n compiles: $TLC_COMPILE_THREADS when set (1 = in this
 * thread, one after another), else the online CPUs, at most 16 and n. */
static int compile_threads(int n) {
  const char *e = getenv("TLC_COMPILE_THREADS");
  long t = e && *e ? strtol(e, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
  if (t < 1) t = 1;
  if (t > 16) t = 16;
  return (int)(t < n ? t : n);
}

static void compile_configs(CompileJob *j, int from) {
  int todo = 0;
  for (int i = from; i < j->info->nconfigs; i++) todo += !j->info->configs[i].pruned && !j->ks[i];
  atomic_init(&j->next, from);
  int nt = compile_threads(todo);
  pthread_t tid[16];
  int started = 0;
  for (int t = 1; t < nt; t++) /* this thread is one of them */
    if (pthread_create(&tid[started], NULL, compile_worker, j) == 0) started++;
  compile_worker(j);
  for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
}

static tlc_status remember(tlc_runtime *rt, RtKey key, tlc_kernel *k, int config) {
  struct RtTuned *t = calloc(1, sizeof *t);
  if (!t) return rt_fail(rt, TLC_ERR_INVALID, "out of host memory");
  t->key = key, t->k = k, t->config = config;
  pthread_mutex_lock(&rt->lock);
  t->next = rt->tuned;
  rt->tuned = t;
  pthread_mutex_unlock(&rt->lock);
  return TLC_OK;
}

static void disk_path(const tlc_runtime *rt, RtKey key, char *buf, size_t cap) {
  char hex[33];
  rt_key_hex(key, hex);
  snprintf(buf, cap, "%s/tune-%s.json", rt->cache.dir, hex);
}

/* The config index the disk remembers for key, when the file is the choice
 * for this key and its config's text still matches: {"key": "<32 hex>",
 * "config": N, "text": "BLOCK=64 ... num_warps=4 num_stages=3"} (cJSON). */
static int disk_read(const tlc_runtime *rt, RtKey key, const tlc_tune_info *info) {
  if (!rt->cache.dir) return -1;
  char path[4096], want[1024], hex[33];
  disk_path(rt, key, path, sizeof path);
  const char *err;
  char *text = rt_read_text_file(path, &err);
  if (!text) return -1;
  cJSON *doc = cJSON_Parse(text);
  free(text);
  const cJSON *k = cJSON_GetObjectItemCaseSensitive(doc, "key");
  const cJSON *c = cJSON_GetObjectItemCaseSensitive(doc, "config");
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(doc, "text");
  rt_key_hex(key, hex);
  int idx = -1;
  if (cJSON_IsString(k) && !strcmp(k->valuestring, hex) && cJSON_IsNumber(c) && cJSON_IsString(t) &&
      c->valuedouble >= 0 && c->valuedouble < info->nconfigs && c->valuedouble == (double)c->valueint) {
    tlc_tune_config_text(&info->configs[c->valueint], want, sizeof want);
    if (!strcmp(t->valuestring, want)) idx = c->valueint;
  }
  cJSON_Delete(doc);
  if (idx >= 0) utimensat(AT_FDCWD, path, NULL, 0); /* a use, for the cache's size bound */
  return idx;
}

static void disk_write(const tlc_runtime *rt, RtKey key, const tlc_tune_info *info, int idx) {
  if (!rt->cache.dir || rt_mkdir_p(rt->cache.dir) != 0) return;
  char path[4096], text[1024], hex[33];
  disk_path(rt, key, path, sizeof path);
  tlc_tune_config_text(&info->configs[idx], text, sizeof text);
  rt_key_hex(key, hex);
  cJSON *doc = cJSON_CreateObject();
  cJSON_AddStringToObject(doc, "key", hex);
  cJSON_AddNumberToObject(doc, "config", idx);
  cJSON_AddStringToObject(doc, "text", text);
  char *json = cJSON_PrintUnformatted(doc);
  cJSON_Delete(doc);
  if (json && rt_write_file_atomic(path, json, strlen(json)) == 0)
    rt_cache_tidy(rt->cache.dir, rt_cache_max_bytes_from_env(), time(NULL));
  cJSON_free(json);
}

/* TLC_PRINT_AUTOTUNING=1: each trial's config and time on stderr (as
 * Triton's TRITON_PRINT_AUTOTUNING reports its choice). */
static bool print_tuning(void) {
  const char *e = getenv("TLC_PRINT_AUTOTUNING");
  return e && *e && strcmp(e, "0") != 0;
}

static void print_trial(const char *name, const tlc_tune_config *c, float ms) {
  fprintf(stderr, "autotune: %s", name);
  for (int j = 0; j < c->nconstexprs; j++) fprintf(stderr, " %s=%s", c->constexprs[j].name, c->constexprs[j].value);
  fprintf(stderr, " num_warps=%d num_stages=%d: ", c->num_warps, c->num_stages);
  if (ms >= 0) fprintf(stderr, "%.1f us\n", ms * 1e3);
  else fprintf(stderr, "%s\n", ms < -2 ? "pruned" : ms < -1 ? "did not compile" : "not launched");
}

tlc_status tlc_kernel_autotune(tlc_runtime *rt, const char *path, const char *name,
                               const char *signature, const tlc_kernel_options *opt,
                               tlc_grid_fn grid, void *user, const tlc_arg *args, int nargs,
                               tlc_kernel **out) {
  if (out) *out = NULL;
  tlc_status st = rt_usable(rt);
  if (st != TLC_OK) return st;
  if (!path || !out || !grid) return rt_fail(rt, TLC_ERR_INVALID, "tlc_kernel_autotune: NULL %s",
                                             !path ? "path" : !out ? "result pointer" : "grid callback");
  tlc_arg *expanded = NULL; /* args per parameter, when descriptors had to be expanded */
  int *argno = NULL;
  const char *err = NULL;
  char *source = rt_read_text_file(path, &err);
  if (!source) return rt_fail(rt, TLC_ERR_IO, "cannot read '%s': %s", path, err);
  tlc_tune_info info;
  tlc_compile_status cs = tlc_autotune_info(path, source, name, opt && opt->arch ? opt->arch : rt->arch, &info);
  if (cs != TLC_COMPILE_OK) {
    st = rt_fail(rt, TLC_ERR_COMPILE, "%s", info.diagnostics ? info.diagnostics : "autotune decorator");
    goto done;
  }
  if (!info.present || info.nconfigs == 0) {
    st = tlc_kernel_from_source(rt, source, path, name, signature, opt, out);
    goto done;
  }
  const char *cx[96];
  char store[64][160];
  tlc_kernel *first = NULL;
  int first_ok = -1;
  tlc_status first_err = TLC_OK;
  char *first_msg = NULL;
  for (int i = 0; i < info.nconfigs && !first; i++) {
    tlc_kernel_options o = config_options(opt, &info.configs[i], cx, store);
    tlc_status s = tlc_kernel_from_source(rt, source, path, name, signature, &o, &first);
    if (s == TLC_OK) first_ok = i;
    else if (first_err == TLC_OK) first_err = s, first_msg = rt_strdup(tlc_runtime_error(rt));
  }
  if (!first) {
    st = rt_fail(rt, first_err, "autotune: no config of '%s' compiled; the first failure:\n%s", name,
                 first_msg ? first_msg : "");
    free(first_msg);
    goto done;
  }
  /* the key and resets read the arguments per parameter: descriptors expanded */
  const tlc_arg *pargs = args;
  if (nargs != first->meta.nparams) {
    if (nargs != rt_desc_logical_params(first)) {
      st = rt_fail(rt, TLC_ERR_ARGS, "autotune: kernel '%s' takes %d arguments but %d were given", name,
                   rt_desc_logical_params(first), nargs);
      free(first_msg);
      goto done;
    }
    st = rt_desc_expand(first, args, nargs, &expanded, &argno);
    if (st != TLC_OK) {
      free(first_msg);
      goto done;
    }
    pargs = expanded;
  }
  /* the key: everything that selects the kernel, then the key arguments */
  char *parts = NULL;
  size_t nparts = 0;
  FILE *kf = open_memstream(&parts, &nparts);
  if (!kf) {
    st = rt_fail(rt, TLC_ERR_INVALID, "out of host memory");
    free(first_msg);
    goto done;
  }
  mix_str(kf, source), mix_str(kf, name), mix_str(kf, signature), mix_str(kf, rt->arch);
  for (int i = 0; opt && i < opt->nconstexprs; i++) mix_str(kf, opt->constexprs[i]);
  key_values(kf, first, &info, pargs);
  bool kf_bad = fclose(kf) != 0;
  RtKey key = rt_hash128(parts, nparts);
  free(parts);
  if (kf_bad) {
    st = rt_fail(rt, TLC_ERR_INVALID, "out of host memory");
    free(first_msg);
    goto done;
  }
  pthread_mutex_lock(&rt->lock);
  for (struct RtTuned *t = rt->tuned; t; t = t->next)
    if (rt_key_eq(t->key, key)) *out = t->k;
  pthread_mutex_unlock(&rt->lock);
  if (*out) {
    free(first_msg);
    goto done;
  }
  int remembered = rt->cpu ? -1 : disk_read(rt, key, &info);
  if (remembered >= 0) {
    tlc_kernel_options o = config_options(opt, &info.configs[remembered], cx, store);
    if (tlc_kernel_from_source(rt, source, path, name, signature, &o, out) == TLC_OK) {
      st = remember(rt, key, *out, remembered);
      free(first_msg);
      goto done;
    }
  }
  /* a choice to make: prune_configs_by first, for these arguments */
  prune_for_launch(rt, path, source, name, signature, opt, first, pargs, &info);
  if (rt->cpu) { /* the CPU device times nothing a GPU would: the first config left, untimed */
    for (int i = first_ok; i < info.nconfigs && !*out; i++) {
      if (info.configs[i].pruned) continue;
      tlc_kernel_options o = config_options(opt, &info.configs[i], cx, store);
      if (tlc_kernel_from_source(rt, source, path, name, signature, &o, out) == TLC_OK) st = remember(rt, key, *out, i);
    }
    if (!*out) st = rt_fail(rt, TLC_ERR_COMPILE, "autotune: no config of '%s' is left after pruning", name);
    free(first_msg);
    goto done;
  }
  /* every config compiled first, then timed in TRIAL_ROUNDS rounds, each
   * config's best median kept: a config is not judged on one burst after
   * a compile left the GPU idle */
  tlc_kernel **ks = calloc((size_t)info.nconfigs + 1, sizeof *ks);
  float *ts = malloc(sizeof *ts * ((size_t)info.nconfigs + 1));
  if (!ks || !ts) {
    free(ks), free(ts), free(first_msg);
    st = rt_fail(rt, TLC_ERR_INVALID, "autotune: out of host memory");
    goto done;
  }
  for (int i = first_ok; i < info.nconfigs; i++) ts[i] = -1;
  ks[first_ok] = info.configs[first_ok].pruned ? NULL : first; /* (compiled already) */
  CompileJob job = {rt, source, path, name, signature, opt, &info, ks};
  compile_configs(&job, first_ok);
  /* each trial launch finds its inputs in DRAM, as a launch among other
   * work does: without it, a config's time depends on what the one before
   * left in L2 (no eviction when the memory is short) */
  tlc_devptr flush = 0;
  size_t flush_bytes = (size_t)TRIAL_FLUSH_L2S * (size_t)rt->l2_bytes;
  if (flush_bytes && tlc_malloc(rt, flush_bytes, &flush) != TLC_OK) flush = 0;
  for (int round = 0; round < TRIAL_ROUNDS; round++)
    for (int i = first_ok; i < info.nconfigs; i++) {
      if (!ks[i]) continue;
      float t = trial(rt, ks[i], grid, user, &info, args, nargs, pargs, flush, flush_bytes);
      if (tlc_synchronize(rt) != TLC_OK) { /* a config that faults poisons the context: stop */
        st = rt_fail(rt, TLC_ERR_CUDA, "autotune: config %d of '%s' faulted: %s", i, name, tlc_runtime_error(rt));
        free(ks), free(ts), free(first_msg);
        tlc_free(rt, flush);
        goto done;
      }
      if (t >= 0 && (ts[i] < 0 || t < ts[i])) ts[i] = t;
    }
  tlc_free(rt, flush);
  float best = -1;
  int best_i = -1;
  tlc_kernel *best_k = NULL;
  for (int i = first_ok; i < info.nconfigs; i++) {
    if (print_tuning()) print_trial(name, &info.configs[i], info.configs[i].pruned ? -3 : !ks[i] ? -2 : ts[i]);
    if (ks[i] && ts[i] >= 0 && (best < 0 || ts[i] < best)) best = ts[i], best_i = i, best_k = ks[i];
  }
  free(ks), free(ts);
  free(first_msg);
  if (!best_k) {
    st = rt_fail(rt, TLC_ERR_LAUNCH, "autotune: no config of '%s' could be launched", name);
    goto done;
  }
  disk_write(rt, key, &info, best_i);
  *out = best_k;
  st = remember(rt, key, best_k, best_i);
done:
  free(expanded), free(argno);
  tlc_tune_info_free(&info);
  free(source);
  return st;
}
