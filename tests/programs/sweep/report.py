"""COVERAGE.md: totals, every failure grouped by cause, the cases JAX
itself could not lower, the OK cases compactly, and the skipped names."""

import collections
import re

from .check import FORMS, SUBNORMALS

FAILURES = ("parse", "compile", "run", "mismatch", "crash", "timeout",
            "sweep-error")
ID = re.compile(r"^(?P<stem>.*)\[(?P<tag>[^\]]*)\](?P<suffix>.*)$")


# HLO opcodes whose StableHLO/CHLO name is spelled differently.
_SAME_OP = {"topk": "top_k"}


# What a sweep cannot tell by itself: causes and cases looked into by hand,
# and what was found (keyed by cause, or by case id without /grad).
DIAGNOSES = {
    SUBNORMALS:
        "XLA:CPU runs programs with the x86 flush-to-zero and "
        "denormals-are-zero modes on (tsl::port::ScopedFlushDenormal): a "
        "subnormal operand reads as zero and a subnormal result becomes "
        "zero. xffi computes with IEEE subnormals, so where the sweep feeds "
        "+-1e-40 the two differ (log(-1e-40) is NaN in xffi, -inf in XLA). "
        "Every case here matches once xffi's inputs and results are flushed "
        "to zero; making xffi match would mean setting the same modes "
        "around execution, a design decision left open.",
    "jsp.special.bessel_jn(v=3)[f32]":
        "The float32 recurrence gives the same values in JAX and xffi; "
        "XLA's simplifier then rewrites the final division by a broadcast "
        "as a multiply by its reciprocal, 1/1.12e38 is subnormal and "
        "flushed, so JAX returns 0 for J_0..J_3 there (and a gradient "
        "from those zeros); xffi divides and agrees with scipy.special.jv "
        "to 1e-7.",
}


