"""The bad-input catalogue: malformed programs, calls, registrations,
plugins and .npy files, each pinned to the error class it raises (or the
exit status of `xffi run`) and the names its message must contain. What is
caught today must stay caught, with a message that says what and where.
The data files (.npy, plugins) are made in a temporary directory by
tests/bad_inputs/make_inputs.py's functions."""

import pathlib
import subprocess
import sys

import numpy as np
import pytest

xffi = pytest.importorskip("xffi")
from xffi import ShapeDtypeStruct as S  # noqa: E402

from conftest import BUILD  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] /
                       "bad_inputs"))
import make_inputs  # noqa: E402

HLO = "HloModule m\nENTRY main {\n%s\n}\n"
NEGATE = HLO % "  x = f32[2] parameter(0)\n  ROOT y = f32[2] negate(x)"
ADD = ("HloModule m\nadd {\n a = f32[] parameter(0)\n b = f32[] parameter(1)"
       "\n ROOT s = f32[] add(a, b)\n}\n")
SORT = ("HloModule m\nlt {\n a = f32[] parameter(0)\n b = f32[] parameter(1)"
        "\n ROOT c = pred[] compare(a, b), direction=LT\n}\nENTRY main {\n"
        " x = f32[64] parameter(0)\n a = f32[64] negate(x)\n b = f32[64] "
        "sort(a), dimensions={0}, to_apply=lt\n ROOT c = f32[64] add(a, b)"
        "\n}\n")


def program(text):
    return lambda: xffi.Program.from_text(text)


def call(text, *args):
    return lambda: xffi.Program.from_text(text)(*args)


def ffi(target, result, *args, **attrs):
    options = attrs.pop("options", {})
    return lambda: xffi.ffi_call(target, result, **options)(*args, **attrs)


F2 = np.zeros(2, np.float32)

