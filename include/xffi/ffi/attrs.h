// Attributes: how scalars, strings, arrays, dictionaries, variants, user
// enums and user structs decode from a call frame's attribute dictionary.
#ifndef XFFI_FFI_ATTRS_H_
#define XFFI_FFI_ATTRS_H_

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

#include "xffi/ffi/diagnostic.h"
#include "xffi/ffi/error.h"
#include "xffi/ffi/signature.h"
#include "xffi/ffi/types.h"

namespace xffi::ffi {

// Extension point, declared as XLA declares it. A specialisation provides
//   using Type = ...;   what the handler receives (T itself, but T* for
//                       Pointer<T>)
//   static bool Isa(XLA_FFI_AttrType, void* attr);                (optional)
//   static std::optional<Type> Decode(XLA_FFI_AttrType, void* attr,
//                                     DiagnosticEngine&);
// as XLA's decoders do. xffi's own decoders instead take their diagnostic
// as a template parameter D (internal::NoDiagnostic on the hot path,
// internal::Diagnostic or a DiagnosticEngine when explaining: call
// diag.Fail(...) with the pieces of the reason), and add for signatures
//   static constexpr XLA_FFI_AttrType kAttrType;  (0: several are accepted)
//   static constexpr XLA_FFI_DataType kDType;     (scalar/array element type)
//   static std::string TypeName();
// plus, where decoding cannot fail once checked, an unchecked Get.
template <typename T>
struct AttrDecoding;

// Marks a type `.Attrs<T>()` may decode the whole attribute dictionary into
// (`using Attrs = T;`, as the struct registration macro writes).
template <typename T>
struct AttrsBinding {
  using Attrs = void;
};

// For Ffi::BindTo: a parameter of type T binds as the attribute `name()`
// decoded as `Attr` when a specialisation says so, as in XLA:
//   template <> struct AttrBinding<MyAttr> {
//     using Attr = MyAttr;
//     static constexpr std::string_view name() { return "my_attr"; }
//   };
template <typename T>
struct AttrBinding {
  using Attr = void;
};

// An attribute bound by name at compile time, for Ffi::BindTo:
//   static constexpr char kEps[] = "eps";
//   Ffi::BindTo(+[](Attr<float, kEps> eps) { ... *eps ... });
template <typename T, const char* attr_name>
class Attr {
 public:
  static constexpr const char* kName = attr_name;
  Attr(T value) : value_(std::move(value)) {}  // NOLINT: as XLA's
  const T& get() const { return value_; }
  T& operator*() { return value_; }
  const T& operator*() const { return value_; }
  T* operator->() { return &value_; }
  const T* operator->() const { return &value_; }

