"""The files tests/python/test_bad_inputs.py feeds to xffi: malformed .npy
files (written byte by byte, since numpy would not write them) and broken
plugins, made in DIRECTORY (the test's temporary directory)."""

import pathlib
import struct

import xffi

DIRECTORY = pathlib.Path(".")
GOOD_HEADER = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"


def npy_bytes(header, data, magic=b"\x93NUMPY", version=b"\x01\x00"):
    text = header.encode()
    padding = (64 - (10 + len(text) + 1) % 64) % 64
    text += b" " * padding + b"\n"
    return magic + version + struct.pack("<H", len(text)) + text + data


def write_npy_cases(directory):
    files = {
        "bad_magic": npy_bytes(GOOD_HEADER, bytes(8), magic=b"\x93NUMPX"),
        "empty": b"",
        "truncated": npy_bytes(GOOD_HEADER, bytes(5)),
        "trailing_bytes": npy_bytes(GOOD_HEADER, bytes(12)),
        "complex256": npy_bytes(
            "{'descr': '<c32', 'fortran_order': False, 'shape': (2,), }",
            bytes(64)),
        "wrong_shape": npy_bytes(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
            bytes(12)),
        "wrong_dtype": npy_bytes(
            "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }",
            bytes(8)),
        "header_not_dict": npy_bytes("['descr', '<f4']", bytes(8)),
        "version9": npy_bytes(GOOD_HEADER, bytes(8), version=b"\x09\x00"),
        "no_shape": npy_bytes("{'descr': '<f4', 'fortran_order': False, }",
                              bytes(8)),
    }
    for name, content in files.items():
        (directory / f"{name}.npy").write_bytes(content)


def register_twice():
    library = xffi.load_library(_test_plugin_path())
    xffi.register_ffi_target("bad.conflict", library.Noop)
    xffi.register_ffi_target("bad.conflict", library.Scale)


def load_directory():
    return xffi.load_library(DIRECTORY)


def load_text_file():
    path = DIRECTORY / "not_elf.so"
    path.write_text("not an elf")
    return xffi.load_library(path)


def load_truncated_plugin():
    path = DIRECTORY / "truncated.so"
    path.write_bytes(_test_plugin_path().read_bytes()[:100])
    return xffi.load_library(path)


def _test_plugin_path():
    from conftest import BUILD
    return BUILD / "tests/python/plugins/libpython_test_handlers.so"
