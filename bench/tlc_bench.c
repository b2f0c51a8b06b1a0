/* tlc_bench — tlc's side of bench/run.sh: the seed's vector add (2^28 fp32)
 * and softmax v1 (one row per program; 4096x4096 fp32 and neighbours) run
 * through the runtime, timed as triton.testing.do_bench times the peers.
 *
 * For every case: fresh random inputs (seed printed); one run on a poisoned
 * output checked against a double-precision reference (streamed, so no big
 * reference array); then `warmup` launches and `reps` timed ones, each
 * preceded by a 256 MB memset that evicts the 50 MB L2 (what do_bench does
 * with its cache buffer) and rotating over several input/output sets
 * holding the same data (so no run finds its data in L2 either); median of
 * the per-launch event times.  Afterwards every set's output must equal the
 * checked one bit for bit.  Bytes counted: each input read once, each
 * output written once.
 *
 *   BENCH name=softmax_v1 size=4096x4096 num_warps=8 tlc_gbps=2650.3
 *         time_us=50.64 rel_err=1.2e-07 status=PASS
 *
 * Options: --quick (only the acceptance sizes), --smoke (tiny sizes, to
 * check the harness itself), --reps N (default 100, at least 50),
 * --warmup N, --seed N. */
#include "examples/common/host.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FLUSH_BYTES = 256 << 20, MAX_SETS = 8 };

typedef struct Bench {
  Ex ex;
  tlc_devptr flush;
  int reps, warmup;
  int npass, nfail;
} Bench;

static void bench_line(Bench *b, const char *name, const char *size, int num_warps, double t_us,
                       double bytes, double rel_err, const char *status) {
  double gbps = t_us > 0 ? bytes / (t_us * 1e3) : NAN;
  printf("BENCH name=%s size=%s num_warps=%d tlc_gbps=%.1f time_us=%.2f rel_err=%.2e status=%s "
         "seed=%" PRIu64 "\n",
         name, size, num_warps, gbps, t_us, rel_err, status, b->ex.seed);
  fflush(stdout);
  if (strcmp(status, "PASS")) b->nfail++;
  else b->npass++;
}

static int sets_for(size_t set_bytes) {
  if (set_bytes >= (size_t)FLUSH_BYTES) return 1;
  size_t n = ((size_t)FLUSH_BYTES + set_bytes - 1) / set_bytes;
  return n < 2 ? 2 : n > MAX_SETS ? MAX_SETS : (int)n;
}

/* Median event time of launches over the sets; sig[s] launches set s. */
static double time_sets(Bench *b, tlc_kernel *k, const unsigned grid[3], const ExSig *sig, int nsets) {
  Ex *ex = &b->ex;
  for (int i = 0; i < b->warmup; i++)
    ex_ok(ex, tlc_launch(k, grid[0], grid[1], grid[2], NULL, sig[i % nsets].args, sig[i % nsets].nargs),
          "tlc_launch (warm-up)");
  ex_ok(ex, tlc_synchronize(ex->rt), "tlc_synchronize after warm-up");
  int reps = b->reps;
  tlc_event **ev = ex_events_create(ex, reps);
  for (int i = 0; i < reps; i++) {
    const ExSig *s = &sig[i % nsets];
    ex_ok(ex, tlc_memset_d32(ex->rt, b->flush, (uint32_t)i, FLUSH_BYTES / 4), "tlc_memset_d32 (L2 flush)");
    ex_ok(ex, tlc_event_record(ev[2 * i], NULL), "tlc_event_record");
    ex_ok(ex, tlc_launch(k, grid[0], grid[1], grid[2], NULL, s->args, s->nargs), "tlc_launch (timed)");
    ex_ok(ex, tlc_event_record(ev[2 * i + 1], NULL), "tlc_event_record");
  }
  return ex_events_median_us(ex, ev, reps);
}

/* Every set's output equals the checked one. */
static bool sets_agree(Bench *b, const tlc_devptr *out, int nsets, const void *checked, size_t bytes) {
  void *tmp = ex_xmalloc(bytes);
  bool same = true;
  for (int s = 0; s < nsets && same; s++) {
    ex_download(&b->ex, tmp, out[s], bytes);
    same = memcmp(tmp, checked, bytes) == 0;
  }
  free(tmp);
  return same;
}

static bool has_poison(const float *y, size_t n, size_t *where) {
  for (size_t i = 0; i < n; i++) {
    uint32_t u;
    memcpy(&u, &y[i], 4);
    if (u == 0xFFFFFFFFu) {
      *where = i;
      return true;
    }
  }
  return false;
}

