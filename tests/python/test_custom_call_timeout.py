"""Program(custom_call_timeout=...): a custom call whose future never
completes (python_test.stall) fails the run with TimeoutError naming the
target, within the bound, and leaves the program and the process usable."""

import ctypes
import time

import numpy as np
import pytest

xffi = pytest.importorskip("xffi")

STALL = """HloModule stall

ENTRY main {
  x = f32[4] parameter(0)
  done = s64[] custom-call(), custom_call_target="python_test.stall", api_version=API_VERSION_TYPED_FFI
  y = f32[4] negate(x)
  ROOT out = (s64[], f32[4]) tuple(done, y)
}
"""

NEGATE = """HloModule negate

ENTRY main {
  x = f32[4] parameter(0)
  ROOT y = f32[4] negate(x)
}
"""


@pytest.fixture(scope="module")
def stall_target(test_plugin):
    xffi.register_ffi_target("python_test.stall", test_plugin.Stall)


@pytest.fixture
def release_stalled(stall_target, test_plugin_path):
    release = ctypes.CDLL(str(test_plugin_path)).python_test_release_stalled
    release.restype = ctypes.c_int64
    release()  # calls left over from an earlier test
    return release


def test_a_call_that_never_completes_fails_within_the_timeout(
        release_stalled):
    program = xffi.Program.from_text(STALL, custom_call_timeout=0.2)
    x = np.arange(4, dtype=np.float32)
    for _ in range(2):  # the program stays usable after an abandoned run
        started = time.monotonic()
        with pytest.raises(TimeoutError,
                           match=r"'python_test\.stall'.* did not complete "
                                 r"within the custom-call timeout \(0\.2"):
            program(x)
        elapsed = time.monotonic() - started
        assert 0.2 <= elapsed < 10.0, elapsed
    # Both runs' futures were still pending: the runtime waited on neither.
    assert release_stalled() == 2


def test_the_process_is_usable_after_a_timeout(release_stalled):
    stalled = xffi.Program.from_text(STALL, custom_call_timeout=0.05)
    x = np.arange(4, dtype=np.float32)
    with pytest.raises(TimeoutError, match="python_test.stall"):
        stalled(x)
    # Other programs and eager calls run while the call is still pending...
    np.testing.assert_array_equal(xffi.Program.from_text(NEGATE)(x), -x)
    scale = xffi.ffi_call("python_test.scale",
                          xffi.ShapeDtypeStruct((4,), np.float32))
    np.testing.assert_array_equal(
        scale(x, factor=np.float32(2), offset=np.int32(1)), 2 * x + 1)
    # ...and after it completes late (with an error nobody waits for).
    assert release_stalled() == 1
    np.testing.assert_array_equal(xffi.Program.from_text(NEGATE)(x), -x)
    with pytest.raises(TimeoutError, match="python_test.stall"):
        stalled(x)
    assert release_stalled() == 1


def test_without_a_timeout_a_late_completion_is_waited_for(release_stalled):
    import threading

    program = xffi.Program.from_text(STALL)
    x = np.arange(4, dtype=np.float32)
    outcome = {}

    def run():
        try:
            program(x)
        except Exception as e:  # noqa: BLE001 - the error is the outcome
            outcome["error"] = e

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 10.0
    released = 0
    while released == 0 and time.monotonic() < deadline:
        time.sleep(0.02)
        released = release_stalled()
    thread.join(10.0)
    assert released == 1 and not thread.is_alive()
    # The handler's future failed: the run reports that error, naming the
    # target.
    assert "python_test.stall" in str(outcome["error"])
    assert "released by the test" in str(outcome["error"])
