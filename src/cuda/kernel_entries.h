// xffi: the GPU entries libxffi_cuda carries for functor kernels launched by
// name (the device backend's, compiled by nvcc into this library).
#ifndef XFFI_SRC_CUDA_KERNEL_ENTRIES_H_
#define XFFI_SRC_CUDA_KERNEL_ENTRIES_H_

#include <string_view>

#include "device/cuda_kernel_entry.h"

namespace xffi::cuda {

// The entry launched for kernel `name`; null when this build has none (no
// such kernel, or a build that did not run nvcc: sanitizer builds).
const device::CudaKernelEntry* FindCudaKernelEntry(std::string_view name);

// Whether this build compiled the device backend's kernels with nvcc.
bool HasCompiledKernels();

}  // namespace xffi::cuda

#endif  // XFFI_SRC_CUDA_KERNEL_ENTRIES_H_
