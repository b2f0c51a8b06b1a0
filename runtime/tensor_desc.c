/* tensor_desc.c — host-made tensor descriptors: making and checking one
 * (tlc_tensor_desc_make), its signature entry (tlc_tensor_desc_signature),
 * and expanding TLC_DESC launch arguments into the kernel's parameters.
 *
 * A kernel compiled with a `tensordesc<T[B0, ..]>` signature entry for
 * parameter NAME takes it as hidden runtime parameters (spec/tensordesc.c):
 *
 *   NAME.base     ptr    the compiler assumes 16-byte alignment
 *   NAME.shape0.. i32    one per dim
 *   NAME.stride0.. i64   one per dim but the last (which is 1); the compiler
 *                        assumes multiples of 16 bytes
 *
 * so the checks here are what keeps those assumptions true.  The launcher
 * finds such a group by its parameter names and replaces one TLC_DESC
 * argument by base, shapes and strides (TLC_PTR and TLC_I64 values) before
 * the usual packing: everything after (tensor maps, messages) indexes the
 * expanded parameters.  A call may also pass those values one by one. */
#include "runtime/rt_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The element types a descriptor may have: the signature's spellings. */
static const struct {
  const char *name;
  int bytes;
} rt_desc_dtypes[] = {
    {"fp16", 2}, {"bf16", 2}, {"fp32", 4}, {"fp64", 8}, {"fp8e4nv", 1}, {"fp8e5", 1}, {"i8", 1},
    {"i16", 2},  {"i32", 4},  {"i64", 8},  {"u8", 1},   {"u16", 2},     {"u32", 4},   {"u64", 8},
};
enum { RT_DESC_NDTYPES = sizeof rt_desc_dtypes / sizeof rt_desc_dtypes[0], RT_DESC_MAX_BLOCK = 256 };

static int rt_desc_dtype(const char *name) {
  for (int i = 0; name && i < RT_DESC_NDTYPES; i++)
    if (!strcmp(name, rt_desc_dtypes[i].name)) return i;
  return -1;
}

/* The first thing wrong with d, written into msg; false when there is one. */
static bool rt_desc_valid(const tlc_tensor_desc *d, char *msg, size_t len) {
  int t = rt_desc_dtype(d->dtype);
  if (t < 0) {
    snprintf(msg, len, "unknown element type '%s' (fp16, bf16, fp32, fp64, fp8e4nv, fp8e5, i8..i64, u8..u64)",
             d->dtype ? d->dtype : "(null)");
    return false;
  }
  int eb = rt_desc_dtypes[t].bytes, r = d->rank;
  if (r < 1 || r > 5) {
    snprintf(msg, len, "rank %d is outside 1..5", r);
    return false;
  }
  if (d->base % 16) {
    snprintf(msg, len, "base 0x%" PRIx64 " is not 16-byte aligned", (uint64_t)d->base);
    return false;
  }
  for (int i = 0; i < r; i++) {
    if (d->shape[i] < 1 || d->shape[i] >= (int64_t)1 << 31) {
      snprintf(msg, len, "shape[%d] is %" PRId64 "; extents must be from 1 to 2^31-1", i, d->shape[i]);
      return false;
    }
    int32_t b = d->block_shape[i];
    if (b < 1 || b > RT_DESC_MAX_BLOCK || (b & (b - 1))) {
      snprintf(msg, len, "block_shape[%d] is %" PRId32 "; block dims must be powers of two from 1 to %d", i, b,
               RT_DESC_MAX_BLOCK);
      return false;
    }
  }
  if (d->strides[r - 1] != 1) {
    snprintf(msg, len, "the last stride is %" PRId64 "; it must be 1 (the innermost dim is contiguous)",
             d->strides[r - 1]);
    return false;
  }
  for (int i = 0; i + 1 < r; i++)
    if (d->strides[i] < 1 || (d->strides[i] * eb) % 16 || d->strides[i] > ((int64_t)1 << 40) / eb) {
      snprintf(msg, len, "strides[%d] is %" PRId64 " elements of %d byte%s; strides must be positive multiples "
               "of 16 bytes", i, d->strides[i], eb, eb == 1 ? "" : "s");
      return false;
    }
  if ((int64_t)d->block_shape[r - 1] * eb < 16) {
    snprintf(msg, len, "the innermost block dim spans %" PRId64 " bytes; it must span at least 16",
             (int64_t)d->block_shape[r - 1] * eb);
    return false;
  }
  return true;
}

