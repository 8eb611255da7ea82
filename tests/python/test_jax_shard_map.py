"""xffi handlers under shard_map over 4 CPU devices. JAX fixes its device
count when it starts, so the check runs in a fresh interpreter started with
--xla_force_host_platform_device_count=4."""

import os
import subprocess
import sys
import textwrap

import pytest

xffi = pytest.importorskip("xffi")
pytest.importorskip("jax")

SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import jax
    import jax.numpy as jnp
    from jax.sharding import PartitionSpec as P
    import xffi, xffi.jax

    assert len(jax.devices()) == 4, jax.devices()
    lib = xffi.jax.register_library(sys.argv[1], prefix="sm.")
    mesh = jax.make_mesh((4,), ("rows",))

    def rms_norm(x):
        y, _ = lib["sm.python_test.rms_norm_fwd"](
            x, eps=1e-5, result_shape_dtypes=[
                jax.ShapeDtypeStruct(x.shape, x.dtype),
                jax.ShapeDtypeStruct(x.shape[:-1], x.dtype)])
        return y

    # Each device normalises its own 2 rows of the 8.
    sharded = jax.jit(jax.shard_map(rms_norm, mesh=mesh, in_specs=P("rows"),
                                    out_specs=P("rows")))
    x = np.linspace(-3, 5, 8 * 16, dtype=np.float32).reshape(8, 16)
    xs = jax.device_put(x, jax.sharding.NamedSharding(mesh, P("rows")))
    got = sharded(xs)
    assert len(got.sharding.device_set) == 4, got.sharding
    eager, _ = xffi.ffi_call("python_test.rms_norm_fwd",
                             [xffi.ShapeDtypeStruct(x.shape, x.dtype),
                              xffi.ShapeDtypeStruct((8,), x.dtype)])(
                                  x, eps=1e-5)
    np.testing.assert_allclose(np.asarray(got), eager, rtol=1e-6)

    # Shard-local shapes: each device's handler sees a [2, 16] block.
    scaled = jax.jit(jax.shard_map(
        lambda v: lib["sm.Scale"](v, factor=2.0, offset=1), mesh=mesh,
        in_specs=P("rows"), out_specs=P("rows")))(xs)
    np.testing.assert_array_equal(
        np.asarray(scaled),
        xffi.ffi_call("python_test.scale")(x, factor=2.0, offset=1))
    print("shard_map OK on", len(jax.devices()), "devices")
""")


def test_shard_map_over_four_cpu_devices(test_plugin_path):
    env = dict(os.environ)
    env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") +
                        " --xla_force_host_platform_device_count=4").strip()
    env["JAX_PLATFORMS"] = "cpu"
    # The same xffi package as this process (the build tree's, say).
    package_root = os.path.dirname(os.path.dirname(xffi.__file__))
    env["PYTHONPATH"] = os.pathsep.join(
        [package_root] + [p for p in [env.get("PYTHONPATH")] if p])
    done = subprocess.run([sys.executable, "-c", SCRIPT,
                           str(test_plugin_path)],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "shard_map OK on 4 devices" in done.stdout