 private:
  T value_;
};

template <typename T, const char* attr_name>
struct AttrBinding<Attr<T, attr_name>> {
  using Attr = T;
  static constexpr std::string_view name() { return attr_name; }
};

// An S64 scalar attribute holding an address.
template <typename T>
struct Pointer {};

template <typename T>
struct StructMember {
  using Type = T;
  using type = T;
  constexpr explicit StructMember(std::string_view member_name)
      : name(member_name) {}
  std::string_view name;
};

namespace internal {

// What AttrDecoding<T> produces: its Type, or (for a decoder that names
// none) what its Decode returns.
template <typename T, typename = void>
struct DecodedAttrOf {
  using type = typename decltype(AttrDecoding<T>::Decode(
      XLA_FFI_AttrType{}, nullptr, std::declval<NoDiagnostic&>()))::value_type;
};
template <typename T>
struct DecodedAttrOf<T, std::void_t<typename AttrDecoding<T>::Type>> {
  using type = typename AttrDecoding<T>::Type;
};
template <typename T>
using DecodedAttr = typename DecodedAttrOf<T>::type;

// AttrDecoding<T>::Decode, whichever diagnostic it takes (see CallDecode).
template <typename T, typename D>
XFFI_ALWAYS_INLINE std::optional<DecodedAttr<T>> DecodeAttr(
    XLA_FFI_AttrType type, void* attr, D& diag) {
  return CallDecode<AttrDecoding<T>>(diag, type, attr);
}

template <typename T>
XFFI_ALWAYS_INLINE bool IsaAttr(XLA_FFI_AttrType type, void* attr) {
  return CallIsa<AttrDecoding<T>>(type, attr);
}

// What a signature says about an attribute decoded by AttrDecoding<T>; a
// decoder written for XLA says nothing but its C++ type.
template <typename T, typename = void>
struct AttrDescription {
  static constexpr XLA_FFI_AttrType kAttrType =
      static_cast<XLA_FFI_AttrType>(0);
  static constexpr XLA_FFI_DataType kDType = XLA_FFI_DataType_INVALID;
};
template <typename T>
struct AttrDescription<T, std::void_t<decltype(AttrDecoding<T>::kAttrType),
                                      decltype(AttrDecoding<T>::kDType)>> {
  static constexpr XLA_FFI_AttrType kAttrType = AttrDecoding<T>::kAttrType;
  static constexpr XLA_FFI_DataType kDType = AttrDecoding<T>::kDType;
};

template <typename T>
std::string AttrTypeName() {
  return DecodingTypeName<AttrDecoding<T>, T>::Get();
}

// How a failed alternative or member is described: Describe() for xffi's
// decoders, the C++ type for others.
template <typename T, typename = void>
struct AttrDescribe {
  static std::string Get() { return AttrTypeName<T>(); }
};
template <typename T>
struct AttrDescribe<T, std::void_t<decltype(AttrDecoding<T>::Describe())>> {
  static std::string Get() { return AttrDecoding<T>::Describe(); }
};

// An attribute kind as stored, with anything but the four kinds as 0 (no
// kind): decoders (XLA's signatures) take the kind by value, and an unknown
// value must not be loaded as the enum (see RawEnum).
XFFI_ALWAYS_INLINE XLA_FFI_AttrType AttrTypeAt(const XLA_FFI_Attrs* attrs,
                                               size_t i) {
  int64_t raw = RawEnum(&attrs->types[i]);
  return static_cast<XLA_FFI_AttrType>(
      raw >= XLA_FFI_AttrType_ARRAY && raw <= XLA_FFI_AttrType_STRING ? raw
                                                                      : 0);
}

inline std::string DescribeAttr(XLA_FFI_AttrType type, const void* attr) {
  switch (type) {
    case XLA_FFI_AttrType_SCALAR:
      return StrCat(
          RawDataTypeName(&static_cast<const XLA_FFI_Scalar*>(attr)->dtype),
          " scalar");
    case XLA_FFI_AttrType_ARRAY:
      return StrCat(
          "array of ",
          RawDataTypeName(&static_cast<const XLA_FFI_Array*>(attr)->dtype));
    case XLA_FFI_AttrType_STRING:
      return "string";
    case XLA_FFI_AttrType_DICTIONARY:
      return "dictionary";
  }
  return "attribute of an unknown kind";
}

template <typename Decoding, typename D>
XFFI_COLD void FailAttr(D& diag, XLA_FFI_AttrType type, const void* attr) {
  if constexpr (D::kExplain) {
    diag.Fail("expected ", Decoding::Describe(), ", got ",
              DescribeAttr(type, attr));
  }
}

inline std::string_view ToView(const XLA_FFI_ByteSpan* span) {
  return std::string_view(span->ptr, span->len);
}

// Index of `name` in a sorted attribute dictionary, or -1.
inline int64_t FindAttr(const XLA_FFI_Attrs* attrs, std::string_view name) {
  int64_t lo = 0, hi = attrs->size;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    int cmp = ToView(attrs->names[mid]).compare(name);
    if (cmp == 0) return mid;
    if (cmp < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return -1;
}

inline std::string AttrNames(const XLA_FFI_Attrs* attrs) {
  std::string out;
  for (int64_t i = 0; i < attrs->size; ++i) {
    if (i > 0) out += ", ";
    out += ToView(attrs->names[i]);
  }
  return out;
}

template <typename T>
struct ScalarAttrDecoding {
  using Type = T;
  static constexpr XLA_FFI_AttrType kAttrType = XLA_FFI_AttrType_SCALAR;
  static constexpr XLA_FFI_DataType kDType =
      static_cast<XLA_FFI_DataType>(kNativeToDataType<T>);
  static std::string TypeName() { return std::string(CppTypeName<T>()); }
  static std::string Describe() {
    return StrCat(TypeName(), " (", kNativeToDataType<T>, " scalar)");
  }
  XFFI_ALWAYS_INLINE static bool Isa(XLA_FFI_AttrType type, void* attr) {
    return type == XLA_FFI_AttrType_SCALAR &&
           RawEnum(&static_cast<const XLA_FFI_Scalar*>(attr)->dtype) == kDType;
  }
  // The check is spelled out rather than calling Isa: the same test, but
  // GCC schedules this form better on the hot path.
  template <typename D>
  XFFI_ALWAYS_INLINE static std::optional<T> Decode(XLA_FFI_AttrType type,
                                                    void* attr, D& diag) {
    auto* scalar = static_cast<const XLA_FFI_Scalar*>(attr);
    if (XFFI_UNLIKELY(type != XLA_FFI_AttrType_SCALAR ||
                      RawEnum(&scalar->dtype) != kDType)) {
      FailAttr<ScalarAttrDecoding>(diag, type, attr);
      return std::nullopt;
    }
    return Get(type, attr);
  }
  // Unchecked: only after Decode succeeded on the same attribute.
  XFFI_ALWAYS_INLINE static T Get(XLA_FFI_AttrType, void* attr) {
    auto* scalar = static_cast<const XLA_FFI_Scalar*>(attr);
    if constexpr (std::is_same_v<T, bool>) {
      // PRED is one byte; any nonzero byte is true.
      return *static_cast<const uint8_t*>(scalar->value) != 0;
    } else {
      T value;
      std::memcpy(&value, scalar->value, sizeof(T));
      return value;
    }
  }
};

}  // namespace internal

#define XFFI_SCALAR_ATTR_(T) \
  template <>                \
  struct AttrDecoding<T> : internal::ScalarAttrDecoding<T> {}
XFFI_SCALAR_ATTR_(bool);
XFFI_SCALAR_ATTR_(int8_t);
XFFI_SCALAR_ATTR_(int16_t);
XFFI_SCALAR_ATTR_(int32_t);
XFFI_SCALAR_ATTR_(int64_t);
XFFI_SCALAR_ATTR_(uint8_t);
XFFI_SCALAR_ATTR_(uint16_t);
XFFI_SCALAR_ATTR_(uint32_t);
XFFI_SCALAR_ATTR_(uint64_t);
XFFI_SCALAR_ATTR_(float);
XFFI_SCALAR_ATTR_(double);
XFFI_SCALAR_ATTR_(std::complex<float>);
XFFI_SCALAR_ATTR_(std::complex<double>);
#undef XFFI_SCALAR_ATTR_

template <>
struct AttrDecoding<std::string_view> {
  using Type = std::string_view;
  static constexpr XLA_FFI_AttrType kAttrType = XLA_FFI_AttrType_STRING;
  static constexpr XLA_FFI_DataType kDType = XLA_FFI_DataType_INVALID;
  static std::string TypeName() { return "std::string_view"; }
  static std::string Describe() { return "std::string_view (string)"; }
  XFFI_ALWAYS_INLINE static bool Isa(XLA_FFI_AttrType type, void*) {
    return type == XLA_FFI_AttrType_STRING;
  }
  template <typename D>
  XFFI_ALWAYS_INLINE static std::optional<std::string_view> Decode(
      XLA_FFI_AttrType type, void* attr, D& diag) {
    if (XFFI_UNLIKELY(type != XLA_FFI_AttrType_STRING)) {
      internal::FailAttr<AttrDecoding>(diag, type, attr);
      return std::nullopt;
    }
    return Get(type, attr);
  }
  XFFI_ALWAYS_INLINE static std::string_view Get(XLA_FFI_AttrType, void* attr) {
    auto* span = static_cast<const XLA_FFI_ByteSpan*>(attr);
    return std::string_view(span->ptr, span->len);
  }
};

namespace internal {

template <typename T>
struct ArrayAttrDecoding {
  using Type = Span<const T>;
  static constexpr XLA_FFI_AttrType kAttrType = XLA_FFI_AttrType_ARRAY;
  static constexpr XLA_FFI_DataType kDType =
      static_cast<XLA_FFI_DataType>(kNativeToDataType<T>);
  static std::string TypeName() {
    return StrCat("Span<const ", CppTypeName<T>(), ">");
  }
  static std::string Describe() {
    return StrCat(TypeName(), " (array of ", kNativeToDataType<T>, ")");
  }
  XFFI_ALWAYS_INLINE static bool Isa(XLA_FFI_AttrType type, void* attr) {
    return type == XLA_FFI_AttrType_ARRAY &&
           RawEnum(&static_cast<const XLA_FFI_Array*>(attr)->dtype) == kDType;
  }
  template <typename D>
  XFFI_ALWAYS_INLINE static std::optional<Span<const T>> Decode(
      XLA_FFI_AttrType type, void* attr, D& diag) {
    auto* array = static_cast<const XLA_FFI_Array*>(attr);
    if (XFFI_UNLIKELY(type != XLA_FFI_AttrType_ARRAY ||
                      RawEnum(&array->dtype) != kDType)) {
      FailAttr<ArrayAttrDecoding>(diag, type, attr);
      return std::nullopt;
    }
    return Get(type, attr);
  }
  XFFI_ALWAYS_INLINE static Span<const T> Get(XLA_FFI_AttrType, void* attr) {
    auto* array = static_cast<const XLA_FFI_Array*>(attr);
    return Span<const T>(static_cast<const T*>(array->data), array->size);
  }
};

}  // namespace internal

// XLA decodes arrays of the integer types, float and double; xffi also of
// bool (PRED) and the complex types.
#define XFFI_ARRAY_ATTR_(T) \
  template <>               \
  struct AttrDecoding<Span<const T>> : internal::ArrayAttrDecoding<T> {}
XFFI_ARRAY_ATTR_(bool);
XFFI_ARRAY_ATTR_(int8_t);
XFFI_ARRAY_ATTR_(int16_t);
XFFI_ARRAY_ATTR_(int32_t);
XFFI_ARRAY_ATTR_(int64_t);
XFFI_ARRAY_ATTR_(uint8_t);
XFFI_ARRAY_ATTR_(uint16_t);
XFFI_ARRAY_ATTR_(uint32_t);
XFFI_ARRAY_ATTR_(uint64_t);
XFFI_ARRAY_ATTR_(float);
XFFI_ARRAY_ATTR_(double);
XFFI_ARRAY_ATTR_(std::complex<float>);
XFFI_ARRAY_ATTR_(std::complex<double>);
#undef XFFI_ARRAY_ATTR_

template <typename T>
struct AttrDecoding<Pointer<T>> {
  using Type = T*;
  static constexpr XLA_FFI_AttrType kAttrType = XLA_FFI_AttrType_SCALAR;
  static constexpr XLA_FFI_DataType kDType = XLA_FFI_DataType_S64;
  static std::string TypeName() {
    return internal::StrCat("Pointer<", internal::CppTypeName<T>(), ">");
  }
  static std::string Describe() {
    return internal::StrCat(TypeName(), " (S64 scalar)");
  }
  XFFI_ALWAYS_INLINE static bool Isa(XLA_FFI_AttrType type, void* attr) {
    return type == XLA_FFI_AttrType_SCALAR &&
           internal::RawEnum(
               &static_cast<const XLA_FFI_Scalar*>(attr)->dtype) == kDType;
  }
  template <typename D>
  XFFI_ALWAYS_INLINE static std::optional<T*> Decode(XLA_FFI_AttrType type,
                                                     void* attr, D& diag) {
    auto* scalar = static_cast<const XLA_FFI_Scalar*>(attr);
    if (XFFI_UNLIKELY(type != XLA_FFI_AttrType_SCALAR ||
                      internal::RawEnum(&scalar->dtype) != kDType)) {
      internal::FailAttr<AttrDecoding>(diag, type, attr);
      return std::nullopt;
    }
    return Get(type, attr);
  }
  XFFI_ALWAYS_INLINE static T* Get(XLA_FFI_AttrType, void* attr) {
    auto* scalar = static_cast<const XLA_FFI_Scalar*>(attr);
    int64_t address;
    std::memcpy(&address, scalar->value, sizeof(address));
    return reinterpret_cast<T*>(static_cast<intptr_t>(address));
  }
};

// A view of an attribute dictionary (sorted by name): looked up by name, or
// walked in order with begin()/end(), an iterator naming each entry.
//
// Errors carry XLA's code, INTERNAL, so a handler that passes one on reports
// what it would under XLA; the messages are xffi's.
class Dictionary {
 public:
  // Walks the entries in name order; dereferences to the entry's name.
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using difference_type = ptrdiff_t;
    using value_type = std::string_view;
    using pointer = const std::string_view*;
    using reference = std::string_view;

