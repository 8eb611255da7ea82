"""The other direction of interop: the StableHLO (and HLO) text JAX lowers
for functions calling xffi handlers through jax.ffi.ffi_call runs in
xffi.Program with JAX's results. The functions are those of
test_jax_interop.py; the handlers are registered in JAX and in xffi under
the same names (register_library(register_in_xffi=True))."""

import numpy as np
import pytest

xffi = pytest.importorskip("xffi")
jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
import xffi.jax  # noqa: E402


@pytest.fixture(scope="module")
def lib(test_plugin):
    return xffi.jax.register_library(test_plugin, prefix="j2x.",
                                     register_in_xffi=True)


@pytest.fixture(scope="module")
def legacy(legacy_library):
    return xffi.jax.register_library(legacy_library, prefix="j2x.",
                                     register_in_xffi=True)


def both_ways(f, *args):
    """(JAX's result, xffi's result from the lowered StableHLO, xffi's from
    the lowered HLO) of jax.jit(f) on args."""
    jitted = jax.jit(f)
    lowered = jitted.lower(*args)
    in_jax = jax.tree.map(np.asarray, jitted(*args))
    stablehlo = xffi.Program.from_text(lowered.as_text())
    assert stablehlo.format == "stablehlo"
    hlo = xffi.Program.from_text(lowered.as_text(dialect="hlo"))
    assert hlo.format == "hlo"
    return in_jax, stablehlo(*args), hlo(*args)


def test_scale_lowered_by_jax_runs_in_xffi(lib):
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    in_jax, from_stablehlo, from_hlo = both_ways(
        lambda v: lib["j2x.Scale"](v, factor=1.5, offset=2), x)
    np.testing.assert_array_equal(from_stablehlo, in_jax)
    np.testing.assert_array_equal(from_hlo, in_jax)
    np.testing.assert_array_equal(in_jax, x * 1.5 + 2)


def test_every_attribute_kind_crosses(lib):
    f = lambda: lib["j2x.AttrSummary"](  # noqa: E731
        result_shape_dtypes=jax.ShapeDtypeStruct((8,), np.float64),
        flag=True, count=7, ratio=0.25, ints=[1, 2, 3], weights=[0.5, 1.5],
        name="abcde", nested={"depth": 3, "scale": 2.5})
    in_jax, from_stablehlo, from_hlo = both_ways(f)
    np.testing.assert_array_equal(in_jax, [1, 7, 0.25, 6, 2.0, 5, 3, 2.5])
    np.testing.assert_array_equal(from_stablehlo, in_jax)
    np.testing.assert_array_equal(from_hlo, in_jax)


def test_two_results_come_back_as_a_tuple(lib):
    x = np.linspace(-1, 3, 24, dtype=np.float32).reshape(4, 6)
    f = lambda v: lib["j2x.python_test.rms_norm_fwd"](  # noqa: E731
        v, eps=1e-5, result_shape_dtypes=[
            jax.ShapeDtypeStruct(v.shape, v.dtype),
            jax.ShapeDtypeStruct(v.shape[:-1], v.dtype)])
    in_jax, from_stablehlo, from_hlo = both_ways(f, x)
    assert isinstance(from_stablehlo, tuple) and len(from_stablehlo) == 2
    for got in (from_stablehlo, from_hlo):
        np.testing.assert_array_equal(got[0], in_jax[0])
        np.testing.assert_array_equal(got[1], in_jax[1])
    np.testing.assert_allclose(
        in_jax[1], 1 / np.sqrt(np.mean(x * x, axis=-1) + 1e-5), rtol=1e-6)


def test_state_lives_per_call_site_as_in_jax(lib):
    counter = jax.jit(lambda: lib["j2x.python_test.counter"](start=5))
    in_jax = [int(counter()) for _ in range(3)]
    program = xffi.Program.from_text(counter.lower().as_text())
    assert [int(program()) for _ in range(3)] == in_jax == [6, 7, 8]
    # A second compile is a second call site, with its own state.
    again = xffi.Program.from_text(counter.lower().as_text())
    assert int(again()) == 6


