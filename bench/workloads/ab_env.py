#!/usr/bin/env python3
"""A/B of an xffi switch on workloads, interleaved in one process.

run.py runs each engine in a process of its own, one after the other: on a
shared machine whose load moves by the minute, two such runs (one per value
of a switch read from the environment) compare badly. Here one process
compiles the workload with xffi twice, VAR=A and VAR=B set while each
compiles (switches read at compile time), and jax.jit once, then times
them in rounds: each round one batch of calls per engine, in rotating
order, so the three see the same load. Reported per engine: the median
over the rounds of the mean time per call, and the ratios of those
medians; and xffi's compile time (the least of three alternating compiles
after a warm-up that loads the code generator).

  .venv/bin/python bench/workloads/ab_env.py --build $PWD/build/release \
      --var XFFI_CODEGEN_FEW_COLUMNS --values 1,0 conv_bn_grad

Each workload is lowered here as run.py lowers it (its texts, inputs and
JAX's results go to --work-dir) and both xffi builds are checked against
JAX's results before anything is timed.
"""

import argparse
import os
import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import run  # pylint: disable=wrong-import-position
import workloads  # pylint: disable=wrong-import-position


def timed_batch(engine, calls):
  start = time.perf_counter()
  for _ in range(calls):
    engine.run()
  return (time.perf_counter() - start) / calls


def measure(name, work_dir, build, var, values, rounds, batch_seconds):
  spec = workloads.WORKLOADS[name]
  inputs, references = run.lower(spec, work_dir)
  engines = {}
  compile_seconds = {value: [] for value in values}
  # The first program that generates code loads LLVM: not either side's.
  run.XffiEngine(name, work_dir, inputs, build, ".mlir").warm_up()
  for _ in range(3):
    for value in values:
      os.environ[var] = value
      engine = run.XffiEngine(name, work_dir, inputs, build, ".mlir")
      start = time.perf_counter()
      engine.compile()
      compile_seconds[value].append(time.perf_counter() - start)
      engines[f"{var}={value}"] = engine
  os.environ.pop(var, None)
  for value in values:
    engine = engines[f"{var}={value}"]
    problem = run.compare(engine.to_host(engine.run()), references, spec.atol)
    if problem:
      raise SystemExit(f"{name} with {var}={value}: {problem}")
  compile_seconds = {v: min(t) for v, t in compile_seconds.items()}
  xla = run.XlaEngine(name, work_dir, inputs, build)
  xla.compile()
  xla.run()
  engines["xla"] = xla
  labels = list(engines)
  # Calls per batch from one call of each (at least one).
  calls = {}
  for label in labels:
    once = timed_batch(engines[label], 1)
    calls[label] = max(1, int(batch_seconds / max(once, 1e-6)))
  times = {label: [] for label in labels}
  for r in range(rounds):
    order = labels[r % len(labels):] + labels[:r % len(labels)]
    for label in order:
      times[label].append(timed_batch(engines[label], calls[label]))
  return {label: statistics.median(t) for label, t in times.items()}, \
      compile_seconds


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--build", required=True,
                      help="build folder with the Python module (absolute)")
  parser.add_argument("--work-dir", default="/tmp/xffi_workloads")
  parser.add_argument("--var", required=True, help="environment variable")
  parser.add_argument("--values", default="1,0",
                      help="its two values, A,B (default 1,0)")
  parser.add_argument("--rounds", type=int, default=15)
  parser.add_argument("--batch-seconds", type=float, default=0.2)
  parser.add_argument("names", nargs="+", help="workloads (workloads.py)")
  args = parser.parse_args()
  values = args.values.split(",")
  if len(values) != 2:
    parser.error("--values takes two values, A,B")
  unknown = [n for n in args.names if n not in workloads.WORKLOADS]
  if unknown:
    parser.error(f"unknown workloads: {', '.join(unknown)}")
  pathlib.Path(args.work_dir).mkdir(parents=True, exist_ok=True)
  load = os.getloadavg()
  print(f"load average at the start: {load[0]:.2f} {load[1]:.2f} "
        f"{load[2]:.2f}; {args.rounds} rounds", flush=True)
  a, b = (f"{args.var}={v}" for v in values)
  print(f"A: {a}, B: {b}")
  print("| workload | XLA ms | A ms | B ms | A/XLA | B/XLA | A/B | "
        "compile ms A | B |")
  print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
  for name in args.names:
    medians, compiles = measure(name, args.work_dir, args.build, args.var,
                                values, args.rounds, args.batch_seconds)
    x, ta, tb = medians["xla"], medians[a], medians[b]
    print(f"| {name} | {x * 1e3:.2f} | {ta * 1e3:.2f} | {tb * 1e3:.2f} | "
          f"{ta / x:.2f} | {tb / x:.2f} | {ta / tb:.2f} | "
          f"{compiles[values[0]] * 1e3:.0f} | {compiles[values[1]] * 1e3:.0f} |",
          flush=True)
  load = os.getloadavg()
  print(f"load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
  main()
