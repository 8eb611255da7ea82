"""custom_call_timeout, on Programs and on eager calls (ffi_call's keyword
and the process-wide xffi.set_custom_call_timeout): a custom call whose
future never completes (python_test.stall) fails with TimeoutError naming
the target, within the bound, and leaves the program, the callable and the
process usable; one that completes late (python_test.late_copy) writes only
into what the abandoned call kept alive."""

import ctypes
import gc
import os
import pathlib
import subprocess
import sys
import threading
import time
import weakref

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
    program = xffi.Program.from_text(STALL)
    x = np.arange(4, dtype=np.float32)
    error = _error_once_released(lambda: program(x), release_stalled)
    # The handler's future failed: the run reports that error, naming the
    # target.
    assert "python_test.stall" in str(error)
    assert "released by the test" in str(error)


def _error_once_released(call, release_stalled):
    """Runs `call` on a thread, releases the stalled call it makes, and
    returns the error it raised."""
    outcome = {}

    def run():
        try:
            call()
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
    return outcome.get("error")


@pytest.fixture
def late_copy(test_plugin, test_plugin_path):
    """python_test.late_copy's controls: hold(n), release() -> how many
    ran, states_alive()."""
    library = ctypes.CDLL(str(test_plugin_path))
    library.python_test_release_late.restype = ctypes.c_int64
    library.python_test_late_states_alive.restype = ctypes.c_int64
    library.python_test_hold_late.argtypes = [ctypes.c_int64]

    class Controls:
        hold = library.python_test_hold_late
        release = library.python_test_release_late
        states_alive = library.python_test_late_states_alive

    Controls.release()  # calls left over from an earlier test
    yield Controls
    Controls.hold(0)
    Controls.release()


LATE_COPY = """HloModule late

ENTRY main {
  x = f32[16] parameter(0)
  ROOT y = f32[16] custom-call(x), custom_call_target="python_test.late_copy", api_version=API_VERSION_TYPED_FFI
}
"""


def _timed_out_runs(program, n, target, size):
    """Makes `n` runs of `program` on f32[size] arguments, each failing with
    a TimeoutError naming `target`; returns weak references to each run's
    argument."""
    refs = []
    for i in range(n):
        x = np.full(size, i, dtype=np.float32)
        with pytest.raises(TimeoutError, match=target):
            program(x)
        refs.append(weakref.ref(x))
        del x
    gc.collect()
    return refs


def _runs_that_time_out(program, late_copy, n):
    """Makes `n` runs of `program` time out with their late_copy calls
    held; returns weak references to each run's argument."""
    late_copy.hold(n)
    return _timed_out_runs(program, n, "python_test.late_copy", 16)


def test_a_program_releases_a_timed_out_runs_arrays_once_its_handler_completes(
        late_copy):
    program = xffi.Program.from_text(LATE_COPY, custom_call_timeout=0.05)
    runs = 4
    refs = _runs_that_time_out(program, late_copy, runs)
    # Still running: every run's arrays are kept (a late write into freed
    # memory is what ASan would report otherwise).
    assert program._executable._abandoned_runs() == runs
    assert all(ref() is not None for ref in refs)
    assert late_copy.release() == runs  # reads each x, writes each y
    assert program._executable._abandoned_runs() == 0
    gc.collect()
    assert all(ref() is None for ref in refs)
    # The program goes on: a run that completes keeps nothing.
    x = np.arange(16, dtype=np.float32)
    y = program(x)
    assert program._executable._abandoned_runs() == 0
    np.testing.assert_array_equal(y, 2 * x + runs)


def test_a_destroyed_programs_timed_out_runs_are_released_later(late_copy):
    program = xffi.Program.from_text(LATE_COPY, custom_call_timeout=0.05)
    refs = _runs_that_time_out(program, late_copy, 2)
    del program
    gc.collect()
    assert all(ref() is not None for ref in refs)
    assert late_copy.release() == 2
    # Another program's next call sweeps what destroyed ones left.
    other = xffi.Program.from_text(NEGATE)
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(other(x), -x)
    gc.collect()
    assert all(ref() is None for ref in refs)


@pytest.fixture
def process_wide_timeout():
    """Restores the process-wide timeout a test sets."""
    before = xffi.custom_call_timeout()
    yield xffi.set_custom_call_timeout
    xffi.set_custom_call_timeout(before)


def test_an_eager_call_that_never_completes_fails_within_the_timeout(
        release_stalled):
    stall = xffi.ffi_call("python_test.stall",
                          xffi.ShapeDtypeStruct((), np.int64),
                          custom_call_timeout=0.2)
    assert stall.custom_call_timeout == 0.2
    for _ in range(2):  # the callable stays usable after an abandoned call
        started = time.monotonic()
        with pytest.raises(TimeoutError,
                           match=r"ffi_call\('python_test\.stall'\) did not "
                                 r"complete within the custom-call timeout "
                                 r"\(0\.2 s\)"):
            stall()
        elapsed = time.monotonic() - started
        assert 0.2 <= elapsed < 10.0, elapsed
    # Both calls are kept (frame, state, arrays) until their futures
    # complete, and released at the next look after that.
    assert xffi._core._abandoned_calls() == 2
    assert release_stalled() == 2
    assert xffi._core._abandoned_calls() == 0


