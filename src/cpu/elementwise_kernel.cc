// MakeElementwiseKernel: routes an opcode to its family's kernel maker.
#include "cpu/elementwise_internal.h"
#include "cpu/kernel.h"

namespace xffi::cpu {
namespace internal {

StatusOr<std::vector<const Shape*>> OperandShapes(const Instruction& inst,
                                                  int64_t count) {
  if (inst.operand_count() != count)
    return InvalidArgument(inst.Describe() + " takes " + std::to_string(count) +
                           " operand(s), has " +
                           std::to_string(inst.operand_count()));
  if (!inst.shape().IsArray())
    return InvalidArgument(inst.Describe() + " must produce an array, not " +
                           inst.shape().ToString());
  std::vector<const Shape*> shapes;
  for (int64_t i = 0; i < count; ++i) {
    const Instruction* operand = inst.operand(i);
    if (operand == nullptr || !operand->shape().IsArray())
      return InvalidArgument(inst.Describe() + ": operand " +
                             std::to_string(i) + " is not an array");
    shapes.push_back(&operand->shape());
  }
  return shapes;
}

Status CheckElementCount(const Instruction& inst, int64_t operand_index,
                         const Shape& operand, bool scalar_allowed) {
  if (scalar_allowed && operand.rank() == 0) return Status();
  if (operand.dims() != inst.shape().dims())
    return InvalidArgument(inst.Describe() + ": operand " +
                           std::to_string(operand_index) + " has shape " +
                           operand.ToString(false) + ", the result " +
                           inst.shape().ToString(false) +
                           (scalar_allowed ? " (or a scalar)" : ""));
  return Status();
}

Status UnsupportedType(const Instruction& inst, ElementType type) {
  return Unimplemented(inst.Describe() + " does not support element type " +
                       std::string(ElementTypeName(type)) + " on CPU");
}

}  // namespace internal

StatusOr<Kernel> MakeElementwiseKernel(const Instruction& inst) {
  const Opcode opcode = inst.opcode();
  if (opcode == Opcode::kCompare) return internal::MakeCompareKernel(inst);
  if (IsElementwiseUnary(opcode)) return internal::MakeUnaryKernel(inst);
  if (IsElementwiseBinary(opcode)) return internal::MakeBinaryKernel(inst);
  switch (opcode) {
    case Opcode::kSelect:
      return internal::MakeSelectKernel(inst);
    case Opcode::kClamp:
      return internal::MakeClampKernel(inst);
    case Opcode::kConvert:
      return internal::MakeConvertKernel(inst);
    case Opcode::kBitcastConvert:
      return internal::MakeBitcastConvertKernel(inst);
    case Opcode::kIota:
      return internal::MakeIotaKernel(inst);
    default:
      return NotFound(inst.Describe() + " is not an elementwise op");
  }
}

}  // namespace xffi::cpu
