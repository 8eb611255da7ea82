// A test plugin with a handler built with xffi's header, so it describes its
// signature, exported by symbol (with the marker) and not registered.
#include "xffi/ffi.h"

namespace ffi = xffi::ffi;

namespace {

ffi::Error ScaleImpl(ffi::Buffer<ffi::F32, 1> x, float eps,
                     ffi::ResultBuffer<ffi::F32, 1> y) {
  for (size_t i = 0; i < x.element_count(); ++i) {
    y->typed_data()[i] = x.typed_data()[i] * eps;
  }
  return ffi::Error::Success();
}

}  // namespace

XFFI_DEFINE_HANDLER_SYMBOL(DescribedScale, ScaleImpl,
                           ffi::Ffi::Bind()
                               .Arg<ffi::Buffer<ffi::F32, 1>>()
                               .Attr<float>("eps")
                               .Ret<ffi::Buffer<ffi::F32, 1>>());
