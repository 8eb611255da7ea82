"""xffi.ffi_call: eager calls in xffi's runtime, with jax.ffi.ffi_call's
signature."""

import ctypes

import numpy as np
import pytest

xffi = pytest.importorskip("xffi")
from xffi import ShapeDtypeStruct as S  # noqa: E402


def rms_norm_reference(x, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)


@pytest.fixture(scope="module")
def calls(test_plugin):
    counter = ctypes.CDLL(test_plugin.path).python_test_execute_calls
    counter.restype = ctypes.c_int64
    return counter


def test_rms_norm_with_explicit_results(rms_norm_library):
    x = np.linspace(-3, 5, 64, dtype=np.float32).reshape(4, 16)
    y = xffi.ffi_call("rms_norm", S(x.shape, x.dtype))(x, eps=1e-5)
    assert isinstance(y, np.ndarray) and y.dtype == np.float32
    np.testing.assert_allclose(y, rms_norm_reference(x, 1e-5), rtol=1e-6)


def test_a_python_float_is_narrowed_to_a_float_attribute(test_plugin):
    # Scale binds Attr<float>("factor") and Attr<int32_t>("offset"): JAX would
    # need np.float32 and np.int32 here.
    x = np.arange(5, dtype=np.float32)
    y = xffi.ffi_call("python_test.scale", S((5,), np.float32))(
        x, factor=0.5, offset=-2)
    np.testing.assert_array_equal(y, x * 0.5 - 2)
    y = xffi.ffi_call("python_test.scale", S((5,), np.float32))(
        x, factor=np.float32(2), offset=np.int32(1))
    np.testing.assert_array_equal(y, x * 2 + 1)
    y = xffi.ffi_call("python_test.scale", S((5,), np.float32))(
        x, factor=3, offset=0)  # an int for a float attribute is fine too
    np.testing.assert_array_equal(y, x * 3)


def test_attribute_mismatches_name_the_attribute_and_both_types(test_plugin,
                                                                 calls):
    f = xffi.ffi_call("python_test.scale", S((2,), np.float32))
    x = np.ones(2, np.float32)
    before = calls()
    with pytest.raises(TypeError, match=r"ffi_call\('python_test.scale'\): "
                                        r"attribute 'factor' expects float, "
                                        r"got str"):
        f(x, factor="two", offset=1)
    with pytest.raises(TypeError, match="attribute 'offset' expects int32_t, "
                                        "got float"):
        f(x, factor=1.0, offset=1.5)
    with pytest.raises(TypeError, match="attribute 'factor' expects float, got "
                                        "numpy.float64"):
        f(x, factor=np.float64(1), offset=1)
    with pytest.raises(TypeError, match=r"attribute 'offset' expects int32_t, "
                                        r"got int 4294967296, which is out of "
                                        r"range"):
        f(x, factor=1.0, offset=2**32)
    with pytest.raises(TypeError, match="unknown attribute 'scale'; the "
                                        "handler takes the attributes factor, "
                                        "offset"):
        f(x, factor=1.0, offset=1, scale=2)
    with pytest.raises(TypeError, match=r"missing attribute 'offset' "
                                        r"\(int32_t\)"):
        f(x, factor=1.0)
    assert calls() == before  # refused before the handler ran


def test_every_attribute_kind(test_plugin):
    xffi.register_ffi_target("call.attr_summary", test_plugin.AttrSummary)
    summary = xffi.ffi_call("call.attr_summary", S((8,), np.float64))
    out = summary(flag=True, count=7, ratio=0.25, ints=[1, 2, 3],
                  weights=np.array([0.5, 1.5], np.float32), name="abcde",
                  nested={"depth": 3, "scale": 2.5})
    np.testing.assert_array_equal(out, [1, 7, 0.25, 6, 2.0, 5, 3, 2.5])
    # Lists narrow to the declared element type; tuples work as lists.
    out = summary(flag=False, count=np.int64(1), ratio=1, ints=(4, 5),
                  weights=[0.25, 0.25, 0.5], name=b"xy",
                  nested={"depth": 1, "scale": 1.0})
    np.testing.assert_array_equal(out, [0, 1, 1, 9, 1.0, 2, 1, 1.0])
    with pytest.raises(TypeError, match="attribute 'weights' expects "
                                        "Span<const float>, got a NumPy array "
                                        "of f64"):
        summary(flag=True, count=1, ratio=1.0, ints=[1],
                weights=np.array([1.0]), name="", nested={})
    with pytest.raises(TypeError, match="attribute 'nested' expects "
                                        "Dictionary, got list"):
        summary(flag=True, count=1, ratio=1.0, ints=[1], weights=[1.0],
                name="", nested=[1])
    with pytest.raises(TypeError, match="attribute 'flag' expects bool, got "
                                        "int"):
        summary(flag=1, count=1, ratio=1.0, ints=[1], weights=[1.0],
                name="", nested={})
    # Nested dictionaries are not described: a wrong inner type reaches the
    # handler, whose own error comes back.
    with pytest.raises(ValueError, match="nested needs depth"):
        summary(flag=True, count=1, ratio=1.0, ints=[1], weights=[1.0],
                name="", nested={"depth": 1.5, "scale": 1.0})


