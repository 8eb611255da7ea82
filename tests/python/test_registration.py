"""xffi's registration API: register_ffi_target, register_custom_call_target,
custom_call_targets, register_ffi_type, pycapsule, include_dir."""

import ctypes
import pathlib

import numpy as np
import pytest

xffi = pytest.importorskip("xffi")


@pytest.fixture(scope="module")
def handlers(test_plugin, test_plugin_path):
    # Loaded by xffi first (test_plugin), so its registrations carry its path
    # as their origin; ctypes then shares the same loaded library.
    return ctypes.CDLL(str(test_plugin_path))


def test_pycapsule_of_a_ctypes_function_registers_and_runs(handlers):
    xffi.register_ffi_target("reg.scale", xffi.pycapsule(handlers.Scale))
    x = np.arange(4, dtype=np.float32)
    y = xffi.ffi_call("reg.scale", xffi.ShapeDtypeStruct((4,), np.float32))(
        x, factor=3.0, offset=1)
    np.testing.assert_array_equal(y, x * 3 + 1)


def test_a_stage_dict_registers_a_bundle(test_plugin):
    xffi.register_ffi_target("reg.counter", {
        "instantiate": test_plugin.CounterInstantiate,
        "execute": test_plugin.CounterExecute,
    })
    stages = xffi.custom_call_targets("cpu")["reg.counter"]
    assert sorted(stages) == ["execute", "instantiate"]
    count = xffi.ffi_call("reg.counter",
                          xffi.ShapeDtypeStruct((), np.int64))
    assert [int(count(start=10)) for _ in range(3)] == [11, 12, 13]


def test_platform_names_are_case_insensitive(test_plugin):
    xffi.register_ffi_target("reg.case", test_plugin.Noop, platform="CPU")
    xffi.register_ffi_target("reg.case", test_plugin.Noop, platform="host")
    assert "reg.case" in xffi.custom_call_targets("Host")
    assert "reg.case" in xffi.custom_call_targets("cpu")


def test_unknown_platform_raises_at_once_listing_valid_names(test_plugin):
    with pytest.raises(ValueError, match=r"unknown platform 'cpux'; valid "
                                         r"platforms are Host \(or cpu\) and "
                                         r"CUDA \(or gpu\)"):
        xffi.register_ffi_target("reg.bad_platform", test_plugin.Noop,
                                 platform="cpux")
    with pytest.raises(ValueError, match="unknown platform 'tpu'"):
        xffi.custom_call_targets("tpu")
    assert "reg.bad_platform" not in xffi.custom_call_targets("cpu")


def test_identical_reregistration_is_a_no_op(test_plugin):
    xffi.register_ffi_target("reg.twice", test_plugin.Noop)
    xffi.register_ffi_target("reg.twice", test_plugin.Noop)


def test_conflicting_registration_names_both_origins(test_plugin):
    xffi.register_ffi_target("reg.conflict", test_plugin.Noop)
    with pytest.raises(ValueError) as raised:
        xffi.register_ffi_target("reg.conflict", test_plugin.Scale)
    message = str(raised.value)
    assert "reg.conflict" in message
    # Both registrations came from this file: each origin names its line.
    assert message.count("test_registration.py:") == 2, message


def test_conflict_with_a_library_registration_names_the_library(
        test_plugin, test_plugin_path):
    with pytest.raises(ValueError) as raised:
        xffi.register_ffi_target("python_test.scale", test_plugin.Noop)
    assert str(test_plugin_path.resolve()) in str(raised.value)
    assert "test_registration.py:" in str(raised.value)


def test_fn_must_be_a_capsule_or_stage_dict():
    with pytest.raises(TypeError, match=r"register_ffi_target\('reg.x'\): fn "
                                        r"must be a PyCapsule .* got int"):
        xffi.register_ffi_target("reg.x", 1234)


def test_stage_dict_errors(test_plugin):
    with pytest.raises(ValueError, match="unknown stage 'exec'; the stages are "
                                         "instantiate, prepare, initialize and "
                                         "execute"):
        xffi.register_ffi_target("reg.y", {"exec": test_plugin.Noop})
    with pytest.raises(ValueError, match="has no 'execute' stage"):
        xffi.register_ffi_target(
            "reg.y", {"instantiate": test_plugin.CounterInstantiate})
    with pytest.raises(TypeError, match=r"stage 'execute' must be a PyCapsule"):
        xffi.register_ffi_target("reg.y", {"execute": "Noop"})


def test_unsupported_api_version():
    with pytest.raises(ValueError, match="API version 2 is not supported; "
                                         "supported versions are 0"):
        xffi.register_ffi_target("reg.v2", None, api_version=2)


def test_name_may_be_bytes(test_plugin):
    xffi.register_ffi_target(b"reg.bytes", test_plugin.Noop)
    assert "reg.bytes" in xffi.custom_call_targets("cpu")


