// CudaDevice where there is no GPU: every entry point fails with the one
// "no CUDA device" error, for real (this runs the CUDA runtime). On a machine
// with a GPU the conformance suite covers CudaDevice instead.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#ifdef XFFI_HAVE_CUDA_DEVICE
#include "cuda/capture_mode.h"
#include "cuda/cublas_library.h"
#include "cuda/cuda_device.h"
#include "cuda/cufft_library.h"
#include "cuda/kernel_entries.h"
#include "cuda/kernel_parameters.h"
#include "device/host_gemm.h"
#include "device_backend/convolution_kernel.h"
#include "device_backend/device_kernels.h"
#include "device_backend/fft_kernel.h"
#include "device_backend/rng_kernel.h"
#include "device_backend/sort_kernel.h"
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
  ExpectCompiledEntry<SortMergePassKernel>();
  ExpectCompiledEntry<ReduceWindowKernel>();
  ExpectCompiledEntry<VariadicReduceKernel>();
  ExpectCompiledEntry<TopKKernel>();
  ExpectCompiledEntry<ConvolutionKernel>();
  ExpectCompiledEntry<Im2colKernel>();
  ExpectCompiledEntry<FftLinesKernel>();
  ExpectCompiledEntry<FftScaleKernel>();
  ExpectCompiledEntry<SelectAndScatterKernel>();
  ExpectCompiledEntry<RngBitGeneratorKernel>();
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

// cuBLAS is found and its entry points resolve here (the toolkit ships it);
// without a GPU, the handle a stream would make fails with cuBLAS's own
// status, naming the library.
TEST(Cublas, LoadsLazilyAndFailsClearlyWithoutAGpu) {
  auto library = xffi::cuda::CublasLibrary::Default();
  ASSERT_TRUE(library.ok()) << library.status().message();
  const std::vector<std::string> paths =
      xffi::cuda::CublasLibrary::DefaultPaths();
  EXPECT_THAT(paths, ::testing::Contains((*library)->path()));
  std::cout << "cuBLAS: " << (*library)->path() << "\n";
  if (xffi::cuda::CudaDeviceCount().ok())
    GTEST_SKIP() << "a GPU is present: the conformance suite multiplies";
  auto handle = (*library)->CreateHandle(nullptr);
  ASSERT_FALSE(handle.ok());
  EXPECT_THAT(handle.status().message(),
              MatchesRegex("cuBLAS \\(" + (*library)->path() +
                           "\\): cublasCreate returned [0-9]+ "
                           "\\(CUBLAS_STATUS_[A-Z_]+\\)"));
}

TEST(Cublas, AMissingLibraryOrSymbolIsNamed) {
  auto missing =
      xffi::cuda::CublasLibrary::Load({"/nonexistent/libcublas.so.13"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), XLA_FFI_Error_Code_NOT_FOUND);
  EXPECT_THAT(missing.status().message(),
              ::testing::HasSubstr(
                  "cannot load cuBLAS: tried /nonexistent/libcublas.so.13: "));
  // A library that loads but exports none of cuBLAS's entry points. Not
  // cuBLASLt: loading and closing it leaves 72 KB its static initialisers
  // allocated, which LeakSanitizer reports from an unknown module.
  const std::string libm = "libm.so.6";
  auto wrong = xffi::cuda::CublasLibrary::Load({libm});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message(),
            "cuBLAS library " + libm + " has no symbol cublasCreate_v2");
}

// The row-major product handed to cuBLAS's column-major call: a host
// emulation of cublasGemmStridedBatchedEx (column-major, op N or T) fed the
// mapped arguments gives the host GEMM's row-major result, for every
// transpose pair, a batch and padded leading dimensions.
void ColumnMajorGemm(const xffi::cuda::CublasGemmArgs& args, double* c) {
  const auto* first = static_cast<const double*>(args.first);
  const auto* second = static_cast<const double*>(args.second);
  auto at = [](const double* x, bool transposed, int64_t ld, int64_t row,
               int64_t col) {
    return transposed ? x[row * ld + col] : x[col * ld + row];
  };
  for (int64_t b = 0; b < args.batch; ++b)
    for (int64_t i = 0; i < args.m; ++i)
      for (int64_t j = 0; j < args.n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < args.k; ++p)
          sum += at(first + b * args.stride_first, args.transpose_first,
                    args.ld_first, i, p) *
                 at(second + b * args.stride_second, args.transpose_second,
                    args.ld_second, p, j);
        c[b * args.stride_c + j * args.ldc + i] = sum;
      }
}

