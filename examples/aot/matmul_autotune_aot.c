/* matmul_autotune_aot — two @triton.autotune matmuls (matmul_autotune.tile)
 * compiled ahead of time with their dispatchers: `tlc compile --autotune
 * --grid ... --emit c -o mmtune` at build time writes mmtune.c and mmtune.h
 * (every config's PTX, mmtune_matmul_launch / _launch_config /
 * _chosen_config, the same for matmul_splitk), and this program links them
 * with the runtime's core alone (no compiler, no LLVM).  It stands on its
 * own (with aot_example.h, the examples' frame, beside it), as
 * vector_add_aot.c does.
 *
 * Each size: fp16 A (M x K) and B (K x N) uniform in [-1, 1) from a printed
 * seed, a reference in double from the same fp16 values, C between guard
 * zones in one allocation.
 *   matmul (fp16 C): C poisoned (0xFF bytes) before every run.  The
 *   dispatcher's first launch of the size chooses a config (every config
 *   timed on these arguments) and launches it: checked; a second launch
 *   (the choice remembered, nothing timed) on fresh poison must give the
 *   same bits.  Then each config alone (mmtune_matmul_launch_config), on
 *   fresh poison, checked and run twice.
 *   matmul_splitk (fp32 C by tl.atomic_add, reset_to_zero=['c_ptr']): C
 *   poisoned before the dispatcher's first launch too.  Its trial launches
 *   add into C, so C = A B only if the dispatcher zeroed C's allocation
 *   before every trial and once after the last, as Triton's autotuner does
 *   (the guards, zeroed with it, must stay zero).  Then each config alone
 *   on a C this program zeroes, as a split-K host does.  Atomics add in no
 *   fixed order: no re-run check (stable=-).
 * Relative L2 bounds as the other examples': fp16 C 2e-3, fp32 C (split-K)
 * 1e-3.  Each case is timed after its check (median of --reps launches
 * after --warmup).  One RESULT line a case in the examples' format
 * (docs/examples.md); `size` ends in /auto=cN for the dispatcher's launch
 * (it chose config N, whose text a NOTE line gives) or /cN for config N
 * launched alone.  TLC_EXAMPLES_SMALL=1 runs the small sizes only.  Exit
 * status: 0 all passed, 1 a failure, 77 skipped (no GPU, or the CPU
 * device, which runs kernels from .tile source and cannot run PTX). */
#include "mmtune.h"

#include <math.h>

#include "aot_example.h"

enum { GUARD = 4096, REPS = 20 };
static const char *const PROG = "ex_matmul_autotune_aot";

static int npass, nfail;

/* ---- fp16 on the host ----------------------------------------------------------------- */

/* The fp16 nearest to f (ties to even), as bits. */
static uint16_t f16_bits(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u, man = x & 0x7fffffu;
  int e = (int)((x >> 23) & 0xff) - 127 + 15;
  if (((x >> 23) & 0xff) == 0xff) return (uint16_t)(sign | 0x7c00u | (man ? 0x200u : 0));
  if (e >= 31) return (uint16_t)(sign | 0x7c00u);
  if (e <= 0) { /* a subnormal fp16: value / 2^-24, rounded */
    if (e < -10) return (uint16_t)sign;
    man |= 0x800000u;
    int shift = 14 - e;
    uint32_t h = man >> shift, rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) h++;
    return (uint16_t)(sign | h);
  }
  uint32_t h = ((uint32_t)e << 10) | (man >> 13), rem = man & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) h++; /* a carry into the exponent is right */
  return (uint16_t)(sign | h);
}

static double f16_value(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
  return (h & 0x8000) ? -v : v;
}

/* ---- one size -------------------------------------------------------------------------- */

typedef struct Problem {
  int32_t m, n, k;
  tlc_devptr a, b, c;       /* c: the whole allocation, C at c + GUARD */
  size_t cbytes, total;     /* C's bytes; with the guards */
  int esize;                /* bytes of a C element: 2 (fp16) or 4 (fp32) */
  double *ref;              /* m x n, double */
} Problem;

