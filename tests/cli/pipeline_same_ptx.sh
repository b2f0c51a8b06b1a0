#!/usr/bin/env bash
# pipeline_same_ptx.sh BUILD_DIR — the O-pipeline tlc chose for sm_90a
# (codegen/cg_pipeline.c) makes, for every kernel of bench/ptx_corpus.py's
# corpus (the examples, every benchmarked kernel and autotune config, a
# kernel per math function with libdevice and libclc), the PTX LLVM's own
# default<O3> makes: the choice was made on that promise, and a change to
# the lowering, the pass list or LLVM that breaks it fails here.  The
# corpus is compiled twice, once with TLC_LLVM_PIPELINE='default<O3>' and
# LLVM's own SLP default (tlc turns the vectorizer's horizontal reductions
# off on the same promise: codegen/cg_module.c, init_nvptx).
set -euo pipefail
build=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
corpus=$here/../../bench/ptx_corpus.py
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tlc-pipeline.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
python3 "$corpus" build "$build" "$tmp/chosen" --no-ptxas
TLC_LLVM_PIPELINE='default<O3>' TLC_LLVM_ARGS=-slp-vectorize-hor=true python3 "$corpus" build "$build" "$tmp/o3" --no-ptxas
python3 "$corpus" compare "$tmp/o3" "$tmp/chosen"
