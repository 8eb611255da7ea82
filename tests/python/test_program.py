"""xffi.Program (StableHLO and HLO text compiled by xffi's compiler) and
xffi.Builder (the C++ builder with Python names), including the blog's
ComputationBuilder flow, run on NumPy arrays and Python values."""

import ctypes

import numpy as np
import pytest

xffi = pytest.importorskip("xffi")
F32 = np.float32


def f32(*dims):
    return xffi.Shape.array_shape(F32, dims)


class DlpackProducer:
    """A DLPack producer that is not a NumPy array (as a torch or cupy
    array would be), over a NumPy array's memory."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


@pytest.fixture(scope="module")
def subtract_f32():
    # The blog's test_subtract_f32, as a ctypes function: a legacy CPU
    # target (out, ins) registered from a 'xla._CUSTOM_CALL_TARGET' capsule.
    @ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))
    def fn(out, ins):
        a = ctypes.cast(ins[0], ctypes.POINTER(ctypes.c_float))[0]
        b = ctypes.cast(ins[1], ctypes.POINTER(ctypes.c_float))[0]
        ctypes.cast(out, ctypes.POINTER(ctypes.c_float))[0] = a - b

    capsule = ctypes.pythonapi.PyCapsule_New
    capsule.restype = ctypes.py_object
    capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    xffi.register_custom_call_target(
        b"test_subtract_f32",
        capsule(ctypes.cast(fn, ctypes.c_void_p), b"xla._CUSTOM_CALL_TARGET",
                None))
    yield fn


def test_the_blogs_computation_builder_flow(subtract_f32):
    c = xffi.ComputationBuilder("comp_builder")
    c.CustomCall(b"test_subtract_f32",
                 operands=(c.ConstantF32Scalar(1.25), c.ConstantF32Scalar(0.5)),
                 shape_with_layout=xffi.Shape.array_shape(np.dtype(F32), (), ()),
                 operand_shapes_with_layout=(
                     xffi.Shape.array_shape(np.dtype(F32), (), ()),
                     xffi.Shape.array_shape(np.dtype(F32), (), ())))
    compiled = c.Build().Compile()
    result = xffi.execute_with_python_values(compiled, ())
    assert result.dtype == F32 and result.shape == ()
    assert result == 0.75


def test_builder_parameters_constants_tuples_and_a_typed_call(test_plugin):
    b = xffi.Builder("scale_and_keep")
    x = b.parameter(0, f32(3), "x")
    k = b.constant(np.array([1, 2, 3], F32))
    # Python float and int narrowed to the handler's Attr<float> and
    # Attr<int32_t>, as eager calls narrow them.
    y = b.custom_call("python_test.scale", [x], x.shape, api_version=4,
                      attributes={"factor": 2.0, "offset": 1})
    z = b.custom_call("python_test.scale", [k], k.shape, api_version=4,
                      attributes={"factor": -1.0, "offset": 0})
    t = b.tuple([y, z, x])
    module = b.build(b.tuple([b.get_tuple_element(t, 0),
                              b.get_tuple_element(t, 1)]))
    assert "factor = 2.0 : f32" in module.hlo_text()
    program = xffi.Program(module)
    assert program.format == "builder"
    assert [str(s) for s in program.parameter_shapes] == ["f32[3]"]
    assert str(program.result_shape) == "(f32[3], f32[3])"
    got = program(np.array([0, 1, 2], F32))
    assert isinstance(got, tuple) and len(got) == 2
    np.testing.assert_array_equal(got[0], [1, 3, 5])
    np.testing.assert_array_equal(got[1], [-1, -2, -3])


def test_shapes():
    s = xffi.Shape.array_shape(np.float32, (2, 3), (0, 1))
    assert s.dimensions() == (2, 3) and s.minor_to_major() == (0, 1)
    assert s.numpy_dtype() == np.float32 and s.element_type == "f32"
    assert str(s) == "f32[2,3]{0,1}" and s.is_array() and not s.is_tuple()
    t = xffi.Shape.tuple_shape([xffi.Shape.scalar_shape(np.int32),
                                xffi.Shape.token_shape()])
    assert str(t) == "(s32[], token[])" and t.is_tuple()
    assert t.tuple_shapes()[0] == xffi.Shape.array_shape("int32", ())
    with pytest.raises(TypeError, match="dtype <U1 has no XLA element type"):
        xffi.Shape.array_shape(np.dtype("U1"), (1,))


STABLEHLO = """
module @m {
  func.func public @main(%arg0: tensor<3xf32>,
                         %arg1: tuple<tensor<i32>, tensor<2xf32>>)
      -> (tensor<3xf32>, tensor<2xf32>) {
    %c = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
    %0 = stablehlo.custom_call @python_test.scale(%c) {
        mhlo.backend_config = {factor = 2.0 : f32, offset = 1 : i32},
        api_version = 4 : i32} : (tensor<3xf32>) -> tensor<3xf32>
    %1 = stablehlo.custom_call @python_test.scale(%arg0) {
        mhlo.backend_config = {factor = 1.0 : f32, offset = 0 : i32},
        api_version = 4 : i32} : (tensor<3xf32>) -> tensor<3xf32>
    %2 = stablehlo.get_tuple_element %arg1[1]
        : (tuple<tensor<i32>, tensor<2xf32>>) -> tensor<2xf32>
    return %0, %2 : tensor<3xf32>, tensor<2xf32>
  }
}
"""

HLO = """
HloModule m, entry_computation_layout={(f32[3])->(f32[3], s32[])}

