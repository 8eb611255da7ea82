"""cholesky, triangular_solve, map and rng, written as StableHLO by hand (JAX
0.10 lowers its linear algebra on CPU to LAPACK custom calls instead), run
in xffi from the StableHLO text and from the HLO text XLA makes of it, and
compared with XLA:CPU running the same module through jaxlib."""

import numpy as np
import pytest

xffi = pytest.importorskip("xffi")
jax = pytest.importorskip("jax")
from jax._src import xla_bridge  # noqa: E402
from jax._src.lib import xla_client  # noqa: E402

TYPES = {
    np.float32: "f32",
    np.float64: "f64",
    np.complex64: "complex<f32>",
    np.complex128: "complex<f64>",
}


@pytest.fixture(autouse=True, scope="module")
def x64():
    with jax.enable_x64(True):
        yield


# Narrow floats: xffi computes their linear algebra in f32 and rounds once.
NARROW = {
    np.float16: "f16",
    jax.numpy.bfloat16: "bf16",
}


def tensor(shape, dtype):
    name = TYPES.get(dtype) or NARROW[dtype]
    return "tensor<" + "".join(f"{d}x" for d in shape) + name + ">"


def run_xla(text, *args):
    backend = xla_bridge.get_backend("cpu")
    devices = xla_client.DeviceList(tuple(backend.local_devices()[:1]))
    executable = backend.compile_and_load(text, devices,
                                          xla_client.CompileOptions())
    results = executable.execute_sharded([jax.device_put(a) for a in args])
    return [np.asarray(r[0])
            for r in results.disassemble_into_single_device_arrays()]


def hlo_text(text):
    computation = xla_client._xla.mlir.mlir_module_to_xla_computation(
        text, use_tuple_args=False, return_tuple=False)
    return computation.as_hlo_text()


def run_xffi(text, *args):
    """The results of the StableHLO text and of its HLO text, each a list."""
    out = []
    for form in (text, hlo_text(text)):
        result = xffi.Program.from_text(form)(*args)
        out.append([np.asarray(r) for r in
                    (result if isinstance(result, (list, tuple)) else [result])])
    return out


def tolerance(dtype):
    # The narrow types: a few units in the last place of the result (XLA
    # rounds inside its expansion, xffi once at the end).
    if dtype == np.float16:
        return 1e-2
    if dtype == jax.numpy.bfloat16:
        return 5e-2
    return 1e-4 if dtype in (np.float32, np.complex64) else 1e-10


def assert_matches_xla(text, *args, dtype):
    expected = run_xla(text, *args)
    for got in run_xffi(text, *args):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert g.shape == e.shape and g.dtype == e.dtype
            np.testing.assert_array_equal(np.isnan(g), np.isnan(e))
            np.testing.assert_allclose(g.astype(np.float64) if dtype in NARROW
                                       else g,
                                       e.astype(np.float64) if dtype in NARROW
                                       else e,
                                       rtol=tolerance(dtype),
                                       atol=tolerance(dtype))


