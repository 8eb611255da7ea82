#!/usr/bin/env python3
"""Writes the main job's program: a normalisation block exported from JAX.

norm_block(x, w, b) is what a user's JAX code looks like when it calls
custom handlers among ordinary ops:

  h = rms_norm(x)                    custom call (examples/rms_norm)
  h = gelu(h @ w)                    dot_general, tanh, ...
  a = do_custom_call(b, h.ravel())   custom call (examples/do_custom_call):
                                     a[i] = b[i % 128] + h[i]
  y = softmax(a.reshape(x.shape))    reduce, exp, divide
  returns y and its row maxima

Writes beside this script: norm_block.mlir (StableHLO, as
jax.jit(f).lower(...).as_text() prints it), norm_block.hlo, the inputs
norm_block.in_{0,1,2}.npy and JAX's results norm_block.out_{0,1}.npy, which
scripts/run_example.sh checks `xffi run` against.

  .venv/bin/python examples/programs/generate.py \
      --examples build/dev/examples
"""

import argparse
import ctypes
import os

import jax
import jax.numpy as jnp
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def rms_norm(x, eps=1e-5):
  return jax.ffi.ffi_call("rms_norm", jax.ShapeDtypeStruct(x.shape, x.dtype))(
      x, eps=np.float32(eps))


def do_custom_call(b, c):
  return jax.ffi.ffi_call("do_custom_call",
                          jax.ShapeDtypeStruct(c.shape, c.dtype))(b, c)


def norm_block(x, w, b):
  h = rms_norm(x)
  h = jax.nn.gelu(h @ w, approximate=True)
  a = do_custom_call(b, h.reshape(-1))
  y = jax.nn.softmax(a.reshape(x.shape), axis=-1)
  return y, jnp.max(y, axis=-1)


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--examples", default="build/dev/examples",
                      help="build folder of the example handler libraries")
  args = parser.parse_args()
  jax.config.update("jax_platforms", "cpu")
  for target, path, symbol in (
      ("rms_norm", "rms_norm/librms_norm.so", "RmsNorm"),
      ("do_custom_call", "do_custom_call/libdo_custom_call.so",
       "DoCustomCall")):
    lib = ctypes.cdll.LoadLibrary(os.path.join(args.examples, path))
    jax.ffi.register_ffi_target(target,
                                jax.ffi.pycapsule(getattr(lib, symbol)),
                                platform="cpu")
  rng = np.random.default_rng(2026)
  inputs = (rng.standard_normal((16, 128)).astype(np.float32) * 3 + 1,
            (rng.standard_normal((128, 128)) / np.sqrt(128)).astype(np.float32),
            rng.standard_normal(128).astype(np.float32))
  jitted = jax.jit(norm_block)
  lowered = jitted.lower(*inputs)
  with open(os.path.join(HERE, "norm_block.mlir"), "w") as f:
    f.write(lowered.as_text())
  with open(os.path.join(HERE, "norm_block.hlo"), "w") as f:
    f.write(lowered.as_text("hlo"))
  for k, value in enumerate(inputs):
    np.save(os.path.join(HERE, f"norm_block.in_{k}.npy"), value)
  for k, value in enumerate(jitted(*inputs)):
    np.save(os.path.join(HERE, f"norm_block.out_{k}.npy"), np.asarray(value))
  print("wrote norm_block.{mlir,hlo,in_*.npy,out_*.npy} in", HERE)


if __name__ == "__main__":
  main()
