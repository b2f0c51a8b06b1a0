/* host.c — the examples' shared host side that talks to the runtime: opening
 * it, memory, compiling, timing and the case runner (see host.h for the
 * conventions and the RESULT line; check.c has the parts that need no GPU).
 *
 * The output of every case lives between two guard zones of poison bytes:
 * the whole allocation is filled with 0xFF before a run (0xFFFFFFFF and
 * 0xFFFF are NaN patterns, never a value a correct kernel writes from finite
 * inputs), so afterwards an element still holding the pattern was not
 * written and a changed guard byte was written out of bounds. */
#include "examples/common/host.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef TLC_EXAMPLES_DIR
#error "TLC_EXAMPLES_DIR must be defined to the examples source folder (examples/CMakeLists.txt does)"
#endif

enum { EX_GUARD = 64 * 1024 }; /* bytes of poison on each side of an output */

/* ---- runtime ------------------------------------------------------------------- */

static void usage(const char *prog) {
  fprintf(stderr,
          "usage: %s [--seed N] [--reps N] [--warmup N] [--only S] [-v]\n"
          "  --seed N    draw the inputs from seed N (printed by every run)\n"
          "  --reps N    timed launches per case, median reported (default 25)\n"
          "  --warmup N  untimed launches before timing (default 5)\n"
          "  --only S    run only the cases whose kernel label or size contains S\n"
          "              (for compute-sanitizer runs of a few small cases)\n",
          prog);
}

static uint64_t fresh_seed(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  uint64_t s = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
  ExRng r = {s};
  return ex_rng_next(&r) & 0xFFFFFFFFFFFFull; /* 48 bits: short enough to type */
}

static long parse_long(const char *prog, const char *opt, const char *v) {
  char *end;
  if (!v) {
    fprintf(stderr, "%s: %s needs a value\n", prog, opt);
    exit(2);
  }
  long x = strtol(v, &end, 0);
  if (*end || x < 0) {
    fprintf(stderr, "%s: bad value '%s' for %s\n", prog, v, opt);
    exit(2);
  }
  return x;
}

void ex_open(Ex *ex, int argc, char **argv, const char *prog) {
  memset(ex, 0, sizeof *ex);
  ex->prog = prog;
  ex->warmup = 5;
  ex->reps = 25;
  bool have_seed = false, have_reps = false, have_warmup = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--seed")) {
      ex->seed = (uint64_t)parse_long(prog, a, argv[++i]);
      have_seed = true;
    } else if (!strcmp(a, "--reps")) {
      ex->reps = (int)parse_long(prog, a, argv[++i]);
      if (ex->reps < 1) ex->reps = 1;
      have_reps = true;
    } else if (!strcmp(a, "--warmup")) {
      ex->warmup = (int)parse_long(prog, a, argv[++i]);
      have_warmup = true;
    } else if (!strcmp(a, "--only")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "%s: --only needs a value\n", prog);
        exit(2);
      }
      ex->only = argv[++i];
    } else if (!strcmp(a, "-v")) {
      ex->verbose = true;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(prog);
      exit(0);
    } else {
      usage(prog);
      exit(2);
    }
  }
  if (!have_seed) ex->seed = fresh_seed();
  ex->rng.s = ex->seed;

  tlc_status st = tlc_runtime_open(0, &ex->rt);
  if (st == TLC_ERR_NO_DRIVER || st == TLC_ERR_NO_DEVICE) {
    printf("SKIP: %s\n", ex->rt ? tlc_runtime_error(ex->rt) : tlc_status_name(st));
    tlc_runtime_close(ex->rt);
    exit(77);
  }
  if (st != TLC_OK) {
    fprintf(stderr, "%s: error: tlc_runtime_open: %s: %s\n", prog, tlc_status_name(st),
            ex->rt ? tlc_runtime_error(ex->rt) : "");
    tlc_runtime_close(ex->rt);
    exit(1);
  }
  ex->cpu = tlc_device_is_cpu(ex->rt);
  if (ex->cpu && !have_reps) ex->reps = 1; /* interpreted: timing tells little */
  if (ex->cpu && !have_warmup) ex->warmup = 0;
  printf("DEVICE prog=%s name=\"%s\" arch=%s capability=%d sms=%d\n", prog,
         tlc_device_name(ex->rt), tlc_device_arch(ex->rt), tlc_device_capability(ex->rt),
         tlc_device_sm_count(ex->rt));
  if (*tlc_device_arch_note(ex->rt)) /* a device newer than tlc's arches */
    printf("NOTE prog=%s %s\n", prog, tlc_device_arch_note(ex->rt));
  printf("SEED prog=%s seed=%" PRIu64 " (reproduce: %s --seed %" PRIu64 ")\n", prog, ex->seed,
         prog, ex->seed);
  fflush(stdout);
}

