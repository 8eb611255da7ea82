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

  DataType element_type() const { return static_cast<DataType>(buf_->dtype); }
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

// A result a handler writes. Dereferences to the wrapped buffer.
template <typename T>
class Result {
 public:
  explicit Result(T value) : value_(std::move(value)) {}
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

// Extension point: how an argument (and, through Result, a result) of type T
// decodes. Specialisations provide
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

  template <typename D>
  XFFI_ALWAYS_INLINE static std::optional<Buffer<dtype, rank>> Decode(
      const XLA_FFI_Buffer* buf, D& diag) {
    bool dtype_ok = buf->dtype == kDType;
    bool rank_ok = rank == kDynamicRank || buf->rank == kRank;
    if (XFFI_UNLIKELY(!dtype_ok || !rank_ok)) {
      if constexpr (D::kExplain) {
        if (rank == kDynamicRank) {
          diag.Fail("expected buffer of ", dtype, ", got ",
                    DataTypeName(buf->dtype), " rank ", buf->rank);
        } else {
          diag.Fail("expected buffer of ", dtype, " rank ", kRank, ", got ",
                    DataTypeName(buf->dtype), " rank ", buf->rank);
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
  std::underlying_type_t<Enum> raw;
  std::memcpy(&raw, slot, sizeof(raw));
  return static_cast<int64_t>(raw);
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

}  // namespace internal
}  // namespace xffi::ffi

#endif  // XFFI_FFI_BUFFER_H_