ENTRY main {
  x = f32[3] parameter(0)
  y = f32[3] custom-call(x), custom_call_target="python_test.scale",
      api_version=API_VERSION_TYPED_FFI,
      backend_config={factor = 3.0 : f32, offset = -1 : i32}
  k = s32[] constant(42)
  ROOT t = (f32[3], s32[]) tuple(y, k)
}
"""


def test_stablehlo_text_with_tuple_parameters(test_plugin):
    program = xffi.Program.from_text(STABLEHLO)
    assert program.format == "stablehlo"
    scaled, picked = program(np.zeros(3, F32),
                             (np.int32(7), np.array([5, 6], F32)))
    np.testing.assert_array_equal(scaled, [3, 5, 7])
    np.testing.assert_array_equal(picked, [5, 6])
    # The unused custom call on %arg0 was removed as dead code.
    assert program.hlo_text().count("custom-call(") == 1


def test_hlo_text(test_plugin):
    program = xffi.Program.from_text(HLO)
    assert program.format == "hlo"
    y, k = program(np.array([1, 2, 3], F32))
    np.testing.assert_array_equal(y, [2, 5, 8])
    assert k.dtype == np.int32 and k == 42


def test_python_values_are_converted_to_the_parameter_dtype(test_plugin):
    program = xffi.Program.from_text(HLO)
    y, _ = program([1, 2, 3])  # a list becomes f32[3]
    np.testing.assert_array_equal(y, [2, 5, 8])
    strided = np.arange(6, dtype=F32)[::2]  # not contiguous: copied once
    np.testing.assert_array_equal(program(strided)[0], [-1, 5, 11])


def test_program_errors_name_the_parameter_and_position(test_plugin):
    program = xffi.Program.from_text(HLO)
    with pytest.raises(TypeError, match=r"argument 0 has dtype f64, the "
                                        r"parameter is f32\[3\]"):
        program(np.ones(3))
    with pytest.raises(ValueError, match=r"argument 0 has shape f32\[2\], "
                                         r"the parameter is f32\[3\]"):
        program(np.ones(2, F32))
    with pytest.raises(TypeError, match=r"the program takes 1 argument "
                                        r"\(f32\[3\]\), got 2"):
        program(np.ones(3, F32), np.ones(3, F32))
    tupled = xffi.Program.from_text(STABLEHLO)
    with pytest.raises(TypeError, match=r"argument 1 must be a tuple"):
        tupled(np.zeros(3, F32), np.zeros(2, F32))
    with pytest.raises(TypeError, match=r"argument 1\[1\] has dtype s32"):
        tupled(np.zeros(3, F32), (np.int32(1), np.zeros(2, np.int32)))


def test_text_errors_carry_line_and_column():
    with pytest.raises(ValueError, match=r"prog.mlir:2:10: use of undefined "
                                         r"value %y"):
        xffi.Program.from_text(
            "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
            "  return %y : tensor<2xf32>\n}", source_name="prog.mlir")


def test_unregistered_target_is_named_at_compile_time():
    with pytest.raises(LookupError, match=r"custom call 'nowhere' at "
                                          r"<input>:4:\d+"):
        xffi.Program.from_text(
            'HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n'
            '  ROOT c = f32[2] custom-call(p), custom_call_target="nowhere"\n}')


def test_builder_errors_name_the_op_where_it_is_built(test_plugin):
    b = xffi.Builder("e")
    x = b.parameter(0, f32(2))
    with pytest.raises(ValueError, match=r"\(get-tuple-element\) in "
                                         r"computation 'e': operand must be "
                                         r"a tuple, got f32\[2\]"):
        b.get_tuple_element(x, 0)
    b = xffi.Builder("e")
    x = b.parameter(0, f32(2))
    with pytest.raises(TypeError, match=r"custom_call\('python_test.scale'\): "
                                        r"attribute 'offset' expects int32_t, "
                                        r"got float"):
        b.custom_call("python_test.scale", [x], x.shape, api_version=4,
                      attributes={"factor": 2.0, "offset": 0.5})
    with pytest.raises(ValueError, match="'sqrt' is not an elementwise "
                                         "binary op"):
        xffi.Builder("e2").binary("sqrt", x, x)
    with pytest.raises(ValueError, match="attributes are for typed FFI "
                                         "calls"):
        xffi.Builder("e3").custom_call("t", [], f32(1), attributes={"a": 1})


def test_arguments_cross_without_copies(test_plugin):
    # The handler reports where its argument's bytes are.
    xffi.register_ffi_target("python_test.address", test_plugin.Address)
    b = xffi.Builder("where")
    x = b.parameter(0, f32(4))
    program = xffi.Program(b.build(b.custom_call(
        "python_test.address", [x], xffi.Shape.scalar_shape(np.uint64),
        api_version=4)))
    array = np.arange(4, dtype=F32)
    assert int(program(array)) == array.ctypes.data
    assert int(program(DlpackProducer(array))) == array.ctypes.data
    eager = xffi.ffi_call("python_test.address")
    assert int(eager(array)) == array.ctypes.data
    assert int(eager(DlpackProducer(array))) == array.ctypes.data


def test_donated_aliased_output_is_the_callers_memory(test_plugin):
    scale = xffi.ffi_call("python_test.scale",
                          xffi.ShapeDtypeStruct((4,), F32),
                          input_output_aliases={0: 0},
                          donate_aliased_inputs=True)
    x = np.arange(4, dtype=F32)
    y = scale(x, factor=2.0, offset=0)
    assert y.ctypes.data == x.ctypes.data  # the handler wrote in place
    np.testing.assert_array_equal(x, [0, 2, 4, 6])
    backing = np.arange(4, dtype=F32)
    z = scale(DlpackProducer(backing), factor=1.0, offset=1)
    assert z.ctypes.data == backing.ctypes.data
    np.testing.assert_array_equal(backing, [1, 2, 3, 4])
    with pytest.raises(ValueError, match="argument 0 is not a C-contiguous "
                                         "array, so it cannot be donated"):
        scale(np.arange(8, dtype=F32)[::2], factor=1.0, offset=0)
    readonly = np.arange(4, dtype=F32)
    readonly.flags.writeable = False
    with pytest.raises(ValueError, match="argument 0 is read-only"):
        scale(readonly, factor=1.0, offset=0)


def test_builder_ops_with_a_reduce_region(test_plugin):
    b = xffi.Builder("sum_of_scaled_squares")
    x = b.parameter(0, f32(2, 3), "x")
    scaled = b.custom_call("python_test.scale", [x], x.shape, api_version=4,
                           attributes={"factor": 2.0, "offset": 0})
    squares = b.binary("multiply", scaled, x)
    add = b.create_sub_builder("add")
    lhs = add.parameter(0, xffi.Shape.scalar_shape(F32))
    rhs = add.parameter(1, xffi.Shape.scalar_shape(F32))
    region = add.build_subcomputation(add.binary("add", lhs, rhs))
    total = b.reduce([squares], [b.constant(F32(0))], region, [1])
    program = xffi.Program(b.build(b.tuple([total, b.unary("sqrt", total)])))
    v = np.arange(6, dtype=F32).reshape(2, 3)
    total, root = program(v)
    np.testing.assert_allclose(total, (2 * v * v).sum(axis=1), rtol=1e-6)
    np.testing.assert_allclose(root, np.sqrt((2 * v * v).sum(axis=1)),
                               rtol=1e-6)


def test_stablehlo_ops_around_a_custom_call(test_plugin):
    program = xffi.Program.from_text("""
