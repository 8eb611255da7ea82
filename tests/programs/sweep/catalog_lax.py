"""Recipes for jax.lax."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .families import Catalog, unary
from .inputs import COMPLEX, FLOAT, INEXACT, INTEGER, NUMERIC
from .spec import A, D, V, Spec

lax_catalog = Catalog("lax", lax)
c = lax_catalog
F32 = ("f32",)
F32_F64 = ("f32", "f64")
IDX = "i32"
ALL = NUMERIC + ("bool",)
S = (3, 4)


def same(*domains, dtypes=INEXACT, grad=True, family="elementwise",
         shape=S) -> Spec:
    """f(x, y, ...) on operands of one shape: lax does not broadcast."""
    return Spec(calls=(V(*(A(shape, d) for d in domains)),), dtypes=dtypes,
                grad=grad, family=family)


# ---- elementwise ------------------------------------------------------------
c.add("sin cos tan sinh cosh tanh atan asinh exp exp2 expm1 logistic", unary())
c.add("log sqrt rsqrt log1p", unary("pos"))
c.add("asin acos atanh", unary("unit"))
c.add("acosh", unary("ge1"))
c.add("cbrt", unary(dtypes=FLOAT))
c.add("reciprocal", unary("nonzero"))
c.add("abs neg square", unary(dtypes=FLOAT + COMPLEX + ("i32",),
                              family="elementwise"))
c.add("sign", unary(dtypes=NUMERIC, grad=False, family="elementwise"))
c.add("ceil floor", unary(dtypes=FLOAT, grad=False, family="elementwise"))
c.add("round", Spec(calls=(V(A(S, "wide")),
                           V(A(S, "wide"), lax.RoundingMethod.TO_NEAREST_EVEN,
                             label="to_nearest_even")),
                    dtypes=FLOAT, grad=False, special=True))
c.add("is_finite", unary(dtypes=FLOAT, grad=False, family="exact"))
c.add("real imag conj", unary(dtypes=COMPLEX + ("c128",), special=False,
                              family="elementwise", grad=False))
c.add("lgamma digamma", unary("pos", dtypes=FLOAT, family="special"))
c.add("erf erfc", unary(dtypes=FLOAT, family="special"))
c.add("erf_inv", unary("unit", dtypes=FLOAT, family="special"))
c.add("bessel_i0e bessel_i1e", unary("wide", dtypes=FLOAT, family="special"))
c.add("clz population_count", unary(dtypes=INTEGER + ("i8", "u32", "i64"),
                                    grad=False, special=False,
                                    family="exact"))
c.add("bitwise_not", unary(dtypes=INTEGER + ("bool",), grad=False,
                           special=False, family="exact"))
c.add("integer_pow", Spec(calls=(V(A(), 3), V(A(), -2)), dtypes=FLOAT + COMPLEX,
                          family="transcendental"))
c.add("add sub mul max min", same("real", "real", dtypes=NUMERIC))
c.add("div rem", same("wide", "nonzero", dtypes=FLOAT + INTEGER))
c.add("pow", same("pos", "real", dtypes=FLOAT + COMPLEX,
                  family="transcendental"))
c.add("atan2", same("real", "real", dtypes=FLOAT, family="transcendental"))
c.add("nextafter", same("real", "real", dtypes=FLOAT, grad=False,
                        family="exact"))
c.add("complex", same("real", "real", dtypes=("f32", "f64"), grad=False))
c.add("bitwise_and bitwise_or bitwise_xor", same(
    "real", "real", dtypes=INTEGER + ("bool",), grad=False, family="exact"))
c.add("shift_left shift_right_arithmetic shift_right_logical", same(
    "real", "int:0:9", dtypes=INTEGER + ("u32", "i64"), grad=False,
    family="exact"))
c.add("mulhi", same("int:-100000:100000", "int:-100000:100000",
                    dtypes=("i32", "u32"), grad=False, family="exact"))
c.add("eq ne", same("int:-2:3", "int:-2:3", dtypes=ALL, grad=False,
                    family="exact"))
c.add("lt le gt ge", same("int:-2:3", "int:-2:3",
                          dtypes=FLOAT + INTEGER + ("bool",), grad=False,
                          family="exact"))
c.add("igamma igammac", same("pos", "pos", dtypes=F32_F64, grad=False,
                             family="special"))
c.add("igamma_grad_a random_gamma_grad", same("pos", "pos", dtypes=F32_F64,
                                              grad=False, family="special"))
c.add("polygamma", Spec(calls=(V(A(S, "int:0:4"), A(S, "pos")),),
                        dtypes=F32_F64, grad=False, family="special"))
c.add("zeta", same("ge1", "pos", dtypes=F32_F64, grad=False,
                   family="special"))
c.add("betainc", same("pos", "pos", "open01", dtypes=F32_F64, grad=False,
                      family="special"))
c.add("clamp", Spec(calls=(V(A((), "int:0:1"), A(), A((), "int:2:3")),
                           V(A(), A(S, "wide"), A(S, "big"),
                                                label="arrays")),
                    dtypes=FLOAT + INTEGER))
c.add("select", Spec(calls=(V(A(S, dtype="bool"), A(), A()),), dtypes=ALL,
                     family="exact"))
c.add("select_n", Spec(calls=(V(A(S, "int:0:3", dtype=IDX), A(), A(), A()),
                              V(A(S, dtype="bool"), A(), A())),
                       dtypes=ALL, family="exact"))
c.add("convert_element_type", Spec(
    calls=tuple(V(A(S, "wide"), t) for t in
                (np.float32, jnp.bfloat16, np.float16, np.int32, np.uint8,
                 np.bool_, np.complex64, np.float64, np.int64)),
    dtypes=("f32", "bf16", "f16", "i32", "u8", "bool"), grad=False))
c.add("bitcast_convert_type", Spec(
    # A 16-bit (3, 4, 2) becomes a 32-bit (3, 4); 32 bits stay (3, 4, 2).
    calls=(V(A(), np.uint8), V(A((3, 4, 2)), np.uint32)),
    dtypes=("f32", "i32", "u32", "f16", "bf16"), grad=False, family="exact"))
c.add("reduce_precision", Spec(calls=(V(A(S, "wide"), 5, 10),
                                      V(A(S, "wide"), 8, 7)),
                               dtypes=F32_F64, special=True, grad=False))
c.add("stop_gradient optimization_barrier stage", Spec(
    calls=(V(A()),), dtypes=F32 + ("i32",), family="exact"))

# ---- shapes and data movement -----------------------------------------------
EXACT = dict(dtypes=("f32", "bf16", "i32", "u8", "bool"), family="exact")
c.add("broadcast", Spec(calls=(V(A(), (2,)),), **EXACT))
c.add("broadcast_in_dim", Spec(calls=(V(A((3, 1)), (2, 3, 4), (1, 2)),),
                               **EXACT))
c.add("broadcast_like", Spec(calls=(V(A((4,)), A((3, 4))),), **EXACT))
c.add("broadcast_to_rank", Spec(calls=(V(A(), 4),), **EXACT))
c.add("broadcasted_iota", Spec(calls=(V(D, (3, 4), 1),), dtypes=NUMERIC,
                               grad=False, family="exact"))
c.add("iota", Spec(calls=(V(D, 6),), dtypes=NUMERIC, grad=False,
                   family="exact"))
c.add("full", Spec(calls=(V((2, 3), 1.5, D),), dtypes=NUMERIC, grad=False,
                   family="exact"))
c.add("full_like", Spec(calls=(V(A(), 2),), **EXACT))
c.add("empty", Spec(calls=(V((2, 3), D),), dtypes=("f32", "i32"),
                    grad=False, family="exact",
                    post=lambda x: jnp.zeros_like(x)))
c.add("collapse", Spec(calls=(V(A((2, 3, 4)), 0, 2),), **EXACT))
c.add("concatenate", Spec(calls=(V([A(), A((3, 2))], 1),), **EXACT))
c.add("stack", Spec(calls=(V([A(), A()], axis=1),), **EXACT))
c.add("unstack", Spec(calls=(V(A(), axis=1),), **EXACT))
c.add("split", Spec(calls=(V(A((6, 4)), (1, 2, 3)),), **EXACT))
c.add("expand_dims", Spec(calls=(V(A(), (0, 2)),), **EXACT))
c.add("squeeze", Spec(calls=(V(A((3, 1, 4)), (1,)),), **EXACT))
c.add("reshape", Spec(calls=(V(A((3, 4)), (2, 6)),
                             V(A((3, 4)), (2, 6), (1, 0))), **EXACT))
c.add("transpose", Spec(calls=(V(A((2, 3, 4)), (1, 2, 0)),), **EXACT))
c.add("rev", Spec(calls=(V(A(), (0, 1)), V(A(), (1,))), **EXACT))
c.add("tile", Spec(calls=(V(A(), (2, 3)),), **EXACT))
c.add("pad", Spec(calls=(V(A(), A(()), ((1, 2, 0), (0, 1, 1))),
                         V(A(), A(()), ((-1, 2, 1), (1, -2, 0)),
                           label="negative_interior")),
                  **EXACT))
c.add("slice", Spec(calls=(V(A((5, 6)), (1, 0), (4, 6), (2, 3)),), **EXACT))
c.add("slice_in_dim", Spec(calls=(V(A((5, 6)), 1, 5, 2, axis=0),), **EXACT))
c.add("index_in_dim", Spec(calls=(V(A(), 2, axis=1), V(A(), 1,
                                                        keepdims=False)),
                           **EXACT))
c.add("dynamic_slice", Spec(
    calls=(V(A((5, 6)), [A((), "int:-2:5", dtype=IDX), A((), "int:0:4",
                                                           dtype=IDX)],
             (2, 3)),), **EXACT))
c.add("dynamic_slice_in_dim", Spec(
    calls=(V(A((5, 6)), A((), "int:0:5", dtype=IDX), 2, axis=1),), **EXACT))
c.add("dynamic_index_in_dim", Spec(
    calls=(V(A((5, 6)), A((), "int:-5:5", dtype=IDX), axis=0),), **EXACT))
c.add("dynamic_update_slice", Spec(
    calls=(V(A((5, 6)), A((2, 3)), [A((), "int:0:6", dtype=IDX),
                                     A((), "int:0:6", dtype=IDX)]),),
    **EXACT))
c.add("dynamic_update_slice_in_dim", Spec(
    calls=(V(A((5, 6)), A((5, 2)), A((), "int:0:6", dtype=IDX), 1),),
    **EXACT))
c.add("dynamic_update_index_in_dim", Spec(
    calls=(V(A((5, 6)), A((1, 6)), A((), "int:0:5", dtype=IDX), 0),),
    **EXACT))
GATHER = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                    start_index_map=(0,))
GATHER_2D = lax.GatherDimensionNumbers(
    offset_dims=(), collapsed_slice_dims=(0, 1), start_index_map=(0, 1),
    operand_batching_dims=(), start_indices_batching_dims=())
c.add("gather", Spec(
    calls=(V(A((5, 4)), A((3, 1), "int:0:5", dtype=IDX), GATHER, (1, 4),
             mode="clip"),
           V(A((5, 4)), A((6, 2), "int:-1:6", dtype=IDX), GATHER_2D, (1, 1),
             mode="fill", fill_value=-1, label="fill_2d")),
    **EXACT))
SCATTER = lax.ScatterDimensionNumbers(update_window_dims=(1,),
                                      inserted_window_dims=(0,),
                                      scatter_dims_to_operand_dims=(0,))
SCATTER_CALL = V(A((5, 4)), A((3, 1), "int:0:5", dtype=IDX), A((3, 4)),
                 SCATTER)
SCATTER_MODES = (SCATTER_CALL,
                 V(A((5, 4)), A((3, 1), "int:-2:7", dtype=IDX), A((3, 4)),
                   SCATTER, mode="drop"))
c.add("scatter scatter_add scatter_sub scatter_min scatter_max",
      Spec(calls=SCATTER_MODES, dtypes=("f32", "f64", "bf16", "i32", "u8"),
           family="elementwise"))
# JAX differentiates scatter_mul only with unique_indices=True.
c.add("scatter_mul", Spec(calls=SCATTER_MODES, grad=False,
                          dtypes=("f32", "f64", "bf16", "i32", "u8"),
                          family="elementwise"))
c.add("scatter_apply", Spec(
    calls=(V(A((5, 4)), A((3, 1), "int:0:5", dtype=IDX), jnp.sin, SCATTER,
             update_shape=(3, 4)),),
    dtypes=F32, grad=False, family="transcendental"))
c.add("index_take", Spec(calls=(V(A((5, 4)), (A((3,), "int:0:5", dtype=IDX),
                                              A((3,), "int:0:4", dtype=IDX)),
                                  (0, 1)),), **EXACT))

# ---- reductions, scans, sorting ---------------------------------------------
RED = dict(dtypes=NUMERIC, family="reduction")
c.add("reduce_sum reduce_prod reduce_max reduce_min",
      Spec(calls=(V(A((3, 5)), (1,)), V(A((3, 5)), (0, 1))), **RED))
c.add("reduce_and reduce_or reduce_xor", Spec(
    calls=(V(A((3, 5)), (1,)),), dtypes=("bool",) + INTEGER, grad=False,
    family="exact"))
c.add("argmax argmin", Spec(calls=(V(A((3, 5)), 1, np.int32),
                                   V(A((3, 5), "nanreal"), 0, np.int32,
                                     label="nan")),
                            dtypes=FLOAT + INTEGER, grad=False,
                            family="exact"))
c.add("reduce", Spec(
    calls=(V("sum", A((3, 5)), label="sum"),
           V("max_pair", A((3, 5)), A((3, 5), "int:0:9", dtype=IDX),
             label="variadic", differentiable=False)),
    dtypes=F32_F64, family="reduction", wrap=lambda f: _reductions(f)))


def _reductions(reduce):
    """lax.reduce as a sum over one axis, or as a variadic max over a
    (float, int32) pair, with initial values of the operands' dtypes."""
    def call(kind, x, i=None):
        if kind == "sum":
            return reduce(x, jnp.zeros((), x.dtype), lax.add, (1,))
        return reduce((x, i), (jnp.array(-jnp.inf, x.dtype),
                               jnp.zeros((), i.dtype)),
                      lambda a, b: (lax.max(a[0], b[0]), lax.max(a[1], b[1])),
                      (0,))
    return call


