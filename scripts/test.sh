#!/usr/bin/env bash
# test.sh — install what is missing, build, run every test (ctest).  GPU
# tests skip where no GPU is present; the ptxas checks run when ptxas is on
# the PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh build
ctest --test-dir build --output-on-failure -j"$(nproc)"
