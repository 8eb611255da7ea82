"""Per-call latency of a no-op FFI handler on three small arrays (two
arguments, one result, f32[4] each), called from Python three ways in one
run:

  xffi     xffi.ffi_call(...)(a, b): eager, in xffi's runtime (the result
           array is allocated per call, as the API returns a new array);
  jax      jax.jit(jax.ffi.ffi_call(...))(a, b) on arrays already on the
           CPU device, waited for with block_until_ready;
  ctypes   the handler's XLA_FFI_Handler* called through ctypes on a call
           frame built once: the floor (a Python-to-C call plus the
           handler's own decoding).

Each figure is the best of `--repeat` timings of `--number` calls, divided
by `--number` (the best, not the mean: other processes only ever add). The
windows are short (5000 calls, about a millisecond for xffi) and many, so
that on a shared machine some of them run without being preempted; with
long windows every one of them is, and the figures measure the load.

    XFFI_BUILD_DIR=build/release .venv/bin/python bench/python_dispatch.py

With `--loop N` it only makes N eager calls (after 100 to warm up) and
exits, for an instruction count that does not depend on the machine's load:

    XFFI_BUILD_DIR=build/release valgrind --tool=callgrind \
        --toggle-collect='*CallerVectorcall*' --callgrind-out-file=/tmp/cg.out \
        .venv/bin/python bench/python_dispatch.py --loop 20000

(`Collected` / (N + 100): instructions per call from entering xffi's
vectorcall to returning the result, GIL release and result array included.)
"""

import argparse
import ctypes
import os
import pathlib
import platform
import sys
import timeit

ROOT = pathlib.Path(__file__).resolve().parents[1]
BUILD = pathlib.Path(os.environ.get("XFFI_BUILD_DIR", ROOT / "build" / "release"))
if not BUILD.is_absolute():
    BUILD = ROOT / BUILD
if any((BUILD / "python" / "xffi").glob("_core*.so")):
    sys.path.insert(0, str(BUILD / "python"))

import numpy as np  # noqa: E402

import xffi  # noqa: E402


def best_per_call(fn, number, repeat):
    fn()  # warm: compile, build the call frame
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--number", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=60)
    parser.add_argument("--plugin", default=str(
        BUILD / "tests/python/plugins/libpython_test_handlers.so"),
        help="library exporting the no-op handler symbol Noop")
    parser.add_argument("--loop", type=int, default=0, metavar="N",
                        help="only make N eager xffi calls (no timing, no "
                        "JAX), for valgrind --tool=callgrind")
    args = parser.parse_args()

    lib = xffi.load_library(args.plugin)
    capsule = lib.Noop
    xffi.register_ffi_target("bench.noop", capsule)
    a = np.ones(4, np.float32)
    b = np.ones(4, np.float32)
    out = xffi.ShapeDtypeStruct((4,), np.float32)

    # xffi eager.
    call = xffi.ffi_call("bench.noop", out)
    if args.loop:
        for _ in range(100 + args.loop):
            call(a, b)
        return
    xffi_s = best_per_call(lambda: call(a, b), args.number, args.repeat)

    # The floor: the handler itself through ctypes on a prebuilt frame.
    address = xffi._core._capsule_address(capsule)
    handler = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)(address)
    frame = xffi._core._frame_over_arrays([a, b], [np.empty(4, np.float32)])
    frame_address = frame.address
    assert handler(frame_address) is None  # success: no error returned
    floor_s = best_per_call(lambda: handler(frame_address), args.number,
                            args.repeat)

    # JAX: the same handler registered in XLA, under jit.
    import jax
    jax.ffi.register_ffi_target("bench.noop", capsule, platform="cpu")
    jitted = jax.jit(jax.ffi.ffi_call(
        "bench.noop", jax.ShapeDtypeStruct((4,), np.float32)))
    ja, jb = jax.device_put(a), jax.device_put(b)
    jax_number = max(1, args.number // 10)  # ~10x slower: same wall time
    jax_s = best_per_call(lambda: jitted(ja, jb).block_until_ready(),
                          jax_number, args.repeat)

    print(f"python {platform.python_version()}, numpy {np.__version__}, "
          f"jax {jax.__version__}, {os.cpu_count()} cpus")
    print(f"{'path':<28}{'ns/call':>10}{'vs floor':>10}")
    for name, s in [("ctypes (floor)", floor_s), ("xffi.ffi_call", xffi_s),
                    ("jax.jit(jax.ffi.ffi_call)", jax_s)]:
        print(f"{name:<28}{s * 1e9:>10.0f}{s / floor_s:>10.2f}")
    print(f"jax / xffi: {jax_s / xffi_s:.1f}x")
    met = xffi_s <= 1e-6 and jax_s / xffi_s >= 5
    print(f"target (xffi <= 1000 ns, jax / xffi >= 5): "
          f"{'met' if met else 'NOT met'}")


if __name__ == "__main__":
    main()
