#include "xffi/runtime/status.h"

#include "xffi/ffi/error.h"

namespace xffi {

// One table of names for the whole project: the binding library's.
const char* ErrorCodeName(XLA_FFI_Error_Code code) {
  return ffi::ErrorCodeName(static_cast<ffi::ErrorCode>(code));
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(ErrorCodeName(code_)) + ": " + message_;
}

}  // namespace xffi
