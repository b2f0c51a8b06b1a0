/* tlc_bench_tc — tlc's side of bench/run.sh for the tensor-core kernels:
 * matmul (fp16 and bf16, 4096^3 and 8192^3: the 1-D grouped kernel of
 * examples/matmul, which is the algorithm of Triton's matmul tutorial, over
 * a few block configs, and a num_stages sweep 1-5 of one config) and
 * the seed-004 fused attention (fp16, 32 heads, head dim 64 and 128, N_CTX
 * 1024 and 4096 at batch 4, 16384 at batch 1; forward causal and not,
 * backward causal, the only mode the seed's backward has, up to N_CTX
 * 4096), launched through the runtime.
 *
 * Every case is checked before it is timed: matmul on 64 sampled rows of C
 * against a double-precision reference (relative L2 2e-3), attention on the
 * first and last (batch, head) against examples/common/ref.c (O 1e-2, M 1e-3,
 * dQ/dK/dV 1e-2; every row up to N_CTX 4096, 64 rows spread over the
 * sequence beyond), outputs poisoned before the checked run.  Timing: median
 * of `reps` event-timed launches, each after a 256 MB memset that evicts L2
 * (as triton.testing.do_bench does); a step slower than 40 ms a launch
 * times about 2 s of launches, at least 10.  The attention forward takes the
 * kernel's own @triton.autotune configs (tlc_kernel_autotune); the backward
 * time covers _attn_bwd_preprocess and _attn_bwd, as the peers' do.
 * FLOPs counted as Triton's tutorials count them: matmul 2*M*N*K; attention
 * forward 4*Z*H*N^2*D, halved when causal; backward 2.5 times the forward.
 *
 * Seeds 000 and 001 on the same attention shapes, each launched as its
 * example host launches it (see "attention, seeds 000 and 001" below):
 * attn000_fwd (autotuned over its decorator) and attn000_bwd,
 * flash001_fwd_v1, flash001_fwd_v2 and flash001_bwd (16-row tiles), the
 * backwards causal and not up to N_CTX 4096; checked against the same
 * reference, the seed's own tolerances.  A full run leaves them out: they run
 * only when --only names their family (--only attn000, --only flash001,
 * --only flash001_bwd, ...).
 *
 * Matmul rows: fp16 and bf16 at 4096^3 and 8192^3, a num_stages sweep,
 * fp8 e4m3 at 8192^3 (B K-major, C fp16), and a persistent kernel
 * (matmul_persistent.tile: one program per SM looping over the tiles) at
 * fp16 8192^3.
 *
 *   BENCH name=matmul_fp16 size=4096x4096x4096 config=b128x128x32/w4
 *         tlc_tflops=159.4 time_us=862.1 rel_err=2.1e-04 status=PASS seed=N
 *
 * Options: --quick (N_CTX 1024 only, fewer matmul configs), --smoke (tiny
 * sizes), --reps N (default 50), --warmup N, --seed N, --ptx
 * FILE:WARPS:SMEM:BM:BN[:EXTRA] (time a PTX variant of the matmul kernel
 * beside the fp16 4096^3 configs: an experiment, see PtxVariant), --mm-only
 * (the first fp16 4096^3 config and the PTX variants only: for profilers),
 * --only PREFIX (only the rows whose name starts with PREFIX: matmul_fp8,
 * attn, ...; the rows of seeds 000 and 001 only with it), --size SIZE
 * (only the attention rows of that size, as the table prints it:
 * Z4H32N4096D128-causal; with --only and the autotune record of an earlier
 * run, one kernel for a profiler), --fwd-config BM,BN,WARPS,STAGES (the
 * seed-004 forward on that one config instead of its autotune decorator's:
 * an experiment), --print-configs (no device: one line per kernel the run
 * would compile, `ROW TILE KERNEL SIGNATURE WARPS STAGES`, WARPS `autotune`
 * for an autotuned forward, whose decorator's configs all compile; without
 * --only, for bench/check_spills.sh, the full run's). */
#include "examples/common/host.h"
#include "examples/common/ref.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FLUSH_BYTES = 256 << 20 };

typedef struct Bench {
  Ex ex;
  const char *only; /* --only PREFIX: the rows whose name starts with it */
  const char *size; /* --size SIZE: only the attention rows of this size (Z4H32N4096D128-causal) */
  int fwd_cfg[4];   /* --fwd-config BM,BN,WARPS,STAGES: the forward on this config, not autotuned */
  bool print_configs; /* --print-configs: list the matmul kernels, run nothing */
  tlc_devptr flush;
  int reps, warmup;
  int npass, nfail;
} Bench;

static void bench_line(Bench *b, const char *name, const char *size, const char *config, double flops,
                       double t_us, double rel_err, bool pass) {
  double tflops = t_us > 0 ? flops / (t_us * 1e6) : NAN;
  printf("BENCH name=%s size=%s config=%s tlc_tflops=%.1f time_us=%.2f rel_err=%.2e status=%s seed=%" PRIu64
         "\n",
         name, size, config, tflops, t_us, rel_err, pass ? "PASS" : "FAIL", b->ex.seed);
  fflush(stdout);
  if (pass) b->npass++;
  else b->nfail++;
}

static void bench_error(Bench *b, const char *name, const char *size, const char *config) {
  printf("BENCH name=%s size=%s config=%s tlc_tflops=nan time_us=nan rel_err=nan status=ERROR seed=%" PRIu64
         "\n",
         name, size, config, b->ex.seed);
  fflush(stdout);
  b->nfail++;
}

/* One timed step: up to three launches (the attention backwards are two
 * kernels, seed 000's three). */
typedef struct Step {
  tlc_kernel *k[3];
  unsigned grid[3][3];
  const ExSig *sig[3];
  int n;
} Step;

static void launch_step(Ex *ex, const Step *s) {
  for (int i = 0; i < s->n; i++)
    ex_ok(ex, tlc_launch(s->k[i], s->grid[i][0], s->grid[i][1], s->grid[i][2], NULL, s->sig[i]->args,
                         s->sig[i]->nargs),
          "tlc_launch");
}

/* The timed launches of one step take about this long at most (a slow
 * step, seed 001's 16-row tiles at N_CTX 16384, runs fewer than --reps of
 * them, never fewer than 10, and fewer warm-ups); the steps of the other
 * rows take under 40 ms and keep their --reps. */
enum { TIME_BUDGET_US = 2000000 };

/* Median event time of the step, L2 flushed before each.  The first
 * warm-up launch is timed: the estimate that bounds the rest. */
static double time_step(Bench *b, const Step *s) {
  Ex *ex = &b->ex;
  tlc_event **e1 = ex_events_create(ex, 1);
  ex_ok(ex, tlc_event_record(e1[0], NULL), "tlc_event_record");
  launch_step(ex, s);
  ex_ok(ex, tlc_event_record(e1[1], NULL), "tlc_event_record");
  double est = ex_events_median_us(ex, e1, 1);
  for (int i = 1; i < b->warmup && i * est < TIME_BUDGET_US / 4; i++) launch_step(ex, s);
  ex_ok(ex, tlc_synchronize(ex->rt), "tlc_synchronize after warm-up");
  int reps = b->reps;
  if (est * reps > TIME_BUDGET_US) reps = est * 10 > TIME_BUDGET_US ? 10 : (int)(TIME_BUDGET_US / est);
  tlc_event **ev = ex_events_create(ex, reps);
  for (int i = 0; i < reps; i++) {
    ex_ok(ex, tlc_memset_d32(ex->rt, b->flush, (uint32_t)i, FLUSH_BYTES / 4), "tlc_memset_d32 (L2 flush)");
    ex_ok(ex, tlc_event_record(ev[2 * i], NULL), "tlc_event_record");
    launch_step(ex, s);
    ex_ok(ex, tlc_event_record(ev[2 * i + 1], NULL), "tlc_event_record");
  }
  return ex_events_median_us(ex, ev, reps);
}

/* Relative L2 error of n device elements against ref; poison or non-finite
 * values fail (returns +inf). */
static double rel_err_of(const void *out, ExElem e, const double *ref, size_t n) {
  double num = 0, den = 0;
  for (size_t i = 0; i < n; i++) {
    bool poison;
    double v = ex_elem_value(out, e, i, &poison);
    if (poison || !isfinite(v)) return INFINITY;
    num += (v - ref[i]) * (v - ref[i]), den += ref[i] * ref[i];
  }
  return den > 0 ? sqrt(num / den) : sqrt(num);
}

/* ---- matmul ---------------------------------------------------------------------- */

typedef struct MmConfig {
  int bm, bn, bk, group, warps, stages;
} MmConfig;

/* PTX variants of the matmul kernel to time beside the compiled configs
 * (--ptx FILE:WARPS:SMEM:BM:BN[:EXTRA], a developer's experiment: tlc's own
 * PTX edited by hand, or Triton's for the same kernel text, whose EXTRA
 * trailing pointer parameters get NULL).  fp16 4096^3 only. */
