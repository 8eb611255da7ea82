// xffi: the module-to-module rewrites Compile runs between verification and
// the backend.
#ifndef XFFI_SRC_COMPILER_COMPILE_PASSES_H_
#define XFFI_SRC_COMPILER_COMPILE_PASSES_H_

#include "xffi/program/executable.h"

namespace xffi::compiler {

// The pass pipeline (src/passes) on a verified module; leaves it verified:
// batch-partition (batch-partitionable calls per device), spmd-emulation
// (a program for N devices made one for one), simplify,
// cse, then dce when options.eliminate_dead_code, then loop fusion and dce
// again (the generators fusion copies in leave their originals dead) when
// options.fuse_loops. Verifies after each pass and dumps the module as the
// options ask.
Status RunCompilePasses(Module& module, const CompileOptions& options);

}  // namespace xffi::compiler

#endif  // XFFI_SRC_COMPILER_COMPILE_PASSES_H_
