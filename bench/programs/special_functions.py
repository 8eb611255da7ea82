#!/usr/bin/env python3
"""CPU time per execution of the chlo special functions on the CPU backend.

One program per op and type (erf_inv, lgamma, digamma, bessel_i1e, zeta,
polygamma; f32, f64) over 16384 elements, compiled with one intra-op
thread and timed by the calling thread's CPU time (time.thread_time), which
a loaded machine inflates far less than wall time: the minimum over 5
stretches of 0.1 s. Run it on two builds, alternating, for an A/B:

  .venv/bin/python bench/programs/special_functions.py BUILD_DIR

Inputs: erf_inv's uniform in (-0.99, 0.99), the others' x uniform in
(0.1, 30), zeta's and polygamma's first operand an integer 1..5.
"""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.abspath(sys.argv[1]), "python"))

import numpy as np  # noqa: E402
import xffi  # noqa: E402

N = 16384
OPS = [("erf_inv", "erf-inv", "x"), ("lgamma", "lgamma", "y"),
       ("digamma", "digamma", "y"), ("bessel_i1e", "bessel-i1e", "y"),
       ("zeta", "zeta", "n, y"), ("polygamma", "polygamma", "n, y")]


def main():
  rng = np.random.default_rng(7)
  inputs = [rng.uniform(-0.99, 0.99, N), rng.uniform(0.1, 30, N),
            rng.integers(1, 6, N).astype(np.float64)]
  for dtype, name in ((np.float32, "f32"), (np.float64, "f64")):
    args = [a.astype(dtype) for a in inputs]
    for label, op, operands in OPS:
      text = f"""HloModule {label}_{name}
ENTRY main {{
  x = {name}[{N}] parameter(0)
  y = {name}[{N}] parameter(1)
  n = {name}[{N}] parameter(2)
  ROOT r = {name}[{N}] {op}({operands})
}}
"""
      program = xffi.Program.from_text(text, intra_op_threads=1)
      program(*args)
      best = float("inf")
      for _ in range(5):
        start = time.thread_time()
        runs = 0
        while time.thread_time() - start < 0.1:
          program(*args)
          runs += 1
        best = min(best, (time.thread_time() - start) / runs)
      print(f"{label} {name} {best * 1e6:.1f}", flush=True)


if __name__ == "__main__":
  main()
