"""Byte-float arithmetic in xffi against XLA:CPU, bit for bit.

For every byte-float type xffi and ml_dtypes share (the f8 family,
f4e2m1fn, f8e8m0fnu) this lowers one JAX function of two arrays a and b that
applies lax's elementwise ops to them (a and b together hold every pair of
byte patterns, or a sample of them), runs it through jax.jit (XLA:CPU) and
through xffi from the StableHLO text and from the HLO text, and compares
the results' bytes. XLA:CPU widens these types to f16 (f32 for f8e8m0fnu)
and converts each result back, so the comparison is exact: no tolerance, and
a NaN must have XLA's byte too.

    python tests/programs/byte_float_parity.py [--build DIR] [--ops all]
        [--markdown FILE]

runs the full grid (every pair of patterns; with --ops all also the
transcendental ops) and prints, per type and op, how many results differ.
It also reduces rows of every length in REDUCE_LENGTHS (and columns of a
few) by add, max and min, where XLA:CPU's order of visiting the inputs
(windows of 32, passes/reduction_tree.h) decides most sums' bytes.
tests/python/test_byte_float_parity.py runs a sample of both in CI."""

import argparse
import os
import pathlib
import sys
import time

import numpy as np

# The byte-float types: ml_dtypes' name -> the bits a value occupies.
TYPES = {
    "float8_e4m3fn": 8,
    "float8_e4m3b11fnuz": 8,
    "float8_e5m2": 8,
    "float8_e4m3fnuz": 8,
    "float8_e5m2fnuz": 8,
    "float8_e4m3": 8,
    "float8_e3m4": 8,
    "float8_e8m0fnu": 8,
    "float4_e2m1fn": 4,
}


# What is known of the differences left (type, op), for the table.
_LOG_NAN = ("a NaN input: XLA:CPU's log1p (f16 and f32) and its f32 log "
            "return the all-ones NaN (0xffff, 0xffffffff: negative) for "
            "every NaN input, its f16 log the input's NaN (probe, jax "
            "0.10.2); the byte result is then the type's negative NaN, "
            "where xffi keeps the input's NaN (its f32 log and log1p do "
            "too). An artefact of XLA's log expansion, not matched")
# The same for reductions (compare_reductions): only NaN results' signs.
_REDUCE_NAN = (
    "only a NaN result's sign, in the types whose NaNs have one: max and "
    "min of rows longer than 32, whose last level (the reduce of the "
    "windows' results) XLA:CPU's compiler vectorises across rows for some "
    "row counts and not others (rows of 2 windows: 2, 4, 8, 16, 18 or 32 "
    "rows give the positive NaN, 1, 3, 6, 10, 12 or 14 rows the scalar "
    "rule xffi follows; probe, jax 0.10.2), and two NaNs of opposite signs "
    "meeting in a short row (f8e3m4 max/min of 2)")
KNOWN_REDUCTIONS = {
    (type_name, op): _REDUCE_NAN
    for type_name in ("float8_e4m3fn", "float8_e4m3", "float8_e3m4")
    for op in ("add", "max", "min")}
KNOWN = {
    ("float8_e4m3fn", "log"): _LOG_NAN,
    ("float8_e4m3fn", "log1p"): _LOG_NAN,
    ("float8_e4m3", "log1p"): _LOG_NAN,
    ("float8_e3m4", "log1p"): _LOG_NAN,
}

# The same for products and scans (compare_windows), by (type, op).
_SCAN_TAIL_NAN = (
    "only a NaN's sign, at a row's last element when it is alone in its "
    "block of 16 (lengths 17 and 33): XLA:CPU's map there gives the scalar "
    "rule's NaN (cummin of [1, -NaN, 1 x 15] ends in -NaN), elsewhere in "
    "the last level the positive NaN, which xffi gives throughout "
    "(byte_float_reduce.h: kMap); not modelled")
