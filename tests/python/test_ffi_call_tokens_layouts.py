"""ffi_call with tokens (abstract_token results, token arguments; for
typed and legacy calls) and with input_layouts / output_layouts that are
not row-major (also under xffi.vmap and with a donated argument): each call
runs in xffi and in the installed JAX (jax.ffi.ffi_call, eagerly and under
jit) on the same handler library, and the results must agree."""

import numpy as np
import pytest

xffi = pytest.importorskip("xffi")
jax = pytest.importorskip("jax")

X = np.arange(6, dtype=np.float32).reshape(2, 3)
CUBE = np.arange(24, dtype=np.int32).reshape(2, 3, 4)


@pytest.fixture(scope="module")
def targets(test_plugin):
    for name, capsule in (("tl.copy_bytes", test_plugin.CopyBytes),
                          ("tl.token_copy", test_plugin.TokenCopy),
                          ("tl.scale", test_plugin.Scale)):
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


@pytest.mark.parametrize("method", ["sequential", "expand_dims",
                                    "broadcast_all", "legacy_vectorized"])
@pytest.mark.parametrize("in_layout, out_layout",
                         [((1, 0), None), (None, (1, 0)), ((1, 0), (1, 0))])
def test_layouts_hold_under_vmap_as_in_jax(targets, method, in_layout,
                                           out_layout):
    """xffi.vmap keeps a call's layouts: each element's call (sequential) or
    the batched call, whose layouts gain the batch as the most major
    dimension, as JAX's batching rule gives them."""
    batch = np.arange(4 * 6, dtype=np.float32).reshape(4, 2, 3)
    options = dict(input_layouts=[in_layout], output_layouts=out_layout,
                   vmap_method=method)
    ours = xffi.vmap(xffi.ffi_call(
        "tl.copy_bytes", xffi.ShapeDtypeStruct(X.shape, X.dtype),
        **options))(batch)
    theirs = jax.vmap(jax.ffi.ffi_call(
        "tl.copy_bytes", jax.ShapeDtypeStruct(X.shape, X.dtype),
        **options))(batch)
    np.testing.assert_array_equal(ours, np.asarray(theirs))
    if (in_layout is None) != (out_layout is None):
        # Unlike the default layouts, the handler saw each element's bytes
        # transposed (one of the two ways).
        assert not np.array_equal(ours, batch)


def test_legacy_vectorized_keeps_an_unbatched_operands_layout(targets):
    """legacy_vectorized passes an unbatched operand as it is, layout
    included; a batched one gets the batch as its most major dimension
    (JAX's rule; tl.copy_bytes takes one operand, so the layouts of the
    batched call are checked here)."""
    from xffi._vmap import _batched_layouts
    call = xffi.ffi_call("tl.copy_bytes",
                         [xffi.ShapeDtypeStruct(X.shape, X.dtype)],
                         input_layouts=[(1, 0), (1, 0), None],
                         output_layouts=[(1, 0)],
                         vmap_method="legacy_vectorized")
    assert _batched_layouts(call, [True, False, True]) == (
        [(0, 2, 1), (1, 0), None], [(0, 2, 1)])


def test_a_donated_argument_with_a_column_major_layout(targets):
    """A donated argument whose layout is not row-major: the handler works
    on a transposed copy, whose values go back into the caller's array,
    so the result is still the argument; the values are JAX's."""
    options = dict(input_layouts=[(1, 0)], output_layouts=(1, 0),
                   input_output_aliases={0: 0})
    result = xffi.ShapeDtypeStruct(X.shape, X.dtype)
    donated = X.copy()
    got = xffi.ffi_call("tl.scale", result, donate_aliased_inputs=True,
                        **options)(donated, factor=2.0, offset=1)
    assert got is donated
    jitted = jax.jit(lambda x: jax.ffi.ffi_call(
        "tl.scale", jax.ShapeDtypeStruct(X.shape, X.dtype), **options)(
            x, factor=np.float32(2.0), offset=np.int32(1)),
        donate_argnums=0)(X.copy())
    np.testing.assert_array_equal(donated, np.asarray(jitted))
    np.testing.assert_array_equal(donated, X * 2 + 1)
    read_only = X.copy()
    read_only.setflags(write=False)
    with pytest.raises(ValueError, match=r"ffi_call\('tl\.scale'\): "
                       "argument 0 is read-only, so it cannot be donated"):
        xffi.ffi_call("tl.scale", result, donate_aliased_inputs=True,
                      **options)(read_only, factor=2.0, offset=1)


def test_legacy_calls_take_and_return_tokens_as_xla_cpu_passes_them(
        test_plugin):
    """A legacy (API version 1-3) call with token operands and results, in
    ffi_call and in a program, gets the token pointers XLA:CPU gives it:
    not null (python_test_legacy_tokens adds 1 or 1000 for a null or
    non-null token operand, 10 or 10000 for the token result's slot), so its
    results are JAX's."""
    x = np.arange(4, dtype=np.float32)

    def f(v):
        jax_call = jax.ffi.ffi_call(
            "python_test_legacy_tokens",
            (jax.ShapeDtypeStruct(x.shape, x.dtype),
             jax.typeof(jax.lax.create_token())),
            custom_call_api_version=3, legacy_backend_config="4",
            has_side_effect=True)
        out, _ = jax_call(jax.lax.create_token(), v)
        return out
    jax.ffi.register_ffi_target(
        "python_test_legacy_tokens",
        test_plugin.legacy_targets["python_test_legacy_tokens"]["capsule"],
        platform="cpu", api_version=0)
    in_jax = np.asarray(jax.jit(f)(x))
    np.testing.assert_array_equal(in_jax, x + 11000)

    call = xffi.ffi_call(
        "python_test_legacy_tokens",
        (xffi.ShapeDtypeStruct(x.shape, x.dtype), xffi.abstract_token),
        custom_call_api_version=3, legacy_backend_config="4")
    y, token = call(xffi.Token(), x)
    assert isinstance(token, xffi.Token)
    np.testing.assert_array_equal(y, in_jax)
    # The token it returned orders the next call, as in JAX.
    again, _ = call(token, y)
    np.testing.assert_array_equal(again, in_jax + 11000)

    # The program JAX lowers (its create_token too) in both dialects.
    lowered = jax.jit(f).lower(x)
    for dialect in ("stablehlo", "hlo"):
        program = xffi.Program.from_text(lowered.as_text(dialect=dialect))
        np.testing.assert_array_equal(program(x), in_jax)