/* ---- vector add ---------------------------------------------------------------- */

static void bench_vector_add(Bench *b, int64_t n) {
  Ex *ex = &b->ex;
  const int BLOCK = 1024;
  size_t bytes = (size_t)n * 4;
  char size[32];
  snprintf(size, sizeof size, "%lld", (long long)n);
  float *x = ex_xmalloc(bytes), *y = ex_xmalloc(bytes), *z = ex_xmalloc(bytes);
  ex_fill_f32(&ex->rng, x, (size_t)n, -1, 1);
  ex_fill_f32(&ex->rng, y, (size_t)n, -1, 1);
  int nsets = sets_for(3 * bytes);
  tlc_devptr dx[MAX_SETS], dy[MAX_SETS], dz[MAX_SETS];
  ExSig sig[MAX_SETS];
  for (int s = 0; s < nsets; s++) {
    dx[s] = ex_alloc(ex, bytes), dy[s] = ex_alloc(ex, bytes), dz[s] = ex_alloc(ex, bytes);
    ex_upload(ex, dx[s], x, bytes);
    ex_upload(ex, dy[s], y, bytes);
    ex_sig_init(&sig[s]);
    ex_sig_ptr(&sig[s], "fp32", dx[s]);
    ex_sig_ptr(&sig[s], "fp32", dy[s]);
    ex_sig_ptr(&sig[s], "fp32", dz[s]);
    ex_sig_int(&sig[s], n);
    ex_sig_const_int(&sig[s], BLOCK);
  }
  tlc_kernel *k;
  if (ex_kernel(ex, "vector_add/vector_add.tile", "add_kernel", sig[0].text, NULL, &k) != TLC_OK) {
    bench_line(b, "vector_add", size, 4, NAN, 3.0 * bytes, NAN, "ERROR");
  } else {
    unsigned grid[3] = {(unsigned)ex_cdiv(n, BLOCK), 1, 1};
    ex_ok(ex, tlc_memset_d8(ex->rt, dz[0], 0xFF, bytes), "tlc_memset_d8 (poison)");
    ex_ok(ex, tlc_launch(k, grid[0], 1, 1, NULL, sig[0].args, sig[0].nargs), "tlc_launch");
    ex_ok(ex, tlc_synchronize(ex->rt), "tlc_synchronize after the checked run");
    ex_download(ex, z, dz[0], bytes);
    double num = 0, den = 0;
    size_t where;
    bool bad = has_poison(z, (size_t)n, &where);
    for (int64_t i = 0; i < n; i++) {
      double r = (double)x[i] + (double)y[i], d = (double)z[i] - r;
      if (!isfinite(z[i])) bad = true;
      num += d * d, den += r * r;
    }
    double rel = sqrt(num / den);
    bool pass = !bad && rel < 1e-5;
    double t = time_sets(b, k, grid, sig, nsets);
    if (!sets_agree(b, dz, nsets, z, bytes)) pass = false;
    bench_line(b, "vector_add", size, tlc_kernel_num_warps(k), t, 3.0 * bytes, rel, pass ? "PASS" : "FAIL");
  }
  for (int s = 0; s < nsets; s++) ex_free(ex, dx[s]), ex_free(ex, dy[s]), ex_free(ex, dz[s]);
  free(x), free(y), free(z);
}

/* ---- softmax v1 ------------------------------------------------------------------- */

