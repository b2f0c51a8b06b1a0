/* test_random_gpu.c — tl.randint / randint4x / rand / rand4x / randn /
 * randn4x on the GPU (ctest test_random_gpu, label gpu; exit 77 without a
 * GPU) against Philox written here in C from the algorithm's definition
 * (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3"; Triton's
 * key/counter layout and constants, see spec/builtins_random.c).
 *
 * Checked bit for bit: the four Philox words, randint, and the uniform
 * floats (an integer conversion and one fp32 multiply, which the host
 * reproduces exactly).  The normals go through the GPU's sqrt.approx,
 * which the host cannot reproduce, so they are checked against Box-Muller
 * in double precision on the bit-exact uniforms (|error| <= 2e-6 * (1 +
 * |n|)), and their first values are printed for a comparison with Triton.
 * Cases: 32-bit offsets (random, negative ones included) with an i32 seed
 * (negative: sign-extended to 64 bits, as Triton's seed.to(uint64)) and a
 * 64-bit seed above 2^32; 7 rounds instead of 10; 64-bit offsets (the
 * counter (lo, hi, 0, 0), Philox 4x32 as in Triton 3.x).  The outputs are
 * poisoned before each launch.
 *
 * With TLC_RANDOM_DUMP=DIR each case's offsets and outputs are written to
 * DIR/CASE.bin (int64 seed, int32 offsets_are_64bit, int32 rounds, int32 n,
 * the n offsets, then 15 rows of n uint32: randint4x's four words, randint,
 * rand, randn, rand4x's four, randn4x's four; floats as their bits), for a
 * comparison with Triton on the same machine, and DIR/math_lib.txt says
 * which math library tlc used ($TLC_MATH_LIB, with $TLC_LIBDEVICE): under
 * TLC_MATH_LIB=libdevice the normals are libdevice's, as Triton's, and
 * random_vs_triton.py requires them to be identical too.  DIR is created
 * (with its parents) if missing; if it cannot be, the test stops before
 * running.
 *
 *   test_random_gpu [--seed N] [-v] */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compiler/tlc_compiler.h"
#include "examples/common/host.h"

enum { N = 1 << 14, BLOCK = 256, ROWS = 15 };

/* ---- the reference --------------------------------------------------------------- */

static void philox32(uint64_t seed, uint32_t c[4], int rounds) {
  uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
  for (int r = 0; r < rounds; r++) {
    uint64_t pb = (uint64_t)0xCD9E8D57u * c[2], pa = (uint64_t)0xD2511F53u * c[0];
    uint32_t n0 = (uint32_t)(pb >> 32) ^ c[1] ^ k0, n2 = (uint32_t)(pa >> 32) ^ c[3] ^ k1;
    c[0] = n0, c[1] = (uint32_t)pb, c[2] = n2, c[3] = (uint32_t)pa;
    k0 += 0x9E3779B9u, k1 += 0xBB67AE85u;
  }
}

static float uniform32(uint32_t w) {
  int32_t x = (int32_t)w;
  if (x < 0) x = (int32_t)(~(uint32_t)x); /* -x - 1 */
  return (float)x * 4.6566127342e-10f;
}
static void normal_pair(float u1, float u2, double *n1, double *n2) {
  u1 = u1 > 1.0e-7f ? u1 : 1.0e-7f;
  float th = 6.2831853071795862f * u2;
  double r = sqrt(-2.0 * log((double)u1));
  *n1 = r * cos((double)th), *n2 = r * sin((double)th);
}

/* ---- one case ------------------------------------------------------------------------- */

