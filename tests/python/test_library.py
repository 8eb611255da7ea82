"""xffi.load_library: a handler library as an object of handlers."""

import numpy as np
import pytest

xffi = pytest.importorskip("xffi")


def test_attributes_are_the_exported_handlers(test_plugin):
    assert sorted(test_plugin.handlers) == [
        "AddUserOffset", "Address", "AttrSummary", "BatchAdd", "BlockRows",
        "BlockShape", "CopyBytes", "CounterExecute", "CounterInstantiate",
        "LateCopyExecute", "LateCopyInstantiate", "Leak", "Noop", "Rendezvous",
        "RmsNormBwd", "RmsNormFwd", "Scale", "Stall", "Throws", "TokenCopy"]
    assert type(test_plugin.Scale).__name__ == "PyCapsule"
    assert "Scale" in dir(test_plugin)


def test_signatures_describe_each_handler(test_plugin):
    signatures = test_plugin.signatures
    assert signatures["Scale"] == ("execute(Buffer<F32> arg0, Attr<float> factor, "
                                   "Attr<int32_t> offset) -> (Buffer<F32>)")
    assert signatures["CounterInstantiate"].startswith("instantiate(")


def test_registered_lists_what_loading_registered(test_plugin, test_plugin_path):
    registered = test_plugin.registered
    assert sorted(registered) == [
        "python_test.block_rows", "python_test.block_shape",
        "python_test.counter", "python_test.late_copy", "python_test.rendezvous",
        "python_test.rms_norm_bwd", "python_test.rms_norm_fwd",
        "python_test.scale", "python_test.throws"]
    assert sorted(registered["python_test.counter"]["stages"]) == [
        "execute", "instantiate"]
    assert registered["python_test.scale"]["platform"] == "Host"
    assert test_plugin.origin == str(test_plugin_path.resolve())


def test_an_attribute_can_be_registered_under_another_name(test_plugin):
    xffi.register_ffi_target("lib.my_scale", test_plugin.Scale)
    y = xffi.ffi_call("lib.my_scale")(np.ones(3, np.float32), factor=2.0,
                                      offset=0)
    np.testing.assert_array_equal(y, [2, 2, 2])


def test_any_function_symbol_is_an_attribute(test_plugin):
    assert type(test_plugin.python_test_execute_calls).__name__ == "PyCapsule"


def test_a_missing_symbol_is_an_attribute_error_naming_it(test_plugin):
    with pytest.raises(AttributeError, match="NoSuchHandler"):
        test_plugin.NoSuchHandler


def test_legacy_targets_of_a_library(legacy_library):
    targets = legacy_library.legacy_targets
    assert sorted(targets) == ["do_custom_call", "do_custom_call_status",
                               "do_custom_call_v3"]
    assert targets["do_custom_call_v3"]["api_version"] == 3


def test_loading_again_returns_the_same_library(test_plugin, test_plugin_path):
    again = xffi.load_library(test_plugin_path)
    assert again.origin == test_plugin.origin


def test_missing_file(tmp_path):
    with pytest.raises(LookupError, match=str(tmp_path / "nope.so")):
        xffi.load_library(tmp_path / "nope.so")


def test_not_a_shared_library(tmp_path):
    bogus = tmp_path / "bogus.so"
    bogus.write_text("not an ELF file")
    with pytest.raises(ValueError, match="bogus.so"):
        xffi.load_library(bogus)
