// xffi: the compile pipeline.
//
//   VerifyModule -> RunCompilePasses -> the backend of options.platform
//
// Compile (xffi/program/executable.h) finds the backend in the registry
// (compiler/backend.h); CompileWithBackend takes one directly, so a test
// can compile for a backend configured its own way (the CPU backend with a
// substitute kernel set, say) through the same pipeline.
#ifndef XFFI_SRC_COMPILER_COMPILER_H_
#define XFFI_SRC_COMPILER_COMPILER_H_

#include <memory>

#include "compiler/backend.h"
#include "xffi/program/executable.h"

namespace xffi::compiler {

// Verifies `module` (the first problem is INVALID_ARGUMENT naming the op and
// its line:column, and nothing runs), runs the compile passes, then hands
// the module to `backend`.
StatusOr<std::unique_ptr<Executable>> CompileWithBackend(
    Module module, const CompileOptions& options, const Backend& backend);

}  // namespace xffi::compiler

#endif  // XFFI_SRC_COMPILER_COMPILER_H_
