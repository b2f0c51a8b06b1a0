#!/usr/bin/env bash
# shared_addr_check.sh BUILD_DIR — codegen's split shared-memory addresses
# (cg_shared.c, cg_buf_frag_addr: a thread part XOR a constant, plus a
# constant, where the register bits of a fragment miss the lane and warp
# bits) against the swizzle formula in full, on integers, for every lane and
# warp of every fragment that takes the split form: the whole corpus of
# bench/ptx_corpus.py but its math-function kernels, compiled with
# TLC_CHECK_SHARED_ADDR=1 (a difference is an internal error: the compile
# fails).
set -euo pipefail
build=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tlc-shaddr.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
TLC_CHECK_SHARED_ADDR=1 python3 "$here/../../bench/ptx_corpus.py" build "$build" "$tmp/out" --no-ptxas --only '^(?!math\.)'