    bool operator==(const Iterator& other) const { return idx_ == other.idx_; }
    bool operator!=(const Iterator& other) const { return idx_ != other.idx_; }
    std::string_view operator*() const {
      return internal::ToView(attrs_->names[idx_]);
    }
    Iterator& operator++() {
      ++idx_;
      return *this;
    }
    Iterator operator++(int) {
      Iterator before = *this;
      ++idx_;
      return before;
    }

   private:
    friend class Dictionary;
    Iterator(const XLA_FFI_Attrs* attrs, size_t idx)
        : attrs_(attrs), idx_(idx) {}

    const XLA_FFI_Attrs* attrs_;
    size_t idx_;
  };

  explicit Dictionary(const XLA_FFI_Attrs* attrs) : attrs_(attrs) {}

  size_t size() const { return static_cast<size_t>(attrs_->size); }
  bool empty() const { return attrs_->size == 0; }
  bool contains(std::string_view name) const {
    return internal::FindAttr(attrs_, name) >= 0;
  }
  std::string_view name(size_t i) const {
    return internal::ToView(attrs_->names[i]);
  }

  Iterator begin() const { return Iterator(attrs_, 0); }
  Iterator end() const { return Iterator(attrs_, size()); }

  template <typename T>
  bool contains(std::string_view name) const {
    return isa<T>(name);
  }