typedef struct PtxVariant {
  const char *file;
  int warps, smem, bm, bn, extra;
} PtxVariant;
static PtxVariant ptx_variants[8];
static int nptx_variants;

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = ex_xmalloc((size_t)n + 1);
  size_t got = fread(s, 1, (size_t)n, f);
  s[got] = 0;
  fclose(f);
  return s;
}

/* Load variant v with the runtime arguments of sig (plus NULL pointers). */
static tlc_kernel *load_variant(Ex *ex, const PtxVariant *v, ExSig *sig) {
  char *text = read_text(v->file);
  if (!text) return NULL;
  tlc_param_desc params[EX_MAX_ARGS];
  int n = 0;
  for (int i = 0; i < sig->nargs; i++)
    params[n++] = (tlc_param_desc){"arg", sig->args[i].kind == TLC_ARG_PTR ? "ptr" : "i32"};
  for (int i = 0; i < v->extra && sig->nargs < EX_MAX_ARGS; i++) {
    params[n++] = (tlc_param_desc){"scratch", "ptr"};
    sig->args[sig->nargs++] = TLC_PTR(0);
  }
  tlc_kernel *k = NULL;
  if (tlc_kernel_from_ptx(ex->rt, text, "grouped_matmul_1d_kernel", v->warps, v->smem, params, n, &k) != TLC_OK) {
    fprintf(stderr, "tlc_bench_tc: %s: %s\n", v->file, tlc_runtime_error(ex->rt));
    k = NULL;
  }
  free(text);
  return k;
}

/* Run step s once on a poisoned C (c: its host copy, elements of type e)
 * and compare rows[0..nrows) of it with ref (nrows x N): the relative L2
 * error, infinity when an element is unwritten or not finite. */
static double checked_run(Ex *ex, const Step *s, ExOut *dc, void *c, ExElem e, const int64_t *rows, int nrows,
                          int64_t N, const double *ref) {
  ex_poison(ex, dc);
  launch_step(ex, s);
  ex_ok(ex, tlc_synchronize(ex->rt), "synchronize (a fault in the kernel?)");
  ex_download(ex, c, dc->p, dc->bytes);
  double num = 0, den = 0;
  for (int r = 0; r < nrows; r++)
    for (int64_t j = 0; j < N; j++) {
      bool poison;
      double v = ex_elem_value(c, e, (size_t)(rows[r] * N + j), &poison), w = ref[(size_t)r * N + j];
      if (poison || !isfinite(v)) return INFINITY;
      num += (v - w) * (v - w), den += w * w;
    }
  return sqrt(num / den);
}

/* The signature of a matmul row's kernel for config g (the persistent rows
 * take the SM count as NUM_SMS); the tile file and kernel in *tile, *kernel. */
static void mm_signature(ExSig *sig, const char *name, const char *dt, tlc_devptr da, tlc_devptr db, tlc_devptr dc,
                         int64_t M, int64_t N, int64_t K, const MmConfig *g, int sms, const char **tile,
                         const char **kernel) {
  bool fp8 = ex_elem_of(dt) == EX_F8E4M3 || ex_elem_of(dt) == EX_F8E5M2;
  bool persistent = strstr(name, "persistent") != NULL;
  ex_sig_init(sig);
  ex_sig_ptr(sig, dt, da), ex_sig_ptr(sig, dt, db), ex_sig_ptr(sig, fp8 ? "fp16" : dt, dc);
  ex_sig_int(sig, M), ex_sig_int(sig, N), ex_sig_int(sig, K);
  ex_sig_int(sig, K), ex_sig_int(sig, 1);
  if (fp8) ex_sig_int(sig, 1), ex_sig_int(sig, K);
  else ex_sig_int(sig, N), ex_sig_int(sig, 1);
  ex_sig_int(sig, N), ex_sig_int(sig, 1);
  ex_sig_const_int(sig, g->bm), ex_sig_const_int(sig, g->bn), ex_sig_const_int(sig, g->bk);
  ex_sig_const_int(sig, g->group);
  if (persistent) ex_sig_const_int(sig, sms);
  *tile = persistent ? "matmul/matmul_persistent.tile" : "matmul/grouped_matmul_1d.tile";
  *kernel = persistent ? "matmul_persistent_kernel" : "grouped_matmul_1d_kernel";
}

/* Does --only let row `name` run?  Its name starts with the prefix.  The
 * rows of seeds 000 and 001 (attn000_*, flash001_*) run only when the
 * prefix names their family (attn000, attn000_bwd, flash001, ...): a full
 * run already takes longer than one device call, and --only attn keeps
 * meaning seed 004's rows. */
static bool row_wanted(const Bench *b, const char *name) {
  static const char *const optin[] = {"attn000", "flash001"};
  for (size_t i = 0; i < sizeof optin / sizeof *optin; i++)
    if (!strncmp(name, optin[i], strlen(optin[i])))
      return b->only && !strncmp(b->only, optin[i], strlen(optin[i])) && !strncmp(name, b->only, strlen(b->only));
  return !b->only || !strncmp(name, b->only, strlen(b->only));
}

/* One matmul workload over configs; `name` is the table's row name
 * (matmul_fp16, matmul_bf16, matmul_fp16_s3 for the stage sweep).  fp8
 * (fp8e4nv) runs as Triton's matmul tutorial does it: B stored K-major
 * (b.T of an N x K array, the operand order fp8 wgmma reads), C in fp16. */
static void bench_matmul(Bench *b, const char *name, const char *dt, int64_t M, int64_t N, int64_t K,
                         const MmConfig *cfg, int ncfg) {
  if (!row_wanted(b, name)) return;
  if (b->print_configs) { /* no device: what would be compiled (H100's 132 SMs for NUM_SMS) */
    for (int i = 0; i < ncfg; i++) {
      ExSig sig;
      const char *tile, *kernel;
      mm_signature(&sig, name, dt, 0, 0, 0, M, N, K, &cfg[i], 132, &tile, &kernel);
      printf("%s %s %s %s %d %d\n", name, tile, kernel, sig.text, cfg[i].warps, cfg[i].stages);
    }
    return;
  }
  Ex *ex = &b->ex;
  ExElem e = ex_elem_of(dt);
  bool fp8 = e == EX_F8E4M3 || e == EX_F8E5M2;
  const char *cdt = fp8 ? "fp16" : dt;
  ExElem ce = ex_elem_of(cdt);
  char size[64];
  snprintf(size, sizeof size, "%lldx%lldx%lld", (long long)M, (long long)N, (long long)K);
  double *a = ex_xmalloc(sizeof(double) * (size_t)(M * K)), *bb = ex_xmalloc(sizeof(double) * (size_t)(K * N));
  tlc_devptr da = ex_upload_random(ex, e, (size_t)(M * K), -1, 1, a);
  tlc_devptr db = ex_upload_random(ex, e, (size_t)(K * N), -1, 1, bb);
  if (fp8) { /* the values went up as N x K: bb becomes K x N for the reference */
    double *t = ex_xmalloc(sizeof(double) * (size_t)(K * N));
    for (int64_t i = 0; i < K; i++)
      for (int64_t j = 0; j < N; j++) t[i * N + j] = bb[j * K + i];
    free(bb);
    bb = t;
  }
  ExOut dc = ex_out_alloc(ex, (size_t)(M * N) * 2);
  /* 64 rows spread over C, their reference in double */
  enum { ROWS = 64 };
  int64_t rows[ROWS];
  double *ref = ex_xmalloc(sizeof(double) * ROWS * (size_t)N);
  for (int r = 0; r < ROWS; r++) {
    rows[r] = (int64_t)(ex_rng_next(&ex->rng) % (uint64_t)M);
    ref_matmul(a + rows[r] * K, bb, 1, N, K, ref + (size_t)r * N);
  }
  uint16_t *c = ex_xmalloc((size_t)(M * N) * 2);
  double flops = 2.0 * (double)M * (double)N * (double)K;
  for (int i = 0; i < ncfg; i++) {
    const MmConfig *g = &cfg[i];
    char config[48];
    snprintf(config, sizeof config, "b%dx%dx%d/g%d/w%d/s%d", g->bm, g->bn, g->bk, g->group, g->warps, g->stages);
    ExSig sig;
    const char *tile, *kernel;
    /* the persistent rows: matmul_persistent.tile, one program per SM */
    bool persistent = strstr(name, "persistent") != NULL;
    int sms = tlc_device_sm_count(ex->rt);
    unsigned tiles = (unsigned)(ex_cdiv(M, g->bm) * ex_cdiv(N, g->bn));
    mm_signature(&sig, name, dt, da, db, dc.p, M, N, K, g, sms, &tile, &kernel);
    tlc_kernel_options opt = {.num_warps = g->warps, .num_stages = g->stages};
    tlc_kernel *k;
    if (ex_kernel(ex, tile, kernel, sig.text, &opt, &k) != TLC_OK) {
      bench_error(b, name, size, config);
      continue;
    }
    unsigned grid = persistent && tiles > (unsigned)sms ? (unsigned)sms : tiles;
    Step s = {.k = {k}, .grid = {{grid, 1, 1}}, .sig = {&sig}, .n = 1};
    double rel = checked_run(ex, &s, &dc, c, ce, rows, ROWS, N, ref);
    double t = time_step(b, &s);
    bench_line(b, name, size, config, flops, t, rel, rel < (ce == EX_BF16 ? 1e-2 : 2e-3));
    /* the PTX variants, after the first config, with its arguments */
    for (int v = 0; i == 0 && v < nptx_variants && e == EX_F16 && M == 4096; v++) {
      const PtxVariant *pv = &ptx_variants[v];
      ExSig vs = sig;
      tlc_kernel *vk = load_variant(ex, pv, &vs);
      const char *base = strrchr(pv->file, '/') ? strrchr(pv->file, '/') + 1 : pv->file;
      snprintf(config, sizeof config, "ptx:%.40s", base);
      if (!vk) {
        bench_error(b, name, size, config);
        continue;
      }
      Step vstep = {.k = {vk}, .grid = {{(unsigned)(ex_cdiv(M, pv->bm) * ex_cdiv(N, pv->bn)), 1, 1}}, .sig = {&vs}, .n = 1};
      rel = checked_run(ex, &vstep, &dc, c, e, rows, ROWS, N, ref);
      bench_line(b, name, size, config, flops, time_step(b, &vstep), rel, rel < 2e-3);
    }
  }
  free(c), free(ref), free(a), free(bb);
  ex_out_free(ex, &dc);
  ex_free(ex, da), ex_free(ex, db);
}

