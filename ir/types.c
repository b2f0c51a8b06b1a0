/* types.c — element types and the interning of scalar, pointer and tensor
 * types (and, in layout.c, of layouts) in an IrContext.
 *
 * Interning makes type equality a pointer comparison.  The table is an open
 * hash keyed by the type's fields; entries live in the module arena. */
#include "ir/ir_internal.h"

#include <math.h>
#include <string.h>

IrContext *ir_context_new(Arena *arena) {
  IrContext *c = ARENA_NEW(arena, IrContext);
  c->arena = arena;
  return c;
}

/* ---- element types -------------------------------------------------------- */

static const struct {
  const char *name;
  int bits;
} dt_table[DT__COUNT] = {
    [DT_I1] = {"i1", 1},       [DT_I8] = {"i8", 8},       [DT_I16] = {"i16", 16},
    [DT_I32] = {"i32", 32},    [DT_I64] = {"i64", 64},    [DT_U8] = {"u8", 8},
    [DT_U16] = {"u16", 16},    [DT_U32] = {"u32", 32},    [DT_U64] = {"u64", 64},
    [DT_F8E4M3] = {"f8e4m3", 8}, [DT_F8E5M2] = {"f8e5m2", 8},
    [DT_F16] = {"f16", 16},    [DT_BF16] = {"bf16", 16},  [DT_F32] = {"f32", 32},
    [DT_F64] = {"f64", 64},    [DT_PTR] = {"ptr", 64},
};

bool dt_is_float(DType d) { return d >= DT_F8E4M3 && d <= DT_F64; }
bool dt_is_int(DType d) { return d <= DT_U64; }
bool dt_is_signed(DType d) { return d >= DT_I8 && d <= DT_I64; }
bool dt_is_unsigned(DType d) { return d == DT_I1 || (d >= DT_U8 && d <= DT_U64); }
int dt_bits(DType d) { return (unsigned)d < DT__COUNT ? dt_table[d].bits : 0; }
const char *dt_name(DType d) { return (unsigned)d < DT__COUNT ? dt_table[d].name : "?"; }

/* The bits of x in an fp8 format, rounded to nearest even and saturated to
 * the largest finite value as the satfinite conversions do (e4m3 has no
 * infinity; NaN is 0x7f in both). */
unsigned dt_fp8_bits(DType d, double x) {
  int mant = d == DT_F8E4M3 ? 3 : 2, bias = d == DT_F8E4M3 ? 7 : 15;
  unsigned maxbits = d == DT_F8E4M3 ? 0x7e : 0x7b; /* 448, 57344 */
  if (x != x) return 0x7f;
  unsigned sign = signbit(x) ? 0x80 : 0;
  double a = fabs(x);
  int e;
  (void)frexp(a, &e); /* a = m * 2^e, 0.5 <= m < 1 */
  int lead = e - 1 < 1 - bias ? 1 - bias : e - 1;
  double q = ldexp(1.0, lead - mant), r = a == 0 ? 0 : nearbyint(a / q) * q;
  double maxv = ldexp(1.0 + (maxbits & ((1u << mant) - 1)) / (double)(1 << mant), (int)(maxbits >> mant) - bias);
  if (r >= maxv || isinf(a)) return sign | maxbits;
  if (r == 0) return sign;
  (void)frexp(r, &e);
  int be = e - 1 + bias; /* biased exponent; 0 for subnormals */
  if (be <= 0) return sign | (unsigned)(r / ldexp(1.0, 1 - bias - mant));
  unsigned m = (unsigned)((r / ldexp(1.0, e - 1) - 1.0) * (1 << mant));
  return sign | (unsigned)be << mant | m;
}

int dt_parse(const char *s) {
  static const struct {
    const char *spelling;
    DType dt;
  } names[] = {
      {"i1", DT_I1},         {"int1", DT_I1},       {"bool", DT_I1},
      {"i8", DT_I8},         {"int8", DT_I8},       {"i16", DT_I16},
      {"int16", DT_I16},     {"i32", DT_I32},       {"int32", DT_I32},
      {"i64", DT_I64},       {"int64", DT_I64},     {"u1", DT_I1},
      {"u8", DT_U8},         {"uint8", DT_U8},      {"u16", DT_U16},
      {"uint16", DT_U16},    {"u32", DT_U32},       {"uint32", DT_U32},
      {"u64", DT_U64},       {"uint64", DT_U64},    {"fp16", DT_F16},
      {"f16", DT_F16},       {"float16", DT_F16},   {"bf16", DT_BF16},
      {"bfloat16", DT_BF16}, {"fp32", DT_F32},      {"f32", DT_F32},
      {"float32", DT_F32},   {"fp64", DT_F64},      {"f64", DT_F64},
      {"float64", DT_F64},   {"fp8e4nv", DT_F8E4M3}, {"fp8e4m3", DT_F8E4M3},
      {"float8e4nv", DT_F8E4M3}, {"float8_e4m3fn", DT_F8E4M3}, {"f8e4m3", DT_F8E4M3},
      {"fp8e5", DT_F8E5M2},  {"fp8e5m2", DT_F8E5M2}, {"float8e5", DT_F8E5M2},
      {"float8_e5m2", DT_F8E5M2}, {"f8e5m2", DT_F8E5M2},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(names[i].spelling, s) == 0) return (int)names[i].dt;
  return -1;
}

