"""Recipes for jax.nn, jax.scipy.special, jax.scipy.linalg,
jax.scipy.signal, jax.image and jax.random."""

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl

from .catalog_numpy import signs_fixed
from .families import Catalog, binary, unary
from .inputs import FLOAT
from .spec import A, D, K, V, Spec

F32 = ("f32",)
F32_F64 = ("f32", "f64")
IDX = "i32"
S = (3, 4)

# ---- jax.nn -----------------------------------------------------------------
nn = Catalog("nn", jax.nn)
nn.add("celu elu gelu glu hard_sigmoid hard_silu hard_swish hard_tanh "
       "identity leaky_relu log_sigmoid mish relu relu6 selu sigmoid silu "
       "soft_sign softplus sparse_plus sparse_sigmoid squareplus swish tanh",
       unary(dtypes=FLOAT))
nn.add("log1mexp", unary("pos", dtypes=FLOAT))
nn.add("softmax log_softmax", Spec(
    calls=(V(A((3, 5))), V(A((3, 5)), axis=0),
           V(A((3, 5)), where=A((3, 5), dtype="bool"), label="where")),
    dtypes=FLOAT, family="reduction"))
# The default "fast" variance, mean(x^2) - mean(x)^2, cancels to rounding
# noise over a masked row of one or two elements: "stable" there.
nn.add("standardize", Spec(
    calls=(V(A((3, 5))), V(A((3, 5)), axis=0),
           V(A((3, 5)), where=A((3, 5), dtype="bool"), algorithm="stable",
             label="where")),
    dtypes=FLOAT, family="reduction"))
nn.add("logsumexp logmeanexp", Spec(
    calls=(V(A((3, 5))), V(A((3, 5)), axis=1, keepdims=True)),
    dtypes=FLOAT, family="reduction"))
nn.add("one_hot", Spec(calls=(V(A((5,), "int:-1:6"), 5),
                              V(A((2, 3), "int:0:4"), 4, dtype=jnp.int32,
                                axis=0)),
                       dtypes=("i32", "u8"), grad=False, family="exact"))
nn.add("dot_product_attention", Spec(
    calls=(V(A((2, 5, 2, 8)), A((2, 6, 2, 8)), A((2, 6, 2, 8))),
           V(A((2, 5, 2, 8)), A((2, 5, 2, 8)), A((2, 5, 2, 8)),
             is_causal=True)),
    dtypes=("f32", "bf16"), family="reduction"))
nn.skip("get_scaled_dot_general_config", "builds a configuration object; "
        "lowers no operation")
nn.skip("scaled_matmul scaled_dot_general", "JAX 0.10.2 has no CPU lowering "
        "(scaled_matmul is cuDNN's): 'MLIR translation rule for primitive "
        "scaled_matmul not found for platform cpu'")

# ---- jax.scipy.special ------------------------------------------------------
sp = Catalog("jsp.special", jax.scipy.special)
SPECIAL = dict(dtypes=F32_F64, family="special")
sp.add("digamma gammaln loggamma gamma gammasgn", unary("pos", **SPECIAL))
sp.add("erf erfc ndtr log_ndtr dawsn erfcx expit", unary(**SPECIAL))
sp.add("erfinv", unary("unit", **SPECIAL))
sp.add("ndtri logit", unary("open01", **SPECIAL))
sp.add("i0 i0e i1 i1e", unary("wide", **SPECIAL))
sp.add("exp1 entr spence", unary("pos", **SPECIAL))
sp.add("expi", unary("nonzero", **SPECIAL))
sp.add("fresnel sici", unary("wide", **SPECIAL))
sp.add("bessel_jn", Spec(calls=(V(A(S, "pos"), v=3),), **SPECIAL))
sp.add("beta betaln", binary(("pos", "pos"), **SPECIAL))
sp.add("gammainc gammaincc", binary(("pos", "pos"), **SPECIAL))
sp.add("betainc", Spec(calls=(V(A(S, "pos"), A((4,), "pos"), A(S, "open01")),),
                       dtypes=F32_F64, family="special",
                       grad=False))  # JAX: no gradient in a and b
