// xffi: handler libraries loaded at run time.
//
// A plugin is a shared library of handlers (typed FFI or legacy). Loading one
// runs its static registrations with their origin set to the library's path,
// so the registries know where each handler came from; handlers it does not
// register can still be found by symbol, as jax.ffi.pycapsule(lib.symbol)
// users expect, and the handlers it marks for export (XFFI_EXPORT_MARKER_
// PREFIX) can be listed by reading the file, without running anything.
#ifndef XFFI_RUNTIME_PLUGIN_H_
#define XFFI_RUNTIME_PLUGIN_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "xffi/c_api.h"
#include "xffi/runtime/legacy.h"
#include "xffi/runtime/registry.h"
#include "xffi/runtime/status.h"

namespace xffi {

struct ExportedHandler {
  std::string name;  // the handler's symbol, without the marker prefix
  XLA_FFI_Handler* handler = nullptr;  // null when only the file was read
};

// The handlers `path` marks for export, sorted by name, read from its ELF
// dynamic symbol table without loading it. A file that is not a well-formed
// ELF64 shared library is INVALID_ARGUMENT naming the path and the problem.
StatusOr<std::vector<ExportedHandler>> ListExportedHandlers(
    const std::string& path);

class Plugin {
 public:
  // Opens `path` (RTLD_NOW | RTLD_LOCAL) and runs its registrations.
  //   missing file             NOT_FOUND naming the path
  //   not an ELF64 library     INVALID_ARGUMENT naming the path and problem
  //   unresolved symbol, etc.  FAILED_PRECONDITION with the dynamic linker's
  //                            message
  //   a registration refused   the registry's error, naming the plugin
  // Loading the same file again returns the same Plugin. A library is never
  // closed: the registries hold pointers into it.
  static StatusOr<std::shared_ptr<const Plugin>> Load(const std::string& path);

  const std::string& path() const { return path_; }  // as given to Load
  // The canonical path; registrations made while loading carry it as origin.
  const std::string& origin() const { return origin_; }

  // A handler function by symbol. NOT_FOUND names the symbol and library
  // (and lists the exported handlers); a data symbol, or one defined by
  // another library, is refused.
  StatusOr<XLA_FFI_Handler*> Find(std::string_view symbol) const;
  // Any function defined by this library (a legacy target, say).
  StatusOr<void*> FindFunction(std::string_view symbol) const;

  // The marked handlers, with their addresses.
  StatusOr<std::vector<ExportedHandler>> ExportedHandlers() const;

  // FFI handlers (every platform) and legacy targets registered by this
  // library: those whose origin is this library, or whose code lies in it
  // (for a library that was already loaded before Load).
  std::vector<const HandlerRecord*> RegisteredHandlers() const;
  std::vector<const LegacyTargetRecord*> RegisteredLegacyTargets() const;

  Plugin(const Plugin&) = delete;
  Plugin& operator=(const Plugin&) = delete;
  ~Plugin() = default;

 private:
  Plugin() = default;
  StatusOr<void*> FindDefined(std::string_view symbol, bool want_code) const;
  bool Contains(const void* address) const;

  std::string path_;
  std::string origin_;
  void* handle_ = nullptr;
  const void* base_ = nullptr;  // where the dynamic linker mapped the file
};

}  // namespace xffi

#endif  // XFFI_RUNTIME_PLUGIN_H_
