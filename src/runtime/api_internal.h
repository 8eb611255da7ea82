// xffi runtime internals shared by the API table's implementation files:
// the definitions of the C ABI's opaque types and the entry points the
// table points at.
#ifndef XFFI_SRC_RUNTIME_API_INTERNAL_H_
#define XFFI_SRC_RUNTIME_API_INTERNAL_H_

#include <memory>
#include <string>
#include <string_view>

#include "xffi/c_api.h"
#include "xffi/record_c_api.h"
#include "xffi/runtime/collectives.h"
#include "xffi/runtime/context.h"
#include "xffi/runtime/future.h"
#include "xffi/runtime/status.h"

// An error is a status owned by whoever holds the pointer until it is
// destroyed (or handed to the runtime).
struct XLA_FFI_Error {
  xffi::Status status;
};

// Lives on CallHandler's stack for the duration of one call.
struct XLA_FFI_InvokeContext {
  xffi::ExecutionContext* context = nullptr;
  xffi::CallSiteState* state = nullptr;
  XLA_FFI_ExecutionStage stage = XLA_FFI_ExecutionStage_EXECUTE;
  int handler_api_minor = XLA_FFI_API_MINOR;
  std::string_view target_name;
  // Backend extensions made for this call, because they depend on its stage
  // and device; written by InvokeContext_FindExtension when asked for, and
  // left uninitialised otherwise so a call pays nothing for them.
  xffi::HostCollectives::CallExtension collectives;
  XLA_FFI_Record_Extension record;
  // A second lookup in the same call must see the same recording, not
  // begin the next one.
  bool record_bound = false;
};

namespace xffi::internal {

// Null for an OK status.
XLA_FFI_Error* MakeError(Status status);

// Reads and destroys an error made by `api` (any table: the message comes
// through its GetDetails/GetMessage slot according to its version).
Status TakeError(const XLA_FFI_Api* api, XLA_FFI_Error* error);

// The checks every entry point starts with: `args` is not null and its
// struct_size covers `required` bytes. Errors name the function, the struct
// and both sizes.
Status CheckArgsHeader(const char* function, const char* struct_name,
                       const void* args, size_t struct_size, size_t required);

template <typename Args>
Status CheckArgs(const char* function, const char* struct_name,
                 const Args* args, size_t required) {
  return CheckArgsHeader(function, struct_name, args,
                         args ? args->struct_size : 0, required);
}

// The invoke context behind `ctx`, or INVALID_ARGUMENT when it is null.
Status CheckContext(const char* function, const XLA_FFI_InvokeContext* ctx);

// "FUNCTION: message", or "FUNCTION (handler 'name'): message" when `ctx`
// belongs to a named call.
Status WithPrefix(const char* function, const XLA_FFI_InvokeContext* ctx,
                  const Status& status);

// What every entry point does around its own work: checks `args`
// (CheckArgs) and, when its struct carries an invoke context, the context
// (CheckContext); then runs `body(*args)` and turns a failure it returns
// into an error prefixed by WithPrefix. `struct_name` is `function` with
// "_Args" appended, spelled out so the common path builds no string.
template <typename Args, typename Body>
XLA_FFI_Error* RunEntryPoint(const char* function, const char* struct_name,
                             Args* args, size_t required, Body&& body) {
  if (Status s = CheckArgs(function, struct_name, args, required); !s.ok())
    return MakeError(std::move(s));
  const XLA_FFI_InvokeContext* ctx = nullptr;
  if constexpr (requires { args->ctx; }) {
    if (Status s = CheckContext(function, args->ctx); !s.ok())
      return MakeError(std::move(s));
    ctx = args->ctx;
  }
  Status status = body(*args);
  if (status.ok()) [[likely]]
    return nullptr;
  return MakeError(WithPrefix(function, ctx, status));
}

// Takes the runtime's share of a future a handler left in its call frame.
std::shared_ptr<AsyncValue> ClaimFuture(XLA_FFI_Future* future);

// Entry points of the API table.
XLA_FFI_Error* ErrorCreate(XLA_FFI_Error_Create_Args* args);
void ErrorGetDetails(XLA_FFI_Error_GetDetails_Args* args);
void ErrorDestroy(XLA_FFI_Error_Destroy_Args* args);
XLA_FFI_Error* HandlerRegister(XLA_FFI_Handler_Register_Args* args);
XLA_FFI_Error* StreamGet(XLA_FFI_Stream_Get_Args* args);
XLA_FFI_Error* TypeRegister(XLA_FFI_Type_Register_Args* args);
XLA_FFI_Error* InvokeContextGet(XLA_FFI_InvokeContext_Get_Args* args);
XLA_FFI_Error* StateSet(XLA_FFI_State_Set_Args* args);
XLA_FFI_Error* StateGet(XLA_FFI_State_Get_Args* args);
XLA_FFI_Error* DeviceMemoryAllocate(XLA_FFI_DeviceMemory_Allocate_Args* args);
XLA_FFI_Error* DeviceMemoryFree(XLA_FFI_DeviceMemory_Free_Args* args);
XLA_FFI_Error* ThreadPoolSchedule(XLA_FFI_ThreadPool_Schedule_Args* args);
XLA_FFI_Error* ThreadPoolNumThreads(XLA_FFI_ThreadPool_NumThreads_Args* args);
XLA_FFI_Error* FutureCreate(XLA_FFI_Future_Create_Args* args);
XLA_FFI_Error* FutureSetAvailable(XLA_FFI_Future_SetAvailable_Args* args);
XLA_FFI_Error* FutureSetError(XLA_FFI_Future_SetError_Args* args);
XLA_FFI_Error* RunIdGet(XLA_FFI_RunId_Get_Args* args);
XLA_FFI_Error* DeviceOrdinalGet(XLA_FFI_DeviceOrdinal_Get_Args* args);
XLA_FFI_Error* InvokeContextFindExtension(
    XLA_FFI_InvokeContext_FindExtension_Args* args);
XLA_FFI_Error* CustomOptionsGet(XLA_FFI_CustomOptions_Get_Args* args);

}  // namespace xffi::internal

#endif  // XFFI_SRC_RUNTIME_API_INTERNAL_H_
