"""The workloads of bench/workloads/run.py: JAX functions of realistic size.

Each workload is a JAX function and its inputs (NumPy arrays, generated from
a seed fixed by the workload's name, so every run and every engine sees the
same values). Sizes are chosen so that each takes at least 1 ms per execution
under XLA:CPU on the 2-core development machine, except the ones marked
`issue`, which keep the size issue 11's table measured them at (so its
figures and this suite's can be compared) even where that is below 1 ms.
Random keys, loop bounds' data and indices are inputs, never constants, so
no engine can fold the work away at compile time.

`quick` marks the subset the smoke test checks (tests/python/
test_workloads_smoke.py): fast under xffi today and spread over the families.
"""

import dataclasses
import zlib
from typing import Callable, List

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax import lax


@dataclasses.dataclass(frozen=True)
class Workload:
  name: str
  family: str
  description: str
  fn: Callable
  make_inputs: Callable[[], List[np.ndarray]]
  x64: bool = False  # traced and run with jax_enable_x64
  quick: bool = False
  issue: bool = False  # a row of issue 11's table, at its size
  # The float results' atol (a fraction of the largest |reference|) where
  # the dtype's default (run.TOLERANCES) is smaller: for a result that f32
  # cannot give more closely, XLA's own f32 result being that far from the
  # f64 one (bench/README.md says where it is used and why).
  atol: float = None

  def inputs(self) -> List[np.ndarray]:
    return self.make_inputs(np.random.default_rng(zlib.crc32(
        self.name.encode())))


WORKLOADS = {}


def workload(family, description, *, x64=False, quick=False, issue=False,
             atol=None):
  """Registers `make(rng) -> (fn, inputs)` under its function name."""

  def register(make):
    def inputs(rng):
      return make(rng)[1]

    fn = make(None)[0]
    WORKLOADS[make.__name__] = Workload(make.__name__, family, description,
                                        fn, inputs, x64, quick, issue, atol)
    return make

  return register


def normal(rng, *shape, dtype=np.float32, scale=1.0):
  if rng is None:  # only the function is wanted
    return None
  return (rng.standard_normal(shape) * scale).astype(dtype)


def uniform(rng, low, high, *shape, dtype=np.float32):
  if rng is None:
    return None
  return rng.uniform(low, high, shape).astype(dtype)


def integers(rng, low, high, *shape, dtype=np.int32):
  if rng is None:
    return None
  return rng.integers(low, high, shape, dtype=np.int64).astype(dtype)


# --- dense layers, attention, normalisations ---------------------------------


def gelu_mlp(x, w1, b1, w2, b2):
  return jax.nn.gelu(x @ w1 + b1) @ w2 + b2


@workload("dense", "MLP 512x1024 -> 2048 -> 1024, GELU", issue=True)
def mlp_gelu(rng):
  return gelu_mlp, [
      normal(rng, 512, 1024),
      normal(rng, 1024, 2048, scale=0.03),
      normal(rng, 2048, scale=0.1),
      normal(rng, 2048, 1024, scale=0.02),
      normal(rng, 1024, scale=0.1)
  ]


def causal_attention(q, k, v):
  scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) / np.sqrt(q.shape[-1])
  tokens = q.shape[2]
  causal = jnp.tril(jnp.ones((tokens, tokens), bool))
  scores = jnp.where(causal, scores, -jnp.inf)
  return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(scores, axis=-1), v)


@workload("attention",
          "causal attention, batch 4, 8 heads, 256 tokens, head dim 64",
          issue=True)
def attention_causal(rng):
  return causal_attention, [normal(rng, 4, 8, 256, 64) for _ in range(3)]


@workload("normalisation", "layer norm over 2048x1024 f32 (scale, bias)",
          quick=True, issue=True)
def layer_norm(rng):

  def fn(x, gamma, beta):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.var(x, axis=-1, keepdims=True)
    return (x - mean) * lax.rsqrt(var + 1e-5) * gamma + beta

  return fn, [
      normal(rng, 2048, 1024, scale=3.0),
      normal(rng, 1024),
      normal(rng, 1024)
  ]


@workload("normalisation", "RMS norm over 4096x1024 f32 (scale)")
def rms_norm(rng):

  def fn(x, weight):
    rms = lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-6)
    return x * rms * weight

  return fn, [normal(rng, 4096, 1024), normal(rng, 1024)]


