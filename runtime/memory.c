/* memory.c — device memory, copies, memsets and whole-device
 * synchronisation.
 *
 * Owns the set of live allocations: tlc_free of an address this runtime did
 * not allocate (or already freed) is TLC_ERR_INVALID instead of a driver
 * error or worse, and tlc_runtime_close frees what is left.  Copies and
 * memsets are the synchronous driver calls on the default stream.
 * tlc_synchronize is where a fault inside an earlier kernel is reported.
 *
 * On the CPU device the same calls work on host memory (aligned to 256
 * bytes, as the driver's), and a copy or memset must lie inside one live
 * allocation: a range outside is TLC_ERR_INVALID, where a GPU would fault
 * or corrupt. */
#include "runtime/rt_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- the allocation set: open addressing, linear probing, 0 = free ---------- */

static size_t rt_ptr_slot(uint64_t p, size_t cap) {
  p ^= p >> 29; /* device addresses are aligned: fold the high bits in */
  p *= 0x9e3779b97f4a7c15ull;
  return (size_t)(p >> 32) & (cap - 1);
}

static int rt_ptrset_add(RtPtrSet *s, uint64_t p) {
  if ((s->count + 1) * 2 > s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 64;
    uint64_t *slots = calloc(cap, sizeof *slots);
    if (!slots) return -1;
    for (size_t i = 0; i < s->cap; i++) {
      if (!s->slots[i]) continue;
      size_t j = rt_ptr_slot(s->slots[i], cap);
      while (slots[j]) j = (j + 1) & (cap - 1);
      slots[j] = s->slots[i];
    }
    free(s->slots);
    s->slots = slots;
    s->cap = cap;
  }
  size_t i = rt_ptr_slot(p, s->cap);
  while (s->slots[i] && s->slots[i] != p) i = (i + 1) & (s->cap - 1);
  if (!s->slots[i]) s->count++;
  s->slots[i] = p;
  return 0;
}

/* Remove p; returns 0, or -1 when p is not in the set. */
static int rt_ptrset_remove(RtPtrSet *s, uint64_t p) {
  if (!s->cap) return -1;
  size_t i = rt_ptr_slot(p, s->cap);
  while (s->slots[i] != p) {
    if (!s->slots[i]) return -1;
    i = (i + 1) & (s->cap - 1);
  }
  /* Backward-shift deletion keeps every probe chain unbroken without tombstones. */
  size_t hole = i;
  for (size_t j = (i + 1) & (s->cap - 1); s->slots[j]; j = (j + 1) & (s->cap - 1)) {
    size_t home = rt_ptr_slot(s->slots[j], s->cap);
    /* Move j into the hole unless its home lies cyclically in (hole, j]. */
    bool stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (!stays) {
      s->slots[hole] = s->slots[j];
      hole = j;
    }
  }
  s->slots[hole] = 0;
  s->count--;
  return 0;
}

static void rt_size_add(tlc_runtime *rt, uint64_t p, size_t bytes) {
  if (rt->nsizes == rt->capsizes) {
    int cap = rt->capsizes ? 2 * rt->capsizes : 64;
    struct RtSize *n = realloc(rt->sizes, sizeof *n * (size_t)cap);
    if (!n) return; /* sizes are an aid (autotune resets), not a requirement */
    rt->sizes = n, rt->capsizes = cap;
  }
  rt->sizes[rt->nsizes].p = p;
  rt->sizes[rt->nsizes++].bytes = bytes;
}

static void rt_size_remove(tlc_runtime *rt, uint64_t p) {
  for (int i = 0; i < rt->nsizes; i++)
    if (rt->sizes[i].p == p) {
      rt->sizes[i] = rt->sizes[--rt->nsizes];
      return;
    }
}

bool rt_alloc_find(tlc_runtime *rt, uint64_t p, uint64_t *base, size_t *bytes) {
  bool found = false;
  pthread_mutex_lock(&rt->lock);
  for (int i = 0; i < rt->nsizes && !found; i++)
    if (p >= rt->sizes[i].p && p < rt->sizes[i].p + rt->sizes[i].bytes) {
      *base = rt->sizes[i].p, *bytes = rt->sizes[i].bytes;
      found = true;
    }
  pthread_mutex_unlock(&rt->lock);
  return found;
}

struct RtSize *rt_alloc_list(tlc_runtime *rt, int *n) {
  pthread_mutex_lock(&rt->lock);
  struct RtSize *l = malloc(sizeof *l * ((size_t)rt->nsizes + 1));
  *n = l ? rt->nsizes : 0;
  if (l && rt->nsizes) memcpy(l, rt->sizes, sizeof *l * (size_t)rt->nsizes);
  pthread_mutex_unlock(&rt->lock);
  return l;
}

