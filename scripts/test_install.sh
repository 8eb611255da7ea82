#!/usr/bin/env bash
# Proves the install paths a user takes (scripts/test.sh runs it after the
# release tests; it reuses build/release):
#  1. `cmake --install` into a prefix, then a separate consumer project
#     (tests/install/consumer) finds it with find_package(xffi), builds a
#     handler library with xffi_add_handler_library and runs it: through the
#     harness, in a program (libxffi_program), and with the installed `xffi run`.
#  2. `pip install .` into a fresh virtual environment, then `import xffi`,
#     one ffi_call, the `xffi` console command, include_dir()'s forwarding
#     headers, and the same consumer project against xffi.cmake_dir().
# Bounded by XFFI_INSTALL_TEST_TIMEOUT seconds per step (default 1800: the
# wheel's first build on a cold cache compiles the libraries again).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
work="$root/build/install"
limit=${XFFI_INSTALL_TEST_TIMEOUT:-1800}
jobs=${XFFI_JOBS:-$(nproc)}
consumer="$root/tests/install/consumer"

step() { echo "-- install test: $* ($(date -u +%H:%M:%S))"; }
fail() {
  echo "scripts/test_install.sh: $*" >&2
  exit 1
}
bounded() { timeout --kill-after=30 "$limit" "$@"; }

[ -x build/release/src/xffi ] || fail "build/release is missing (scripts/build.sh release)"
rm -rf "$work"
mkdir -p "$work"

# Inputs and the expected result of scale.mlir, y = (2.5 x + i) + x.
.venv/bin/python - "$work" <<'PY'
import sys, numpy as np
x = np.array([1.0, -2.0, 0.5, 8.0], np.float32)
np.save(f"{sys.argv[1]}/x.npy", x)
np.save(f"{sys.argv[1]}/y.npy", (np.float32(2.5) * x + np.arange(4, dtype=np.float32)) + x)
PY

# Builds the consumer against one installed xffi, then runs its three checks.
run_consumer() {
  local name=$1 xffi_cli=$2
  shift 2
  local build="$work/consumer-$name"
  bounded cmake -S "$consumer" -B "$build" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
  bounded cmake --build "$build" -j "$jobs" >/dev/null
  "$build/consumer_host"
  "$build/consumer_program" "$build/libconsumer_scale.so" "$consumer/scale.mlir"
  "$xffi_cli" run "$consumer/scale.mlir" --plugin "$build/libconsumer_scale.so" \
    --input "$work/x.npy" --expect "$work/y.npy"
}

step "cmake --install"
cmake --install build/release --prefix "$work/prefix" --component xffi_devel >/dev/null
[ -f "$work/prefix/include/xla/ffi/api/ffi.h" ] ||
  fail "the install lacks the forwarding header xla/ffi/api/ffi.h"
step "consumer project against the cmake --install prefix"
run_consumer prefix "$work/prefix/bin/xffi" -DCMAKE_PREFIX_PATH="$work/prefix"

step "pip install . into a fresh virtual environment"
.venv/bin/python -m venv "$work/venv"
venv="$work/venv/bin"
# The build requirements come from PyPI as pip's build isolation would get
# them, but into the venv at a fixed path (--no-build-isolation), so ccache
# recognises nanobind's sources from one run to the next. The wheel is built
# as build/release is (RelWithDebInfo, warnings as errors) so ccache serves
# the libraries' objects from that build instead of compiling them again.
bounded "$venv/pip" install -q "scikit-build-core>=0.10" "nanobind>=2.0" "numpy>=1.25"
# scikit-build-core would name Python's compiler (g++), CMake's default
# names c++: the same compiler, but ccache keys on the name too.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}
CC=$(grep -Po '^CMAKE_C_COMPILER:FILEPATH=\K.*' build/release/CMakeCache.txt) \
CXX=$(grep -Po '^CMAKE_CXX_COMPILER:FILEPATH=\K.*' build/release/CMakeCache.txt) \
CMAKE_BUILD_PARALLEL_LEVEL=$jobs bounded "$venv/pip" install -q --no-build-isolation \
  -C cmake.build-type=RelWithDebInfo -C cmake.define.XFFI_WERROR=ON \
  -C build-dir="$work/wheel-build" "$root"

step "the installed package"
(cd "$work" && "$venv/python" - "$consumer" <<'PY'
import os, sys, numpy as np
import xffi
package = os.path.dirname(xffi.__file__)
assert xffi.__file__.startswith(sys.prefix), (xffi.__file__, sys.prefix)
include = xffi.include_dir()
for header in ("xffi/ffi.h", "xla/ffi/api/ffi.h", "xla/ffi/api/api.h",
               "xla/ffi/api/c_api.h"):
    assert os.path.isfile(os.path.join(include, header)), header
assert os.path.isfile(os.path.join(xffi.cmake_dir(), "xffiConfig.cmake"))
print("xffi", xffi.__version__, "from", package)
PY
)
# A build that found the CUDA toolkit ships CudaDevice in the wheel, beside
# libxffi_program, where platform "cuda" loads it from: without a GPU the
# error must come from the CUDA runtime, not from a missing library.
if [ -f build/release/src/libxffi_cuda.so ]; then
  (cd "$work" && "$venv/python" - <<'PY'
import glob, os
import xffi
package = os.path.dirname(xffi.__file__)
found = glob.glob(os.path.join(package, "**", "libxffi_cuda.so"), recursive=True)
assert found, "the wheel lacks libxffi_cuda.so"
program = glob.glob(os.path.join(package, "**", "libxffi_program.so*"), recursive=True)
assert os.path.dirname(found[0]) == os.path.dirname(program[0]), (found, program)
text = "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> { return %x : tensor<2xf32> }"
try:
    xffi.Program.from_text(text, platform="cuda")
except RuntimeError as error:
    assert "did not load" not in str(error), error
    print("platform cuda without a GPU:", error)
else:
    print("platform cuda: a CUDA device is present")
PY
  ) || fail "the wheel's CudaDevice"
fi
"$venv/xffi" --help | grep -q "run PROGRAM" || fail "the xffi command's help lacks 'run'"
step "consumer project against the pip install's xffi.cmake_dir()"
run_consumer wheel "$venv/xffi" \
  -Dxffi_DIR="$("$venv/python" -c 'import xffi; print(xffi.cmake_dir())')"
step "ffi_call in the pip install, on the consumer's handler"
"$venv/python" - "$work/consumer-wheel/libconsumer_scale.so" <<'PY'
import sys, numpy as np
import xffi
xffi.load_library(sys.argv[1])
x = np.array([1.0, -2.0, 0.5, 8.0], np.float32)
y = xffi.ffi_call("consumer.scale", xffi.ShapeDtypeStruct(x.shape, x.dtype))(
    x, factor=np.float32(2.5))
np.testing.assert_array_equal(y, np.float32(2.5) * x + np.arange(4, dtype=np.float32))
print("ffi_call: ok")
PY
step "install paths pass"