static const char kSource[] =
    "import triton\nimport triton.language as tl\n\n"
    "@triton.jit\n"
    "def k(out_ptr, off_ptr, seed, n, BLOCK: tl.constexpr, ROUNDS: tl.constexpr):\n"
    "    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    m = i < n\n"
    "    off = tl.load(off_ptr + i, mask=m)\n"
    "    a, b, c, d = tl.randint4x(seed, off, ROUNDS)\n"
    "    tl.store(out_ptr + 0 * n + i, a.to(tl.uint32), mask=m)\n"
    "    tl.store(out_ptr + 1 * n + i, b.to(tl.uint32), mask=m)\n"
    "    tl.store(out_ptr + 2 * n + i, c.to(tl.uint32), mask=m)\n"
    "    tl.store(out_ptr + 3 * n + i, d.to(tl.uint32), mask=m)\n"
    "    tl.store(out_ptr + 4 * n + i, tl.randint(seed, off, n_rounds=ROUNDS).to(tl.uint32), mask=m)\n"
    "    tl.store(out_ptr + 5 * n + i, tl.rand(seed, off, ROUNDS).to(tl.uint32, bitcast=True), mask=m)\n"
    "    tl.store(out_ptr + 6 * n + i, tl.randn(seed, off, ROUNDS).to(tl.uint32, bitcast=True), mask=m)\n"
    "    u0, u1, u2, u3 = tl.rand4x(seed, off, ROUNDS)\n"
    "    tl.store(out_ptr + 7 * n + i, u0.to(tl.uint32, bitcast=True), mask=m)\n"
    "    tl.store(out_ptr + 8 * n + i, u1.to(tl.uint32, bitcast=True), mask=m)\n"
    "    tl.store(out_ptr + 9 * n + i, u2.to(tl.uint32, bitcast=True), mask=m)\n"
    "    tl.store(out_ptr + 10 * n + i, u3.to(tl.uint32, bitcast=True), mask=m)\n"
    "    n0, n1, n2, n3 = tl.randn4x(seed, off, ROUNDS)\n"
    "    tl.store(out_ptr + 11 * n + i, n0.to(tl.uint32, bitcast=True), mask=m)\n"
    "    tl.store(out_ptr + 12 * n + i, n1.to(tl.uint32, bitcast=True), mask=m)\n"
    "    tl.store(out_ptr + 13 * n + i, n2.to(tl.uint32, bitcast=True), mask=m)\n"
    "    tl.store(out_ptr + 14 * n + i, n3.to(tl.uint32, bitcast=True), mask=m)\n";

static int failures;

static bool near_normal(float got, double want) { return fabs((double)got - want) <= 2e-6 * (1 + fabs(want)); }

