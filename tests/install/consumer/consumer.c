/* consumer.c — a program outside tlc's tree, built against an install
 * prefix (tests/install/install_test.sh), run on the fake CUDA driver
 * ($TLC_CUDA_DRIVER).  It loads an ahead-of-time kernel (vadd.c from tlc
 * compile --emit c), launches it and checks what reached the driver: the
 * grid, the block, every argument; then unloads it (the module count goes
 * back).  Built with CONSUMER_JIT (find_package, tlc::runtime) it also
 * compiles the same kernel from source at run time.  Exit 0 only when every
 * check held; each failure is printed. */
#include "vadd.h"

#include <string.h>

#include "fakecuda_program.h"

/* The launch that reached the fake: grid, 128 threads, the four arguments. */
static void check_launch(FakeCudaState *fs, int launches, tlc_devptr a, tlc_devptr b, tlc_devptr c, int32_t n,
                         const char *what) {
  CHECK(fs->launches == launches, "%s: %d launches recorded, want %d", what, fs->launches, launches);
  CHECK(fs->grid[0] == 3 && fs->grid[1] == 1 && fs->grid[2] == 1, "%s: grid %u,%u,%u", what, fs->grid[0],
        fs->grid[1], fs->grid[2]);
  CHECK(fs->block[0] == 128, "%s: block %u, want 128 (4 warps)", what, fs->block[0]);
  tlc_devptr got[3];
  for (int i = 0; i < 3; i++) memcpy(&got[i], fs->params[i], 8);
  int32_t got_n;
  memcpy(&got_n, fs->params[3], 4);
  CHECK(got[0] == a && got[1] == b && got[2] == c && got_n == n, "%s: arguments differ", what);
}

int main(void) {
  FakeCudaState *fs = fake_state_from_env();
  if (!fs) return 1;
  tlc_runtime *rt;
  tlc_status st = tlc_runtime_open(0, &rt);
  CHECK(st == TLC_OK, "tlc_runtime_open: %s %s", tlc_status_name(st), tlc_runtime_error(rt));
  if (st != TLC_OK) return 1;

  CHECK(vadd_launch(NULL, 3, 1, 1, 0, 0, 0, 0) == TLC_ERR_INVALID, "a launch before vadd_load must fail");
  int modules = fs->live_modules;
  st = vadd_load(rt);
  CHECK(st == TLC_OK, "vadd_load: %s %s", tlc_status_name(st), tlc_runtime_error(rt));
  CHECK(fs->live_modules == modules + 1, "vadd_load loaded %d modules", fs->live_modules - modules);
  tlc_devptr a, b, c;
  CHECK(tlc_malloc(rt, 4096, &a) == TLC_OK && tlc_malloc(rt, 4096, &b) == TLC_OK &&
            tlc_malloc(rt, 4096, &c) == TLC_OK, "tlc_malloc");
  int launches = fs->launches;
  st = vadd_launch(NULL, 3, 1, 1, a, b, c, 2500);
  CHECK(st == TLC_OK, "vadd_launch: %s %s", tlc_status_name(st), tlc_runtime_error(rt));
  CHECK(tlc_synchronize(rt) == TLC_OK, "tlc_synchronize");
  check_launch(fs, launches + 1, a, b, c, 2500, "aot");
  vadd_unload();
  CHECK(fs->live_modules == modules, "vadd_unload left %d modules", fs->live_modules - modules);
  CHECK(vadd_launch(NULL, 3, 1, 1, a, b, c, 1) == TLC_ERR_INVALID, "a launch after vadd_unload must fail");

#ifdef CONSUMER_JIT
  tlc_kernel *k;
  st = tlc_kernel_from_file(rt, VADD_TILE, "add_kernel", "*fp32:16,*fp32:16,*fp32:16,i32,1024", NULL, &k);
  CHECK(st == TLC_OK, "tlc_kernel_from_file: %s %s", tlc_status_name(st), tlc_runtime_error(rt));
  if (st == TLC_OK) {
    tlc_arg args[] = {TLC_PTR(a), TLC_PTR(b), TLC_PTR(c), TLC_I32(2047)};
    st = tlc_launch(k, 3, 1, 1, NULL, args, 4);
    CHECK(st == TLC_OK, "tlc_launch: %s %s", tlc_status_name(st), tlc_runtime_error(rt));
    check_launch(fs, launches + 2, a, b, c, 2047, "jit");
    CHECK(tlc_kernel_unload(k) == TLC_ERR_INVALID, "a kernel from source must not unload (it is cached)");
  }
#endif
  tlc_runtime_close(rt);
  return fake_verdict();
}
