#!/usr/bin/env bash
# The main job. Builds what it needs (the xffi command, the example handler
# libraries and the seed program, in build/example), then
#  1. runs the seed program: handler libraries (typed FFI and legacy) loaded
#     as plugins, dispatched through the runtime, results checked against a
#     reference computed on the host;
#  2. runs a real program with `xffi run`: examples/programs/norm_block, a
#     JAX function exported as StableHLO and as HLO text that calls the
#     rms_norm and do_custom_call handlers among ordinary ops (a matmul,
#     GELU, softmax, reductions), on its saved inputs, checked against the
#     outputs JAX computed.
# Needs a C++20 compiler, CMake and Eigen's headers (installed with apt-get
# by scripts/deps.sh when missing and run as root); no network otherwise.
# XFFI_JOBS sets the build's parallelism (default: all cores).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

if [ ! -f /usr/include/eigen3/Eigen/Core ]; then
  scripts/deps.sh
fi

# As in scripts/build.sh: ccache (when installed) keys objects by paths
# relative to the checkout, so this build reuses the test build's objects.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}

# The build's own output goes to a log, shown on failure.
bin=build/example
mkdir -p "$bin"
log=$bin/build.log
echo "building xffi and the example handlers in $bin (log: $log) ..."
if ! { cmake -S . -B "$bin" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
         -DXFFI_BUILD_TESTS=OFF -DXFFI_BUILD_BENCH=OFF \
         -DXFFI_REQUIRE_XLA_HEADERS=OFF &&
       cmake --build "$bin" -j "${XFFI_JOBS:-$(nproc)}" \
         --target xffi_cli seed_program; } >"$log" 2>&1; then
  tail -n 60 "$log" >&2
  echo "run_example.sh: the build failed; the whole log is $log" >&2
  exit 1
fi

status=0
echo "== seed program =="
$bin/examples/seed_program/seed_program \
  --plugin $bin/examples/do_custom_call/libdo_custom_call.so \
  --plugin $bin/examples/subtract_f32/libsubtract_f32.so \
  --plugin $bin/examples/rms_norm/librms_norm.so \
  --plugin $bin/examples/do_custom_call_legacy/libdo_custom_call_legacy.so ||
  status=1

program=examples/programs/norm_block
for text in "$program.mlir" "$program.hlo"; do
  echo
  echo "== xffi run $text =="
  if $bin/src/xffi run "$text" \
      --plugin $bin/examples/rms_norm/librms_norm.so \
      --plugin $bin/examples/do_custom_call/libdo_custom_call.so \
      --input "$program.in_0.npy" --input "$program.in_1.npy" \
      --input "$program.in_2.npy" \
      --expect "$program.out_0.npy" --expect "$program.out_1.npy" \
      --output-dir "$bin/norm_block.out" --repeat 20; then
    echo "main job: $text PASSED (matches JAX's results)"
  else
    echo "main job: $text FAILED"
    status=1
  fi
done
echo
if [ $status -eq 0 ]; then
  echo "run_example.sh: PASS"
else
  echo "run_example.sh: FAIL"
fi
exit $status
