"""The markdown tables of bench/workloads/run.py, made from its results
(the JSON it writes), so a results file can be turned into tables again
(`run.py --table RESULTS.json`)."""

import math

# The ratio columns: (heading, how to find the engine's record in an entry,
# the Python-side record whose check stands for it).
RATIOS = (
    ("xffi py SHLO", ("xffi_stablehlo",), "xffi_stablehlo"),
    ("xffi py HLO", ("xffi_hlo",), "xffi_hlo"),
    ("xffi raw SHLO", ("raw", "stablehlo"), "xffi_stablehlo"),
    ("xffi raw HLO", ("raw", "hlo"), "xffi_hlo"),
    ("IREE", ("iree",), "iree"),
)
ENGINE_NAMES = {
    "xla": "XLA",
    "xffi_stablehlo": "xffi StableHLO",
    "xffi_hlo": "xffi HLO",
    "iree": "IREE",
}
WITHIN = 1.5


def find(entry, path):
  record = entry
  for key in path:
    record = record.get(key) if isinstance(record, dict) else None
  return record


def headline(message, limit=110):
  """The line of an error that says what went wrong: IREE's and xffi's
  messages often start with a generic line and name the cause later."""
  lines = [l.strip() for l in str(message).splitlines() if l.strip()]
  line = next((l for l in lines if "error:" in l), lines[0] if lines else "")
  line = line.replace("|", "/")
  return line if len(line) <= limit else line[:limit - 3] + "..."


def xla_seconds(entry):
  record = entry.get("xla") or {}
  if "seconds" in record and "mismatch" not in record:
    return record["seconds"]
  return None


def ratio(entry, path, checked_by):
  """(ratio or None, cell text) of one engine against XLA."""
  record = find(entry, path)
  base = xla_seconds(entry)
  if record is None:
    return None, "-"
  if "error" in record:
    return None, "error"
  if "mismatch" in (entry.get(checked_by) or {}):
    return None, "mismatch"
  if base is None or "seconds" not in record:
    return None, "-"
  value = record["seconds"] / base
  return value, f"{value:.2f}"


def notes(entry):
  """One cell: what failed where, the same message once for both forms."""
  if "error" in entry:
    return headline(entry["error"])
  problems = {}
  for side, name in ENGINE_NAMES.items():
    record = entry.get(side) or {}
    for kind in ("error", "mismatch"):
      if kind in record:
        text = ("" if kind == "error" else "mismatch: ") + headline(
            record[kind])
        problems.setdefault(text, []).append(name)
  # ExecuteRaw fails as the Python call of the same form does (same
  # compiler): its error is worth a note only where that one ran.
  for form, python_side, name in (("stablehlo", "xffi_stablehlo",
                                   "xffi raw StableHLO"),
                                  ("hlo", "xffi_hlo", "xffi raw HLO")):
    record = find(entry, ("raw", form)) or {}
    if "error" in record and "error" not in (entry.get(python_side) or {}):
      problems.setdefault(headline(record["error"]), []).append(name)
  parts = []
  for text, names in problems.items():
    if "xffi StableHLO" in names and "xffi HLO" in names:
      names = [n for n in names if not n.startswith("xffi")] + ["xffi"]
    parts.append(f"{', '.join(names)}: {text}")
  return "; ".join(parts)


def ms(seconds):
  if seconds is None:
    return "-"
  value = seconds * 1e3
  return f"{value:.3g}" if value < 100 else f"{value:.0f}"


def mb(value):
  return "-" if value is None else f"{value:.1f}"


def geomean(values):
  return math.exp(sum(math.log(v) for v in values) / len(values))


def progress_line(entry):
  cells = [entry["name"], f"XLA {ms(xla_seconds(entry))} ms"]
  for heading, path, checked_by in RATIOS:
    cells.append(f"{heading} {ratio(entry, path, checked_by)[1]}")
  problems = notes(entry)
  return " | ".join(cells + ([problems] if problems else []))


def header(results):
  versions = results.get("versions", {})
  threads = results.get("threads", {})
  load = results.get("load_before")
  load_after = results.get("load_after")
  lines = [
      f"Commit {results.get('commit')}, {results.get('date')}; "
      f"{results.get('machine')}; jax {versions.get('jax')}, IREE "
      f"{versions.get('iree')}, Python {versions.get('python')}; OpenBLAS "
      f"kernels {versions.get('openblas', 'not recorded')}.",
      f"Threads: XLA {threads.get('xla')}; xffi {threads.get('xffi')}; "
      f"IREE {threads.get('iree')}. Each engine's time: median of 5 "
      f"batches of the mean time per call, {results.get('min_time'):g} s "
      "per engine and workload.",
  ]
  if load:
    lines.append(
        f"Load average (1, 5, 15 min) at the start: "
        f"{', '.join(f'{x:.2f}' for x in load)}" +
        (f"; at the end: {', '.join(f'{x:.2f}' for x in load_after)}."
         if load_after else "."))
  if results.get("note"):
    lines.append(results["note"])
  return lines


