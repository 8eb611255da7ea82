#!/usr/bin/env python3
"""The coverage sweep: runs every case (or those --filter selects) in
worker processes and writes tests/programs/COVERAGE.md.

  .venv/bin/python tests/programs/sweep/run.py             # full sweep
  .venv/bin/python tests/programs/sweep/run.py --filter '^lax\\.conv'
  .venv/bin/python tests/programs/sweep/run.py --update-subset

The xffi package is the build's (XFFI_BUILD_DIR, default build/release).
--write-subset picks the CI subset from a full sweep (a few cases per cause
and per module within a time budget) and writes ci_subset.txt;
--update-subset reruns the subset's cases and rewrites their expected
outcomes, keeping the reasons given for known wrong results.
"""

import argparse
import collections
import datetime
import json
import os
import pathlib
import re
import subprocess
import sys
import time
import zlib

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from sweep import expectations, report, workers  # noqa: E402
from sweep.cases import Inventory  # noqa: E402

ROOT = workers.ROOT
SUBSET = HERE / "ci_subset.txt"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2,
                        help="worker processes (default 2)")
    parser.add_argument("--timeout", type=float, default=120.0,
                        help="seconds one case may take (default 120)")
    parser.add_argument("--filter", default="",
                        help="run only case ids matching this regex")
    parser.add_argument("--output", default=None,
                        help="COVERAGE.md to write (default "
                             "tests/programs/COVERAGE.md for a full sweep, "
                             "none with --filter)")
    parser.add_argument("--json", default=None,
                        help="also write every result to this JSON file")
    parser.add_argument("--from-json", default=None,
                        help="write the report (and subset) from the results "
                             "a --json run saved, without running anything")
    parser.add_argument("--write-subset", action="store_true",
                        help="choose the CI subset from this sweep's results")
    parser.add_argument("--subset-budget", type=float, default=30.0,
                        help="summed case seconds of the chosen subset")
    parser.add_argument("--update-subset", action="store_true",
                        help="rerun the subset and rewrite its expectations")
    args = parser.parse_args()

    inventory = Inventory()
    if args.update_subset:
        return update_subset(inventory, args)
    command = " ".join(["python", "tests/programs/sweep/run.py"] +
                       sys.argv[1:])
    if args.from_json:
        with open(args.from_json) as saved:
            run = json.load(saved)
        results, seconds, command = (run["results"], run["seconds"],
                                     run["command"])
        header = run["environment"]
    else:
        pattern = re.compile(args.filter)
        ids = [c.id for c in inventory.cases if pattern.search(c.id)]
        print(f"{len(ids)} cases of {len(inventory.functions())} functions; "
              f"{args.jobs} workers, {args.timeout:g} s timeout", flush=True)
        started = time.monotonic()
        results = workers.run_cases(ids, args.jobs, args.timeout, progress)
        seconds = time.monotonic() - started
        header = environment(args)
        print(f"\n{seconds:.0f} s; " + ", ".join(
            f"{k} {v}" for k, v in collections.Counter(
                r["status"] for r in results).most_common()), flush=True)
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"command": command, "seconds": seconds,
                       "environment": header, "results": results}, out,
                      indent=1)
    output = args.output or (None if args.filter else
                             str(ROOT / "tests" / "programs" / "COVERAGE.md"))
    if output:
        report.write(output, results, inventory, command, seconds, header)
        print(f"wrote {output}")
    if args.write_subset:
        chosen = choose_subset(results, args.subset_budget)
        expectations.save(SUBSET, [(r["id"], r, None) for r in chosen])
        print(f"wrote {SUBSET}: {len(chosen)} cases, "
              f"{sum(r['seconds'] or 0 for r in chosen):.0f} s of cases")


def progress(result, done, total):
    mark = "." if result["status"] == "ok" else result["status"][0].upper()
    sys.stdout.write(mark if done % 100 else f"{mark} {done}/{total}\n")
    sys.stdout.flush()


def environment(args):
    import jax
    import numpy

    def git(*command):
        try:
            return subprocess.run(["git", *command], cwd=ROOT, text=True,
                                  capture_output=True).stdout.strip()
        except OSError:
            return "?"

    dirty = " (with uncommitted changes)" if git("status", "--porcelain",
                                                 "--untracked-files=no") \
        else ""
    return collections.OrderedDict([
        ("xffi commit", f"{git('rev-parse', '--short', 'HEAD')}{dirty}"),
        ("date", datetime.date.today().isoformat()),
        ("JAX", f"jax {jax.__version__}, NumPy {numpy.__version__}, "
                f"{os.cpu_count()} CPUs, {args.jobs} worker processes, "
                f"{args.timeout:g} s timeout per case"),
    ])


def choose_subset(results, budget):
    """Two cases of every failure cause (the fastest, of different
    functions), then OK cases round-robin over the modules, one function at
    a time and the dtype least used so far, within `budget` summed case
    seconds. Wrong results are never chosen: they are failures, not
    expectations."""
    lowered = [r for r in results if r["status"] not in
               ("lower", "reference", "crash", "timeout", "sweep-error",
                "mismatch")]
    chosen = collections.OrderedDict()
    cost = lambda r: r["seconds"] or 0.0  # noqa: E731
    groups = collections.defaultdict(list)
    for r in lowered:
        for cause in set(expectations.observed(r).values()):
            groups[cause].append(r)
    for cause, rs in sorted(groups.items()):
        functions = set()
        for r in sorted(rs, key=lambda r: (cost(r), r["id"])):
            if r["function"] in functions or cost(r) > 2.0:
                continue
            chosen[r["id"]] = r
            functions.add(r["function"])
            if len(functions) == 2:
                break
    # module -> function -> its OK cases, functions in a fixed shuffled
    # order so the picks spread over each module.
    modules = collections.defaultdict(lambda: collections.defaultdict(list))
    for r in lowered:
        if r["status"] == "ok" and cost(r) < 1.0 and r["id"] not in chosen:
            module = r["function"].rsplit(".", 1)[0]
            modules[module][r["function"]].append(r)
    queues = {m: sorted(fs.values(), key=lambda rs: zlib.crc32(
                  rs[0]["function"].encode()))
              for m, fs in modules.items()}
    used = collections.Counter(_tags(r["id"]) for r in chosen.values())
    spent = sum(cost(r) for r in chosen.values())
    while spent < budget and any(queues.values()):
        for module in sorted(queues):
            if not queues[module] or spent >= budget:
                continue
            cases = queues[module].pop(0)
            r = min(cases, key=lambda r: (used[_tags(r["id"])], r["id"]))
            chosen[r["id"]] = r
            used[_tags(r["id"])] += 1
            spent += cost(r)
    return sorted(chosen.values(), key=lambda r: r["id"])


def _tags(case_id):
    """The dtype part of a case id, with /grad: what the subset spreads."""
    return case_id[case_id.rfind("["):]


def update_subset(inventory, args):
    entries = expectations.load(SUBSET)
    unknown = [i for i in entries if i not in inventory.by_id]
    if unknown:
        sys.exit(f"{SUBSET}: unknown cases {unknown}")
    results = workers.run_cases(list(entries), args.jobs, args.timeout,
                                progress)
    expectations.save(SUBSET, [(r["id"], r, entries[r["id"]].reasons)
                               for r in results])
    print(f"\nrewrote {SUBSET} ({len(results)} cases)")


if __name__ == "__main__":
    main()
