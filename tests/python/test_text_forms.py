"""The StableHLO text JAX lowers and the HLO text of the same lowering
(`.as_text("hlo")`) compile to the same fusion structure, so the two
columns of bench/workloads cost the same. JAX's HLO spells erf_inv
(jax.random.normal) out as a polynomial whose coefficients are selects
between broadcast constants; loop fusion's size bound once counted those
and split the HLO form's one fusion into eight."""

import json
import subprocess

import numpy as np
import pytest

from conftest import built_library

jax = pytest.importorskip("jax")
xffi = pytest.importorskip("xffi")
import jax.numpy as jnp  # noqa: E402


def _compiled(path):
    done = subprocess.run([str(built_library("src/xffi")), "inspect",
                           "--compile", "--json", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    (program,) = json.loads(done.stdout)
    return program["compiled"]


def _structure(compiled):
    # Fusion names and the computations holding them are spelled after
    # each text's own names; what they compute and return is compared.
    return sorted((f["kind"], f["root"], tuple(f["results"]))
                  for f in compiled["fusion_list"])


def _normal(key_data):
    key = jax.random.wrap_key_data(key_data, impl="threefry2x32")
    return jax.random.normal(key, (256, 256), jnp.float32)


def _complex_chain(z, w):
    return z * w + jnp.exp(z * 0.1) * jnp.conj(w) / (jnp.abs(z) + 1)


def _forms(tmp_path, fn, args):
    lowered = jax.jit(fn).lower(*args)
    shlo = tmp_path / "program.mlir"
    shlo.write_text(lowered.as_text())
    hlo = tmp_path / "program.hlo"
    hlo.write_text(lowered.as_text("hlo"))
    return shlo, hlo, np.asarray(jax.jit(fn)(*args))


def test_random_normal_compiles_to_the_same_fusions_from_both_texts(tmp_path):
    key_data = np.array([12, 3456789], np.uint32)
    shlo, hlo, want = _forms(tmp_path, _normal, [key_data])
    assert "erf_inv" in shlo.read_text()
    assert "log-plus-one" in hlo.read_text()  # the expanded spelling
    from_shlo, from_hlo = _compiled(shlo), _compiled(hlo)
    assert _structure(from_hlo) == _structure(from_shlo)
    # Main's values all stay in one fusion: no array more than the
    # StableHLO form's goes through memory.
    assert from_hlo["fusions"] == from_shlo["fusions"]
    assert from_hlo["arena_bytes"] == from_shlo["arena_bytes"]
    for path in (shlo, hlo):
        got = xffi.Program.from_text(path.read_text())(key_data)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_complex_chain_is_one_fusion_from_both_texts(tmp_path):
    rng = np.random.default_rng(5)
    z, w = ((rng.standard_normal((64, 64)) +
             1j * rng.standard_normal((64, 64))).astype(np.complex64)
            for _ in range(2))
    shlo, hlo, want = _forms(tmp_path, _complex_chain, [z, w])
    # JAX's HLO spells the complex exponential out in real ops.
    assert "cosine" in hlo.read_text()
    for path in (shlo, hlo):
        compiled = _compiled(path)
        assert compiled["fusions"] == {"kLoop": 1}
        got = xffi.Program.from_text(path.read_text())(z, w)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
