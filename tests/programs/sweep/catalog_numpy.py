"""Recipes for jax.numpy, jax.numpy.linalg and jax.numpy.fft."""

import jax.numpy as jnp
import numpy as np

from .families import Catalog, binary, reduction, unary
from .inputs import COMPLEX, FLOAT, INEXACT, INTEGER, NUMERIC, SIGNED
from .spec import A, D, V, Spec

jnp_catalog = Catalog("jnp", jnp)
linalg_catalog = Catalog("jnp.linalg", jnp.linalg)
fft_catalog = Catalog("jnp.fft", jnp.fft)

c = jnp_catalog
ALL = NUMERIC + ("bool",)
F32 = ("f32",)
F32_F64 = ("f32", "f64")
IDX = "i32"

# ---- elementwise, one argument ----------------------------------------------
c.add("sin cos tan sinh cosh tanh arctan atan arcsinh asinh exp exp2 expm1",
      unary())
c.add("log log10 log2 sqrt log1p", unary("pos"))
c.add("arcsin arccos asin acos arctanh atanh", unary("unit"))
c.add("arccosh acosh", unary("ge1"))
c.add("cbrt deg2rad degrees rad2deg radians i0", unary(dtypes=FLOAT))
c.add("sinc", unary("nonzero"))
c.add("reciprocal", unary("nonzero"))
c.add("square negative positive", unary(dtypes=NUMERIC, family="elementwise"))
c.add("abs absolute", unary(dtypes=NUMERIC, family="elementwise"))
c.add("fabs", unary(dtypes=FLOAT, family="elementwise"))
c.add("sign", unary(dtypes=NUMERIC, family="elementwise", grad=False))
c.add("ceil floor trunc rint", unary(dtypes=FLOAT + INTEGER, grad=False,
                                     family="elementwise"))
c.add("spacing", unary(dtypes=FLOAT, grad=False, family="elementwise"))
c.add("round around", Spec(
    calls=(V(A((3, 4), "wide")), V(A((3, 4), "wide"), 1),
           V(A((3, 4), "wide"), -1)),
    dtypes=FLOAT + COMPLEX, grad=False))
c.add("isfinite isinf isnan isneginf isposinf signbit",
      unary(dtypes=FLOAT, grad=False, family="exact"))
c.add("iscomplex isreal", unary(dtypes=INEXACT, grad=False, family="exact"))
c.add("nan_to_num", Spec(calls=(V(A()), V(A(), nan=1.5, posinf=9.0,
                                              neginf=-9.0)),
                         dtypes=INEXACT, grad=True, special=True))
c.add("real imag conj conjugate angle", unary(dtypes=INEXACT, special=False,
                                              family="elementwise"))
c.add("frexp", unary(dtypes=FLOAT, grad=False, family="exact"))
c.add("modf", unary("wide", dtypes=FLOAT, grad=False, family="exact"))
c.add("logical_not", unary(dtypes=ALL, grad=False, special=False,
                           family="exact"))
c.add("bitwise_not bitwise_invert invert bitwise_count",
      unary(dtypes=INTEGER + ("bool",), grad=False, special=False,
            family="exact"))
c.add("copy", unary(dtypes=ALL, special=False, family="exact"))

# ---- elementwise, two arguments ---------------------------------------------
c.add("add subtract multiply", binary(dtypes=NUMERIC))
c.add("divide true_divide", binary(("real", "nonzero"), dtypes=NUMERIC))
c.add("maximum minimum fmax fmin", binary(dtypes=NUMERIC + ("bool",)))
c.add("arctan2 atan2 hypot logaddexp logaddexp2 copysign",
      binary(dtypes=FLOAT, family="transcendental"))
c.add("power pow", Spec(
    calls=(V(A((3, 4), "pos"), A((4,), "real")),
           V(A((3, 4), "real"), A((4,), "int:0:4", dtype=IDX),
             label="int_exponent")),
    dtypes=FLOAT + COMPLEX, family="transcendental"))
c.add("float_power", binary(("pos", "real"), dtypes=FLOAT,
                            family="transcendental"))
c.add("fmod remainder mod floor_divide divmod",
      binary(("wide", "nonzero"), dtypes=FLOAT + INTEGER, grad=False))
c.add("nextafter", binary(dtypes=FLOAT, grad=False, family="exact"))
c.add("heaviside", binary(dtypes=FLOAT, grad=False))
c.add("ldexp", Spec(calls=(V(A(), A((4,), "int:-3:4", dtype=IDX)),),
                    dtypes=FLOAT, family="exact"))
