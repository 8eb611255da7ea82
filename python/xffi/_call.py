"""Eager calls: xffi.ffi_call, with jax.ffi.ffi_call's signature."""

import contextlib
import os
import threading
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from . import _core
from ._dtypes import xla_dtype

VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims",
                "broadcast_all", "legacy_vectorized")

ExecutionContext = _core.ExecutionContext

# "1": every ffi_call made without strict= takes attributes as JAX does.
STRICT_ENVIRONMENT_VARIABLE = "XFFI_STRICT_ATTRIBUTES"

# Seconds: the process-wide custom-call timeout at import (see
# set_custom_call_timeout), for code that calls jax.ffi.ffi_call's signature
# unchanged and cannot pass xffi's keyword.
TIMEOUT_ENVIRONMENT_VARIABLE = "XFFI_CUSTOM_CALL_TIMEOUT"

_XLA_TOKEN = 17  # XLA_FFI_DataType_TOKEN


class AbstractToken:
    """A token result in result_shape_dtypes (as jax.core.abstract_token,
    which ffi_call also takes)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "xffi.abstract_token"


abstract_token = AbstractToken()


class Token:
    """What an ffi_call returns for a token result, and takes as a token
    argument (as do JAX's tokens, jax.lax.create_token()). Carries nothing:
    the handler sees a TOKEN buffer of rank 0 without data."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "xffi.Token()"


def _is_abstract_token(obj) -> bool:
    # JAX's own, without importing JAX.
    return isinstance(obj, AbstractToken) or \
        type(obj).__name__ == "AbstractToken"


def _is_token(obj) -> bool:
    return isinstance(obj, Token) or (
        type(obj).__name__ == "Token" and
        type(obj).__module__.startswith("jax"))


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
    if _is_abstract_token(obj):
        return (), _XLA_TOKEN, None
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


def _layout_count(target: str, what: str, layouts) -> int:
    """How many layouts a per-operand sequence holds (-1: none given)."""
    if layouts is None:
        return -1
    try:
        return len(layouts)
    except TypeError:
        raise TypeError(f"ffi_call('{target}'): {what} must be a sequence "
                        "with one layout per "
                        f"{'argument' if what == 'input_layouts' else 'result'}"
                        f", got {type(layouts).__name__}") from None


def _layout_order(target: str, what: str, layout):
    """A layout as JAX takes it (None, a jax Layout, or dimensions in
    major-to-minor order) as a major-to-minor tuple, or None for the default
    (row-major) layout."""
    if layout is None:
        return None
    if hasattr(layout, "major_to_minor"):  # jax.experimental.layout.Layout
        if getattr(layout, "tiling", None) is not None:
            raise ValueError(f"ffi_call('{target}'): {what}: The FFI does not "
                             "support layouts with tiling")
        layout = layout.major_to_minor
    try:
        return tuple(int(d) for d in layout)
    except TypeError:
        raise TypeError(f"ffi_call('{target}'): {what} must be None, a "
                        "Layout or a sequence of dimensions (major to "
                        f"minor), got {type(layout).__name__}") from None


def _check_order(target: str, what: str, order, shape) -> Optional[tuple]:
    """The permutation that lays `shape` out as `order` says, or None when
    that is row-major. An order that is no permutation of the dimensions is
    refused here, as XLA refuses it when JAX compiles the call."""
    if order is None or _is_abstract_token(shape):
        return None
    rank = len(shape)
    if sorted(order) != list(range(rank)):
        raise ValueError(f"ffi_call('{target}'): {what} = {order} is not a "
                         f"layout of a rank-{rank} array (a permutation of "
                         f"0..{rank - 1}, major to minor)")
    return None if order == tuple(range(rank)) else order


def _minor_to_major(order, rank: int) -> tuple:
    # How JAX prints a layout in its messages.
    return tuple(reversed(order if order is not None else range(rank)))


class _LayoutCall:
    """An ffi_call with non-row-major input or output layouts, as XLA runs
    one: the handler sees each buffer with its logical dimensions and its
    bytes in the requested order (an operand is transposed before the call,
    a result after it), so it behaves as the same call under JAX."""

    def __init__(self, inner, input_orders, output_orders, several_results):
        self._inner = inner
        self._input_orders = input_orders    # None: no input_layouts
        self._output_orders = output_orders  # per result, None: default
        self._several = several_results

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def __call__(self, *args, **kwargs):
        call = self._inner
        target = call.target
        for a in args:
            # A layer above (xffi.vmap) calls through this wrapper, so its
            # calls see the same layouts.
            rule = _operand_rules.get(type(a))
            if rule is not None:
                return rule(self, args, kwargs)
        args = list(args)
        inputs = [None] * len(args)
        originals = {}  # argument -> the caller's array, when transposed
        if self._input_orders is not None and \
                len(self._input_orders) == len(args):
            for i, order in enumerate(self._input_orders):
                if order is None or _is_token(args[i]):
                    continue
                array = _as_array(args[i], call, i)
                perm = _check_order(target, f"input_layouts[{i}]", order,
                                    array.shape)
                if perm is None:
                    continue
                inputs[i] = perm
                originals[i] = array
                # Logical dimensions over bytes in the layout's order.
                args[i] = np.ascontiguousarray(
                    np.transpose(array, perm)).reshape(array.shape)
        for i, o in sorted(call.input_output_aliases.items()):
            if i < len(args) and o < len(self._output_orders) and \
                    inputs[i] != self._output_orders[o]:
                rank = np.ndim(args[i])
                raise ValueError(
                    f"ffi_call('{target}'): input_output_aliases contains "
                    f"the mapping '{i}:{o}' referring to an input with "
                    f"layout {_minor_to_major(inputs[i], rank)} and an "
                    "output with a different layout "
                    f"{_minor_to_major(self._output_orders[o], rank)}.")
            if call.donate_aliased_inputs and i in originals and \
                    not originals[i].flags.writeable:
                raise ValueError(
                    f"ffi_call('{target}'): argument {i} is read-only, so it "
                    f"cannot be donated to result {o}")
        results = call(*args, **kwargs)
        outputs = [results] if not self._several else list(results)
        for r, perm in enumerate(self._output_orders):
            if perm is None:
                continue
            logical = outputs[r].shape
            physical = tuple(logical[d] for d in perm)
            outputs[r] = np.ascontiguousarray(np.transpose(
                outputs[r].reshape(physical), np.argsort(perm)))
        if call.donate_aliased_inputs:
            # The handler wrote into the transposed copy; the result is
            # still the caller's array, as for a row-major donated argument
            # (at the cost of a copy each way).
            for i, o in call.input_output_aliases.items():
                if i in originals:
                    np.copyto(originals[i], outputs[o])
                    outputs[o] = originals[i]
        if not self._several:
            return outputs[0]
        return tuple(outputs) if isinstance(results, tuple) else outputs


def _wrap_layouts(call, target, input_layouts, output_layouts, results,
                  several_results):
    """`call` itself when every layout is row-major, else a _LayoutCall."""
    input_orders = None
    if input_layouts is not None:
        input_orders = [_layout_order(target, f"input_layouts[{i}]", layout)
                        for i, layout in enumerate(input_layouts)]
    layouts = (output_layouts if several_results else [output_layouts])
    output_orders = []
    if results is not None and layouts is not None and \
            len(layouts) == len(results):
        for r, (layout, (shape, code, _)) in enumerate(zip(layouts, results)):
            what = f"output_layouts[{r}]" if several_results \
                else "output_layouts"
            order = _layout_order(target, what, layout)
            output_orders.append(None if code == _XLA_TOKEN else
                                 _check_order(target, what, order, shape))
    elif results is None:
        # Results derived at the call: only their default layout is known
        # to fit them here.
        for layout in layouts or ():
            order = _layout_order(target, "output_layouts", layout)
            if order is not None and order != tuple(range(len(order))):
                raise ValueError(
                    f"ffi_call('{target}'): output_layouts {order} needs "
                    "result_shape_dtypes (derived results are row-major)")
    if all(o is None for o in output_orders) and (
            input_orders is None or all(o is None for o in input_orders)):
        return call
    output_orders += [None] * (len(results or ()) - len(output_orders))
    return _LayoutCall(call, input_orders, output_orders, several_results)


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
             donate_aliased_inputs: bool = False,
             strict: Optional[bool] = None,
             custom_call_timeout: Optional[float] = None):
    """A callable that runs `target_name` eagerly in xffi's runtime.

    Mirrors jax.ffi.ffi_call: the callable takes the operands as positional
    arrays (NumPy arrays or DLPack producers, passed without copies when
    C-contiguous) and the attributes as keyword arguments, and returns one
    array when `result_shape_dtypes` is one object, a list (or tuple) when it
    is a list (or tuple). The GIL is released while the handler runs, and
    threads may call one callable at once: typed handlers' calls then run
    concurrently, sharing the call site's state as concurrent runs of one
    XLA executable do (legacy targets' calls take turns).

    `result_shape_dtypes` may be None when the handler describes itself
    and its results can be derived: a rank-0 result of a fixed dtype is a
    scalar; a single array result whose declared dtype and rank are any or
    argument 0's is shaped like argument 0. The handler's signature cannot say
    more (XFFI_Signature carries dtypes and ranks, not shapes), so anything
    else needs explicit results.

    Tokens, as in JAX: `xffi.abstract_token` (or jax's) in
    `result_shape_dtypes` gives a token result, returned as an `xffi.Token`;
    a token argument (`xffi.Token()` or a JAX token) reaches the handler as a
    TOKEN buffer of rank 0 without data. A legacy target (API version 1-3)
    takes and returns tokens too, with the pointer XLA:CPU gives them (one
    non-null address it must not read).

    `input_layouts` / `output_layouts` (one per operand: None, a JAX Layout,
    or the dimensions in major-to-minor order) as XLA applies them: the
    handler sees each buffer with its logical dimensions and its bytes in
    the requested order; operands are transposed before the call and
    results back after it (copies; a donated argument receives its
    result's values after the call, so the result is still the argument).
    Under xffi.vmap the batch dimension is the most major one, as JAX's
    batching rule puts it.

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

    Attributes: by default xffi converts a value to the type the handler
    declares when it can do so exactly (a Python float to an Attr<float>, a
    list of ints to a Span<const int32_t>). `strict=True` takes only what
    jax.ffi.ffi_call takes (a Python float is an f64, an int an s64; NumPy
    scalars and arrays of the declared dtype; no lists, tuples or complex
    numbers) and refuses the rest with JAX's reason, so code tested with
    xffi runs unchanged under JAX. `strict=None` (the default) reads the
    environment variable XFFI_STRICT_ATTRIBUTES ("1" turns it on), for test
    suites.

    `custom_call_timeout` (xffi's own option, in seconds; 0: none) bounds
    how long a call waits for a handler that returned a future: one still
    pending then fails with TimeoutError naming the target and the bound.
    None (the default) takes the process-wide setting,
    xffi.set_custom_call_timeout() (initially the environment variable
    XFFI_CUSTOM_CALL_TIMEOUT, else 0), read at each call. A synchronous
    handler, or a legacy target, is never interrupted. The abandoned handler
    may still read the arguments and write the results: xffi keeps them,
    the call frame and the call's state alive until it completes its future
    (a donated argument may still be written then), and the next call of the
    same callable starts with a new state (its instantiate stage runs again).
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
            "custom calls; pass attributes as keyword arguments instead. The "
            "use of the legacy_backend_config parameter requires "
            f"custom_call_api_version < 4; got {custom_call_api_version}.")
    # As in JAX: output_layouts is one layout when result_shape_dtypes is one
    # object, a sequence of them when it is a sequence.
    several_results = isinstance(result_shape_dtypes, (list, tuple))
    num_input_layouts = _layout_count(target, "input_layouts", input_layouts)
    num_output_layouts = (_layout_count(target, "output_layouts",
                                        output_layouts)
                          if several_results else -1)

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

    if strict is None:
        strict = os.environ.get(STRICT_ENVIRONMENT_VARIABLE, "") == "1"

    if custom_call_timeout is None:
        timeout = -1.0  # the process-wide setting, at each call
    else:
        timeout = _timeout_seconds(f"ffi_call('{target}')",
                                   custom_call_timeout)

    call = _core._Caller(target, "cpu", results, single, as_tuple,
                         custom_call_api_version, config, aliases,
                         bool(donate_aliased_inputs), _fallback, bool(strict),
                         num_input_layouts, num_output_layouts, Token,
                         timeout)
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
    call.strict = bool(strict)
    return _wrap_layouts(call, target, input_layouts, output_layouts,
                         results, several_results)


def _timeout_seconds(where: str, seconds: Any) -> float:
    try:
        value = float(seconds)
    except (TypeError, ValueError):
        raise TypeError(f"{where}: custom_call_timeout must be a number of "
                        f"seconds, got {seconds!r}") from None
    if not value >= 0 or value > 1e9:
        raise ValueError(f"{where}: custom_call_timeout must be between 0 "
                         f"(no timeout) and 1e9 seconds, got {seconds!r}")
    return value


def set_custom_call_timeout(seconds: float) -> None:
    """How long eager calls made without `custom_call_timeout` (and Programs
    compiled without one) wait for a handler that returned a future before
    failing with TimeoutError naming the target; seconds, 0 for as long as
    it takes. Process-wide; eager calls read it at each call, Programs when
    they are compiled. Its initial value is the environment variable
    XFFI_CUSTOM_CALL_TIMEOUT (else 0), so code written for jax.ffi.ffi_call
    can be bounded without changing it."""
    _core.set_custom_call_timeout(
        _timeout_seconds("set_custom_call_timeout", seconds))


def custom_call_timeout() -> float:
    """The process-wide timeout (seconds; 0: none); see
    set_custom_call_timeout."""
    return _core.custom_call_timeout()


def _timeout_from_environment() -> None:
    text = os.environ.get(TIMEOUT_ENVIRONMENT_VARIABLE, "").strip()
    if text:
        _core.set_custom_call_timeout(
            _timeout_seconds(f"environment variable "
                             f"{TIMEOUT_ENVIRONMENT_VARIABLE}", text))


_timeout_from_environment()


def _as_array(value: Any, call=None, index: int = -1) -> np.ndarray:
    if _is_token(value):
        return Token()  # JAX's token, as xffi's: the call takes either
    if isinstance(value, np.ndarray):
        array = value
    elif hasattr(value, "__dlpack__") and not isinstance(value, np.generic):
        try:
            array = np.from_dlpack(value)  # zero-copy from a CPU producer
        except (RuntimeError, BufferError, TypeError):
            # bfloat16: NumPy's importer has no dtype for it, xffi's has.
            array = _core._array_from_dlpack(value)
            if array is None:
                # On a device: eager calls run on the host, so it is
                # copied there ("no CUDA device: ..." where none can read
                # a kDLCUDA array).
                where = "argument" if index < 0 else f"argument {index}"
                if call is not None:
                    where = f"ffi_call('{call.target}'): {where}"
                array = _core._host_copy_of_device_array(value, where)
            if array is None:
                raise
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
    # The arrays first, then the call: CPython 3.11 leaks the copy of
    # `kwargs` that f(*generator, **kwargs) makes when the generator raises
    # (CALL_FUNCTION_EX drops it on that error path), and _as_array raises
    # for operands it cannot take.
    arrays = tuple(_as_array(a, call, i) for i, a in enumerate(args))
    return call(*arrays, **kwargs)


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