TEST(Cublas, RowMajorProductsMapToItsColumnMajorCall) {
  using xffi::device::Gemm;
  for (bool a_transposed : {false, true})
    for (bool b_transposed : {false, true}) {
      const int64_t m = 3, n = 4, k = 5, batch = 2, pad = 2;
      std::vector<double> a(200), b(200);
      for (size_t i = 0; i < a.size(); ++i) {
        a[i] = static_cast<double>((i * 7) % 11) - 5;
        b[i] = static_cast<double>((i * 5) % 13) - 6;
      }
      Gemm gemm;
      gemm.ab_type = gemm.c_type = xffi::device::GemmType::kF64;
      gemm.m = m;
      gemm.n = n;
      gemm.k = k;
      gemm.batch = batch;
      gemm.a = {a.data(), a_transposed, (a_transposed ? m : k) + pad, 60};
      gemm.b = {b.data(), b_transposed, (b_transposed ? k : n) + pad, 70};
      gemm.ldc = n + pad;
      gemm.c_batch_stride = m * (n + pad);
      std::vector<double> want(100, 0), got(100, 0);
      gemm.c = want.data();
      ASSERT_TRUE(xffi::device::ValidateGemm(gemm).ok());
      xffi::device::RunHostGemm(gemm);
      gemm.c = got.data();
      ColumnMajorGemm(xffi::cuda::ColumnMajorArgs(gemm), got.data());
      EXPECT_EQ(got, want) << "A transposed " << a_transposed
                           << ", B transposed " << b_transposed;
    }
}

// cuFFT likewise: found, its entry points resolved, and without a GPU the
// plan a stream's first transform makes fails with cuFFT's own status,
// naming the library, the call and the transform.
TEST(Cufft, LoadsLazilyAndFailsClearlyWithoutAGpu) {
  auto library = xffi::cuda::CufftLibrary::Default();
  ASSERT_TRUE(library.ok()) << library.status().message();
  EXPECT_THAT(xffi::cuda::CufftLibrary::DefaultPaths(),
              ::testing::Contains((*library)->path()));
  std::cout << "cuFFT: " << (*library)->path() << "\n";
  if (xffi::cuda::CudaDeviceCount().ok())
    GTEST_SKIP() << "a GPU is present: the device backend's ffts use cuFFT";
  std::unique_ptr<xffi::cuda::CufftPlans> plans = (*library)->PlansFor(nullptr);
  // Never dereferenced: planning fails first.
  float in[16] = {}, out[16] = {};
  xffi::device::Fft fft;
  fft.kind = xffi::device::FftKind::kInverse;
  fft.lengths[0] = 8;
  fft.batch = 2;
  fft.in = in;
  fft.out = out;
  xffi::Status status = plans->Execute(fft);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(
      status.message(),
      MatchesRegex("cuFFT \\(" + (*library)->path() +
                   "\\): cufft(Create|PlanMany) returned [0-9]+ "
                   "\\(CUFFT_[A-Z_]+\\) for c64 inverse fft 2x\\[8\\]"));
  EXPECT_EQ(plans->plan_count(), 0u);
  // An invalid transform is refused before cuFFT sees it.
  fft.rank = 4;
  EXPECT_THAT(plans->Execute(fft).message(),
              ::testing::HasSubstr("fft: rank 4 is not 1-3"));
}

TEST(Cufft, AMissingLibraryOrSymbolIsNamed) {
  auto missing =
      xffi::cuda::CufftLibrary::Load({"/nonexistent/libcufft.so.12"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), XLA_FFI_Error_Code_NOT_FOUND);
  EXPECT_THAT(missing.status().message(),
              ::testing::HasSubstr(
                  "cannot load cuFFT: tried /nonexistent/libcufft.so.12: "));
  const std::string libm = "libm.so.6";
  auto wrong = xffi::cuda::CufftLibrary::Load({libm});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message(),
            "cuFFT library " + libm + " has no symbol cufftCreate");
}

