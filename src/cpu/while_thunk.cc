// The CPU executor's while loop (see while_thunk.h).
#include "cpu/while_thunk.h"

#include <cstring>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "cpu/executor.h"
#include "cpu/scalar_run_thunk.h"

namespace xffi::cpu {
namespace {

using compiler::BufferId;
using compiler::kNoBuffer;

// Loop state lives in the while's buffers (set A); the body writes the next
// state into set B while it reads A, then the roles swap, so no iteration
// copies the state. Leaves the body passes through unchanged are the same
// buffer in both sets.
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
        b_(state_ids_.size()),
        current_const_(state_ids_.size()) {
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
    std::vector<void*>* current = &a_;
    std::vector<void*>* next = &b_;
    while (true) {
      for (size_t i = 0; i < current->size(); ++i)
        current_const_[i] = (*current)[i];
      StatusOr<bool> more = Condition();
      if (!more.ok()) [[unlikely]]
        return more.status();
      if (!*more) break;
      Status status = body_->Run(current_const_.data(), next->data());
      if (!status.ok()) [[unlikely]]
        return status;
      std::swap(current, next);
    }
    if (current != &a_) {
      for (size_t i = 0; i < sizes_.size(); ++i)
        if (a_[i] != b_[i] && sizes_[i] > 0)
          std::memcpy(a_[i], b_[i], sizes_[i]);
    }
    return Status::Ok();
  }

 private:
  static void Resolve(const std::vector<BufferId>& ids, void* const* addresses,
                      std::vector<void*>& out) {
    for (size_t i = 0; i < ids.size(); ++i)
      out[i] = ids[i] == kNoBuffer ? nullptr : addresses[ids[i]];
  }

  // Whether the loop goes on, for the state in current_const_.
  StatusOr<bool> Condition() {
    if (inline_condition_.has_value()) {
      const std::vector<size_t>& leaves = inline_condition_->leaves;
      for (size_t i = 0; i < leaves.size(); ++i)
        condition_arguments_[i] = current_const_[leaves[i]];
      return inline_condition_->program.RunPredicatePrepared(
          condition_arguments_.data(), registers_.data());
    }
    void* pred = pred_address_;
    Status status = condition_->Run(current_const_.data(), &pred);
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
  const Instruction* root = condition.root();
  if (root == nullptr || condition.num_parameters() != 1 ||
      !IsScalarArray(root->shape()) ||
      root->shape().element_type() != ElementType::kPred)
    return std::nullopt;
  // What the predicate uses; instructions come operands first.
  std::unordered_set<const Instruction*> used = {root};
  const auto& instructions = condition.instructions();
  for (auto it = instructions.rbegin(); it != instructions.rend(); ++it)
    if (used.count(it->get()) != 0)
      for (const Instruction* operand : (*it)->operands()) used.insert(operand);

  // The same ops over a computation whose parameters are the scalar leaves
  // read; a tuple-valued value is known by the index of its first leaf.
  Computation scalar("loop_condition");
  std::vector<size_t> leaves;
  std::unordered_map<const Instruction*, int64_t> first_leaf;
  std::unordered_map<int64_t, Instruction*> leaf_parameters;
  std::unordered_map<const Instruction*, Instruction*> inside;
  auto leaf_parameter = [&](int64_t leaf, const Shape& shape) {
    auto found = leaf_parameters.find(leaf);
    if (found != leaf_parameters.end()) return found->second;
    auto parameter = std::make_unique<Instruction>(Opcode::kParameter, shape);
    parameter->parameter_number = static_cast<int64_t>(leaves.size());
    leaves.push_back(static_cast<size_t>(leaf));
    Instruction* added = scalar.AddInstruction(std::move(parameter));
    leaf_parameters.emplace(leaf, added);
    return added;
  };
  for (const auto& owned : instructions) {
    const Instruction* op = owned.get();
    if (used.count(op) == 0) continue;
    const Shape& shape = op->shape();
    switch (op->opcode()) {
      case Opcode::kParameter:
        if (shape.IsTuple())
          first_leaf[op] = 0;
        else if (IsScalarArray(shape))
          inside[op] = leaf_parameter(0, shape);
        else
          return std::nullopt;
        continue;
      case Opcode::kGetTupleElement: {
        auto tuple = first_leaf.find(op->operand(0));
        if (tuple == first_leaf.end()) return std::nullopt;
        const int64_t leaf =
            tuple->second + compiler::TupleElementLeafOffset(
                                op->operand(0)->shape(), op->tuple_index);
        if (shape.IsTuple())
          first_leaf[op] = leaf;
        else if (IsScalarArray(shape))
          inside[op] = leaf_parameter(leaf, shape);
        else
          return std::nullopt;  // the condition reads a tensor
        continue;
      }
      case Opcode::kConstant:
        if (!IsScalarArray(shape)) return std::nullopt;
        inside[op] = scalar.AddInstruction(std::make_unique<Instruction>(*op));
        continue;
      default:
        break;
    }
    if (!IsScalarRunOp(*op)) return std::nullopt;
    auto clone = std::make_unique<Instruction>(*op);
    for (int64_t i = 0; i < op->operand_count(); ++i) {
      auto found = inside.find(op->operand(i));
      if (found == inside.end()) return std::nullopt;
      clone->ReplaceOperand(i, found->second);
    }
    inside[op] = scalar.AddInstruction(std::move(clone));
  }
  auto value = inside.find(root);
  if (value == inside.end()) return std::nullopt;
  scalar.set_root(value->second);
  std::optional<ScalarProgram> program = ScalarProgram::Compile(scalar);
  if (!program.has_value() || program->num_results() != 1 ||
      program->num_parameters() != leaves.size())
    return std::nullopt;
  return LoopCondition{std::move(*program), std::move(leaves)};
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
