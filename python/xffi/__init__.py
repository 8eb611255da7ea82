"""xffi: an open implementation of the XLA custom-call system.

Register handlers (typed FFI or legacy custom-call targets) and call them
eagerly on NumPy arrays, with the names JAX and xla_client use::

    import xffi
    lib = xffi.load_library("librms_norm.so")
    xffi.register_ffi_target("rms_norm", lib.RmsNorm)
    y = xffi.ffi_call("rms_norm", xffi.ShapeDtypeStruct(x.shape, x.dtype))(
        x, eps=1e-6)

`xffi.jax` carries the same handlers into JAX.
"""

import ctypes as _ctypes
import os as _os
import pathlib as _pathlib


def _load_runtime():
    # Handler libraries reach libxffi through weak references (their legacy
    # registration macros, XFFI_REGISTER_HANDLER_WITH_RUNTIME), which bind
    # only to a library in the process's global scope: load it so before the
    # extension module (which links it) and before any plugin.
    here = _pathlib.Path(__file__).absolute().parent
    candidates = [_os.environ.get("XFFI_LIBRARY", ""), here / "libxffi.so"]
    for candidate in candidates:
        if candidate and _pathlib.Path(candidate).is_file():
            return _ctypes.CDLL(str(candidate), mode=_ctypes.RTLD_GLOBAL)
    raise ImportError(
        f"xffi: libxffi.so is missing from {here} (set XFFI_LIBRARY to its "
        "path, or reinstall the package)")


_runtime = _load_runtime()

from . import _core  # noqa: E402
from ._dtypes import _install_dtypes  # noqa: E402

_install_dtypes()

from ._registration import (  # noqa: E402
    CustomCallTargetTraits,
    builtin_targets,
    cmake_dir,
    custom_call_targets,
    describe_targets,
    include_dir,
    pycapsule,
    register_custom_call_target,
    register_ffi_target,
    register_ffi_type,
    restore_builtin_targets,
)
from ._library import Library, load_library  # noqa: E402
from ._call import (  # noqa: E402
    AbstractToken,
    ExecutionContext,
    ShapeDtypeStruct,
    Token,
    abstract_token,
    custom_call_timeout,
    execution_context,
    ffi_call,
    set_custom_call_timeout,
)
from ._vmap import vmap  # noqa: E402
from ._partitioning import (  # noqa: E402
    CustomCallPartitioner,
    batch_partitionable_targets,
    custom_call_partitioners,
    register_custom_call_as_batch_partitionable,
    register_custom_call_partitioner,
    register_ffi_target_as_batch_partitionable,
)
from ._program import (  # noqa: E402
    Builder,
    ComputationBuilder,
    Computation,
    DeviceArray,
    Module,
    Op,
    PolymorphicProgram,
    Program,
    Shape,
    execute_with_python_values,
)

__version__ = "0.1.0"

__all__ = [
    "AbstractToken",
    "Builder",
    "Computation",
    "ComputationBuilder",
    "DeviceArray",
    "Module",
    "Op",
    "PolymorphicProgram",
    "Program",
    "Shape",
    "batch_partitionable_targets",
    "builtin_targets",
    "cmake_dir",
    "execute_with_python_values",
    "CustomCallPartitioner",
    "CustomCallTargetTraits",
    "ExecutionContext",
    "Library",
    "ShapeDtypeStruct",
    "Token",
    "abstract_token",
    "custom_call_partitioners",
    "custom_call_timeout",
    "custom_call_targets",
    "describe_targets",
    "execution_context",
    "ffi_call",
    "include_dir",
    "load_library",
    "pycapsule",
    "register_custom_call_as_batch_partitionable",
    "register_custom_call_partitioner",
    "register_custom_call_target",
    "register_ffi_target",
    "register_ffi_target_as_batch_partitionable",
    "register_ffi_type",
    "restore_builtin_targets",
    "set_custom_call_timeout",
    "vmap",
]