/* ---- attention: one shape's inputs and reference --------------------------------- */

/* Sequences up to ATT_FULL_N are checked on every row (and run the
 * backwards); longer ones on ATT_ROWS rows of the forward. */
enum { ATT_FULL_N = 4096, ATT_ROWS = 64 };

/* One shape's inputs and CPU reference, shared by the rows that run on it:
 * Q, K, V, dO fp16 uniform in [-1, 1], (Z, H, N, D) contiguous, scale 0.5;
 * the reference (examples/common/ref.c) of the first and the last (batch,
 * head), the two computed on two threads: every row up to ATT_FULL_N, with
 * the gradients where a backward runs, else ATT_ROWS rows spread over the
 * sequence (the N x N reference would not fit). */
typedef struct AttIn {
  int Z, H, N, D;
  bool causal;
  double scale;
  char size[64];            /* as the table prints it: Z4H32N4096D128-causal */
  size_t n, nm, hd;         /* elements of Q, of M (one a query), of one head of Q */
  double *q, *k, *v, *dout; /* the values uploaded */
  tlc_devptr Q, K, V, DO;
  size_t heads[2];          /* the checked (batch, head)s */
  bool full;                /* every row checked (N <= ATT_FULL_N) */
  int nrows, *rows;         /* the checked rows of each */
  double *ro, *rm;          /* their O (2 x nrows x D) and M (2 x nrows: log2 of the softmax sum) */
  double *rdq, *rdk, *rdv;  /* dQ, dK, dV of both heads (2 x N x D); NULL without a backward */
} AttIn;

/* The shape alone (all --print-configs needs); no memory. */
static void att_shape(AttIn *a, int Z, int H, int N, int D, bool causal) {
  memset(a, 0, sizeof *a);
  a->Z = Z, a->H = H, a->N = N, a->D = D, a->causal = causal, a->scale = 0.5;
  snprintf(a->size, sizeof a->size, "Z%dH%dN%dD%d%s", Z, H, N, D, causal ? "-causal" : "");
  a->hd = (size_t)N * D, a->nm = (size_t)Z * H * N, a->n = a->nm * D;
  a->full = N <= ATT_FULL_N;
}

typedef struct AttRefJob {
  AttIn *a;
  int i; /* heads[i] */
} AttRefJob;

static void *att_ref_head(void *job) {
  const AttRefJob *j = job;
  AttIn *a = j->a;
  size_t h = a->heads[j->i], hd = a->hd, i = (size_t)j->i, rd = (size_t)a->nrows * a->D;
  if (a->full)
    ref_attention_head(a->q + h * hd, a->k + h * hd, a->v + h * hd, a->rdq ? a->dout + h * hd : NULL, a->N, a->D,
                       a->causal, a->scale, a->ro + i * hd, a->rm + i * a->N, a->rdq ? a->rdq + i * hd : NULL,
                       a->rdk ? a->rdk + i * hd : NULL, a->rdv ? a->rdv + i * hd : NULL);
  else
    ref_attention_rows(a->q + h * hd, a->k + h * hd, a->v + h * hd, a->N, a->D, a->causal, a->scale, a->rows,
                       a->nrows, a->ro + i * rd, a->rm + i * a->nrows);
  return NULL;
}

/* Upload the inputs (drawn in the order Q, K, V, dO) and compute the
 * reference; grads: the backward's too (full sequences only). */
static void att_in_make(Ex *ex, AttIn *a, int Z, int H, int N, int D, bool causal, bool grads) {
  att_shape(a, Z, H, N, D, causal);
  size_t n = a->n;
  a->q = ex_xmalloc(n * 8), a->k = ex_xmalloc(n * 8), a->v = ex_xmalloc(n * 8), a->dout = ex_xmalloc(n * 8);
  a->Q = ex_upload_random(ex, EX_F16, n, -1, 1, a->q), a->K = ex_upload_random(ex, EX_F16, n, -1, 1, a->k);
  a->V = ex_upload_random(ex, EX_F16, n, -1, 1, a->v), a->DO = ex_upload_random(ex, EX_F16, n, -1, 1, a->dout);
  a->heads[0] = 0, a->heads[1] = (size_t)Z * H - 1;
  a->nrows = a->full ? N : ATT_ROWS;
  a->rows = ex_xmalloc(sizeof(int) * (size_t)a->nrows);
  for (int r = 0; r < a->nrows; r++) a->rows[r] = a->full ? r : (int)((int64_t)r * (N - 1) / (ATT_ROWS - 1));
  a->ro = ex_xmalloc(2 * (size_t)a->nrows * D * 8), a->rm = ex_xmalloc(2 * (size_t)a->nrows * 8);
  if (grads && a->full)
    a->rdq = ex_xmalloc(2 * a->hd * 8), a->rdk = ex_xmalloc(2 * a->hd * 8), a->rdv = ex_xmalloc(2 * a->hd * 8);
  AttRefJob jobs[2] = {{a, 0}, {a, 1}};
  pthread_t t;
  bool threaded = pthread_create(&t, NULL, att_ref_head, &jobs[1]) == 0;
  att_ref_head(&jobs[0]);
  if (threaded) pthread_join(t, NULL);
  else att_ref_head(&jobs[1]);
}

static void att_in_free(Ex *ex, AttIn *a) {
  ex_free(ex, a->Q), ex_free(ex, a->K), ex_free(ex, a->V), ex_free(ex, a->DO);
  free(a->q), free(a->k), free(a->v), free(a->dout), free(a->rows), free(a->ro), free(a->rm);
  free(a->rdq), free(a->rdk), free(a->rdv);
}

/* Forward FLOPs as Triton's tutorial counts them: 4 Z H N^2 D, halved when causal. */
static double att_flops(const AttIn *a) {
  return 4.0 * a->Z * a->H * (double)a->N * a->N * a->D * (a->causal ? 0.5 : 1.0);
}

/* A forward's error on the checked rows: O (device elements oe) against the
 * reference's O, M (elements me) against its M times mscale (1 for base-2
 * statistics, ln 2 for natural ones); only the two heads are downloaded. */
static void att_check_fwd(Ex *ex, const AttIn *a, tlc_devptr O, ExElem oe, tlc_devptr M, ExElem me, double mscale,
                          double *err_o, double *err_m) {
  size_t D = (size_t)a->D, nr = (size_t)a->nrows, osz = ex_elem_size(oe), msz = ex_elem_size(me);
  char *ho = ex_xmalloc(a->hd * osz), *hm = ex_xmalloc((size_t)a->N * msz);
  char *go = ex_xmalloc(nr * D * osz), *gm = ex_xmalloc(nr * msz);
  double *rm = ex_xmalloc(nr * 8);
  *err_o = *err_m = 0;
  for (size_t i = 0; i < 2; i++) { /* the checked rows of head i, gathered */
    size_t h = a->heads[i];
    ex_download(ex, ho, O + h * a->hd * osz, a->hd * osz);
    ex_download(ex, hm, M + h * (size_t)a->N * msz, (size_t)a->N * msz);
    for (size_t r = 0; r < nr; r++) {
      memcpy(go + r * D * osz, ho + (size_t)a->rows[r] * D * osz, D * osz);
      memcpy(gm + r * msz, hm + (size_t)a->rows[r] * msz, msz);
      rm[r] = a->rm[i * nr + r] * mscale;
    }
    *err_o = fmax(*err_o, rel_err_of(go, oe, a->ro + i * nr * D, nr * D));
    *err_m = fmax(*err_m, rel_err_of(gm, me, rm, nr));
  }
  free(ho), free(hm), free(go), free(gm), free(rm);
}

