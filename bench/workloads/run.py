#!/usr/bin/env python3
"""Workloads of realistic size under XLA:CPU, xffi and IREE, side by side.

For each workload of workloads.py (a JAX function and inputs from a fixed
seed), in one run on one machine:

  1. JAX 0.10 lowers it once: jax.jit(f).lower(*inputs).as_text() (StableHLO)
     and .as_text("hlo") (the HLO of the lowering, before XLA optimises it);
     the texts, the inputs and JAX's own results (the reference) go to
     --work-dir as NAME.mlir, NAME.hlo, NAME.in_K.npy, NAME.ref_K.npy.
  2. Each engine then runs in a fresh process of its own (run.py --worker):
       xla             the jax.jit call on device-resident inputs, with
                       block_until_ready;
       xffi_stablehlo  xffi.Program.from_text(NAME.mlir) called on the NumPy
       xffi_hlo        inputs (and NAME.hlo), from Python;
       iree            iree.compiler.compile_str(NAME.mlir, llvm-cpu backend,
                       the host CPU) called through iree.runtime on
                       device-resident inputs.
     Each measures its compile time (JAX: lower + compile; xffi: parse +
     compile; IREE: compile + load), checks its first result against the
     reference (tolerances per dtype, TOLERANCES), measures its peak memory
     (Memory) and times the call: the median over 5 batches of the mean
     time per call, each batch min-time / 5 long.
  3. bench/programs/bench_programs times Executable::ExecuteRaw on the same
     two text files and inputs, in process, and reports where the time goes
     by kernel.

Results go to --json (everything measured) and --markdown (the tables);
`--table RESULTS.json` rewrites the tables from a results file.

  .venv/bin/python bench/workloads/run.py --build build/release
  .venv/bin/python bench/workloads/run.py --quick --check   # correctness only

See bench/README.md ("Workloads") for what the columns mean.
"""

import argparse
import ctypes
import datetime
import gc
import importlib.metadata
import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import tables  # beside this script, which Python puts first on sys.path

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SIDES = ("xla", "xffi_stablehlo", "xffi_hlo", "iree")
# Each engine compiles and runs a program of this many elements (exp(x) + x,
# large enough to reach its code generator) before memory is measured: the
# one-time costs of a process's first compilation (loading the compiler's
# library, as xffi's libxffi_codegen.so + libLLVM load on first use and
# JAX's LLVM at import, and initialising the JIT) then count on no side.
WARM_UP_ELEMENTS = 4096
BATCHES = 5

# Per dtype: (rtol, atol as a fraction of the largest |reference| value). An
# element passes when |got - want| <= atol * scale + rtol * |want|.
TOLERANCES = {
    "float64": (1e-9, 1e-12),
    "complex128": (1e-9, 1e-12),
    "float32": (2e-4, 1e-5),
    "complex64": (2e-4, 1e-5),
    "float16": (2e-2, 2e-3),
    "bfloat16": (5e-2, 1e-2),
}

# --- checking results --------------------------------------------------------


def compare(outputs, references, atol=None):
  """None when `outputs` match `references`, else what differs (one line).
  `atol`, when given, replaces a smaller float tolerance's atol (a workload's
  own: see Workload.atol)."""
  if len(outputs) != len(references):
    return f"{len(outputs)} results, JAX gives {len(references)}"
  for k, (got, want) in enumerate(zip(outputs, references)):
    got = np.asarray(got)
    if got.dtype != want.dtype and got.dtype.itemsize == want.dtype.itemsize \
        and got.dtype.kind in "uV" and want.dtype.name == "bfloat16":
      got = got.view(want.dtype)  # IREE hands bf16 back as raw 16-bit words
    where = f"result {k} ({want.dtype}{list(want.shape)})"
    if got.dtype != want.dtype or got.shape != want.shape:
      return f"{where}: got {got.dtype}{list(got.shape)}"
    if want.dtype.name not in TOLERANCES:
      wrong = np.flatnonzero(got.reshape(-1) != want.reshape(-1))
      if wrong.size:
        i = np.unravel_index(wrong[0], want.shape)
        return (f"{where}: {wrong.size} elements differ, first at "
                f"{list(i)}: got {got[i]}, want {want[i]}")
      continue
    rtol, dtype_atol = TOLERANCES[want.dtype.name]
    atol = max(dtype_atol, atol or 0.0)
    wide = np.complex128 if want.dtype.kind == "c" else np.float64
    # Flat, so that a scalar result is an array like the others.
    g, w = got.astype(wide).reshape(-1), want.astype(wide).reshape(-1)
    finite = np.isfinite(w)
    infinite = ~finite & ~np.isnan(w)
    if not np.array_equal(np.isnan(g), np.isnan(w)) or not np.array_equal(
        g[infinite], w[infinite]):
      return f"{where}: non-finite values differ"
    if not finite.any():
      continue
    scale = float(np.max(np.abs(w[finite])))
    with np.errstate(invalid="ignore"):  # inf - inf where both are inf
      err = np.where(finite, np.abs(g - w), 0)
    bad = err > atol * scale + rtol * np.abs(w)
    if bad.any():
      i = np.unravel_index(np.argmax(np.where(bad, err, 0)), want.shape)
      return (f"{where}: {int(bad.sum())} elements off, worst at {list(i)}: "
              f"got {got[i]}, want {want[i]} (rtol {rtol:g}, atol "
              f"{atol:g} x {scale:.3g})")
  return None