def test_traits_are_recorded(test_plugin):
    xffi.register_ffi_target(
        "reg.traits", test_plugin.Noop,
        traits=xffi.CustomCallTargetTraits.COMMAND_BUFFER_COMPATIBLE)
    described = {t["name"]: t for t in xffi.describe_targets("cpu")}
    assert described["reg.traits"]["traits"] == 1
    assert "COMMAND_BUFFER_COMPATIBLE" in described["reg.traits"]["text"]


def test_legacy_target_through_api_version_0(legacy_library):
    fn = xffi.pycapsule(ctypes.CDLL(legacy_library.path).do_custom_call_v3)
    xffi.register_ffi_target("reg.legacy_v3", fn, api_version=0)
    b = np.arange(128, dtype=np.float32)
    c = np.ones(300, dtype=np.float32)
    a = xffi.ffi_call("reg.legacy_v3", xffi.ShapeDtypeStruct((300,), np.float32),
                      custom_call_api_version=3,
                      legacy_backend_config="300")(b, c)
    np.testing.assert_array_equal(a, b[np.arange(300) % 128] + c)


def test_register_custom_call_target_takes_blog_era_capsules(legacy_library):
    # The blog's code made capsules named "xla._CUSTOM_CALL_TARGET".
    address = ctypes.cast(ctypes.CDLL(legacy_library.path).do_custom_call,
                          ctypes.c_void_p).value
    pythonapi = ctypes.pythonapi
    pythonapi.PyCapsule_New.restype = ctypes.py_object
    pythonapi.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                        ctypes.c_void_p]
    capsule = pythonapi.PyCapsule_New(address, b"xla._CUSTOM_CALL_TARGET", None)
    xffi.register_custom_call_target("reg.blog", capsule, platform="cpu")
    targets = xffi.custom_call_targets("cpu")
    assert "xla._CUSTOM_CALL_TARGET" in repr(targets["reg.blog"])
    b = np.arange(128, dtype=np.float32)
    c = np.full(2048, 0.5, dtype=np.float32)
    a = xffi.ffi_call("reg.blog", xffi.ShapeDtypeStruct((2048,), np.float32),
                      custom_call_api_version=1)(b, c)
    np.testing.assert_array_equal(a, b[np.arange(2048) % 128] + c)


def test_register_custom_call_target_with_api_version_1_is_typed_ffi(
        test_plugin):
    xffi.register_custom_call_target("reg.cc_typed", test_plugin.Scale,
                                     platform="Host", api_version=1)
    assert list(xffi.custom_call_targets("cpu")["reg.cc_typed"]) == ["execute"]
    x = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(
        xffi.ffi_call("reg.cc_typed")(x, factor=2.0, offset=1), x * 2 + 1)


def test_legacy_targets_take_no_traits(legacy_library):
    with pytest.raises(ValueError, match="traits apply to typed FFI handlers"):
        xffi.register_custom_call_target(
            "reg.legacy_traits", legacy_library.do_custom_call,
            traits=xffi.CustomCallTargetTraits.COMMAND_BUFFER_COMPATIBLE)


def test_custom_call_targets_lists_library_registrations(legacy_library,
                                                         rms_norm_library):
    targets = xffi.custom_call_targets("cpu")
    assert list(targets["rms_norm"]) == ["execute"]
    assert "do_custom_call_status" in targets
    assert xffi.custom_call_targets("gpu") == {} or all(
        name not in xffi.custom_call_targets("gpu") for name in ("rms_norm",))


def test_register_ffi_type_assigns_an_id():
    type_id = ctypes.c_int64(0)
    xffi.register_ffi_type("reg.MyType",
                           {"type_id": xffi.pycapsule(ctypes.addressof(type_id))})
    assert type_id.value > 0
    assert xffi._core.type_name(type_id.value) == "reg.MyType"
    again = ctypes.c_int64(0)
    xffi.register_ffi_type("reg.MyType",
                           {"type_id": xffi.pycapsule(ctypes.addressof(again))})
    assert again.value == type_id.value


def test_register_ffi_type_errors():
    storage = ctypes.c_int64(0)
    capsule = xffi.pycapsule(ctypes.addressof(storage))
    with pytest.raises(ValueError, match=r"unknown keys \['id'\]"):
        xffi.register_ffi_type("reg.T", {"id": capsule})
    with pytest.raises(ValueError, match="'type_id' is required"):
        xffi.register_ffi_type("reg.T", {})
    with pytest.raises(ValueError, match="unknown platform 'xpu'"):
        xffi.register_ffi_type("reg.T", {"type_id": capsule}, platform="xpu")
    with pytest.raises(TypeError, match="type_id must be a PyCapsule"):
        xffi.register_ffi_type("reg.T", {"type_id": 5})


def test_pycapsule_refuses_null():
    with pytest.raises(ValueError, match="null"):
        xffi.pycapsule(0)


def test_include_dir_holds_the_headers():
    include = pathlib.Path(xffi.include_dir())
    assert (include / "xffi" / "ffi.h").is_file()
    assert (include / "xffi" / "c_api.h").is_file()
