// Buffers as handlers see them, and how arguments and results decode into
// them. Decoding checks dtype and rank and nothing else, so it is a couple of
// compares per buffer.
#ifndef XFFI_FFI_BUFFER_H_
#define XFFI_FFI_BUFFER_H_

#include <cassert>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "xffi/ffi/diagnostic.h"
#include "xffi/ffi/error.h"
#include "xffi/ffi/types.h"

namespace xffi::ffi {

// A buffer of any dtype and rank.
class AnyBuffer {
 public:
  using Dimensions = Span<const int64_t>;

  explicit AnyBuffer(const XLA_FFI_Buffer* buf) : buf_(buf) {
    assert(buf != nullptr && "XLA_FFI_Buffer must not be null");
  }

  // A dtype outside DataType's range reads as some unknown DataType.
  DataType element_type() const {
    return static_cast<DataType>(
        static_cast<uint8_t>(internal::RawEnum(&buf_->dtype)));
  }
  Dimensions dimensions() const {
    return Dimensions(buf_->dims, static_cast<size_t>(buf_->rank));
  }
  int64_t rank() const { return buf_->rank; }
  XFFI_ALWAYS_INLINE size_t element_count() const {
    size_t count = 1;
    for (int64_t i = 0; i < buf_->rank; ++i) {
      count *= static_cast<size_t>(buf_->dims[i]);
    }
    return count;
  }
  XFFI_ALWAYS_INLINE size_t size_bytes() const {
    return ByteWidth(element_type()) * element_count();
  }
  void* untyped_data() const { return buf_->data; }

  template <typename T>
  T* typed_data() const {
    assert((internal::kNativeToDataType<T> == element_type() ||
            internal::kNativeToDataType<T> == DataType::INVALID) &&
           "typed_data<T>: T does not match the buffer's dtype");
    return static_cast<T*>(buf_->data);
  }

  template <typename T>
  T* reinterpret_data() const {
    assert(sizeof(T) == ByteWidth(element_type()) &&
           "reinterpret_data<T>: T must have the element's byte width");
    return static_cast<T*>(buf_->data);
  }

  const XLA_FFI_Buffer* c_buffer() const { return buf_; }

 private:
  const XLA_FFI_Buffer* buf_;
};

// A buffer whose dtype (and rank, unless kDynamicRank) decoding has checked.
template <DataType dtype, size_t rank = kDynamicRank>
class Buffer {
 public:
  using Dimensions = Span<const int64_t>;
  using ElementType = NativeType<dtype>;

  explicit Buffer(const XLA_FFI_Buffer* buf) : buf_(buf) {
    assert(buf != nullptr && "XLA_FFI_Buffer must not be null");
  }

  static constexpr DataType element_type() { return dtype; }
  Dimensions dimensions() const {
    if constexpr (rank == kDynamicRank) {
      return Dimensions(buf_->dims, static_cast<size_t>(buf_->rank));
    } else {
      return Dimensions(buf_->dims, rank);
    }
  }
  XFFI_ALWAYS_INLINE size_t element_count() const {
    size_t count = 1;
    if constexpr (rank == kDynamicRank) {
      for (int64_t i = 0; i < buf_->rank; ++i) {
        count *= static_cast<size_t>(buf_->dims[i]);
      }
    } else {
      for (size_t i = 0; i < rank; ++i) {
        count *= static_cast<size_t>(buf_->dims[i]);
      }
    }
    return count;
  }
  XFFI_ALWAYS_INLINE size_t size_bytes() const {
    return ByteWidth(dtype) * element_count();
  }
  void* untyped_data() const { return buf_->data; }
  ElementType* typed_data() const {
    return static_cast<ElementType*>(buf_->data);
  }
  template <typename T>
  T* reinterpret_data() const {
    static_assert(dtype == DataType::TOKEN || sizeof(T) == ByteWidth(dtype),
                  "reinterpret_data<T>: T must have the element's byte width");
    return static_cast<T*>(buf_->data);
  }

  const XLA_FFI_Buffer* c_buffer() const { return buf_; }