# --- memory ------------------------------------------------------------------


def status_kb():
  values = {}
  with open("/proc/self/status") as status:
    for line in status:
      key, _, value = line.partition(":")
      if key in ("VmRSS", "VmHWM", "RssAnon"):
        values[key] = int(value.split()[0])
  return values


class Memory:
  """Peak memory of one engine's program, in its own process.

  Two parts, added up:
    held   anonymous memory the process holds after compiling and running
           once, above what it held with the engine loaded and warmed up
           (WARM_UP_ELEMENTS) and the inputs placed (the compiled program,
           its caches and any buffers it keeps between calls); file-backed
           pages (code first touched while compiling) do not count;
    run    the resident high-water mark while it runs (results included),
           above the resident size just before, after the kernel's
           high-water mark is reset (/proc/self/clear_refs).
  Freed heap is handed back (malloc_trim) before each reading, so memory a
  compiler used and freed does not hide what running needs."""

  def __init__(self):
    try:
      self._trim = ctypes.CDLL("libc.so.6").malloc_trim
    except OSError:
      self._trim = lambda _: None
    self._settle()
    self.anon_at_start = status_kb()["RssAnon"]

  def _settle(self):
    gc.collect()
    self._trim(0)

  def held_mb(self):
    self._settle()
    return (status_kb()["RssAnon"] - self.anon_at_start) / 1024

  def run_peak_mb(self, call, times):
    """The peak over `times` calls, and the seconds of the last call."""
    self._settle()
    with open("/proc/self/clear_refs", "w") as clear:
      clear.write("5")
    before = status_kb()["VmRSS"]
    for _ in range(times):
      start = time.perf_counter()
      result = call()
      seconds = time.perf_counter() - start
      del result
    return (status_kb()["VmHWM"] - before) / 1024, seconds


# --- timing ------------------------------------------------------------------


def time_calls(call, min_time, first_seconds):
  """Median over batches of the mean seconds per call, and the calls made.
  A call slower than a batch's share of min_time runs in fewer one-call
  batches (at least one)."""
  if first_seconds * BATCHES > min_time:
    count = max(1, min(BATCHES, int(min_time / first_seconds)))
    per_call = []
    for _ in range(count):
      start = time.perf_counter()
      call()
      per_call.append(time.perf_counter() - start)
    return statistics.median(per_call), count
  per_call, total = [], 0
  for _ in range(BATCHES):
    runs = 0
    start = time.perf_counter()
    while True:
      call()
      runs += 1
      elapsed = time.perf_counter() - start
      if elapsed >= min_time / BATCHES:
        break
    per_call.append(elapsed / runs)
    total += runs
  return statistics.median(per_call), total


# --- engines (each in its own worker process) --------------------------------


class XlaEngine:
  """The jax.jit call, as a JAX user makes it."""

  def __init__(self, name, work_dir, inputs, build):
    del work_dir, build
    import jax
    jax.config.update("jax_platforms", "cpu")
    import workloads  # pylint: disable=import-outside-toplevel
    spec = workloads.WORKLOADS[name]
    jax.config.update("jax_enable_x64", spec.x64)
    self._jax = jax
    self._jitted = jax.jit(spec.fn)
    self._args = [jax.device_put(a) for a in inputs]
    jax.block_until_ready(self._args)

  def warm_up(self):
    small = self._jax.device_put(np.ones(WARM_UP_ELEMENTS, np.float32))
    self._jax.block_until_ready(
        self._jax.jit(lambda x: self._jax.numpy.exp(x) + x)(small))

  def compile(self):
    # The jitted call reuses this executable (JAX caches it per signature).
    self._jitted.lower(*self._args).compile()

  def run(self):
    return self._jax.block_until_ready(self._jitted(*self._args))

  def to_host(self, result):
    return [np.asarray(x) for x in self._jax.tree.leaves(result)]


