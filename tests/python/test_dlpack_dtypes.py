"""DLPack producers of dtypes numpy.from_dlpack refuses (bfloat16, which
NumPy itself lacks): Program and ffi_call take them without a copy, as
they take every other DLPack array."""

import numpy as np
import pytest

xffi = pytest.importorskip("xffi")
jax = pytest.importorskip("jax")
jnp = jax.numpy

X = jnp.asarray([0.5, -1.25, 3.0, 1e30], dtype=jnp.bfloat16)


def test_numpy_alone_cannot_import_bfloat16():
    # Why xffi needs its own importer: if NumPy learns bfloat16, this test
    # says the fallback can go.
    with pytest.raises(Exception, match="Unsupported dtype"):
        np.from_dlpack(X)


def test_a_program_takes_a_bfloat16_jax_array():
    def f(x):
        return x * 2 + 1

    program = xffi.Program.from_text(jax.jit(f).lower(X).as_text())
    result = program(X)
    assert result.dtype == np.asarray(X).dtype
    np.testing.assert_array_equal(result, np.asarray(jax.jit(f)(X)))


def test_a_wrong_dtype_is_still_named():
    program = xffi.Program.from_text(
        jax.jit(lambda x: x + 1).lower(X.astype(jnp.float32)).as_text())
    with pytest.raises(TypeError, match="argument 0 has dtype bf16, the "
                                        r"parameter is f32\[4\]"):
        program(X)


def test_ffi_call_takes_a_bfloat16_jax_array_without_a_copy(test_plugin):
    xffi.register_ffi_target("dl.address", test_plugin.Address)
    xffi.register_ffi_target("dl.copy_bytes", test_plugin.CopyBytes)
    where = xffi.ffi_call("dl.address", xffi.ShapeDtypeStruct((), np.uint64))
    assert int(where(X)) == X.unsafe_buffer_pointer()
    copy = xffi.ffi_call("dl.copy_bytes",
                         xffi.ShapeDtypeStruct(X.shape, np.asarray(X).dtype))
    np.testing.assert_array_equal(copy(X), np.asarray(X))


def test_the_imported_array_keeps_the_producer_alive():
    array = xffi._core._array_from_dlpack(jnp.arange(8, dtype=jnp.bfloat16))
    # The jax array is gone from Python; its memory lives with `array`.
    np.testing.assert_array_equal(array.astype(np.float32),
                                  np.arange(8, dtype=np.float32))
    assert xffi._core._array_from_dlpack(np.zeros(2)) is None
