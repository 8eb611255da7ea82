// RemainingArgs and RemainingRets: the arguments and results after the ones a
// binding names, looked at one by one with the same checks and messages.
#ifndef XFFI_FFI_REMAINING_H_
#define XFFI_FFI_REMAINING_H_

#include <cstddef>
#include <optional>
#include <utility>

#include "xffi/ffi/buffer.h"
#include "xffi/ffi/error.h"

namespace xffi::ffi {

// Errors carry XLA's codes: INVALID_ARGUMENT for an index out of range,
// INTERNAL for a value that does not decode, so a handler that passes them
// on reports what it would under XLA. The messages are xffi's.
class RemainingArgs {
 public:
  RemainingArgs(const XLA_FFI_Args* args, size_t offset)
      : args_(args), offset_(offset) {}

  size_t size() const { return static_cast<size_t>(args_->size) - offset_; }
  bool empty() const { return size() == 0; }

  template <typename T>
  bool isa(size_t index) const {
    if (index >= size()) return false;
    size_t i = index + offset_;
    if constexpr (internal::IsBufferType<T>::value) {
      internal::NoDiagnostic quiet;
      return internal::DecodeArg<T>(args_, i, quiet).has_value();
    } else {
      return internal::CallIsa<ArgDecoding<T>>(
          internal::KnownKind(&args_->types[i]), args_->args[i]);
    }
  }

  template <typename T>
  ErrorOr<T> get(size_t index) const {
    if (XFFI_UNLIKELY(index >= size())) {
      return Error::InvalidArgument(internal::StrCat(
          "remaining argument ", index, " (argument ", index + offset_,
          ") is out of range: there are ", size(), " remaining arguments"));
    }
    size_t i = index + offset_;
    internal::NoDiagnostic quiet;
    std::optional<T> value = internal::DecodeArg<T>(args_, i, quiet);
    if (XFFI_LIKELY(value.has_value())) return std::move(*value);
    internal::Diagnostic diag;
    diag.Fail("argument ", i, ": ");
    internal::DecodeArg<T>(args_, i, diag);
    return Error::Internal(diag.message);
  }

 private:
  const XLA_FFI_Args* args_;
  size_t offset_;
};

class RemainingRets {
 public:
  RemainingRets(const XLA_FFI_Rets* rets, size_t offset)
      : rets_(rets), offset_(offset) {}

  size_t size() const { return static_cast<size_t>(rets_->size) - offset_; }
  bool empty() const { return size() == 0; }

  template <typename T>
  bool isa(size_t index) const {
    if (index >= size()) return false;
    size_t i = index + offset_;
    if constexpr (internal::IsBufferType<T>::value) {
      internal::NoDiagnostic quiet;
      return internal::DecodeRet<T>(rets_, i, quiet).has_value();
    } else {
      return internal::CallIsa<RetDecoding<T>>(
          internal::KnownKind(&rets_->types[i]), rets_->rets[i]);
    }
  }

  template <typename T>
  ErrorOr<Result<T>> get(size_t index) const {
    if (XFFI_UNLIKELY(index >= size())) {
      return Error::InvalidArgument(internal::StrCat(
          "remaining result ", index, " (result ", index + offset_,
          ") is out of range: there are ", size(), " remaining results"));
    }
    size_t i = index + offset_;
    internal::NoDiagnostic quiet;
    std::optional<Result<T>> value = internal::DecodeRet<T>(rets_, i, quiet);
    if (XFFI_LIKELY(value.has_value())) return std::move(*value);
    internal::Diagnostic diag;
    diag.Fail("result ", i, ": ");
    internal::DecodeRet<T>(rets_, i, diag);
    return Error::Internal(diag.message);
  }

 private:
  const XLA_FFI_Rets* rets_;
  size_t offset_;
};

}  // namespace xffi::ffi

#endif  // XFFI_FFI_REMAINING_H_
