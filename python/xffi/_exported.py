"""Programs from jax.export: a saved JAX artifact runs in xffi.

    exported = jax.export.export(jax.jit(f))(x_spec)        # or
    exported = jax.export.deserialize(blob)                 # a saved one
    program = xffi.Program.from_exported(exported)          # or (blob)
    y = program(x)                                          # as exported.call(x)

An Exported holds the StableHLO of one lowering and its calling convention:
the argument and result pytrees, which arguments the module kept, and, when
it was exported for several platforms, a leading platform-index argument.
xffi runs its CPU ("cpu") lowering and takes the arguments as
exported.call does. Custom calls in the module resolve to the handlers
registered with xffi under their target names, as in any program.

A shape-polymorphic export (symbolic dimensions, jax.export.symbolic_shape)
is refined to each call's argument shapes (xffi's StableHLO shape
refinement) and compiled once per distinct signature; a shape its
constraints refuse raises ValueError with JAX's shape-assertion message.
"""

from typing import Any

import numpy as np

from . import _core
from ._program import Program, _argument_shape, _Specializations


def _deserialize(serialized) -> Any:
    try:
        from jax import export as jax_export
    except ImportError:
        raise ImportError(
            "xffi.Program.from_exported: serialized artifacts are read with "
            "JAX (jax.export.deserialize); pip install jax") from None
    return jax_export.deserialize(bytearray(serialized))


def _refuse(exported, reason: str) -> None:
    name = getattr(exported, "fun_name", "?")
    raise ValueError(f"xffi.Program.from_exported('{name}'): {reason}")


class ExportedProgram(Program):
    """A jax.export.Exported compiled by xffi; called as exported.call is
    (the same argument pytree), it returns the same result pytree."""

    def __init__(self, exported, **options):
        platforms = tuple(exported.platforms)
        if "cpu" not in platforms:
            _refuse(exported, f"it was exported for {list(platforms)}; xffi "
                    "runs the 'cpu' lowering (export with platforms=('cpu', "
                    "...))")
        if exported.ordered_effects:
            _refuse(exported, "it has ordered effects "
                    f"{list(exported.ordered_effects)}, whose tokens xffi's "
                    "calling convention does not pass")
        self.exported = exported
        # Several platforms: the module's first parameter picks the lowering.
        self._platform_index = (np.int32(platforms.index("cpu"))
                                if len(platforms) > 1 else None)
        self._kept = tuple(exported.module_kept_var_idx)
        source = f"<jax.export {getattr(exported, 'fun_name', '?')}>"
        text = exported.mlir_module()
        module = _core._parse_program(text, source)
        # Symbolic dimensions: the module is refined to each call's argument
        # shapes and compiled once per distinct signature.
        self._specializations = None
        if module.is_shape_polymorphic:
            self.module = module
            self._specializations = _Specializations(text, source, module,
                                                     options)
        else:
            super().__init__(module, **options)
        self.format = "jax.export"

    @property
    def parameter_shapes(self):
        """The module's parameter shapes (-1: a symbolic dimension)."""
        if self._specializations is not None:
            return self.module.parameter_shapes
        return super().parameter_shapes

    @property
    def result_shape(self):
        if self._specializations is not None:
            raise AttributeError(
                "a shape-polymorphic export's result shape depends on its "
                "arguments")
        return super().result_shape

    @property
    def specializations(self) -> int:
        """Argument-shape signatures compiled so far (1 when static)."""
        if self._specializations is not None:
            return len(self._specializations)
        return 1

    def hlo_text(self) -> str:
        if self._specializations is not None:
            return self.module.hlo_text()
        return super().hlo_text()

    def __call__(self, *args, **kwargs):
        import jax
        leaves, tree = jax.tree_util.tree_flatten((args, kwargs))
        if tree != self.exported.in_tree:
            raise TypeError(
                "xffi.Program.from_exported: the arguments' structure "
                f"{tree} is not the exported one {self.exported.in_tree}")
        for index, (leaf, aval) in enumerate(zip(leaves,
                                                 self.exported.in_avals)):
            shape = _argument_shape(leaf)
            # A symbolic dimension takes any size here; the module's own
            # shape assertions check what the symbols require.
            if len(shape) != len(aval.shape) or any(
                    isinstance(want, int) and got != want
                    for got, want in zip(shape, aval.shape)):
                raise ValueError(
                    f"xffi.Program.from_exported: argument {index} has shape "
                    f"{shape}, the export expects {aval.str_short()}")
        kept = [leaves[i] for i in self._kept]
        if self._platform_index is not None:
            kept.insert(0, self._platform_index)
        if self._specializations is not None:
            program = self._specializations.get(
                [_argument_shape(a) for a in kept])
            results = program(*kept)
        else:
            results = super().__call__(*kept)
        if not isinstance(results, tuple):
            results = (results,)
        return jax.tree_util.tree_unflatten(self.exported.out_tree,
                                            list(results))


def from_exported(exported, **options) -> ExportedProgram:
    if isinstance(exported, (bytes, bytearray, memoryview)):
        exported = _deserialize(exported)
    if not hasattr(exported, "mlir_module") or not hasattr(exported,
                                                           "in_tree"):
        raise TypeError("xffi.Program.from_exported: expected a "
                        "jax.export.Exported or its serialized bytes, got "
                        f"{type(exported).__name__}")
    return ExportedProgram(exported, **options)