c.add("reduce_window", Spec(
    calls=(V(A((4, 6)), -np.inf, lax.max, (2, 2), (2, 2), "VALID",
             label="max_pool"),
           V(A((4, 6)), 0.0, lax.add, (3, 3), (1, 1), "SAME",
             label="sum_same"),
           V(A((4, 6)), 0.0, lax.add, (2, 2), (1, 2), ((1, 0), (0, 1)),
             (1, 1), (2, 1), label="dilated")),
    dtypes=F32_F64, family="reduction"))
c.add("cumsum cumprod cummax cummin cumlogsumexp", Spec(
    calls=(V(A((3, 5)), axis=1), V(A((3, 5)), axis=0, reverse=True)),
    dtypes=FLOAT, family="reduction"))
c.add("associative_scan", Spec(
    calls=(V(lax.add, A((6, 3))), V(lax.mul, A((6, 3)), reverse=True,
                                     axis=1)),
    dtypes=F32, family="reduction"))
c.add("sort", Spec(calls=(V(A((3, 6))), V(A((3, 6)), dimension=0),
                          V((A((3, 6), "int:0:3"), A((3, 6))), num_keys=1,
                            label="two_operands")),
                   dtypes=NUMERIC + ("bool",), family="exact"))
c.add("sort_key_val", Spec(calls=(V(A((3, 6), "int:0:3"), A((3, 6))),),
                           dtypes=("f32", "i32"), family="exact"))
