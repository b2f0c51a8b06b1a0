/* aot_autotune.c — the program tests/cli/aot_autotune.sh builds against the
 * pair `tlc compile --kernel acc --autotune --grid 'cdiv(n, BLOCK)' --kernel
 * plain --grid ... --emit c -o tune` writes, run on the fake CUDA driver
 * ($TLC_CUDA_DRIVER), which records launches without running them and
 * times a launch by its warps (FakeCudaState.ms_by_warps): so the fastest
 * config is the one whose warps the test makes fastest.  acc's configs:
 * 0 BLOCK=64 on 2 warps, 1 BLOCK=128 on 4, 2 BLOCK=256 on 8; its key is
 * (n, scale); the pair was compiled with TUNE_ACC_KEYS=2.  Checked: a
 * choice times every config once per key (8 launches each: one warm-up and
 * 7 timed) and launches the fastest with its grid; a known key launches
 * without timing; the table keeps two keys; choose/launch_config pin a
 * config; reset_to_zero memory is zero and restore_value memory as it was
 * after a choice; memory not from tlc_malloc is refused; two threads with
 * one new key choose once; a config this device cannot load is left out;
 * unload forgets the choices; the plain kernel's grid follows Python's
 * rounding.  Exit 0 only when every check held; each failure is printed. */
#include "tune.h"

#include <pthread.h>
#include <string.h>

#include "fakecuda_program.h"

enum { TRIAL_LAUNCHES = 8 }; /* per config: one warm-up, 7 timed */

static FakeCudaState *fs;
static tlc_runtime *rt;
static tlc_devptr x, out;

/* The fake's time of a launch on 2, 4 and 8 warps. */
static void times(float w2, float w4, float w8) {
  fs->ms_by_warps[2] = w2, fs->ms_by_warps[4] = w4, fs->ms_by_warps[8] = w8;
}

/* The last launch reached the driver with grid gx, `warps` warps, and
 * acc's arguments (x, out, n, scale). */
static void last_acc(unsigned gx, unsigned warps, int32_t n, float scale, int line) {
  tlc_devptr px, pout;
  int32_t pn;
  float ps;
  memcpy(&px, fs->params[0], 8), memcpy(&pout, fs->params[1], 8);
  memcpy(&pn, fs->params[2], 4), memcpy(&ps, fs->params[3], 4);
  CHECK(fs->grid[0] == gx && fs->grid[1] == 1 && fs->block[0] == 32 * warps,
        "line %d: grid %u,%u block %u; want grid %u block %u", line, fs->grid[0], fs->grid[1], fs->block[0], gx,
        32 * warps);
  CHECK(px == x && pout == out && pn == n && ps == scale, "line %d: the arguments differ", line);
}

static void *launch_4242(void *arg) {
  tlc_status *st = arg;
  *st = tune_acc_launch(NULL, x, out, 4242, 3.0f);
  return NULL;
}

