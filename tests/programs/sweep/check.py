"""Running one case: JAX lowers it and computes the reference, xffi parses,
compiles and runs both texts, and each stage that fails says why in a form
that groups (the cause) and in full (the detail)."""

import re
import time

import numpy as np

from . import compare

FORMS = ("stablehlo", "hlo")

# How a failure shows in each stage; "crash" and "timeout" are the
# worker pool's, for a case that never came back.
STATUSES = ("ok", "lower", "reference", "parse", "compile", "run", "mismatch",
            "crash", "timeout")


def run_case(case, stage=lambda name: None) -> dict:
    """The outcome of `case`: {"id", "status", "cause", "detail", "forms":
    {form: {"status", "cause", "detail"}}, "seconds"}. `stage(name)` is
    called before each stage so a caller that loses the process knows
    where."""
    import jax

    started = time.monotonic()
    result = {"id": case.id, "function": f"{case.module}.{case.name}",
              "forms": {}}
    with jax.enable_x64(case.x64):
        stage("lower")
        try:
            function, args = case.build()
            jitted = jax.jit(function, keep_unused=True)
            lowered = jitted.lower(*args)
            texts = {"stablehlo": lowered.as_text(),
                     "hlo": lowered.as_text(dialect="hlo")}
        except Exception as error:  # noqa: BLE001 - JAX's reason is the result
            return _finish(result, started, "lower", *_jax_cause(error))
        stage("reference")
        try:
            expected = _leaves(jitted(*args))
            if case.spec.canon is not None:
                expected = case.spec.canon(expected)
        except Exception as error:  # noqa: BLE001
            return _finish(result, started, "reference", *_jax_cause(error))
    for form in FORMS:
        outcome = run_text(texts[form], form, args, expected, case, stage)
        result["forms"][form] = outcome
    bad = [f for f in FORMS if result["forms"][f]["status"] != "ok"]
    if not bad:
        return _finish(result, started, "ok", "", "")
    first = result["forms"][bad[0]]
    return _finish(result, started, first["status"], first["cause"],
                   first["detail"])


def _finish(result, started, status, cause, detail):
    result.update(status=status, cause=cause, detail=detail,
                  seconds=round(time.monotonic() - started, 3))
    return result


def _leaves(tree):
    import jax

    leaves = []
    for leaf in jax.tree.leaves(tree):
        if jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key):
            leaf = jax.random.key_data(leaf)
        leaves.append(np.asarray(leaf))
    return leaves


def run_text(text, form, args, expected, case, stage) -> dict:
    """One text through xffi: parse, compile, run, compare."""
    import xffi
    from xffi import _core

    stage(f"{form}:parse")
    try:
        module = _core._parse_program(text, form)
    except Exception as error:  # noqa: BLE001
        return _outcome("parse", *parse_cause(error, text, form))
    stage(f"{form}:compile")
    try:
        program = xffi.Program(module, intra_op_threads=1)
    except Exception as error:  # noqa: BLE001
        return _outcome("compile", *_xffi_cause("compile", error, text))
    stage(f"{form}:run")
    try:
        out = program(*args)
    except Exception as error:  # noqa: BLE001
        return _outcome("run", *_xffi_cause("run", error, text))
    actual = list(out) if isinstance(out, tuple) else [out]
    actual = [np.asarray(a) for a in actual]
    if case.spec.canon is not None:
        actual = case.spec.canon(actual)
    problem = compare.compare(expected, actual, case.spec.family, case.grad)
    if not problem:
        return _outcome("ok", "", "")
    if _flushing_subnormals_matches(program, args, expected, case):
        return _outcome("mismatch", SUBNORMALS, problem)
    return _outcome("mismatch", "wrong results", problem)


# XLA:CPU runs with the x86 flush-to-zero and denormals-are-zero modes on
# (tsl::port::ScopedFlushDenormal); xffi computes with IEEE subnormals.
SUBNORMALS = ("wrong results with subnormal numbers: XLA:CPU flushes "
              "subnormal inputs and results to zero, xffi keeps them")


def _flush(array):
    array = np.asarray(array)
    if array.dtype.kind not in "fc" and array.dtype.name != "bfloat16":
        return array
    wide = array.astype(np.complex128 if array.dtype.kind == "c"
                        else np.float64)
    tiny = float(np.finfo(array.dtype).tiny) if array.dtype.kind != "c" \
        else float(np.finfo(array.real.dtype).tiny)

    def flush_real(x):
        return np.where(np.abs(x) < tiny, np.copysign(0.0, x), x)

    if array.dtype.kind == "c":
        flushed = flush_real(wide.real) + 1j * flush_real(wide.imag)
    else:
        flushed = flush_real(wide)
    return flushed.astype(array.dtype)


