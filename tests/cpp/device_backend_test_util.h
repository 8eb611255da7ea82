// Shared by the device backend's tests: programs compiled for CUDA onto one
// SimDevice the test can look into, and for the Host executor to compare.
#ifndef XFFI_TESTS_CPP_DEVICE_BACKEND_TEST_UTIL_H_
#define XFFI_TESTS_CPP_DEVICE_BACKEND_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <memory>
#include <random>
#include <string>

#include "compiler/compiler.h"
#include "device/sim_device.h"
#include "device_backend/device_backend.h"
#include "ir/float_types.h"
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

// Values that are multiples of 1/8 in [-2, 2]: exact in every float type,
// so products and short sums are exact too and any layout mistake shows as
// a difference, not as rounding.
inline Literal RandomEighths(const Shape& shape, std::mt19937& random) {
  Literal literal(shape);
  std::uniform_int_distribution<int> eighths(-16, 16);
  auto next = [&] { return eighths(random) / 8.0; };
  const int64_t n = shape.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    switch (shape.element_type()) {
      case ElementType::kF16:
        literal.data<uint16_t>()[i] = FloatToHalf(static_cast<float>(next()));
        break;
      case ElementType::kBF16:
        literal.data<uint16_t>()[i] =
            FloatToBFloat16(static_cast<float>(next()));
        break;
      case ElementType::kF32:
        literal.data<float>()[i] = static_cast<float>(next());
        break;
      case ElementType::kF64:
        literal.data<double>()[i] = next();
        break;
      case ElementType::kC64:
        literal.data<std::complex<float>>()[i] = {static_cast<float>(next()),
                                                  static_cast<float>(next())};
        break;
      case ElementType::kC128:
        literal.data<std::complex<double>>()[i] = {next(), next()};
        break;
      case ElementType::kS32:
        literal.data<int32_t>()[i] = eighths(random);
        break;
      default:
        ADD_FAILURE() << "no random values for " << shape.ToString(false);
    }
  }
  return literal;
}

}  // namespace xffi::device_backend::testing

#endif  // XFFI_TESTS_CPP_DEVICE_BACKEND_TEST_UTIL_H_
