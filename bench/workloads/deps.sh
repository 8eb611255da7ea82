#!/usr/bin/env bash
# What bench/workloads/run.py needs beyond the test dependencies: IREE's
# compiler and runtime (PyPI iree-base-compiler and iree-base-runtime,
# Apache-2.0 with LLVM exceptions), its third column. Installed into the
# project's .venv; the tests never need them, so scripts/deps.sh installs
# them only when asked (XFFI_BENCH_DEPS=1). Idempotent.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

IREE_VERSION=${IREE_VERSION:-3.13.0}

[ -x .venv/bin/python ] || scripts/deps.sh
if ! .venv/bin/python - "$IREE_VERSION" <<'PY' 2>/dev/null; then
import importlib.metadata as m, sys
want = sys.argv[1]
sys.exit(any(m.version(p) != want
             for p in ("iree-base-compiler", "iree-base-runtime")))
PY
  .venv/bin/pip install -q --disable-pip-version-check \
    "iree-base-compiler==$IREE_VERSION" "iree-base-runtime==$IREE_VERSION" ||
    { echo "bench/workloads/deps.sh: cannot install IREE $IREE_VERSION" >&2; exit 1; }
fi
