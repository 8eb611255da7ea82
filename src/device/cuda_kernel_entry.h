// xffi: a functor kernel's entry as nvcc compiled it, found by the name the
// kernel is launched under.
//
// Code above the device seam launches functor kernels through specs a host
// compiler made (device::LaunchFunctor), which cannot name the entry nvcc
// emitted for the same functor in another library. That library lists its
// entries in a table of these instead; CudaDevice finds an entry by the
// spec's name and checks the functor's size, so a table that does not match
// the functors a launch passes fails before the launch, naming the kernel.
#ifndef XFFI_SRC_DEVICE_CUDA_KERNEL_ENTRY_H_
#define XFFI_SRC_DEVICE_CUDA_KERNEL_ENTRY_H_

#include <cstddef>

namespace xffi::device {

struct CudaKernelEntry {
  const char* name = nullptr;
  size_t functor_size = 0;
  // ForEachIndexKernel<F>, as a pointer cudaLaunchKernel takes.
  const void* entry = nullptr;
};

}  // namespace xffi::device

#endif  // XFFI_SRC_DEVICE_CUDA_KERNEL_ENTRY_H_
