#include "cuda/cuda_device.h"

#include <cuda_runtime_api.h>

#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cuda/capture_mode.h"
#include "cuda/cublas_library.h"
#include "cuda/cufft_library.h"
#include "cuda/kernel_entries.h"
#include "cuda/kernel_parameters.h"
#include "runtime/status_macros.h"

namespace xffi::cuda {
namespace {

using device::Device;
using device::Event;
using device::Graph;
using device::KernelSpec;
using device::LaunchDims;
using device::Stream;

std::string Describe(cudaError_t error) {
  return std::to_string(static_cast<int>(error)) + " (" +
         cudaGetErrorName(error) + ")";
}

Status CudaFailure(const char* call, cudaError_t error) {
  return Internal(std::string("CUDA: ") + call + " returned " +
                  Describe(error) + ": " + cudaGetErrorString(error));
}

#define XFFI_CUDA_RETURN_IF_ERROR(call)            \
  do {                                             \
    cudaError_t xffi_cuda_error_ = (call);         \
    if (xffi_cuda_error_ != cudaSuccess)           \
      return CudaFailure(#call, xffi_cuda_error_); \
  } while (0)

// The GPU entry of `kernel`: its own, or for specs a host compiler made
// (the device backend's), the one nvcc compiled into this library under the
// same name, when the functor sizes agree.
StatusOr<const void*> EntryFor(const KernelSpec& kernel) {
  if (kernel.cuda_entry != nullptr) return kernel.cuda_entry;
  const device::CudaKernelEntry* compiled = FindCudaKernelEntry(kernel.name);
  if (compiled == nullptr)
    return FailedPrecondition(
        "kernel '" + kernel.name + "' has no GPU entry: " +
        (HasCompiledKernels() ? "no kernel of that name was compiled by nvcc"
                              : "this build did not compile kernels with "
                                "nvcc"));
  if (compiled->functor_size != kernel.functor_size)
    return Internal("kernel '" + kernel.name + "': nvcc compiled it for a " +
                    std::to_string(compiled->functor_size) +
                    "-byte functor, the launch passes " +
                    std::to_string(kernel.functor_size) + " bytes");
  return compiled->entry;
}

class CudaEvent final : public Event {
 public:
  explicit CudaEvent(cudaEvent_t event) : event(event) {}
  ~CudaEvent() override { cudaEventDestroy(event); }
  cudaEvent_t event;
};

class CudaGraph final : public Graph {
 public:
  CudaGraph(cudaGraph_t graph, cudaGraphExec_t exec)
      : graph(graph), exec(exec) {}
  ~CudaGraph() override {
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
  }
  cudaGraph_t graph;
  cudaGraphExec_t exec;
};

class CudaDevice;

class CudaStream final : public Stream {
 public:
  CudaStream(CudaDevice& device, cudaStream_t stream)
      : device_(device), stream_(stream) {}
  ~CudaStream() override {
    cudaStreamSynchronize(stream_);
    cublas_.reset();
    cufft_.reset();
    cudaStreamDestroy(stream_);
  }

  Device& device() const override;
  void* native_handle() override { return stream_; }

  Status CopyHostToDevice(void* dst, const void* src, size_t size) override {
    XFFI_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(dst, src, size, cudaMemcpyHostToDevice, stream_));
    return Status::Ok();
  }
  Status CopyDeviceToHost(void* dst, const void* src, size_t size) override {
    XFFI_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(dst, src, size, cudaMemcpyDeviceToHost, stream_));
    return Status::Ok();
  }
  Status CopyDeviceToDevice(void* dst, const void* src, size_t size) override {
    XFFI_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(dst, src, size, cudaMemcpyDeviceToDevice, stream_));
    return Status::Ok();
  }
  Status Memset(void* dst, uint8_t value, size_t size) override {
    XFFI_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(dst, value, size, stream_));
    return Status::Ok();
  }
  Status Launch(const KernelSpec& kernel, const LaunchDims& dims,
                const void* functor) override {
    StatusOr<const void*> entry = EntryFor(kernel);
    if (!entry.ok()) return entry.status();
    if (kernel.functor_size > kClassicKernelParameterBytes)
      XFFI_RETURN_IF_ERROR(CheckLargeParameters(kernel));
    // ForEachIndexKernel<F> takes the functor by value, its one parameter.
    void* args[] = {const_cast<void*>(functor)};
    XFFI_CUDA_RETURN_IF_ERROR(
        cudaLaunchKernel(*entry, dim3(static_cast<unsigned>(dims.blocks)),
                         dim3(static_cast<unsigned>(dims.threads_per_block)),
                         args, dims.shared_memory_bytes, stream_));
    return Status::Ok();
  }
  Status MatrixMultiply(const device::Gemm& gemm) override {
    XFFI_RETURN_IF_ERROR(device::ValidateGemm(gemm));
    if (cublas_ == nullptr) {
      // The stream's first product: cuBLAS is loaded and bound to it now,
      // outside the rules of a capture this may fall in (capture_mode.h).
      StatusOr<std::shared_ptr<const CublasLibrary>> library =
          CublasLibrary::Default();
      if (!library.ok()) return library.status();
      XFFI_RETURN_IF_ERROR(SetDevice());
      XFFI_RETURN_IF_ERROR(OutsideCaptureRules(CaptureCalls(), [&]() -> Status {
        StatusOr<std::unique_ptr<CublasHandle>> handle =
            (*library)->CreateHandle(stream_);
        if (!handle.ok()) return handle.status();
        cublas_ = std::move(*handle);
        return Status::Ok();
      }));
    }
    return cublas_->Multiply(gemm);
  }
  bool HasFftLibrary() const override { return true; }
  Status Fourier(const device::Fft& fft) override {
    XFFI_RETURN_IF_ERROR(device::ValidateFft(fft));
    if (cufft_ == nullptr) {
      // The stream's first transform: cuFFT is loaded now; its plans are
      // made per shape and bound to this stream.
      StatusOr<std::shared_ptr<const CufftLibrary>> library =
          CufftLibrary::Default();
      if (!library.ok()) return library.status();
      cufft_ = (*library)->PlansFor(stream_);
    }
    XFFI_RETURN_IF_ERROR(SetDevice());
    // A new shape's plan allocates cuFFT's work area (cudaMalloc), which a
    // global-mode capture forbids: planned outside its rules
    // (capture_mode.h). The transform itself is still captured.
    return OutsideCaptureRules(CaptureCalls(),
                               [&]() { return cufft_->Execute(fft); });
  }
  Status AddHostCallback(std::function<void()> callback) override {
    // Kept until the stream dies: a captured graph may replay it.
    auto* held = new std::function<void()>(std::move(callback));
    {
      std::lock_guard<std::mutex> lock(mutex_);
      callbacks_.emplace_back(held);
    }
    XFFI_CUDA_RETURN_IF_ERROR(cudaLaunchHostFunc(
        stream_, [](void* f) { (*static_cast<std::function<void()>*>(f))(); },
        held));
    return Status::Ok();
  }
  Status RecordEvent(Event& event) override {
    XFFI_CUDA_RETURN_IF_ERROR(
        cudaEventRecord(static_cast<CudaEvent&>(event).event, stream_));
    return Status::Ok();
  }
  Status WaitEvent(Event& event) override {
    XFFI_CUDA_RETURN_IF_ERROR(
        cudaStreamWaitEvent(stream_, static_cast<CudaEvent&>(event).event, 0));
    return Status::Ok();
  }
  Status Synchronize() override {
    XFFI_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
    return Status::Ok();
  }
  Status BeginCapture() override {
    XFFI_CUDA_RETURN_IF_ERROR(
        cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal));
    return Status::Ok();
  }
  StatusOr<std::unique_ptr<Graph>> EndCapture() override {
    cudaGraph_t graph = nullptr;
    XFFI_CUDA_RETURN_IF_ERROR(cudaStreamEndCapture(stream_, &graph));
    cudaGraphExec_t exec = nullptr;
    cudaError_t error = cudaGraphInstantiate(&exec, graph, 0);
    if (error != cudaSuccess) {
      cudaGraphDestroy(graph);
      return CudaFailure("cudaGraphInstantiate", error);
    }
    return std::unique_ptr<Graph>(std::make_unique<CudaGraph>(graph, exec));
  }
  Status LaunchGraph(Graph& graph) override {
    XFFI_CUDA_RETURN_IF_ERROR(
        cudaGraphLaunch(static_cast<CudaGraph&>(graph).exec, stream_));
    return Status::Ok();
  }

 private:
  Status SetDevice();
  // Whether the device takes `kernel`'s functor, larger than 4 KB.
  Status CheckLargeParameters(const KernelSpec& kernel);

  // The capture-mode calls for this stream (capture_mode.h).
  CaptureModeCalls CaptureCalls() {
    CaptureModeCalls calls;
    calls.is_capturing = [this]() -> StatusOr<bool> {
      cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
      XFFI_CUDA_RETURN_IF_ERROR(cudaStreamIsCapturing(stream_, &capturing));
      return capturing != cudaStreamCaptureStatusNone;
    };
    calls.exchange_mode = [](int* mode) -> Status {
      auto exchanged = static_cast<cudaStreamCaptureMode>(*mode);
      XFFI_CUDA_RETURN_IF_ERROR(
          cudaThreadExchangeStreamCaptureMode(&exchanged));
      *mode = static_cast<int>(exchanged);
      return Status::Ok();
    };
    calls.relaxed_mode = static_cast<int>(cudaStreamCaptureModeRelaxed);
    return calls;
  }

  CudaDevice& device_;
  cudaStream_t stream_;
  std::unique_ptr<CublasHandle> cublas_;  // made by the first product
  std::unique_ptr<CufftPlans> cufft_;     // made by the first transform
  std::mutex mutex_;
  std::vector<std::unique_ptr<std::function<void()>>> callbacks_;
};