# (case, action, error class, substrings the message must contain)
CASES = [
    # Program text: HLO.
    ("hlo_no_entry", program("HloModule m\n"), ValueError,
     ["<input>:2:1", "expected a computation"]),
    ("hlo_unknown_opcode",
     program(HLO % "  x = f32[2] parameter(0)\n  ROOT y = f32[2] frob(x)"),
     ValueError, ["<input>:4:19", "unknown opcode 'frob'"]),
    ("hlo_unknown_operand",
     program(HLO % "  x = f32[2] parameter(0)\n  ROOT y = f32[2] add(x, z)"),
     ValueError, ["<input>:4:26", "unknown operand 'z' of 'y'"]),
    ("hlo_operand_shapes_differ",
     program(HLO % "  x = f32[2] parameter(0)\n  y = f32[3] parameter(1)\n"
             "  ROOT z = f32[2] add(x, y)"),
     ValueError, ["'z' (add)", "<input>:5:8", "f32[2] and f32[3]"]),
    ("hlo_bad_element_type", program(HLO % "  ROOT x = f33[2] parameter(0)"),
     ValueError, ["<input>:3:12", "got 'f33'"]),
    ("hlo_unterminated_string",
     program(HLO % '  ROOT y = f32[2] custom-call(), custom_call_target="a'),
     ValueError, ["<input>:3:53", "unterminated string"]),
    ("hlo_name_defined_twice",
     program(HLO % "  x = f32[2] parameter(0)\n  x = f32[2] negate(x)\n"
             "  ROOT y = f32[2] negate(x)"),
     ValueError, ["<input>:4:3", "instruction 'x' is defined twice"]),
    ("hlo_parameter_numbers_gap",
     program(HLO % "  x = f32[2] parameter(0)\n  y = f32[2] parameter(2)\n"
             "  ROOT z = f32[2] add(x, y)"),
     ValueError, ["'main'", "not numbered 0 to 1"]),
    ("hlo_reduce_dimension_out_of_range",
     program(ADD + "ENTRY main {\n x = f32[2] parameter(0)\n c = f32[] "
             "constant(0)\n ROOT r = f32[] reduce(x, c), dimensions={3}, "
             "to_apply=add\n}\n"),
     ValueError, ["'r' (reduce)", "<input>:10:7", "dimension 3 is out of "
                  "range for rank 1"]),
    ("hlo_while_condition_not_pred",
     program("HloModule m\ncond {\n s = s32[] parameter(0)\n ROOT c = s32[] "
             "add(s, s)\n}\nbody {\n s = s32[] parameter(0)\n ROOT b = s32[] "
             "add(s, s)\n}\nENTRY main {\n x = s32[] parameter(0)\n ROOT w = "
             "s32[] while(x), condition=cond, body=body\n}\n"),
     ValueError, ["'w' (while)", "condition 'cond' returns s32[], expected "
                  "pred[]"]),
    ("hlo_sort_without_comparator",
     program(HLO % "  x = f32[2] parameter(0)\n  ROOT y = f32[2] sort(x), "
             "dimensions={0}"),
     ValueError, ["<input>:4:8", "'y' (sort) needs attribute 'to_apply'"]),
    ("custom_call_target_unregistered",
     program(HLO % '  ROOT y = f32[2] custom-call(), custom_call_target='
             '"no.such.target", api_version=API_VERSION_TYPED_FFI'),
     LookupError, ["custom call 'no.such.target'", "<input>:3:8",
                   "no handler 'no.such.target'"]),
    # Program text: StableHLO.
    ("stablehlo_empty", program(""), ValueError,
     ["<input>:1:1", "no @main function"]),
    ("stablehlo_unknown_op",
     program("func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = "
             "stablehlo.frob %a : tensor<2xf32>\n  return %0 : tensor<2xf32>"
             "\n}\n"),
     ValueError, ["<input>:2:8", "unsupported operation 'stablehlo.frob'"]),
    ("stablehlo_return_type",
     program("func.func @main(%a: tensor<2xf32>) -> tensor<3xf32> {\n  "
             "return %a : tensor<2xf32>\n}\n"),
     ValueError, ["<input>:2:3", "declares tensor<3xf32>"]),
    ("stablehlo_undefined_value",
     program("func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = "
             "stablehlo.add %a, %b : tensor<2xf32>\n  return %0 : "
             "tensor<2xf32>\n}\n"),
     ValueError, ["<input>:2:26", "use of undefined value %b"]),
    ("stablehlo_no_main",
     program("func.func @other(%a: tensor<2xf32>) -> tensor<2xf32> {\n  "
             "return %a : tensor<2xf32>\n}\n"),
     ValueError, ["no @main function"]),
    # Calls of a compiled program.
    ("call_argument_count", call(NEGATE), TypeError,
     ["takes 1 argument (f32[2]), got 0"]),
    ("call_argument_shape", call(NEGATE, np.zeros(3, np.float32)),
     ValueError, ["argument 0 has shape f32[3]", "parameter is f32[2]"]),
    ("call_argument_dtype", call(NEGATE, np.zeros(2, np.int32)), TypeError,
     ["argument 0 has dtype s32", "parameter is f32[2]"]),
    ("call_tuple_expected",
     call(HLO % "  x = (f32[2], f32[2]) parameter(0)\n  ROOT y = f32[2] "
          "get-tuple-element(x), index=0", F2),
     TypeError, ["argument 0 must be a tuple", "(f32[2], f32[2])"]),
    ("call_handler_fails_in_instantiate",
     call(HLO % '  ROOT c = s64[] custom-call(), custom_call_target='
          '"python_test.counter", api_version=API_VERSION_TYPED_FFI, '
          'backend_config={start = -1 : i64}'),
     ValueError, ["custom call 'python_test.counter'", "INSTANTIATE",
                  "start must be >= 0"]),
    ("memory_limit",
     lambda: xffi.Program.from_text(SORT, memory_limit=16),
     MemoryError, ["buffers need", "over the memory limit of 16 bytes"]),
    # Registrations.
    ("register_not_a_capsule", lambda: xffi.register_ffi_target("bad.reg", 42),
     TypeError, ["register_ffi_target('bad.reg')", "PyCapsule", "got int"]),
    ("register_unknown_platform",
     lambda: xffi.register_ffi_target("bad.platform", 42, platform="tpu9"),
     ValueError, ["unknown platform 'tpu9'"]),
    ("register_conflicting_handler", make_inputs.register_twice, ValueError,
     ["handler 'bad.conflict'", "already registered",
      "different handler bundle"]),
    ("register_type_bad_name", lambda: xffi.register_ffi_type(42, None),
     TypeError, []),
    # Eager calls.
    ("ffi_call_unknown_target", ffi("no.such", S((2,), np.float32), F2),
     LookupError, ["no handler 'no.such'"]),
    ("ffi_call_attribute_type",
     ffi("python_test.scale", S((2,), np.float32), F2, factor="x", offset=1),
     TypeError, ["ffi_call('python_test.scale')", "attribute 'factor' "
                 "expects float, got str"]),
    ("ffi_call_attribute_missing",
     ffi("python_test.scale", S((2,), np.float32), F2, factor=1.0),
     TypeError, ["missing attribute 'offset'"]),
    ("ffi_call_argument_count",
     ffi("rms_norm", S((2,), np.float32), F2, F2, eps=1e-5), ValueError,
     ["ffi_call('rms_norm'): [EXECUTE] wrong number of arguments: "
      "expected 1, got 2"]),
    ("ffi_call_unsupported_dtype",
     ffi("rms_norm", S((2,), np.float32), np.zeros(2, np.complex256),
         eps=1e-5),
     TypeError, ["ffi_call('rms_norm')", "argument 0 has dtype complex256"]),
    ("ffi_call_alias_out_of_range",
     ffi("rms_norm", S((2,), np.float32), F2, eps=1e-5,
         options={"input_output_aliases": {3: 0}}),
     ValueError, ["maps argument 3 to result 0", "there is 1 argument and 1 result"]),
    ("ffi_call_legacy_version_of_typed_target",
     ffi("rms_norm", S((2,), np.float32), F2, eps=1e-5,
         options={"custom_call_api_version": 2}),
     LookupError, ["no legacy custom-call target 'rms_norm'"]),
    ("ffi_call_handler_error",
     ffi("rms_norm", S((), np.float32), np.zeros((), np.float32), eps=1e-5),
     ValueError, ["ffi_call('rms_norm'): rms_norm: x must have rank >= 1"]),
    ("ffi_call_result_dtype",
     ffi("rms_norm", S((2,), np.float64), F2, eps=1e-5), ValueError,
     ["ffi_call('rms_norm'): result 0: expected buffer of F32, got F64"]),
    # Plugins.
    ("plugin_missing", lambda: xffi.load_library("/nonexistent/lib.so"),
     LookupError, ["'/nonexistent/lib.so' does not exist"]),
    ("plugin_directory", make_inputs.load_directory, ValueError,
     ["is a directory, not a shared library"]),
    ("plugin_not_elf", make_inputs.load_text_file, ValueError,
     ["not_elf.so", "not a valid ELF64 file", "10 bytes long"]),
    ("plugin_truncated_elf", make_inputs.load_truncated_plugin, ValueError,
     ["truncated.so", "not a valid ELF64 file", "runs past the end of the "
      "file (100 bytes)"]),
]