/* A backward's error: dQ, dK, dV (out[0..3), device elements e) of the two
 * checked heads against the reference, the largest. */
static double att_check_grads(Ex *ex, const AttIn *a, const tlc_devptr out[3], ExElem e) {
  size_t esz = ex_elem_size(e);
  char *h = ex_xmalloc(a->hd * esz);
  const double *refs[3] = {a->rdq, a->rdk, a->rdv};
  double err = 0;
  for (int o = 0; o < 3; o++)
    for (size_t i = 0; i < 2; i++) {
      ex_download(ex, h, out[o] + a->heads[i] * a->hd * esz, a->hd * esz);
      err = fmax(err, rel_err_of(h, e, refs[o] + i * a->hd, a->hd));
    }
  free(h);
  return err;
}

/* The grid of an autotuned forward: (cdiv(N, rows a program), Z * H), the
 * rows the constexpr `block` of the chosen config. */
typedef struct AttGrid {
  int N, ZH;
  const char *block;
} AttGrid;

static void att_fwd_grid(const tlc_kernel *k, void *user, unsigned g[3]) {
  const AttGrid *c = user;
  int64_t bm = 128;
  tlc_kernel_constexpr_int(k, c->block, &bm);
  g[0] = (unsigned)ex_cdiv(c->N, bm), g[1] = (unsigned)c->ZH, g[2] = 1;
}

/* ---- attention, seed 004 ------------------------------------------------------------ */

static const char *ATT_TILE = "attention/fused_attention.tile";

/* fp16 copy of v on the device */
static tlc_devptr dev_f16(Ex *ex, const double *v, size_t n) {
  uint16_t *h = ex_xmalloc(n * 2);
  for (size_t i = 0; i < n; i++) h[i] = ex_f32_to_f16((float)v[i]);
  tlc_devptr d = ex_alloc(ex, n * 2);
  ex_upload(ex, d, h, n * 2);
  free(h);
  return d;
}

/* The backward runs as the seed's host launches it, on 4 warps (the
 * seed's) and on 8 (two warpgroups: dk and dv of a 128-row block at head
 * dim 128 need 256 fp32 registers a thread on one), the faster reported;
 * the peers' script gives Triton the same two. */
enum { ATT_BWD_STAGES = 5 };
static const int att_bwd_warps[] = {4, 8};

/* _attn_fwd's signature (BLOCK_M, BLOCK_N left to its autotune configs). */
static void att_fwd_sig(ExSig *s, tlc_devptr Q, tlc_devptr K, tlc_devptr V, tlc_devptr M, tlc_devptr O, double scale,
                        int Z, int H, int N, int D, bool causal) {
  ex_sig_init(s);
  ex_sig_ptr(s, "fp16", Q), ex_sig_ptr(s, "fp16", K), ex_sig_ptr(s, "fp16", V);
  ex_sig_arg(s, "fp32", TLC_F32((float)scale));
  ex_sig_ptr(s, "fp32", M), ex_sig_ptr(s, "fp16", O);
  for (int t = 0; t < 4; t++) ex_sig_int(s, (int64_t)H * N * D), ex_sig_int(s, (int64_t)N * D), ex_sig_int(s, D), ex_sig_int(s, 1);
  ex_sig_int(s, Z), ex_sig_int(s, H), ex_sig_int(s, N);
  ex_sig_const_int(s, D);
  ex_sig_const(s, "_"), ex_sig_const(s, "_");
  ex_sig_const_int(s, causal ? 3 : 1);
}

/* _attn_bwd's signature: p = Q, K (pre-scaled), V, DO, DQ, DK, DV, M, DELTA;
 * blocks (32, 128, 128, 32), slice factor 2. */
static void att_bwd_sig(ExSig *s, const tlc_devptr *p, double scale, int H, int N, int D) {
  ex_sig_init(s);
  ex_sig_ptr(s, "fp16", p[0]), ex_sig_ptr(s, "fp16", p[1]), ex_sig_ptr(s, "fp16", p[2]);
  ex_sig_arg(s, "fp32", TLC_F32((float)scale));
  for (int i = 3; i < 7; i++) ex_sig_ptr(s, "fp16", p[i]);
  ex_sig_ptr(s, "fp32", p[7]), ex_sig_ptr(s, "fp32", p[8]);
  ex_sig_int(s, (int64_t)H * N * D), ex_sig_int(s, (int64_t)N * D), ex_sig_int(s, D), ex_sig_int(s, 1);
  ex_sig_int(s, H), ex_sig_int(s, N);
  ex_sig_const_int(s, 32), ex_sig_const_int(s, 128), ex_sig_const_int(s, 128), ex_sig_const_int(s, 32);
  ex_sig_const_int(s, 2), ex_sig_const_int(s, D);
}

/* --print-configs: the forward once per (D, causal) with `autotune` for
 * its warps (check_spills.sh takes every config of the decorator), the
 * backward with the seed host's. */
static void print_attention(int Z, int H, int N, int D, bool causal) {
  ExSig s;
  att_fwd_sig(&s, 0, 0, 0, 0, 0, 0.5, Z, H, N, D, causal);
  printf("attn_fwd %s _attn_fwd %s autotune -\n", ATT_TILE, s.text);
  if (!causal || N > ATT_FULL_N) return;
  tlc_devptr p[10] = {0};
  att_bwd_sig(&s, p, 0.5, H, N, D);
  for (size_t w = 0; w < sizeof att_bwd_warps / sizeof *att_bwd_warps; w++)
    printf("attn_bwd %s _attn_bwd %s %d %d\n", ATT_TILE, s.text, att_bwd_warps[w], ATT_BWD_STAGES);
}