tlc_status tlc_tensor_desc_make(tlc_runtime *rt, tlc_devptr base, const char *dtype, int rank,
                                const int64_t *shape, const int64_t *strides, const int32_t *block_shape,
                                tlc_tensor_desc *out) {
  tlc_status st = rt_usable(rt);
  if (st != TLC_OK) return st;
  if (!out) return rt_fail(rt, TLC_ERR_INVALID, "tlc_tensor_desc_make: NULL result pointer");
  memset(out, 0, sizeof *out);
  /* the arrays hold `rank` entries: nothing is read from them before the rank is known to be good */
  if (rank < 1 || rank > 5) return rt_fail(rt, TLC_ERR_INVALID, "tlc_tensor_desc_make: rank %d is outside 1..5", rank);
  if (!shape || !strides || !block_shape)
    return rt_fail(rt, TLC_ERR_INVALID, "tlc_tensor_desc_make: NULL %s",
                   !shape ? "shape" : !strides ? "strides" : "block_shape");
  tlc_tensor_desc d = {.base = base, .dtype = dtype, .rank = rank};
  for (int i = 0; i < rank; i++)
    d.shape[i] = shape[i], d.strides[i] = strides[i], d.block_shape[i] = block_shape[i];
  char msg[256];
  if (!rt_desc_valid(&d, msg, sizeof msg)) return rt_fail(rt, TLC_ERR_INVALID, "tlc_tensor_desc_make: %s", msg);
  d.dtype = rt_desc_dtypes[rt_desc_dtype(dtype)].name;
  *out = d;
  return TLC_OK;
}

int tlc_tensor_desc_signature(const tlc_tensor_desc *d, char *buf, size_t len) {
  if (!d || rt_desc_dtype(d->dtype) < 0 || d->rank < 1 || d->rank > 5) return -1;
  char entry[128];
  int n = snprintf(entry, sizeof entry, "tensordesc<%s[", d->dtype);
  for (int i = 0; i < d->rank; i++)
    n += snprintf(entry + n, sizeof entry - (size_t)n, i ? ",%d" : "%d", d->block_shape[i]);
  n += snprintf(entry + n, sizeof entry - (size_t)n, "]>");
  if (buf && len) snprintf(buf, len, "%s", entry);
  return n;
}

/* ---- launch arguments ------------------------------------------------------------------- */

/* The rank of the descriptor whose parameters start at parameter i: NAME.base
 * (ptr), NAME.shape0..NAME.shape{R-1} (i32), NAME.stride0..NAME.stride{R-2}
 * (i64); 0 when parameter i does not start such a group. */
int rt_desc_group(const tlc_kernel *k, int i) {
  const RtParam *p = k->meta.params;
  int np = k->meta.nparams;
  const char *dot = strrchr(p[i].name, '.');
  if (p[i].kind != TLC_PARAM_PTR || !dot || strcmp(dot, ".base")) return 0;
  int plen = (int)(dot - p[i].name), r = 0;
  char want[64];
  for (int j = i + 1; j < np && r < 5; j++, r++) {
    snprintf(want, sizeof want, "%.*s.shape%d", plen, p[i].name, r);
    if (p[j].kind != TLC_PARAM_I32 || strcmp(p[j].name, want)) break;
  }
  if (r < 1 || i + 1 + r + (r - 1) > np) return 0;
  for (int s = 0; s < r - 1; s++) {
    const RtParam *q = &p[i + 1 + r + s];
    snprintf(want, sizeof want, "%.*s.stride%d", plen, p[i].name, s);
    if (q->kind != TLC_PARAM_I64 || strcmp(q->name, want)) return 0;
  }
  return r;
}

int rt_desc_logical_params(const tlc_kernel *k) {
  int n = 0;
  for (int i = 0; i < k->meta.nparams; n++) {
    int r = rt_desc_group(k, i);
    i += r ? 2 * r : 1;
  }
  return n;
}

