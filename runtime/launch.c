/* launch.c — checking a launch's arguments and grid, and launching.
 *
 * Owns the argument rules: each tlc_arg must match the kernel's parameter
 * (the compiled kernel's params[], in order).  Exact kinds always match;
 * besides those only conversions that cannot change a value are made:
 *
 *   parameter            accepts
 *   ptr                  TLC_PTR only
 *   i32 / i64            TLC_I32, TLC_I64 (an i64 value must fit in i32)
 *   i1 / i8 / i16        TLC_I32, TLC_I64 whose value fits (i1: 0 or 1)
 *   u32 / u64            TLC_U32, TLC_U64 (a u64 value must fit in u32)
 *   u8 / u16             TLC_U32, TLC_U64 whose value fits
 *   fp32 / fp64          TLC_F32 / TLC_F64 only
 *   fp16 / bf16          TLC_F32, rounded to nearest even
 *
 * Signed and unsigned never mix, integers never become floats, and nothing
 * is a pointer but TLC_PTR.  TLC_DESC arguments are first expanded into
 * the descriptor parameters they stand for (tensor_desc.c); from there on
 * everything indexes parameters.  A kernel with tensor maps
 * (tlc_tma_recipe) gets them built here, after its arguments, from the
 * arguments' values (or copied from the kernel's memo of the last launch's
 * maps when those values are the same).  The grid must be non-zero and within the
 * device's limits; a program is 32*num_warps threads with the kernel's
 * dynamic shared memory.  What can be is prepared once per kernel when it
 * loads (rt_launch_prepare: the logical parameter count, the kinds copied as
 * they are), so a launch with exact kinds copies its values into slots on
 * the stack and calls cuLaunchKernel: no allocation, no lock (up to 32
 * parameters and 8 tensor maps).  Launching is asynchronous: faults inside the
 * kernel surface at tlc_synchronize.  On the CPU device the packed
 * arguments go to the interpreter, synchronously: a fault is this launch's
 * TLC_ERR_CUDA. */
#include "runtime/rt_internal.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *rt_arg_kind_name(tlc_arg_kind k) {
  switch (k) {
  case TLC_ARG_PTR: return "ptr";
  case TLC_ARG_I32: return "i32";
  case TLC_ARG_I64: return "i64";
  case TLC_ARG_U32: return "u32";
  case TLC_ARG_U64: return "u64";
  case TLC_ARG_FP32: return "fp32";
  case TLC_ARG_FP64: return "fp64";
  case TLC_ARG_DESC: return "a tensor descriptor";
  }
  return "an unknown kind";
}

/* ---- float narrowing ----------------------------------------------------------------- */

static uint32_t rt_f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* fp32 -> bf16, round to nearest even; NaN stays a (quiet) NaN. */
static uint16_t rt_f32_to_bf16(float f) {
  uint32_t u = rt_f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x0040u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

/* fp32 -> fp16 (IEEE binary16), round to nearest even, with subnormals,
 * overflow to infinity and NaN kept. */
static uint16_t rt_f32_to_f16(float f) {
  uint32_t u = rt_f32_bits(f);
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
  uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);           /* NaN */
  if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);           /* >= 65520 rounds to inf */
  int exp = (int)(a >> 23) - 127;
  uint32_t mant = a & 0x7fffffu;
  if (exp >= -14) {                                                  /* normal half */
    uint32_t h = ((uint32_t)(exp + 15) << 10) | (mant >> 13);
    uint32_t rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++;       /* carry may reach inf: right */
    return (uint16_t)(sign | h);
  }
  if (exp < -25) return sign;                                        /* rounds to zero */
  /* Subnormal half: value = m * 2^-24 with the implicit bit restored. */
  mant |= 0x800000u;
  int shift = -exp - 14 + 13;                                        /* 14..24 */
  uint32_t h = mant >> shift;
  uint32_t rest = mant & ((1u << shift) - 1u), half = 1u << (shift - 1);
  if (rest > half || (rest == half && (h & 1u))) h++;
  return (uint16_t)(sign | h);
}

/* ---- one argument ----------------------------------------------------------------------- */

/* Write the value for parameter i (the caller's argument ai) into slot as
 * the parameter expects it, or fail with a message naming both. */
