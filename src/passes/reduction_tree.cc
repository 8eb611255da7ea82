// The pass "reduction-tree" (rules in reduction_tree.h).
#include "passes/reduction_tree.h"

#include <memory>
#include <string>
#include <vector>

namespace xffi::passes {
namespace {

bool IsByteFloat(ElementType type) {
  return IsFloatingType(type) && ElementBitWidth(type) <= 8;
}

// An f32/f64 reduce of one dimension that XLA:CPU sums itself
// (ReducesInXlaOrder) and whose region adds its two parameters. (Over
// several dimensions XLA's last level is not in order -- a [2, 2] rest sums
// as (a + b) + (c + d) -- so those keep xffi's order.)
bool IsSmallSum(const Instruction& reduce) {
  if (!ReducesInXlaOrder(reduce.shape().element_type(),
                         reduce.operand(0)->shape().num_elements()) ||
      reduce.dimensions.size() != 1 || reduce.called_computations().size() != 1)
    return false;
  const Computation* region = reduce.called_computations()[0];
  const Instruction* root = region->root();
  return region->num_parameters() == 2 && root != nullptr &&
         root->opcode() == Opcode::kAdd && root->operand_count() == 2 &&
         root->operand(0)->opcode() == Opcode::kParameter &&
         root->operand(1)->opcode() == Opcode::kParameter &&
         root->operand(0) != root->operand(1);
}

// Whether a reduced dimension of the reduce's input is still too long for
// one window.
bool NeedsWindow(const Instruction& reduce) {
  const Shape& input = reduce.operand(0)->shape();
  if (input.num_elements() == 0) return false;
  for (int64_t dim : reduce.dimensions)
    if (input.dims()[static_cast<size_t>(dim)] > kReductionTreeWindow)
      return true;
  return false;
}

// A reduce-window of the reduce's input and init value (its region, its
// name and location), inserted before it, that leaves at most a window's
// worth per reduced dimension longer than one.
Instruction* InsertWindow(Instruction* reduce, int level) {
  Instruction* input = reduce->operand(0);
  const Shape& shape = input->shape();
  std::vector<bool> reduced(static_cast<size_t>(shape.rank()), false);
  for (int64_t dim : reduce->dimensions)
    reduced[static_cast<size_t>(dim)] = true;
  std::vector<WindowDimension> window(static_cast<size_t>(shape.rank()));
  std::vector<int64_t> dims = shape.dims();
  for (size_t d = 0; d < dims.size(); ++d) {
    if (!reduced[d]) continue;
    WindowDimension& w = window[d];
    if (dims[d] <= kReductionTreeWindow) {
      w.size = w.stride = dims[d];
      dims[d] = dims[d] == 0 ? 0 : 1;
      continue;
    }
    const int64_t windows =
        (dims[d] + kReductionTreeWindow - 1) / kReductionTreeWindow;
    const int64_t padding = windows * kReductionTreeWindow - dims[d];
    w.size = w.stride = kReductionTreeWindow;
    w.padding_low = padding / 2;
    w.padding_high = padding - padding / 2;
    dims[d] = windows;
  }
  auto inst = std::make_unique<Instruction>(
      Opcode::kReduceWindow, Shape::Array(shape.element_type(), dims));
  inst->AppendOperand(input);
  inst->AppendOperand(reduce->operand(1));
  inst->window = std::move(window);
  for (Computation* region : reduce->called_computations())
    inst->AppendCalledComputation(region);
  inst->set_name(reduce->name() + ".window" + std::to_string(level));
  inst->set_location(reduce->location());
  return reduce->parent()->InsertInstructionBefore(std::move(inst), reduce);
}

}  // namespace

int64_t RewriteReductionTrees(Module& module) {
  int64_t inserted = 0;
  for (const auto& computation : module.computations()) {
    std::vector<Instruction*> reduces;
    for (const auto& owned : computation->instructions())
      if (owned->opcode() == Opcode::kReduce && owned->operand_count() == 2 &&
          owned->shape().IsArray() &&
          (IsByteFloat(owned->shape().element_type()) || IsSmallSum(*owned)))
        reduces.push_back(owned.get());
    for (Instruction* reduce : reduces)
      for (int level = 0; NeedsWindow(*reduce); ++level) {
        reduce->ReplaceOperand(0, InsertWindow(reduce, level));
        ++inserted;
      }
  }
  return inserted;
}

}  // namespace xffi::passes
