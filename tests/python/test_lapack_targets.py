"""jaxlib's CPU linear-algebra targets in xffi: the programs JAX lowers for
jnp.linalg, jax.scipy.linalg and lax.linalg run in xffi.Program (StableHLO
and HLO) on xffi's built-in LAPACK handlers and match JAX; the same
programs run on jaxlib's own handlers (xffi.jax.register_jaxlib_targets)
and match too; nothing of jaxlib is needed for the built-ins; and the
registration rules around the built-in names hold in Python.

Results are compared where they are unique: eigenvectors and singular
vectors as magnitudes (or through products that do not depend on their
signs), eigenvalues of general matrices sorted."""

import pathlib
import subprocess
import sys

import numpy as np
import pytest

xffi = pytest.importorskip("xffi")
jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
import jax.scipy.linalg as jsl  # noqa: E402
from jax import lax  # noqa: E402
import xffi.jax  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]


def rand(seed, *shape, dtype=np.float32):
    g = np.random.default_rng(seed)
    a = g.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        a = a + 1j * g.standard_normal(shape)
    return a.astype(dtype)


def well_conditioned(seed, *shape, dtype=np.float32):
    return (rand(seed, *shape, dtype=dtype) +
            4 * np.eye(shape[-1])).astype(dtype)


def spd(seed, n, batch=(), dtype=np.float32):
    b = rand(seed, *batch, n, n, dtype=dtype)
    return (b @ np.conj(np.swapaxes(b, -1, -2)) +
            n * np.eye(n)).astype(dtype)


def sym(seed, n, dtype=np.float32):
    a = rand(seed, n, n, dtype=dtype)
    return ((a + np.conj(a.T)) / 2).astype(dtype)


def tridiagonal_system(seed, batch, m, nrhs):
    """dl, d, du, b as lax.linalg.tridiagonal_solve takes them (dl[0] and
    du[m-1] zero), diagonally dominant."""
    dl = rand(seed, batch, m)
    du = rand(seed + 1, batch, m)
    dl[:, 0] = 0
    du[:, -1] = 0
    return dl, rand(seed + 2, batch, m) + 4, du, rand(seed + 3, batch, m, nrhs)


def eig_checked(a):
    w, v = jnp.linalg.eig(a)
    residual = jnp.linalg.norm(a.astype(v.dtype) @ v - v * w[..., None, :])
    return jnp.sort_complex(w), residual


def schur_checked(a):
    t, z = jsl.schur(a)
    return z @ t @ z.T, jnp.sort(jnp.diagonal(t))


def hessenberg_checked(a):
    h, q = jsl.hessenberg(a, calc_q=True)
    return q @ h @ q.T, jnp.abs(jnp.diagonal(h, -1))


def tridiagonal_checked(a):
    _, d, e, _ = lax.linalg.tridiagonal(a)
    return d, jnp.abs(e)


def pivoted_qr(a):
    q, r, p = jsl.qr(a, pivoting=True)
    return q @ r, p


