/* builtins_random.c — Triton's random numbers: tl.randint, tl.randint4x,
 * tl.rand, tl.rand4x, tl.randn, tl.randn4x, tl.philox and the helpers
 * tl.uint_to_uniform_float and tl.pair_uniform_to_normal, composed from
 * ordinary tile-IR ops (umulhi, mul, xor, add, casts, select) so that every
 * pass and layout sees plain integer arithmetic.
 *
 * Bit for bit what Triton's language/random.py computes:
 *
 *  - Philox-4x32 with n_rounds rounds (10 by default, a constexpr): counter
 *    (offset, 0, 0, 0) as uint32, key (seed_lo, seed_hi), the 64-bit seed
 *    (the seed converted to uint64 from its own signedness) split into its
 *    low and high words.  One round:
 *        c0' = umulhi(0xCD9E8D57, c2) ^ c1 ^ k0     c1' = 0xCD9E8D57 * c2
 *        c2' = umulhi(0xD2511F53, c0) ^ c3 ^ k1     c3' = 0xD2511F53 * c0
 *        k0 += 0x9E3779B9                           k1 += 0xBB67AE85
 *    A 64-bit offset is the counter (offset_lo, offset_hi, 0, 0), still
 *    Philox-4x32 (Triton 3.x's randint4x); tl.philox given 64-bit counters
 *    runs Philox-4x64: counters as uint64, key (seed, 0), the 64-bit round
 *    and key constants below.  The four words are uint32 tensors of the
 *    offset's shape (uint64 from tl.philox on 64-bit counters); randint is
 *    the first.
 *  - uniform floats: the word as a signed integer x, x < 0 mapped to -x - 1,
 *    converted to fp32 (round to nearest) and multiplied in fp32 by
 *    4.6566127342e-10 (1.0842020432385337e-19 for 64-bit words): [0, 1).
 *  - normals (Box-Muller on the first two uniforms): u1 = max(1e-7, u1),
 *    th = 6.283185307179586 * u2, r = sqrt(-2 log u1) with the fast sqrt
 *    (tl.sqrt), n = r cos(th) (and r sin(th)), log/cos/sin the accurate
 *    libdevice functions (correctly rounded ones here: MATHFN log/cos/sin).
 */
#include "spec/builtins.h"

#include <string.h>

enum { N_ROUNDS_DEFAULT = 10 };

static const uint64_t key_a32 = 0x9E3779B9u, key_b32 = 0xBB67AE85u;
static const uint64_t round_a32 = 0xD2511F53u, round_b32 = 0xCD9E8D57u;
static const uint64_t key_a64 = 0x9E3779B97F4A7C15ull, key_b64 = 0xBB67AE8584CAA73Bull;
static const uint64_t round_a64 = 0xD2E7470EE14C6C93ull, round_b64 = 0xCA5A826395121157ull;

static Value *cst(Spec *s, const Type *t, uint64_t v) { return irb_const_int(&s->b, t, (int64_t)v); }

/* a OP b, either may be a scalar next to a tensor (broadcast first). */
static Value *bin(Spec *s, OpKind k, Value *a, Value *b, Loc loc) {
  if (!a || !b || !spec_broadcast_pair(s, &a, &b, loc, "philox")) return NULL;
  spec_at(s, loc);
  return irb_binary(&s->b, k, a, b);
}

static bool n_rounds_arg(Spec *s, SVal *v, Loc loc, int64_t *n) {
  *n = N_ROUNDS_DEFAULT;
  if (!v || v->kind == SV_NONE) return true;
  if (!sv_const_int(s, v, loc, "n_rounds", n)) return false;
  if (*n < 0 || *n > 64) {
    spec_error(s, loc, "n_rounds must be between 0 and 64, not %lld", (long long)*n);
    return false;
  }
  return true;
}

/* The counters as unsigned words of their width (32 or 64 bits, the first
 * counter's); false after reporting. */
