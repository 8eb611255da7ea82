"""One sweep worker (started by workers.py): reads case ids from stdin, one
a line, and answers on stdout with JSON lines: {"ready"} once, then per
case {"stage"} before each stage and {"result"} at the end. Everything
else the process prints goes to stderr, so nothing JAX or xffi writes can
corrupt the answers."""

import json
import os
import pathlib
import sys
import traceback

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from sweep import workers  # noqa: E402

workers.use_built_xffi()


def main():
    answers = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    import xffi  # noqa: F401  (fails here, not in the first case)

    from sweep import check
    from sweep.cases import Inventory

    inventory = Inventory()

    def say(**message):
        answers.write(json.dumps(message) + "\n")

    say(ready=True)
    for line in sys.stdin:
        case_id = line.strip()
        if not case_id:
            continue
        sys.stderr.write(f"\n=== case {case_id}\n")
        sys.stderr.flush()
        try:
            result = check.run_case(inventory.by_id[case_id],
                                    lambda name: say(stage=name))
        except Exception as error:  # noqa: BLE001 - a sweep bug, reported
            result = {"id": case_id, "status": "sweep-error",
                      "cause": f"sweep error: {type(error).__name__}",
                      "detail": traceback.format_exc(limit=3)[-800:],
                      "forms": {}, "seconds": None}
        say(result=result)


if __name__ == "__main__":
    main()
