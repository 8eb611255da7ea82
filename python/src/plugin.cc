// Handler libraries loaded from Python (xffi/runtime/plugin.h): the Python
// layer (xffi/_library.py) turns one into an object whose attributes are the
// library's handlers.
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>

#include "bindings.h"
#include "common.h"
#include "xffi/runtime/introspect.h"
#include "xffi/runtime/plugin.h"

namespace xffi::python {
namespace {

using PluginPtr = std::shared_ptr<const Plugin>;

// Owns nothing: the runtime never closes a plugin.
struct LibraryHandle {
  PluginPtr plugin;
};

nb::dict StageAddresses(const XLA_FFI_Handler_Bundle& bundle) {
  nb::dict stages;
  auto put = [&](const char* stage, XLA_FFI_Handler* handler) {
    if (handler != nullptr) {
      stages[stage] = reinterpret_cast<uintptr_t>(handler);
    }
  };
  put("instantiate", bundle.instantiate);
  put("prepare", bundle.prepare);
  put("initialize", bundle.initialize);
  put("execute", bundle.execute);
  return stages;
}

}  // namespace

void BindPlugin(nb::module_& m) {
  nb::class_<LibraryHandle>(m, "_Library")
      .def_prop_ro("path",
                   [](const LibraryHandle& h) { return h.plugin->path(); })
      .def_prop_ro("origin",
                   [](const LibraryHandle& h) { return h.plugin->origin(); })
      // {symbol: address} of the handlers the library marks for export.
      .def("exported_handlers",
           [](const LibraryHandle& h) {
             StatusOr<std::vector<ExportedHandler>> handlers =
                 h.plugin->ExportedHandlers();
             if (!handlers.ok()) ThrowStatus(handlers.status());
             nb::dict out;
             for (const ExportedHandler& handler : *handlers) {
               out[nb::str(handler.name.c_str())] =
                   reinterpret_cast<uintptr_t>(handler.handler);
             }
             return out;
           })
      // [(name, platform, {stage: address}, traits)] of the FFI handlers the
      // library registered with the runtime when it was loaded.
      .def(
          "registered_handlers",
          [](const LibraryHandle& h) {
            nb::list out;
            for (const HandlerRecord* record : h.plugin->RegisteredHandlers()) {
              out.append(nb::make_tuple(
                  record->name, std::string(PlatformName(record->platform)),
                  StageAddresses(record->bundle),
                  static_cast<int>(record->traits)));
            }
            return out;
          })
      // [(name, platform, address, api_version)] of its legacy targets.
      .def("registered_legacy_targets",
           [](const LibraryHandle& h) {
             nb::list out;
             for (const LegacyTargetRecord* record :
                  h.plugin->RegisteredLegacyTargets()) {
               out.append(nb::make_tuple(
                   record->name, std::string(PlatformName(record->platform)),
                   reinterpret_cast<uintptr_t>(record->function),
                   static_cast<int>(record->api_version)));
             }
             return out;
           })
      .def(
          "find_function",
          [](const LibraryHandle& h, const std::string& symbol) {
            StatusOr<void*> function = h.plugin->FindFunction(symbol);
            if (!function.ok()) ThrowStatus(function.status());
            return reinterpret_cast<uintptr_t>(*function);
          },
          nb::arg("symbol"))
      .def(
          "find_handler",
          [](const LibraryHandle& h, const std::string& symbol) {
            StatusOr<XLA_FFI_Handler*> handler = h.plugin->Find(symbol);
            if (!handler.ok()) ThrowStatus(handler.status());
            return reinterpret_cast<uintptr_t>(*handler);
          },
          nb::arg("symbol"))
      .def("describe_exported", [](const LibraryHandle& h) {
        StatusOr<std::vector<TargetDescription>> described =
            DescribeExportedHandlers(*h.plugin);
        if (!described.ok()) ThrowStatus(described.status());
        nb::dict out;
        for (const TargetDescription& target : *described) {
          out[nb::str(target.name.c_str())] = target.signature;
        }
        return out;
      });

  m.def(
      "_load_library",
      [](const std::string& path) {
        StatusOr<PluginPtr> plugin = Plugin::Load(path);
        if (!plugin.ok()) ThrowStatus(plugin.status());
        return LibraryHandle{*plugin};
      },
      nb::arg("path"));
}

}  // namespace xffi::python