class XffiEngine:
  """xffi.Program from one text form, called from Python on NumPy arrays."""

  def __init__(self, name, work_dir, inputs, build, suffix):
    sys.path.insert(0, str(pathlib.Path(build) / "python"))
    import xffi  # pylint: disable=import-outside-toplevel
    self._xffi = xffi
    self._path = pathlib.Path(work_dir) / (name + suffix)
    self._text = self._path.read_text()
    self._inputs = inputs

  def warm_up(self):
    n = WARM_UP_ELEMENTS
    program = self._xffi.Program.from_text(
        f"func.func @main(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{\n"
        f"  %0 = stablehlo.exponential %x : tensor<{n}xf32>\n"
        f"  %1 = stablehlo.add %0, %x : tensor<{n}xf32>\n"
        f"  return %1 : tensor<{n}xf32>\n}}\n")
    program(np.ones(n, np.float32))

  def compile(self):
    # Default options: intra_op_threads=0, one per hardware thread.
    self._program = self._xffi.Program.from_text(self._text,
                                                 source_name=self._path.name)

  def run(self):
    return self._program(*self._inputs)

  def to_host(self, result):
    return list(result) if isinstance(result, tuple) else [result]


class IreeEngine:
  """IREE's llvm-cpu backend for the host CPU, on the local-task driver."""

  def __init__(self, name, work_dir, inputs, build):
    del build
    import iree.compiler  # pylint: disable=import-outside-toplevel
    import iree.runtime  # pylint: disable=import-outside-toplevel
    self._compiler, self._runtime = iree.compiler, iree.runtime
    self._text = (pathlib.Path(work_dir) / (name + ".mlir")).read_text()
    self._config = iree.runtime.Config("local-task")
    self._args = [self._place(a) for a in inputs]

  def warm_up(self):
    n = WARM_UP_ELEMENTS
    flatbuffer = self._compiler.compile_str(
        f"func.func @main(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{\n"
        f"  %0 = stablehlo.exponential %x : tensor<{n}xf32>\n"
        f"  %1 = stablehlo.add %0, %x : tensor<{n}xf32>\n"
        f"  return %1 : tensor<{n}xf32>\n}}\n",
        target_backends=["llvm-cpu"], input_type="stablehlo",
        extra_args=["--iree-llvmcpu-target-cpu=host"])
    context = self._runtime.SystemContext(config=self._config)
    module = self._runtime.VmModule.copy_buffer(context.instance, flatbuffer)
    context.add_vm_module(module)
    small = self._runtime.asdevicearray(self._config.device,
                                        np.ones(n, np.float32))
    getattr(context.modules, module.name).main(small).to_host()

  def _place(self, array):
    if array.dtype.name != "bfloat16":
      return self._runtime.asdevicearray(self._config.device, array)
    # asdevicearray maps dtypes itself and has no bf16 (ml_dtypes'): the
    # buffer is made from the raw 16-bit words with the element type named.
    device, runtime = self._config.device, self._runtime
    view = device.allocator.allocate_buffer_copy(
        memory_type=runtime.MemoryType.DEVICE_LOCAL,
        allowed_usage=runtime.BufferUsage.DEFAULT, device=device,
        buffer=array.view(np.uint16),
        element_type=runtime.HalElementType.BFLOAT_16)
    return runtime.DeviceArray(device, view, override_dtype=np.uint16)

  def compile(self):
    flatbuffer = self._compiler.compile_str(
        self._text, target_backends=["llvm-cpu"], input_type="stablehlo",
        # f64 stays f64, as in the program (IREE demotes it by default).
        extra_args=["--iree-llvmcpu-target-cpu=host",
                    "--iree-input-demote-f64-to-f32=false"])
    context = self._runtime.SystemContext(config=self._config)
    module = self._runtime.VmModule.copy_buffer(context.instance, flatbuffer)
    context.add_vm_module(module)
    self._main = getattr(context.modules, module.name).main

  def run(self):
    # Synchronous: the invocation returns when the results are ready.
    return self._main(*self._args)

  def to_host(self, result):
    leaves = result if isinstance(result, (tuple, list)) else [result]
    return [x.to_host() for x in leaves]


