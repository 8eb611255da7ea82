"""ffi_call with tokens (abstract_token results, token arguments) and with
input_layouts / output_layouts that are not row-major: each call runs in
xffi and in the installed JAX (jax.ffi.ffi_call, eagerly and under jit) on
the same handler library, and the results must agree."""

import numpy as np
import pytest

xffi = pytest.importorskip("xffi")
jax = pytest.importorskip("jax")

X = np.arange(6, dtype=np.float32).reshape(2, 3)
CUBE = np.arange(24, dtype=np.int32).reshape(2, 3, 4)


@pytest.fixture(scope="module")
def targets(test_plugin):
    for name, capsule in (("tl.copy_bytes", test_plugin.CopyBytes),
                          ("tl.token_copy", test_plugin.TokenCopy)):
        jax.ffi.register_ffi_target(name, capsule, platform="cpu")
        xffi.register_ffi_target(name, capsule)


def both(target, result, *args, **options):
    """The call's results from xffi, JAX eagerly and JAX under jit."""
    jax_result = jax.tree.map(
        lambda r: jax.ShapeDtypeStruct(r.shape, r.dtype), result)
    ours = xffi.ffi_call(target, result, **options)(*args)
    theirs = jax.ffi.ffi_call(target, jax_result, **options)
    eager = theirs(*args)
    jitted = jax.jit(lambda *a: theirs(*a))(*args)
    return ours, np.asarray(eager), np.asarray(jitted)


@pytest.mark.parametrize("layout", [(1, 0), [1, 0]])
def test_a_column_major_input_reaches_the_handler_transposed(targets, layout):
    ours, eager, jitted = both("tl.copy_bytes",
                               xffi.ShapeDtypeStruct(X.shape, X.dtype), X,
                               input_layouts=[layout])
    # The handler read x's bytes column by column.
    np.testing.assert_array_equal(ours, X.T.reshape(X.shape))
    np.testing.assert_array_equal(ours, eager)
    np.testing.assert_array_equal(ours, jitted)


def test_a_column_major_output_is_transposed_back(targets):
    ours, eager, jitted = both("tl.copy_bytes",
                               xffi.ShapeDtypeStruct(X.shape, X.dtype), X,
                               output_layouts=(1, 0))
    np.testing.assert_array_equal(ours, X.reshape(3, 2).T)
    np.testing.assert_array_equal(ours, eager)
    np.testing.assert_array_equal(ours, jitted)
    assert ours.flags.c_contiguous


@pytest.mark.parametrize("in_layout,out_layout",
                         [((2, 0, 1), None), (None, (1, 2, 0)),
                          ((0, 2, 1), (0, 2, 1)), ((1, 0, 2), (2, 1, 0))])
def test_rank_3_layouts_agree_with_jax(targets, in_layout, out_layout):
    results = [xffi.ShapeDtypeStruct(CUBE.shape, CUBE.dtype)]
    ours, eager, jitted = both("tl.copy_bytes", results, CUBE,
                               input_layouts=[in_layout],
                               output_layouts=[out_layout])
    assert isinstance(ours, list) and len(ours) == 1
    np.testing.assert_array_equal(ours[0], eager[0])
    np.testing.assert_array_equal(ours[0], jitted[0])


def test_jax_layout_objects_are_taken(targets):
    from jax.experimental.layout import Layout
    ours = xffi.ffi_call("tl.copy_bytes",
                         xffi.ShapeDtypeStruct(X.shape, X.dtype),
                         input_layouts=[Layout((1, 0))])(X)
    np.testing.assert_array_equal(ours, X.T.reshape(X.shape))


