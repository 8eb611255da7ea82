// xffi: the device backend, behind Compile for the CUDA platform.
//
// Runs a program on a Device (device_executor.h): a GPU through CudaDevice,
// or xffi's simulated GPU when CompileOptions::simulated_device is set. It
// lives in its own folder, beside cpu/ and not in cuda/, because everything
// in it is written against the Device seam only and is always built and
// tested on SimDevice; cuda/ holds what needs the CUDA toolkit.
#ifndef XFFI_SRC_DEVICE_BACKEND_DEVICE_BACKEND_H_
#define XFFI_SRC_DEVICE_BACKEND_DEVICE_BACKEND_H_

#include <functional>
#include <memory>

#include "compiler/backend.h"
#include "device/device.h"

namespace xffi::device_backend {

using DeviceFactory = std::function<StatusOr<std::shared_ptr<device::Device>>(
    const CompileOptions& options)>;

struct DeviceBackendOptions {
  // The device each compiled program runs on; empty: DefaultDevice. Tests
  // give one SimDevice to look into it (inject errors, count memory).
  DeviceFactory device;
};

// A fresh SimDevice when options.simulated_device, else CUDA GPU 0 —
// UNAVAILABLE "no CUDA device: ..." on a machine without one, or without
// libxffi_cuda.so beside libxffi_program.
StatusOr<std::shared_ptr<device::Device>> DefaultDevice(
    const CompileOptions& options);

class DeviceBackend final : public compiler::Backend {
 public:
  explicit DeviceBackend(DeviceBackendOptions options = {});

  std::string_view name() const override { return "CUDA"; }
  StatusOr<std::unique_ptr<Executable>> Compile(
      Module module, const CompileOptions& options) const override;

 private:
  DeviceBackendOptions options_;
};

}  // namespace xffi::device_backend

#endif  // XFFI_SRC_DEVICE_BACKEND_DEVICE_BACKEND_H_