  template <typename T>
  bool isa(std::string_view name) const {
    int64_t i = internal::FindAttr(attrs_, name);
    if (i < 0) return false;
    return internal::IsaAttr<T>(internal::AttrTypeAt(attrs_, i),
                                attrs_->attrs[i]);
  }

  template <typename T>
  bool isa(const Iterator& it) const {
    return internal::IsaAttr<T>(internal::AttrTypeAt(attrs_, it.idx_),
                                attrs_->attrs[it.idx_]);
  }

  template <typename T>
  ErrorOr<internal::DecodedAttr<T>> get(std::string_view name) const {
    int64_t i = internal::FindAttr(attrs_, name);
    if (XFFI_UNLIKELY(i < 0)) {
      return Error::Internal(internal::StrCat(
          "attribute '", name,
          "' not found (dictionary has: ", internal::AttrNames(attrs_), ")"));
    }
    return GetAt<T>(static_cast<size_t>(i));
  }

  // XLA's own get-by-iterator returns the value through a size_t, which
  // truncates floating-point values and rejects strings; xffi's returns the
  // decoded value as get-by-name does.
  template <typename T>
  ErrorOr<internal::DecodedAttr<T>> get(const Iterator& it) const {
    return GetAt<T>(it.idx_);
  }

  const XLA_FFI_Attrs* c_attrs() const { return attrs_; }