/* The CPU device: is [p, p + bytes) inside one live allocation? */
static tlc_status rt_cpu_range(tlc_runtime *rt, const char *what, uint64_t p, size_t bytes) {
  uint64_t base;
  size_t size;
  if (rt_alloc_find(rt, p, &base, &size) && p - base + bytes <= size) return TLC_OK;
  if (rt_alloc_find(rt, p, &base, &size))
    return rt_fail(rt, TLC_ERR_INVALID, "%s(0x%llx, %zu bytes): the range ends %llu bytes past the end of its "
                   "allocation of %zu bytes", what, (unsigned long long)p, bytes,
                   (unsigned long long)(p - base + bytes - size), size);
  return rt_fail(rt, TLC_ERR_INVALID, "%s(0x%llx, %zu bytes): not inside an allocation of this runtime", what,
                 (unsigned long long)p, bytes);
}

void rt_memory_release_all(tlc_runtime *rt) {
  free(rt->sizes);
  rt->sizes = NULL, rt->nsizes = rt->capsizes = 0;
  for (size_t i = 0; i < rt->allocs.cap; i++)
    if (rt->allocs.slots[i] && rt->cpu) free((void *)(uintptr_t)rt->allocs.slots[i]);
    else if (rt->allocs.slots[i]) rt->drv->cuMemFree((CUdeviceptr)rt->allocs.slots[i]);
  free(rt->allocs.slots);
  memset(&rt->allocs, 0, sizeof rt->allocs);
}

/* ---- the API ---------------------------------------------------------------------- */

tlc_status tlc_malloc(tlc_runtime *rt, size_t bytes, tlc_devptr *out) {
  tlc_status st = rt_enter(rt);
  if (st != TLC_OK) return st;
  if (!out) return rt_fail(rt, TLC_ERR_INVALID, "tlc_malloc: NULL result pointer");
  *out = 0;
  if (bytes == 0) return rt_fail(rt, TLC_ERR_INVALID, "tlc_malloc: size 0");
  CUdeviceptr p = 0;
  CUresult r = CUDA_SUCCESS;
  if (rt->cpu) {
    void *h = aligned_alloc(256, (bytes + 255) / 256 * 256);
    if (!h) return rt_fail(rt, TLC_ERR_CUDA, "tlc_malloc(%zu bytes) on the CPU device: out of host memory", bytes);
    p = (CUdeviceptr)(uintptr_t)h;
  } else {
    r = rt->drv->cuMemAlloc(&p, bytes);
  }
  if (r != CUDA_SUCCESS)
    return rt_fail_cuda(rt, TLC_ERR_CUDA, r, "tlc_malloc(%zu bytes) on %s", bytes, rt->name);
  pthread_mutex_lock(&rt->lock);
  int rc = rt_ptrset_add(&rt->allocs, (uint64_t)p);
  if (rc == 0) rt_size_add(rt, (uint64_t)p, bytes);
  pthread_mutex_unlock(&rt->lock);
  if (rc != 0) {
    if (rt->cpu) free((void *)(uintptr_t)p);
    else rt->drv->cuMemFree(p);
    return rt_fail(rt, TLC_ERR_INVALID, "tlc_malloc: out of host memory");
  }
  *out = (tlc_devptr)p;
  return TLC_OK;
}

tlc_status tlc_free(tlc_runtime *rt, tlc_devptr p) {
  tlc_status st = rt_enter(rt);
  if (st != TLC_OK || p == 0) return st;
  pthread_mutex_lock(&rt->lock);
  int rc = rt_ptrset_remove(&rt->allocs, (uint64_t)p);
  if (rc == 0) rt_size_remove(rt, (uint64_t)p);
  pthread_mutex_unlock(&rt->lock);
  if (rc != 0)
    return rt_fail(rt, TLC_ERR_INVALID,
                   "tlc_free(0x%llx): not an allocation of this runtime, or already freed",
                   (unsigned long long)p);
  if (rt->cpu) {
    free((void *)(uintptr_t)p);
    return TLC_OK;
  }
  CUresult r = rt->drv->cuMemFree((CUdeviceptr)p);
  if (r != CUDA_SUCCESS)
    return rt_fail_cuda(rt, TLC_ERR_CUDA, r, "tlc_free(0x%llx)", (unsigned long long)p);
  return TLC_OK;
}