sp.add("boxcox boxcox1p", binary(("pos", "small"), **SPECIAL))
sp.add("comb", Spec(calls=(V(A(S, "int:4:10"), A((4,), "int:0:4")),
                           V(A(S, "int:4:10"), A((4,), "int:0:4"),
                             repetition=True)),
                    dtypes=F32_F64, grad=False, family="special"))
sp.add("factorial", Spec(calls=(V(A(S, "int:0:10")),), dtypes=F32_F64,
                         grad=False, family="special"))
sp.add("expn", Spec(calls=(V(A(S, "int:0:4", dtype=IDX), A(S, "pos")),),
                    **SPECIAL))
sp.add("hyp1f1", Spec(calls=(V(A(S, "pos"), A(S, "ge1"), A(S, "small")),),
                      **SPECIAL))
sp.add("hyp2f1", Spec(calls=(V(A(S, "pos"), A(S, "pos"), A(S, "big"),
                               A(S, "unit")),), **SPECIAL))
sp.add("kl_div rel_entr xlogy xlog1py", binary(("pos", "pos"), **SPECIAL))
sp.add("multigammaln", Spec(calls=(V(A(S, "big"), 3),), **SPECIAL))
sp.add("owens_t", binary(("real", "real"), **SPECIAL))
sp.add("poch", binary(("pos", "pos"), **SPECIAL))
sp.add("polygamma", Spec(calls=(V(A(S, "int:0:4", dtype=IDX), A(S, "pos")),),
                         dtypes=F32_F64, grad=False, family="special"))
sp.add("zeta", Spec(calls=(V(A(S, "ge1"), A(S, "pos")),), dtypes=F32_F64,
                    grad=False, family="special"))
sp.add("bernoulli", Spec(calls=(V(6),), dtypes=F32, grad=False,
                         family="special"))
sp.add("sph_harm_y", Spec(
    calls=(V(A((5,), "int:2:3", dtype=IDX), A((5,), "int:-2:3", dtype=IDX),
             A((5,), "pos"), A((5,), "real"), n_max=3),),
    dtypes=F32_F64, grad=False, family="special"))
sp.add("wofz", unary(dtypes=("c64", "c128"), family="special", grad=False,
                     special=False))
sp.add("softmax log_softmax", Spec(calls=(V(A((3, 5)), axis=1),),
                                   dtypes=FLOAT, family="reduction"))
sp.add("logsumexp", Spec(calls=(V(A((3, 5))),
                                V(A((3, 5)), axis=1, b=A((3, 5), "pos")),
                                V(A((3, 5)), axis=0, return_sign=True)),
                         dtypes=FLOAT, family="reduction"))

# ---- jax.scipy.linalg -------------------------------------------------------
la = Catalog("jsp.linalg", jsl)
LINALG = dict(dtypes=("f32", "f64", "c64"), family="linalg")
SQUARE = A((4, 4), "wellcond")


la.add("block_diag", Spec(calls=(V(A((2, 2)), A((1, 3)), A((2, 1))),),
                          dtypes=("f32", "i32"), family="exact"))
la.add("cho_factor", Spec(calls=(V(A((4, 4), "spd")),), **LINALG,
                          post=lambda out: out[0]))
la.add("cho_solve", Spec(calls=(V(A((4, 4), "tri"), A((4, 2))),), **LINALG,
                         wrap=lambda f: lambda c, b: f((c, True), b)))
la.add("cholesky", Spec(calls=(V(A((4, 4), "spd")),
                               V(A((4, 4), "spd"), lower=True)), **LINALG))
la.add("det inv", Spec(calls=(V(SQUARE),), **LINALG))
la.add("solve", Spec(calls=(V(SQUARE, A((4, 2))),
                            V(A((4, 4), "spd"), A((4,)), assume_a="pos")),
                     **LINALG))
la.add("solve_triangular", Spec(calls=(V(A((4, 4), "tri"), A((4, 2)),
                                         lower=True),
                                       V(A((4, 4), "tri"), A((4,)), trans=1,
                                         lower=True)),
                                **LINALG))