def test_legacy_target_lowered_by_jax(legacy):
    b = np.linspace(0, 1, 128, dtype=np.float32)
    c = np.ones(2048, np.float32)
    call = jax.ffi.ffi_call("j2x.do_custom_call",
                            jax.ShapeDtypeStruct((2048,), jnp.float32),
                            custom_call_api_version=1)
    in_jax, from_stablehlo, from_hlo = both_ways(call, b, c)
    np.testing.assert_array_equal(from_stablehlo, in_jax)
    np.testing.assert_array_equal(from_hlo, in_jax)
    np.testing.assert_array_equal(in_jax, b[np.arange(2048) % 128] + c)


def test_legacy_vectorized_vmap_lowered_by_jax(lib):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    y = np.array([10, 20, 30, 40], np.float32)
    f = jax.vmap(lambda v: lib["j2x.BatchAdd"](
        v, y, vmap_method="legacy_vectorized"))
    in_jax, from_stablehlo, from_hlo = both_ways(f, x)
    np.testing.assert_array_equal(from_stablehlo, in_jax)
    np.testing.assert_array_equal(from_hlo, in_jax)
    np.testing.assert_array_equal(in_jax, x + y)


def test_handler_errors_name_the_target_and_location(lib):
    program = xffi.Program.from_text(jax.jit(
        lambda: lib["j2x.python_test.counter"](start=-1)).lower().as_text())
    with pytest.raises(ValueError, match="counter: start must be >= 0"):
        program()


def test_unregistered_targets_are_named_at_compile_time():
    text = jax.jit(jax.ffi.ffi_call(
        "j2x.nowhere", jax.ShapeDtypeStruct((2,), np.float32))).lower(
            np.ones(2, np.float32)).as_text()
    with pytest.raises(LookupError, match="j2x.nowhere"):
        xffi.Program.from_text(text)


@pytest.mark.parametrize("method", ["sequential", "sequential_unrolled",
                                    "expand_dims", "broadcast_all"])
def test_vmap_methods_lowered_by_jax(lib, method):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    y = np.array([10, 20, 30, 40], np.float32)
    f = jax.vmap(lambda v: lib["j2x.BatchAdd"](v, y, vmap_method=method))
    in_jax, from_stablehlo, from_hlo = both_ways(f, x)
    np.testing.assert_array_equal(from_stablehlo, in_jax)
    np.testing.assert_array_equal(from_hlo, in_jax)
    np.testing.assert_array_equal(in_jax, x + y)


def test_grad_through_custom_vjp_lowered_by_jax(lib):
    @jax.custom_vjp
    def rms_norm(x):
        return fwd(x)[0]

    def results(x):
        return [jax.ShapeDtypeStruct(x.shape, x.dtype),
                jax.ShapeDtypeStruct(x.shape[:-1], x.dtype)]

    def fwd(x):
        y, scale = lib["j2x.python_test.rms_norm_fwd"](
            x, eps=1e-5, result_shape_dtypes=results(x))
        return y, (scale, x)

    def bwd(res, ct):
        scale, x = res
        return (lib["j2x.python_test.rms_norm_bwd"](
            scale, x, ct,
            result_shape_dtypes=jax.ShapeDtypeStruct(x.shape, x.dtype)),)

    rms_norm.defvjp(fwd, bwd)
    x = np.linspace(-1, 3, 24, dtype=np.float32).reshape(4, 6)
    w = np.linspace(0.5, 1.5, 24, dtype=np.float32).reshape(4, 6)
    grad = jax.grad(lambda v: jnp.sum(rms_norm(v) * w))
    in_jax, from_stablehlo, from_hlo = both_ways(grad, x)
    np.testing.assert_allclose(from_stablehlo, in_jax, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(from_hlo, in_jax, rtol=1e-6, atol=1e-7)
