/* test_interp.c — the CPU interpreter through the runtime's CPU device
 * (TLC_DEVICE_CPU): its memory checker's located errors, and ops against
 * references computed here on fresh random inputs, outputs poisoned first.
 *
 *   memory    out-of-bounds load and store, a misaligned pointer, a copy
 *             past an allocation: the messages, exactly where they matter
 *   casts     fp32 -> fp16 (C's _Float16), bf16, fp8e4nv / fp8e5 (the
 *             examples' converters), fp32 -> int32 saturating
 *   integers  div, rem, shr, min, umulhi, xor on random i32 / u32
 *   reduce    sum (fp32, within rounding), max, argmax, cumsum (exact)
 *   shapes    trans, flip, sort, gather, histogram, expand/broadcast
 *   dot       fp32 "ieee": bit for bit fmaf in k order; int8 exact
 *   atomics   atomic_add counts, atomic_max
 *   random    tl.rand / tl.randint against Philox-4x32-10 written here
 *   unary     exp, log, sqrt, sigmoid within 4 ulp of libm
 *   inverse   libdevice.erfinv, erfcinv, normcdfinv (fp32 and fp64): erf,
 *             erfc of the result give the input back (libm, double) */
#include "runtime/tlc_runtime.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "examples/common/host.h"
#include "test_util.h"

static tlc_runtime *rt;
static uint64_t rng = 88172645463325252ull;

static uint32_t rnd(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (uint32_t)(rng >> 16);
}
static float rndf(float lo, float hi) { return lo + (hi - lo) * (float)(rnd() & 0xffffff) / 16777216.0f; }

static const char *HEAD = "import triton\nimport triton.language as tl\n\n@triton.jit\n";

static tlc_kernel *kernel(const char *body, const char *name, const char *sig) {
  char src[8192];
  snprintf(src, sizeof src, "%s%s", HEAD, body);
  tlc_kernel *k = NULL;
  tlc_status st = tlc_kernel_from_source(rt, src, "k.tile", name, sig, NULL, &k);
  CHECK(st == TLC_OK, "%s: %s", name, tlc_runtime_error(rt));
  return k;
}

static tlc_devptr dev(const void *host, size_t bytes) {
  tlc_devptr p = 0;
  OK(rt, tlc_malloc(rt, bytes, &p));
  if (host) OK(rt, tlc_memcpy_htod(rt, p, host, bytes));
  else OK(rt, tlc_memset_d8(rt, p, 0xff, bytes)); /* poison */
  return p;
}

static void get(void *host, tlc_devptr p, size_t bytes) { OK(rt, tlc_memcpy_dtoh(rt, host, p, bytes)); }

/* ---- memory ------------------------------------------------------------------------ */

static void test_memory(void) {
  tlc_kernel *k = kernel("def copy(x_ptr, y_ptr, BLOCK: tl.constexpr):\n"
                         "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                         "    tl.store(y_ptr + o, tl.load(x_ptr + o))\n",
                         "copy", "*fp32,*fp32,256");
  if (!k) return;
  float x[1024];
  for (int i = 0; i < 1024; i++) x[i] = rndf(-1, 1);
  tlc_devptr dx = dev(x, sizeof x), dy = dev(NULL, 8192);
  tlc_arg args[] = {TLC_PTR(dx), TLC_PTR(dy)};
  OK(rt, tlc_launch(k, 4, 1, 1, NULL, args, 2));
  float y[1024];
  get(y, dy, sizeof y);
  CHECK(!memcmp(x, y, sizeof x), "the copy in bounds");
  EXPECT(rt, tlc_launch(k, 5, 1, 1, NULL, args, 2), TLC_ERR_CUDA,
         "k.tile:7:25: error: out-of-bounds load of x_ptr + 4096 (allocation of 4096 bytes) in program (4, 0, 0), "
         "element [0] of the tile");
  CHECK_CONTAINS(tlc_runtime_error(rt), "tl.store(y_ptr + o, tl.load(x_ptr + o))");
  tlc_arg swapped[] = {TLC_PTR(dy), TLC_PTR(dx)};
  EXPECT(rt, tlc_launch(k, 5, 1, 1, NULL, swapped, 2), TLC_ERR_CUDA,
         "error: out-of-bounds store of y_ptr + 4096 (allocation of 4096 bytes) in program (4, 0, 0)");
  tlc_arg odd[] = {TLC_PTR(dx + 2), TLC_PTR(dy)};
  EXPECT(rt, tlc_launch(k, 1, 1, 1, NULL, odd, 2), TLC_ERR_CUDA,
         "error: misaligned load of x_ptr + 2 (a 4-byte element needs 4-byte alignment) in program (0, 0, 0)");
  EXPECT(rt, tlc_memcpy_htod(rt, dx + 4000, x, 200), TLC_ERR_INVALID, "104 bytes past the end of its allocation");
  tlc_free(rt, dx), tlc_free(rt, dy);
}