la.add("lu", Spec(calls=(V(SQUARE), V(SQUARE, permute_l=True)), **LINALG))
la.add("lu_factor", Spec(calls=(V(SQUARE),), **LINALG))
la.add("lu_solve", Spec(calls=(V(SQUARE, A((4, 2))),), **LINALG,
                        wrap=lambda f: lambda a, b: f(jsl.lu_factor(a), b)))
la.add("qr", Spec(calls=(V(A((4, 3))), V(A((4, 3)), mode="economic"),
                         V(A((4, 3)), pivoting=True)), **LINALG))
la.add("qr_multiply", Spec(calls=(V(A((4, 3)), A((2, 4))),),
                          **dict(LINALG, grad=False)))  # JAX: no geqrf rule
la.add("svd", Spec(calls=(V(A((4, 3)), differentiable=False),
                          V(A((4, 3)), compute_uv=False)),
                   canon=signs_fixed, **LINALG))
la.add("eigh", Spec(calls=(V(A((4, 4), "spd")),
                           V(A((4, 4), "spd"), eigvals_only=True)),
                    canon=signs_fixed, **LINALG))
la.add("eigh_tridiagonal", Spec(calls=(V(A((5,)), A((4,)),
                                         eigvals_only=True),),
                                dtypes=F32_F64, grad=False, family="linalg"))
la.add("expm", Spec(calls=(V(A((4, 4), "small")),), **LINALG))
la.add("expm_frechet", Spec(calls=(V(A((3, 3), "small"), A((3, 3))),),
                            **LINALG))
# JAX differentiates neither schur (funm, rsf2csf) nor hessenberg.
la.add("funm", Spec(calls=(V(A((3, 3), "spd"), jnp.sin),),
                    dtypes=F32_F64, grad=False, family="linalg"))
la.add("hessenberg", Spec(calls=(V(A((4, 4))), V(A((4, 4)), calc_q=True)),
                          **dict(LINALG, grad=False)))
la.add("schur", Spec(calls=(V(A((4, 4))),), **dict(LINALG, grad=False)))
la.add("rsf2csf", Spec(calls=(V(A((4, 4))),), dtypes=F32_F64, grad=False,
                       family="linalg",
                       wrap=lambda f: lambda a: f(*jsl.schur(a))))
# polar's default QDWH iterates a while_loop with traced bounds; sqrtm and
# solve_sylvester go through schur: JAX differentiates none of them.
la.add("polar", Spec(calls=(V(A((4, 3)), differentiable=False),
                            V(A((4, 4), "wellcond"), side="left",
                              method="svd")),
                     **LINALG))
la.add("sqrtm", Spec(calls=(V(A((3, 3), "spd")),), **dict(LINALG, grad=False)))
la.add("solve_sylvester", Spec(calls=(V(A((3, 3), "wellcond"),
                                        A((2, 2), "wellcond"), A((3, 2))),),
                               **dict(LINALG, grad=False)))
la.add("circulant fiedler hankel toeplitz",
       Spec(calls=(V(A((4,), "nonzero")),), dtypes=("f32", "i32"),
            family="exact"))
la.add("companion fiedler_companion",  # divide by the leading coefficient
       Spec(calls=(V(A((4,), "nonzero")),), dtypes=("f32", "i32"),
            family="elementwise"))
la.add("convolution_matrix", Spec(calls=(V(A((3,)), 5),
                                         V(A((3,)), 5, "same")),
                                  dtypes=("f32", "i32"), family="exact"))
la.add("leslie", Spec(calls=(V(A((4,)), A((3,))),), dtypes=("f32",),
                      family="exact"))
la.add("dft", Spec(calls=(V(4), V(5, scale="sqrtn")), dtypes=F32,
                   grad=False, family="transcendental"))
la.add("hadamard", Spec(calls=(V(4, dtype=D),), dtypes=("f32", "i32"),
                        grad=False, family="exact"))
la.add("helmert hilbert", Spec(calls=(V(4),), dtypes=F32, grad=False,
                               family="elementwise"))
# Binomial coefficients through exp(gammaln(...)).
la.add("invhilbert pascal invpascal", Spec(calls=(V(4),), dtypes=F32,
                                           grad=False, family="special"))