func.func public @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %x, %y : tensor<4xf32>
  %1 = stablehlo.custom_call @python_test.scale(%0) {
      mhlo.backend_config = {factor = 0.5 : f32, offset = 0 : i32},
      api_version = 4 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = stablehlo.multiply %1, %y : tensor<4xf32>
  return %2 : tensor<4xf32>
}""")
    x = np.array([1, 2, 3, 4], F32)
    y = np.array([3, 2, 1, 0], F32)
    np.testing.assert_array_equal(program(x, y), (x + y) * 0.5 * y)


THREADS_PROGRAM = """
func.func public @main(%x: tensor<512x300xi32>, %m: tensor<300x64xi32>)
    -> (tensor<512xi32>, tensor<300xi32>, tensor<512x64xi32>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %rows = stablehlo.reduce(%x init: %zero) applies stablehlo.add across
      dimensions = [1] : (tensor<512x300xi32>, tensor<i32>) -> tensor<512xi32>
  %cols = stablehlo.reduce(%x init: %zero) applies stablehlo.add across
      dimensions = [0] : (tensor<512x300xi32>, tensor<i32>) -> tensor<300xi32>
  %dot = stablehlo.dot_general %x, %m, contracting_dims = [1] x [0]
      : (tensor<512x300xi32>, tensor<300x64xi32>) -> tensor<512x64xi32>
  return %rows, %cols, %dot : tensor<512xi32>, tensor<300xi32>, tensor<512x64xi32>
}"""


def test_intra_op_threads_sets_the_pool_and_not_the_results():
    import os

    rng = np.random.default_rng(11)
    x = rng.integers(-1000, 1000, (512, 300), dtype=np.int32)
    m = rng.integers(-50, 50, (300, 64), dtype=np.int32)
    want = (x.sum(axis=1, dtype=np.int32), x.sum(axis=0, dtype=np.int32),
            (x.astype(np.int64) @ m).astype(np.int32))
    default = xffi.Program.from_text(THREADS_PROGRAM)
    assert default.intra_op_threads == os.cpu_count()
    for threads in (1, 3, 8):
        program = xffi.Program.from_text(THREADS_PROGRAM,
                                         intra_op_threads=threads)
        assert program.intra_op_threads == threads
        got = program(x, m)
        for result, expected in zip(got, want):
            np.testing.assert_array_equal(result, expected)


def test_builder_cholesky_and_triangular_solves_match_scipy():
    scipy_linalg = pytest.importorskip("scipy.linalg")
    rng = np.random.default_rng(5)
    m = rng.standard_normal((2, 4, 4))
    a = (m @ np.swapaxes(m, -1, -2) + 4 * np.eye(4)).astype(F32)
    rhs = rng.standard_normal((2, 4, 3)).astype(F32)
    right = rng.standard_normal((2, 3, 4)).astype(F32)
    b = xffi.Builder("solve")
    pa = b.parameter(0, f32(2, 4, 4), "a")
    pb = b.parameter(1, f32(2, 4, 3), "b")
    pr = b.parameter(2, f32(2, 3, 4), "r")
    factor = b.cholesky(pa, lower=True)
    left = b.triangular_solve(factor, pb, left_side=True, lower=True)
    left_t = b.triangular_solve(factor, pb, left_side=True, lower=True,
                                transpose_a="TRANSPOSE")
    on_right = b.triangular_solve(factor, pr, left_side=False, lower=True)
    program = xffi.Program(b.build(b.tuple([factor, left, left_t, on_right])))
    got_factor, got_left, got_left_t, got_right = program(a, rhs, right)
    want_factor = np.linalg.cholesky(a.astype(np.float64))
    np.testing.assert_allclose(np.tril(got_factor), want_factor, rtol=1e-4,
                               atol=1e-5)
    for i in range(2):
        low = np.tril(got_factor[i]).astype(np.float64)
        np.testing.assert_allclose(
            got_left[i], scipy_linalg.solve_triangular(low, rhs[i], lower=True),
            rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(
            got_left_t[i],
            scipy_linalg.solve_triangular(low, rhs[i], lower=True, trans="T"),
            rtol=1e-4, atol=1e-5)
        # x L = r  <=>  L^T x^T = r^T
        np.testing.assert_allclose(
            got_right[i],
            scipy_linalg.solve_triangular(low, right[i].T, lower=True,
                                          trans="T").T,
            rtol=1e-4, atol=1e-5)


def test_builder_map_runs_a_region_at_every_index():
    b = xffi.Builder("mapped")
    x = b.parameter(0, f32(3, 5), "x")
    y = b.parameter(1, f32(3, 5), "y")
    body = b.create_sub_builder("body")
    bx = body.parameter(0, xffi.Shape.scalar_shape(F32))
    by = body.parameter(1, xffi.Shape.scalar_shape(F32))
    region = body.build_subcomputation(
        body.binary("add", body.binary("multiply", bx, by),
                    body.unary("sine", bx)))
    program = xffi.Program(b.build(b.map([x, y], region)))
    vx = np.linspace(-2, 2, 15, dtype=F32).reshape(3, 5)
    vy = np.arange(15, dtype=F32).reshape(3, 5)
    np.testing.assert_allclose(program(vx, vy), vx * vy + np.sin(vx),
                               rtol=1e-5, atol=1e-6)


def test_builder_rng_draws_from_its_distribution():
    b = xffi.Builder("draws")
    uniform = b.rng(b.constant(F32(2)), b.constant(F32(5)), [20000])
    normal = b.rng(b.constant(F32(1)), b.constant(F32(3)), [20000], "NORMAL")
    u, n = xffi.Program(b.build(b.tuple([uniform, normal])))()
    assert u.shape == (20000,) and u.dtype == F32
    assert u.min() >= 2 and u.max() < 5
    assert abs(u.mean() - 3.5) < 0.1
    assert abs(n.mean() - 1) < 0.15 and abs(n.std() - 3) < 0.15
    bad = xffi.Builder("bad_draws")
    with pytest.raises(ValueError, match="rng: distribution 'GAMMA'"):
        bad.rng(bad.constant(F32(0)), bad.constant(F32(1)), [2], "GAMMA")


@pytest.mark.parametrize("algorithm", ["THREE_FRY", "PHILOX"])
def test_builder_rng_bit_generator_matches_jax(algorithm):
    jax = pytest.importorskip("jax")
    key32 = np.array([7, 11, 13, 17], np.uint32)
    b = xffi.Builder("bits")
    state = b.parameter(0, xffi.Shape.array_shape(np.uint64, (2,)), "state")
    bits = b.rng_bit_generator(state, xffi.Shape.array_shape(np.uint32, (4, 6)),
                               algorithm)
    new_state, got = xffi.Program(b.build(bits))(key32.view(np.uint64))
    jax_algorithm = {"THREE_FRY": jax.lax.RandomAlgorithm.RNG_THREE_FRY,
                     "PHILOX": jax.lax.RandomAlgorithm.RNG_PHILOX}[algorithm]
    want_key, want = jax.lax.rng_bit_generator(
        key32, (4, 6), dtype=np.uint32, algorithm=jax_algorithm)
    np.testing.assert_array_equal(got, np.asarray(want))
    np.testing.assert_array_equal(new_state.view(np.uint32),
                                  np.asarray(want_key))


def test_builder_fft_top_k_sort_and_reduce_precision():
    rng = np.random.default_rng(9)
    v = rng.standard_normal((3, 8)).astype(F32)
    b = xffi.Builder("signal")
    x = b.parameter(0, f32(3, 8), "x")
    spectrum = b.fft(x, "RFFT", [8])
    top = b.top_k(x, 3)
    smallest = b.top_k(x, 2, largest=False)
    less = b.create_sub_builder("less")
    ordered = b.sort([x], less.build_subcomputation(less.compare(
        less.parameter(0, xffi.Shape.scalar_shape(F32)),
        less.parameter(1, xffi.Shape.scalar_shape(F32)), "LT")), 1)
    half = b.reduce_precision(x, 5, 10)
    program = xffi.Program(b.build(b.tuple([
        spectrum, b.get_tuple_element(top, 0), b.get_tuple_element(top, 1),
        b.get_tuple_element(smallest, 0), ordered, half])))
    got_fft, top_values, top_indices, low_values, got_sorted, got_half = (
        program(v))
    np.testing.assert_allclose(got_fft, np.fft.rfft(v), rtol=1e-5, atol=1e-5)
    order = np.argsort(-v, axis=1, kind="stable")[:, :3]
    np.testing.assert_array_equal(top_indices, order)
    np.testing.assert_array_equal(top_values,
                                  np.take_along_axis(v, order, axis=1))
    np.testing.assert_array_equal(low_values, np.sort(v, axis=1)[:, :2])
    np.testing.assert_array_equal(got_sorted, np.sort(v, axis=1))
    np.testing.assert_array_equal(got_half, v.astype(np.float16).astype(F32))
    with pytest.raises(ValueError, match="fft: fft_type 'DCT'"):
        b.fft(x, "DCT", [8])


@pytest.mark.parametrize("n", [1, 2, 6, 7, 64, 106, 4095, 4096])
def test_real_ffts_match_numpy(n):
    # Even lengths run as complex transforms of n / 2 (106: of 53, by
    # Bluestein's algorithm), odd ones pair rows; 37 rows leave rows to
    # every narrower vector width; two threads.
    rng = np.random.default_rng(n)
    x = rng.standard_normal((37, n)).astype(F32)
    h = n // 2 + 1
    program = xffi.Program.from_text(f"""
