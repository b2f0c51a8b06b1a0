/* event.c — CUDA events for timing.
 *
 * Owns tlc_event: a CUevent created with timing enabled, linked into its
 * runtime so tlc_runtime_close can destroy any the caller left.  Elapsed
 * time waits for the end event first, so callers need no synchronize. */
#include "runtime/rt_internal.h"

#include <stdlib.h>
#include <time.h>

tlc_status tlc_event_create(tlc_runtime *rt, tlc_event **out) {
  tlc_status st = rt_enter(rt);
  if (out) *out = NULL;
  if (st != TLC_OK) return st;
  if (!out) return rt_fail(rt, TLC_ERR_INVALID, "tlc_event_create: NULL result pointer");
  tlc_event *e = calloc(1, sizeof *e);
  if (!e) return rt_fail(rt, TLC_ERR_INVALID, "tlc_event_create: out of host memory");
  CUresult r = rt->cpu ? CUDA_SUCCESS : rt->drv->cuEventCreate(&e->ev, CU_EVENT_DEFAULT);
  if (r != CUDA_SUCCESS) {
    free(e);
    return rt_fail_cuda(rt, TLC_ERR_CUDA, r, "cuEventCreate");
  }
  e->rt = rt;
  pthread_mutex_lock(&rt->lock);
  e->next = rt->events;
  if (rt->events) rt->events->prev = e;
  rt->events = e;
  pthread_mutex_unlock(&rt->lock);
  *out = e;
  return TLC_OK;
}

double rt_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

tlc_status tlc_event_record(tlc_event *e, tlc_stream stream) {
  if (!e) return TLC_ERR_INVALID;
  tlc_runtime *rt = e->rt;
  tlc_status st = rt_enter(rt);
  if (st != TLC_OK) return st;
  if (rt->cpu) { /* launches are synchronous: the host clock times them */
    e->cpu_ms = rt_now_ms();
    return TLC_OK;
  }
  CUresult r = rt->drv->cuEventRecord(e->ev, (CUstream)stream);
  if (r != CUDA_SUCCESS) return rt_fail_cuda(rt, TLC_ERR_CUDA, r, "cuEventRecord");
  return TLC_OK;
}

tlc_status tlc_event_elapsed_ms(tlc_event *start, tlc_event *end, float *ms) {
  if (!start || !end) return TLC_ERR_INVALID;
  tlc_runtime *rt = start->rt;
  tlc_status st = rt_enter(rt);
  if (st != TLC_OK) return st;
  if (end->rt != rt)
    return rt_fail(rt, TLC_ERR_INVALID, "tlc_event_elapsed_ms: the events belong to different runtimes");
  if (!ms) return rt_fail(rt, TLC_ERR_INVALID, "tlc_event_elapsed_ms: NULL result pointer");
  if (rt->cpu) {
    *ms = (float)(end->cpu_ms - start->cpu_ms);
    return TLC_OK;
  }
  CUresult r = rt->drv->cuEventSynchronize(end->ev);
  if (r != CUDA_SUCCESS)
    return rt_fail_cuda(rt, TLC_ERR_CUDA, r, "cuEventSynchronize (waiting for the end event)");
  r = rt->drv->cuEventElapsedTime(ms, start->ev, end->ev);
  if (r != CUDA_SUCCESS)
    return rt_fail_cuda(rt, TLC_ERR_CUDA, r,
                        "cuEventElapsedTime (were both events recorded, start before end?)");
  return TLC_OK;
}

static void rt_event_free(tlc_runtime *rt, tlc_event *e) {
  if (!rt->cpu) rt->drv->cuEventDestroy(e->ev);
  free(e);
}

void tlc_event_destroy(tlc_event *e) {
  if (!e) return;
  tlc_runtime *rt = e->rt;
  rt_enter(rt); /* destroy even when the context cannot be made current */
  pthread_mutex_lock(&rt->lock);
  if (e->prev) e->prev->next = e->next;
  else rt->events = e->next;
  if (e->next) e->next->prev = e->prev;
  pthread_mutex_unlock(&rt->lock);
  rt_event_free(rt, e);
}

void rt_events_release_all(tlc_runtime *rt) {
  while (rt->events) {
    tlc_event *e = rt->events;
    rt->events = e->next;
    rt_event_free(rt, e);
  }
}
