"""The CI subset's expectations file (ci_subset.txt): the cases
tests/python/test_coverage_subset.py runs and what each must do.

One line per case that must run and match in both forms:

    jnp.sin[f32] ok

and one line per form that is expected to fail, with its cause as
COVERAGE.md groups it:

    lax.top_k[f32] stablehlo: unsupported op: top_k
    lax.top_k[f32] hlo: unsupported op: top_k

Wrong results are never expected, unless a line gives the reason after
` # ` (an xffi bug that is reported and not yet fixed). A case whose
expected failure goes away fails the test too ("unexpected pass"): the
line must go, so the list only shrinks as xffi grows.
"""

import collections

from .check import FORMS
from .report import group_key

OK = "ok"
WRONG_RESULTS = "wrong results"


class Expectation:
    def __init__(self):
        self.failures = {}  # form -> cause
        self.reasons = {}   # form -> why a wrong result is tolerated


def load(path):
    """{case_id: Expectation} in file order."""
    expected = collections.OrderedDict()
    with open(path) as lines:
        for number, line in enumerate(lines, 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            text, _, reason = text.partition(" # ")
            case_id, _, rest = text.partition(" ")
            rest = rest.strip()
            entry = expected.setdefault(case_id, Expectation())
            if rest == OK:
                continue
            form, sep, cause = rest.partition(": ")
            if not sep or form not in FORMS:
                raise ValueError(f"{path}:{number}: expected '<case> ok' or "
                                 f"'<case> <form>: <cause>', got {line!r}")
            entry.failures[form] = cause.strip()
            if cause.strip() == WRONG_RESULTS:
                if not reason.strip() or reason.strip().startswith("TODO"):
                    raise ValueError(f"{path}:{number}: wrong results are "
                                     "only expected with a reason (` # why`)")
                entry.reasons[form] = reason.strip()
    return expected


def observed(result):
    """{form: cause} of a result's failing forms, as the file writes them."""
    return {form: group_key(outcome["cause"])
            for form, outcome in result["forms"].items()
            if outcome["status"] != "ok"}


def judge(case_id, expectation, result):
    """None if `result` is what `expectation` says, else why not."""
    if result["status"] in ("lower", "reference"):
        return (f"{case_id}: JAX did not lower or run it "
                f"({result['cause']}); choose another case")
    if result["status"] in ("crash", "timeout", "sweep-error"):
        return f"{case_id}: {result['status']}: {result['detail']}"
    seen = observed(result)
    problems = []
    for form in FORMS:
        want, got = expectation.failures.get(form), seen.get(form)
        if want == got:
            continue
        detail = result["forms"].get(form, {}).get("detail", "")
        if want is None:
            problems.append(f"{form}: unexpected failure: {got} ({detail})")
        elif got is None:
            problems.append(f"{form}: unexpected pass (expected '{want}'): "
                            f"remove the line from the expectations")
        else:
            problems.append(f"{form}: expected '{want}', got '{got}' "
                            f"({detail})")
    return f"{case_id}: " + "; ".join(problems) if problems else None


def lines_for(case_id, result, reasons=None):
    seen = observed(result)
    if not seen:
        return [f"{case_id} {OK}"]
    lines = []
    for form in FORMS:
        if form in seen:
            line = f"{case_id} {form}: {seen[form]}"
            if seen[form] == WRONG_RESULTS:
                line += " # " + (reasons or {}).get(form, "TODO: why")
            lines.append(line)
    return lines


HEADER = """\
# The coverage sweep's CI subset: tests/python/test_coverage_subset.py runs
# these cases and requires each to do what its lines say (format:
# tests/programs/sweep/expectations.py). When xffi gains an op, the cases it
# fixes fail as "unexpected pass": rerun
#   .venv/bin/python tests/programs/sweep/run.py --update-subset
# and commit the shorter file.
"""


def save(path, entries):
    """entries: [(case_id, result, reasons)]."""
    with open(path, "w") as out:
        out.write(HEADER)
        for case_id, result, reasons in entries:
            for line in lines_for(case_id, result, reasons):
                out.write(line + "\n")