def test_a_late_handler_writes_only_into_what_the_abandoned_call_kept(
        late_copy):
    late = xffi.ffi_call("python_test.late_copy",
                         xffi.ShapeDtypeStruct((16,), np.float32),
                         custom_call_timeout=0.05)
    states_before = late_copy.states_alive()
    x0 = np.zeros(16, dtype=np.float32)
    np.testing.assert_array_equal(late(x0), x0)  # its state has seen 1 call
    late_copy.hold(1)
    x = np.arange(16, dtype=np.float32)
    with pytest.raises(TimeoutError, match=r"ffi_call\('python_test\."
                                           r"late_copy'\).*\(0\.05 s\)"):
        late(x)
    del x
    gc.collect()
    assert xffi._core._abandoned_calls() == 1
    # Arrays of the abandoned call's size: NumPy reuses freed blocks of a
    # size for the next ones, so had the call's argument or result been
    # freed, the late write below would land in one of these.
    fresh = [np.full(16, 7, dtype=np.float32) for _ in range(8)]
    # The next call works, on a new frame and a new state (its count starts
    # again at 0): had it reused the frame, the late write (2x + 1, from the
    # old state) would land in its result.
    x2 = np.full(16, 3, dtype=np.float32)
    y2 = late(x2)
    np.testing.assert_array_equal(y2, np.full(16, 6, np.float32))
    assert late_copy.states_alive() == states_before + 2
    assert late_copy.release() == 1  # reads x, writes y, bumps the state
    for array in fresh:
        np.testing.assert_array_equal(array, np.full(16, 7, np.float32))
    np.testing.assert_array_equal(y2, np.full(16, 6, np.float32))
    np.testing.assert_array_equal(x2, np.full(16, 3, np.float32))
    # Completed: released, its state's deleter run once.
    assert xffi._core._abandoned_calls() == 0
    assert late_copy.states_alive() == states_before + 1
    np.testing.assert_array_equal(late(x2), np.full(16, 7, np.float32))
    del late
    gc.collect()
    assert late_copy.states_alive() == states_before


def test_a_late_completion_within_the_timeout_is_the_result(late_copy):
    late = xffi.ffi_call("python_test.late_copy",
                         xffi.ShapeDtypeStruct((4,), np.float32),
                         custom_call_timeout=30.0)
    late_copy.hold(1)
    x = np.arange(4, dtype=np.float32)
    released = []
    timer = threading.Timer(0.1, lambda: released.append(late_copy.release()))
    timer.start()
    y = late(x)
    timer.join()
    assert released == [1]
    np.testing.assert_array_equal(y, 2 * x)
    assert xffi._core._abandoned_calls() == 0


def test_the_process_wide_timeout_bounds_calls_made_without_one(
        release_stalled, process_wide_timeout):
    process_wide_timeout(0.05)
    assert xffi.custom_call_timeout() == 0.05
    result = xffi.ShapeDtypeStruct((), np.int64)
    stall = xffi.ffi_call("python_test.stall", result)
    assert stall.custom_call_timeout is None  # read at each call
    with pytest.raises(TimeoutError, match=r"'python_test\.stall'.*\(0\.05 s"):
        stall()
    # Programs compiled without one take it too.
    program = xffi.Program.from_text(STALL)
    with pytest.raises(TimeoutError, match=r"'python_test\.stall'.*\(0\.05"):
        program(np.zeros(4, np.float32))
    assert release_stalled() == 2
    # A call's own 0 means no timeout: it waits for the late completion.
    patient = xffi.ffi_call("python_test.stall", result,
                            custom_call_timeout=0)
    error = _error_once_released(patient, release_stalled)
    assert "released by the test" in str(error)
    # Back to no timeout: calls made without one wait again.
    process_wide_timeout(0)
    assert xffi.custom_call_timeout() == 0


@pytest.mark.parametrize("value, error, message", [
    (-1, ValueError, "between 0"),
    (float("nan"), ValueError, "between 0"),
    ("soon", TypeError, "a number of seconds"),
])
def test_a_bad_timeout_is_refused_naming_the_call(test_plugin, value, error,
                                                  message):
    with pytest.raises(error, match=r"ffi_call\('python_test\.scale'\): "
                                    r"custom_call_timeout must be"):
        xffi.ffi_call("python_test.scale",
                      xffi.ShapeDtypeStruct((4,), np.float32),
                      custom_call_timeout=value)
    with pytest.raises(error, match=message):
        xffi.set_custom_call_timeout(value)


def _import_with_environment(value):
    package_root = pathlib.Path(xffi.__file__).parent.parent
    env = dict(os.environ, XFFI_CUSTOM_CALL_TIMEOUT=value,
               PYTHONPATH=str(package_root))
    return subprocess.run(
        [sys.executable, "-c",
         "import xffi; print(xffi.custom_call_timeout())"],
        capture_output=True, text=True, env=env, timeout=120)


def test_the_environment_sets_the_initial_process_wide_timeout():
    done = _import_with_environment("0.25")
    assert done.returncode == 0, done.stderr
    assert float(done.stdout) == 0.25
    done = _import_with_environment("soon")
    assert done.returncode != 0
    assert "XFFI_CUSTOM_CALL_TIMEOUT" in done.stderr


@pytest.fixture(scope="module")
def device_stall_target(test_plugin):
    # Stall touches no buffer, so it serves the simulated GPU as it is.
    xffi.register_ffi_target("python_test.stall", test_plugin.Stall,
                             platform="cuda")


@pytest.mark.parametrize("device_results", [False, True])
def test_a_device_program_releases_a_timed_out_runs_arrays_once_it_completes(
        device_stall_target, release_stalled, device_results):
    # Host results go through ExecuteRawNotifying, device results through
    # the device leaves' entry: both report the abandoned call's completion.
    program = xffi.Program.from_text(STALL, platform="sim",
                                     custom_call_timeout=0.05,
                                     device_results=device_results)
    refs = _timed_out_runs(program, 2, "python_test.stall", 4)
    assert program._executable._abandoned_runs() == 2
    assert all(ref() is not None for ref in refs)
    assert release_stalled() == 2
    assert program._executable._abandoned_runs() == 0
    gc.collect()
    assert all(ref() is None for ref in refs)
