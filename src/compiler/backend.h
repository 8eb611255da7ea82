// xffi: the seam between the compiler and the code that runs a program.
//
// A backend turns a verified, optimised module into an Executable for one
// platform. The compiler knows backends only through this interface and the
// registry below, so adding one (a CUDA backend, a simulated device) never
// edits src/compiler: implement Backend in the backend's own folder and add
// its registration to src/backends/builtin_backends.cc.
#ifndef XFFI_SRC_COMPILER_BACKEND_H_
#define XFFI_SRC_COMPILER_BACKEND_H_

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "xffi/program/executable.h"
#include "xffi/runtime/platform.h"

namespace xffi::compiler {

class Backend {
 public:
  virtual ~Backend() = default;

  // For messages: "CPU", "CUDA".
  virtual std::string_view name() const = 0;

  // `module` has passed VerifyModule and the compile passes: every op's
  // operands, fields and result shape agree, so code generation may rely
  // on them. A program the backend cannot run (an op it lacks, a missing
  // handler) is an error naming the op and its location. May be called
  // from several threads at once; the Executable must not refer back to the
  // backend.
  virtual StatusOr<std::unique_ptr<Executable>> Compile(
      Module module, const CompileOptions& options) const = 0;
};

using BackendFactory = std::function<std::unique_ptr<Backend>()>;

// Makes `factory` the backend of `platform`; its backend is created at the
// first FindBackend. ALREADY_EXISTS naming the platform when one is
// registered already.
Status RegisterBackend(Platform platform, BackendFactory factory);

// Removes the backend of `platform` (true when there was one). Executables
// it made stay valid. For tests and plugins that registered their own.
bool UnregisterBackend(Platform platform);

// The backend of `platform`, or NOT_FOUND naming the platform when none is
// registered. The registry owns it; it lives until unregistered.
StatusOr<const Backend*> FindBackend(Platform platform);

// The backends this build links, registered when the registry is first
// used. Defined in src/backends/builtin_backends.cc, the one file that
// names every backend: the registry calls it explicitly, so no backend
// depends on static initialisers running (or on the linker keeping an
// object file nothing refers to).
struct BuiltinBackend {
  Platform platform;
  BackendFactory factory;
};
std::vector<BuiltinBackend> BuiltinBackends();

}  // namespace xffi::compiler

#endif  // XFFI_SRC_COMPILER_BACKEND_H_
