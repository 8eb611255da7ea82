"""Partitioning registrations (xla_client.register_custom_call_partitioner,
register_custom_call_as_batch_partitionable, JAX's
register_ffi_target_as_batch_partitionable): recorded by xffi, refused with
a reason when malformed, and forwarded to JAX by xffi.jax, where XLA's
partitioner then splits a batch-partitionable call across devices. JAX fixes
its device count when it starts, so that check runs in a fresh interpreter
with two CPU devices."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

xffi = pytest.importorskip("xffi")


def _run_on_two_devices(script, *args, devices=2):
    """Runs `script` in a fresh interpreter whose JAX has two (or `devices`)
    CPU devices (JAX fixes its device count when it starts)."""
    env = dict(os.environ)
    env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") +
                        f" --xla_force_host_platform_device_count={devices}"
                        ).strip()
    env["JAX_PLATFORMS"] = "cpu"
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.dirname(os.path.dirname(xffi.__file__)),
         env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-c", script, *args], env=env,
                          capture_output=True, text=True, timeout=300)


def _rules():
    return (lambda *a: None, lambda *a: None, lambda *a: None)


def test_records_batch_partitionable_targets():
    xffi.register_custom_call_as_batch_partitionable("part.batch_a")
    xffi.register_ffi_target_as_batch_partitionable("part.batch_b")
    xffi.register_ffi_target_as_batch_partitionable("part.batch_b")  # again
    names = xffi.batch_partitionable_targets()
    assert "part.batch_a" in names and "part.batch_b" in names
    assert names.count("part.batch_b") == 1


def test_records_a_custom_partitioner_and_replaces_it():
    prop, partition, infer = _rules()
    xffi.register_custom_call_partitioner("part.custom", prop, partition,
                                          infer)
    record = xffi.custom_call_partitioners()["part.custom"]
    assert record.partition is partition
    assert record.can_side_effecting_have_replicated_sharding is False
    assert record.c_api is None
    xffi.register_custom_call_partitioner(
        "part.custom", prop, infer, partition,
        can_side_effecting_have_replicated_sharding=True)
    record = xffi.custom_call_partitioners()["part.custom"]
    assert record.partition is infer
    assert record.can_side_effecting_have_replicated_sharding is True


@pytest.mark.parametrize("call, error, message", [
    (lambda: xffi.register_custom_call_as_batch_partitionable(b"x"),
     TypeError, "target_name must be str, got bytes"),
    (lambda: xffi.register_ffi_target_as_batch_partitionable(""),
     ValueError, "name is empty"),
    (lambda: xffi.register_custom_call_as_batch_partitionable("x", c_api=3),
     TypeError, "c_api must be a PyCapsule"),
    (lambda: xffi.register_custom_call_partitioner(
        "part.bad", lambda: 0, "partition", lambda: 0),
     TypeError, r"register_custom_call_partitioner\('part.bad'\): partition "
     "must be callable, got str"),
])
def test_refuses_malformed_registrations(call, error, message):
    with pytest.raises(error, match=message):
        call()
    assert "part.bad" not in xffi.custom_call_partitioners()


def test_forwards_a_custom_partitioner_to_xla_client(monkeypatch):
    pytest.importorskip("jax")
    import xffi.jax
    from jax._src.lib import xla_client
    seen = []
    monkeypatch.setattr(xla_client, "register_custom_call_partitioner",
                        lambda *args, **kwargs: seen.append((args, kwargs)))
    prop, partition, infer = _rules()
    xffi.register_custom_call_partitioner("part.forwarded", prop, partition,
                                          infer)
    xffi.jax.forward_partitioning()
    assert (("part.forwarded", prop, partition, infer),
            {"can_side_effecting_have_replicated_sharding": False,
             "c_api": None}) in seen
    # From now on a registration reaches XLA as it is made.
    xffi.register_custom_call_partitioner(
        "part.later", prop, partition, infer,
        can_side_effecting_have_replicated_sharding=True)
    assert seen[-1][0][0] == "part.later"
    assert seen[-1][1]["can_side_effecting_have_replicated_sharding"] is True


SCRIPT = textwrap.dedent("""
    import re, sys
    import numpy as np
    import jax
    from jax.extend.core import Primitive
    from jax.interpreters import mlir
    from jax.sharding import NamedSharding, PartitionSpec as P
    import xffi, xffi.jax

    assert len(jax.devices()) == 2, jax.devices()
    # XLA reads the batch dimensions of a batch-partitionable call from its
    # num_batch_dims frontend attribute, which jax.ffi.ffi_call does not
    # write (jaxlib's own LAPACK lowerings do, as here); with GSPMD that
    # attribute is all the partitioner needs (Shardy also wants a rule).
    jax.config.update("jax_use_shardy_partitioner", False)

    # Declared in xffi, under the name the program uses; register_library
    # gives it to JAX with the handler.
    xffi.register_ffi_target_as_batch_partitionable("bp.rms_norm")
    xffi.jax.register_library(sys.argv[1], prefix="bp.")
    xffi.jax.register_library(sys.argv[1], prefix="plain.")

    def primitive(target):
        p = Primitive(target)
        p.def_abstract_eval(lambda x, **_: x)
        def lower(ctx, x, **attrs):
            batch = mlir.ir_attribute({"num_batch_dims": "1"})
            return jax.ffi.ffi_lowering(target, extra_attributes={
                "mhlo.frontend_attributes": batch})(ctx, x, **attrs)
        mlir.register_lowering(p, lower)
        return p

    sharding = NamedSharding(jax.make_mesh((2,), ("b",)), P("b"))
    x = np.linspace(-2, 3, 8 * 16, dtype=np.float32).reshape(8, 16)
    xs = jax.device_put(x, sharding)
    want = x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-5)

    for name in ("bp.rms_norm", "plain.rms_norm"):
        p = primitive(name)
        f = jax.jit(lambda v: p.bind(v, eps=np.float32(1e-5)),
                    in_shardings=sharding, out_shardings=sharding)
        hlo = f.lower(xs).compile().as_text()
        calls = [line for line in hlo.splitlines()
                 if f'custom_call_target="{name}"' in line]
        assert len(calls) == 1, (name, calls)
        shape = re.search(r"= (f32\\[[0-9,]+\\])", calls[0]).group(1)
        np.testing.assert_allclose(np.asarray(f(xs)), want, rtol=1e-5)
        print(name, shape)