TEST(Cufft, ResultNamesAreCufftsOwn) {
  EXPECT_STREQ(xffi::cuda::CufftResultName(0), "CUFFT_SUCCESS");
  EXPECT_STREQ(xffi::cuda::CufftResultName(5), "CUFFT_INTERNAL_ERROR");
  EXPECT_STREQ(xffi::cuda::CufftResultName(11), "CUFFT_INVALID_DEVICE");
  EXPECT_STREQ(xffi::cuda::CufftResultName(10), "unknown cufftResult");
}

// The order a stream's library set-up follows around a capture
// (capture_mode.h: cublasCreate at a stream's first product, cuFFT's plans),
// with the CUDA calls played by a fake thread.
struct FakeCaptureThread {
  bool capturing = false;
  int mode = 0;  // cudaStreamCaptureModeGlobal
  int mode_during_setup = -1;
  xffi::Status query_error, exchange_error;
  int exchanges = 0;

  xffi::cuda::CaptureModeCalls Calls() {
    xffi::cuda::CaptureModeCalls calls;
    calls.is_capturing = [this]() -> xffi::StatusOr<bool> {
      if (!query_error.ok()) return query_error;
      return capturing;
    };
    calls.exchange_mode = [this](int* swapped) -> xffi::Status {
      if (!exchange_error.ok()) return exchange_error;
      ++exchanges;
      std::swap(mode, *swapped);
      return xffi::Status::Ok();
    };
    calls.relaxed_mode = 2;
    return calls;
  }
  std::function<xffi::Status()> SetUp(xffi::Status result) {
    return [this, result] {
      mode_during_setup = mode;
      return result;
    };
  }
};

TEST(CaptureMode, OutsideACaptureTheSetUpRunsAsItIs) {
  FakeCaptureThread thread;
  EXPECT_TRUE(xffi::cuda::OutsideCaptureRules(thread.Calls(),
                                              thread.SetUp(xffi::Status::Ok()))
                  .ok());
  EXPECT_EQ(thread.mode_during_setup, 0);
  EXPECT_EQ(thread.exchanges, 0);
}

TEST(CaptureMode, DuringACaptureTheSetUpRunsRelaxedAndTheModeComesBack) {
  for (int before : {0, 1, 2}) {  // global, thread-local, relaxed
    FakeCaptureThread thread;
    thread.capturing = true;
    thread.mode = before;
    EXPECT_TRUE(xffi::cuda::OutsideCaptureRules(
                    thread.Calls(), thread.SetUp(xffi::Status::Ok()))
                    .ok());
    EXPECT_EQ(thread.mode_during_setup, 2) << before;
    EXPECT_EQ(thread.mode, before);
    EXPECT_EQ(thread.exchanges, 2);
  }
}

TEST(CaptureMode, AFailedSetUpStillRestoresTheMode) {
  FakeCaptureThread thread;
  thread.capturing = true;
  xffi::Status status = xffi::cuda::OutsideCaptureRules(
      thread.Calls(), thread.SetUp(xffi::Internal("cublasCreate returned 1")));
  EXPECT_EQ(status.message(), "cublasCreate returned 1");
  EXPECT_EQ(thread.mode, 0);
  EXPECT_EQ(thread.exchanges, 2);
}

TEST(CaptureMode, AFailedQueryOrSwitchRunsNoSetUp) {
  FakeCaptureThread thread;
  thread.query_error = xffi::Internal("cudaStreamIsCapturing returned 35");
  xffi::Status status = xffi::cuda::OutsideCaptureRules(
      thread.Calls(), thread.SetUp(xffi::Status::Ok()));
  EXPECT_EQ(status.message(), "cudaStreamIsCapturing returned 35");
  EXPECT_EQ(thread.mode_during_setup, -1);

  FakeCaptureThread switching;
  switching.capturing = true;
  switching.exchange_error = xffi::Internal("exchange returned 35");
  status = xffi::cuda::OutsideCaptureRules(switching.Calls(),
                                           switching.SetUp(xffi::Status::Ok()));
  EXPECT_EQ(status.message(), "exchange returned 35");
  EXPECT_EQ(switching.mode_during_setup, -1);
}

