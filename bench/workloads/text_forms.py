#!/usr/bin/env python3
"""xffi from the StableHLO text against xffi from the HLO text, interleaved.

run.py times "xffi py SHLO" and "xffi py HLO" in processes of their own, one
after the other; on a loaded machine the two columns then differ by the
load between them (random_normal_threefry's swung 3x). Here one process
lowers each workload as run.py does, compiles xffi.Program from both texts
and jax.jit, checks both against JAX's results, then times them in rounds
of one batch each, in rotating order, and prints the median per call of
process CPU time (all threads) and wall time, and SHLO/HLO of each:
what the text form costs, with the load the same for both.

  taskset -c 1 .venv/bin/python bench/workloads/text_forms.py \\
      --build $PWD/build/release --threads 1 elementwise_c64

Environment switches (XFFI_*) apply to both xffi programs.
"""

import argparse
import os
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import run  # pylint: disable=wrong-import-position
import workloads  # pylint: disable=wrong-import-position


def timed_batch(call, calls):
  wall, cpu = time.perf_counter(), time.process_time()
  for _ in range(calls):
    call()
  return ((time.perf_counter() - wall) / calls,
          (time.process_time() - cpu) / calls)


def median(values):
  return sorted(values)[len(values) // 2]


def measure(name, args):
  spec = workloads.WORKLOADS[name]
  inputs, references = run.lower(spec, args.work_dir)
  import xffi  # pylint: disable=import-outside-toplevel
  calls = {}
  for label, suffix in (("shlo", ".mlir"), ("hlo", ".hlo")):
    path = pathlib.Path(args.work_dir) / (name + suffix)
    program = xffi.Program.from_text(path.read_text(), source_name=path.name,
                                     intra_op_threads=args.threads)
    result = program(*inputs)
    result = list(result) if isinstance(result, tuple) else [result]
    problem = run.compare(result, references, spec.atol)
    if problem:
      raise SystemExit(f"{name} from {path.name}: {problem}")
    calls[label] = lambda program=program: program(*inputs)
  xla = run.XlaEngine(name, args.work_dir, inputs, args.build)
  xla.compile()
  xla.run()
  calls["xla"] = xla.run
  labels = list(calls)
  batch = {}
  for label in labels:
    once = timed_batch(calls[label], 1)[0]
    batch[label] = max(1, int(args.batch_seconds / max(once, 1e-6)))
  times = {label: ([], []) for label in labels}
  for r in range(args.rounds):
    for label in labels[r % len(labels):] + labels[:r % len(labels)]:
      wall, cpu = timed_batch(calls[label], batch[label])
      times[label][0].append(wall)
      times[label][1].append(cpu)
  return {label: (median(w), median(c)) for label, (w, c) in times.items()}


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--build", required=True,
                      help="build folder with the Python module (absolute)")
  parser.add_argument("--work-dir", default="/tmp/xffi_workloads")
  parser.add_argument("--threads", type=int, default=0,
                      help="xffi's intra_op_threads (0: one per core)")
  parser.add_argument("--rounds", type=int, default=15)
  parser.add_argument("--batch-seconds", type=float, default=0.1)
  parser.add_argument("names", nargs="+", help="workloads (workloads.py)")
  args = parser.parse_args()
  unknown = [n for n in args.names if n not in workloads.WORKLOADS]
  if unknown:
    parser.error(f"unknown workloads: {', '.join(unknown)}")
  sys.path.insert(0, str(pathlib.Path(args.build) / "python"))
  pathlib.Path(args.work_dir).mkdir(parents=True, exist_ok=True)
  load = os.getloadavg()
  print(f"load average at the start: {load[0]:.2f} {load[1]:.2f} "
        f"{load[2]:.2f}; {args.rounds} rounds; ms per call, CPU (wall)")
  print("| workload | XLA | xffi SHLO | xffi HLO | SHLO/HLO CPU (wall) |")
  print("|---|---:|---:|---:|---:|")
  for name in args.names:
    m = measure(name, args)
    cell = lambda label: f"{m[label][1] * 1e3:.2f} ({m[label][0] * 1e3:.2f})"
    print(f"| {name} | {cell('xla')} | {cell('shlo')} | {cell('hlo')} | "
          f"{m['shlo'][1] / m['hlo'][1]:.2f} "
          f"({m['shlo'][0] / m['hlo'][0]:.2f}) |", flush=True)
  load = os.getloadavg()
  print(f"load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
  main()
