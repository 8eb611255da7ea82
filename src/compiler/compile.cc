// Compile: verify, run the passes, hand the module to a backend.
#include "compiler/compile_passes.h"
#include "compiler/compiler.h"

namespace xffi {
namespace compiler {

StatusOr<std::unique_ptr<Executable>> CompileWithBackend(
    Module module, const CompileOptions& options, const Backend& backend) {
  Status status = VerifyModule(module);
  if (!status.ok()) return status;
  status = RunCompilePasses(module, options);
  if (!status.ok()) return status;
  return backend.Compile(std::move(module), options);
}

}  // namespace compiler

// The backend is looked up first: a platform nobody can run fails before
// any work is spent on the module.
StatusOr<std::unique_ptr<Executable>> Compile(Module module,
                                              const CompileOptions& options) {
  StatusOr<const compiler::Backend*> backend =
      compiler::FindBackend(options.platform);
  if (!backend.ok())
    return Status(backend.status().code(),
                  "Compile: " + backend.status().message());
  return compiler::CompileWithBackend(std::move(module), options, **backend);
}

}  // namespace xffi