c.add("gcd lcm", binary(("int:-12:13", "int:-8:9"), dtypes=SIGNED + ("u8",),
                        grad=False, family="exact"))
c.add("bitwise_and bitwise_or bitwise_xor logical_and logical_or logical_xor",
      binary(dtypes=INTEGER + ("bool",), grad=False, family="exact"))
c.add("left_shift right_shift bitwise_left_shift bitwise_right_shift",
      binary(("real", "int:0:6"), dtypes=INTEGER, grad=False, family="exact"))
c.add("equal not_equal greater greater_equal less less_equal",
      binary(dtypes=ALL, grad=False, family="exact"))
c.add("isclose", binary(dtypes=INEXACT, grad=False, family="exact"))
c.add("allclose array_equal array_equiv",
      Spec(calls=(V(A(), A()),), dtypes=NUMERIC, grad=False, family="exact"))

# ---- reductions and scans ---------------------------------------------------
c.add("sum prod mean", reduction(dtypes=NUMERIC))
c.add("max min amax amin", reduction(dtypes=NUMERIC, family="exact"))
c.add("std var", reduction(extra=(V(A((3, 5)), axis=0, ddof=1),)))
c.add("ptp", reduction(dtypes=NUMERIC))
c.add("all any", reduction(dtypes=("bool", "f32", "i32"), grad=False,
                           family="exact"))
c.add("argmax argmin", reduction(dtypes=FLOAT + INTEGER, grad=False,
                                 family="exact",
                                 axes=(None, 1)))
c.add("count_nonzero", reduction(dtypes=("f32", "i32", "bool"), grad=False,
                                 family="exact", axes=(None, 1),
                                 keepdims=False))
c.add("nansum nanprod nanmean nanstd nanvar nanmax nanmin",
      reduction(dtypes=FLOAT, domain="nanreal"))
c.add("nanargmax nanargmin", reduction(dtypes=FLOAT, domain="nanreal",
                                       grad=False, family="exact",
                                       axes=(None, 1)))
c.add("median nanmedian", reduction(dtypes=FLOAT, domain="nanreal",
                                    axes=(None, 1)))
c.add("average", Spec(calls=(V(A((3, 5))), V(A((3, 5)), axis=1),
                             V(A((3, 5)), 1, A((5,), "pos"),
                               label="weights")),
                      dtypes=FLOAT))
c.add("percentile quantile nanpercentile nanquantile", Spec(
    calls=(V(A((3, 5)), A((4,), "open01"), axis=1),
           V(A((3, 5)), A((), "open01"), method="nearest")),
    dtypes=F32_F64, family="reduction"))
c.add("cumsum cumprod cumulative_sum cumulative_prod nancumsum nancumprod",
      Spec(calls=(V(A((3, 5)), axis=1), V(A((3, 5)), axis=0)),
           dtypes=NUMERIC, family="reduction"))
c.add("diff", Spec(calls=(V(A((3, 5))), V(A((3, 5)), n=2, axis=0)),
                   dtypes=NUMERIC))
c.add("ediff1d", Spec(calls=(V(A((3, 5))),), dtypes=NUMERIC))
c.add("gradient", Spec(calls=(V(A((3, 5))), V(A((6,)), 0.5)),
                       dtypes=FLOAT))
c.add("trapezoid", Spec(calls=(V(A((3, 5))), V(A((3, 5)), A((5,), "sorted"))),
                        dtypes=FLOAT, family="reduction"))
c.add("unwrap", Spec(calls=(V(A((8,), "wide")),), dtypes=F32_F64))
c.add("trace", Spec(calls=(V(A((4, 4))), V(A((3, 4)), offset=1)),
                    dtypes=NUMERIC))

# ---- shapes and data movement -----------------------------------------------
EXACT = dict(dtypes=ALL, family="exact")
c.add("reshape", Spec(calls=(V(A((3, 4)), (4, 3)), V(A((2, 3, 4)), (6, -1))),
                      **EXACT))
c.add("ravel", Spec(calls=(V(A((2, 3, 4))), V(A((3, 4)), order="F")),
                    **EXACT))
c.add("transpose permute_dims", Spec(calls=(V(A((2, 3, 4)), (2, 0, 1)),),
                                     **EXACT))
