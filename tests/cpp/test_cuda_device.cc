// CudaDevice where there is no GPU: every entry point fails with the one
// "no CUDA device" error, for real (this runs the CUDA runtime). On a machine
// with a GPU the conformance suite covers CudaDevice instead.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <iostream>

#ifdef XFFI_HAVE_CUDA_DEVICE
#include "cuda/cuda_device.h"
#include "cuda/kernel_entries.h"
#include "device_backend/device_kernels.h"
#endif

namespace {

using ::testing::MatchesRegex;

#ifdef XFFI_HAVE_CUDA_DEVICE

// 35: no driver; 34: the toolkit's stub driver; 100: a driver that sees no
// GPU. The message names the code and its name.
constexpr const char* kNoDevice =
    "no CUDA device: cudaGetDeviceCount returned (34 \\(cudaErrorStubLibrary\\)"
    "|35 \\(cudaErrorInsufficientDriver\\)|100 \\(cudaErrorNoDevice\\)|0 "
    "devices)";

TEST(CudaDevice, WithoutAGpuEveryEntryPointSaysSo) {
  auto count = xffi::cuda::CudaDeviceCount();
  if (count.ok()) GTEST_SKIP() << *count << " CUDA device(s) present";
  EXPECT_EQ(count.status().code(), XLA_FFI_Error_Code_UNAVAILABLE);
  EXPECT_THAT(count.status().message(), MatchesRegex(kNoDevice));
  std::cout << "this machine: " << count.status().message() << "\n";

  for (int ordinal : {0, 1, -1}) {
    auto device = xffi::cuda::CreateCudaDevice(ordinal);
    ASSERT_FALSE(device.ok());
    EXPECT_EQ(device.status().message(), count.status().message());
  }
}

TEST(CudaDevice, OrdinalsTheDriverLacksAreRefused) {
  auto count = xffi::cuda::CudaDeviceCount();
  if (!count.ok()) GTEST_SKIP() << count.status().message();
  auto device = xffi::cuda::CreateCudaDevice(*count);
  EXPECT_EQ(device.status().code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
}

// Every kernel the device backend launches by name has the entry nvcc
// compiled for the same functor: without this a GPU would fail at a
// program's first launch, and no test without a GPU would see it.
template <typename F>
void ExpectCompiledEntry() {
  const xffi::device::CudaKernelEntry* entry =
      xffi::cuda::FindCudaKernelEntry(F::kName);
  ASSERT_NE(entry, nullptr) << F::kName;
  EXPECT_STREQ(entry->name, F::kName);
  EXPECT_EQ(entry->functor_size, sizeof(F)) << F::kName;
  EXPECT_NE(entry->entry, nullptr) << F::kName;
}

TEST(CudaDevice, TheDeviceBackendsKernelsHaveGpuEntries) {
#ifdef XFFI_HAVE_CUDA_KERNELS
  ASSERT_TRUE(xffi::cuda::HasCompiledKernels());
  using namespace xffi::device_backend;
  ExpectCompiledEntry<ElementwiseKernel>();
  ExpectCompiledEntry<FusedLoopKernel>();
  ExpectCompiledEntry<StridedCopyKernel>();
  ExpectCompiledEntry<IotaKernel>();
  ExpectCompiledEntry<ContractionKernel>();
  ExpectCompiledEntry<DynamicWindowKernel>();
  ExpectCompiledEntry<GatherKernel>();
  ExpectCompiledEntry<ScatterKernel>();
  ExpectCompiledEntry<SortKernel>();
  ExpectCompiledEntry<ReduceWindowKernel>();
  ExpectCompiledEntry<VariadicReduceKernel>();
  ExpectCompiledEntry<TopKKernel>();
  // Distinct functors, distinct entries.
  EXPECT_NE(xffi::cuda::FindCudaKernelEntry(ElementwiseKernel::kName)->entry,
            xffi::cuda::FindCudaKernelEntry(GatherKernel::kName)->entry);
#else
  EXPECT_FALSE(xffi::cuda::HasCompiledKernels());
  EXPECT_EQ(xffi::cuda::FindCudaKernelEntry(
                xffi::device_backend::ElementwiseKernel::kName),
            nullptr);
#endif
  EXPECT_EQ(xffi::cuda::FindCudaKernelEntry("xffi.device.no_such_kernel"),
            nullptr);
}

#else

TEST(CudaDevice, NotBuilt) {
  GTEST_SKIP() << "built without the CUDA toolkit: CudaDevice is absent";
}

#endif

}  // namespace