# .npy inputs of `xffi run` (exit status 1): file, substrings.
NPY_CASES = [
    ("bad_magic", ["input 0: bad_magic.npy", "no \\x93NUMPY magic"]),
    ("empty", ["input 0: empty.npy", "not a .npy file"]),
    ("truncated", ["truncated.npy", "the data holds 5 bytes",
                   "(2,) of '<f4' needs 8"]),
    ("trailing_bytes", ["trailing_bytes.npy", "4 bytes after the data",
                        "(2,) of '<f4' needs 8, the file holds 12"]),
    ("complex256", ["complex256.npy", "dtype '<c32' is not supported"]),
    ("wrong_shape", ["input 0 (wrong_shape.npy)", "parameter 0 is f32[2]",
                     "the file holds f32[3]"]),
    ("wrong_dtype", ["wrong_dtype.npy", "the file holds s32[2]"]),
    ("header_not_dict", ["header_not_dict.npy", "bad .npy header at byte 0",
                         "expected '{'"]),
    ("version9", ["version9.npy", "format version 9.0 is not supported"]),
    ("no_shape", ["no_shape.npy", "lacks one of 'descr', 'fortran_order', "
                  "'shape'"]),
    ("missing", ["input 0: missing.npy", "cannot open the file"]),
]


@pytest.fixture(scope="module")
def plugins(test_plugin, rms_norm_library):
    return test_plugin


@pytest.mark.parametrize("case,action,error,words", CASES,
                         ids=[c[0] for c in CASES])
def test_bad_input_raises_a_named_error(plugins, tmp_path, monkeypatch, case,
                                        action, error, words):
    monkeypatch.setattr(make_inputs, "DIRECTORY", tmp_path)
    with pytest.raises(error) as raised:
        action()
    for word in words:
        assert word in str(raised.value), (case, str(raised.value))


@pytest.mark.parametrize("name,words", NPY_CASES,
                         ids=[c[0] for c in NPY_CASES])
def test_bad_npy_input_fails_xffi_run(tmp_path, name, words):
    (tmp_path / "negate.hlo").write_text(NEGATE)
    make_inputs.write_npy_cases(tmp_path)
    cli = BUILD / "src" / "xffi"
    done = subprocess.run([str(cli), "run", "negate.hlo", "--input",
                           f"{name}.npy"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    for word in words:
        assert word in done.stderr, (name, done.stderr)


def test_the_catalogue_has_at_least_40_cases():
    assert len(CASES) + len(NPY_CASES) >= 40


def test_a_plugin_named_without_a_slash_is_a_file_in_the_cwd(tmp_path,
                                                            test_plugin_path):
    # As a user expects of a file argument: `--plugin garbage.so` means
    # ./garbage.so, not a lookup on the dynamic loader's search path.
    (tmp_path / "negate.hlo").write_text(NEGATE)
    (tmp_path / "garbage.so").write_text("not a library")
    cli = BUILD / "src" / "xffi"

    def run(*args):
        return subprocess.run([str(cli), *args], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)

    garbage = run("run", "negate.hlo", "--plugin", "garbage.so")
    assert garbage.returncode == 1
    assert "cannot load plugin './garbage.so'" in garbage.stderr, \
        garbage.stderr
    assert "not a valid ELF64 file" in garbage.stderr, garbage.stderr
    # libc.so.6 is on every search path, but not in this directory.
    missing = run("inspect", "libc.so.6")
    assert missing.returncode == 1
    assert "'./libc.so.6' does not exist" in missing.stderr, missing.stderr
    (tmp_path / "handlers.so").write_bytes(test_plugin_path.read_bytes())
    found = run("inspect", "handlers.so")
    assert found.returncode == 0, found.stderr
    assert "Stall" in found.stdout
