"""ffi_call(strict=True) and XFFI_STRICT_ATTRIBUTES=1: xffi refuses exactly
the attribute values jax.ffi.ffi_call refuses, with JAX's reason. Each case
is given to real JAX (the installed jax, with the same handler registered)
and to xffi: both must refuse it, and JAX's message must be inside xffi's.
Values JAX takes, strict xffi takes, with the same results; without strict,
xffi's kinder conversions are unchanged."""

import numpy as np
import pytest

xffi = pytest.importorskip("xffi")
jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

S = xffi.ShapeDtypeStruct
X = np.ones(4, np.float32)

# Attr<float> factor, Attr<int32_t> offset; y = x * factor + offset.
SCALE_OK = dict(factor=np.float32(2), offset=np.int32(1))
# Attr<bool> flag, Attr<int64_t> count, Attr<double> ratio,
# Attr<Span<const int64_t>> ints, Attr<Span<const float>> weights,
# Attr<std::string_view> name, Attr<Dictionary> nested.
SUMMARY_OK = dict(flag=True, count=7, ratio=0.25,
                  ints=np.array([1, 2, 3], np.int64),
                  weights=np.array([0.5, 1.5], np.float32), name="abcde",
                  nested={"depth": 3, "scale": 2.5})


@pytest.fixture(scope="module")
def targets(test_plugin):
    jax.ffi.register_ffi_target("strict.scale", test_plugin.Scale)
    jax.ffi.register_ffi_target("strict.summary", test_plugin.AttrSummary)
    xffi.register_ffi_target("strict.scale", test_plugin.Scale)
    xffi.register_ffi_target("strict.summary", test_plugin.AttrSummary)
    # AttrSummary writes f64 results, which JAX keeps only with x64 on.
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", before)


def _scale(api, **attrs):
    kwargs = dict(SCALE_OK, **attrs)
    if api is jax.ffi:
        return api.ffi_call("strict.scale", jax.ShapeDtypeStruct(
            X.shape, np.float32))(X, **kwargs)
    return api.ffi_call("strict.scale", S(X.shape, np.float32),
                        strict=True)(X, **kwargs)


def _summary(api, **attrs):
    kwargs = dict(SUMMARY_OK, **attrs)
    if api is jax.ffi:
        return api.ffi_call("strict.summary", jax.ShapeDtypeStruct(
            (8,), np.float64))(**kwargs)
    return api.ffi_call("strict.summary", S((8,), np.float64),
                        strict=True)(**kwargs)


def _in_jax(call, **attrs):
    # JAX caches a compiled call by its attributes' values, and 2.0 equals
    # np.float32(2): without a clean cache an earlier call would answer.
    jax.clear_caches()
    return np.asarray(jax.block_until_ready(call(jax.ffi, **attrs)))


