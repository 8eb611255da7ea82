"""xffi handler libraries in JAX.

    import xffi.jax
    lib = xffi.jax.register_library("libmy_handlers.so")   # one call
    y = jax.jit(lambda x: lib.RmsNorm(x, eps=1e-6))(x)

`forward_partitioning()` gives JAX the partitioning registrations made in
xffi (batch-partitionable targets, custom partitioners).

The other direction: `register_jaxlib_targets()` registers jaxlib's own CPU
custom-call handlers (its LAPACK family) into xffi, in place of xffi's
built-in ones when asked to.

`register_library` loads the library into xffi (running its registrations),
registers every handler it has into JAX (the names it registered itself,
and every exported handler symbol), with the state types they use, and
returns an object whose attributes (and items, for names that are not
identifiers) are `jax.ffi.ffi_call` wrappers built from each handler's
self-description: attributes are checked and narrowed as xffi.ffi_call does
(a Python float for an Attr<float> becomes np.float32, which XLA needs),
and results are derived by xffi.ffi_call's rules when not given.
"""

import ctypes
from typing import Any, Dict, Optional, Union

import numpy as np

from . import _core, _partitioning
from ._dtypes import numpy_dtype
from ._library import Library, load_library
from ._registration import (builtin_targets, register_custom_call_target,
                            register_ffi_target)

# Type ids and infos handed to XLA: it keeps pointers to them for good.
_type_storage = []
_registered_types: Dict[tuple, int] = {}


class _TypeInfo(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t),
                ("extension_start", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


def _jax_platform(platform: str) -> str:
    canonical = _core.canonical_platform(platform)
    return "cpu" if canonical == "Host" else canonical


def register_type(type_id: int, platform: str = "cpu") -> None:
    """Registers xffi's type `type_id` (state or user data) with XLA under
    the same id, name and deleter, so handlers that store it run in JAX."""
    import jax
    key = (type_id, _jax_platform(platform))
    if key in _registered_types:
        return
    name = _core.type_name(type_id)
    if not name:
        raise ValueError(f"xffi.jax.register_type: type id {type_id} is not "
                         "registered with xffi")
    storage = ctypes.c_int64(type_id)
    info = _TypeInfo(ctypes.sizeof(_TypeInfo), None,
                     _core._type_deleter(type_id) or None)
    _type_storage.append((storage, info))
    jax.ffi.register_ffi_type(
        name,
        {"type_id": _core._capsule(ctypes.addressof(storage)),
         "type_info": _core._capsule(ctypes.addressof(info))},
        platform=key[1])
    if storage.value != type_id:
        raise RuntimeError(
            f"xffi.jax.register_type: XLA gave type '{name}' id "
            f"{storage.value}, but the handlers use xffi's id {type_id}")
    _registered_types[key] = type_id


class Handler:
    """A handler registered in JAX, callable like jax.ffi.ffi_call's result:
    handler(*arrays, result_shape_dtypes=None, vmap_method=None, **attrs)."""

    def __init__(self, target: str, stages: Dict[str, int], params,
                 vmap_method=None):
        self.target = target
        self._stages = stages  # {stage: handler address}
        self._execute = stages["execute"]
        self.params = params or []
        self.vmap_method = vmap_method

    @property
    def signature(self) -> str:
        return _core._describe_handler(self.target, self._execute)["signature"]

    def _attributes(self, kwargs: Dict[str, Any]) -> Dict[str, Any]:
        _core._check_attributes(self.target, self._stages, kwargs)
        declared = {p["name"]: p for p in self.params if p["kind"] == "attr"}
        out = {}
        for name, value in kwargs.items():
            p = declared.get(name)
            if p is None or p["dtype"] == 0:
                out[name] = value
            elif p["attr_type"] == 3 and not isinstance(value, np.generic):
                out[name] = numpy_dtype(p["dtype"]).type(value)
            elif p["attr_type"] == 1 and not isinstance(value, np.ndarray):
                out[name] = np.asarray(value, dtype=numpy_dtype(p["dtype"]))
            else:
                out[name] = value
        return out

    def _results(self, args):
        import jax
        rets = [p for p in self.params if p["kind"] in ("ret", "optional_ret",
                                                         "remaining_rets")]
        fail = (f"xffi.jax: '{self.target}' needs result_shape_dtypes")
        if not self.params or any(p["kind"] != "ret" for p in rets):
            raise ValueError(fail + ": its description does not give them")
        arrays = [p for p in rets if not (p["rank"] == 0 and p["dtype"] != 0)]
        out = []
        for p in rets:
            if p["rank"] == 0 and p["dtype"] != 0:
                out.append(jax.ShapeDtypeStruct((), numpy_dtype(p["dtype"])))
                continue
            if len(arrays) > 1 or not args:
                raise ValueError(fail + ": it has several array results, or "
                                 "no argument 0 to shape one like")
            x = args[0]
            if (p["rank"] >= 0 and p["rank"] != len(x.shape)) or (
                    p["dtype"] != 0 and numpy_dtype(p["dtype"]) != x.dtype):
                raise ValueError(fail + f": its result ({p['type_name']}) is "
                                 f"not like argument 0 ({x.dtype}{list(x.shape)})")
            out.append(jax.ShapeDtypeStruct(x.shape, x.dtype))
        return out[0] if len(out) == 1 else out

    def __call__(self, *args, result_shape_dtypes=None, vmap_method=None,
                 **kwargs):
        import jax
        attrs = self._attributes(kwargs)
        if result_shape_dtypes is None:
            result_shape_dtypes = self._results(args)
        return jax.ffi.ffi_call(
            self.target, result_shape_dtypes,
            vmap_method=vmap_method or self.vmap_method)(*args, **attrs)

    def __repr__(self) -> str:
        return f"<xffi.jax.Handler {self.target}: {self.signature}>"


class JaxLibrary:
    """What register_library returns: its handlers as attributes (by symbol)
    and items (by registered name)."""

    def __init__(self, library: Library, handlers: Dict[str, Handler],
                 legacy: Dict[str, str]):
        self.library = library
        self.handlers = handlers
        self.legacy_targets = legacy

    def __getitem__(self, name: str) -> Handler:
        return self.handlers[name]

    def __getattr__(self, name: str) -> Handler:
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return self.handlers[name]
        except KeyError:
            raise AttributeError(
                f"xffi.jax: the library has no handler '{name}'; it has "
                f"{sorted(self.handlers)}") from None

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.handlers))


