"""Shared fixtures of the Python suite: where the built handler libraries
are ($XFFI_BUILD_DIR, default build/release). When that build has the
Python module (XFFI_BUILD_PYTHON=ON), its package (BUILD/python/xffi) is the
one imported; otherwise an installed xffi is."""

import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("XFFI_BUILD_DIR", ROOT / "build" / "release"))
if not BUILD.is_absolute():
    BUILD = ROOT / BUILD
if any((BUILD / "python" / "xffi").glob("_core*.so")):
    sys.path.insert(0, str(BUILD / "python"))


def built_library(relative: str) -> pathlib.Path:
    path = BUILD / relative
    if not path.exists():
        pytest.fail(f"{path} is missing: build it first (scripts/build.sh "
                    "release builds the examples and test plugins)")
    return path


@pytest.fixture(scope="session")
def test_plugin_path() -> pathlib.Path:
    return built_library("tests/python/plugins/libpython_test_handlers.so")


@pytest.fixture(scope="session")
def test_plugin(test_plugin_path):
    xffi = pytest.importorskip("xffi")
    return xffi.load_library(test_plugin_path)


@pytest.fixture(scope="session")
def rms_norm_library():
    xffi = pytest.importorskip("xffi")
    return xffi.load_library(built_library("examples/rms_norm/librms_norm.so"))


@pytest.fixture(scope="session")
def legacy_library():
    xffi = pytest.importorskip("xffi")
    return xffi.load_library(
        built_library("examples/do_custom_call_legacy/libdo_custom_call_legacy.so"))
