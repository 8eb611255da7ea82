"""Python threads calling one Program and ffi_call at once: every result
equals the serial one, and failing runs leave the others usable.
XFFI_STRESS_CALLS sets the calls per thread (default 40; scripts/stress.sh
runs the long version)."""

import os
import threading

import numpy as np
import pytest

xffi = pytest.importorskip("xffi")
from xffi import ShapeDtypeStruct as S  # noqa: E402

# A while loop whose body calls the rms_norm example handler, then a sum.
PROGRAM = """HloModule threads

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

cond {
  s = (s32[], f32[4,16]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  s = (s32[], f32[4,16]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[4,16] get-tuple-element(s), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  y = f32[4,16] custom-call(x), custom_call_target="rms_norm", api_version=API_VERSION_TYPED_FFI, backend_config={eps = 1.0e-05 : f32}
  z = f32[4,16] add(y, x)
  ROOT r = (s32[], f32[4,16]) tuple(next, z)
}

ENTRY main {
  x = f32[4,16] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[4,16]) tuple(zero, x)
  loop = (s32[], f32[4,16]) while(init), condition=cond, body=body
  v = f32[4,16] get-tuple-element(loop), index=1
  c = f32[] constant(0)
  total = f32[] reduce(v, c), dimensions={0,1}, to_apply=add
  ROOT out = (f32[4,16], f32[]) tuple(v, total)
}
"""

THREADS = 8
CALLS = int(os.environ.get("XFFI_STRESS_CALLS", "40"))


def run_threads(work):
    errors = []

    def guarded(index):
        try:
            work(index)
        except BaseException as error:  # reported by the main thread
            errors.append(error)

    threads = [threading.Thread(target=guarded, args=(t,))
               for t in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]


def inputs(count, seed):
    random = np.random.default_rng(seed)
    return [random.standard_normal((4, 16)).astype(np.float32)
            for _ in range(count)]


def test_threads_share_one_program(rms_norm_library):
    program = xffi.Program.from_text(PROGRAM, intra_op_threads=2)
    xs = inputs(16, 3)
    reference = [program(x) for x in xs]

    def work(t):
        for call in range(CALLS):
            pick = (t * 5 + call) % len(xs)
            v, total = program(xs[pick])
            np.testing.assert_array_equal(v, reference[pick][0])
            assert total == reference[pick][1]

    run_threads(work)


def test_threads_call_ffi_call(rms_norm_library):
    xs = inputs(16, 4)
    shared = xffi.ffi_call("rms_norm", S((4, 16), np.float32))
    reference = [shared(x, eps=1e-5) for x in xs]

    def work(t):
        own = xffi.ffi_call("rms_norm", S((4, 16), np.float32))
        for call in range(CALLS):
            pick = (t * 3 + call) % len(xs)
            caller = shared if call % 2 else own
            np.testing.assert_array_equal(caller(xs[pick], eps=1e-5),
                                          reference[pick])

    run_threads(work)


REFUSED = """HloModule refused

ENTRY main {
  ROOT c = s64[] custom-call(), custom_call_target="python_test.counter", api_version=API_VERSION_TYPED_FFI, backend_config={start = -1 : i64}
}
"""


def test_failing_runs_leave_the_process_and_other_runs_usable(
        rms_norm_library, test_plugin):
    # The counter's instantiate refuses a negative start: every run of
    # `refused` fails in a stage before execute, beside good runs of
    # `program`, and each failure is retried and reported the same way.
    program = xffi.Program.from_text(PROGRAM)
    refused = xffi.Program.from_text(REFUSED)
    x = inputs(1, 5)[0]
    expected = program(x)

    def work(t):
        for call in range(CALLS):
            if (call + t) % 4 == 0:
                with pytest.raises(ValueError,
                                   match=r"python_test.counter.*INSTANTIATE.*"
                                         r"start must be >= 0"):
                    refused()
                continue
            v, total = program(x)
            np.testing.assert_array_equal(v, expected[0])
            assert total == expected[1]

    run_threads(work)
    np.testing.assert_array_equal(program(x)[0], expected[0])