/* ---- casts ------------------------------------------------------------------------ */

static uint16_t bf16_ref(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

static void test_casts(void) {
  tlc_kernel *k = kernel("def casts(x_ptr, h_ptr, b_ptr, e4_ptr, e5_ptr, i_ptr, BLOCK: tl.constexpr):\n"
                         "    o = tl.arange(0, BLOCK)\n"
                         "    x = tl.load(x_ptr + o)\n"
                         "    tl.store(h_ptr + o, x.to(tl.float16))\n"
                         "    tl.store(b_ptr + o, x.to(tl.bfloat16))\n"
                         "    tl.store(e4_ptr + o, x.to(tl.float8e4nv))\n"
                         "    tl.store(e5_ptr + o, x.to(tl.float8e5))\n"
                         "    tl.store(i_ptr + o, (x * 1e9).to(tl.int32))\n",
                         "casts", "*fp32,*fp16,*bf16,*fp8e4nv,*fp8e5,*i32,1024");
  if (!k) return;
  enum { N = 1024 };
  float x[N];
  for (int i = 0; i < N; i++) x[i] = i < 8 ? (float[]){0.f, -0.f, 65520.f, 1e-8f, 500.f, -1e6f, 448.f, 3.0e-5f}[i]
                                           : rndf(-3, 3) * (float)pow(2.0, (int)(rnd() % 40) - 20);
  tlc_devptr dx = dev(x, sizeof x), dh = dev(NULL, 2 * N), db = dev(NULL, 2 * N), d4 = dev(NULL, N), d5 = dev(NULL, N),
             di = dev(NULL, 4 * N);
  tlc_arg args[] = {TLC_PTR(dx), TLC_PTR(dh), TLC_PTR(db), TLC_PTR(d4), TLC_PTR(d5), TLC_PTR(di)};
  OK(rt, tlc_launch(k, 1, 1, 1, NULL, args, 6));
  uint16_t h[N], b[N];
  uint8_t e4[N], e5[N];
  int32_t iv[N];
  get(h, dh, sizeof h), get(b, db, sizeof b), get(e4, d4, sizeof e4), get(e5, d5, sizeof e5), get(iv, di, sizeof iv);
  int bad_h = 0, bad_b = 0, bad_8 = 0, bad_i = 0;
  for (int i = 0; i < N; i++) {
    _Float16 r = (_Float16)x[i];
    uint16_t rb;
    memcpy(&rb, &r, 2);
    bad_h += rb != h[i];
    bad_b += bf16_ref(x[i]) != b[i];
    bad_8 += ex_f32_to_f8(x[i], false) != e4[i] || ex_f32_to_f8(x[i], true) != e5[i];
    double s = (double)(x[i] * 1e9f);
    int32_t ri = s >= 2147483647.0 ? INT32_MAX : s <= -2147483648.0 ? INT32_MIN : (int32_t)s;
    bad_i += ri != iv[i];
  }
  CHECK(bad_h == 0, "%d fp16 roundings differ from _Float16", bad_h);
  CHECK(bad_b == 0, "%d bf16 roundings differ", bad_b);
  CHECK(bad_8 == 0, "%d fp8 roundings differ from the examples' converters", bad_8);
  CHECK(bad_i == 0, "%d fp32 -> int32 conversions differ (saturating)", bad_i);
  tlc_free(rt, dx), tlc_free(rt, dh), tlc_free(rt, db), tlc_free(rt, d4), tlc_free(rt, d5), tlc_free(rt, di);
}

/* ---- integers ------------------------------------------------------------------------ */

static void test_integers(void) {
  tlc_kernel *k = kernel("def ints(a_ptr, b_ptr, u_ptr, out_ptr, BLOCK: tl.constexpr):\n"
                         "    o = tl.arange(0, BLOCK)\n"
                         "    a = tl.load(a_ptr + o)\n"
                         "    b = tl.load(b_ptr + o)\n"
                         "    u = tl.load(u_ptr + o)\n"
                         "    tl.store(out_ptr + o * 6 + 0, a // b)\n"
                         "    tl.store(out_ptr + o * 6 + 1, a % b)\n"
                         "    tl.store(out_ptr + o * 6 + 2, a >> (b & 31))\n"
                         "    tl.store(out_ptr + o * 6 + 3, tl.minimum(a, b))\n"
                         "    tl.store(out_ptr + o * 6 + 4, tl.umulhi(u, u + 7).to(tl.int32, bitcast=True))\n"
                         "    tl.store(out_ptr + o * 6 + 5, (a ^ b) + a * b)\n",
                         "ints", "*i32,*i32,*u32,*i32,512");
  if (!k) return;
  enum { N = 512 };
  int32_t a[N], b[N], out[6 * N];
  uint32_t u[N];
  for (int i = 0; i < N; i++) {
    a[i] = (int32_t)rnd() >> (rnd() % 20);
    b[i] = (int32_t)rnd() >> (rnd() % 28);
    if (b[i] == 0) b[i] = 3;
    u[i] = rnd();
  }
  tlc_devptr da = dev(a, sizeof a), db = dev(b, sizeof b), du = dev(u, sizeof u), dout = dev(NULL, sizeof out);
  tlc_arg args[] = {TLC_PTR(da), TLC_PTR(db), TLC_PTR(du), TLC_PTR(dout)};
  OK(rt, tlc_launch(k, 1, 1, 1, NULL, args, 4));
  get(out, dout, sizeof out);
  int bad = 0;
  for (int i = 0; i < N; i++) {
    /* Triton's // and % on ints truncate toward zero, as C does */
    int32_t want[6] = {b[i] == -1 ? (int32_t)(0u - (uint32_t)a[i]) : a[i] / b[i], b[i] == -1 ? 0 : a[i] % b[i],
                       a[i] >> (b[i] & 31), a[i] < b[i] ? a[i] : b[i],
                       (int32_t)(uint32_t)(((uint64_t)u[i] * (uint32_t)(u[i] + 7)) >> 32),
                       (int32_t)((uint32_t)(a[i] ^ b[i]) + (uint32_t)a[i] * (uint32_t)b[i])};
    for (int j = 0; j < 6; j++) bad += out[6 * i + j] != want[j];
  }
  CHECK(bad == 0, "%d integer results differ", bad);
  tlc_free(rt, da), tlc_free(rt, db), tlc_free(rt, du), tlc_free(rt, dout);
}

/* ---- reductions, scans, shapes ---------------------------------------------------------- */

static void test_reduce_and_shapes(void) {
  tlc_kernel *k = kernel("def red(x_ptr, i_ptr, s_ptr, m_ptr, a_ptr, c_ptr, t_ptr, f_ptr, so_ptr, g_ptr, h_ptr,\n"
                         "        R: tl.constexpr, C: tl.constexpr):\n"
                         "    r = tl.arange(0, R)\n"
                         "    c = tl.arange(0, C)\n"
                         "    x = tl.load(x_ptr + r[:, None] * C + c[None, :])\n"
                         "    xi = tl.load(i_ptr + r[:, None] * C + c[None, :])\n"
                         "    tl.store(s_ptr + r, tl.sum(x, axis=1))\n"
                         "    tl.store(m_ptr + c, tl.max(x, axis=0))\n"
                         "    tl.store(a_ptr + r, tl.argmax(xi, axis=1))\n"
                         "    tl.store(c_ptr + r[:, None] * C + c[None, :], tl.cumsum(xi, axis=1))\n"
                         "    tl.store(t_ptr + c[:, None] * R + r[None, :], tl.trans(x))\n"
                         "    tl.store(f_ptr + r[:, None] * C + c[None, :], tl.flip(xi, 1))\n"
                         "    tl.store(so_ptr + r[:, None] * C + c[None, :], tl.sort(xi, 1))\n"
                         "    idx = (xi & (C - 1))\n"
                         "    tl.store(g_ptr + r[:, None] * C + c[None, :], tl.gather(xi, idx, 1))\n"
                         "    tl.store(h_ptr + c, tl.histogram(tl.reshape(xi & (C - 1), (R * C,)), C))\n",
                         "red", "*fp32,*i32,*fp32,*fp32,*i32,*i32,*fp32,*i32,*i32,*i32,*i32,16,32");
  if (!k) return;
  enum { R = 16, C = 32 };
  float x[R * C], s[R], m[C], t[R * C];
  int32_t xi[R * C], a[R], cs[R * C], f[R * C], so[R * C], g[R * C], h[C];
  for (int i = 0; i < R * C; i++) x[i] = rndf(-10, 10), xi[i] = (int32_t)(rnd() % 200) - 100;
  tlc_devptr dx = dev(x, sizeof x), di = dev(xi, sizeof xi), ds = dev(NULL, sizeof s), dm = dev(NULL, sizeof m),
             da = dev(NULL, sizeof a), dc = dev(NULL, sizeof cs), dt = dev(NULL, sizeof t), df = dev(NULL, sizeof f),
             dso = dev(NULL, sizeof so), dg = dev(NULL, sizeof g), dh = dev(NULL, sizeof h);
  tlc_arg args[] = {TLC_PTR(dx), TLC_PTR(di), TLC_PTR(ds), TLC_PTR(dm), TLC_PTR(da), TLC_PTR(dc),
                    TLC_PTR(dt), TLC_PTR(df), TLC_PTR(dso), TLC_PTR(dg), TLC_PTR(dh)};
  OK(rt, tlc_launch(k, 1, 1, 1, NULL, args, 11));
  get(s, ds, sizeof s), get(m, dm, sizeof m), get(a, da, sizeof a), get(cs, dc, sizeof cs), get(t, dt, sizeof t);
  get(f, df, sizeof f), get(so, dso, sizeof so), get(g, dg, sizeof g), get(h, dh, sizeof h);
  int bad = 0, hist[C] = {0};
  for (int i = 0; i < R; i++) {
    double sum = 0;
    int best = 0, run = 0;
    int32_t sorted[C];
    memcpy(sorted, xi + i * C, sizeof sorted);
    for (int p = 1; p < C; p++) /* insertion sort */
      for (int q = p; q > 0 && sorted[q - 1] > sorted[q]; q--) {
        int32_t tmp = sorted[q];
        sorted[q] = sorted[q - 1], sorted[q - 1] = tmp;
      }
    for (int j = 0; j < C; j++) {
      sum += x[i * C + j];
      if (xi[i * C + j] > xi[i * C + best]) best = j;
      run += xi[i * C + j];
      bad += cs[i * C + j] != run;
      bad += t[j * R + i] != x[i * C + j];
      bad += f[i * C + j] != xi[i * C + C - 1 - j];
      bad += so[i * C + j] != sorted[j];
      bad += g[i * C + j] != xi[i * C + (xi[i * C + j] & (C - 1))];
      hist[xi[i * C + j] & (C - 1)]++;
    }
    bad += fabs(s[i] - sum) > 1e-5 * (1 + fabs(sum));
    bad += a[i] != best;
  }
  for (int j = 0; j < C; j++) {
    float mx = -INFINITY;
    for (int i = 0; i < R; i++) mx = fmaxf(mx, x[i * C + j]);
    bad += m[j] != mx;
    bad += h[j] != hist[j];
  }
  CHECK(bad == 0, "%d results of reductions, scans and shape ops differ", bad);
  tlc_devptr all[] = {dx, di, ds, dm, da, dc, dt, df, dso, dg, dh};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) tlc_free(rt, all[i]);
}

