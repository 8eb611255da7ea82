"""xffi.jax: handlers built with xffi's header, registered into real JAX in
one call, run under jit, vmap (each vmap_method), grad (custom_vjp of a
forward and a backward target) and with state; results equal xffi's own
eager results."""

import numpy as np
import pytest

xffi = pytest.importorskip("xffi")
jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
import xffi.jax  # noqa: E402
from xffi import ShapeDtypeStruct as S  # noqa: E402


@pytest.fixture(scope="module")
def lib(test_plugin):
    return xffi.jax.register_library(test_plugin, prefix="jx.")


@pytest.fixture(scope="module")
def legacy(legacy_library):
    return xffi.jax.register_library(legacy_library, prefix="jx.")


def rms_norm_jnp(x, eps=1e-5):
    return x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps)


def test_one_call_registers_every_handler(lib):
    assert sorted(lib.handlers) == sorted(
        ["jx.AddUserOffset", "jx.Address", "jx.AttrSummary", "jx.BatchAdd",
         "jx.BlockRows", "jx.BlockShape", "jx.CopyBytes", "jx.CounterExecute", "jx.CounterInstantiate",
         "jx.LateCopyExecute", "jx.LateCopyInstantiate", "jx.Leak",
         "jx.Noop", "jx.Rendezvous", "jx.RmsNormBwd", "jx.RmsNormFwd",
         "jx.Scale", "jx.Stall", "jx.Throws", "jx.TokenCopy",
         "jx.python_test.block_rows", "jx.python_test.block_shape",
         "jx.python_test.counter",
         "jx.python_test.late_copy", "jx.python_test.rendezvous",
         "jx.python_test.rms_norm_bwd", "jx.python_test.rms_norm_fwd",
         "jx.python_test.scale", "jx.python_test.throws"])
    assert lib["jx.Scale"].signature == (
        "execute(Buffer<F32> arg0, Attr<float> factor, Attr<int32_t> offset) "
        "-> (Buffer<F32>)")
    with pytest.raises(AttributeError, match="has no handler 'Nope'"):
        lib.Nope


def test_jit_equals_xffi_eager(lib):
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    # Python float and int narrowed to Attr<float> / Attr<int32_t>: plain
    # jax.ffi.ffi_call would need np.float32 / np.int32.
    in_jax = jax.jit(lambda v: lib["jx.Scale"](v, factor=1.5, offset=2))(x)
    eager = xffi.ffi_call("python_test.scale")(x, factor=1.5, offset=2)
    np.testing.assert_array_equal(np.asarray(in_jax), eager)
    np.testing.assert_array_equal(eager, x * 1.5 + 2)


def test_xffi_ffi_call_takes_jax_shape_dtype_structs(lib):
    x = np.arange(4, dtype=np.float32)
    y = xffi.ffi_call("python_test.scale",
                      jax.ShapeDtypeStruct((4,), jnp.float32))(
                          x, factor=2.0, offset=0)
    assert isinstance(y, np.ndarray) and y.dtype == np.float32
    np.testing.assert_array_equal(y, x * 2)


def test_attribute_mismatch_is_reported_before_jax_runs(lib):
    with pytest.raises(TypeError, match=r"ffi_call\('jx.Scale'\): attribute "
                                        r"'offset' expects int32_t, got "
                                        r"float"):
        jax.jit(lambda v: lib["jx.Scale"](v, factor=1.0, offset=0.5))(
            np.ones(2, np.float32))


def test_every_attribute_kind_in_jax(lib):
    # An f64 result stays f64 in JAX without x64 (explicit dtypes are kept).
    out = jax.jit(lambda: lib["jx.AttrSummary"](
        result_shape_dtypes=jax.ShapeDtypeStruct((8,), np.float64),
        flag=True, count=7, ratio=0.25, ints=[1, 2, 3], weights=[0.5, 1.5],
        name="abcde", nested={"depth": 3, "scale": 2.5}))()
    np.testing.assert_array_equal(np.asarray(out),
                                  [1, 7, 0.25, 6, 2.0, 5, 3, 2.5])


X = np.arange(12, dtype=np.float32).reshape(3, 4)
Y = np.array([10, 20, 30, 40], np.float32)


@pytest.mark.parametrize("method", ["sequential", "sequential_unrolled",
                                    "expand_dims", "broadcast_all",
                                    "legacy_vectorized"])
def test_jax_vmap_equals_xffi_vmap(lib, method):
    in_jax = jax.jit(jax.vmap(
        lambda x: lib["jx.BatchAdd"](x, Y, vmap_method=method)))(X)
    xffi.register_ffi_target("jx_eager.batch_add", lib.library.BatchAdd)
    f = xffi.ffi_call("jx_eager.batch_add", vmap_method=method)
    eager = xffi.vmap(lambda x: f(x, Y), in_axes=0)(X)
    np.testing.assert_array_equal(np.asarray(in_jax), eager)
    np.testing.assert_array_equal(eager, X + Y)


