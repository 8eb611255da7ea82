"""Enumeration: each catalogued module's public names, matched against its
recipes and skips, expand into cases with stable ids such as
`jnp.sum(axis=1,keepdims)[f32]`, `lax.sin[f32:special]`,
`jnp.tanh[f32]/grad` or `random.normal[bf16]@rbg`."""

import inspect

from . import catalog_lax, catalog_numpy, catalog_other
from .spec import A, Case

CATALOGS = (catalog_numpy.CATALOGS + catalog_lax.CATALOGS +
            catalog_other.CATALOGS)


def public_names(module) -> set:
    names = set()
    for name in dir(module):
        if name.startswith("_"):
            continue
        value = getattr(module, name)
        if inspect.ismodule(value) or not callable(value):
            continue
        names.add(name)
    return names


class Inventory:
    """Every case of the sweep, the skipped names with their reasons and
    the public names no catalog mentions yet."""

    def __init__(self):
        self.cases = []
        self.skips = []
        self.uncatalogued = []
        for catalog in CATALOGS:
            names = public_names(catalog.module)
            stray = (set(catalog.recipes) | set(catalog.skips)) - names
            if stray:
                raise ValueError(f"{catalog.alias}: catalogued names that are "
                                 f"not public functions: {sorted(stray)}")
            for name in sorted(names):
                qualified = f"{catalog.alias}.{name}"
                if name in catalog.skips:
                    self.skips.append((qualified, catalog.skips[name]))
                elif name in catalog.recipes:
                    self.cases.extend(_expand(catalog, name,
                                              catalog.recipes[name]))
                else:
                    self.uncatalogued.append(qualified)
        ids = [case.id for case in self.cases]
        if len(set(ids)) != len(ids):
            duplicates = sorted({i for i in ids if ids.count(i) > 1})
            raise ValueError(f"duplicate case ids: {duplicates}")
        self.by_id = {case.id: case for case in self.cases}

    def functions(self) -> set:
        return {f"{case.module}.{case.name}" for case in self.cases}


def _expand(catalog, name, spec):
    function = getattr(catalog.module, name)
    if spec.wrap is not None:
        function = spec.wrap(function)
    labels = [call.label for call in spec.calls]
    cases = []
    for index, call in enumerate(spec.calls):
        label = call.label
        if labels.index(label) != index:  # the first keeps a shared label
            label = f"{label}#{index}" if label else f"#{index}"
        stem = f"{catalog.alias}.{name}" + (f"({label})" if label else "")
        for impl in spec.impls or (None,):
            # random.normal[f32]@rbg: the key's implementation after the
            # dtypes, so ids fold by it in COVERAGE.md.
            key = f"@{impl.replace('2x32', '')}" if impl else ""
            for dtype in spec.dtypes:
                common = dict(module=catalog.alias, name=name,
                              function=function, spec=spec, call=call,
                              impl=impl)
                cases.append(Case(id=f"{stem}[{dtype}]{key}", dtype=dtype,
                                  **common))
                if (spec.grad and call.differentiable and dtype == "f32" and
                        _has_float_input(call)):
                    cases.append(Case(id=f"{stem}[{dtype}]{key}/grad",
                                      dtype=dtype, grad=True, **common))
        if spec.special and index == 0:
            cases.append(Case(id=f"{stem}[f32:special]", dtype="f32:special",
                              module=catalog.alias, name=name,
                              function=function, spec=spec, call=call))
    return cases


def _has_float_input(call) -> bool:
    probe = Case(id="", module="", name="", function=None, spec=None,
                 call=call, dtype="f32")
    return any(a.dtype_for("f32") in ("f32", "f64", "bf16", "f16")
               for a in probe.arrays() if isinstance(a, A))