/* ---- dot, atomics ---------------------------------------------------------------------- */

static void test_dot_and_atomics(void) {
  tlc_kernel *k = kernel("def mm(a_ptr, b_ptr, c_ptr, cnt_ptr, mx_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):\n"
                         "    m = tl.arange(0, M)\n"
                         "    n = tl.arange(0, N)\n"
                         "    k = tl.arange(0, K)\n"
                         "    a = tl.load(a_ptr + m[:, None] * K + k[None, :])\n"
                         "    b = tl.load(b_ptr + k[:, None] * N + n[None, :])\n"
                         "    acc = tl.dot(a, b, input_precision=\"ieee\")\n"
                         "    tl.store(c_ptr + m[:, None] * N + n[None, :], acc)\n"
                         "    tl.atomic_add(cnt_ptr + (n % 4), 1)\n"
                         "    tl.atomic_max(mx_ptr + tl.program_id(0) * 0, tl.program_id(0) * 7 % 5)\n",
                         "mm", "*fp32,*fp32,*fp32,*i32,*i32,16,32,64");
  if (!k) return;
  enum { M = 16, N = 32, K = 64, G = 6 };
  float a[M * K], b[K * N], c[M * N];
  for (int i = 0; i < M * K; i++) a[i] = rndf(-1, 1);
  for (int i = 0; i < K * N; i++) b[i] = rndf(-1, 1);
  int32_t zero[4] = {0, 0, 0, 0}, cnt[4], mx = -1;
  tlc_devptr da = dev(a, sizeof a), db = dev(b, sizeof b), dc = dev(NULL, sizeof c), dn = dev(zero, sizeof zero),
             dm = dev(zero, 4);
  tlc_arg args[] = {TLC_PTR(da), TLC_PTR(db), TLC_PTR(dc), TLC_PTR(dn), TLC_PTR(dm)};
  OK(rt, tlc_launch(k, G, 1, 1, NULL, args, 5));
  get(c, dc, sizeof c), get(cnt, dn, sizeof cnt), get(&mx, dm, 4);
  int bad = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float s = 0;
      for (int q = 0; q < K; q++) s = fmaf(a[i * K + q], b[q * N + j], s);
      bad += memcmp(&s, &c[i * N + j], 4) != 0;
    }
  CHECK(bad == 0, "%d fp32 dot results differ from fmaf in k order", bad);
  for (int j = 0; j < 4; j++) CHECK(cnt[j] == G * N / 4, "atomic_add count %d: %d", j, cnt[j]);
  CHECK(mx == 4, "atomic_max: %d", mx);
  tlc_free(rt, da), tlc_free(rt, db), tlc_free(rt, dc), tlc_free(rt, dn), tlc_free(rt, dm);
}

