// The CPU executor's while loop (see while_thunk.h).
#include "cpu/while_thunk.h"

#include <cstring>
#include <utility>

#include "compiler/control_flow.h"
#include "cpu/executor.h"
#include "cpu/scalar_run_thunk.h"

namespace xffi::cpu {
namespace {

using compiler::BufferId;
using compiler::kNoBuffer;

// Loop state lives in the while's buffers (set A) and set B, whose roles
// swap each iteration (compiler::RunSwappingLoop).
class WhileThunk : public Thunk {
 public:
  WhileThunk(std::optional<LoopCondition> inline_condition,
             CompiledComputation* condition, CompiledComputation* body,
             std::vector<BufferId> state, std::vector<BufferId> next,
             BufferId pred, std::vector<size_t> sizes)
      : inline_condition_(std::move(inline_condition)),
        condition_(condition),
        body_(body),
        state_ids_(std::move(state)),
        next_ids_(std::move(next)),
        pred_(pred),
        sizes_(std::move(sizes)),
        a_(state_ids_.size()),
        b_(state_ids_.size()) {
    if (inline_condition_.has_value()) {
      condition_arguments_.resize(inline_condition_->leaves.size());
      registers_.resize(inline_condition_->program.num_registers());
      inline_condition_->program.PrepareRegisters(registers_.data());
    }
  }

  Status Run(void* const* addresses) override {
    Resolve(state_ids_, addresses, a_);
    Resolve(next_ids_, addresses, b_);
    if (condition_ != nullptr) pred_address_ = addresses[pred_];
    return compiler::RunSwappingLoop(
        a_, b_, current_const_, sizes_,
        [this](const void* const* state) { return Condition(state); },
        [this](const void* const* state, void* const* next) {
          return body_->Run(state, next);
        },
        [](void* to, const void* from, size_t size) {
          std::memcpy(to, from, size);
          return Status::Ok();
        });
  }

 private:
  static void Resolve(const std::vector<BufferId>& ids, void* const* addresses,
                      std::vector<void*>& out) {
    for (size_t i = 0; i < ids.size(); ++i)
      out[i] = ids[i] == kNoBuffer ? nullptr : addresses[ids[i]];
  }

  // Whether the loop goes on, for `state`.
  StatusOr<bool> Condition(const void* const* state) {
    if (inline_condition_.has_value()) {
      const std::vector<size_t>& leaves = inline_condition_->leaves;
      for (size_t i = 0; i < leaves.size(); ++i)
        condition_arguments_[i] = state[leaves[i]];
      return inline_condition_->program.RunPredicatePrepared(
          condition_arguments_.data(), registers_.data());
    }
    void* pred = pred_address_;
    Status status = condition_->Run(state, &pred);
    if (!status.ok()) return status;
    return *static_cast<const unsigned char*>(pred) != 0;
  }

  std::optional<LoopCondition> inline_condition_;
  CompiledComputation* condition_;
  CompiledComputation* body_;
  std::vector<BufferId> state_ids_, next_ids_;
  BufferId pred_;
  std::vector<size_t> sizes_;
  std::vector<void*> a_, b_;
  std::vector<const void*> current_const_;
  std::vector<const void*> condition_arguments_;
  std::vector<ScalarValue> registers_;
  void* pred_address_ = nullptr;  // set by Run when condition_ runs
};

}  // namespace

std::optional<LoopCondition> CompileLoopCondition(
    const Computation& condition) {
  std::optional<compiler::ScalarLoopCondition> scalar =
      compiler::ExtractScalarLoopCondition(condition, IsScalarRunOp);
  if (!scalar.has_value()) return std::nullopt;
  std::optional<ScalarProgram> program =
      ScalarProgram::Compile(*scalar->computation);
  if (!program.has_value() || program->num_results() != 1 ||
      program->num_parameters() != scalar->leaves.size())
    return std::nullopt;
  return LoopCondition{std::move(*program), std::move(scalar->leaves)};
}

std::unique_ptr<Thunk> MakeWhileThunk(
    std::optional<LoopCondition> inline_condition,
    CompiledComputation* condition, CompiledComputation* body,
    std::vector<BufferId> state, std::vector<BufferId> next, BufferId pred,
    std::vector<size_t> sizes) {
  return std::make_unique<WhileThunk>(std::move(inline_condition), condition,
                                      body, std::move(state), std::move(next),
                                      pred, std::move(sizes));
}

}  // namespace xffi::cpu
