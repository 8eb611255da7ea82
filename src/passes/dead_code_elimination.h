// xffi: removal of ops whose results nobody reads (the pass "dce").
#ifndef XFFI_SRC_PASSES_DEAD_CODE_ELIMINATION_H_
#define XFFI_SRC_PASSES_DEAD_CODE_ELIMINATION_H_

#include <cstdint>

#include "passes/pass_manager.h"
#include "xffi/program/ir.h"

namespace xffi::passes {

// Keeps, in every computation, the root, the parameters, every op with a
// side effect (a custom call with has_side_effect, or an op whose called
// computations have one, transitively) and everything those read; removes
// the rest. Kept ops keep their order. Returns how many ops were removed.
int64_t EliminateDeadCode(Module& module);

class DeadCodeElimination : public Pass {
 public:
  std::string_view name() const override { return "dce"; }
  StatusOr<bool> Run(Module& module) override {
    return EliminateDeadCode(module) > 0;
  }
};

}  // namespace xffi::passes

#endif  // XFFI_SRC_PASSES_DEAD_CODE_ELIMINATION_H_