typedef struct Outcome {
  double rel, max_abs;
  size_t unwritten, oob;
} Outcome;

/* C (between its guards in `host`) against the reference; guards must
 * hold `guard` bytes, an element still all 0xFF bytes was never written. */
static Outcome compare(const Problem *p, const unsigned char *host, unsigned char guard) {
  Outcome o = {0, 0, 0, 0};
  for (size_t i = 0; i < GUARD; i++) o.oob += (host[i] != guard) + (host[GUARD + p->cbytes + i] != guard);
  double err2 = 0, ref2 = 0;
  for (size_t i = 0; i < (size_t)p->m * (size_t)p->n; i++) {
    const unsigned char *e = host + GUARD + i * (size_t)p->esize;
    double v;
    if (p->esize == 2) {
      uint16_t bits;
      memcpy(&bits, e, 2);
      if (bits == 0xffff) {
        o.unwritten++;
        continue;
      }
      v = f16_value(bits);
    } else {
      uint32_t bits;
      float f;
      memcpy(&bits, e, 4);
      if (bits == 0xffffffffu) {
        o.unwritten++;
        continue;
      }
      memcpy(&f, e, 4);
      v = f;
    }
    double d = fabs(v - p->ref[i]);
    err2 += d * d, ref2 += p->ref[i] * p->ref[i];
    if (!(d <= o.max_abs)) o.max_abs = d; /* a NaN sticks */
  }
  o.rel = ref2 > 0 ? sqrt(err2 / ref2) : sqrt(err2);
  return o;
}

typedef tlc_status (*Launch)(const Problem *p, int config); /* config -1: the dispatcher */

static tlc_status launch_matmul(const Problem *p, int config) {
  tlc_devptr c = p->c + GUARD;
  if (config < 0) return mmtune_matmul_launch(NULL, p->a, p->b, c, p->m, p->n, p->k, p->k, p->n, p->n);
  return mmtune_matmul_launch_config(config, NULL, p->a, p->b, c, p->m, p->n, p->k, p->k, p->n, p->n);
}

static tlc_status launch_splitk(const Problem *p, int config) {
  tlc_devptr c = p->c + GUARD;
  if (config < 0) return mmtune_matmul_splitk_launch(NULL, p->a, p->b, c, p->m, p->n, p->k, p->k, p->n, p->n);
  return mmtune_matmul_splitk_launch_config(config, NULL, p->a, p->b, c, p->m, p->n, p->k, p->k, p->n, p->n);
}

/* The mean time of one launch over `reps` launches after `warmup`, in us. */
static double time_us(const Problem *p, Launch launch, int config) {
  tlc_event *ev[2];
  check(tlc_event_create(rt, &ev[0]), "event");
  check(tlc_event_create(rt, &ev[1]), "event");
  for (int r = 0; r < warmup; r++) check(launch(p, config), "launch (warm-up)");
  check(tlc_event_record(ev[0], NULL), "event");
  for (int r = 0; r < reps; r++) check(launch(p, config), "launch (timed)");
  check(tlc_event_record(ev[1], NULL), "event");
  float ms = 0;
  check(tlc_event_elapsed_ms(ev[0], ev[1], &ms), "timing");
  tlc_event_destroy(ev[0]), tlc_event_destroy(ev[1]);
  return 1000.0 * ms / reps;
}

/* C's allocation set to `fill` (0xFF: poison), the launch, C back. */
static tlc_status run_once(const Problem *p, Launch launch, int config, unsigned char fill, unsigned char *host) {
  check(tlc_memset_d8(rt, p->c, fill, p->total), "fill C");
  tlc_status st = launch(p, config);
  if (st != TLC_OK) return st;
  check(tlc_synchronize(rt), "synchronize");
  check(tlc_memcpy_dtoh(rt, host, p->c, p->total), "download C");
  return TLC_OK;
}

