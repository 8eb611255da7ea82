// RMS normalisation over the last dimension, y = x / sqrt(mean(x^2) + eps):
// the handler JAX's FFI tutorial uses, written against xffi's header. The
// library links no xffi library, so it loads into JAX as well.
//
//   jax.ffi.register_ffi_target("rms_norm", jax.ffi.pycapsule(lib.RmsNorm))
#include <cmath>
#include <cstdint>

#include "xffi/ffi.h"

namespace ffi = xffi::ffi;

namespace {

float ComputeRmsNorm(float eps, int64_t size, const float* x, float* y) {
  float sum_of_squares = 0.0f;
  for (int64_t i = 0; i < size; ++i) sum_of_squares += x[i] * x[i];
  float scale = 1.0f / std::sqrt(sum_of_squares / size + eps);
  for (int64_t i = 0; i < size; ++i) y[i] = x[i] * scale;
  return scale;
}

ffi::Error RmsNormImpl(float eps, ffi::Buffer<ffi::F32> x,
                       ffi::ResultBuffer<ffi::F32> y) {
  auto dims = x.dimensions();
  if (dims.empty()) {
    return ffi::Error::InvalidArgument("rms_norm: x must have rank >= 1");
  }
  if (y->dimensions() != dims) {
    return ffi::Error::InvalidArgument("rms_norm: y must have the shape of x");
  }
  int64_t last = dims.back();
  if (last == 0) return ffi::Error::Success();
  int64_t rows = static_cast<int64_t>(x.element_count()) / last;
  for (int64_t row = 0; row < rows; ++row) {
    ComputeRmsNorm(eps, last, x.typed_data() + row * last,
                   y->typed_data() + row * last);
  }
  return ffi::Error::Success();
}

}  // namespace

XFFI_DEFINE_HANDLER_SYMBOL(RmsNorm, RmsNormImpl,
                           ffi::Ffi::Bind()
                               .Attr<float>("eps")
                               .Arg<ffi::Buffer<ffi::F32>>()
                               .Ret<ffi::Buffer<ffi::F32>>());

// Inside an xffi process the handler is also registered by name; inside JAX
// this does nothing (register it from Python there).
XFFI_REGISTER_HANDLER_WITH_RUNTIME("rms_norm", "Host", RmsNorm);
