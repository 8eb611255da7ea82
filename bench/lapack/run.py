#!/usr/bin/env python3
"""Linear algebra that JAX lowers to jaxlib's LAPACK custom calls, under
jax.jit (XLA:CPU calling jaxlib's handlers on SciPy's OpenBLAS) and under
xffi (the same lowered StableHLO on xffi's built-in handlers, on the LAPACK
libxffi_program links: the system's OpenBLAS by default).

Each side: the median over 5 batches of the mean time per call, after a
warm-up, inputs already on the device (JAX) or in NumPy arrays (xffi.Program
called from Python; its dispatch is microseconds against milliseconds of
LAPACK). A third column runs xffi's executor with jaxlib's own handlers
(xffi.jax.register_jaxlib_targets(replace_builtins=True)): the same kernels
as XLA, so it shows what the executor around them costs.

  XFFI_BUILD_DIR=build/release .venv/bin/python bench/lapack/run.py

To time reference LAPACK and BLAS instead of OpenBLAS under xffi, preload
them (their symbols then win over OpenBLAS's for libxffi_program):

  LD_PRELOAD=/usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3:\
/usr/lib/x86_64-linux-gnu/blas/libblas.so.3 ... run.py
"""

import argparse
import os
import platform
import statistics
import sys
import timeit

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
sys.path.insert(0, os.path.join(
    os.environ.get("XFFI_BUILD_DIR", os.path.join(ROOT, "build", "release")),
    "python"))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import xffi  # noqa: E402
import xffi.jax  # noqa: E402


def rng(seed):
  return np.random.default_rng(seed)


def workloads():
  n = 512
  a = (rng(1).standard_normal((n, n)) + n**0.5 * np.eye(n)).astype(np.float32)
  b = rng(2).standard_normal((n, 8)).astype(np.float32)
  m = 256
  s = rng(3).standard_normal((m, m)).astype(np.float32)
  s = (s + s.T) / 2
  spd = (s @ s.T + m * np.eye(m)).astype(np.float32)
  return [
      ("solve 512x512 f32, 8 rhs", jnp.linalg.solve, (a, b)),
      ("cholesky 256x256 f32", jnp.linalg.cholesky, (spd,)),
      ("eigh 256x256 f32", jnp.linalg.eigh, (s,)),
      ("svd 256x256 f32 (values)",
       lambda x: jnp.linalg.svd(x, compute_uv=False), (s,)),
      ("qr 256x256 f32", jnp.linalg.qr, (s,)),
  ]


def timed(call, min_time, batches=5):
  """The median over `batches` of the mean seconds per call; timeit's
  autorange (at least 0.2 s) warms up and sizes the batches."""
  timer = timeit.Timer(call)
  number, elapsed = timer.autorange()
  number = max(1, round(number * min_time / batches / elapsed))
  return statistics.median(t / number for t in timer.repeat(batches, number))


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--min-time", type=float, default=1.0,
                      help="seconds per workload and side")
  args = parser.parse_args()
  jax.config.update("jax_platforms", "cpu")
  rows = []
  for name, f, inputs in workloads():
    jitted = jax.jit(f)
    on_device = [jax.device_put(x) for x in inputs]
    xla = timed(lambda: jax.block_until_ready(jitted(*on_device)),
                args.min_time)
    text = jitted.lower(*inputs).as_text()
    builtin = xffi.Program.from_text(text)
    ours = timed(lambda: builtin(*inputs), args.min_time)
    xffi.jax.register_jaxlib_targets(replace_builtins=True)
    try:
      theirs_program = xffi.Program.from_text(text)
      theirs = timed(lambda: theirs_program(*inputs), args.min_time)
    finally:
      xffi.restore_builtin_targets()
    rows.append((name, xla, ours, theirs))
  preload = os.environ.get("LD_PRELOAD", "")
  lapack = ("reference LAPACK + BLAS (LD_PRELOAD)" if "lapack" in preload
            else "the LAPACK libxffi_program links")
  print(f"jax {jax.__version__}, {platform.machine()}, {os.cpu_count()} "
        f"cores; xffi's built-ins on {lapack}; median of 5 batches, "
        f"{args.min_time} s per workload and side.\n")
  print("| workload | XLA ms | xffi ms | xffi/XLA | xffi + jaxlib's "
        "handlers ms |")
  print("|---|---:|---:|---:|---:|")
  for name, xla, ours, theirs in rows:
    print(f"| {name} | {xla * 1e3:.3g} | {ours * 1e3:.3g} | "
          f"{ours / xla:.2f} | {theirs * 1e3:.3g} |")


if __name__ == "__main__":
  main()
