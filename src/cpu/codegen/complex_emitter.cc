// Complex elementwise ops (see complex_emitter.h).
#include "cpu/codegen/complex_emitter.h"

#include <cmath>

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>
#include "cpu/codegen/ir_types.h"
#include "cpu/codegen/math_emitter.h"

namespace xffi::cpu::codegen {
namespace {

llvm::Value* PureCall(llvm::IRBuilder<>& b, llvm::Module& module,
                      const char* name, llvm::Type* result,
                      std::vector<llvm::Value*> args) {
  return CallPure(b, module, name, result, std::move(args));
}

// A complex result of a runtime function (runtime_symbols.cc): a c64 as
// its 8 bytes in an integer, a c128 as {double, double} (two registers,
// std::complex<double>'s C ABI).
llvm::Value* ComplexCall(llvm::IRBuilder<>& b, llvm::Module& module,
                         const char* name, llvm::Type* complex_type,
                         std::vector<llvm::Value*> args) {
  llvm::Type* part = args[0]->getType();
  if (part->isFloatTy()) {
    llvm::Value* bits =
        PureCall(b, module, name, b.getInt64Ty(), std::move(args));
    llvm::Value* pair =
        b.CreateBitCast(bits, llvm::FixedVectorType::get(part, 2));
    return MakeComplex(b, complex_type,
                       b.CreateExtractElement(pair, uint64_t{0}),
                       b.CreateExtractElement(pair, uint64_t{1}));
  }
  return PureCall(b, module, name, complex_type, std::move(args));
}

// |z| of a c64 as glibc's hypotf: an infinite part gives inf (even beside
// a NaN), else a NaN part gives NaN, else the square root of the sum of
// squares in double, rounded once.
llvm::Value* AbsC64(llvm::IRBuilder<>& b, llvm::Module& module, llvm::Value* re,
                    llvm::Value* im) {
  llvm::Type* f = re->getType();
  llvm::Type* d = b.getDoubleTy();
  auto fabs = [&](llvm::Value* v) {
    return b.CreateCall(
        llvm::Intrinsic::getDeclaration(&module, llvm::Intrinsic::fabs, {f}),
        {v});
  };
  llvm::Value* inf = llvm::ConstantFP::get(f, INFINITY);
  llvm::Value* any_inf = b.CreateOr(b.CreateFCmpOEQ(fabs(re), inf),
                                    b.CreateFCmpOEQ(fabs(im), inf));
  llvm::Value* rd = b.CreateFPExt(re, d);
  llvm::Value* id = b.CreateFPExt(im, d);
  llvm::Value* sum = b.CreateFAdd(b.CreateFMul(rd, rd), b.CreateFMul(id, id));
  llvm::Value* root = b.CreateFPTrunc(
      b.CreateCall(
          llvm::Intrinsic::getDeclaration(&module, llvm::Intrinsic::sqrt, {d}),
          {sum}),
      f);
  return b.CreateSelect(any_inf, inf, root);
}

llvm::Value* Fabs(llvm::IRBuilder<>& b, llvm::Module& module, llvm::Value* x) {
  return b.CreateCall(llvm::Intrinsic::getDeclaration(
                          &module, llvm::Intrinsic::fabs, {x->getType()}),
                      {x});
}

// The complex `fast` where `ordinary`, else what `call` computes, in a
// block of its own that the loop vectoriser predicates per lane.
llvm::Value* CallUnless(llvm::IRBuilder<>& b, llvm::Value* ordinary,
                        llvm::Value* fast,
                        const std::function<llvm::Value*()>& call) {
  llvm::BasicBlock* before = b.GetInsertBlock();
  llvm::Function* function = before->getParent();
  llvm::LLVMContext& context = b.getContext();
  auto* slow = llvm::BasicBlock::Create(context, "libc_call", function);
  auto* join = llvm::BasicBlock::Create(context, "libc_join", function);
  b.CreateCondBr(ordinary, join, slow);
  b.SetInsertPoint(slow);
  llvm::Value* called = call();
  // The parts cross the join one by one: the vectoriser takes float phis,
  // not struct ones.
  llvm::Value* called_re = RealPart(b, called);
  llvm::Value* called_im = ImagPart(b, called);
  llvm::BasicBlock* slow_end = b.GetInsertBlock();
  b.CreateBr(join);
  b.SetInsertPoint(join);
  llvm::Value* parts[2];
  llvm::Value* fast_parts[2] = {nullptr, nullptr};
  llvm::Value* called_parts[2] = {called_re, called_im};
  {
    llvm::IRBuilder<> at_fast(before);
    at_fast.SetInsertPoint(before->getTerminator());
    fast_parts[0] = RealPart(at_fast, fast);
    fast_parts[1] = ImagPart(at_fast, fast);
  }
  for (int i = 0; i < 2; ++i) {
    llvm::PHINode* phi = b.CreatePHI(fast_parts[i]->getType(), 2);
    phi->addIncoming(fast_parts[i], before);
    phi->addIncoming(called_parts[i], slow_end);
    parts[i] = phi;
  }
  return MakeComplex(b, fast->getType(), parts[0], parts[1]);
}

// CallUnless, or, when `special` collects the elements that need the
// call, `fast` alone with the element's flag added to `*special` (the
// caller recomputes those elements): no branch then, so the loop
// vectorises.
llvm::Value* CallUnlessOrDefer(llvm::IRBuilder<>& b, llvm::Value* ordinary,
                               llvm::Value* fast,
                               const std::function<llvm::Value*()>& call,
                               llvm::Value** special) {
  if (special == nullptr) return CallUnless(b, ordinary, fast, call);
  llvm::Value* needs_call = b.CreateNot(ordinary);
  *special =
      *special == nullptr ? needs_call : b.CreateOr(*special, needs_call);
  return fast;
}

}  // namespace

ElementType ComplexPartType(ElementType type) {
  return type == ElementType::kC128 ? ElementType::kF64 : ElementType::kF32;
}

llvm::StructType* ComplexType(llvm::LLVMContext& context, ElementType type) {
  return llvm::cast<llvm::StructType>(ComputeType(context, type));
}

llvm::Value* MakeComplex(llvm::IRBuilder<>& b, llvm::Type* type,
                         llvm::Value* re, llvm::Value* im) {
  llvm::Value* z = llvm::PoisonValue::get(type);
  z = b.CreateInsertValue(z, re, {0});
  return b.CreateInsertValue(z, im, {1});
}

llvm::Value* RealPart(llvm::IRBuilder<>& b, llvm::Value* z) {
  return b.CreateExtractValue(z, {0});
}

llvm::Value* ImagPart(llvm::IRBuilder<>& b, llvm::Value* z) {
  return b.CreateExtractValue(z, {1});
}

llvm::Value* EmitComplexOp(
    llvm::IRBuilder<>& b, llvm::Module& module, const Instruction& op,
    const std::vector<llvm::Value*>& operands, bool may_branch,
    const std::function<llvm::Value*(llvm::Value*)>& exp_f32, std::string* why,
    llvm::Value** special) {
  const ElementType result_type = op.shape().element_type();
  llvm::LLVMContext& context = b.getContext();
  llvm::Type* complex =
      IsComplexType(result_type) ? ComplexType(context, result_type) : nullptr;
  auto decline = [&](const char* reason) -> llvm::Value* {
    *why = reason;
    return nullptr;
  };
  switch (op.opcode()) {
    case Opcode::kSelect:
      return MakeComplex(b, complex,
                         b.CreateSelect(operands[0], RealPart(b, operands[1]),
                                        RealPart(b, operands[2])),
                         b.CreateSelect(operands[0], ImagPart(b, operands[1]),
                                        ImagPart(b, operands[2])));
    case Opcode::kComplex:
      return MakeComplex(b, complex, operands[0], operands[1]);
    case Opcode::kCompare: {
      if (op.comparison_type != ComparisonType::kDefault &&
          op.comparison_type != ComparisonType::kFloat)
        return decline("comparison type does not apply");
      llvm::Value* equal = b.CreateAnd(
          b.CreateFCmpOEQ(RealPart(b, operands[0]), RealPart(b, operands[1])),
          b.CreateFCmpOEQ(ImagPart(b, operands[0]), ImagPart(b, operands[1])));
      if (op.comparison_direction == ComparisonDirection::kEq) return equal;
      if (op.comparison_direction == ComparisonDirection::kNe)
        return b.CreateNot(equal);
      return decline("complex numbers compare only EQ or NE");
    }
    default:
      break;
  }
  if (operands.empty() || !operands[0]->getType()->isStructTy())
    return decline("code generation does not cover this op");
  llvm::Value* re = RealPart(b, operands[0]);
  llvm::Value* im = ImagPart(b, operands[0]);
  if (operands.size() == 1) {
    switch (op.opcode()) {
      case Opcode::kReal:
        return re;
      case Opcode::kImag:
        return im;
      case Opcode::kNegate:
        return MakeComplex(b, complex, b.CreateFNeg(re), b.CreateFNeg(im));
      case Opcode::kConj:
        return MakeComplex(b, complex, re, b.CreateFNeg(im));
      case Opcode::kAbs:
        if (re->getType()->isFloatTy()) return AbsC64(b, module, re, im);
        return PureCall(b, module, "hypot", re->getType(), {re, im});
      case Opcode::kExp: {
        const char* name =
            re->getType()->isFloatTy() ? "xffi_exp_c64" : "xffi_exp_c128";
        if (!may_branch || !re->getType()->isFloatTy())
          return ComplexCall(b, module, name, complex, {re, im});
        llvm::Type* f = re->getType();
        llvm::Value* ordinary = b.CreateAnd(
            b.CreateFCmpOLT(Fabs(b, module, re), llvm::ConstantFP::get(f, 80)),
            b.CreateFCmpOLE(Fabs(b, module, im),
                            llvm::ConstantFP::get(f, 0x1p20)));
        // Other elements compute on harmless parts, then take libm's.
        llvm::Value* safe_re =
            b.CreateSelect(ordinary, re, llvm::ConstantFP::get(f, 0));
        llvm::Value* safe_im =
            b.CreateSelect(ordinary, im, llvm::ConstantFP::get(f, 0));
        llvm::Value* magnitude = exp_f32(safe_re);
        // safe_im is within the generated sine's range: no libm branch,
        // which the vectoriser turns into a libm call per lane.
        llvm::Value* cos_im = EmitSinCos(b, module, safe_im, true, true,
                                         /*in_range=*/true);
        llvm::Value* sin_im = EmitSinCos(b, module, safe_im, false, true,
                                         /*in_range=*/true);
        llvm::Value* fast =
            MakeComplex(b, complex, b.CreateFMul(magnitude, cos_im),
                        b.CreateFMul(magnitude, sin_im));
        return CallUnlessOrDefer(
            b, ordinary, fast,
            [&] {
              return ComplexCall(b, module, name, complex, {re, im});
            },
            special);
      }
      default:
        return decline("code generation does not cover this complex op");
    }
  }
  llvm::Value* c_re = RealPart(b, operands[1]);
  llvm::Value* c_im = ImagPart(b, operands[1]);
  switch (op.opcode()) {
    case Opcode::kAdd:
      return MakeComplex(b, complex, b.CreateFAdd(re, c_re),
                         b.CreateFAdd(im, c_im));
    case Opcode::kSubtract:
      return MakeComplex(b, complex, b.CreateFSub(re, c_re),
                         b.CreateFSub(im, c_im));
    case Opcode::kMultiply:
      return MakeComplex(
          b, complex,
          b.CreateFSub(b.CreateFMul(re, c_re), b.CreateFMul(im, c_im)),
          b.CreateFAdd(b.CreateFMul(re, c_im), b.CreateFMul(im, c_re)));
    case Opcode::kDivide: {
      const char* name =
          re->getType()->isFloatTy() ? "xffi_divide_c64" : "__divdc3";
      if (!may_branch || !re->getType()->isFloatTy())
        return ComplexCall(b, module, name, complex, {re, im, c_re, c_im});
      llvm::Type* f = re->getType();
      llvm::Type* d = b.getDoubleTy();
      llvm::Value* inf = llvm::ConstantFP::get(f, INFINITY);
      llvm::Value* zero = llvm::ConstantFP::get(f, 0);
      auto finite = [&](llvm::Value* v) {
        return b.CreateFCmpOLT(Fabs(b, module, v), inf);
      };
      llvm::Value* ordinary = b.CreateAnd(
          b.CreateAnd(b.CreateAnd(finite(re), finite(im)),
                      b.CreateAnd(finite(c_re), finite(c_im))),
          b.CreateOr(b.CreateFCmpUNE(c_re, zero), b.CreateFCmpUNE(c_im, zero)));
      llvm::Value* a1 = b.CreateFPExt(re, d);
      llvm::Value* b1 = b.CreateFPExt(im, d);
      llvm::Value* c1 = b.CreateFPExt(c_re, d);
      llvm::Value* d1 = b.CreateFPExt(c_im, d);
      llvm::Value* denominator =
          b.CreateFAdd(b.CreateFMul(c1, c1), b.CreateFMul(d1, d1));
      llvm::Value* real =
          b.CreateFDiv(b.CreateFAdd(b.CreateFMul(a1, c1), b.CreateFMul(b1, d1)),
                       denominator);
      llvm::Value* imag =
          b.CreateFDiv(b.CreateFSub(b.CreateFMul(b1, c1), b.CreateFMul(a1, d1)),
                       denominator);
      llvm::Value* fast = MakeComplex(b, complex, b.CreateFPTrunc(real, f),
                                      b.CreateFPTrunc(imag, f));
      return CallUnlessOrDefer(
          b, ordinary, fast,
          [&] {
            return ComplexCall(b, module, name, complex, {re, im, c_re, c_im});
          },
          special);
    }
    default:
      return decline("code generation does not cover this complex op");
  }
}

llvm::Value* EmitComplexConvert(
    llvm::IRBuilder<>& b, ElementType from, ElementType to, llvm::Value* x,
    const std::function<llvm::Value*(ElementType, ElementType, llvm::Value*)>&
        to_real) {
  if (!IsComplexType(from)) {
    const ElementType part = ComplexPartType(to);
    llvm::Value* re = to_real(from, part, x);
    return MakeComplex(b, ComplexType(b.getContext(), to), re,
                       llvm::ConstantFP::get(re->getType(), 0.0));
  }
  const ElementType part = ComplexPartType(from);
  llvm::Value* re = RealPart(b, x);
  llvm::Value* im = ImagPart(b, x);
  if (IsComplexType(to)) {
    const ElementType to_part = ComplexPartType(to);
    return MakeComplex(b, ComplexType(b.getContext(), to),
                       to_real(part, to_part, re), to_real(part, to_part, im));
  }
  if (to == ElementType::kPred) {
    // Through an addition, as for real types: under DAZ a subnormal part
    // is zero.
    llvm::Value* zero = llvm::ConstantFP::get(re->getType(), 0.0);
    return b.CreateOr(b.CreateFCmpUNE(b.CreateFAdd(re, zero), zero),
                      b.CreateFCmpUNE(b.CreateFAdd(im, zero), zero));
  }
  return to_real(part, to, re);
}

}  // namespace xffi::cpu::codegen
