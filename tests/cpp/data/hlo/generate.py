"""Writes the HLO samples beside this file, as JAX 0.10.2 prints them.

Run: python tests/cpp/data/hlo/generate.py (with jax installed). Each sample
starts with a comment naming the function below that made it; `*.hlo` is
`jax.jit(f).lower(*args).as_text("hlo")`, `*.compiled.hlo` is
`.compile().as_text()` (optimized: fusions, metadata, stack-frame tables).
"""
import inspect
import os

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

HERE = os.path.dirname(os.path.abspath(__file__))


def loop(x):
  return lax.while_loop(lambda c: c[0] < 10,
                        lambda c: (c[0] + 1, c[1] * 2.0), (0, x))


def cond(p, x):
  return lax.cond(p > 0, lambda x: x + 1, lambda x: x * 2, x)


def sort(x):
  return jnp.sort(x), jnp.argsort(x)


def reduce(m):
  return m.sum(axis=1), m.max(), jnp.argmax(m, axis=1)


def gather_scatter(m, idx, x):
  return m[idx], m.at[idx].add(1.0), x.at[idx].set(5.0), x[idx[0]]


def misc(m, x):
  a = jnp.pad(x, (1, 2))
  b = lax.reduce_window(m, 0., lax.add, (2, 2), (1, 1), 'SAME')
  c = m @ m.T
  d = jnp.concatenate([x, x])
  e = jnp.flip(m, 0)
  f = jnp.clip(x, 1.0, 3.0)
  g = lax.bitcast_convert_type(x, jnp.int32)
  h = lax.dynamic_update_slice(x, jnp.ones(2), (3,))
  i = lax.pad(x, 0.0, [(1, -1, 1)])
  j = x[1:7:2]
  return (a, b, c, d, e, f, g, h, i, j, jnp.float32(np.nan) * x,
          x.astype(jnp.bfloat16))


def ffi(x, m):
  a = jax.ffi.ffi_call("my_add", jax.ShapeDtypeStruct(x.shape, x.dtype))(
      x, x, n=np.int32(3), mode="fast", eps=np.float32(1e-5),
      arr=np.array([1, 2, 3], np.int64), flag=True, u=np.uint8(76), d=1.5)
  b = jax.ffi.ffi_call(
      "my_split", (jax.ShapeDtypeStruct((8,), jnp.float32),
                   jax.ShapeDtypeStruct((), jnp.int32)),
      input_output_aliases={0: 0}, has_side_effect=True)(a, axis=np.int64(0))
  c = jax.ffi.ffi_call("colmajor", jax.ShapeDtypeStruct(m.shape, m.dtype))(m)
  return b[0] * 2, b[1], c


def ffi_loop(x):
  step = jax.ffi.ffi_call("step", jax.ShapeDtypeStruct(x.shape, x.dtype))
  return lax.fori_loop(0, 3, lambda i, x: step(x), x)


def lu(a):
  return jax.scipy.linalg.lu_factor(a)


def numeric(m, x, key):
  spectrum = jnp.fft.rfft(m)
  values, indices = lax.top_k(x, 3)
  state, bits = lax.rng_bit_generator(key, (2, 3), dtype=jnp.uint32,
                                      algorithm=lax.RandomAlgorithm.RNG_PHILOX)
  return (jnp.fft.irfft(spectrum, n=3), jnp.fft.fft2(m.astype(jnp.complex64)),
          values, indices, state, bits,
          lax.reduce_precision(x, exponent_bits=5, mantissa_bits=10))


x8 = jnp.arange(8, dtype=jnp.float32)
m23 = jnp.ones((2, 3), jnp.float32)
m43 = jnp.ones((4, 3), jnp.float32)
SAMPLES = [
    (loop, (x8,), True),
    (cond, (1, x8), True),
    (sort, (x8,), True),
    (reduce, (m23,), True),
    (gather_scatter, (m43, jnp.array([2, 0], jnp.int32), x8), False),
    (misc, (m43, x8), False),
    (ffi, (x8, m23), False),  # compiling needs the handlers registered
    (ffi_loop, (x8,), False),
    (lu, (jnp.eye(3, dtype=jnp.float32) * 2,), True),
    (numeric, (m43, x8, jnp.arange(4, dtype=jnp.uint32)), False),
]


def write(name, how, text):
  with open(os.path.join(HERE, name), "w") as f:
    f.write(f"// Made by tests/cpp/data/hlo/generate.py: {how} "
            f"(jax {jax.__version__}).\n")
    f.write(text.rstrip() + "\n")


for fn, args, compile_too in SAMPLES:
  lowered = jax.jit(fn).lower(*args)
  write(f"{fn.__name__}.hlo",
        f"jax.jit({fn.__name__}).lower(...).as_text('hlo')",
        lowered.as_text("hlo"))
  if compile_too:
    text = lowered.compile().as_text()
    text = text.replace(HERE + "/", "")  # no checkout path in the samples
    write(f"{fn.__name__}.compiled.hlo",
          f"jax.jit({fn.__name__}).lower(...).compile().as_text()", text)