/* The name of the descriptor parameter group at i (its base's name less ".base"). */
static int rt_desc_name_len(const tlc_kernel *k, int i) {
  return (int)(strrchr(k->meta.params[i].name, '.') - k->meta.params[i].name);
}

void rt_describe_params(const tlc_kernel *k, char *buf, size_t len) {
  size_t n = 0;
  buf[0] = 0;
  for (int i = 0, first = 1; i < k->meta.nparams && n < len; first = 0) {
    const RtParam *p = &k->meta.params[i];
    int r = rt_desc_group(k, i), w;
    if (r)
      w = snprintf(buf + n, len - n, "%s%.*s: tensor descriptor of rank %d", first ? "" : ", ",
                   rt_desc_name_len(k, i), p->name, r);
    else
      w = snprintf(buf + n, len - n, "%s%s: %s", first ? "" : ", ", p->name, tlc_param_kind_name(p->kind));
    if (w < 0) break;
    n += (size_t)w;
    i += r ? 2 * r : 1;
  }
  if (n >= len && len > 4) memcpy(buf + len - 4, "...", 4);
}

tlc_status rt_desc_expand(tlc_kernel *k, const tlc_arg *args, int nargs, tlc_arg **out, int **argno) {
  tlc_runtime *rt = k->rt;
  int np = k->meta.nparams;
  *out = NULL, *argno = NULL;
  tlc_arg *ex = calloc((size_t)np + 1, sizeof *ex);
  int *no = calloc((size_t)np + 1, sizeof *no);
  if (!ex || !no) {
    free(ex), free(no);
    return rt_fail(rt, TLC_ERR_INVALID, "kernel '%s': out of host memory", k->name);
  }
  tlc_status st = TLC_OK;
  int i = 0;
  for (int a = 0; a < nargs && st == TLC_OK; a++) {
    int r = i < np ? rt_desc_group(k, i) : 0;
    const tlc_arg *g = &args[a];
    if (!r) {
      if (g->kind == TLC_ARG_DESC)
        st = rt_fail(rt, TLC_ERR_ARGS,
                     "kernel '%s' parameter %d ('%s') is %s but argument %d is a tensor descriptor", k->name, i,
                     k->meta.params[i].name, tlc_param_kind_name(k->meta.params[i].kind), a);
      ex[i] = *g, no[i++] = a;
      continue;
    }
    int nl = rt_desc_name_len(k, i);
    const char *name = k->meta.params[i].name;
    if (g->kind != TLC_ARG_DESC) {
      st = rt_fail(rt, TLC_ERR_ARGS, "kernel '%s' parameter '%.*s' is a tensor descriptor of rank %d but argument "
                   "%d is %s; pass a tlc_tensor_desc with TLC_DESC", k->name, nl, name, r, a,
                   rt_arg_kind_name(g->kind));
      break;
    }
    const tlc_tensor_desc *d = g->v.desc;
    char msg[256];
    if (!d)
      st = rt_fail(rt, TLC_ERR_ARGS, "kernel '%s' argument %d ('%.*s') is TLC_DESC(NULL)", k->name, a, nl, name);
    else if (d->rank != r)
      st = rt_fail(rt, TLC_ERR_ARGS, "kernel '%s' argument %d is a tensor descriptor of rank %d but parameter "
                   "'%.*s' is one of rank %d", k->name, a, d->rank, nl, name, r);
    else if (!rt_desc_valid(d, msg, sizeof msg))
      st = rt_fail(rt, TLC_ERR_ARGS, "kernel '%s' argument %d ('%.*s'): %s", k->name, a, nl, name, msg);
    if (st != TLC_OK) break;
    ex[i] = TLC_PTR(d->base), no[i++] = a;
    for (int s = 0; s < r; s++) ex[i] = TLC_I64(d->shape[s]), no[i++] = a;
    for (int s = 0; s + 1 < r; s++) ex[i] = TLC_I64(d->strides[s]), no[i++] = a;
  }
  if (st != TLC_OK) {
    free(ex), free(no);
    return st;
  }
  *out = ex, *argno = no;
  return TLC_OK;
}
