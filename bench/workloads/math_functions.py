#!/usr/bin/env python3
"""One transcendental function at a time: XLA:CPU against xffi.

elementwise_f32's chain (workloads.py) is tanh, exp, sin, cos, log1p, sqrt
and divides over one 2048x2048 f32 array; this times each of them alone
(a jax.jit of jnp.sin(x) against xffi.Program.from_text of the same
lowering, the same input) so that the slow ones can be told apart. The
sides alternate within each round (A/B/A/B...), and the table gives the
median over the rounds of each side's mean time per call: wall time and
the process's CPU time (all its threads), per element.

  xffi_legacy compiles the same text with XFFI_MATH_LEGACY=1 set (the math
  emitter's earlier f32 functions), for an A/B in one process.

  .venv/bin/python bench/workloads/math_functions.py --build $PWD/build/release
  .venv/bin/python bench/workloads/math_functions.py --build ... --threads 1
"""

import argparse
import os
import pathlib
import statistics
import sys
import time

import numpy as np

FUNCTIONS = {
    "tanh": lambda jnp, x: jnp.tanh(x),
    "exp": lambda jnp, x: jnp.exp(-x * x),
    "sin": lambda jnp, x: jnp.sin(x),
    "cos": lambda jnp, x: jnp.cos(x),
    "sin*cos": lambda jnp, x: jnp.sin(x) * jnp.cos(x),
    "log1p": lambda jnp, x: jnp.log1p(jnp.abs(x)),
    "log": lambda jnp, x: jnp.log(jnp.abs(x)),
    "sqrt": lambda jnp, x: jnp.sqrt(jnp.abs(x) + 1),
    "divide": lambda jnp, x: 1 / (1 + x * x),
    "copy": lambda jnp, x: x + 1,
    # In a reduction's kernel, which has no pass for special elements.
    "sum(sin)": lambda jnp, x: jnp.sum(jnp.sin(x), axis=1),
    # elementwise_bf16/f16's chain, its second operand made from the first.
    "half_chain": lambda jnp, x: (lambda y: jnp.tanh(x * y) + jnp.exp(
        x * 0.5) * y - jnp.maximum(x, y) / (1 + y * y))(x * 0.5 + 0.25),
    "chain": lambda jnp, x: (jnp.tanh(x) * jnp.exp(-x * x) + jnp.sin(x) * jnp.
                             cos(x) - jnp.log1p(jnp.abs(x)) + jnp.sqrt(
                                 jnp.abs(x) + 1) / (1 + x * x)),
}


def timed(call, min_time):
  """Mean wall and CPU seconds per call over at least `min_time`."""
  call()
  calls = 0
  wall0, cpu0 = time.perf_counter(), time.process_time()
  while True:
    call()
    calls += 1
    wall = time.perf_counter() - wall0
    if wall >= min_time:
      return wall / calls, (time.process_time() - cpu0) / calls


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--build", required=True, help="ABSOLUTE build dir")
  parser.add_argument("--threads", type=int, default=0,
                      help="1: XLA and xffi on one thread (0: their default)")
  parser.add_argument("--rounds", type=int, default=5)
  parser.add_argument("--min-time", type=float, default=0.25)
  parser.add_argument("--sides", default="xla,xffi,xffi_legacy")
  parser.add_argument("--size", type=int, default=2048)
  parser.add_argument("--dtype", default="float32",
                      help="float32, float64, bfloat16 or float16")
  parser.add_argument("functions", nargs="*", default=list(FUNCTIONS))
  args = parser.parse_args()
  if args.threads == 1:
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                               " --xla_cpu_multi_thread_eigen=false"
                               " intra_op_parallelism_threads=1")
  sys.path.insert(0, str(pathlib.Path(args.build) / "python"))
  import jax  # pylint: disable=import-outside-toplevel
  import jax.numpy as jnp  # pylint: disable=import-outside-toplevel
  import xffi  # pylint: disable=import-outside-toplevel
  jax.config.update("jax_platforms", "cpu")
  sides = args.sides.split(",")
  if args.dtype == "float64":
    jax.config.update("jax_enable_x64", True)
  dtype = (jnp.bfloat16 if args.dtype == "bfloat16" else np.dtype(args.dtype))
  x = np.random.default_rng(0).standard_normal(
      (args.size, args.size)).astype(dtype)
  elements = x.size
  device_x = jax.device_put(x)
  print(f"# {elements} {args.dtype} elements, threads={args.threads or 'default'}, "
        f"load {os.getloadavg()[0]:.2f}")
  print(f"{'function':10s} " + " ".join(f"{s + ' wall':>16s} {s + ' cpu':>15s}"
                                        for s in sides) +
        "  (ns/element, median)  " +
        " ".join(f"{s}/xla" for s in sides if s != "xla"))
  for name in args.functions:
    fn = FUNCTIONS[name]
    jitted = jax.jit(lambda v, fn=fn: fn(jnp, v))
    text = jitted.lower(device_x).as_text()
    calls = {}
    reference = np.asarray(jitted(device_x))
    for side in sides:
      if side == "xla":
        calls[side] = lambda: jitted(device_x).block_until_ready()
        continue
      legacy = side == "xffi_legacy"
      if legacy:
        os.environ["XFFI_MATH_LEGACY"] = "1"
      program = xffi.Program.from_text(text, intra_op_threads=args.threads)
      os.environ.pop("XFFI_MATH_LEGACY", None)
      got = np.asarray(program(x))
      got, want = got.astype(np.float64), reference.astype(np.float64)
      worst = np.max(np.abs(got - want) / np.maximum(np.abs(want), 1e-30))
      if worst > {"float64": 1e-12, "float32": 1e-5}.get(args.dtype, 1e-2):
        print(f"# {name} {side}: largest relative difference from XLA "
              f"{worst:.3g}")
      calls[side] = lambda program=program: program(x)
    samples = {side: ([], []) for side in sides}
    for _ in range(args.rounds):
      for side in sides:
        wall, cpu = timed(calls[side], args.min_time)
        samples[side][0].append(wall)
        samples[side][1].append(cpu)
    medians = {
        side: (statistics.median(w) / elements * 1e9,
               statistics.median(c) / elements * 1e9)
        for side, (w, c) in samples.items()
    }
    ratios = ""
    if "xla" in sides:
      ratios = " ".join(f"{medians[s][0] / medians['xla'][0]:.2f}w/"
                        f"{medians[s][1] / medians['xla'][1]:.2f}c"
                        for s in sides if s != "xla")
    print(f"{name:10s} " + " ".join(f"{medians[s][0]:16.3f} {medians[s][1]:15.3f}"
                                    for s in sides) + "  " + ratios,
          flush=True)
  print(f"# load after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
  main()