def test_results_derived_from_the_handler_description(rms_norm_library,
                                                      test_plugin):
    x = np.linspace(1, 2, 12, dtype=np.float32).reshape(3, 4)
    # Buffer<F32> -> Buffer<F32>: one result like argument 0.
    np.testing.assert_allclose(xffi.ffi_call("rms_norm")(x, eps=1e-5),
                               rms_norm_reference(x, 1e-5), rtol=1e-6)
    # BufferR0<S64>: a scalar of that dtype.
    first = xffi.ffi_call("python_test.counter")(start=0)
    assert first.shape == () and first.dtype == np.int64 and first == 1


def test_results_that_cannot_be_derived(test_plugin, legacy_library):
    with pytest.raises(ValueError, match=r"result_shape_dtypes is required: "
                                         r"result 0 \(Buffer<F32>\) is one of "
                                         r"several array results"):
        xffi.ffi_call("python_test.rms_norm_fwd")(np.ones((2, 2), np.float32),
                                                  eps=1e-5)
    with pytest.raises(ValueError, match=r"is not like argument 0 "
                                         r"\(s32\[3\]\)"):
        xffi.ffi_call("python_test.scale")(np.ones(3, np.int32), factor=1.0,
                                           offset=0)
    with pytest.raises(ValueError, match="does not describe its results"):
        xffi.ffi_call("do_custom_call_v3", custom_call_api_version=3)


def test_several_results_come_back_as_list_or_tuple(test_plugin):
    x = np.array([[3, 4], [0, 1]], np.float32)
    specs = [S(x.shape, x.dtype), S((2,), np.float32)]
    y, scale = xffi.ffi_call("python_test.rms_norm_fwd", specs)(x, eps=0.0)
    np.testing.assert_allclose(scale, 1 / np.sqrt([12.5, 0.5]), rtol=1e-6)
    np.testing.assert_allclose(y, x * scale[:, None], rtol=1e-6)
    as_list = xffi.ffi_call("python_test.rms_norm_fwd", specs)(x, eps=0.0)
    as_tuple = xffi.ffi_call("python_test.rms_norm_fwd", tuple(specs))(
        x, eps=0.0)
    assert type(as_list) is list and type(as_tuple) is tuple


def test_result_shape_dtypes_accepts_any_shape_dtype_object(test_plugin):
    class Spec:
        shape = (3,)
        dtype = "float32"
    y = xffi.ffi_call("python_test.scale", Spec())(
        np.ones(3, np.float32), factor=2.0, offset=0)
    np.testing.assert_array_equal(y, [2, 2, 2])
    with pytest.raises(TypeError, match=r"result_shape_dtypes must have "
                                        r"\.shape and \.dtype"):
        xffi.ffi_call("python_test.scale", 3)
    with pytest.raises(TypeError, match=r"result_shape_dtypes\[1\] has dtype "
                                        r"object"):
        xffi.ffi_call("python_test.scale", [S((1,), np.float32),
                                            S((1,), object)])


def test_arrays_cross_without_copies_and_frames_are_reused(test_plugin):
    f = xffi.ffi_call("python_test.scale", S((4,), np.float32))
    x = np.arange(4, dtype=np.float32)
    for k in range(3):  # the same frame, repointed at new arrays
        x = x + k
        np.testing.assert_array_equal(f(x, factor=2.0, offset=k), x * 2 + k)
    # Other shapes rebuild the frame (results given stay as given).
    g = xffi.ffi_call("python_test.scale")
    np.testing.assert_array_equal(g(np.ones(2, np.float32), factor=1.0,
                                    offset=1), [2, 2])
    np.testing.assert_array_equal(g(np.ones(3, np.float32), factor=1.0,
                                    offset=2), [3, 3, 3])


