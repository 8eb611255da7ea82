"""Deterministic arguments: a domain (the values a function is defined on)
and a dtype make an array whose contents depend only on the case id and the
argument's position, so a rerun sees the same numbers."""

import zlib

import ml_dtypes
import numpy as np

# The dtypes cases are labelled with, and what NumPy calls them.
DTYPES = {
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f16": np.dtype(np.float16),
    "c64": np.dtype(np.complex64),
    "c128": np.dtype(np.complex128),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "u8": np.dtype(np.uint8),
    "u16": np.dtype(np.uint16),
    "u32": np.dtype(np.uint32),
    "u64": np.dtype(np.uint64),
    "bool": np.dtype(np.bool_),
}

# Types JAX only keeps with jax_enable_x64 on (otherwise it narrows them).
X64_DTYPES = {"f64", "c128", "i64", "u64"}

FLOAT = ("f32", "f64", "bf16", "f16")
COMPLEX = ("c64",)
INEXACT = FLOAT + COMPLEX
SIGNED = ("i32",)
UNSIGNED = ("u8",)
INTEGER = SIGNED + UNSIGNED
NUMERIC = INEXACT + INTEGER

# IEEE values where implementations disagree most often: NaN, the
# infinities, signed zeros, subnormals, the edges of exp's range and huge
# magnitudes. An "f32:special" case feeds these instead of a domain's values.
SPECIAL_F32 = np.array(
    [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e-40, 1.0, -1.0, 0.5, -2.5,
     1e30, -1e30, 88.5, -88.5, 3.0e38], np.float32)

# (low, high) of uniform values per domain; for integers the same range is
# rounded into the type's range.
DOMAINS = {
    "real": (-3.0, 3.0),
    "small": (-1.0, 1.0),
    "pos": (0.1, 4.0),
    "unit": (-0.95, 0.95),
    "open01": (0.05, 0.95),
    "ge1": (1.05, 4.0),
    "wide": (-40.0, 40.0),
    "big": (2.0, 30.0),
    "neg": (-4.0, -0.1),
}


def seed_of(*parts) -> int:
    return zlib.crc32("/".join(str(p) for p in parts).encode())


def make(shape, domain: str, dtype: str, seed: int) -> np.ndarray:
    """An array of `shape` and `dtype` (a DTYPES key) with values in
    `domain`: a DOMAINS key, "nonzero" (real without values near 0),
    "int:LO:HI" (integers in [LO, HI)), "special" (SPECIAL_F32 repeated),
    "perm" (a permutation of range(last dim) along the last axis), "spd"
    (symmetric positive definite matrices), "wellcond" (general square
    matrices far from singular), "tri" (well-conditioned lower triangular
    matrices), "sorted" (ascending along the last axis) or "nanreal" (real
    with about a quarter NaN)."""
    rng = np.random.default_rng(seed)
    np_dtype = DTYPES[dtype]
    shape = tuple(shape)
    size = int(np.prod(shape, dtype=np.int64))
    if domain == "special":
        values = np.resize(SPECIAL_F32, size).reshape(shape)
        if size > len(SPECIAL_F32) and shape:
            values = rng.permutation(values.reshape(-1)).reshape(shape)
        return values.astype(np_dtype)
    if domain == "perm":
        n = shape[-1]
        rows = [rng.permutation(n) for _ in range(size // max(n, 1))]
        return np.array(rows).reshape(shape).astype(np_dtype)
    if np_dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if domain.startswith("int:"):
        _, low, high = domain.split(":")
        return rng.integers(int(low), int(high), shape).astype(np_dtype)
    if np.issubdtype(np_dtype, np.integer):
        return _integers(rng, shape, domain, np_dtype)
    if domain == "spd":
        return _spd(rng, shape).astype(np_dtype)
    if domain == "wellcond":
        n = shape[-1]
        return (rng.uniform(-1, 1, shape) + n * np.eye(n)).astype(np_dtype)
    if domain == "tri":
        base = np.tril(rng.uniform(-1, 1, shape))
        n = shape[-1]
        return (base + 3 * np.eye(n)).astype(np_dtype)
    real = _reals(rng, shape, domain)
    if np.issubdtype(np_dtype, np.complexfloating):
        imag = _reals(rng, shape, "small" if domain != "nonzero" else domain)
        return (real + 1j * imag).astype(np_dtype)
    if domain == "sorted":
        real = np.sort(real, axis=-1)
    if domain == "nanreal":
        real = np.where(rng.uniform(0, 1, shape) < 0.25, np.nan, real)
    return real.astype(np_dtype)


def _reals(rng, shape, domain):
    if domain == "nonzero":
        magnitude = rng.uniform(0.25, 3.0, shape)
        return np.where(rng.integers(0, 2, shape) == 1, magnitude, -magnitude)
    if domain in ("sorted", "nanreal"):
        domain = "real"
    low, high = DOMAINS[domain]
    return rng.uniform(low, high, shape)


def _integers(rng, shape, domain, np_dtype):
    info = np.iinfo(np_dtype)
    if domain in ("pos", "ge1", "big", "nonzero"):
        low, high = 1, 8
    elif domain in ("open01", "unit", "small"):
        low, high = 0, 2
    elif domain == "sorted":
        values = rng.integers(max(info.min, -5), 6, shape)
        return np.sort(values, axis=-1).astype(np_dtype)
    else:
        low, high = max(info.min, -5), 6
    return rng.integers(low, high, shape).astype(np_dtype)


def _spd(rng, shape):
    n = shape[-1]
    a = rng.uniform(-1, 1, shape)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)