def make_engine(side, name, work_dir, inputs, build):
  if side == "xla":
    return XlaEngine(name, work_dir, inputs, build)
  if side == "xffi_stablehlo":
    return XffiEngine(name, work_dir, inputs, build, ".mlir")
  if side == "xffi_hlo":
    return XffiEngine(name, work_dir, inputs, build, ".hlo")
  if side == "iree":
    return IreeEngine(name, work_dir, inputs, build)
  raise ValueError(f"unknown side {side!r}")


def load_arrays(work_dir, name, kind):
  arrays = []
  while True:
    path = pathlib.Path(work_dir) / f"{name}.{kind}_{len(arrays)}.npy"
    if not path.exists():
      return arrays
    arrays.append(np.load(path, allow_pickle=False))


def restore_dtype(array, dtype_name):
  if array.dtype.name == dtype_name:
    return array
  import ml_dtypes  # pylint: disable=import-outside-toplevel
  return array.view(getattr(ml_dtypes, dtype_name))


def worker(side, name, work_dir, min_time, build):
  """One engine on one workload; prints one JSON object."""
  record = {}
  try:
    dtypes = json.loads(
        (pathlib.Path(work_dir) / f"{name}.dtypes.json").read_text())
    inputs = [restore_dtype(a, d) for a, d in zip(
        load_arrays(work_dir, name, "in"), dtypes["in"])]
    references = [restore_dtype(a, d) for a, d in zip(
        load_arrays(work_dir, name, "ref"), dtypes["ref"])]
    engine = make_engine(side, name, work_dir, inputs, build)
    engine.warm_up()
    memory = Memory()
    start = time.perf_counter()
    engine.compile()
    record["compile_seconds"] = time.perf_counter() - start
    start = time.perf_counter()
    result = engine.run()
    first = time.perf_counter() - start
    mismatch = compare(engine.to_host(result), references,
                       dtypes.get("atol"))
    del result
    if mismatch:
      record["mismatch"] = mismatch
    record["held_mb"] = memory.held_mb()
    # A call longer than min_time (some take seconds, or minutes) is timed
    # once, in the call that measures memory.
    slow = first > min_time
    record["run_peak_mb"], last = memory.run_peak_mb(engine.run,
                                                     1 if slow else 3)
    record["peak_mb"] = record["held_mb"] + record["run_peak_mb"]
    if slow:
      record["seconds"], record["runs"] = last, 1
    else:
      record["seconds"], record["runs"] = time_calls(engine.run, min_time,
                                                     first)
  except Exception as error:  # pylint: disable=broad-except
    # Any failure (unsupported op, compile error) is a result to report.
    message = str(error).strip() or type(error).__name__
    record["error"] = f"{type(error).__name__}: {message}"
  print(json.dumps(record), flush=True)


# --- the driver --------------------------------------------------------------


def lower(spec, work_dir):
  """Writes NAME.mlir, NAME.hlo, inputs and JAX's results to work_dir."""
  import jax  # pylint: disable=import-outside-toplevel
  jax.config.update("jax_enable_x64", spec.x64)
  inputs = spec.inputs()
  lowered = jax.jit(spec.fn).lower(*inputs)
  stem = pathlib.Path(work_dir) / spec.name
  stem.with_suffix(".mlir").write_text(lowered.as_text())
  stem.with_suffix(".hlo").write_text(lowered.as_text("hlo"))
  references = [
      np.asarray(x)
      for x in jax.tree.leaves(lowered.compile()(*inputs))
  ]
  for kind, arrays in (("in", inputs), ("ref", references)):
    for k, array in enumerate(arrays):
      np.save(f"{stem}.{kind}_{k}.npy", array, allow_pickle=False)
  stem.with_suffix(".dtypes.json").write_text(json.dumps({
      "in": [a.dtype.name for a in inputs],
      "ref": [a.dtype.name for a in references],
      "atol": spec.atol
  }))
  jax.clear_caches()
  return inputs, references


def first_line(text, limit=100):
  line = next((l for l in str(text).splitlines() if l.strip()), "")
  return line if len(line) <= limit else line[:limit - 3] + "..."