def speed_table(results):
  rows = results["workloads"]
  lines = [
      "| workload | XLA ms | " + " | ".join(h for h, _, _ in RATIOS) +
      " | notes |",
      "|---|---:|" + "---:|" * len(RATIOS) + "---|",
  ]
  for entry in rows:
    name = entry["name"] + (" (issue)" if entry.get("issue") else "")
    cells = [name, ms(xla_seconds(entry))]
    cells += [ratio(entry, path, checked)[1] for _, path, checked in RATIOS]
    cells.append(notes(entry))
    lines.append("| " + " | ".join(cells) + " |")
  return lines


def summary(results):
  rows = results["workloads"]
  lines = []
  for heading, path, checked_by in RATIOS:
    measured = [(ratio(e, path, checked_by)[0], e["name"]) for e in rows]
    measured = [(r, n) for r, n in measured if r is not None]
    if not measured:
      lines.append(f"- {heading}/XLA: nothing measured.")
      continue
    worst = sorted(measured, reverse=True)[:5]
    within = sum(1 for r, _ in measured if r <= WITHIN)
    lines.append(
        f"- {heading}/XLA: geomean **{geomean([r for r, _ in measured]):.2f}**"
        f" over {len(measured)} of {len(rows)} workloads (the rest failed, "
        f"mismatched or were not run); {within} within {WITHIN:g}x; worst: " +
        ", ".join(f"{n} {r:.3g}" for r, n in worst) + ".")
  return lines


def cost_table(results):
  lines = [
      "| workload | compile ms XLA | xffi SHLO | xffi HLO | IREE | "
      "peak MB XLA | xffi SHLO | xffi HLO | IREE |",
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  ]
  compile_ratios, memory_ratios = [], []
  for entry in results["workloads"]:
    cells = [entry["name"]]
    for field, fmt in (("compile_seconds", ms), ("peak_mb", mb)):
      for side in ("xla", "xffi_stablehlo", "xffi_hlo", "iree"):
        record = entry.get(side) or {}
        cells.append(fmt(record.get(field)))
    lines.append("| " + " | ".join(cells) + " |")
    xla = entry.get("xla") or {}
    xffi = entry.get("xffi_stablehlo") or {}
    if xla.get("compile_seconds") and xffi.get("compile_seconds"):
      compile_ratios.append(xffi["compile_seconds"] / xla["compile_seconds"])
    # Below 1 MB the reading is mostly noise of the allocator.
    if (xla.get("peak_mb") or 0) >= 1 and xffi.get("peak_mb") is not None:
      memory_ratios.append(max(xffi["peak_mb"], 0.01) / xla["peak_mb"])
  lines.append("")
  if compile_ratios:
    lines.append(
        f"Compile time xffi StableHLO/XLA: geomean "
        f"{geomean(compile_ratios):.2f}, worst {max(compile_ratios):.2f}, "
        f"{sum(1 for r in compile_ratios if r <= 2)} of "
        f"{len(compile_ratios)} within 2x.")
  if memory_ratios:
    lines.append(
        f"Peak memory xffi StableHLO/XLA (workloads where XLA's is at least "
        f"1 MB): geomean {geomean(memory_ratios):.2f}, worst "
        f"{max(memory_ratios):.2f}, "
        f"{sum(1 for r in memory_ratios if r <= 1.25)} of "
        f"{len(memory_ratios)} within 1.25x.")
  return lines


def kernel_table(results):
  lines = [
      "| workload | ExecuteRaw ms | in kernels | thunks | slowest kernels "
      "(ms per execution) |",
      "|---|---:|---:|---:|---|",
  ]
  for entry in results["workloads"]:
    record = find(entry, ("raw", "stablehlo")) or {}
    if "seconds" not in record:
      continue
    share = min(record["kernel_seconds"] / record["seconds"], 1) \
        if record["seconds"] else 0
    top = ", ".join(f"{op} {ms(t)}" for op, t in record["ops"][:3])
    lines.append(f"| {entry['name']} | {ms(record['seconds'])} | "
                 f"{100 * share:.0f}% | {record['thunks']} | {top or '-'} |")
  return lines


def markdown(results):
  lines = header(results) + [""]
  lines += ["Time per call against XLA's (below 1: faster than XLA):", ""]
  lines += speed_table(results) + [""] + summary(results) + [""]
  lines += ["Compile time and peak memory:", ""] + cost_table(results) + [""]
  lines += [
      "Where xffi's time goes (ExecuteRaw on the StableHLO text, with "
      "every kernel timed):", ""
  ] + kernel_table(results)
  return "\n".join(lines) + "\n"
