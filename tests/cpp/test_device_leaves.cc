// ExecuteWithDeviceLeaves: a device executable run on arguments and results
// that are already on its device (what Python's DLPack device arrays use),
// mixed with host ones, on a SimDevice whose memory the host cannot read.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <vector>

#include "device/device.h"
#include "device/sim_device.h"
#include "device_backend/device_executor.h"
#include "device_backend_test_util.h"
#include "xffi/ffi.h"
#include "xffi/runtime/registry.h"

namespace xffi::device_backend {
namespace {

namespace ffi = xffi::ffi;
using ::testing::HasSubstr;

constexpr char kAdd[] = R"(HloModule add
ENTRY main {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  ROOT s = f32[4] add(x, y)
}
)";

class DeviceLeavesTest : public testing::SimDeviceBackendTest {
 protected:
  // `values` in a new allocation on the test's SimDevice.
  void* Upload(const std::vector<float>& values) {
    StatusOr<void*> data = device_->Allocate(values.size() * sizeof(float));
    EXPECT_TRUE(data.ok()) << data.status().message();
    auto stream = device_->CreateStream();
    EXPECT_TRUE(stream.ok());
    EXPECT_TRUE((*stream)
                    ->CopyHostToDevice(*data, values.data(),
                                       values.size() * sizeof(float))
                    .ok());
    EXPECT_TRUE((*stream)->Synchronize().ok());
    allocations_.push_back(*data);
    return *data;
  }

  std::vector<float> Download(const void* data, size_t count) {
    std::vector<float> values(count);
    auto stream = device_->CreateStream();
    EXPECT_TRUE(stream.ok());
    EXPECT_TRUE(
        (*stream)->CopyDeviceToHost(values.data(), data, count * 4).ok());
    EXPECT_TRUE((*stream)->Synchronize().ok());
    return values;
  }

  void TearDown() override {
    for (void* data : allocations_) EXPECT_TRUE(device_->Free(data).ok());
  }

  std::vector<void*> allocations_;
};

TEST_F(DeviceLeavesTest, DeviceArgumentsAndResultsStayOnTheDevice) {
  auto executable = CompileForDevice(kAdd);
  ASSERT_TRUE(executable.ok()) << executable.status().message();
  EXPECT_EQ(DeviceOfExecutable(**executable).get(), device_.get());
  const void* x = Upload({1, 2, 3, 4});
  const void* y = Upload({10, 20, 30, 40});
  void* out = Upload({0, 0, 0, 0});
  std::vector<const void*> arguments = {x, y};
  std::vector<void*> results = {out};
  LeafPlaces places;
  places.argument_on_device = {true, true};
  places.results_on_device = true;
  Status status =
      ExecuteWithDeviceLeaves(**executable, arguments, results, places);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(Download(out, 4), (std::vector<float>{11, 22, 33, 44}));
}

TEST_F(DeviceLeavesTest, HostAndDeviceArgumentsMixWithHostResults) {
  auto executable = CompileForDevice(kAdd);
  ASSERT_TRUE(executable.ok()) << executable.status().message();
  const void* x = Upload({1, 2, 3, 4});
  const std::vector<float> y = {0.5f, 0.5f, 0.5f, 0.5f};
  std::vector<float> out(4, -1);
  std::vector<const void*> arguments = {x, y.data()};
  std::vector<void*> results = {out.data()};
  LeafPlaces places;
  places.argument_on_device = {true, false};
  Status status =
      ExecuteWithDeviceLeaves(**executable, arguments, results, places);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(out, (std::vector<float>{1.5f, 2.5f, 3.5f, 4.5f}));
}

TEST_F(DeviceLeavesTest, AHostAddressCalledDeviceMemoryIsRefused) {
  auto executable = CompileForDevice(kAdd);
  ASSERT_TRUE(executable.ok()) << executable.status().message();
  const std::vector<float> x = {1, 2, 3, 4};
  std::vector<float> out(4);
  std::vector<const void*> arguments = {x.data(), x.data()};
  std::vector<void*> results = {out.data()};
  LeafPlaces places;
  places.argument_on_device = {true, false};
  Status status =
      ExecuteWithDeviceLeaves(**executable, arguments, results, places);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("CopyDeviceToDevice's source"));
  // The executable stays usable.
  places.argument_on_device = {false, false};
  status = ExecuteWithDeviceLeaves(**executable, arguments, results, places);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(out, (std::vector<float>{2, 4, 6, 8}));
}