static bool counter_words(Spec *s, SVal **cv, Loc *locs, Value **c, const Type **word) {
  IrContext *ctx = bi_ctx(s);
  for (int i = 0; i < 4; i++) {
    c[i] = bi_need_tensor(s, cv[i], locs[i], "the counter");
    if (!c[i]) return false;
    DType d = c[i]->type->dtype;
    if (!dt_is_int(d) || d == DT_I1 || (dt_bits(d) != 32 && dt_bits(d) != 64)) {
      spec_error(s, locs[i], "philox counters (offsets) must be 32- or 64-bit integers, not %s", dt_name(d));
      return false;
    }
  }
  int bits = dt_bits(c[0]->type->dtype);
  *word = ty_scalar(ctx, bits == 32 ? DT_U32 : DT_U64);
  for (int i = 0; i < 4; i++) {
    if (dt_bits(c[i]->type->dtype) != bits) {
      spec_error(s, locs[i], "philox counters must all have the first one's width (%d bits)", bits);
      return false;
    }
    c[i] = spec_bitcast(s, c[i], *word, locs[i]);
    if (!c[i]) return false;
  }
  return true;
}

/* Philox over counters c[0..3] (unsigned words) with the key from `seed`;
 * c[] is replaced by the result.  false after reporting. */
static bool philox(Spec *s, SVal *seed_v, Value **c, const Type *word, int64_t n_rounds, Loc seed_loc, Loc loc) {
  IrContext *ctx = bi_ctx(s);
  Value *seed = bi_need_tensor(s, seed_v, seed_loc, "the seed");
  if (!seed) return false;
  if (!dt_is_int(seed->type->dtype) || seed->type->dtype == DT_I1) {
    spec_error(s, seed_loc, "the seed must be an integer, not %s", dt_name(seed->type->dtype));
    return false;
  }
  const Type *u64 = ty_scalar(ctx, DT_U64);
  seed = spec_cast(s, seed, u64, seed_loc);
  bool wide = word->dtype == DT_U64;
  Value *k0, *k1;
  spec_at(s, loc);
  if (wide) {
    k0 = seed;
    k1 = cst(s, u64, 0);
  } else {
    k0 = spec_cast(s, seed, word, loc); /* the low word */
    Value *hi = irb_binary(&s->b, OP_SHR, seed, cst(s, seed->type, 32));
    k1 = spec_cast(s, hi, word, loc);
  }
  const uint64_t ra = wide ? round_a64 : round_a32, rb = wide ? round_b64 : round_b32;
  const uint64_t ka = wide ? key_a64 : key_a32, kb = wide ? key_b64 : key_b32;
  for (int64_t r = 0; r < n_rounds; r++) {
    spec_at(s, loc);
    Value *c0 = c[0], *c2 = c[2];
    Value *hi_b = irb_binary(&s->b, OP_UMULHI, cst(s, c2->type, rb), c2);
    Value *hi_a = irb_binary(&s->b, OP_UMULHI, cst(s, c0->type, ra), c0);
    Value *n0 = bin(s, OP_XOR, bin(s, OP_XOR, hi_b, c[1], loc), k0, loc);
    Value *n2 = bin(s, OP_XOR, bin(s, OP_XOR, hi_a, c[3], loc), k1, loc);
    spec_at(s, loc);
    Value *n1 = irb_binary(&s->b, OP_MUL, cst(s, c2->type, rb), c2);
    Value *n3 = irb_binary(&s->b, OP_MUL, cst(s, c0->type, ra), c0);
    if (!n0 || !n2) return false;
    c[0] = n0, c[1] = n1, c[2] = n2, c[3] = n3;
    k0 = irb_binary(&s->b, OP_ADD, k0, cst(s, k0->type, ka));
    k1 = irb_binary(&s->b, OP_ADD, k1, cst(s, k1->type, kb));
  }
  /* the four words in one shape (a tensor seed broadcasts the counters) */
  for (int i = 1; i < 4; i++)
    if (!spec_broadcast_pair(s, &c[0], &c[i], loc, "philox")) return false;
  for (int i = 1; i < 4; i++)
    if (!spec_broadcast_pair(s, &c[i], &c[0], loc, "philox")) return false;
  return true;
}

/* randint4x(seed, offset): Philox-4x32 over the counter (offset, 0, 0, 0);
 * a 64-bit offset is split into its words, (lo, hi, 0, 0), as Triton 3.x
 * does (so 64-bit offsets continue the 32-bit stream: an offset below 2^32
 * draws what the same offset as i32 draws). */