static tlc_status rt_pack_arg(tlc_kernel *k, int i, int ai, const tlc_arg *a, unsigned char *slot) {
  const RtParam *p = &k->meta.params[i];
  tlc_arg_kind ak = a->kind;
  bool is_signed_arg = ak == TLC_ARG_I32 || ak == TLC_ARG_I64;
  bool is_unsigned_arg = ak == TLC_ARG_U32 || ak == TLC_ARG_U64;
  int64_t sv = ak == TLC_ARG_I32 ? a->v.i32 : ak == TLC_ARG_I64 ? a->v.i64 : 0;
  uint64_t uv = ak == TLC_ARG_U32 ? a->v.u32 : ak == TLC_ARG_U64 ? a->v.u64 : 0;
  int64_t lo = 0, hi = 0;
  uint64_t umax = 0;

  switch (p->kind) {
  case TLC_PARAM_PTR:
    if (ak != TLC_ARG_PTR) break;
    memcpy(slot, &a->v.ptr, 8);
    return TLC_OK;
  case TLC_PARAM_FP32:
    if (ak != TLC_ARG_FP32) break;
    memcpy(slot, &a->v.f32, 4);
    return TLC_OK;
  case TLC_PARAM_FP64:
    if (ak != TLC_ARG_FP64) break;
    memcpy(slot, &a->v.f64, 8);
    return TLC_OK;
  case TLC_PARAM_FP16:
  case TLC_PARAM_BF16: {
    if (ak != TLC_ARG_FP32) break;
    uint16_t h = p->kind == TLC_PARAM_FP16 ? rt_f32_to_f16(a->v.f32) : rt_f32_to_bf16(a->v.f32);
    memcpy(slot, &h, 2);
    return TLC_OK;
  }
  case TLC_PARAM_I1: lo = 0, hi = 1; goto signed_int;
  case TLC_PARAM_I8: lo = INT8_MIN, hi = INT8_MAX; goto signed_int;
  case TLC_PARAM_I16: lo = INT16_MIN, hi = INT16_MAX; goto signed_int;
  case TLC_PARAM_I32: lo = INT32_MIN, hi = INT32_MAX; goto signed_int;
  case TLC_PARAM_I64: lo = INT64_MIN, hi = INT64_MAX; goto signed_int;
  signed_int:
    if (!is_signed_arg) break;
    if (sv < lo || sv > hi)
      return rt_fail(k->rt, TLC_ERR_ARGS,
                     "kernel '%s' parameter %d ('%s') is %s but argument %d is %s %" PRId64
                     ", which does not fit",
                     k->name, i, p->name, tlc_param_kind_name(p->kind), ai, rt_arg_kind_name(ak), sv);
    switch (tlc_param_kind_size(p->kind)) {
    case 1: { int8_t v = (int8_t)sv; memcpy(slot, &v, 1); break; }
    case 2: { int16_t v = (int16_t)sv; memcpy(slot, &v, 2); break; }
    case 4: { int32_t v = (int32_t)sv; memcpy(slot, &v, 4); break; }
    default: memcpy(slot, &sv, 8); break;
    }
    return TLC_OK;
  case TLC_PARAM_U8: umax = UINT8_MAX; goto unsigned_int;
  case TLC_PARAM_U16: umax = UINT16_MAX; goto unsigned_int;
  case TLC_PARAM_U32: umax = UINT32_MAX; goto unsigned_int;
  case TLC_PARAM_U64: umax = UINT64_MAX; goto unsigned_int;
  unsigned_int:
    if (!is_unsigned_arg) break;
    if (uv > umax)
      return rt_fail(k->rt, TLC_ERR_ARGS,
                     "kernel '%s' parameter %d ('%s') is %s but argument %d is %s %" PRIu64
                     ", which does not fit",
                     k->name, i, p->name, tlc_param_kind_name(p->kind), ai, rt_arg_kind_name(ak), uv);
    switch (tlc_param_kind_size(p->kind)) {
    case 1: { uint8_t v = (uint8_t)uv; memcpy(slot, &v, 1); break; }
    case 2: { uint16_t v = (uint16_t)uv; memcpy(slot, &v, 2); break; }
    case 4: { uint32_t v = (uint32_t)uv; memcpy(slot, &v, 4); break; }
    default: memcpy(slot, &uv, 8); break;
    }
    return TLC_OK;
  }
  return rt_fail(k->rt, TLC_ERR_ARGS, "kernel '%s' parameter %d ('%s') is %s but argument %d is %s",
                 k->name, i, p->name, tlc_param_kind_name(p->kind), ai, rt_arg_kind_name(ak));
}

/* ---- tensor maps ---------------------------------------------------------------------------- */

