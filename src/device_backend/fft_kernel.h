// xffi: one pass of an FFT along one axis as a `__host__ __device__`
// functor: a direct DFT per output element, O(length) each.
//
// Correctness first: the twiddle of (j·k mod L) / L is computed in double
// per term, so the sum is as accurate as the Host backend's FFT at the
// lengths programs use. cuFFT (dlopen'ed like cuBLAS) is the fast route on
// a real GPU and is not wired yet (see fft.h).
#ifndef XFFI_SRC_DEVICE_BACKEND_FFT_KERNEL_H_
#define XFFI_SRC_DEVICE_BACKEND_FFT_KERNEL_H_

#include "device_backend/device_kernels.h"

namespace xffi::device_backend {

enum class DftMode : int32_t {
  kComplex,        // L complex in, L complex out
  kRealToComplex,  // L real in, L/2 + 1 complex out (the rest is implied)
  kComplexToReal,  // L/2 + 1 complex in (Hermitian), L real out
};

// The arrays are [outer, axis, inner] row-major; output element
// (o, j, p) = Σ_k in(o, k, p) · e^(∓2πi·jk/L), with the sign + and a factor
// 1/L when `inverse`.
struct DftKernel {
  static constexpr const char* kName = "xffi.device.dft";
  const uint8_t* in = nullptr;
  uint8_t* out = nullptr;
  DType in_type = DType::kC64, out_type = DType::kC64;
  DftMode mode = DftMode::kComplex;
  bool inverse = false;
  int64_t n = 0;       // output elements
  int64_t length = 1;  // L
  int64_t in_axis = 1, out_axis = 1;
  int64_t inner = 1;

  XFFI_HOST_DEVICE void operator()(int64_t i) const {
    if (i >= n) return;
    const int64_t p = i % inner;
    const int64_t j = (i / inner) % out_axis;
    const int64_t o = i / (inner * out_axis);
    const int64_t base = o * in_axis * inner + p;
    const double sign = inverse ? 1.0 : -1.0;
    const double turn = 6.283185307179586476925286766559 / length;
    double re = 0, im = 0;
    for (int64_t k = 0; k < length; ++k) {
      Value x;
      if (mode == DftMode::kComplexToReal && k >= in_axis) {
        // Beyond the stored half: the conjugate of its mirror.
        x = Load(in, base + (length - k) * inner, in_type);
        x.im = -x.im;
      } else {
        x = Load(in, base + k * inner, in_type);
        if (mode == DftMode::kRealToComplex) x.im = 0;
      }
      const double angle = sign * turn * static_cast<double>((j * k) % length);
      const double c = cos(angle), s = sin(angle);
      re += x.f * c - x.im * s;
      im += x.f * s + x.im * c;
    }
    Value y;
    const double scale = inverse ? 1.0 / static_cast<double>(length) : 1.0;
    y.f = re * scale;
    y.im = mode == DftMode::kComplexToReal ? 0 : im * scale;
    Store(out, i, out_type, y);
  }

  template <typename Visit>
  void VisitDevicePointers(Visit&& visit) {
    visit(in);
    visit(out);
  }
};

}  // namespace xffi::device_backend

#endif  // XFFI_SRC_DEVICE_BACKEND_FFT_KERNEL_H_
