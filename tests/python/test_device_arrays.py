"""Device arrays from and to Python: a "sim" program takes DLPack producers
on its device (kDLExtDev, ordinal 0) without a trip through the host and
leaves its results there as xffi.DeviceArray; a kDLCUDA producer where no
CUDA device exists is one clear error. The producers here are xffi's own
DeviceArray and fake ones built with ctypes, as CuPy's or JAX's would be."""

import ctypes
import gc

import numpy as np
import pytest

xffi = pytest.importorskip("xffi")

KDL_CPU, KDL_CUDA, KDL_EXT_DEV = 1, 2, 12
FLOAT_CODE = 2

SCALE = """HloModule scale
ENTRY main {
  x = f32[2,3] parameter(0)
  two = f32[] constant(2)
  b = f32[2,3] broadcast(two), dimensions={}
  ROOT y = f32[2,3] multiply(x, b)
}
"""

ADD = """HloModule add
ENTRY main {
  x = f32[2,3] parameter(0)
  y = f32[2,3] parameter(1)
  ROOT s = f32[2,3] add(x, y)
}
"""

PAIR = """HloModule pair
ENTRY main {
  x = f32[2,3] parameter(0)
  n = f32[2,3] negate(x)
  ROOT t = (f32[2,3], f32[2,3]) tuple(x, n)
}
"""


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32),
                ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


_CAPSULE_NAME = b"dltensor"  # lives as long as the module: capsules keep it
_new_capsule = ctypes.pythonapi.PyCapsule_New
_new_capsule.restype = ctypes.py_object
_new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def device_address(array):
    """The device address of a DeviceArray, read from its DLPack capsule."""
    capsule = array.__dlpack__()
    tensor = ctypes.cast(_capsule_pointer(capsule, _CAPSULE_NAME),
                         ctypes.POINTER(_DLManagedTensor)).contents
    return tensor.dl_tensor.data


class FakeProducer:
    """A DLPack producer on any device: an unversioned capsule over
    `address`, built as a GPU library's __dlpack__ would build it, with no
    deleter (this object owns the structures). Records each __dlpack__
    call's keywords; `owner` is kept alive with it."""

    def __init__(self, device_type, address, shape, *, strides=None,
                 bits=32, owner=None, accepts_max_version=True):
        self.device = (device_type, 0)
        self.owner = owner
        self.calls = []
        self.accepts_max_version = accepts_max_version
        ndim = len(shape)
        self._shape = (ctypes.c_int64 * max(ndim, 1))(*shape)
        self._strides = None
        if strides is not None:
            self._strides = (ctypes.c_int64 * max(ndim, 1))(*strides)
        self._tensor = _DLManagedTensor()
        t = self._tensor.dl_tensor
        t.data = address
        t.device = _DLDevice(device_type, 0)
        t.ndim = ndim
        t.dtype = _DLDataType(FLOAT_CODE, bits, 1)
        t.shape = self._shape
        if self._strides is not None:
            t.strides = self._strides

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None, **keywords):
        if "max_version" in keywords and not self.accepts_max_version:
            raise TypeError("__dlpack__() got an unexpected keyword argument "
                            "'max_version'")
        self.calls.append(dict(keywords, stream=stream))
        return _new_capsule(ctypes.addressof(self._tensor), _CAPSULE_NAME,
                            None)


