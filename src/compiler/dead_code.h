// xffi: removal of ops whose results nobody reads.
#ifndef XFFI_SRC_COMPILER_DEAD_CODE_H_
#define XFFI_SRC_COMPILER_DEAD_CODE_H_

#include <cstdint>

#include "xffi/program/ir.h"

namespace xffi::compiler {

// Keeps, in every computation, the root, the parameters, every op with a
// side effect (a custom call with has_side_effect, or an op whose called
// computations have one, transitively) and everything those read; removes
// the rest. Kept ops keep their order. Returns how many ops were removed.
int64_t EliminateDeadCode(Module& module);

}  // namespace xffi::compiler

#endif  // XFFI_SRC_COMPILER_DEAD_CODE_H_