c.add("matrix_transpose", Spec(calls=(V(A((2, 3, 4))),), **EXACT))
c.add("swapaxes", Spec(calls=(V(A((2, 3, 4)), 0, 2),), **EXACT))
c.add("moveaxis", Spec(calls=(V(A((2, 3, 4)), 0, -1),), **EXACT))
c.add("rollaxis", Spec(calls=(V(A((2, 3, 4)), 2),), **EXACT))
c.add("expand_dims", Spec(calls=(V(A(), 1), V(A(), (0, 3))), **EXACT))
c.add("squeeze", Spec(calls=(V(A((3, 1, 4)), 1), V(A((1, 3, 1)))), **EXACT))
c.add("flip", Spec(calls=(V(A()), V(A(), axis=1)), **EXACT))
c.add("fliplr flipud", Spec(calls=(V(A()),), **EXACT))
c.add("rot90", Spec(calls=(V(A()), V(A(), k=2), V(A(), k=3)), **EXACT))
c.add("roll", Spec(calls=(V(A(), 2, axis=1), V(A(), -3)), **EXACT))
c.add("tile", Spec(calls=(V(A(), (2, 1)), V(A((3,)), 3)), **EXACT))
c.add("repeat", Spec(calls=(V(A(), 2, axis=0),
                            V(A((4,)), A((4,), "int:0:3", dtype=IDX),
                              total_repeat_length=8)),
                     **EXACT))
c.add("concatenate concat", Spec(calls=(V([A(), A((2, 4))], axis=0),),
                                 **EXACT))
c.add("stack", Spec(calls=(V([A(), A()]), V([A(), A()], axis=2)), **EXACT))
c.add("hstack vstack dstack column_stack", Spec(calls=(V([A(), A()]),),
                                                **EXACT))
c.add("block", Spec(calls=(V([[A((2, 2)), A((2, 3))],
                              [A((1, 2)), A((1, 3))]]),),
                    **EXACT))
c.add("append", Spec(calls=(V(A(), A((2, 4)), axis=0), V(A(), A((5,)))),
                     **EXACT))
c.add("split array_split", Spec(calls=(V(A((6, 4)), 3), V(A((6, 4)), [1, 4],
                                                          axis=0)), **EXACT))
c.add("hsplit", Spec(calls=(V(A((4, 6)), 2),), **EXACT))
c.add("vsplit", Spec(calls=(V(A((4, 6)), 2),), **EXACT))
c.add("dsplit", Spec(calls=(V(A((2, 3, 4)), 2),), **EXACT))
c.add("unstack", Spec(calls=(V(A()), V(A(), axis=1)), **EXACT))
c.add("atleast_1d atleast_2d atleast_3d", Spec(calls=(V(A((3,))),), **EXACT))
c.add("broadcast_to", Spec(calls=(V(A((4,)), (3, 4)),), **EXACT))
c.add("broadcast_arrays", Spec(calls=(V(A((3, 1)), A((4,))),), **EXACT))
c.add("pad", Spec(
    calls=(V(A(), ((1, 2), (0, 3))),
           V(A(), 2, mode="edge"), V(A(), 2, mode="reflect"),
           V(A(), 2, mode="symmetric"), V(A(), 2, mode="wrap"),
           V(A(), 2, mode="linear_ramp"), V(A(), 2, mode="maximum"),
           V(A(), 2, mode="mean")),
    dtypes=FLOAT + INTEGER, family="reduction"))
c.add("resize", Spec(calls=(V(A(), (5, 3)),), **EXACT))
c.add("delete", Spec(calls=(V(A(), 1, axis=1),
                            V(A(), np.array([0, 2]), axis=0)),
                     **EXACT))
c.add("insert", Spec(calls=(V(A(), 1, 5, axis=1),), **EXACT))
c.add("diag", Spec(calls=(V(A((4, 4))), V(A((4,))), V(A((4,)), k=1)),
                   **EXACT))
c.add("diagonal", Spec(calls=(V(A()), V(A(), offset=1)), **EXACT))
c.add("diagflat", Spec(calls=(V(A((3,))),), **EXACT))
c.add("tril triu", Spec(calls=(V(A()), V(A(), k=1)), **EXACT))
c.add("take", Spec(calls=(V(A(), A((5,), "int:0:4", dtype=IDX), axis=1),
                          V(A(), A((2, 2), "int:0:12", dtype=IDX)),
                          V(A(), A((3,), "int:-3:6", dtype=IDX), axis=0,
                            mode="clip")),
                   **EXACT))
c.add("take_along_axis", Spec(
    calls=(V(A(), A((3, 2), "int:0:4", dtype=IDX), axis=1),), **EXACT))
c.add("put_along_axis", Spec(
    calls=(V(A(), A((3, 1), "int:0:4", dtype=IDX), A((3, 1)), axis=1,
             inplace=False),), **EXACT))
