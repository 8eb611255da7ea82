// Error, ErrorOr<T>, and the calls that turn them into runtime errors through
// whichever API table (xffi's or XLA's, version 0.1 to 0.5) the call came with.
#ifndef XFFI_FFI_ERROR_H_
#define XFFI_FFI_ERROR_H_

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "xffi/ffi/config.h"
#include "xffi/ffi/types.h"

namespace xffi::ffi {

enum class ErrorCode : uint8_t {
  kOk = XLA_FFI_Error_Code_OK,
  kCancelled = XLA_FFI_Error_Code_CANCELLED,
  kUnknown = XLA_FFI_Error_Code_UNKNOWN,
  kInvalidArgument = XLA_FFI_Error_Code_INVALID_ARGUMENT,
  kDeadlineExceeded = XLA_FFI_Error_Code_DEADLINE_EXCEEDED,
  kNotFound = XLA_FFI_Error_Code_NOT_FOUND,
  kAlreadyExists = XLA_FFI_Error_Code_ALREADY_EXISTS,
  kPermissionDenied = XLA_FFI_Error_Code_PERMISSION_DENIED,
  kResourceExhausted = XLA_FFI_Error_Code_RESOURCE_EXHAUSTED,
  kFailedPrecondition = XLA_FFI_Error_Code_FAILED_PRECONDITION,
  kAborted = XLA_FFI_Error_Code_ABORTED,
  kOutOfRange = XLA_FFI_Error_Code_OUT_OF_RANGE,
  kUnimplemented = XLA_FFI_Error_Code_UNIMPLEMENTED,
  kInternal = XLA_FFI_Error_Code_INTERNAL,
  kUnavailable = XLA_FFI_Error_Code_UNAVAILABLE,
  kDataLoss = XLA_FFI_Error_Code_DATA_LOSS,
  kUnauthenticated = XLA_FFI_Error_Code_UNAUTHENTICATED,
};

constexpr const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk:
      return "OK";
    case ErrorCode::kCancelled:
      return "CANCELLED";
    case ErrorCode::kUnknown:
      return "UNKNOWN";
    case ErrorCode::kInvalidArgument:
      return "INVALID_ARGUMENT";
    case ErrorCode::kDeadlineExceeded:
      return "DEADLINE_EXCEEDED";
    case ErrorCode::kNotFound:
      return "NOT_FOUND";
    case ErrorCode::kAlreadyExists:
      return "ALREADY_EXISTS";
    case ErrorCode::kPermissionDenied:
      return "PERMISSION_DENIED";
    case ErrorCode::kResourceExhausted:
      return "RESOURCE_EXHAUSTED";
    case ErrorCode::kFailedPrecondition:
      return "FAILED_PRECONDITION";
    case ErrorCode::kAborted:
      return "ABORTED";
    case ErrorCode::kOutOfRange:
      return "OUT_OF_RANGE";
    case ErrorCode::kUnimplemented:
      return "UNIMPLEMENTED";
    case ErrorCode::kInternal:
      return "INTERNAL";
    case ErrorCode::kUnavailable:
      return "UNAVAILABLE";
    case ErrorCode::kDataLoss:
      return "DATA_LOSS";
    case ErrorCode::kUnauthenticated:
      return "UNAUTHENTICATED";
  }
  return "UNKNOWN_CODE";
}

class Error {
 public:
  Error() = default;
  Error(ErrorCode errc, std::string message)
      : errc_(errc), message_(std::move(message)) {}
  Error(XLA_FFI_Error_Code errc, std::string message)
      : Error(static_cast<ErrorCode>(errc), std::move(message)) {}

  bool success() const { return errc_ == ErrorCode::kOk; }
  bool failure() const { return !success(); }
  // std::optional for source compatibility with XLA, where errc() is one.
  std::optional<ErrorCode> errc() const { return errc_; }
  ErrorCode code() const { return errc_; }
  const std::string& message() const { return message_; }

