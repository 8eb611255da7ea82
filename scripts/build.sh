#!/usr/bin/env bash
# Configures and builds one flavour of the project into build/<flavour>.
#   scripts/build.sh release     optimised: library, tests, examples, bench
#   scripts/build.sh asan        AddressSanitizer + UBSan: library, tests,
#                                the examples they load and the Python module
#                                (scripts/lsan_python.sh) (no bench)
#   scripts/build.sh tsan        ThreadSanitizer: only the libraries, the
#                                tests listed in scripts/tsan_tests.txt (the
#                                ones that run threads), and the Python module
#                                with the handler libraries its threaded tests
#                                load (scripts/tsan_python.sh), which is what
#                                the TSan stage of scripts/test.sh runs
# Fetches the comparison headers first (scripts/deps.sh). XFFI_JOBS sets the
# build's parallelism (default: all cores).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
flavour=${1:-release}
targets=()  # empty: everything

fail() {
  echo "scripts/build.sh: $*" >&2
  exit 1
}

case "$flavour" in
  release)
    # The Python module too: tests/python imports it from the build tree.
    flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DXFFI_BUILD_PYTHON=ON
           -DPython_EXECUTABLE="$root/.venv/bin/python") ;;
  asan)
    # Benchmarks are not tests. Examples stay: test_ffi_examples loads the
    # example handler libraries, and they should run sanitized too, as do
    # the Python tests that scripts/lsan_python.sh runs on this build.
    flags=(-DCMAKE_BUILD_TYPE=Debug -DXFFI_SANITIZE=address,undefined
           -DXFFI_BUILD_BENCH=OFF -DXFFI_BUILD_PYTHON=ON
           -DPython_EXECUTABLE="$root/.venv/bin/python") ;;
  tsan)
    # Optimised as release is: the data-parallel kernels compile
    # uninstrumented (src/CMakeLists.txt), so ccache hands over the release
    # stage's objects for them, which were most of this stage's cost. Only
    # the listed targets.
    flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DXFFI_SANITIZE=thread
           -DXFFI_BUILD_BENCH=OFF -DXFFI_BUILD_PYTHON=ON
           -DPython_EXECUTABLE="$root/.venv/bin/python")
    mapfile -t targets < <(grep -v '^#' scripts/tsan_tests.txt | grep .)
    # scripts/tsan_python.sh: the module and what its tests load.
    targets+=(_core rms_norm python_test_handlers) ;;
  *) fail "unknown flavour '$flavour' (release, asan or tsan)" ;;
esac

scripts/deps.sh || fail "scripts/deps.sh failed; see its output above"

# The two official FFI headers the ABI, interop and benchmark targets are
# compiled against: the local jaxlib's (FFI 0.3) and the newest's (FFI 0.5).
xla_local=$(.venv/bin/python -c 'import jax.ffi; print(jax.ffi.include_dir())') ||
  fail "cannot ask the venv's jax for its include dir"
xla_newest=$(find -H "$root/.deps" -mindepth 2 -maxdepth 2 -path '*/jaxlib-*/include' |
  sort -V | tail -n 1)
for dir in "$xla_local" "$xla_newest"; do
  [ -n "$dir" ] && [ -f "$dir/xla/ffi/api/c_api.h" ] ||
    fail "no xla/ffi/api/c_api.h under '$dir' (rerun scripts/deps.sh)"
done

jobs=${XFFI_JOBS:-$(nproc)}
# ccache (used when installed, see CMakeLists.txt) keys objects by paths
# relative to the checkout and not by the build directory, so a fresh clone
# of the same sources reuses what an earlier checkout compiled.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}
# The test units share a precompiled header (tests/cpp/CMakeLists.txt):
# ccache caches a unit that uses one only with these, and the header is newer
# than the file stamps ccache otherwise insists on.
export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}
cmake -S . -B "build/$flavour" -G "Unix Makefiles" "${flags[@]}" \
  "-DXFFI_XLA_INCLUDE_DIRS=$xla_local;$xla_newest" \
  -DXFFI_REQUIRE_XLA_HEADERS=ON \
  -DXFFI_REQUIRE_CODEGEN=ON \
  -DPython3_EXECUTABLE="$root/.venv/bin/python" >/dev/null
build_targets=()
[ ${#targets[@]} -gt 0 ] && build_targets=(--target "${targets[@]}")
cmake --build "build/$flavour" -j "$jobs" "${build_targets[@]}"