REFUSED = {
    "python float for Attr<float>": (_scale, dict(factor=2.0)),
    "python int for Attr<int32_t>": (_scale, dict(offset=1)),
    "python int for Attr<float>": (_scale, dict(factor=2)),
    "python bool for Attr<int32_t>": (_scale, dict(offset=True)),
    "np.float64 for Attr<float>": (_scale, dict(factor=np.float64(2))),
    "np.uint8 for Attr<int32_t>": (_scale, dict(offset=np.uint8(1))),
    "0-d array for Attr<float>": (_scale,
                                  dict(factor=np.array(2, np.float32))),
    "string for Attr<float>": (_scale, dict(factor="two")),
    "dict for Attr<float>": (_scale, dict(factor={"a": 1})),
    "list for Attr<float>": (_scale, dict(factor=[2.0])),
    "tuple for Attr<float>": (_scale, dict(factor=(2.0,))),
    "complex for Attr<float>": (_scale, dict(factor=2 + 0j)),
    "np.complex64 for Attr<float>": (_scale, dict(factor=np.complex64(2))),
    "np.float16 for Attr<float>": (_scale, dict(factor=np.float16(2))),
    "None": (_scale, dict(factor=None)),
    "int beyond int64": (_summary, dict(count=2**70)),
    "python float for Attr<int64_t>": (_summary, dict(count=7.0)),
    "python int for Attr<double>": (_summary, dict(ratio=1)),
    "python int for Attr<bool>": (_summary, dict(flag=1)),
    "np.float32 for Attr<double>": (_summary, dict(ratio=np.float32(0.25))),
    "list for a span": (_summary, dict(ints=[1, 2, 3])),
    "tuple for a span": (_summary, dict(ints=(1, 2, 3))),
    "empty tuple for a span": (_summary, dict(ints=())),
    "int32 array for Span<const int64_t>": (
        _summary, dict(ints=np.array([1, 2, 3], np.int32))),
    "f64 array for Span<const float>": (
        _summary, dict(weights=np.array([0.5, 1.5]))),
    "bool array": (_summary, dict(ints=np.array([True]))),
    "complex array": (_summary, dict(ints=np.array([1j]))),
    "scalar for a span": (_summary, dict(ints=np.int64(3))),
    "string for a span": (_summary, dict(ints="abc")),
    "dict for a string": (_summary, dict(name={"a": 1})),
    "string for a dictionary": (_summary, dict(nested="x")),
    "set": (_summary, dict(count={1})),
    "bytearray": (_summary, dict(name=bytearray(b"ab"))),
    "np.dtype": (_summary, dict(count=np.dtype(np.float32))),
    "list in a dictionary": (_summary, dict(
        nested={"depth": 3, "scale": 2.5, "extra": [1, 2]})),
    "tuple in a dictionary": (_summary, dict(
        nested={"depth": 3, "scale": 2.5, "extra": (1, 2)})),
    "complex in a dictionary": (_summary, dict(
        nested={"depth": 3, "scale": 2.5, "extra": 1j})),
    "array in a dictionary": (_summary, dict(
        nested={"depth": 3, "scale": 2.5, "extra": np.arange(3)})),
    "dictionary in a dictionary": (_summary, dict(
        nested={"depth": 3, "scale": 2.5, "extra": {"a": 1}})),
    "None in a dictionary": (_summary, dict(
        nested={"depth": 3, "scale": 2.5, "extra": None})),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_strict_refuses_what_jax_refuses_with_jax_reason(targets, case):
    call, attrs = REFUSED[case]
    with pytest.raises(Exception) as in_jax:
        _in_jax(call, **attrs)
    reason = str(in_jax.value).removeprefix("INVALID_ARGUMENT: ")
    with pytest.raises((TypeError, OverflowError)) as in_xffi:
        call(xffi, **attrs)
    message = str(in_xffi.value)
    assert "is refused by strict mode, as jax.ffi.ffi_call refuses it" in \
        message
    assert reason in message, (reason, message)


ACCEPTED = {
    "NumPy scalars of the declared types": (_scale, {}),
    "python bool, int, float, str; arrays; a dictionary": (_summary, {}),
    "bytes for a string": (_summary, dict(name=b"abcde")),
    "a 2-d array for a span": (_summary,
                               dict(ints=np.ones((2, 2), np.int64))),
    "an empty array for a span": (_summary,
                                  dict(ints=np.zeros((0,), np.int64))),
    "NumPy scalars in a dictionary": (_summary, dict(
        nested={"depth": np.int64(3), "scale": np.float64(2.5)})),
}


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_strict_takes_what_jax_takes_with_equal_results(targets, case):
    call, attrs = ACCEPTED[case]
    np.testing.assert_array_equal(call(xffi, **attrs), _in_jax(call, **attrs))


def test_without_strict_xffi_still_converts_exactly(targets):
    lenient = xffi.ffi_call("strict.scale", S(X.shape, np.float32))
    np.testing.assert_array_equal(lenient(X, factor=2.0, offset=1), X * 2 + 1)
    summary = xffi.ffi_call("strict.summary", S((8,), np.float64))(
        **dict(SUMMARY_OK, ints=[1, 2, 3], weights=(0.5, 1.5)))
    np.testing.assert_array_equal(summary, [1, 7, 0.25, 6, 2, 5, 3, 2.5])


def test_the_environment_variable_turns_strict_on(targets, monkeypatch):
    monkeypatch.setenv("XFFI_STRICT_ATTRIBUTES", "1")
    call = xffi.ffi_call("strict.scale", S(X.shape, np.float32))
    assert call.strict
    with pytest.raises(TypeError, match=r"ffi_call\('strict.scale'\): "
                                        r"attribute 'factor' is refused by "
                                        r"strict mode.*expected float \(F32 "
                                        r"scalar\), got F64 scalar"):
        call(X, factor=2.0, offset=np.int32(1))
    # strict=False given explicitly wins over the environment.
    lenient = xffi.ffi_call("strict.scale", S(X.shape, np.float32),
                            strict=False)
    np.testing.assert_array_equal(lenient(X, factor=2.0, offset=1), X * 2 + 1)
    monkeypatch.setenv("XFFI_STRICT_ATTRIBUTES", "0")
    assert not xffi.ffi_call("strict.scale", S(X.shape, np.float32)).strict


def test_strict_carries_into_xffi_vmap(targets):
    call = xffi.ffi_call("strict.scale", S(X.shape, np.float32), strict=True,
                         vmap_method="sequential")
    batch = np.stack([X, 2 * X])
    with pytest.raises(TypeError, match="refused by strict mode"):
        xffi.vmap(lambda v: call(v, factor=2.0, offset=np.int32(0)))(batch)
    out = xffi.vmap(lambda v: call(v, **SCALE_OK))(batch)
    np.testing.assert_array_equal(out, batch * 2 + 1)


def test_a_jax_array_attribute_is_refused_as_jax_refuses_it(targets):
    # A JAX array attribute is not hashable in JAX; in xffi it is no NumPy
    # array either, and strict mode refuses it as JAX does.
    value = jnp.arange(3)
    with pytest.raises(Exception) as in_jax:
        _in_jax(_summary, ints=value)
    with pytest.raises(TypeError) as in_xffi:
        _summary(xffi, ints=value)
    assert str(in_jax.value) in str(in_xffi.value)