// Functors over 4 KB need CUDA 12.1's large kernel parameters: refused on
// an older driver or GPU with a message saying what falls short.
TEST(KernelParameters, LargeFunctorsNeedCuda121AndVolta) {
  using xffi::cuda::CheckKernelParameterSize;
  EXPECT_TRUE(CheckKernelParameterSize("k", 4096, 11080, 6, 1).ok());
  EXPECT_TRUE(CheckKernelParameterSize("k", 5000, 12010, 7, 0).ok());
  EXPECT_TRUE(CheckKernelParameterSize("k", 32764, 13000, 9, 0).ok());

  xffi::Status old_driver = CheckKernelParameterSize("k", 5000, 12000, 8, 6);
  EXPECT_EQ(old_driver.code(), XLA_FFI_Error_Code_FAILED_PRECONDITION);
  EXPECT_EQ(old_driver.message(),
            "kernel 'k' takes a 5000-byte functor, over the 4096 bytes of "
            "kernel parameters older setups allow: launching it needs a "
            "driver of CUDA 12.1 or newer (this one is CUDA 12.0)");
  EXPECT_EQ(CheckKernelParameterSize("k", 5000, 12040, 6, 1).message(),
            "kernel 'k' takes a 5000-byte functor, over the 4096 bytes of "
            "kernel parameters older setups allow: launching it needs a GPU "
            "of compute capability 7.0 or newer (this one is 6.1)");
  EXPECT_THAT(CheckKernelParameterSize("k", 5000, 11020, 5, 2).message(),
              ::testing::HasSubstr("CUDA 12.1 or newer (this one is CUDA "
                                   "11.2) and a GPU of compute capability"));
  EXPECT_EQ(CheckKernelParameterSize("k", 40000, 13000, 9, 0).message(),
            "kernel 'k' takes a 40000-byte functor, over the 32764 bytes of "
            "parameters CUDA allows a kernel");
}

TEST(KernelParameters, TheBackendsLargeFunctorsAreTheOnesChecked) {
#ifdef XFFI_HAVE_CUDA_KERNELS
  // Which kernels the check guards; each within the large limit (nvcc's
  // static_assert) and at least one over the classic one, or the check
  // would guard nothing.
  using namespace xffi::device_backend;
  int large = 0;
  for (const char* name :
       {ElementwiseKernel::kName, FusedLoopKernel::kName,
        StridedCopyKernel::kName, IotaKernel::kName, ContractionKernel::kName,
        DynamicWindowKernel::kName, GatherKernel::kName, ScatterKernel::kName,
        SortKernel::kName, SortMergePassKernel::kName,
        ReduceWindowKernel::kName, VariadicReduceKernel::kName,
        TopKKernel::kName, ConvolutionKernel::kName, Im2colKernel::kName,
        FftLinesKernel::kName, FftScaleKernel::kName,
        SelectAndScatterKernel::kName, RngBitGeneratorKernel::kName}) {
    const xffi::device::CudaKernelEntry* entry =
        xffi::cuda::FindCudaKernelEntry(name);
    ASSERT_NE(entry, nullptr) << name;
    EXPECT_LE(entry->functor_size, xffi::cuda::kLargeKernelParameterBytes);
    if (entry->functor_size > xffi::cuda::kClassicKernelParameterBytes) {
      ++large;
      std::cout << "over 4 KB: " << name << " (" << entry->functor_size
                << " bytes)\n";
    }
  }
  EXPECT_GT(large, 0);
#else
  GTEST_SKIP() << "no nvcc-compiled kernels in this build";
#endif
}

#else

TEST(CudaDevice, NotBuilt) {
  GTEST_SKIP() << "built without the CUDA toolkit: CudaDevice is absent";
}

#endif

}  // namespace