 private:
  template <typename T>
  ErrorOr<internal::DecodedAttr<T>> GetAt(size_t i) const {
    internal::NoDiagnostic quiet;
    std::optional<internal::DecodedAttr<T>> value = internal::DecodeAttr<T>(
        internal::AttrTypeAt(attrs_, i), attrs_->attrs[i], quiet);
    if (XFFI_LIKELY(value.has_value())) return std::move(*value);
    internal::Diagnostic diag;
    internal::DecodeAttr<T>(internal::AttrTypeAt(attrs_, i), attrs_->attrs[i],
                            diag);
    return Error::Internal(
        internal::StrCat("attribute '", name(i), "': ", diag.message));
  }

  const XLA_FFI_Attrs* attrs_;
};

template <>
struct AttrsBinding<Dictionary> {
  using Attrs = Dictionary;
};

template <>
struct AttrDecoding<Dictionary> {
  using Type = Dictionary;
  static constexpr XLA_FFI_AttrType kAttrType = XLA_FFI_AttrType_DICTIONARY;
  static constexpr XLA_FFI_DataType kDType = XLA_FFI_DataType_INVALID;
  static std::string TypeName() { return "Dictionary"; }
  static std::string Describe() { return "Dictionary (dictionary)"; }
  XFFI_ALWAYS_INLINE static bool Isa(XLA_FFI_AttrType type, void*) {
    return type == XLA_FFI_AttrType_DICTIONARY;
  }
  template <typename D>
  XFFI_ALWAYS_INLINE static std::optional<Dictionary> Decode(
      XLA_FFI_AttrType type, void* attr, D& diag) {
    if (XFFI_UNLIKELY(type != XLA_FFI_AttrType_DICTIONARY)) {
      internal::FailAttr<AttrDecoding>(diag, type, attr);
      return std::nullopt;
    }
    return Get(type, attr);
  }
  XFFI_ALWAYS_INLINE static Dictionary Get(XLA_FFI_AttrType, void* attr) {
    return Dictionary(static_cast<const XLA_FFI_Attrs*>(attr));
  }
};

// The first alternative that decodes wins.
template <typename... Ts>
struct AttrDecoding<std::variant<Ts...>> {
  using Type = std::variant<internal::DecodedAttr<Ts>...>;
  static constexpr XLA_FFI_AttrType kAttrType =
      static_cast<XLA_FFI_AttrType>(0);
  static constexpr XLA_FFI_DataType kDType = XLA_FFI_DataType_INVALID;
  static std::string TypeName() {
    std::string out = "std::variant<";
    bool first = true;
    ((out += (first ? "" : ", "), out += internal::AttrTypeName<Ts>(),
      first = false),
     ...);
    return out + ">";
  }
  static std::string Describe() {
    std::string out = "one of (";
    bool first = true;
    ((out += (first ? "" : " | "), out += internal::AttrDescribe<Ts>::Get(),
      first = false),
     ...);
    return out + ")";
  }
  XFFI_ALWAYS_INLINE static bool Isa(XLA_FFI_AttrType type, void* attr) {
    return (internal::IsaAttr<Ts>(type, attr) || ...);
  }
  template <typename D>
  XFFI_ALWAYS_INLINE static std::optional<Type> Decode(XLA_FFI_AttrType type,
                                                       void* attr, D& diag) {
    std::optional<Type> result;
    (void)((result = Try<Ts>(type, attr), result.has_value()) || ...);
    if (XFFI_UNLIKELY(!result.has_value())) {
      internal::FailAttr<AttrDecoding>(diag, type, attr);
    }
    return result;
  }