/* The integer value of argument i (launch checked its kind already). */
static int64_t rt_int_arg(const tlc_arg *a) {
  switch (a->kind) {
  case TLC_ARG_I32: return a->v.i32;
  case TLC_ARG_I64: return a->v.i64;
  case TLC_ARG_U32: return (int64_t)a->v.u32;
  case TLC_ARG_U64: return (int64_t)a->v.u64;
  default: return 0;
  }
}

static int64_t rt_tma_value(const tlc_tma_value *v, const tlc_arg *args) {
  return v->param >= 0 ? rt_int_arg(&args[v->param]) : v->value;
}

/* Build the kernel's hidden tensor map j from the launch's arguments. */
static tlc_status rt_build_tma(tlc_kernel *k, int j, const tlc_arg *args, CUtensorMap *map) {
  tlc_runtime *rt = k->rt;
  const tlc_tma_recipe *t = &k->meta.tma[j];
  const char *base = k->meta.params[t->base_param].name;
  if (!rt->drv->cuTensorMapEncodeTiled)
    return rt_fail(rt, TLC_ERR_LAUNCH, "kernel '%s' reads '%s' through a tensor map, and this CUDA driver has no "
                   "cuTensorMapEncodeTiled (CUDA 12.0 or newer is needed)", k->name, base);
  uint64_t dims[TLC_TMA_MAX_RANK], strides[TLC_TMA_MAX_RANK];
  unsigned box[TLC_TMA_MAX_RANK], es[TLC_TMA_MAX_RANK];
  for (int d = 0; d < t->rank; d++) {
    int64_t n = rt_tma_value(&t->dims[d], args);
    dims[d] = n < 1 ? 1 : (uint64_t)n; /* an empty extent: the kernel reads nothing through it */
    box[d] = (unsigned)t->box[d], es[d] = 1;
    if (d) strides[d - 1] = (uint64_t)rt_tma_value(&t->strides[d], args) * (uint64_t)t->elem_bytes;
  }
  CUtensorMapSwizzle sw = t->swizzle == 128 ? CU_TENSOR_MAP_SWIZZLE_128B : t->swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                          : t->swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B : CU_TENSOR_MAP_SWIZZLE_NONE;
  CUresult r = rt->drv->cuTensorMapEncodeTiled(map, t->data_type, (unsigned)t->rank, (void *)(uintptr_t)args[t->base_param].v.ptr,
                                               dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE, sw,
                                               CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r == CUDA_SUCCESS) return TLC_OK;
  return rt_fail_cuda(rt, TLC_ERR_ARGS, r,
                      "kernel '%s': the tensor map over '%s' (address 0x%llx, extents %llu x %llu, row stride %llu "
                      "bytes; the address must be 16-byte aligned and the stride a multiple of 16 bytes) "
                      "cannot be built: cuTensorMapEncodeTiled",
                      k->name, base, (unsigned long long)args[t->base_param].v.ptr, (unsigned long long)dims[0],
                      t->rank > 1 ? (unsigned long long)dims[1] : 1ull, t->rank > 1 ? (unsigned long long)strides[0] : 0ull);
}

/* ---- the memo of the last maps --------------------------------------------------------------- */

/* A map is a function of its recipe (fixed per kernel) and of three things
 * a launch supplies: the base address, the extents and the strides.  The
 * kernel remembers the maps its last launch built with those values, so a
 * launch with the same values copies them instead of asking the driver
 * again (cuTensorMapEncodeTiled: three maps cost about as much host time as
 * the launch itself).  Launches of one kernel from several threads never
 * wait: whoever finds the memo in use builds its own maps. */
enum { RT_TMA_MEMO_MAPS = 8, RT_TMA_INPUTS = 1 + 2 * TLC_TMA_MAX_RANK };

struct RtTmaMemo {
  atomic_flag busy;
  bool valid;
  int64_t in[RT_TMA_MEMO_MAPS][RT_TMA_INPUTS];
  CUtensorMap maps[RT_TMA_MEMO_MAPS];
};

/* The values map j's encoding depends on, from this launch's arguments. */
static void rt_tma_inputs(const tlc_kernel *k, int j, const tlc_arg *args, int64_t in[RT_TMA_INPUTS]) {
  const tlc_tma_recipe *t = &k->meta.tma[j];
  memset(in, 0, sizeof(int64_t) * RT_TMA_INPUTS);
  in[0] = (int64_t)args[t->base_param].v.ptr;
  for (int d = 0; d < t->rank && d < TLC_TMA_MAX_RANK; d++) {
    in[1 + d] = rt_tma_value(&t->dims[d], args);
    in[1 + TLC_TMA_MAX_RANK + d] = rt_tma_value(&t->strides[d], args);
  }
}