/* seed_ty: "i32" or "i64"; wide: 64-bit offsets */
static void run_case(Ex *ex, const char *label, const char *seed_ty, int64_t seed, bool wide, int rounds) {
  char sig[160];
  snprintf(sig, sizeof sig, "*u32:16,*%s:16,%s,i32,%d,%d", wide ? "i64" : "i32", seed_ty, BLOCK, rounds);
  tlc_kernel *k = NULL;
  tlc_status st = tlc_kernel_from_source(ex->rt, kSource, "test_random_gpu.tile", "k", sig, NULL, &k);
  if (st != TLC_OK) {
    printf("ERROR %s: %s\n", label, tlc_runtime_error(ex->rt));
    failures++;
    return;
  }
  size_t ob = (size_t)N * (wide ? 8 : 4);
  void *off = ex_xmalloc(ob);
  for (int i = 0; i < N; i++) {
    uint64_t r = ex_rng_next(&ex->rng);
    int64_t o = i < N / 2 ? i : (int64_t)r; /* a run of 0, 1, 2, ... then random (negative ones too) */
    if (wide) ((int64_t *)off)[i] = i % 3 == 0 ? (int64_t)(r >> 1) : o;
    else ((int32_t *)off)[i] = (int32_t)o;
  }
  tlc_devptr doff = ex_alloc(ex, ob), dout = ex_alloc(ex, (size_t)N * ROWS * 4);
  ex_upload(ex, doff, off, ob);
  ex_ok(ex, tlc_memset_d8(ex->rt, dout, 0xa5, (size_t)N * ROWS * 4), "poison");
  tlc_arg args[4] = {TLC_PTR(dout), TLC_PTR(doff),
                     strcmp(seed_ty, "i32") ? TLC_I64(seed) : TLC_I32((int32_t)seed), TLC_I32(N)};
  ex_ok(ex, tlc_launch(k, N / BLOCK, 1, 1, NULL, args, 4), "launch");
  ex_ok(ex, tlc_synchronize(ex->rt), "synchronize");
  uint32_t *out = ex_xmalloc((size_t)N * ROWS * 4);
  ex_download(ex, out, dout, (size_t)N * ROWS * 4);

  uint64_t seed64 = (uint64_t)seed; /* sign-extended from the seed's own type */
  int bad_words = 0, bad_uniform = 0, bad_normal = 0, first = -1;
  double worst_normal = 0;
  for (int i = 0; i < N; i++) {
    uint32_t want[4];
    float uni[4];
    uint32_t c[4] = {(uint32_t)((int32_t *)off)[i], 0, 0, 0};
    if (wide) { /* Triton 3.x: (offset_lo, offset_hi, 0, 0), still 4x32 */
      uint64_t o = (uint64_t)((int64_t *)off)[i];
      c[0] = (uint32_t)o, c[1] = (uint32_t)(o >> 32);
    }
    philox32(seed64, c, rounds);
    for (int j = 0; j < 4; j++) want[j] = c[j], uni[j] = uniform32(c[j]);
    bool ok = true;
    for (int j = 0; j < 4; j++) ok &= out[(size_t)j * N + i] == want[j];
    ok &= out[(size_t)4 * N + i] == want[0];
    if (!ok) bad_words++;
    bool uok = true;
    uint32_t ub[4];
    memcpy(ub, uni, sizeof ub);
    uok &= out[(size_t)5 * N + i] == ub[0];
    for (int j = 0; j < 4; j++) uok &= out[(size_t)(7 + j) * N + i] == ub[j];
    if (!uok) bad_uniform++;
    double nn[4];
    normal_pair(uni[0], uni[1], &nn[0], &nn[1]);
    normal_pair(uni[2], uni[3], &nn[2], &nn[3]);
    float got[5];
    memcpy(&got[0], &out[(size_t)6 * N + i], 4);
    for (int j = 0; j < 4; j++) memcpy(&got[1 + j], &out[(size_t)(11 + j) * N + i], 4);
    bool nok = near_normal(got[0], nn[0]);
    for (int j = 0; j < 4; j++) nok &= near_normal(got[1 + j], nn[j]);
    for (int j = 0; j < 5; j++) {
      double e = fabs((double)got[j] - nn[j ? j - 1 : 0]);
      if (e > worst_normal || e != e) worst_normal = e;
    }
    if (!nok) bad_normal++;
    if ((!ok || !uok || !nok) && first < 0) first = i;
  }
  bool pass = !bad_words && !bad_uniform && !bad_normal;
  printf("RANDOM case=%s seed=%lld seed_type=%s offsets=%s rounds=%d words_mismatched=%d uniform_mismatched=%d "
         "normal_off=%d normal_max_err=%.3g first_bad=%d status=%s\n",
         label, (long long)seed, seed_ty, wide ? "i64" : "i32", rounds, bad_words, bad_uniform, bad_normal,
         worst_normal, first, pass ? "PASS" : "FAIL");
  if (ex->verbose || !strcmp(label, "basic")) {
    /* the first values, for a comparison with Triton (docs/language.md) */
    printf("  offsets 0..3: randint");
    for (int i = 0; i < 4; i++) printf(" %u", out[(size_t)4 * N + i]);
    printf("  rand");
    for (int i = 0; i < 4; i++) {
      float f;
      memcpy(&f, &out[(size_t)5 * N + i], 4);
      printf(" %.9g", f);
    }
    printf("  randn");
    for (int i = 0; i < 4; i++) {
      float f;
      memcpy(&f, &out[(size_t)6 * N + i], 4);
      printf(" %.9g", f);
    }
    printf("\n");
  }
  if (!pass) failures++;
  const char *dump = getenv("TLC_RANDOM_DUMP");
  if (dump && *dump) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.bin", dump, label);
    FILE *fp = fopen(path, "wb");
    if (!fp) {
      printf("ERROR cannot write %s: %s\n", path, strerror(errno));
      failures++;
    } else {
      int32_t hdr[3] = {wide, rounds, N};
      fwrite(&seed, sizeof seed, 1, fp);
      fwrite(hdr, sizeof hdr, 1, fp);
      fwrite(off, 1, ob, fp);
      fwrite(out, 4, (size_t)N * ROWS, fp);
      fclose(fp);
      printf("  dumped to %s\n", path);
    }
  }
  ex_free(ex, doff), ex_free(ex, dout);
  free(off), free(out);
}

