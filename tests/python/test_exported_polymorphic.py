"""Shape-polymorphic jax.export artifacts (symbolic dimensions) in xffi:
each is exported by JAX, run by xffi at several concrete shapes and compared
with exported.call at the same shapes; a shape the export's constraints
refuse raises JAX's message; each distinct signature compiles once. Also
HLO text with bounded dimensions (f32[<=4]), which runs at the bound."""

import threading

import numpy as np
import pytest

xffi = pytest.importorskip("xffi")
jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax import export, lax  # noqa: E402

F32 = np.float32


def _spec(shape, dtype=F32, constraints=()):
    return jax.ShapeDtypeStruct(
        export.symbolic_shape(shape, constraints=constraints), dtype)


def _specs(items, constraints=()):
    # One scope: symbols shared between arguments must come from it.
    scope = export.SymbolicScope(constraints)
    return [jax.ShapeDtypeStruct(export.symbolic_shape(s, scope=scope), d)
            for s, d in items]


def _data(shape, dtype=F32, seed=0):
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(0, 5, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _compare(program, exported, args, rtol=1e-5, atol=1e-5):
    got_leaves = jax.tree_util.tree_leaves(program(*args))
    want_leaves = jax.tree_util.tree_leaves(exported.call(*args))
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves):
        w = np.asarray(w)
        assert np.shape(g) == w.shape, [np.shape(a) for a in args]
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


def _check(exported, *args, rtol=1e-5, atol=1e-5):
    program = xffi.Program.from_exported(exported)
    _compare(program, exported, args, rtol=rtol, atol=atol)
    return program