# Differences from XLA:CPU found with probes outside the sweep, which its
# inputs do not reach.
KNOWN_DIFFERENCES = [
    "**max/min reductions of signed zeros.** XLA:CPU's own reduce emitter "
    "(and its elementwise maximum/minimum) orders -0 below +0, and so does "
    "xffi on every path (generated reduce, fast loops, scalar regions). "
    "But jax 0.10.2's XLA:CPU hands f32 and f64 reductions of 4096 input "
    "elements or more (a (64, 64) or (32, 128) array over any axes, a "
    "(4096,) vector) to YNNPACK (fusion kind `__ynn_fusion`), whose max/min "
    "return the later operand of two equal values: where only zeros of "
    "both signs reach the result (no larger value), XLA's zero then depends "
    "on the order YNNPACK visits them: the row's last zero for rows and "
    "whole-array reductions of alternating signs, no simple rule for "
    "columns of random signs. f16 and bf16 (also offloaded) and smaller "
    "reductions follow the total order. xffi keeps the total order there; "
    "the result compares equal either way. Probe: "
    "jnp.max(jnp.array([0., -0.] * 2048)) is -0. in XLA, +0. in xffi.",
    "**Byte-float arithmetic** (the f8 types, f4e2m1fn, f8e8m0fnu) is not "
    "in the sweep; `tests/programs/byte_float_parity.py` compares it bit "
    "for bit with XLA:CPU (`tests/programs/byte_float_parity.md`): every "
    "pair of byte patterns through the elementwise ops, add/max/min "
    "reductions over rows of 1..70, 300, 1025 and 4096 and columns of 33, "
    "70 and 300, and dots, convolutions and cumulative scans. XLA rounds to "
    "the type after every step, visits a reduced dimension longer than 32 "
    "in windows of 32 (its tree reduction rewrite: the pass "
    "`reduction-tree`), scans longer than 16 in blocks of 16, and computes "
    "products in f32 narrowed through f16; xffi does the same. What is left "
    "is a NaN result's sign in a few places where XLA's vectorised code "
    "decides it (max/min at the last level of long rows, a scan's last "
    "block of one element, an f8e3m4 dot), and XLA's f32 log/log1p giving "
    "the all-ones NaN for every NaN input.",
    "**Summation order of wider floats.** f32 and f64 sums over one "
    "dimension of fewer than 4096 elements follow XLA's windows of 32 "
    "added in order, bit for bit; over several dimensions, and from 4096 "
    "elements on (YNNPACK in XLA), xffi keeps its own order, so the last "
    "bits can differ (within the sweep's tolerances).",
    "**NaNs in f16 and bf16.** f32 and f64 max/min match XLA:CPU bit for bit "
    "(src/cpu/float_max_min.h), and so do f16 and bf16 NaNs through every "
    "conversion that touches them and through their elementwise ops and "
    "max/min reductions (tests/cpp/test_half_nans.cc against "
    "xla_half_nan_table.h, probed with jax 0.10.2 by "
    "tests/cpp/xla_half_nan_table.py): a NaN narrowed to bf16 (from f32, f64 "
    "or f16) is sign|0x7fc0, so bf16 arithmetic, max/min, negate, abs, sign "
    "and clamp give that too; f32->f16 and bf16->f16 quiet and keep the top "
    "payload bits (0x7fc12345 -> 0x7e09), f64->f16 gives sign|0x7e00; f16 "
    "elementwise max/min give 0x7e00 for every NaN result, where f16 clamp "
    "and reduce max/min keep the f32 rule (a NaN's payload, quieted) and f16 "
    "reduce-window max/min the elementwise one; f16 negate, abs and sign "
    "work on the bits (a signalling NaN stays signalling). What is left: "
    "generated code (src/cpu/codegen) reads an f16 signalling NaN quieted, "
    "so its f16 negate and abs of one give the quiet NaN; XLA's "
    "vectorised bf16 add and multiply of two NaNs of opposite signs return "
    "either one depending on the element's place, xffi the first's; bf16 "
    "subnormals (f32 subnormals) through max, min, clamp and sign, which XLA "
    "flushes to a zero of their sign; and f16 max/min regions of scatter, "
    "select-and-scatter, cumulative scans and map, not probed (they follow "
    "the elementwise rule).",
    "**NaNs in YNNPACK reductions.** f32/f64 max/min reductions of 4096 "
    "elements or more (YNNPACK) drop NaNs in XLA: jnp.max of a row of "
    "5000 holding 1, -inf and a NaN is 1 in f32 and -inf in f64; xffi "
    "keeps the NaN.",
]


def _diagnosis(case_id):
    return DIAGNOSES.get(case_id[:-len("/grad")] if case_id.endswith(
        "/grad") else case_id)


def group_key(cause: str) -> str:
    """One key for a cause however each text form names it: an op missing
    from the StableHLO parser (stablehlo.fft, chlo.top_k) and from the HLO
    parser (fft, topk) are the same gap."""
    match = re.match(r"unsupported op (.*)$", cause)
    if match:
        op = match.group(1).split(".")[-1].replace("-", "_")
        return f"unsupported op: {_SAME_OP.get(op, op)}"
    # One LAPACK routine whatever its type letter (s, d, c, z): the case
    # ids and the details name the type.
    return re.sub(r"\blapack_[sdcz](\w+_ffi)\b", r"lapack_?\1", cause)


def failure_groups(results):
    """{key: {case_id: {form: (status, cause, detail)}}} for every failing
    form of every case that JAX lowered."""
    groups = collections.defaultdict(dict)
    for result in results:
        if result["status"] not in FAILURES:
            continue
        forms = result["forms"] or {"?": {"status": result["status"],
                                          "cause": result["cause"],
                                          "detail": result["detail"]}}
        for form, outcome in forms.items():
            if outcome["status"] == "ok":
                continue
            key = group_key(outcome["cause"])
            groups[key].setdefault(result["id"], {})[form] = (
                outcome["status"], outcome["cause"], outcome["detail"])
    return groups