def _flushing_subnormals_matches(program, args, expected, case):
    """Whether xffi matches JAX once the subnormals in its inputs and
    results are flushed to zero, as XLA:CPU does: a mismatch explained by
    that mode alone gets its own cause."""
    try:
        out = program(*[_flush(a) for a in args])
    except Exception:  # noqa: BLE001 - then the plain mismatch stands
        return False
    actual = [_flush(a) for a in (list(out) if isinstance(out, tuple)
                                  else [out])]
    if case.spec.canon is not None:
        actual = case.spec.canon(actual)
    return compare.compare(expected, actual, case.spec.family,
                           case.grad) is None


def _outcome(status, cause, detail):
    return {"status": status, "cause": cause, "detail": detail}


def _first_line(message: str, limit=200) -> str:
    line = str(message).strip().splitlines()[0] if str(message).strip() else ""
    return line if len(line) <= limit else line[:limit] + "..."


def _jax_cause(error):
    line = _first_line(error)
    return f"{type(error).__name__}: {_generalise(line)}", \
        f"{type(error).__name__}: {line}"


LOCATION = re.compile(r"^(?P<source>[^:\s]+):(?P<line>\d+):(?P<column>\d+): "
                      r"(?P<message>.*)$", re.S)
UNSUPPORTED = re.compile(r"unsupported operation '([^']+)'|"
                         r"unknown opcode '([^']+)'")
STABLEHLO_OP = re.compile(r"\b((?:stablehlo|chlo|mhlo|func|sdy|shape|"
                          r"arith|tensor)\.[a-z_0-9]+)")
HLO_OP = re.compile(r"=\s*.*?\s([a-z][a-z0-9\-]*)\(")


def op_at(text: str, line: int, form: str) -> str:
    """The operation written on `line` (1-based) of `text`, or ''."""
    lines = text.splitlines()
    if not 1 <= line <= len(lines):
        return ""
    source = lines[line - 1]
    if form == "stablehlo":
        found = STABLEHLO_OP.search(source)
    else:
        found = HLO_OP.search(source)
    return found.group(1) if found else ""


def parse_cause(error, text, form):
    """(cause, detail) of a parse error: an unsupported op is named as
    such; anything else by the op on the line the parser stopped at and
    its message without the position."""
    message = str(error).strip()
    detail = _first_line(message, 400)
    located = LOCATION.match(message)
    body = located.group("message") if located else message
    body = _first_line(body)
    unsupported = UNSUPPORTED.search(body)
    if unsupported:
        op = unsupported.group(1) or unsupported.group(2)
        return f"unsupported op {op}", detail
    op = op_at(text, int(located.group("line")), form) if located else ""
    where = f" at {op}" if op else ""
    return f"parse error{where}: {_generalise(body)}", detail


TARGET = re.compile(r"(?:target|handler)[^']*'([^']+)'")


def _xffi_cause(stage, error, text):
    message = str(error).strip()
    detail = f"{type(error).__name__}: {_first_line(message, 400)}"
    located = LOCATION.match(message)
    body = _first_line(located.group("message") if located else message)
    if isinstance(error, LookupError):
        target = TARGET.search(body)
        name = target.group(1) if target else _generalise(body)
        return f"custom call target not registered: {name}", detail
    return f"{stage} error: {_generalise(body)}", detail


def _generalise(message: str) -> str:
    """The message with the parts that vary from case to case (shapes,
    value names, numbers in shapes) replaced, so one bug is one cause."""
    message = re.sub(r"tensor<[^>]*>", "tensor<...>", message)
    message = re.sub(r"\b([fsucb]f?\d+|pred|bf16)\[[\d,]*\](\{[\d,]*\})?",
                     r"\1[...]", message)
    message = re.sub(r"%[\w.#-]+", "%v", message)
    message = re.sub(r"\b[\w.-]+\.\d+\b", "<name>", message)
    message = re.sub(r"0x[0-9a-f]+", "0x...", message)
    # Where in which text: the detail keeps it; the cause is the same bug
    # in either form.
    message = re.sub(r" in computation '[^']*'", "", message)
    message = re.sub(r" at (?:stablehlo|hlo):\d+:\d+", "", message)
    return message
