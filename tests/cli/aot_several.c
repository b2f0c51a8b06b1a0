/* aot_several.c — the program tests/cli/aot_several.sh builds against the
 * pair `tlc compile --kernel add_kernel ... --kernel scale_kernel ... --emit
 * c -o pair` writes, run on the fake CUDA driver ($TLC_CUDA_DRIVER): one
 * pair_load loads both kernels, each pair_KERNEL_launch reaches the driver
 * with its own grid and arguments (both on 2 warps: --num-warps is every
 * kernel's), pair_unload unloads both.  Exit 0
 * only when every check held; each failure is printed. */
#include "pair.h"

#include <string.h>

#include "fakecuda_program.h"

int main(void) {
  FakeCudaState *fs = fake_state_from_env();
  if (!fs) return 1;
  tlc_runtime *rt;
  tlc_status st = tlc_runtime_open(0, &rt);
  CHECK(st == TLC_OK, "tlc_runtime_open: %s", tlc_status_name(st));
  if (st != TLC_OK) return 1;

  CHECK(pair_add_kernel_launch(NULL, 1, 1, 1, 0, 0, 0, 0) == TLC_ERR_INVALID, "a launch before pair_load");
  int modules = fs->live_modules;
  st = pair_load(rt);
  CHECK(st == TLC_OK, "pair_load: %s %s", tlc_status_name(st), tlc_runtime_error(rt));
  CHECK(fs->live_modules == modules + 2, "pair_load loaded %d modules, want 2", fs->live_modules - modules);
  CHECK(pair_load(rt) == TLC_OK && fs->live_modules == modules + 2, "a second pair_load loads again");
  tlc_devptr a, b, c;
  CHECK(tlc_malloc(rt, 4096, &a) == TLC_OK && tlc_malloc(rt, 4096, &b) == TLC_OK &&
            tlc_malloc(rt, 4096, &c) == TLC_OK, "tlc_malloc");

  int launches = fs->launches;
  CHECK(pair_add_kernel_launch(NULL, 3, 1, 1, a, b, c, 2500) == TLC_OK, "add: %s", tlc_runtime_error(rt));
  CHECK(tlc_synchronize(rt) == TLC_OK, "tlc_synchronize");
  tlc_devptr got[3];
  int32_t n;
  for (int i = 0; i < 3; i++) memcpy(&got[i], fs->params[i], 8);
  memcpy(&n, fs->params[3], 4);
  CHECK(fs->launches == launches + 1 && fs->grid[0] == 3 && fs->block[0] == 64, "add: grid %u block %u",
        fs->grid[0], fs->block[0]);
  CHECK(got[0] == a && got[1] == b && got[2] == c && n == 2500, "add: the arguments differ");

  CHECK(pair_scale_kernel_launch(NULL, 5, 1, 1, a, c, 2.5f, 1000) == TLC_OK, "scale: %s", tlc_runtime_error(rt));
  CHECK(tlc_synchronize(rt) == TLC_OK, "tlc_synchronize");
  float factor;
  for (int i = 0; i < 2; i++) memcpy(&got[i], fs->params[i], 8);
  memcpy(&factor, fs->params[2], 4);
  memcpy(&n, fs->params[3], 4);
  CHECK(fs->launches == launches + 2 && fs->grid[0] == 5 && fs->block[0] == 64, "scale: grid %u block %u",
        fs->grid[0], fs->block[0]);
  CHECK(got[0] == a && got[1] == c && factor == 2.5f && n == 1000, "scale: the arguments differ");

  pair_unload();
  CHECK(fs->live_modules == modules, "pair_unload left %d modules", fs->live_modules - modules);
  CHECK(pair_scale_kernel_launch(NULL, 1, 1, 1, a, c, 1.0f, 1) == TLC_ERR_INVALID, "a launch after pair_unload");
  tlc_runtime_close(rt);
  return fake_verdict();
}
