// The Device contract, written once and run on every Device this build has:
// SimDevice always, CudaDevice where the build found the toolkit — skipped,
// with the reason, on a machine without a GPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "device/device.h"
#include "device/sim_device.h"
#include "device_test_util.h"
#ifdef XFFI_HAVE_CUDA_DEVICE
#include "cuda/cuda_device.h"
#endif

namespace xffi::device {
namespace {

using ::testing::ElementsAre;
using testing::FromDevice;
using testing::LaunchSaxpy;
using testing::ToDevice;

struct DeviceFactory {
  std::string name;
  std::function<StatusOr<std::unique_ptr<Device>>()> make;
};

// gtest names the parameter in test listings; the name, not its bytes.
void PrintTo(const DeviceFactory& factory, std::ostream* os) {
  *os << factory.name;
}

std::vector<DeviceFactory> Factories() {
  std::vector<DeviceFactory> factories;
  factories.push_back({"SimDevice", []() -> StatusOr<std::unique_ptr<Device>> {
                         StatusOr<std::unique_ptr<SimDevice>> device =
                             SimDevice::Create();
                         if (!device.ok()) return device.status();
                         return std::unique_ptr<Device>(std::move(*device));
                       }});
#ifdef XFFI_HAVE_CUDA_DEVICE
  factories.push_back({"CudaDevice", [] { return cuda::CreateCudaDevice(0); }});
#endif
  return factories;
}

class DeviceConformance : public ::testing::TestWithParam<DeviceFactory> {
 protected:
  void SetUp() override {
    StatusOr<std::unique_ptr<Device>> device = GetParam().make();
    if (!device.ok()) {
      // Only CudaDevice may be absent: no GPU on this machine.
      ASSERT_NE(GetParam().name, "SimDevice") << device.status().message();
      GTEST_SKIP() << GetParam().name
                   << " is not available here: " << device.status().message();
    }
    device_ = std::move(*device);
    StatusOr<std::unique_ptr<Stream>> stream = device_->CreateStream();
    ASSERT_TRUE(stream.ok()) << stream.status().message();
    stream_ = std::move(*stream);
  }
  void TearDown() override {
    for (void* data : allocations_) EXPECT_TRUE(device_->Free(data).ok());
    stream_.reset();
    device_.reset();
  }
  float* Upload(Stream& stream, const std::vector<float>& values) {
    float* data = ToDevice(*device_, stream, values);
    allocations_.push_back(data);
    return data;
  }