class CudaDevice final : public Device {
 public:
  explicit CudaDevice(int ordinal) : ordinal_(ordinal) {}

  std::string_view name() const override { return "CUDA"; }
  int ordinal() const override { return ordinal_; }

  StatusOr<void*> Allocate(size_t size) override {
    if (size == 0) return static_cast<void*>(nullptr);
    XFFI_CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal_));
    void* data = nullptr;
    XFFI_CUDA_RETURN_IF_ERROR(cudaMalloc(&data, size));
    return data;
  }
  Status Free(void* data) override {
    XFFI_CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal_));
    XFFI_CUDA_RETURN_IF_ERROR(cudaFree(data));
    return Status::Ok();
  }
  bool Holds(const void* data, size_t size) override {
    (void)size;
    cudaPointerAttributes attributes{};
    if (data == nullptr ||
        cudaPointerGetAttributes(&attributes, data) != cudaSuccess) {
      (void)cudaGetLastError();  // not sticky: clear it
      return false;
    }
    return (attributes.type == cudaMemoryTypeDevice ||
            attributes.type == cudaMemoryTypeManaged) &&
           attributes.device == ordinal_;
  }
  StatusOr<std::unique_ptr<Stream>> CreateStream() override {
    XFFI_CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal_));
    cudaStream_t stream = nullptr;
    XFFI_CUDA_RETURN_IF_ERROR(
        cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    return std::unique_ptr<Stream>(std::make_unique<CudaStream>(*this, stream));
  }
  StatusOr<std::unique_ptr<Event>> CreateEvent() override {
    XFFI_CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal_));
    cudaEvent_t event = nullptr;
    XFFI_CUDA_RETURN_IF_ERROR(
        cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    return std::unique_ptr<Event>(std::make_unique<CudaEvent>(event));
  }
  Status SynchronizeEvent(Event& event) override {
    XFFI_CUDA_RETURN_IF_ERROR(
        cudaEventSynchronize(static_cast<CudaEvent&>(event).event));
    return Status::Ok();
  }
  StatusOr<bool> QueryEvent(Event& event) override {
    cudaError_t state = cudaEventQuery(static_cast<CudaEvent&>(event).event);
    if (state == cudaErrorNotReady) return false;
    XFFI_CUDA_RETURN_IF_ERROR(state);
    return true;
  }
  Status Synchronize() override {
    XFFI_CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal_));
    XFFI_CUDA_RETURN_IF_ERROR(cudaDeviceSynchronize());
    return Status::Ok();
  }
  bool HasFftLibrary() const override { return true; }

  // The driver's version and the GPU's compute capability, asked once.
  struct Capabilities {
    int driver_version = 0;
    int compute_major = 0, compute_minor = 0;
  };
  StatusOr<Capabilities> GetCapabilities() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!capabilities_.has_value()) {
      Capabilities found;
      XFFI_CUDA_RETURN_IF_ERROR(cudaDriverGetVersion(&found.driver_version));
      XFFI_CUDA_RETURN_IF_ERROR(cudaDeviceGetAttribute(
          &found.compute_major, cudaDevAttrComputeCapabilityMajor, ordinal_));
      XFFI_CUDA_RETURN_IF_ERROR(cudaDeviceGetAttribute(
          &found.compute_minor, cudaDevAttrComputeCapabilityMinor, ordinal_));
      capabilities_ = found;
    }
    return *capabilities_;
  }

 private:
  int ordinal_;
  std::mutex mutex_;
  std::optional<Capabilities> capabilities_;
};

