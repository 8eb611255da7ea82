// The device backend's kernels as nvcc compiles them: one ForEachIndexKernel
// entry per functor of device_kernels.h, the same functors SimDevice runs by
// their host code. Compile-only until a GPU is available: CudaDevice would
// launch these entries (KernelSpec::cuda_entry).
#include <cuda_runtime.h>

#include "device_backend/device_kernels.h"

namespace xffi::device_backend {

extern "C" const void* const kXffiDeviceBackendCudaEntries[] = {
    reinterpret_cast<const void*>(
        &device::ForEachIndexKernel<ElementwiseKernel>),
    reinterpret_cast<const void*>(
        &device::ForEachIndexKernel<StridedCopyKernel>),
    reinterpret_cast<const void*>(&device::ForEachIndexKernel<IotaKernel>),
    reinterpret_cast<const void*>(
        &device::ForEachIndexKernel<ContractionKernel>),
    reinterpret_cast<const void*>(
        &device::ForEachIndexKernel<DynamicWindowKernel>),
    reinterpret_cast<const void*>(&device::ForEachIndexKernel<GatherKernel>),
    reinterpret_cast<const void*>(&device::ForEachIndexKernel<FusedLoopKernel>),
};

}  // namespace xffi::device_backend