/* ---- random numbers: Philox-4x32, 10 rounds, as Triton's random.py ---------------------- */

static void philox(uint32_t seed_lo, uint32_t seed_hi, uint32_t c[4]) {
  uint32_t k0 = seed_lo, k1 = seed_hi;
  for (int r = 0; r < 10; r++) {
    uint32_t a0 = c[0], a2 = c[2];
    c[0] = (uint32_t)(((uint64_t)0xCD9E8D57u * a2) >> 32) ^ c[1] ^ k0;
    c[2] = (uint32_t)(((uint64_t)0xD2511F53u * a0) >> 32) ^ c[3] ^ k1;
    c[1] = 0xCD9E8D57u * a2;
    c[3] = 0xD2511F53u * a0;
    k0 += 0x9E3779B9u, k1 += 0xBB67AE85u;
  }
}

static void test_random(void) {
  tlc_kernel *k = kernel("def rng(u_ptr, i_ptr, seed, BLOCK: tl.constexpr):\n"
                         "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                         "    tl.store(u_ptr + o, tl.rand(seed, o))\n"
                         "    tl.store(i_ptr + o, tl.randint(seed, o))\n",
                         "rng", "*fp32,*u32,i32,256");
  if (!k) return;
  enum { N = 1024 };
  float u[N];
  uint32_t iv[N];
  int32_t seed = (int32_t)(rnd() & 0x7fffffff);
  tlc_devptr du = dev(NULL, sizeof u), di = dev(NULL, sizeof iv);
  tlc_arg args[] = {TLC_PTR(du), TLC_PTR(di), TLC_I32(seed)};
  OK(rt, tlc_launch(k, N / 256, 1, 1, NULL, args, 3));
  get(u, du, sizeof u), get(iv, di, sizeof iv);
  int bad = 0;
  for (int i = 0; i < N; i++) {
    uint32_t c[4] = {(uint32_t)i, 0, 0, 0};
    philox((uint32_t)seed, 0, c);
    int32_t x = (int32_t)c[0];
    float want = (float)(x < 0 ? -x - 1 : x) * 4.6566127342e-10f;
    bad += iv[i] != c[0] || u[i] != want;
  }
  CHECK(bad == 0, "%d random numbers differ from Philox-4x32-10", bad);
  tlc_free(rt, du), tlc_free(rt, di);
}

