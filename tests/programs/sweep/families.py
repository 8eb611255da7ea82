"""Spec builders for the signature families many functions share, and the
catalog's registration helpers."""

from .inputs import INEXACT
from .spec import A, V, Spec

MATRIX = (3, 4)


class Catalog:
    """The recipes and deliberate skips of one JAX module (by its alias in
    case ids: jnp, lax, nn, ...)."""

    def __init__(self, alias: str, module):
        self.alias = alias
        self.module = module
        self.recipes = {}
        self.skips = {}

    def add(self, names: str, spec: Spec):
        for name in names.split():
            if name in self.recipes or name in self.skips:
                raise ValueError(f"{self.alias}.{name} is catalogued twice")
            self.recipes[name] = spec

    def skip(self, names: str, reason: str):
        for name in names.split():
            if name in self.recipes or name in self.skips:
                raise ValueError(f"{self.alias}.{name} is catalogued twice")
            self.skips[name] = reason


def unary(domain="real", dtypes=INEXACT, grad=True, family="transcendental",
          special=True, shape=MATRIX, **kwargs) -> Spec:
    """f(x) elementwise; the f32:special case is on unless special=False."""
    return Spec(calls=(V(A(shape, domain), **kwargs),), dtypes=dtypes,
                grad=grad, family=family, special=special)


def binary(domain=("real", "real"), dtypes=INEXACT, grad=True,
           family="elementwise", special=False, **kwargs) -> Spec:
    """f(x, y) with y broadcast along x's rows (a (4,) against (3, 4))."""
    return Spec(calls=(V(A(MATRIX, domain[0]), A((4,), domain[1]), **kwargs),),
                dtypes=dtypes, grad=grad, family=family, special=special)


def reduction(dtypes=INEXACT, grad=True, domain="real", family="reduction",
              extra=(), axes=(None, 1, (0, 1)), keepdims=True) -> Spec:
    """f(x, axis=...) over all, one and both axes (keepdims on one)."""
    calls = []
    for axis in axes:
        if axis == 1 and keepdims:
            calls.append(V(A((3, 5), domain), axis=axis, keepdims=True))
        else:
            calls.append(V(A((3, 5), domain), axis=axis))
    return Spec(calls=tuple(calls) + tuple(extra), dtypes=dtypes, grad=grad,
                family=family)
