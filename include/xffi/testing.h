// xffi: a harness for calling a handler without a program.
//
// Build a call frame (buffers, tokens, attributes of every kind; the
// runtime's CallFrameBuilder, runtime/call_frame.h), then Invoke any
// handler: an XLA_FFI_Handler* built with xffi's or XLA's header, or a
// handler object with `XLA_FFI_Error* Call(XLA_FFI_CallFrame*) const`.
//
//   float x[4] = {...}, y[4];
//   auto frame = xffi::testing::CallFrameBuilder()
//                    .Arg(x, {4}).Ret(y, {4}).Attr("eps", 1e-6f).Build();
//   xffi::testing::InvokeResult result = xffi::testing::Invoke(handler, frame);
//   EXPECT_TRUE(result.ok()) << result.message();
//
// Custom options (CustomOptions_Get) are an attribute dictionary too: build
// a frame holding them and point the context at its attributes:
//   auto options = CallFrameBuilder().Attr("mode", "fast").Build();
//   context.set_custom_options(&options.get()->attrs);
//
// Does not include ffi.h: handlers built with XLA's header are tested too.
#ifndef XFFI_TESTING_H_
#define XFFI_TESTING_H_

#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "xffi/c_api.h"
#include "xffi/runtime/attributes.h"
#include "xffi/runtime/call.h"
#include "xffi/runtime/call_frame.h"
#include "xffi/runtime/context.h"
#include "xffi/runtime/future.h"
#include "xffi/runtime/status.h"

namespace xffi::testing {

// The runtime's call frames and attributes, under the names the harness
// has always used.
using AttrValue = xffi::AttrValue;
using Dictionary = xffi::AttributeMap;
using CallFrame = xffi::CallFrame;
using CallFrameBuilder = xffi::CallFrameBuilder;
using xffi::DataTypeOf;

struct InvokeOptions {
  XLA_FFI_ExecutionStage stage = XLA_FFI_ExecutionStage_EXECUTE;
  ExecutionContext* context = nullptr;  // null: a default Host context
  CallSiteState* state = nullptr;       // reuse across Invokes to keep state
  const XLA_FFI_Api* api = nullptr;     // null: xffi::GetApi()
  // The version the handler reports (decides how State_* calls are read);
  // InvokeRegistered takes it from the registry.
  int handler_api_minor = XLA_FFI_API_MINOR;
  std::string target_name;  // for error messages
};

// The outcome of one call. For an asynchronous call, ok()/code()/message()
// wait for completion first.
class InvokeResult {
 public:
  InvokeResult(Status status, std::shared_ptr<AsyncValue> future);

  bool ok() const { return status().ok(); }
  XLA_FFI_Error_Code code() const { return status().code(); }
  const std::string& message() const { return status().message(); }
  const Status& status() const;

  bool is_async() const { return future_ != nullptr; }
  bool is_ready() const;  // true for a synchronous result
  InvokeResult& Wait();   // blocks until an async result completes
  const std::shared_ptr<AsyncValue>& future() const { return future_; }

 private:
  mutable Status status_;
  std::shared_ptr<AsyncValue> future_;
  mutable bool resolved_;
};

// Calls `handler` with the frame. The frame's storage is kept alive until
// an asynchronous call completes, even if `frame` is destroyed earlier.
InvokeResult Invoke(XLA_FFI_Handler* handler, CallFrame& frame,
                    const InvokeOptions& options = {});

// For handler objects (xffi::ffi / xla::ffi handlers).
InvokeResult InvokeWithThunk(HandlerThunk thunk, const void* object,
                             CallFrame& frame, const InvokeOptions& options);

template <typename H, typename = decltype(std::declval<const H&>().Call(
                          std::declval<XLA_FFI_CallFrame*>()))>
InvokeResult Invoke(const H& handler, CallFrame& frame,
                    const InvokeOptions& options = {}) {
  return InvokeWithThunk(
      [](const void* object, XLA_FFI_CallFrame* call_frame) {
        return static_cast<const H*>(object)->Call(call_frame);
      },
      &handler, frame, options);
}

template <typename H, typename = decltype(std::declval<const H&>().Call(
                          std::declval<XLA_FFI_CallFrame*>()))>
InvokeResult Invoke(const std::unique_ptr<H>& handler, CallFrame& frame,
                    const InvokeOptions& options = {}) {
  if (handler == nullptr) {
    return InvokeResult(InvalidArgument("Invoke: the handler is null"),
                        nullptr);
  }
  return Invoke(*handler, frame, options);
}

// Calls the handler registered as (name, platform): the bundle member for
// options.stage, with the API version the handler reported. A missing
// handler or stage is an error result.
InvokeResult InvokeRegistered(std::string_view name, std::string_view platform,
                              CallFrame& frame, InvokeOptions options = {});

}  // namespace xffi::testing

#endif  // XFFI_TESTING_H_