Device& CudaStream::device() const { return device_; }

Status CudaStream::SetDevice() {
  XFFI_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_.ordinal()));
  return Status::Ok();
}

Status CudaStream::CheckLargeParameters(const KernelSpec& kernel) {
  StatusOr<CudaDevice::Capabilities> capabilities = device_.GetCapabilities();
  if (!capabilities.ok()) return capabilities.status();
  return CheckKernelParameterSize(
      kernel.name, kernel.functor_size, capabilities->driver_version,
      capabilities->compute_major, capabilities->compute_minor);
}

}  // namespace

StatusOr<int> CudaDeviceCount() {
  int count = 0;
  cudaError_t error = cudaGetDeviceCount(&count);
  // No driver (35), the driver's stub library (34) and a driver that sees no
  // GPU (100) all mean the same to a user: there is no device to run on.
  if (error != cudaSuccess || count == 0)
    return Status(XLA_FFI_Error_Code_UNAVAILABLE,
                  "no CUDA device: cudaGetDeviceCount returned " +
                      (error != cudaSuccess ? Describe(error)
                                            : std::string("0 devices")));
  return count;
}

StatusOr<std::unique_ptr<Device>> CreateCudaDevice(int ordinal) {
  StatusOr<int> count = CudaDeviceCount();
  if (!count.ok()) return count.status();
  if (ordinal < 0 || ordinal >= *count)
    return InvalidArgument("CUDA device " + std::to_string(ordinal) +
                           " does not exist; the driver reports " +
                           std::to_string(*count) + " device(s)");
  return std::unique_ptr<Device>(std::make_unique<CudaDevice>(ordinal));
}

}  // namespace xffi::cuda

// The device backend (src/device_backend/) finds CudaDevice through this C
// symbol, loading libxffi_cuda.so only when a program asks for the CUDA
// platform: nothing else in xffi links cudart.
extern "C" __attribute__((visibility("default"))) xffi::device::Device*
XffiCreateCudaDevice(int ordinal, xffi::Status* status) {
  xffi::StatusOr<std::unique_ptr<xffi::device::Device>> device =
      xffi::cuda::CreateCudaDevice(ordinal);
  if (!device.ok()) {
    *status = device.status();
    return nullptr;
  }
  return device->release();
}