/* ---- unary math ------------------------------------------------------------------------- */

static double ulps(float got, double want) {
  float w = (float)want;
  return fabs((double)got - want) / fmax(fabs((double)nextafterf(w, INFINITY) - w), 1e-45);
}

static void test_unary(void) {
  tlc_kernel *k = kernel("def un(x_ptr, y_ptr, BLOCK: tl.constexpr):\n"
                         "    o = tl.arange(0, BLOCK)\n"
                         "    x = tl.load(x_ptr + o)\n"
                         "    tl.store(y_ptr + o * 4 + 0, tl.exp(x))\n"
                         "    tl.store(y_ptr + o * 4 + 1, tl.log(x + 11.0))\n"
                         "    tl.store(y_ptr + o * 4 + 2, tl.sqrt(x + 11.0))\n"
                         "    tl.store(y_ptr + o * 4 + 3, tl.sigmoid(x))\n",
                         "un", "*fp32,*fp32,256");
  if (!k) return;
  enum { N = 256 };
  float x[N], y[4 * N];
  for (int i = 0; i < N; i++) x[i] = rndf(-10, 10);
  tlc_devptr dx = dev(x, sizeof x), dy = dev(NULL, sizeof y);
  tlc_arg args[] = {TLC_PTR(dx), TLC_PTR(dy)};
  OK(rt, tlc_launch(k, 1, 1, 1, NULL, args, 2));
  get(y, dy, sizeof y);
  /* exp(x) is ex2(x * log2 e) with the product rounded to fp32, as on the
   * GPU: its relative error grows with |x| (about 1e-6 at |x| = 10) */
  double worst = 0, worst_exp = 0;
  for (int i = 0; i < N; i++) {
    double v = x[i], w = (double)(x[i] + 11.0f);
    worst_exp = fmax(worst_exp, fabs(y[4 * i] - exp(v)) / exp(v));
    worst_exp = fmax(worst_exp, fabs(y[4 * i + 3] - 1 / (1 + exp(-v))) * (1 + exp(-v)));
    worst = fmax(worst, fmax(ulps(y[4 * i + 1], log(w)), ulps(y[4 * i + 2], sqrt(w))));
  }
  CHECK(worst <= 4, "log, sqrt within 4 ulp of libm's double results: %.1f", worst);
  CHECK(worst_exp <= 2e-6, "exp, sigmoid within 2e-6 relative: %.2g", worst_exp);
  tlc_free(rt, dx), tlc_free(rt, dy);
}