def test_a_layout_that_is_no_permutation_is_refused(targets):
    call = xffi.ffi_call("tl.copy_bytes",
                         xffi.ShapeDtypeStruct(X.shape, X.dtype),
                         input_layouts=[(0, 0)])
    with pytest.raises(ValueError,
                       match=r"ffi_call\('tl\.copy_bytes'\): "
                             r"input_layouts\[0\] = \(0, 0\) is not a layout "
                             r"of a rank-2 array"):
        call(X)
    with pytest.raises(ValueError, match=r"output_layouts = \(2, 1, 0\) is "
                                         r"not a layout of a rank-2 array"):
        xffi.ffi_call("tl.copy_bytes", xffi.ShapeDtypeStruct(X.shape, X.dtype),
                      output_layouts=(2, 1, 0))


def test_the_layout_count_is_checked_as_jax_checks_it(targets):
    call = xffi.ffi_call("tl.copy_bytes",
                         xffi.ShapeDtypeStruct(X.shape, X.dtype),
                         input_layouts=[(1, 0), None])
    with pytest.raises(ValueError) as ours:
        call(X)
    with pytest.raises(ValueError) as theirs:
        jax.ffi.ffi_call("tl.copy_bytes",
                         jax.ShapeDtypeStruct(X.shape, X.dtype),
                         input_layouts=[(1, 0), None])(X)
    assert str(ours.value).startswith(
        "ffi_call('tl.copy_bytes'): input_layouts has 2 layouts for 1 "
        "argument.")
    assert str(theirs.value) in str(ours.value)


def test_aliased_operands_need_the_same_layout(targets):
    result = xffi.ShapeDtypeStruct(X.shape, X.dtype)
    options = dict(input_layouts=[(1, 0)], input_output_aliases={0: 0})
    with pytest.raises(ValueError) as ours:
        xffi.ffi_call("tl.copy_bytes", result, **options)(X)
    with pytest.raises(ValueError) as theirs:
        jax.ffi.ffi_call("tl.copy_bytes",
                         jax.ShapeDtypeStruct(X.shape, X.dtype), **options)(X)
    assert str(theirs.value) in str(ours.value), (str(ours.value),
                                                  str(theirs.value))
    # The same layout on both sides aliases as in JAX.
    ours, eager, jitted = both("tl.copy_bytes", result, X,
                               input_layouts=[(1, 0)], output_layouts=(1, 0),
                               input_output_aliases={0: 0})
    np.testing.assert_array_equal(ours, X)
    np.testing.assert_array_equal(ours, eager)


def test_a_token_result_and_a_token_argument(targets):
    call = xffi.ffi_call("tl.token_copy",
                         (xffi.abstract_token,
                          xffi.ShapeDtypeStruct(X.shape, X.dtype)))
    token, y = call(xffi.Token(), X)
    assert isinstance(token, xffi.Token)
    np.testing.assert_array_equal(y, X)
    # The token a call returns is the next call's argument, as in JAX.
    again, z = call(token, y)
    assert isinstance(again, xffi.Token)
    np.testing.assert_array_equal(z, X)

    jax_call = jax.ffi.ffi_call(
        "tl.token_copy", (jax.typeof(jax.lax.create_token()),
                          jax.ShapeDtypeStruct(X.shape, X.dtype)))
    jax_token, jax_y = jax_call(jax.lax.create_token(), X)
    np.testing.assert_array_equal(jax_y, y)
    # JAX's tokens and abstract token are taken too.
    token, y = xffi.ffi_call(
        "tl.token_copy", (jax.typeof(jax.lax.create_token()),
                          xffi.ShapeDtypeStruct(X.shape, X.dtype)))(
            jax_token, X)
    assert isinstance(token, xffi.Token)
    np.testing.assert_array_equal(y, X)


def test_an_array_where_a_token_is_bound_is_refused_naming_the_call(
        targets):
    token_call = xffi.ffi_call(
        "tl.token_copy",
        (xffi.abstract_token, xffi.ShapeDtypeStruct(X.shape, X.dtype)))
    with pytest.raises(ValueError,
                       match=r"ffi_call\('tl\.token_copy'\): argument 0: "
                             r"expected buffer of TOKEN rank 0, got F32"):
        token_call(X, X)