def run_worker(side, name, args, work_dir):
  command = [
      sys.executable, __file__, "--worker", side, "--work-dir", work_dir,
      "--min-time", str(args.min_time), "--build", args.build, name
  ]
  try:
    done = subprocess.run(command, capture_output=True, text=True,
                          timeout=args.timeout, check=False)
  except subprocess.TimeoutExpired:
    return {"error": f"timed out after {args.timeout:g} s"}
  lines = [l for l in done.stdout.splitlines() if l.startswith("{")]
  if done.returncode == 0 and lines:
    return json.loads(lines[-1])
  if done.returncode < 0:
    return {"error": f"crashed (signal {-done.returncode})"}
  tail = done.stderr.strip().splitlines()
  return {"error": f"exit {done.returncode}: " + (tail[-1] if tail else "")}


def run_execute_raw(name, args, work_dir):
  """bench_programs on both text forms: {"stablehlo": {...}, "hlo": {...}}."""
  binary = pathlib.Path(args.build) / "bench" / "programs" / "bench_programs"
  stem = pathlib.Path(work_dir) / name
  forms = {"stablehlo": str(stem) + ".mlir", "hlo": str(stem) + ".hlo"}
  results = {}
  for form, path in forms.items():
    try:
      done = subprocess.run(
          [str(binary), "--min-time", str(args.min_time), path],
          capture_output=True, text=True, timeout=args.timeout, check=False)
    except subprocess.TimeoutExpired:
      results[form] = {"error": f"timed out after {args.timeout:g} s"}
      continue
    records = [json.loads(l) for l in done.stdout.splitlines()
               if l.startswith("{")]
    if done.returncode < 0:
      results[form] = {"error": f"crashed (signal {-done.returncode})"}
    elif not records:
      results[form] = {"error": first_line(done.stderr) or "no output"}
    else:
      results[form] = records[0]
  return results


def machine():
  model = ""
  try:
    with open("/proc/cpuinfo") as cpuinfo:
      model = next((l.split(":", 1)[1].strip() for l in cpuinfo
                    if l.startswith("model name")), "")
  except OSError:
    pass
  return f"{platform.machine()}, {os.cpu_count()} cores ({model})"


def versions():
  import jax  # pylint: disable=import-outside-toplevel
  found = {"jax": jax.__version__, "python": platform.python_version()}
  try:
    found["iree"] = importlib.metadata.version("iree-base-compiler")
  except importlib.metadata.PackageNotFoundError:
    found["iree"] = "not installed"
  found["openblas"] = openblas_kernels()
  return found


def openblas_kernels():
  """The kernel set OpenBLAS picked in this environment (the workers inherit
  it): its GEMMs, which xffi's dot and convolution call, differ by ~1.6x
  between the Haswell and the SkylakeX/Cooperlake (AVX-512) kernels, and
  OPENBLAS_CORETYPE in the environment overrides OpenBLAS's own choice."""
  try:
    library = ctypes.CDLL("libopenblas.so.0")
    library.openblas_get_corename.restype = ctypes.c_char_p
    core = library.openblas_get_corename().decode()
  except (OSError, AttributeError):
    return "not loaded"
  forced = os.environ.get("OPENBLAS_CORETYPE")
  return f"{core} (OPENBLAS_CORETYPE={forced})" if forced else core


def git_commit():
  try:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True, cwd=ROOT,
                          check=True).stdout.strip()
  except (OSError, subprocess.CalledProcessError):
    return "unknown"


