/* bench.c — timing one launch as an autotuner's trial does
 * (tlc_bench_launch): warm-up launches, then timed ones whose median is
 * the result, with the memory a kernel changes put back around each.
 *
 * Owns the trial's memory rules, Triton's autotuner hooks: a `zero`
 * pointer's allocation (reset_to_zero) is zeroed before every launch and
 * once more after the last, a `restore` pointer's allocation
 * (restore_value) is copied to the host first and back after every launch,
 * so that a kernel that accumulates finds its memory after the trial as
 * the caller left it (zeroed where it asked for zero).  Allocations are
 * found in the runtime's table of tlc_malloc memory; the extent of any
 * other address is unknown and refused.  Does not own the launches (the
 * caller's callback) or choosing among configs (autotune.c, and the C that
 * tlc compile --autotune writes).
 *
 * Each launch is bracketed by events on the caller's stream; memsets and
 * copies are the synchronous calls on the default stream, and the device
 * is synchronized after them, so their order with the launches holds
 * whatever the stream's flags. */
#include "runtime/rt_internal.h"

#include <stdlib.h>
#include <string.h>

enum { BENCH_REPS = 7, BENCH_MAX_REPS = 1000 };

/* One allocation a trial touches, with its saved bytes for `restore`. */
typedef struct BenchMem {
  uint64_t base;
  size_t bytes;
  void *saved; /* restore: the host copy; NULL for zero */
} BenchMem;

static int cmp_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return x < y ? -1 : x > y;
}

/* The allocations holding ptrs, into mem; `what` ("zero", "restore")
 * names the array in the message. */
static tlc_status find_allocs(tlc_runtime *rt, const char *what, const tlc_devptr *ptrs, int n, BenchMem *mem) {
  for (int i = 0; i < n; i++)
    if (!rt_alloc_find(rt, ptrs[i], &mem[i].base, &mem[i].bytes))
      return rt_fail(rt, TLC_ERR_INVALID,
                     "tlc_bench_launch: %s[%d] (0x%llx) is not inside memory that tlc_malloc of this runtime "
                     "gave, so the allocation to %s is unknown", what, i, (unsigned long long)ptrs[i], what);
  return TLC_OK;
}

/* Zero every `zero` allocation, copy every `restore` one back, then wait. */
static tlc_status reset_memory(tlc_runtime *rt, const BenchMem *zero, int nzero, const BenchMem *restore,
                               int nrestore) {
  tlc_status st = TLC_OK;
  for (int i = 0; i < nzero && st == TLC_OK; i++) st = tlc_memset_d8(rt, zero[i].base, 0, zero[i].bytes);
  for (int i = 0; i < nrestore && st == TLC_OK; i++)
    st = tlc_memcpy_htod(rt, restore[i].base, restore[i].saved, restore[i].bytes);
  if (st == TLC_OK && (nzero || nrestore)) st = tlc_synchronize(rt);
  return st;
}

/* The warm-up and timed launches; their times (ms) into ms[]. */
static tlc_status run_trials(tlc_runtime *rt, tlc_launch_fn launch, void *user, tlc_stream stream,
                             const tlc_bench_options *o, const BenchMem *zero, const BenchMem *restore, float *ms) {
  int warmup = o->warmup, reps = o->reps, nzero = o->nzero, nrestore = o->nrestore;
  tlc_event *e0 = NULL, *e1 = NULL;
  tlc_status st = tlc_event_create(rt, &e0);
  if (st == TLC_OK) st = tlc_event_create(rt, &e1);
  for (int r = 0; r < warmup + reps && st == TLC_OK; r++) {
    if (nzero) st = reset_memory(rt, zero, nzero, NULL, 0);
    if (st == TLC_OK && o->flush) st = tlc_memset_d32(rt, o->flush, (uint32_t)r, o->flush_bytes / 4);
    if (st == TLC_OK && o->flush) st = tlc_synchronize(rt);
    if (st == TLC_OK) st = tlc_event_record(e0, stream);
    if (st == TLC_OK) st = launch(user, stream);
    if (st == TLC_OK) st = tlc_event_record(e1, stream);
    float t = 0;
    if (st == TLC_OK) st = tlc_event_elapsed_ms(e0, e1, &t); /* waits for the launch */
    if (st == TLC_OK && nrestore) st = reset_memory(rt, NULL, 0, restore, nrestore);
    if (st == TLC_OK && r >= warmup) ms[r - warmup] = t;
  }
  tlc_event_destroy(e0);
  tlc_event_destroy(e1);
  return st;
}