@workload("normalisation", "softmax over 1000x3001 f32 (last axis)",
          quick=True, issue=True)
def softmax(rng):
  return lambda x: jax.nn.softmax(x, axis=-1), [normal(rng, 1000, 3001)]


@workload("normalisation",
          "cross-entropy of 4096x1000 logits with int32 labels", issue=True)
def cross_entropy(rng):

  def fn(logits, labels):
    logp = jax.nn.log_softmax(logits, axis=-1)
    picked = jnp.take_along_axis(logp, labels[:, None], axis=-1)
    return -jnp.mean(picked)

  return fn, [normal(rng, 4096, 1000), integers(rng, 0, 1000, 4096)]


# --- backward passes ---------------------------------------------------------


@workload("backward", "jax.grad of an MLP's MSE loss, 256x512 -> 1024 -> 512,"
          " w.r.t. both weights")
def mlp_grad(rng):

  def loss(w1, w2, x, y):
    return jnp.mean((jax.nn.gelu(x @ w1) @ w2 - y)**2)

  return jax.grad(loss, argnums=(0, 1)), [
      normal(rng, 512, 1024, scale=0.04),
      normal(rng, 1024, 512, scale=0.03),
      normal(rng, 256, 512),
      normal(rng, 256, 512)
  ]


@workload("backward", "jax.grad of causal attention (batch 2, 4 heads, "
          "256 tokens, head dim 64) w.r.t. q, k, v")
def attention_grad(rng):

  def loss(q, k, v, cotangent):
    return jnp.sum(causal_attention(q, k, v) * cotangent)

  return jax.grad(loss, argnums=(0, 1, 2)), [
      normal(rng, 2, 4, 256, 64) for _ in range(4)
  ]


# --- reductions and cumulative ops -------------------------------------------


@workload("reduction", "mean, var, max, argmax, logsumexp of 1024x4096 f32 "
          "along axis 1", issue=True)
def reductions_axis1(rng):

  def fn(x):
    return (jnp.mean(x, axis=1), jnp.var(x, axis=1), jnp.max(x, axis=1),
            jnp.argmax(x, axis=1), jax.nn.logsumexp(x, axis=1))

  return fn, [normal(rng, 1024, 4096)]


@workload("reduction", "sum, mean, var, max, argmax, logsumexp of 4096x1024 "
          "f32 along axis 0")
def reductions_axis0(rng):

  def fn(x):
    return (jnp.sum(x, axis=0), jnp.mean(x, axis=0), jnp.var(x, axis=0),
            jnp.max(x, axis=0), jnp.argmax(x, axis=0),
            jax.nn.logsumexp(x, axis=0))

  return fn, [normal(rng, 4096, 1024)]


# --- Fourier transforms -----------------------------------------------------


@workload("fft", "rfft of 1024x4096 f32 along the last axis")
def rfft_rows(rng):
  return lambda x: jnp.fft.rfft(x, axis=-1), [normal(rng, 1024, 4096)]


@workload("fft", "fft2 of 512x512 complex64")
def fft2_c64(rng):
  def make(re, im):
    return jnp.fft.fft2(lax.complex(re, im))
  return make, [normal(rng, 512, 512), normal(rng, 512, 512)]


@workload("fft", "FFT filter of 256x4096 f32: rfft, gain, irfft")
def fft_filter(rng):
  def fft_filter_fn(x, gain):
    return jnp.fft.irfft(jnp.fft.rfft(x, axis=-1) * gain, n=4096, axis=-1)
  return fft_filter_fn, [normal(rng, 256, 4096), normal(rng, 2049)]


@workload("cumulative", "cumsum of 256x4096 f32 along axis 1", issue=True)
def cumsum_axis1(rng):
  return lambda x: jnp.cumsum(x, axis=1), [normal(rng, 256, 4096)]


@workload("cumulative", "cumsum of 1024x1024 f32 along axis 0")
def cumsum_axis0(rng):
  return lambda x: jnp.cumsum(x, axis=0), [normal(rng, 1024, 1024)]


@workload("cumulative", "cumprod of 512x2048 f32 along axis 0 (factors near 1)")
def cumprod_axis0(rng):
  return lambda x: jnp.cumprod(x, axis=0), [
      uniform(rng, 0.995, 1.005, 512, 2048)
  ]


