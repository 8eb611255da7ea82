"""pytest plugin for scripts/lsan_python.sh (loaded with -p lsan_pytest).

JAX is made unimportable, so the tests that would run it (a reference
result from jax.lax, pytest.importorskip("jax")) skip: jaxlib is
uninstrumented, and its bindings drop references to strings they made at
import, which no xffi code runs beside.

The leak check runs when pytest is done, while the interpreter is still
whole, and not at exit: CPython's finalization drops the modules and the
collector's lists without freeing every object still referenced from
them (test classes, their instances, cached arguments), and at exit
LeakSanitizer would report those objects, allocated wherever CPython was
asked for them, as leaks. Checking earlier, what the interpreter still
holds is reachable, and memory xffi allocated and lost is not.
__lsan_do_leak_check reports as the exit-time check would (exit code 23
on a leak) and turns that check off.
"""
import ctypes
import gc
import sys

import pytest

for name in ("jax", "jaxlib"):
    sys.modules[name] = None  # import raises ImportError


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    gc.collect()  # what only cycles held is garbage, not a leak
    ctypes.CDLL(None).__lsan_do_leak_check()