 private:
  template <typename T>
  XFFI_ALWAYS_INLINE static std::optional<Type> Try(XLA_FFI_AttrType type,
                                                    void* attr) {
    internal::NoDiagnostic quiet;
    std::optional<internal::DecodedAttr<T>> value =
        internal::DecodeAttr<T>(type, attr, quiet);
    if (value.has_value()) {
      return Type(std::in_place_type<internal::DecodedAttr<T>>,
                  std::move(*value));
    }
    return std::nullopt;
  }
};

namespace internal {

template <typename T, typename Decoding, typename D>
XFFI_ALWAYS_INLINE std::optional<T> DecodeEnum(XLA_FFI_AttrType type,
                                               void* attr, D& diag) {
  using U = std::underlying_type_t<T>;
  NoDiagnostic quiet;
  std::optional<U> raw = ScalarAttrDecoding<U>::Decode(type, attr, quiet);
  if (XFFI_UNLIKELY(!raw.has_value())) {
    FailAttr<Decoding>(diag, type, attr);
    return std::nullopt;
  }
  return static_cast<T>(*raw);
}

// Where each member's name sits in a sorted dictionary holding exactly the
// members: the first place a struct decoder looks, before it searches.
template <typename... Ms, size_t... Is>
constexpr std::array<int64_t, sizeof...(Ms)> MemberRanks(
    const std::tuple<Ms...>& members, std::index_sequence<Is...>) {
  const std::string_view names[] = {std::get<Is>(members).name...,
                                    std::string_view()};
  std::array<int64_t, sizeof...(Ms)> ranks{};
  for (size_t i = 0; i < sizeof...(Ms); ++i) {
    int64_t rank = 0;
    for (size_t j = 0; j < sizeof...(Ms); ++j) {
      if (names[j] < names[i]) ++rank;
    }
    ranks[i] = rank;
  }
  return ranks;
}

template <typename M, typename D>
XFFI_ALWAYS_INLINE std::optional<DecodedAttr<typename M::Type>> DecodeMember(
    const XLA_FFI_Attrs* dict, const M& member, int64_t rank, D& diag) {
  std::string_view name = member.name;
  int64_t i = rank;
  if (XFFI_UNLIKELY(ToView(dict->names[i]) != name)) {
    i = FindAttr(dict, name);
    if (i < 0) {
      diag.Fail("missing member '", name, "'");
      return std::nullopt;
    }
  }
  if constexpr (D::kExplain) {
    Diagnostic reason;
    std::optional<DecodedAttr<typename M::Type>> value =
        DecodeAttr<typename M::Type>(AttrTypeAt(dict, i), dict->attrs[i],
                                     reason);
    if (!value.has_value()) diag.Fail("member '", name, "': ", reason.message);
    return value;
  } else {
    return DecodeAttr<typename M::Type>(AttrTypeAt(dict, i), dict->attrs[i],
                                        diag);
  }
}

template <typename T, typename... Ms, size_t... Is, typename D>
XFFI_ALWAYS_INLINE std::optional<T> DecodeStruct(
    XLA_FFI_AttrType type, void* attr, D& diag,
    const std::tuple<Ms...>& members,
    const std::array<int64_t, sizeof...(Ms)>& ranks,
    std::index_sequence<Is...>) {
  if (XFFI_UNLIKELY(type != XLA_FFI_AttrType_DICTIONARY)) {
    diag.Fail("expected a dictionary for struct ", CppTypeName<T>(), ", got ",
              DescribeAttr(type, attr));
    return std::nullopt;
  }
  auto* dict = static_cast<const XLA_FFI_Attrs*>(attr);
  if (XFFI_UNLIKELY(dict->size != static_cast<int64_t>(sizeof...(Ms)))) {
    if constexpr (D::kExplain) {
      std::string expected;
      ((expected += (Is == 0 ? "" : ", "),
        expected += std::get<Is>(members).name),
       ...);
      diag.Fail("struct ", CppTypeName<T>(), " expects ", sizeof...(Ms),
                " members (", expected, "), got ", dict->size, " (",
                AttrNames(dict), ")");
    }
    return std::nullopt;
  }
  std::tuple<std::optional<DecodedAttr<typename Ms::Type>>...> decoded;
  bool ok = ((std::get<Is>(decoded) =
                  DecodeMember(dict, std::get<Is>(members), ranks[Is], diag),
              std::get<Is>(decoded).has_value()) &&
             ...);
  if (XFFI_UNLIKELY(!ok)) return std::nullopt;
  return T{std::move(*std::get<Is>(decoded))...};
}

}  // namespace internal
}  // namespace xffi::ffi