""")


def test_batch_partitionable_call_runs_per_shard_in_jax(rms_norm_library):
    pytest.importorskip("jax")
    run = _run_on_two_devices(SCRIPT, str(rms_norm_library.path))
    assert run.returncode == 0, run.stderr[-3000:]
    shapes = dict(line.split() for line in run.stdout.splitlines())
    # Each device normalises its own 4 rows; without the registration XLA
    # gathers the 8 rows and runs the whole call on each device.
    assert shapes == {"bp.rms_norm": "f32[4,16]",
                      "plain.rms_norm": "f32[8,16]"}, run.stdout


def _block_rows_seen(path):
    """The leading dimensions python_test.block_rows was called with since
    the last look, sorted."""
    import ctypes
    lib = ctypes.CDLL(str(path))
    seen = (ctypes.c_int64 * 64)()
    count = lib.python_test_block_rows_seen(seen, 64)
    return sorted(seen[:count])


BLOCK_ROWS_PROGRAM = """
module @m attributes {{mhlo.num_partitions = 4 : i32}} {{
  func.func public @main(%x: tensor<8x3xf32> {{{sharding}}})
      -> tensor<8xi64> {{
    %0 = stablehlo.custom_call @{target}(%x) {{api_version = 4 : i32{call}}}
        : (tensor<8x3xf32>) -> tensor<8xi64>
    return %0 : tensor<8xi64>
  }}
}}
"""


ONE_BATCH_DIM = ', mhlo.frontend_attributes = {num_batch_dims = "1"}'


@pytest.mark.parametrize("sharding, call, calls", [
    ('mhlo.sharding = "{devices=[2,1]<=[2]}"', ONE_BATCH_DIM, [4, 4]),
    ('mhlo.sharding = "{devices=[4,1]<=[4]}"', ONE_BATCH_DIM, [2, 2, 2, 2]),
    # Two blocks of rows, each on two devices, which compute the same
    # values: one call per block is left (the call has no side effects).
    ('mhlo.sharding = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"',
     ONE_BATCH_DIM, [4, 4]),
    ('mhlo.sharding = "{replicated}"', ONE_BATCH_DIM, [8]),
    # Without num_batch_dims (or with 0) XLA runs the call whole.
    ('mhlo.sharding = "{devices=[2,1]<=[2]}"', "", [8]),
    ('mhlo.sharding = "{devices=[2,1]<=[2]}"',
     ', mhlo.frontend_attributes = {num_batch_dims = "0"}', [8]),
])
def test_a_batch_partitionable_call_runs_per_device_in_a_program(
        test_plugin, test_plugin_path, sharding, call, calls):
    xffi.register_custom_call_as_batch_partitionable("python_test.block_rows")
    _block_rows_seen(test_plugin_path)
    program = xffi.Program.from_text(BLOCK_ROWS_PROGRAM.format(
        sharding=sharding, target="python_test.block_rows", call=call))
    rows = program(np.ones((8, 3), np.float32))
    # Each device's call filled its rows with its block's size.
    np.testing.assert_array_equal(rows, np.full(8, calls[0]))
    assert _block_rows_seen(test_plugin_path) == calls


SHARDED_PROGRAM_SCRIPT = textwrap.dedent("""
    import ctypes, sys
    import numpy as np
    import jax
    from jax.extend.core import Primitive
    from jax.interpreters import mlir
    from jax.sharding import NamedSharding, PartitionSpec as P
    import xffi, xffi.jax

    assert len(jax.devices()) == 2, jax.devices()
    jax.config.update("jax_enable_x64", True)
    plugin = ctypes.CDLL(sys.argv[1])

    def seen():
        out = (ctypes.c_int64 * 64)()
        n = plugin.python_test_block_rows_seen(out, 64)
        return sorted(out[:n])

    xffi.register_ffi_target_as_batch_partitionable(
        "bp.python_test.block_rows")
    for prefix in ("bp.", "plain."):
        xffi.jax.register_library(sys.argv[1], prefix=prefix,
                                  register_in_xffi=True)

    def primitive(target):
        p = Primitive(target)
        p.def_abstract_eval(
            lambda x: jax.core.ShapedArray(x.shape[:1], np.int64))
        def lower(ctx, x):
            batch = mlir.ir_attribute({"num_batch_dims": "1"})
            return jax.ffi.ffi_lowering(target, extra_attributes={
                "mhlo.frontend_attributes": batch})(ctx, x)
        mlir.register_lowering(p, lower)
        return p

    sharding = NamedSharding(jax.make_mesh((2,), ("b",)), P("b"))
    x = np.ones((8, 3), np.float32)
    xs = jax.device_put(x, sharding)
    for name, rows in (("bp.python_test.block_rows", 4),
                       ("plain.python_test.block_rows", 8)):
        p = primitive(name)
        for shardy in (False, True):
            jax.config.update("jax_use_shardy_partitioner", shardy)
            f = jax.jit(lambda v: p.bind(v), in_shardings=sharding)
            lowered = f.lower(xs)
            if not shardy:
                # XLA (GSPMD reads num_batch_dims) runs the call on each
                # device's block, or on the gathered rows (on one device or
                # on both, as its propagation decides).
                seen()
                out = f(xs)
                # Every device's call, not only the copy np.asarray reads
                # (a replicated result): a late call would count as xffi's.
                out.block_until_ready()
                np.testing.assert_array_equal(np.asarray(out),
                                              np.full(8, rows))
                in_jax = seen()
                assert in_jax and set(in_jax) == {rows}, (name, in_jax)
            for dialect in ("stablehlo", "hlo"):
                program = xffi.Program.from_text(
                    lowered.as_text(dialect=dialect))
                np.testing.assert_array_equal(program(x), np.full(8, rows))
                # xffi runs one process: one call per block, or one call.
                assert seen() == [rows] * (8 // rows), (name, shardy,
                                                        dialect)
    print("sharded programs OK")
