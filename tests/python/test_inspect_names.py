"""`xffi inspect` shows the names JAX gives a program's arguments and
results: jax.jit writes each result's pytree path as `jax.result_info`
and, with debug info, each argument's as its location (`loc("x")`, HLO's
parameter metadata op_name). The expected names are built here from the
pytrees with jax.tree_util, not copied from JAX's text."""

import inspect
import json
import subprocess

import numpy as np
import pytest

from conftest import built_library

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402


def f(params, x):
    return {"out": params["w"] * x, "aux": x + 1}, (x.sum(), params["b"])


def _paths(prefix, tree):
    leaves, _ = jax.tree_util.tree_flatten_with_path(tree)
    return [prefix + jax.tree_util.keystr(path) for path, _ in leaves]


def _inspect(path):
    done = subprocess.run([str(built_library("src/xffi")), "inspect",
                           "--json", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    (program,) = json.loads(done.stdout)
    return ([p.get("jax_name") for p in program["parameters"]],
            [r.get("jax_name") for r in program["results"]])


def test_inspect_shows_the_argument_and_result_names_jax_wrote(tmp_path):
    params = {"w": np.ones(3, np.float32), "b": np.float32(2)}
    x = np.arange(3, dtype=np.float32)
    lowered = jax.jit(f).lower(params, x)
    names = list(inspect.signature(f).parameters)
    want_args = [n for name, arg in zip(names, (params, x))
                 for n in _paths(name, arg)]
    want_results = _paths("result", jax.eval_shape(f, params, x))
    assert want_results[0] == "result[0]['aux']"

    plain = tmp_path / "plain.mlir"
    plain.write_text(lowered.as_text())
    debug = tmp_path / "debug.mlir"
    debug.write_text(lowered.as_text(debug_info=True))
    hlo = tmp_path / "debug.hlo"
    hlo.write_text(lowered.as_text(dialect="hlo", debug_info=True))

    # Without debug info JAX writes only the results' names.
    assert _inspect(plain) == ([None] * len(want_args), want_results)
    assert _inspect(debug) == (want_args, want_results)
    # HLO keeps the arguments' (as op_name) and has no place for the
    # results' (XLA's converter drops jax.result_info).
    assert _inspect(hlo) == (want_args, [None] * len(want_results))


def test_exported_main_names_its_results_only(tmp_path):
    # jax.export's @main takes the arguments at unknown locations and calls
    # the function it wraps, whose arguments carry the names: so @main
    # shows the results' names and none for its arguments.
    from jax import export
    spec = jax.ShapeDtypeStruct(export.symbolic_shape("b"), jnp.float32)
    exported = export.export(jax.jit(lambda v: {"twice": 2 * v}))(spec)
    program = tmp_path / "poly.mlir"
    program.write_text(exported.mlir_module())
    assert 'loc("v")' in exported.mlir_module()
    assert _inspect(program) == ([None], ["result['twice']"])
    done = subprocess.run([str(built_library("src/xffi")), "inspect",
                           str(program)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "    result 0 \"result['twice']\": f32[?]\n" in done.stdout