c.add("top_k", Spec(calls=(V(A((3, 6)), 2),), dtypes=("f32", "i32", "bf16"),
                    family="exact"))
c.add("approx_max_k approx_min_k", Spec(calls=(V(A((3, 16)), 3),),
                                        dtypes=F32, family="exact"))

# ---- products and convolutions ----------------------------------------------
DOT = dict(dtypes=("f32", "f64", "bf16", "f16", "c64", "i32"),
           family="reduction")
c.add("dot", Spec(calls=(V(A((3, 4)), A((4, 5))), V(A((4,)), A((4,))),
                         V(A((3, 4)), A((4, 5)),
                           preferred_element_type=np.float32,
                           label="preferred_f32")),
                  **DOT))
c.add("dot_general", Spec(
    calls=(V(A((2, 3, 4)), A((2, 4, 5)), (((2,), (1,)), ((0,), (0,)))),
           V(A((3, 4)), A((5, 4)), (((1,), (1,)), ((), ())))),
    **DOT))
c.add("batch_matmul", Spec(calls=(V(A((2, 3, 4)), A((2, 4, 5))),), **DOT))
c.add("ragged_dot", Spec(calls=(V(A((6, 4)), A((3, 4, 5)),
                                  A((3,), "int:2:3", dtype=IDX)),),
                         dtypes=F32, family="reduction"))
