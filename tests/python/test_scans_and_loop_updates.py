"""Cumulative ops (reduce-windows run as O(n) scans) and fori_loops that
update their state in place, lowered by JAX and run in xffi, against JAX:
every axis, both directions, several dtypes, and loops whose state is read
after the update (which must not be updated in place)."""

import numpy as np
import pytest

xffi = pytest.importorskip("xffi")
jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402


def run_both(f, *args):
    """JAX's result and xffi's from the StableHLO and the HLO text."""
    jitted = jax.jit(f)
    lowered = jitted.lower(*args)
    want = np.asarray(jitted(*args))
    got = [np.asarray(xffi.Program.from_text(lowered.as_text())(*args)),
           np.asarray(
               xffi.Program.from_text(lowered.as_text(dialect="hlo"))(*args))]
    return want, got


def check(f, x, rtol=0.0, atol=0.0):
    want, got = run_both(f, x)
    for g in got:
        assert g.dtype == want.dtype
        if rtol == 0 and atol == 0:
            np.testing.assert_array_equal(g, want)
        else:
            np.testing.assert_allclose(
                g.astype(np.float64), want.astype(np.float64), rtol=rtol,
                atol=atol * float(np.max(np.abs(want.astype(np.float64)))))


OPS = {
    "cumsum": lambda x, axis, reverse: lax.cumsum(x, axis, reverse=reverse),
    "cumprod": lambda x, axis, reverse: lax.cumprod(x, axis, reverse=reverse),
    "cummax": lambda x, axis, reverse: lax.cummax(x, axis, reverse=reverse),
    "cummin": lambda x, axis, reverse: lax.cummin(x, axis, reverse=reverse),
}


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumulative_f32_every_axis(op, axis, reverse):
    rng = np.random.default_rng(axis * 2 + reverse)
    x = rng.uniform(0.9, 1.1, size=(3, 70, 5)).astype(np.float32)
    # Sums and products may round in another order than XLA's.
    exact = op in ("cummax", "cummin")
    check(lambda v: OPS[op](v, axis, reverse), x,
          rtol=0 if exact else 2e-5, atol=0 if exact else 1e-6)


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.uint16])
@pytest.mark.parametrize("op", sorted(OPS))
def test_cumulative_integers_are_exact(dtype, op):
    rng = np.random.default_rng(7)
    x = rng.integers(0, 9, size=(40, 6)).astype(dtype)
    for reverse in (False, True):
        check(lambda v: OPS[op](v, 0, reverse), x)
        check(lambda v: OPS[op](v, 1, reverse), x)


@pytest.mark.parametrize("dtype", [jnp.bfloat16, jnp.float16])
def test_cumsum_half_precision(dtype):
    x = np.asarray(jnp.asarray(np.linspace(-1, 1, 96).reshape(8, 12), dtype))
    for reverse in (False, True):
        check(lambda v: lax.cumsum(v, 1, reverse=reverse), x, rtol=2e-2,
              atol=1e-2)


def test_cumsum_of_booleans_and_cumlogsumexp():
    b = np.arange(30).reshape(5, 6) % 3 == 0
    check(lambda v: jnp.cumsum(v, axis=1), b)
    x = np.linspace(-3, 3, 60, dtype=np.float32).reshape(6, 10)
    check(lambda v: lax.cumlogsumexp(v, axis=1), x, rtol=1e-5, atol=1e-6)
    check(lambda v: lax.cumlogsumexp(v, axis=0, reverse=True), x, rtol=1e-5,
          atol=1e-6)


def test_fori_loop_row_updates():
    rows = np.arange(48, dtype=np.float32).reshape(12, 4)

    def fn(r):
        def body(i, out):
            row = lax.dynamic_slice_in_dim(r, i, 1) * 2.0 + i.astype(jnp.float32)
            return lax.dynamic_update_slice_in_dim(out, row, i, axis=0)
        return lax.fori_loop(0, r.shape[0], body, jnp.zeros_like(r))

    check(fn, rows)


def test_fori_loop_reading_its_state_after_the_update():
    rows = np.arange(32, dtype=np.float32).reshape(8, 4)

    def fn(r):
        def body(i, state):
            out, acc = state
            new = lax.dynamic_update_slice_in_dim(out, r[None, 0] * i, i, 0)
            # reads the old state after the update: no in-place update
            return new, acc + out.sum() + new.sum()
        return lax.fori_loop(0, 8, body, (r, jnp.float32(0)))

    want, got = run_both(lambda r: jnp.concatenate(
        [fn(r)[0].ravel(), fn(r)[1][None]]), rows)
    for g in got:
        np.testing.assert_array_equal(g, want)


def test_fori_loop_state_passed_through_twice():
    rows = np.arange(24, dtype=np.float32).reshape(6, 4)

    def fn(r):
        def body(i, state):
            a, b = state
            # the new b is the old a, the new a its update
            return lax.dynamic_update_slice_in_dim(a, b[None, 1], i, 0), a
        return lax.fori_loop(0, 6, body, (r, r + 100))

    want, got = run_both(lambda r: jnp.stack(fn(r)), rows)
    for g in got:
        np.testing.assert_array_equal(g, want)
