// xffi: the CPU executor's while loop.
//
// A fori_loop of small steps spends most of its time on the fixed cost of
// an iteration, not on its work (XLA:CPU takes ~70 ns per iteration of a
// 256-float row update). Two costs go away here: a condition that is a few
// scalar ops over scalar loop state (`i < n`, `(err > tol) & (i < 100)`
// with the reduce done in the body) is evaluated in the thunk by a
// ScalarProgram reading the state's leaves where they are, instead of
// running the condition computation (address setup, a kernel thunk, the
// predicate's buffer); and the state's two buffer sets swap roles without
// a copy per iteration.
#ifndef XFFI_SRC_CPU_WHILE_THUNK_H_
#define XFFI_SRC_CPU_WHILE_THUNK_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "compiler/buffer_assignment.h"
#include "cpu/executor_thunk.h"
#include "cpu/scalar_program.h"

namespace xffi::cpu {

class CompiledComputation;

// A loop condition computed from scalar leaves of the loop state: program
// parameter i is state leaf leaves[i].
struct LoopCondition {
  ScalarProgram program;
  std::vector<size_t> leaves;
};

// The condition as a LoopCondition when its predicate depends only on
// scalar leaves of its state (reached through get-tuple-element) through
// ops the scalar-run evaluator covers and scalar constants; nullopt
// otherwise (a condition that reads a tensor, reduces, calls, ...).
std::optional<LoopCondition> CompileLoopCondition(const Computation& condition);

// The thunk of a while op. `state` and `next` are the two buffer sets of
// the state's leaves (a leaf the body passes through or updates in place
// is the same buffer in both), `sizes` their byte sizes. The condition
// runs inline when `inline_condition` is set; otherwise `condition` runs
// with its predicate written to buffer `pred`.
std::unique_ptr<Thunk> MakeWhileThunk(
    std::optional<LoopCondition> inline_condition,
    CompiledComputation* condition, CompiledComputation* body,
    std::vector<compiler::BufferId> state, std::vector<compiler::BufferId> next,
    compiler::BufferId pred, std::vector<size_t> sizes);

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_WHILE_THUNK_H_