SORTS = """HloModule sorts

lt {
  p0 = f32[] parameter(0)
  p1 = f32[] parameter(1)
  ROOT r = pred[] compare(p0, p1), direction=LT
}

ENTRY main {
  x = f32[64,64] parameter(0)
  a = f32[64,64] negate(x)
  b = f32[64,64] sort(a), dimensions={1}, to_apply=lt
  ROOT c = f32[64,64] add(b, a)
}
"""


def test_memory_limit_refuses_a_program_that_needs_more():
    with pytest.raises(MemoryError,
                       match=r"the program's buffers need \d+ bytes, over "
                             r"the memory limit of 1024 bytes"):
        xffi.Program.from_text(SORTS, memory_limit=1024)
    program = xffi.Program.from_text(SORTS, memory_limit=-1)
    x = np.ones((64, 64), np.float32)
    np.testing.assert_array_equal(program(x), -2 * x)
    with pytest.raises(ValueError, match="custom_call_timeout must be >= 0"):
        xffi.Program.from_text(SORTS, custom_call_timeout=-1.0)


# python_test.rendezvous returns only when a second call is inside it at the
# same time: two threads get through only if neither holds the GIL (nor the
# program) while its handler runs.
MEET = """HloModule meet

ENTRY main {
  ROOT pair = s64[] custom-call(), custom_call_target="python_test.rendezvous", api_version=API_VERSION_TYPED_FFI, backend_config={timeout_ms = 20000 : i64}
}
"""


def meet_in_two_threads(call):
    # Returns both threads' pair ids; a call that failed (e.g. its partner
    # never arrived: the runs were serialised) fails the test here, so two
    # failures cannot compare equal.
    pairs = [None, None]
    errors = [None, None]

    def work(t):
        try:
            pairs[t] = int(call(t))
        except BaseException as error:  # reported on the test's thread
            errors[t] = error

    threads = [threading.Thread(target=work, args=(t,)) for t in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for error in errors:
        if error is not None:
            raise error
    assert None not in pairs
    return pairs


def test_two_runs_of_one_program_are_inside_a_handler_at_once(test_plugin):
    program = xffi.Program.from_text(MEET)
    first, second = meet_in_two_threads(lambda t: program())
    assert first == second


def test_ffi_call_releases_the_gil_while_the_handler_runs(test_plugin):
    callers = [xffi.ffi_call("python_test.rendezvous", S((), np.int64))
               for _ in range(2)]
    first, second = meet_in_two_threads(
        lambda t: callers[t](timeout_ms=20000))
    assert first == second


def test_calls_of_one_ffi_call_are_inside_its_handler_at_once(test_plugin):
    # One callable: each concurrent call takes a frame of its own.
    shared = xffi.ffi_call("python_test.rendezvous", S((), np.int64))
    for _ in range(2):  # the frames go back to the pool and are reused
        first, second = meet_in_two_threads(
            lambda t: shared(timeout_ms=10000))
        assert first == second


def test_threads_share_one_ffi_call_across_call_sites(test_plugin):
    # Two attribute sets (two call sites) and two shapes alternate between
    # threads calling one callable, so sites are replaced while other
    # threads' calls still run on the old ones.
    scale = xffi.ffi_call("python_test.scale",
                          S((16,), np.float32))
    wide = xffi.ffi_call("python_test.scale", S((4, 16), np.float32))
    random = np.random.default_rng(6)
    xs = [random.standard_normal(16).astype(np.float32) for _ in range(8)]
    factors = [np.float32(2), np.float32(-0.5)]
    one, three = np.int32(1), np.int32(3)  # the same objects: cache hits
    reference = [[scale(x, factor=f, offset=one) for f in factors]
                 for x in xs]
    x4 = np.stack(xs[:4])
    wide_reference = wide(x4, factor=factors[0], offset=three)

    def work(t):
        for call in range(CALLS):
            pick = (t * 3 + call) % len(xs)
            which = (t + call) % 2
            np.testing.assert_array_equal(
                scale(xs[pick], factor=factors[which], offset=one),
                reference[pick][which])
            if call % 5 == 0:
                np.testing.assert_array_equal(
                    wide(x4, factor=factors[0], offset=three),
                    wide_reference)

    run_threads(work)
