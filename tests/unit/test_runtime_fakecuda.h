/* test_runtime_fakecuda.h — the control block of the fake CUDA driver
 * (test_runtime_fakecuda.c), shared by the fake and the test that drives it.
 *
 * The fake is a shared library exporting the Driver API entry points the
 * runtime looks up; TLC_CUDA_DRIVER points the runtime at it.  "Device"
 * memory is host memory, so copies and memsets really happen; kernels are
 * recorded, not run.  The test reaches this state with
 * dlsym(handle, "fake_cuda_state"). */
#ifndef TEST_RUNTIME_FAKECUDA_H
#define TEST_RUNTIME_FAKECUDA_H

#define FAKE_MAX_PARAMS 16

typedef struct FakeCudaState {
  /* device description, read at cuDevice* time */
  int cc_major, cc_minor;
  int device_count;
  int max_threads_per_function;   /* CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK */
  int static_shared;              /* CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES */
  /* injected failures: a nonzero CUresult makes the next such call fail */
  int fail_sync;
  int fail_launch;
  /* bookkeeping the test checks */
  int live_allocs, live_modules, live_events, primary_refs;
  int calls_without_context;      /* driver calls made with no current context */
  int launches;
  unsigned grid[3], block[3], shared_bytes;
  unsigned char params[FAKE_MAX_PARAMS][8]; /* first 8 bytes behind each kernelParams[i] */
  int dynamic_smem_attr;          /* last MAX_DYNAMIC_SHARED_SIZE_BYTES set, -1 = never */
  int modules_loaded;             /* cuModuleLoadData calls that succeeded */
  int ptx_jits;                   /* PTX compiled: cuLinkComplete, or cuModuleLoadData(Ex) of PTX */
  int ptx_loads;                  /* of those, PTX loaded directly (cuModuleLoadData(Ex), no link) */
  int ptx_loads_ex;               /* of those, through cuModuleLoadDataEx with both JIT log buffers */
  int cubins_loaded;              /* cuModuleLoadData calls that took a (fake) cubin */
  int live_links;                 /* cuLinkCreate sessions not destroyed */
  int fail_cubin;                 /* N > 0: cuModuleLoadData refuses the next N cubins (NO_BINARY_FOR_GPU) */
  int tensor_maps_encoded;        /* cuTensorMapEncodeTiled calls */
  int driver_version;             /* cuDriverGetVersion; 0 = 13000 (read once a process, as the
                                     runtime does) */
  /* more injected failures: fail_init makes every cuInit fail until reset
   * (a stub library, no device); fail_alloc the next cuMemAlloc */
  int fail_init;
  int fail_alloc;
  int num_regs;                   /* CU_FUNC_ATTRIBUTE_NUM_REGS; 0 = 40 */
  /* timing: cuEventElapsedTime gives ms_by_warps[w] when the last launch
   * ran w warps a program and that entry is nonzero, else 1.25 ms */
  float ms_by_warps[33];
} FakeCudaState;

typedef FakeCudaState *(*fake_cuda_state_fn)(void);

#endif
