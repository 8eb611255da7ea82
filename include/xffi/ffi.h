// xffi's C++ binding library for FFI handlers: header-only, C++17, spelled
// like XLA's so that porting a handler means `namespace ffi = xffi::ffi;`.
// A handler library built with it needs no xffi library, so it loads into
// JAX/XLA as well as into xffi (see examples/rms_norm):
//
//   XFFI_DEFINE_HANDLER_SYMBOL(RmsNorm, RmsNormImpl,
//                              ffi::Ffi::Bind()
//                                  .Attr<float>("eps")
//                                  .Arg<ffi::Buffer<ffi::F32>>()
//                                  .Ret<ffi::Buffer<ffi::F32>>());
//
// The pieces, one concept each:
//   ffi/config.h      compiler attributes, XFFI_TARGET_API_MINOR
//   ffi/types.h       DataType, NativeType, ByteWidth, Span, TypeId, stages
//   ffi/error.h       Error, ErrorOr, error plumbing through the API table
//   ffi/future.h      Future, Promise, CountDownPromise
//   ffi/buffer.h      AnyBuffer, Buffer<dtype, rank>, Result, Token
//   ffi/remaining.h   RemainingArgs, RemainingRets
//   ffi/attrs.h       attribute decoding, Dictionary, enums, structs
//   ffi/context.h     PlatformStream, ScratchAllocator, ThreadPool, UserData,
//                     State, RunId, DeviceOrdinal, Extension, CustomOptions,
//                     Context, MakeTypeInfo
//   ffi/signature.h   type names for signatures and messages
//   ffi/api.h         Ffi, Binding, Handler, BindTo, registration, RuntimeApi
//   ffi/macros.h      XFFI_DEFINE_HANDLER[_SYMBOL], XFFI_REGISTER_*
//   ffi/xla_compat.h  XLA_FFI_* macro spellings
#ifndef XFFI_FFI_H_
#define XFFI_FFI_H_

#include "xffi/c_api.h"
#include "xffi/ffi/api.h"
#include "xffi/ffi/attrs.h"
#include "xffi/ffi/buffer.h"
#include "xffi/ffi/config.h"
#include "xffi/ffi/context.h"
#include "xffi/ffi/error.h"
#include "xffi/ffi/future.h"
#include "xffi/ffi/macros.h"
#include "xffi/ffi/remaining.h"
#include "xffi/ffi/signature.h"
#include "xffi/ffi/types.h"
#include "xffi/ffi/xla_compat.h"

#endif  // XFFI_FFI_H_
