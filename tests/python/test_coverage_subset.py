"""The coverage sweep's CI subset: the cases of
tests/programs/sweep/ci_subset.txt run as in the full sweep (JAX lowers
them, xffi runs the StableHLO and the HLO text, results compared with
JAX's), and each must do exactly what its expectation says: run and match,
or fail with its recorded cause. An expected failure that starts passing
fails too, so the file is shortened as xffi gains ops. Also checked here:
every public function of the swept modules has a recipe or a reason to be
skipped, and the comparison itself tells wrong results from right ones."""

import math
import pathlib
import sys

import numpy as np
import pytest

pytest.importorskip("jax")
pytest.importorskip("xffi")

PROGRAMS = pathlib.Path(__file__).resolve().parents[1] / "programs"
sys.path.insert(0, str(PROGRAMS))

from sweep import compare, expectations, report, workers  # noqa: E402
from sweep.cases import Inventory  # noqa: E402

SUBSET = PROGRAMS / "sweep" / "ci_subset.txt"
EXPECTED = expectations.load(SUBSET)


@pytest.fixture(scope="module")
def results():
    # The same worker processes as the full sweep: a crash or a hang costs
    # one case, not the test session.
    ran = workers.run_cases(list(EXPECTED), jobs=2, timeout=60.0)
    return {result["id"]: result for result in ran}


@pytest.mark.parametrize("case_id", list(EXPECTED))
def test_case_does_what_it_is_expected_to(case_id, results):
    problem = expectations.judge(case_id, EXPECTED[case_id], results[case_id])
    assert problem is None, problem


def test_subset_covers_every_swept_module():
    inventory = Inventory()
    unknown = [case_id for case_id in EXPECTED
               if case_id not in inventory.by_id]
    assert not unknown, f"{SUBSET} names cases the sweep lacks: {unknown}"
    modules = {case.module for case in inventory.cases}
    covered = {inventory.by_id[case_id].module for case_id in EXPECTED}
    assert modules - covered == set()
    assert any(inventory.by_id[i].grad for i in EXPECTED)


def test_every_public_function_has_a_recipe_or_a_reason():
    inventory = Inventory()
    assert inventory.uncatalogued == [], (
        "public JAX functions with neither a recipe nor a skip reason in "
        f"tests/programs/sweep/catalog_*.py: {inventory.uncatalogued}")


def test_comparison_catches_what_differs():
    f32 = np.float32
    same = [np.array([1.0, math.nan, -math.inf], f32)]
    assert compare.compare(same, [s.copy() for s in same], "elementwise",
                           False) is None
    moved_nan = [np.array([math.nan, 1.0, -math.inf], f32)]
    assert "NaN positions" in compare.compare(same, moved_nan, "elementwise",
                                              False)
    flipped_inf = [np.array([1.0, math.nan, math.inf], f32)]
    assert "infinities" in compare.compare(same, flipped_inf, "elementwise",
                                           False)
    ulp = np.nextafter(f32(1.0), f32(2.0))
    assert compare.compare([np.array([1.0], f32)], [np.array([ulp])],
                           "elementwise", False) is None
    assert "elements off" in compare.compare(
        [np.array([1.0], f32)], [np.array([1.001], f32)], "elementwise",
        False)
    # Integers and the exact family are bit for bit, signed zeros included.
    assert "differ" in compare.compare([np.array([3], np.int32)],
                                       [np.array([4], np.int32)], "special",
                                       False)
    assert compare.compare([np.array([0.0], f32)], [np.array([-0.0], f32)],
                           "exact", False) is not None
    assert "dtype" in compare.compare([np.zeros(2, f32)],
                                      [np.zeros(2, np.float64)],
                                      "elementwise", False)
    assert "shape" in compare.compare([np.zeros(2, f32)], [np.zeros(3, f32)],
                                      "elementwise", False)


def test_expectations_name_the_unexpected_pass():
    expectation = expectations.Expectation()
    expectation.failures = {"stablehlo": "unsupported op: fft",
                            "hlo": "unsupported op: fft"}
    passing = {"status": "ok", "cause": "", "detail": "",
               "forms": {form: {"status": "ok", "cause": "", "detail": ""}
                         for form in ("stablehlo", "hlo")}}
    problem = expectations.judge("jnp.fft.fft[c64]", expectation, passing)
    assert "unexpected pass" in problem
    assert expectations.judge("jnp.sin[f32]", expectations.Expectation(),
                              passing) is None


def test_a_case_lost_to_a_crash_keeps_its_function_for_the_report():
    # The full sweep's report groups results by function; a result made for a
    # worker that died once lacked it and the report stopped with a KeyError.
    lost = workers._lost("lax.add(x)[f32]@rbg/grad", "stablehlo:run", "crash",
                         "SIGSEGV: ...")
    assert lost["function"] == "lax.add"
    assert lost["forms"]["stablehlo"]["status"] == "crash"
    totals = "\n".join(report._totals([lost]))
    assert "| lax | 1 | 1 |" in totals
