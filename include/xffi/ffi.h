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
//   ffi/c_operators.h ==, != and << on the C ABI's structs and enums
//   ffi/error.h       Error, ErrorOr, error plumbing through the API table
//   ffi/diagnostic.h  DiagnosticEngine, for decoders written for XLA
//   ffi/future.h      Future, Promise, CountDownPromise
//   ffi/buffer.h      AnyBuffer, Buffer<dtype, rank>, Result, Token,
//                     ArgDecoding, RetDecoding
//   ffi/match.h       buffer patterns: Match, Verify, match::Buffer
//   ffi/remaining.h   RemainingArgs, RemainingRets
//   ffi/attrs.h       attribute decoding, Dictionary, enums, structs
//   ffi/context.h     PlatformStream, ScratchAllocator, ThreadPool, UserData,
//                     State, RunId, DeviceOrdinal, Extension, CustomOptions,
//                     Context, MakeTypeInfo
//   ffi/signature.h   type names for signatures and messages
//   ffi/api.h         Ffi, Binding, Handler, BindTo, ResultEncoding,
//                     registration, RuntimeApi
//   ffi/macros.h      XFFI_DEFINE_HANDLER[_SYMBOL], XFFI_REGISTER_*
//   ffi/xla_compat.h  XLA_FFI_* macro spellings
// The record and collectives extensions have headers of their own, as in
// XLA: ffi/record.h and ffi/collectives.h.
#ifndef XFFI_FFI_H_
#define XFFI_FFI_H_

#include "xffi/c_api.h"
#include "xffi/ffi/api.h"
#include "xffi/ffi/attrs.h"
#include "xffi/ffi/buffer.h"
#include "xffi/ffi/c_operators.h"
#include "xffi/ffi/config.h"
#include "xffi/ffi/context.h"
#include "xffi/ffi/diagnostic.h"
#include "xffi/ffi/error.h"
#include "xffi/ffi/future.h"
#include "xffi/ffi/macros.h"
#include "xffi/ffi/match.h"
#include "xffi/ffi/remaining.h"
#include "xffi/ffi/signature.h"
#include "xffi/ffi/types.h"
#include "xffi/ffi/xla_compat.h"

#endif  // XFFI_FFI_H_