def test_non_contiguous_lists_and_scalars_are_converted(test_plugin):
    f = xffi.ffi_call("python_test.scale")
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(f(x.T, factor=1.0, offset=0), x.T)
    np.testing.assert_array_equal(f(x[:, ::2], factor=1.0, offset=0),
                                  x[:, ::2])
    # A list becomes an array (f64 here, so the F32 binding refuses it).
    with pytest.raises(ValueError, match="argument 0: expected buffer of F32"):
        xffi.ffi_call("python_test.scale", S((2,), np.float32))(
            [1.0, 2.0], factor=1.0, offset=0)
    np.testing.assert_array_equal(
        xffi.ffi_call("python_test.scale", S((), np.float32))(
            np.float32(4), factor=0.5, offset=0), 2)


def test_dlpack_producers_are_taken(test_plugin):
    jnp = pytest.importorskip("jax.numpy")
    x = jnp.arange(6, dtype=jnp.float32)
    y = xffi.ffi_call("python_test.scale")(x, factor=2.0, offset=1)
    np.testing.assert_array_equal(y, np.arange(6) * 2 + 1)
    # The handler sees the JAX array's own bytes: no copy on the way in.
    xffi.register_ffi_target("call.address", test_plugin.Address)
    assert int(xffi.ffi_call("call.address")(x)) == x.unsafe_buffer_pointer()


def test_unsupported_dtype_is_named(test_plugin):
    with pytest.raises(TypeError, match="argument 0 has dtype <U1"):
        xffi.ffi_call("python_test.scale")(np.array(["a"]), factor=1.0,
                                           offset=0)


def test_handler_errors_surface_with_their_message(rms_norm_library):
    with pytest.raises(ValueError, match="rms_norm: x must have rank >= 1"):
        xffi.ffi_call("rms_norm", S((), np.float32))(np.float32(1), eps=1e-5)
    with pytest.raises(ValueError, match=r"argument 0: expected buffer of F32"):
        xffi.ffi_call("rms_norm", S((2,), np.float32))(
            np.ones(2, np.float64), eps=1e-5)


def test_unknown_target_is_named():
    with pytest.raises(LookupError, match="no_such_target"):
        xffi.ffi_call("no_such_target", S((1,), np.float32))


def test_option_errors_match_jax(test_plugin):
    with pytest.raises(ValueError, match="vmap_method must be one of "
                                         "sequential, sequential_unrolled, "
                                         "expand_dims, broadcast_all, "
                                         "legacy_vectorized or None, got "
                                         "'parallel'"):
        xffi.ffi_call("python_test.scale", vmap_method="parallel")
    with pytest.raises(ValueError, match="custom_call_api_version must be 1, 2 "
                                         "or 3 .* got 5"):
        xffi.ffi_call("python_test.scale", custom_call_api_version=5)
    with pytest.raises(ValueError, match="legacy_backend_config is only for "
                                         "legacy custom calls"):
        xffi.ffi_call("python_test.scale", legacy_backend_config="x")
    # (Other layouts: test_ffi_call_tokens_layouts.py.) Row-major layouts,
    # given explicitly, are fine, with results derived or given.
    xffi.ffi_call("python_test.scale", input_layouts=[(0, 1), None],
                  output_layouts=(0,))


def test_input_output_aliases(test_plugin):
    x = np.arange(4, dtype=np.float32)
    y = xffi.ffi_call("python_test.scale", S((4,), np.float32),
                      input_output_aliases={0: 0})(x, factor=2.0, offset=0)
    np.testing.assert_array_equal(y, np.arange(4) * 2)
    np.testing.assert_array_equal(x, np.arange(4))  # not donated: untouched
    with pytest.raises(ValueError, match=r"argument 0 \(f32\[4\]\) cannot alias "
                                         r"result 0 \(f32\[5\]\)"):
        xffi.ffi_call("python_test.scale", S((5,), np.float32),
                      input_output_aliases={0: 0})(x, factor=1.0, offset=0)
    with pytest.raises(ValueError, match="maps argument 3 to result 0, but "
                                         "there is 1 argument and 1 result"):
        xffi.ffi_call("python_test.scale", S((4,), np.float32),
                      input_output_aliases={3: 0})(x, factor=1.0, offset=0)


