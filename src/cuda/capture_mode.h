// xffi: library set-up that must not fall under a stream capture's rules.
//
// CudaDevice captures a program's work into a graph in the global capture
// mode, which forbids, on every thread, the calls that are unsafe while a
// capture is open (cudaMalloc among them). A library's set-up at a stream's
// first use can fall inside such a capture, since a captured program's first
// run is its capture: a cuFFT plan allocates its work area, and cublasCreate
// allocates and initialises the handle's resources (a PyTorch user's
// capture without a warm-up run failed in cublasCreate with
// CUBLAS_STATUS_NOT_INITIALIZED). Either would fail the capture on a GPU.
// So the set-up runs with this thread in relaxed mode, where unsafe calls are
// allowed and not recorded; XLA makes its plans and handles before
// recording, to the same effect. Work the library then enqueues on the
// stream is still captured.
//
// The ordering is host logic and tested with fakes (test_cuda_device): the
// header names no CUDA type.
#ifndef XFFI_SRC_CUDA_CAPTURE_MODE_H_
#define XFFI_SRC_CUDA_CAPTURE_MODE_H_

#include <functional>

#include "xffi/runtime/status.h"

namespace xffi::cuda {

// The CUDA calls OutsideCaptureRules makes, as functions so that tests can
// stand in for them.
struct CaptureModeCalls {
  // Whether the stream is capturing (cudaStreamIsCapturing).
  std::function<StatusOr<bool>()> is_capturing;
  // Swaps `*mode` with the calling thread's capture mode
  // (cudaThreadExchangeStreamCaptureMode).
  std::function<Status(int* mode)> exchange_mode;
  // cudaStreamCaptureModeRelaxed's value.
  int relaxed_mode = 2;
};

// Runs `setup` directly when the stream is not capturing; otherwise with the
// calling thread in relaxed mode, restored to the mode it had afterwards
// whatever `setup` returned. `setup`'s failure is returned first, then a
// failure to restore the mode; a failure to query or switch the mode
// returns before `setup` runs.
Status OutsideCaptureRules(const CaptureModeCalls& calls,
                           const std::function<Status()>& setup);

}  // namespace xffi::cuda

#endif  // XFFI_SRC_CUDA_CAPTURE_MODE_H_
