// The device backend: a device per program, then the device executor.
#include "device_backend/device_backend.h"

#include <dlfcn.h>

#include <mutex>
#include <string>
#include <utility>

#include "device/sim_device.h"
#include "device_backend/device_executor.h"

namespace xffi::device_backend {
namespace {

using CreateCudaDevice = device::Device* (*)(int ordinal, Status* status);

// libxffi_cuda.so's entry, loaded once from libxffi_program's directory;
// why not, when it cannot be.
StatusOr<CreateCudaDevice> LoadCudaDevice() {
  static std::once_flag once;
  static CreateCudaDevice create = nullptr;
  static std::string error;
  std::call_once(once, [] {
    Dl_info info;
    std::string directory;
    if (dladdr(reinterpret_cast<void*>(&DefaultDevice), &info) != 0 &&
        info.dli_fname != nullptr) {
      directory = info.dli_fname;
      directory = directory.substr(0, directory.find_last_of('/') + 1);
    }
    const std::string path = directory + "libxffi_cuda.so";
    void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      const char* why = dlerror();
      error = "this xffi has no CudaDevice (" + path +
              " did not load: " + (why ? why : "unknown") + ")";
      return;
    }
    create = reinterpret_cast<CreateCudaDevice>(
        dlsym(library, "XffiCreateCudaDevice"));
    if (create == nullptr) error = path + " has no XffiCreateCudaDevice";
  });
  if (create == nullptr)
    return Status(XLA_FFI_Error_Code_UNAVAILABLE, "no CUDA device: " + error);
  return create;
}

}  // namespace

StatusOr<std::shared_ptr<device::Device>> DefaultDevice(
    const CompileOptions& options) {
  if (options.simulated_device) {
    StatusOr<std::unique_ptr<device::SimDevice>> sim =
        device::SimDevice::Create();
    if (!sim.ok()) return sim.status();
    return std::shared_ptr<device::Device>(std::move(*sim));
  }
  StatusOr<CreateCudaDevice> create = LoadCudaDevice();
  if (!create.ok()) return create.status();
  Status status;
  device::Device* made = (*create)(0, &status);
  if (made == nullptr) return status;
  return std::shared_ptr<device::Device>(made);
}

DeviceBackend::DeviceBackend(DeviceBackendOptions options)
    : options_(std::move(options)) {
  if (!options_.device) options_.device = DefaultDevice;
}

StatusOr<std::unique_ptr<Executable>> DeviceBackend::Compile(
    Module module, const CompileOptions& options) const {
  StatusOr<std::shared_ptr<device::Device>> device = options_.device(options);
  if (!device.ok())
    return Status(device.status().code(),
                  "Compile for CUDA: " + device.status().message());
  return CreateDeviceExecutable(std::move(module), options, std::move(*device));
}

}  // namespace xffi::device_backend