def check_only(specs, work_dir, build):
  """Correctness of xffi on both text forms, in process; True when all
  match."""
  sys.path.insert(0, str(pathlib.Path(build) / "python"))
  import xffi  # pylint: disable=import-outside-toplevel
  ok = True
  for spec in specs:
    inputs, references = lower(spec, work_dir)
    for suffix in (".mlir", ".hlo"):
      path = pathlib.Path(work_dir) / (spec.name + suffix)
      try:
        result = xffi.Program.from_text(path.read_text(),
                                        source_name=path.name)(*inputs)
        outputs = list(result) if isinstance(result, tuple) else [result]
        problem = compare(outputs, references, spec.atol)
      except Exception as error:  # pylint: disable=broad-except
        problem = f"{type(error).__name__}: {first_line(error)}"
      print(f"{spec.name}{suffix}: {problem or 'ok'}", flush=True)
      ok = ok and problem is None
  return ok


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--build", default=str(ROOT / "build" / "release"),
                      help="build folder with the Python module (python/) "
                      "and bench/programs/bench_programs")
  parser.add_argument("--min-time", type=float, default=0.3,
                      help="seconds of timed calls per workload and engine")
  parser.add_argument("--quick", action="store_true",
                      help="only the quick subset (workloads.py)")
  parser.add_argument("--check", action="store_true",
                      help="only check xffi's results against JAX's, no "
                      "timing (what the smoke test runs)")
  parser.add_argument("--sides", default=",".join(SIDES + ("raw",)),
                      help="comma-separated engines to run, of "
                      f"{', '.join(SIDES)}, raw (ExecuteRaw)")
  parser.add_argument("--timeout", type=float, default=120,
                      help="seconds one engine may take on one workload")
  parser.add_argument("--work-dir", help="where texts and inputs go "
                      "(default: a fresh temporary folder)")
  parser.add_argument("--json", default=str(HERE / "results.json"),
                      help="results file")
  parser.add_argument("--markdown", default=str(HERE / "latest.md"),
                      help="tables file")
  parser.add_argument("--table", metavar="RESULTS_JSON",
                      help="only rewrite --markdown from this results file")
  parser.add_argument("--note", default="",
                      help="a line about the run's conditions, for the "
                      "table's header (e.g. the load on the machine)")
  parser.add_argument("--worker", help=argparse.SUPPRESS)
  parser.add_argument("names", nargs="*", help="only these workloads")
  args = parser.parse_args()
  args.build = str(pathlib.Path(args.build).resolve())

  if args.worker:
    worker(args.worker, args.names[0], args.work_dir, args.min_time,
           args.build)
    return 0
  if args.table:
    results = json.loads(pathlib.Path(args.table).read_text())
    pathlib.Path(args.markdown).write_text(tables.markdown(results))
    return 0

  import jax  # pylint: disable=import-outside-toplevel
  jax.config.update("jax_platforms", "cpu")
  import workloads  # pylint: disable=import-outside-toplevel
  unknown = [n for n in args.names if n not in workloads.WORKLOADS]
  if unknown:
    parser.error(f"unknown workloads: {', '.join(unknown)} (known: "
                 f"{', '.join(workloads.WORKLOADS)})")
  specs = [
      w for w in workloads.WORKLOADS.values()
      if (not args.names or w.name in args.names) and (w.quick or
                                                        not args.quick)
  ]
  unknown_sides = set(args.sides.split(",")) - set(SIDES + ("raw",))
  if unknown_sides:
    parser.error(f"--sides: unknown {', '.join(sorted(unknown_sides))}")
  if args.work_dir:
    os.makedirs(args.work_dir, exist_ok=True)
    return run_in(args, specs, args.work_dir)
  # The lowered programs, inputs and JAX's results take up to 1 GB: a
  # temporary directory must not outlive the run.
  with tempfile.TemporaryDirectory(prefix="xffi-workloads-") as work_dir:
    return run_in(args, specs, work_dir)


def run_in(args, specs, work_dir):
  """Runs (or with --check, checks) SPECS with their files in WORK_DIR."""
  if args.check:
    return 0 if check_only(specs, work_dir, args.build) else 1

  sides = args.sides.split(",")
  results = {
      "commit": git_commit(),
      "date": datetime.datetime.now(datetime.timezone.utc).strftime(
          "%Y-%m-%d %H:%M UTC"),
      "machine": machine(),
      "versions": versions(),
      "load_before": os.getloadavg(),
      "min_time": args.min_time,
      "threads": {
          "xla": "XLA:CPU default (all cores)",
          "xffi": f"intra_op_threads=0 (one per hardware thread: "
                  f"{os.cpu_count()})",
          "iree": "local-task driver default",
      },
      "note": args.note,
      "workloads": [],
  }
  for spec in specs:
    entry = {"name": spec.name, "family": spec.family,
             "description": spec.description, "issue": spec.issue}
    results["workloads"].append(entry)
    try:
      lower(spec, work_dir)
    except Exception as error:  # pylint: disable=broad-except
      entry["error"] = f"lowering: {first_line(error)}"
      continue
    for side in SIDES:
      if side in sides:
        entry[side] = run_worker(side, spec.name, args, work_dir)
    if "raw" in sides:
      entry["raw"] = run_execute_raw(spec.name, args, work_dir)
    print(tables.progress_line(entry), flush=True)
    results["load_after"] = os.getloadavg()
    pathlib.Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
  table = tables.markdown(results)
  pathlib.Path(args.markdown).write_text(table)
  print()
  print(table)
  return 0


if __name__ == "__main__":
  sys.exit(main())
