"""NumPy dtypes and XLA element types (XLA_FFI_DataType numbers)."""

import numpy as np

from . import _core

# XLA_FFI_DataType numbers (= XLA's PrimitiveType) of NumPy's own dtypes.
_NUMPY = {
    "bool": 1, "int8": 2, "int16": 3, "int32": 4, "int64": 5, "uint8": 6,
    "uint16": 7, "uint32": 8, "uint64": 9, "float16": 10, "float32": 11,
    "float64": 12, "complex64": 15, "complex128": 18,
}
# ml_dtypes' types, when it is installed (jax brings it).
_ML_DTYPES = {
    "bfloat16": 16, "float8_e5m2": 19, "float8_e4m3fn": 20, "int4": 21,
    "uint4": 22, "float8_e4m3b11fnuz": 23, "float8_e5m2fnuz": 24,
    "float8_e4m3fnuz": 25, "int2": 26, "uint2": 27, "float8_e4m3": 28,
    "float8_e3m4": 29, "float4_e2m1fn": 32, "float8_e8m0fnu": 33,
}
# XLA's spelling, for messages.
_XLA_NAMES = {
    1: "pred", 2: "s8", 3: "s16", 4: "s32", 5: "s64", 6: "u8", 7: "u16",
    8: "u32", 9: "u64", 10: "f16", 11: "f32", 12: "f64", 15: "c64",
    16: "bf16", 18: "c128", 19: "f8e5m2", 20: "f8e4m3fn", 21: "s4",
    22: "u4", 23: "f8e4m3b11fnuz", 24: "f8e5m2fnuz", 25: "f8e4m3fnuz",
    26: "s2", 27: "u2", 28: "f8e4m3", 29: "f8e3m4", 32: "f4e2m1fn",
    33: "f8e8m0fnu",
}

_BY_XLA = {}


def _install_dtypes():
    dtypes = {name: np.dtype(name) for name in _NUMPY}
    try:
        import ml_dtypes
    except ImportError:  # pragma: no cover - jax always brings ml_dtypes
        ml_dtypes = None
    if ml_dtypes is not None:
        for name in _ML_DTYPES:
            if hasattr(ml_dtypes, name):
                dtypes[name] = np.dtype(getattr(ml_dtypes, name))
    for name, dtype in dtypes.items():
        xla = _NUMPY.get(name) or _ML_DTYPES[name]
        _core._register_dtype(dtype, xla, _XLA_NAMES[xla], dtype.itemsize)
        _BY_XLA[xla] = dtype


def xla_dtype(dtype) -> int:
    """The XLA_FFI_DataType number of a NumPy dtype (or anything np.dtype
    takes); raises TypeError when XLA has no such element type."""
    d = np.dtype(dtype)
    for xla, known in _BY_XLA.items():
        if known == d:
            return xla
    raise TypeError(f"dtype {d} has no XLA element type")


def numpy_dtype(xla: int) -> np.dtype:
    """The NumPy dtype of an XLA_FFI_DataType number."""
    try:
        return _BY_XLA[xla]
    except KeyError:
        raise TypeError(f"XLA element type {xla} has no NumPy dtype here") from None


def xla_name(xla: int) -> str:
    return _XLA_NAMES.get(xla, f"dtype {xla}")