  std::unique_ptr<Device> device_;
  std::unique_ptr<Stream> stream_;
  std::vector<void*> allocations_;
};

TEST_P(DeviceConformance, CopiesRoundTrip) {
  float* data = Upload(*stream_, {1, 2, 3, 4});
  EXPECT_THAT(FromDevice(*stream_, data, 4), ElementsAre(1, 2, 3, 4));
}

TEST_P(DeviceConformance, DeviceToDeviceCopyAndMemset) {
  float* a = Upload(*stream_, {1, 2, 3, 4});
  float* b = Upload(*stream_, {0, 0, 0, 0});
  ASSERT_TRUE(stream_->CopyDeviceToDevice(b, a, 2 * sizeof(float)).ok());
  ASSERT_TRUE(stream_->Memset(b + 2, 0, 2 * sizeof(float)).ok());
  EXPECT_THAT(FromDevice(*stream_, b, 4), ElementsAre(1, 2, 0, 0));
}

TEST_P(DeviceConformance, KernelRunsInStreamOrder) {
  float* x = Upload(*stream_, {1, 2, 3});
  float* y = Upload(*stream_, {10, 20, 30});
  ASSERT_TRUE(LaunchSaxpy(*stream_, 2.0f, x, y, 3).ok());
  ASSERT_TRUE(LaunchSaxpy(*stream_, 1.0f, x, y, 3).ok());
  EXPECT_THAT(FromDevice(*stream_, y, 3), ElementsAre(13, 26, 39));
}

TEST_P(DeviceConformance, EventOrdersTwoStreams) {
  auto other = device_->CreateStream();
  ASSERT_TRUE(other.ok()) << other.status().message();
  auto event = device_->CreateEvent();
  ASSERT_TRUE(event.ok()) << event.status().message();
  float* x = Upload(*stream_, {1, 1});
  float* y = Upload(*stream_, {5, 6});
  ASSERT_TRUE(stream_->RecordEvent(**event).ok());
  ASSERT_TRUE((*other)->WaitEvent(**event).ok());
  ASSERT_TRUE(LaunchSaxpy(**other, 3.0f, x, y, 2).ok());
  EXPECT_THAT(FromDevice(**other, y, 2), ElementsAre(8, 9));
}

TEST_P(DeviceConformance, SynchronizeEventWaitsForTheRecordedWork) {
  auto event = device_->CreateEvent();
  ASSERT_TRUE(event.ok());
  // Never recorded: nothing to wait for.
  EXPECT_TRUE(device_->SynchronizeEvent(**event).ok());
  float* y = Upload(*stream_, {7, 8});
  std::vector<float> host(2, 0.0f);
  ASSERT_TRUE(
      stream_->CopyDeviceToHost(host.data(), y, 2 * sizeof(float)).ok());
  ASSERT_TRUE(stream_->RecordEvent(**event).ok());
  ASSERT_TRUE(device_->SynchronizeEvent(**event).ok());
  EXPECT_THAT(host, ElementsAre(7, 8));
}

TEST_P(DeviceConformance, QueryEventSaysWhetherTheRecordedWorkRan) {
  auto event = device_->CreateEvent();
  ASSERT_TRUE(event.ok());
  StatusOr<bool> never = device_->QueryEvent(**event);
  ASSERT_TRUE(never.ok()) << never.status().message();
  EXPECT_TRUE(*never) << "an event never recorded has nothing to wait for";
  float* y = Upload(*stream_, {3, 4});
  std::vector<float> host(2, 0.0f);
  ASSERT_TRUE(
      stream_->CopyDeviceToHost(host.data(), y, 2 * sizeof(float)).ok());
  ASSERT_TRUE(stream_->RecordEvent(**event).ok());
  ASSERT_TRUE(stream_->Synchronize().ok());
  StatusOr<bool> ran = device_->QueryEvent(**event);
  ASSERT_TRUE(ran.ok()) << ran.status().message();
  EXPECT_TRUE(*ran);
  EXPECT_THAT(host, ElementsAre(3, 4));
}

TEST_P(DeviceConformance, HostCallbackRunsAfterEarlierWork) {
  float* y = Upload(*stream_, {4, 5});
  std::vector<float> host(2, 0.0f);
  std::vector<float> seen;
  ASSERT_TRUE(
      stream_->CopyDeviceToHost(host.data(), y, 2 * sizeof(float)).ok());
  ASSERT_TRUE(stream_->AddHostCallback([&] { seen = host; }).ok());
  ASSERT_TRUE(device_->Synchronize().ok());
  EXPECT_THAT(seen, ElementsAre(4, 5));
}

TEST_P(DeviceConformance, CapturedGraphReplays) {
  float* x = Upload(*stream_, {1, 2});
  float* y = Upload(*stream_, {0, 0});
  ASSERT_TRUE(stream_->Synchronize().ok());
  ASSERT_TRUE(stream_->BeginCapture().ok());
  ASSERT_TRUE(LaunchSaxpy(*stream_, 10.0f, x, y, 2).ok());
  auto graph = stream_->EndCapture();
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  // Capturing ran nothing.
  EXPECT_THAT(FromDevice(*stream_, y, 2), ElementsAre(0, 0));
  ASSERT_TRUE(stream_->LaunchGraph(**graph).ok());
  ASSERT_TRUE(stream_->LaunchGraph(**graph).ok());
  EXPECT_THAT(FromDevice(*stream_, y, 2), ElementsAre(20, 40));
}

TEST_P(DeviceConformance, EmptyAllocationIsNull) {
  auto empty = device_->Allocate(0);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*empty, nullptr);
  EXPECT_TRUE(device_->Free(nullptr).ok());
}

TEST_P(DeviceConformance, AllocationsAreAligned) {
  auto a = device_->Allocate(3);
  auto b = device_->Allocate(5);
  ASSERT_TRUE(a.ok() && b.ok());
  allocations_ = {*a, *b};
  for (void* p : allocations_)
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % Device::kAllocationAlignment,
              0u);
}