def compact(case_ids):
    """Case ids folded by stem: jnp.sin[f32], jnp.sin[f64] and
    jnp.sin[f32]/grad become `jnp.sin[f32,f64]`, `jnp.sin[f32]/grad`."""
    folded = collections.OrderedDict()
    for case_id in case_ids:
        match = ID.match(case_id)
        if not match:
            folded.setdefault((case_id, ""), [])
            continue
        folded.setdefault((match["stem"], match["suffix"]), []).append(
            match["tag"])
    return [f"{stem}[{','.join(tags)}]{suffix}" if tags else stem
            for (stem, suffix), tags in folded.items()]


def function_of(case_id):
    """The swept function a case id names (the report groups by it)."""
    match = ID.match(case_id)
    stem = match["stem"] if match else case_id
    return stem.split("(")[0]


def _grouped(items, key):
    """{key(item): [items]} in first-seen order."""
    groups = collections.OrderedDict()
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return groups


def _not_by_jax(result):
    return result["status"] not in ("lower", "reference")


def write(path, results, inventory, command, seconds, header):
    lines = ["# Coverage of JAX's public API in xffi", "",
             "Written by `tests/programs/sweep/run.py` (see "
             "`tests/programs/sweep/__init__.py`); do not edit by hand. Each "
             "case is one public function called one way with one dtype, "
             "forward or gradient (`/grad`): `jax.jit` lowers it to StableHLO "
             "and to HLO text, both run in xffi and are compared with JAX's "
             "own results (tolerances per dtype and function family: "
             "`tests/programs/sweep/compare.py`).", ""]
    lines += [f"- {key}: {value}" for key, value in header.items()]
    lines += [f"- command: `{command}`",
              f"- wall time of the sweep: {seconds:.0f} s", ""]
    lines += _totals(results)
    lines += _failures(results)
    lines += _by_jax(results)
    lines += _known_differences()
    lines += _ok(results)
    lines += _skipped(inventory)
    with open(path, "w") as out:
        out.write("\n".join(lines))


def _totals(results):
    lines = ["## Totals", "", "| | cases | functions |", "|---|---:|---:|"]

    def row(label, rs, extra=""):
        functions = len({r["function"] for r in rs})
        lines.append(f"| {label} | {len(rs)} | {functions}{extra} |")

    ok = [r for r in results if r["status"] == "ok"]
    failing = {r["function"] for r in results if r["status"] != "ok"}
    all_ok = len({r["function"] for r in ok} - failing)
    row("swept", results)
    row("lowered by JAX", [r for r in results if _not_by_jax(r)])
    row("run and match in both forms", ok, f" (all cases OK: {all_ok})")
    by_status = _grouped(results, lambda r: r["status"])
    for status in FAILURES + ("lower", "reference"):
        if status in by_status:
            row(_STATUS_TEXT[status], by_status[status])
    columns = ("ok",) + FAILURES[:-1]
    lines += ["", "A case's status is that of its first failing form "
              "(StableHLO, then HLO). Per form:", "",
              "| form | " + " | ".join(columns) + " |",
              "|---|" + "---:|" * len(columns)]
    for form in FORMS:
        counts = collections.Counter(r["forms"][form]["status"]
                                     for r in results if form in r["forms"])
        lines.append(f"| {form} | " + " | ".join(str(counts[s])
                                                  for s in columns) + " |")
    lines += ["", "Per module:", "",
              "| module | functions | cases | lowered | ok | failing |",
              "|---|---:|---:|---:|---:|---:|"]
    modules = _grouped(results, lambda r: r["function"].rsplit(".", 1)[0])
    for module, rs in modules.items():
        lines.append(
            f"| {module} | {len({r['function'] for r in rs})} | {len(rs)} | "
            f"{sum(map(_not_by_jax, rs))} | "
            f"{sum(r['status'] == 'ok' for r in rs)} | "
            f"{sum(r['status'] in FAILURES for r in rs)} |")
    return lines + [""]