def random(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        values = values + 1j * rng.standard_normal(shape)
    return values.astype(dtype)


def positive_definite(batch, n, dtype, seed):
    m = random((batch, n, n), dtype, seed)
    a = m @ np.conj(np.swapaxes(m, -1, -2)) + n * np.eye(n, dtype=dtype)
    # The triangle cholesky does not read holds garbage.
    garbage = np.full((n, n), 100, dtype)
    return a, garbage


@pytest.mark.parametrize("dtype", list(TYPES) + list(NARROW))
@pytest.mark.parametrize("lower", [True, False])
def test_cholesky(dtype, lower):
    batch, n = 3, 4
    wide = np.float32 if dtype in NARROW else dtype
    a, garbage = positive_definite(batch, n, wide, 1)
    keep = np.tril(np.ones((n, n), bool)) if lower else np.triu(
        np.ones((n, n), bool))
    a = np.where(keep, a, garbage)
    # Matrix 2 is not positive definite: XLA makes it NaN.
    a[2] = np.where(keep, -np.eye(n, dtype=wide) + 0.5, garbage)
    a = a.astype(dtype)
    t = tensor((batch, n, n), dtype)
    text = f"""
module @m {{
  func.func public @main(%a: {t}) -> {t} {{
    %0 = stablehlo.cholesky %a, lower = {str(lower).lower()} : {t}
    return %0 : {t}
  }}
}}"""
    assert_matches_xla(text, a, dtype=dtype)


@pytest.mark.parametrize("dtype", list(TYPES) + list(NARROW))
@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("transpose", ["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"])
@pytest.mark.parametrize("unit_diagonal", [True, False])
def test_triangular_solve(dtype, left_side, lower, transpose, unit_diagonal):
    batch, k, other = 2, 4, 3
    wide = np.float32 if dtype in NARROW else dtype
    a = (random((batch, k, k), wide, 2) + 4 * np.eye(k, dtype=wide)).astype(
        dtype)
    b_shape = (batch, k, other) if left_side else (batch, other, k)
    b = random(b_shape, wide, 3).astype(dtype)
    ta, tb = tensor(a.shape, dtype), tensor(b_shape, dtype)
    text = f"""
module @m {{
  func.func public @main(%a: {ta}, %b: {tb}) -> {tb} {{
    %0 = "stablehlo.triangular_solve"(%a, %b) {{left_side = {str(left_side).lower()}, lower = {str(lower).lower()}, unit_diagonal = {str(unit_diagonal).lower()}, transpose_a = #stablehlo<transpose {transpose}>}} : ({ta}, {tb}) -> {tb}
    return %0 : {tb}
  }}
}}"""
    assert_matches_xla(text, a, b, dtype=dtype)


@pytest.mark.parametrize("body", [
    # One op of the parameters: that op's elementwise kernel.
    "%1 = stablehlo.atan2 %x, %y : tensor<f32>",
    # Compiles to a ScalarProgram.
    """%0 = stablehlo.multiply %x, %y : tensor<f32>
      %1 = stablehlo.subtract %0, %y : tensor<f32>""",
    # Neither: through the RegionRunner.
    """%0 = stablehlo.exponential %x : tensor<f32>
      %1 = stablehlo.atan2 %0, %y : tensor<f32>""",
])
def test_map(body):
    t = tensor((3, 5), np.float32)
    text = f"""
module @m {{
  func.func public @main(%a: {t}, %b: {t}) -> {t} {{
    %0 = "stablehlo.map"(%a, %b) ({{
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      {body}
      stablehlo.return %1 : tensor<f32>
    }}) {{dimensions = array<i64: 0, 1>}} : ({t}, {t}) -> {t}
    return %0 : {t}
  }}
}}"""
    assert_matches_xla(text, random((3, 5), np.float32, 4),
                       random((3, 5), np.float32, 5), dtype=np.float32)


def rng_text(distribution, element, shape):
    t = f"tensor<{'x'.join(map(str, shape))}x{element}>"
    return f"""
module @m {{
  func.func public @main(%a: tensor<{element}>, %b: tensor<{element}>) -> {t} {{
    %c = stablehlo.constant dense<[{', '.join(map(str, shape))}]> : tensor<{len(shape)}xi64>
    %0 = stablehlo.rng %a, %b, %c, distribution = {distribution} : (tensor<{element}>, tensor<{element}>, tensor<{len(shape)}xi64>) -> {t}
    return %0 : {t}
  }}
}}"""


def test_rng_uniform_float_bounds_and_moments():
    text = rng_text("UNIFORM", "f32", (200, 500))
    a, b = np.float32(-1), np.float32(3)
    for got in run_xffi(text, a, b):
        x = got[0]
        assert x.shape == (200, 500) and x.dtype == np.float32
        assert x.min() >= -1 and x.max() < 3
        # Uniform on [-1, 3): mean 1, variance 16/12.
        assert abs(x.mean() - 1) < 0.02
        assert abs(x.var() - 16 / 12) < 0.03
    # XLA draws from the same distribution.
    x = run_xla(text, a, b)[0]
    assert x.min() >= -1 and x.max() < 3 and abs(x.mean() - 1) < 0.02


def test_rng_normal_moments():
    text = rng_text("NORMAL", "f64", (100000,))
    for got in run_xffi(text, np.float64(2), np.float64(0.5)):
        x = got[0]
        assert x.dtype == np.float64
        assert abs(x.mean() - 2) < 0.01
        assert abs(x.std() - 0.5) < 0.01


def test_rng_integers_and_new_numbers_every_run():
    text = rng_text("UNIFORM", "i32", (1000,))
    program = xffi.Program.from_text(text)
    a, b = np.int32(5), np.int32(9)
    first, second = np.asarray(program(a, b)), np.asarray(program(a, b))
    assert first.dtype == np.int32
    assert set(np.unique(first)) == {5, 6, 7, 8}
    assert not np.array_equal(first, second)


@pytest.mark.parametrize("element", ["f16", "bf16", "f32", "f64"])
@pytest.mark.parametrize("form", ["e5m2", "e4m3", "e8m7", "e3m1"])
def test_reduce_precision(element, form):
    # Inputs are f32 (bf16 does not cross into xffi.Program), converted to
    # the element type inside, so every element type sees the same values:
    # ordinary ones, halfway cases, huge, tiny, NaN and infinities.
    values = np.concatenate([
        random((40,), np.float32, 6) * 10,
        np.float32([1 + 2**-4, 1 + 3 * 2**-4, 65520, 1e-5, -1e-5, 0, -0.0,
                    np.nan, np.inf, -np.inf, 3e38]),
    ]).astype(np.float32)
    n = values.size
    text = f"""
module @m {{
  func.func public @main(%a: tensor<{n}xf32>) -> tensor<{n}xf32> {{
    %0 = stablehlo.convert %a : (tensor<{n}xf32>) -> tensor<{n}x{element}>
    %1 = stablehlo.reduce_precision %0, format = {form} : tensor<{n}x{element}>
    %2 = stablehlo.convert %1 : (tensor<{n}x{element}>) -> tensor<{n}xf32>
    return %2 : tensor<{n}xf32>
  }}
}}"""
    expected = run_xla(text, values)[0]
    for got in run_xffi(text, values):
        np.testing.assert_array_equal(got[0], expected)