def register_library(library: Union[str, Library], *, platform: str = "cpu",
                     prefix: str = "",
                     vmap_method: Optional[str] = None,
                     register_in_xffi: bool = False) -> JaxLibrary:
    """Registers every handler of an xffi plugin library into JAX.

    FFI handlers the library registered with xffi are registered under their
    names (with their stage bundles and traits, after the state types they
    use); exported handler symbols under their symbol names; legacy targets
    as api_version=0 targets. `prefix` goes in front of every name.
    Re-registering is harmless. Returns wrappers for the FFI handlers.
    Partitioning recorded in xffi under a handler's name (with or without
    the prefix; xffi.register_ffi_target_as_batch_partitionable, ...) is
    registered in JAX for it too.

    With `register_in_xffi`, every prefixed name is registered in xffi's
    runtime too, so the StableHLO that JAX lowers for functions calling them
    (jax.jit(f).lower(...).as_text()) runs in xffi.Program unchanged.
    """
    import jax
    lib = library if isinstance(library, Library) else load_library(library)
    jax_platform = _jax_platform(platform)
    canonical = _core.canonical_platform(platform)
    handlers: Dict[str, Handler] = {}
    legacy: Dict[str, str] = {}

    for name, info in sorted(lib.registered.items()):
        if info["platform"] != canonical:
            continue
        record = _core._handler_info(name, info["platform"])
        if record["state_type_id"]:
            register_type(record["state_type_id"], platform)
        stages = info["stages"]
        fn = stages["execute"] if set(stages) == {"execute"} else dict(stages)
        jax.ffi.register_ffi_target(prefix + name, fn, platform=jax_platform,
                                    api_version=1, traits=info["traits"])
        if register_in_xffi and prefix:
            register_ffi_target(prefix + name, fn, platform=platform,
                                traits=info["traits"])
        _forward_partitioning_of(prefix + name, name,
                                 register_in_xffi and bool(prefix))
        handlers[prefix + name] = Handler(
            prefix + name,
            {s: _core._capsule_address(c) for s, c in stages.items()},
            record["params"], vmap_method)

    for symbol, capsule in sorted(lib.handlers.items()):
        address = _core._capsule_address(capsule)
        described = _core._describe_handler(symbol, address)
        jax.ffi.register_ffi_target(prefix + symbol, capsule,
                                    platform=jax_platform, api_version=1)
        if register_in_xffi:
            register_ffi_target(prefix + symbol, capsule, platform=platform)
        _forward_partitioning_of(prefix + symbol, symbol,
                                 register_in_xffi and bool(prefix))
        handlers[prefix + symbol] = Handler(prefix + symbol,
                                            {"execute": address},
                                            described["params"], vmap_method)

    for name, info in sorted(lib.legacy_targets.items()):
        if info["platform"] != canonical:
            continue
        jax.ffi.register_ffi_target(prefix + name, info["capsule"],
                                    platform=jax_platform, api_version=0)
        if register_in_xffi and prefix:
            register_custom_call_target(prefix + name, info["capsule"],
                                        platform=platform, api_version=0)
        legacy[prefix + name] = name
    return JaxLibrary(lib, handlers, legacy)


# Names whose partitioning JAX has been given, so repeats are skipped.
_forwarded_batch: set = set()
_forwarded_partitioners: Dict[str, Any] = {}


