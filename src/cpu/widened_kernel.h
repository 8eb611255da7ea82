// xffi: running a kernel written for f32 on f16 and bf16 arrays.
//
// LAPACK and BLAS have no half-precision routines. Where XLA:CPU takes
// narrow floats into linear algebra it computes in f32 and rounds the result
// once (JAX's own CPU lowering of cholesky rejects f16 outright; the f16
// triangular-solve it emits is expanded by XLA into f32-accumulating dots),
// so cholesky and triangular-solve widen their operands to f32 copies, run
// the f32 kernel and round its results back.
#ifndef XFFI_SRC_CPU_WIDENED_KERNEL_H_
#define XFFI_SRC_CPU_WIDENED_KERNEL_H_

#include "cpu/kernel.h"

namespace xffi::cpu {

// True for the element types WidenedToF32 takes (f16, bf16).
bool IsWidenedToF32(ElementType type);

// A kernel over the same arrays as `f32_kernel` but whose f16/bf16 operands
// and results are converted to and from f32 around each call (arrays of
// other types are passed through).
Kernel WidenedToF32(Kernel f32_kernel);

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_WIDENED_KERNEL_H_