""")


def test_jax_sharded_programs_split_batch_partitionable_calls_in_xffi(
        test_plugin_path):
    """The text JAX lowers for jax.jit with in_shardings on two devices (with
    Shardy and with GSPMD, StableHLO and HLO) runs in xffi with one call
    per device on its block for a batch-partitionable call, as XLA runs it,
    and one call on the whole array for any other."""
    pytest.importorskip("jax")
    run = _run_on_two_devices(SHARDED_PROGRAM_SCRIPT, str(test_plugin_path))
    assert run.returncode == 0, run.stdout + run.stderr[-3000:]
    assert "sharded programs OK" in run.stdout


@pytest.mark.parametrize("call", [
    lambda: xffi.register_custom_call_as_batch_partitionable(
        "part.k", num_batch_dims=1),
    lambda: xffi.register_ffi_target_as_batch_partitionable(
        "part.k", num_batch_dims=1),
    lambda: xffi.register_custom_call_as_batch_partitionable(
        "part.k", None, 2),
])
def test_takes_no_number_of_batch_dimensions_as_jax_takes_none(call):
    # The number is each call's num_batch_dims frontend attribute, as in
    # XLA; the registrations have JAX's signatures exactly.
    with pytest.raises(TypeError):
        call()
    assert "part.k" not in xffi.batch_partitionable_targets()


BATCH_DIMS_SCRIPT = textwrap.dedent("""
    import ctypes, re, sys
    import numpy as np
    import jax, jax.numpy as jnp
    from jax.extend.core import Primitive
    from jax.interpreters import mlir
    from jax.sharding import AxisType, NamedSharding, PartitionSpec as P
    import xffi, xffi.jax

    assert len(jax.devices()) == 2, jax.devices()
    jax.config.update("jax_enable_x64", True)
    # GSPMD reads num_batch_dims from the call (Shardy wants a rule too).
    jax.config.update("jax_use_shardy_partitioner", False)
    plugin = ctypes.CDLL(sys.argv[1])
    xffi.jax.register_library(sys.argv[1], prefix="bp1.",
                              register_in_xffi=True)
    xffi.jax.register_library(sys.argv[1], prefix="bp2.",
                              register_in_xffi=True)
    xffi.register_ffi_target_as_batch_partitionable(
        "bp1.python_test.block_shape")
    xffi.register_ffi_target_as_batch_partitionable(
        "bp2.python_test.block_shape")
    xffi.jax.forward_partitioning()

    def seen():
        out = (ctypes.c_int64 * 256)()
        n = plugin.python_test_block_shapes_seen(out, 256)
        shapes, i = [], 0
        while i < n:
            shapes.append(tuple(out[i + 1:i + 1 + out[i]]))
            i += 1 + out[i]
        return sorted(shapes)

    def primitive(k, written=True):
        # Both targets are registered alike: the call's frontend attribute
        # alone says how many batch dimensions it has (`written`: whether
        # the lowering writes it; a string: what it writes).
        target = f"bp{k}.python_test.block_shape"
        p = Primitive(target)
        p.def_abstract_eval(
            lambda x: jax.core.ShapedArray(x.shape[:k], np.int64))
        def lower(ctx, x):
            if not written:
                return jax.ffi.ffi_lowering(target)(ctx, x)
            value = written if isinstance(written, str) else str(k)
            batch = mlir.ir_attribute({"num_batch_dims": value})
            return jax.ffi.ffi_lowering(target, extra_attributes={
                "mhlo.frontend_attributes": batch})(ctx, x)
        mlir.register_lowering(p, lower)
        return p

    mesh = jax.make_mesh((2,), ("b",), axis_types=(AxisType.Auto,))
    cases = [
        # k, shape, spec, what the program does before the call
        (1, (8, 3), P("b"), lambda v: v),
        (1, (8, 4), P(None, "b"), lambda v: v),   # non-batch: gathered
        (1, (8,), P("b"), lambda v: v),           # only batch dims: whole
        (2, (4, 6, 3), P("b"), lambda v: v),
        (2, (4, 6, 3), P(None, "b"), lambda v: v),
        (2, (4, 6, 4), P(None, None, "b"), lambda v: v),
        (1, (8, 3), P("b"), lambda v: v[:5]),      # uneven: padded
        (1, (8, 3), P("b"), lambda v: v[1:]),
        (1, (3, 8), P(None, "b"), lambda v: v.T),
        (1, (8, 3, 2), P("b"), lambda v: v.reshape(8, 6)),
        # Reshapes merging or splitting the split dimension.
        (1, (8, 3), P("b"), lambda v: v.reshape(4, 6)),
        (1, (4, 6), P("b"), lambda v: v.reshape(8, 3)),
        (2, (16, 3), P("b"), lambda v: v.reshape(8, 2, 3)),
        (1, (4, 2, 3), P(None, "b"), lambda v: v.reshape(8, 3)),
        (1, (8,), P("b"), lambda v: jnp.broadcast_to(v[:, None], (8, 3))),
        # The call in a nested jax.jit: a private function JAX calls.
        (1, (8, 3), P("b"), "nested"),
        (2, (4, 6, 3), P(None, "b"), "nested"),
        # In a shard_map the call runs on each device's block as written
        # (its body is not split again).
        (1, (8, 3), P("b"), "shard_map"),
        # Without num_batch_dims, or with 0, XLA runs the call whole.
        (1, (8, 3), P("b"), "unwritten"),
        (1, (8, 3), P("b"), "0"),
        (2, (4, 6, 3), P("b"), " +1 "),   # read as XLA reads numbers
        # In a loop body (twice; the trip count is the data's) and in a
        # conditional's branch, as XLA splits them.
        (1, (8, 3), P("b"), "loop"),
        (2, (4, 6, 3), P(None, "b"), "loop"),
        (1, (8, 3), P("b"), "cond"),
        (1, (8, 3), P("b"), "loop of a nested jit"),
    ]
    for number, (k, shape, spec, before) in enumerate(cases):
        written = True
        if before == "unwritten" or before in ("0", " +1 "):
            written = before != "unwritten" and before
            before = lambda v: v
        p = primitive(k, written)
        x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
        sharding = NamedSharding(mesh, spec)
        xs = jax.device_put(x, sharding)
        if before == "nested":
            inner = jax.jit(lambda v: p.bind(v))
            f = jax.jit(lambda v: inner(v * 2), in_shardings=sharding)
            before = lambda v: v
            assert "call @" in f.lower(xs).as_text(), "not a nested call"
        elif before in ("loop", "loop of a nested jit"):
            call = jax.jit(p.bind) if before != "loop" else p.bind
            def f(v):
                # The call's operand changes each trip, so XLA cannot hoist
                # the call out of the loop.
                trips = (jnp.sum(v) >= 0).astype(np.int32) + 1
                start = (v, jnp.zeros(v.shape[:k], np.int64))
                return jax.lax.fori_loop(
                    0, trips, lambda i, c: (c[0] * 2, c[1] + call(c[0])),
                    start)[1]
            f = jax.jit(f, in_shardings=sharding)
            before = lambda v: v
        elif before == "cond":
            f = jax.jit(lambda v: jax.lax.cond(
                jnp.sum(v) >= 0, lambda u: p.bind(u),
                lambda u: p.bind(u * 2), v), in_shardings=sharding)
            before = lambda v: v
        elif before == "shard_map":
            f = jax.jit(jax.shard_map(lambda v: p.bind(v), mesh=mesh,
                                      in_specs=P("b"), out_specs=P("b")))
            before = lambda v: v
        else:
            f = jax.jit(lambda v: p.bind(before(v)), in_shardings=sharding)
        lowered = f.lower(xs)
        seen()
        want = f(xs)
        want.block_until_ready()
        in_jax = seen()
        program = xffi.Program.from_text(lowered.as_text())
        got = program(x)
        in_xffi = seen()
        np.testing.assert_array_equal(got, np.asarray(want))
        # XLA runs one call per device (2), xffi one per block (2): the
        # same calls, or half as many when the call runs whole.
        whole = tuple(jax.eval_shape(before, x).shape)
        if in_jax and all(shape == whole for shape in in_jax):
            assert in_xffi == in_jax[:len(in_jax) // 2], (number, in_jax,
                                                          in_xffi)
        else:
            assert in_xffi == in_jax, (number, in_jax, in_xffi)
        print(number, in_xffi)
    print("batch dims OK")