@workload("cumulative", "cummax of 2048x512 f32 along axis 1")
def cummax_axis1(rng):
  return lambda x: lax.cummax(x, axis=1), [normal(rng, 2048, 512)]


# --- elementwise chains, one per dtype family --------------------------------


def float_chain(x):
  return (jnp.tanh(x) * jnp.exp(-x * x) + jnp.sin(x) * jnp.cos(x) -
          jnp.log1p(jnp.abs(x)) + jnp.sqrt(jnp.abs(x) + 1) / (1 + x * x))


@workload("elementwise", "f32 chain (tanh, exp, sin, cos, log1p, sqrt, "
          "divide) over 2048x2048")
def elementwise_f32(rng):
  return float_chain, [normal(rng, 2048, 2048)]


@workload("elementwise", "the f32 chain in f64 over 1024x1024", x64=True)
def elementwise_f64(rng):
  return float_chain, [normal(rng, 1024, 1024, dtype=np.float64)]


def half_chain(x, y):
  return jnp.tanh(x * y) + jnp.exp(x * 0.5) * y - jnp.maximum(x, y) / (
      1 + y * y)


@workload("elementwise", "bf16 chain (tanh, exp, max, divide) over 2048x2048")
def elementwise_bf16(rng):
  return half_chain, [
      normal(rng, 2048, 2048, dtype=ml_dtypes.bfloat16) for _ in range(2)
  ]


@workload("elementwise", "f16 chain (tanh, exp, max, divide) over 2048x2048")
def elementwise_f16(rng):
  return half_chain, [
      normal(rng, 2048, 2048, dtype=np.float16) for _ in range(2)
  ]


@workload("elementwise", "i32 chain (mul, add, xor, shifts, remainder, max, "
          "abs, clamp) over 2048x2048", quick=True)
def elementwise_i32(rng):

  def fn(a, b):
    c = a * 3 + b
    c = c ^ (c >> 3)
    c = jnp.maximum(c % 1009, jnp.abs(b) << 2)
    return jnp.clip(c - a, -5000, 5000)

  return fn, [
      integers(rng, -100000, 100000, 2048, 2048),
      integers(rng, -1000, 1000, 2048, 2048)
  ]


@workload("integer/bit", "uint32 xorshift hashing of 4M elements (4 rounds)",
          issue=True)
def xorshift_u32(rng):

  def fn(x):
    for _ in range(4):
      x = x ^ (x << 13)
      x = x ^ (x >> 17)
      x = x ^ (x << 5)
      x = x * np.uint32(0x9E3779B9)
    return x

  return fn, [integers(rng, 0, 2**32, 4 * 1024 * 1024, dtype=np.uint32)]


@workload("integer/bit", "popcount, count-leading-zeros, and/or/xor, rotate "
          "on 4M uint32")
def bits_popcount(rng):

  def fn(x, y):
    rotated = (x << 7) | (x >> 25)
    mixed = (rotated & y) | (x ^ y)
    return lax.population_count(mixed) + lax.clz(x & ~y)

  return fn, [
      integers(rng, 0, 2**32, 4 * 1024 * 1024, dtype=np.uint32)
      for _ in range(2)
  ]


@workload("elementwise", "int8 chain (add, mul, shift, max, wrap-around) "
          "over 4096x4096")
def elementwise_i8(rng):

  def fn(a, b):
    c = (a + b) * np.int8(3) - (a >> 1)
    return jnp.maximum(c, b) ^ a

  return fn, [
      integers(rng, -128, 128, 4096, 4096, dtype=np.int8) for _ in range(2)
  ]


@workload("elementwise", "compare/select/logical ops on 2048x2048 f32, "
          "with a bool result", quick=True)
def compare_select(rng):

  def fn(x, y):
    mask = ((x > 0) & ~(y < 0.5)) | (x == jnp.floor(y))
    picked = jnp.where(mask, x * y, x - y)
    return picked, mask ^ (jnp.abs(x) > jnp.abs(y))

  return fn, [normal(rng, 2048, 2048), normal(rng, 2048, 2048)]


@workload("elementwise", "complex64 chain (mul, exp, conj, abs, divide) "
          "over 1024x1024")