# (name, function, arguments). All float32/complex64 unless in X64_CASES.
CASES = [
    ("solve", jnp.linalg.solve, (well_conditioned(1, 3, 4, 4),
                                 rand(2, 3, 4, 2))),
    ("inv", jnp.linalg.inv, (well_conditioned(3, 2, 5, 5),)),
    ("det", jnp.linalg.det, (well_conditioned(4, 2, 4, 4),)),
    ("slogdet", lambda a: tuple(jnp.linalg.slogdet(a)),
     (well_conditioned(5, 4, 4),)),
    ("cholesky", jnp.linalg.cholesky, (spd(6, 5, (2,)),)),
    ("cho_solve", lambda a, b: jsl.cho_solve(jsl.cho_factor(a, lower=True), b),
     (spd(7, 4), rand(8, 4, 3))),
    ("qr", lambda a: (lambda q, r: (q @ r, jnp.abs(jnp.diagonal(r))))(
        *jnp.linalg.qr(a)), (rand(9, 2, 6, 4),)),
    ("qr_complete", lambda a: (lambda q, r: q @ r)(
        *jnp.linalg.qr(a, mode="complete")), (rand(10, 5, 3),)),
    ("qr_pivoting", pivoted_qr, (rand(11, 5, 4) * np.array([1, 3, 2, 5],
                                                            np.float32),)),
    ("qr_multiply", lambda a, c: jsl.qr_multiply(a, c)[0],
     (rand(12, 4, 4), rand(13, 3, 4))),
    ("householder_product", lambda a, t: lax.linalg.householder_product(a, t),
     (rand(14, 5, 3), rand(15, 3) * 0.5)),
    ("svd", lambda a: (lambda u, s, vt: (s, jnp.abs(u), jnp.abs(vt)))(
        *jnp.linalg.svd(a, full_matrices=False)), (rand(16, 2, 5, 3),)),
    ("svd_values", lambda a: jnp.linalg.svd(a, compute_uv=False),
     (rand(17, 3, 6),)),
    ("svd_qr_algorithm", lambda a: lax.linalg.svd(
        a, compute_uv=False, algorithm=lax.linalg.SvdAlgorithm.QR),
     (rand(18, 4, 3),)),
    ("pinv", jnp.linalg.pinv, (rand(19, 5, 3),)),
    ("lstsq", lambda a, b: jnp.linalg.lstsq(a, b)[0], (rand(20, 6, 3),
                                                       rand(21, 6, 2))),
    ("eigh", lambda a: (lambda w, v: (w, jnp.abs(v)))(*jnp.linalg.eigh(a)),
     (spd(22, 6, (2,)),)),
    ("eigvalsh_upper", lambda a: jnp.linalg.eigvalsh(a, UPLO="U"),
     (sym(23, 5),)),
    ("eig", eig_checked, (rand(24, 5, 5),)),
    ("lu", jsl.lu, (rand(25, 4, 4),)),
    ("lu_solve", lambda a, b: jsl.lu_solve(jsl.lu_factor(a), b),
     (well_conditioned(26, 4, 4), rand(27, 4, 2))),
    ("solve_triangular", lambda a, b: jsl.solve_triangular(
        a, b, lower=True, trans=1, unit_diagonal=True),
     (rand(28, 4, 4), rand(29, 4, 3))),
    ("triangular_solve_right", lambda a, b: lax.linalg.triangular_solve(
        a, b, left_side=False, lower=False, transpose_a=True),
     (well_conditioned(30, 4, 4), rand(31, 2, 4))),
    ("schur", schur_checked, (rand(32, 4, 4),)),
    ("hessenberg", hessenberg_checked, (rand(33, 5, 5),)),
    ("tridiagonal", tridiagonal_checked, (sym(34, 5),)),
    ("tridiagonal_solve", lax.linalg.tridiagonal_solve,
     tridiagonal_system(35, 2, 6, 3)),
    ("eigh_tridiagonal", lambda d, e: (lambda w, v: (w, jnp.abs(v)))(
        *jsl.eigh_tridiagonal(d, e)), (rand(39, 6), rand(40, 5))),
    ("expm", jsl.expm, (rand(41, 4, 4) * 0.5,)),
    ("sqrtm", jsl.sqrtm, (spd(42, 4),)),
    ("solve_c64", jnp.linalg.solve, (well_conditioned(43, 4, 4,
                                                      dtype=np.complex64),
                                     rand(44, 4, 2, dtype=np.complex64))),
    ("eigh_c64", lambda a: (lambda w, v: (w, jnp.abs(v)))(*jnp.linalg.eigh(a)),
     (spd(45, 4, dtype=np.complex64),)),
    ("svd_c64", lambda a: jnp.linalg.svd(a, compute_uv=False),
     (rand(46, 4, 3, dtype=np.complex64),)),
    ("eig_c64", eig_checked, (rand(47, 4, 4, dtype=np.complex64),)),
]

X64_CASES = [
    ("solve_f64", jnp.linalg.solve, (well_conditioned(50, 2, 4, 4,
                                                      dtype=np.float64),
                                     rand(51, 2, 4, 2, dtype=np.float64))),
    ("eigh_c128", lambda a: (lambda w, v: (w, jnp.abs(v)))(*jnp.linalg.eigh(a)),
     (spd(52, 4, dtype=np.complex128),)),
    ("qr_f64", lambda a: (lambda q, r: q @ r)(*jnp.linalg.qr(a)),
     (rand(53, 5, 3, dtype=np.float64),)),
]


def leaves(value):
    return [np.asarray(v) for v in jax.tree_util.tree_leaves(value)]


def tolerance(values):
    wide = any(v.dtype in (np.float64, np.complex128) for v in values)
    return (1e-9, 1e-10) if wide else (2e-4, 2e-4)


def check_case(name, f, args, *, expect_custom_calls=True):
    jitted = jax.jit(f)
    lowered = jitted.lower(*args)
    want = leaves(jitted(*args))
    rtol, atol = tolerance(want)
    texts = {"stablehlo": lowered.as_text(),
             "hlo": lowered.as_text(dialect="hlo")}
    if expect_custom_calls:
        assert "lapack_" in texts["stablehlo"] or \
            "tridiagonal_solve_perturbed_ffi" in texts["stablehlo"], name
    for dialect, text in texts.items():
        got = xffi.Program.from_text(text)(*args)
        got = list(got) if isinstance(got, tuple) else [got]
        assert len(got) == len(want), (name, dialect)
        for k, (g, w) in enumerate(zip(got, want)):
            np.testing.assert_allclose(
                np.asarray(g), w, rtol=rtol, atol=atol,
                err_msg=f"{name} ({dialect}) result {k}")


def ids(cases):
    return [c[0] for c in cases]


@pytest.mark.parametrize("name,f,args", CASES, ids=ids(CASES))
def test_builtin_targets_match_jax(name, f, args):
    check_case(name, f, args)