static void result(const char *kernel, const Problem *p, const char *tag, const Outcome *o, double tol,
                   const char *stable, double us, bool pass) {
  double bytes = 2.0 * ((double)p->m * p->k + (double)p->k * p->n) + (double)p->esize * p->m * p->n;
  printf("RESULT kernel=%s size=%" PRId32 "x%" PRId32 "x%" PRId32 "/%s rel_err=%.3e max_abs=%.3e tol=%g "
         "unwritten=%zu oob=%zu stable=%s time_us=%.2f gbps=%.1f status=%s seed=%" PRIu64 "\n",
         kernel, p->m, p->n, p->k, tag, o->rel, o->max_abs, tol, o->unwritten, o->oob, stable, us,
         us > 0 ? bytes / us / 1e3 : 0.0, pass ? "PASS" : "FAIL", seed);
  fflush(stdout);
  pass ? npass++ : nfail++;
}

static void error_result(const char *kernel, const Problem *p, const char *tag, tlc_status st) {
  printf("RESULT kernel=%s size=%" PRId32 "x%" PRId32 "x%" PRId32 "/%s rel_err=nan max_abs=nan tol=- unwritten=- "
         "oob=- stable=- time_us=0 gbps=0 status=ERROR seed=%" PRIu64 "\n", kernel, p->m, p->n, p->k, tag, seed);
  printf("DETAIL prog=%s kernel=%s %s: %s\n", PROG, kernel, tlc_status_name(st), tlc_runtime_error(rt));
  fflush(stdout);
  nfail++;
}

/* One of the pair's two kernels as this program runs it. */
typedef struct Kernel {
  const char *name;                           /* RESULT's kernel= */
  Launch launch;
  int (*chosen)(int32_t m, int32_t n, int32_t k); /* PREFIX_KERNEL_chosen_config */
  const char *(*text)(int config);            /* PREFIX_KERNEL_config_text */
  int nconfigs;
  double tol;
  bool adds;   /* C is added into (split-K): a config alone runs on a C zeroed here, the guards
                  (zeroed with it) stay zero, atomics give no re-run check */
} Kernel;

static const Kernel matmul = {"matmul_autotune_aot", launch_matmul, mmtune_matmul_chosen_config,
                              mmtune_matmul_config_text, MMTUNE_MATMUL_NUM_CONFIGS, 2e-3, false};
static const Kernel splitk = {"matmul_splitk_autotune_aot", launch_splitk, mmtune_matmul_splitk_chosen_config,
                              mmtune_matmul_splitk_config_text, MMTUNE_MATMUL_SPLITK_NUM_CONFIGS, 1e-3, true};

/* The dispatcher's first launch of the size (it chooses: on poison, also
 * for split-K, where only its reset_to_zero makes C right), then each
 * config alone; each checked, re-run (not split-K) and timed. */
static void run_kernel(const Problem *p, const Kernel *kn) {
  unsigned char *h1 = malloc(p->total), *h2 = malloc(p->total);
  if (!h1 || !h2) check(TLC_ERR_INVALID, "host memory");
  unsigned char fill = kn->adds ? 0 : 0xFF; /* for a config alone; the guards keep it */
  for (int config = -1; config < kn->nconfigs; config++) {
    tlc_status st = run_once(p, kn->launch, config, config < 0 ? 0xFF : fill, h1);
    int chosen = config < 0 ? kn->chosen(p->m, p->n, p->k) : config;
    char tag[32];
    snprintf(tag, sizeof tag, "%s%d", config < 0 ? "auto=c" : "c", chosen);
    if (st != TLC_OK) {
      error_result(kn->name, p, tag, st);
      continue;
    }
    if (config < 0)
      printf("NOTE prog=%s kernel=%s size=%" PRId32 "x%" PRId32 "x%" PRId32 " chose config %d: %s\n", PROG,
             kn->name, p->m, p->n, p->k, chosen, chosen >= 0 ? kn->text(chosen) : "(none)");
    Outcome o = compare(p, h1, fill);
    bool stable = true;
    if (!kn->adds) { /* again on fresh poison: the dispatcher now without timing */
      st = run_once(p, kn->launch, config, 0xFF, h2);
      stable = st == TLC_OK && memcmp(h1, h2, p->total) == 0;
    }
    double us = time_us(p, kn->launch, config); /* (split-K's sums pile up in C: after the check) */
    bool pass = chosen >= 0 && chosen < kn->nconfigs && o.unwritten == 0 && o.oob == 0 && stable &&
                o.rel < kn->tol && o.max_abs == o.max_abs;
    result(kn->name, p, tag, &o, kn->tol, kn->adds ? "-" : stable ? "yes" : "no", us, pass);
  }
  free(h1), free(h2);
}

