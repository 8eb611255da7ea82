"""Partitioning registrations, under xla_client's and jax.ffi's names.

XLA's SPMD partitioner asks these registrations how to split a custom call
across devices: a *batch-partitionable* target runs independently on each
device's block of its leading (batch) dimensions; a *custom partitioner*
supplies Python rules for sharding propagation and lowering. xffi records
them by target name, with the arguments JAX's functions take, and
`xffi.jax` hands them to JAX (`xffi.jax.forward_partitioning()`, and
`xffi.jax.register_library` for the names it registers), so a handler
library's partitioning is declared once, next to its registration.
"""

from typing import Any, Callable, Dict, List, NamedTuple, Optional

from . import _core


class CustomCallPartitioner(NamedTuple):
    """The arguments of one register_custom_call_partitioner call."""

    name: str
    prop_user_sharding: Callable
    partition: Callable
    infer_sharding_from_operands: Callable
    can_side_effecting_have_replicated_sharding: bool
    c_api: Any


_partitioners: Dict[str, CustomCallPartitioner] = {}
_batch_partitionable: Dict[str, Any] = {}  # name -> c_api (None: none)
# Called with ("partitioner", record) or ("batch", name, c_api) after each
# registration: xffi.jax forwards through this once forwarding is on.
_listeners: List[Callable[..., None]] = []


def _target_name(api: str, argument: str, name: Any) -> str:
    if not isinstance(name, str):
        raise TypeError(f"{api}: {argument} must be str, got "
                        f"{type(name).__name__}")
    if not name:
        raise ValueError(f"{api}: {argument} is empty")
    return name


def _check_c_api(api: str, c_api: Any) -> None:
    # xla_client takes a PJRT_Api* capsule for plugins; xffi runs no PJRT
    # plugin, so it only keeps the capsule to forward it.
    if c_api is not None and type(c_api).__name__ != "PyCapsule":
        raise TypeError(f"{api}: c_api must be a PyCapsule (PJRT_Api*) or "
                        f"None, got {type(c_api).__name__}")


def register_custom_call_partitioner(
        name: str, prop_user_sharding: Any, partition: Any,
        infer_sharding_from_operands: Any,
        can_side_effecting_have_replicated_sharding: bool = False,
        c_api: Optional[Any] = None) -> None:
    """Records a custom partitioner for the custom call `name`, with
    xla_client.register_custom_call_partitioner's signature and meaning:
    `prop_user_sharding` (result sharding -> instruction sharding),
    `partition` (operand and result shardings -> generated HLO and sharding
    specs) and `infer_sharding_from_operands` (operand shardings ->
    instruction sharding) are called by XLA's partitioner. A later
    registration under the same name replaces the earlier one.
    xffi.jax.forward_partitioning() registers it with XLA."""
    api = "register_custom_call_partitioner"
    name = _target_name(api, "name", name)
    rules = {"prop_user_sharding": prop_user_sharding,
             "partition": partition,
             "infer_sharding_from_operands": infer_sharding_from_operands}
    for argument, rule in rules.items():
        if not callable(rule):
            raise TypeError(f"{api}('{name}'): {argument} must be callable, "
                            f"got {type(rule).__name__}")
    _check_c_api(api, c_api)
    record = CustomCallPartitioner(
        name, prop_user_sharding, partition, infer_sharding_from_operands,
        bool(can_side_effecting_have_replicated_sharding), c_api)
    _partitioners[name] = record
    for listener in list(_listeners):
        listener("partitioner", record)


def register_custom_call_as_batch_partitionable(
        target_name: str, c_api: Optional[Any] = None) -> None:
    """Records that the custom call `target_name` is batch partitionable
    (xla_client.register_custom_call_as_batch_partitionable): sharded on
    leading dimensions, it runs independently on each shard; sharded on
    others, XLA replicates those first. How many leading dimensions are
    batch dimensions is each call's `num_batch_dims` frontend attribute,
    which its lowering writes (JAX's linalg lowerings do; with
    jax.ffi.ffi_lowering, extra_attributes={"mhlo.frontend_attributes":
    ...}); a call without it runs whole, in XLA as in xffi. In a program
    xffi compiles afterwards, such a call whose operand is sharded along
    its batch dimensions runs once per device, on that device's block
    (passes/batch_partitioning.h says when)."""
    api = "register_custom_call_as_batch_partitionable"
    target_name = _target_name(api, "target_name", target_name)
    _check_c_api(api, c_api)
    # xffi's compiler runs such a call per device in a sharded program.
    _core._register_batch_partitionable(target_name)
    _batch_partitionable[target_name] = c_api
    for listener in list(_listeners):
        listener("batch", target_name, c_api)


def register_ffi_target_as_batch_partitionable(name: str) -> None:
    """jax.ffi.register_ffi_target_as_batch_partitionable's name for
    register_custom_call_as_batch_partitionable(name)."""
    name = _target_name("register_ffi_target_as_batch_partitionable", "name",
                        name)
    register_custom_call_as_batch_partitionable(name)


def batch_partitionable_targets() -> List[str]:
    """The names recorded as batch partitionable, sorted."""
    return sorted(_batch_partitionable)


def custom_call_partitioners() -> Dict[str, CustomCallPartitioner]:
    """The custom partitioners recorded, by target name."""
    return dict(_partitioners)