  static Error Success() { return Error(); }
  static Error Cancelled(std::string m) {
    return {ErrorCode::kCancelled, std::move(m)};
  }
  static Error Unknown(std::string m) {
    return {ErrorCode::kUnknown, std::move(m)};
  }
  static Error InvalidArgument(std::string m) {
    return {ErrorCode::kInvalidArgument, std::move(m)};
  }
  static Error DeadlineExceeded(std::string m) {
    return {ErrorCode::kDeadlineExceeded, std::move(m)};
  }
  static Error NotFound(std::string m) {
    return {ErrorCode::kNotFound, std::move(m)};
  }
  static Error AlreadyExists(std::string m) {
    return {ErrorCode::kAlreadyExists, std::move(m)};
  }
  static Error PermissionDenied(std::string m) {
    return {ErrorCode::kPermissionDenied, std::move(m)};
  }
  static Error ResourceExhausted(std::string m) {
    return {ErrorCode::kResourceExhausted, std::move(m)};
  }
  static Error FailedPrecondition(std::string m) {
    return {ErrorCode::kFailedPrecondition, std::move(m)};
  }
  static Error Aborted(std::string m) {
    return {ErrorCode::kAborted, std::move(m)};
  }
  static Error OutOfRange(std::string m) {
    return {ErrorCode::kOutOfRange, std::move(m)};
  }
  static Error Unimplemented(std::string m) {
    return {ErrorCode::kUnimplemented, std::move(m)};
  }
  static Error Internal(std::string m) {
    return {ErrorCode::kInternal, std::move(m)};
  }
  static Error Unavailable(std::string m) {
    return {ErrorCode::kUnavailable, std::move(m)};
  }
  static Error DataLoss(std::string m) {
    return {ErrorCode::kDataLoss, std::move(m)};
  }
  static Error Unauthenticated(std::string m) {
    return {ErrorCode::kUnauthenticated, std::move(m)};
  }

 private:
  ErrorCode errc_ = ErrorCode::kOk;
  std::string message_;
};

template <typename E>
class Unexpected {
 public:
  constexpr Unexpected(E error) : error_(std::move(error)) {}  // NOLINT
  E& error() & { return error_; }
  E&& error() && { return std::move(error_); }

 private:
  E error_;
};

Unexpected(const char*)->Unexpected<std::string>;

// A value or an error (std::expected is C++23).
template <typename T, typename E>
class Expected {
 public:
  constexpr Expected(T value) : data_(std::move(value)) {}  // NOLINT
  constexpr Expected(Unexpected<E> u)                       // NOLINT
      : data_(std::in_place_index<1>, std::move(u).error()) {}

  // Implicit, as XLA's is: `bool ok = result;` compiles under both.
  constexpr operator bool() const { return has_value(); }  // NOLINT
  constexpr bool has_value() const { return data_.index() == 0; }
  constexpr bool has_error() const { return data_.index() == 1; }

  constexpr T& value() & { return std::get<0>(data_); }
  constexpr const T& value() const& { return std::get<0>(data_); }
  constexpr T&& value() && { return std::get<0>(std::move(data_)); }
  constexpr T& operator*() & { return value(); }
  constexpr const T& operator*() const& { return value(); }
  constexpr T&& operator*() && { return std::move(*this).value(); }
  constexpr const T& operator*() const&& { return value(); }
  constexpr T* operator->() { return &value(); }
  constexpr const T* operator->() const { return &value(); }

  constexpr E& error() & { return std::get<1>(data_); }
  constexpr const E& error() const& { return std::get<1>(data_); }
  constexpr E&& error() && { return std::get<1>(std::move(data_)); }

 private:
  std::variant<T, E> data_;
};

template <typename T>
class ErrorOr : public Expected<T, Error> {
 public:
  using Expected<T, Error>::Expected;
  ErrorOr(Error error)  // NOLINT: an Error converts, as absl::StatusOr does
      : Expected<T, Error>(Unexpected<Error>(std::move(error))) {
    assert(this->error().failure() &&
           "ErrorOr cannot be constructed from a successful Error");
  }
};