def elementwise_c64(rng):

  def fn(z, w):
    return z * w + jnp.exp(z * 0.1) * jnp.conj(w) / (jnp.abs(z) + 1)

  def complex_normal():
    if rng is None:
      return None
    return (normal(rng, 1024, 1024) +
            1j * normal(rng, 1024, 1024)).astype(np.complex64)

  return fn, [complex_normal(), complex_normal()]


# --- integer matmul ----------------------------------------------------------


def int8_matmul(a, b):
  return lax.dot(a, b, preferred_element_type=jnp.int32)


@workload("integer matmul", "int8 x int8 -> int32 matmul 256x512x256",
          quick=True, issue=True)
def int8_matmul_small(rng):
  return int8_matmul, [
      integers(rng, -128, 128, 256, 512, dtype=np.int8),
      integers(rng, -128, 128, 512, 256, dtype=np.int8)
  ]


@workload("integer matmul", "int8 x int8 -> int32 matmul 1024x1024x512")
def int8_matmul_large(rng):
  return int8_matmul, [
      integers(rng, -128, 128, 1024, 1024, dtype=np.int8),
      integers(rng, -128, 128, 1024, 512, dtype=np.int8)
  ]


# --- random numbers (the key is an input) ------------------------------------


@workload("random", "jax.random.normal of 1M f32 values, threefry key",
          issue=True)
def random_normal_threefry(rng):

  def fn(key_data):
    key = jax.random.wrap_key_data(key_data, impl="threefry2x32")
    return jax.random.normal(key, (1024, 1024), jnp.float32)

  return fn, [integers(rng, 0, 2**32, 2, dtype=np.uint32)]


@workload("random", "jax.random.uniform of 4M f32 values, rbg key")
def random_uniform_rbg(rng):

  def fn(key_data):
    key = jax.random.wrap_key_data(key_data, impl="rbg")
    return jax.random.uniform(key, (2048, 2048), jnp.float32)

  return fn, [integers(rng, 0, 2**32, 4, dtype=np.uint32)]


# --- gathers and scatters ----------------------------------------------------


@workload("gather", "embedding lookup: 128x256 int32 ids into a 262144x64 "
          "f32 table")
def embedding_lookup(rng):
  return lambda table, ids: jnp.take(table, ids, axis=0), [
      normal(rng, 262144, 64),
      integers(rng, 0, 262144, 128, 256)
  ]


@workload("gather", "take_along_axis of 1024x4096 f32 with 1024x2048 indices")
def take_along_axis(rng):
  return lambda x, idx: jnp.take_along_axis(x, idx, axis=1), [
      normal(rng, 1024, 4096),
      integers(rng, 0, 4096, 1024, 2048)
  ]


@workload("scatter", ".at[idx].add of 256k f32 values into 64k, with "
          "duplicates", quick=True, issue=True)
def scatter_add(rng):
  return lambda base, idx, values: base.at[idx].add(values), [
      normal(rng, 65536),
      integers(rng, 0, 65536, 262144),
      normal(rng, 262144)
  ]


@workload("scatter", ".at[rows].set of 8192 distinct rows into 16384x256 f32")
def scatter_set_rows(rng):

  def rows():
    if rng is None:
      return None
    return rng.permutation(16384)[:8192].astype(np.int32)

  return lambda base, idx, values: base.at[idx].set(values), [
      normal(rng, 16384, 256),
      rows(),
      normal(rng, 8192, 256)
  ]


# --- sorting -----------------------------------------------------------------


@workload("sort", "jnp.sort of 1M f32", issue=True)
def sort_1m(rng):
  return jnp.sort, [normal(rng, 1024 * 1024)]


@workload("sort", "jnp.argsort of 512 rows of 2048 f32", issue=True)
def argsort_rows(rng):
  return lambda x: jnp.argsort(x, axis=-1), [normal(rng, 512, 2048)]


@workload("sort", "top-16 values and indices of 256 rows of 4096 f32, by "
          "a two-operand sort")
def topk_via_sort(rng):

  def fn(x):
    iota = lax.broadcasted_iota(jnp.int32, x.shape, 1)
    values, indices = lax.sort((-x, iota), dimension=1, num_keys=1)
    return -values[:, :16], indices[:, :16]

  return fn, [normal(rng, 256, 4096)]


# --- layout ------------------------------------------------------------------


@workload("layout", "3-D transposes (2,0,1), (1,2,0), (0,2,1) of 64x512x128 "
          "f32", issue=True)