static void bench_attention(Bench *b, int Z, int H, int N, int D, bool causal) {
  /* (--only attn_bwd still runs the forward, whose M the backward reads,
   * without its line; the backward is causal only, as the seed's) */
  bool bwd = causal && N <= ATT_FULL_N && row_wanted(b, "attn_bwd");
  if (!row_wanted(b, "attn_fwd") && !bwd) return;
  if (b->print_configs) {
    print_attention(Z, H, N, D, causal);
    return;
  }
  Ex *ex = &b->ex;
  AttIn a;
  att_shape(&a, Z, H, N, D, causal);
  if (b->size && strcmp(a.size, b->size)) return;
  att_in_make(ex, &a, Z, H, N, D, causal, bwd);
  size_t n = a.n, nm = a.nm;
  double scale = a.scale, fwd_flops = att_flops(&a);
  ExOut O = ex_out_alloc(ex, n * 2), M = ex_out_alloc(ex, nm * 4);

  ExSig s;
  att_fwd_sig(&s, a.Q, a.K, a.V, M.p, O.p, scale, Z, H, N, D, causal);
  AttGrid gc = {N, Z * H, "BLOCK_M"};
  tlc_kernel *fwd;
  char path[4096];
  tlc_status st;
  if (b->fwd_cfg[0]) { /* an experiment: one config, as an autotune config would compile it */
    char cbm[32], cbn[32];
    snprintf(cbm, sizeof cbm, "BLOCK_M=%d", b->fwd_cfg[0]), snprintf(cbn, sizeof cbn, "BLOCK_N=%d", b->fwd_cfg[1]);
    const char *cx[2] = {cbm, cbn};
    tlc_kernel_options o = {.num_warps = b->fwd_cfg[2], .num_stages = b->fwd_cfg[3], .constexprs = cx, .nconstexprs = 2};
    st = ex_kernel(ex, ATT_TILE, "_attn_fwd", s.text, &o, &fwd);
  } else
    st = tlc_kernel_autotune(ex->rt, ex_tile_path(ATT_TILE, path, sizeof path), "_attn_fwd", s.text, NULL,
                             att_fwd_grid, &gc, s.args, s.nargs, &fwd);
  if (st != TLC_OK) {
    fprintf(stderr, "tlc_bench_tc: autotune: %s\n", tlc_runtime_error(ex->rt));
    bench_error(b, "attn_fwd", a.size, "-");
    goto done;
  }
  int64_t bm, bn;
  tlc_kernel_constexpr_int(fwd, "BLOCK_M", &bm), tlc_kernel_constexpr_int(fwd, "BLOCK_N", &bn);
  char config[48];
  snprintf(config, sizeof config, "%s:b%dx%d/w%d", b->fwd_cfg[0] ? "fixed" : "tuned", (int)bm, (int)bn, tlc_kernel_num_warps(fwd));
  if (!b->fwd_cfg[0]) /* which of the decorator's configs (stages are not in the label otherwise) */
    snprintf(config + strlen(config), sizeof config - strlen(config), "/c%d", tlc_kernel_tuned_config(fwd));
  Step sf = {.k = {fwd}, .sig = {&s}, .n = 1};
  att_fwd_grid(fwd, &gc, sf.grid[0]);
  ex_poison(ex, &O), ex_poison(ex, &M);
  launch_step(ex, &sf);
  ex_ok(ex, tlc_synchronize(ex->rt), "synchronize (a fault in the kernel?)");
  double err_o, err_m;
  att_check_fwd(ex, &a, O.p, EX_F16, M.p, EX_F32, 1.0, &err_o, &err_m);
  double t = time_step(b, &sf);
  if (row_wanted(b, "attn_fwd"))
    bench_line(b, "attn_fwd", a.size, config, fwd_flops, t, fmax(err_o, err_m), err_o < 1e-2 && err_m < 1e-3);

  if (bwd) {
    /* the seed host's backward: K pre-scaled by sm_scale / ln 2, preprocess
     * with PRE_BLOCK 128, _attn_bwd with (32, 128, 128, 32), slice factor 2,
     * 5 stages, grid (N / 128, 1, Z * H); 4 warps (the seed's) and 8 */
    double *ks = ex_xmalloc(n * 8);
    for (size_t i = 0; i < n; i++) ks[i] = ex_f16_to_f32(ex_f32_to_f16((float)(a.k[i] * (scale * 1.4426950408889634))));
    tlc_devptr KS = dev_f16(ex, ks, n);
    free(ks);
    ExOut DQ = ex_out_alloc(ex, n * 2), DK = ex_out_alloc(ex, n * 2), DV = ex_out_alloc(ex, n * 2);
    tlc_devptr DELTA = ex_alloc(ex, nm * 4);
    ExSig p, bs;
    ex_sig_init(&p);
    ex_sig_ptr(&p, "fp16", O.p), ex_sig_ptr(&p, "fp16", a.DO), ex_sig_ptr(&p, "fp32", DELTA);
    ex_sig_int(&p, Z), ex_sig_int(&p, H), ex_sig_int(&p, N);
    ex_sig_const_int(&p, 128), ex_sig_const_int(&p, D);
    tlc_devptr bp[10] = {a.Q, KS, a.V, a.DO, DQ.p, DK.p, DV.p, M.p, DELTA};
    att_bwd_sig(&bs, bp, scale, H, N, D);
    tlc_kernel *pre;
    if (ex_kernel(ex, ATT_TILE, "_attn_bwd_preprocess", p.text, NULL, &pre) != TLC_OK) pre = NULL;
    /* one line per warp count (run.sh's table keeps the best passing one);
     * a wrong result is reported, never timed */
    for (size_t w = 0; w < sizeof att_bwd_warps / sizeof *att_bwd_warps; w++) {
      char cfg[32];
      snprintf(cfg, sizeof cfg, "b32x128x128x32/w%d", att_bwd_warps[w]);
      tlc_kernel_options bopt = {.num_warps = att_bwd_warps[w], .num_stages = ATT_BWD_STAGES};
      tlc_kernel *kb;
      if (!pre || ex_kernel(ex, ATT_TILE, "_attn_bwd", bs.text, &bopt, &kb) != TLC_OK) {
        bench_error(b, "attn_bwd", a.size, cfg);
        continue;
      }
      Step sb = {.k = {pre, kb},
                 .grid = {{(unsigned)(N / 128), (unsigned)(Z * H), 1}, {(unsigned)(N / 128), 1, (unsigned)(Z * H)}},
                 .sig = {&p, &bs}, .n = 2};
      ex_poison(ex, &DQ), ex_poison(ex, &DK), ex_poison(ex, &DV);
      launch_step(ex, &sb);
      ex_ok(ex, tlc_synchronize(ex->rt), "synchronize (a fault in the kernel?)");
      const tlc_devptr outs[3] = {DQ.p, DK.p, DV.p};
      double err = att_check_grads(ex, &a, outs, EX_F16);
      double tb = err < 1e-2 ? time_step(b, &sb) : 0;
      bench_line(b, "attn_bwd", a.size, cfg, 2.5 * fwd_flops, tb, err, err < 1e-2);
    }
    ex_free(ex, KS), ex_free(ex, DELTA);
    ex_out_free(ex, &DQ), ex_out_free(ex, &DK), ex_out_free(ex, &DV);
  }
done:
  ex_out_free(ex, &O), ex_out_free(ex, &M);
  att_in_free(ex, &a);
}

/* ---- attention, seeds 000 and 001 ------------------------------------------------- */

/* Seed 000 (attention_000.tile) as examples/attention/attention_000.c (the
 * seed's TritonAttention) launches it: attention_forward_kernel autotuned
 * over its decorator (24 configs; seq_len, num_heads and head_dim are
 * constexprs, so every shape compiles and tunes its own), grid
 * (cdiv(N, BLOCKSIZE_Q), Z * H), O and L (natural log) fp16; the backward,
 * causal or not, attn_backward_D (blocks of 128, D fp16) then
 * attn_backward_dKdV and attn_backward_dQ (blocks 128 and 32, 3 stages, grid
 * (N / 128, 1, Z * H)) on the forward's O and L, on 4 warps (the seed's)
 * and on 8 (as seed 004's backward: two warpgroups share the 128-row
 * block's dK and dV accumulators), one line each; the three kernels timed
 * together.
 *
 * Seed 001 (flash_fwd_v1.tile, flash_fwd_v2.tile, flash_bwd.tile) as
 * examples/attention/flash_001.c (the seed's FlashAttention2) launches it:
 * (Z * H, N, D) batches, tiles of 16 rows (the seed host's min(16, n)), the
 * default 4 warps and 3 stages; O fp16, L fp32 (natural log), grid
 * (cdiv(N, 16), Z * H); the backward, causal or not, on the first version's
 * O and L: bwd_calculate_d_kernel (grid (Z * H, N / 16)) then
 * flash_bwd_kernel (grid (N / 16, Z * H); dK, dV fp32, dQ summed by
 * atomics into a zeroed fp32 buffer), timed together without the zeroing
 * (dQ piles up over the timed launches; its values do not change the time).
 *
 * Checks: O 1e-2; L 2e-3 (seed 000's, fp16) or 1e-3 (seed 001's, fp32);
 * dQ, dK, dV 1e-2.  A wrong result is reported, never timed. */
static const char *A000_TILE = "attention/attention_000.tile";
static const char *const F001_FWD_TILE[2] = {"attention/flash_fwd_v1.tile", "attention/flash_fwd_v2.tile"};
static const char *F001_BWD_TILE = "attention/flash_bwd.tile";
enum { A000_BLOCK = 128, A000_INNER = 32, A000_STAGES = 3, F001_TILE = 16 };
static const int a000_bwd_warps[] = {4, 8};

/* attention_forward_kernel(Q, K, V, O, L, softmax_scale, 16 strides,
 * batch_size, num_heads, seq_len, head_dim, BLOCKSIZE_Q, BLOCKSIZE_KV, STAGE) */
static void a000_fwd_sig(ExSig *s, const AttIn *a, tlc_devptr O, tlc_devptr L) {
  ex_sig_init(s);
  ex_sig_ptr(s, "fp16", a->Q), ex_sig_ptr(s, "fp16", a->K), ex_sig_ptr(s, "fp16", a->V);
  ex_sig_ptr(s, "fp16", O), ex_sig_ptr(s, "fp16", L);
  ex_sig_arg(s, "fp32", TLC_F32((float)a->scale));
  for (int t = 0; t < 4; t++)
    ex_sig_int(s, (int64_t)a->H * a->hd), ex_sig_int(s, (int64_t)a->hd), ex_sig_int(s, a->D), ex_sig_int(s, 1);
  ex_sig_int(s, a->Z);
  ex_sig_const_int(s, a->H), ex_sig_const_int(s, a->N), ex_sig_const_int(s, a->D);
  ex_sig_const(s, "_"), ex_sig_const(s, "_");
  ex_sig_const_int(s, a->causal ? 3 : 1);
}

/* attn_backward_D(O, dO, D, seq_len, BLOCKSIZE, head_dim) in *sd; the
 * argument list attn_backward_dKdV (outer, inner = BLOCKSIZE_KV,
 * BLOCKSIZE_Q) and attn_backward_dQ (BLOCKSIZE_Q, BLOCKSIZE_KV) share in
 * *sb: (Q, K, V, dO, dQ, dK, dV, L, D, 4 strides, softmax_scale, num_heads,
 * seq_len, outer, inner, head_dim, STAGE).  p = O, L, D, dQ, dK, dV. */