""")


def test_batch_dimensions_split_as_jax_splits_them(test_plugin_path):
    """For each case (one and two batch dimensions; a non-batch dimension
    sharded; an operand of batch dimensions only; a batch the devices do not
    divide; the sharding reaching the call through a slice, transpose,
    reshape or broadcast), xffi runs the call JAX lowers for two CPU
    devices on the block shapes XLA gives it, with XLA's results."""
    pytest.importorskip("jax")
    run = _run_on_two_devices(BATCH_DIMS_SCRIPT, str(test_plugin_path))
    assert run.returncode == 0, run.stdout + run.stderr[-3000:]
    assert "batch dims OK" in run.stdout


COMMON_SHARDING_SCRIPT = textwrap.dedent("""
    import re, sys
    import numpy as np
    import jax
    from jax.sharding import NamedSharding, PartitionSpec as P
    import xffi
    from xffi import _core

    n = len(jax.devices())
    # jaxlib registers its LAPACK targets as batch partitionable, and xffi
    # its built-in ones: nothing is asked of the user here, and the blocks
    # below show it.
    names = ("x", "y", "z")[:n.bit_length() - 1]
    mesh = jax.make_mesh((2,) * len(names), names)
    pairs = [(P("x"), P(None, "y")), (P("x"), P(None, "x")), (P("x"), P()),
             (P(), P("y")), (P(None, None, "x"), P("y")),
             (P("x", "y"), P(None, "x")), (P(None, "x"), P("y"))]
    if n == 8:
        pairs += [(P("x"), P("x", "y")), (P("x"), P("y")),
                  (P(("x", "y")), P(None, "z")),
                  (P("x"), P(None, ("y", "z"))), (P("z"), P(None, "x"))]

    def blocks(hlo):
        return sorted(set(re.findall(
            r"= f32\\[([0-9,]+)\\]\\{?[0-9,]*\\}? custom-call\\([^\\n]*"
            r"lapack_strsm_ffi", hlo)))

    a = np.tril(np.ones((4, 4), np.float32)) + 3 * np.eye(4, dtype=np.float32)
    a = np.broadcast_to(a, (8, 8, 4, 4)).copy()
    b = np.arange(8 * 8 * 4 * 4, dtype=np.float32).reshape(8, 8, 4, 4)
    solve = lambda a, b: jax.lax.linalg.triangular_solve(
        a, b, left_side=True, lower=True)
    for shardy in (False, True):
        jax.config.update("jax_use_shardy_partitioner", shardy)
        for sa, sb in pairs:
            f = jax.jit(solve, in_shardings=(NamedSharding(mesh, sa),
                                             NamedSharding(mesh, sb)))
            lowered = f.lower(a, b)
            in_xla = blocks(lowered.compile().as_text())
            program = _core._parse_program(lowered.as_text()).compile()
            in_xffi = blocks(program.hlo_text())
            assert in_xla and in_xffi == in_xla, (n, shardy, sa, sb, in_xla,
                                                  in_xffi)
            np.testing.assert_allclose(program(a, b), np.asarray(f(a, b)),
                                       rtol=1e-6)
            print(n, shardy, sa, sb, in_xffi)

        # A loop carry that starts as zeros and takes the split argument's
        # rows in the body: XLA gives the loop state the split.
        def loop(x):
            def body(i, c):
                return solve(a[0], c) + x
            trips = (x.sum() > 0).astype(np.int32) + 1
            return jax.lax.fori_loop(0, trips, body, jax.numpy.zeros_like(x))
        f = jax.jit(loop, in_shardings=NamedSharding(mesh, P("x")))
        lowered = f.lower(b[0])
        in_xla = blocks(lowered.compile().as_text())
        program = _core._parse_program(lowered.as_text()).compile()
        assert in_xla and blocks(program.hlo_text()) == in_xla, in_xla
        np.testing.assert_allclose(program(b[0]), np.asarray(f(b[0])),
                                   rtol=1e-6)
    print("common sharding OK")
""")


