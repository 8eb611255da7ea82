"""`xffi inspect` on programs JAX lowered for 4 CPU devices: the parameter
and result shardings it shows (jax.jit's in_shardings and out_shardings, as
StableHLO's mhlo.sharding / sdy.sharding and HLO's sharding=) place each
block on the device JAX places it on. JAX fixes its device count when it
starts, so the programs are lowered in a fresh interpreter started with
--xla_force_host_platform_device_count=4; JAX's own placement comes from
the compiled executable's shardings (devices_indices_map)."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import built_library

pytest.importorskip("jax")

SCRIPT = textwrap.dedent("""
    import json, pathlib, sys
    import numpy as np
    import jax
    import jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P

    assert len(jax.devices()) == 4, jax.devices()
    out_dir = pathlib.Path(sys.argv[1])
    mesh = jax.make_mesh((2, 2), ("a", "b"))
    # Logical device i of the program (its tile assignments' ids) is the
    # mesh's i-th device.
    logical = {d.id: i for i, d in enumerate(mesh.devices.flat)}

    def f(x, y):
        return x * 2, (x + y).T, jnp.sum(y), x[:, :2] - 1

    x = np.arange(32, dtype=np.float32).reshape(8, 4)
    y = np.ones((8, 4), np.float32)
    ins = (NamedSharding(mesh, P("a", None)), NamedSharding(mesh, P()))
    outs = (NamedSharding(mesh, P("a", "b")), NamedSharding(mesh, P(None, "a")),
            NamedSharding(mesh, P()), NamedSharding(mesh, P("b", None)))

    def placement(sharding, shape):
        # Device -> the block it holds, as [start, stop) per dimension.
        blocks = {}
        for device, index in sharding.devices_indices_map(shape).items():
            blocks[logical[device.id]] = [
                [s.start or 0, n if s.stop is None else s.stop]
                for s, n in zip(index, shape)]
        return blocks

    expected = {}
    for shardy in (True, False):
        jax.config.update("jax_use_shardy_partitioner", shardy)
        jitted = jax.jit(f, in_shardings=ins, out_shardings=outs)
        lowered = jitted.lower(x, y)
        compiled = lowered.compile()
        results = jax.eval_shape(f, x, y)
        want = {
            "parameters": [placement(s, a.shape) for s, a in
                           zip(compiled.input_shardings[0], (x, y))],
            "results": [placement(s, r.shape) for s, r in
                        zip(compiled.output_shardings, results)],
        }
        for dialect in ("stablehlo", "hlo"):
            name = ("shardy" if shardy else "gspmd") + "_" + dialect
            suffix = ".mlir" if dialect == "stablehlo" else ".hlo"
            (out_dir / (name + suffix)).write_text(
                lowered.as_text(dialect=dialect))
            expected[name + suffix] = want
    (out_dir / "expected.json").write_text(json.dumps(expected))
    print("lowered", sorted(expected))
""")


def _blocks(text, shape):
    """Device -> block for xffi's sharding text: `{replicated}` or
    `{devices=[t0,t1,...]d0,d1,... last_tile_dim_replicate}`."""
    if text in (None, "{replicated}"):
        return None  # every device holds the whole value
    assert text.startswith("{devices=["), text
    body = text[len("{devices=["):-1]
    replicated_last = body.endswith(" last_tile_dim_replicate")
    body = body.removesuffix(" last_tile_dim_replicate")
    tiles_text, devices_text = body.split("]")
    tiles = [int(t) for t in tiles_text.split(",")]
    devices = [int(d) for d in devices_text.split(",")]
    dims = tiles[:-1] if replicated_last else tiles
    assert len(dims) == len(shape), (text, shape)
    blocks = {}
    for k, device in enumerate(devices):
        # Position k of the tile assignment, row-major over `tiles`.
        coords, rest = [], k
        for t in reversed(tiles):
            coords.append(rest % t)
            rest //= t
        coords.reverse()
        blocks[device] = [[c * n // t, (c + 1) * n // t]
                          for c, n, t in zip(coords, shape, dims)]
    return blocks


def _whole(shape, devices=4):
    return {d: [[0, n] for n in shape] for d in range(devices)}


def test_inspect_shows_the_shardings_jax_wrote(tmp_path):
    cli = built_library("src/xffi")
    env = dict(os.environ)
    env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") +
                        " --xla_force_host_platform_device_count=4").strip()
    env["JAX_PLATFORMS"] = "cpu"
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)],
                          env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    expected = json.loads((tmp_path / "expected.json").read_text())
    assert len(expected) == 4, expected
    for name, want in expected.items():
        inspected = subprocess.run([str(cli), "inspect", "--json",
                                    str(tmp_path / name)],
                                   capture_output=True, text=True, timeout=120)
        assert inspected.returncode == 0, name + ": " + inspected.stderr
        (program,) = json.loads(inspected.stdout)
        for kind in ("parameters", "results"):
            values = program[kind]
            assert len(values) == len(want[kind]), (name, kind, values)
            for i, (value, jax_blocks) in enumerate(zip(values,
                                                        want[kind])):
                shape = value["dims"]
                # Every declared sharding is read: none is left out.
                assert value["sharding"] is not None, (name, kind, i)
                got = _blocks(value["sharding"], shape)
                if got is None:
                    got = _whole(shape)
                jax_blocks = {int(d): b for d, b in jax_blocks.items()}
                assert got == jax_blocks, (name, kind, i, value["sharding"])
        # The four results are split four ways, two ways (replicated twice),
        # not at all, and two ways along the other mesh axis.
        kinds = [r["sharding"] for r in program["results"]]
        assert kinds[2] == "{replicated}", (name, kinds)
        assert "last_tile_dim_replicate" in kinds[1], (name, kinds)
