// The device backend's kernels as nvcc compiles them: one ForEachIndexKernel
// entry per functor of device_kernels.h, the same functors SimDevice runs by
// their host code. Linked into libxffi_cuda, whose CudaDevice launches them
// for the specs op_kernels.cc makes (found by name: see
// device/cuda_kernel_entry.h).
#include <cuda_runtime.h>

#include "device/cuda_kernel_entry.h"
#include "device_backend/convolution_kernel.h"
#include "device_backend/device_kernels.h"
#include "device_backend/fft_kernel.h"
#include "device_backend/rng_kernel.h"
#include "device_backend/sort_kernel.h"

namespace xffi::device_backend {
namespace {

// The functor is the kernel's one parameter: CUDA 12.1+ takes up to 32764
// bytes of parameters (Volta and newer), which the region interpreters'
// step tables must fit in.
template <typename F>
device::CudaKernelEntry EntryOf() {
  static_assert(sizeof(F) <= 32764, "a functor larger than CUDA's parameters");
  return {F::kName, sizeof(F),
          reinterpret_cast<const void*>(&device::ForEachIndexKernel<F>)};
}

}  // namespace

extern "C" const device::CudaKernelEntry kXffiDeviceBackendCudaEntries[] = {
    EntryOf<ElementwiseKernel>(),
    EntryOf<FusedLoopKernel>(),
    EntryOf<StridedCopyKernel>(),
    EntryOf<IotaKernel>(),
    EntryOf<ContractionKernel>(),
    EntryOf<DynamicWindowKernel>(),
    EntryOf<GatherKernel>(),
    EntryOf<ScatterKernel>(),
    EntryOf<SortKernel>(),
    EntryOf<SortMergePassKernel>(),
    EntryOf<ReduceWindowKernel>(),
    EntryOf<VariadicReduceKernel>(),
    EntryOf<TopKKernel>(),
    EntryOf<ConvolutionKernel>(),
    EntryOf<FftLinesKernel>(),
    EntryOf<FftScaleKernel>(),
    EntryOf<SelectAndScatterKernel>(),
    EntryOf<Im2colKernel>(),
    EntryOf<RngBitGeneratorKernel>(),
};
extern "C" const size_t kXffiDeviceBackendCudaEntryCount =
    sizeof(kXffiDeviceBackendCudaEntries) /
    sizeof(kXffiDeviceBackendCudaEntries[0]);

}  // namespace xffi::device_backend
