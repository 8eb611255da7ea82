// xffi: the pass "inline": every call is replaced by the ops of the
// computation it calls.
//
// JAX wraps much of a program in private functions (jnp.remainder calls
// @remainder, jnp.clip @clip, a fori_loop body @closed_call). Behind a call
// the callee's ops are a separate computation: the simplifier cannot see
// that an argument is a constant, fusion stops at the call, and the
// executor runs the callee through a call thunk. Inlined, the ops meet the
// caller's. Calls inside while, conditional and other regions are inlined
// too. Inlined ops keep their order (side effects included), their names
// where no other op of the module has them, and their locations, so errors
// still point at the callee's line:column. Computations nothing reaches any
// more are removed.
#ifndef XFFI_SRC_PASSES_CALL_INLINING_H_
#define XFFI_SRC_PASSES_CALL_INLINING_H_

#include <functional>

#include "passes/pass_manager.h"

namespace xffi::passes {

class CallInlining : public Pass {
 public:
  std::string_view name() const override { return "inline"; }
  StatusOr<bool> Run(Module& module) override;
};

// Inlines the calls of `computation` (one of the module's) that `select`
// picks, and then those the inlined ops make that it picks, as the pass
// does; the callees stay in the module. True when it inlined any.
bool InlineCalls(Module& module, Computation& computation,
                 const std::function<bool(const Instruction*)>& select);
// InlineCalls on the entry computation.
bool InlineEntryCalls(Module& module,
                      const std::function<bool(const Instruction*)>& select);

// Removes the computations the entry does not reach through any op's called
// computations; true when it removed any.
bool RemoveUnreachableComputations(Module& module);

}  // namespace xffi::passes

#endif  // XFFI_SRC_PASSES_CALL_INLINING_H_