/* mkdir -p: true when `dir` is a directory afterwards */
static bool make_dirs(const char *dir) {
  char path[1024];
  size_t n = strlen(dir);
  if (n >= sizeof path) return errno = ENAMETOOLONG, false;
  memcpy(path, dir, n + 1);
  for (size_t i = 1; i <= n; i++) {
    if (path[i] != '/' && path[i] != 0) continue;
    char c = path[i];
    path[i] = 0;
    if (mkdir(path, 0777) && errno != EEXIST) return false;
    path[i] = c;
  }
  struct stat st;
  if (stat(dir, &st)) return false;
  if (!S_ISDIR(st.st_mode)) return errno = ENOTDIR, false;
  return true;
}

int main(int argc, char **argv) {
  const char *dump = getenv("TLC_RANDOM_DUMP");
  if (dump && *dump && !make_dirs(dump)) {
    fprintf(stderr, "test_random_gpu: TLC_RANDOM_DUMP=%s: cannot create the directory: %s\n", dump, strerror(errno));
    return 1;
  }
  const char *ld = getenv("TLC_LIBDEVICE");
  tlc_math_lib lib;
  if (tlc_math_lib_from_env(&lib) != 0) {
    fprintf(stderr, "test_random_gpu: TLC_MATH_LIB=%s: expected auto, libdevice or libclc\n", getenv("TLC_MATH_LIB"));
    return 1;
  }
  bool libdevice = tlc_math_lib_resolve(lib, NULL) == TLC_MATH_LIBDEVICE; /* what the runtime will link */
  char what[1200];
  snprintf(what, sizeof what, "%s%s%s", libdevice ? "libdevice" : "libclc", ld && *ld ? " " : "", ld && *ld ? ld : "");
  printf("math library: %s\n", what);
  if (dump && *dump) {
    char path[1024];
    snprintf(path, sizeof path, "%s/math_lib.txt", dump);
    FILE *fp = fopen(path, "w");
    if (!fp || fprintf(fp, "%s\n", what) < 0 || fclose(fp)) {
      fprintf(stderr, "test_random_gpu: cannot write %s: %s\n", path, strerror(errno));
      return 1;
    }
  }
  Ex ex;
  ex_open(&ex, argc, argv, "test_random_gpu");
  if (ex_selected(&ex, "basic", "")) run_case(&ex, "basic", "i32", 42, false, 10);
  if (ex_selected(&ex, "negative_seed", "")) run_case(&ex, "negative_seed", "i32", -7, false, 10);
  if (ex_selected(&ex, "seed64", "")) run_case(&ex, "seed64", "i64", 0x123456789abcdefLL, false, 10);
  if (ex_selected(&ex, "rounds7", "")) run_case(&ex, "rounds7", "i32", 1234, false, 7);
  if (ex_selected(&ex, "offsets64", "")) run_case(&ex, "offsets64", "i64", 0x7e57ab1e5eedLL, true, 10);
  printf("%s: %d failure%s\n", failures ? "FAIL" : "PASS", failures, failures == 1 ? "" : "s");
  ex.nfail += failures;
  ex.npass += !failures;
  return ex_finish(&ex);
}
