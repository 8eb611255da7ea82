#!/usr/bin/env bash
# Runs every test: the C++ suite optimised, the C++ suite again under
# AddressSanitizer + UBSan, and the Python suite. Sets up what it needs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
jobs=${XFFI_JOBS:-$(nproc)}

echo "== release build + tests"
scripts/build.sh release
ctest --test-dir build/release --output-on-failure -j "$jobs"

echo "== AddressSanitizer + UBSan build + tests"
scripts/build.sh asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/asan --output-on-failure -j "$jobs"

if compgen -G "tests/python/test_*.py" >/dev/null; then
  echo "== Python tests"
  .venv/bin/python -m pytest -q tests/python
fi
