"""xffi handlers under shard_map over 4 CPU devices, and the programs JAX
lowers for them (StableHLO and HLO, collectives included) run back in xffi
on one. JAX fixes its device count when it starts, so the check runs in a
fresh interpreter started with --xla_force_host_platform_device_count=4."""

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
    lib = xffi.jax.register_library(sys.argv[1], prefix="sm.",
                                    register_in_xffi=True)
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

    # The other way: the text JAX lowers for the 4-device program runs in
    # xffi on one, each device's body side by side, with JAX's values.
    def both_texts(jitted, *args):
        lowered = jitted.lower(*args)
        in_jax = jax.tree.map(np.asarray, jitted(*args))
        for dialect in ("stablehlo", "hlo"):
            program = xffi.Program.from_text(lowered.as_text(dialect=dialect))
            assert program.format == dialect, program.format
            yield in_jax, program(*[np.asarray(a) for a in args])

    for in_jax, got in both_texts(sharded, xs):
        np.testing.assert_array_equal(got, in_jax)

    def collectives(v):
        y, _ = lib["sm.python_test.rms_norm_fwd"](
            v, eps=1e-5, result_shape_dtypes=[
                jax.ShapeDtypeStruct(v.shape, v.dtype),
                jax.ShapeDtypeStruct(v.shape[:-1], v.dtype)])
        total = jax.lax.psum(y.sum(), "rows")
        ring = jax.lax.ppermute(y, "rows", [(i, (i + 1) % 4)
                                            for i in range(4)])
        index = jax.lax.axis_index("rows").astype(v.dtype)
        gathered = jax.lax.all_gather(y, "rows", axis=1, tiled=True)
        return ring * total + index, gathered

    jitted = jax.jit(jax.shard_map(collectives, mesh=mesh, in_specs=P("rows"),
                                   out_specs=(P("rows"), P("rows"))))
    for in_jax, got in both_texts(jitted, xs):
        # The sums add in another order than XLA's.
        for g, want in zip(got, in_jax):
            np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-5)

    # A collective in a loop, on a 2 x 2 mesh.
    mesh2 = jax.make_mesh((2, 2), ("a", "b"))
    def loop(v):
        step = lambda i, c: c * 0.5 + jax.lax.psum(
            lib["sm.Scale"](c, factor=0.5, offset=1), "b")
        return jax.lax.fori_loop(0, 3, step, v)
    x2 = jax.device_put(x, jax.sharding.NamedSharding(mesh2, P("a", "b")))
    jitted = jax.jit(jax.shard_map(loop, mesh=mesh2, in_specs=P("a", "b"),
                                   out_specs=P("a", "b")))
    for in_jax, got in both_texts(jitted, x2):
        np.testing.assert_allclose(got, in_jax, rtol=1e-6)
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
