// xffi: whether a functor kernel's parameter fits the GPU it launches on.
//
// A functor kernel takes its functor by value as its one parameter. CUDA
// allows 4096 bytes of kernel parameters, and from CUDA 12.1 up to 32764 on
// GPUs of compute capability 7.0 (Volta) and newer, with a driver of 12.1
// or newer. Some of the device backend's functors are larger than 4 KB
// (kernels holding region programs: with CUDA 13, scatter's combiner,
// reduce-window's and select-and-scatter's two; test_cuda_device lists
// them), so on an older driver or GPU
// their launch would fail with a bare launch error; CudaDevice checks
// first, once per device, and refuses with this error instead. Host logic,
// tested without a GPU (test_cuda_device); the header names no CUDA type.
#ifndef XFFI_SRC_CUDA_KERNEL_PARAMETERS_H_
#define XFFI_SRC_CUDA_KERNEL_PARAMETERS_H_

#include <cstddef>
#include <string>

#include "xffi/runtime/status.h"

namespace xffi::cuda {

inline constexpr size_t kClassicKernelParameterBytes = 4096;
inline constexpr size_t kLargeKernelParameterBytes = 32764;
// cudaDriverGetVersion's 1000 * major + 10 * minor.
inline constexpr int kLargeKernelParameterDriver = 12010;
inline constexpr int kLargeKernelParameterComputeMajor = 7;

// What the launch of `kernel` with a `functor_size`-byte functor needs of
// the driver (`driver_version`, cudaDriverGetVersion's) and the GPU
// (compute capability `compute_major`.`compute_minor`): OK, or
// FAILED_PRECONDITION naming the kernel, its size, the limit and what
// falls short.
Status CheckKernelParameterSize(const std::string& kernel, size_t functor_size,
                                int driver_version, int compute_major,
                                int compute_minor);

}  // namespace xffi::cuda

#endif  // XFFI_SRC_CUDA_KERNEL_PARAMETERS_H_