def transpose_3d(rng):
  return lambda x: (x.transpose(2, 0, 1), x.transpose(1, 2, 0),
                    x.transpose(0, 2, 1)), [normal(rng, 64, 512, 128)]


@workload("layout", "split 8x512x1024 into 16 heads of 64, move heads last, "
          "merge (reshape, transpose, reshape)")
def reshape_heads(rng):

  def fn(x):
    b, t, _ = x.shape
    heads = x.reshape(b, t, 16, 64).transpose(0, 1, 3, 2)
    return heads.reshape(b, t, 1024)

  return fn, [normal(rng, 8, 512, 1024)]


# --- loops -------------------------------------------------------------------


@workload("loop", "fori_loop writing one row per step with "
          "dynamic_update_slice (512 steps, 512x256)", quick=True, issue=True)
def fori_update_rows(rng):

  def fn(rows):

    def body(i, out):
      row = lax.dynamic_slice_in_dim(rows, i, 1) * 2.0 + i.astype(jnp.float32)
      return lax.dynamic_update_slice_in_dim(out, row, i, axis=0)

    return lax.fori_loop(0, rows.shape[0], body, jnp.zeros_like(rows))

  return fn, [normal(rng, 512, 256)]


@workload("loop", "lax.scan of a tanh RNN cell, 128 steps, batch 32, "
          "hidden 256")
def scan_rnn(rng):

  def fn(h0, xs, w):

    def cell(h, x):
      h = jnp.tanh(h @ w + x)
      return h, h

    return lax.scan(cell, h0, xs)

  return fn, [
      normal(rng, 32, 256),
      normal(rng, 128, 32, 256),
      normal(rng, 256, 256, scale=0.06)
  ]


@workload("loop", "while_loop of Newton steps for sqrt of 1M f32 until "
          "converged (data-dependent trip count)", quick=True)
def while_newton(rng):

  def fn(a):

    def not_converged(state):
      x, steps = state
      error = jnp.max(jnp.abs(x * x - a) / a)
      return (error > 1e-6) & (steps < 100)

    def step(state):
      x, steps = state
      return 0.5 * (x + a / x), steps + 1

    return lax.while_loop(not_converged, step, (a, jnp.int32(0)))

  return fn, [uniform(rng, 1.0, 1e4, 1024 * 1024)]


# --- convolutional networks --------------------------------------------------

NHWC = ("NHWC", "HWIO", "NHWC")


def conv_relu(x, w, stride=1):
  return jax.nn.relu(lax.conv_general_dilated(x, w, (stride, stride), "SAME",
                                              dimension_numbers=NHWC))


@workload("convolution", "3x3 conv + relu, NHWC 8x32x32x64 -> 64 (HWIO)")
def conv3x3_nhwc(rng):
  return conv_relu, [
      normal(rng, 8, 32, 32, 64),
      normal(rng, 3, 3, 64, 64, scale=0.05)
  ]


@workload("convolution", "3x3 conv, NCHW 8x64x32x32 -> 64 (OIHW), "
          "lax.conv's default layout")
def conv3x3_nchw(rng):
  return lambda x, w: lax.conv(x, w, (1, 1), "SAME"), [
      normal(rng, 8, 64, 32, 32),
      normal(rng, 64, 64, 3, 3, scale=0.05)
  ]


@workload("convolution", "depthwise 3x3 conv, NHWC 8x56x56x128, stride 1")
def conv_depthwise(rng):

  def fn(x, w):
    return lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                    dimension_numbers=NHWC,
                                    feature_group_count=128)

  return fn, [normal(rng, 8, 56, 56, 128), normal(rng, 3, 3, 1, 128)]


@workload("convolution", "jax.grad of a 3x3 conv + relu (NHWC 8x32x32x64 -> "
          "64) w.r.t. input and kernel")
def conv3x3_grad(rng):

  def loss(x, w, cotangent):
    return jnp.sum(conv_relu(x, w) * cotangent)

  return jax.grad(loss, argnums=(0, 1)), [
      normal(rng, 8, 32, 32, 64),
      normal(rng, 3, 3, 64, 64, scale=0.05),
      normal(rng, 8, 32, 32, 64)
  ]


@workload("convolution", "CNN train step: 3 convs (32, 64, 64 ch) + max-pool "
          "+ dense on 16x32x32x3, SGD")