c.add("put", Spec(calls=(V(A(), A((3,), "int:0:12", dtype=IDX), A((3,)),
                           inplace=False),), **EXACT))
c.add("place", Spec(calls=(V(A(), A((3, 4), dtype="bool"), A((3,)),
                             inplace=False),), **EXACT))
c.add("fill_diagonal", Spec(calls=(V(A((4, 4)), 2, inplace=False),),
                            **EXACT))
c.add("where", Spec(calls=(V(A(dtype="bool"), A(), A((4,))),
                           V(A(dtype="bool"), size=6, label="size")),
                    dtypes=NUMERIC, family="exact"))
c.add("select", Spec(calls=(V([A(dtype="bool"), A(dtype="bool")], [A(), A()],
                              A(())),), dtypes=NUMERIC, family="exact"))
c.add("choose", Spec(calls=(V(A((3, 4), "int:0:3", dtype=IDX),
                              [A(), A(), A()], mode="clip"),), **EXACT))
c.add("compress", Spec(calls=(V(A((3,), dtype="bool"), A(), axis=0, size=3),),
                       **EXACT))
c.add("extract", Spec(calls=(V(A(dtype="bool"), A(), size=12),), **EXACT))
c.add("clip", Spec(calls=(V(A(), -1, 1), V(A(), A((4,)), max=A(()),
                                           label="arrays")),
                   dtypes=FLOAT + INTEGER))
c.add("sort argsort", Spec(calls=(V(A((3, 5))), V(A((3, 5)), axis=0),
                                  V(A((3, 5)), axis=None)),
                           dtypes=NUMERIC + ("bool",), family="exact"))
c.add("sort_complex", Spec(calls=(V(A((6,))),), dtypes=FLOAT + COMPLEX,
                           family="exact"))
c.add("lexsort", Spec(calls=(V([A((6,), "int:0:3"), A((6,), "int:0:3")]),),
                      dtypes=NUMERIC, family="exact"))
c.add("partition argpartition", Spec(calls=(V(A((3, 6)), 2),),
                                     dtypes=FLOAT + INTEGER, family="exact"))
c.add("searchsorted", Spec(
    calls=(V(A((8,), "sorted"), A((5,))),
           V(A((8,), "sorted"), A((5,)), side="right", method="sort"),
           V(A((8,), "sorted"), A((5,)), method="compare_all")),
    dtypes=NUMERIC, family="exact"))
c.add("digitize", Spec(calls=(V(A((3, 5)), A((6,), "sorted")),
                              V(A((3, 5)), A((6,), "sorted"), right=True)),
                       dtypes=FLOAT + INTEGER, family="exact"))
c.add("unique unique_values", Spec(
    calls=(V(A((10,), "int:0:6"), size=6, fill_value=0),),
    dtypes=NUMERIC, family="exact"))
c.add("unique_all unique_counts unique_inverse", Spec(
    calls=(V(A((10,), "int:0:6"), size=6, fill_value=0),),
    dtypes=("f32", "i32"), family="exact"))
c.add("intersect1d setdiff1d setxor1d union1d", Spec(
    calls=(V(A((8,), "int:0:9"), A((6,), "int:0:9"), size=5, fill_value=0),),
    dtypes=("f32", "i32"), family="exact"))
c.add("isin", Spec(calls=(V(A((3, 4), "int:0:9"), A((5,), "int:0:9")),),
                   dtypes=("f32", "i32"), family="exact"))
c.add("nonzero flatnonzero argwhere", Spec(
    calls=(V(A((3, 4), "int:0:2"), size=6),), dtypes=("f32", "i32", "bool"),
    family="exact"))
c.add("packbits", Spec(calls=(V(A((3, 8))), V(A((3, 8)), axis=1,
                                              bitorder="little")),
                       dtypes=("bool", "u8"), family="exact"))
c.add("unpackbits", Spec(calls=(V(A((3, 2), "int:0:256")),
                                V(A((3, 2), "int:0:256"), axis=1, count=5)),
                         dtypes=("u8",), family="exact"))
c.add("ravel_multi_index", Spec(
    calls=(V((A((5,), "int:0:3"), A((5,), "int:0:4")), (3, 4), mode="clip"),),
    dtypes=("i32",), family="exact"))
c.add("unravel_index", Spec(calls=(V(A((5,), "int:0:12"), (3, 4)),),
                            dtypes=("i32",), family="exact"))
