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
