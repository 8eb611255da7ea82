// xffi: undoes LLVM's narrowing of float compares to half.
//
// f16 values are computed in f32 (ir_types.h), and InstCombine rewrites
// `fcmp (fpext half a), (fpext half b)` as `fcmp half a, b`, which is the
// same answer. But x86 without AVX512-FP16 has no vector half compare: the
// backend splits such a compare into one scalar compare per lane, and a
// loop of f16 max/min/compare/NaN tests runs several times slower than its
// f32 arithmetic (elementwise_f16 was 4x XLA:CPU). Run after the pass
// pipeline, this puts the (exact) widening back in front of each vector
// half compare, so it compiles to vcvtph2ps + vcmpps.
#ifndef XFFI_SRC_CPU_CODEGEN_HALF_COMPARES_H_
#define XFFI_SRC_CPU_CODEGEN_HALF_COMPARES_H_

namespace llvm {
class Module;
}

namespace xffi::cpu::codegen {

// Returns how many compares were widened.
int WidenHalfVectorCompares(llvm::Module& module);

}  // namespace xffi::cpu::codegen

#endif  // XFFI_SRC_CPU_CODEGEN_HALF_COMPARES_H_
