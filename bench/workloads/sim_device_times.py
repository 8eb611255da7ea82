"""Times programs on xffi's simulated GPU ("sim"), to compare two builds'
device kernels (A/B in the same minute: the machine is shared).

    python bench/workloads/sim_device_times.py BUILD NAME...

NAME is a workload of workloads.py or one of the extra device-kernel cases
below. Each program is compiled, then called up to 3 times (once when a
call takes over 5 s, as the O(n^2) fft functor did) and the best call is
printed. Host speed only: SimDevice runs every kernel thread one after
another on one host thread, so these figures say nothing of a GPU, and a
kernel made more parallel (sort's merge passes) gains nothing here."""
import pathlib
import sys
import time

build = pathlib.Path(sys.argv[1])
sys.path.insert(0, str(build / "python"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import numpy as np
import jax, jax.numpy as jnp
from jax import lax
import xffi
import workloads as W

def extra():
  rng = np.random.default_rng(0)
  n = lambda *s: rng.standard_normal(s).astype(np.float32)
  return {
    "rfft_64x4096": (lambda x: jnp.fft.rfft(x, axis=-1), [n(64, 4096)]),
    "fft_prime_16x4099": (lambda x: jnp.fft.fft(x.astype(jnp.complex64)), [n(16, 4099)]),
    "fft3d_32x32x32": (lambda x: jnp.fft.fftn(x.astype(jnp.complex64)), [n(32, 32, 32)]),
    "argsort_8x65536": (lambda x: jnp.argsort(x, axis=-1), [n(8, 65536)]),
    "grouped_conv_g8": (lambda x, w: lax.conv_general_dilated(
        x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"),
        feature_group_count=8), [n(4, 28, 28, 64), n(3, 3, 8, 64)]),
  }

specs = extra()
for name in sys.argv[2:]:
  if name in specs:
    fn, inputs = specs[name]
  else:
    spec = W.WORKLOADS[name]
    fn, inputs = spec.fn, spec.inputs()
  text = jax.jit(fn).lower(*inputs).as_text()
  program = xffi.Program.from_text(text, platform="sim")
  best = None
  for i in range(3):
    start = time.perf_counter()
    program(*inputs)
    took = time.perf_counter() - start
    best = took if best is None else min(best, took)
    if took > 5: break
  print(f"{name}: {best*1e3:.1f} ms", flush=True)
