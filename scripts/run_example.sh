#!/usr/bin/env bash
# The main job: builds xffi and runs the seed program end to end: handler
# libraries (typed FFI and legacy) loaded as plugins, dispatched through the
# runtime, results checked against a reference computed on the host.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# The build's own output (and the stderr of tests that register bad targets
# on purpose while ctest discovers them) goes to a log, shown on failure.
mkdir -p build
log=build/run_example.build.log
echo "building xffi (log: $log) ..."
if ! scripts/build.sh release >"$log" 2>&1; then
  tail -n 60 "$log" >&2
  echo "run_example.sh: the build failed; the whole log is $log" >&2
  exit 1
fi
exec build/release/examples/seed_program/seed_program \
  --plugin build/release/examples/do_custom_call/libdo_custom_call.so \
  --plugin build/release/examples/subtract_f32/libsubtract_f32.so \
  --plugin build/release/examples/rms_norm/librms_norm.so \
  --plugin build/release/examples/do_custom_call_legacy/libdo_custom_call_legacy.so \
  "$@"
