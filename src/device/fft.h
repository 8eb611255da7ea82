// xffi: a batched FFT, the one FFT-library call the Device seam carries
// (Stream::Fourier).
//
// Described as XLA lays out an fft's buffers: `batch` contiguous row-major
// arrays of `lengths` (the last 1-3 dimensions), complex elements
// interleaved. CudaDevice runs it through cuFFT's cufftPlanMany with the
// default (packed) layout; devices without an FFT library refuse it, and the
// device backend then runs its own kernels (device_backend/fft_kernel.h).
#ifndef XFFI_SRC_DEVICE_FFT_H_
#define XFFI_SRC_DEVICE_FFT_H_

#include <cstdint>
#include <string>

#include "xffi/runtime/status.h"

namespace xffi::device {

enum class FftKind : int32_t {
  kForward,        // complex to complex, e^-2πi jk/n
  kInverse,        // complex to complex, e^+2πi jk/n, NOT scaled by 1/n
  kRealToComplex,  // n real to n/2 + 1 complex along the last dimension
  kComplexToReal,  // the reverse (Hermitian input), not scaled; the input
                   // may be overwritten (cuFFT's C2R does)
};

struct Fft {
  FftKind kind = FftKind::kForward;
  bool double_precision = false;   // c128/f64, else c64/f32
  int32_t rank = 1;                // 1-3
  int64_t lengths[3] = {1, 1, 1};  // the logical (real-side) sizes
  int64_t batch = 1;
  const void* in = nullptr;
  void* out = nullptr;
};

// INVALID_ARGUMENT naming the field: a rank outside 1-3, lengths below 1, a
// negative batch, null data with a non-empty transform.
Status ValidateFft(const Fft& fft);

// Bytes of each side: the complex side holds lengths[rank-1] / 2 + 1
// elements along the last dimension for the real transforms.
size_t FftInputBytes(const Fft& fft);
size_t FftOutputBytes(const Fft& fft);

// "c64 inverse fft 4x[8x16]", for messages.
std::string DescribeFft(const Fft& fft);

}  // namespace xffi::device

#endif  // XFFI_SRC_DEVICE_FFT_H_