def test_jax_vmap_without_a_method_raises(lib):
    with pytest.raises(NotImplementedError):
        jax.vmap(lambda x: lib["jx.BatchAdd"](x, Y))(X)


def _rms_norm_custom_vjp(lib):
    @jax.custom_vjp
    def rms_norm(x):
        y, _ = lib["jx.python_test.rms_norm_fwd"](
            x, eps=1e-5, result_shape_dtypes=_fwd_results(x))
        return y

    def fwd(x):
        y, scale = lib["jx.python_test.rms_norm_fwd"](
            x, eps=1e-5, result_shape_dtypes=_fwd_results(x))
        return y, (scale, x)

    def bwd(res, ct):
        scale, x = res
        return (lib["jx.python_test.rms_norm_bwd"](scale, x, ct,
                                                    result_shape_dtypes=
                                                    jax.ShapeDtypeStruct(
                                                        x.shape, x.dtype)),)

    rms_norm.defvjp(fwd, bwd)
    return rms_norm


def _fwd_results(x):
    return [jax.ShapeDtypeStruct(x.shape, x.dtype),
            jax.ShapeDtypeStruct(x.shape[:-1], x.dtype)]


def test_grad_through_custom_vjp_of_forward_and_backward_targets(lib):
    rms_norm = _rms_norm_custom_vjp(lib)
    x = np.linspace(-1, 3, 24, dtype=np.float32).reshape(4, 6)
    w = np.linspace(0.5, 1.5, 24, dtype=np.float32).reshape(4, 6)

    def loss(f):
        return lambda v: jnp.sum(f(v) * w)

    got = np.asarray(jax.jit(jax.grad(loss(rms_norm)))(x))
    want = np.asarray(jax.grad(loss(rms_norm_jnp))(x))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    # xffi's eager forward and backward give the same gradient.
    y, scale = xffi.ffi_call("python_test.rms_norm_fwd",
                             [S(x.shape, x.dtype), S((4,), x.dtype)])(
                                 x, eps=1e-5)
    eager = xffi.ffi_call("python_test.rms_norm_bwd",
                          S(x.shape, x.dtype))(scale, x, w)
    np.testing.assert_allclose(eager, got, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(np.asarray(jax.jit(rms_norm)(x)), y, rtol=1e-6)


def test_state_in_jax_matches_xffi(lib):
    counter = jax.jit(lambda: lib["jx.python_test.counter"](start=5))
    in_jax = [int(counter()) for _ in range(3)]
    eager_call = xffi.ffi_call("python_test.counter")
    eager = [int(eager_call(start=5)) for _ in range(3)]
    assert in_jax == eager == [6, 7, 8]


def test_legacy_targets_register_into_jax(legacy):
    assert "jx.do_custom_call" in legacy.legacy_targets
    b = np.linspace(0, 1, 128, dtype=np.float32)
    c = np.ones(2048, np.float32)
    call = jax.ffi.ffi_call("jx.do_custom_call",
                            jax.ShapeDtypeStruct((2048,), jnp.float32),
                            custom_call_api_version=1)
    in_jax = np.asarray(jax.jit(call)(b, c))
    eager = xffi.ffi_call("do_custom_call", S((2048,), np.float32),
                          custom_call_api_version=1)(b, c)
    np.testing.assert_array_equal(in_jax, eager)


def test_handler_errors_surface_in_jax(lib):
    with pytest.raises(Exception, match="counter: start must be >= 0"):
        jax.block_until_ready(
            jax.jit(lambda: lib["jx.python_test.counter"](start=-1))())


def test_user_data_cannot_reach_a_handler_in_jax(lib):
    # JAX has no Python API to put user data into XLA's execution context
    # (xffi.execution_context is xffi's own); a handler that needs it fails
    # with the type named, as in XLA itself.
    with pytest.raises(Exception, match=r"UserData<.*Offset>: cannot get "
                                        r"user data"):
        jax.block_until_ready(jax.jit(lambda v: lib["jx.AddUserOffset"](v))(
            np.ones(3, np.float32)))


def test_results_jax_wrappers_cannot_derive(lib):
    x = np.ones((2, 3), np.float32)
    with pytest.raises(ValueError, match=r"'jx.python_test.rms_norm_fwd' "
                                         r"needs result_shape_dtypes: it has "
                                         r"several array results"):
        lib["jx.python_test.rms_norm_fwd"](x, eps=1e-5)
    with pytest.raises(ValueError, match=r"'jx.Scale' needs "
                                         r"result_shape_dtypes: its result "
                                         r"\(Buffer<F32>\) is not like "
                                         r"argument 0 \(int32\[3\]\)"):
        lib["jx.Scale"](np.ones(3, np.int32), factor=1.0, offset=0)


def test_register_type_refuses_ids_unknown_to_xffi():
    with pytest.raises(ValueError, match="type id 987654 is not registered "
                                         "with xffi"):
        xffi.jax.register_type(987654)