static bool randint4x(Spec *s, SVal **v, CallArgs *a, Value **c) {
  int64_t n;
  if (!n_rounds_arg(s, v[2], bi_argloc(a, 2), &n)) return false;
  Loc off_loc = bi_argloc(a, 1);
  SVal *cv[4] = {v[1], v[1], v[1], v[1]};
  Loc locs[4] = {off_loc, off_loc, off_loc, off_loc};
  const Type *word;
  if (!counter_words(s, cv, locs, c, &word)) return false;
  spec_at(s, a->loc);
  Value *hi = NULL;
  if (word->dtype == DT_U64) {
    const Type *u32 = ty_scalar(bi_ctx(s), DT_U32);
    hi = spec_cast(s, irb_binary(&s->b, OP_SHR, c[0], cst(s, c[0]->type, 32)), u32, off_loc);
    c[0] = spec_cast(s, c[0], u32, off_loc);
    if (!hi || !c[0]) return false;
    word = u32;
    spec_at(s, a->loc);
  }
  for (int i = 1; i < 4; i++) c[i] = cst(s, c[0]->type, 0);
  if (hi) c[1] = hi;
  return philox(s, v[0], c, word, n, bi_argloc(a, 0), a->loc);
}

/* A random word as a uniform fp32 in [0, 1). */
static Value *to_uniform(Spec *s, Value *x, Loc loc) {
  IrContext *ctx = bi_ctx(s);
  DType d = x->type->dtype;
  if (!dt_is_int(d) || d == DT_I1 || (dt_bits(d) != 32 && dt_bits(d) != 64)) {
    spec_error(s, loc, "tl.uint_to_uniform_float needs 32- or 64-bit integers, not %s", dt_name(d));
    return NULL;
  }
  bool wide = dt_bits(d) == 64;
  x = spec_bitcast(s, x, ty_scalar(ctx, wide ? DT_I64 : DT_I32), loc);
  spec_at(s, loc);
  Value *neg = irb_cmp(&s->b, CMP_LT, x, cst(s, x->type, 0));
  Value *flipped = irb_binary(&s->b, OP_SUB, irb_unary(&s->b, OP_NEG, x), cst(s, x->type, 1));
  x = irb_select(&s->b, neg, flipped, x);
  Value *f = spec_cast(s, x, ty_scalar(ctx, DT_F32), loc);
  spec_at(s, loc);
  return irb_binary(&s->b, OP_MUL, f, irb_const_float(&s->b, f->type, wide ? 1.0842020432385337e-19 : 4.6566127342e-10));
}

static Value *mathfn(Spec *s, MathFn fn, Value *x) {
  Op *op = irb_op(&s->b, OP_MATHFN, &x, 1, x->type);
  op->attr.fn = fn;
  return op->results[0];
}

/* Box-Muller: (r cos th, r sin th) of two uniform fp32 tensors. */
static bool to_normal(Spec *s, Value *u1, Value *u2, Loc loc, Value **n1, Value **n2) {
  IrContext *ctx = bi_ctx(s);
  const Type *f32 = ty_scalar(ctx, DT_F32);
  if (!dt_is_float(u1->type->dtype) || !dt_is_float(u2->type->dtype)) {
    spec_error(s, loc, "tl.pair_uniform_to_normal needs floating-point uniforms");
    return false;
  }
  u1 = spec_cast(s, u1, f32, loc), u2 = spec_cast(s, u2, f32, loc);
  if (!u1 || !u2 || !spec_broadcast_pair(s, &u1, &u2, loc, "pair_uniform_to_normal")) return false;
  spec_at(s, loc);
  u1 = irb_binary(&s->b, OP_MAX, irb_const_float(&s->b, u1->type, 1.0e-7), u1);
  Value *th = irb_binary(&s->b, OP_MUL, irb_const_float(&s->b, u2->type, 6.283185307179586), u2);
  Value *t = irb_binary(&s->b, OP_MUL, irb_const_float(&s->b, u1->type, -2.0), mathfn(s, MF_LOG, u1));
  Value *r = irb_unary(&s->b, OP_SQRT, t); /* tl.sqrt: the fast square root, as Triton's */
  *n1 = irb_binary(&s->b, OP_MUL, r, mathfn(s, MF_COS, th));
  if (n2) *n2 = irb_binary(&s->b, OP_MUL, r, mathfn(s, MF_SIN, th));
  return true;
}