int main(void) {
  fs = fake_state_from_env();
  if (!fs) return 1;
  tlc_status st = tlc_runtime_open(0, &rt);
  CHECK(st == TLC_OK, "tlc_runtime_open: %s", tlc_status_name(st));
  if (st != TLC_OK) return 1;

  CHECK(tune_acc_launch(NULL, 0, 0, 100, 1.0f) == TLC_ERR_INVALID, "a launch before tune_load");
  CHECK(tune_acc_launch_config(0, NULL, 0, 0, 100, 1.0f) == TLC_ERR_INVALID, "launch_config before tune_load");
  CHECK(tune_plain_launch(NULL, 0, 10) == TLC_ERR_INVALID, "plain before tune_load");
  int modules = fs->live_modules;
  st = tune_load(rt);
  CHECK(st == TLC_OK, "tune_load: %s %s", tlc_status_name(st), tlc_runtime_error(rt));
  CHECK(fs->live_modules == modules + 4, "tune_load loaded %d modules, want 3 configs and plain",
        fs->live_modules - modules);
  CHECK(TUNE_ACC_NUM_CONFIGS == 3, "TUNE_ACC_NUM_CONFIGS %d", TUNE_ACC_NUM_CONFIGS);
  const char *text = tune_acc_config_text(1);
  CHECK(text && !strcmp(text, "BLOCK=128 num_warps=4 num_stages=2"), "config 1 is '%s'", text ? text : "(null)");
  CHECK(!tune_acc_config_text(3) && !tune_acc_config_text(-1), "a config text out of range");

  unsigned char xinit[4096], back[4096];
  for (int i = 0; i < 4096; i++) xinit[i] = (unsigned char)(i * 7);
  CHECK(tlc_malloc(rt, 4096, &x) == TLC_OK && tlc_malloc(rt, 256, &out) == TLC_OK, "tlc_malloc");
  CHECK(tlc_memcpy_htod(rt, x, xinit, 4096) == TLC_OK, "upload");
  CHECK(tlc_memset_d8(rt, out, 0x55, 256) == TLC_OK, "memset");

  /* a new key: every config timed, the fastest (4 warps) launched */
  times(3, 1, 2);
  CHECK(tune_acc_chosen_config(1000, 2.0f) == -1, "a choice before any launch");
  int launches = fs->launches;
  st = tune_acc_launch(NULL, x, out, 1000, 2.0f);
  CHECK(st == TLC_OK, "tune_acc_launch: %s %s", tlc_status_name(st), tlc_runtime_error(rt));
  CHECK(fs->launches - launches == 3 * TRIAL_LAUNCHES + 1, "%d launches for a new key, want %d",
        fs->launches - launches, 3 * TRIAL_LAUNCHES + 1);
  last_acc(8, 4, 1000, 2.0f, __LINE__);
  CHECK(tune_acc_chosen_config(1000, 2.0f) == 1, "chose %d, want 1", tune_acc_chosen_config(1000, 2.0f));
  CHECK(tlc_memcpy_dtoh(rt, back, out, 256) == TLC_OK, "download");
  bool zero = true;
  for (int i = 0; i < 256; i++) zero &= back[i] == 0;
  CHECK(zero, "reset_to_zero: out is not zero after the choice");
  CHECK(tlc_memcpy_dtoh(rt, back, x, 4096) == TLC_OK && !memcmp(back, xinit, 4096),
        "restore_value: x is not as it was after the choice");

  /* the same key: no timing */
  launches = fs->launches;
  CHECK(tune_acc_launch(NULL, x, out, 1000, 2.0f) == TLC_OK, "a second launch");
  CHECK(fs->launches - launches == 1, "%d launches for a known key, want 1", fs->launches - launches);

  /* another scale is another key; 8 warps are the fastest now */
  times(3, 2, 1);
  CHECK(tune_acc_launch(NULL, x, out, 1000, 0.5f) == TLC_OK, "a launch with scale 0.5");
  last_acc(4, 8, 1000, 0.5f, __LINE__);
  CHECK(tune_acc_chosen_config(1000, 0.5f) == 2, "chose %d for scale 0.5, want 2", tune_acc_chosen_config(1000, 0.5f));

  /* a choice given, not timed; the table holds two keys: the oldest goes */
  CHECK(tune_acc_choose_config(0, 5000, 1.0f) == TLC_OK, "tune_acc_choose_config");
  CHECK(tune_acc_chosen_config(1000, 2.0f) == -1, "the oldest key is still remembered (TUNE_ACC_KEYS=2)");
  CHECK(tune_acc_chosen_config(1000, 0.5f) == 2 && tune_acc_chosen_config(5000, 1.0f) == 0, "the two newest keys");
  launches = fs->launches;
  CHECK(tune_acc_launch(NULL, x, out, 5000, 1.0f) == TLC_OK, "a launch with a given choice");
  CHECK(fs->launches - launches == 1, "%d launches with a given choice, want 1", fs->launches - launches);
  last_acc(79, 2, 5000, 1.0f, __LINE__);
  CHECK(tune_acc_choose_config(3, 1, 1.0f) == TLC_ERR_INVALID && tune_acc_choose_config(-1, 1, 1.0f) == TLC_ERR_INVALID,
        "a choice out of range");

  /* a pinned config */
  CHECK(tune_acc_launch_config(2, NULL, x, out, 300, 1.0f) == TLC_OK, "tune_acc_launch_config(2)");
  last_acc(2, 8, 300, 1.0f, __LINE__);
  CHECK(tune_acc_launch_config(3, NULL, x, out, 300, 1.0f) == TLC_ERR_INVALID, "launch_config(3)");

  /* memory not from tlc_malloc cannot be zeroed: refused, nothing chosen */
  st = tune_acc_launch(NULL, x, 0x1000, 777, 1.0f);
  CHECK(st == TLC_ERR_INVALID && strstr(tlc_runtime_error(rt), "tlc_malloc"), "stray reset_to_zero memory: %s %s",
        tlc_status_name(st), tlc_runtime_error(rt));
  CHECK(tune_acc_chosen_config(777, 1.0f) == -1, "a choice after a failed timing");

  /* two threads launching one new key: one times, both launch */
  times(1, 2, 3);
  launches = fs->launches;
  pthread_t t1, t2;
  tlc_status s1 = TLC_ERR_INVALID, s2 = TLC_ERR_INVALID;
  pthread_create(&t1, NULL, launch_4242, &s1);
  pthread_create(&t2, NULL, launch_4242, &s2);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  int n = fs->launches - launches; /* (the fake counts without a lock: two last launches may meet) */
  CHECK(s1 == TLC_OK && s2 == TLC_OK, "threads: %s %s", tlc_status_name(s1), tlc_status_name(s2));
  CHECK(n >= 3 * TRIAL_LAUNCHES + 1 && n <= 3 * TRIAL_LAUNCHES + 2, "two threads: %d launches, want one choice", n);
  CHECK(tune_acc_chosen_config(4242, 3.0f) == 0, "threads chose %d, want 0", tune_acc_chosen_config(4242, 3.0f));

  /* the plain kernel's grid: -n // 4 + 100, n % -3 + 5 in Python's rounding */
  CHECK(tune_plain_launch(NULL, x, 10) == TLC_OK, "tune_plain_launch: %s", tlc_runtime_error(rt));
  CHECK(fs->grid[0] == 97 && fs->grid[1] == 3 && fs->grid[2] == 1, "plain's grid (%u, %u, %u), want (97, 3, 1)",
        fs->grid[0], fs->grid[1], fs->grid[2]);
  st = tune_plain_launch(NULL, x, 400); /* -100 + 100: a zero dimension */
  CHECK(st == TLC_ERR_LAUNCH && strstr(tlc_runtime_error(rt), "zero x dimension"), "a zero grid: %s %s",
        tlc_status_name(st), tlc_runtime_error(rt));

  /* unload forgets; a config this device cannot load (256 threads where the
   * fake allows 128) is left out, of the choice too */
  tune_unload();
  CHECK(fs->live_modules == modules, "tune_unload left %d modules", fs->live_modules - modules);
  CHECK(tune_acc_chosen_config(1000, 0.5f) == -1, "a choice survived tune_unload");
  fs->max_threads_per_function = 128;
  st = tune_load(rt);
  CHECK(st == TLC_OK && fs->live_modules == modules + 3, "tune_load with a config too big: %s, %d modules",
        tlc_status_name(st), fs->live_modules - modules);
  CHECK(tune_acc_launch_config(2, NULL, x, out, 1000, 1.0f) == TLC_ERR_LAUNCH, "launch_config of a config not loaded");
  times(3, 2, 1);
  launches = fs->launches;
  CHECK(tune_acc_launch(NULL, x, out, 1000, 2.0f) == TLC_OK, "a choice without config 2: %s", tlc_runtime_error(rt));
  CHECK(fs->launches - launches == 2 * TRIAL_LAUNCHES + 1, "%d launches, want 2 configs timed",
        fs->launches - launches);
  CHECK(tune_acc_chosen_config(1000, 2.0f) == 1, "chose %d without config 2, want 1", tune_acc_chosen_config(1000, 2.0f));
  fs->max_threads_per_function = 1024;
  times(0, 0, 0);

  tune_unload();
  CHECK(tlc_free(rt, x) == TLC_OK && tlc_free(rt, out) == TLC_OK, "tlc_free");
  tlc_runtime_close(rt);
  return fake_verdict();
}