 private:
  const XLA_FFI_Buffer* buf_;
};

template <DataType dtype>
using BufferR0 = Buffer<dtype, 0>;
template <DataType dtype>
using BufferR1 = Buffer<dtype, 1>;
template <DataType dtype>
using BufferR2 = Buffer<dtype, 2>;
template <DataType dtype>
using BufferR3 = Buffer<dtype, 3>;
template <DataType dtype>
using BufferR4 = Buffer<dtype, 4>;

using Token = BufferR0<DataType::TOKEN>;

// A result a handler writes. Dereferences to the wrapped buffer. Implicit
// from T, as in XLA, where decoders return a buffer for a Result.
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT
  T& operator*() { return value_; }
  const T& operator*() const { return value_; }
  T* operator->() { return &value_; }
  const T* operator->() const { return &value_; }

 private:
  T value_;
};

template <DataType dtype, size_t rank = kDynamicRank>
using ResultBuffer = Result<Buffer<dtype, rank>>;
template <DataType dtype>
using ResultBufferR0 = ResultBuffer<dtype, 0>;
template <DataType dtype>
using ResultBufferR1 = ResultBuffer<dtype, 1>;
template <DataType dtype>
using ResultBufferR2 = ResultBuffer<dtype, 2>;
template <DataType dtype>
using ResultBufferR3 = ResultBuffer<dtype, 3>;
template <DataType dtype>
using ResultBufferR4 = ResultBuffer<dtype, 4>;

// How xffi's own buffer types decode, with an unchecked Get for the hot
// path. User types decode through ArgDecoding/RetDecoding (below), the
// extension points XLA defines; a BufferDecoding specialisation (xffi's older
// extension point) still works. Specialisations provide
//   template <class D> static std::optional<T> Decode(const XLA_FFI_Buffer*,
//   D&)
// plus kDType and kRank for the signature and TypeName().
template <typename T>
struct BufferDecoding;

template <>
struct BufferDecoding<AnyBuffer> {
  static constexpr XLA_FFI_DataType kDType = XLA_FFI_DataType_INVALID;
  static constexpr int64_t kRank = -1;
  static std::string TypeName() { return "AnyBuffer"; }
  template <typename D>
  XFFI_ALWAYS_INLINE static std::optional<AnyBuffer> Decode(
      const XLA_FFI_Buffer* buf, D&) {
    return AnyBuffer(buf);
  }
  XFFI_ALWAYS_INLINE static AnyBuffer Get(const XLA_FFI_Buffer* buf) {
    return AnyBuffer(buf);
  }
};

template <DataType dtype, size_t rank>
struct BufferDecoding<Buffer<dtype, rank>> {
  static constexpr XLA_FFI_DataType kDType =
      static_cast<XLA_FFI_DataType>(dtype);
  static constexpr int64_t kRank =
      rank == kDynamicRank ? -1 : static_cast<int64_t>(rank);

  static std::string TypeName() {
    if (dtype == DataType::TOKEN && rank == 0) return "Token";
    if (rank == kDynamicRank) return internal::StrCat("Buffer<", dtype, ">");
    return internal::StrCat("Buffer<", dtype, ", ", kRank, ">");
  }

  XFFI_ALWAYS_INLINE static bool Isa(const XLA_FFI_Buffer* buf) {
    return internal::RawEnum(&buf->dtype) == kDType &&
           (rank == kDynamicRank || buf->rank == kRank);
  }

  template <typename D>
  XFFI_ALWAYS_INLINE static std::optional<Buffer<dtype, rank>> Decode(
      const XLA_FFI_Buffer* buf, D& diag) {
    if (XFFI_UNLIKELY(!Isa(buf))) {
      if constexpr (D::kExplain) {
        if (rank == kDynamicRank) {
          diag.Fail("expected buffer of ", dtype, ", got ",
                    internal::RawDataTypeName(&buf->dtype), " rank ",
                    buf->rank);
        } else {
          diag.Fail("expected buffer of ", dtype, " rank ", kRank, ", got ",
                    internal::RawDataTypeName(&buf->dtype), " rank ",
                    buf->rank);
        }
      }
      return std::nullopt;
    }
    return Buffer<dtype, rank>(buf);
  }
  // Unchecked: only after Decode succeeded on the same buffer.
  XFFI_ALWAYS_INLINE static Buffer<dtype, rank> Get(const XLA_FFI_Buffer* buf) {
    return Buffer<dtype, rank>(buf);
  }
};

