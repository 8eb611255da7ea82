#include "cuda/kernel_entries.h"

#include <cstddef>

#ifdef XFFI_HAVE_CUDA_KERNELS
extern "C" const xffi::device::CudaKernelEntry kXffiDeviceBackendCudaEntries[];
extern "C" const size_t kXffiDeviceBackendCudaEntryCount;
#endif

namespace xffi::cuda {

const device::CudaKernelEntry* FindCudaKernelEntry(std::string_view name) {
#ifdef XFFI_HAVE_CUDA_KERNELS
  for (size_t i = 0; i < kXffiDeviceBackendCudaEntryCount; ++i)
    if (name == kXffiDeviceBackendCudaEntries[i].name)
      return &kXffiDeviceBackendCudaEntries[i];
#else
  (void)name;
#endif
  return nullptr;
}

bool HasCompiledKernels() {
#ifdef XFFI_HAVE_CUDA_KERNELS
  return true;
#else
  return false;
#endif
}

}  // namespace xffi::cuda