def cnn_train_step(rng):

  def logits(params, x):
    w1, w2, w3, w4 = params
    y = conv_relu(x, w1)
    y = lax.reduce_window(y, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1),
                          "VALID")
    y = conv_relu(conv_relu(y, w2, 2), w3)
    return jnp.mean(y, axis=(1, 2)) @ w4

  def step(w1, w2, w3, w4, x, labels):
    def loss(params):
      out = jax.nn.log_softmax(logits(params, x))
      return -jnp.mean(jnp.take_along_axis(out, labels[:, None], axis=1))

    params = (w1, w2, w3, w4)
    grads = jax.grad(loss)(params)
    return tuple(p - 0.01 * g for p, g in zip(params, grads))

  return step, [
      normal(rng, 3, 3, 3, 32, scale=0.2),
      normal(rng, 3, 3, 32, 64, scale=0.06),
      normal(rng, 3, 3, 64, 64, scale=0.04),
      normal(rng, 64, 10, scale=0.1),
      normal(rng, 16, 32, 32, 3),
      integers(rng, 0, 10, 16)
  ]


# --- whole models: one training step or a forward pass ------------------------
#
# Each mixes every kind of op in one program (dots, normalisations, softmax,
# gathers and their scatter-add gradients, convolutions, loops) and so
# stresses fusion, buffer assignment and memory together. Parameters and
# optimiser state are inputs; the optimiser states are those of a run already
# under way (moments nonzero, step count past one), so that no update
# reduces to the sign of a gradient, which rounding could flip.


def layer_norm_affine(x, gamma, beta, eps=1e-5):
  mean = jnp.mean(x, axis=-1, keepdims=True)
  var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
  return (x - mean) * lax.rsqrt(var + eps) * gamma + beta


def multi_head_attention(x, w_qkv, w_out, heads, causal):
  batch, tokens, width = x.shape
  qkv = (x @ w_qkv).reshape(batch, tokens, 3, heads, width // heads)
  q, k, v = (qkv[:, :, i].transpose(0, 2, 1, 3) for i in range(3))
  scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) / np.sqrt(width // heads)
  if causal:
    mask = jnp.tril(jnp.ones((tokens, tokens), bool))
    scores = jnp.where(mask, scores, -1e9)
  mixed = jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(scores, axis=-1), v)
  return mixed.transpose(0, 2, 1, 3).reshape(batch, tokens, width) @ w_out


def transformer_layer(x, layer, heads, causal):
  """A pre-layer-norm block: attention, then an MLP, each residual."""
  ln1_g, ln1_b, w_qkv, w_out, ln2_g, ln2_b, w1, b1, w2, b2 = layer
  x = x + multi_head_attention(layer_norm_affine(x, ln1_g, ln1_b), w_qkv,
                               w_out, heads, causal)
  hidden = jax.nn.gelu(layer_norm_affine(x, ln2_g, ln2_b) @ w1 + b1)
  return x + hidden @ w2 + b2


def transformer_layer_params(rng, width, mlp):
  return [
      1 + normal(rng, width, scale=0.1) if rng is not None else None,
      normal(rng, width, scale=0.1),
      normal(rng, width, 3 * width, scale=width**-0.5),
      normal(rng, width, width, scale=width**-0.5),
      1 + normal(rng, width, scale=0.1) if rng is not None else None,
      normal(rng, width, scale=0.1),
      normal(rng, width, mlp, scale=width**-0.5),
      normal(rng, mlp, scale=0.1),
      normal(rng, mlp, width, scale=mlp**-0.5),
      normal(rng, width, scale=0.1),
  ]


GPT = dict(vocab=1024, width=256, heads=4, tokens=128, batch=8, layers=2)


def gpt_params(rng):
  width = GPT["width"]
  params = [
      normal(rng, GPT["vocab"], width, scale=0.05),  # tied with the output
      normal(rng, GPT["tokens"], width, scale=0.02),  # positions
  ]
  for _ in range(GPT["layers"]):
    params += transformer_layer_params(rng, width, 4 * width)
  params += [1 + normal(rng, width, scale=0.1) if rng is not None else None,
             normal(rng, width, scale=0.1)]
  return params