tlc_status tlc_memcpy_htod(tlc_runtime *rt, tlc_devptr dst, const void *src, size_t bytes) {
  tlc_status st = rt_enter(rt);
  if (st != TLC_OK || bytes == 0) return st;
  if (!src || !dst) return rt_fail(rt, TLC_ERR_INVALID, "tlc_memcpy_htod: NULL %s", src ? "destination" : "source");
  if (rt->cpu) {
    st = rt_cpu_range(rt, "tlc_memcpy_htod", dst, bytes);
    if (st == TLC_OK) memcpy((void *)(uintptr_t)dst, src, bytes);
    return st;
  }
  CUresult r = rt->drv->cuMemcpyHtoD((CUdeviceptr)dst, src, bytes);
  if (r != CUDA_SUCCESS)
    return rt_fail_cuda(rt, TLC_ERR_CUDA, r, "tlc_memcpy_htod(0x%llx, %zu bytes)",
                        (unsigned long long)dst, bytes);
  return TLC_OK;
}

tlc_status tlc_memcpy_dtoh(tlc_runtime *rt, void *dst, tlc_devptr src, size_t bytes) {
  tlc_status st = rt_enter(rt);
  if (st != TLC_OK || bytes == 0) return st;
  if (!src || !dst) return rt_fail(rt, TLC_ERR_INVALID, "tlc_memcpy_dtoh: NULL %s", src ? "destination" : "source");
  if (rt->cpu) {
    st = rt_cpu_range(rt, "tlc_memcpy_dtoh", src, bytes);
    if (st == TLC_OK) memcpy(dst, (const void *)(uintptr_t)src, bytes);
    return st;
  }
  CUresult r = rt->drv->cuMemcpyDtoH(dst, (CUdeviceptr)src, bytes);
  if (r != CUDA_SUCCESS)
    return rt_fail_cuda(rt, TLC_ERR_CUDA, r, "tlc_memcpy_dtoh(0x%llx, %zu bytes)",
                        (unsigned long long)src, bytes);
  return TLC_OK;
}

tlc_status tlc_memset_d8(tlc_runtime *rt, tlc_devptr dst, unsigned char value, size_t bytes) {
  tlc_status st = rt_enter(rt);
  if (st != TLC_OK || bytes == 0) return st;
  if (!dst) return rt_fail(rt, TLC_ERR_INVALID, "tlc_memset_d8: NULL destination");
  if (rt->cpu) {
    st = rt_cpu_range(rt, "tlc_memset_d8", dst, bytes);
    if (st == TLC_OK) memset((void *)(uintptr_t)dst, value, bytes);
    return st;
  }
  CUresult r = rt->drv->cuMemsetD8((CUdeviceptr)dst, value, bytes);
  if (r != CUDA_SUCCESS)
    return rt_fail_cuda(rt, TLC_ERR_CUDA, r, "tlc_memset_d8(0x%llx, %zu bytes)",
                        (unsigned long long)dst, bytes);
  return TLC_OK;
}

tlc_status tlc_memset_d32(tlc_runtime *rt, tlc_devptr dst, uint32_t value, size_t count) {
  tlc_status st = rt_enter(rt);
  if (st != TLC_OK || count == 0) return st;
  if (!dst) return rt_fail(rt, TLC_ERR_INVALID, "tlc_memset_d32: NULL destination");
  if (dst % 4) return rt_fail(rt, TLC_ERR_INVALID, "tlc_memset_d32: destination 0x%llx is not 4-byte aligned", (unsigned long long)dst);
  if (rt->cpu) {
    st = rt_cpu_range(rt, "tlc_memset_d32", dst, count * 4);
    for (size_t i = 0; st == TLC_OK && i < count; i++) memcpy((unsigned char *)(uintptr_t)dst + 4 * i, &value, 4);
    return st;
  }
  CUresult r = rt->drv->cuMemsetD32((CUdeviceptr)dst, value, count);
  if (r != CUDA_SUCCESS)
    return rt_fail_cuda(rt, TLC_ERR_CUDA, r, "tlc_memset_d32(0x%llx, %zu words)",
                        (unsigned long long)dst, count);
  return TLC_OK;
}

tlc_status tlc_synchronize(tlc_runtime *rt) {
  tlc_status st = rt_enter(rt);
  if (st != TLC_OK || rt->cpu) return st; /* the CPU device's launches are synchronous */
  CUresult r = rt->drv->cuCtxSynchronize();
  if (r != CUDA_SUCCESS) {
    char text[320];
    return rt_fail(rt, TLC_ERR_CUDA,
                   "tlc_synchronize: work launched earlier on %s failed: %s; a fault inside a "
                   "kernel leaves the CUDA context unusable until the process exits",
                   rt->name, rt_cuda_error_text(rt->drv, r, text, sizeof text));
  }
  return TLC_OK;
}
