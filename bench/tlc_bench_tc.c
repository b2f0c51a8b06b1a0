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
 * (as triton.testing.do_bench does).  The attention forward takes the
 * kernel's own @triton.autotune configs (tlc_kernel_autotune); the backward
 * time covers _attn_bwd_preprocess and _attn_bwd, as the peers' do.
 * FLOPs counted as Triton's tutorials count them: matmul 2*M*N*K; attention
 * forward 4*Z*H*N^2*D, halved when causal; backward 2.5 times the forward.
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
 * attn, ...), --size SIZE (only the attention rows of that size, as the
 * table prints it: Z4H32N4096D128-causal; with --only and the autotune
 * record of an earlier run, one kernel for a profiler), --fwd-config
 * BM,BN,WARPS,STAGES (the attention forward on that one config instead of
 * its autotune decorator's: an experiment), --print-configs (no device: one line per kernel the full
 * run compiles, `ROW TILE KERNEL SIGNATURE WARPS STAGES`, WARPS `autotune`
 * for the attention forward, whose decorator's configs all compile; for
 * bench/check_spills.sh). */
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

/* Does --only let row `name` run (its name starts with the prefix)? */
static bool row_wanted(const Bench *b, const char *name) {
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
  if (b->print_configs) {
    print_attention(Z, H, N, D, causal);
    return;
  }
  /* (--only attn_bwd still runs the forward, whose M the backward reads,
   * without its line; the backward is causal only, as the seed's) */
  bool bwd = causal && N <= ATT_FULL_N && row_wanted(b, "attn_bwd");
  if (!row_wanted(b, "attn_fwd") && !bwd) return;
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

int main(int argc, char **argv) {
  Bench b = {0};
  b.reps = 50;
  b.warmup = 5;
  bool quick = false, smoke = false, mm_only = false;
  char *rest[64];
  int nrest = 0;
  rest[nrest++] = argv[0];
  for (int i = 1; i < argc; i++) {
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
  }
done:
  if (b.print_configs) return 0;
  ex_free(&b.ex, b.flush);
  b.ex.nfail = b.nfail;
  b.ex.npass = b.npass;
  return ex_finish(&b.ex);
}
