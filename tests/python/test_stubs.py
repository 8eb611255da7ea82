"""The type stubs shipped with the package: python/xffi/_core.pyi is what
nanobind's stub generator makes of the built module, regenerated with

    PYTHONPATH=build/release/python .venv/bin/python -m nanobind.stubgen \\
        -q -P -m xffi._core -o python/xffi/_core.pyi

and py.typed marks the package as typed."""

import pathlib
import subprocess
import sys

import pytest

xffi = pytest.importorskip("xffi")
pytest.importorskip("nanobind")

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "python" / "xffi"


def test_the_committed_stub_matches_the_built_module(tmp_path):
    out = tmp_path / "_core.pyi"
    built_root = pathlib.Path(xffi.__file__).parent.parent
    done = subprocess.run(
        [sys.executable, "-m", "nanobind.stubgen", "-q", "-P", "-i",
         str(built_root), "-m", "xffi._core", "-o", str(out)],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (PACKAGE / "_core.pyi").read_text() == out.read_text(), (
        "python/xffi/_core.pyi is stale: regenerate it (see this file's "
        "docstring)")


def test_the_package_is_marked_typed():
    assert (PACKAGE / "py.typed").exists()
    assert (PACKAGE / "_core.pyi").exists()
