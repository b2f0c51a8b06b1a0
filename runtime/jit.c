/* jit.c — compiling .tile source at run time, through the caches.
 *
 * Owns tlc_kernel_from_file and tlc_kernel_from_source: turning the public
 * options (and $TLC_MATH_LIB) into tlc_compile_options for the device's
 * arch, the request (tlc_compile_request followed by the identity of the
 * compiler library: its path, size and modification time, so a rebuilt
 * libtlc never reuses PTX an older one wrote) and its key, and the lookup
 * order memory -> disk -> compile.
 * An entry is written to the disk cache only after the driver has loaded
 * it, with the cubin the driver made, so that a later process loads the
 * machine code without running the PTX JIT.
 *
 * This is the only runtime file that calls the compiler, and it does so
 * only through compiler/tlc_compiler.h; the loader and launcher
 * (tlc_runtime_core) link without libtlc. */
#include "runtime/rt_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compiler/tlc_compiler.h" /* the JIT layer: the only way into the compiler */
#include "runtime/cache.h"

/* ---- the compiler's identity --------------------------------------------------------- */

static pthread_once_t g_library_once = PTHREAD_ONCE_INIT;
static char g_library[1200]; /* "compiler-library ...\n", the request's last line */

static void rt_compute_library(void) {
  snprintf(g_library, sizeof g_library, "compiler-library tlc %s\n", TLC_VERSION_STRING);
  tlc_compile_status (*fn)(const char *, const char *, const tlc_compile_options *,
                           tlc_compile_result *) = tlc_compile;
  void *addr;
  memcpy(&addr, &fn, sizeof addr);
  Dl_info info;
  if (dladdr(addr, &info) && info.dli_fname) {
    struct stat st;
    if (stat(info.dli_fname, &st) != 0) memset(&st, 0, sizeof st);
    snprintf(g_library, sizeof g_library, "compiler-library tlc %s %zu:%s size %lld mtime %lld.%09ld ino %llu\n",
             TLC_VERSION_STRING, strlen(info.dli_fname), info.dli_fname, (long long)st.st_size,
             (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec, (unsigned long long)st.st_ino);
  }
}

/* ---- options ---------------------------------------------------------------------------- */

typedef struct RtJitRequest {
  tlc_compile_options co;
  tlc_constexpr_def *defs;  /* names are malloc'd; values point into the caller's strings */
  int ndefs;
  char *text;               /* the request (rt_request_key), stored in the disk entry */
  RtKey key;
} RtJitRequest;

static void rt_request_free(RtJitRequest *q) {
  for (int i = 0; i < q->ndefs; i++) free((char *)q->defs[i].name);
  free(q->defs);
  free(q->text);
}

static tlc_status rt_request_init(tlc_runtime *rt, RtJitRequest *q, const char *name,
                                  const char *signature, const tlc_kernel_options *opt) {
  memset(q, 0, sizeof *q);
  tlc_compile_options_init(&q->co);
  q->co.emit = TLC_EMIT_PTX;
  q->co.kernel = name;
  q->co.signature = signature;
  q->co.arch = opt && opt->arch ? opt->arch : rt->arch;
  q->co.num_warps = opt ? opt->num_warps : 0; /* 0: the compiler's default */
  q->co.num_stages = opt ? opt->num_stages : 0;
  q->co.debug = opt && opt->debug;
  /* TLC_WARP_SPECIALIZE=1 / 0: every kernel as if its options said 1 / -1 (A/B runs) */
  const char *ws = getenv("TLC_WARP_SPECIALIZE");
  q->co.warp_specialize = opt ? opt->warp_specialize : 0;
  if (ws && !strcmp(ws, "1")) q->co.warp_specialize = 1;
  else if (ws && !strcmp(ws, "0")) q->co.warp_specialize = -1;
  /* TLC_SKIP_PASSES=NAME[,NAME]: optional passes left out of every kernel (A/B runs) */
  q->co.skip_passes = getenv("TLC_SKIP_PASSES");
  /* the math library from the environment (the command line's --math-lib);
   * the libdevice file is the compiler's to find ($TLC_LIBDEVICE, ...) */
  if (tlc_math_lib_from_env(&q->co.math_lib) != 0)
    return rt_fail(rt, TLC_ERR_INVALID, "TLC_MATH_LIB=%s: expected auto (the default), libdevice or libclc",
                   getenv("TLC_MATH_LIB"));
  char why[256];
  if (tlc_compile_options_check(&q->co, why, sizeof why) != 0)
    return rt_fail(rt, TLC_ERR_INVALID, "tlc_kernel_options: %s", why);
  int n = opt ? opt->nconstexprs : 0;
  if (n < 0 || (n > 0 && !opt->constexprs))
    return rt_fail(rt, TLC_ERR_INVALID, "tlc_kernel_options: %d constexprs but %s", n,
                   n < 0 ? "a negative count" : "a NULL array");
  q->defs = calloc((size_t)n + 1, sizeof *q->defs);
  if (!q->defs) return rt_fail(rt, TLC_ERR_INVALID, "out of host memory");
  for (int i = 0; i < n; i++) {
    const char *s = opt->constexprs[i];
    const char *eq = s ? strchr(s, '=') : NULL;
    if (!eq || eq == s || !eq[1])
      return rt_fail(rt, TLC_ERR_INVALID, "constexpr %d ('%s') is not of the form NAME=VALUE", i,
                     s ? s : "(null)");
    char *nm = malloc((size_t)(eq - s) + 1);
    if (!nm) return rt_fail(rt, TLC_ERR_INVALID, "out of host memory");
    memcpy(nm, s, (size_t)(eq - s));
    nm[eq - s] = 0;
    q->defs[i].name = nm;
    q->defs[i].value = eq + 1;
    q->ndefs = i + 1;
  }
  q->co.constexprs = q->defs;
  q->co.nconstexprs = n;
  return TLC_OK;
}

/* q->text: the compiler's request and the compiler library's line; q->key. */
static tlc_status rt_request_key(tlc_runtime *rt, RtJitRequest *q, const char *source) {
  pthread_once(&g_library_once, rt_compute_library);
  char *req = tlc_compile_request(source, &q->co);
  size_t n = req ? strlen(req) + strlen(g_library) + 1 : 0;
  q->text = req ? malloc(n) : NULL;
  if (q->text) snprintf(q->text, n, "%s%s", req, g_library);
  free(req);
  if (!q->text) return rt_fail(rt, TLC_ERR_INVALID, "out of host memory");
  q->key = rt_cache_key(q->text);
  return TLC_OK;
}

tlc_status rt_jit_key(tlc_runtime *rt, const char *source, const char *name, const char *signature,
                      const tlc_kernel_options *opt, RtKey *key, char **request) {
  if (request) *request = NULL;
  tlc_status st = rt_usable(rt);
  if (st != TLC_OK) return st;
  RtJitRequest q;
  st = rt_request_init(rt, &q, name, signature, opt);
  if (st == TLC_OK) st = rt_request_key(rt, &q, source);
  if (st == TLC_OK) {
    *key = q.key;
    if (request) *request = q.text, q.text = NULL;
  }
  rt_request_free(&q);
  return st;
}

/* ---- compiling ---------------------------------------------------------------------------- */

/* Compile and move the result into *m. */
static tlc_status rt_compile(tlc_runtime *rt, const RtJitRequest *q, const char *source,
                             const char *path, RtKernelMeta *m, double *ms) {
  tlc_compile_result res;
  tlc_compile_status cs = tlc_compile(path, source, &q->co, &res);
  tlc_status st = TLC_OK;
  if (cs != TLC_COMPILE_OK || !res.text) {
    const char *d = res.diagnostics ? res.diagnostics : "";
    size_t n = strlen(d);
    while (n && d[n - 1] == '\n') n--;
    if (n)
      st = rt_fail(rt, TLC_ERR_COMPILE, "%.*s", (int)n, d);
    else
      st = rt_fail(rt, TLC_ERR_COMPILE, "%s: compiling kernel '%s' failed without a diagnostic",
                   path, q->co.kernel ? q->co.kernel : "(the only @jit function)");
  } else if (!res.kernel_symbol || !*res.kernel_symbol || res.nparams < 0 ||
             (res.nparams > 0 && !res.params)) {
    st = rt_fail(rt, TLC_ERR_COMPILE,
                 "%s: internal compiler error: PTX came back without a kernel symbol or parameters",
                 path);
  } else {
    memset(m, 0, sizeof *m);
    m->ptx = res.text;
    res.text = NULL;
    m->symbol = res.kernel_symbol;
    res.kernel_symbol = NULL;
    m->num_warps = res.num_warps;
    m->shared_bytes = res.shared_bytes;
    m->params = calloc((size_t)res.nparams + 1, sizeof *m->params);
    for (int i = 0; m->params && i < res.nparams; i++) {
      m->params[i].kind = res.params[i].kind;
      m->params[i].name = rt_strdup(res.params[i].name ? res.params[i].name : "?");
      m->nparams = i + 1;
      if (!m->params[i].name) break;
    }
    if (res.ntma > 0 && res.tma) {
      m->tma = calloc((size_t)res.ntma, sizeof *m->tma);
      if (m->tma) memcpy(m->tma, res.tma, sizeof *m->tma * (size_t)res.ntma), m->ntma = res.ntma;
    }
    if (!m->params || m->nparams != res.nparams || (res.ntma > 0 && !m->tma) ||
        (res.nparams && !m->params[res.nparams - 1].name)) {
      rt_meta_free(m);
      st = rt_fail(rt, TLC_ERR_INVALID, "out of host memory");
    }
    *ms = res.compile_ms;
  }
  tlc_compile_result_free(&res);
  return st;
}

void rt_kernel_keep_constexprs(tlc_kernel *k, const tlc_kernel_options *opt) {
  if (!opt || opt->nconstexprs <= 0) return;
  k->cx = calloc((size_t)opt->nconstexprs, sizeof(char *));
  for (int i = 0; k->cx && i < opt->nconstexprs; i++) {
    k->cx[i] = rt_strdup(opt->constexprs[i]);
    if (k->cx[i]) k->ncx = i + 1;
  }
}

tlc_status tlc_kernel_from_source(tlc_runtime *rt, const char *source, const char *path,
                                  const char *name, const char *signature,
                                  const tlc_kernel_options *opt, tlc_kernel **out) {
  if (out) *out = NULL;
  tlc_status st = rt_usable(rt);
  if (st != TLC_OK) return st;
  if (!out) return rt_fail(rt, TLC_ERR_INVALID, "tlc_kernel_from_source: NULL result pointer");
  if (!source) return rt_fail(rt, TLC_ERR_INVALID, "tlc_kernel_from_source: NULL source");
  if (!path) path = "<string>";

  RtJitRequest q;
  st = rt_request_init(rt, &q, name, signature, opt);
  if (st == TLC_OK) st = rt_request_key(rt, &q, source);
  if (st != TLC_OK) {
    rt_request_free(&q);
    return st;
  }
  RtKey key = q.key;
  pthread_mutex_lock(&rt->lock);
  tlc_kernel *k = rt_cache_get(&rt->cache, key);
  pthread_mutex_unlock(&rt->lock);
  if (k) {
    rt_request_free(&q);
    *out = k;
    return TLC_OK;
  }

  if (rt->cpu) { /* the interpreter specializes it; kept in the memory cache only */
    st = rt_cpu_kernel(rt, source, path, name, signature, opt, &k);
    rt_request_free(&q);
    if (st != TLC_OK) return st;
    pthread_mutex_lock(&rt->lock);
    rt_cache_put(&rt->cache, key, k);
    pthread_mutex_unlock(&rt->lock);
    *out = k;
    return TLC_OK;
  }

  RtKernelMeta m = {0};
  double ms = 0.0;
  bool from_disk = rt->cache.dir && rt_cache_read(rt->cache.dir, key, q.text, &m, NULL) == 0;
  if (!from_disk) st = rt_compile(rt, &q, source, path, &m, &ms);
  if (st == TLC_OK && (m.num_warps < 1 || m.num_warps > 32))
    st = rt_fail(rt, TLC_ERR_COMPILE, "%s: internal compiler error: num_warps %d", path, m.num_warps);
  if (st == TLC_OK) st = rt_kernel_load(rt, &m, name, ms, &k);
  if (st == TLC_OK) rt_kernel_keep_constexprs(k, opt);
  rt_meta_free(&m); /* empty after a load; holds the result if something failed before it */
  /* The disk entry is best effort: a read-only or full disk costs only time.
   * An entry read from disk is written again when its cubin was not this
   * device's and driver's: it now carries the one the driver just made. */
  if (st == TLC_OK && (!from_disk || k->cubin_linked) && rt->cache.dir)
    rt_cache_write(rt->cache.dir, key, q.text, &k->meta);
  rt_request_free(&q);
  if (st != TLC_OK) return st;

  pthread_mutex_lock(&rt->lock);
  tlc_kernel *raced = rt_cache_get(&rt->cache, key);
  if (raced)
    k = raced; /* another thread loaded it meanwhile; ours stays owned by rt until close */
  else
    rt_cache_put(&rt->cache, key, k);
  pthread_mutex_unlock(&rt->lock);
  *out = k;
  return TLC_OK;
}

/* ---- files ---------------------------------------------------------------------------------- */

char *rt_read_text_file(const char *path, const char **err) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    *err = strerror(errno);
    return NULL;
  }
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  while (buf) {
    size_t n = fread(buf + len, 1, cap - len - 1, f);
    len += n;
    if (n == 0) break;
    if (cap - len < 2) {
      char *b = realloc(buf, cap * 2);
      if (!b) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = b;
      cap *= 2;
    }
  }
  int failed = !buf || ferror(f);
  int e = errno;
  fclose(f);
  if (failed) {
    *err = buf ? strerror(e) : "out of memory";
    free(buf);
    return NULL;
  }
  buf[len] = 0;
  if (memchr(buf, 0, len)) {
    *err = "the file contains NUL bytes (not a .tile source)";
    free(buf);
    return NULL;
  }
  return buf;
}

tlc_status tlc_kernel_from_file(tlc_runtime *rt, const char *path, const char *name,
                                const char *signature, const tlc_kernel_options *opt,
                                tlc_kernel **out) {
  if (out) *out = NULL;
  tlc_status st = rt_usable(rt);
  if (st != TLC_OK) return st;
  if (!path) return rt_fail(rt, TLC_ERR_INVALID, "tlc_kernel_from_file: NULL path");
  const char *err = NULL;
  char *source = rt_read_text_file(path, &err);
  if (!source) return rt_fail(rt, TLC_ERR_IO, "cannot read '%s': %s", path, err);
  st = tlc_kernel_from_source(rt, source, path, name, signature, opt, out);
  free(source);
  return st;
}