static SVal *tuple4(Spec *s, Value **x) {
  SVal *items[4];
  for (int i = 0; i < 4; i++) items[i] = sv_tensor(s, x[i]);
  return sv_tuple(s, items, 4, false);
}

/* ---- the builtins ---------------------------------------------------------------- */

SVal *b_randint4x(Spec *s, SVal **v, CallArgs *a) {
  Value *c[4];
  return randint4x(s, v, a, c) ? tuple4(s, c) : s->poison;
}

SVal *b_randint(Spec *s, SVal **v, CallArgs *a) {
  Value *c[4];
  return randint4x(s, v, a, c) ? sv_tensor(s, c[0]) : s->poison;
}

SVal *b_rand(Spec *s, SVal **v, CallArgs *a) {
  Value *c[4];
  if (!randint4x(s, v, a, c)) return s->poison;
  Value *u = to_uniform(s, c[0], a->loc);
  return u ? sv_tensor(s, u) : s->poison;
}

SVal *b_rand4x(Spec *s, SVal **v, CallArgs *a) {
  Value *c[4];
  if (!randint4x(s, v, a, c)) return s->poison;
  for (int i = 0; i < 4; i++)
    if (!(c[i] = to_uniform(s, c[i], a->loc))) return s->poison;
  return tuple4(s, c);
}

SVal *b_randn(Spec *s, SVal **v, CallArgs *a) {
  Value *c[4], *n;
  if (!randint4x(s, v, a, c)) return s->poison;
  Value *u1 = to_uniform(s, c[0], a->loc), *u2 = to_uniform(s, c[1], a->loc);
  if (!u1 || !u2 || !to_normal(s, u1, u2, a->loc, &n, NULL)) return s->poison;
  return sv_tensor(s, n);
}

SVal *b_randn4x(Spec *s, SVal **v, CallArgs *a) {
  Value *c[4], *n[4];
  if (!randint4x(s, v, a, c)) return s->poison;
  for (int i = 0; i < 4; i++)
    if (!(c[i] = to_uniform(s, c[i], a->loc))) return s->poison;
  if (!to_normal(s, c[0], c[1], a->loc, &n[0], &n[1]) || !to_normal(s, c[2], c[3], a->loc, &n[2], &n[3]))
    return s->poison;
  return tuple4(s, n);
}

SVal *b_philox(Spec *s, SVal **v, CallArgs *a) {
  int64_t n;
  if (!n_rounds_arg(s, v[5], bi_argloc(a, 5), &n)) return s->poison;
  Value *c[4];
  Loc locs[4] = {bi_argloc(a, 1), bi_argloc(a, 2), bi_argloc(a, 3), bi_argloc(a, 4)};
  const Type *word;
  if (!counter_words(s, v + 1, locs, c, &word)) return s->poison;
  for (int i = 1; i < 4; i++)
    if (!spec_broadcast_pair(s, &c[0], &c[i], a->loc, "philox")) return s->poison;
  return philox(s, v[0], c, word, n, bi_argloc(a, 0), a->loc) ? tuple4(s, c) : s->poison;
}

SVal *b_uint_to_uniform_float(Spec *s, SVal **v, CallArgs *a) {
  Value *x = bi_need_tensor(s, v[0], bi_argloc(a, 0), "x");
  if (!x) return s->poison;
  Value *u = to_uniform(s, x, a->loc);
  return u ? sv_tensor(s, u) : s->poison;
}

SVal *b_pair_uniform_to_normal(Spec *s, SVal **v, CallArgs *a) {
  Value *u1 = bi_need_tensor(s, v[0], bi_argloc(a, 0), "u1");
  Value *u2 = bi_need_tensor(s, v[1], bi_argloc(a, 1), "u2");
  Value *n[2];
  if (!u1 || !u2 || !to_normal(s, u1, u2, a->loc, &n[0], &n[1])) return s->poison;
  SVal *items[2] = {sv_tensor(s, n[0]), sv_tensor(s, n[1])};
  return sv_tuple(s, items, 2, false);
}
