// xffi: the pieces of MakeElementwiseKernel, one per family of ops, and the
// checks they share.
#ifndef XFFI_SRC_CPU_ELEMENTWISE_INTERNAL_H_
#define XFFI_SRC_CPU_ELEMENTWISE_INTERNAL_H_

#include <string>
#include <vector>

#include "cpu/kernel.h"

namespace xffi::cpu::internal {

// The operands' shapes as the instruction records them, after checking
// there are `count` array operands.
StatusOr<std::vector<const Shape*>> OperandShapes(const Instruction& inst,
                                                  int64_t count);

// Checks that an operand has the result's number of elements (or is a scalar
// when `scalar_allowed`).
Status CheckElementCount(const Instruction& inst, int64_t operand_index,
                         const Shape& operand, bool scalar_allowed = false);

// UNIMPLEMENTED: "<op> ... does not support element type <type>".
Status UnsupportedType(const Instruction& inst, ElementType type);

// The arity check every kernel does on entry (the executor wires the
// arrays; a mismatch is an executor bug, reported rather than crashed on).
inline Status CheckArity(const KernelArgs& args, size_t operands,
                         Opcode opcode) {
  if (args.operands.size() != operands || args.results.size() != 1)
    return Internal(std::string(OpcodeName(opcode)) + " kernel expects " +
                    std::to_string(operands) +
                    " operand(s) and 1 result, got " +
                    std::to_string(args.operands.size()) + " and " +
                    std::to_string(args.results.size()));
  return Status();
}

StatusOr<Kernel> MakeUnaryKernel(const Instruction& inst);
StatusOr<Kernel> MakeBinaryKernel(const Instruction& inst);  // not compare
StatusOr<Kernel> MakeCompareKernel(const Instruction& inst);
StatusOr<Kernel> MakeSelectKernel(const Instruction& inst);
StatusOr<Kernel> MakeClampKernel(const Instruction& inst);
StatusOr<Kernel> MakeConvertKernel(const Instruction& inst);
StatusOr<Kernel> MakeBitcastConvertKernel(const Instruction& inst);
StatusOr<Kernel> MakeIotaKernel(const Instruction& inst);

}  // namespace xffi::cpu::internal

#endif  // XFFI_SRC_CPU_ELEMENTWISE_INTERNAL_H_
