"""Handlers built with xffi's header, loaded unchanged into real JAX/XLA.

The example libraries link no xffi library; here they are opened with ctypes,
registered with jax.ffi and run under jax.jit by XLA:CPU. This is the ABI
promise in the direction "xffi -> XLA", tested against the jax/jaxlib that
scripts/deps.sh installs from PyPI.
"""

import ctypes
import os
import pathlib

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("XFFI_BUILD_DIR", ROOT / "build" / "release"))


def _load(example: str, library: str) -> ctypes.CDLL:
    path = BUILD / "examples" / example / library
    if not path.exists():
        pytest.fail(f"{path} is missing: build the examples first "
                    "(scripts/build.sh release)")
    return ctypes.cdll.LoadLibrary(str(path))


@pytest.fixture(scope="module")
def registered():
    rms_norm = _load("rms_norm", "librms_norm.so")
    do_custom_call = _load("do_custom_call", "libdo_custom_call.so")
    # JAX refuses a handler whose reported FFI version it does not support,
    # so a successful registration is itself the version handshake passing.
    jax.ffi.register_ffi_target(
        "xffi_example_rms_norm", jax.ffi.pycapsule(rms_norm.RmsNorm),
        platform="cpu")
    jax.ffi.register_ffi_target(
        "xffi_example_do_custom_call",
        jax.ffi.pycapsule(do_custom_call.DoCustomCall), platform="cpu")
    return True


def _rms_norm(x, eps=1e-5):
    return jax.ffi.ffi_call(
        "xffi_example_rms_norm", jax.ShapeDtypeStruct(x.shape, x.dtype),
        vmap_method="broadcast_all")(x, eps=np.float32(eps))


def test_rms_norm_under_jit(registered):
    x = np.linspace(-3.0, 5.0, 4 * 16, dtype=np.float32).reshape(4, 16)
    got = np.asarray(jax.jit(_rms_norm)(x))
    want = x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_rms_norm_eps_attribute_reaches_the_handler(registered):
    x = np.zeros((2, 8), dtype=np.float32) + 1e-3
    small = np.asarray(jax.jit(lambda v: _rms_norm(v, eps=1e-9))(x))
    large = np.asarray(jax.jit(lambda v: _rms_norm(v, eps=1.0))(x))
    np.testing.assert_allclose(small, x / np.sqrt(1e-6 + 1e-9), rtol=1e-5)
    np.testing.assert_allclose(large, x / np.sqrt(1e-6 + 1.0), rtol=1e-5)


def test_rms_norm_under_vmap(registered):
    x = np.arange(3 * 5 * 8, dtype=np.float32).reshape(3, 5, 8) / 10.0
    got = np.asarray(jax.jit(jax.vmap(_rms_norm))(x))
    want = x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def _do_custom_call(b, c):
    return jax.ffi.ffi_call(
        "xffi_example_do_custom_call", jax.ShapeDtypeStruct(c.shape, c.dtype))(
            b, c)


def test_seed_do_custom_call_under_jit(registered):
    rng = np.random.default_rng(7)
    b = rng.standard_normal(128).astype(np.float32)
    c = rng.standard_normal(2048).astype(np.float32)
    got = np.asarray(jax.jit(lambda b, c: _do_custom_call(b, c) * 2.0)(b, c))
    want = (b[np.arange(2048) % 128] + c) * 2.0
    np.testing.assert_array_equal(got, want)


def test_decode_errors_surface_in_jax_with_their_message(registered):
    # A rank-2 argument where the binding says Buffer<F32, 1>: xffi's header
    # rejects it, naming the argument, and XLA reports that message.
    b = jnp.zeros((128,), jnp.float32)
    c = jnp.zeros((16, 128), jnp.float32)
    with pytest.raises(Exception, match=r"argument 1: expected buffer of F32 "
                                        r"rank 1, got F32 rank 2"):
        jax.block_until_ready(jax.jit(_do_custom_call)(b, c))


def test_handler_errors_surface_in_jax(registered):
    # rms_norm refuses a rank-0 input with its own InvalidArgument.
    with pytest.raises(Exception, match="x must have rank >= 1"):
        jax.block_until_ready(jax.jit(_rms_norm)(np.float32(2.0)))