/* Inputs, reference and C for m x n x k; then kn's runs. */
static void run_size(uint64_t *rng, int32_t m, int32_t n, int32_t k, int esize, const Kernel *kn) {
  Problem p = {m, n, k, 0, 0, 0, (size_t)m * (size_t)n * (size_t)esize, 0, esize, NULL};
  p.total = p.cbytes + 2 * GUARD;
  size_t na = (size_t)m * (size_t)k, nb = (size_t)k * (size_t)n;
  uint16_t *a16 = malloc(na * 2), *b16 = malloc(nb * 2);
  double *a = malloc(na * sizeof *a), *b = malloc(nb * sizeof *b);
  p.ref = calloc((size_t)m * (size_t)n, sizeof *p.ref);
  if (!a16 || !b16 || !a || !b || !p.ref) check(TLC_ERR_INVALID, "host memory");
  for (size_t i = 0; i < na + nb; i++) {
    float v = (float)((double)(splitmix64(rng) >> 11) / 9007199254740992.0 * 2 - 1);
    uint16_t bits = f16_bits(v);
    if (i < na) a16[i] = bits, a[i] = f16_value(bits);
    else b16[i - na] = bits, b[i - na] = f16_value(bits);
  }
  for (int32_t i = 0; i < m; i++) /* i-k-j: rows of B in order */
    for (int32_t kk = 0; kk < k; kk++) {
      double aik = a[(size_t)i * (size_t)k + (size_t)kk];
      const double *brow = b + (size_t)kk * (size_t)n;
      double *crow = p.ref + (size_t)i * (size_t)n;
      for (int32_t j = 0; j < n; j++) crow[j] += aik * brow[j];
    }
  check(tlc_malloc(rt, na * 2, &p.a), "malloc A");
  check(tlc_malloc(rt, nb * 2, &p.b), "malloc B");
  check(tlc_malloc(rt, p.total, &p.c), "malloc C");
  check(tlc_memcpy_htod(rt, p.a, a16, na * 2), "upload A");
  check(tlc_memcpy_htod(rt, p.b, b16, nb * 2), "upload B");
  run_kernel(&p, kn);
  check(tlc_free(rt, p.a), "free");
  check(tlc_free(rt, p.b), "free");
  check(tlc_free(rt, p.c), "free");
  free(a16), free(b16), free(a), free(b), free(p.ref);
}

int main(int argc, char **argv) {
  int rc = ex_start(argc, argv, PROG, REPS, mmtune_unload);
  if (rc) return rc;
  check(mmtune_load(rt), "mmtune_load");
  const char *small_env = getenv("TLC_EXAMPLES_SMALL");
  bool small = small_env && *small_env && strcmp(small_env, "0") != 0;
  uint64_t rng = seed;
  static const int32_t mm[][3] = {{64, 64, 64}, {127, 255, 67}, {512, 512, 512}, {1000, 1000, 1000}, {2048, 256, 512}};
  static const int32_t sk[][3] = {{64, 64, 1024}, {127, 255, 67}, {256, 256, 4096}, {1000, 1000, 1000}};
  for (size_t i = 0; i < sizeof mm / sizeof *mm && (!small || i < 2); i++)
    run_size(&rng, mm[i][0], mm[i][1], mm[i][2], 2, &matmul);
  for (size_t i = 0; i < sizeof sk / sizeof *sk && (!small || i < 2); i++)
    run_size(&rng, sk[i][0], sk[i][1], sk[i][2], 4, &splitk);
  printf("SUMMARY prog=%s passed=%d failed=%d seed=%" PRIu64 "\n", PROG, npass, nfail, seed);
  mmtune_unload();
  tlc_runtime_close(rt);
  return nfail == 0 && npass > 0 ? 0 : 1;
}