bool ex_cpu_skip(Ex *ex, const char *label, double work) {
  const char *small = getenv("TLC_EXAMPLES_SMALL");
  if (!(ex->cpu || (small && *small && strcmp(small, "0"))) || work <= EX_CPU_MAX_WORK) return false;
  printf("SKIP kernel=%s work=%.3g (the CPU device runs cases of up to %d)\n", label, work, EX_CPU_MAX_WORK);
  return true;
}

int ex_finish(Ex *ex) {
  printf("SUMMARY prog=%s passed=%d failed=%d seed=%" PRIu64 "\n", ex->prog, ex->npass, ex->nfail,
         ex->seed);
  fflush(stdout);
  tlc_runtime_close(ex->rt);
  ex->rt = NULL;
  return ex->nfail == 0 && ex->npass > 0 ? 0 : 1;
}

void ex_ok(Ex *ex, tlc_status st, const char *what) {
  if (st == TLC_OK) return;
  fprintf(stderr, "%s: error: %s: %s: %s\n", ex->prog, what, tlc_status_name(st),
          tlc_runtime_error(ex->rt));
  printf("FATAL prog=%s what=\"%s\" status=%s seed=%" PRIu64 "\n", ex->prog, what,
         tlc_status_name(st), ex->seed);
  fflush(stdout);
  tlc_runtime_close(ex->rt);
  exit(1);
}

tlc_devptr ex_alloc(Ex *ex, size_t bytes) {
  tlc_devptr p = 0;
  ex_ok(ex, tlc_malloc(ex->rt, bytes ? bytes : 1, &p), "tlc_malloc");
  return p;
}

void ex_free(Ex *ex, tlc_devptr p) {
  if (p) ex_ok(ex, tlc_free(ex->rt, p), "tlc_free");
}

void ex_sig_desc(ExSig *s, const tlc_tensor_desc *d) {
  char entry[96];
  int n = tlc_tensor_desc_signature(d, entry, sizeof entry);
  if (n < 0 || (size_t)n >= sizeof entry) {
    fprintf(stderr, "error: a malformed tensor descriptor (make it with tlc_tensor_desc_make)\n");
    exit(1);
  }
  ex_sig_arg(s, entry, TLC_DESC(d));
}

void ex_upload(Ex *ex, tlc_devptr dst, const void *src, size_t bytes) {
  if (bytes) ex_ok(ex, tlc_memcpy_htod(ex->rt, dst, src, bytes), "tlc_memcpy_htod");
}

void ex_download(Ex *ex, void *dst, tlc_devptr src, size_t bytes) {
  if (bytes) ex_ok(ex, tlc_memcpy_dtoh(ex->rt, dst, src, bytes), "tlc_memcpy_dtoh");
}

const char *ex_tile_path(const char *rel, char *buf, size_t cap) {
  const char *dir = getenv("TLC_EXAMPLES_DIR");
  if (!dir || !*dir) dir = TLC_EXAMPLES_DIR;
  snprintf(buf, cap, "%s/%s", dir, rel);
  return buf;
}