def _forward_batch(name: str, c_api: Any = None) -> None:
    if name in _forwarded_batch:
        return
    import jax
    if c_api is None and hasattr(jax.ffi,
                                 "register_ffi_target_as_batch_partitionable"):
        # JAX's own function also registers it with PJRT plugins loaded later.
        jax.ffi.register_ffi_target_as_batch_partitionable(name)
    else:
        from jax._src.lib import xla_client
        xla_client.register_custom_call_as_batch_partitionable(name, c_api)
    _forwarded_batch.add(name)


def _forward_partitioner(record: "_partitioning.CustomCallPartitioner") -> None:
    if _forwarded_partitioners.get(record.name) is record:
        return
    from jax._src.lib import xla_client
    xla_client.register_custom_call_partitioner(
        record.name, record.prop_user_sharding, record.partition,
        record.infer_sharding_from_operands,
        can_side_effecting_have_replicated_sharding=(
            record.can_side_effecting_have_replicated_sharding),
        c_api=record.c_api)
    _forwarded_partitioners[record.name] = record


def _forward_registration(kind: str, *args: Any) -> None:
    if kind == "batch":
        _forward_batch(*args)
    else:
        _forward_partitioner(*args)


def forward_partitioning() -> None:
    """Registers with JAX/XLA every partitioning registration made in xffi
    (xffi.register_custom_call_partitioner,
    register_custom_call_as_batch_partitionable,
    register_ffi_target_as_batch_partitionable), and from now on each new
    one as it is made."""
    for name, c_api in sorted(_partitioning._batch_partitionable.items()):
        _forward_batch(name, c_api)
    for record in _partitioning._partitioners.values():
        _forward_partitioner(record)
    if _forward_registration not in _partitioning._listeners:
        _partitioning._listeners.append(_forward_registration)


def _forward_partitioning_of(jax_name: str, xffi_name: str,
                             in_xffi: bool = False) -> None:
    # A library's handler is registered in JAX as prefix + name: whatever
    # xffi recorded under either name applies to it. `in_xffi`: the prefixed
    # name is registered in xffi too, so xffi's compiler partitions it as
    # JAX does.
    for name in (jax_name, xffi_name):
        if name in _partitioning._batch_partitionable:
            c_api = _partitioning._batch_partitionable[name]
            _forward_batch(jax_name, c_api)
            if in_xffi and jax_name not in _partitioning._batch_partitionable:
                _partitioning.register_custom_call_as_batch_partitionable(
                    jax_name, c_api)
            break
    for name in (jax_name, xffi_name):
        record = _partitioning._partitioners.get(name)
        if record is not None:
            _forward_partitioner(record._replace(name=jax_name))
            break


def _jaxlib_registrations():
    """(module, [(name, capsule, api_version)]) for each jaxlib module with
    CPU custom-call targets: jaxlib.lapack (LAPACK and the perturbed
    tridiagonal solve) and jaxlib.cpu_sparse."""
    try:
        from jaxlib import lapack
    except ImportError as error:
        raise ImportError(
            "xffi.jax.register_jaxlib_targets needs jaxlib (pip install "
            f"jaxlib): {error}") from None
    # jaxlib's LAPACK kernels call the LAPACK that SciPy ships; this binds
    # them to it (JAX does so before its first LAPACK call).
    lapack._lapack.initialize()
    modules = [lapack]
    try:
        from jaxlib import cpu_sparse
        modules.append(cpu_sparse)
    except ImportError:
        pass
    return [(module, module.registrations().get("cpu", []))
            for module in modules]


def register_jaxlib_targets(*, replace_builtins: bool = False
                            ) -> Dict[str, str]:
    """Registers jaxlib's own CPU custom-call handlers into xffi.

    jaxlib (when installed) exports the handlers JAX's CPU lowering calls:
    its LAPACK family (lapack_sgetrf_ffi, ..., tridiagonal_solve_perturbed_ffi)
    and cpu_csr_sparse_dense_ffi. xffi has the LAPACK family built in under
    the same names (xffi.builtin_targets()), so by default only the names
    xffi lacks are registered and the built-ins stay; with
    `replace_builtins=True`, jaxlib's handlers take the built-ins' names too,
    so programs compiled afterwards run jaxlib's kernels (on the LAPACK
    SciPy ships) instead of xffi's (on the system's LAPACK).
    xffi.restore_builtin_targets() puts the built-ins back. Programs
    compiled before keep the handlers they resolved. Calling again is
    harmless.

    Returns {name: "jaxlib" or "builtin"}: which handler each of jaxlib's
    names resolves to in xffi afterwards.
    """
    builtins = set(builtin_targets())
    resolved: Dict[str, str] = {}
    for module, targets in _jaxlib_registrations():
        origin = f"jaxlib {module.__name__} ({module.__file__})"
        for name, capsule, api_version in targets:
            if name in builtins and not replace_builtins:
                resolved[name] = "builtin"
                continue
            if api_version == 1:
                _core._register_ffi_target(name, capsule, "cpu", 0, origin,
                                           name in builtins)
            else:
                _core._register_legacy_target(name, capsule, "cpu", 0, origin)
            resolved[name] = "jaxlib"
    return resolved
