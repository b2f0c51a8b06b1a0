/* memory.c — the memory checker, and the ops that touch memory: addptr,
 * load, store, atomic_rmw, atomic_cas.
 *
 * Every element a load, store or atomic touches (its mask on) must lie
 * wholly inside one of the launch's allocations and be aligned to its
 * size; otherwise the run stops with a located error naming the
 * allocation by the kernel parameter that points into it:
 *
 *   k.tile:9:12: error: out-of-bounds load of x_ptr + 4096 (allocation of
 *   4096 bytes) in program (3, 0, 0), element [1023] of the tile
 *
 * Masked-off elements are not checked (the GPU does not touch them); a
 * masked-off load gives `other`, or 0 without one.  Reads of memory that
 * was never written are not detected (no shadow memory).  Programs run one
 * at a time, so every atomic is trivially atomic; their order is program
 * order, x fastest. */
#include "interp/interp_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* ---- the checker ------------------------------------------------------------------ */

/* The allocation holding [a, a + sz), or -1. */
static int find_alloc(Interp *I, uint64_t a, int sz) {
  if (I->last >= 0 && I->last < I->nallocs) {
    const tlc_interp_alloc *c = &I->allocs[I->last];
    if (a >= c->base && a - c->base + (uint64_t)sz <= c->bytes) return I->last;
  }
  int lo = 0, hi = I->nallocs - 1, best = -1;
  while (lo <= hi) { /* the last allocation whose base <= a */
    int mid = (lo + hi) / 2;
    if (I->allocs[mid].base <= a) best = mid, lo = mid + 1;
    else hi = mid - 1;
  }
  if (best >= 0 && a - I->allocs[best].base + (uint64_t)sz <= I->allocs[best].bytes) return I->last = best;
  return -1;
}

/* The allocation an address outside all of them is nearest to (for the
 * message), or -1 when there is none. */
static int nearest_alloc(Interp *I, uint64_t a) {
  int best = -1;
  uint64_t dist = UINT64_MAX;
  for (int i = 0; i < I->nallocs; i++) {
    const tlc_interp_alloc *c = &I->allocs[i];
    uint64_t d = a < c->base ? c->base - a : a >= c->base + c->bytes ? a - (c->base + c->bytes) + 1 : 0;
    if (d < dist) dist = d, best = i;
  }
  return best;
}

