"""xffi.vmap: batching eager ffi_call callables with JAX's vmap_method rules.

Inside `xffi.vmap(f)`, f receives `Batched` values: arrays with the batch on
axis 0. An ffi_call callable that sees one applies its `vmap_method` as
jax.ffi.ffi_call's batching rule does:

  sequential, sequential_unrolled  one call per batch element, results
                                   stacked (eagerly both are the same loop)
  expand_dims        unbatched operands get a leading axis of size 1; one call
  broadcast_all      unbatched operands are broadcast to the batch size; one
                     call
  legacy_vectorized  unbatched operands are passed unchanged; one call
  None               NotImplementedError, as in JAX

A call with input_layouts/output_layouts keeps them: sequential calls go
through its layouts element by element; a batched call gets each layout
with the batch dimension added as the most major one (where the operand is
batched), as JAX's batching rule does.

Results come back batched on axis 0, then move to out_axes. Only ffi_call
callables can take Batched values; other operations on them raise
TypeError. Nested xffi.vmap is not supported.
"""

from typing import Any, Callable, Sequence, Union

import numpy as np

from ._call import (ShapeDtypeStruct, _LayoutCall, _as_array, ffi_call,
                    register_operand_rule)


class Batched:
    """A value inside xffi.vmap: `value` holds the whole batch on axis 0."""

    __slots__ = ("value",)

    def __init__(self, value: np.ndarray):
        self.value = value

    @property
    def shape(self):
        return self.value.shape[1:]

    @property
    def dtype(self):
        return self.value.dtype

    def __array__(self, *args, **kwargs):
        raise TypeError(
            "xffi.vmap: a batched value can only be passed to an xffi.ffi_call "
            "callable (or returned); it cannot be converted to an array inside "
            "the mapped function")

    def __repr__(self) -> str:
        return f"Batched(shape={self.shape}, dtype={self.dtype}, " \
               f"batch={self.value.shape[0]})"


def _axes(spec, n: int, what: str):
    if spec is None or isinstance(spec, int):
        return [spec] * n
    spec = list(spec)
    if len(spec) != n:
        raise ValueError(f"xffi.vmap: {what} has {len(spec)} entries for "
                         f"{n} values")
    return spec


def vmap(f: Callable, in_axes: Union[int, None, Sequence[Any]] = 0,
         out_axes: Union[int, None, Sequence[Any]] = 0) -> Callable:
    """Maps `f` over a batch axis of its arguments. `f` calls xffi.ffi_call
    callables, each of which batches according to its vmap_method."""

    def mapped(*args):
        axes = _axes(in_axes, len(args), "in_axes")
        size = None
        wrapped = []
        for i, (arg, axis) in enumerate(zip(args, axes)):
            if isinstance(arg, Batched):
                raise NotImplementedError(
                    "xffi.vmap: nested xffi.vmap is not supported")
            if axis is None:
                wrapped.append(arg)
                continue
            array = np.asarray(arg)
            if not -array.ndim <= axis < array.ndim:
                raise ValueError(
                    f"xffi.vmap: in_axes[{i}] = {axis} is out of range for an "
                    f"argument of rank {array.ndim}")
            n = array.shape[axis]
            if size is not None and n != size:
                raise ValueError(
                    f"xffi.vmap: argument {i} has size {n} on its mapped axis "
                    f"{axis}, but earlier arguments have {size}")
            size = n
            wrapped.append(Batched(np.moveaxis(array, axis, 0)))
        if size is None:
            raise ValueError("xffi.vmap: in_axes maps no argument (all None)")
        out = f(*wrapped)
        if isinstance(out, (list, tuple)):
            oaxes = _axes(out_axes, len(out), "out_axes")
            unwrapped = [_unwrap(o, a, size) for o, a in zip(out, oaxes)]
            return type(out)(unwrapped)
        if not (out_axes is None or isinstance(out_axes, int)):
            raise ValueError("xffi.vmap: out_axes must be an int or None for "
                             "a single output")
        return _unwrap(out, out_axes, size)

    return mapped


