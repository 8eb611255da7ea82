#include "cpu/region_util.h"

#include <utility>

#include "cpu/element_traits.h"

namespace xffi::cpu {

CombineOp MatchCombineRegion(const Computation* region) {
  if (region == nullptr || region->num_parameters() != 2)
    return CombineOp::kNone;
  const Instruction* p0 = region->parameter(0);
  const Instruction* p1 = region->parameter(1);
  const Instruction* root = region->root();
  if (p0 == nullptr || p1 == nullptr || root == nullptr)
    return CombineOp::kNone;
  const Shape& s0 = p0->shape();
  if (!s0.IsArray() || s0.rank() != 0 || p1->shape() != s0 ||
      root->shape() != s0)
    return CombineOp::kNone;
  if (root == p1) return CombineOp::kSet;
  if (root->operand_count() != 2) return CombineOp::kNone;
  const Instruction* a = root->operand(0);
  const Instruction* b = root->operand(1);
  // Every op matched here is commutative, so either order is the same.
  if (!((a == p0 && b == p1) || (a == p1 && b == p0))) return CombineOp::kNone;
  switch (root->opcode()) {
    case Opcode::kAdd:
      return CombineOp::kAdd;
    case Opcode::kMultiply:
      return CombineOp::kMul;
    case Opcode::kMaximum:
      return CombineOp::kMax;
    case Opcode::kMinimum:
      return CombineOp::kMin;
    case Opcode::kAnd:
      return CombineOp::kAnd;
    case Opcode::kOr:
      return CombineOp::kOr;
    default:
      return CombineOp::kNone;
  }
}

ScalarCombiner::ScalarCombiner(const Computation* region,
                               std::vector<ElementType> types,
                               const ScalarProgram* program,
                               ByteFloatNanRule nan_rule, bool reduction)
    : region_(region), program_(program), types_(std::move(types)) {
  const size_t n = types_.size();
  if (n == 1) byte_float_step_ = MatchByteFloatReduceStep(region_, types_[0]);
  if (byte_float_step_) byte_float_step_->nan_rule = nan_rule;
  if (reduction && n == 1 && types_[0] == ElementType::kF16 &&
      region_ != nullptr) {
    const CombineOp op = MatchCombineRegion(region_);
    if (op == CombineOp::kMax || op == CombineOp::kMin)
      half_step_ =
          HalfMaxMinStep{op == CombineOp::kMax,
                         region_->root()->operand(0) == region_->parameter(1)};
  }
  if (program_ != nullptr) {
    registers_.resize(program_->num_registers());
    parameters_.resize(2 * n);
    return;
  }
  for (ElementType t : types_) {
    sizes_.push_back(ElementByteSize(t));
    shapes_.push_back(Shape::Scalar(t));
  }
  scratch_.assign(n * 16, 0);
  arguments_.resize(2 * n);
  results_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    arguments_[i].shape = &shapes_[i];
    arguments_[n + i].shape = &shapes_[i];
    results_[i].shape = &shapes_[i];
    results_[i].data = scratch_.data() + 16 * i;
  }
}

Status ScalarCombiner::Combine(RegionRunner* runner, void* const* acc,
                               const void* const* values) {
  const size_t n = types_.size();
  if (byte_float_step_) {
    uint8_t* a = static_cast<uint8_t*>(acc[0]);
    *a = (*byte_float_step_)(*a, *static_cast<const uint8_t*>(values[0]));
    return Status::Ok();
  }
  if (half_step_) {
    using Half = ElementTraits<ElementType::kF16>;
    uint16_t acc_bits, value_bits;
    std::memcpy(&acc_bits, acc[0], 2);
    std::memcpy(&value_bits, values[0], 2);
    float a = Half::Load(acc_bits), b = Half::Load(value_bits);
    if (half_step_->swapped) std::swap(a, b);
    const uint16_t r =
        Half::Store(half_step_->max ? XlaFloatMax(a, b) : XlaFloatMin(a, b));
    std::memcpy(acc[0], &r, 2);
    return Status::Ok();
  }
  if (program_ != nullptr) {
    for (size_t i = 0; i < n; ++i) {
      parameters_[i] = acc[i];
      parameters_[n + i] = values[i];
    }
    program_->Run(parameters_.data(), acc, registers_.data());
    return Status::Ok();
  }
  for (size_t i = 0; i < n; ++i) {
    arguments_[i].data = acc[i];
    arguments_[n + i].data = const_cast<void*>(values[i]);
  }
  Status status = runner->Run(*region_, arguments_, results_);
  if (!status.ok()) return status;
  for (size_t i = 0; i < n; ++i)
    std::memcpy(acc[i], results_[i].data, sizes_[i]);
  return Status::Ok();
}

Status CheckScalarRegion(const Instruction& inst, const Computation* region,
                         const std::vector<ElementType>& parameter_types,
                         const std::vector<ElementType>& result_types) {
  auto fail = [&](const std::string& what) {
    return InvalidArgument("op " + inst.Describe() + ": region '" +
                           (region ? region->name() : std::string("?")) + "' " +
                           what);
  };
  if (region == nullptr || region->root() == nullptr)
    return fail("is missing or has no root");
  if (region->num_parameters() != static_cast<int64_t>(parameter_types.size()))
    return fail("takes " + std::to_string(region->num_parameters()) +
                " parameters, expected " +
                std::to_string(parameter_types.size()));
  for (size_t i = 0; i < parameter_types.size(); ++i) {
    const Instruction* p = region->parameter(static_cast<int64_t>(i));
    if (p == nullptr || !p->shape().IsArray() || p->shape().rank() != 0 ||
        p->shape().element_type() != parameter_types[i])
      return fail("parameter " + std::to_string(i) + " is not a " +
                  std::string(ElementTypeName(parameter_types[i])) + " scalar");
  }
  const Shape& root = region->root()->shape();
  std::vector<const Shape*> leaves;
  if (root.IsTuple())
    for (const Shape& s : root.tuple_shapes()) leaves.push_back(&s);
  else
    leaves.push_back(&root);
  if (leaves.size() != result_types.size())
    return fail("returns " + std::to_string(leaves.size()) +
                " values, expected " + std::to_string(result_types.size()));
  for (size_t i = 0; i < leaves.size(); ++i)
    if (!leaves[i]->IsArray() || leaves[i]->rank() != 0 ||
        leaves[i]->element_type() != result_types[i])
      return fail("result " + std::to_string(i) + " is not a " +
                  std::string(ElementTypeName(result_types[i])) + " scalar");
  return Status::Ok();
}

}  // namespace xffi::cpu
