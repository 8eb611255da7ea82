// A handler library written the way users write one: everything local in an
// anonymous namespace. The test_ffi_cxx17 unit's clang check compiles it with
// -Wall -Wextra -Werror, because clang warns about members of the
// registration macros' specialisations that GCC never flags (a struct
// attribute in an anonymous namespace once failed with
// -Wunused-const-variable on kAttrType/kDType).
#include "xffi/ffi.h"

namespace {

struct Params {
  float eps;
  int32_t n;
};

enum class Mode : int32_t { kFast = 0, kExact = 1 };

}  // namespace

XFFI_REGISTER_STRUCT_ATTR_DECODING(Params,
                                   xffi::ffi::StructMember<float>("eps"),
                                   xffi::ffi::StructMember<int32_t>("n"));
XFFI_REGISTER_ENUM_ATTR_DECODING(Mode);

namespace {

using xffi::ffi::Buffer;
using xffi::ffi::F32;

xffi::ffi::Error Affine(Params params, Buffer<F32> x,
                        xffi::ffi::ResultBuffer<F32> y) {
  if (x.element_count() != y->element_count()) {
    return xffi::ffi::Error::InvalidArgument("x and y differ in size");
  }
  for (size_t i = 0; i < x.element_count(); ++i) {
    y->typed_data()[i] = x.typed_data()[i] * params.eps + float(params.n);
  }
  return xffi::ffi::Error::Success();
}

xffi::ffi::Error Scale(Mode mode, Buffer<F32> x,
                       xffi::ffi::ResultBuffer<F32> y) {
  const float factor = mode == Mode::kExact ? 1.0f : 2.0f;
  for (size_t i = 0; i < x.element_count(); ++i) {
    y->typed_data()[i] = x.typed_data()[i] * factor;
  }
  return xffi::ffi::Error::Success();
}

}  // namespace

XFFI_DEFINE_HANDLER_SYMBOL(kAffine, Affine,
                           xffi::ffi::Ffi::Bind()
                               .Attrs<Params>()
                               .Arg<Buffer<F32>>()
                               .Ret<Buffer<F32>>());
XFFI_DEFINE_HANDLER_SYMBOL(kScale, Scale,
                           xffi::ffi::Ffi::Bind()
                               .Attr<Mode>("mode")
                               .Arg<Buffer<F32>>()
                               .Ret<Buffer<F32>>());