class CapsuleHolder:
    """Another owner of a DeviceArray's memory: only its DLPack capsule."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack_device__(self):
        return (KDL_EXT_DEV, 0)

    def __dlpack__(self, stream=None, **keywords):
        return self.capsule


def a_cuda_device_exists():
    try:
        xffi.Program.from_text(SCALE, platform="cuda")
    except RuntimeError:
        return False
    return True


@pytest.fixture
def x():
    return np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5


def test_results_stay_on_the_device_and_copy_to_the_host(x):
    program = xffi.Program.from_text(SCALE, platform="sim",
                                     device_results=True)
    y = program(x)
    assert isinstance(y, xffi.DeviceArray)
    assert y.__dlpack_device__() == (KDL_EXT_DEV, 0)
    assert y.shape == (2, 3) and y.dtype == np.float32 and y.nbytes == 24
    np.testing.assert_array_equal(np.asarray(y), x * 2)
    np.testing.assert_array_equal(y.copy_to_host(), x * 2)
    assert np.asarray(y, dtype=np.float64).dtype == np.float64
    with pytest.raises(ValueError, match="always a copy"):
        y.__array__(copy=False)
    assert "f32(2, 3) on sim:0" in repr(y)


def test_device_results_feed_the_next_program_on_the_device(x):
    scale = xffi.Program.from_text(SCALE, platform="sim", device_results=True)
    add = xffi.Program.from_text(ADD, platform="sim")
    doubled = scale(x)
    # Device and host arguments mixed; a device address taken as a host
    # one would fault (SimDevice memory is not host-readable).
    np.testing.assert_array_equal(add(doubled, x), x * 3)
    np.testing.assert_array_equal(add(doubled, scale(doubled)), x * 6)


def test_device_arguments_need_no_wait_for_the_whole_device(x):
    scale = xffi.Program.from_text(SCALE, platform="sim", device_results=True)
    add = xffi.Program.from_text(ADD, platform="sim", device_results=True)
    doubled = scale(x)
    before = xffi._core._sim_device_synchronizations()
    chained = add(doubled, scale(doubled))
    after = xffi._core._sim_device_synchronizations()
    # DeviceArrays are complete when handed out: each run waits for its own
    # stream at its end, and nothing waits for the whole device (it used to
    # before every run with a device argument or result).
    assert after["device"] == before["device"]
    assert after["stream"] - before["stream"] == 2
    np.testing.assert_array_equal(np.asarray(chained), x * 6)


def test_tuple_results_on_the_device(x):
    pair = xffi.Program.from_text(PAIR, platform="sim", device_results=True)
    first, second = pair(x)
    np.testing.assert_array_equal(np.asarray(first), x)
    np.testing.assert_array_equal(np.asarray(second), -x)


def test_a_host_program_copies_a_device_array_in(x):
    on_device = xffi.Program.from_text(SCALE, platform="sim",
                                       device_results=True)(x)
    on_host = xffi.Program.from_text(SCALE)
    np.testing.assert_array_equal(on_host(on_device), x * 4)


def test_an_array_outlives_its_program(x):
    program = xffi.Program.from_text(SCALE, platform="sim",
                                     device_results=True)
    y = program(x)
    del program
    gc.collect()
    np.testing.assert_array_equal(np.asarray(y), x * 2)


def test_a_result_freed_while_a_capsule_refers_to_it_is_not_reused(x):
    scale = xffi.Program.from_text(SCALE, platform="sim", device_results=True)
    identity = xffi.Program.from_text(ADD, platform="sim")
    zeros = np.zeros_like(x)
    # The allocator reuses a freed block for the next result of its size,
    # so a buffer freed too early would now hold another result.
    probe = scale(x)
    address = device_address(probe)
    del probe
    gc.collect()
    again = scale(x)
    assert device_address(again) == address
    del again
    gc.collect()

    first = scale(x)
    held = CapsuleHolder(first.__dlpack__())
    del first
    gc.collect()
    others = [scale(x + 100) for _ in range(3)]
    np.testing.assert_array_equal(identity(held, zeros), x * 2)
    for other in others:
        np.testing.assert_array_equal(np.asarray(other), (x + 100) * 2)


def test_a_producer_on_the_device_is_asked_for_its_tensor_as_dlpack_says(x):
    y = xffi.Program.from_text(SCALE, platform="sim", device_results=True)(x)
    add = xffi.Program.from_text(ADD, platform="sim")
    producer = FakeProducer(KDL_EXT_DEV, device_address(y), (2, 3), owner=y)
    np.testing.assert_array_equal(add(producer, x), x * 3)
    # Handed the run's stream, as an int (never None, 0, 1 or 2: those are
    # DLPack's default streams).
    (call,) = producer.calls
    assert call == {"stream": call["stream"], "max_version": (1, 0)}
    assert isinstance(call["stream"], int) and call["stream"] > 2
    # A producer predating DLPack 1.0 refuses max_version: asked again
    # without it.
    old = FakeProducer(KDL_EXT_DEV, device_address(y), (2, 3), owner=y,
                       accepts_max_version=False)
    np.testing.assert_array_equal(add(old, x), x * 3)
    (call,) = old.calls
    assert call == {"stream": call["stream"]} and call["stream"] > 2


def test_a_producer_orders_its_work_before_the_runs_stream(x):
    # The producer's copy of its values is still queued on its own stream;
    # handed the run's stream, it makes that stream wait for the copy, and
    # the host waits for nothing but the run (it used to synchronise the
    # whole device before a run with such an argument).
    add = xffi.Program.from_text(ADD, platform="sim", device_results=True)
    for repeat in range(2):  # the second replays the program's graph
        producer = xffi._core._SimPendingProducer(x + repeat)
        before = xffi._core._sim_device_synchronizations()
        result = add(producer, x)
        after = xffi._core._sim_device_synchronizations()
        assert after["device"] == before["device"]
        assert after["stream"] - before["stream"] == 1  # the run's own
        np.testing.assert_array_equal(np.asarray(result), 2 * x + repeat)
        (call,) = producer.calls
        assert call["max_version"] == (1, 0)
        assert isinstance(call["stream"], int) and call["stream"] > 2


def test_the_simulator_shows_a_producer_that_ignores_the_stream(x):
    # What the hand-over prevents: a producer that does not order its work
    # before the given stream is read before it wrote (SimDevice's poison,
    # NaN), every time.
    add = xffi.Program.from_text(ADD, platform="sim")
    producer = xffi._core._SimPendingProducer(x, honours_stream=False)
    assert np.isnan(add(producer, x)).all()


def test_a_producer_refusing_the_stream_gets_the_device_synchronised(x):
    # A producer whose __dlpack__ takes no stream keyword is asked again
    # without one (DLPack reads that as CUDA's legacy default stream), and
    # the whole device is synchronised before the run, as before.
    add = xffi.Program.from_text(ADD, platform="sim")
    producer = xffi._core._SimPendingProducer(x, accepts_stream=False)
    before = xffi._core._sim_device_synchronizations()
    np.testing.assert_array_equal(add(producer, x), 2 * x)
    after = xffi._core._sim_device_synchronizations()
    assert after["device"] == before["device"] + 1
    assert producer.calls == [{}]

    # One that refuses any stream but None, as some producers do.
    class NoStreams(FakeProducer):
        def __dlpack__(self, stream=None, **keywords):
            if stream is not None:
                raise NotImplementedError("Only stream=None is supported.")
            return super().__dlpack__(stream, **keywords)

    y = xffi.Program.from_text(SCALE, platform="sim", device_results=True)(x)
    producer = NoStreams(KDL_EXT_DEV, device_address(y), (2, 3), owner=y)
    before = xffi._core._sim_device_synchronizations()
    np.testing.assert_array_equal(add(producer, x), x * 3)
    after = xffi._core._sim_device_synchronizations()
    assert after["device"] == before["device"] + 1
    assert producer.calls == [{"stream": None}]


def test_bad_device_arguments_are_refused_naming_the_argument(x):
    y = xffi.Program.from_text(SCALE, platform="sim", device_results=True)(x)
    add = xffi.Program.from_text(ADD, platform="sim")
    column_major = FakeProducer(KDL_EXT_DEV, device_address(y), (2, 3),
                                strides=(1, 2), owner=y)
    with pytest.raises(ValueError,
                       match=r"argument 1 is a device array with strides "
                             r"\(1, 2\).*row-major"):
        add(x, column_major)
    wrong_shape = FakeProducer(KDL_EXT_DEV, device_address(y), (3, 2),
                               owner=y)
    with pytest.raises(ValueError, match=r"argument 0 has shape \(3, 2\)"):
        add(wrong_shape, x)
    wrong_dtype = FakeProducer(KDL_EXT_DEV, device_address(y), (2, 3),
                               bits=64, owner=y)
    with pytest.raises(TypeError,
                       match=r"argument 0 has dtype float64, the parameter "
                             r"is f32"):
        add(wrong_dtype, x)
    host_memory = FakeProducer(KDL_EXT_DEV, x.ctypes.data, (2, 3), owner=x)
    with pytest.raises(ValueError,
                       match="argument 0 is a kDLExtDev array whose memory "
                             "is not on xffi's simulated GPU"):
        add(host_memory, x)
    elsewhere = FakeProducer(7, x.ctypes.data, (2, 3), owner=x)
    with pytest.raises(TypeError,
                       match="argument 1 is on DLPack device type 7"):
        add(x, elsewhere)


def test_a_cuda_producer_without_a_cuda_device_is_one_clear_error(x):
    if a_cuda_device_exists():
        pytest.skip("this machine has a CUDA device")
    for platform in ("host", "sim"):
        program = xffi.Program.from_text(ADD, platform=platform)
        producer = FakeProducer(KDL_CUDA, x.ctypes.data, (2, 3), owner=x)
        with pytest.raises(RuntimeError,
                           match=r"argument 1 is a kDLCUDA array on device "
                                 r"0, which xffi cannot read: no CUDA "
                                 r"device: cudaGetDeviceCount returned "):
            program(x, producer)
        # Refused before the producer was asked to synchronise a stream.
        assert producer.calls == []


def test_device_results_need_a_device_platform():
    with pytest.raises(ValueError, match="device_results=True needs a "
                                         "device platform"):
        xffi.Program.from_text(SCALE, device_results=True)


def test_ffi_call_takes_no_platform_keyword_as_in_jax(test_plugin):
    # jax.ffi.ffi_call has none either: the platform is where it runs.
    with pytest.raises(TypeError, match="unexpected keyword argument "
                                        "'platform'"):
        xffi.ffi_call("python_test.scale", platform="cuda")


def test_eager_ffi_call_of_a_cuda_only_target_says_where_it_runs(
        test_plugin):
    # Eagerly, ffi_call runs on the host, as JAX's does on a CPU, where it
    # fails "No FFI handler registered for T on a platform Host".
    xffi.register_ffi_target("device_arrays.cuda_only", test_plugin.Noop,
                             platform="gpu")
    with pytest.raises(LookupError,
                       match=r"no handler 'device_arrays.cuda_only' "
                             r"\(platform Host\) is registered; "
                             r"'device_arrays.cuda_only' is registered for "
                             r"CUDA only, and ffi_call runs eagerly on the "
                             r"host: call it from a program compiled with "
                             r"platform='cuda'"):
        xffi.ffi_call("device_arrays.cuda_only",
                      xffi.ShapeDtypeStruct((), np.float32))
    # Registered for the host too, it runs there.
    xffi.register_ffi_target("device_arrays.cuda_only", test_plugin.Noop,
                             platform="cpu")
    xffi.ffi_call("device_arrays.cuda_only",
                  xffi.ShapeDtypeStruct((), np.float32))


def test_a_malformed_dlpack_device_is_named(x):
    producer = FakeProducer(KDL_EXT_DEV, x.ctypes.data, (2, 3), owner=x)
    producer.device = "cuda:0"
    with pytest.raises(TypeError, match=r"argument 0: __dlpack_device__\(\) "
                                        r"returned 'cuda:0', not a"):
        xffi.Program.from_text(ADD, platform="sim")(producer, x)


def test_eager_ffi_call_copies_a_device_array_to_the_host(test_plugin, x):
    # The handler runs on the host: a device argument is copied there, as a
    # host Program copies it.
    y = xffi.Program.from_text(SCALE, platform="sim", device_results=True)(x)
    scale = xffi.ffi_call("python_test.scale",
                          xffi.ShapeDtypeStruct((2, 3), np.float32))
    np.testing.assert_array_equal(scale(y, factor=2.0, offset=1),
                                  np.asarray(scale(x * 2, factor=2.0,
                                                   offset=1)))
    if a_cuda_device_exists():
        return
    producer = FakeProducer(KDL_CUDA, x.ctypes.data, (2, 3), owner=x)
    with pytest.raises(RuntimeError,
                       match=r"ffi_call\('python_test.scale'\): argument 0 "
                             r"is a kDLCUDA array on device 0, which xffi "
                             r"cannot read: no CUDA device: "):
        scale(producer, factor=2.0, offset=1)
