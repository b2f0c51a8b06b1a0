/* host.h — the host side shared by the bundled examples and bench/tlc_bench.
 *
 * Owns: opening the runtime (SKIP with status 77 where there is no GPU),
 * random inputs from a printed seed, fp16 conversion by hand, Triton-style
 * signatures built together with the launch arguments, and one routine,
 * ex_run_case, that compiles a kernel, runs it on a poisoned output, checks
 * it against a CPU reference, times it and prints one RESULT line.
 * Does not own: the references themselves (ref.h) or any kernel's grid.
 *
 * Conventions.  Every runtime call's status is checked: a failure to compile
 * or load a kernel is reported as that case's ERROR and the program goes on;
 * any other failure (a fault inside a kernel leaves the context unusable)
 * prints tlc_runtime_error and exits 1.  A program exits 0 only if every
 * case passed.  The RESULT line (docs/examples.md) is
 *
 *   RESULT kernel=K size=S rel_err=E max_abs=A tol=T unwritten=U oob=O
 *          stable=yes|no time_us=T gbps=G status=PASS|FAIL|ERROR seed=N
 *
 * on one line, fields in this order, no spaces inside a value. */
#ifndef TLC_EXAMPLES_HOST_H
#define TLC_EXAMPLES_HOST_H

#include "runtime/tlc_runtime.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- random numbers (splitmix64: small, fast, reproducible) -------------- */

typedef struct ExRng {
  uint64_t s;
} ExRng;

uint64_t ex_rng_next(ExRng *r);
double ex_rng_uniform(ExRng *r, double lo, double hi); /* [lo, hi) */
void ex_fill_f32(ExRng *r, float *x, size_t n, double lo, double hi);
void ex_fill_f16(ExRng *r, uint16_t *x, size_t n, double lo, double hi); /* rounded RNE */

/* ---- fp16 by hand (IEEE binary16, round to nearest even) ------------------ */

uint16_t ex_f32_to_f16(float f);
float ex_f16_to_f32(uint16_t h);
/* bfloat16: the top half of a float, rounded to nearest even */
uint16_t ex_f32_to_bf16(float f);
float ex_bf16_to_f32(uint16_t h);
void ex_fill_bf16(ExRng *r, uint16_t *x, size_t n, double lo, double hi);
/* fp8: e4m3fn (Triton's fp8e4nv) or e5m2 (fp8e5); to fp8 rounds to nearest
 * even and saturates at the largest finite value */
float ex_f8_to_f32(uint8_t b, bool e5m2);
uint8_t ex_f32_to_f8(float f, bool e5m2);
void ex_fill_f8(ExRng *r, uint8_t *x, size_t n, double lo, double hi, bool e5m2);

/* ---- small helpers ------------------------------------------------------- */

int64_t ex_cdiv(int64_t a, int64_t b);
int64_t ex_next_pow2(int64_t n); /* smallest power of two >= n (1 for n <= 1) */
void *ex_xmalloc(size_t bytes);  /* exits 1 when memory runs out */

/* ---- signatures + arguments --------------------------------------------- */

/* A Triton AOT signature built together with the launch arguments, the way
 * Triton's launcher specializes a call: a pointer is "*fp32:16" when 16-byte
 * aligned; an int is the constexpr "1" when it equals 1 (and is then not
 * passed at launch), "i32:16" when divisible by 16, else "i32"; a constexpr
 * parameter is its value. */
enum { EX_MAX_ARGS = 32 };

typedef struct ExSig {
  char text[512];             /* "*fp32:16,*fp32:16,i32,1024" */
  tlc_arg args[EX_MAX_ARGS];  /* runtime arguments, in order */
  int nargs;
} ExSig;

void ex_sig_init(ExSig *s);
void ex_sig_ptr(ExSig *s, const char *elem, tlc_devptr p); /* elem: "fp32", "fp16" */
void ex_sig_int(ExSig *s, int64_t v);                       /* an i32 runtime value */
void ex_sig_const(ExSig *s, const char *value);            /* a constexpr: "1024", "True" */
void ex_sig_const_int(ExSig *s, int64_t v);
/* One entry as written and its launch argument (for kinds the others do not cover). */
void ex_sig_arg(ExSig *s, const char *entry, tlc_arg a);
/* A host-made tensor descriptor: its entry ("tensordesc<fp16[64,64]>") and
 * TLC_DESC(d); *d must outlive the launches (host.c). */
void ex_sig_desc(ExSig *s, const tlc_tensor_desc *d);

/* ---- the harness ----------------------------------------------------------- */