KNOWN_WINDOWS = {
    **{(type_name, "cummin"): _SCAN_TAIL_NAN
       for type_name in ("float8_e4m3fn", "float8_e4m3", "float8_e3m4")},
    **{(type_name, "cummax"): _SCAN_TAIL_NAN
       for type_name in ("float8_e4m3fn", "float8_e4m3", "float8_e3m4")},
    **{(type_name, "dot"): (
        "only a NaN's sign: which NaN an f32 sum of products holding NaN, "
        "inf x 0 or inf - inf ends with (an input's, or x86's negative "
        "default NaN) depends on the GEMM's order and instructions "
        "(XLA:CPU: YNNPACK; xffi: its own loop or oneDNN); not modelled")
       for type_name in ("float8_e4m3fn", "float8_e4m3", "float8_e3m4")},
}


def _ops():
    from jax import lax

    def clamp(a, b):
        # Bounds that vary per element and are sometimes crossed (min > max).
        return lax.clamp(b, a, b[::-1])

    binary = {
        "add": lax.add, "sub": lax.sub, "mul": lax.mul, "div": lax.div,
        "max": lax.max, "min": lax.min, "clamp": clamp,
    }
    compare = {
        "eq": lax.eq, "ne": lax.ne, "lt": lax.lt, "le": lax.le,
        "gt": lax.gt, "ge": lax.ge,
    }
    unary = {"neg": lax.neg, "abs": lax.abs, "exp": lax.exp}
    # Beyond the brief's set: run with --ops all.
    more_binary = {"pow": lax.pow, "rem": lax.rem, "atan2": lax.atan2}
    more_unary = {
        "sign": lax.sign, "floor": lax.floor, "ceil": lax.ceil,
        "round": lax.round, "sqrt": lax.sqrt, "rsqrt": lax.rsqrt,
        "log": lax.log, "log1p": lax.log1p, "expm1": lax.expm1,
        "tanh": lax.tanh, "logistic": lax.logistic, "sin": lax.sin,
        "cos": lax.cos,
    }
    return binary, compare, unary, more_binary, more_unary


def operation_table(include_more=False):
    """(name -> function of (a, b), the names of the unary ops)."""
    binary, compare, unary, more_binary, more_unary = _ops()
    table = {}
    table.update(binary)
    table.update(compare)
    unaries = dict(unary)
    if include_more:
        table.update(more_binary)
        unaries.update(more_unary)
    for name, fn in unaries.items():
        table[name] = (lambda f: lambda a, b: f(a))(fn)
    return table, set(unaries)


def sample(type_name, b_stride):
    """The patterns b takes: every b_stride-th one, plus (stride > 1) the
    ones around the largest finite values, the infinities, NaN and zero of
    either sign, where the formats differ most."""
    count = 1 << TYPES[type_name]
    patterns = np.arange(count, dtype=np.uint8)
    if b_stride == 1:
        return patterns
    half = count // 2
    edges = np.concatenate([patterns[:2], patterns[half - 9:half + 2],
                            patterns[count - 9:]])
    return np.union1d(patterns[::b_stride], edges).astype(np.uint8)


def pairs(type_name, b_stride=1):
    """(a, b): every byte pattern of the type as a, against every pattern
    (b_stride 1: the full grid) or a sample of them as b."""
    import ml_dtypes

    dtype = np.dtype(getattr(ml_dtypes, type_name))
    count = 1 << TYPES[type_name]
    patterns = np.arange(count, dtype=np.uint8)
    b_patterns = sample(type_name, b_stride)
    a = np.repeat(patterns, len(b_patterns)).view(dtype)
    b = np.tile(b_patterns, count).view(dtype)
    return a, b


def hlo_text(stablehlo):
    from jax._src.lib import xla_client

    computation = xla_client._xla.mlir.mlir_module_to_xla_computation(
        stablehlo, use_tuple_args=False, return_tuple=True)
    return computation.as_hlo_text()


def lowerable(type_name, ops, a, b):
    """The ops JAX lowers for this type (f8e8m0fnu, unsigned, has no
    neg in some versions), and the names of the others."""
    import jax

    kept, refused = {}, []
    for name, fn in ops.items():
        try:
            jax.jit(fn).lower(a[:1], b[:1])
        except Exception:  # noqa: BLE001 - JAX's refusal, whatever its type
            refused.append(name)
        else:
            kept[name] = fn
    return kept, refused


