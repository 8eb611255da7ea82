#!/usr/bin/env python3
"""CPU time per call of workloads under xffi and XLA:CPU, interleaved.

On a machine other processes load, wall times swing by 2-4x between runs
(run.py's XLA mlp_gelu measured 42-86 ms within five minutes at load 4 on
2 cores) while the CPU time a call consumes moves by a few percent. This
script times each workload's xffi.Program (the StableHLO text JAX lowers)
and its jax.jit call one after the other, call for call, and prints the
median process CPU time and wall time per call of each as one JSON line:

  {"mlp_gelu": {"xffi": [wall_ms, cpu_ms], "xla": [wall_ms, cpu_ms]}, ...}

CPU time counts every thread of the process (the pool's spinning included),
so with --threads 1 (xffi) under `taskset -c N` (XLA then sizes its pool
to one core) it is the work of one core. Environment switches (XFFI_*)
apply to the xffi side: run the script once per setting, alternating, for
an A/B.

  .venv/bin/python bench/workloads/cpu_time.py --build $PWD/build/release \\
      --threads 1 --reps 15 mlp_gelu mlp_grad
"""

import argparse
import json
import pathlib
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def median_ms(values):
  return round(sorted(values)[len(values) // 2] * 1e3, 3)


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--build", default=str(ROOT / "build" / "release"))
  parser.add_argument("--threads", type=int, default=0,
                      help="xffi's intra_op_threads (0: one per hardware "
                      "thread)")
  parser.add_argument("--reps", type=int, default=15)
  parser.add_argument("names", nargs="+", help="workloads of workloads.py")
  args = parser.parse_args()
  sys.path.insert(0, str(pathlib.Path(args.build) / "python"))
  import jax  # pylint: disable=import-outside-toplevel
  jax.config.update("jax_platforms", "cpu")
  import run  # pylint: disable=import-outside-toplevel
  import workloads  # pylint: disable=import-outside-toplevel
  import xffi  # pylint: disable=import-outside-toplevel

  out = {}
  with tempfile.TemporaryDirectory() as work_dir:
    for name in args.names:
      if name not in workloads.WORKLOADS:
        parser.error(f"no workload named {name!r}")
      spec = workloads.WORKLOADS[name]
      inputs, _ = run.lower(spec, work_dir)
      jax.config.update("jax_enable_x64", spec.x64)
      text = (pathlib.Path(work_dir) / (name + ".mlir")).read_text()
      program = xffi.Program.from_text(text, intra_op_threads=args.threads)
      jitted = jax.jit(spec.fn)
      device_inputs = [jax.device_put(a) for a in inputs]
      calls = {
          "xffi": lambda p=program: p(*inputs),
          "xla": lambda j=jitted: jax.block_until_ready(j(*device_inputs)),
      }
      for _ in range(3):
        for call in calls.values():
          call()
      times = {side: ([], []) for side in calls}
      for _ in range(args.reps):
        for side, call in calls.items():
          wall, cpu = time.perf_counter(), time.process_time()
          call()
          times[side][0].append(time.perf_counter() - wall)
          times[side][1].append(time.process_time() - cpu)
      out[name] = {
          side: [median_ms(wall), median_ms(cpu)]
          for side, (wall, cpu) in times.items()
      }
  print(json.dumps(out))


if __name__ == "__main__":
  main()