typedef struct Ex {
  tlc_runtime *rt;
  const char *prog;     /* program name in messages */
  uint64_t seed;
  ExRng rng;
  int warmup;           /* untimed launches before timing */
  int reps;             /* timed launches; the median is reported */
  int npass, nfail;
  bool verbose;
  bool cpu;             /* the runtime is the CPU device (TLC_DEVICE=cpu): small cases only */
  const char *only;     /* --only S: the cases whose label or size contains S */
} Ex;

/* Is the case (label, size) selected by --only (always, without it)?
 * ex_run_case skips the others; programs with their own launch code ask
 * before running a case. */
bool ex_selected(const Ex *ex, const char *label, const char *size);
/* Parse the common options (--seed N, --reps N, --warmup N, --only S, -v), open device
 * 0 and print a DEVICE and a SEED line.  On the CPU device the defaults are
 * one timed launch and no warm-up.  Without a driver or device: prints
 * "SKIP: <reason>" and exits 77.  Any other failure: exits 1. */
void ex_open(Ex *ex, int argc, char **argv, const char *prog);
/* The most work (multiply-adds, or elements moved) of one case the
 * programs run on the CPU device (TLC_DEVICE=cpu), where kernels are
 * interpreted: CI runs every program there (ctest label interp). */
#define EX_CPU_MAX_WORK (1 << 24)
/* On the CPU device (or with $TLC_EXAMPLES_SMALL=1, for runs to compare
 * with it), a case of more than EX_CPU_MAX_WORK work is skipped with a line
 * "SKIP kernel=LABEL work=W (...)": true; false otherwise.  Every case's
 * output goes to $TLC_EXAMPLES_DUMP when that names a folder (host.c). */
bool ex_cpu_skip(Ex *ex, const char *label, double work);
/* Print the summary line, close the runtime, return the exit status (0 only
 * if every case passed and at least one ran). */
int ex_finish(Ex *ex);

/* Check a runtime status: on failure print what failed and
 * tlc_runtime_error, close the runtime and exit 1. */
void ex_ok(Ex *ex, tlc_status st, const char *what);

tlc_devptr ex_alloc(Ex *ex, size_t bytes);
void ex_free(Ex *ex, tlc_devptr p);
void ex_upload(Ex *ex, tlc_devptr dst, const void *src, size_t bytes);
void ex_download(Ex *ex, void *dst, tlc_devptr src, size_t bytes);

/* The .tile path of an example kernel: $TLC_EXAMPLES_DIR/rel, or the source
 * tree's examples/ folder compiled in (TLC_EXAMPLES_DIR) when unset. */
const char *ex_tile_path(const char *rel, char *buf, size_t cap);

/* Compile and load; on failure print the runtime's message (the located
 * diagnostics or JIT log) and return the status. */
tlc_status ex_kernel(Ex *ex, const char *tile_rel, const char *name, const char *signature,
                     const tlc_kernel_options *opt, tlc_kernel **out);

/* Median time of `reps` launches after `warmup`, in microseconds, timed with
 * events around each launch. */
double ex_time_us(Ex *ex, tlc_kernel *k, const unsigned grid[3], const ExSig *sig, int warmup,
                  int reps);

/* The timing tail every timed loop shares (ex_time_us, bench/'s): 2*reps
 * events; the caller records ev[2i] and ev[2i+1] around launch i (and does
 * whatever else between launches: an L2 flush, another input set); then
 * ex_events_median_us waits for the device, destroys the events and returns
 * the median per-launch time in microseconds. */
tlc_event **ex_events_create(Ex *ex, int reps);
double ex_events_median_us(Ex *ex, tlc_event **ev, int reps);

/* ---- checking -------------------------------------------------------------- */

/* EX_I8 is an input type only: random integers uniform in [lo, hi]; an
 * int8 output's poison byte would be the value -1 (store int results as
 * fp32 to check them) */
typedef enum ExElem { EX_F32, EX_F16, EX_BF16, EX_F8E4M3, EX_F8E5M2, EX_I8 } ExElem;

size_t ex_elem_size(ExElem e);
/* "fp16" -> EX_F16, "bf16" -> EX_BF16, "fp8e4nv" -> EX_F8E4M3, "fp8e5" ->
 * EX_F8E5M2, "i8" -> EX_I8, anything else EX_F32 */
ExElem ex_elem_of(const char *dtype);
/* n random values uniform in [lo, hi) rounded to `e` (EX_I8: integers
 * uniform in lo .. hi), uploaded to a new device buffer (returned); vals[i]
 * gets the exact value the device holds. */