namespace internal {

// String building without <sstream>, for the cold paths that explain errors.
inline void AppendPiece(std::string& out, std::string_view s) { out += s; }
inline void AppendPiece(std::string& out, const char* s) { out += s; }
inline void AppendPiece(std::string& out, const std::string& s) { out += s; }
inline void AppendPiece(std::string& out, char c) { out += c; }
inline void AppendPiece(std::string& out, DataType d) {
  out += DataTypeName(d);
}
template <typename T, typename = std::enable_if_t<std::is_integral_v<T> &&
                                                  !std::is_same_v<T, bool> &&
                                                  !std::is_same_v<T, char>>>
inline void AppendPiece(std::string& out, T value) {
  out += std::to_string(value);
}

template <typename... Ts>
std::string StrCat(const Ts&... pieces) {
  std::string out;
  (AppendPiece(out, pieces), ...);
  return out;
}

// Decoders are written once against a diagnostic sink: the hot path uses
// NoDiagnostic (every Fail is a no-op the optimiser deletes), and only after a
// failure is the call decoded again with Diagnostic to say what went wrong.
struct NoDiagnostic {
  static constexpr bool kExplain = false;
  template <typename... Ts>
  XFFI_ALWAYS_INLINE void Fail(const Ts&...) {}
};

struct Diagnostic {
  static constexpr bool kExplain = true;
  std::string message;
  bool failed = false;
  template <typename... Ts>
  void Fail(const Ts&... pieces) {
    failed = true;
    (AppendPiece(message, pieces), ...);
  }
};

inline XLA_FFI_Error* CreateError(const XLA_FFI_Api* api,
                                  XLA_FFI_Error_Code code,
                                  const std::string& message) {
  // XLA of 2024 ran the metadata handshake with a null api: nothing can be
  // reported then, and nothing needs to be.
  if (api == nullptr) return nullptr;
  XLA_FFI_Error_Create_Args args;
  args.struct_size = XLA_FFI_Error_Create_Args_STRUCT_SIZE;
  args.extension_start = nullptr;
  args.message = message.c_str();
  args.errc = code;
  return api->XLA_FFI_Error_Create(&args);
}

inline XLA_FFI_Error* CreateError(const XLA_FFI_Api* api, const Error& error) {
  return CreateError(api, static_cast<XLA_FFI_Error_Code>(error.code()),
                     error.message());
}

// Reading and destroying an error the runtime made, under XLA's names
// (decoders written for XLA call them). The message and, from API 0.4 on,
// the code: older tables have a 32-byte GetMessage in the same slot and no
// way to ask for the code. The message belongs to the error, so it must be
// read before DestroyError.
struct ErrorDetails {
  XLA_FFI_Error_Code errc;
  const char* message;
};

inline ErrorDetails GetErrorDetails(const XLA_FFI_Api* api,
                                    XLA_FFI_Error* error) {
  if (api->api_version.minor_version >= 4) {
    XLA_FFI_Error_GetDetails_Args args;
    args.struct_size = XLA_FFI_Error_GetDetails_Args_STRUCT_SIZE;
    args.extension_start = nullptr;
    args.error = error;
    args.message = nullptr;
    args.errc = XLA_FFI_Error_Code_INTERNAL;
    api->XLA_FFI_Error_GetDetails(&args);
    return ErrorDetails{args.errc, args.message};
  }
  XLA_FFI_Error_GetMessage_Args args;
  args.struct_size = XLA_FFI_Error_GetMessage_Args_STRUCT_SIZE;
  args.extension_start = nullptr;
  args.error = error;
  args.message = nullptr;
  api->XLA_FFI_Error_GetMessage(&args);
  return ErrorDetails{XLA_FFI_Error_Code_UNKNOWN, args.message};
}

inline const char* GetErrorMessage(const XLA_FFI_Api* api,
                                   XLA_FFI_Error* error) {
  return GetErrorDetails(api, error).message;
}

inline void DestroyError(const XLA_FFI_Api* api, XLA_FFI_Error* error) {
  XLA_FFI_Error_Destroy_Args args;
  args.struct_size = XLA_FFI_Error_Destroy_Args_STRUCT_SIZE;
  args.extension_start = nullptr;
  args.error = error;
  api->XLA_FFI_Error_Destroy(&args);
}

inline Error TakeError(const XLA_FFI_Api* api, XLA_FFI_Error* error) {
  ErrorDetails details = GetErrorDetails(api, error);
  std::string message = details.message != nullptr ? details.message : "";
  DestroyError(api, error);
  XLA_FFI_Error_Code code = details.errc;
  if (code == XLA_FFI_Error_Code_OK) code = XLA_FFI_Error_Code_UNKNOWN;
  return Error(code, std::move(message));
}

// How shared wrappers (the record and collectives extensions) report errors,
// under the name and interface XLA gives it: Error and ErrorOr<T> here.
struct ErrorPolicy {
  using Status = Error;
  template <typename T>
  using StatusOr = ErrorOr<T>;

  static Status Ok() { return Status::Success(); }
  static Status FromErrorCode(XLA_FFI_Error_Code errc,
                              std::string_view message) {
    return Status(errc, std::string(message));
  }
  static Status TakeError(const XLA_FFI_Api* api, XLA_FFI_Error* error) {
    assert(error != nullptr);
    return internal::TakeError(api, error);
  }
};

}  // namespace internal
}  // namespace xffi::ffi

#endif  // XFFI_FFI_ERROR_H_
