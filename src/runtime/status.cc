#include "xffi/runtime/status.h"

namespace xffi {

const char* ErrorCodeName(XLA_FFI_Error_Code code) {
  switch (code) {
    case XLA_FFI_Error_Code_OK: return "OK";
    case XLA_FFI_Error_Code_CANCELLED: return "CANCELLED";
    case XLA_FFI_Error_Code_UNKNOWN: return "UNKNOWN";
    case XLA_FFI_Error_Code_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case XLA_FFI_Error_Code_DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case XLA_FFI_Error_Code_NOT_FOUND: return "NOT_FOUND";
    case XLA_FFI_Error_Code_ALREADY_EXISTS: return "ALREADY_EXISTS";
    case XLA_FFI_Error_Code_PERMISSION_DENIED: return "PERMISSION_DENIED";
    case XLA_FFI_Error_Code_RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case XLA_FFI_Error_Code_FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case XLA_FFI_Error_Code_ABORTED: return "ABORTED";
    case XLA_FFI_Error_Code_OUT_OF_RANGE: return "OUT_OF_RANGE";
    case XLA_FFI_Error_Code_UNIMPLEMENTED: return "UNIMPLEMENTED";
    case XLA_FFI_Error_Code_INTERNAL: return "INTERNAL";
    case XLA_FFI_Error_Code_UNAVAILABLE: return "UNAVAILABLE";
    case XLA_FFI_Error_Code_DATA_LOSS: return "DATA_LOSS";
    case XLA_FFI_Error_Code_UNAUTHENTICATED: return "UNAUTHENTICATED";
  }
  return "UNKNOWN_CODE";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(ErrorCodeName(code_)) + ": " + message_;
}

}  // namespace xffi