static void a000_bwd_sigs(ExSig *sd, ExSig *sb, const AttIn *a, const tlc_devptr p[6]) {
  ex_sig_init(sd);
  ex_sig_ptr(sd, "fp16", p[0]), ex_sig_ptr(sd, "fp16", a->DO), ex_sig_ptr(sd, "fp16", p[2]);
  ex_sig_int(sd, a->N);
  ex_sig_const_int(sd, A000_BLOCK), ex_sig_const_int(sd, a->D);
  ex_sig_init(sb);
  ex_sig_ptr(sb, "fp16", a->Q), ex_sig_ptr(sb, "fp16", a->K), ex_sig_ptr(sb, "fp16", a->V);
  ex_sig_ptr(sb, "fp16", a->DO), ex_sig_ptr(sb, "fp16", p[3]), ex_sig_ptr(sb, "fp16", p[4]);
  ex_sig_ptr(sb, "fp16", p[5]), ex_sig_ptr(sb, "fp16", p[1]), ex_sig_ptr(sb, "fp16", p[2]);
  ex_sig_int(sb, (int64_t)a->H * a->hd), ex_sig_int(sb, (int64_t)a->hd), ex_sig_int(sb, a->D), ex_sig_int(sb, 1);
  ex_sig_arg(sb, "fp32", TLC_F32((float)a->scale));
  ex_sig_int(sb, a->H), ex_sig_int(sb, a->N);
  ex_sig_const_int(sb, A000_BLOCK), ex_sig_const_int(sb, A000_INNER), ex_sig_const_int(sb, a->D);
  ex_sig_const_int(sb, a->causal ? 3 : 1);
}

static void strides3(ExSig *s, const AttIn *a) {
  ex_sig_int(s, (int64_t)a->hd), ex_sig_int(s, a->D), ex_sig_int(s, 1);
}

/* flash_fwd_kernel(Q, K, V, O, L, 3 strides x 4, 2 L strides, N_QUERIES,
 * N_KEYS, scale, D, Q_TILE_SIZE, K_TILE_SIZE, is_causal) (both versions) */
static void f001_fwd_sig(ExSig *s, const AttIn *a, tlc_devptr O, tlc_devptr L) {
  ex_sig_init(s);
  ex_sig_ptr(s, "fp16", a->Q), ex_sig_ptr(s, "fp16", a->K), ex_sig_ptr(s, "fp16", a->V);
  ex_sig_ptr(s, "fp16", O), ex_sig_ptr(s, "fp32", L);
  for (int t = 0; t < 4; t++) strides3(s, a);
  ex_sig_int(s, a->N), ex_sig_int(s, 1);
  ex_sig_int(s, a->N), ex_sig_int(s, a->N);
  ex_sig_arg(s, "fp32", TLC_F32((float)a->scale));
  ex_sig_const_int(s, a->D), ex_sig_const_int(s, F001_TILE), ex_sig_const_int(s, F001_TILE);
  ex_sig_const(s, a->causal ? "True" : "False");
}

/* bwd_calculate_d_kernel(O, dO, D, 3 + 3 + 2 strides, N_QUERIES, D_MODEL,
 * BLOCK_SIZE) in *sd; flash_bwd_kernel(Q, K, V, L, dO, D, dQ, dK, dV, 3 + 3
 * + 3 + 2 + 3 + 2 + 3 x 3 strides, N_QUERIES, N_KEYS, scale, D, Q_TILE_SIZE,
 * K_TILE_SIZE, is_causal) in *sb.  p = O, L, D, dQ, dK, dV. */
static void f001_bwd_sigs(ExSig *sd, ExSig *sb, const AttIn *a, const tlc_devptr p[6]) {
  ex_sig_init(sd);
  ex_sig_ptr(sd, "fp16", p[0]), ex_sig_ptr(sd, "fp16", a->DO), ex_sig_ptr(sd, "fp32", p[2]);
  strides3(sd, a), strides3(sd, a);
  ex_sig_int(sd, a->N), ex_sig_int(sd, 1);
  ex_sig_int(sd, a->N);
  ex_sig_const_int(sd, a->D), ex_sig_const_int(sd, F001_TILE);
  ex_sig_init(sb);
  ex_sig_ptr(sb, "fp16", a->Q), ex_sig_ptr(sb, "fp16", a->K), ex_sig_ptr(sb, "fp16", a->V);
  ex_sig_ptr(sb, "fp32", p[1]), ex_sig_ptr(sb, "fp16", a->DO), ex_sig_ptr(sb, "fp32", p[2]);
  ex_sig_ptr(sb, "fp32", p[3]), ex_sig_ptr(sb, "fp32", p[4]), ex_sig_ptr(sb, "fp32", p[5]);
  strides3(sb, a), strides3(sb, a), strides3(sb, a);
  ex_sig_int(sb, a->N), ex_sig_int(sb, 1);
  strides3(sb, a);
  ex_sig_int(sb, a->N), ex_sig_int(sb, 1);
  strides3(sb, a), strides3(sb, a), strides3(sb, a);
  ex_sig_int(sb, a->N), ex_sig_int(sb, a->N);
  ex_sig_arg(sb, "fp32", TLC_F32((float)a->scale));
  ex_sig_const_int(sb, a->D), ex_sig_const_int(sb, F001_TILE), ex_sig_const_int(sb, F001_TILE);
  ex_sig_const(sb, a->causal ? "True" : "False");
}

/* Which rows of seeds 000 and 001 run on a shape. */
typedef struct SeedRows {
  bool a000_fwd, a000_bwd, f001_fwd[2], f001_bwd;
} SeedRows;

/* --print-configs (only with --only attn000 or flash001...): the kernels
 * the rows compile, the default 4 warps and 3 stages where the seed's host
 * gives none; the forwards also where only the backward's line is wanted. */
static void print_attention_seeds(const AttIn *a, const SeedRows *w) {
  const tlc_devptr p[6] = {0};
  ExSig s, s2;
  if (w->a000_fwd || w->a000_bwd) {
    a000_fwd_sig(&s, a, 0, 0);
    printf("attn000_fwd %s attention_forward_kernel %s autotune -\n", A000_TILE, s.text);
  }
  if (w->a000_bwd) {
    a000_bwd_sigs(&s, &s2, a, p);
    printf("attn000_bwd %s attn_backward_D %s 4 3\n", A000_TILE, s.text);
    for (size_t i = 0; i < sizeof a000_bwd_warps / sizeof *a000_bwd_warps; i++) {
      printf("attn000_bwd %s attn_backward_dKdV %s %d %d\n", A000_TILE, s2.text, a000_bwd_warps[i], A000_STAGES);
      printf("attn000_bwd %s attn_backward_dQ %s %d %d\n", A000_TILE, s2.text, a000_bwd_warps[i], A000_STAGES);
    }
  }
  for (int v = 0; v < 2; v++)
    if (w->f001_fwd[v] || (v == 0 && w->f001_bwd)) {
      f001_fwd_sig(&s, a, 0, 0);
      printf("flash001_fwd_v%d %s flash_fwd_kernel %s 4 3\n", v + 1, F001_FWD_TILE[v], s.text);
    }
  if (w->f001_bwd) {
    f001_bwd_sigs(&s, &s2, a, p);
    printf("flash001_bwd %s bwd_calculate_d_kernel %s 4 3\n", F001_BWD_TILE, s.text);
    printf("flash001_bwd %s flash_bwd_kernel %s 4 3\n", F001_BWD_TILE, s2.text);
  }
}

/* Seed 000's rows on shape a: the forward (its line when fwd_line), then
 * the backward on its O and L. */