static void bench_softmax(Bench *b, int64_t M, int64_t N, const int *warps, int nwarps) {
  Ex *ex = &b->ex;
  size_t elems = (size_t)(M * N), bytes = elems * 4;
  char size[48];
  snprintf(size, sizeof size, "%lldx%lld", (long long)M, (long long)N);
  float *x = ex_xmalloc(bytes), *y = ex_xmalloc(bytes);
  ex_fill_f32(&ex->rng, x, elems, -4, 4);
  int nsets = sets_for(2 * bytes);
  tlc_devptr dx[MAX_SETS], dy[MAX_SETS];
  ExSig sig[MAX_SETS];
  int64_t block = ex_next_pow2(N);
  for (int s = 0; s < nsets; s++) {
    dx[s] = ex_alloc(ex, bytes), dy[s] = ex_alloc(ex, bytes);
    ex_upload(ex, dx[s], x, bytes);
    /* softmax_kernel(x_ptr, output_ptr, row_stride, n_cols, BLOCK_SIZE) */
    ex_sig_init(&sig[s]);
    ex_sig_ptr(&sig[s], "fp32", dx[s]);
    ex_sig_ptr(&sig[s], "fp32", dy[s]);
    ex_sig_int(&sig[s], N);
    ex_sig_int(&sig[s], N);
    ex_sig_const_int(&sig[s], block);
  }
  /* the reference, once: row max and sum in double */
  double *rmax = ex_xmalloc(sizeof(double) * (size_t)M), *rsum = ex_xmalloc(sizeof(double) * (size_t)M);
  for (int64_t r = 0; r < M; r++) {
    const float *xr = x + r * N;
    double m = -INFINITY, s = 0;
    for (int64_t c = 0; c < N; c++) m = fmax(m, xr[c]);
    for (int64_t c = 0; c < N; c++) s += exp((double)xr[c] - m);
    rmax[r] = m, rsum[r] = s;
  }
  unsigned grid[3] = {(unsigned)M, 1, 1};
  for (int w = 0; w < nwarps; w++) {
    tlc_kernel_options opt = {.num_warps = warps[w]};
    tlc_kernel *k;
    if (ex_kernel(ex, "softmax/softmax_v1.tile", "softmax_kernel", sig[0].text, &opt, &k) != TLC_OK) {
      bench_line(b, "softmax_v1", size, warps[w], NAN, 2.0 * bytes, NAN, "ERROR");
      continue;
    }
    ex_ok(ex, tlc_memset_d8(ex->rt, dy[0], 0xFF, bytes), "tlc_memset_d8 (poison)");
    ex_ok(ex, tlc_launch(k, grid[0], 1, 1, NULL, sig[0].args, sig[0].nargs), "tlc_launch");
    ex_ok(ex, tlc_synchronize(ex->rt), "tlc_synchronize after the checked run");
    ex_download(ex, y, dy[0], bytes);
    size_t where;
    bool bad = has_poison(y, elems, &where);
    double num = 0, den = 0;
    for (int64_t r = 0; r < M; r++)
      for (int64_t c = 0; c < N; c++) {
        double v = y[r * N + c], ref = exp((double)x[r * N + c] - rmax[r]) / rsum[r], d = v - ref;
        if (!isfinite(v)) bad = true;
        num += d * d, den += ref * ref;
      }
    double rel = sqrt(num / den);
    bool pass = !bad && rel < 1e-5;
    double t = time_sets(b, k, grid, sig, nsets);
    if (!sets_agree(b, dy, nsets, y, bytes)) pass = false;
    bench_line(b, "softmax_v1", size, tlc_kernel_num_warps(k), t, 2.0 * bytes, rel, pass ? "PASS" : "FAIL");
  }
  for (int s = 0; s < nsets; s++) ex_free(ex, dx[s]), ex_free(ex, dy[s]);
  free(rmax), free(rsum), free(x), free(y);
}

int main(int argc, char **argv) {
  Bench b = {0};
  b.reps = 100;
  b.warmup = 10;
  bool quick = false, smoke = false;
  /* our options first; the rest go to ex_open (--seed) */
  char *rest[64];
  int nrest = 0;
  rest[nrest++] = argv[0];
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--quick")) quick = true;
    else if (!strcmp(argv[i], "--smoke")) smoke = true;
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) b.reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--warmup") && i + 1 < argc) b.warmup = atoi(argv[++i]);
    else if (nrest < 63) rest[nrest++] = argv[i];
  }
  if (b.reps < 50) b.reps = 50;
  if (b.warmup < 1) b.warmup = 1;
  rest[nrest] = NULL;
  ex_open(&b.ex, nrest, rest, "tlc_bench");
  b.flush = ex_alloc(&b.ex, FLUSH_BYTES);

  static const int warps[] = {4, 8};
  if (smoke) {
    bench_vector_add(&b, ((int64_t)1 << 20) + 3);
    bench_softmax(&b, 300, 1024, warps, 2);
  } else {
    bench_vector_add(&b, (int64_t)1 << 28);
    static const int64_t sm[][2] = {{4096, 4096}, {4096, 1024}, {4096, 16384}, {16384, 8192}};
    int nsm = quick ? 1 : (int)(sizeof sm / sizeof *sm);
    for (int i = 0; i < nsm; i++) bench_softmax(&b, sm[i][0], sm[i][1], warps, 2);
  }

  ex_free(&b.ex, b.flush);
  b.ex.nfail = b.nfail;
  b.ex.npass = b.npass;
  return ex_finish(&b.ex);
}
