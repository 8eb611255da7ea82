#!/usr/bin/env bash
# Configures and builds one flavour of the project into build/<flavour>.
#   scripts/build.sh release            optimised, with tests, examples, bench
#   scripts/build.sh asan               AddressSanitizer + UBSan, tests only
# Fetches the comparison headers first (scripts/deps.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
flavour=${1:-release}

scripts/deps.sh
xla_local=$(.venv/bin/python -c 'import jax.ffi; print(jax.ffi.include_dir())')
xla_newest=$(ls -d "$root"/.deps/jaxlib-*/include | sort -V | tail -n 1)
jobs=${XFFI_JOBS:-$(nproc)}

case "$flavour" in
  release)
    flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
  asan)
    flags=(-DCMAKE_BUILD_TYPE=Debug -DXFFI_SANITIZE=address,undefined
           -DXFFI_BUILD_BENCH=OFF) ;;
  *) echo "scripts/build.sh: unknown flavour '$flavour' (release or asan)" >&2
     exit 2 ;;
esac

cmake -S . -B "build/$flavour" -G "Unix Makefiles" "${flags[@]}" \
  "-DXFFI_XLA_INCLUDE_DIRS=$xla_local;$xla_newest" \
  -DPython3_EXECUTABLE="$root/.venv/bin/python" >/dev/null
cmake --build "build/$flavour" -j "$jobs"
