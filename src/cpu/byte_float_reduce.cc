#include "cpu/byte_float_reduce.h"

#include "cpu/byte_float_arithmetic.h"
#include "cpu/float_max_min.h"

#include <bit>
#include <cmath>
#include <utility>

namespace xffi::cpu {

uint8_t ByteFloatReduceStep::operator()(uint8_t acc, uint8_t value) const {
  float a = format.Load(acc);
  float b = format.Load(value);
  if (swapped) std::swap(a, b);
  const bool second_nan_first = nan_rule == ByteFloatNanRule::kTreeTop ||
                                nan_rule == ByteFloatNanRule::kNestedMap;
  const float nan_first = second_nan_first ? b : a;
  float result = 0;
  switch (op) {
    case Opcode::kAdd:
      return StoreByteFloatResult(format,
                                  XlaCommutativeResult(nan_first, a + b));
    case Opcode::kMultiply:
      return StoreByteFloatResult(format,
                                  XlaCommutativeResult(nan_first, a * b));
    case Opcode::kMaximum:
      result = XlaFloatMax(a, b);
      break;
    default:
      result = XlaFloatMin(a, b);
      break;
  }
  if ((nan_rule == ByteFloatNanRule::kMap ||
       nan_rule == ByteFloatNanRule::kNestedMap) &&
      result != result)
    result = std::bit_cast<float>(0x7fc00000u);  // the positive quiet NaN
  return StoreByteFloatResult(format, result);
}

std::optional<ByteFloatReduceStep> MatchByteFloatReduceStep(
    const Computation* region, ElementType type) {
  std::optional<ByteFloatReduceStep> step;
  const Status visited = VisitElementType(type, [&](auto traits) {
    using Tr = decltype(traits);
    if constexpr (kIsByteFloat<Tr>) {
      ByteFloatReduceStep found;
      found.format = ByteFloatFormat::Of<Tr>();
      step = found;
    }
    return Status::Ok();
  });
  if (!visited.ok() || !step || region == nullptr ||
      region->num_parameters() != 2)
    return {};
  const Instruction* p0 = region->parameter(0);
  const Instruction* p1 = region->parameter(1);
  const Instruction* root = region->root();
  const Shape scalar = Shape::Scalar(type);
  if (p0 == nullptr || p1 == nullptr || root == nullptr ||
      p0->shape() != scalar || p1->shape() != scalar ||
      root->shape() != scalar || root->operand_count() != 2)
    return {};
  const Opcode op = root->opcode();
  if (op != Opcode::kAdd && op != Opcode::kMultiply && op != Opcode::kMaximum &&
      op != Opcode::kMinimum)
    return {};
  step->op = op;
  if (root->operand(0) == p0 && root->operand(1) == p1) return step;
  if (root->operand(0) == p1 && root->operand(1) == p0) {
    step->swapped = true;
    return step;
  }
  return {};
}

}  // namespace xffi::cpu