/* ---- interning ------------------------------------------------------------ */

static uint64_t type_hash(const Type *t) {
  uint64_t h = hash_bytes(&t->dtype, sizeof t->dtype, 0);
  h = hash_bytes(&t->pointee, sizeof t->pointee, h);
  h = hash_bytes(&t->rank, sizeof t->rank, h);
  h = hash_bytes(t->shape, sizeof(int64_t) * (size_t)t->rank, h);
  return hash_bytes(&t->layout, sizeof t->layout, h);
}

static bool type_same(const Type *a, const Type *b) {
  return a->dtype == b->dtype && a->pointee == b->pointee && a->rank == b->rank &&
         a->layout == b->layout &&
         memcmp(a->shape, b->shape, sizeof(int64_t) * (size_t)a->rank) == 0;
}

static const Type *intern(IrContext *c, const Type *key) {
  if (c->ntypes * 2 >= c->type_cap) {
    uint32_t cap = c->type_cap ? c->type_cap * 2 : 256;
    Type **tab = ARENA_ARRAY(c->arena, Type *, cap);
    for (uint32_t i = 0; i < c->type_cap; i++) {
      Type *t = c->types[i];
      if (!t) continue;
      uint32_t j = (uint32_t)type_hash(t) & (cap - 1);
      while (tab[j]) j = (j + 1) & (cap - 1);
      tab[j] = t;
    }
    c->types = tab, c->type_cap = cap;
  }
  uint32_t j = (uint32_t)type_hash(key) & (c->type_cap - 1);
  while (c->types[j]) {
    if (type_same(c->types[j], key)) return c->types[j];
    j = (j + 1) & (c->type_cap - 1);
  }
  Type *t = arena_dup(c->arena, key, sizeof *key);
  t->id = c->ntypes++;
  c->types[j] = t;
  return t;
}

const Type *ty_scalar(IrContext *c, DType dt) {
  Type k = {.dtype = dt};
  return intern(c, &k);
}

const Type *ty_ptr(IrContext *c, const Type *pointee) {
  Type k = {.dtype = DT_PTR, .pointee = pointee};
  return intern(c, &k);
}

const Type *ty_tensor(IrContext *c, const Type *elem, int rank, const int64_t *shape,
                      const Layout *layout) {
  Type k = {.dtype = elem->dtype, .pointee = elem->pointee, .rank = rank,
            .layout = rank ? layout : NULL};
  for (int i = 0; i < rank; i++) k.shape[i] = shape[i];
  return intern(c, &k);
}

const Type *ty_elem(IrContext *c, const Type *t) {
  return t->rank == 0 ? t : ty_tensor(c, t, 0, NULL, NULL);
}

const Type *ty_with_shape(IrContext *c, const Type *t, int rank, const int64_t *shape) {
  return ty_tensor(c, ty_elem(c, t), rank, shape, rank == t->rank ? t->layout : NULL);
}

const Type *ty_with_layout(IrContext *c, const Type *t, const Layout *layout) {
  return ty_tensor(c, ty_elem(c, t), t->rank, t->shape, layout);
}

const Type *ty_with_elem(IrContext *c, const Type *t, const Type *elem) {
  return ty_tensor(c, elem, t->rank, t->shape, t->layout);
}

int64_t ty_numel(const Type *t) {
  int64_t n = 1;
  for (int i = 0; i < t->rank; i++) n *= t->shape[i];
  return n;
}

int ty_elem_bytes(const Type *t) {
  int bits = dt_bits(t->dtype);
  return bits < 8 ? 1 : bits / 8;
}

tlc_param_kind dt_param_kind(DType d) {
  switch (d) {
  case DT_PTR: return TLC_PARAM_PTR;
  case DT_I1: return TLC_PARAM_I1;
  case DT_I8: return TLC_PARAM_I8;
  case DT_I16: return TLC_PARAM_I16;
  case DT_I32: return TLC_PARAM_I32;
  case DT_I64: return TLC_PARAM_I64;
  case DT_U8: return TLC_PARAM_U8;
  case DT_U16: return TLC_PARAM_U16;
  case DT_U32: return TLC_PARAM_U32;
  case DT_U64: return TLC_PARAM_U64;
  case DT_F16: return TLC_PARAM_FP16;
  case DT_BF16: return TLC_PARAM_BF16;
  case DT_F64: return TLC_PARAM_FP64;
  default: return TLC_PARAM_FP32;
  }
}

int64_t ty_thread_regs(const Type *t, int64_t threads) {
  if (!t->rank || (t->layout && t->layout->kind == LAY_SHARED)) return t->rank ? 0 : 1;
  return (ty_numel(t) * ty_elem_bytes(t) * 8 / threads + 31) / 32;
}

void ty_print(StrBuf *sb, const Type *t) {
  if (t->rank) {
    sb_puts(sb, "tensor<");
    for (int i = 0; i < t->rank; i++) sb_printf(sb, "%lldx", (long long)t->shape[i]);
  }
  if (t->dtype == DT_PTR) {
    sb_puts(sb, "ptr<");
    ty_print(sb, t->pointee);
    sb_putc(sb, '>');
  } else {
    sb_puts(sb, dt_name(t->dtype));
  }
  if (t->rank) {
    if (t->layout) {
      sb_puts(sb, ", ");
      ir_print_layout_ref(sb, t->layout);
    }
    sb_putc(sb, '>');
  }
}