struct NotSaxpy {
  XFFI_HOST_DEVICE void operator()(int64_t) const {}
  template <typename Visit>
  void VisitDevicePointers(Visit&&) {}
};

TEST_P(DeviceConformance, LaunchChecksTheFunctorType) {
  Status launched =
      Launch(*stream_, testing::SaxpyKernel(), LaunchDims{1, 1}, NotSaxpy{});
  EXPECT_EQ(launched.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(launched.message(),
              ::testing::HasSubstr("kernel 'test_saxpy' launched with a "
                                   "functor of another type"));
}

// C[b] = A[b] . B[b]^T with A stored transposed, batch 2, padded leading
// dimensions: the product every device must compute, in stream order after
// the uploads and before the download.
TEST_P(DeviceConformance, MatrixMultiplyRunsInStreamOrder) {
  // A[b] is 2x3 (stored 3x2 with ld 3), B[b] is 3x2 (stored 2x3, ld 4).
  const std::vector<float> a_values = {1,  2, 0, 3, 4, 0, 5, 6, 0,
                                       -1, 0, 0, 0, 1, 0, 2, 2, 0};
  const std::vector<float> b_values = {1, 0, 1, 9, 0, 1,  1, 9,
                                       2, 2, 2, 9, 1, -1, 0, 9};
  float* a = Upload(*stream_, a_values);
  float* b = Upload(*stream_, b_values);
  float* c = Upload(*stream_, std::vector<float>(8, -7));
  Gemm gemm;
  gemm.m = 2;
  gemm.n = 2;
  gemm.k = 3;
  gemm.batch = 2;
  gemm.a = {a, /*transposed=*/true, /*ld=*/3, /*batch_stride=*/9};
  gemm.b = {b, /*transposed=*/true, /*ld=*/4, /*batch_stride=*/8};
  gemm.c = c;
  gemm.ldc = 2;
  gemm.c_batch_stride = 4;
  ASSERT_TRUE(stream_->MatrixMultiply(gemm).ok());
  // A[0] = [[1,3,5],[2,4,6]], B[0] = [[1,0],[0,1],[1,1]];
  // A[1] = [[-1,0,2],[0,1,2]], B[1] = [[2,1],[2,-1],[2,0]].
  EXPECT_THAT(FromDevice(*stream_, c, 8),
              ElementsAre(6, 8, 8, 10, 2, -1, 6, -1));
}

TEST_P(DeviceConformance, MatrixMultiplyRefusesAnInvalidProduct) {
  float* a = Upload(*stream_, std::vector<float>(6, 1));
  Gemm gemm;
  gemm.m = 2;
  gemm.n = 2;
  gemm.k = 3;
  gemm.a = {a, false, 2, 0};  // rows of 3 in 2 elements
  gemm.b = {a, false, 2, 0};
  gemm.c = a;
  gemm.ldc = 2;
  Status status = stream_->MatrixMultiply(gemm);
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(status.message(), ::testing::HasSubstr("A's leading dimension"));
  gemm.a.ld = 3;
  gemm.ab_type = GemmType::kF32;
  gemm.c_type = GemmType::kF64;
  status = stream_->MatrixMultiply(gemm);
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(status.message(),
              ::testing::HasSubstr("f32 operands with a f64"));
}

INSTANTIATE_TEST_SUITE_P(
    Devices, DeviceConformance, ::testing::ValuesIn(Factories()),
    [](const ::testing::TestParamInfo<DeviceFactory>& info) {
      return info.param.name;
    });

}  // namespace
}  // namespace xffi::device
