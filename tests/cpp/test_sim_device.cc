// What makes SimDevice stricter than a GPU: each fault it exists to catch is
// made here on purpose and must be caught.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "device/sim_device.h"
#include "device_test_util.h"

namespace xffi::device {
namespace {

using ::testing::ElementsAre;
using testing::FromDevice;
using ::testing::HasSubstr;
using testing::LaunchSaxpy;
using ::testing::StartsWith;
using testing::ToDevice;

class SimDeviceTest : public testing::SimDeviceFixture {
 protected:
  SimDeviceOptions Options() const override {
    SimDeviceOptions options;
    options.memory_bytes = 1 << 20;
    return options;
  }
};

TEST_F(SimDeviceTest, HostAccessToDeviceMemoryFaults) {
  float* data = ToDevice(*device_, *stream_, {1, 2});
  ASSERT_TRUE(stream_->Synchronize().ok());
  EXPECT_TRUE(device_->IsDeviceMemory(data));
  EXPECT_DEATH(
      {
        volatile float value = *data;
        (void)value;
      },
      "");
}

TEST_F(SimDeviceTest, NewAllocationsArePoisoned) {
  auto data = device_->Allocate(3 * sizeof(float));
  ASSERT_TRUE(data.ok());
  std::vector<float> host = FromDevice(*stream_, static_cast<float*>(*data), 3);
  for (float value : host) EXPECT_TRUE(std::isnan(value)) << value;
}

TEST_F(SimDeviceTest, MissingSynchronisationReadsStaleHostMemory) {
  float* data = ToDevice(*device_, *stream_, {5, 6});
  std::vector<float> host(2, -1.0f);
  ASSERT_TRUE(
      stream_->CopyDeviceToHost(host.data(), data, 2 * sizeof(float)).ok());
  // Enqueued, not run: the host reads what was there before.
  EXPECT_THAT(host, ElementsAre(-1, -1));
  EXPECT_EQ(device_->pending_work(), 1u);
  ASSERT_TRUE(stream_->Synchronize().ok());
  EXPECT_THAT(host, ElementsAre(5, 6));
  EXPECT_EQ(device_->pending_work(), 0u);
}

TEST_F(SimDeviceTest, CopyReadsItsHostSourceWhenTheStreamRunsIt) {
  auto data = device_->Allocate(sizeof(float));
  ASSERT_TRUE(data.ok());
  float source = 1;
  ASSERT_TRUE(stream_->CopyHostToDevice(*data, &source, sizeof(float)).ok());
  source = 2;  // a bug with pinned memory on a GPU; caught every time here
  EXPECT_THAT(FromDevice(*stream_, static_cast<float*>(*data), 1),
              ElementsAre(2));
}

TEST_F(SimDeviceTest, MissingEventWaitReadsPoison) {
  auto reader = device_->CreateStream();
  ASSERT_TRUE(reader.ok());
  auto data = device_->Allocate(2 * sizeof(float));
  ASSERT_TRUE(data.ok());
  std::vector<float> source = {3, 4};
  ASSERT_TRUE(stream_
                  ->CopyHostToDevice(*data, source.data(),
                                     source.size() * sizeof(float))
                  .ok());
  // The reader does not wait for the writer: it sees the poison.
  std::vector<float> unsynchronised =
      FromDevice(**reader, static_cast<float*>(*data), 2);
  EXPECT_TRUE(std::isnan(unsynchronised[0]));

  auto event = device_->CreateEvent();
  ASSERT_TRUE(event.ok());
  ASSERT_TRUE(stream_->RecordEvent(**event).ok());
  ASSERT_TRUE((*reader)->WaitEvent(**event).ok());
  EXPECT_THAT(FromDevice(**reader, static_cast<float*>(*data), 2),
              ElementsAre(3, 4));
}

TEST_F(SimDeviceTest, SynchronisingDuringCaptureInvalidatesIt) {
  ASSERT_TRUE(stream_->BeginCapture().ok());
  Status sync = device_->Synchronize();
  EXPECT_EQ(sync.code(), XLA_FFI_Error_Code_FAILED_PRECONDITION);
  EXPECT_THAT(sync.message(),
              HasSubstr("Synchronize is not permitted while a stream capture "
                        "is open"));
  auto graph = stream_->EndCapture();
  ASSERT_FALSE(graph.ok());
  EXPECT_THAT(graph.status().message(),
              HasSubstr("the capture was invalidated: Synchronize was called "
                        "during the capture"));
  // The stream works again once the capture is over.
  float* data = ToDevice(*device_, *stream_, {1});
  EXPECT_THAT(FromDevice(*stream_, data, 1), ElementsAre(1));
}

TEST_F(SimDeviceTest, AllocatingDuringCaptureIsRefused) {
  ASSERT_TRUE(stream_->BeginCapture().ok());
  auto data = device_->Allocate(16);
  EXPECT_FALSE(data.ok());
  EXPECT_THAT(data.status().message(), StartsWith("SimDevice: Allocate is "));
  EXPECT_FALSE(stream_->EndCapture().ok());
}

TEST_F(SimDeviceTest, CaptureRecordsWithoutRunning) {
  float* y = ToDevice(*device_, *stream_, {1});
  ASSERT_TRUE(stream_->Synchronize().ok());
  ASSERT_TRUE(stream_->BeginCapture().ok());
  ASSERT_TRUE(LaunchSaxpy(*stream_, 1.0f, y, y, 1).ok());
  EXPECT_EQ(device_->pending_work(), 0u);
  ASSERT_TRUE(stream_->EndCapture().ok());
  EXPECT_THAT(FromDevice(*stream_, y, 1), ElementsAre(1));
}

TEST_F(SimDeviceTest, AsyncErrorSurfacesAtSynchronisation) {
  float* data = ToDevice(*device_, *stream_, {1, 2});
  ASSERT_TRUE(device_
                  ->InjectAsyncError(*stream_, Internal("bad kernel"),
                                     /*sticky=*/false)
                  .ok());
  Status sync = stream_->Synchronize();
  EXPECT_EQ(sync.code(), XLA_FFI_Error_Code_INTERNAL);
  EXPECT_EQ(sync.message(),
            "SimDevice stream 1: injected error failed asynchronously: bad "
            "kernel");
  // Reported once; the device stays usable.
  EXPECT_TRUE(stream_->Synchronize().ok());
  EXPECT_THAT(FromDevice(*stream_, data, 2), ElementsAre(1, 2));
}

TEST_F(SimDeviceTest, StickyErrorLeavesTheDeviceUnusable) {
  float* data = ToDevice(*device_, *stream_, {1});
  ASSERT_TRUE(device_
                  ->InjectAsyncError(*stream_, Internal("illegal address"),
                                     /*sticky=*/true)
                  .ok());
  std::vector<float> host(1, -1.0f);
  ASSERT_TRUE(stream_->CopyDeviceToHost(host.data(), data, sizeof(float)).ok());
  EXPECT_THAT(stream_->Synchronize().message(), HasSubstr("illegal address"));
  EXPECT_THAT(host, ElementsAre(-1));  // work after the fault never ran
  auto more = device_->Allocate(4);
  ASSERT_FALSE(more.ok());
  EXPECT_THAT(more.status().message(),
              HasSubstr("Allocate: the device is unusable after an earlier "
                        "error: SimDevice stream 1: injected error failed "
                        "asynchronously: illegal address"));
  EXPECT_FALSE(device_->CreateStream().ok());
}

TEST_F(SimDeviceTest, HostCallbackMustNotCallTheDevice) {
  Status from_callback;
  ASSERT_TRUE(stream_
                  ->AddHostCallback(
                      [&] { from_callback = device_->Allocate(4).status(); })
                  .ok());
  ASSERT_TRUE(stream_->Synchronize().ok());
  EXPECT_THAT(from_callback.message(),
              HasSubstr("Allocate called from a host callback"));
}

TEST_F(SimDeviceTest, KernelGivenHostMemoryIsRefusedNamingTheArgument) {
  float* x = ToDevice(*device_, *stream_, {1});
  float host_y = 0;
  Status launched = LaunchSaxpy(*stream_, 1.0f, x, &host_y, 1);
  EXPECT_EQ(launched.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(launched.message(),
              HasSubstr("kernel 'test_saxpy''s device pointer 1"));
  EXPECT_THAT(launched.message(), HasSubstr("is not in a live device "
                                            "allocation"));
}

TEST_F(SimDeviceTest, CopiesAreBoundsChecked) {
  auto data = device_->Allocate(8);
  ASSERT_TRUE(data.ok());
  std::vector<char> host(16);
  Status past = stream_->CopyHostToDevice(*data, host.data(), 16);
  EXPECT_THAT(past.message(), HasSubstr("CopyHostToDevice's destination"));
  EXPECT_THAT(past.message(),
              HasSubstr("runs past the end of its allocation of 8 bytes"));
  Status wrong_way = stream_->CopyHostToDevice(*data, *data, 8);
  EXPECT_THAT(wrong_way.message(),
              HasSubstr("CopyHostToDevice's source is device memory"));
}

TEST_F(SimDeviceTest, FreeWaitsForOutstandingWorkAndChecksItsPointer) {
  float* data = ToDevice(*device_, *stream_, {9});
  std::vector<float> host(1, 0.0f);
  ASSERT_TRUE(stream_->CopyDeviceToHost(host.data(), data, sizeof(float)).ok());
  ASSERT_TRUE(device_->Free(data).ok());
  EXPECT_THAT(host, ElementsAre(9));
  EXPECT_EQ(device_->bytes_in_use(), 0u);
  Status again = device_->Free(data);
  EXPECT_THAT(again.message(),
              HasSubstr("which is not the start of a live allocation"));
}

TEST_F(SimDeviceTest, MemoryIsReusedAfterFree) {
  // The arena holds 1 MiB: allocating it twice only works when freed blocks
  // coalesce again.
  for (int round = 0; round < 2; ++round) {
    std::vector<void*> blocks;
    for (int i = 0; i < 4; ++i) {
      auto block = device_->Allocate(256 << 10);
      ASSERT_TRUE(block.ok()) << block.status().message();
      blocks.push_back(*block);
    }
    auto one_more = device_->Allocate(1);
    EXPECT_EQ(one_more.status().code(), XLA_FFI_Error_Code_RESOURCE_EXHAUSTED);
    for (size_t i : {1, 3, 0, 2}) ASSERT_TRUE(device_->Free(blocks[i]).ok());
  }
}

TEST_F(SimDeviceTest, DestroyingAStreamCompletesItsWork) {
  auto other = device_->CreateStream();
  ASSERT_TRUE(other.ok());
  float* data = ToDevice(*device_, **other, {2});
  std::vector<float> host(1, 0.0f);
  ASSERT_TRUE(
      (*other)->CopyDeviceToHost(host.data(), data, sizeof(float)).ok());
  other->reset();
  EXPECT_THAT(host, ElementsAre(2));
}

TEST_F(SimDeviceTest, LaunchConfigurationIsChecked) {
  float* y = ToDevice(*device_, *stream_, {1});
  Status launched = Launch(*stream_, testing::SaxpyKernel(),
                           LaunchDims{1, 2048}, testing::Saxpy{1.0f, y, y, 1});
  EXPECT_THAT(launched.message(), HasSubstr("threads in [1, 1024]"));
}

TEST_F(SimDeviceTest, StreamsMayBeDrivenFromSeveralThreads) {
  auto worker = [&](float scale, std::vector<float>* out) {
    auto stream = device_->CreateStream();
    ASSERT_TRUE(stream.ok());
    float* x = ToDevice(*device_, **stream, {1, 2, 3});
    float* y = ToDevice(*device_, **stream, {0, 0, 0});
    for (int i = 0; i < 100; ++i)
      ASSERT_TRUE(LaunchSaxpy(**stream, scale, x, y, 3).ok());
    *out = FromDevice(**stream, y, 3);
    ASSERT_TRUE(device_->Free(x).ok());
    ASSERT_TRUE(device_->Free(y).ok());
  };
  std::vector<float> first, second;
  std::thread a(worker, 1.0f, &first);
  std::thread b(worker, 2.0f, &second);
  a.join();
  b.join();
  EXPECT_THAT(first, ElementsAre(100, 200, 300));
  EXPECT_THAT(second, ElementsAre(200, 400, 600));
}

struct Nothing {
  void operator()(int64_t) const {}
  template <typename Visit>
  void VisitDevicePointers(Visit&&) {}
};

// A product is enqueued like a launch: it runs when the stream does, after
// the work before it, and its matrices must lie in device memory.
TEST_F(SimDeviceTest, MatrixMultiplyIsEnqueuedAndBoundsChecked) {
  float* a = ToDevice(*device_, *stream_, {1, 2, 3, 4});
  float* c = ToDevice(*device_, *stream_, {0, 0, 0, 0});
  Gemm gemm;
  gemm.m = gemm.n = gemm.k = 2;
  gemm.a = {a, false, 2, 0};
  gemm.b = {a, false, 2, 0};
  gemm.c = c;
  gemm.ldc = 2;
  ASSERT_TRUE(stream_->MatrixMultiply(gemm).ok());
  EXPECT_EQ(device_->pending_work(), 1u) << "nothing runs when enqueued";
  EXPECT_THAT(FromDevice(*stream_, c, 4), ElementsAre(7, 10, 15, 22));

  std::vector<float> host(4, 1);
  gemm.b.data = host.data();
  Status status = stream_->MatrixMultiply(gemm);
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(status.message(), HasSubstr("f32 gemm 1x(2x2 . 2x2)'s B"));
  // A matrix running past its allocation.
  gemm.b.data = a;
  gemm.batch = 2;
  gemm.a.batch_stride = 4;
  status = stream_->MatrixMultiply(gemm);
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(status.message(), HasSubstr("'s A"));
}

// A stream handed around as a number (DLPack's stream argument) is found
// again only while it lives, and only on its own device.
TEST_F(SimDeviceTest, StreamsAreFoundByTheirNativeHandle) {
  EXPECT_FALSE(device_->HasFftLibrary());
  EXPECT_EQ(device_->FindStream(stream_->native_handle()), stream_.get());
  auto other = device_->CreateStream();
  ASSERT_TRUE(other.ok());
  void* handle = (*other)->native_handle();
  EXPECT_EQ(device_->FindStream(handle), other->get());
  other->reset();
  EXPECT_EQ(device_->FindStream(handle), nullptr);
  EXPECT_EQ(device_->FindStream(reinterpret_cast<void*>(1)), nullptr);
  auto elsewhere = xffi::device::SimDevice::Create();
  ASSERT_TRUE(elsewhere.ok());
  EXPECT_EQ((*elsewhere)->FindStream(stream_->native_handle()), nullptr);
}

// SimDevice has no FFT library: the device backend runs its own kernels
// there, and a direct call is refused naming the device and the transform.
TEST_F(SimDeviceTest, FourierIsRefusedForWantOfAnFftLibrary) {
  EXPECT_FALSE(stream_->HasFftLibrary());
  float* data = ToDevice(*device_, *stream_, {1, 2, 3, 4});
  xffi::device::Fft fft;
  fft.kind = xffi::device::FftKind::kComplexToReal;
  fft.double_precision = true;
  fft.rank = 2;
  fft.lengths[0] = 3;
  fft.lengths[1] = 6;
  fft.batch = 5;
  fft.in = data;
  fft.out = data;
  Status status = stream_->Fourier(fft);
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_UNIMPLEMENTED);
  EXPECT_EQ(status.message(),
            "SimDevice has no FFT library: cannot run c128 complex-to-real "
            "fft 5x[3x6]");
  // The complex side holds 6/2 + 1 along the last dimension.
  EXPECT_EQ(xffi::device::FftInputBytes(fft), 5u * 3 * 4 * 16);
  EXPECT_EQ(xffi::device::FftOutputBytes(fft), 5u * 3 * 6 * 8);
  EXPECT_TRUE(xffi::device::ValidateFft(fft).ok());
  fft.lengths[1] = 0;
  EXPECT_EQ(xffi::device::ValidateFft(fft).message(), "fft: lengths[1] is 0");
  fft.lengths[1] = 6;
  fft.in = nullptr;
  EXPECT_EQ(xffi::device::ValidateFft(fft).message(),
            "c128 complex-to-real fft 5x[3x6]: null input");
}

TEST(KernelRegistry, RegistersOnceAndFindsByName) {
  ASSERT_TRUE(RegisterKernel(testing::SaxpyKernel()).ok());
  EXPECT_TRUE(RegisterKernel(testing::SaxpyKernel()).ok());  // same spec
  auto found = FindKernel("test_saxpy");
  ASSERT_TRUE(found.ok());
  EXPECT_EQ((*found)->functor_type, testing::SaxpyKernel().functor_type);

  Status clash = RegisterKernel(MakeKernelSpec<Nothing>("test_saxpy"));
  EXPECT_EQ(clash.code(), XLA_FFI_Error_Code_ALREADY_EXISTS);
  EXPECT_EQ(FindKernel("no_such_kernel").status().message(),
            "no kernel named 'no_such_kernel' is registered");
}

}  // namespace
}  // namespace xffi::device