def _failures(results):
    groups = failure_groups(results)
    ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    lines = ["## Failures by cause", "",
             "Largest first. `(stablehlo)` or `(hlo)` after a case: only "
             "that form fails this way.", "",
             "| cases | functions | cause |", "|---:|---:|---|"]
    lines += [f"| {len(cases)} | {len({function_of(c) for c in cases})} | "
              f"{_md(key)} |" for key, cases in ordered]
    lines.append("")
    for key, cases in ordered:
        lines += [f"### {_md(key)}: {len(cases)} cases", ""]
        if key in DIAGNOSES:
            lines += ["Diagnosis: " + DIAGNOSES[key], ""]
        written = sorted({cause for forms in cases.values()
                          for _, cause, _ in forms.values()})
        if written != [key]:
            lines += ["As reported: " + "; ".join(f"`{_md(c)}`"
                                                  for c in written), ""]
        statuses = {s for forms in cases.values() for s, _, _ in
                    forms.values()}
        if statuses & {"mismatch", "crash", "timeout", "sweep-error"}:
            lines += _each_case(cases)
        else:
            lines += _folded_cases(cases)
        lines.append("")
    return lines


def _each_case(cases):
    """One line per failing form with its detail (and what is known)."""
    lines = []
    for case_id, forms in cases.items():
        lines += [f"- `{case_id}` ({form}): {_md(detail)}"
                  for form, (_, _, detail) in forms.items()]
        if _diagnosis(case_id):
            lines.append(f"  - diagnosis: {_diagnosis(case_id)}")
    return lines


def _folded_cases(cases):
    """The case ids folded by stem, then one example's details."""
    lines = []
    by_forms = _grouped(cases.items(), lambda item: tuple(sorted(item[1])))
    for forms, items in by_forms.items():
        note = "" if set(forms) == set(FORMS) else f" ({', '.join(forms)})"
        lines += [", ".join(f"`{c}`" for c in compact(
            case_id for case_id, _ in items)) + note, ""]
    example = next(iter(cases.values()))
    lines.append("Example: " + "; ".join(
        f"{form}: {_md(detail)}" for form, (_, _, detail) in example.items()))
    return lines


def _by_jax(results):
    lines = ["## Not lowered by JAX", "",
             "JAX 0.10.2 itself refused these calls on the CPU (not xffi's "
             "doing); each is kept so the sweep shows it if JAX changes.", ""]
    refused = _grouped([r for r in results if not _not_by_jax(r)],
                       lambda r: f"{r['status']}: {r['cause']}")
    for key, rs in sorted(refused.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"- {_md(key)}: " + ", ".join(
            f"`{c}`" for c in compact(r["id"] for r in rs)))
    return lines + [""]


def _known_differences():
    lines = ["## Known differences the sweep does not reach", ""]
    lines += [f"- {text}" for text in KNOWN_DIFFERENCES]
    return lines + [""]


def _ok(results):
    lines = ["## OK", "", "Both forms run and match JAX.", ""]
    ok = _grouped([r for r in results if r["status"] == "ok"],
                  lambda r: r["function"])
    for function, rs in ok.items():
        tags = [c[len(function):] for c in compact(r["id"] for r in rs)]
        lines.append(f"- `{function}`: " + " ".join(
            f"`{t}`" if t else "`()`" for t in tags))
    return lines + [""]


def _skipped(inventory):
    lines = ["## Skipped on purpose", ""]
    reasons = _grouped(inventory.skips, lambda skip: skip[1])
    lines += [f"- {_md(reason)}: " + ", ".join(f"`{n}`" for n, _ in skips)
              for reason, skips in reasons.items()]
    lines.append("")
    if inventory.uncatalogued:
        lines += ["## Public names without a recipe yet", "",
                  ", ".join(f"`{n}`" for n in inventory.uncatalogued), ""]
    return lines


_STATUS_TEXT = {
    "parse": "xffi cannot parse",
    "compile": "xffi cannot compile",
    "run": "xffi fails at run time",
    "mismatch": "xffi runs but results differ",
    "crash": "xffi crashed the process",
    "timeout": "timed out",
    "sweep-error": "the sweep itself failed",
    "lower": "JAX could not lower",
    "reference": "JAX could not run",
}


def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")