TEST_F(DeviceLeavesTest, MiscountsAndHostExecutablesAreRefused) {
  auto executable = CompileForDevice(kAdd);
  ASSERT_TRUE(executable.ok()) << executable.status().message();
  const std::vector<float> x = {1, 2, 3, 4};
  std::vector<float> out(4);
  std::vector<const void*> arguments = {x.data(), x.data()};
  std::vector<void*> results = {out.data()};
  LeafPlaces places;
  places.argument_on_device = {false};
  Status status =
      ExecuteWithDeviceLeaves(**executable, arguments, results, places);
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(status.message(), HasSubstr("argument_on_device has 1 entries "
                                          "for 2 argument leaves"));

  auto on_host = CompileForHost(kAdd);
  ASSERT_TRUE(on_host.ok()) << on_host.status().message();
  EXPECT_EQ(DeviceOfExecutable(**on_host), nullptr);
  places.argument_on_device = {false, false};
  status = ExecuteWithDeviceLeaves(**on_host, arguments, results, places);
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(status.message(), HasSubstr("does not run on a device"));
}

// A producer whose work is still queued on its own stream orders it before
// the reserved run's stream with an event, as DLPack producers do for the
// stream a consumer hands them: the run reads its values with no host wait
// for the whole device. Without the wait it reads poison: SimDevice runs
// the producer's copy only when something waits for it.
TEST_F(DeviceLeavesTest, AReservedRunsStreamIsWhereProducersOrderTheirWork) {
  auto executable = CompileForDevice(kAdd);
  ASSERT_TRUE(executable.ok()) << executable.status().message();
  const std::vector<float> values = {1, 2, 3, 4}, ones = {1, 1, 1, 1};
  for (bool wait : {true, false}) {
    SCOPED_TRACE(wait ? "producer waited for" : "producer not waited for");
    StatusOr<void*> x = device_->Allocate(16);  // poisoned
    ASSERT_TRUE(x.ok());
    allocations_.push_back(*x);
    auto producer = device_->CreateStream();
    ASSERT_TRUE(producer.ok());
    ASSERT_TRUE((*producer)->CopyHostToDevice(*x, values.data(), 16).ok());
    const device::SimDevice::HostSynchronizations before =
        device_->host_synchronizations();

    StatusOr<std::unique_ptr<ReservedRun>> run = ReserveRun(**executable);
    ASSERT_TRUE(run.ok()) << run.status().message();
    if (wait) {
      auto event = device_->CreateEvent();
      ASSERT_TRUE(event.ok());
      ASSERT_TRUE((*producer)->RecordEvent(**event).ok());
      ASSERT_TRUE((*run)->stream().WaitEvent(**event).ok());
    }
    std::vector<float> out(4);
    std::vector<const void*> arguments = {*x, ones.data()};
    std::vector<void*> results = {out.data()};
    LeafPlaces places;
    places.argument_on_device = {true, false};
    Status status = ExecuteWithDeviceLeaves(**executable, arguments, results,
                                            places, nullptr, run->get());
    ASSERT_TRUE(status.ok()) << status.message();
    if (wait) {
      EXPECT_THAT(out, ::testing::ElementsAre(2, 3, 4, 5));
    } else {
      for (float v : out) EXPECT_TRUE(std::isnan(v)) << v;
    }
    EXPECT_EQ(device_->host_synchronizations().device, before.device);
    // Used: a second run with it is refused; the instance is back in the
    // pool, so the executable still has one.
    status = ExecuteWithDeviceLeaves(**executable, arguments, results, places,
                                     nullptr, run->get());
    EXPECT_EQ(status.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
    EXPECT_THAT(status.message(), HasSubstr("used already"));
    EXPECT_EQ(GetDeviceExecutorStats(**executable).run_instances, 1);
    ASSERT_TRUE((*producer)->Synchronize().ok());
  }
}

TEST_F(DeviceLeavesTest, AnUnusedReservationGoesBackToThePool) {
  auto executable = CompileForDevice(kAdd);
  ASSERT_TRUE(executable.ok()) << executable.status().message();
  auto other = CompileForDevice(kAdd);
  ASSERT_TRUE(other.ok()) << other.status().message();
  const std::vector<float> x = {1, 2, 3, 4};
  std::vector<float> out(4);
  std::vector<const void*> arguments = {x.data(), x.data()};
  std::vector<void*> results = {out.data()};
  LeafPlaces places;
  places.argument_on_device = {false, false};
  {
    StatusOr<std::unique_ptr<ReservedRun>> run = ReserveRun(**executable);
    ASSERT_TRUE(run.ok()) << run.status().message();
    // Held: a run meanwhile needs an instance of its own.
    ASSERT_TRUE((*executable)->ExecuteRaw(arguments, results).ok());
    EXPECT_EQ(GetDeviceExecutorStats(**executable).run_instances, 2);
    // Another executable's reservation is refused, and stays unused.
    Status status = ExecuteWithDeviceLeaves(**other, arguments, results, places,
                                            nullptr, run->get());
    EXPECT_EQ(status.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
    EXPECT_THAT(status.message(), HasSubstr("another executable's"));
  }
  // Both instances idle again: serial runs need no third.
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE((*executable)->ExecuteRaw(arguments, results).ok());
  EXPECT_EQ(GetDeviceExecutorStats(**executable).run_instances, 2);
  EXPECT_THAT(out, ::testing::ElementsAre(2, 4, 6, 8));

  auto on_host = CompileForHost(kAdd);
  ASSERT_TRUE(on_host.ok()) << on_host.status().message();
  StatusOr<std::unique_ptr<ReservedRun>> none = ReserveRun(**on_host);
  EXPECT_EQ(none.status().code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(none.status().message(), HasSubstr("does not run on a device"));
}

// Records the operand address it was given, then y = x on the stream (or
// zeros its result in place when told, through an aliased operand).
const void* seen_operand = nullptr;
ffi::Error RecordOperandImpl(device::Stream* stream, ffi::Buffer<ffi::F32> x,
                             ffi::Result<ffi::Buffer<ffi::F32>> y) {
  seen_operand = x.untyped_data();
  Status done = y->untyped_data() == x.untyped_data()
                    ? stream->Memset(y->untyped_data(), 0, y->size_bytes())
                    : stream->CopyDeviceToDevice(
                          y->untyped_data(), x.untyped_data(), x.size_bytes());
  if (!done.ok()) return ffi::Error::Internal(done.message());
  return ffi::Error::Success();
}
XFFI_DEFINE_HANDLER(RecordOperand, RecordOperandImpl,
                    ffi::Ffi::Bind()
                        .Ctx<ffi::PlatformStream<device::Stream*>>()
                        .Arg<ffi::Buffer<ffi::F32>>()
                        .Ret<ffi::Buffer<ffi::F32>>());

class DeviceLeavesBindTest : public DeviceLeavesTest {
 protected:
  void SetUp() override {
    DeviceLeavesTest::SetUp();
    ASSERT_TRUE(
        RegisterHandler("devleaves_record", "CUDA",
                        XLA_FFI_Handler_Bundle{nullptr, nullptr, nullptr,
                                               RecordOperand, nullptr})
            .ok());
  }

  // Runs `executable` on device argument `x` (4 floats) into a device
  // result; returns the result and what the custom call saw.
  std::vector<float> Run(Executable& executable, const void* x) {
    void* out = Upload({-1, -1, -1, -1});
    std::vector<const void*> arguments = {x};
    std::vector<void*> results = {out};
    LeafPlaces places;
    places.argument_on_device = {true};
    places.results_on_device = true;
    seen_operand = nullptr;
    Status status =
        ExecuteWithDeviceLeaves(executable, arguments, results, places);
    EXPECT_TRUE(status.ok()) << status.message();
    return Download(out, 4);
  }
};

constexpr char kRecordThenAdd[] = R"(HloModule bind
ENTRY main {
  x = f32[4] parameter(0)
  c = f32[4] custom-call(x), custom_call_target="devleaves_record", api_version=API_VERSION_TYPED_FFI
  ROOT s = f32[4] add(c, x)
}
)";

TEST_F(DeviceLeavesBindTest, AnAlignedDeviceArgumentIsBoundWithoutACopy) {
  auto executable = CompileForDevice(kRecordThenAdd);
  ASSERT_TRUE(executable.ok()) << executable.status().message();
  const void* x = Upload({1, 2, 3, 4});
  const device::SimDevice::HostSynchronizations before =
      device_->host_synchronizations();
  for (int run = 0; run < 2; ++run) {
    EXPECT_EQ(Run(**executable, x), (std::vector<float>{2, 4, 6, 8}));
    EXPECT_EQ(seen_operand, x) << "the custom call sees the caller's array";
  }
  EXPECT_EQ(GetDeviceExecutorStats(**executable).bound_arguments, 2);
  // Upload and Download wait on their own streams; nothing waited for the
  // whole device.
  EXPECT_EQ(device_->host_synchronizations().device, before.device);

  // Host arguments still go through the parameter slot: same results.
  const std::vector<float> host_x = {1, 2, 3, 4};
  std::vector<float> out(4);
  std::vector<const void*> arguments = {host_x.data()};
  std::vector<void*> results = {out.data()};
  ASSERT_TRUE((*executable)->ExecuteRaw(arguments, results).ok());
  EXPECT_EQ(out, (std::vector<float>{2, 4, 6, 8}));
  EXPECT_NE(seen_operand, x);
}

TEST_F(DeviceLeavesBindTest, AMisalignedArgumentOrATimeoutMeansACopy) {
  auto executable = CompileForDevice(kRecordThenAdd);
  ASSERT_TRUE(executable.ok()) << executable.status().message();
  // One float into an allocation: aligned to 4 bytes only.
  const char* base = static_cast<const char*>(Upload({9, 1, 2, 3, 4}));
  const void* misaligned = base + sizeof(float);
  EXPECT_EQ(Run(**executable, misaligned), (std::vector<float>{2, 4, 6, 8}));
  EXPECT_NE(seen_operand, misaligned);
  EXPECT_NE(seen_operand, nullptr);

  // A call abandoned at the timeout could read the argument late.
  CompileOptions options;
  options.custom_call_timeout = std::chrono::seconds(60);
  auto bounded = CompileForDevice(kRecordThenAdd, options);
  ASSERT_TRUE(bounded.ok()) << bounded.status().message();
  const void* x = Upload({1, 2, 3, 4});
  EXPECT_EQ(Run(**bounded, x), (std::vector<float>{2, 4, 6, 8}));
  EXPECT_NE(seen_operand, x);
  EXPECT_EQ(GetDeviceExecutorStats(**executable).bound_arguments, 0);
  EXPECT_EQ(GetDeviceExecutorStats(**bounded).bound_arguments, 0);
}

TEST_F(DeviceLeavesBindTest, AnAliasedParameterIsCopiedNotWritten) {
  // The call's result aliases x: buffer assignment copies x to a fresh
  // buffer for the call to overwrite, so binding x in place is safe and
  // the caller's array keeps its values.
  auto executable = CompileForDevice(R"(HloModule alias
ENTRY main {
  x = f32[4] parameter(0)
  c = f32[4] custom-call(x), custom_call_target="devleaves_record", api_version=API_VERSION_TYPED_FFI, output_to_operand_aliasing={{}: (0, {})}
  ROOT s = f32[4] add(c, x)
}
)");
  ASSERT_TRUE(executable.ok()) << executable.status().message();
  const void* x = Upload({1, 2, 3, 4});
  EXPECT_EQ(Run(**executable, x), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_NE(seen_operand, x) << "the call got the copy";
  EXPECT_EQ(Download(x, 4), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(GetDeviceExecutorStats(**executable).bound_arguments, 1);
}

}  // namespace
}  // namespace xffi::device_backend
