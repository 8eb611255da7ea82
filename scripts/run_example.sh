#!/usr/bin/env bash
# The main job: builds xffi and runs the seed program end to end: handler
# libraries (typed FFI and legacy) loaded as plugins, dispatched through the
# runtime, results checked against a reference computed on the host.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/build.sh release >/dev/null
exec build/release/examples/seed_program/seed_program \
  --plugin build/release/examples/do_custom_call/libdo_custom_call.so \
  --plugin build/release/examples/subtract_f32/libsubtract_f32.so \
  --plugin build/release/examples/rms_norm/librms_norm.so \
  --plugin build/release/examples/do_custom_call_legacy/libdo_custom_call_legacy.so \
  "$@"
