// xffi: transcendental functions as plain LLVM IR, so loops of them
// vectorise where a libm call per element would not.
//
// Each function takes a float or double value (scalar or vector) and
// returns the function's value of the same type. Every element runs the same
// code wherever it falls in a loop (the vector body and the scalar remainder
// agree), so results do not depend on how a loop is split across threads.
// Largest distance from glibc's libm (what the template kernels call) over
// a dense sweep of every binade, measured by test_codegen_elementwise
// (EmittedMathWithinStatedUlpsOfLibm):
//   f32 log, log1p, sin, cos: 1 ulp (computed in double, rounded once);
//   f32 exp (emitter.cc's FastExp): 1 ulp; logistic over it: 3 ulp;
//   f32 erf_inv (special::ErfInv's polynomials over this log1p): 2 ulp;
//   f64 exp, expm1: 1 ulp; log, sin, cos: 2 ulp; log1p, tanh: 3 ulp.
// (f32 tanh is XLA's rational function, the template kernel's bits.)
// NaN, infinities, -0, zeros and the domain edges give exactly libm's
// results (EmittedMathAtTheEdgesOfItsRanges). sin/cos beyond |x| = 2^20
// (where the reduction by pi/2 needs more than double precision) call
// libm for those elements only in a loop with a pass for special elements
// (their block is computed again); elsewhere f32 reduces them in vector
// integer arithmetic (Payne-Hanek, within 1 ulp of libm:
// SineAndCosineInRowsSplitAtConcatenate) and f64 calls libm in a branch,
// which keeps the loop scalar.
#ifndef XFFI_SRC_CPU_CODEGEN_MATH_EMITTER_H_
#define XFFI_SRC_CPU_CODEGEN_MATH_EMITTER_H_

#include <string>
#include <vector>

#include <llvm/IR/IRBuilder.h>

namespace llvm {
class Module;
}

namespace xffi::cpu::codegen {

// XFFI_MATH_LEGACY=1, read at each emission: the functions as they were
// before stop 26 (no fused multiply-adds, sin/cos series twice as long,
// f32 log1p with its quotient, sin/cos's large-argument call by libm's
// name, which LLVM turned into a call per element, f64 tanh over both of
// expm1's paths), to measure against.
bool LegacyMath();

// A call of `name`, a pure function of the C library or the runtime
// (runtime_symbols.cc), declared as clang's -fno-math-errno does: no memory
// access, no unwinding, so the optimiser may move and the vectoriser
// predicate it.
llvm::Value* CallPure(llvm::IRBuilder<>& b, llvm::Module& module,
                      const std::string& name, llvm::Type* result,
                      std::vector<llvm::Value*> args);

// a * x + c, fused where the target has a fused multiply-add (one
// instruction, one rounding), a multiply and an add where it has not: the
// target's choice, the same for every element and every lane.
llvm::Value* MulAdd(llvm::IRBuilder<>& b, llvm::Module& module, llvm::Value* a,
                    llvm::Value* x, llvm::Value* c);

// y * 2^k for a float or double y and an integer k (of the float's width)
// in [-2 max_exponent, 2 max_exponent]: applied in two halves, each a normal
// power of two, so a result that overflows, or is subnormal, rounds once.
llvm::Value* TimesPowerOfTwo(llvm::IRBuilder<>& b, llvm::Value* y,
                             llvm::Value* k);

llvm::Value* EmitLogF32(llvm::IRBuilder<>& b, llvm::Module& module,
                        llvm::Value* x);
llvm::Value* EmitLog1pF32(llvm::IRBuilder<>& b, llvm::Module& module,
                          llvm::Value* x);
// A scalar `x` only. `may_branch`: whether the builder may split its block
// for the large arguments' libm call (false before a loop: then the value
// is libm's). `in_range`: `x` is known to be a number of magnitude at most
// 2^20, so no libm call is needed (and none is emitted). `special`, when
// given, collects (ORs in) whether `x` needs the call, and no call is
// emitted: the caller computes those elements again (emitter.cc's blocks
// with special elements), so the loop holds no branch at all. Without it,
// f32 needs no call either (see above).
// f32 or f64.
llvm::Value* EmitSinCos(llvm::IRBuilder<>& b, llvm::Module& module,
                        llvm::Value* x, bool cosine, bool may_branch,
                        bool in_range = false, llvm::Value** special = nullptr);
// special::ErfInv<float>'s polynomials over the log1p above.
llvm::Value* EmitErfInvF32(llvm::IRBuilder<>& b, llvm::Module& module,
                           llvm::Value* y);
llvm::Value* EmitExpF64(llvm::IRBuilder<>& b, llvm::Module& module,
                        llvm::Value* x);
llvm::Value* EmitLogF64(llvm::IRBuilder<>& b, llvm::Module& module,
                        llvm::Value* x);
llvm::Value* EmitExpm1F64(llvm::IRBuilder<>& b, llvm::Module& module,
                          llvm::Value* x);
llvm::Value* EmitLog1pF64(llvm::IRBuilder<>& b, llvm::Module& module,
                          llvm::Value* x);
llvm::Value* EmitTanhF64(llvm::IRBuilder<>& b, llvm::Module& module,
                         llvm::Value* x);

}  // namespace xffi::cpu::codegen

#endif  // XFFI_SRC_CPU_CODEGEN_MATH_EMITTER_H_
