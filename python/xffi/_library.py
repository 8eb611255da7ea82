"""Handler libraries: xffi.load_library(path)."""

import os
from typing import Any, Dict

from . import _core


class Library:
    """A loaded handler library. Its attributes are its handlers, as
    PyCapsules ready for register_ffi_target (here or in JAX)::

        lib = xffi.load_library("librms_norm.so")
        xffi.register_ffi_target("my_rms_norm", lib.RmsNorm)

    Any other function the library defines is an attribute too (a legacy
    target, say), as with ctypes. Loading ran the library's own
    registrations: `registered` lists them.
    """

    def __init__(self, handle):
        self._handle = handle
        self._exported = handle.exported_handlers()
        # What loading registered, before anyone registers the library's
        # handlers under other names (those carry its origin too).
        self._registered_at_load = {
            name for name, *_ in handle.registered_handlers()}
        self._legacy_at_load = {
            name for name, *_ in handle.registered_legacy_targets()}

    @property
    def path(self) -> str:
        return self._handle.path

    @property
    def origin(self) -> str:
        """The canonical path registrations made by the library carry."""
        return self._handle.origin

    @property
    def handlers(self) -> Dict[str, Any]:
        """{symbol: capsule} of the handlers the library exports (those
        defined with XFFI_DEFINE_HANDLER_SYMBOL)."""
        return {name: _core._capsule(address)
                for name, address in self._exported.items()}

    @property
    def signatures(self) -> Dict[str, str]:
        """{symbol: signature text} of the exported handlers, for those that
        describe themselves ('' for the others)."""
        return self._handle.describe_exported()

    @property
    def registered(self) -> Dict[str, Dict[str, Any]]:
        """FFI handlers the library registered with the runtime when loaded:
        {name: {"platform", "stages": {stage: capsule}, "traits"}}."""
        out = {}
        for name, platform, stages, traits in self._handle.registered_handlers():
            if name not in self._registered_at_load:
                continue
            out[name] = {
                "platform": platform,
                "stages": {s: _core._capsule(a) for s, a in stages.items()},
                "traits": traits,
            }
        return out

    @property
    def legacy_targets(self) -> Dict[str, Dict[str, Any]]:
        """Legacy targets the library registered: {name: {"platform",
        "capsule", "api_version"}}."""
        return {
            name: {"platform": platform,
                   "capsule": _core._capsule(address, legacy_name=True),
                   "api_version": version}
            for name, platform, address, version in
            self._handle.registered_legacy_targets()
            if name in self._legacy_at_load
        }

    def __getattr__(self, symbol: str) -> Any:
        if symbol.startswith("__"):
            raise AttributeError(symbol)
        address = self._exported.get(symbol)
        if address is None:
            try:
                address = self._handle.find_function(symbol)
            except LookupError as e:
                raise AttributeError(str(e)) from None
        return _core._capsule(address)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._exported))

    def __repr__(self) -> str:
        return f"<xffi.Library {self.path!r}: {sorted(self._exported)}>"


def load_library(path: "os.PathLike | str") -> Library:
    """Loads a handler library into xffi's runtime (running its
    registrations) and returns it. Loading the same file again returns the
    same library. A missing file raises LookupError naming the path; a file
    that is not a shared library, ValueError; one that cannot be linked,
    RuntimeError with the dynamic linker's message."""
    handle = _core._load_library(os.fspath(path))
    library = _loaded.get(handle.origin)
    if library is None:
        library = _loaded[handle.origin] = Library(handle)
    return library


_loaded: Dict[str, Library] = {}