/* x = erfinv(y) is right when erf(x) is y to within what one ulp of x
 * moves erf by (its slope 2/sqrt(pi) e^-x^2 times the ulp) and fp rounding. */
static double inverse_err(double x, double y, double back, double ulp_x, double slope) {
  return fabs(back - y) / (fabs(slope) * ulp_x + 4 * DBL_EPSILON * fabs(y) + 1e-300);
}

static void test_inverse_erf(void) {
  static const char *types[2] = {"fp32", "fp64"};
  for (int t = 0; t < 2; t++) {
    char sig[64];
    snprintf(sig, sizeof sig, "*%s,*%s,256", types[t], types[t]);
    static const char *src = "import triton\nimport triton.language as tl\n"
                             "from triton.language.extra import libdevice\n\n"
                             "@triton.jit\n"
                             "def inv(x_ptr, y_ptr, BLOCK: tl.constexpr):\n"
                             "    o = tl.arange(0, BLOCK)\n"
                             "    x = tl.load(x_ptr + o)\n"
                             "    tl.store(y_ptr + o * 3 + 0, libdevice.erfinv(x * 2 - 1))\n"
                             "    tl.store(y_ptr + o * 3 + 1, libdevice.erfcinv(x * 2))\n"
                             "    tl.store(y_ptr + o * 3 + 2, libdevice.normcdfinv(x))\n";
    tlc_kernel *k = NULL;
    tlc_status st = tlc_kernel_from_source(rt, src, "inv.tile", "inv", sig, NULL, &k);
    CHECK(st == TLC_OK, "inv: %s", tlc_runtime_error(rt));
    if (!k) return;
    enum { N = 256 };
    double xd[N], yd[3 * N];
    float xf[N], yf[3 * N];
    for (int i = 0; i < N; i++) { /* p in (0, 1), down to 1e-30 at the ends */
      double p = i < 16 ? pow(10.0, -2.0 * (i + 1)) : (double)rndf(0.001f, 0.999f);
      if (i >= 8 && i < 16) p = 1 - pow(10.0, -(double)(i - 7)); /* near 1 */
      xd[i] = p, xf[i] = (float)p;
    }
    bool dbl = t == 1;
    tlc_devptr dx = dev(dbl ? (void *)xd : (void *)xf, dbl ? sizeof xd : sizeof xf);
    tlc_devptr dy = dev(NULL, dbl ? sizeof yd : sizeof yf);
    tlc_arg args[] = {TLC_PTR(dx), TLC_PTR(dy)};
    OK(rt, tlc_launch(k, 1, 1, 1, NULL, args, 2));
    if (dbl) get(yd, dy, sizeof yd);
    else {
      get(yf, dy, sizeof yf);
      for (int i = 0; i < 3 * N; i++) yd[i] = yf[i];
    }
    double worst = 0;
    for (int i = 0; i < N; i++) {
      double p = dbl ? xd[i] : xf[i];
      double y1 = dbl ? 2 * p - 1 : (double)(float)(xf[i] * 2 - 1), y2 = dbl ? 2 * p : (double)(xf[i] * 2);
      double r[3] = {yd[3 * i], yd[3 * i + 1], yd[3 * i + 2]};
      for (int j = 0; j < 3; j++) {
        double ulp = dbl ? nextafter(fabs(r[j]), INFINITY) - fabs(r[j]) : nextafterf((float)fabs(r[j]), INFINITY) - (float)fabs(r[j]);
        double xr = j == 2 ? r[j] / -M_SQRT2 : r[j], u = j == 2 ? ulp / M_SQRT2 : ulp;
        double slope = 2 / sqrt(M_PI) * exp(-xr * xr);
        double e = j == 0 ? inverse_err(xr, y1, erf(xr), u, slope)
                          : inverse_err(xr, j == 1 ? y2 : 2 * p, erfc(xr), u, slope);
        if (!isfinite(r[j]) && y1 > -1 && y1 < 1) e = INFINITY;
        worst = fmax(worst, e);
      }
    }
    CHECK(worst <= 2, "%s erfinv, erfcinv, normcdfinv: erf/erfc of the result within 2 of the result's ulps: %.2f",
          types[t], worst);
    tlc_free(rt, dx), tlc_free(rt, dy);
  }
}

int main(void) {
  tlc_status st = tlc_runtime_open(TLC_DEVICE_CPU, &rt);
  CHECK(st == TLC_OK, "tlc_runtime_open(TLC_DEVICE_CPU): %s", tlc_runtime_error(rt));
  if (st != TLC_OK) return test_summary("test_interp");
  CHECK(tlc_device_is_cpu(rt));
  test_memory();
  test_casts();
  test_integers();
  test_reduce_and_shapes();
  test_dot_and_atomics();
  test_random();
  test_unary();
  test_inverse_erf();
  tlc_runtime_close(rt);
  return test_summary("test_interp");
}