c.add("ragged_dot_general", Spec(
    calls=(V(A((6, 4)), A((3, 4, 5)), A((3,), "int:2:3", dtype=IDX),
             lax.RaggedDotDimensionNumbers(
                 dot_dimension_numbers=(((1,), (1,)), ((), ())),
                 lhs_ragged_dimensions=[0], rhs_group_dimensions=[0])),),
    dtypes=F32, family="reduction"))
c.add("scaled_dot", Spec(calls=(V(A((3, 32)), A((5, 32)),
                                  dimension_numbers=(((1,), (1,)),
                                                     ((), ())),
                                  preferred_element_type=np.float32),),
                         dtypes=("bf16",), family="reduction", grad=False))
CONV = dict(dtypes=("f32", "f64", "bf16", "f16"), family="reduction")
c.add("conv", Spec(calls=(V(A((2, 3, 6, 6)), A((4, 3, 3, 3)), (1, 1),
                            "SAME"),), **CONV))
c.add("conv_with_general_padding", Spec(
    calls=(V(A((2, 3, 6, 6)), A((4, 3, 3, 3)), (2, 1), ((1, 0), (2, 1)),
             (1, 1), (2, 1)),), **CONV))
c.add("conv_general_dilated", Spec(
    calls=(V(A((2, 3, 6, 6)), A((4, 3, 3, 3)), (1, 1), "VALID"),
           V(A((2, 6, 6, 4)), A((3, 3, 1, 4)), (1, 1), "SAME",
             dimension_numbers=("NHWC", "HWIO", "NHWC"),
             feature_group_count=4, label="depthwise_nhwc"),
           V(A((2, 3, 5, 5)), A((4, 3, 3, 3)), (1, 1), ((1, 1), (1, 1)),
             lhs_dilation=(2, 2), rhs_dilation=(1, 2),
             label="dilated")),
    **CONV))
