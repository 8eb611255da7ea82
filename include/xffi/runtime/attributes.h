// xffi: attribute values and attribute maps, as a caller builds them.
//
// What a typed FFI call carries besides its buffers: scalars, strings,
// arrays and nested dictionaries by name. A program's custom call holds its
// attributes in an AttributeMap; a call frame (runtime/call_frame.h) lays
// one out as XLA_FFI_Attrs, sorted by name as XLA does.
#ifndef XFFI_RUNTIME_ATTRIBUTES_H_
#define XFFI_RUNTIME_ATTRIBUTES_H_

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "xffi/c_api.h"

namespace xffi {

class AttributeMap;

// One attribute value. Integer literals pick their exact type (5 is
// int32_t, int64_t{5} is int64_t); a string literal is a string.
using AttrValue = std::variant<
    bool, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
    uint64_t, float, double, std::complex<float>, std::complex<double>,
    std::string, std::vector<int8_t>, std::vector<int16_t>,
    std::vector<int32_t>, std::vector<int64_t>, std::vector<uint8_t>,
    std::vector<uint16_t>, std::vector<uint32_t>, std::vector<uint64_t>,
    std::vector<float>, std::vector<double>, AttributeMap>;

// Attributes by name, in the order they were first set. Setting a name
// again replaces its value.
class AttributeMap {
 public:
  AttributeMap& Set(std::string name, AttrValue value);
  // C strings become string attributes rather than bools. A template, not a
  // `const char*` overload, because GCC takes an integer constant 0 (such as
  // int64_t{0}) for a null pointer and would pick that overload.
  template <typename CString,
            typename = std::enable_if_t<std::is_same_v<CString, const char*> ||
                                        std::is_same_v<CString, char*>>>
  AttributeMap& Set(std::string name, CString value) {
    return SetCString(std::move(name), value);
  }

  size_t size() const { return names_.size(); }
  bool empty() const { return names_.empty(); }
  bool contains(std::string_view name) const;
  const AttrValue* Find(std::string_view name) const;  // null when absent

  const std::vector<std::string>& names() const { return names_; }
  const std::vector<AttrValue>& values() const { return values_; }

 private:
  AttributeMap& SetCString(std::string name, const char* value);

  std::vector<std::string> names_;
  std::vector<AttrValue> values_;
};

// The XLA_FFI_DataType of a C++ element type.
template <typename T>
constexpr XLA_FFI_DataType DataTypeOf() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, bool>)
    return XLA_FFI_DataType_PRED;
  else if constexpr (std::is_same_v<U, int8_t>)
    return XLA_FFI_DataType_S8;
  else if constexpr (std::is_same_v<U, int16_t>)
    return XLA_FFI_DataType_S16;
  else if constexpr (std::is_same_v<U, int32_t>)
    return XLA_FFI_DataType_S32;
  else if constexpr (std::is_same_v<U, int64_t>)
    return XLA_FFI_DataType_S64;
  else if constexpr (std::is_same_v<U, uint8_t>)
    return XLA_FFI_DataType_U8;
  else if constexpr (std::is_same_v<U, uint16_t>)
    return XLA_FFI_DataType_U16;
  else if constexpr (std::is_same_v<U, uint32_t>)
    return XLA_FFI_DataType_U32;
  else if constexpr (std::is_same_v<U, uint64_t>)
    return XLA_FFI_DataType_U64;
  else if constexpr (std::is_same_v<U, float>)
    return XLA_FFI_DataType_F32;
  else if constexpr (std::is_same_v<U, double>)
    return XLA_FFI_DataType_F64;
  else if constexpr (std::is_same_v<U, std::complex<float>>)
    return XLA_FFI_DataType_C64;
  else if constexpr (std::is_same_v<U, std::complex<double>>)
    return XLA_FFI_DataType_C128;
  else {
    static_assert(sizeof(U) == 0,
                  "no XLA_FFI_DataType for this element type; pass the dtype "
                  "explicitly with Arg(void*, dtype, dims)");
    return XLA_FFI_DataType_INVALID;
  }
}

}  // namespace xffi

#endif  // XFFI_RUNTIME_ATTRIBUTES_H_
