// xffi: calling a handler with a call frame.
#ifndef XFFI_RUNTIME_CALL_H_
#define XFFI_RUNTIME_CALL_H_

#include <memory>
#include <string_view>

#include "xffi/c_api.h"
#include "xffi/runtime/context.h"
#include "xffi/runtime/future.h"
#include "xffi/runtime/registry.h"
#include "xffi/runtime/status.h"

namespace xffi {

struct CallOptions {
  XLA_FFI_ExecutionStage stage = XLA_FFI_ExecutionStage_EXECUTE;
  ExecutionContext* context = nullptr;  // null: a default Host context
  CallSiteState* state = nullptr;       // null: state lives only for this call
  // The version the handler reported at registration: it decides how a
  // 48-byte State_Set is read (see c_api.h).
  int handler_api_minor = XLA_FFI_API_MINOR;
  std::string_view target_name;  // for error messages
  // The table placed in frame->api; null: xffi's. Errors the handler returns
  // are read and destroyed through it.
  const XLA_FFI_Api* api = nullptr;
};

struct CallResult {
  Status status;
  std::shared_ptr<AsyncValue> future;  // null when the call completed
};

// Fills frame->api, ctx and stage, clears frame->future, calls the handler
// and converts its error (destroying it) into `status`. A handler that
// returned null with frame->future set completes later: `future` completes
// with its result. The frame's arguments, results and attributes must stay
// alive until then; keeping them alive is the caller's job (the testing
// harness does it for its frames). The invoke context lives only during the
// call: an asynchronous handler must not use it after returning.
CallResult CallHandler(XLA_FFI_Handler* handler, XLA_FFI_CallFrame* frame,
                       const CallOptions& options = {});

// The same for a handler object: `thunk(object, frame)` performs the call.
using HandlerThunk = XLA_FFI_Error* (*)(const void* object,
                                        XLA_FFI_CallFrame* frame);
CallResult CallHandler(HandlerThunk thunk, const void* object,
                       XLA_FFI_CallFrame* frame,
                       const CallOptions& options = {});

// Calls the member of a registered handler's bundle for options.stage, with
// the API version the handler reported and its name for messages (options'
// handler_api_minor and target_name are overridden). A stage the bundle has
// no handler for is skipped with OK, as XLA skips it.
CallResult CallHandler(const HandlerRecord& record, XLA_FFI_CallFrame* frame,
                       CallOptions options = {});

}  // namespace xffi

#endif  // XFFI_RUNTIME_CALL_H_
