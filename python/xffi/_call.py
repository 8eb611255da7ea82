"""Eager calls: xffi.ffi_call, with jax.ffi.ffi_call's signature."""

import contextlib
import threading
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from . import _core
from ._dtypes import xla_dtype

VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims",
                "broadcast_all", "legacy_vectorized")

ExecutionContext = _core.ExecutionContext


class ShapeDtypeStruct:
    """A result's shape and dtype (any object with .shape and .dtype works,
    jax.ShapeDtypeStruct included)."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape: Sequence[int], dtype: Any):
        self.shape = tuple(int(d) for d in shape)
        self.dtype = np.dtype(dtype)

    def __repr__(self) -> str:
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name})"

    def __eq__(self, other) -> bool:
        return (isinstance(other, ShapeDtypeStruct) and
                self.shape == other.shape and self.dtype == other.dtype)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype))


def _result_spec(target: str, index: Optional[int], obj: Any):
    where = "result_shape_dtypes" if index is None else \
        f"result_shape_dtypes[{index}]"
    if not (hasattr(obj, "shape") and hasattr(obj, "dtype")):
        raise TypeError(f"ffi_call('{target}'): {where} must have .shape and "
                        f".dtype (xffi.ShapeDtypeStruct), got "
                        f"{type(obj).__name__}")
    shape = tuple(int(d) for d in obj.shape)
    if any(d < 0 for d in shape):
        raise ValueError(f"ffi_call('{target}'): {where} has a negative "
                         f"dimension: {shape}")
    dtype = np.dtype(obj.dtype)
    try:
        code = xla_dtype(dtype)
    except TypeError:
        raise TypeError(f"ffi_call('{target}'): {where} has dtype {dtype}, "
                        "which has no XLA element type") from None
    return shape, code, dtype


def _check_layouts(target: str, what: str, layouts) -> None:
    if layouts is None:
        return
    if not isinstance(layouts, (list, tuple)) or (
            layouts and isinstance(layouts[0], int)):
        layouts = [layouts]
    for i, layout in enumerate(layouts):
        if layout is None:
            continue
        order = [int(d) for d in layout]
        if order != list(range(len(order))):
            raise NotImplementedError(
                f"ffi_call('{target}'): {what}[{i}] = {tuple(order)} is not "
                "row-major; xffi's eager calls support only row-major "
                "(major-to-minor 0, 1, ..., n-1) layouts")


def ffi_call(target_name: str,
             result_shape_dtypes: Any = None,
             *,
             has_side_effect: bool = False,
             vmap_method: Optional[str] = None,
             input_layouts: Optional[Sequence[Any]] = None,
             output_layouts: Optional[Any] = None,
             input_output_aliases: Optional[Mapping[int, int]] = None,
             custom_call_api_version: int = 4,
             legacy_backend_config: Optional[str] = None,
             donate_aliased_inputs: bool = False):
    """A callable that runs `target_name` eagerly in xffi's runtime.

    Mirrors jax.ffi.ffi_call: the callable takes the operands as positional
    arrays (NumPy arrays or DLPack producers, passed without copies when
    C-contiguous) and the attributes as keyword arguments, and returns one
    array when `result_shape_dtypes` is one object, a list (or tuple) when it
    is a list (or tuple).

    `result_shape_dtypes` may be None when the handler describes itself
    and its results can be derived: a rank-0 result of a fixed dtype is a
    scalar; a single array result whose declared dtype and rank are any or
    argument 0's is shaped like argument 0. The handler's signature cannot say
    more (XFFI_Signature carries dtypes and ranks, not shapes), so anything
    else needs explicit results.

    custom_call_api_version 1 to 3 calls a legacy target with
    `legacy_backend_config` as its opaque bytes; 4 (the default) a typed FFI
    handler. `has_side_effect` changes nothing eagerly (every call runs).
    `vmap_method` is what xffi.vmap does with the call.

    `input_output_aliases` ({argument: result}) gives a result the
    argument's contents, as in JAX: by default in a new array, leaving the
    argument untouched. With `donate_aliased_inputs` (xffi's own option, the
    eager counterpart of jax.jit's donate_argnums) the result *is* the
    argument: the handler writes into the caller's memory (a NumPy array, or
    the memory of a DLPack producer) and no bytes are copied.
    """
    target = target_name.decode() if isinstance(target_name, bytes) \
        else str(target_name)
    if vmap_method is not None and vmap_method not in VMAP_METHODS:
        raise ValueError(
            f"ffi_call('{target}'): vmap_method must be one of "
            f"{', '.join(VMAP_METHODS)} or None, got {vmap_method!r}")
    if custom_call_api_version not in (1, 2, 3, 4):
        raise ValueError(
            f"ffi_call('{target}'): custom_call_api_version must be 1, 2 or "
            f"3 (legacy targets) or 4 (typed FFI), got "
            f"{custom_call_api_version}")
    if custom_call_api_version >= 4 and legacy_backend_config is not None:
        raise ValueError(
            f"ffi_call('{target}'): legacy_backend_config is only for legacy "
            "custom calls (custom_call_api_version < 4); pass attributes as "
            "keyword arguments instead")
    _check_layouts(target, "input_layouts", input_layouts)
    _check_layouts(target, "output_layouts", output_layouts)

    if result_shape_dtypes is None:
        results, single, as_tuple = None, True, False
    elif isinstance(result_shape_dtypes, (list, tuple)):
        results = [_result_spec(target, i, r)
                   for i, r in enumerate(result_shape_dtypes)]
        single, as_tuple = False, isinstance(result_shape_dtypes, tuple)
    else:
        results = [_result_spec(target, None, result_shape_dtypes)]
        single, as_tuple = True, False

    aliases = []
    for i, o in sorted((input_output_aliases or {}).items()):
        aliases.append((int(i), int(o)))
    config = legacy_backend_config or ""
    if isinstance(config, bytes):
        config = config.decode("latin-1")

    call = _core._Caller(target, "cpu", results, single, as_tuple,
                         custom_call_api_version, config, aliases,
                         bool(donate_aliased_inputs), _fallback)
    if custom_call_api_version < 4:
        call._legacy_options = {
            "custom_call_api_version": custom_call_api_version,
            "legacy_backend_config": legacy_backend_config,
        }
    call.vmap_method = vmap_method
    call.has_side_effect = has_side_effect
    call.result_shape_dtypes = result_shape_dtypes
    call.input_output_aliases = dict(input_output_aliases or {})
    call.donate_aliased_inputs = bool(donate_aliased_inputs)
    return call


def _as_array(value: Any, call=None, index: int = -1) -> np.ndarray:
    if isinstance(value, np.ndarray):
        array = value
    elif hasattr(value, "__dlpack__") and not isinstance(value, np.generic):
        array = np.from_dlpack(value)  # zero-copy from a CPU producer
    else:
        array = np.asarray(value)
    if not (array.flags.c_contiguous and array.flags.aligned):
        if getattr(call, "donate_aliased_inputs", False) and \
                index in call.input_output_aliases:
            raise ValueError(
                f"ffi_call('{call.target}'): argument {index} is not a "
                "C-contiguous array, so it cannot be donated (the handler "
                "would write into a copy)")
        array = array.copy(order="C")
    return array


# Operand types that a layer above this one knows how to call with, and
# how: {type: rule(call, args, kwargs)}. xffi.vmap adds its Batched values
# when it is imported, so this module needs no knowledge of it.
_operand_rules = {}


def register_operand_rule(operand_type: type, rule) -> None:
    """Calls whose operands include an `operand_type` run as
    `rule(call, args, kwargs)` instead of being converted to arrays."""
    _operand_rules[operand_type] = rule


def _fallback(call, args, kwargs):
    # The C++ call path takes only C-contiguous NumPy arrays; everything
    # else comes here once.
    for a in args:
        rule = _operand_rules.get(type(a))
        if rule is not None:
            return rule(call, args, kwargs)
    return call(*(_as_array(a, call, i) for i, a in enumerate(args)),
                **kwargs)


_contexts = threading.local()


@contextlib.contextmanager
def execution_context(context: Optional[ExecutionContext]):
    """Eager calls on this thread run with `context` (its user data, run id)
    inside the block."""
    stack = getattr(_contexts, "stack", None)
    if stack is None:
        stack = _contexts.stack = []
    stack.append(context)
    _core._set_current_context(context)
    try:
        yield context
    finally:
        stack.pop()
        _core._set_current_context(stack[-1] if stack else None)