static void bench_a000(Bench *b, const AttIn *a, bool fwd_line, bool bwd) {
  Ex *ex = &b->ex;
  unsigned ZH = (unsigned)(a->Z * a->H), NB = (unsigned)(a->N / A000_BLOCK);
  ExOut O = ex_out_alloc(ex, a->n * 2), L = ex_out_alloc(ex, a->nm * 2);
  ExSig s;
  a000_fwd_sig(&s, a, O.p, L.p);
  AttGrid gc = {a->N, a->Z * a->H, "BLOCKSIZE_Q"};
  tlc_kernel *fwd;
  char path[4096];
  if (tlc_kernel_autotune(ex->rt, ex_tile_path(A000_TILE, path, sizeof path), "attention_forward_kernel", s.text,
                          NULL, att_fwd_grid, &gc, s.args, s.nargs, &fwd) != TLC_OK) {
    fprintf(stderr, "tlc_bench_tc: autotune: %s\n", tlc_runtime_error(ex->rt));
    if (fwd_line) bench_error(b, "attn000_fwd", a->size, "-");
    if (bwd) bench_error(b, "attn000_bwd", a->size, "-");
    goto done;
  }
  int64_t bq, bkv;
  tlc_kernel_constexpr_int(fwd, "BLOCKSIZE_Q", &bq), tlc_kernel_constexpr_int(fwd, "BLOCKSIZE_KV", &bkv);
  char config[48];
  snprintf(config, sizeof config, "tuned:b%dx%d/w%d/c%d", (int)bq, (int)bkv, tlc_kernel_num_warps(fwd),
           tlc_kernel_tuned_config(fwd));
  Step sf = {.k = {fwd}, .sig = {&s}, .n = 1};
  att_fwd_grid(fwd, &gc, sf.grid[0]);
  ex_poison(ex, &O), ex_poison(ex, &L);
  launch_step(ex, &sf);
  ex_ok(ex, tlc_synchronize(ex->rt), "synchronize (a fault in the kernel?)");
  double err_o, err_l;
  att_check_fwd(ex, a, O.p, EX_F16, L.p, EX_F16, log(2.0), &err_o, &err_l);
  bool ok = err_o < 1e-2 && err_l < 2e-3;
  if (fwd_line)
    bench_line(b, "attn000_fwd", a->size, config, att_flops(a), ok ? time_step(b, &sf) : 0, fmax(err_o, err_l), ok);
  if (!bwd) goto done;

  ExOut DQ = ex_out_alloc(ex, a->n * 2), DK = ex_out_alloc(ex, a->n * 2), DV = ex_out_alloc(ex, a->n * 2);
  tlc_devptr DD = ex_alloc(ex, a->nm * 2);
  const tlc_devptr p[6] = {O.p, L.p, DD, DQ.p, DK.p, DV.p};
  ExSig sd, sb;
  a000_bwd_sigs(&sd, &sb, a, p);
  tlc_kernel *kd;
  if (ex_kernel(ex, A000_TILE, "attn_backward_D", sd.text, NULL, &kd) != TLC_OK) kd = NULL;
  for (size_t i = 0; i < sizeof a000_bwd_warps / sizeof *a000_bwd_warps; i++) {
    char cfg[32];
    snprintf(cfg, sizeof cfg, "b%dx%d/w%d", A000_BLOCK, A000_INNER, a000_bwd_warps[i]);
    tlc_kernel_options o = {.num_warps = a000_bwd_warps[i], .num_stages = A000_STAGES};
    tlc_kernel *kkv, *kq;
    if (!kd || ex_kernel(ex, A000_TILE, "attn_backward_dKdV", sb.text, &o, &kkv) != TLC_OK ||
        ex_kernel(ex, A000_TILE, "attn_backward_dQ", sb.text, &o, &kq) != TLC_OK) {
      bench_error(b, "attn000_bwd", a->size, cfg);
      continue;
    }
    Step st = {.k = {kd, kkv, kq}, .grid = {{NB, ZH, 1}, {NB, 1, ZH}, {NB, 1, ZH}}, .sig = {&sd, &sb, &sb}, .n = 3};
    ex_poison(ex, &DQ), ex_poison(ex, &DK), ex_poison(ex, &DV);
    launch_step(ex, &st);
    ex_ok(ex, tlc_synchronize(ex->rt), "synchronize (a fault in the kernel?)");
    const tlc_devptr outs[3] = {DQ.p, DK.p, DV.p};
    double err = att_check_grads(ex, a, outs, EX_F16);
    bench_line(b, "attn000_bwd", a->size, cfg, 2.5 * att_flops(a), err < 1e-2 ? time_step(b, &st) : 0, err,
               err < 1e-2);
  }
  ex_free(ex, DD);
  ex_out_free(ex, &DQ), ex_out_free(ex, &DK), ex_out_free(ex, &DV);
done:
  ex_out_free(ex, &O), ex_out_free(ex, &L);
}

/* Seed 001's forward version v + 1 on shape a into O, L (its line when
 * line); false when it did not compile. */
static bool f001_forward(Bench *b, const AttIn *a, int v, const ExOut *O, const ExOut *L, bool line) {
  Ex *ex = &b->ex;
  char name[32], config[32];
  snprintf(name, sizeof name, "flash001_fwd_v%d", v + 1);
  snprintf(config, sizeof config, "t%d/w4", F001_TILE);
  ExSig s;
  f001_fwd_sig(&s, a, O->p, L->p);
  tlc_kernel *k;
  if (ex_kernel(ex, F001_FWD_TILE[v], "flash_fwd_kernel", s.text, NULL, &k) != TLC_OK) {
    if (line) bench_error(b, name, a->size, config);
    return false;
  }
  unsigned NT = (unsigned)ex_cdiv(a->N, F001_TILE), ZH = (unsigned)(a->Z * a->H);
  Step sf = {.k = {k}, .grid = {{NT, ZH, 1}}, .sig = {&s}, .n = 1};
  ex_poison(ex, O), ex_poison(ex, L);
  launch_step(ex, &sf);
  ex_ok(ex, tlc_synchronize(ex->rt), "synchronize (a fault in the kernel?)");
  double err_o, err_l;
  att_check_fwd(ex, a, O->p, EX_F16, L->p, EX_F32, log(2.0), &err_o, &err_l);
  bool ok = err_o < 1e-2 && err_l < 1e-3;
  if (line) bench_line(b, name, a->size, config, att_flops(a), ok ? time_step(b, &sf) : 0, fmax(err_o, err_l), ok);
  return true;
}

/* Seed 001's backward on shape a, on the forward's O and L (have_fwd: it
 * compiled). */
static void f001_backward(Bench *b, const AttIn *a, const ExOut *O, const ExOut *L, bool have_fwd) {
  Ex *ex = &b->ex;
  unsigned ZH = (unsigned)(a->Z * a->H), NT = (unsigned)ex_cdiv(a->N, F001_TILE);
  char config[32];
  snprintf(config, sizeof config, "t%d/w4", F001_TILE);
  ExOut DQ = ex_out_alloc(ex, a->n * 4), DK = ex_out_alloc(ex, a->n * 4), DV = ex_out_alloc(ex, a->n * 4);
  tlc_devptr DD = ex_alloc(ex, a->nm * 4);
  const tlc_devptr p[6] = {O->p, L->p, DD, DQ.p, DK.p, DV.p};
  ExSig sd, sb;
  f001_bwd_sigs(&sd, &sb, a, p);
  tlc_kernel *kd, *kb;
  if (!have_fwd || ex_kernel(ex, F001_BWD_TILE, "bwd_calculate_d_kernel", sd.text, NULL, &kd) != TLC_OK ||
      ex_kernel(ex, F001_BWD_TILE, "flash_bwd_kernel", sb.text, NULL, &kb) != TLC_OK) {
    bench_error(b, "flash001_bwd", a->size, config);
  } else {
    Step st = {.k = {kd, kb}, .grid = {{ZH, NT, 1}, {NT, ZH, 1}}, .sig = {&sd, &sb}, .n = 2};
    ex_poison(ex, &DQ), ex_poison(ex, &DK), ex_poison(ex, &DV);
    ex_ok(ex, tlc_memset_d8(ex->rt, DQ.p, 0, DQ.bytes), "tlc_memset_d8 (dQ = 0)");
    launch_step(ex, &st);
    ex_ok(ex, tlc_synchronize(ex->rt), "synchronize (a fault in the kernel?)");
    const tlc_devptr outs[3] = {DQ.p, DK.p, DV.p};
    double err = att_check_grads(ex, a, outs, EX_F32);
    bench_line(b, "flash001_bwd", a->size, config, 2.5 * att_flops(a), err < 1e-2 ? time_step(b, &st) : 0, err,
               err < 1e-2);
  }
  ex_free(ex, DD);
  ex_out_free(ex, &DQ), ex_out_free(ex, &DK), ex_out_free(ex, &DV);
}

/* The rows of seeds 000 and 001 on one shape, on one set of inputs and one
 * reference: seed 000's forward and backward, seed 001's first forward,
 * the backward on its O and L, then the second forward. */
static void bench_attention_seeds(Bench *b, int Z, int H, int N, int D, bool causal) {
  bool full = N <= ATT_FULL_N;
  SeedRows w = {row_wanted(b, "attn000_fwd"), full && row_wanted(b, "attn000_bwd"),
                {row_wanted(b, "flash001_fwd_v1"), row_wanted(b, "flash001_fwd_v2")},
                full && row_wanted(b, "flash001_bwd")};
  if (!w.a000_fwd && !w.a000_bwd && !w.f001_fwd[0] && !w.f001_fwd[1] && !w.f001_bwd) return;
  AttIn a;
  att_shape(&a, Z, H, N, D, causal);
  if (b->size && strcmp(a.size, b->size)) return;
  if (b->print_configs) {
    print_attention_seeds(&a, &w);
    return;
  }
  Ex *ex = &b->ex;
  att_in_make(ex, &a, Z, H, N, D, causal, w.a000_bwd || w.f001_bwd);
  if (w.a000_fwd || w.a000_bwd) bench_a000(b, &a, w.a000_fwd, w.a000_bwd);
  if (w.f001_fwd[0] || w.f001_fwd[1] || w.f001_bwd) {
    ExOut O = ex_out_alloc(ex, a.n * 2), L = ex_out_alloc(ex, a.nm * 4);
    bool v1 = (w.f001_fwd[0] || w.f001_bwd) && f001_forward(b, &a, 0, &O, &L, w.f001_fwd[0]);
    if (w.f001_bwd) f001_backward(b, &a, &O, &L, v1);
    if (w.f001_fwd[1]) f001_forward(b, &a, 1, &O, &L, true);
    ex_out_free(ex, &O), ex_out_free(ex, &L);
  }
  att_in_free(ex, &a);
}