# ---- jax.scipy.signal -------------------------------------------------------
sg = Catalog("jsp.signal", jax.scipy.signal)
SIGNAL = dict(dtypes=("f32", "f64", "c64"), family="reduction")
sg.add("convolve correlate", Spec(
    calls=(V(A((10,)), A((3,))), V(A((10,)), A((3,)), mode="same"),
           V(A((10,)), A((4,)), method="fft", label="fft")), **SIGNAL))
sg.add("convolve2d correlate2d", Spec(
    calls=(V(A((5, 6)), A((3, 3))), V(A((5, 6)), A((2, 3)), mode="valid"),
           V(A((5, 6)), A((3, 2)), mode="same")),
    **SIGNAL))
sg.add("fftconvolve", Spec(calls=(V(A((10,)), A((3,))),
                                  V(A((5, 6)), A((3, 3)), mode="same")),
                           dtypes=("f32", "f64", "c64"), family="fft"))
sg.add("detrend", Spec(calls=(V(A((3, 16))), V(A((16,)), type="constant")),
                       dtypes=F32_F64, family="reduction"))
sg.add("stft", Spec(calls=(V(A((64,)), nperseg=16),), dtypes=F32_F64,
                    family="fft"))
sg.add("istft", Spec(calls=(V(A((64,))),), dtypes=F32_F64, family="fft",
                     wrap=lambda f: lambda x: f(
                         jax.scipy.signal.stft(x, nperseg=16)[2],
                         nperseg=16)))
sg.add("welch", Spec(calls=(V(A((64,)), nperseg=16),), dtypes=F32_F64,
                     family="fft"))
sg.add("csd", Spec(calls=(V(A((64,)), A((64,)), nperseg=16),),
                   dtypes=F32_F64, family="fft"))

# ---- jax.image --------------------------------------------------------------
im = Catalog("image", jax.image)
im.add("resize", Spec(
    calls=tuple(V(A((4, 6, 2)), (7, 3, 2), method) for method in
                ("nearest", "linear", "cubic", "lanczos3", "lanczos5")) +
    (V(A((4, 6)), (8, 12), "linear", antialias=False),),
    dtypes=("f32", "f64", "bf16"), family="reduction"))
im.add("scale_and_translate", Spec(
    calls=(V(A((4, 6)), (6, 9), (0, 1), A((2,), "ge1"), A((2,), "small"),
             "linear"),),
    dtypes=("f32",), family="reduction"))
im.skip("ResizeMethod", "a type, not a function")

# ---- jax.random -------------------------------------------------------------
rnd = Catalog("random", jax.random)
IMPLS = ("threefry2x32", "rbg")
RFLOAT = dict(dtypes=("f32", "f64", "bf16"), grad=False, family="random",
              impls=IMPLS)
RINT = dict(dtypes=("i32", "u8"), grad=False, family="exact", impls=IMPLS)
SHAPE = (3, 4)
for name in ("normal uniform cauchy exponential gumbel laplace logistic "
             "maxwell").split():
    rnd.add(name, Spec(calls=(V(K(), SHAPE, D),), **RFLOAT))
rnd.add("ball", Spec(calls=(V(K(), 3, 2, (4,), D),), **RFLOAT))
rnd.add("bernoulli", Spec(calls=(V(K(), 0.3, SHAPE),
                                 V(K(), A(SHAPE, "open01"))),
                          **dict(RFLOAT, dtypes=F32)))
rnd.add("beta", Spec(calls=(V(K(), 2.0, 3.0, SHAPE, D),), **RFLOAT))
rnd.add("binomial", Spec(calls=(V(K(), 10.0, 0.4, SHAPE, D),), **RFLOAT))
rnd.add("categorical", Spec(calls=(V(K(), A((3, 5))),
                                   V(K(), A((3, 5)), shape=(2, 3))),
                            **RFLOAT))
rnd.add("chisquare t", Spec(calls=(V(K(), 3.0, SHAPE, D),), **RFLOAT))
rnd.add("choice", Spec(calls=(V(K(), A((6,)), (3,)),
                              V(K(), A((6,)), (3,), replace=False),
                              V(K(), A((6,)), (4,), p=A((6,), "open01"))),
                       **RFLOAT))
