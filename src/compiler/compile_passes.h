// xffi: the module-to-module rewrites Compile runs between verification and
// the backend.
#ifndef XFFI_SRC_COMPILER_COMPILE_PASSES_H_
#define XFFI_SRC_COMPILER_COMPILE_PASSES_H_

#include "xffi/program/executable.h"

namespace xffi::compiler {

// The pass pipeline on a verified module; leaves it verified. Today:
// dead-code elimination when options.eliminate_dead_code. The place where
// the pass manager (src/passes) plugs into the pipeline.
Status RunCompilePasses(Module& module, const CompileOptions& options);

}  // namespace xffi::compiler

#endif  // XFFI_SRC_COMPILER_COMPILE_PASSES_H_
