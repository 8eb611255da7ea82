"""Convolutions JAX lowers (lax.conv_general_dilated in many forms, the
gradients jax.grad makes of them, max-pooling's gradient) run in
xffi.Program from both the StableHLO and the HLO text, matching JAX."""

import numpy as np
import pytest

xffi = pytest.importorskip("xffi")
jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402


def run_both(f, *args):
    jitted = jax.jit(f)
    lowered = jitted.lower(*args)
    expected = jax.tree.map(np.asarray, jitted(*args))
    got = [
        xffi.Program.from_text(lowered.as_text())(*args),
        xffi.Program.from_text(lowered.as_text(dialect="hlo"))(*args),
    ]
    return expected, got


def assert_close(expected, got, dtype):
    expected = jax.tree.leaves(expected)
    for result in got:
        result = result if isinstance(result, (list, tuple)) else [result]
        assert len(result) == len(expected)
        for e, g in zip(expected, result):
            g = np.asarray(g)
            assert g.shape == e.shape and g.dtype == e.dtype
            if np.issubdtype(dtype, np.integer):
                np.testing.assert_array_equal(g, e)
            else:
                tol = 2e-2 if np.dtype(dtype).itemsize < 4 else 1e-4
                np.testing.assert_allclose(g.astype(np.float64),
                                           e.astype(np.float64), rtol=tol,
                                           atol=tol)


def data(seed, shape, dtype=np.float32):
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-5, 5, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


CASES = {
    # name: (lhs shape, rhs shape, keyword arguments)
    "nchw_default": ((2, 3, 9, 8), (4, 3, 3, 3), dict(window_strides=(1, 1),
                                                      padding="SAME")),
    "nhwc_strided": ((2, 9, 10, 3), (3, 3, 3, 5), dict(
        window_strides=(2, 3), padding=((1, 2), (0, 1)),
        dimension_numbers=("NHWC", "HWIO", "NHWC"))),
    "negative_padding": ((1, 10, 9, 2), (3, 2, 2, 4), dict(
        window_strides=(1, 1), padding=((-2, 1), (1, -1)),
        dimension_numbers=("NHWC", "HWIO", "NHWC"))),
    "dilated": ((2, 3, 11, 10), (4, 3, 3, 2), dict(
        window_strides=(1, 2), padding=((1, 0), (2, 2)), lhs_dilation=(2, 1),
        rhs_dilation=(1, 3))),
    "grouped": ((2, 6, 7, 7), (6, 2, 3, 3), dict(
        window_strides=(1, 1), padding="SAME", feature_group_count=3)),
    "depthwise": ((2, 8, 8, 4), (3, 3, 1, 8), dict(
        window_strides=(2, 2), padding="SAME", feature_group_count=4,
        dimension_numbers=("NHWC", "HWIO", "NHWC"))),
    "batch_grouped": ((6, 3, 5, 5), (6, 3, 2, 2), dict(
        window_strides=(1, 1), padding="VALID", batch_group_count=3)),
    "one_d": ((2, 3, 17), (4, 3, 5), dict(window_strides=(2,),
                                          padding=((2, 2),),
                                          rhs_dilation=(2,))),
    "three_d": ((1, 2, 5, 6, 4), (3, 2, 2, 3, 2), dict(
        window_strides=(1, 2, 1), padding="SAME")),
    "scrambled_layouts": ((5, 3, 2, 6), (2, 3, 4, 3), dict(
        window_strides=(1, 1), padding=((1, 0), (0, 1)),
        dimension_numbers=("HCNW", "WIOH", "WNCH"))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_conv_general_dilated_matches_jax(name):
    lhs_shape, rhs_shape, kwargs = CASES[name]
    lhs, rhs = data(1, lhs_shape), data(2, rhs_shape)
    expected, got = run_both(
        lambda a, b: lax.conv_general_dilated(a, b, **kwargs), lhs, rhs)
    assert_close(expected, got, np.float32)


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16, np.int32,
                                   np.int8])
def test_conv_element_types(dtype):
    lhs, rhs = data(3, (2, 3, 6, 6), dtype), data(4, (2, 3, 3, 3), dtype)
    expected, got = run_both(
        lambda a, b: lax.conv_general_dilated(a, b, (1, 1), "SAME"), lhs, rhs)
    assert_close(expected, got, dtype)


def test_conv_preferred_element_type():
    lhs, rhs = data(5, (1, 2, 5, 5), np.int8), data(6, (3, 2, 2, 2), np.int8)
    expected, got = run_both(
        lambda a, b: lax.conv_general_dilated(
            a, b, (1, 1), "VALID", preferred_element_type=jnp.int32), lhs, rhs)
    assert_close(expected, got, np.int32)


def test_conv_transpose_matches_jax():
    lhs, rhs = data(7, (2, 5, 5, 3)), data(8, (3, 3, 3, 4))
    expected, got = run_both(
        lambda a, b: lax.conv_transpose(a, b, (2, 2), "SAME",
                                        dimension_numbers=("NHWC", "HWIO",
                                                           "NHWC")), lhs, rhs)
    assert_close(expected, got, np.float32)


@pytest.mark.parametrize("groups", [1, 2])
def test_conv_gradients_match_jax(groups):
    # Input and kernel gradients: the transposed convolutions (lhs dilation,
    # reversed kernels, swapped dimension roles, batch groups) jax.grad
    # makes.
    x, w = data(9, (4, 7, 7, 4)), data(10, (3, 3, 4 // groups, 6))

    def loss(x, w):
        y = lax.conv_general_dilated(x, w, (2, 1), ((1, 1), (0, 2)),
                                     rhs_dilation=(1, 2),
                                     dimension_numbers=("NHWC", "HWIO",
                                                        "NHWC"),
                                     feature_group_count=groups)
        return jnp.sum(jnp.tanh(y))

    expected, got = run_both(jax.grad(loss, argnums=(0, 1)), x, w)
    assert_close(expected, got, np.float32)


def test_max_pool_gradient_matches_jax():
    x = data(11, (2, 9, 8, 3))

    def loss(x):
        pooled = lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1),
                                   (1, 2, 2, 1), "SAME")
        return jnp.sum(pooled * pooled)

    expected, got = run_both(jax.grad(loss), x)
    assert_close(expected, got, np.float32)
