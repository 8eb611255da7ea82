// xffi: what the executors' while and conditional thunks share: which
// branch a conditional takes, the loop that swaps the state's two buffer
// sets, and the analysis that lets a loop condition of scalar ops run on
// the host without its computation.
//
// Each backend keeps its own memory access: the CPU reads the branch index,
// the predicate and the condition's scalar leaves where they are; the
// device backend reads them back from the device first.
#ifndef XFFI_SRC_COMPILER_CONTROL_FLOW_H_
#define XFFI_SRC_COMPILER_CONTROL_FLOW_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "xffi/program/ir.h"

namespace xffi::compiler {

// The branch a conditional runs: a pred picks branch 0 when true, 1 when
// false; an s32 index out of range picks the last branch, as in HLO.
inline size_t ChosenBranch(bool is_pred, int32_t value, size_t branches) {
  if (is_pred) return value != 0 ? 0 : 1;
  return value < 0 || static_cast<size_t>(value) >= branches
             ? branches - 1
             : static_cast<size_t>(value);
}

// A while loop over state buffer sets `a` (the while's own, where the state
// starts and ends) and `b`: the body reads one set and writes the other,
// then their roles swap, so no iteration copies the state (leaves the body
// passes through or updates in place are one buffer in both sets). When the
// loop ends on `b`, its leaves are copied into `a`.
//   condition(const void* const* state) -> StatusOr<bool>
//   body(const void* const* state, void* const* next) -> Status
//   copy(void* to, const void* from, size_t size) -> Status
// `current` is scratch the size of `a`, kept by the caller between runs.
template <typename Condition, typename Body, typename Copy>
Status RunSwappingLoop(std::vector<void*>& a, std::vector<void*>& b,
                       std::vector<const void*>& current,
                       const std::vector<size_t>& sizes, Condition&& condition,
                       Body&& body, Copy&& copy) {
  std::vector<void*>* state = &a;
  std::vector<void*>* next = &b;
  current.resize(a.size());
  while (true) {
    for (size_t i = 0; i < state->size(); ++i) current[i] = (*state)[i];
    StatusOr<bool> more = condition(current.data());
    if (!more.ok()) [[unlikely]]
      return more.status();
    if (!*more) break;
    Status status = body(current.data(), next->data());
    if (!status.ok()) [[unlikely]]
      return status;
    std::swap(state, next);
  }
  if (state != &a)
    for (size_t i = 0; i < sizes.size(); ++i)
      if (a[i] != b[i] && sizes[i] > 0) {
        Status status = copy(a[i], b[i], sizes[i]);
        if (!status.ok()) return status;
      }
  return Status::Ok();
}

// A loop condition whose predicate depends only on scalar leaves of its
// state (reached through get-tuple-element) and scalar constants, rewritten
// as a computation whose parameter i is state leaf leaves[i].
struct ScalarLoopCondition {
  std::unique_ptr<Computation> computation;
  std::vector<size_t> leaves;
};

// nullopt when the condition reads a tensor, or uses an op `evaluable`
// refuses (the ops a backend evaluates on the host).
std::optional<ScalarLoopCondition> ExtractScalarLoopCondition(
    const Computation& condition,
    const std::function<bool(const Instruction&)>& evaluable);

}  // namespace xffi::compiler

#endif  // XFFI_SRC_COMPILER_CONTROL_FLOW_H_
