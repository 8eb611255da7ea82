// The error entry points, and the conversions between XLA_FFI_Error and
// Status the rest of the runtime uses.
#include <cstdint>
#include <cstring>
#include <string>

#include "runtime/api_internal.h"
#include "xffi/runtime/api.h"

namespace xffi::internal {
namespace {

constexpr const char kNullErrorMessage[] =
    "(null XLA_FFI_Error passed to Error_GetDetails)";

}  // namespace

XLA_FFI_Error* MakeError(Status status) {
  if (status.ok()) return nullptr;
  return new XLA_FFI_Error{std::move(status)};
}

Status CheckArgsHeader(const char* function, const char* struct_name,
                       const void* args, size_t struct_size, size_t required) {
  if (args == nullptr) {
    return InvalidArgument(std::string(function) + ": the " + struct_name +
                           " pointer is null");
  }
  if (struct_size < required) {
    return InvalidArgument(std::string(function) + ": " + struct_name +
                           ".struct_size is " + std::to_string(struct_size) +
                           " but must be at least " + std::to_string(required));
  }
  return Status::Ok();
}

Status CheckContext(const char* function, const XLA_FFI_InvokeContext* ctx) {
  if (ctx == nullptr) {
    return InvalidArgument(
        std::string(function) +
        ": ctx is null (the call frame carries no invoke context; only a "
        "handler called by the runtime has one)");
  }
  return Status::Ok();
}

Status WithPrefix(const char* function, const XLA_FFI_InvokeContext* ctx,
                  const Status& status) {
  std::string prefix = function;
  if (ctx != nullptr && !ctx->target_name.empty())
    prefix += " (handler '" + std::string(ctx->target_name) + "')";
  return Status(status.code(), prefix + ": " + status.message());
}

Status TakeError(const XLA_FFI_Api* api, XLA_FFI_Error* error) {
  if (error == nullptr) return Status::Ok();
  if (api == nullptr || api == GetApi()) {
    Status status = std::move(error->status);
    delete error;
    if (status.ok()) {
      return Internal("the handler returned an XLA_FFI_Error with code OK");
    }
    return status;
  }
  // A foreign table: its errors are opaque to us.
  Status status;
  if (api->api_version.minor_version >= 4) {
    XLA_FFI_Error_GetDetails_Args details{};
    details.struct_size = XLA_FFI_Error_GetDetails_Args_STRUCT_SIZE;
    details.error = error;
    api->XLA_FFI_Error_GetDetails(&details);
    status = Status(details.errc == XLA_FFI_Error_Code_OK
                        ? XLA_FFI_Error_Code_UNKNOWN
                        : details.errc,
                    details.message ? details.message : "");
  } else {
    XLA_FFI_Error_GetMessage_Args message{};
    message.struct_size = XLA_FFI_Error_GetMessage_Args_STRUCT_SIZE;
    message.error = error;
    api->XLA_FFI_Error_GetMessage(&message);
    // Before 0.4 the code could not be read back.
    status = Status(XLA_FFI_Error_Code_UNKNOWN,
                    message.message ? message.message : "");
  }
  XLA_FFI_Error_Destroy_Args destroy{};
  destroy.struct_size = XLA_FFI_Error_Destroy_Args_STRUCT_SIZE;
  destroy.error = error;
  api->XLA_FFI_Error_Destroy(&destroy);
  return status;
}

XLA_FFI_Error* ErrorCreate(XLA_FFI_Error_Create_Args* args) {
  if (Status s = CheckArgs("XLA_FFI_Error_Create", "XLA_FFI_Error_Create_Args",
                           args, XLA_FFI_Error_Create_Args_STRUCT_SIZE);
      !s.ok()) {
    return MakeError(std::move(s));
  }
  // Read as an integer: a code outside the enum's range is reported, and
  // loading it as the enum would be undefined behaviour.
  int32_t code;
  static_assert(sizeof(XLA_FFI_Error_Code) == sizeof(code));
  std::memcpy(&code, &args->errc, sizeof(code));
  std::string message = args->message ? std::string(args->message) : "";
  if (code < XLA_FFI_Error_Code_OK ||
      code > XLA_FFI_Error_Code_UNAUTHENTICATED) {
    return new XLA_FFI_Error{
        Status(XLA_FFI_Error_Code_UNKNOWN,
               message +
                   " (XLA_FFI_Error_Create was given the unknown error "
                   "code " +
                   std::to_string(code) + ")")};
  }
  // Kept as given, OK included: the caller owns what it asked for, and the
  // runtime rejects an OK error where it consumes one.
  return new XLA_FFI_Error{
      Status(static_cast<XLA_FFI_Error_Code>(code), std::move(message))};
}

// Serves both the 0.4+ GetDetails (36 bytes) and the older GetMessage (32
// bytes) callers through one table slot: errc is written only when the
// caller's struct has room for it.
void ErrorGetDetails(XLA_FFI_Error_GetDetails_Args* args) {
  if (args == nullptr ||
      args->struct_size < XLA_FFI_Error_GetMessage_Args_STRUCT_SIZE) {
    return;  // Nowhere to report to.
  }
  const bool has_code =
      args->struct_size >= XLA_FFI_Error_GetDetails_Args_STRUCT_SIZE;
  if (args->error == nullptr) {
    args->message = kNullErrorMessage;
    if (has_code) args->errc = XLA_FFI_Error_Code_INVALID_ARGUMENT;
    return;
  }
  args->message = args->error->status.message().c_str();
  if (has_code) args->errc = args->error->status.code();
}

void ErrorDestroy(XLA_FFI_Error_Destroy_Args* args) {
  if (args == nullptr ||
      args->struct_size < XLA_FFI_Error_Destroy_Args_STRUCT_SIZE) {
    return;
  }
  delete args->error;
}

}  // namespace xffi::internal
