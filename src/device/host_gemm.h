// xffi: a Gemm (gemm.h) computed on the host, as SimDevice runs it.
//
// A plain loop, accumulating as cuBLAS's compute types do (f32 for f16, bf16
// and f32; f64; complex<float>; complex<double>) and rounding once into C:
// what a test on SimDevice checks is the arithmetic a GPU would do, not
// cuBLAS's speed.
#ifndef XFFI_SRC_DEVICE_HOST_GEMM_H_
#define XFFI_SRC_DEVICE_HOST_GEMM_H_

#include "device/gemm.h"

namespace xffi::device {

// The pointers in `gemm` are host memory. `gemm` has passed ValidateGemm.
void RunHostGemm(const Gemm& gemm);

}  // namespace xffi::device

#endif  // XFFI_SRC_DEVICE_HOST_GEMM_H_
