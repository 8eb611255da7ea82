"""The workload benchmark (bench/workloads) does not rot: its quick subset,
lowered by JAX, runs under xffi from both text forms and matches JAX's
results. Correctness only; speed is measured by bench/workloads/run.py,
never here."""

import os
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("jax")
pytest.importorskip("xffi")

from conftest import BUILD, ROOT  # noqa: E402

RUN = ROOT / "bench" / "workloads" / "run.py"


def test_quick_workloads_match_jax(tmp_path):
    done = subprocess.run(
        [sys.executable, str(RUN), "--quick", "--check", "--build",
         str(BUILD), "--work-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "JAX_PLATFORMS": "cpu"})
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stdout + done.stderr
    # One line per workload and text form, each saying ok.
    checked = [line for line in lines if line.endswith(": ok")]
    assert len(checked) == len(lines) and len(checked) >= 10, done.stdout
    forms = {pathlib.Path(line.split(":")[0]).suffix for line in checked}
    assert forms == {".mlir", ".hlo"}


def test_a_wrong_result_is_reported(tmp_path):
    # The check must be able to fail: compare() against altered references.
    sys.path.insert(0, str(RUN.parent))
    import numpy as np
    from run import compare

    want = [np.linspace(-1, 1, 64, dtype=np.float32),
            np.arange(8, dtype=np.int32)]
    assert compare([w.copy() for w in want], want) is None
    off = want[0].copy()
    off[5] += 1e-2
    assert "result 0" in compare([off, want[1]], want)
    wrong_int = want[1].copy()
    wrong_int[3] = 7
    assert "1 elements differ" in compare([want[0], wrong_int], want)
    assert "got float64" in compare([want[0].astype(np.float64), want[1]],
                                    want)
    assert "results" in compare(want[:1], want)