@pytest.mark.parametrize("name,f,args", X64_CASES, ids=ids(X64_CASES))
def test_builtin_targets_match_jax_in_x64(name, f, args):
    with jax.enable_x64(True):
        check_case(name, f, args)


@pytest.fixture
def jaxlib_handlers():
    """jaxlib's own handlers in place of the built-ins for one test."""
    resolved = xffi.jax.register_jaxlib_targets(replace_builtins=True)
    try:
        yield resolved
    finally:
        xffi.restore_builtin_targets()


def test_jaxlib_handlers_run_the_same_programs(jaxlib_handlers):
    assert jaxlib_handlers["lapack_sgetrf_ffi"] == "jaxlib"
    assert set(xffi.builtin_targets()) <= set(jaxlib_handlers)
    for name in xffi.builtin_targets():
        assert not xffi._core._builtin_target_active(name), name
    for name, f, args in CASES:
        check_case(name, f, args)
    with jax.enable_x64(True):
        for name, f, args in X64_CASES:
            check_case(name, f, args)


def test_jaxlib_targets_keep_the_builtins_unless_asked():
    resolved = xffi.jax.register_jaxlib_targets()
    assert resolved["lapack_sgetrf_ffi"] == "builtin"
    assert all(resolved[name] == "builtin" for name in xffi.builtin_targets())
    assert all(xffi._core._builtin_target_active(name)
               for name in xffi.builtin_targets())
    # What xffi does not have built in comes from jaxlib.
    assert all(kind == "jaxlib" for name, kind in resolved.items()
               if name not in xffi.builtin_targets())


def test_restore_brings_the_builtins_back(jaxlib_handlers):
    xffi.restore_builtin_targets()
    assert all(xffi._core._builtin_target_active(name)
               for name in xffi.builtin_targets())


def test_builtin_names_are_jaxlibs():
    from jaxlib import lapack
    jaxlib_names = {name for name, _, _ in lapack.registrations()["cpu"]}
    assert set(xffi.builtin_targets()) == jaxlib_names
    assert len(xffi.builtin_targets()) == 61


def test_another_handler_under_a_builtin_name(rms_norm_library):
    capsule = rms_norm_library.RmsNorm
    with pytest.raises(ValueError) as error:
        xffi.register_ffi_target("lapack_sgetrf_ffi", capsule)
    message = str(error.value)
    assert "lapack_sgetrf_ffi" in message
    assert "libxffi_program" in message
    assert "replace=True" in message
    try:
        xffi.register_ffi_target("lapack_sgetrf_ffi", capsule, replace=True)
        assert not xffi._core._builtin_target_active("lapack_sgetrf_ffi")
    finally:
        xffi.restore_builtin_targets()
    assert xffi._core._builtin_target_active("lapack_sgetrf_ffi")


def test_eager_call_of_a_builtin_target():
    a = spd(60, 4)
    out, info = xffi.ffi_call(
        "lapack_spotrf_ffi",
        (xffi.ShapeDtypeStruct(a.shape, a.dtype),
         xffi.ShapeDtypeStruct((), np.int32)))(a, uplo=np.uint8(ord("L")))
    # Row-major in, column-major to LAPACK: it factors a.T (= a) and the
    # lower factor comes back transposed.
    lower = np.tril(np.asarray(out).T)
    assert int(info) == 0
    np.testing.assert_allclose(lower @ lower.T, a, rtol=1e-4, atol=1e-4)
    bad = np.diag(np.array([1, -1, 1, 1], np.float32))
    _, info = xffi.ffi_call(
        "lapack_spotrf_ffi",
        (xffi.ShapeDtypeStruct(bad.shape, bad.dtype),
         xffi.ShapeDtypeStruct((), np.int32)))(bad, uplo=np.uint8(ord("L")))
    assert int(info) == 2


NO_JAXLIB = r"""
import sys
import numpy as np
sys.modules["jax"] = None
sys.modules["jaxlib"] = None
sys.path.insert(0, sys.argv[1])
import xffi
corpus = sys.argv[2]
for name, inputs, outputs in [("linalg_solve", 2, 3), ("linalg_eigh", 1, 3)]:
    text = open(f"{corpus}/{name}.mlir").read()
    args = [np.load(f"{corpus}/{name}.in_{k}.npy") for k in range(inputs)]
    got = xffi.Program.from_text(text)(*args)
    for k in range(outputs):
        want = np.load(f"{corpus}/{name}.out_{k}.npy")
        np.testing.assert_allclose(got[k], want, rtol=1e-4, atol=1e-5)
print("ran", len(xffi.builtin_targets()), "builtins without jaxlib")
"""


def test_builtins_need_no_jaxlib():
    package = pathlib.Path(xffi.__file__).parent.parent
    result = subprocess.run(
        [sys.executable, "-c", NO_JAXLIB, str(package),
         str(ROOT / "tests" / "programs")],
        capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "ran 61 builtins without jaxlib" in result.stdout