def compare_types(type_names, ops, unary=(), b_stride=1):
    """{type: ({op: {form: (differing count, total, examples)}}, the ops
    JAX refused)}. One program holds every op on every type, so XLA and
    xffi each compile once per form. The ops named in `unary` read only a:
    their counts are of a's patterns (the results for one b)."""
    import jax
    import xffi

    arrays, plan = [], []
    for type_name in type_names:
        a, b = pairs(type_name, b_stride)
        kept, refused = lowerable(type_name, ops, a, b)
        arrays += [a, b]
        plan.append((type_name, list(kept), kept, refused))

    def program(*args):
        results = []
        for i, (_, names, kept, _) in enumerate(plan):
            x, y = args[2 * i], args[2 * i + 1]
            results += [kept[name](x, y) for name in names]
        return tuple(results)

    jitted = jax.jit(program)
    expected = [np.asarray(r) for r in jitted(*arrays)]
    stablehlo = jitted.lower(*arrays).as_text()
    report = {name: ({op: {} for op in names}, refused)
              for name, names, _, refused in plan}
    for form, text in (("stablehlo", stablehlo), ("hlo", hlo_text(stablehlo))):
        got = iter(xffi.Program.from_text(text)(*arrays))
        want = iter(expected)
        for i, (type_name, names, _, _) in enumerate(plan):
            a, b = arrays[2 * i], arrays[2 * i + 1]
            for name in names:
                wanted, have = next(want), np.asarray(next(got))
                assert (have.shape == wanted.shape and
                        have.dtype == wanted.dtype), (
                    type_name, name, form, have.shape, have.dtype)
                report[type_name][0][name][form] = differences(
                    a, b, wanted, have, name in unary)
    return report


def differences(a, b, want, have, unary=False):
    """(how many results' bytes differ, out of how many, up to three
    (a, b, want, have) byte examples). Unary: one result per a."""
    bits = [a.view(np.uint8), b.view(np.uint8), want.view(np.uint8),
            have.view(np.uint8)]
    if unary:
        once = bits[1] == bits[1][0]
        bits = [x[once] for x in bits]
    a_bits, b_bits, want_bits, have_bits = bits
    differ = np.nonzero(want_bits != have_bits)[0]
    examples = [(int(a_bits[i]), int(b_bits[i]), int(want_bits[i]),
                 int(have_bits[i])) for i in differ[:3]]
    return len(differ), len(want_bits), examples


# Row lengths of the reduction grid: every length to past two windows of
# 32, then lengths XLA folds in two and three levels.
REDUCE_LENGTHS = list(range(1, 71)) + [300, 1025, 4096]
# Column lengths (a reduce over the major dimension).
REDUCE_COLUMNS = [33, 70, 300]
REDUCE_OPS = ("add", "max", "min")


def reduction_inputs(type_name, length, rows, seed, finite):
    """(rows, length) byte patterns of the type, drawn at random: every
    pattern (NaN and infinities, where sums saturate) or, when `finite`,
    only the finite ones below 8 in magnitude, where sums keep rounding."""
    import ml_dtypes

    dtype = np.dtype(getattr(ml_dtypes, type_name))
    count = 1 << TYPES[type_name]
    patterns = np.arange(count, dtype=np.uint8)
    if finite:
        values = patterns.view(dtype).astype(np.float32)
        patterns = patterns[np.isfinite(values) & (np.abs(values) < 8)]
    rng = np.random.default_rng(seed)
    return rng.choice(patterns, size=(rows, length)).view(dtype)


