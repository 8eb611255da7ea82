// Shared by the device backend's tests: programs compiled for CUDA onto one
// SimDevice the test can look into, and for the Host executor to compare.
#ifndef XFFI_TESTS_CPP_DEVICE_BACKEND_TEST_UTIL_H_
#define XFFI_TESTS_CPP_DEVICE_BACKEND_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "compiler/compiler.h"
#include "device/sim_device.h"
#include "device_backend/device_backend.h"
#include "xffi/program/executable.h"
#include "xffi/program/text.h"

namespace xffi::device_backend::testing {

class SimDeviceBackendTest : public ::testing::Test {
 protected:
  void SetUp() override { UseDevice(); }

  // Compiles onto a fresh SimDevice from now on.
  void UseDevice(device::SimDeviceOptions device_options = {}) {
    auto device = device::SimDevice::Create(device_options);
    ASSERT_TRUE(device.ok()) << device.status().message();
    device_ = std::shared_ptr<device::SimDevice>(std::move(*device));
    DeviceBackendOptions options;
    std::shared_ptr<device::SimDevice> shared = device_;
    options.device = [shared](const CompileOptions&)
        -> StatusOr<std::shared_ptr<device::Device>> {
      return std::shared_ptr<device::Device>(shared);
    };
    backend_ = std::make_unique<DeviceBackend>(std::move(options));
  }

  StatusOr<std::unique_ptr<Executable>> CompileForDevice(
      const std::string& text, CompileOptions options = {}) {
    StatusOr<Module> module = ParseProgram(text, "program.hlo");
    if (!module.ok()) return module.status();
    options.platform = Platform::kCuda;
    return compiler::CompileWithBackend(std::move(*module), options, *backend_);
  }

  static StatusOr<std::unique_ptr<Executable>> CompileForHost(
      const std::string& text) {
    StatusOr<Module> module = ParseProgram(text, "program.hlo");
    if (!module.ok()) return module.status();
    return Compile(std::move(*module));
  }

  std::shared_ptr<device::SimDevice> device_;
  std::unique_ptr<DeviceBackend> backend_;
};

}  // namespace xffi::device_backend::testing

#endif  // XFFI_TESTS_CPP_DEVICE_BACKEND_TEST_UTIL_H_