c.add("ix_", Spec(calls=(V(A((2,), "int:0:3"), A((3,), "int:0:4")),),
                  dtypes=("i32",), family="exact"))
c.add("diag_indices_from", Spec(calls=(V(A((3, 3))),), dtypes=F32,
                                family="exact"))
c.add("tril_indices_from triu_indices_from", Spec(
    calls=(V(A((3, 4))), V(A((3, 4)), k=1)), dtypes=F32, family="exact"))
c.add("interp", Spec(calls=(V(A((3, 5)), A((6,), "sorted"), A((6,))),
                            V(A((7,), "wide"), A((6,), "sorted"), A((6,)),
                              period=2.0)),
                     dtypes=F32_F64))
c.add("bincount", Spec(calls=(V(A((10,), "int:0:6"), length=6),
                              V(A((10,), "int:0:6"), A((10,), dtype="f32"),
                                length=7, label="weights")),
                       dtypes=("i32", "u8"), family="exact"))
c.add("histogram", Spec(calls=(V(A((20,)), bins=5, range=(-3, 3)),
                               V(A((20,)), A((6,), "sorted"),
                                 label="bin_edges")),
                        dtypes=F32_F64, grad=False, family="elementwise"))
c.add("histogram_bin_edges", Spec(calls=(V(A((20,)), bins=5, range=(-3, 3)),),
                                  dtypes=F32_F64, grad=False))
c.add("histogram2d", Spec(calls=(V(A((20,)), A((20,)), bins=4,
                                   range=[(-3, 3), (-3, 3)]),),
                          dtypes=F32_F64, grad=False, family="elementwise"))
c.add("histogramdd", Spec(calls=(V(A((20, 2)), bins=3,
                                   range=[(-3, 3), (-3, 3)]),),
                          dtypes=F32_F64, grad=False, family="elementwise"))
c.add("convolve correlate", Spec(
    calls=(V(A((8,)), A((3,))), V(A((8,)), A((3,)), mode="same"),
           V(A((8,)), A((3,)), mode="valid")),
    dtypes=INEXACT + ("i32",), family="reduction"))
c.add("corrcoef cov", Spec(calls=(V(A((3, 6))), V(A((3, 6)), rowvar=False)),
                           dtypes=F32_F64, family="reduction"))

# ---- creation ---------------------------------------------------------------
MADE = dict(dtypes=("f32", "f64", "bf16", "i32", "u8"), grad=False,
            family="elementwise")
c.add("arange", Spec(calls=(V(7, dtype=D), V(1, 12, 3, dtype=D)), **MADE))
c.add("linspace", Spec(calls=(V(0, 5, 7, dtype=D),
                              V(A(()), A(()), 5, endpoint=False,
                                label="traced_ends")),
                       dtypes=FLOAT, grad=True))
c.add("logspace geomspace", Spec(calls=(V(1, 3, 5, dtype=D),),
                                 dtypes=("f32", "f64")))
c.add("eye", Spec(calls=(V(3, 4, k=1, dtype=D),), **MADE))
c.add("identity", Spec(calls=(V(3, dtype=D),), **MADE))
c.add("ones zeros empty", Spec(calls=(V((2, 3), D),), **MADE))
c.add("full", Spec(calls=(V((2, 3), 2, D), V((2, 3), A((3,)))), **MADE))
c.add("ones_like zeros_like empty_like", Spec(calls=(V(A()),), **MADE))
c.add("full_like", Spec(calls=(V(A(), 3), V(A(), A(()))), **MADE))
c.add("tri", Spec(calls=(V(3, 4, k=0, dtype=D),), **MADE))
c.add("indices", Spec(calls=(V((2, 3)), V((2, 3), sparse=True)),
                      dtypes=("i32",), grad=False, family="exact"))
c.add("meshgrid", Spec(calls=(V(A((3,)), A((4,))),
                              V(A((3,)), A((4,)), indexing="ij")),
                       dtypes=NUMERIC, family="exact"))
c.add("hamming hanning blackman bartlett", Spec(calls=(V(7),), dtypes=F32,
                                                 grad=False,
                                                 family="transcendental"))
c.add("kaiser", Spec(calls=(V(7, 3.0),), dtypes=F32, grad=False,
                     family="special"))
c.add("array asarray", Spec(calls=(V(A()), V(A(), dtype="float32")),
                            dtypes=ALL, family="elementwise"))
c.add("astype", Spec(calls=tuple(V(A(), t) for t in
                                 ("float32", "bfloat16", "float16", "int32",
                                  "uint8", "bool", "complex64")),
                     dtypes=("f32", "bf16", "f16", "i32", "u8", "bool"),
                     grad=False))
