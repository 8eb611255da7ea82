#!/usr/bin/env bash
# The Python tests whose native code runs on several threads, against the
# ThreadSanitizer build (scripts/build.sh tsan builds the extension module
# and the handler libraries they load into build/tsan):
#   test_concurrency.py         8 Python threads calling one Program (a while
#                               loop around a custom call, intra-op pool of
#                               2) and ffi_call at once, runs failing in
#                               instantiate beside good ones, both entry
#                               points meeting inside a handler with the GIL
#                               released
#   test_custom_call_timeout.py an abandoned future completed late by another
#                               thread, a run waiting on one
#   test_program.py             compiled programs run on the intra-op pool
#                               (1 to 8 threads) from Python, the Builder
# These are the paths where Python's threads meet xffi's (GIL release,
# per-run arenas, call-site state, futures, the pool). Tests that run JAX
# are left out (-k "not jax"): jaxlib's thread pools synchronise in
# uninstrumented code in ways TSan reports even when told to ignore the
# library's interceptor calls, and no xffi code runs on their threads. The
# rest of the suite calls xffi from one thread.
#
# The venv's python is not instrumented, so libtsan is preloaded (the one
# build/tsan links), and PYTHONMALLOC=malloc makes CPython allocate through
# malloc, which TSan intercepts (its own pool reuses memory unseen, which
# shows as races between unrelated objects). Only third-party frames are
# suppressed (scripts/tsan_python.supp, each with its reason); a report in
# xffi's code fails the run. Arguments are passed to pytest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build="$root/build/tsan"
[ -f "$build/tests/python/plugins/libpython_test_handlers.so" ] &&
  compgen -G "$build/python/xffi/_core*.so" >/dev/null ||
  { echo "scripts/tsan_python.sh: run scripts/build.sh tsan first" >&2; exit 1; }
libtsan=$(ldd "$build/src/libxffi.so" | awk '/libtsan/ {print $3}')
[ -n "$libtsan" ] ||
  { echo "scripts/tsan_python.sh: $build/src/libxffi.so links no libtsan" >&2; exit 1; }
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$root/scripts/tsan_python.supp${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
PYTHONMALLOC=malloc XFFI_BUILD_DIR="$build" LD_PRELOAD="$libtsan" \
  .venv/bin/python -m pytest -q -p no:cacheprovider --capture=sys \
  tests/python/test_concurrency.py tests/python/test_custom_call_timeout.py \
  tests/python/test_program.py -k "not jax" "$@"
