// The backends this build links, one line each. The registry
// (compiler/backend_registry.cc) calls BuiltinBackends() when it is first
// used; a new backend adds its line here and nothing in src/compiler.
#include "compiler/backend.h"
#include "cpu/cpu_backend.h"
#include "device_backend/device_backend.h"

namespace xffi::compiler {

std::vector<BuiltinBackend> BuiltinBackends() {
  std::vector<BuiltinBackend> backends;
  backends.push_back(
      {Platform::kHost, [] { return std::make_unique<cpu::CpuBackend>(); }});
  backends.push_back(
      {Platform::kCuda,
       [] { return std::make_unique<device_backend::DeviceBackend>(); }});
  return backends;
}

}  // namespace xffi::compiler
