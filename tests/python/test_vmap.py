"""xffi.vmap over ffi_call callables: the five vmap_method rules."""

import ctypes

import numpy as np
import pytest

xffi = pytest.importorskip("xffi")
from xffi import ShapeDtypeStruct as S  # noqa: E402


@pytest.fixture(scope="module")
def batch_add(test_plugin):
    xffi.register_ffi_target("vmap.batch_add", test_plugin.BatchAdd)
    counter = ctypes.CDLL(test_plugin.path).python_test_execute_calls
    counter.restype = ctypes.c_int64

    def run(method, x, y, in_axes=(0, None), out_axes=0):
        f = xffi.ffi_call("vmap.batch_add", vmap_method=method)
        before = counter()
        out = xffi.vmap(f, in_axes=in_axes, out_axes=out_axes)(x, y)
        return out, counter() - before
    return run


X = np.arange(12, dtype=np.float32).reshape(3, 4)  # batch of 3 rows
Y = np.array([10, 20, 30, 40], np.float32)         # unbatched


@pytest.mark.parametrize("method,calls", [
    ("sequential", 3), ("sequential_unrolled", 3), ("expand_dims", 1),
    ("broadcast_all", 1), ("legacy_vectorized", 1)])
def test_each_method_gives_the_per_row_result(batch_add, method, calls):
    out, made = batch_add(method, X, Y)
    np.testing.assert_array_equal(out, X + Y)
    assert made == calls


def test_batched_second_operand(batch_add):
    ys = np.stack([Y, 2 * Y, 3 * Y])
    for method in ("sequential", "expand_dims", "broadcast_all",
                   "legacy_vectorized"):
        out, _ = batch_add(method, X, ys, in_axes=(0, 0))
        np.testing.assert_array_equal(out, X + ys)


def test_in_axes_and_out_axes(batch_add):
    out, _ = batch_add("sequential", X.T.copy(), Y, in_axes=(1, None),
                       out_axes=1)
    np.testing.assert_array_equal(out, (X + Y).T)


def test_several_results(test_plugin):
    x = np.array([[[3, 4], [0, 1]], [[1, 1], [2, 2]]], np.float32)
    fwd = xffi.ffi_call("python_test.rms_norm_fwd",
                        [S((2, 2), np.float32), S((2,), np.float32)],
                        vmap_method="sequential")
    y, scale = xffi.vmap(lambda v: fwd(v, eps=0.0))(x)
    want_scale = 1 / np.sqrt(np.mean(x * x, axis=-1))
    np.testing.assert_allclose(scale, want_scale, rtol=1e-6)
    np.testing.assert_allclose(y, x * want_scale[..., None], rtol=1e-6)
    fwd_b = xffi.ffi_call("python_test.rms_norm_fwd",
                          (S((2, 2), np.float32), S((2,), np.float32)),
                          vmap_method="broadcast_all")
    out = xffi.vmap(lambda v: fwd_b(v, eps=0.0))(x)
    assert type(out) is tuple
    np.testing.assert_allclose(out[1], want_scale, rtol=1e-6)


def test_derived_results_under_vmap(rms_norm_library):
    x = np.linspace(1, 2, 24, dtype=np.float32).reshape(2, 3, 4)
    for method in ("sequential", "expand_dims", "broadcast_all",
                   "legacy_vectorized"):
        f = xffi.ffi_call("rms_norm", vmap_method=method)
        out = xffi.vmap(lambda v: f(v, eps=1e-5))(x)
        want = x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-5)
        np.testing.assert_allclose(out, want, rtol=1e-6)


def test_an_empty_batch(batch_add):
    out, made = batch_add("sequential", X[:0], Y)
    assert out.shape == (0, 4) and made == 0


def test_no_vmap_method_is_a_clear_error(batch_add):
    with pytest.raises(NotImplementedError,
                       match=r"ffi_call\('vmap.batch_add'\) was called under "
                             r"xffi.vmap without a vmap_method; pass "
                             r"vmap_method="):
        batch_add(None, X, Y)


def test_mapped_arguments_must_agree(batch_add):
    with pytest.raises(ValueError, match="argument 1 has size 4 on its mapped "
                                         "axis 0, but earlier arguments have "
                                         "3"):
        batch_add("sequential", X, Y, in_axes=(0, 0))
    with pytest.raises(ValueError, match="in_axes maps no argument"):
        batch_add("sequential", X, Y, in_axes=(None, None))
    with pytest.raises(ValueError, match=r"in_axes\[0\] = 2 is out of range"):
        batch_add("sequential", X, Y, in_axes=(2, None))


def test_batched_values_only_go_to_ffi_calls():
    with pytest.raises(TypeError, match="can only be passed to an "
                                        "xffi.ffi_call callable"):
        xffi.vmap(lambda v: np.asarray(v) + 1)(X)


def test_nested_vmap_is_refused(batch_add):
    f = xffi.ffi_call("vmap.batch_add", vmap_method="sequential")
    with pytest.raises(NotImplementedError, match="nested xffi.vmap"):
        xffi.vmap(lambda a: xffi.vmap(lambda b: f(b, Y))(a))(X[None])


def test_unbatched_outputs_are_broadcast(batch_add):
    out = xffi.vmap(lambda v: Y)(X)
    np.testing.assert_array_equal(out, np.broadcast_to(Y, (3, 4)))
