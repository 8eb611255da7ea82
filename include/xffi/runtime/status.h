// xffi: the status type of the library's C++ API.
//
// The runtime reports failures as values, with the FFI's error codes, so a
// status crosses the C ABI (as an XLA_FFI_Error) without translation.
#ifndef XFFI_RUNTIME_STATUS_H_
#define XFFI_RUNTIME_STATUS_H_

#include <cassert>
#include <optional>
#include <string>
#include <utility>

#include "xffi/c_api.h"

namespace xffi {

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(XLA_FFI_Error_Code code, std::string message)
      : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == XLA_FFI_Error_Code_OK; }
  XLA_FFI_Error_Code code() const { return code_; }
  const std::string& message() const { return message_; }

  // "INVALID_ARGUMENT: message", or "OK".
  std::string ToString() const;

 private:
  XLA_FFI_Error_Code code_ = XLA_FFI_Error_Code_OK;
  std::string message_;
};

// The name of an error code as absl spells it ("INVALID_ARGUMENT").
const char* ErrorCodeName(XLA_FFI_Error_Code code);

inline Status InvalidArgument(std::string message) {
  return Status(XLA_FFI_Error_Code_INVALID_ARGUMENT, std::move(message));
}
inline Status NotFound(std::string message) {
  return Status(XLA_FFI_Error_Code_NOT_FOUND, std::move(message));
}
inline Status AlreadyExists(std::string message) {
  return Status(XLA_FFI_Error_Code_ALREADY_EXISTS, std::move(message));
}
inline Status FailedPrecondition(std::string message) {
  return Status(XLA_FFI_Error_Code_FAILED_PRECONDITION, std::move(message));
}
inline Status Unimplemented(std::string message) {
  return Status(XLA_FFI_Error_Code_UNIMPLEMENTED, std::move(message));
}
inline Status Internal(std::string message) {
  return Status(XLA_FFI_Error_Code_INTERNAL, std::move(message));
}

// A value or the status that explains its absence.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : value_(std::move(value)) {}         // NOLINT: implicit
  StatusOr(Status status) : status_(std::move(status)) {  // NOLINT: implicit
    assert(!status_.ok() && "StatusOr needs a value or a failed status");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace xffi

#endif  // XFFI_RUNTIME_STATUS_H_