/* The kernel's maps for this launch into maps[0..nt): from the memo when the
 * last launch's inputs were these, else built (and remembered). */
static tlc_status rt_tma_maps(tlc_kernel *k, const tlc_arg *args, CUtensorMap *maps) {
  int nt = k->meta.ntma;
  struct RtTmaMemo *memo = k->tma_memo;
  int64_t in[RT_TMA_MEMO_MAPS][RT_TMA_INPUTS];
  bool mine = memo && !atomic_flag_test_and_set_explicit(&memo->busy, memory_order_acquire);
  if (mine) {
    for (int j = 0; j < nt; j++) rt_tma_inputs(k, j, args, in[j]);
    if (memo->valid && !memcmp(in, memo->in, sizeof in[0] * (size_t)nt)) {
      memcpy(maps, memo->maps, sizeof *maps * (size_t)nt);
      atomic_flag_clear_explicit(&memo->busy, memory_order_release);
      return TLC_OK;
    }
  }
  tlc_status st = TLC_OK;
  for (int j = 0; j < nt && st == TLC_OK; j++) st = rt_build_tma(k, j, args, &maps[j]);
  if (mine) {
    memo->valid = st == TLC_OK;
    if (memo->valid) {
      memcpy(memo->in, in, sizeof in[0] * (size_t)nt);
      memcpy(memo->maps, maps, sizeof *maps * (size_t)nt);
    }
    atomic_flag_clear_explicit(&memo->busy, memory_order_release);
  }
  return st;
}

/* ---- the launch ---------------------------------------------------------------------------- */

/* The argument kind a parameter takes bit for bit (its value copied, no
 * check to make), and its size; -1 where every argument needs the packer
 * (fp16/bf16 round, narrow integers are range-checked). */
static signed char rt_direct_kind(tlc_param_kind p, unsigned char *size) {
  *size = (unsigned char)tlc_param_kind_size(p);
  switch (p) {
  case TLC_PARAM_PTR: return TLC_ARG_PTR;
  case TLC_PARAM_I32: return TLC_ARG_I32;
  case TLC_PARAM_I64: return TLC_ARG_I64;
  case TLC_PARAM_U32: return TLC_ARG_U32;
  case TLC_PARAM_U64: return TLC_ARG_U64;
  case TLC_PARAM_FP32: return TLC_ARG_FP32;
  case TLC_PARAM_FP64: return TLC_ARG_FP64;
  default: return -1;
  }
}

tlc_status rt_launch_prepare(tlc_kernel *k) {
  int np = k->meta.nparams;
  k->nlogical = rt_desc_logical_params(k);
  k->pack = calloc((size_t)np + 1, sizeof *k->pack);
  if (!k->pack) return rt_fail(k->rt, TLC_ERR_INVALID, "kernel '%s': out of host memory", k->name);
  for (int i = 0; i < np; i++) k->pack[i].kind = rt_direct_kind(k->meta.params[i].kind, &k->pack[i].size);
  if (k->meta.ntma > 0 && k->meta.ntma <= RT_TMA_MEMO_MAPS) {
    k->tma_memo = aligned_alloc(64, (sizeof *k->tma_memo + 63) / 64 * 64);
    if (!k->tma_memo) return rt_fail(k->rt, TLC_ERR_INVALID, "kernel '%s': out of host memory", k->name);
    memset(k->tma_memo, 0, sizeof *k->tma_memo);
    atomic_flag_clear(&k->tma_memo->busy);
  }
  return TLC_OK;
}

enum { RT_STACK_ARGS = 32 };

