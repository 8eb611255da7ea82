#include "cpu/codegen/ir_types.h"

namespace xffi::cpu::codegen {

bool IsCodegenType(ElementType type) {
  switch (type) {
    case ElementType::kPred:
    case ElementType::kS8:
    case ElementType::kS16:
    case ElementType::kS32:
    case ElementType::kS64:
    case ElementType::kU8:
    case ElementType::kU16:
    case ElementType::kU32:
    case ElementType::kU64:
    case ElementType::kF16:
    case ElementType::kBF16:
    case ElementType::kF32:
    case ElementType::kF64:
    case ElementType::kC64:
    case ElementType::kC128:
      return true;
    default:
      return false;
  }
}

bool IsFloatType(ElementType type) {
  return type == ElementType::kF16 || type == ElementType::kBF16 ||
         type == ElementType::kF32 || type == ElementType::kF64;
}

bool IsSignedType(ElementType type) {
  return type == ElementType::kS8 || type == ElementType::kS16 ||
         type == ElementType::kS32 || type == ElementType::kS64;
}

bool IsIntegerType(ElementType type) {
  return IsSignedType(type) || type == ElementType::kU8 ||
         type == ElementType::kU16 || type == ElementType::kU32 ||
         type == ElementType::kU64;
}

int ComputeBits(ElementType type) {
  switch (type) {
    case ElementType::kPred:
      return 1;
    case ElementType::kS8:
    case ElementType::kU8:
      return 8;
    case ElementType::kS16:
    case ElementType::kU16:
      return 16;
    case ElementType::kF16:
    case ElementType::kBF16:
    case ElementType::kF32:
    case ElementType::kS32:
    case ElementType::kU32:
      return 32;
    default:
      return 64;
  }
}

llvm::Type* StorageType(llvm::LLVMContext& context, ElementType type) {
  switch (type) {
    case ElementType::kPred:
      return llvm::Type::getInt8Ty(context);
    case ElementType::kF16:
    case ElementType::kBF16:
      return llvm::Type::getInt16Ty(context);
    default:
      return ComputeType(context, type);
  }
}

llvm::Type* ComputeType(llvm::LLVMContext& context, ElementType type) {
  if (type == ElementType::kC64 || type == ElementType::kC128) {
    llvm::Type* part = type == ElementType::kC128
                           ? llvm::Type::getDoubleTy(context)
                           : llvm::Type::getFloatTy(context);
    return llvm::StructType::get(context, {part, part});
  }
  if (type == ElementType::kF64) return llvm::Type::getDoubleTy(context);
  if (IsFloatType(type)) return llvm::Type::getFloatTy(context);
  return llvm::Type::getIntNTy(context,
                               static_cast<unsigned>(ComputeBits(type)));
}

llvm::Type* Widen(llvm::Type* scalar, int width) {
  if (width == 1) return scalar;
  return llvm::FixedVectorType::get(scalar, static_cast<unsigned>(width));
}

int WidthOf(const llvm::Value* value) {
  if (auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(value->getType()))
    return static_cast<int>(vector->getNumElements());
  return 1;
}

llvm::Value* Splat(llvm::IRBuilder<>& b, llvm::Value* value, int width) {
  if (width == 1 || WidthOf(value) == width) return value;
  return b.CreateVectorSplat(static_cast<unsigned>(width), value);
}

namespace {

llvm::Value* BF16BitsToFloat(llvm::IRBuilder<>& b, llvm::Value* bits) {
  const int width = WidthOf(bits);
  llvm::Value* wide = b.CreateZExt(bits, Widen(b.getInt32Ty(), width));
  wide = b.CreateShl(wide, 16);
  return b.CreateBitCast(wide, Widen(b.getFloatTy(), width));
}

// Round to nearest even on the bit pattern; a NaN becomes the quiet NaN of
// its sign, sign | 0x7fc0 (as ElementTraits<bf16>::Store). `canonical_nan`
// false keeps a NaN's top payload bits instead (one op fewer): between ops
// of a fused chain that gives the same bits in the end, as no op's result
// depends on a NaN's payload (only on its sign), and the value stored is
// canonicalised.
llvm::Value* FloatToBF16Bits(llvm::IRBuilder<>& b, llvm::Value* value,
                             bool canonical_nan = true) {
  const int width = WidthOf(value);
  llvm::Type* i32 = Widen(b.getInt32Ty(), width);
  llvm::Value* bits = b.CreateBitCast(value, i32);
  llvm::Value* lsb = b.CreateAnd(b.CreateLShr(bits, 16), 1);
  llvm::Value* rounded =
      b.CreateAdd(b.CreateAdd(bits, llvm::ConstantInt::get(i32, 0x7fff)), lsb);
  llvm::Value* quiet =
      canonical_nan
          ? b.CreateOr(
                b.CreateAnd(bits, llvm::ConstantInt::get(i32, 0x80000000u)),
                llvm::ConstantInt::get(i32, 0x7fc00000u))
          : b.CreateOr(bits, llvm::ConstantInt::get(i32, 0x400000u));
  llvm::Value* is_nan = b.CreateFCmpUNO(value, value);
  llvm::Value* chosen = b.CreateSelect(is_nan, quiet, rounded);
  return b.CreateTrunc(b.CreateLShr(chosen, 16), Widen(b.getInt16Ty(), width));
}

}  // namespace

llvm::Value* FromStorage(llvm::IRBuilder<>& b, ElementType type,
                         llvm::Value* stored) {
  const int width = WidthOf(stored);
  switch (type) {
    case ElementType::kPred:
      return b.CreateICmpNE(stored,
                            llvm::Constant::getNullValue(stored->getType()));
    case ElementType::kF16:
      return b.CreateFPExt(b.CreateBitCast(stored, Widen(b.getHalfTy(), width)),
                           Widen(b.getFloatTy(), width));
    case ElementType::kBF16:
      return BF16BitsToFloat(b, stored);
    default:
      return stored;
  }
}

llvm::Value* ToStorage(llvm::IRBuilder<>& b, ElementType type,
                       llvm::Value* value) {
  const int width = WidthOf(value);
  switch (type) {
    case ElementType::kPred:
      return b.CreateZExt(value, Widen(b.getInt8Ty(), width));
    case ElementType::kF16:
      return b.CreateBitCast(
          b.CreateFPTrunc(value, Widen(b.getHalfTy(), width)),
          Widen(b.getInt16Ty(), width));
    case ElementType::kBF16:
      return FloatToBF16Bits(b, value);
    default:
      return value;
  }
}

llvm::Value* RoundTo(llvm::IRBuilder<>& b, ElementType type,
                     llvm::Value* value) {
  if (type == ElementType::kBF16)
    return FromStorage(b, type, FloatToBF16Bits(b, value, false));
  if (type != ElementType::kF16) return value;
  return FromStorage(b, type, ToStorage(b, type, value));
}

}  // namespace xffi::cpu::codegen