tlc_status tlc_bench_launch(tlc_runtime *rt, tlc_launch_fn launch, void *user, tlc_stream stream,
                            const tlc_bench_options *opt, float *median_ms) {
  tlc_status st = rt_enter(rt);
  if (st != TLC_OK) return st;
  tlc_bench_options o = opt ? *opt : (tlc_bench_options){.warmup = 1};
  if (!launch || !median_ms)
    return rt_fail(rt, TLC_ERR_INVALID, "tlc_bench_launch: NULL %s", !launch ? "launch callback" : "result pointer");
  if (o.reps == 0) o.reps = BENCH_REPS;
  if (o.warmup < 0 || o.reps < 1 || o.reps > BENCH_MAX_REPS || o.warmup > BENCH_MAX_REPS || o.nzero < 0 ||
      o.nrestore < 0 || (o.nzero && !o.zero) || (o.nrestore && !o.restore) || (o.flush && o.flush_bytes < 4))
    return rt_fail(rt, TLC_ERR_INVALID,
                   "tlc_bench_launch: warmup %d (0 to %d) or reps %d (1 to %d, 0 for 7) out of range, or a zero "
                   "(%d) or restore (%d) count without its array, or a flush buffer of under 4 bytes", o.warmup,
                   BENCH_MAX_REPS, o.reps, BENCH_MAX_REPS, o.nzero, o.nrestore);
  *median_ms = -1;
  BenchMem *zero = calloc((size_t)o.nzero + 1, sizeof *zero), *restore = calloc((size_t)o.nrestore + 1, sizeof *restore);
  float *ms = calloc((size_t)o.reps, sizeof *ms);
  if (!zero || !restore || !ms) st = rt_fail(rt, TLC_ERR_INVALID, "tlc_bench_launch: out of host memory");
  if (st == TLC_OK) st = find_allocs(rt, "zero", o.zero, o.nzero, zero);
  if (st == TLC_OK) st = find_allocs(rt, "restore", o.restore, o.nrestore, restore);
  uint64_t fbase = 0;
  size_t fbytes = 0;
  if (st == TLC_OK && o.flush &&
      (!rt_alloc_find(rt, o.flush, &fbase, &fbytes) || o.flush - fbase + o.flush_bytes > fbytes))
    st = rt_fail(rt, TLC_ERR_INVALID, "tlc_bench_launch: the flush buffer (0x%llx, %zu bytes) is not inside memory "
                 "that tlc_malloc of this runtime gave", (unsigned long long)o.flush, o.flush_bytes);
  if (st == TLC_OK) st = tlc_synchronize(rt); /* the work before, on any stream, is done */
  int saved = 0;
  for (; st == TLC_OK && saved < o.nrestore; saved++) {
    BenchMem *m = &restore[saved];
    if (!(m->saved = malloc(m->bytes ? m->bytes : 1))) {
      st = rt_fail(rt, TLC_ERR_INVALID, "tlc_bench_launch: out of host memory saving %zu bytes", m->bytes);
      break;
    }
    st = tlc_memcpy_dtoh(rt, m->saved, m->base, m->bytes);
  }
  if (st == TLC_OK) st = run_trials(rt, launch, user, stream, &o, zero, restore, ms);
  /* afterwards as before, also after a failed launch (not after a fault:
   * the context is gone) */
  if (st != TLC_ERR_CUDA && saved == o.nrestore) {
    tlc_status rs = reset_memory(rt, zero, o.nzero, restore, o.nrestore);
    if (st == TLC_OK) st = rs;
  }
  if (st == TLC_OK) {
    qsort(ms, (size_t)o.reps, sizeof *ms, cmp_float);
    *median_ms = ms[o.reps / 2];
  }
  for (int i = 0; i < o.nrestore && restore; i++) free(restore[i].saved);
  free(zero), free(restore), free(ms);
  return st;
}
