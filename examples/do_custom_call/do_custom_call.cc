// A[i] = B[i % 128] + C[i], the typed-FFI form of XLA's custom-call example:
// B has 128 elements, C and A the same (any) number.
#include <cstdint>

#include "xffi/ffi.h"

namespace ffi = xffi::ffi;

namespace {

constexpr int64_t kPeriod = 128;

ffi::Error DoCustomCallImpl(ffi::Buffer<ffi::F32, 1> b,
                            ffi::Buffer<ffi::F32, 1> c,
                            ffi::ResultBuffer<ffi::F32, 1> a) {
  if (b.dimensions()[0] != kPeriod) {
    return ffi::Error::InvalidArgument(
        "do_custom_call: B must have 128 elements");
  }
  int64_t n = c.dimensions()[0];
  if (a->dimensions()[0] != n) {
    return ffi::Error::InvalidArgument(
        "do_custom_call: A and C must have the same length");
  }
  const float* b_data = b.typed_data();
  const float* c_data = c.typed_data();
  float* a_data = a->typed_data();
  for (int64_t i = 0; i < n; ++i) a_data[i] = b_data[i % kPeriod] + c_data[i];
  return ffi::Error::Success();
}

}  // namespace

XFFI_DEFINE_HANDLER_SYMBOL(DoCustomCall, DoCustomCallImpl,
                           ffi::Ffi::Bind()
                               .Arg<ffi::Buffer<ffi::F32, 1>>()
                               .Arg<ffi::Buffer<ffi::F32, 1>>()
                               .Ret<ffi::Buffer<ffi::F32, 1>>());

XFFI_REGISTER_HANDLER_WITH_RUNTIME("do_custom_call", "Host", DoCustomCall);
