// xffi: complex elementwise ops in generated kernels.
//
// A c64 or c128 value is an LLVM struct {re, im} of floats or doubles in
// registers (InstCombine takes the structs apart, so the loop vectoriser
// sees only scalar float arithmetic) and two adjacent parts in memory,
// loaded and stored part by part (an interleaved access the vectoriser
// handles). The formulas are the template kernels' (cpu/elementwise_ops.h):
// the textbook product, componentwise sums, |z| as glibc's hypotf computes
// it (in double, rounded once) for c64; what the template kernels leave to
// the C library (division: libgcc's __divsc3/__divdc3; exp; |z| of c128)
// is that same function, called per element, except for c64 elements with
// finite parts (nonzero divisors; |re| < 80, |im| <= 2^20 for exp):
//   - c64 division in double, (ac + bd, bc - ad) / (c^2 + d^2), which
//     cannot overflow or underflow from float parts and rounds as
//     __divsc3 does (no difference over 2e7 random quotients);
//   - c64 exp as glibc's cexpf, e^re (cos im, sin im), with the generated
//     f32 exp, sin and cos: within a few units in the last place.
// The loop vectoriser declines a loop with such a call even in a
// predicated block: it predicates calls only to functions it knows as C
// library ones (TargetLibraryInfo), which the runtime's wrappers are not.
// So a kernel's loop computes the ordinary formula for every element,
// without the call, and notes whether any element of a block needed it; a
// scalar pass with the calls then recomputes such a block (emitter.cc).
#ifndef XFFI_SRC_CPU_CODEGEN_COMPLEX_EMITTER_H_
#define XFFI_SRC_CPU_CODEGEN_COMPLEX_EMITTER_H_

#include <functional>
#include <string>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include "xffi/program/ir.h"

namespace llvm {
class Module;
}

namespace xffi::cpu::codegen {

// f32 for c64, f64 for c128.
ElementType ComplexPartType(ElementType type);
llvm::StructType* ComplexType(llvm::LLVMContext& context, ElementType type);

llvm::Value* MakeComplex(llvm::IRBuilder<>& b, llvm::Type* type,
                         llvm::Value* re, llvm::Value* im);
llvm::Value* RealPart(llvm::IRBuilder<>& b, llvm::Value* z);
llvm::Value* ImagPart(llvm::IRBuilder<>& b, llvm::Value* z);

// `op` (an elementwise op, compare or select with a complex operand or
// result) over already computed operand values; null with `*why` set when
// it is not covered.
// `may_branch`: whether the builder may split its block (in the loop: c64
// division and exp then compute ordinary values in vectorisable IR and
// call the C library only for the elements it must, in a predicated
// branch; before the loop every element calls it). `exp_f32`: the
// emitter's f32 exp. `special`, when given with `may_branch`: instead of
// that branch, the ordinary value for every element, and the flag of the
// elements whose value is wrong ORed into `*special` (null: none yet).
llvm::Value* EmitComplexOp(
    llvm::IRBuilder<>& b, llvm::Module& module, const Instruction& op,
    const std::vector<llvm::Value*>& operands, bool may_branch,
    const std::function<llvm::Value*(llvm::Value*)>& exp_f32, std::string* why,
    llvm::Value** special = nullptr);

// A conversion from or to a complex type (element_convert.h's rules:
// complex to real takes the real part, real to complex has a zero
// imaginary part, complex to pred tests both parts). `to_real` converts a
// real value between real types (the emitter's own conversion).
llvm::Value* EmitComplexConvert(
    llvm::IRBuilder<>& b, ElementType from, ElementType to, llvm::Value* x,
    const std::function<llvm::Value*(ElementType, ElementType, llvm::Value*)>&
        to_real);

}  // namespace xffi::cpu::codegen

#endif  // XFFI_SRC_CPU_CODEGEN_COMPLEX_EMITTER_H_