int main(int argc, char **argv) {
  Bench b = {0};
  b.reps = 50;
  b.warmup = 5;
  bool quick = false, smoke = false, mm_only = false;
  char *rest[64];
  int nrest = 0;
  rest[nrest++] = argv[0];
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      printf("usage: tlc_bench_tc [options]   the tensor-core benchmark's tlc side (bench/run.sh --tc-only)\n\n"
             "  --only PREFIX        rows whose name starts with PREFIX (matmul_fp8, attn, attn_bwd, ...);\n"
             "                       the rows of seeds 000 and 001 run only when it names their family\n"
             "                       (attn000, attn000_fwd, flash001, flash001_bwd, ...)\n"
             "  --size SIZE          only the attention rows of that size, as the table prints it\n"
             "                       (Z4H32N4096D128-causal)\n"
             "  --fwd-config BM,BN,WARPS,STAGES\n"
             "                       the seed-004 forward on that one config instead of its decorator's\n"
             "  --quick, --smoke     N_CTX 1024 only and fewer matmul configs; tiny sizes\n"
             "  --reps N             timed launches a row, median reported (default 50, at least 10;\n"
             "                       a step slower than 40 ms a launch times about 2 s of launches)\n"
             "  --warmup N, --seed N warm-up launches; the inputs' random seed\n"
             "  --print-configs      the kernels the rows compile (bench/check_spills.sh), then exit\n"
             "  --mm-only, --ptx FILE:WARPS:SMEM:BM:BN[:EXTRA]\n"
             "                       profiler runs and PTX experiments (the comment at the top of\n"
             "                       bench/tlc_bench_tc.c)\n"
             "  -v                   print every checked result\n");
      return 0;
    }
    if (!strcmp(argv[i], "--quick")) quick = true;
    else if (!strcmp(argv[i], "--smoke")) smoke = true;
    else if (!strcmp(argv[i], "--mm-only")) mm_only = true;
    else if (!strcmp(argv[i], "--only") && i + 1 < argc) b.only = argv[++i];
    else if (!strcmp(argv[i], "--size") && i + 1 < argc) b.size = argv[++i];
    else if (!strcmp(argv[i], "--fwd-config") && i + 1 < argc) {
      int *c = b.fwd_cfg;
      if (sscanf(argv[++i], "%d,%d,%d,%d", &c[0], &c[1], &c[2], &c[3]) != 4 || c[0] <= 0) {
        fprintf(stderr, "tlc_bench_tc: --fwd-config wants BLOCK_M,BLOCK_N,WARPS,STAGES (e.g. 128,64,8,3)\n");
        return 2;
      }
    }
    else if (!strcmp(argv[i], "--print-configs")) b.print_configs = true;
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) b.reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--warmup") && i + 1 < argc) b.warmup = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--ptx") && i + 1 < argc && nptx_variants < 8) {
      PtxVariant *v = &ptx_variants[nptx_variants];
      char *spec = argv[++i], *colon = strchr(spec, ':');
      if (colon && sscanf(colon + 1, "%d:%d:%d:%d:%d", &v->warps, &v->smem, &v->bm, &v->bn, &v->extra) >= 4) {
        *colon = 0;
        v->file = spec;
        nptx_variants++;
      } else {
        fprintf(stderr, "tlc_bench_tc: --ptx FILE:WARPS:SMEM:BM:BN[:EXTRA]\n");
        return 2;
      }
    }
    else if (nrest < 63) rest[nrest++] = argv[i];
  }
  if (b.reps < 10) b.reps = 10;
  if (b.warmup < 1) b.warmup = 1;
  rest[nrest] = NULL;
  if (!b.print_configs) {
    ex_open(&b.ex, nrest, rest, "tlc_bench_tc");
    b.flush = ex_alloc(&b.ex, FLUSH_BYTES);
  }

  /* Triton's matmul-tutorial configs that suit the H100, best first */
  static const MmConfig mm[] = {
      {128, 256, 64, 8, 8, 3}, {128, 256, 64, 8, 8, 4}, {128, 128, 64, 8, 4, 4}, {128, 128, 32, 8, 4, 4},
      {64, 256, 32, 8, 4, 4},
  };
  /* the num_stages sweep: one config, 1 to 5 stages */
  static const MmConfig sweep[] = {
      {128, 128, 64, 8, 4, 1}, {128, 128, 64, 8, 4, 2}, {128, 128, 64, 8, 4, 3}, {128, 128, 64, 8, 4, 4},
      {128, 128, 64, 8, 4, 5},
  };
  /* fp8: `acc += tl.dot(a, b)` keeps its fp32 add on sm_90 (Triton's rule
   * for fp8), so the partial sum takes as many registers as the accumulator:
   * 128x128 tiles over two warpgroups (256x128 or 128x256 tiles spill) */
  static const MmConfig mm8[] = {
      {128, 128, 128, 8, 8, 3}, {128, 128, 128, 8, 8, 4}, {64, 256, 128, 8, 8, 4}, {128, 64, 128, 8, 4, 4},
  };
  if (smoke) {
    bench_matmul(&b, "matmul_fp16", "fp16", 512, 512, 512, mm + 2, 1);
    bench_matmul(&b, "matmul_fp8", "fp8e4nv", 512, 512, 512, mm8, 1);
    bench_attention(&b, 1, 2, 256, 64, true);
    bench_attention(&b, 1, 2, 256, 64, false); /* the peers run both */
    bench_attention_seeds(&b, 1, 2, 256, 64, true);
    bench_attention_seeds(&b, 1, 2, 256, 64, false);
  } else {
    int nmm = quick ? 2 : (int)(sizeof mm / sizeof *mm);
    bench_matmul(&b, "matmul_fp16", "fp16", 4096, 4096, 4096, mm, mm_only ? 1 : nmm);
    if (mm_only) goto done;
    for (int i = 0; i < 5; i++) {
      char name[32];
      snprintf(name, sizeof name, "matmul_fp16_s%d", sweep[i].stages);
      bench_matmul(&b, name, "fp16", 4096, 4096, 4096, &sweep[i], 1);
    }
    bench_matmul(&b, "matmul_bf16", "bf16", 4096, 4096, 4096, mm, nmm);
    bench_matmul(&b, "matmul_fp16", "fp16", 8192, 8192, 8192, mm, quick ? 1 : 3);
    bench_matmul(&b, "matmul_bf16", "bf16", 8192, 8192, 8192, mm, quick ? 1 : 3);
    bench_matmul(&b, "matmul_fp8", "fp8e4nv", 8192, 8192, 8192, mm8, quick ? 1 : 4);
    bench_matmul(&b, "matmul_fp16_persistent", "fp16", 8192, 8192, 8192, mm, quick ? 1 : 2);
    /* batch 4 x 32 heads up to N 4096; N 16384 as one batch (16k tokens,
     * FlashAttention-3's published setting) */
    static const int ns[] = {1024, 4096, 16384};
    for (int d = 64; d <= 128; d *= 2)
      for (int i = 0; i < (quick ? 1 : 3); i++) {
        bench_attention(&b, ns[i] > 4096 ? 1 : 4, 32, ns[i], d, false);
        bench_attention(&b, ns[i] > 4096 ? 1 : 4, 32, ns[i], d, true);
      }
    /* seeds 000 and 001 on the same shapes (with --only attn000 or flash001...) */
    for (int d = 64; d <= 128; d *= 2)
      for (int i = 0; i < (quick ? 1 : 3); i++) {
        bench_attention_seeds(&b, ns[i] > 4096 ? 1 : 4, 32, ns[i], d, false);
        bench_attention_seeds(&b, ns[i] > 4096 ? 1 : 4, 32, ns[i], d, true);
      }
  }
done:
  if (b.print_configs) return 0;
  ex_free(&b.ex, b.flush);
  b.ex.nfail = b.nfail;
  b.ex.npass = b.npass;
  if (!b.npass && !b.nfail) /* (ex_finish fails the run too: say why) */
    fprintf(stderr, "tlc_bench_tc: no row matched --only %s --size %s (a size is one of the table's, e.g. "
            "Z4H32N4096D128 or Z4H32N4096D128-causal; rows of seeds 000 and 001 need --only attn000... or "
            "flash001...)\n", b.only ? b.only : "(any)", b.size ? b.size : "(any)");
  return ex_finish(&b.ex);
}
