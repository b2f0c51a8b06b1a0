#!/usr/bin/env bash
# test.sh — install what is missing, build, run every test (ctest).  GPU
# tests skip where no GPU is present; the ptxas checks run when ptxas is on
# the PATH.  Then the same CPU tests again under AddressSanitizer and
# UndefinedBehaviorSanitizer (build-asan), and the fuzz harness with its
# 60-second smoke run and its regression replay (build-fuzz, clang); those
# two link Debian's libLLVM.so (quicker to link) where the normal build
# holds LLVM inside libtlc.so.
# TLC_QUICK=1 stops after the first ctest (the normal build only).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh build
ctest --test-dir build --output-on-failure -j"$(nproc)"
[ "${TLC_QUICK:-0}" = 1 ] && exit 0

echo "== sanitizers: ASan + UBSan build (build-asan), CPU tests"
bash scripts/build.sh build-asan -DTLC_SANITIZE=ON -DTLC_LLVM_STATIC=OFF
ctest --test-dir build-asan --output-on-failure -j"$(nproc)" -LE gpu

echo "== fuzzing: libFuzzer harness (build-fuzz), smoke run and regressions"
CC=clang-14 CXX=clang++-14 bash scripts/build.sh build-fuzz -DTLC_FUZZ=ON -DTLC_LLVM_STATIC=OFF --target tlc_fuzz
ctest --test-dir build-fuzz --output-on-failure -L fuzz
