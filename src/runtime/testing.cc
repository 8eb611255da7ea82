// The testing harness: Invoke and its results (call frames are the
// runtime's, runtime/call_frame.cc).
#include "xffi/testing.h"

#include <string>

#include "xffi/runtime/registry.h"

namespace xffi::testing {

// ---------------------------------------------------------------- InvokeResult

InvokeResult::InvokeResult(Status status, std::shared_ptr<AsyncValue> future)
    : status_(std::move(status)),
      future_(std::move(future)),
      resolved_(future_ == nullptr) {}

const Status& InvokeResult::status() const {
  if (!resolved_) {
    status_ = future_->Wait();
    resolved_ = true;
  }
  return status_;
}

bool InvokeResult::is_ready() const {
  return future_ == nullptr || future_->IsReady();
}

InvokeResult& InvokeResult::Wait() {
  (void)status();
  return *this;
}

// ---------------------------------------------------------------------- Invoke

namespace {

CallOptions ToCallOptions(const InvokeOptions& options) {
  CallOptions call;
  call.stage = options.stage;
  call.context = options.context;
  call.state = options.state;
  call.handler_api_minor = options.handler_api_minor;
  call.target_name = options.target_name;
  call.api = options.api;
  return call;
}

InvokeResult Finish(CallResult result, const CallFrame& frame) {
  if (result.future != nullptr) {
    // The frame's data must outlive the asynchronous work.
    result.future->OnReady(
        [keep = frame.keep_alive()](const Status&) mutable { keep.reset(); });
  }
  return InvokeResult(std::move(result.status), std::move(result.future));
}

}  // namespace

InvokeResult Invoke(XLA_FFI_Handler* handler, CallFrame& frame,
                    const InvokeOptions& options) {
  return Finish(CallHandler(handler, frame.get(), ToCallOptions(options)),
                frame);
}

InvokeResult InvokeWithThunk(HandlerThunk thunk, const void* object,
                             CallFrame& frame, const InvokeOptions& options) {
  return Finish(CallHandler(thunk, object, frame.get(), ToCallOptions(options)),
                frame);
}

InvokeResult InvokeRegistered(std::string_view name, std::string_view platform,
                              CallFrame& frame, InvokeOptions options) {
  StatusOr<const HandlerRecord*> record = FindHandler(name, platform);
  if (!record.ok()) return InvokeResult(record.status(), nullptr);
  const XLA_FFI_Handler_Bundle& bundle = (*record)->bundle;
  XLA_FFI_Handler* handler = nullptr;
  switch (options.stage) {
    case XLA_FFI_ExecutionStage_INSTANTIATE:
      handler = bundle.instantiate;
      break;
    case XLA_FFI_ExecutionStage_PREPARE:
      handler = bundle.prepare;
      break;
    case XLA_FFI_ExecutionStage_INITIALIZE:
      handler = bundle.initialize;
      break;
    case XLA_FFI_ExecutionStage_EXECUTE:
      handler = bundle.execute;
      break;
    case XLA_FFI_ExecutionStage_RECORD:
      handler = bundle.record;
      break;
  }
  if (handler == nullptr) {
    return InvokeResult(
        NotFound("handler '" + std::string(name) + "' (platform " +
                 std::string(PlatformName((*record)->platform)) + ") has no " +
                 ExecutionStageName(options.stage) + " handler"),
        nullptr);
  }
  options.handler_api_minor = (*record)->api_minor;
  if (options.target_name.empty()) options.target_name = std::string(name);
  return Invoke(handler, frame, options);
}

}  // namespace xffi::testing