tlc_devptr ex_upload_random(Ex *ex, ExElem e, size_t n, double lo, double hi, double *vals);

/* The inputs of a matmul case: A (m x k) and B (k x n) drawn by
 * ex_upload_random in [lo, hi) as type e and uploaded, B stored N-major
 * (k x n row-major) or K-major (n x k row-major: b_kmajor).  a and b hold
 * the exact values as dense row-major m x k and k x n doubles whatever B's
 * storage, for the reference; ref is an m x n array left for the caller
 * (ref_matmul(g.a, g.b, m, n, k, g.ref), or its own).  ex_gemm_free frees
 * all of it. */
typedef struct ExGemm {
  int64_t m, n, k;
  double *a, *b, *ref;
  tlc_devptr da, db;
} ExGemm;
void ex_gemm_inputs(Ex *ex, ExElem e, int64_t m, int64_t n, int64_t k, bool b_kmajor, double lo, double hi,
                    ExGemm *g);
void ex_gemm_free(Ex *ex, ExGemm *g);

typedef struct ExCheck {
  double rel_err;       /* ||out - ref||_2 / ||ref||_2 over written, finite elements */
  double max_abs;       /* max |out - ref| over the same */
  size_t unwritten;     /* elements still holding the poison pattern */
  size_t nonfinite;     /* NaN/Inf where the reference is finite */
  size_t mismatched;    /* exact mode: elements whose bits differ */
  bool pass;
} ExCheck;

/* Element i of an output buffer as a double; *poison: it still holds the
 * poison pattern (never written). */
double ex_elem_value(const void *out, ExElem elem, size_t i, bool *poison);
/* Element i equals `ref` rounded to its type, bit for bit. */
bool ex_elem_bits_equal(const void *out, ExElem elem, size_t i, double ref);

/* out: n elements of `elem`; ref: n doubles.  exact: bits must equal the
 * reference rounded to elem (data movement); otherwise rel_err < tol. */
ExCheck ex_check(const void *out, ExElem elem, const double *ref, size_t n, double tol, bool exact);

/* ---- one case, end to end ------------------------------------------------ */

typedef struct ExCase {
  const char *label;      /* RESULT kernel= */
  const char *size;       /* RESULT size=, e.g. "1823x781" */
  const char *tile;       /* relative to the examples folder */
  const char *kernel;     /* function name in the .tile file */
  const tlc_kernel_options *opt; /* NULL = defaults */
  const ExSig *sig;
  unsigned grid[3];
  tlc_devptr out;         /* the kernel's output (inside a guarded allocation) */
  size_t out_elems;
  ExElem elem;
  const double *ref;      /* out_elems reference values */
  double tol;             /* relative l2 bound; ignored when exact */
  bool exact;
  double bytes;           /* bytes the kernel must move (read + write), for GB/s */
} ExCase;

/* An output buffer with poisoned guard zones on both sides, so stores out of
 * bounds are seen.  ex_out_alloc returns the address the kernel writes. */
typedef struct ExOut {
  tlc_devptr base, p;
  size_t bytes;
} ExOut;

ExOut ex_out_alloc(Ex *ex, size_t bytes);
void ex_out_free(Ex *ex, ExOut *o);

/* Compile, poison, launch, check, time, re-run and compare, print RESULT.
 * `o` is the guarded output the case writes (c->out == o->p).  Returns
 * true when the case passed. */
bool ex_run_case(Ex *ex, const ExCase *c, const ExOut *o);

/* Fill an output and its guard zones with the poison pattern (0xFF bytes). */
void ex_poison(Ex *ex, const ExOut *o);

/* The bytes an output holds now (malloc'ed; the caller frees them). */
void *ex_out_snapshot(Ex *ex, const ExOut *o);

/* Kernels with several outputs (attention's O and M, dQ/dK/dV) or launches
 * the caller makes itself: after the caller's launch on poisoned outputs,
 * check one output against its reference (relative L2 bound tol), count
 * damaged guard bytes, and print its RESULT line.  time_us is the caller's
 * timing (0 when not timed); `earlier` holds the output's bytes from an
 * earlier run on fresh poison (ex_out_snapshot), which must equal this run's
 * (stable=yes), or is NULL where results may legitimately differ between
 * runs (atomics: stable=-).  Returns true when the output passed. */
bool ex_report_out(Ex *ex, const char *label, const char *size, const ExOut *o, ExElem elem,
                   const double *ref, size_t n, double tol, double time_us, const void *earlier);

/* Print a RESULT line with status ERROR (nothing could be measured). */
void ex_result_error(Ex *ex, const char *label, const char *size);

#endif
