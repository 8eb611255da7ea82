#!/usr/bin/env python3
"""Corpus programs under jax.jit (XLA:CPU) and under xffi, side by side.

For each program of tests/programs/ (and examples/programs/norm_block), in
one run on one machine:
  XLA   the JAX function of tests/programs/generate.py, jax.jit-compiled,
        called on device-resident inputs with block_until_ready, after a
        warm-up: the median over 5 batches of the mean time per call.
        This includes JAX's Python dispatch, which is what a JAX user pays
        per execution; the table's header gives that floor (a jitted x + 1
        on an f32 scalar) so it can be told apart.
  xffi  bench_programs (bench/programs/bench_programs.cc): the program's
        StableHLO text parsed and compiled once, then Executable::ExecuteRaw
        on buffers allocated once, timed the same way, in process; plus the
        part of that time spent inside op kernels and the kernels that
        took longest (from a second, profiled executable).
The shard_map programs (sm_*) run in JAX on the 4 CPU devices the
generator asks for, and in xffi as one program on one core with every
device's body side by side.
Prints a markdown table with the ratio xffi/XLA (below 1: xffi is faster)
and writes it to --markdown.

  .venv/bin/python bench/programs/run.py --build build/release \
      --markdown bench/programs/latest.md [NAME...]
"""

import argparse
import ctypes
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

import jax
import numpy as np


def load_generator(folder):
  """The generate.py of tests/programs or examples/programs, as a module."""
  path = os.path.join(ROOT, folder, "generate.py")
  spec = importlib.util.spec_from_file_location(
      folder.replace("/", "_") + "_generate", path)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


def time_jax(f, args, min_time, batches=5, x64=False, shardings=None):
  # x64 as the generator traced it, so JAX runs the program the text holds;
  # a shard_map program's inputs placed over its mesh, as generated.
  with jax.enable_x64(x64):
    jitted = jax.jit(f)
    args = [jax.device_put(a, s) for a, s in
            zip(args, shardings or [None] * len(args))]
    for _ in range(3):
      jax.block_until_ready(jitted(*args))
    per_call = []
    for _ in range(batches):
      runs = 0
      start = time.perf_counter()
      while True:
        jax.block_until_ready(jitted(*args))
        runs += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_time / batches:
          break
      per_call.append(elapsed / runs)
  return statistics.median(per_call)


def register_handlers(build):
  for target, path, symbol in (
      ("rms_norm", "examples/rms_norm/librms_norm.so", "RmsNorm"),
      ("do_custom_call", "examples/do_custom_call/libdo_custom_call.so",
       "DoCustomCall")):
    lib = ctypes.cdll.LoadLibrary(os.path.join(build, path))
    jax.ffi.register_ffi_target(target,
                                jax.ffi.pycapsule(getattr(lib, symbol)),
                                platform="cpu")


def fmt_us(seconds):
  us = seconds * 1e6
  return f"{us:.2f}" if us < 10 else f"{us:.1f}"


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--build", default="build/release",
                      help="build folder with bench/programs/bench_programs "
                      "and the example handler libraries")
  parser.add_argument("--min-time", type=float, default=0.5,
                      help="seconds of timed runs per program and engine")
  parser.add_argument("--markdown", help="also write the table here")
  parser.add_argument("names", nargs="*", help="only these programs")
  args = parser.parse_args()
  jax.config.update("jax_platforms", "cpu")
  build = os.path.join(ROOT, args.build)
  register_handlers(build)

  corpus = load_generator("tests/programs")
  example = load_generator("examples/programs")
  programs = {}
  for name, (f, inputs) in corpus.PROGRAMS.items():
    programs[name] = (f, inputs,
                      os.path.join("tests", "programs", name + ".mlir"))
  example_dir = os.path.join("examples", "programs")
  programs["norm_block"] = (example.norm_block, [
      np.load(os.path.join(ROOT, example_dir, f"norm_block.in_{k}.npy"))
      for k in range(3)
  ], os.path.join(example_dir, "norm_block.mlir"))
  if args.names:
    programs = {k: v for k, v in programs.items() if k in args.names}

  bench = os.path.join(build, "bench", "programs", "bench_programs")
  command = [bench, "--min-time", str(args.min_time)]
  for lib in ("examples/rms_norm/librms_norm.so",
              "examples/do_custom_call/libdo_custom_call.so"):
    command += ["--plugin", os.path.join(build, lib)]
  command += [path for _, _, path in programs.values()]
  xffi_times = {}
  output = subprocess.run(command, capture_output=True, text=True,
                          check=False, cwd=ROOT)
  if output.returncode != 0:
    sys.exit(f"run.py: {bench} failed:\n{output.stderr}")
  for line in output.stdout.splitlines():
    record = json.loads(line)
    xffi_times[record["program"]] = record

  floor = time_jax(lambda x: x + 1, [np.float32(1)], args.min_time)
  rows = []
  ratios = []
  for name, (f, inputs, path) in programs.items():
    shardings = None
    if name in corpus.SHARDED_PROGRAMS:
      mesh, specs = corpus.SHARDED_PROGRAMS[name]
      shardings = [jax.sharding.NamedSharding(mesh, s) for s in specs]
    with corpus.use_shardy(name not in corpus.GSPMD_PROGRAMS):
      xla = time_jax(f, inputs, args.min_time,
                     x64=name in corpus.X64_PROGRAMS, shardings=shardings)
    record = xffi_times.get(path, {"error": "not run"})
    if "seconds" in record:
      seconds = record["seconds"]
      ratio = seconds / xla
      ratios.append(ratio)
      kernels = record["kernel_seconds"]
      share = f"{100 * min(kernels / seconds, 1):.0f}%" if seconds else "-"
      top = ", ".join(f"{op} {fmt_us(t)}" for op, t in record["ops"][:3])
      rows.append((name, fmt_us(xla), fmt_us(seconds), f"{ratio:.2f}",
                   f"{fmt_us(kernels)} ({share})", str(record["thunks"]),
                   top or "-"))
    else:
      error = record["error"].splitlines()[0][:90]
      rows.append((name, fmt_us(xla), "-", f"error: {error}", "-", "-", "-"))
    print(" | ".join(rows[-1]), flush=True)

  lines = [
      f"jax {jax.__version__}, {platform.machine()}, "
      f"{os.cpu_count()} cores; median of 5 batches, "
      f"{args.min_time:g} s per program and engine. JAX's per-call floor "
      f"(jit of x + 1 on an f32 scalar): {fmt_us(floor)} us.",
      "",
      "| program | XLA us | xffi us | xffi/XLA | xffi kernels us (share) "
      "| thunks | slowest kernels (us per execution) |",
      "|---|---:|---:|---:|---:|---:|---|",
  ]
  lines += [f"| {' | '.join(row)} |" for row in rows]
  if ratios:
    geomean = float(np.exp(np.mean(np.log(ratios))))
    over = sum(1 for r in ratios if r > 2)
    lines += [
        "",
        f"{len(ratios)} of {len(rows)} programs ran under xffi; geometric "
        f"mean of xffi/XLA {geomean:.2f}, worst {max(ratios):.2f}; "
        f"{over} over 2.",
    ]
  table = "\n".join(lines) + "\n"
  print()
  print(table)
  if args.markdown:
    with open(args.markdown, "w") as file:
      file.write(table)


if __name__ == "__main__":
  main()