c.add("fromfunction", Spec(calls=(V(lambda i, j: i * 3 + j, (3, 4), dtype=D),),
                           dtypes=("f32", "i32"), grad=False,
                           family="exact"))
c.add("diag_indices", Spec(calls=(V(3),), dtypes=("i32",), grad=False,
                           family="exact"))
c.add("tril_indices triu_indices", Spec(calls=(V(4), V(3, 1, 4)),
                                        dtypes=("i32",), grad=False,
                                        family="exact"))

# ---- products ---------------------------------------------------------------
PRODUCT = dict(dtypes=("f32", "f64", "bf16", "f16", "c64", "i32"),
               family="reduction")
c.add("dot matmul", Spec(calls=(V(A((3, 4)), A((4, 5))),
                                V(A((2, 3, 4)), A((2, 4, 5))),
                                V(A((3, 4)), A((4,)))), **PRODUCT))
c.add("vdot", Spec(calls=(V(A((3, 4)), A((3, 4))),), **PRODUCT))
c.add("inner", Spec(calls=(V(A((3, 4)), A((2, 4))),), **PRODUCT))
c.add("outer", Spec(calls=(V(A((3,)), A((4,))),), **PRODUCT))
c.add("matvec", Spec(calls=(V(A((3, 4)), A((4,))),), **PRODUCT))
c.add("vecmat", Spec(calls=(V(A((3,)), A((3, 4))),), **PRODUCT))
c.add("vecdot", Spec(calls=(V(A((3, 4)), A((3, 4))),), **PRODUCT))
c.add("tensordot", Spec(calls=(V(A((2, 3, 4)), A((3, 4, 5)), axes=2),
                               V(A((2, 3, 4)), A((4, 2)),
                                 axes=((0, 2), (1, 0)))),
                        **PRODUCT))
c.add("einsum", Spec(calls=(V("ij,jk->ik", A((3, 4)), A((4, 5))),
                            V("bij,bjk->bik", A((2, 3, 4)), A((2, 4, 5))),
                            V("ii->i", A((4, 4))), V("ij->", A((3, 4))),
                            V("ij,ij->j", A((3, 4)), A((3, 4)))),
                     **PRODUCT))
c.add("kron", Spec(calls=(V(A((2, 3)), A((2, 2))),), **PRODUCT))
c.add("cross", Spec(calls=(V(A((4, 3)), A((4, 3))), V(A((4, 2)), A((4, 2)))),
                    dtypes=("f32", "f64", "i32"), family="reduction"))

# ---- polynomials ------------------------------------------------------------
POLY = dict(dtypes=F32_F64, family="reduction")
c.add("poly", Spec(calls=(V(A((3,))),), **POLY))
c.add("polyadd polysub polymul", Spec(calls=(V(A((3,)), A((2,))),), **POLY))
c.add("polydiv", Spec(calls=(V(A((4,)), A((2,), "nonzero")),), **POLY))
c.add("polyder polyint", Spec(calls=(V(A((4,))), V(A((4,)), m=2)), **POLY))
c.add("polyval", Spec(calls=(V(A((4,)), A((5,))),), **POLY))
c.add("polyfit", Spec(calls=(V(A((6,), "sorted"), A((6,)), 2),),
                      dtypes=F32_F64, family="linalg"))
c.add("roots", Spec(calls=(V(A((4,), "nonzero"), strip_zeros=False),),
                    dtypes=F32_F64, grad=False, family="linalg",
                    canon=lambda leaves: [np.sort_complex(x) for x in leaves]))
c.add("vander", Spec(calls=(V(A((4,))), V(A((4,)), 3, increasing=True)),
                     dtypes=("f32", "i32")))

# ---- callables --------------------------------------------------------------
c.add("apply_along_axis", Spec(calls=(V(lambda v: v * v.sum(), 1, A()),),
                               dtypes=F32))
c.add("apply_over_axes", Spec(calls=(V(jnp.sum, A((2, 3, 4)), [0, 2]),),
                              dtypes=F32, family="reduction"))
c.add("piecewise", Spec(
    calls=(V(A((8,))),), dtypes=F32,
    wrap=lambda f: lambda x: f(x, [x < 0, x >= 0],
                               [lambda v: -v, lambda v: v * v])))
c.add("vectorize", Spec(
    calls=(V(A(), A((4,))),), dtypes=F32,
    wrap=lambda f: f(lambda a, b: a * b + jnp.sin(a))))
