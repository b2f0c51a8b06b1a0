#!/usr/bin/env bash
# build.sh [BUILD_DIR] [extra cmake args...] [--target T...] — configure and
# build tlc (everything, or only the targets after --target).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
args=() targets=()
while [ $# -gt 0 ]; do
  if [ "$1" = --target ]; then targets+=(--target "$2"); shift 2; else args+=("$1"); shift; fi
done
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S . -B "$dir" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${args[@]}" >/dev/null
cmake --build "$dir" -j"$(nproc)" "${targets[@]}"
