// Common subexpression elimination, one computation at a time in op order:
// an op's operands are already their representatives when it is looked up.
#include "passes/common_subexpression_elimination.h"

#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace xffi::passes {
namespace {

bool Mergeable(const Instruction& op) {
  if (op.HasSideEffect() || op.sharding.has_value()) return false;
  const Opcode opcode = op.opcode();
  if (IsElementwiseUnary(opcode) || IsElementwiseBinary(opcode)) return true;
  switch (opcode) {
    case Opcode::kConstant:
    case Opcode::kTuple:
    case Opcode::kGetTupleElement:
    case Opcode::kSelect:
    case Opcode::kClamp:
    case Opcode::kConvert:
    case Opcode::kBitcastConvert:
    case Opcode::kIota:
    case Opcode::kBroadcast:
    case Opcode::kReshape:
    case Opcode::kTranspose:
    case Opcode::kSlice:
    case Opcode::kDynamicSlice:
    case Opcode::kConcatenate:
    case Opcode::kReverse:
    case Opcode::kPad:
    case Opcode::kReduce:
    case Opcode::kDot:
      return true;
    default:
      return false;
  }
}

// The fields the mergeable opcodes use (others are left at their defaults
// by the parsers and builder, and compared anyway where cheap).
bool SameFields(const Instruction& a, const Instruction& b) {
  if (a.opcode() != b.opcode() || !(a.shape() == b.shape()) ||
      a.operands() != b.operands() ||
      a.called_computations() != b.called_computations())
    return false;
  if (a.dimensions != b.dimensions || a.tuple_index != b.tuple_index ||
      a.comparison_direction != b.comparison_direction ||
      a.comparison_type != b.comparison_type ||
      a.slice_starts != b.slice_starts || a.slice_limits != b.slice_limits ||
      a.slice_strides != b.slice_strides ||
      a.dynamic_slice_sizes != b.dynamic_slice_sizes ||
      a.padding != b.padding ||
      !(a.dot_dimension_numbers == b.dot_dimension_numbers))
    return false;
  if (a.opcode() == Opcode::kConstant) return a.literal == b.literal;
  return true;
}

size_t Hash(const Instruction& op) {
  size_t h = std::hash<int>()(static_cast<int>(op.opcode()));
  auto mix = [&h](size_t v) {
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  };
  for (const Instruction* operand : op.operands())
    mix(std::hash<const void*>()(operand));
  for (int64_t d :
       op.shape().IsArray() ? op.shape().dims() : std::vector<int64_t>{})
    mix(std::hash<int64_t>()(d));
  for (int64_t d : op.dimensions) mix(std::hash<int64_t>()(d));
  mix(std::hash<int64_t>()(op.tuple_index));
  return h;
}

int64_t RunOnComputation(Computation& computation) {
  std::unordered_map<const Instruction*, Instruction*> representative;
  std::unordered_multimap<size_t, Instruction*> seen;
  for (const auto& owned : computation.instructions()) {
    Instruction* op = owned.get();
    for (int64_t i = 0; i < op->operand_count(); ++i) {
      auto found = representative.find(op->operand(i));
      if (found != representative.end()) op->ReplaceOperand(i, found->second);
    }
    if (!Mergeable(*op)) continue;
    const size_t key = Hash(*op);
    auto [first, last] = seen.equal_range(key);
    Instruction* same = nullptr;
    for (auto it = first; it != last && same == nullptr; ++it)
      if (SameFields(*it->second, *op)) same = it->second;
    if (same != nullptr)
      representative[op] = same;
    else
      seen.emplace(key, op);
  }
  if (representative.empty()) return 0;
  if (auto root = representative.find(computation.root());
      root != representative.end())
    computation.set_root(root->second);
  computation.RemoveInstructionsIf(
      [&](Instruction* op) { return representative.count(op) > 0; });
  return static_cast<int64_t>(representative.size());
}

}  // namespace

int64_t EliminateCommonSubexpressions(Module& module) {
  int64_t merged = 0;
  for (const auto& computation : module.computations())
    merged += RunOnComputation(*computation);
  return merged;
}

}  // namespace xffi::passes
