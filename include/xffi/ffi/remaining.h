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

class RemainingArgs {
 public:
  RemainingArgs(const XLA_FFI_Args* args, size_t offset)
      : args_(args), offset_(offset) {}

  size_t size() const { return static_cast<size_t>(args_->size) - offset_; }
  bool empty() const { return size() == 0; }

  template <typename T>
  bool isa(size_t index) const {
    return Decode<T, internal::NoDiagnostic>(index).has_value();
  }

  template <typename T>
  ErrorOr<T> get(size_t index) const {
    std::optional<T> value = Decode<T, internal::NoDiagnostic>(index);
    if (XFFI_LIKELY(value.has_value())) return std::move(*value);
    internal::Diagnostic diag;
    Decode<T, internal::Diagnostic>(index, &diag);
    return Error::InvalidArgument(diag.message);
  }

 private:
  template <typename T, typename D>
  std::optional<T> Decode(size_t index, D* diag = nullptr) const {
    D local;
    D& d = diag ? *diag : local;
    if (index >= size()) {
      d.Fail("remaining argument ", index, " (argument ", index + offset_,
             ") is out of range: there are ", size(), " remaining arguments");
      return std::nullopt;
    }
    size_t i = index + offset_;
    if constexpr (D::kExplain) d.Fail("argument ", i, ": ");
    if (!internal::CheckArgType(&args_->types[i], d)) return std::nullopt;
    return BufferDecoding<T>::Decode(
        static_cast<const XLA_FFI_Buffer*>(args_->args[i]), d);
  }

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
    return Decode<T, internal::NoDiagnostic>(index).has_value();
  }

  template <typename T>
  ErrorOr<Result<T>> get(size_t index) const {
    std::optional<T> value = Decode<T, internal::NoDiagnostic>(index);
    if (XFFI_LIKELY(value.has_value())) return Result<T>(std::move(*value));
    internal::Diagnostic diag;
    Decode<T, internal::Diagnostic>(index, &diag);
    return Error::InvalidArgument(diag.message);
  }

 private:
  template <typename T, typename D>
  std::optional<T> Decode(size_t index, D* diag = nullptr) const {
    D local;
    D& d = diag ? *diag : local;
    if (index >= size()) {
      d.Fail("remaining result ", index, " (result ", index + offset_,
             ") is out of range: there are ", size(), " remaining results");
      return std::nullopt;
    }
    size_t i = index + offset_;
    if constexpr (D::kExplain) d.Fail("result ", i, ": ");
    if (!internal::CheckRetType(&rets_->types[i], d)) return std::nullopt;
    return BufferDecoding<T>::Decode(
        static_cast<const XLA_FFI_Buffer*>(rets_->rets[i]), d);
  }

  const XLA_FFI_Rets* rets_;
  size_t offset_;
};

}  // namespace xffi::ffi

#endif  // XFFI_FFI_REMAINING_H_
