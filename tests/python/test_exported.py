"""xffi.Program.from_exported: artifacts of real jax.export (an Exported, or
its serialized bytes) with custom calls run in xffi, called as
exported.call is, with the results JAX computes."""

import numpy as np
import pytest

xffi = pytest.importorskip("xffi")
jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax import export  # noqa: E402


@pytest.fixture(scope="module")
def rms_norm(rms_norm_library):
    import xffi.jax
    # The same handler in JAX and in xffi (the library registered itself in
    # xffi as rms_norm when it loaded).
    return xffi.jax.register_library(rms_norm_library)["rms_norm"]


def _export(fn, *specs, **kwargs):
    return export.export(jax.jit(fn), disabled_checks=[
        export.DisabledSafetyCheck.custom_call("rms_norm")], **kwargs)(*specs)


def test_serialized_artifact_with_a_custom_call_runs_as_in_jax(rms_norm):
    pytest.importorskip("flatbuffers")

    def f(x, scale):
        return rms_norm(jnp.tanh(x), eps=1e-5) * scale + 1.0

    x = np.linspace(-2, 2, 4 * 32, dtype=np.float32).reshape(4, 32)
    scale = np.float32(3.0)
    exported = _export(f, jax.ShapeDtypeStruct(x.shape, x.dtype),
                       jax.ShapeDtypeStruct((), np.float32))
    blob = exported.serialize()
    program = xffi.Program.from_exported(blob)
    assert program.format == "jax.export"
    assert "rms_norm" in program.hlo_text()
    want = np.asarray(export.deserialize(blob).call(x, scale))
    np.testing.assert_allclose(program(x, scale), want, rtol=1e-6)


def test_pytrees_kept_arguments_and_platform_index():
    def f(inputs, unused, *, shift):
        return {"sum": inputs["a"] + shift, "pair": (inputs["b"] * 2,
                                                     jnp.sin(inputs["a"]))}

    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(4, dtype=np.int32)
    specs = ({"a": jax.ShapeDtypeStruct(a.shape, a.dtype),
              "b": jax.ShapeDtypeStruct(b.shape, b.dtype)},
             jax.ShapeDtypeStruct((5,), np.float32))
    shift = jax.ShapeDtypeStruct((), np.float32)
    # Exported for two platforms: the module takes the platform index first.
    exported = export.export(jax.jit(f), platforms=("cuda", "cpu"))(
        *specs, shift=shift)
    assert exported.module_kept_var_idx != tuple(range(4))  # `unused` dropped
    program = xffi.Program.from_exported(exported)
    args = ({"a": a, "b": b}, np.zeros(5, np.float32))
    got = program(*args, shift=np.float32(0.5))
    want = export.export(jax.jit(f))(*specs, shift=shift).call(
        *args, shift=np.float32(0.5))
    assert jax.tree_util.tree_structure(got) == \
        jax.tree_util.tree_structure(want)
    for g, w in zip(jax.tree_util.tree_leaves(got),
                    jax.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-6)


def test_refuses_what_it_cannot_run_with_the_reason():
    spec = jax.ShapeDtypeStruct((3,), np.float32)
    gpu_only = export.export(jax.jit(jnp.sin), platforms=("cuda",))(spec)
    with pytest.raises(ValueError, match=r"exported for \['cuda'\]; xffi "
                       "runs the 'cpu' lowering"):
        xffi.Program.from_exported(gpu_only)
    with pytest.raises(TypeError, match="expected a jax.export.Exported or "
                       "its serialized bytes, got str"):
        xffi.Program.from_exported("module {}")
    program = xffi.Program.from_exported(export.export(jax.jit(jnp.sin))(spec))
    with pytest.raises(TypeError, match="structure"):
        program(np.zeros(3, np.float32), np.zeros(3, np.float32))
    with pytest.raises(ValueError, match=r"argument 0 has shape \(4,\), the "
                       r"export expects float32\[3\]"):
        program(np.zeros(4, np.float32))