c.add("conv_transpose", Spec(
    calls=(V(A((2, 5, 5, 3)), A((3, 3, 3, 4)), (2, 2), "SAME",
             dimension_numbers=("NHWC", "HWIO", "NHWC")),), **CONV))
c.add("conv_general_dilated_local", Spec(
    calls=(V(A((1, 2, 5, 5)), A((4, 18, 3, 3)), (1, 1), "VALID", (3, 3)),),
    dtypes=F32, family="reduction"))
c.add("conv_general_dilated_patches", Spec(
    calls=(V(A((1, 2, 5, 5)), (2, 2), (1, 1), "VALID"),), dtypes=F32,
    family="exact"))
c.add("fft", Spec(
    calls=(V(A((4, 8)), "FFT", (8,)), V(A((4, 8)), "IFFT", (4, 8))),
    dtypes=("c64", "c128"), family="fft"))

# ---- random bits ------------------------------------------------------------
KEY = A((4,), "int:0:100000", dtype="u32")
c.add("rng_bit_generator", Spec(
    calls=tuple(V(KEY, (3, 4), D, algorithm=algorithm,
                  label=algorithm.name.lower())
                for algorithm in (lax.RandomAlgorithm.RNG_DEFAULT,
                                  lax.RandomAlgorithm.RNG_THREE_FRY,
                                  lax.RandomAlgorithm.RNG_PHILOX)),
    dtypes=("u32", "u8", "u64"), grad=False, family="exact"))
c.add("rng_uniform", Spec(
    calls=(V(A((), "int:0:1"), A((), "int:1:2"), (3, 4)),),
    dtypes=("f32",), grad=False, family="exact",
    # XLA leaves rng_uniform's values to the backend: only their range is
    # the contract.
    canon=lambda leaves: [(x >= 0) & (x < 1) for x in leaves]))

# ---- control flow -----------------------------------------------------------
c.add("cond", Spec(
    calls=(V(A((), dtype="bool"), lambda x: jnp.sin(x), lambda x: x * 2,
             A((3,))),),
    dtypes=F32, family="transcendental"))