CASES = {
    # name: (function, specs as (shape string, dtype), concrete shapes)
    "elementwise": (lambda x: jnp.sin(x) * 2.0 + 1.0,
                    [("b, 4", F32)], [[(2, 4)], [(5, 4)]]),
    "matmul_batch": (lambda x, w: jnp.tanh(x @ w),
                     [("b, 8", F32), ("8, 3", F32)],
                     [[(3, 8), (8, 3)], [(7, 8), (8, 3)]]),
    "batched_dot": (lambda x, y: jnp.einsum("bij,bjk->bik", x, y),
                    [("b, 2, 3", F32), ("b, 3, 4", F32)],
                    [[(1, 2, 3), (1, 3, 4)], [(4, 2, 3), (4, 3, 4)]]),
    "reductions": (lambda x: (x.sum(axis=1), x.max(axis=0), x.mean(),
                              jnp.argmax(x, axis=0)),
                   [("b, n", F32)], [[(3, 5)], [(6, 2)]]),
    "broadcast_iota": (
        lambda x: x + jnp.arange(x.shape[0], dtype=F32)[:, None],
        [("b, 3", F32)], [[(2, 3)], [(6, 3)]]),
    "reshape": (lambda x: (x.reshape(-1, 2), x.reshape(x.shape[0] * 4)),
                [("b, 4", F32)], [[(1, 4)], [(3, 4)]]),
    "concat_slice_pad": (
        lambda x: (jnp.concatenate([x, x[1:], 2 * x], axis=0),
                   jnp.pad(x, ((1, 2), (0, 1))), x[::2]),
        [("b, 3", F32)], [[(2, 3)], [(5, 3)]]),
    "dynamic_slice_update": (
        lambda x: (lax.dynamic_slice(x, (x.shape[0] - 1, 0), (1, 3)),
                   lax.dynamic_update_slice(x, jnp.ones((1, 3), F32),
                                            (x.shape[0] // 2, 0))),
        [("b, 3", F32)], [[(3, 3)], [(6, 3)]]),
    "take_and_scatter_add": (
        lambda x, i: (jnp.take(x, i, axis=0), x.at[i].add(1.0)),
        [("b, 4", F32), ("k", np.int32)],
        [[(5, 4), (3,)], [(8, 4), (2,)]]),
    "sort": (lambda x: jnp.sort(x, axis=0), [("b, 3", F32)],
             [[(4, 3)], [(7, 3)]]),
    "conv": (lambda x, k: lax.conv_general_dilated(
        x, k, (1, 1), "SAME", dimension_numbers=("NCHW", "OIHW", "NCHW")),
        [("b, 2, 6, 6", F32), ("3, 2, 3, 3", F32)],
        [[(1, 2, 6, 6), (3, 2, 3, 3)], [(3, 2, 6, 6), (3, 2, 3, 3)]]),
    "fori_loop_over_b": (
        lambda x: lax.fori_loop(0, x.shape[0], lambda i, c: c + x[i] * i,
                                jnp.zeros(x.shape[1:], F32)),
        [("b, 3", F32)], [[(2, 3)], [(6, 3)]]),
    "cumsum_where": (lambda x: jnp.where(x > 0, jnp.cumsum(x, axis=0), -x),
                     [("b", F32)], [[(3,)], [(9,)]]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_runs_as_exported_call_at_several_shapes(name):
    fn, specs, shapes = CASES[name]
    exported = export.export(jax.jit(fn))(*_specs(specs))
    program = xffi.Program.from_exported(exported)
    for k, concrete in enumerate(shapes):
        args = [_data(shape, d, seed=k + i)
                for i, (shape, (_, d)) in enumerate(zip(concrete, specs))]
        if name == "take_and_scatter_add":
            args[1] = (np.arange(len(args[1]), dtype=np.int32) * 2) % \
                concrete[0][0]
        _compare(program, exported, args)
    assert program.specializations == len(shapes)


def test_symbolic_expressions_in_shapes():
    def f(x):
        y = jnp.concatenate([x, x], axis=0)            # 2*b
        z = jnp.pad(x, ((0, 1), (0, 0)))               # b + 1
        w = x[: x.shape[0] // 2]                       # b // 2
        return y.sum(axis=1), z, w, jnp.ones((x.shape[0] * 3,), F32)

    exported = export.export(jax.jit(f))(_spec("b, 2"))
    for b in (1, 4, 7):
        _check(exported, _data((b, 2), seed=b))


def test_same_signature_compiles_once_and_threads_share_it():
    exported = export.export(jax.jit(lambda x: x * 3.0))(_spec("b"))
    program = xffi.Program.from_exported(exported)
    errors = []

    def run(n):
        try:
            for _ in range(5):
                x = np.arange(n, dtype=F32)
                np.testing.assert_allclose(program(x), x * 3.0)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(n,)) for n in (3, 3, 4, 4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert program.specializations == 2


def _jax_error(exported, *args):
    with pytest.raises(Exception) as info:
        exported.call(*args)
    return str(info.value)


def test_constraint_violation_raises_jaxs_message():
    exported = export.export(jax.jit(lambda x: x + 1.0))(
        _spec("b", constraints=["b >= 3"]))
    program = xffi.Program.from_exported(exported)
    np.testing.assert_allclose(program(np.ones(3, F32)), np.full(3, 2.0))
    bad = np.ones(2, F32)
    jax_message = _jax_error(exported, bad)
    with pytest.raises(ValueError) as info:
        program(bad)
    message = str(info.value)
    assert "Input shapes do not match the symbolic shape constraint b >= 3" \
        in message
    assert "'b' = 2" in message
    # The message JAX raises for the same call is the one xffi raises,
    # after the position of the assertion in the module.
    assert jax_message in message


def test_divisibility_assertion_from_reshape():
    # args[0].shape = (2*b,): b is the size divided by 2, which JAX asserts
    # has no remainder.
    exported = export.export(jax.jit(lambda x: x.reshape(-1, 2)))(
        _spec("2*b"))
    _check(exported, np.arange(6, dtype=F32))
    program = xffi.Program.from_exported(exported)
    bad = np.arange(5, dtype=F32)
    jax_message = _jax_error(exported, bad)
    with pytest.raises(ValueError) as info:
        program(bad)
    assert "Division had remainder 1 when computing the value of 'b'" in \
        str(info.value)
    assert jax_message in str(info.value)


def test_rank_mismatch_is_refused_before_refinement():
    exported = export.export(jax.jit(jnp.sin))(_spec("b, 4"))
    program = xffi.Program.from_exported(exported)
    with pytest.raises(ValueError, match=r"argument 0 has shape \(3,\), the "
                       r"export expects float32\[b,4\]"):
        program(np.zeros(3, F32))
    with pytest.raises(ValueError, match=r"argument 0 has shape \(3, 5\)"):
        program(np.zeros((3, 5), F32))


def test_two_platforms_with_a_symbolic_dimension():
    exported = export.export(jax.jit(lambda x: jnp.cos(x).sum(axis=0)),
                             platforms=("cpu", "cuda"))(_spec("b, 3"))
    for b in (2, 5):
        _check(exported, _data((b, 3), seed=b))


def test_custom_call_with_a_symbolic_result_shape(rms_norm_library):
    import xffi.jax
    rms_norm = xffi.jax.register_library(rms_norm_library)["rms_norm"]

    def f(x):
        return rms_norm(x, eps=1e-5) * 2.0

    exported = export.export(jax.jit(f), disabled_checks=[
        export.DisabledSafetyCheck.custom_call("rms_norm")])(_spec("b, 16"))
    for b in (1, 3):
        _check(exported, _data((b, 16), seed=b), rtol=1e-5)


def test_serialized_polymorphic_artifact_round_trips():
    pytest.importorskip("flatbuffers")
    exported = export.export(jax.jit(lambda x, y: (x * y).sum(axis=-1)))(
        *_specs([("b, n", F32), ("b, n", F32)]))
    program = xffi.Program.from_exported(exported.serialize())
    x, y = _data((3, 4), seed=1), _data((3, 4), seed=2)
    np.testing.assert_allclose(program(x, y), (x * y).sum(axis=-1),
                               rtol=1e-5)


def test_from_text_specialises_at_call_time_or_to_given_shapes():
    exported = export.export(jax.jit(lambda x: x * 2.0 + 1.0))(_spec("b, 2"))
    text = exported.mlir_module()
    program = xffi.Program.from_text(text)
    assert isinstance(program, xffi.PolymorphicProgram)
    assert [s.dimensions() for s in program.parameter_shapes] == [(-1, 2)]
    x = _data((3, 2))
    np.testing.assert_allclose(program(x), x * 2.0 + 1.0, rtol=1e-6)
    fixed = xffi.Program.from_text(
        text, argument_shapes=[jax.ShapeDtypeStruct((4, 2), F32)])
    assert not isinstance(fixed, xffi.PolymorphicProgram)
    assert fixed.parameter_shapes[0].dimensions() == (4, 2)
    with pytest.raises(ValueError, match=r"argument 0 \(%arg0\) of @main is "
                       r"tensor<\?x2xf32>, refined to tensor<4x3xf32>"):
        xffi.Program.from_text(
            text, argument_shapes=[jax.ShapeDtypeStruct((4, 3), F32)])


def test_top_k_on_a_symbolic_dimension():
    # k constant: a chlo.top_k composite over the symbolic batch; k a
    # dimension expression: JAX's @stablehlo.dynamic_top_k custom call.
    fixed_k = export.export(jax.jit(lambda x: lax.top_k(x, 3)))(
        _spec("b, 8"))
    for b in (1, 4):
        _check(fixed_k, _data((b, 8), seed=b))
    symbolic_k = export.export(
        jax.jit(lambda x: lax.top_k(x, x.shape[-1] // 2)))(
        _spec("4, n", constraints=["n >= 2"]))
    assert "stablehlo.dynamic_top_k" in symbolic_k.mlir_module()
    program = xffi.Program.from_exported(symbolic_k)
    for n in (2, 5, 9):
        x = _data((4, n), seed=n)
        _compare(program, symbolic_k, [x])
    assert program.specializations == 3


def test_rng_bit_generator_with_a_symbolic_shape():
    def f(key, x):
        state, bits = lax.rng_bit_generator(key, x.shape, dtype=jnp.uint32)
        return state, bits, jax.random.uniform(jax.random.key(1),
                                               x.shape) + x

    exported = export.export(jax.jit(f))(
        jax.ShapeDtypeStruct((4,), np.uint32), _spec("b, 3"))
    assert "stablehlo.dynamic_rng_bit_generator" in exported.mlir_module()
    program = xffi.Program.from_exported(exported)
    key = np.array([1, 2, 3, 4], np.uint32)
    for b in (1, 3, 6):
        got = program(key, _data((b, 3), seed=b))
        want = exported.call(key, _data((b, 3), seed=b))
        np.testing.assert_array_equal(got[0], np.asarray(want[0]))
        np.testing.assert_array_equal(got[1], np.asarray(want[1]))
        np.testing.assert_allclose(got[2], np.asarray(want[2]), rtol=1e-6)
        assert got[1].shape == (b, 3)


def _generic_form(text):
    # The same module in MLIR's generic op form, as a tool that prints with
    # print_generic_op_form writes it.
    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir
    with mlir.make_ir_context() as context:
        module = ir.Module.parse(text, context=context)
        return module.operation.get_asm(print_generic_op_form=True)


def test_generic_form_while_with_symbolic_loop_variables():
    def f(x):
        return lax.fori_loop(0, x.shape[0],
                             lambda i, c: c * 0.5 + x[i] * i, x[0] * 0.0)

    exported = export.export(jax.jit(f))(_spec("b, 3"))
    text = _generic_form(exported.mlir_module())
    assert '"stablehlo.while"' in text
    program = xffi.Program.from_text(text)
    assert isinstance(program, xffi.PolymorphicProgram)
    for b in (1, 4, 7):
        _compare(program, exported, [_data((b, 3), seed=b)])


BOUNDED_HLO = """HloModule bounded
ENTRY e {
  p = f32[<=4,2] parameter(0)
  c = f32[] constant(0)
  ROOT r = f32[<=4] reduce(p, c), dimensions={1}, to_apply=add
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
"""


def test_bounded_hlo_dimensions_run_at_their_bound():
    # XLA's f32[<=4,2]: an array at the bound computes what the static
    # program does; a smaller one (a size below the bound) is refused.
    program = xffi.Program.from_text(BOUNDED_HLO)
    assert program.parameter_shapes[0].dimensions() == (4, 2)
    x = _data((4, 2), seed=3)
    np.testing.assert_allclose(program(x), x.sum(axis=1), rtol=1e-6)
    with pytest.raises(ValueError, match=r"argument 0 has shape f32\[3,2\], "
                       r"the parameter is f32\[4,2\]"):
        program(np.ones((3, 2), F32))
    with pytest.raises(ValueError, match=r"<input>:5:21: 'set-dimension-size' "
                       r"is not supported"):
        xffi.Program.from_text(BOUNDED_HLO.replace(
            "reduce(p, c), dimensions={1}, to_apply=add",
            "set-dimension-size(p, n), dimensions={0}"))


# Bounded dimensions in StableHLO, as XLA's HLO-to-StableHLO converter writes
# f32[<=8,4] (JAX's own lowering writes none). XLA:CPU runs bounded values
# between static arguments and results; a bounded argument it refuses
# (UNIMPLEMENTED: PadToStatic), so the comparison uses the first form.
BOUNDED_INSIDE = """module @m {
  func.func public @main(%arg0: tensor<8x4xf32>) -> tensor<8xf32> {
    %b = stablehlo.add %arg0, %arg0 : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<?x4xf32, #stablehlo.bounds<8, ?>>
    %c = stablehlo.constant dense<0.0> : tensor<f32>
    %0 = stablehlo.reduce(%b init: %c) applies stablehlo.add across dimensions = [1] : (tensor<?x4xf32, #stablehlo.bounds<8, ?>>, tensor<f32>) -> tensor<?xf32, #mhlo.type_extensions<bounds = [8]>>
    %1 = stablehlo.convert %0 : (tensor<?xf32, #mhlo.type_extensions<bounds = [8]>>) -> tensor<8xf32>
    return %1 : tensor<8xf32>
  }
}
"""


def _xla_run(text, *args):
    from jax._src import compiler
    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir
    import jax.extend
    with mlir.make_ir_context():
        code = mlir.module_to_bytecode(ir.Module.parse(text))
    backend = jax.extend.backend.get_backend("cpu")
    exe = backend.compile_and_load(code, jax.devices("cpu")[:1],
                                   compiler.get_compile_options(1, 1))
    return [np.asarray(r) for r in exe.execute([jax.device_put(a)
                                                for a in args])]


def test_bounded_stablehlo_matches_xla():
    x = _data((8, 4), seed=5)
    want = _xla_run(BOUNDED_INSIDE, x)[0]
    program = xffi.Program.from_text(BOUNDED_INSIDE)
    np.testing.assert_array_equal(program(x), want)


def test_bounded_stablehlo_argument_reads_as_the_hlo_reader_reads_it():
    # The same bounded argument as StableHLO and as the HLO XLA makes of it
    # (f32[<=8,4]): both are read at the bound.
    from jax._src.interpreters import mlir
    from jax._src.lib import _jax
    from jax._src.lib.mlir import ir
    text = BOUNDED_INSIDE.replace(
        "%arg0: tensor<8x4xf32>",
        "%arg0: tensor<?x4xf32, #stablehlo.bounds<8, ?>>").replace(
        "(tensor<8x4xf32>, tensor<8x4xf32>)",
        "(tensor<?x4xf32, #stablehlo.bounds<8, ?>>, "
        "tensor<?x4xf32, #stablehlo.bounds<8, ?>>)")
    with mlir.make_ir_context():
        code = mlir.module_to_bytecode(ir.Module.parse(text))
    hlo = _jax.mlir.mlir_module_to_xla_computation(
        code, use_tuple_args=False, return_tuple=False).as_hlo_text()
    assert "f32[<=8,4]" in hlo
    x = _data((8, 4), seed=6)
    from_stablehlo = xffi.Program.from_text(text)
    from_hlo = xffi.Program.from_text(hlo)
    assert from_stablehlo.parameter_shapes[0].dimensions() == (8, 4)
    assert from_hlo.parameter_shapes[0].dimensions() == (8, 4)
    np.testing.assert_array_equal(from_stablehlo(x), from_hlo(x))
    np.testing.assert_allclose(from_stablehlo(x), 2 * x.sum(axis=1),
                               rtol=1e-6)
    with pytest.raises(ValueError,
                       match=r"<input>:3:10: 'stablehlo.set_dimension_size' "
                       r"is not supported"):
        xffi.Program.from_text(BOUNDED_INSIDE.replace(
            "stablehlo.add %arg0, %arg0 :",
            "stablehlo.set_dimension_size %arg0, %n, dim = 0 :").replace(
            "%arg0: tensor<8x4xf32>)", "%arg0: tensor<8x4xf32>, "
            "%n: tensor<i32>)"))
