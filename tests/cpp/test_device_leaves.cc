// ExecuteWithDeviceLeaves: a device executable run on arguments and results
// that are already on its device (what Python's DLPack device arrays use),
// mixed with host ones, on a SimDevice whose memory the host cannot read.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "device/sim_device.h"
#include "device_backend/device_executor.h"
#include "device_backend_test_util.h"

namespace xffi::device_backend {
namespace {

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

}  // namespace
}  // namespace xffi::device_backend
