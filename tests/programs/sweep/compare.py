"""Comparing xffi's results with JAX's: integers, booleans and the "exact"
family bit for bit; floating results within a tolerance set by the dtype
and scaled by the function's family, with NaN where JAX has NaN and
infinities of the same sign where JAX has them."""

import numpy as np

# (rtol, atol) for one elementwise operation: rtol of each element, atol
# relative to the largest finite magnitude in the result (so values that
# cancel to near zero are judged against the result's scale). A few units
# in the last place: XLA and xffi evaluate transcendental functions with
# different polynomials.
BASE = {
    "float32": (1e-5, 1e-6),
    "complex64": (1e-5, 1e-6),
    "float64": (1e-12, 1e-13),
    "complex128": (1e-12, 1e-13),
    "float16": (2e-3, 1e-3),
    "bfloat16": (1.6e-2, 8e-3),
}

# Scale of the family's rounding error against one operation: reductions
# and products sum in different orders, special functions are long series,
# factorizations and FFTs accumulate over the whole input, and gradients
# chain all of it once more.
FAMILY = {
    "exact": 0,
    "elementwise": 1,
    "transcendental": 4,
    "reduction": 10,
    "random": 10,
    "fft": 20,
    "special": 100,
    "linalg": 1000,
}
GRADIENT = 10
# Half-precision results are rounded from float32 work: the rounding of the
# last step dominates whatever the family, so their factor stays small.
HALF_CAP = 4


def tolerance(dtype, family: str, grad: bool):
    name = np.dtype(dtype).name
    if family == "exact" and not grad:
        return 0.0, 0.0
    rtol, atol = BASE[name]
    factor = max(FAMILY[family], 1) * (GRADIENT if grad else 1)
    if name in ("float16", "bfloat16"):
        factor = min(factor, HALF_CAP)
    return rtol * factor, atol * factor


def compare(expected, actual, family: str, grad: bool):
    """None when actual matches expected (lists of arrays), else a one-line
    description of the first difference: the leaf, what differs and the
    largest error."""
    if len(expected) != len(actual):
        return (f"{len(actual)} results, JAX has {len(expected)}")
    for index, (want, got) in enumerate(zip(expected, actual)):
        where = f"result {index}" if len(expected) > 1 else "result"
        want, got = np.asarray(want), np.asarray(got)
        if want.shape != got.shape:
            return f"{where}: shape {got.shape}, JAX has {want.shape}"
        if want.dtype != got.dtype:
            return f"{where}: dtype {got.dtype}, JAX has {want.dtype}"
        problem = _compare_leaf(want, got, family, grad)
        if problem:
            return f"{where}: {problem}"
    return None


def _compare_leaf(want, got, family, grad):
    kind = want.dtype.kind
    if kind in "biu" or want.dtype == np.bool_:
        different = want != got
        if different.any():
            count = int(different.sum())
            first = tuple(int(i) for i in np.argwhere(different)[0])
            return (f"{count} of {want.size} elements differ, first at "
                    f"{first}: {got[first]!r}, JAX {want[first]!r}")
        return None
    if want.dtype.name not in BASE:
        return None if np.array_equal(want, got) else "values differ"
    rtol, atol = tolerance(want.dtype, family, grad)
    if kind == "c":
        w, g = want.astype(np.complex128), got.astype(np.complex128)
        parts = (("real part: ", w.real, g.real),
                 ("imaginary part: ", w.imag, g.imag))
    else:
        parts = (("", want.astype(np.float64), got.astype(np.float64)),)
    for label, w, g in parts:
        problem = _compare_reals(w, g, rtol, atol)
        if problem:
            return label + problem
    return None


def _compare_reals(want, got, rtol, atol):
    nan_w, nan_g = np.isnan(want), np.isnan(got)
    if (nan_w != nan_g).any():
        first = tuple(int(i) for i in np.argwhere(nan_w != nan_g)[0])
        return (f"NaN positions differ ({int((nan_w != nan_g).sum())} "
                f"elements), first at {first}: {got[first]!r}, "
                f"JAX {want[first]!r}")
    inf_w, inf_g = np.isinf(want), np.isinf(got)
    bad_inf = (inf_w | inf_g) & ~((inf_w & inf_g) & (np.sign(want) ==
                                                      np.sign(got)))
    if bad_inf.any():
        first = tuple(int(i) for i in np.argwhere(bad_inf)[0])
        return (f"infinities differ ({int(bad_inf.sum())} elements), first "
                f"at {first}: {got[first]!r}, JAX {want[first]!r}")
    finite = ~(nan_w | inf_w)
    if not finite.any():
        return None
    w, g = want[finite], got[finite]
    scale = float(np.max(np.abs(w))) if w.size else 0.0
    error = np.abs(g - w)
    allowed = rtol * np.abs(w) + atol * scale
    if rtol == 0 and atol == 0:
        # "exact" results: equal, and zeros of the same sign.
        bad = (error > 0) | (np.signbit(w) != np.signbit(g))
    else:
        bad = error > allowed
    if not bad.any():
        return None
    worst = int(np.argmax(np.where(bad, error, -1)))
    relative = error[worst] / max(abs(w[worst]), np.finfo(np.float64).tiny)
    return (f"{int(bad.sum())} of {w.size} elements off; max abs error "
            f"{error[worst]:.3g} (rel {relative:.3g}) where JAX has "
            f"{w[worst]:.8g} and xffi {g[worst]:.8g}; "
            f"tolerance rtol {rtol:.2g}, atol {atol:.2g}x{scale:.3g}")