def test_legacy_calls(legacy_library):
    b = np.linspace(0, 1, 128, dtype=np.float32)
    c = np.ones(2048, np.float32)
    want = b[np.arange(2048) % 128] + c
    for target, version in [("do_custom_call", 1),
                            ("do_custom_call_status", 2)]:
        a = xffi.ffi_call(target, S((2048,), np.float32),
                          custom_call_api_version=version)(b, c)
        np.testing.assert_array_equal(a, want)
    v3 = xffi.ffi_call("do_custom_call_v3", S((10,), np.float32),
                       custom_call_api_version=3, legacy_backend_config="10")
    np.testing.assert_array_equal(v3(b, c[:10]), want[:10])


def test_legacy_errors(legacy_library):
    b = np.full(128, np.nan, np.float32)
    c = np.ones(2048, np.float32)
    with pytest.raises(RuntimeError, match=r"do_custom_call_status: B\[0\] is "
                                           r"NaN"):
        xffi.ffi_call("do_custom_call_status", S((2048,), np.float32),
                      custom_call_api_version=2)(b, c)
    with pytest.raises(RuntimeError, match="the opaque bytes must be the "
                                           "length of C"):
        xffi.ffi_call("do_custom_call_v3", S((4,), np.float32),
                      custom_call_api_version=3,
                      legacy_backend_config="four")(b, c)
    with pytest.raises(ValueError, match="a legacy custom call "
                                         r"\(custom_call_api_version 2\) takes "
                                         "no attributes"):
        xffi.ffi_call("do_custom_call_status", S((2048,), np.float32),
                      custom_call_api_version=2)(b, c, eps=1.0)
    with pytest.raises(Exception, match="registered as API version 3 .* but "
                                        "the call site uses API version 1"):
        xffi.ffi_call("do_custom_call_v3", S((4,), np.float32),
                      custom_call_api_version=1)(b, c)


def test_state_lives_per_call_site(test_plugin):
    count = xffi.ffi_call("python_test.counter", S((), np.int64))
    assert [int(count(start=100)) for _ in range(3)] == [101, 102, 103]
    other = xffi.ffi_call("python_test.counter", S((), np.int64))
    assert int(other(start=0)) == 1
    # New attributes make a new call site (XLA would compile a new one).
    assert int(count(start=7)) == 8
    with pytest.raises(ValueError, match="counter: start must be >= 0"):
        other(start=-1)


def test_a_handler_that_throws_fails_only_its_call(test_plugin):
    add_one = xffi.ffi_call("python_test.throws", S((4,), np.float32))
    x = np.arange(4, dtype=np.float32)
    for _ in range(2):  # the callable, and its frame, stay usable
        with pytest.raises(RuntimeError,
                           match=r"python_test\.throws.*negative input thrown"):
            add_one(-x - 1)
        np.testing.assert_array_equal(add_one(x), x + 1)


def test_user_data_through_an_execution_context(test_plugin):
    lib = ctypes.CDLL(test_plugin.path)
    lib.python_test_new_offset.restype = ctypes.c_void_p
    lib.python_test_new_offset.argtypes = [ctypes.c_float]
    lib.python_test_offset_type_id.restype = ctypes.c_int64
    type_id = lib.python_test_offset_type_id()
    assert xffi._core.type_name(type_id) == "python_test.Offset"

    xffi.register_ffi_target("call.add_user_offset", test_plugin.AddUserOffset)
    add = xffi.ffi_call("call.add_user_offset")
    context = xffi.ExecutionContext()
    context.insert_user_data(type_id, lib.python_test_new_offset(2.5),
                             take_ownership=True)
    x = np.arange(3, dtype=np.float32)
    with xffi.execution_context(context):
        np.testing.assert_array_equal(add(x), x + 2.5)
    with pytest.raises(Exception, match="python_test.Offset"):
        add(x)  # the default context has no such user data
    with pytest.raises(ValueError, match="already"):
        context.insert_user_data(type_id, 8)
