#!/usr/bin/env bash
# main.sh — the main job: install what is missing, build, then compile every
# bundled example and, where a GPU is present, run each against its CPU
# reference and print a table (kernel, size, max error, time).  With no GPU
# it says so and still compiles every example to PTX and checks the PTX
# (with ptxas when it is installed).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh build
echo
echo "== compiling every example to PTX (sm_90a and sm_80) =="
ctest --test-dir build -L ptx --output-on-failure -j"$(nproc)"
if ! command -v ptxas >/dev/null; then
  echo "(ptxas is not on the PATH: the PTX was generated but not assembled)"
fi
echo
if ! ls /dev/nvidia0 >/dev/null 2>&1 && ! ldconfig -p 2>/dev/null | grep -q libcuda.so.1 \
   && [ -z "${LD_LIBRARY_PATH:-}" ]; then
  echo "No GPU here (no /dev/nvidia0, no libcuda.so.1): the examples were compiled and checked, not run."
  exit 0
fi
echo "== running every example on the GPU =="
bash scripts/gpu-suite.sh build