// Decodes the enum T from a scalar of its underlying type. Use at global
// namespace scope.
#define XFFI_REGISTER_ENUM_ATTR_DECODING(T)                                    \
  namespace xffi::ffi {                                                        \
  template <>                                                                  \
  struct AttrDecoding<T> {                                                     \
    static_assert(std::is_enum_v<T>, "expected an enum");                      \
    using Type = T;                                                            \
    static constexpr XLA_FFI_AttrType kAttrType = XLA_FFI_AttrType_SCALAR;     \
    static constexpr XLA_FFI_DataType kDType = static_cast<XLA_FFI_DataType>(  \
        internal::kNativeToDataType<std::underlying_type_t<T>>);               \
    static std::string TypeName() { return #T; }                               \
    static std::string Describe() {                                            \
      return internal::StrCat(#T " (", static_cast<DataType>(kDType),          \
                              " scalar)");                                     \
    }                                                                          \
    XFFI_ALWAYS_INLINE static bool Isa(XLA_FFI_AttrType type, void* attr) {    \
      return internal::ScalarAttrDecoding<std::underlying_type_t<T>>::Isa(     \
          type, attr);                                                         \
    }                                                                          \
    template <typename D>                                                      \
    XFFI_ALWAYS_INLINE static std::optional<T> Decode(XLA_FFI_AttrType type,   \
                                                      void* attr, D& diag) {   \
      return internal::DecodeEnum<T, AttrDecoding>(type, attr, diag);          \
    }                                                                          \
    XFFI_ALWAYS_INLINE static T Get(XLA_FFI_AttrType type, void* attr) {       \
      using U = std::underlying_type_t<T>;                                     \
      return static_cast<T>(internal::ScalarAttrDecoding<U>::Get(type, attr)); \
    }                                                                          \
  };                                                                           \
  }                                                                            \
  static_assert(true, "")

// Decodes the aggregate T from a dictionary with exactly the given members,
// in T's member order: StructMember<float>("eps"), StructMember<int>("n").
// Use at global namespace scope.
#define XFFI_REGISTER_STRUCT_ATTR_DECODING(T, ...)                           \
  namespace xffi::ffi {                                                      \
  template <>                                                                \
  struct AttrsBinding<T> {                                                   \
    using Attrs = T;                                                         \
  };                                                                         \
  template <>                                                                \
  struct AttrDecoding<T> {                                                   \
    using Type = T;                                                          \
    static constexpr auto kMembers = std::make_tuple(__VA_ARGS__);           \
    static constexpr size_t kNumMembers =                                    \
        std::tuple_size_v<std::remove_const_t<decltype(kMembers)>>;          \
    static constexpr std::array<int64_t, kNumMembers> kRanks =               \
        internal::MemberRanks(kMembers,                                      \
                              std::make_index_sequence<kNumMembers>{});      \
    [[maybe_unused]] static constexpr XLA_FFI_AttrType kAttrType =           \
        XLA_FFI_AttrType_DICTIONARY;                                         \
    [[maybe_unused]] static constexpr XLA_FFI_DataType kDType =              \
        XLA_FFI_DataType_INVALID;                                            \
    static std::string TypeName() { return #T; }                             \
    static std::string Describe() { return #T " (dictionary)"; }             \
    template <typename D>                                                    \
    XFFI_ALWAYS_INLINE static std::optional<T> Decode(XLA_FFI_AttrType type, \
                                                      void* attr, D& diag) { \
      return internal::DecodeStruct<T>(                                      \
          type, attr, diag, kMembers, kRanks,                                \
          std::make_index_sequence<kNumMembers>{});                          \
    }                                                                        \
  };                                                                         \
  }                                                                          \
  static_assert(true, "")

#endif  // XFFI_FFI_ATTRS_H_
