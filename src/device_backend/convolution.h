// xffi: convolution on the device backend (convolution_kernel.h's functor).
//
// Every form the CPU backend runs: any dimension-number layout, strides,
// padding, lhs/rhs dilation, window reversal, feature_group_count and
// batch_group_count; float, integer and complex types (complex only into a
// complex result, as on the CPU). An ungrouped convolution of a type
// cuBLAS multiplies (f16/bf16 into f16/bf16/f32, f32, f64, c64, c128) is
// im2col in scratch times the relaid kernel through Stream::MatrixMultiply
// (cuBLAS on CudaDevice); the rest (groups, integers, mixed types) runs the
// direct functor, one thread per output element.
#ifndef XFFI_SRC_DEVICE_BACKEND_CONVOLUTION_H_
#define XFFI_SRC_DEVICE_BACKEND_CONVOLUTION_H_

#include <vector>

#include "device_backend/op_kernels.h"

namespace xffi::device_backend {

StatusOr<Launcher> ConvolutionLauncher(
    const Instruction& op, const std::vector<compiler::BufferId>& operands,
    compiler::BufferId result, const ReserveScratch& scratch);

}  // namespace xffi::device_backend

#endif  // XFFI_SRC_DEVICE_BACKEND_CONVOLUTION_H_