c.add("frompyfunc", Spec(
    calls=(V(A(), A((4,))),), dtypes=F32,
    wrap=lambda f: f(lambda a, b: a * b - b, nin=2, nout=1)))

c.skip("bfloat16 bool bool_ cdouble character complex128 complex64 complex_ "
       "complexfloating double dtype flexible float16 float32 float4_e2m1fn "
       "float64 float6_e2m3fn float6_e3m2fn float8_e3m4 float8_e4m3 "
       "float8_e4m3b11fnuz float8_e4m3fn float8_e4m3fnuz float8_e5m2 "
       "float8_e5m2fnuz float8_e8m0fnu float_ floating generic inexact int1 "
       "int16 int2 int32 int4 int64 int8 int_ integer number object_ "
       "signedinteger single csingle uint uint1 uint16 uint2 uint32 uint4 "
       "uint64 uint8 unsignedinteger ndarray ufunc ComplexWarning",
       "a type, not a function")
c.skip("can_cast promote_types result_type issubdtype isdtype finfo iinfo "
       "iscomplexobj isrealobj isscalar iterable ndim shape size "
       "broadcast_shapes einsum_path",
       "answers about types or shapes at trace time; lowers no operation")
c.skip("get_printoptions set_printoptions printoptions array_repr array_str",
       "printing")
c.skip("load save savez fromfile fromiter frombuffer fromstring from_dlpack",
       "reads or writes host data, outside the program")
c.skip("trim_zeros mask_indices",
       "output shape depends on the values; not jittable")

# ---- jnp.linalg -------------------------------------------------------------
la = linalg_catalog
LINALG = ("f32", "f64", "c64")


def signs_fixed(leaves):
    """Eigen- and singular vectors are unique up to a unit factor per
    column: scale each column so its largest entry is real positive."""
    out = []
    for x in leaves:
        if x.ndim >= 2:
            x = x.astype(np.result_type(x.dtype, np.float32))
            pivot = np.take_along_axis(
                x, np.abs(x).argmax(axis=-2)[..., None, :], axis=-2)
            phase = pivot / np.where(np.abs(pivot) == 0, 1, np.abs(pivot))
            x = x / np.where(phase == 0, 1, phase)
        out.append(x)
    return out


def sorted_complex(leaves):
    return [np.sort_complex(x.reshape(-1)) if x.ndim == 1 else x
            for x in leaves]


la.add("cholesky", Spec(calls=(V(A((4, 4), "spd")),
                               V(A((4, 4), "spd"), upper=True)),
                        dtypes=LINALG, family="linalg"))
la.add("det slogdet inv", Spec(calls=(V(A((4, 4), "wellcond")),
                                      V(A((2, 3, 3), "wellcond"))),
                               dtypes=LINALG, family="linalg"))
la.add("solve", Spec(calls=(V(A((4, 4), "wellcond"), A((4,))),
                            V(A((4, 4), "wellcond"), A((4, 2)))),
                     dtypes=LINALG, family="linalg"))
la.add("eigh", Spec(calls=(V(A((4, 4), "spd")),), dtypes=LINALG,
                    family="linalg", canon=signs_fixed))
la.add("eigvalsh", Spec(calls=(V(A((4, 4), "spd")),), dtypes=LINALG,
                        family="linalg"))
la.add("eig", Spec(calls=(V(A((4, 4), "wellcond")),), dtypes=LINALG,
                   grad=False, family="linalg", canon=signs_fixed))
la.add("eigvals", Spec(calls=(V(A((4, 4), "wellcond")),), dtypes=LINALG,
                       grad=False, family="linalg", canon=sorted_complex))
la.add("svd", Spec(calls=(V(A((4, 3)), differentiable=False),
                          V(A((4, 3)), full_matrices=False),
                          V(A((4, 3)), compute_uv=False)),
                   dtypes=LINALG, family="linalg", canon=signs_fixed))
la.add("svdvals matrix_rank", Spec(calls=(V(A((4, 3))),), dtypes=LINALG,
                                   family="linalg"))
la.add("qr", Spec(calls=(V(A((4, 3))), V(A((4, 3)), mode="complete"),
                         V(A((4, 3)), mode="r")),
                  dtypes=LINALG, family="linalg"))
la.add("pinv", Spec(calls=(V(A((4, 3))),), dtypes=LINALG, family="linalg"))
la.add("lstsq", Spec(calls=(V(A((5, 3)), A((5,))),), dtypes=LINALG,
                     family="linalg"))