def gpt_loss(params, tokens, targets):
  embedding, positions = params[0], params[1]
  x = jnp.take(embedding, tokens, axis=0) + positions
  for i in range(GPT["layers"]):
    x = transformer_layer(x, params[2 + 10 * i:12 + 10 * i], GPT["heads"],
                          causal=True)
  x = layer_norm_affine(x, params[-2], params[-1])
  logp = jax.nn.log_softmax(x @ embedding.T, axis=-1)
  picked = jnp.take_along_axis(logp, targets[..., None], axis=-1)
  return -jnp.mean(picked)


def adamw(params, grads, m, v, step, lr=3e-4, b1=0.9, b2=0.999, eps=1e-8,
          decay=0.01):
  """One AdamW update written in jnp, with bias correction at `step`."""
  step = step.astype(jnp.float32)
  m = [b1 * mi + (1 - b1) * g for mi, g in zip(m, grads)]
  v = [b2 * vi + (1 - b2) * g * g for vi, g in zip(v, grads)]
  m_scale, v_scale = 1 / (1 - b1**step), 1 / (1 - b2**step)
  params = [
      p - lr * (mi * m_scale / (jnp.sqrt(vi * v_scale) + eps) + decay * p)
      for p, mi, vi in zip(params, m, v)
  ]
  return params, m, v


def moments(rng, params):
  """AdamW moments of a run under way: m of either sign, v positive."""
  if rng is None:
    return [None] * len(params), [None] * len(params)
  m = [normal(rng, *p.shape, scale=1e-3) for p in params]
  v = [uniform(rng, 1e-7, 1e-5, *p.shape) for p in params]
  return m, v


@workload("models", "GPT train step: 2-layer decoder (d_model 256, 4 heads, "
          "seq 128, batch 8, MLP 4x, pre-LN, causal, tied 1024-token "
          "embedding), cross-entropy, AdamW")
def gpt_block_train(rng):
  count = len(gpt_params(None))

  def step(*args):
    params, m, v = (list(args[i * count:(i + 1) * count]) for i in range(3))
    tokens, targets, step_count = args[3 * count:]
    loss, grads = jax.value_and_grad(gpt_loss)(params, tokens, targets)
    params, m, v = adamw(params, grads, m, v, step_count)
    return loss, params, m, v

  params = gpt_params(rng)
  m, v = moments(rng, params)
  shape = (GPT["batch"], GPT["tokens"])
  return step, params + m + v + [
      integers(rng, 0, GPT["vocab"], *shape),
      integers(rng, 0, GPT["vocab"], *shape),
      np.array(10, np.int32) if rng is not None else None
  ]


def batch_norm_train(x, gamma, beta, eps=1e-5):
  """Batch norm with the batch's statistics over N, H, W (NHWC)."""
  mean = jnp.mean(x, axis=(0, 1, 2))
  var = jnp.mean(jnp.square(x - mean), axis=(0, 1, 2))
  return (x - mean) * lax.rsqrt(var + eps) * gamma + beta


def conv_same(x, w):
  return lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                  dimension_numbers=NHWC)


def resnet_loss(params, x, labels):
  for block in range(2):
    w1, g1, b1, w2, g2, b2 = params[6 * block:6 * block + 6]
    y = jax.nn.relu(batch_norm_train(conv_same(x, w1), g1, b1))
    y = batch_norm_train(conv_same(y, w2), g2, b2)
    x = jax.nn.relu(x + y)
  # A per-pixel head (segmentation-like): a pooled head would send back a
  # gradient almost constant over H and W, which batch norm's backward
  # pass, subtracting its mean, cancels to rounding noise (XLA's own f32
  # gradients then differ from f64 ones by 1e-4 of their largest value).
  logp = jax.nn.log_softmax(x @ params[-1])
  return -jnp.mean(jnp.take_along_axis(logp, labels[..., None], axis=-1))


@workload("models", "ResNet train step: 2 residual blocks of 3x3 convs + "
          "batch norm (batch statistics) + ReLU on NHWC 16x32x32x64, "
          "per-pixel 10-way head, SGD with momentum", atol=2e-3)
