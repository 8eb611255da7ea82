// xffi: how generated code holds each element type.
//
// Every element type has a storage type (its bytes in a buffer) and a
// compute type (what the IR computes with), as cpu/element_traits.h has for
// the template kernels: pred is a byte in memory and an i1 in registers; f16
// and bf16 are 16-bit patterns in memory and floats in registers, rounded
// back to their precision after every op (XLA:CPU's float normalisation);
// the other integer and float types are themselves; c64 and c128 are
// structs {re, im} in registers, two parts in memory (complex_emitter.h).
// Code generation covers these types; the rest (the f8 family, sub-byte
// integers) stay with the template kernels.
//
// Every function here takes scalars or vectors of them alike.
#ifndef XFFI_SRC_CPU_CODEGEN_IR_TYPES_H_
#define XFFI_SRC_CPU_CODEGEN_IR_TYPES_H_

#include <llvm/IR/IRBuilder.h>
#include "xffi/program/shape.h"

namespace xffi::cpu::codegen {

// pred, s8..s64, u8..u64, f16, bf16, f32, f64, c64, c128.
bool IsCodegenType(ElementType type);
bool IsFloatType(ElementType type);    // f16, bf16, f32, f64
bool IsIntegerType(ElementType type);  // s8..u64 (not pred)
bool IsSignedType(ElementType type);   // s8..s64
int ComputeBits(ElementType type);     // bits of the compute type

llvm::Type* StorageType(llvm::LLVMContext& context, ElementType type);
llvm::Type* ComputeType(llvm::LLVMContext& context, ElementType type);
// `scalar` as a vector of `width` lanes (itself when width is 1).
llvm::Type* Widen(llvm::Type* scalar, int width);
int WidthOf(const llvm::Value* value);  // 1 for scalars

// Stored bits to the compute value, and back (a bf16 NaN stored is the
// quiet NaN of its sign, as XLA:CPU narrows).
llvm::Value* FromStorage(llvm::IRBuilder<>& b, ElementType type,
                         llvm::Value* stored);
llvm::Value* ToStorage(llvm::IRBuilder<>& b, ElementType type,
                       llvm::Value* value);
// A float compute value rounded to `type`'s precision (f16, bf16: to
// nearest even, a NaN quiet with its payload's top bits, which only
// ToStorage makes canonical for bf16); other types unchanged.
llvm::Value* RoundTo(llvm::IRBuilder<>& b, ElementType type,
                     llvm::Value* value);

// `value` splatted to `width` lanes (unchanged when it already has them).
llvm::Value* Splat(llvm::IRBuilder<>& b, llvm::Value* value, int width);

}  // namespace xffi::cpu::codegen

#endif  // XFFI_SRC_CPU_CODEGEN_IR_TYPES_H_
