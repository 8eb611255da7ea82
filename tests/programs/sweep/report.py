"""COVERAGE.md: totals, every failure grouped by cause, the cases JAX
itself could not lower, the OK cases compactly, and the skipped names."""

import collections
import re

from .check import FORMS

FAILURES = ("parse", "compile", "run", "mismatch", "crash", "timeout",
            "sweep-error")
ID = re.compile(r"^(?P<stem>.*)\[(?P<tag>[^\]]*)\](?P<suffix>.*)$")


# HLO opcodes whose StableHLO/CHLO name is spelled differently.
_SAME_OP = {"topk": "top_k"}


def group_key(cause: str) -> str:
    """One key for a cause however each text form names it: an op missing
    from the StableHLO parser (stablehlo.fft, chlo.top_k) and from the HLO
    parser (fft, topk) are the same gap."""
    match = re.match(r"unsupported op (.*)$", cause)
    if match:
        op = match.group(1).split(".")[-1].replace("-", "_")
        return f"unsupported op: {_SAME_OP.get(op, op)}"
    return cause


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


def _function(case_id):
    match = ID.match(case_id)
    stem = match["stem"] if match else case_id
    return stem.split("(")[0]


def write(path, results, inventory, command, seconds, header):
    lines = []
    add = lines.append
    by_status = collections.Counter(r["status"] for r in results)
    lowered = [r for r in results if r["status"] not in ("lower",
                                                          "reference")]
    ok = [r for r in results if r["status"] == "ok"]
    functions = {r["function"] for r in results}
    functions_ok = functions - {r["function"] for r in results
                                if r["status"] != "ok"}
    add("# Coverage of JAX's public API in xffi")
    add("")
    add("Written by `tests/programs/sweep/run.py` (see "
        "`tests/programs/sweep/__init__.py`); do not edit by hand. Each case "
        "is one public function called one way with one dtype, forward or "
        "gradient (`/grad`): `jax.jit` lowers it to StableHLO and to HLO "
        "text, both run in xffi and are compared with JAX's own results "
        "(tolerances per dtype and function family: "
        "`tests/programs/sweep/compare.py`).")
    add("")
    for key, value in header.items():
        add(f"- {key}: {value}")
    add(f"- command: `{command}`")
    add(f"- wall time of the sweep: {seconds:.0f} s")
    add("")
    add("## Totals")
    add("")
    add("| | cases | functions |")
    add("|---|---:|---:|")
    add(f"| swept | {len(results)} | {len(functions)} |")
    add(f"| lowered by JAX | {len(lowered)} | "
        f"{len({r['function'] for r in lowered})} |")
    add(f"| run and match in both forms | {len(ok)} | "
        f"{len({r['function'] for r in ok})} (all cases OK: "
        f"{len(functions_ok)}) |")
    for status in FAILURES + ("lower", "reference"):
        if by_status[status]:
            count = len({r["function"] for r in results
                         if r["status"] == status})
            add(f"| {_STATUS_TEXT[status]} | {by_status[status]} | {count} |")
    add("")
    add("A case's status is that of its first failing form (StableHLO, "
        "then HLO). Per form:")
    add("")
    add("| form | " + " | ".join(("ok",) + FAILURES[:-1]) + " |")
    add("|---|" + "---:|" * (len(FAILURES)) )
    for form in FORMS:
        counts = collections.Counter(r["forms"][form]["status"]
                                     for r in lowered if form in r["forms"])
        add(f"| {form} | " + " | ".join(str(counts[s]) for s in
                                        ("ok",) + FAILURES[:-1]) + " |")
    add("")
    add("Per module:")
    add("")
    add("| module | functions | cases | lowered | ok | failing |")
    add("|---|---:|---:|---:|---:|---:|")
    modules = collections.OrderedDict()
    for r in results:
        modules.setdefault(r["function"].rsplit(".", 1)[0], []).append(r)
    for module, rs in modules.items():
        low = [r for r in rs if r["status"] not in ("lower", "reference")]
        add(f"| {module} | {len({r['function'] for r in rs})} | {len(rs)} | "
            f"{len(low)} | {sum(r['status'] == 'ok' for r in rs)} | "
            f"{sum(r['status'] in FAILURES for r in rs)} |")
    add("")

    groups = failure_groups(results)
    add("## Failures by cause")
    add("")
    add("Largest first. `(stablehlo)` or `(hlo)` after a case: only that "
        "form fails this way.")
    add("")
    add("| cases | functions | cause |")
    add("|---:|---:|---|")
    ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    for key, cases in ordered:
        add(f"| {len(cases)} | {len({_function(c) for c in cases})} | "
            f"{_md(key)} |")
    add("")
    for key, cases in ordered:
        add(f"### {_md(key)}: {len(cases)} cases")
        add("")
        detailed = any(s in ("mismatch", "crash", "timeout", "sweep-error")
                       for forms in cases.values()
                       for s, _, _ in forms.values())
        if detailed:
            for case_id, forms in cases.items():
                for form, (_, _, detail) in forms.items():
                    add(f"- `{case_id}` ({form}): {_md(detail)}")
        else:
            by_forms = collections.OrderedDict()
            for case_id, forms in cases.items():
                by_forms.setdefault(tuple(sorted(forms)), []).append(case_id)
            for forms, ids in by_forms.items():
                note = "" if set(forms) == set(FORMS) else \
                    f" ({', '.join(forms)})"
                add(", ".join(f"`{c}`" for c in compact(ids)) + note)
                add("")
            example = next(iter(cases.values()))
            add("Example: " + "; ".join(
                f"{form}: {_md(detail)}" for form, (_, _, detail) in
                example.items()))
        add("")

    add("## Not lowered by JAX")
    add("")
    add("JAX 0.10.2 itself refused these calls on the CPU (not xffi's "
        "doing); each is kept so the sweep shows it if JAX changes.")
    add("")
    jax_groups = collections.defaultdict(list)
    for r in results:
        if r["status"] in ("lower", "reference"):
            jax_groups[f"{r['status']}: {r['cause']}"].append(r["id"])
    for key, ids in sorted(jax_groups.items(), key=lambda kv: -len(kv[1])):
        add(f"- {_md(key)}: " + ", ".join(f"`{c}`" for c in compact(ids)))
    add("")
    add("## OK")
    add("")
    add("Both forms run and match JAX.")
    add("")
    per_function = collections.OrderedDict()
    for r in ok:
        per_function.setdefault(r["function"], []).append(r["id"])
    for function, ids in per_function.items():
        tags = [c[len(function):] for c in compact(ids)]
        add(f"- `{function}`: " + " ".join(f"`{t}`" if t else "`()`"
                                            for t in tags))
    add("")
    add("## Skipped on purpose")
    add("")
    reasons = collections.defaultdict(list)
    for name, reason in inventory.skips:
        reasons[reason].append(name)
    for reason, names in reasons.items():
        add(f"- {_md(reason)}: " + ", ".join(f"`{n}`" for n in names))
    add("")
    if inventory.uncatalogued:
        add("## Public names without a recipe yet")
        add("")
        add(", ".join(f"`{n}`" for n in inventory.uncatalogued))
        add("")
    with open(path, "w") as out:
        out.write("\n".join(lines))


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