la.add("cond", Spec(calls=(V(A((4, 4), "wellcond")),
                           V(A((4, 4), "wellcond"), p=1)),
                    dtypes=LINALG, family="linalg"))
la.add("matrix_power", Spec(calls=(V(A((3, 3)), 3),
                                   V(A((3, 3), "wellcond"), -2)),
                            dtypes=LINALG, family="linalg"))
la.add("norm", Spec(calls=(V(A()), V(A(), 1), V(A(), np.inf), V(A(), "fro"),
                           V(A(), 2), V(A(), "nuc"), V(A((5,)), 3)),
                    dtypes=LINALG, family="linalg"))
la.add("matrix_norm", Spec(calls=(V(A()), V(A(), ord=1)), dtypes=LINALG,
                           family="reduction"))
la.add("vector_norm", Spec(calls=(V(A()), V(A(), ord=1, axis=1)),
                           dtypes=LINALG, family="reduction"))
la.add("multi_dot", Spec(calls=(V([A((3, 4)), A((4, 5)), A((5, 2))]),),
                         dtypes=LINALG, family="reduction"))
la.add("tensorinv", Spec(calls=(V(A((4, 2, 2), "real"), ind=1),),
                         dtypes=LINALG, family="linalg",
                         wrap=lambda f: lambda a, ind: f(
                             a + 4 * jnp.eye(4, dtype=a.dtype).reshape(
                                 4, 2, 2), ind=ind)))
la.add("tensorsolve", Spec(calls=(V(A((2, 3, 6)), A((2, 3))),),
                           dtypes=LINALG, family="linalg",
                           wrap=lambda f: lambda a, b: f(
                               a + 6 * jnp.eye(6, dtype=a.dtype).reshape(
                                   2, 3, 6), b)))
la.add("cross", Spec(calls=(V(A((4, 3)), A((4, 3))),), dtypes=("f32", "i32"),
                     family="reduction"))
la.add("diagonal matrix_transpose", Spec(calls=(V(A((2, 3, 4))),),
                                         dtypes=("f32", "i32"),
                                         family="exact"))
la.add("matmul", Spec(calls=(V(A((2, 3, 4)), A((2, 4, 5))),),
                      dtypes=("f32", "i32"), family="reduction"))
la.add("outer", Spec(calls=(V(A((3,)), A((4,))),), dtypes=("f32", "i32")))
la.add("tensordot", Spec(calls=(V(A((2, 3, 4)), A((3, 4, 5))),),
                         dtypes=("f32", "i32"), family="reduction"))
la.add("trace", Spec(calls=(V(A((2, 3, 3))),), dtypes=("f32", "i32"),
                     family="reduction"))
la.add("vecdot", Spec(calls=(V(A((3, 4)), A((3, 4))),), dtypes=("f32", "c64"),
                      family="reduction"))

# ---- jnp.fft ----------------------------------------------------------------
ff = fft_catalog
FFT = ("f32", "c64", "f64", "c128")
ff.add("fft ifft", Spec(calls=(V(A((8,))), V(A((3, 8)), n=6, axis=0),
                               V(A((3, 8)), norm="ortho")),
                        dtypes=FFT, family="fft"))
ff.add("rfft", Spec(calls=(V(A((8,))), V(A((3, 8)), n=10)),
                    dtypes=("f32", "f64"), family="fft"))
ff.add("irfft hfft", Spec(calls=(V(A((3, 5))), V(A((3, 5)), n=7)),
                          dtypes=("c64", "c128"), family="fft"))
ff.add("ihfft", Spec(calls=(V(A((3, 8))),), dtypes=("f32", "f64"),
                     family="fft"))
ff.add("fft2 ifft2 fftn ifftn", Spec(calls=(V(A((4, 6))), V(A((2, 4, 6)))),
                                     dtypes=FFT, family="fft"))
ff.add("rfft2 rfftn", Spec(calls=(V(A((4, 6))), V(A((2, 4, 6)))),
                           dtypes=("f32", "f64"), family="fft"))
ff.add("irfft2 irfftn", Spec(calls=(V(A((4, 6))),), dtypes=("c64", "c128"),
                             family="fft"))
ff.add("fftfreq rfftfreq", Spec(calls=(V(8), V(7, 0.5)), dtypes=("f32",),
                                grad=False))
ff.add("fftshift ifftshift", Spec(calls=(V(A((8,))), V(A((3, 5)), axes=1)),
                                  dtypes=("f32", "c64", "i32"),
                                  family="exact"))

CATALOGS = [jnp_catalog, linalg_catalog, fft_catalog]
