// Widening of vector half compares (see half_compares.h).
#include "cpu/codegen/half_compares.h"

#include <vector>

#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

namespace xffi::cpu::codegen {

int WidenHalfVectorCompares(llvm::Module& module) {
  std::vector<llvm::FCmpInst*> narrow;
  for (llvm::Function& function : module) {
    for (llvm::Instruction& instruction : llvm::instructions(function)) {
      auto* compare = llvm::dyn_cast<llvm::FCmpInst>(&instruction);
      if (compare == nullptr) continue;
      auto* type = llvm::dyn_cast<llvm::FixedVectorType>(
          compare->getOperand(0)->getType());
      if (type != nullptr && type->getElementType()->isHalfTy())
        narrow.push_back(compare);
    }
  }
  for (llvm::FCmpInst* compare : narrow) {
    llvm::IRBuilder<> b(compare);
    auto* type =
        llvm::cast<llvm::FixedVectorType>(compare->getOperand(0)->getType());
    llvm::Type* wide =
        llvm::FixedVectorType::get(b.getFloatTy(), type->getNumElements());
    llvm::Value* widened = b.CreateFCmp(
        compare->getPredicate(), b.CreateFPExt(compare->getOperand(0), wide),
        b.CreateFPExt(compare->getOperand(1), wide));
    compare->replaceAllUsesWith(widened);
    compare->eraseFromParent();
  }
  return static_cast<int>(narrow.size());
}

}  // namespace xffi::cpu::codegen