rnd.add("dirichlet", Spec(calls=(V(K(), A((3,), "pos"), (2,), D),), **RFLOAT))
rnd.add("double_sided_maxwell", Spec(calls=(V(K(), 0.5, 2.0, SHAPE, D),),
                                     **RFLOAT))
rnd.add("f", Spec(calls=(V(K(), 3.0, 5.0, SHAPE, D),), **RFLOAT))
rnd.add("gamma loggamma", Spec(calls=(V(K(), A(SHAPE, "pos"), dtype=D),),
                               **RFLOAT))
rnd.add("generalized_normal", Spec(calls=(V(K(), 1.5, SHAPE, D),), **RFLOAT))
rnd.add("lognormal", Spec(calls=(V(K(), 0.5, SHAPE, D),), **RFLOAT))
# Factorizations have no bfloat16 in JAX.
rnd.add("multivariate_normal", Spec(
    calls=(V(K(), A((3,)), A((3, 3), "spd"), (2,)),
           V(K(), A((3,)), A((3, 3), "spd"), (2,), method="eigh")),
    **dict(RFLOAT, dtypes=F32_F64)))
rnd.add("orthogonal", Spec(calls=(V(K(), 3, (), D),),
                           **dict(RFLOAT, dtypes=F32_F64)))
rnd.add("pareto rayleigh wald", Spec(calls=(V(K(), 2.0, SHAPE, D),),
                                     **RFLOAT))
rnd.add("triangular", Spec(calls=(V(K(), 0.0, 0.3, 1.0, SHAPE, D),),
                           **RFLOAT))
rnd.add("truncated_normal", Spec(calls=(V(K(), -1.0, 2.0, SHAPE, D),),
                                 **RFLOAT))
rnd.add("weibull_min", Spec(calls=(V(K(), 1.5, 2.0, SHAPE, D),), **RFLOAT))
rnd.add("geometric poisson", Spec(calls=(V(K(), 0.3, SHAPE, D),), **RINT))
rnd.add("multinomial", Spec(calls=(V(K(), 10.0, A((4,), "open01")),),
                            **RFLOAT))
rnd.add("rademacher", Spec(calls=(V(K(), SHAPE, D),), **RINT))
rnd.add("randint", Spec(calls=(V(K(), SHAPE, 0, 10, D),
                               V(K(), SHAPE, A(SHAPE, "int:-5:0"),
                                 A(SHAPE, "int:1:6"), label="arrays")),
                        **RINT))
rnd.add("permutation", Spec(calls=(V(K(), 6), V(K(), A((5, 3)), axis=1,
                                                  independent=True)),
                            dtypes=("f32", "i32"), grad=False,
                            family="exact", impls=IMPLS))
rnd.add("bits", Spec(calls=(V(K(), SHAPE, D),), dtypes=("u32", "u8", "u64"),
                     grad=False, family="exact", impls=IMPLS))
KEYS = dict(dtypes=("u32",), grad=False, family="exact", impls=IMPLS,
            post=jax.random.key_data)
rnd.add("split", Spec(calls=(V(K()), V(K(), 3), V(K(), (2, 2))), **KEYS))
rnd.add("fold_in", Spec(calls=(V(K(), 7), V(K(), A((), "int:0:100",
                                                      dtype="u32"))),
                        **KEYS))
rnd.add("clone", Spec(calls=(V(K()),), **KEYS))
rnd.add("key PRNGKey", Spec(calls=(V(A((), "int:0:1000", dtype=IDX)),),
                            dtypes=("u32",), grad=False, family="exact",
                            post=lambda k: k if k.dtype == jnp.uint32 else
                            jax.random.key_data(k)))
rnd.add("key_data", Spec(calls=(V(K()),), dtypes=("u32",), grad=False,
                         family="exact", impls=IMPLS))
rnd.add("wrap_key_data", Spec(calls=(V(A((2,), "int:0:100000", dtype="u32")),),
                              dtypes=("u32",), grad=False, family="exact",
                              post=jax.random.key_data))
rnd.skip("key_dtype key_impl", "answers about key types at trace time; "
         "lowers no operation")

CATALOGS = [nn, sp, la, sg, im, rnd]
