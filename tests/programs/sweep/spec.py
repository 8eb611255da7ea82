"""The recipe vocabulary of the catalogs and the case they expand into.

A catalog entry says how to call one public function: a Spec holds calls
(V), each a list of arguments where A marks an array argument (it becomes a
parameter of the jitted program) and anything else is static (closed over,
so it is baked into the lowered text). D stands for the case's dtype where a
function takes a dtype, K for a jax.random key (passed as its raw key data and
wrapped inside the program, so the program's parameters stay plain arrays).
"""

import dataclasses
from typing import Any, Callable, Optional

import numpy as np

from . import inputs


class A:
    """An array argument of `shape` with values in `domain` (inputs.make);
    dtype None means the case's dtype, otherwise an inputs.DTYPES key."""

    def __init__(self, shape=(3, 4), domain="real", dtype=None):
        self.shape = tuple(shape)
        self.domain = domain
        self.dtype = dtype

    def dtype_for(self, case_dtype: str) -> str:
        return self.dtype or case_dtype

    def __repr__(self):
        return f"A({self.shape}, {self.domain!r}, {self.dtype!r})"


class _CaseDtype:
    def __repr__(self):
        return "D"


D = _CaseDtype()


class K:
    """A jax.random key of the case's implementation."""

    def __repr__(self):
        return "K"


class V:
    """One call: positional and keyword arguments (A, K, D or static
    values, nested in lists and tuples as the function expects). `label`
    names the call in the case id; by default its static keywords do.
    differentiable=False keeps the call out of the gradient sweep where
    JAX has no reverse rule for it."""

    def __init__(self, *args, label: Optional[str] = None,
                 differentiable: bool = True, **kwargs):
        self.args = args
        self.kwargs = kwargs
        self.differentiable = differentiable
        self.label = label if label is not None else _default_label(kwargs)


def _default_label(kwargs) -> str:
    parts = []
    for key, value in kwargs.items():
        if isinstance(value, (A, K)) or value is D:
            continue
        if value is True:
            parts.append(key)
        elif callable(value):
            parts.append(f"{key}={getattr(value, '__name__', 'fn')}")
        else:
            parts.append(f"{key}={value!r}".replace(" ", ""))
    return ",".join(parts)


@dataclasses.dataclass
class Spec:
    """How to call one function: its calls, the dtypes its array arguments
    take, whether its gradient is swept, and its tolerance family
    (compare.py). `wrap` turns the public function into what the calls
    call (for functions taking callables or built from others' results);
    `post` runs inside the program on its result (e.g. key_data of returned
    keys); `canon` runs in NumPy on both sides'
    leaves before comparing (e.g. eigenvector signs). `special` adds an
    f32 case fed IEEE edge values; `impls` are jax.random key kinds."""
    calls: tuple = (None,)
    dtypes: tuple = inputs.FLOAT
    grad: bool = True
    family: str = "elementwise"
    wrap: Optional[Callable] = None
    post: Optional[Callable] = None
    canon: Optional[Callable] = None
    special: bool = False
    impls: tuple = ()

    def __post_init__(self):
        self.calls = tuple(V(A()) if c is None else c for c in self.calls)


@dataclasses.dataclass
class Case:
    """One function called one way with one dtype, forward or gradient."""
    id: str
    module: str
    name: str
    function: Any
    spec: Spec
    call: V
    dtype: str
    grad: bool = False
    impl: Optional[str] = None

    @property
    def x64(self) -> bool:
        if self.dtype in inputs.X64_DTYPES:
            return True
        return any(a.dtype in inputs.X64_DTYPES for a in self.arrays())

    def arrays(self):
        """The call's A placeholders, in parameter order."""
        found = []

        def walk(value):
            if isinstance(value, A):
                found.append(value)
            elif type(value) in (list, tuple):
                for item in value:
                    walk(item)

        for value in list(self.call.args) + list(self.call.kwargs.values()):
            walk(value)
        return found

    def build(self):
        """(function of the array arguments, the arguments): what
        jax.jit lowers and what both JAX and xffi are called with."""
        import jax
        import jax.numpy as jnp

        data_dtype = "f32" if self.dtype.endswith(":special") else self.dtype
        args = []

        def materialise(value):
            if isinstance(value, A):
                dtype = value.dtype_for(data_dtype)
                domain = "special" if self.dtype.endswith(":special") and \
                    value.dtype is None else value.domain
                args.append(inputs.make(value.shape, domain, dtype,
                                        inputs.seed_of(self.id, len(args))))
            elif isinstance(value, K):
                key = jax.random.key(inputs.seed_of(self.id, "key") % 2**31,
                                     impl=self.impl)
                args.append(np.asarray(jax.random.key_data(key)))
            elif type(value) in (list, tuple):
                for item in value:
                    materialise(item)

        for value in list(self.call.args) + list(self.call.kwargs.values()):
            materialise(value)

        impl = self.impl
        dtype = jnp.dtype(inputs.DTYPES[data_dtype])

        def resolve(value, it):
            if isinstance(value, A):
                return next(it)
            if isinstance(value, K):
                return jax.random.wrap_key_data(next(it), impl=impl)
            if value is D:
                return dtype
            # Exactly lists and tuples: named tuples such as lax's
            # dimension numbers are static values.
            if type(value) is list:
                return [resolve(v, it) for v in value]
            if type(value) is tuple:
                return tuple(resolve(v, it) for v in value)
            return value

        function, call, post = self.function, self.call, self.spec.post

        def forward(*arrays):
            it = iter(arrays)
            positional = [resolve(v, it) for v in call.args]
            keywords = {k: resolve(v, it) for k, v in call.kwargs.items()}
            out = function(*positional, **keywords)
            return post(out) if post is not None else out

        if not self.grad:
            return forward, args
        return _gradient(forward, args), args


def _gradient(forward, args):
    """d/dx of a weighted sum of forward's floating results, for every
    floating argument x: the reverse pass JAX lowers for jax.grad. The
    weights vary per element, so no part of the gradient cancels out."""
    import jax
    import jax.numpy as jnp

    float_positions = [i for i, a in enumerate(args)
                       if np.issubdtype(a.dtype, np.floating)]

    def gradient(*arrays):
        def loss(*diff):
            full = list(arrays)
            for position, value in zip(float_positions, diff):
                full[position] = value
            total = 0.0
            for leaf in jax.tree.leaves(forward(*full)):
                if not jnp.issubdtype(leaf.dtype, jnp.floating):
                    continue
                weights = np.cos(np.arange(leaf.size) * 0.7 + 0.3)
                total = total + jnp.sum(leaf * jnp.asarray(
                    weights.reshape(leaf.shape), leaf.dtype))
            return total

        diff = [arrays[i] for i in float_positions]
        return jax.grad(loss, argnums=tuple(range(len(diff))))(*diff)

    return gradient