tlc_status ex_kernel(Ex *ex, const char *tile_rel, const char *name, const char *signature,
                     const tlc_kernel_options *opt, tlc_kernel **out) {
  char path[4096];
  ex_tile_path(tile_rel, path, sizeof path);
  *out = NULL;
  tlc_status st = tlc_kernel_from_file(ex->rt, path, name, signature, opt, out);
  if (st != TLC_OK) {
    fprintf(stderr, "%s: error: compiling %s from %s with signature '%s': %s\n%s\n", ex->prog,
            name, path, signature, tlc_status_name(st), tlc_runtime_error(ex->rt));
    fprintf(stderr, "  reproduce: tlc compile %s --kernel %s --signature '%s'%s%s\n", path, name,
            signature, opt && opt->arch ? " --arch " : "", opt && opt->arch ? opt->arch : "");
    *out = NULL;
  } else if (ex->verbose) {
    printf("KERNEL %s sig=%s warps=%d shared=%d compile_ms=%.1f\n", name, signature,
           tlc_kernel_num_warps(*out), tlc_kernel_shared_bytes(*out), tlc_kernel_compile_ms(*out));
  }
  return st;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

tlc_event **ex_events_create(Ex *ex, int reps) {
  tlc_event **ev = ex_xmalloc(sizeof *ev * 2 * (size_t)(reps > 0 ? reps : 1));
  for (int i = 0; i < 2 * reps; i++) ex_ok(ex, tlc_event_create(ex->rt, &ev[i]), "tlc_event_create");
  return ev;
}

double ex_events_median_us(Ex *ex, tlc_event **ev, int reps) {
  ex_ok(ex, tlc_synchronize(ex->rt), "tlc_synchronize after timing");
  double *t = ex_xmalloc(sizeof *t * (size_t)(reps > 0 ? reps : 1));
  for (int i = 0; i < reps; i++) {
    float ms = 0;
    ex_ok(ex, tlc_event_elapsed_ms(ev[2 * i], ev[2 * i + 1], &ms), "tlc_event_elapsed_ms");
    t[i] = ms * 1e3;
  }
  for (int i = 0; i < 2 * reps; i++) tlc_event_destroy(ev[i]);
  qsort(t, (size_t)reps, sizeof *t, cmp_double);
  double med = reps <= 0 ? 0 : reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
  free(t);
  free(ev);
  return med;
}

double ex_time_us(Ex *ex, tlc_kernel *k, const unsigned grid[3], const ExSig *sig, int warmup,
                  int reps) {
  for (int i = 0; i < warmup; i++)
    ex_ok(ex, tlc_launch(k, grid[0], grid[1], grid[2], NULL, sig->args, sig->nargs), "tlc_launch (warm-up)");
  ex_ok(ex, tlc_synchronize(ex->rt), "tlc_synchronize after warm-up");
  tlc_event **ev = ex_events_create(ex, reps);
  /* Back to back, one event pair around each launch: no host sync between
   * runs, so the queue stays full and launch latency is hidden. */
  for (int i = 0; i < reps; i++) {
    ex_ok(ex, tlc_event_record(ev[2 * i], NULL), "tlc_event_record");
    ex_ok(ex, tlc_launch(k, grid[0], grid[1], grid[2], NULL, sig->args, sig->nargs), "tlc_launch (timed)");
    ex_ok(ex, tlc_event_record(ev[2 * i + 1], NULL), "tlc_event_record");
  }
  return ex_events_median_us(ex, ev, reps);
}

/* ---- one case ------------------------------------------------------------------- */

ExOut ex_out_alloc(Ex *ex, size_t bytes) {
  ExOut o;
  o.bytes = bytes;
  o.base = ex_alloc(ex, bytes + 2 * (size_t)EX_GUARD);
  o.p = o.base + EX_GUARD;
  return o;
}

void ex_out_free(Ex *ex, ExOut *o) {
  ex_free(ex, o->base);
  o->base = o->p = 0;
}

void ex_poison(Ex *ex, const ExOut *o) {
  ex_ok(ex, tlc_memset_d8(ex->rt, o->base, 0xFF, o->bytes + 2 * (size_t)EX_GUARD),
        "tlc_memset_d8 (poison)");
}

static size_t count_guard_damage(const unsigned char *buf, size_t out_bytes) {
  size_t bad = 0;
  for (size_t i = 0; i < EX_GUARD; i++) bad += buf[i] != 0xFF;
  for (size_t i = EX_GUARD + out_bytes; i < out_bytes + 2 * (size_t)EX_GUARD; i++) bad += buf[i] != 0xFF;
  return bad;
}

void ex_result_error(Ex *ex, const char *label, const char *size) {
  printf("RESULT kernel=%s size=%s rel_err=nan max_abs=nan tol=- unwritten=- oob=- stable=- "
         "time_us=nan gbps=nan status=ERROR seed=%" PRIu64 "\n",
         label, size, ex->seed);
  fflush(stdout);
  ex->nfail++;
}

/* The first few elements that are wrong (off by more than 10x the bound
 * relative to the element itself, for the diagnosis only), as DETAIL lines. */
static void show_wrong(const char *label, const void *out, ExElem elem, const double *ref, size_t n, double tol,
                       bool exact) {
  int shown = 0;
  for (size_t i = 0; i < n && shown < 8; i++) {
    bool p;
    double v = ex_elem_value(out, elem, i, &p);
    bool bad = p || !isfinite(v) ||
               (exact ? !ex_elem_bits_equal(out, elem, i, ref[i]) : fabs(v - ref[i]) > 10 * tol * fabs(ref[i]));
    if (!bad) continue;
    printf("DETAIL   %s [%zu] got %.9g%s want %.9g\n", label, i, v, p ? " (poison: unwritten)" : "", ref[i]);
    shown++;
  }
}

/* The RESULT line of one output (docs/examples.md), counted as passed or
 * failed. */
static bool result_line(Ex *ex, const char *label, const char *size, const ExCheck *chk, const char *tol,
                        size_t oob, const char *stable, double t_us, double gbps) {
  bool pass = chk->pass && oob == 0 && strcmp(stable, "no") != 0;
  printf("RESULT kernel=%s size=%s rel_err=%.3e max_abs=%.3e tol=%s unwritten=%zu oob=%zu "
         "stable=%s time_us=%.2f gbps=%.1f status=%s seed=%" PRIu64 "\n",
         label, size, chk->rel_err, chk->max_abs, tol, chk->unwritten, oob, stable, t_us, gbps,
         pass ? "PASS" : "FAIL", ex->seed);
  fflush(stdout);
  if (pass) ex->npass++;
  else ex->nfail++;
  return pass;
}

/* A launch error that leaves the context usable (bad arguments, a grid or
 * resource problem found before launching) fails the case; anything else
 * (a fault) ends the program. */
static bool launch_recoverable(tlc_status st) { return st == TLC_ERR_ARGS || st == TLC_ERR_LAUNCH; }

void ex_gemm_inputs(Ex *ex, ExElem e, int64_t m, int64_t n, int64_t k, bool b_kmajor, double lo, double hi,
                    ExGemm *g) {
  g->m = m, g->n = n, g->k = k;
  g->a = ex_xmalloc(sizeof(double) * (size_t)(m * k));
  g->b = ex_xmalloc(sizeof(double) * (size_t)(k * n));
  g->ref = ex_xmalloc(sizeof(double) * (size_t)(m * n));
  double *stored = ex_xmalloc(sizeof(double) * (size_t)(k * n));
  g->da = ex_upload_random(ex, e, (size_t)(m * k), lo, hi, g->a);
  g->db = ex_upload_random(ex, e, (size_t)(k * n), lo, hi, stored);
  for (int64_t i = 0; i < k; i++)
    for (int64_t j = 0; j < n; j++) g->b[i * n + j] = b_kmajor ? stored[j * k + i] : stored[i * n + j];
  free(stored);
}

void ex_gemm_free(Ex *ex, ExGemm *g) {
  ex_free(ex, g->da), ex_free(ex, g->db);
  free(g->a), free(g->b), free(g->ref);
  memset(g, 0, sizeof *g);
}

bool ex_selected(const Ex *ex, const char *label, const char *size) {
  return !ex->only || strstr(label, ex->only) || strstr(size, ex->only);
}

/* $TLC_EXAMPLES_DUMP=DIR: the output of every case into DIR/N.bin, listed
 * in DIR/index.txt as "N LABEL SIZE ELEM TOL EXACT" (scripts/gpu-suite.sh
 * compares the CPU device's outputs with the GPU's so). */
static void dump_out(const char *label, const char *size, ExElem elem, const void *out, size_t n, double tol,
                     bool exact) {
  const char *dir = getenv("TLC_EXAMPLES_DUMP");
  if (!dir || !*dir) return;
  static int seq;
  char path[4096];
  snprintf(path, sizeof path, "%s/index.txt", dir);
  FILE *idx = fopen(path, "a");
  snprintf(path, sizeof path, "%s/%d-%d.bin", dir, (int)getpid(), seq);
  FILE *f = fopen(path, "wb");
  if (idx && f && fwrite(out, ex_elem_size(elem), n, f) == n)
    fprintf(idx, "%d-%d %s %s %d %g %d\n", (int)getpid(), seq, label, size, (int)elem, tol, exact ? 1 : 0);
  seq++;
  if (f) fclose(f);
  if (idx) fclose(idx);
}

bool ex_run_case(Ex *ex, const ExCase *c, const ExOut *o) {
  if (!ex_selected(ex, c->label, c->size)) return true;
  size_t esz = ex_elem_size(c->elem);
  size_t out_bytes = c->out_elems * esz;
  if (out_bytes != o->bytes || c->out != o->p) {
    fprintf(stderr, "%s: internal error: case %s %s: output buffer does not match\n", ex->prog,
            c->label, c->size);
    exit(1);
  }
  tlc_kernel *k;
  if (ex_kernel(ex, c->tile, c->kernel, c->sig->text, c->opt, &k) != TLC_OK) {
    ex_result_error(ex, c->label, c->size);
    return false;
  }
  if (ex->verbose)
    printf("CASE %s %s sig=%s grid=%ux%ux%u nargs=%d\n", c->label, c->size, c->sig->text,
           c->grid[0], c->grid[1], c->grid[2], c->sig->nargs);

  /* 1. first run, on a poisoned output */
  ex_poison(ex, o);
  tlc_status st = tlc_launch(k, c->grid[0], c->grid[1], c->grid[2], NULL, c->sig->args, c->sig->nargs);
  if (st != TLC_OK) {
    fprintf(stderr, "%s: error: launching %s (%s, grid %ux%ux%u, signature '%s'): %s: %s\n",
            ex->prog, c->kernel, c->size, c->grid[0], c->grid[1], c->grid[2], c->sig->text,
            tlc_status_name(st), tlc_runtime_error(ex->rt));
    ex_result_error(ex, c->label, c->size);
    if (!launch_recoverable(st)) ex_ok(ex, st, "tlc_launch");
    return false;
  }
  st = tlc_synchronize(ex->rt);
  if (st != TLC_OK) {
    ex_result_error(ex, c->label, c->size);
    ex_ok(ex, st, "tlc_synchronize after the first run (a fault in the kernel?)");
  }
  size_t all = out_bytes + 2 * (size_t)EX_GUARD;
  unsigned char *buf = ex_xmalloc(all);
  ex_download(ex, buf, o->base, all);
  size_t oob = count_guard_damage(buf, out_bytes);
  const void *out = buf + EX_GUARD;
  ExCheck chk = ex_check(out, c->elem, c->ref, c->out_elems, c->tol, c->exact);
  dump_out(c->label, c->size, c->elem, out, c->out_elems, c->tol, c->exact);

  /* 2. timing */
  double t_us = ex_time_us(ex, k, c->grid, c->sig, ex->warmup, ex->reps);

  /* 3. a last run on a fresh poison must give the same bits: a result that
   * moves between runs is a race (or a read of memory nothing wrote). */
  ex_poison(ex, o);
  ex_ok(ex, tlc_launch(k, c->grid[0], c->grid[1], c->grid[2], NULL, c->sig->args, c->sig->nargs),
        "tlc_launch (re-run)");
  ex_ok(ex, tlc_synchronize(ex->rt), "tlc_synchronize after the re-run");
  unsigned char *again = ex_xmalloc(out_bytes);
  ex_download(ex, again, o->p, out_bytes);
  bool stable = memcmp(again, out, out_bytes) == 0;
  free(again);

  if (!(chk.pass && oob == 0 && stable)) {
    printf("DETAIL kernel=%s size=%s sig=%s grid=%ux%ux%u unwritten=%zu nonfinite=%zu "
           "mismatched=%zu oob_bytes=%zu stable=%s rel_err=%.3e\n",
           c->label, c->size, c->sig->text, c->grid[0], c->grid[1], c->grid[2], chk.unwritten,
           chk.nonfinite, chk.mismatched, oob, stable ? "yes" : "no", chk.rel_err);
    show_wrong(c->label, out, c->elem, c->ref, c->out_elems, c->tol, c->exact);
  }
  double gbps = t_us > 0 ? c->bytes / (t_us * 1e3) : 0;
  char tol[32];
  if (c->exact) snprintf(tol, sizeof tol, "exact");
  else snprintf(tol, sizeof tol, "%.0e", c->tol);
  bool pass = result_line(ex, c->label, c->size, &chk, tol, oob, stable ? "yes" : "no", t_us, gbps);
  free(buf);
  return pass;
}

void *ex_out_snapshot(Ex *ex, const ExOut *o) {
  void *h = ex_xmalloc(o->bytes);
  ex_download(ex, h, o->p, o->bytes);
  return h;
}

/* Several outputs of one launch: each is checked on its own, its guard
 * zones included, and compared with an earlier run's bytes when given. */
bool ex_report_out(Ex *ex, const char *label, const char *size, const ExOut *o, ExElem elem,
                   const double *ref, size_t n, double tol, double time_us, const void *earlier) {
  size_t out_bytes = n * ex_elem_size(elem);
  if (out_bytes != o->bytes) {
    fprintf(stderr, "%s: internal error: %s %s: output buffer does not match\n", ex->prog, label, size);
    exit(1);
  }
  size_t all = out_bytes + 2 * (size_t)EX_GUARD;
  unsigned char *buf = ex_xmalloc(all);
  ex_download(ex, buf, o->base, all);
  size_t oob = count_guard_damage(buf, out_bytes);
  ExCheck chk = ex_check(buf + EX_GUARD, elem, ref, n, tol, false);
  dump_out(label, size, elem, buf + EX_GUARD, n, tol, false);
  const char *stable = !earlier ? "-" : memcmp(earlier, buf + EX_GUARD, out_bytes) ? "no" : "yes";
  if (!(chk.pass && oob == 0 && strcmp(stable, "no") != 0))
    show_wrong(label, buf + EX_GUARD, elem, ref, n, tol, false);
  char tols[32];
  snprintf(tols, sizeof tols, "%.0e", tol);
  bool pass = result_line(ex, label, size, &chk, tols, oob, stable, time_us, 0);
  free(buf);
  return pass;
}

ExElem ex_elem_of(const char *dtype) {
  return !strcmp(dtype, "fp16")      ? EX_F16
         : !strcmp(dtype, "bf16")    ? EX_BF16
         : !strcmp(dtype, "fp8e4nv") ? EX_F8E4M3
         : !strcmp(dtype, "fp8e5")   ? EX_F8E5M2
         : !strcmp(dtype, "i8")      ? EX_I8
                                     : EX_F32;
}

tlc_devptr ex_upload_random(Ex *ex, ExElem e, size_t n, double lo, double hi, double *vals) {
  size_t esz = ex_elem_size(e);
  void *h = ex_xmalloc(n * esz);
  if (e == EX_F16) {
    ex_fill_f16(&ex->rng, h, n, lo, hi);
    for (size_t i = 0; i < n; i++) vals[i] = ex_f16_to_f32(((uint16_t *)h)[i]);
  } else if (e == EX_BF16) {
    ex_fill_bf16(&ex->rng, h, n, lo, hi);
    for (size_t i = 0; i < n; i++) vals[i] = ex_bf16_to_f32(((uint16_t *)h)[i]);
  } else if (e == EX_I8) {
    for (size_t i = 0; i < n; i++) {
      double x = floor(ex_rng_uniform(&ex->rng, lo, hi + 1)); /* integers lo .. hi */
      ((int8_t *)h)[i] = (int8_t)(x > hi ? hi : x);
      vals[i] = ((int8_t *)h)[i];
    }
  } else if (e == EX_F8E4M3 || e == EX_F8E5M2) {
    ex_fill_f8(&ex->rng, h, n, lo, hi, e == EX_F8E5M2);
    for (size_t i = 0; i < n; i++) vals[i] = ex_f8_to_f32(((uint8_t *)h)[i], e == EX_F8E5M2);
  } else {
    ex_fill_f32(&ex->rng, h, n, lo, hi);
    for (size_t i = 0; i < n; i++) vals[i] = ((float *)h)[i];
  }
  tlc_devptr d = ex_alloc(ex, n * esz);
  ex_upload(ex, d, h, n * esz);
  free(h);
  return d;
}