@pytest.mark.parametrize("devices", [4, 8])
def test_differently_split_operands_give_the_blocks_xla_gives(devices):
    """lax.linalg.triangular_solve(a, b) (two batch dimensions) with a and b
    split differently over 4 and 8 CPU devices: xffi's compiled program
    calls lapack_strsm_ffi on the blocks XLA's compiled program does (the
    operands' batch shardings merged as FindCommonSharding merges them);
    and in a loop, on a carry whose split comes from the body."""
    pytest.importorskip("jax")
    run = _run_on_two_devices(COMMON_SHARDING_SCRIPT, devices=devices)
    assert run.returncode == 0, run.stdout + run.stderr[-3000:]
    assert "common sharding OK" in run.stdout


SHARDY_BACKWARD_SCRIPT = textwrap.dedent("""
    import json, pathlib, re, subprocess, sys
    import numpy as np
    import jax, jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P

    assert len(jax.devices()) == 4, jax.devices()
    cli, out = sys.argv[1], pathlib.Path(sys.argv[2])
    mesh = jax.make_mesh((4,), ("x",))
    a = np.eye(3, dtype=np.float32)[None].repeat(4, 0) * np.arange(
        1, 5, dtype=np.float32)[:, None, None]
    np.save(out / "a.npy", a)
    found = {}
    for shardy in (True, False):
        jax.config.update("jax_use_shardy_partitioner", shardy)
        f = jax.jit(jnp.linalg.cholesky,
                    in_shardings=NamedSharding(mesh, P()),
                    out_shardings=NamedSharding(mesh, P("x")))
        lowered = f.lower(a)
        # The shape XLA runs lapack_spotrf_ffi on, per device.
        compiled = lowered.compile().as_text()
        call = [l for l in compiled.splitlines()
                if 'custom_call_target="lapack_spotrf_ffi"' in l][0]
        in_xla = re.search(r"= \\((f32\\[[0-9,]+\\])", call).group(1)
        want = np.asarray(f(a))
        for dialect in ("stablehlo", "hlo"):
            path = out / f"chol_{shardy}.{dialect}"
            path.write_text(lowered.as_text(dialect=dialect))
            run = subprocess.run(
                [cli, "run", str(path), "--input", str(out / "a.npy"),
                 "--output-dir", str(out / "r"), "--dump-after",
                 "batch-partition"], capture_output=True, text=True)
            assert run.returncode == 0, run.stdout + run.stderr
            np.testing.assert_allclose(np.load(out / "r" / "result_0.npy"),
                                       want, rtol=1e-6)
            block = re.search(r"per_device \\(block\\.0: (f32\\[[0-9,]+\\])",
                              run.stdout + run.stderr)
            in_xffi = block.group(1) if block else "f32[4,3,3]"
            found[f"{shardy} {dialect}"] = (in_xla, in_xffi)
    print(json.dumps(found))
""")


def test_shardy_splits_a_call_from_its_out_sharding_as_xla_does(tmp_path):
    """jnp.linalg.cholesky of f32[4,3,3] with in P() and out P("x") on four
    devices: XLA under Shardy runs lapack_spotrf_ffi on each device's
    f32[1,3,3] (Shardy propagates the out_sharding back to the call), under
    GSPMD on the whole f32[4,3,3]. xffi does the same from the text JAX
    lowers (StableHLO and HLO), with JAX's values."""
    pytest.importorskip("jax")
    from conftest import built_library
    cli = built_library("src/xffi")
    run = _run_on_two_devices(SHARDY_BACKWARD_SCRIPT, str(cli),
                              str(tmp_path), devices=4)
    assert run.returncode == 0, run.stdout + run.stderr[-3000:]
    import json
    found = json.loads(run.stdout.strip().splitlines()[-1])
    assert found["True stablehlo"] == ["f32[1,3,3]", "f32[1,3,3]"], found
    assert found["False stablehlo"] == ["f32[4,3,3]", "f32[4,3,3]"], found
    for key, (in_xla, in_xffi) in found.items():
        assert in_xla == in_xffi, (key, found)
