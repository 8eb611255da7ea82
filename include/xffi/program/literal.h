// xffi: literals, values that own their bytes (constants, program inputs and
// results).
#ifndef XFFI_PROGRAM_LITERAL_H_
#define XFFI_PROGRAM_LITERAL_H_

#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "xffi/program/shape.h"

namespace xffi {

// The ElementType of a C++ element type (bool, intN_t, uintN_t, float,
// double, std::complex<float|double>).
template <typename T>
constexpr ElementType ElementTypeOf() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, bool>)
    return ElementType::kPred;
  else if constexpr (std::is_same_v<U, int8_t>)
    return ElementType::kS8;
  else if constexpr (std::is_same_v<U, int16_t>)
    return ElementType::kS16;
  else if constexpr (std::is_same_v<U, int32_t>)
    return ElementType::kS32;
  else if constexpr (std::is_same_v<U, int64_t>)
    return ElementType::kS64;
  else if constexpr (std::is_same_v<U, uint8_t>)
    return ElementType::kU8;
  else if constexpr (std::is_same_v<U, uint16_t>)
    return ElementType::kU16;
  else if constexpr (std::is_same_v<U, uint32_t>)
    return ElementType::kU32;
  else if constexpr (std::is_same_v<U, uint64_t>)
    return ElementType::kU64;
  else if constexpr (std::is_same_v<U, float>)
    return ElementType::kF32;
  else if constexpr (std::is_same_v<U, double>)
    return ElementType::kF64;
  else if constexpr (std::is_same_v<U, std::complex<float>>)
    return ElementType::kC64;
  else if constexpr (std::is_same_v<U, std::complex<double>>)
    return ElementType::kC128;
  else {
    static_assert(sizeof(U) == 0, "no ElementType for this C++ type");
    return ElementType::kInvalid;
  }
}

// An array value in the default (row-major) layout, a token, or a tuple of
// literals. Array bytes are zero-initialised on construction.
class Literal {
 public:
  Literal() = default;
  // Arrays get byte_size() zero bytes; tuples get default element literals of
  // the element shapes; tokens hold nothing. The layout is dropped: literal
  // bytes are always row-major.
  explicit Literal(const Shape& shape);

  static Literal FromBytes(const Shape& shape, const void* data, size_t size);
  template <typename T>
  static Literal FromVector(std::vector<int64_t> dims,
                            const std::vector<T>& values);
  template <typename T>
  static Literal Scalar(T value) {
    return FromVector<T>({}, std::vector<T>{value});
  }
  template <typename T>
  static Literal Vector(const std::vector<T>& values) {
    return FromVector<T>({static_cast<int64_t>(values.size())}, values);
  }
  static Literal Tuple(std::vector<Literal> elements);

  const Shape& shape() const { return shape_; }
  bool valid() const { return shape_.valid(); }

  void* data() { return bytes_.data(); }
  const void* data() const { return bytes_.data(); }
  size_t size_bytes() const { return bytes_.size(); }
  template <typename T>
  T* data() {
    return reinterpret_cast<T*>(bytes_.data());
  }
  template <typename T>
  const T* data() const {
    return reinterpret_cast<const T*>(bytes_.data());
  }
  // Copies the elements out; the element type must match T exactly.
  template <typename T>
  std::vector<T> ToVector() const;

  std::vector<Literal>& tuple_elements() { return elements_; }
  const std::vector<Literal>& tuple_elements() const { return elements_; }

  // HLO text of the value: "{1, 2, 3}", "{ {1, 2}, {3, 4} }", "(1, {2})";
  // floats print so they parse back to the same bits (nan, inf, -inf; a NaN
  // whose payload is not the default one prints as a hex bit pattern).
  std::string ValueToString() const;
  // "f32[3] {1, 2, 3}".
  std::string ToString() const;

  // Same shape (layouts ignored) and identical bytes.
  bool operator==(const Literal& other) const;
  bool operator!=(const Literal& other) const { return !(*this == other); }

 private:
  Shape shape_;
  std::vector<unsigned char> bytes_;
  std::vector<Literal> elements_;
};

template <typename T>
Literal Literal::FromVector(std::vector<int64_t> dims,
                            const std::vector<T>& values) {
  Shape shape = Shape::Array(ElementTypeOf<T>(), std::move(dims));
  Literal literal(shape);
  if constexpr (std::is_same_v<T, bool>) {
    for (size_t i = 0; i < values.size() && i < literal.bytes_.size(); ++i)
      literal.bytes_[i] = values[i] ? 1 : 0;
  } else if (size_t n = std::min(literal.bytes_.size(),
                                 values.size() * sizeof(T));
             n > 0) {  // memcpy with a null pointer is undefined, even for 0
    std::memcpy(literal.bytes_.data(), values.data(), n);
  }
  return literal;
}

template <typename T>
std::vector<T> Literal::ToVector() const {
  std::vector<T> out(static_cast<size_t>(shape_.num_elements()));
  if constexpr (std::is_same_v<T, bool>) {
    for (size_t i = 0; i < out.size(); ++i) out[i] = bytes_[i] != 0;
  } else if (!out.empty()) {
    std::memcpy(out.data(), bytes_.data(), out.size() * sizeof(T));
  }
  return out;
}

}  // namespace xffi

#endif  // XFFI_PROGRAM_LITERAL_H_