namespace internal {

template <typename T, typename = void>
struct IsBufferType : std::false_type {};
template <typename T>
struct IsBufferType<T, std::void_t<decltype(BufferDecoding<T>::kDType)>>
    : std::true_type {};

template <typename T>
struct IsResult : std::false_type {};
template <typename T>
struct IsResult<Result<T>> : std::true_type {
  using Inner = T;
};

// The kind of an argument or result, read as the integer it is: a caller
// may put anything there, and loading a value outside a C enum's range
// through the enum type is undefined behaviour in C++.
template <typename Enum>
XFFI_ALWAYS_INLINE int64_t RawKind(const Enum* slot) {
  return RawEnum(slot);
}

// A kind for a decoder written for XLA, which takes it by value: anything
// but BUFFER passes as 0, which no kind is, so it cannot be loaded as an
// out-of-range enum value.
template <typename Enum>
XFFI_ALWAYS_INLINE Enum KnownKind(const Enum* slot) {
  return static_cast<Enum>(RawEnum(slot) == 1 ? 1 : 0);
}

template <typename D>
XFFI_ALWAYS_INLINE bool CheckArgType(const XLA_FFI_ArgType* type, D& diag) {
  int64_t kind = RawKind(type);
  if (XFFI_LIKELY(kind == XLA_FFI_ArgType_BUFFER)) return true;
  diag.Fail("expected a buffer, got argument type ", kind);
  return false;
}

template <typename D>
XFFI_ALWAYS_INLINE bool CheckRetType(const XLA_FFI_RetType* type, D& diag) {
  int64_t kind = RawKind(type);
  if (XFFI_LIKELY(kind == XLA_FFI_RetType_BUFFER)) return true;
  diag.Fail("expected a buffer, got result type ", kind);
  return false;
}

// XLA's decoders for xffi's buffer types, forwarding to BufferDecoding.
template <typename T>
struct BufferArgDecoding {
  XFFI_ALWAYS_INLINE static bool Isa(XLA_FFI_ArgType type, void* arg) {
    NoDiagnostic quiet;
    return type == XLA_FFI_ArgType_BUFFER &&
           BufferDecoding<T>::Decode(static_cast<const XLA_FFI_Buffer*>(arg),
                                     quiet)
               .has_value();
  }
  template <typename D>
  XFFI_ALWAYS_INLINE static std::optional<T> Decode(XLA_FFI_ArgType type,
                                                    void* arg, D& diag) {
    if (XFFI_UNLIKELY(!CheckArgType(&type, diag))) return std::nullopt;
    return BufferDecoding<T>::Decode(static_cast<const XLA_FFI_Buffer*>(arg),
                                     diag);
  }
};

template <typename T>
struct BufferRetDecoding {
  XFFI_ALWAYS_INLINE static bool Isa(XLA_FFI_RetType type, void* ret) {
    NoDiagnostic quiet;
    return type == XLA_FFI_RetType_BUFFER &&
           BufferDecoding<T>::Decode(static_cast<const XLA_FFI_Buffer*>(ret),
                                     quiet)
               .has_value();
  }
  template <typename D>
  XFFI_ALWAYS_INLINE static std::optional<Result<T>> Decode(
      XLA_FFI_RetType type, void* ret, D& diag) {
    if (XFFI_UNLIKELY(!CheckRetType(&type, diag))) return std::nullopt;
    std::optional<T> value = BufferDecoding<T>::Decode(
        static_cast<const XLA_FFI_Buffer*>(ret), diag);
    if (XFFI_UNLIKELY(!value.has_value())) return std::nullopt;
    return Result<T>(std::move(*value));
  }
};

}  // namespace internal