/* "[3, 17]": the coordinates of element i of a tile of type t ("" for a scalar). */
static void elem_text(const Type *t, int64_t i, char *buf, size_t cap) {
  if (t->rank == 0) {
    buf[0] = 0;
    return;
  }
  int64_t c[IR_MAX_RANK];
  for (int d = t->rank - 1; d >= 0; d--) c[d] = i % t->shape[d], i /= t->shape[d];
  size_t n = (size_t)snprintf(buf, cap, ", element [");
  for (int d = 0; d < t->rank && n < cap; d++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%lld", d ? ", " : "", (long long)c[d]);
  if (n < cap) snprintf(buf + n, cap - n, "] of the tile");
}

static bool bad_access(Interp *I, const Op *op, const char *what, uint64_t a, int sz, int64_t i) {
  char where[160];
  elem_text(op->operands[0]->type, i, where, sizeof where);
  if (a == 0) return ip_fail_tail(I, op, TLC_INTERP_FAULT, where, "%s through a null pointer", what);
  int k = find_alloc(I, a, sz);
  if (k >= 0) { /* inside, so misaligned */
    const tlc_interp_alloc *c = &I->allocs[k];
    return ip_fail_tail(I, op, TLC_INTERP_FAULT, where, "misaligned %s of %s + %" PRIu64 " (a %d-byte element needs %d-byte alignment)",
                        what, c->name, a - c->base, sz, sz);
  }
  k = nearest_alloc(I, a);
  if (k < 0)
    return ip_fail_tail(I, op, TLC_INTERP_FAULT, where, "out-of-bounds %s of address 0x%" PRIx64 " (the kernel was given no memory)",
                        what, a);
  const tlc_interp_alloc *c = &I->allocs[k];
  int64_t off = (int64_t)(a - c->base);
  return ip_fail_tail(I, op, TLC_INTERP_FAULT, where, "out-of-bounds %s of %s %s %" PRId64 " (allocation of %zu bytes)", what,
                      c->name, off < 0 ? "-" : "+", off < 0 ? -off : off, c->bytes);
}

/* Is [a, a + sz) a valid access?  The fast path is the allocation hit last. */
static inline bool check(Interp *I, const Op *op, const char *what, uint64_t a, int sz, int64_t i) {
  if (!(a & (uint64_t)(sz - 1)) && find_alloc(I, a, sz) >= 0) return true;
  return bad_access(I, op, what, a, sz, i);
}

/* ---- addptr ------------------------------------------------------------------------ */

static bool addptr(Interp *I, Op *op) {
  Value *r = op->results[0], *p = op->operands[0], *o = op->operands[1];
  int64_t n = ty_numel(r->type);
  IVal *ps = ip_val(I, p), *os = ip_val(I, o);
  int64_t pst = ps->n == 1 ? 0 : 1, ost = os->n == 1 ? 0 : 1;
  uint64_t esz = (uint64_t)ty_elem_bytes(r->type->pointee ? r->type->pointee : p->type->pointee);
  const uint64_t *pv = (const uint64_t *)ps->data;
  uint64_t *out = (uint64_t *)ip_def(I, r, n);
  DType od = ip_dt(o);
  if (od == DT_I32) {
    const int32_t *ov = (const int32_t *)os->data;
    for (int64_t i = 0; i < n; i++) out[i] = pv[i * pst] + (uint64_t)(int64_t)ov[i * ost] * esz;
  } else {
    for (int64_t i = 0; i < n; i++) out[i] = pv[i * pst] + (uint64_t)ip_get_i(os->data, od, i * ost) * esz;
  }
  return true;
}

/* ---- load / store --------------------------------------------------------------------- */

static bool load(Interp *I, Op *op) {
  Value *r = op->results[0], *p = op->operands[0], *m = op->operands[1], *o = op->operands[2];
  DType d = ip_dt(r);
  int sz = ip_size(d), msz = ty_elem_bytes(p->type->pointee);
  int64_t n = ty_numel(r->type);
  IVal *ps = ip_val(I, p);
  const uint64_t *pv = (const uint64_t *)ps->data;
  int64_t pst = ps->n == 1 ? 0 : 1;
  const unsigned char *mk = m ? ip_val(I, m)->data : NULL, *ot = o ? ip_val(I, o)->data : NULL;
  int64_t mst = m && ip_val(I, m)->n == 1 ? 0 : 1, ost = o && ip_val(I, o)->n == 1 ? 0 : 1;
  unsigned char *out = ip_def(I, r, n);
  for (int64_t i = 0; i < n; i++) {
    if (mk && !mk[i * mst]) {
      if (ot) memcpy(out + i * sz, ot + i * ost * sz, (size_t)sz);
      else memset(out + i * sz, 0, (size_t)sz);
      continue;
    }
    uint64_t a = pv[i * pst];
    if (!check(I, op, "load", a, msz, i)) return false;
    const void *src = (const void *)(uintptr_t)a;
    if (d == DT_I1) out[i] = *(const uint8_t *)src != 0;
    else memcpy(out + i * sz, src, (size_t)sz);
  }
  return true;
}

static bool store(Interp *I, Op *op) {
  Value *p = op->operands[0], *v = op->operands[1], *m = op->operands[2];
  DType d = ip_dt(v);
  int sz = ip_size(d), msz = ty_elem_bytes(p->type->pointee);
  IVal *ps = ip_val(I, p), *vs = ip_val(I, v);
  int64_t n = ps->n > vs->n ? ps->n : vs->n;
  int64_t pst = ps->n == 1 ? 0 : 1, vst = vs->n == 1 ? 0 : 1;
  const uint64_t *pv = (const uint64_t *)ps->data;
  const unsigned char *mk = m ? ip_val(I, m)->data : NULL;
  int64_t mst = m && ip_val(I, m)->n == 1 ? 0 : 1;
  for (int64_t i = 0; i < n; i++) {
    if (mk && !mk[i * mst]) continue;
    uint64_t a = pv[i * pst];
    if (!check(I, op, "store", a, msz, i)) return false;
    memcpy((void *)(uintptr_t)a, vs->data + i * vst * sz, (size_t)sz);
  }
  return true;
}

/* ---- atomics --------------------------------------------------------------------------- */

static bool atomic_rmw(Interp *I, Op *op) {
  Value *r = op->results[0], *p = op->operands[0], *v = op->operands[1], *m = op->operands[2];
  DType d = ip_dt(r);
  int sz = ip_size(d);
  int64_t n = ty_numel(r->type);
  IVal *ps = ip_val(I, p), *vs = ip_val(I, v);
  int64_t pst = ps->n == 1 ? 0 : 1, vst = vs->n == 1 ? 0 : 1;
  const uint64_t *pv = (const uint64_t *)ps->data;
  const unsigned char *mk = m ? ip_val(I, m)->data : NULL;
  int64_t mst = m && ip_val(I, m)->n == 1 ? 0 : 1;
  unsigned char *out = ip_def(I, r, n);
  for (int64_t i = 0; i < n; i++) {
    if (mk && !mk[i * mst]) {
      memset(out + i * sz, 0, (size_t)sz);
      continue;
    }
    uint64_t a = pv[i * pst];
    if (!check(I, op, "atomic", a, sz, i)) return false;
    void *mem = (void *)(uintptr_t)a;
    memcpy(out + i * sz, mem, (size_t)sz); /* the old value */
    if (op->attr.rmw == RMW_XCHG) {
      memcpy(mem, vs->data + i * vst * sz, (size_t)sz);
    } else if (dt_is_float(d)) {
      double old = ip_get_f(mem, d, 0), x = ip_get_f(vs->data, d, i * vst);
      OpKind k = op->attr.rmw == RMW_MAX || op->attr.rmw == RMW_UMAX ? OP_MAX
                 : op->attr.rmw == RMW_MIN || op->attr.rmw == RMW_UMIN ? OP_MIN : OP_ADD;
      ip_set_f(mem, d, 0, ip_binary_f(k, d, old, x, true, false));
    } else {
      int64_t old = ip_get_i(mem, d, 0), x = ip_get_i(vs->data, d, i * vst);
      OpKind k;
      switch (op->attr.rmw) {
      case RMW_ADD: case RMW_FADD: k = OP_ADD; break;
      case RMW_MAX: case RMW_UMAX: k = OP_MAX; break; /* the type's signedness decides */
      case RMW_MIN: case RMW_UMIN: k = OP_MIN; break;
      case RMW_AND: k = OP_AND; break;
      case RMW_OR: k = OP_OR; break;
      default: k = OP_XOR; break;
      }
      ip_set_i(mem, d, 0, ip_binary_i(k, d, old, x));
    }
  }
  return true;
}

static bool atomic_cas(Interp *I, Op *op) {
  Value *r = op->results[0], *p = op->operands[0], *c = op->operands[1], *v = op->operands[2];
  DType d = ip_dt(r);
  int sz = ip_size(d);
  int64_t n = ty_numel(r->type);
  IVal *ps = ip_val(I, p), *cs = ip_val(I, c), *vs = ip_val(I, v);
  int64_t pst = ps->n == 1 ? 0 : 1, cst = cs->n == 1 ? 0 : 1, vst = vs->n == 1 ? 0 : 1;
  const uint64_t *pv = (const uint64_t *)ps->data;
  unsigned char *out = ip_def(I, r, n);
  for (int64_t i = 0; i < n; i++) {
    uint64_t a = pv[i * pst];
    if (!check(I, op, "atomic", a, sz, i)) return false;
    void *mem = (void *)(uintptr_t)a;
    memcpy(out + i * sz, mem, (size_t)sz);
    if (!memcmp(mem, cs->data + i * cst * sz, (size_t)sz)) memcpy(mem, vs->data + i * vst * sz, (size_t)sz);
  }
  return true;
}

bool ip_memory_op(Interp *I, Op *op) {
  switch (op->kind) {
  case OP_ADDPTR: return addptr(I, op);
  case OP_LOAD: return load(I, op);
  case OP_STORE: return store(I, op);
  case OP_ATOMIC_RMW: return atomic_rmw(I, op);
  case OP_ATOMIC_CAS: return atomic_cas(I, op);
  default:
    return ip_fail(I, op, TLC_INTERP_UNSUPPORTED, "the interpreter does not support %s yet", ir_op_info[op->kind].name);
  }
}