c.add("switch", Spec(
    calls=(V(A((), "int:-1:4", dtype=IDX),
             [lambda x: x + 1, jnp.cos, lambda x: -x], A((3,))),),
    dtypes=F32, family="transcendental"))
c.add("while_loop", Spec(
    calls=(V(lambda s: s[0] < 5, lambda s: (s[0] + 1, s[1] * 1.5 + 1),
             (0, A((3,)))),),
    dtypes=F32, grad=False, family="reduction"))
c.add("fori_loop", Spec(
    calls=(V(0, 4, lambda i, x: x * 0.5 + jnp.sin(x), A((3,))),
           V(A((), "int:0:3", dtype=IDX), 5, lambda i, x: x + i, A((3,)),
             label="traced_bounds", differentiable=False)),
    dtypes=F32, family="transcendental"))
c.add("scan", Spec(
    calls=(V(lambda carry, x: (carry + x, carry * x), A((3,)), A((5, 3))),
           V(lambda carry, x: (carry * 0.9 + x, jnp.tanh(carry)), A((3,)),
             A((5, 3)), reverse=True, unroll=2, label="reverse_unroll")),
    dtypes=F32, family="transcendental"))
c.add("map", Spec(calls=(V(lambda r: r * r.sum(), A((4, 3))),
                         V(jnp.sin, A((4, 3)), batch_size=2)),
                  dtypes=F32, family="transcendental"))
c.add("custom_linear_solve", Spec(
    calls=(V(A((3, 3), "wellcond"), A((3,))),), dtypes=F32, family="linalg",
    wrap=lambda f: lambda m, b: f(
        lambda x: m @ x, b, lambda mv, r: jnp.linalg.solve(m, r),
        transpose_solve=lambda mv, r: jnp.linalg.solve(m.T, r))))
c.add("custom_root", Spec(
    calls=(V(A((3,), "pos")),), dtypes=F32, family="linalg",
    wrap=lambda f: lambda a: f(
        lambda x: x * x - a, jnp.ones_like(a), _newton,
        lambda g, y: y / g(jnp.ones_like(y)))))
c.add("platform_dependent", Spec(
    calls=(V(A()),), dtypes=F32,
    wrap=lambda f: lambda x: f(x, cpu=jnp.sin, default=jnp.cos)))
c.add("composite", Spec(
    calls=(V(A()),), dtypes=F32,
    grad=False,  # JAX 0.10.2 has no JVP rule for composite
    wrap=lambda f: f(lambda x: jnp.tanh(x) * 2, name="sweep.double_tanh")))
c.add("dce_sink", Spec(calls=(V(A()),), dtypes=F32, family="exact",
                       wrap=lambda f: lambda x: (f(x * 2), x + 1)[1]))


def _newton(f, x):
    """A root of f(x) = x * x - a from x: Newton's steps, f' = 2x."""
    for _ in range(20):
        x = x - f(x) / (2 * x)
    return x


# ---- what the sweep leaves out ----------------------------------------------
c.skip("AccuracyMode ConvDimensionNumbers ConvGeneralDilatedDimensionNumbers "
       "DotAlgorithm DotAlgorithmPreset DotDimensionNumbers FftType "
       "GatherDimensionNumbers GatherScatterMode Precision PrecisionLike "
       "RaggedDotDimensionNumbers RandomAlgorithm RoundingMethod "
       "ScatterDimensionNumbers Tolerance",
       "a type, not a function")
c.skip("conv_dimension_numbers conv_general_permutations "
       "conv_general_shape_tuple conv_shape_tuple conv_transpose_shape_tuple "
       "padtype_to_pads reduce_window_shape_tuple broadcast_shapes dtype "
       "shape_as_value",
       "computes shapes or dimension numbers at trace time; no operation")
c.skip("all_gather all_to_all axis_index axis_size pbroadcast pcast pmax "
       "pmean pmin ppermute precv psend pshuffle psum psum_scatter pswapaxes "
       "ragged_all_to_all",
       "needs a named mapped axis (shard_map); tests/programs/sm_* cover "
       "the collectives")
c.skip("with_sharding_constraint", "needs a mesh; sharding is a no-op on one "
       "device and tests/programs/sm_* cover sharded programs")
c.skip("after_all create_token", "returns a token, which no result array "
       "carries")

CATALOGS = [lax_catalog]
