#!/usr/bin/env bash
# The long versions of the stress tests scripts/test.sh runs scaled down:
# 8 threads x 100k mixed runtime operations each (800k; the issue's size),
# 8 threads x 2500 runs of one program against its serial results, and the
# Python threads 20x longer. Uses build/<flavour> (default release; tsan for
# the same under ThreadSanitizer, the Python threads through
# scripts/tsan_python.sh). XFFI_STRESS_OPS overrides the runtime test's
# operations per thread. Figures of past runs: fuzz/README.md, "Stress
# runs".
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
flavour=${1:-release}
build="build/$flavour"
[ -x "$build/tests/cpp/test_runtime_stress" ] ||
  { echo "scripts/stress.sh: build $build first (scripts/build.sh $flavour)" >&2; exit 1; }
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1}
XFFI_STRESS_OPS=${XFFI_STRESS_OPS:-100000} "$build/tests/cpp/test_runtime_stress"
XFFI_STRESS_RUNS=2500 "$build/tests/cpp/test_executor_concurrency"
if [ "$flavour" = release ]; then
  XFFI_STRESS_CALLS=800 XFFI_BUILD_DIR="$root/$build" \
    .venv/bin/python -m pytest -q tests/python/test_concurrency.py
elif [ "$flavour" = tsan ]; then
  XFFI_STRESS_CALLS=800 scripts/tsan_python.sh
fi
