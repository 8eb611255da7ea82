// CallHandler: one call of a handler through a call frame.
#include "xffi/runtime/call.h"

#include <exception>
#include <optional>
#include <string>
#include <utility>

#include "runtime/api_internal.h"
#include "xffi/runtime/api.h"

namespace xffi {
namespace {

std::string Named(std::string_view target_name) {
  return target_name.empty() ? "handler"
                             : "handler '" + std::string(target_name) + "'";
}

template <typename Invoke>
CallResult Call(Invoke&& invoke, XLA_FFI_CallFrame* frame,
                const CallOptions& options) {
  if (frame == nullptr) {
    return {InvalidArgument("CallHandler: the call frame is null (" +
                            Named(options.target_name) + ")"),
            nullptr};
  }
  if (options.context == nullptr || options.state == nullptr) {
    // Made only when the caller brings none: an executor and an eager call
    // bring both, and their path pays for no empty optionals.
    std::optional<ExecutionContext> default_context;
    std::optional<CallSiteState> call_state;
    CallOptions filled = options;
    if (filled.context == nullptr) filled.context = &default_context.emplace();
    if (filled.state == nullptr) filled.state = &call_state.emplace();
    return Call(std::forward<Invoke>(invoke), frame, filled);
  }
  const XLA_FFI_Api* api = options.api ? options.api : GetApi();
  XLA_FFI_InvokeContext ctx;
  ctx.context = options.context;
  ctx.state = options.state;
  ctx.stage = options.stage;
  ctx.handler_api_minor = options.handler_api_minor;
  ctx.target_name = options.target_name;

  frame->api = api;
  frame->ctx = &ctx;
  frame->stage = options.stage;
  frame->future = nullptr;

  XLA_FFI_Error* error = nullptr;
  try {
    error = invoke(frame);
  } catch (const std::exception& e) {
    frame->ctx = nullptr;
    return {Internal(Named(options.target_name) +
                     " threw a C++ exception: " + e.what()),
            nullptr};
  } catch (...) {
    frame->ctx = nullptr;
    return {Internal(Named(options.target_name) +
                     " threw a C++ exception that is not a std::exception"),
            nullptr};
  }
  // The context dies with this call; do not leave the frame pointing at it.
  frame->ctx = nullptr;
  XLA_FFI_Future* future = frame->future;
  frame->future = nullptr;

  if (error != nullptr) {
    Status status = internal::TakeError(api, error);
    if (future != nullptr && api == GetApi()) {
      // An error and a future together is a handler bug; the error wins,
      // and the runtime still takes its share of the future.
      internal::ClaimFuture(future);
    }
    return {std::move(status), nullptr};
  }
  if (future == nullptr) return {Status::Ok(), nullptr};
  if (api != GetApi()) {
    return {Unimplemented(Named(options.target_name) +
                          " returned a future made by another API table, "
                          "which xffi cannot wait on"),
            nullptr};
  }
  std::shared_ptr<AsyncValue> value = internal::ClaimFuture(future);
  if (value == nullptr) {
    return {InvalidArgument(Named(options.target_name) +
                            " stored in call_frame->future a pointer that "
                            "Future_Create did not return (or one already "
                            "completed and released)"),
            nullptr};
  }
  return {Status::Ok(), std::move(value)};
}

}  // namespace

CallResult CallHandler(XLA_FFI_Handler* handler, XLA_FFI_CallFrame* frame,
                       const CallOptions& options) {
  if (handler == nullptr) {
    return {InvalidArgument("CallHandler: the handler is null (" +
                            Named(options.target_name) + ")"),
            nullptr};
  }
  return Call([handler](XLA_FFI_CallFrame* f) { return handler(f); }, frame,
              options);
}

CallResult CallHandler(HandlerThunk thunk, const void* object,
                       XLA_FFI_CallFrame* frame, const CallOptions& options) {
  if (thunk == nullptr || object == nullptr) {
    return {InvalidArgument("CallHandler: the handler object is null (" +
                            Named(options.target_name) + ")"),
            nullptr};
  }
  return Call(
      [thunk, object](XLA_FFI_CallFrame* f) { return thunk(object, f); }, frame,
      options);
}

CallResult CallHandler(const HandlerRecord& record, XLA_FFI_CallFrame* frame,
                       CallOptions options) {
  XLA_FFI_Handler* handler = nullptr;
  switch (options.stage) {
    case XLA_FFI_ExecutionStage_INSTANTIATE:
      handler = record.bundle.instantiate;
      break;
    case XLA_FFI_ExecutionStage_PREPARE:
      handler = record.bundle.prepare;
      break;
    case XLA_FFI_ExecutionStage_INITIALIZE:
      handler = record.bundle.initialize;
      break;
    case XLA_FFI_ExecutionStage_EXECUTE:
      handler = record.bundle.execute;
      break;
    case XLA_FFI_ExecutionStage_RECORD:
      handler = record.bundle.record;
      break;
  }
  if (handler == nullptr) return {Status::Ok(), nullptr};
  options.handler_api_minor = record.api_minor;
  options.target_name = record.name;
  return CallHandler(handler, frame, options);
}

}  // namespace xffi