def compare_reductions(type_names, lengths=REDUCE_LENGTHS,
                       columns=REDUCE_COLUMNS, rows=8):
    """{type: {op: {form: (differing results, total, examples, how many
    of those differ only in a NaN's sign or payload)}}} for
    add, max and min reductions of rows of each length (and of columns of
    each length in `columns`), half the rows from every pattern, half from
    the finite ones. One program per type; examples are (axis, length,
    row, xla byte, xffi byte)."""
    import jax
    import jax.numpy as jnp
    import xffi

    reducers = {"add": jnp.sum, "max": jnp.max, "min": jnp.min}
    report = {}
    for t, type_name in enumerate(type_names):
        arrays, plan = [], []
        for axis, sizes in ((1, lengths), (0, columns)):
            for length in sizes:
                x = np.concatenate([
                    reduction_inputs(type_name, length, rows // 2,
                                     seed=(t, length, axis, 0), finite=False),
                    reduction_inputs(type_name, length, rows - rows // 2,
                                     seed=(t, length, axis, 1), finite=True)])
                arrays.append(x if axis == 1 else np.ascontiguousarray(x.T))
                plan.append((axis, length))

        def program(*args):
            return tuple(reducers[op](x, axis=axis)
                         for x, (axis, _) in zip(args, plan)
                         for op in REDUCE_OPS)

        jitted = jax.jit(program)
        expected = [np.asarray(r) for r in jitted(*arrays)]
        stablehlo = jitted.lower(*arrays).as_text()
        outcome = {op: {} for op in REDUCE_OPS}
        for form, text in (("stablehlo", stablehlo),
                           ("hlo", hlo_text(stablehlo))):
            got = [np.asarray(r)
                   for r in xffi.Program.from_text(text)(*arrays)]
            for op_index, op in enumerate(REDUCE_OPS):
                count, nan_signs, total, examples = 0, 0, 0, []
                for p, (axis, length) in enumerate(plan):
                    i = p * len(REDUCE_OPS) + op_index
                    want = expected[i].view(np.uint8)
                    have = got[i].view(np.uint8)
                    both_nan = (np.isnan(expected[i].astype(np.float32)) &
                                np.isnan(got[i].astype(np.float32)))
                    differ = np.nonzero(want != have)[0]
                    count += len(differ)
                    nan_signs += int(np.count_nonzero(both_nan[differ]))
                    total += len(want)
                    examples += [(axis, length, int(r), int(want[r]),
                                  int(have[r])) for r in differ[:1]]
                outcome[op][form] = (count, total, examples[:3], nan_signs)
        report[type_name] = outcome
    return report


def reduction_lines(report):
    """The markdown table of a compare_reductions report, and how many
    (type, op) pairs matched."""
    lines = [
        "| type | op | differ (StableHLO) (of which NaN against NaN) | "
        "differ (HLO) | e.g. (axis, length, row, xla, xffi) | known cause |",
        "|---|---|---|---|---|---|"]
    clean = 0
    for type_name, outcome in report.items():
        for op, forms in outcome.items():
            shlo, hlo = forms["stablehlo"], forms["hlo"]
            if shlo[0] == 0 and hlo[0] == 0:
                clean += 1
                continue
            lines.append(
                f"| {type_name} | {op} | {shlo[0]} / {shlo[1]} ({shlo[3]} "
                f"NaN) | {hlo[0]} / {hlo[1]} ({hlo[3]} NaN) | "
                f"{shlo[2] or hlo[2]} | "
                f"{KNOWN_REDUCTIONS.get((type_name, op), '?')} |")
    return lines, clean


# The products and scans section: dot contraction lengths (a [4, k] by
# [k, 5] product), scan lengths (XLA:CPU rewrites a scan longer than 16 into
# blocks of 16, two levels deep past 256) and one small convolution.
PRODUCT_LENGTHS = [2, 8, 33, 100]
SCAN_LENGTHS = [5, 16, 17, 33, 100, 300]
SCAN_OPS = ("cumsum", "cumprod", "cummax", "cummin")


def _window_ops(product_lengths, scan_lengths, scan_ops=SCAN_OPS):
    """label -> (first operand's shape, second's or None, the function)."""
    import jax.numpy as jnp
    from jax import lax

    def conv(x, w):
        return lax.conv_general_dilated(x, w, (1, 1), "SAME")

    table = {}
    for k in product_lengths:
        table[f"dot k={k}"] = ((4, k), (k, 5), jnp.dot)
    table["conv 2x6x6*3x2x3x3"] = ((1, 2, 6, 6), (3, 2, 3, 3), conv)
    scans = {"cumsum": lax.cumsum, "cumprod": lax.cumprod,
             "cummax": lax.cummax, "cummin": lax.cummin}
    for name in scan_ops:
        for reverse in (False, True):
            for n in scan_lengths:
                label = f"{name}{' reverse' if reverse else ''} n={n}"
                table[label] = ((4, n), None,
                                (lambda f, r: lambda x: f(x, axis=1,
                                                          reverse=r))(
                                    scans[name], reverse))
    return table


