#!/usr/bin/env bash
# install_test.sh BUILD SRC FAKE_DRIVER GENERATOR — cmake --install BUILD into
# a temporary prefix, check that the installed libraries export only tlc_*,
# build tests/install/consumer against the prefix with find_package(tlc) and
# with pkg-config (tlc-runtime-core.pc: the ahead-of-time kernel, no
# compiler), run both on the fake driver, and build examples/aot's program
# from the prefix with pkg-config (it skips, 77, on the CPU device: run so).
set -euo pipefail
build=$1 src=$2 fake=$3 gen=$4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tlc-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() { echo "FAIL: $*"; exit 1; }

cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" || { cat "$tmp/install.log"; fail "cmake --install"; }
for f in bin/tlc lib/libtlc.so lib/libtlc_runtime.so lib/libtlc_runtime_core.so include/tlc/tlc_runtime.h \
         include/tlc/tlc_compiler.h include/tlc/support/tlc_param_kinds.h lib/pkgconfig/tlc.pc \
         lib/pkgconfig/tlc-runtime-core.pc lib/cmake/tlc/tlcConfig.cmake lib/cmake/tlc/tlcConfigVersion.cmake; do
  [ -e "$prefix/$f" ] || fail "cmake --install did not install $f"
done
for lib in "$prefix"/lib/*.so; do
  n=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -c . || true)
  other=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -v '^tlc_' || true)
  [ -z "$other" ] || fail "$(basename "$lib") exports symbols other than tlc_*: $(echo $other | head -c 300)"
  [ "$n" -gt 0 ] || fail "$(basename "$lib") exports nothing"
  echo "ok: $(basename "$lib") exports $n symbols, all tlc_*"
done
ldd "$prefix/lib/libtlc_runtime_core.so" | grep -E 'libtlc\.so|LLVM' && fail "libtlc_runtime_core.so needs the compiler"
"$prefix/bin/tlc" --version >/dev/null || fail "the installed tlc does not run"

export TLC_CUDA_DRIVER=$fake TLC_CACHE_DIR=$tmp/cache
tile=$src/examples/vector_add/vector_add.tile
consumer=$src/tests/install/consumer

# find_package(tlc): the full runtime, the kernel compiled by tlc::tlc at build time
cmake -S "$consumer" -B "$tmp/fp" -G "$gen" -DCMAKE_PREFIX_PATH="$prefix" -DVADD_TILE="$tile" \
      -DFAKE_CUDA_INCLUDE="$src/tests/unit" >"$tmp/fp.log" 2>&1 || { cat "$tmp/fp.log"; fail "configure (find_package)"; }
cmake --build "$tmp/fp" >>"$tmp/fp.log" 2>&1 || { cat "$tmp/fp.log"; fail "build (find_package)"; }
"$tmp/fp/consumer" || fail "the find_package build failed its checks"
echo "ok: find_package(tlc) build ran"

# pkg-config: the core alone
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
mkdir -p "$tmp/pc"
"$prefix/bin/tlc" compile "$tile" --kernel add_kernel --signature '*fp32:16,*fp32:16,*fp32:16,i32,1024' \
    --arch sm_80 --emit c -o "$tmp/pc/vadd" || fail "tlc compile --emit c"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror -I"$tmp/pc" -I"$src/tests/unit" "$consumer/consumer.c" "$tmp/pc/vadd.c" \
   $(pkg-config --cflags --libs tlc-runtime-core) -Wl,-rpath,"$prefix/lib" -ldl -o "$tmp/pc/consumer" \
   || fail "build (pkg-config tlc-runtime-core)"
ldd "$tmp/pc/consumer" | grep -q 'libtlc\.so' && fail "the core-only program links libtlc.so"
"$tmp/pc/consumer" || fail "the pkg-config build failed its checks"
echo "ok: pkg-config tlc-runtime-core build ran"

# examples/aot from the prefix (pkg-config): builds, and skips on the CPU device
cc -std=c11 -Wall -Werror -I"$tmp/pc" "$src/examples/aot/vector_add_aot.c" "$tmp/pc/vadd.c" \
   $(pkg-config --cflags --libs tlc-runtime-core) -Wl,-rpath,"$prefix/lib" -lm -o "$tmp/pc/ex_vector_add_aot" \
   || fail "build examples/aot/vector_add_aot.c (pkg-config)"
rc=0
TLC_DEVICE=cpu "$tmp/pc/ex_vector_add_aot" >"$tmp/ex.log" || rc=$?
[ "$rc" = 77 ] && grep -q '^SKIP' "$tmp/ex.log" || { cat "$tmp/ex.log"; fail "ex_vector_add_aot on the CPU device: exit $rc, want 77 and a SKIP line"; }
# pkg-config tlc: the full runtime links and resolves
echo 'int main(void){return 0;}' >"$tmp/pc/min.c"
cc "$tmp/pc/min.c" -include tlc/tlc_runtime.h $(pkg-config --cflags --libs tlc) -Wl,-rpath,"$prefix/lib" \
   -Wl,--no-as-needed -o "$tmp/pc/min" && "$tmp/pc/min" || fail "pkg-config tlc: a program does not link or start"
echo "PASS"
