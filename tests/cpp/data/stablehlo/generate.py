"""Regenerates the StableHLO samples test_stablehlo_parser reads.

Each sample is what JAX prints for one small function; its first line is a
comment naming the code that made it. Run with the project's venv (JAX 0.10):
  /work/main/.venv/bin/python tests/cpp/data/stablehlo/generate.py
"""
import os

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

HERE = os.path.dirname(os.path.abspath(__file__))
f32 = jnp.float32

# name: (source of the function, example arguments, as_text keyword args)
SAMPLES = {
    "ffi_call": (
        "lambda x, y: jax.ffi.ffi_call('my_add', jax.ShapeDtypeStruct(x.shape, x.dtype))"
        "(x, y, n=np.int32(3), mode='fast', eps=np.float32(1e-5), scale=2.5, flag=True,"
        " dims=np.array([1, 2], np.int64), nested={'a': np.uint8(7)})",
        (jnp.ones((2, 3), f32), jnp.ones((2, 3), f32)), {}),
    "ffi_multi": (
        "lambda x: (lambda r: (r[0] * 2, r[1]))(jax.ffi.ffi_call('my_split',"
        " (jax.ShapeDtypeStruct((4,), jnp.float32), jax.ShapeDtypeStruct((), jnp.int32)),"
        " input_output_aliases={0: 0}, has_side_effect=True)(x, axis=np.int64(0)))",
        (jnp.ones(4, f32),), {}),
    "ffi_legacy": (
        "lambda x: jax.ffi.ffi_call('old_target', jax.ShapeDtypeStruct(x.shape, x.dtype),"
        " custom_call_api_version=2, legacy_backend_config='opaque\"str')(x)",
        (jnp.ones((3, 4), f32),), {}),
    "while": (
        "lambda x: lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * x), (0, x))",
        (jnp.ones(3, f32),), {}),
    "cond": (
        "lambda p, x: lax.cond(p > 0, lambda: x * 2, lambda: x - 1)",
        (1.0, jnp.ones(3, f32)), {}),
    "switch": (
        "lambda i, x: lax.switch(i, [lambda v: v + 1, lambda v: v * x, jnp.sin], x)",
        (1, jnp.ones(3, f32)), {}),
    "sort": ("lambda x: (jnp.sort(x), jnp.argsort(x))", (jnp.ones(5, f32),), {}),
    "index": ("lambda x, i: (x[i], x[1:3], x[:, i])", (jnp.ones((4, 5), f32), 2), {}),
    "scatter": ("lambda x, i: (x.at[i].set(3.0), x.at[i].add(1.0))", (jnp.ones(6, f32), 2), {}),
    "gather": ("lambda x, i: (x[i], jnp.take(x, i, axis=1))",
               (jnp.ones((5, 3), f32), jnp.array([0, 2], jnp.int32)), {}),
    "reduce": ("lambda x: (jnp.sum(x, axis=1), jnp.max(x), jnp.argmax(x, axis=0))",
               (jnp.ones((3, 4), f32),), {}),
    "dot": ("lambda a, b: (a @ b, jnp.einsum('bij,bjk->bik', a[None], b[None]))",
            (jnp.ones((2, 3), f32), jnp.ones((3, 4), f32)), {}),
    "cumsum": ("lambda x: jnp.cumsum(x)", (jnp.ones(8, f32),), {}),
    "special": ("lambda x: (lax.erf(x), lax.erf_inv(x), lax.lgamma(x), lax.digamma(x))",
                (jnp.ones(3, f32),), {}),
    "consts": (
        "lambda x: (x + jnp.array([np.nan, np.inf, -np.inf, 1.5]), jnp.array([[1, 2], [3, 4]], jnp.int8),"
        " jnp.array([True, False]), jnp.array([1 + 2j], jnp.complex64), jnp.array([1, 2], jnp.uint16),"
        " jnp.array([1.5], jnp.bfloat16), x + np.arange(120, dtype=np.float32)[:4] * 0 + np.arange(120, dtype=np.float32).reshape(10, 12)[0, :4],"
        " np.arange(120, dtype=np.float32).reshape(10, 12) + 0 * x[0])",
        (jnp.ones(4, f32),), {}),
    "call": ("lambda x: (lambda inner: inner(x) + inner(x + 1))(jax.jit(lambda v: v * 3))",
             (jnp.ones(3, f32),), {}),
    "misc": (
        "lambda x: (jnp.pad(x, ((1, 2), (0, 1))), jnp.concatenate([x, x], axis=0), x.T, jnp.flip(x, 0),"
        " jnp.clip(x, 0, 1), x.astype(jnp.int32), lax.bitcast_convert_type(x, jnp.int32), jnp.where(x > 0, x, 0.0))",
        (jnp.ones((2, 3), f32),), {}),
    "barrier": ("lambda x: lax.optimization_barrier((x, x + 1))", (jnp.ones(2, f32),), {}),
    "debug": ("lambda x, y: jnp.sin(x) * y + 1.0", (jnp.ones(3, f32), jnp.ones(3, f32)),
              {"debug_info": True}),
    "shifts": (
        "lambda x: (x << 2, x >> 1, lax.shift_right_logical(x, 1), lax.population_count(x), lax.clz(x), ~x, x % 3, x ** 2)",
        (jnp.ones(3, jnp.int32),), {}),
    "types": (
        "lambda a, b, c, d, e, f: (a, b, c, d, e, f)",
        (jnp.ones(2, jnp.float16), jnp.ones(2, jnp.float8_e4m3fn), jnp.ones(2, jnp.uint8),
         jnp.ones(2, jnp.int16), jnp.ones(2, jnp.bool_), jnp.ones(2, jnp.float8_e5m2)), {}),
    "captured_while": (
        "lambda x, i: lax.fori_loop(0, 3, lambda k, c: c * x + i, x)",
        (jnp.ones(2, f32), 1.0), {}),
}

# The same program printed in MLIR's generic op form.
GENERIC = ("generic", "lambda x, i: lax.fori_loop(0, 3, lambda k, c: c * x + i, x)",
           (jnp.ones(2, f32), 1.0))


def main():
    for name, (source, args, kwargs) in SAMPLES.items():
        fn = eval(source)
        text = jax.jit(fn).lower(*args).as_text(**kwargs)
        header = f"// jax.jit({source}).lower(...).as_text({', '.join(f'{k}={v}' for k, v in kwargs.items())}), JAX {jax.__version__}\n"
        with open(os.path.join(HERE, name + ".mlir"), "w") as f:
            f.write(header + text)
    name, source, args = GENERIC
    lowered = jax.jit(eval(source)).lower(*args)
    text = lowered.compiler_ir("stablehlo").operation.get_asm(
        print_generic_op_form=True, enable_debug_info=False)
    with open(os.path.join(HERE, name + ".mlir"), "w") as f:
        f.write(f"// jax.jit({source}).lower(...).compiler_ir('stablehlo') printed with print_generic_op_form=True, JAX {jax.__version__}\n" + text)


if __name__ == "__main__":
    main()
