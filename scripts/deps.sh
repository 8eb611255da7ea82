#!/usr/bin/env bash
# Fetches what the tests compare against, into ignored folders of the repo:
#   .venv/                 jax + jaxlib for this Python (FFI headers of that
#                          jaxlib, and real JAX for interop tests), flatbuffers
#                          (jax.export serialization)
#   .deps/jaxlib-<v>/      the FFI headers of the newest jaxlib the registry
#                          serves (built for a newer Python, so only unpacked)
#   libeigen3-dev          Eigen's headers, from Debian's packages (when root)
#   liblapack-dev,         LAPACK and BLAS for the built-in CPU LAPACK targets
#   libopenblas-dev        (src/cpu/lapack): reference LAPACK's interface,
#                          OpenBLAS's implementation, from Debian (when root)
#   llvm-16-dev            LLVM 16, the CPU backend's code generator
#                          (src/cpu/codegen), from Debian (when root)
#   libdnnl-dev            oneDNN, f32/s8 GEMMs of dot_general and
#                          convolution (src/cpu/dnnl_gemm.*), from Debian
#                          (when root)
#   ccache                 shares objects between the test stages (when root)
#   IREE (pip), only with XFFI_BENCH_DEPS=1: bench/workloads/deps.sh
# Prints nothing on success except pip's own errors; fails with a message
# naming what is missing. Idempotent.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

JAXLIB_LOCAL_VERSION=${JAXLIB_LOCAL_VERSION:-0.10.2}
JAXLIB_NEWEST_VERSION=${JAXLIB_NEWEST_VERSION:-0.12.0.1}
JAXLIB_NEWEST_PYTHON=${JAXLIB_NEWEST_PYTHON:-3.12}

fail() {
  echo "scripts/deps.sh: $*" >&2
  exit 1
}

# Installs Debian packages with apt when root; else fails naming them.
apt_install() {
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    apt-get install -y -q "$@" >/dev/null ||
      { apt-get update -q >/dev/null && apt-get install -y -q "$@" >/dev/null; } ||
      fail "cannot install $* with apt-get"
  else
    fail "$* missing: install them (Debian package names) as root"
  fi
}

# Eigen (the matrix kernels of the CPU executor) comes from Debian's package.
[ -f /usr/include/eigen3/Eigen/Core ] || apt_install libeigen3-dev

# LAPACK for the built-in jaxlib targets: OpenBLAS (its LAPACK and BLAS in
# one library, libopenblas.so) and reference LAPACK (the fallback when
# OpenBLAS is absent; bench/README.md compares the two).
lib_dir=/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
{ [ -e "$lib_dir/libopenblas.so" ] && [ -e "$lib_dir/liblapack.so" ]; } ||
  apt_install libopenblas-dev liblapack-dev

# LLVM 16 for the CPU backend's code generator: its CMake package and the
# shared libLLVM-16.so (Apache-2.0 WITH LLVM-exception).
[ -f /usr/lib/llvm-16/lib/cmake/llvm/LLVMConfig.cmake ] || apt_install llvm-16-dev

# oneDNN for the CPU backend's f32 and s8 GEMMs (Apache-2.0); optional to
# CMake, like OpenBLAS for the products.
[ -f /usr/include/oneapi/dnnl/dnnl.h ] || apt_install libdnnl-dev

# ccache, when we may install it: the stages of scripts/test.sh share
# objects through it (the TSan build's uninstrumented kernels and the pip
# wheel's libraries are the release build's, compiled the same way), so a
# clean machine compiles them once rather than three times. Optional: CMake
# uses it only when found.
if ! command -v ccache >/dev/null && command -v apt-get >/dev/null &&
  [ "$(id -u)" = 0 ]; then
  apt_install ccache
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv || fail "cannot create .venv (is python3-venv installed?)"
fi
# flatbuffers: jax.export's serialization (xffi.Program.from_exported tests).
if ! .venv/bin/python -c "import jaxlib, jax, numpy, pytest, nanobind, flatbuffers, sys; sys.exit(jaxlib.__version__ != '$JAXLIB_LOCAL_VERSION' or jax.__version__ != '$JAXLIB_LOCAL_VERSION')" 2>/dev/null; then
  .venv/bin/pip install -q --disable-pip-version-check \
    "jax==$JAXLIB_LOCAL_VERSION" "jaxlib==$JAXLIB_LOCAL_VERSION" numpy pytest nanobind flatbuffers
fi

newest=.deps/jaxlib-$JAXLIB_NEWEST_VERSION
if [ ! -f "$newest/include/xla/ffi/api/c_api.h" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  .venv/bin/pip download -q --disable-pip-version-check --no-deps \
    --only-binary=:all: --python-version "$JAXLIB_NEWEST_PYTHON" \
    --platform manylinux_2_27_x86_64 \
    "jaxlib==$JAXLIB_NEWEST_VERSION" -d "$tmp"
  mkdir -p "$newest"
  .venv/bin/python - "$tmp" "$newest" <<'PY'
import pathlib, sys, zipfile
src, dst = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
wheel = next(src.glob("jaxlib-*.whl"))
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if name.startswith("jaxlib/include/"):
            target = dst / "include" / name[len("jaxlib/include/"):]
            if name.endswith("/"):
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(z.read(name))
PY
fi

.venv/bin/python -c "import jax.ffi, jaxlib, sys; sys.exit(jaxlib.__version__ != '$JAXLIB_LOCAL_VERSION')" ||
  fail "the venv has no jax/jaxlib $JAXLIB_LOCAL_VERSION after pip install"
[ -f "$newest/include/xla/ffi/api/ffi.h" ] ||
  fail "jaxlib $JAXLIB_NEWEST_VERSION's wheel had no xla/ffi/api headers"

# The workload benchmark's third engine (IREE), only when asked for: no test
# uses it (bench/workloads/deps.sh, bench/README.md).
if [ "${XFFI_BENCH_DEPS:-0}" = 1 ]; then
  bench/workloads/deps.sh || fail "bench/workloads/deps.sh failed"
fi