def _unwrap(value, axis, size: int):
    if isinstance(value, Batched):
        if axis is None:
            raise ValueError("xffi.vmap: out_axes is None for an output that "
                             "depends on the mapped arguments")
        return np.moveaxis(value.value, 0, axis)
    if axis is None:
        return value
    array = np.asarray(value)
    return np.moveaxis(np.broadcast_to(array, (size,) + array.shape), 0, axis)


def _with_batch(order):
    # A layout (major to minor) of the batched value: the batch dimension
    # most major, as JAX's batching rule for ffi_call puts it.
    return None if order is None else (0,) + tuple(d + 1 for d in order)


def _batched_layouts(call, batched):
    """The input_layouts and output_layouts of the batched call: each
    operand's layout with the batch dimension added where the operand is
    batched (legacy_vectorized passes unbatched ones as they are), every
    result's with it added. (None, None) for a call with default layouts."""
    if not isinstance(call, _LayoutCall):
        return None, None
    input_layouts = None
    if call._input_orders is not None:
        input_layouts = [_with_batch(o) if b else o
                         for o, b in zip(call._input_orders, batched)]
    output_layouts = [_with_batch(o) for o in call._output_orders]
    if call.single_result:
        output_layouts = output_layouts[0]
    return input_layouts, output_layouts


def _batched_caller(call, size: int, example, batched_operands):
    specs = call.results_for(*example)
    inner = call._inner if isinstance(call, _LayoutCall) else call
    cache = inner.__dict__.setdefault("_batched_callers", {})
    key = (size, tuple((tuple(s), str(d)) for s, d in specs),
           tuple(batched_operands))
    batched = cache.get(key)
    if batched is None:
        results = [ShapeDtypeStruct((size,) + tuple(s), d) for s, d in specs]
        if call.single_result:
            results = results[0]
        elif call.tuple_result:
            results = tuple(results)
        input_layouts, output_layouts = _batched_layouts(call,
                                                         batched_operands)
        batched = ffi_call(call.target, results,
                           has_side_effect=call.has_side_effect,
                           vmap_method=call.vmap_method,
                           input_layouts=input_layouts,
                           output_layouts=output_layouts,
                           input_output_aliases=call.input_output_aliases,
                           strict=call.strict,
                           **_legacy_options(inner))
        cache[key] = batched
    return batched


def _legacy_options(call):
    return call.__dict__.get("_legacy_options", {})


def _wrap(results, call):
    if call.single_result:
        return Batched(results)
    return type(results)(Batched(r) for r in results)


def batched_call(call, args, kwargs):
    method = call.vmap_method
    if method is None:
        raise NotImplementedError(
            f"ffi_call('{call.target}') was called under xffi.vmap without a "
            "vmap_method; pass vmap_method= one of sequential, "
            "sequential_unrolled, expand_dims, broadcast_all or "
            "legacy_vectorized to ffi_call")
    size = next(a.value.shape[0] for a in args if isinstance(a, Batched))
    example = [np.empty(a.shape, a.dtype) if isinstance(a, Batched)
               else _as_array(a) for a in args]

    if method in ("sequential", "sequential_unrolled"):
        per_element = [
            call(*[a.value[b] if isinstance(a, Batched) else a for a in args],
                 **kwargs) for b in range(size)]
        specs = call.results_for(*example)
        if call.single_result:
            if size == 0:
                return Batched(np.empty((0,) + tuple(specs[0][0]), specs[0][1]))
            return Batched(np.stack(per_element))
        stacked = []
        for r, (shape, dtype) in enumerate(specs):
            if size == 0:
                stacked.append(Batched(np.empty((0,) + tuple(shape), dtype)))
            else:
                stacked.append(Batched(np.stack([p[r] for p in per_element])))
        return tuple(stacked) if call.tuple_result else stacked

    operands = []
    for a in args:
        if isinstance(a, Batched):
            operands.append(a.value)
        elif method == "expand_dims":
            operands.append(_as_array(a)[np.newaxis])
        elif method == "broadcast_all":
            array = _as_array(a)
            operands.append(np.broadcast_to(array, (size,) + array.shape))
        else:  # legacy_vectorized
            operands.append(a)
    batched_operands = [isinstance(a, Batched) or
                        method != "legacy_vectorized" for a in args]
    return _wrap(_batched_caller(call, size, example, batched_operands)(
        *operands, **kwargs), call)


register_operand_rule(Batched, batched_call)