def resnet_block_train(rng):
  params = []
  for _ in range(4):
    params += [
        normal(rng, 3, 3, 64, 64, scale=(9 * 64)**-0.5),
        1 + normal(rng, 64, scale=0.1) if rng is not None else None,
        normal(rng, 64, scale=0.1),
    ]
  params.append(normal(rng, 64, 10, scale=0.1))
  count = len(params)

  def step(*args):
    params, velocity = list(args[:count]), list(args[count:2 * count])
    x, labels = args[2 * count:]
    loss, grads = jax.value_and_grad(resnet_loss)(params, x, labels)
    velocity = [0.9 * u + g for u, g in zip(velocity, grads)]
    params = [p - 0.05 * u for p, u in zip(params, velocity)]
    return loss, params, velocity

  velocity = [None if p is None else normal(rng, *p.shape, scale=1e-2)
              for p in params]
  return step, params + velocity + [
      normal(rng, 16, 32, 32, 64),
      integers(rng, 0, 10, 16, 32, 32)
  ]


@workload("convolution", "jax.grad of a 3x3 conv (NHWC 16x16x16x64 -> 128) "
          "+ batch norm (batch statistics over 128 channels) + relu w.r.t. "
          "kernel, scale and offset")
def conv_bn_grad(rng):

  def loss(w, gamma, beta, x, cotangent):
    y = jax.nn.relu(batch_norm_train(conv_same(x, w), gamma, beta))
    return jnp.sum(y * cotangent)

  return jax.grad(loss, argnums=(0, 1, 2)), [
      normal(rng, 3, 3, 64, 128, scale=(9 * 64)**-0.5),
      1 + normal(rng, 128, scale=0.1) if rng is not None else None,
      normal(rng, 128, scale=0.1),
      normal(rng, 16, 16, 16, 64),
      normal(rng, 16, 16, 16, 128)
  ]


@workload("models", "LSTM over lax.scan (seq 64, batch 32, input and hidden "
          "256): loss and its gradient w.r.t. weights, bias and h0, c0",
          quick=True)
def lstm_scan_grad(rng):

  def loss(w_x, w_h, bias, h0, c0, xs, targets):
    # The input projection of every step at once, as LSTM layers do.
    projected = xs @ w_x + bias

    def cell(carry, x_proj):
      h, c = carry
      i, f, g, o = jnp.split(x_proj + h @ w_h, 4, axis=-1)
      c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
      h = jax.nn.sigmoid(o) * jnp.tanh(c)
      return (h, c), h

    _, hs = lax.scan(cell, (h0, c0), projected)
    return jnp.mean(jnp.square(hs - targets))

  return jax.value_and_grad(loss, argnums=(0, 1, 2, 3, 4)), [
      normal(rng, 256, 1024, scale=256**-0.5),
      normal(rng, 256, 1024, scale=256**-0.5),
      normal(rng, 1024, scale=0.1),
      normal(rng, 32, 256, scale=0.5),
      normal(rng, 32, 256, scale=0.5),
      normal(rng, 64, 32, 256),
      normal(rng, 64, 32, 256, scale=0.5),
  ]


VIT = dict(batch=32, image=32, patch=4, width=192, heads=3, layers=4)


@workload("models", "ViT forward: 4x4 patch embedding (stride-4 conv) of "
          "32x32x32x3 images, 4 pre-LN encoder layers (d_model 192, 3 "
          "heads, 64 tokens, MLP 4x), mean-pooled 10-way head")
def vit_encoder_infer(rng):
  width, layers = VIT["width"], VIT["layers"]
  tokens = (VIT["image"] // VIT["patch"])**2

  def forward(*args):
    images, patch_w, patch_b, positions = args[:4]
    x = lax.conv_general_dilated(images, patch_w, (VIT["patch"],) * 2,
                                 "VALID", dimension_numbers=NHWC) + patch_b
    x = x.reshape(x.shape[0], tokens, width) + positions
    for i in range(layers):
      x = transformer_layer(x, args[4 + 10 * i:14 + 10 * i], VIT["heads"],
                            causal=False)
    x = layer_norm_affine(x, args[-3], args[-2])
    return jnp.mean(x, axis=1) @ args[-1]

  params = [
      normal(rng, VIT["batch"], VIT["image"], VIT["image"], 3),
      normal(rng, VIT["patch"], VIT["patch"], 3, width, scale=0.1),
      normal(rng, width, scale=0.1),
      normal(rng, tokens, width, scale=0.02),
  ]
  for _ in range(layers):
    params += transformer_layer_params(rng, width, 4 * width)
  params += [1 + normal(rng, width, scale=0.1) if rng is not None else None,
             normal(rng, width, scale=0.1),
             normal(rng, width, 10, scale=0.1)]
  return forward, params
