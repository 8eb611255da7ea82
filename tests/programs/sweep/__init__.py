"""The coverage sweep over JAX's public API (issue 12, item 3).

Every public function of jax.numpy (with jnp.linalg and jnp.fft), jax.lax,
jax.nn, jax.scipy.special/linalg/signal, jax.image and jax.random is either
given argument recipes (catalog_*.py) or skipped with a reason. Each recipe
becomes cases (a call, an argument dtype, forward or gradient); each case is
lowered by jax.jit to StableHLO and to HLO text, both texts run in xffi, and
their results are compared with what JAX computes (check.py).

  run.py              the full sweep; writes tests/programs/COVERAGE.md
  ci_subset.txt       the cases tests/python/test_coverage_subset.py runs,
                      with the outcome each is expected to have

Modules:
  inputs.py           deterministic arguments per domain and dtype
  spec.py             the recipe vocabulary (A, V, Spec) and the case type
  catalog_*.py        the recipes and the deliberate skips, per JAX module
  cases.py            enumeration: JAX's public names against the catalog
  check.py            running one case and classifying its outcome
  compare.py          per-dtype, per-family tolerances
  workers.py          worker processes with a per-case timeout
  report.py           COVERAGE.md
  expectations.py     the CI subset's file of expected outcomes
"""
