#!/usr/bin/env python3
"""Writes the shape-polymorphic corpus: JAX functions exported with
symbolic dimensions (jax.export), as the parent folder's corpus is written.

For each program NAME this writes, beside this script:
  NAME.mlir      exported.mlir_module() without locations: StableHLO with
                 `?` dimensions
  NAME.in_K.npy  the K-th input, at one concrete shape (small, deterministic)
  NAME.out_K.npy the K-th result, as exported.call computes it on the CPU

There is no NAME.hlo: a polymorphic export has no HLO text of its own.
`xffi run NAME.mlir --input NAME.in_0.npy ...` refines the program to the
inputs' shapes (test_cli runs every program here that way).

  .venv/bin/python tests/programs/polymorphic/generate.py

Made with jax 0.10.2 on CPU.
"""

import os

import jax
import jax.numpy as jnp
import numpy as np
from jax import export, lax

HERE = os.path.dirname(os.path.abspath(__file__))


def rng(seed):
  return np.random.default_rng(seed)


def f32(seed, *shape):
  return rng(seed).standard_normal(shape).astype(np.float32)


def without_locations(text):
  # As the parent corpus's .as_text(): no loc(...), so the files do not
  # depend on where this script ran.
  from jax._src.interpreters import mlir
  from jax._src.lib.mlir import ir
  with mlir.make_ir_context() as context:
    module = ir.Module.parse(text, context=context)
    return module.operation.get_asm(enable_debug_info=False)


def spec(shape, dtype=np.float32, constraints=()):
  return jax.ShapeDtypeStruct(
      export.symbolic_shape(shape, constraints=constraints), dtype)


PROGRAMS = {
    # name: (function, symbolic specs, concrete inputs)
    "poly_softmax_rows": (
        lambda x: jax.nn.softmax(x, axis=-1).sum(axis=0),
        [spec("b, 5", constraints=["b >= 2"])],
        [f32(1, 3, 5)]),
    "poly_batch_matmul": (
        lambda x, w: jnp.tanh(x @ w) + jnp.arange(x.shape[0],
                                                  dtype=np.float32)[:, None],
        [spec("b, 4"), spec("4, 3")],
        [f32(2, 6, 4), f32(3, 4, 3)]),
    "poly_reshape_concat": (
        lambda x: jnp.concatenate([x.reshape(-1, 2), x.reshape(-1, 2)[::-1]],
                                  axis=0).cumsum(axis=0),
        [spec("2*b")],  # JAX asserts the size is even
        [f32(4, 6)]),
    "poly_fori_loop": (
        lambda x: lax.fori_loop(0, x.shape[0], lambda i, c: c * 0.5 + x[i],
                                jnp.zeros(x.shape[1:], np.float32)),
        [spec("b, 3")],
        [f32(5, 4, 3)]),
    # k a dimension expression: JAX's @stablehlo.dynamic_top_k custom call.
    "poly_top_k_half": (
        lambda x: lax.top_k(x, x.shape[-1] // 2),
        [spec("4, n", constraints=["n >= 2"])],
        [f32(6, 4, 7)]),
    # A symbolic output shape: @stablehlo.dynamic_rng_bit_generator.
    "poly_random_bits": (
        lambda key, x: lax.rng_bit_generator(key, x.shape, dtype=jnp.uint32),
        [jax.ShapeDtypeStruct((4,), np.uint32), spec("b, 3")],
        [np.array([1, 2, 3, 4], np.uint32), f32(7, 5, 3)]),
}


def main():
  jax.config.update("jax_platforms", "cpu")
  total = 0
  for name, (f, specs, inputs) in PROGRAMS.items():
    exported = export.export(jax.jit(f), platforms=("cpu",))(*specs)
    outputs = jax.tree_util.tree_leaves(exported.call(*inputs))
    with open(os.path.join(HERE, f"{name}.mlir"), "w") as file:
      file.write(without_locations(exported.mlir_module()))
    for kind, values in (("in", inputs), ("out", outputs)):
      for k, value in enumerate(values):
        np.save(os.path.join(HERE, f"{name}.{kind}_{k}.npy"),
                np.asarray(value))
    size = sum(
        os.path.getsize(os.path.join(HERE, p))
        for p in os.listdir(HERE)
        if p.startswith(name + "."))
    total += size
    print(f"{name}: {len(inputs)} input(s), {len(outputs)} output(s), "
          f"{size} bytes")
  print(f"total {total} bytes")


if __name__ == "__main__":
  main()
