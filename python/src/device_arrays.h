// Arrays on a device, from and to Python: DLPack producers whose memory is
// on a GPU (CuPy, JAX on GPU) or on xffi's simulated GPU, handed to a
// program without a trip through the host; and xffi.DeviceArray, the
// results a device program leaves on its device.
//
// DLPack device types: a CudaDevice's memory is kDLCUDA with the GPU's
// ordinal. SimDevice memory is kDLExtDev (DLPack's "reserved extension
// device", meant for testing new devices), ordinal 0: the Python package
// runs every "sim" program on one SimDevice per process, so one program's
// device results are the next one's device arguments.
//
// Streams (DLPack's __dlpack__(stream=...)): a producer on the program's
// device is handed the stream the run will use, so that it orders its
// pending work before that stream (CuPy and PyTorch record an event on
// their current stream and make the given one wait for it; JAX makes it
// wait until the buffer is defined) and the host waits for nothing. For
// kDLCUDA the value is the cudaStream_t as an int, as the DLPack Python
// spec says (1 and 2 being the legacy and per-thread default streams). For
// kDLExtDev, whose streams DLPack leaves to the libraries that agree on
// them, xffi's convention is the same: the int is the run's
// device::Stream* on the simulated GPU (Stream::native_handle).
#ifndef XFFI_PYTHON_DEVICE_ARRAYS_H_
#define XFFI_PYTHON_DEVICE_ARRAYS_H_

#include <nanobind/nanobind.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "device/device.h"
#include "xffi/program/ir.h"

namespace xffi::python {

// dlpack.h's DLDeviceType values this file speaks.
inline constexpr int32_t kDlpackCpu = 1;
inline constexpr int32_t kDlpackCuda = 2;
inline constexpr int32_t kDlpackExtDev = 12;

// The process's SimDevice for platform "sim" (made at first use).
std::shared_ptr<device::Device> PythonSimDevice();
// The DLPack device type of `device`'s memory.
int32_t DlpackDeviceTypeOf(const device::Device& device);

// One argument leaf from a DLPack producer that is not on the CPU.
struct DeviceArgument {
  // Set when the memory is on `program_device`: its address there.
  const void* device_data = nullptr;
  // Otherwise a C-contiguous host copy (a NumPy array) to take instead.
  nanobind::object host_copy;
  // Keeps the producer's tensor alive until the run ends.
  nanobind::object keep;
  // The producer could not be handed the run's stream (its __dlpack__ takes
  // no stream keyword, or refuses the value with TypeError or
  // NotImplementedError): it was asked again without one, which DLPack
  // reads as CUDA's legacy default stream, which the program's streams
  // (non-blocking) do not wait for, so the whole device must be
  // synchronised before the run. Also a kDLCUDA producer when no run stream
  // was offered.
  bool needs_device_wait = false;
};

// The stream a program's run will use, made when first asked for (the run
// is then reserved: device_backend::ReserveRun); raises on failure.
using RunStream = std::function<device::Stream*()>;

// Null when `value` has no __dlpack_device__ or names the CPU: the caller
// takes it as a host array. Otherwise the producer's tensor, checked
// against the parameter (dtype, shape, row-major strides; errors name
// `where`; ElementType::kInvalid: the tensor's own dtype and shape): on
// `program_device` (null for a host program) it is taken as it is, its
// producer handed `run_stream()` as the stream argument (above); on another
// device it is copied to the host through that device (the producer asked
// with stream=1 for kDLCUDA, None otherwise, and that device synchronised),
// and a kDLCUDA array where no CUDA device exists raises "no CUDA device:
// ..." before its producer is asked for anything.
std::unique_ptr<DeviceArgument> TakeDeviceArgument(
    nanobind::handle value, device::Device* program_device,
    const RunStream& run_stream, ElementType element_type,
    std::vector<int64_t> dims, const std::string& where);

// A NumPy copy of a DLPack producer's tensor on a device (row-major, its
// own dtype and shape); None for a CPU producer. For eager ffi_call, which
// runs on the host.
nanobind::object HostCopyOfDeviceArray(nanobind::handle value,
                                       const std::string& where);

// Waits until the producers' work on `device` is done; the arguments are
// then ready for the program's stream whatever stream wrote them.
void SynchronizeDeviceArguments(device::Device& device);

// Memory on a device that frees itself: a DeviceArray's, and what a
// DLPack capsule of it refers to.
class DeviceBuffer {
 public:
  static std::shared_ptr<DeviceBuffer> Allocate(
      std::shared_ptr<device::Device> device, size_t size);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() const { return data_; }
  device::Device& device() const { return *device_; }
  const std::shared_ptr<device::Device>& shared_device() const {
    return device_;
  }

 private:
  DeviceBuffer(std::shared_ptr<device::Device> device, void* data)
      : device_(std::move(device)), data_(data) {}
  std::shared_ptr<device::Device> device_;
  void* data_;
};

// A new xffi.DeviceArray over `buffer` (row-major, `type`, `dims`).
nanobind::object NewDeviceArray(std::shared_ptr<DeviceBuffer> buffer,
                                ElementType type, std::vector<int64_t> dims);

}  // namespace xffi::python

#endif  // XFFI_PYTHON_DEVICE_ARRAYS_H_
