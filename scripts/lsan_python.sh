#!/usr/bin/env bash
# The Python tests whose native code allocates, with LeakSanitizer (and
# AddressSanitizer + UBSan) watching xffi's code, against the ASan build
# (scripts/build.sh asan builds the extension module and the handler
# libraries they load into build/asan):
#   test_program.py             compiled programs: parse, compile, run,
#                               results handed to numpy, the Builder
#   test_ffi_call.py            eager calls: frames, attributes, results,
#                               a handler that throws
#   test_registration.py        targets, stateful handlers, user data
#   test_custom_call_timeout.py futures completed late or never, abandoned
#                               runs and what they keep
#   test_device_arrays.py       device arrays and their transfers
#   test_concurrency.py         threads calling programs and ffi_call, runs
#                               failing in instantiate beside good ones
#   test_result_memory.py       result arrays lent to numpy and given back
#   test_library.py             handler libraries loaded, listed, registered
# Tests that run JAX are left out (-k "not jax", and scripts/lsan_pytest.py
# makes jax unimportable, so importorskip("jax") skips): jaxlib is
# uninstrumented, its bindings drop references at import, and no xffi code
# runs in those tests that the ones above do not run.
#
# The venv's python is not instrumented, so libasan is preloaded (the one
# build/asan links), and PYTHONMALLOC=malloc makes CPython allocate through
# malloc, where LeakSanitizer sees it (its own arenas would hide what xffi's
# objects point to). The pytest process is checked when pytest is done, not
# at exit (scripts/lsan_pytest.py says why); --capture=sys keeps a
# sanitizer's report that ends the process from being swallowed by pytest's
# capture. Only third-party frames are suppressed (scripts/lsan_python.supp,
# each with its reason); a leak in xffi's code fails the run. First a
# self-check: a handler that leaks, called through ffi_call, must be
# reported, so a suppression that hid leaks under xffi's calls would fail
# the stage. Arguments are passed to pytest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build="$root/build/asan"
plugin="$build/tests/python/plugins/libpython_test_handlers.so"
[ -f "$plugin" ] && compgen -G "$build/python/xffi/_core*.so" >/dev/null ||
  { echo "scripts/lsan_python.sh: run scripts/build.sh asan first" >&2; exit 1; }
libasan=$(ldd "$build/src/libxffi.so" | awk '/libasan/ {print $3}')
libstdcxx=$(ldd "$build/src/libxffi.so" | awk '/libstdc\+\+/ {print $3}')
[ -n "$libasan" ] && [ -n "$libstdcxx" ] ||
  { echo "scripts/lsan_python.sh: $build/src/libxffi.so links no libasan or libstdc++" >&2; exit 1; }
# libstdc++ too, preloaded after libasan: ASan resolves the real
# __cxa_throw when it starts, and python does not link libstdc++, so
# without it the first C++ exception (an xffi error raised into Python)
# dies in ASan's interceptor ("CHECK failed: ... real___cxa_throw != 0").
preload="$libasan $libstdcxx"

# intercept_tls_get_addr=0: as in the C++ ASan stage (scripts/test.sh).
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:intercept_tls_get_addr=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$root/scripts/lsan_python.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export PYTHONMALLOC=malloc XFFI_BUILD_DIR="$build"
python=("$root/.venv/bin/python")

# The self-check, through the same plugin and checks as the tests below.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cat >"$scratch/test_lsan_self_check.py" <<'PY'
import os

import numpy as np
import xffi


def test_a_handler_that_leaks():
    lib = xffi.load_library(os.environ["LSAN_SELF_CHECK_PLUGIN"])
    xffi.register_ffi_target("lsan_self_check.leak", lib.Leak)
    leaked = xffi.ffi_call("lsan_self_check.leak",
                           xffi.ShapeDtypeStruct((), np.int64))(bytes=4321)
    assert leaked == 4321
PY
if LD_PRELOAD="$preload" PYTHONPATH="$root/scripts:$build/python" \
  LSAN_SELF_CHECK_PLUGIN="$plugin" "${python[@]}" -m pytest -q \
  -p no:cacheprovider -p lsan_pytest --capture=sys --rootdir "$scratch" \
  "$scratch/test_lsan_self_check.py" >"$scratch/log" 2>&1; then
  cat "$scratch/log" >&2
  echo "scripts/lsan_python.sh: a leaking handler went unreported" >&2
  exit 1
fi
grep -q "1 passed" "$scratch/log" &&
  grep -q "Direct leak of 4321 byte" "$scratch/log" &&
  grep -q "LeakImpl" "$scratch/log" || {
  cat "$scratch/log" >&2
  echo "scripts/lsan_python.sh: the leaking handler's report is missing" >&2
  exit 1
}
echo "scripts/lsan_python.sh: self-check passed (a 4321-byte leak in a handler called through ffi_call was reported)"

LD_PRELOAD="$preload" PYTHONPATH="$root/scripts" \
  "${python[@]}" -m pytest -q -p no:cacheprovider -p lsan_pytest --capture=sys \
  tests/python/test_program.py tests/python/test_ffi_call.py \
  tests/python/test_registration.py tests/python/test_custom_call_timeout.py \
  tests/python/test_device_arrays.py tests/python/test_concurrency.py \
  tests/python/test_result_memory.py tests/python/test_library.py \
  -k "not jax" "$@"
