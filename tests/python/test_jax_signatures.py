"""xffi's functions that JAX (or its xla_client) also has take the same
parameters as JAX 0.10's: the same names, kinds and defaults, so code written
for one calls the other unchanged. The installed jax is the reference."""

import inspect
import re

import pytest

xffi = pytest.importorskip("xffi")
jax = pytest.importorskip("jax")
from jax._src.lib import xla_client  # noqa: E402


def _signature(fn) -> inspect.Signature:
    try:
        return inspect.signature(fn)
    except ValueError:
        # A nanobind function: its signature is in __nb_signature__ as the
        # text of a def line, whose defaults are placeholders \\0, \\1, ...
        # for the values in the entry's third item. Annotations are dropped
        # (they may name modules that are not installed).
        text, _, defaults = fn.__nb_signature__[0]
        text = re.sub(r"\\(\d+)", lambda m: f"_defaults[{m.group(1)}]", text)
        text = re.sub(r"(\w+): [^=,)]+(?=[=,)])", r"\1", text.split(" -> ")[0])
        namespace = {}
        exec(text + ": pass", {"_defaults": defaults}, namespace)
        return inspect.signature(next(iter(namespace.values())))


def _parameters(fn):
    # Annotations are left out: xffi also accepts bytes names, for example.
    return [(p.name, p.kind, p.default)
            for p in _signature(fn).parameters.values()]


@pytest.mark.parametrize("name, reference", [
    ("register_ffi_target", lambda: jax.ffi.register_ffi_target),
    ("register_ffi_type", lambda: jax.ffi.register_ffi_type),
    ("pycapsule", lambda: jax.ffi.pycapsule),
    ("include_dir", lambda: jax.ffi.include_dir),
    ("ffi_call", lambda: jax.ffi.ffi_call),
    ("register_custom_call_target",
     lambda: xla_client.register_custom_call_target),
    ("custom_call_targets", lambda: xla_client.custom_call_targets),
    ("register_custom_call_partitioner",
     lambda: xla_client.register_custom_call_partitioner),
    ("register_custom_call_as_batch_partitionable",
     lambda: xla_client.register_custom_call_as_batch_partitionable),
    ("register_ffi_target_as_batch_partitionable",
     lambda: jax.ffi.register_ffi_target_as_batch_partitionable),
])
def test_parameters_match_jax(name, reference):
    ours = _parameters(getattr(xffi, name))
    theirs = _parameters(reference())
    if name == "ffi_call":
        # xffi's one deliberate difference: result_shape_dtypes may be left
        # out when the handler's signature determines the results.
        assert ours[1] == ("result_shape_dtypes",
                           inspect.Parameter.POSITIONAL_OR_KEYWORD, None)
        ours[1] = theirs[1]
    # xffi's ffi_call has keyword-only extensions after JAX's keywords;
    # everything JAX has comes first, in JAX's order, with JAX's defaults.
    assert ours[:len(theirs)] == theirs, (name, ours, theirs)
    extensions = ours[len(theirs):]
    assert all(kind is inspect.Parameter.KEYWORD_ONLY
               for _, kind, _ in extensions), (name, extensions)
    if name != "ffi_call":
        assert not extensions, (name, extensions)


def test_register_ffi_target_takes_traits_and_replace_as_keywords(
        test_plugin):
    xffi.register_ffi_target(
        "sig.traits", test_plugin.Noop, "cpu", 1,
        traits=xffi.CustomCallTargetTraits.COMMAND_BUFFER_COMPATIBLE)
    described = {d["name"]: d for d in xffi.describe_targets("cpu")}
    assert described["sig.traits"]["traits"] != 0
    xffi.register_ffi_target("sig.traits", test_plugin.Scale, replace=True)
    assert xffi.custom_call_targets("cpu")["sig.traits"]["execute"] is not None


def test_register_ffi_target_refuses_unknown_keywords_as_python_does(
        test_plugin):
    with pytest.raises(TypeError,
                       match="unexpected keyword argument 'trait'"):
        xffi.register_ffi_target("sig.typo", test_plugin.Noop, trait=1)
    assert "sig.typo" not in xffi.custom_call_targets("cpu")


def test_custom_call_targets_needs_a_platform_as_in_xla_client():
    with pytest.raises(TypeError):
        xffi.custom_call_targets()  # pylint: disable=no-value-for-parameter
    with pytest.raises(TypeError):
        xla_client.custom_call_targets()


def test_register_ffi_type_takes_type_registration_by_keyword():
    with pytest.raises(ValueError, match="'type_id' is required"):
        xffi.register_ffi_type("sig.type", type_registration={},
                               platform="cpu")
    with pytest.raises(TypeError, match="type_registration must be a dict"):
        xffi.register_ffi_type("sig.type", type_registration=7)