// Extension points, declared as XLA declares them. A specialisation gives
//   static bool Isa(XLA_FFI_ArgType, void* arg);                 (optional)
//   static std::optional<T> Decode(XLA_FFI_ArgType, void* arg,
//                                  DiagnosticEngine&);
// and for results the same with XLA_FFI_RetType, Decode returning
// std::optional<Result<T>>. `.Arg<T>()`, `.Ret<T>()`, RemainingArgs and
// RemainingRets then accept T. (Decode may also be a template over xffi's
// diagnostic sinks, as xffi's own are.)
template <typename T>
struct ArgDecoding;
template <typename T>
struct RetDecoding;

template <>
struct ArgDecoding<AnyBuffer> : internal::BufferArgDecoding<AnyBuffer> {};
template <DataType dtype, size_t rank>
struct ArgDecoding<Buffer<dtype, rank>>
    : internal::BufferArgDecoding<Buffer<dtype, rank>> {};
template <>
struct RetDecoding<AnyBuffer> : internal::BufferRetDecoding<AnyBuffer> {};
template <DataType dtype, size_t rank>
struct RetDecoding<Buffer<dtype, rank>>
    : internal::BufferRetDecoding<Buffer<dtype, rank>> {};

// For Ffi::BindTo: a parameter of type T binds as `.Arg<Arg>()` or
// `.Ret<Ret>()` when a specialisation names a type, as in XLA.
template <typename T>
struct ArgBinding {
  using Arg = void;
};
template <typename T>
struct RetBinding {
  using Ret = void;
};

template <>
struct ArgBinding<AnyBuffer> {
  using Arg = AnyBuffer;
};
template <DataType dtype, size_t rank>
struct ArgBinding<Buffer<dtype, rank>> {
  using Arg = Buffer<dtype, rank>;
};
template <>
struct RetBinding<Result<AnyBuffer>> {
  using Ret = AnyBuffer;
};
template <DataType dtype, size_t rank>
struct RetBinding<Result<Buffer<dtype, rank>>> {
  using Ret = Buffer<dtype, rank>;
};

namespace internal {

// Argument (or result) i, through BufferDecoding for xffi's buffer types and
// through ArgDecoding/RetDecoding otherwise. The buffer pointer is loaded only
// once its kind has been checked: loaded earlier, the compiler hoists every
// argument's load above every check and keeps them all live across them.
template <typename T, typename D>
XFFI_ALWAYS_INLINE std::optional<T> DecodeArg(const XLA_FFI_Args* args,
                                              size_t i, D& diag) {
  if constexpr (IsBufferType<T>::value) {
    if (XFFI_UNLIKELY(!CheckArgType(&args->types[i], diag))) {
      return std::nullopt;
    }
    return BufferDecoding<T>::Decode(
        static_cast<const XLA_FFI_Buffer*>(args->args[i]), diag);
  } else {
    return CallDecode<ArgDecoding<T>>(diag, KnownKind(&args->types[i]),
                                      args->args[i]);
  }
}

template <typename T, typename D>
XFFI_ALWAYS_INLINE std::optional<Result<T>> DecodeRet(const XLA_FFI_Rets* rets,
                                                      size_t i, D& diag) {
  if constexpr (IsBufferType<T>::value) {
    if (XFFI_UNLIKELY(!CheckRetType(&rets->types[i], diag))) {
      return std::nullopt;
    }
    std::optional<T> value = BufferDecoding<T>::Decode(
        static_cast<const XLA_FFI_Buffer*>(rets->rets[i]), diag);
    if (XFFI_UNLIKELY(!value.has_value())) return std::nullopt;
    return Result<T>(std::move(*value));
  } else {
    return CallDecode<RetDecoding<T>>(diag, KnownKind(&rets->types[i]),
                                      rets->rets[i]);
  }
}

}  // namespace internal
}  // namespace xffi::ffi

#endif  // XFFI_FFI_BUFFER_H_
