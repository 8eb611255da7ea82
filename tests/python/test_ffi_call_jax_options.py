"""ffi_call's input_layouts / output_layouts counts, custom_call_api_version
and legacy_backend_config: refused where jax.ffi.ffi_call refuses them, with
JAX's sentence in xffi's message (each case is also given to the installed
jax), and taken where JAX takes them."""

import numpy as np
import pytest

xffi = pytest.importorskip("xffi")
jax = pytest.importorskip("jax")

S = xffi.ShapeDtypeStruct
X = np.ones(4, np.float32)


@pytest.fixture(scope="module")
def targets(test_plugin, legacy_library):
    jax.ffi.register_ffi_target("options.scale", test_plugin.Scale)
    jax.ffi.register_ffi_target("options.fwd", test_plugin.RmsNormFwd)
    xffi.register_ffi_target("options.scale", test_plugin.Scale)
    xffi.register_ffi_target("options.fwd", test_plugin.RmsNormFwd)


def _jax_error(make_call, *args, **attrs):
    jax.clear_caches()
    with pytest.raises(ValueError) as error:
        jax.block_until_ready(make_call(jax)(*args, **attrs))
    return str(error.value)


def _both(api):
    return jax.ShapeDtypeStruct if api is jax else S


def test_input_layouts_must_count_the_arguments(targets):
    def make(api):
        ffi = jax.ffi if api is jax else xffi
        return ffi.ffi_call("options.scale", _both(api)(X.shape, X.dtype),
                            input_layouts=[None, None])
    reason = _jax_error(make, X, factor=np.float32(1), offset=np.int32(0))
    with pytest.raises(ValueError) as error:
        make(xffi)(X, factor=np.float32(1), offset=np.int32(0))
    message = str(error.value)
    assert message.startswith("ffi_call('options.scale'): input_layouts has 2 "
                              "layouts for 1 argument."), message
    assert reason in message, (reason, message)


def test_output_layouts_must_count_the_results(targets):
    two = [(X.shape, X.dtype), ((4,), np.float32)]

    def make(api):
        results = [_both(api)(*r) for r in two]
        ffi = jax.ffi if api is jax else xffi
        return ffi.ffi_call("options.fwd", results, output_layouts=[None])
    reason = _jax_error(make, X, eps=np.float32(1e-5))
    with pytest.raises(ValueError) as error:
        make(xffi)(X, eps=np.float32(1e-5))
    message = str(error.value)
    assert message.startswith("ffi_call('options.fwd'): output_layouts has 1 "
                              "layouts for 2 results"), message
    assert reason in message, (reason, message)


def test_matching_layout_counts_run_as_in_jax(targets):
    attrs = dict(factor=np.float32(3), offset=np.int32(1))
    # One result: output_layouts is that result's layout, not a sequence.
    ours = xffi.ffi_call("options.scale", S(X.shape, X.dtype),
                         input_layouts=[(0,)], output_layouts=(0,))(X, **attrs)
    jax.clear_caches()
    theirs = jax.ffi.ffi_call("options.scale",
                              jax.ShapeDtypeStruct(X.shape, X.dtype),
                              input_layouts=[(0,)], output_layouts=(0,))(
                                  X, **attrs)
    np.testing.assert_array_equal(ours, np.asarray(theirs))
    np.testing.assert_array_equal(ours, X * 3 + 1)
    # Several results: one layout each.
    results = xffi.ffi_call("options.fwd", [S((4,), np.float32)] * 2,
                            output_layouts=[None, (0,)])(
                                X, eps=np.float32(1e-5))
    assert len(results) == 2


def test_a_layout_sequence_that_is_no_sequence_is_named(targets):
    with pytest.raises(TypeError, match=r"ffi_call\('options.scale'\): "
                                        "input_layouts must be a sequence "
                                        "with one layout per argument, got "
                                        "int"):
        xffi.ffi_call("options.scale", S(X.shape, X.dtype), input_layouts=3)


def test_legacy_backend_config_needs_a_legacy_version(targets):
    with pytest.raises(ValueError) as in_jax:
        jax.ffi.ffi_call("options.scale",
                         jax.ShapeDtypeStruct(X.shape, X.dtype),
                         legacy_backend_config="x")
    with pytest.raises(ValueError) as in_xffi:
        xffi.ffi_call("options.scale", S(X.shape, X.dtype),
                      legacy_backend_config="x")
    assert str(in_jax.value) in str(in_xffi.value)
    assert "legacy_backend_config" in str(in_xffi.value)


def test_attributes_need_the_typed_ffi_version(targets, legacy_library):
    b = np.linspace(0, 1, 128, dtype=np.float32)
    c = np.ones(2048, np.float32)
    # JAX refuses while lowering, before it looks the target up.
    reason = _jax_error(
        lambda api: api.ffi.ffi_call("do_custom_call_status",
                                     jax.ShapeDtypeStruct((2048,), np.float32),
                                     custom_call_api_version=2),
        b, c, factor=1)
    with pytest.raises(ValueError) as in_xffi:
        xffi.ffi_call("do_custom_call_status", S((2048,), np.float32),
                      custom_call_api_version=2)(b, c, factor=1)
    assert reason in str(in_xffi.value), (reason, str(in_xffi.value))