tlc_status tlc_launch(tlc_kernel *k, unsigned gx, unsigned gy, unsigned gz, tlc_stream stream,
                      const tlc_arg *args, int nargs) {
  if (!k) return TLC_ERR_INVALID;
  tlc_runtime *rt = k->rt;
  tlc_status st = rt_usable(rt);
  if (st != TLC_OK) return st;
  int np = k->meta.nparams;
  if (nargs < 0 || (nargs > 0 && !args))
    return rt_fail(rt, TLC_ERR_INVALID, "kernel '%s': tlc_launch with %s", k->name,
                   nargs < 0 ? "a negative argument count" : "a NULL argument array");
  /* A tensor descriptor is one argument (TLC_DESC) for several parameters,
   * or those parameters' values one by one. */
  bool has_desc = false;
  for (int i = 0; i < nargs; i++) has_desc |= args[i].kind == TLC_ARG_DESC;
  int nl = k->nlogical;
  if (!(nargs == np && !has_desc) && nargs != nl) {
    char desc[512];
    rt_describe_params(k, desc, sizeof desc);
    return rt_fail(rt, TLC_ERR_ARGS, "kernel '%s' takes %d argument%s (%s) but %d %s given",
                   k->name, nl, nl == 1 ? "" : "s", desc, nargs, nargs == 1 ? "was" : "were");
  }

  unsigned grid[3] = {gx, gy, gz};
  for (int d = 0; d < 3; d++) {
    if (grid[d] == 0)
      return rt_fail(rt, TLC_ERR_LAUNCH, "kernel '%s': grid (%u, %u, %u) has a zero %c dimension",
                     k->name, gx, gy, gz, "xyz"[d]);
    if ((long long)grid[d] > (long long)rt->max_grid[d])
      return rt_fail(rt, TLC_ERR_LAUNCH,
                     "kernel '%s': grid %c dimension %u exceeds the limit %d of %s", k->name,
                     "xyz"[d], grid[d], rt->max_grid[d], rt->name);
  }
  tlc_arg *expanded = NULL;
  int *argno = NULL;
  if (nargs != np || has_desc) {
    st = rt_desc_expand(k, args, nargs, &expanded, &argno);
    if (st != TLC_OK) return st;
    args = expanded;
  }

  /* One 8-byte slot per argument holds the value at the parameter's width;
   * the driver copies each parameter's size from its slot. */
  /* The hidden tensor maps follow: built from the packed arguments. */
  int nt = k->meta.ntma;
  uint64_t stack_slots[RT_STACK_ARGS];
  void *stack_ptrs[RT_STACK_ARGS + 8];
  CUtensorMap stack_maps[8];
  uint64_t *slots = stack_slots;
  void **ptrs = stack_ptrs;
  CUtensorMap *maps = stack_maps;
  if (np > RT_STACK_ARGS || nt > 8) {
    slots = calloc((size_t)np + 1, sizeof *slots);
    ptrs = calloc((size_t)(np + nt) + 1, sizeof *ptrs);
    maps = nt > 8 ? aligned_alloc(64, sizeof *maps * (size_t)nt) : stack_maps;
    if (!slots || !ptrs || !maps) {
      free(slots);
      free(ptrs);
      if (maps != stack_maps) free(maps);
      free(expanded), free(argno);
      return rt_fail(rt, TLC_ERR_INVALID, "kernel '%s': out of host memory", k->name);
    }
  }
  for (int i = 0; i < np && st == TLC_OK; i++) {
    slots[i] = 0;
    ptrs[i] = &slots[i];
    if ((int)args[i].kind == k->pack[i].kind) /* the exact kind: the value as it is */
      memcpy(&slots[i], &args[i].v, k->pack[i].size);
    else
      st = rt_pack_arg(k, i, argno ? argno[i] : i, &args[i], (unsigned char *)&slots[i]);
  }
  for (int j = 0; j < nt; j++) ptrs[np + j] = &maps[j];
  if (nt && st == TLC_OK) st = rt_tma_maps(k, args, maps);
  if (st == TLC_OK && rt->cpu) { /* the interpreter, through the hook cpu_jit.c set */
    st = k->cpu_launch ? k->cpu_launch(k, grid, slots)
                       : rt_fail(rt, TLC_ERR_LAUNCH, "kernel '%s' cannot run on the CPU device", k->name);
  } else if (st == TLC_OK) {
    st = rt_enter(rt);
  }
  if (st == TLC_OK && !rt->cpu) {
    CUresult r = rt->drv->cuLaunchKernel(k->fn, gx, gy, gz, 32u * (unsigned)k->meta.num_warps, 1, 1,
                                         (unsigned)k->meta.shared_bytes, (CUstream)stream,
                                         np + nt ? ptrs : NULL, NULL);
    if (r != CUDA_SUCCESS)
      st = rt_fail_cuda(rt, TLC_ERR_LAUNCH, r,
                        "kernel '%s': cuLaunchKernel(grid (%u, %u, %u), %d threads, %d bytes of "
                        "shared memory)",
                        k->name, gx, gy, gz, 32 * k->meta.num_warps, k->meta.shared_bytes);
  }
  if (slots != stack_slots) {
    free(slots);
    free(ptrs);
  }
  if (maps != stack_maps) free(maps);
  free(expanded), free(argno);
  return st;
}