func.func @main(%x: tensor<37x{n}xf32>) -> (tensor<37x{h}xcomplex<f32>>,
                                            tensor<37x{n}xf32>) {{
  %0 = stablehlo.fft %x, type = RFFT, length = [{n}]
      : (tensor<37x{n}xf32>) -> tensor<37x{h}xcomplex<f32>>
  %1 = stablehlo.fft %0, type = IRFFT, length = [{n}]
      : (tensor<37x{h}xcomplex<f32>>) -> tensor<37x{n}xf32>
  return %0, %1 : tensor<37x{h}xcomplex<f32>>, tensor<37x{n}xf32>
}}""", intra_op_threads=2)
    spectrum, back = program(x)
    scale = np.sqrt(n) + 1
    np.testing.assert_allclose(spectrum, np.fft.rfft(x), rtol=0,
                               atol=1e-5 * scale)
    np.testing.assert_allclose(back, x, rtol=0, atol=1e-5)


def test_irfft2_matches_numpy():
    # A multi-axis IRFFT of even length runs its complex axis in the
    # result buffer.
    rng = np.random.default_rng(2)
    spectrum = (rng.standard_normal((3, 12, 9)) +
                1j * rng.standard_normal((3, 12, 9))).astype(np.complex64)
    program = xffi.Program.from_text("""
