// xffi: the Device seam — what the runtime, the FFI and legacy plumbing and
// (later) the device executor need from a GPU, and nothing more.
//
// Two implementations: SimDevice (sim_device.h), a simulated GPU that is
// always built and stricter than a real one, and CudaDevice (src/cuda/), a
// thin layer over the CUDA runtime. Code written against these classes is
// tested here on SimDevice and runs unchanged on a GPU.
//
// The model is CUDA's: work is enqueued on streams and runs in stream order;
// events order work across streams and let the host wait; errors of enqueued
// work are asynchronous and surface at the next synchronisation; a capture
// records a stream's work into a graph that can be replayed.
#ifndef XFFI_SRC_DEVICE_DEVICE_H_
#define XFFI_SRC_DEVICE_DEVICE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "device/fft.h"
#include "device/gemm.h"
#include "device/kernel.h"
#include "xffi/runtime/status.h"

namespace xffi::device {

class Device;

// Created by a Device; marks a point in a stream's work.
class Event {
 public:
  virtual ~Event() = default;
};

// A captured sequence of work, replayed with Stream::LaunchGraph.
class Graph {
 public:
  virtual ~Graph() = default;
};

class Stream {
 public:
  virtual ~Stream() = default;  // completes the stream's work first

  virtual Device& device() const = 0;
  // What handlers receive as their platform stream (XLA_FFI_Stream_Get,
  // the legacy ABI's first argument): the cudaStream_t on CUDA, this Stream
  // on SimDevice.
  virtual void* native_handle() = 0;

  // Enqueued work. Host memory given to a copy must stay valid, and a copy's
  // host source unchanged, until the stream has run the copy.
  virtual Status CopyHostToDevice(void* device_dst, const void* host_src,
                                  size_t size) = 0;
  virtual Status CopyDeviceToHost(void* host_dst, const void* device_src,
                                  size_t size) = 0;
  virtual Status CopyDeviceToDevice(void* device_dst, const void* device_src,
                                    size_t size) = 0;
  virtual Status Memset(void* device_dst, uint8_t value, size_t size) = 0;
  // `functor` points to a value of the kernel's functor type.
  virtual Status Launch(const KernelSpec& kernel, const LaunchDims& dims,
                        const void* functor) = 0;
  // For each batch member, C = op(A) . op(B) (gemm.h): cuBLAS on CUDA,
  // loaded when a stream first multiplies. Enqueued like a launch; an
  // invalid product fails here, naming the field.
  virtual Status MatrixMultiply(const Gemm& gemm) = 0;
  // Whether Fourier runs on this device: CUDA's cuFFT, loaded when a stream
  // first transforms. SimDevice has no FFT library: its callers launch
  // their own kernels, whose host code it runs.
  virtual bool HasFftLibrary() const { return false; }
  // Enqueues `fft` (fft.h; inverse transforms unscaled, as cuFFT computes
  // them). An invalid transform fails here, naming the field; the device's
  // plan for its shape is made on first use and kept with the stream.
  virtual Status Fourier(const Fft& fft);  // UNIMPLEMENTED, naming both
  // Runs on a host thread when the stream reaches it; must not call the
  // device (CUDA forbids it, SimDevice reports it).
  virtual Status AddHostCallback(std::function<void()> callback) = 0;

  virtual Status RecordEvent(Event& event) = 0;
  // Later work on this stream waits for the event's latest recording.
  virtual Status WaitEvent(Event& event) = 0;
  // Waits for the stream's work; returns the first asynchronous error it
  // raised since the last synchronisation.
  virtual Status Synchronize() = 0;

  // Until EndCapture, enqueued work is recorded instead of run. While a
  // capture is open, calls that would synchronise (Synchronize, Allocate,
  // Free, ...) fail and invalidate it.
  virtual Status BeginCapture() = 0;
  virtual StatusOr<std::unique_ptr<Graph>> EndCapture() = 0;
  virtual Status LaunchGraph(Graph& graph) = 0;
};

class Device {
 public:
  virtual ~Device() = default;  // streams, events and graphs die first

  // "SimDevice" or "CUDA", for messages.
  virtual std::string_view name() const = 0;
  virtual int ordinal() const = 0;

  // Device memory: aligned to kAllocationAlignment; not readable by the host.
  // Allocate(0) is null. Free waits for the device's outstanding work.
  static constexpr size_t kAllocationAlignment = 256;
  virtual StatusOr<void*> Allocate(size_t size) = 0;
  virtual Status Free(void* data) = 0;
  // Whether [data, data + size) is this device's memory, which its streams'
  // work may address (the device executor binds such an argument in place
  // of copying it). CUDA checks the start only (the runtime API cannot tell
  // an allocation's extent).
  virtual bool Holds(const void* data, size_t size) = 0;

  virtual StatusOr<std::unique_ptr<Stream>> CreateStream() = 0;
  virtual StatusOr<std::unique_ptr<Event>> CreateEvent() = 0;
  // Waits for the event's latest recording (at once if never recorded).
  virtual Status SynchronizeEvent(Event& event) = 0;
  // Without waiting: true once the work before the event's latest recording
  // has run (at once if never recorded), false while it has not; an error
  // when that work, or earlier work on its stream not yet reported by a
  // synchronisation, failed asynchronously (it did not complete cleanly).
  // The device executor names a failing custom call by it. On CUDA an
  // asynchronous error is usually sticky, so every later query reports it.
  virtual StatusOr<bool> QueryEvent(Event& event) = 0;
  // Waits for every stream; returns the first asynchronous error.
  virtual Status Synchronize() = 0;
  // Whether its streams' Fourier runs (Stream::HasFftLibrary), asked when a
  // program is compiled for it: an fft then reserves no workspace of its
  // own, since the library's plans bring their own work areas.
  virtual bool HasFftLibrary() const { return false; }
};

// A typed launch: checks that `functor` has the kernel's functor type.
template <typename F>
Status Launch(Stream& stream, const KernelSpec& kernel, const LaunchDims& dims,
              const F& functor) {
  if (kernel.functor_type != &internal::FunctorTypeTag<F>::tag)
    return InvalidArgument("kernel '" + kernel.name +
                           "' launched with a functor of another type");
  return stream.Launch(kernel, dims, &functor);
}

// Launches functor kernel F without a registered spec: the spec is made
// once per functor type, named `name` (host code only, so this runs on
// SimDevice; CudaDevice needs a spec with the nvcc-compiled entry).
template <typename F>
Status LaunchFunctor(Stream& stream, const char* name, const LaunchDims& dims,
                     const F& functor) {
  static const KernelSpec spec = MakeKernelSpec<F>(name);
  return Launch(stream, spec, dims, functor);
}

}  // namespace xffi::device

#endif  // XFFI_SRC_DEVICE_DEVICE_H_