def compare_windows(type_names, product_lengths=PRODUCT_LENGTHS,
                    scan_lengths=SCAN_LENGTHS, scan_ops=SCAN_OPS,
                    rows_seed=0):
    """{type: {op: {form: (differing results, total, examples, how many of
    those differ only in a NaN's sign or payload)}}} for the dot,
    convolution and cumulative scans of _window_ops: half the inputs
    drawn from every pattern, half from the finite values below 8 (rows
    of the first operand; the second operand is all of one kind).
    Examples are (flat index, xla byte, xffi byte)."""
    import jax
    import xffi

    report = {}
    for t, type_name in enumerate(type_names):
        arrays, plan = [], []
        ops = _window_ops(product_lengths, scan_lengths, scan_ops)
        for label, (shape_a, shape_b, fn) in ops.items():
            operands = []
            for i, shape in enumerate(s for s in (shape_a, shape_b) if s):
                rows = shape[0]
                finite = reduction_inputs(
                    type_name, int(np.prod(shape)), 1,
                    seed=(rows_seed, t, len(arrays), i, 1), finite=True)
                wild = reduction_inputs(
                    type_name, int(np.prod(shape)), 1,
                    seed=(rows_seed, t, len(arrays), i, 0), finite=False)
                x = finite.reshape(shape).copy()
                if i == 0 and rows > 1:  # first half of the rows: any pattern
                    x[:rows // 2] = wild.reshape(shape)[:rows // 2]
                operands.append(x)
            try:
                jax.jit(fn).lower(*operands)
            except Exception:  # noqa: BLE001 - JAX's refusal
                continue
            plan.append((label, len(arrays), len(operands), fn))
            arrays += operands

        def program(*args):
            return tuple(fn(*args[at:at + count])
                         for _, at, count, fn in plan)

        jitted = jax.jit(program)
        expected = [np.asarray(r) for r in jitted(*arrays)]
        stablehlo = jitted.lower(*arrays).as_text()
        outcome = {label: {} for label, _, _, _ in plan}
        for form, text in (("stablehlo", stablehlo),
                           ("hlo", hlo_text(stablehlo))):
            got = [np.asarray(r)
                   for r in xffi.Program.from_text(text)(*arrays)]
            for (label, _, _, _), want, have in zip(plan, expected, got):
                w, h = want.view(np.uint8).ravel(), have.view(np.uint8).ravel()
                differ = np.nonzero(w != h)[0]
                both_nan = (np.isnan(want.astype(np.float32).ravel()) &
                            np.isnan(have.astype(np.float32).ravel()))
                outcome[label][form] = (
                    len(differ), len(w),
                    [(int(i), int(w[i]), int(h[i])) for i in differ[:3]],
                    int(np.count_nonzero(both_nan[differ])))
        report[type_name] = outcome
    return report


def window_lines(report):
    """The markdown table of a compare_windows report, one row per (type,
    op) over its sizes, and how many (type, op) pairs matched."""
    lines = [
        "| type | op | sizes that differ | differ (StableHLO) (of which NaN "
        "against NaN) | differ (HLO) | e.g. (size, index, xla, xffi) | "
        "known cause |",
        "|---|---|---|---|---|---|---|"]
    clean = 0
    for type_name, outcome in report.items():
        families = {}
        for label, forms in outcome.items():
            family, size = label.rsplit(" ", 1)
            families.setdefault(family, []).append((size, forms))
        for family, sizes in families.items():
            sums = {form: [0, 0, 0] for form in ("stablehlo", "hlo")}
            differing, examples = [], []
            for size, forms in sizes:
                for form in sums:
                    sums[form][0] += forms[form][0]
                    sums[form][1] += forms[form][1]
                    sums[form][2] += forms[form][3]
                if forms["stablehlo"][0] or forms["hlo"][0]:
                    differing.append(size)
                    example = forms["stablehlo"][2] or forms["hlo"][2]
                    examples.append((size,) + example[0])
            if not differing:
                clean += 1
                continue
            shlo, hlo = sums["stablehlo"], sums["hlo"]
            op = family.split()[0]
            lines.append(
                f"| {type_name} | {family} | {', '.join(differing)} | "
                f"{shlo[0]} / {shlo[1]} ({shlo[2]} NaN) | "
                f"{hlo[0]} / {hlo[1]} ({hlo[2]} NaN) | "
                f"{examples[:3]} | "
                f"{KNOWN_WINDOWS.get((type_name, op), '?')} |")
    return lines, clean


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.environ.get(
        "XFFI_BUILD_DIR", str(pathlib.Path(__file__).resolve().parents[2] /
                              "build" / "release")))
    parser.add_argument("--ops", choices=["brief", "all"], default="all",
                        help="the basic ops only, or also pow, rem, atan2 "
                        "and the transcendental functions")
    parser.add_argument("--b-stride", type=int, default=1,
                        help="take every n-th pattern as b (1: all pairs)")
    parser.add_argument("--markdown", help="also write the table here")
    args = parser.parse_args()
    build_python = pathlib.Path(args.build) / "python"
    if any((build_python / "xffi").glob("_core*.so")):
        sys.path.insert(0, str(build_python))
    import jax

    ops, unary = operation_table(include_more=args.ops == "all")
    import subprocess

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True,
                            cwd=pathlib.Path(__file__).parent).stdout.strip()
    lines = [
        "# Byte-float arithmetic against XLA:CPU", "",
        "Written by `tests/programs/byte_float_parity.py "
        f"--ops {args.ops} --b-stride {args.b_stride}` (do not edit by "
        f"hand): xffi {commit}, jax {jax.__version__}, "
        f"{time.strftime('%Y-%m-%d')}. Each row: an op whose results' bytes "
        "differ from XLA:CPU's for some inputs, out of all results (a unary "
        "op: out of the type's patterns), in the StableHLO and the HLO "
        "text; every (type, op) not listed matches bit for bit.", "",
        "| type | op | differ (StableHLO) | differ (HLO) | e.g. (a, b, xla, "
        "xffi) | known cause |", "|---|---|---|---|---|---|"]
    clean = 0
    started = time.perf_counter()
    report = compare_types(list(TYPES), ops, unary, args.b_stride)
    for type_name, (outcome, refused) in report.items():
        for name, forms in outcome.items():
            shlo, hlo = forms["stablehlo"], forms["hlo"]
            if shlo[0] == 0 and hlo[0] == 0:
                clean += 1
                continue
            lines.append(f"| {type_name} | {name} | {shlo[0]} / {shlo[1]} | "
                         f"{hlo[0]} / {hlo[1]} | {shlo[2] or hlo[2]} | "
                         f"{KNOWN.get((type_name, name), '?')} |")
        if refused:
            lines.append(f"| {type_name} | {', '.join(refused)} | JAX does "
                         "not lower | | | |")
    lines += ["", f"{clean} (type, op) pairs match bit for bit in both forms;"
              f" {time.perf_counter() - started:.1f} s."]
    started = time.perf_counter()
    table, clean = reduction_lines(compare_reductions(list(TYPES)))
    lines += [
        "", "## Reductions", "",
        "add, max and min over rows of every length in 1..70, 300, 1025 and "
        f"4096 and over columns of {', '.join(map(str, REDUCE_COLUMNS))} "
        "(8 each: 4 of random patterns, 4 of finite values below 8), "
        "every result's byte against XLA:CPU's; every (type, op) not listed "
        "matches bit for bit.", ""] + table + [
        "", f"{clean} (type, op) pairs match bit for bit in both forms; "
        f"{time.perf_counter() - started:.1f} s."]
    started = time.perf_counter()
    table, clean = window_lines(compare_windows(list(TYPES)))
    lines += [
        "", "## Products and scans", "",
        f"dot of [4, k] by [k, 5] for k in {PRODUCT_LENGTHS}, a 3x3 "
        "convolution of 1x2x6x6 by 3x2x3x3 (SAME), and cumsum, cumprod, "
        f"cummax and cummin (forward and reverse) over rows of "
        f"{SCAN_LENGTHS} (4 rows: 2 of random patterns, 2 of finite values "
        "below 8; a product's second operand of finite values), every "
        "result's byte against XLA:CPU's; every (type, op) not listed "
        "matches bit for bit.", ""] + table + [
        "", f"{clean} (type, op) pairs match bit for bit in both forms; "
        f"{time.perf_counter() - started:.1f} s."]
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        pathlib.Path(args.markdown).write_text(text + "\n")


if __name__ == "__main__":
    main()
