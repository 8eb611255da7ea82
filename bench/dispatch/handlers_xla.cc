// The benchmark's handlers bound with jaxlib's official FFI 0.3 ffi.h (the
// peer). handlers_xffi.cc binds the same bodies with xffi's header; keep the
// two files parallel.
#include <cstdint>
#include <string_view>

#include "xla/ffi/api/c_api.h"
#include "xla/ffi/api/ffi.h"

#include "cases.h"

namespace ffi = xla::ffi;

XLA_FFI_REGISTER_STRUCT_ATTR_DECODING(bench::I32x4,
                                      ::xla::ffi::StructMember<int32_t>("a"),
                                      ::xla::ffi::StructMember<int32_t>("b"),
                                      ::xla::ffi::StructMember<int32_t>("c"),
                                      ::xla::ffi::StructMember<int32_t>("d"));
XLA_FFI_REGISTER_ENUM_ATTR_DECODING(bench::Level);

namespace {
using Any = ffi::AnyBuffer;
using F32R2 = ffi::Buffer<ffi::F32, 2>;
using bench::I32x4;
using bench::Level;
}  // namespace

XLA_FFI_DEFINE_HANDLER_SYMBOL(BenchXla_AnyBufferX1,
                              (bench::BufferBody<ffi::Error, Any>),
                              (ffi::Ffi::Bind().Arg<Any>()));
XLA_FFI_DEFINE_HANDLER_SYMBOL(
    BenchXla_AnyBufferX4, (bench::BufferBody<ffi::Error, Any, Any, Any, Any>),
    (ffi::Ffi::Bind().Arg<Any>().Arg<Any>().Arg<Any>().Arg<Any>()));
XLA_FFI_DEFINE_HANDLER_SYMBOL(
    BenchXla_AnyBufferX8,
    (bench::BufferBody<ffi::Error, Any, Any, Any, Any, Any, Any, Any, Any>),
    (ffi::Ffi::Bind()
         .Arg<Any>()
         .Arg<Any>()
         .Arg<Any>()
         .Arg<Any>()
         .Arg<Any>()
         .Arg<Any>()
         .Arg<Any>()
         .Arg<Any>()));

XLA_FFI_DEFINE_HANDLER_SYMBOL(BenchXla_BufferF32R2X1,
                              (bench::BufferBody<ffi::Error, F32R2>),
                              (ffi::Ffi::Bind().Arg<F32R2>()));
XLA_FFI_DEFINE_HANDLER_SYMBOL(
    BenchXla_BufferF32R2X4,
    (bench::BufferBody<ffi::Error, F32R2, F32R2, F32R2, F32R2>),
    (ffi::Ffi::Bind().Arg<F32R2>().Arg<F32R2>().Arg<F32R2>().Arg<F32R2>()));
XLA_FFI_DEFINE_HANDLER_SYMBOL(
    BenchXla_BufferF32R2X8,
    (bench::BufferBody<ffi::Error, F32R2, F32R2, F32R2, F32R2, F32R2, F32R2,
                       F32R2, F32R2>),
    (ffi::Ffi::Bind()
         .Arg<F32R2>()
         .Arg<F32R2>()
         .Arg<F32R2>()
         .Arg<F32R2>()
         .Arg<F32R2>()
         .Arg<F32R2>()
         .Arg<F32R2>()
         .Arg<F32R2>()));

XLA_FFI_DEFINE_HANDLER_SYMBOL(BenchXla_ScalarAttrsX16,
                              bench::ScalarBody<ffi::Error>,
                              (ffi::Ffi::Bind()
                                   .Attr<int32_t>("i32_0")
                                   .Attr<int32_t>("i32_1")
                                   .Attr<int32_t>("i32_2")
                                   .Attr<int32_t>("i32_3")
                                   .Attr<int64_t>("i64_0")
                                   .Attr<int64_t>("i64_1")
                                   .Attr<int64_t>("i64_2")
                                   .Attr<int64_t>("i64_3")
                                   .Attr<float>("f32_0")
                                   .Attr<float>("f32_1")
                                   .Attr<float>("f32_2")
                                   .Attr<float>("f32_3")
                                   .Attr<double>("f64_0")
                                   .Attr<double>("f64_1")
                                   .Attr<double>("f64_2")
                                   .Attr<double>("f64_3")));

XLA_FFI_DEFINE_HANDLER_SYMBOL(BenchXla_StructAttrsX4,
                              bench::StructBody<ffi::Error>,
                              (ffi::Ffi::Bind()
                                   .Attr<I32x4>("t0")
                                   .Attr<I32x4>("t1")
                                   .Attr<I32x4>("t2")
                                   .Attr<I32x4>("t3")));

XLA_FFI_DEFINE_HANDLER_SYMBOL(BenchXla_EnumAttrsX5, bench::EnumBody<ffi::Error>,
                              (ffi::Ffi::Bind()
                                   .Attr<Level>("e0")
                                   .Attr<Level>("e1")
                                   .Attr<Level>("e2")
                                   .Attr<Level>("e3")
                                   .Attr<Level>("e4")));