func.func @main(%x: tensor<3x12x9xcomplex<f32>>) -> tensor<3x12x16xf32> {
  %0 = stablehlo.fft %x, type = IRFFT, length = [12, 16]
      : (tensor<3x12x9xcomplex<f32>>) -> tensor<3x12x16xf32>
  return %0 : tensor<3x12x16xf32>
}""")
    np.testing.assert_allclose(program(spectrum),
                               np.fft.irfft2(spectrum, s=(12, 16)),
                               rtol=0, atol=1e-6)


def test_builder_data_movement_ops_match_numpy():
    v = np.arange(12, dtype=F32).reshape(3, 4)
    b = xffi.Builder("moves")
    x = b.parameter(0, f32(3, 4), "x")
    i = b.parameter(1, xffi.Shape.scalar_shape(np.int32), "i")
    zero = b.constant(np.int32(0))
    padded = b.pad(x, b.constant(F32(-1)), [(1, 0, 0), (0, 2, 1)])
    window = b.dynamic_slice(x, [i, zero], [2, 3])
    updated = b.dynamic_update_slice(x, b.constant(np.full((1, 2), 9, F32)),
                                     [zero, i])
    clamped = b.clamp(b.constant(F32(2)), x, b.constant(F32(7)))
    flipped = b.reverse(x, [1])
    as_bits = b.bitcast_convert(x, np.uint32)
    matmul = b.dot_general(x, x, lhs_contracting=[1], rhs_contracting=[1])
    widened = b.dot_general(x, x, [0], [0], preferred_element_type=np.float64)
    kept = b.optimization_barrier(x)
    program = xffi.Program(b.build(b.tuple([
        padded, window, updated, clamped, flipped, as_bits, matmul, widened,
        kept])))
    got = program(v, np.int32(1))
    want_pad = np.full((4, 9), -1, F32)
    want_pad[1:, 0:7:2] = v
    want_update = v.copy()
    want_update[0, 1:3] = 9
    want = [want_pad, v[1:3, 0:3], want_update, np.clip(v, 2, 7), v[:, ::-1],
            v.view(np.uint32), v @ v.T, v.T.astype(np.float64) @ v, v]
    for result, expected in zip(got, want):
        assert result.dtype == expected.dtype
        np.testing.assert_array_equal(result, expected)


def test_builder_batch_norm_matches_numpy():
    rng = np.random.default_rng(3)
    v = rng.standard_normal((4, 3, 5)).astype(F32)
    scale = np.array([1.0, 2.0, 0.5], F32)
    offset = np.array([0.0, -1.0, 3.0], F32)
    eps = 1e-3
    b = xffi.Builder("norms")
    x = b.parameter(0, f32(4, 3, 5), "x")
    s = b.parameter(1, f32(3), "scale")
    o = b.parameter(2, f32(3), "offset")
    training = b.batch_norm_training(x, s, o, eps, 1)
    mean = b.get_tuple_element(training, 1)
    variance = b.get_tuple_element(training, 2)
    inference = b.batch_norm_inference(x, s, o, mean, variance, eps, 1)
    grads = b.batch_norm_grad(x, s, mean, variance, b.constant(np.ones_like(v)),
                              eps, 1)
    got_norm, got_mean, got_var, got_inf, grad_x, grad_scale, grad_offset = (
        xffi.Program(b.build(b.tuple([
            b.get_tuple_element(training, 0), mean, variance, inference,
            b.get_tuple_element(grads, 0), b.get_tuple_element(grads, 1),
            b.get_tuple_element(grads, 2)])))(v, scale, offset))
    want_mean = v.mean(axis=(0, 2))
    want_var = v.var(axis=(0, 2))
    shape = (1, 3, 1)
    normalized = (v - want_mean.reshape(shape)) / np.sqrt(
        want_var.reshape(shape) + eps)
    want = normalized * scale.reshape(shape) + offset.reshape(shape)
    np.testing.assert_allclose(got_mean, want_mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_var, want_var, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_norm, want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got_inf, want, rtol=1e-4, atol=1e-5)
    # With an all-ones gradient the offset gradient is the count per feature,
    # the scale gradient the sum of the normalized values (about zero), and
    # the operand gradient zero (the mean absorbs a constant shift).
    np.testing.assert_allclose(grad_offset, np.full(3, 20, F32), rtol=1e-6)
    np.testing.assert_allclose(grad_scale, normalized.sum(axis=(0, 2)),
                               atol=1e-4)
    np.testing.assert_allclose(grad_x, np.zeros_like(v), atol=1e-4)


def test_builder_convolution_matches_jax():
    jax = pytest.importorskip("jax")
    rng = np.random.default_rng(1)
    image = rng.standard_normal((2, 9, 8, 4)).astype(F32)  # NHWC
    kernel = rng.standard_normal((3, 3, 2, 6)).astype(F32)  # HWIO, 2 groups
    numbers = ((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
    b = xffi.Builder("conv")
    lhs = b.parameter(0, f32(2, 9, 8, 4), "image")
    rhs = b.parameter(1, f32(3, 3, 2, 6), "kernel")
    out = b.convolution(lhs, rhs, [2, 1], [(1, 1), (0, 2)],
                        rhs_dilation=[1, 2], dimension_numbers=numbers,
                        feature_group_count=2)
    got = xffi.Program(b.build(out))(image, kernel)
    want = jax.lax.conv_general_dilated(
        image, kernel, (2, 1), [(1, 1), (0, 2)], rhs_dilation=(1, 2),
        dimension_numbers=jax.lax.ConvDimensionNumbers(*numbers),
        feature_group_count=2, precision=jax.lax.Precision.HIGHEST)
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="convolution: padding has 1"):
        b.convolution(lhs, rhs, [1, 1], [(0, 0)], dimension_numbers=numbers)


def test_builder_pooling_and_its_gradient_match_numpy():
    v = np.random.default_rng(4).permutation(32).astype(F32).reshape(4, 8)
    source = np.arange(1, 9, dtype=F32).reshape(2, 4)
    b = xffi.Builder("pool")
    x = b.parameter(0, f32(4, 8), "x")
    s = b.parameter(1, f32(2, 4), "source")
    maximum = b.create_sub_builder("max")
    region = maximum.build_subcomputation(maximum.binary(
        "maximum", maximum.parameter(0, xffi.Shape.scalar_shape(F32)),
        maximum.parameter(1, xffi.Shape.scalar_shape(F32))))
    pooled = b.reduce_window([x], [b.constant(F32(-np.inf))], region, [2, 2],
                             [2, 2])
    ge = b.create_sub_builder("ge")
    select = ge.build_subcomputation(ge.compare(
        ge.parameter(0, xffi.Shape.scalar_shape(F32)),
        ge.parameter(1, xffi.Shape.scalar_shape(F32)), "GE"))
    add = b.create_sub_builder("add")
    scatter = add.build_subcomputation(add.binary(
        "add", add.parameter(0, xffi.Shape.scalar_shape(F32)),
        add.parameter(1, xffi.Shape.scalar_shape(F32))))
    routed = b.select_and_scatter(x, select, [2, 2], [2, 2], None, s,
                                  b.constant(F32(0)), scatter)
    got_pooled, got_routed = xffi.Program(b.build(b.tuple([pooled, routed])))(
        v, source)
    blocks = v.reshape(2, 2, 4, 2).transpose(0, 2, 1, 3).reshape(2, 4, 4)
    np.testing.assert_array_equal(got_pooled, blocks.max(axis=2))
    want = np.zeros_like(v)
    for i in range(2):
        for j in range(4):
            r, c = np.unravel_index(np.argmax(v[2 * i:2 * i + 2,
                                                2 * j:2 * j + 2]), (2, 2))
            want[2 * i + r, 2 * j + c] = source[i, j]
    np.testing.assert_array_equal(got_routed, want)


def test_builder_gather_and_scatter_match_numpy():
    v = np.arange(20, dtype=F32).reshape(5, 4)
    rows = np.array([3, 0, 3], np.int32)
    b = xffi.Builder("index")
    x = b.parameter(0, f32(5, 4), "x")
    idx = b.parameter(1, xffi.Shape.array_shape(np.int32, (3, 1)), "rows")
    taken = b.gather(x, idx, offset_dims=[1], collapsed_slice_dims=[0],
                     start_index_map=[0], index_vector_dim=1,
                     slice_sizes=[1, 4])
    add = b.create_sub_builder("add")
    region = add.build_subcomputation(add.binary(
        "add", add.parameter(0, xffi.Shape.scalar_shape(F32)),
        add.parameter(1, xffi.Shape.scalar_shape(F32))))
    added = b.scatter([x], idx, [b.constant(np.ones((3, 4), F32))], region,
                      update_window_dims=[1], inserted_window_dims=[0],
                      scatter_dims_to_operand_dims=[0], index_vector_dim=1)
    got_taken, got_added = xffi.Program(b.build(b.tuple([taken, added])))(
        v, rows.reshape(3, 1))
    np.testing.assert_array_equal(got_taken, v[rows])
    want = v.copy()
    np.add.at(want, rows, 1)
    np.testing.assert_array_equal(got_added, want)


def test_builder_device_ids_and_tokens():
    b = xffi.Builder("ids")
    token = b.after_all([b.after_all([])])
    assert token.shape.is_token()
    for op in (b.partition_id(), b.replica_id()):
        assert op.shape == xffi.Shape.scalar_shape(np.uint32)
    # A device id means something only where each device runs its own copy
    # (a manual computation's body); a plain program says so when compiled.
    module = b.build(b.tuple([b.partition_id(), b.replica_id()]))
    with pytest.raises(ValueError, match="manual_computation"):
        xffi.Program(module)


def test_builder_fusion_runs_its_computation():
    b = xffi.Builder("fused")
    x = b.parameter(0, f32(6), "x")
    y = b.parameter(1, f32(6), "y")
    body = b.create_sub_builder("fused_body")
    fx = body.parameter(0, f32(6))
    fy = body.parameter(1, f32(6))
    region = body.build_subcomputation(
        body.binary("multiply", body.binary("add", fx, fy), fx))
    program = xffi.Program(b.build(b.fusion("kLoop", [x, y], region)))
    vx = np.linspace(-1, 1, 6, dtype=F32)
    vy = np.arange(6, dtype=F32)
    np.testing.assert_allclose(program(vx, vy), (vx + vy) * vx, rtol=1e-6)
    with pytest.raises(ValueError, match="fusion: kind 'kOutput'"):
        b.fusion("kOutput", [x, y], region)


def test_builder_manual_computation_runs_each_collective_per_device():
    v = np.arange(32, dtype=F32).reshape(8, 4)
    b = xffi.Builder("sharded")
    x = b.parameter(0, f32(8, 4), "x")
    add = b.create_sub_builder("sum")
    total = add.build_subcomputation(add.binary(
        "add", add.parameter(0, xffi.Shape.scalar_shape(F32)),
        add.parameter(1, xffi.Shape.scalar_shape(F32))))
    body = b.create_sub_builder("body")
    block = body.parameter(0, f32(2, 4), "block")
    everyone = dict(replica_groups=[[0, 1, 2, 3]], channel_id=1,
                    use_global_device_ids=True)
    reduced = body.all_reduce([block], total, **everyone)
    gathered = body.all_gather([block], 0, 4, **everyone)
    moved = body.binary("add", body.collective_permute(
        block, [(0, 1), (1, 2), (2, 3), (3, 0)], channel_id=2),
        body.broadcast_in_dim(body.convert(body.partition_id(), F32), [2, 4],
                              []))
    scattered = body.reduce_scatter([gathered], total, 1, 4, **everyone)
    swapped = body.all_to_all([block], 1, 0, 4, **everyone)
    region = body.build_subcomputation(
        body.tuple([reduced, gathered, moved, scattered, swapped]))
    rows, whole = [["x"], []], [[], []]
    manual = b.manual_computation([x], region, [("x", 4)], [rows],
                                  [rows, whole, rows, rows, rows])
    got = xffi.Program(b.build(manual))(v)
    blocks = v.reshape(4, 2, 4)
    moved_want = np.concatenate(
        [blocks[(d - 1) % 4] + d for d in range(4)])
    # reduce_scatter of the (identical) gathered copies along dimension 1:
    # device d keeps column d of 4 x the whole array.
    scattered_want = np.concatenate([4 * v[:, d:d + 1] for d in range(4)])
    # all_to_all: device d splits its block's 4 columns over the devices
    # and stacks, in device order, the column d each device sent it.
    swapped_want = np.concatenate(
        [np.concatenate([blocks[s][:, d:d + 1] for s in range(4)])
         for d in range(4)])
    want = [np.tile(blocks.sum(axis=0), (4, 1)), v, moved_want,
            scattered_want, swapped_want]
    assert len(got) == len(want)
    for result, expected in zip(got, want):
        np.testing.assert_array_equal(result, expected)


def test_builder_compare_takes_hlos_comparison_type():
    v = np.array([-0.0, 0.0, np.nan, 1.0], F32)
    w = np.array([0.0, -0.0, 1.0, np.nan], F32)
    b = xffi.Builder("orders")
    x = b.parameter(0, f32(4), "x")
    y = b.parameter(1, f32(4), "y")
    program = xffi.Program(b.build(b.tuple([
        b.compare(x, y, "LT"), b.compare(x, y, "LT", "TOTALORDER")])))
    plain, total = program(v, w)
    np.testing.assert_array_equal(plain, v < w)
    # Total order: -0 < +0, and a positive NaN after every number.
    np.testing.assert_array_equal(total, [True, False, False, True])
    with pytest.raises(ValueError, match="compare: type 'WEAK'"):
        b.compare(x, y, "LT", "WEAK")
