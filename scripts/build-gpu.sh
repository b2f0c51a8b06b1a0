#!/usr/bin/env bash
# build-gpu.sh — build tlc for the GPU machine (which has no LLVM, flex or
# bison): LLVM linked statically into libtlc.so, release mode, stripped, in
# build-gpu/ (carried to the device with the work tree; see
# docs/development.md).  The GPU suite then runs scripts/gpu-suite.sh there.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh build-gpu -DTLC_LLVM_STATIC=ON -DTLC_EXPORT_ALL=ON -DCMAKE_BUILD_TYPE=Release
find build-gpu -name '*.o' -delete
# the build-time tool that trims libclc's bitcode (LLVM inside, 39 MB): its
# output is embedded in libtlc.so, nothing on the GPU machine runs it
rm -f build-gpu/codegen/tlc_libclc_trim
find build-gpu/bin build-gpu/lib -type f \( -perm -u+x -o -name '*.so' \) -exec strip --strip-unneeded {} + 2>/dev/null || true
du -sh build-gpu
