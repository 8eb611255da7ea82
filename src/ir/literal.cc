#include "xffi/program/literal.h"

#include <charconv>
#include <cmath>
#include <complex>
#include <cstring>

#include "ir/float_types.h"

namespace xffi {
namespace {

template <typename Float, typename Bits>
void AppendFloat(std::string& out, Float value) {
  if (std::isnan(value)) {
    Bits bits;
    std::memcpy(&bits, &value, sizeof(bits));
    const int mantissa_bits = std::numeric_limits<Float>::digits - 1;
    const Bits mantissa = bits & ((Bits{1} << mantissa_bits) - 1);
    const Bits quiet = Bits{1} << (mantissa_bits - 1);
    if (std::signbit(value)) out += "-";
    out += "nan";
    // XLA's convention: a payload other than the default quiet NaN's is
    // spelled out so the text round-trips bit for bit.
    if (mantissa != quiet) {
      char buffer[32];
      auto end = std::to_chars(buffer, buffer + sizeof(buffer),
                               static_cast<uint64_t>(mantissa), 16);
      out += "(0x";
      out.append(buffer, end.ptr);
      out += ")";
    }
    return;
  }
  if (std::isinf(value)) {
    out += value < 0 ? "-inf" : "inf";
    return;
  }
  char buffer[64];
  auto end = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out.append(buffer, end.ptr);
}

void AppendNarrowFloat(std::string& out, ElementType type, uint32_t bits) {
  double value = NarrowFloatToDouble(type, bits);
  if (std::isnan(value)) {
    out += "nan";
    return;
  }
  // Every narrow value is exactly a float, and the shortest float spelling
  // converts back to the same narrow value.
  AppendFloat<float, uint32_t>(out, static_cast<float>(value));
}

template <typename T>
T Load(const unsigned char* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

void AppendElement(std::string& out, ElementType type, const unsigned char* p) {
  switch (type) {
    case ElementType::kPred:
      out += *p ? "true" : "false";
      return;
    case ElementType::kS1:
    case ElementType::kS2:
    case ElementType::kS4:
    case ElementType::kS8:
      out += std::to_string(static_cast<int>(Load<int8_t>(p)));
      return;
    case ElementType::kS16:
      out += std::to_string(Load<int16_t>(p));
      return;
    case ElementType::kS32:
      out += std::to_string(Load<int32_t>(p));
      return;
    case ElementType::kS64:
      out += std::to_string(Load<int64_t>(p));
      return;
    case ElementType::kU1:
    case ElementType::kU2:
    case ElementType::kU4:
    case ElementType::kU8:
      out += std::to_string(static_cast<unsigned>(*p));
      return;
    case ElementType::kU16:
      out += std::to_string(Load<uint16_t>(p));
      return;
    case ElementType::kU32:
      out += std::to_string(Load<uint32_t>(p));
      return;
    case ElementType::kU64:
      out += std::to_string(Load<uint64_t>(p));
      return;
    case ElementType::kF32:
      AppendFloat<float, uint32_t>(out, Load<float>(p));
      return;
    case ElementType::kF64:
      AppendFloat<double, uint64_t>(out, Load<double>(p));
      return;
    case ElementType::kC64: {
      auto c = Load<std::complex<float>>(p);
      out += "(";
      AppendFloat<float, uint32_t>(out, c.real());
      out += ", ";
      AppendFloat<float, uint32_t>(out, c.imag());
      out += ")";
      return;
    }
    case ElementType::kC128: {
      auto c = Load<std::complex<double>>(p);
      out += "(";
      AppendFloat<double, uint64_t>(out, c.real());
      out += ", ";
      AppendFloat<double, uint64_t>(out, c.imag());
      out += ")";
      return;
    }
    case ElementType::kF16:
    case ElementType::kBF16:
      AppendNarrowFloat(out, type, Load<uint16_t>(p));
      return;
    default:
      AppendNarrowFloat(out, type, *p);
      return;
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
