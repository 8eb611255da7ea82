// Data types, execution stages, traits and the small value types (Span,
// TypeId) that every other piece of the binding library speaks in.
#ifndef XFFI_FFI_TYPES_H_
#define XFFI_FFI_TYPES_H_

#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>

#include "xffi/ffi/config.h"

namespace xffi::ffi {

// Values are xla::PrimitiveType numbers, so a static_cast to and from
// XLA_FFI_DataType is exact.
enum class DataType : uint8_t {
  INVALID = XLA_FFI_DataType_INVALID,
  PRED = XLA_FFI_DataType_PRED,
  S1 = XLA_FFI_DataType_S1,
  S2 = XLA_FFI_DataType_S2,
  S4 = XLA_FFI_DataType_S4,
  S8 = XLA_FFI_DataType_S8,
  S16 = XLA_FFI_DataType_S16,
  S32 = XLA_FFI_DataType_S32,
  S64 = XLA_FFI_DataType_S64,
  U1 = XLA_FFI_DataType_U1,
  U2 = XLA_FFI_DataType_U2,
  U4 = XLA_FFI_DataType_U4,
  U8 = XLA_FFI_DataType_U8,
  U16 = XLA_FFI_DataType_U16,
  U32 = XLA_FFI_DataType_U32,
  U64 = XLA_FFI_DataType_U64,
  F16 = XLA_FFI_DataType_F16,
  F32 = XLA_FFI_DataType_F32,
  F64 = XLA_FFI_DataType_F64,
  BF16 = XLA_FFI_DataType_BF16,
  C64 = XLA_FFI_DataType_C64,
  C128 = XLA_FFI_DataType_C128,
  TOKEN = XLA_FFI_DataType_TOKEN,
  F8E5M2 = XLA_FFI_DataType_F8E5M2,
  F8E3M4 = XLA_FFI_DataType_F8E3M4,
  F8E4M3 = XLA_FFI_DataType_F8E4M3,
  F8E4M3FN = XLA_FFI_DataType_F8E4M3FN,
  F8E4M3B11FNUZ = XLA_FFI_DataType_F8E4M3B11FNUZ,
  F8E5M2FNUZ = XLA_FFI_DataType_F8E5M2FNUZ,
  F8E4M3FNUZ = XLA_FFI_DataType_F8E4M3FNUZ,
  F4E2M1FN = XLA_FFI_DataType_F4E2M1FN,
  F8E8M0FNU = XLA_FFI_DataType_F8E8M0FNU,
};

// Short spellings, as XLA code writes `ffi::F32`.
inline constexpr DataType PRED = DataType::PRED;
inline constexpr DataType S1 = DataType::S1;
inline constexpr DataType S2 = DataType::S2;
inline constexpr DataType S4 = DataType::S4;
inline constexpr DataType S8 = DataType::S8;
inline constexpr DataType S16 = DataType::S16;
inline constexpr DataType S32 = DataType::S32;
inline constexpr DataType S64 = DataType::S64;
inline constexpr DataType U1 = DataType::U1;
inline constexpr DataType U2 = DataType::U2;
inline constexpr DataType U4 = DataType::U4;
inline constexpr DataType U8 = DataType::U8;
inline constexpr DataType U16 = DataType::U16;
inline constexpr DataType U32 = DataType::U32;
inline constexpr DataType U64 = DataType::U64;
inline constexpr DataType F16 = DataType::F16;
inline constexpr DataType F32 = DataType::F32;
inline constexpr DataType F64 = DataType::F64;
inline constexpr DataType BF16 = DataType::BF16;
inline constexpr DataType C64 = DataType::C64;
inline constexpr DataType C128 = DataType::C128;
inline constexpr DataType TOKEN = DataType::TOKEN;
inline constexpr DataType F8E5M2 = DataType::F8E5M2;
inline constexpr DataType F8E3M4 = DataType::F8E3M4;
inline constexpr DataType F8E4M3 = DataType::F8E4M3;
inline constexpr DataType F8E4M3FN = DataType::F8E4M3FN;
inline constexpr DataType F8E4M3B11FNUZ = DataType::F8E4M3B11FNUZ;
inline constexpr DataType F8E5M2FNUZ = DataType::F8E5M2FNUZ;
inline constexpr DataType F8E4M3FNUZ = DataType::F8E4M3FNUZ;
inline constexpr DataType F4E2M1FN = DataType::F4E2M1FN;
inline constexpr DataType F8E8M0FNU = DataType::F8E8M0FNU;

// Bytes per element as stored in a buffer; sub-byte types are stored one
// element per byte, and TOKEN/INVALID carry no data.
constexpr size_t ByteWidth(DataType dtype) {
  switch (dtype) {
    case DataType::INVALID:
    case DataType::TOKEN:
      return 0;
    case DataType::PRED:
    case DataType::S1:
    case DataType::S2:
    case DataType::S4:
    case DataType::S8:
    case DataType::U1:
    case DataType::U2:
    case DataType::U4:
    case DataType::U8:
    case DataType::F8E5M2:
    case DataType::F8E3M4:
    case DataType::F8E4M3:
    case DataType::F8E4M3FN:
    case DataType::F8E4M3B11FNUZ:
    case DataType::F8E5M2FNUZ:
    case DataType::F8E4M3FNUZ:
    case DataType::F4E2M1FN:
    case DataType::F8E8M0FNU:
      return 1;
    case DataType::S16:
    case DataType::U16:
    case DataType::F16:
    case DataType::BF16:
      return 2;
    case DataType::S32:
    case DataType::U32:
    case DataType::F32:
      return 4;
    case DataType::S64:
    case DataType::U64:
    case DataType::F64:
    case DataType::C64:
      return 8;
    case DataType::C128:
      return 16;
  }
  return 0;
}

// The spelling used in error messages and signatures: the XLA enum name.
constexpr const char* DataTypeName(DataType dtype) {
  switch (dtype) {
    case DataType::INVALID:
      return "INVALID";
    case DataType::PRED:
      return "PRED";
    case DataType::S1:
      return "S1";
    case DataType::S2:
      return "S2";
    case DataType::S4:
      return "S4";
    case DataType::S8:
      return "S8";
    case DataType::S16:
      return "S16";
    case DataType::S32:
      return "S32";
    case DataType::S64:
      return "S64";
    case DataType::U1:
      return "U1";
    case DataType::U2:
      return "U2";
    case DataType::U4:
      return "U4";
    case DataType::U8:
      return "U8";
    case DataType::U16:
      return "U16";
    case DataType::U32:
      return "U32";
    case DataType::U64:
      return "U64";
    case DataType::F16:
      return "F16";
    case DataType::F32:
      return "F32";
    case DataType::F64:
      return "F64";
    case DataType::BF16:
      return "BF16";
    case DataType::C64:
      return "C64";
    case DataType::C128:
      return "C128";
    case DataType::TOKEN:
      return "TOKEN";
    case DataType::F8E5M2:
      return "F8E5M2";
    case DataType::F8E3M4:
      return "F8E3M4";
    case DataType::F8E4M3:
      return "F8E4M3";
    case DataType::F8E4M3FN:
      return "F8E4M3FN";
    case DataType::F8E4M3B11FNUZ:
      return "F8E4M3B11FNUZ";
    case DataType::F8E5M2FNUZ:
      return "F8E5M2FNUZ";
    case DataType::F8E4M3FNUZ:
      return "F8E4M3FNUZ";
    case DataType::F4E2M1FN:
      return "F4E2M1FN";
    case DataType::F8E8M0FNU:
      return "F8E8M0FNU";
  }
  return "UNKNOWN_DTYPE";
}

inline std::string DataTypeName(XLA_FFI_DataType dtype) {
  std::string name = DataTypeName(static_cast<DataType>(dtype));
  if (name == "UNKNOWN_DTYPE") name += "(" + std::to_string(dtype) + ")";
  return name;
}

namespace internal {

// A C enum field of a call frame, read as the integer it holds. A caller (a
// newer runtime, or a broken one) may store any value there, and loading a
// value outside a C enum's range through the enum type is undefined
// behaviour in C++ (fuzz_call_frame found dtypes and attribute kinds loaded
// so), so decoders compare the integers.
template <typename Enum>
XFFI_ALWAYS_INLINE int64_t RawEnum(const Enum* slot) {
  std::underlying_type_t<Enum> raw;
  static_assert(sizeof(raw) == sizeof(Enum), "enum storage");
  std::memcpy(&raw, slot, sizeof(raw));
  return static_cast<int64_t>(raw);
}

// The name of a dtype field's value, whatever it holds.
inline std::string RawDataTypeName(const XLA_FFI_DataType* slot) {
  int64_t raw = RawEnum(slot);
  std::string name = raw >= 0 && raw <= 255
                         ? DataTypeName(static_cast<DataType>(raw))
                         : "UNKNOWN_DTYPE";
  if (name == "UNKNOWN_DTYPE") name += "(" + std::to_string(raw) + ")";
  return name;
}

}  // namespace internal

// Prints the enum name ("F32"), as XLA's header does.
inline std::ostream& operator<<(std::ostream& os, DataType dtype) {
  return os << DataTypeName(dtype);
}

constexpr bool IsComplexType(DataType dtype) {
  return dtype == DataType::C64 || dtype == DataType::C128;
}

template <DataType dtype>
constexpr bool IsComplexType() {
  return IsComplexType(dtype);
}

constexpr bool IsFloatType(DataType dtype) {
  switch (dtype) {
    case DataType::F16:
    case DataType::F32:
    case DataType::F64:
    case DataType::BF16:
    case DataType::F8E5M2:
    case DataType::F8E3M4:
    case DataType::F8E4M3:
    case DataType::F8E4M3FN:
    case DataType::F8E4M3B11FNUZ:
    case DataType::F8E5M2FNUZ:
    case DataType::F8E4M3FNUZ:
    case DataType::F4E2M1FN:
    case DataType::F8E8M0FNU:
      return true;
    default:
      return false;
  }
}

constexpr DataType ToComplex(DataType dtype) {
  switch (dtype) {
    case DataType::F32:
      return DataType::C64;
    case DataType::F64:
      return DataType::C128;
    default:
      return DataType::INVALID;
  }
}

constexpr DataType ToReal(DataType dtype) {
  switch (dtype) {
    case DataType::C64:
      return DataType::F32;
    case DataType::C128:
      return DataType::F64;
    default:
      return dtype;
  }
}

// The real type of a complex type's imaginary part (the same as its real
// part); other types map to themselves, as with ToReal.
constexpr DataType ToImag(DataType dtype) { return ToReal(dtype); }

// The C++ type a buffer element is read as. Types C++ has no spelling for
// (f16, bf16, f8 and f4 families) map to unsigned integers of their storage
// width; sub-byte integers map to their one-byte storage.
template <DataType dtype>
struct DataTypeToNative {
  static_assert(dtype != dtype, "this data type has no native type");
};

#define XFFI_NATIVE_TYPE_(dtype, native)     \
  template <>                                \
  struct DataTypeToNative<DataType::dtype> { \
    using type = native;                     \
  }

XFFI_NATIVE_TYPE_(PRED, bool);
XFFI_NATIVE_TYPE_(S1, int8_t);
XFFI_NATIVE_TYPE_(S2, int8_t);
XFFI_NATIVE_TYPE_(S4, int8_t);
XFFI_NATIVE_TYPE_(S8, int8_t);
XFFI_NATIVE_TYPE_(S16, int16_t);
XFFI_NATIVE_TYPE_(S32, int32_t);
XFFI_NATIVE_TYPE_(S64, int64_t);
XFFI_NATIVE_TYPE_(U1, uint8_t);
XFFI_NATIVE_TYPE_(U2, uint8_t);
XFFI_NATIVE_TYPE_(U4, uint8_t);
XFFI_NATIVE_TYPE_(U8, uint8_t);
XFFI_NATIVE_TYPE_(U16, uint16_t);
XFFI_NATIVE_TYPE_(U32, uint32_t);
XFFI_NATIVE_TYPE_(U64, uint64_t);
XFFI_NATIVE_TYPE_(F16, uint16_t);
XFFI_NATIVE_TYPE_(BF16, uint16_t);
XFFI_NATIVE_TYPE_(F32, float);
XFFI_NATIVE_TYPE_(F64, double);
XFFI_NATIVE_TYPE_(C64, std::complex<float>);
XFFI_NATIVE_TYPE_(C128, std::complex<double>);
XFFI_NATIVE_TYPE_(TOKEN, void);
XFFI_NATIVE_TYPE_(F8E5M2, uint8_t);
XFFI_NATIVE_TYPE_(F8E3M4, uint8_t);
XFFI_NATIVE_TYPE_(F8E4M3, uint8_t);
XFFI_NATIVE_TYPE_(F8E4M3FN, uint8_t);
XFFI_NATIVE_TYPE_(F8E4M3B11FNUZ, uint8_t);
XFFI_NATIVE_TYPE_(F8E5M2FNUZ, uint8_t);
XFFI_NATIVE_TYPE_(F8E4M3FNUZ, uint8_t);
XFFI_NATIVE_TYPE_(F4E2M1FN, uint8_t);
XFFI_NATIVE_TYPE_(F8E8M0FNU, uint8_t);

#undef XFFI_NATIVE_TYPE_

template <DataType dtype>
using NativeType = typename DataTypeToNative<dtype>::type;

namespace internal {

// The data type a C++ scalar is carried as in attributes and typed_data<T>.
// Only types with a one-to-one mapping are listed: uint16_t is U16, never
// F16, because attributes of F16 do not exist.
template <typename T>
struct NativeToDataType {
  static constexpr DataType value = DataType::INVALID;
};
#define XFFI_NATIVE_DTYPE_(native, dtype)              \
  template <>                                          \
  struct NativeToDataType<native> {                    \
    static constexpr DataType value = DataType::dtype; \
  }
XFFI_NATIVE_DTYPE_(bool, PRED);
XFFI_NATIVE_DTYPE_(int8_t, S8);
XFFI_NATIVE_DTYPE_(int16_t, S16);
XFFI_NATIVE_DTYPE_(int32_t, S32);
XFFI_NATIVE_DTYPE_(int64_t, S64);
XFFI_NATIVE_DTYPE_(uint8_t, U8);
XFFI_NATIVE_DTYPE_(uint16_t, U16);
XFFI_NATIVE_DTYPE_(uint32_t, U32);
XFFI_NATIVE_DTYPE_(uint64_t, U64);
XFFI_NATIVE_DTYPE_(float, F32);
XFFI_NATIVE_DTYPE_(double, F64);
XFFI_NATIVE_DTYPE_(std::complex<float>, C64);
XFFI_NATIVE_DTYPE_(std::complex<double>, C128);
#undef XFFI_NATIVE_DTYPE_

template <typename T>
inline constexpr DataType kNativeToDataType =
    NativeToDataType<std::remove_cv_t<T>>::value;

}  // namespace internal

// Rank of a buffer whose rank is checked at run time only.
inline constexpr size_t kDynamicRank = std::numeric_limits<size_t>::max();

enum class ExecutionStage : uint8_t {
  kInstantiate = XLA_FFI_ExecutionStage_INSTANTIATE,
  kPrepare = XLA_FFI_ExecutionStage_PREPARE,
  kInitialize = XLA_FFI_ExecutionStage_INITIALIZE,
  kExecute = XLA_FFI_ExecutionStage_EXECUTE,
  kRecord = XLA_FFI_ExecutionStage_RECORD,
};

constexpr const char* ExecutionStageName(XLA_FFI_ExecutionStage stage) {
  switch (stage) {
    case XLA_FFI_ExecutionStage_INSTANTIATE:
      return "INSTANTIATE";
    case XLA_FFI_ExecutionStage_PREPARE:
      return "PREPARE";
    case XLA_FFI_ExecutionStage_INITIALIZE:
      return "INITIALIZE";
    case XLA_FFI_ExecutionStage_EXECUTE:
      return "EXECUTE";
    case XLA_FFI_ExecutionStage_RECORD:
      return "RECORD";
  }
  return "UNKNOWN_STAGE";
}

constexpr const char* ExecutionStageName(ExecutionStage stage) {
  return ExecutionStageName(static_cast<XLA_FFI_ExecutionStage>(stage));
}

enum class Traits : uint32_t {
  kCmdBufferCompatible = XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE,
};

// User data and state types carry `static TypeId id;`, filled by registration.
// (== on TypeId is declared with the other C struct operators, c_operators.h.)
using TypeId = XLA_FFI_TypeId;
using TypeInfo = XLA_FFI_TypeInfo;

// A non-owning view of contiguous values (std::span is C++20).
template <typename T>
class Span {
 public:
  using value_type = std::remove_cv_t<T>;
  using iterator = T*;

  constexpr Span() = default;
  constexpr Span(T* data, size_t size) : data_(data), size_(size) {}
  template <typename C, typename = decltype(std::declval<C&>().data())>
  constexpr Span(C& container)  // NOLINT: implicit like std::span
      : data_(container.data()), size_(container.size()) {}

  constexpr T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr T& operator[](size_t i) const { return data_[i]; }
  constexpr T& front() const { return data_[0]; }
  constexpr T& back() const { return data_[size_ - 1]; }
  constexpr T* begin() const { return data_; }
  constexpr T* end() const { return data_ + size_; }
  // The first or last n elements; n must not exceed size().
  constexpr Span first(size_t n) const { return Span(data_, n); }
  constexpr Span last(size_t n) const { return Span(data_ + size_ - n, n); }

  friend bool operator==(Span a, Span b) {
    if (a.size_ != b.size_) return false;
    for (size_t i = 0; i < a.size_; ++i) {
      if (!(a.data_[i] == b.data_[i])) return false;
    }
    return true;
  }
  friend bool operator!=(Span a, Span b) { return !(a == b); }

 private:
  T* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace xffi::ffi

#endif  // XFFI_FFI_TYPES_H_
