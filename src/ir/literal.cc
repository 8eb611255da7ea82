#include "xffi/program/literal.h"

#include <charconv>
#include <cmath>
#include <cstring>

#include "ir/float_types.h"

namespace xffi {
namespace {

// NaNs keep their sign and payload: a payload other than the canonical
// quiet NaN's is spelled out ("nan(0x1)"), as XLA writes it.
void AppendNan(std::string& out, ElementType type, uint64_t bits) {
  FloatBitLayout layout = FloatBitLayoutOf(type);
  if (((bits ^ layout.canonical_nan) & layout.sign_mask) != 0) out += "-";
  out += "nan";
  uint64_t payload = bits & layout.mantissa_mask();
  if (payload != (layout.canonical_nan & layout.mantissa_mask())) {
    char buffer[24];
    auto end = std::to_chars(buffer, buffer + sizeof(buffer), payload, 16);
    out += "(0x";
    out.append(buffer, end.ptr);
    out += ")";
  }
}

void AppendFloat(std::string& out, ElementType type, const unsigned char* p) {
  uint64_t bits = LoadElementBits(type, p);
  double value = DecodeFloatBits(type, bits);
  if (std::isnan(value)) return AppendNan(out, type, bits);
  if (std::isinf(value)) {
    out += value < 0 ? "-inf" : "inf";
    return;
  }
  // The shortest spelling that reads back to the same value; every value
  // of a narrower type is exactly a float.
  char buffer[64];
  std::to_chars_result end;
  if (type == ElementType::kF64)
    end = std::to_chars(buffer, buffer + sizeof(buffer), value);
  else
    end = std::to_chars(buffer, buffer + sizeof(buffer),
                        static_cast<float>(value));
  out.append(buffer, end.ptr);
}

void AppendElement(std::string& out, ElementType type, const unsigned char* p) {
  if (type == ElementType::kPred) {
    out += *p ? "true" : "false";
  } else if (IsSignedIntegralType(type)) {
    uint64_t bits = LoadElementBits(type, p);
    int width = 8 * static_cast<int>(ElementByteSize(type));
    // Sign-extend what the type stores.
    int64_t value = width == 64 ? static_cast<int64_t>(bits)
                                : static_cast<int64_t>(bits << (64 - width)) >>
                                      (64 - width);
    out += std::to_string(value);
  } else if (IsUnsignedIntegralType(type)) {
    out += std::to_string(LoadElementBits(type, p));
  } else if (IsComplexType(type)) {
    ElementType part =
        type == ElementType::kC64 ? ElementType::kF32 : ElementType::kF64;
    size_t half = ElementByteSize(type) / 2;
    out += "(";
    AppendFloat(out, part, p);
    out += ", ";
    AppendFloat(out, part, p + half);
    out += ")";
  } else {
    AppendFloat(out, type, p);
  }
}

void AppendArray(std::string& out, const Shape& shape,
                 const unsigned char* data, size_t dim, size_t& offset) {
  const size_t element_size = ElementByteSize(shape.element_type());
  if (shape.rank() == 0) {
    AppendElement(out, shape.element_type(), data);
    return;
  }
  const int64_t extent = shape.dim(static_cast<int64_t>(dim));
  const bool innermost = dim + 1 == static_cast<size_t>(shape.rank());
  out += innermost ? "{" : "{ ";
  for (int64_t i = 0; i < extent; ++i) {
    if (i > 0) out += ", ";
    if (innermost) {
      AppendElement(out, shape.element_type(), data + offset);
      offset += element_size;
    } else {
      AppendArray(out, shape, data, dim + 1, offset);
    }
  }
  out += innermost ? "}" : " }";
}

}  // namespace

Literal::Literal(const Shape& shape) : shape_(shape.WithoutLayout()) {
  if (shape_.IsArray()) {
    bytes_.assign(shape_.byte_size(), 0);
  } else if (shape_.IsTuple()) {
    for (const Shape& element : shape_.tuple_shapes())
      elements_.emplace_back(element);
  }
}

Literal Literal::FromBytes(const Shape& shape, const void* data, size_t size) {
  Literal literal(shape);
  // An empty constant may come with no data pointer at all; memcpy must not
  // see it even for zero bytes.
  size_t count = std::min(size, literal.bytes_.size());
  if (count != 0) std::memcpy(literal.bytes_.data(), data, count);
  return literal;
}

Literal Literal::Tuple(std::vector<Literal> elements) {
  std::vector<Shape> shapes;
  for (const Literal& element : elements) shapes.push_back(element.shape());
  Literal literal;
  literal.shape_ = Shape::Tuple(std::move(shapes));
  literal.elements_ = std::move(elements);
  return literal;
}

std::string Literal::ValueToString() const {
  std::string out;
  if (shape_.IsTuple()) {
    out += "(";
    for (size_t i = 0; i < elements_.size(); ++i) {
      if (i > 0) out += ", ";
      out += elements_[i].ValueToString();
    }
    return out + ")";
  }
  if (shape_.IsToken() || !shape_.valid()) return out;
  size_t offset = 0;
  AppendArray(out, shape_, bytes_.data(), 0, offset);
  return out;
}

std::string Literal::ToString() const {
  return shape_.ToString(false) + " " + ValueToString();
}

bool Literal::operator==(const Literal& other) const {
  return shape_.Compatible(other.shape_) &&
         shape_.WithoutLayout() == other.shape_.WithoutLayout() &&
         bytes_ == other.bytes_ && elements_ == other.elements_;
}

}  // namespace xffi
