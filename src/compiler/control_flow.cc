#include "compiler/control_flow.h"

#include <unordered_map>
#include <unordered_set>

#include "compiler/buffer_assignment.h"

namespace xffi::compiler {
namespace {

bool IsScalar(const Shape& shape) {
  return shape.IsArray() && shape.rank() == 0 && shape.byte_size() > 0;
}

}  // namespace

std::optional<ScalarLoopCondition> ExtractScalarLoopCondition(
    const Computation& condition,
    const std::function<bool(const Instruction&)>& evaluable) {
  const Instruction* root = condition.root();
  if (root == nullptr || condition.num_parameters() != 1 ||
      !IsScalar(root->shape()) ||
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
  ScalarLoopCondition result;
  result.computation = std::make_unique<Computation>("loop_condition");
  Computation& scalar = *result.computation;
  std::vector<size_t>& leaves = result.leaves;
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
        else if (IsScalar(shape))
          inside[op] = leaf_parameter(0, shape);
        else
          return std::nullopt;
        continue;
      case Opcode::kGetTupleElement: {
        auto tuple = first_leaf.find(op->operand(0));
        if (tuple == first_leaf.end()) return std::nullopt;
        const int64_t leaf =
            tuple->second +
            TupleElementLeafOffset(op->operand(0)->shape(), op->tuple_index);
        if (shape.IsTuple())
          first_leaf[op] = leaf;
        else if (IsScalar(shape))
          inside[op] = leaf_parameter(leaf, shape);
        else
          return std::nullopt;  // the condition reads a tensor
        continue;
      }
      case Opcode::kConstant:
        if (!IsScalar(shape)) return std::nullopt;
        inside[op] = scalar.AddInstruction(std::make_unique<Instruction>(*op));
        continue;
      default:
        break;
    }
    if (!evaluable(*op)) return std::nullopt;
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
  return result;
}

}  // namespace xffi::compiler
