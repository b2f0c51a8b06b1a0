#!/usr/bin/env bash
# deps.sh — install what tlc needs to build and test on Debian 12 (bookworm),
# skipping what is already there.  Uses sudo when not run as root.
set -euo pipefail
need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
# clang-14 and its runtimes (libFuzzer, ASan, UBSan) build the fuzz harness;
# libclc-19's NVPTX bitcode is the math library tlc embeds (codegen/CMakeLists.txt).
# libxxhash-dev (XXH3-128: the cache keys) and libcjson-dev (JSON: kernel metadata,
# the autotune memo); pkg-config: the install test builds a program through tlc.pc.
for p in build-essential cmake ninja-build flex bison llvm-19-dev llvm-19-tools \
         libzstd-dev zlib1g-dev libxxhash-dev libcjson-dev pkg-config python3 clang-14 libclang-rt-14-dev libclc-19; do
  have_pkg "$p" || need+=("$p")
done
if [ ${#need[@]} -eq 0 ]; then
  echo "deps: everything is installed"
  exit 0
fi
echo "deps: installing ${need[*]}"
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
