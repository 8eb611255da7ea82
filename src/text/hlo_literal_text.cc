#include "text/hlo_literal_text.h"

#include <charconv>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <vector>

#include "ir/float_types.h"

namespace xffi::hlo {
namespace {

// The bit layout of a floating type, as far as NaNs need it.
struct FloatBits {
  int width = 0;
  int mantissa_bits = 0;
  uint64_t sign_mask = 0;
  uint64_t canonical_nan = 0;
  uint64_t mantissa_mask() const { return (uint64_t{1} << mantissa_bits) - 1; }
};

int NarrowMantissaBits(ElementType type) {
  switch (type) {
    case ElementType::kF16:
      return 10;
    case ElementType::kBF16:
      return 7;
    case ElementType::kF8E5M2:
    case ElementType::kF8E5M2FNUZ:
      return 2;
    case ElementType::kF8E3M4:
      return 4;
    case ElementType::kF4E2M1FN:
      return 1;
    case ElementType::kF8E8M0FNU:
      return 0;
    default:  // the e4m3 family
      return 3;
  }
}

FloatBits BitsOf(ElementType type) {
  FloatBits bits;
  if (type == ElementType::kF32) {
    bits = {32, 23, uint64_t{1} << 31, 0x7fc00000u};
  } else if (type == ElementType::kF64) {
    bits = {64, 52, uint64_t{1} << 63, 0x7ff8000000000000ull};
  } else {
    bits.width = ElementBitWidth(type);
    bits.mantissa_bits = NarrowMantissaBits(type);
    bits.sign_mask =
        type == ElementType::kF8E8M0FNU ? 0 : uint64_t{1} << (bits.width - 1);
    bits.canonical_nan =
        NarrowFloatFromDouble(type, std::numeric_limits<double>::quiet_NaN());
  }
  return bits;
}

template <typename T>
T Load(const unsigned char* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

template <typename T>
void Store(unsigned char* p, T value) {
  std::memcpy(p, &value, sizeof(T));
}

uint64_t LoadBits(ElementType type, const unsigned char* p) {
  switch (ElementByteSize(type)) {
    case 8:
      return Load<uint64_t>(p);
    case 4:
      return Load<uint32_t>(p);
    case 2:
      return Load<uint16_t>(p);
    default:
      return *p;
  }
}

void StoreBits(ElementType type, unsigned char* p, uint64_t bits) {
  switch (ElementByteSize(type)) {
    case 8:
      Store<uint64_t>(p, bits);
      return;
    case 4:
      Store<uint32_t>(p, static_cast<uint32_t>(bits));
      return;
    case 2:
      Store<uint16_t>(p, static_cast<uint16_t>(bits));
      return;
    default:
      *p = static_cast<unsigned char>(bits);
  }
}

double DecodeFloat(ElementType type, uint64_t bits) {
  if (type == ElementType::kF32) {
    float f;
    uint32_t b = static_cast<uint32_t>(bits);
    std::memcpy(&f, &b, 4);
    return f;
  }
  if (type == ElementType::kF64) {
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
  }
  return NarrowFloatToDouble(type, static_cast<uint32_t>(bits));
}

void AppendNan(std::string& out, ElementType type, uint64_t bits) {
  FloatBits layout = BitsOf(type);
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
  uint64_t bits = LoadBits(type, p);
  double value = DecodeFloat(type, bits);
  if (std::isnan(value)) return AppendNan(out, type, bits);
  if (std::isinf(value)) {
    out += value < 0 ? "-inf" : "inf";
    return;
  }
  char buffer[64];
  std::to_chars_result end;
  if (type == ElementType::kF64)
    end = std::to_chars(buffer, buffer + sizeof(buffer), value);
  else  // every narrower value is exactly a float
    end = std::to_chars(buffer, buffer + sizeof(buffer),
                        static_cast<float>(value));
  out.append(buffer, end.ptr);
}

void AppendElement(std::string& out, ElementType type, const unsigned char* p) {
  if (type == ElementType::kPred) {
    out += *p ? "true" : "false";
  } else if (IsSignedIntegralType(type)) {
    switch (ElementByteSize(type)) {
      case 8:
        out += std::to_string(Load<int64_t>(p));
        break;
      case 4:
        out += std::to_string(Load<int32_t>(p));
        break;
      case 2:
        out += std::to_string(Load<int16_t>(p));
        break;
      default:
        out += std::to_string(static_cast<int>(Load<int8_t>(p)));
    }
  } else if (IsUnsignedIntegralType(type)) {
    out += std::to_string(LoadBits(type, p));
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

// --- reading ---

Status ParseFloatBits(Scanner& s, ElementType type, uint64_t& bits) {
  s.SkipSpace();
  TextPos start = s.pos();
  bool negative = false;
  if (s.Peek() == '-' || s.Peek() == '+') {
    negative = s.Peek() == '-';
    s.Advance();
  }
  std::string_view word = s.PeekName();
  if (word == "nan") {
    s.Advance(3);
    FloatBits layout = BitsOf(type);
    bits = layout.canonical_nan;
    if (negative) bits ^= layout.sign_mask;
    if (s.Peek() == '(') {
      s.Advance();
      if (!s.TryConsume("0x")) return s.Expected("a hex NaN payload '0x...'");
      uint64_t payload = 0;
      TextPos digits = s.pos();
      std::string_view hex = s.PeekName();
      auto r =
          std::from_chars(hex.data(), hex.data() + hex.size(), payload, 16);
      if (hex.empty() || r.ptr != hex.data() + hex.size() ||
          r.ec != std::errc() || (payload & ~layout.mantissa_mask()) != 0)
        return s.Expected("a NaN payload that fits " +
                              std::to_string(layout.mantissa_bits) +
                              " mantissa bits",
                          digits);
      s.Advance(hex.size());
      if (Status st = s.Expect(')'); !st.ok()) return st;
      bits = (bits & ~layout.mantissa_mask()) | payload;
    }
    if (!std::isnan(DecodeFloat(type, bits)))
      return s.ErrorAt(start, "this NaN does not exist in " +
                                  std::string(ElementTypeName(type)));
    return Status::Ok();
  }
  double value;
  if (word == "inf") {
    s.Advance(3);
    value = std::numeric_limits<double>::infinity();
  } else {
    // A decimal number: digits, '.', an exponent with its sign.
    size_t length = 0;
    std::string_view rest = s.Rest();
    while (length < rest.size()) {
      char c = rest[length];
      bool sign_after_e = (c == '-' || c == '+') && length > 0 &&
                          (rest[length - 1] == 'e' || rest[length - 1] == 'E');
      if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' ||
            c == 'e' || c == 'E' || sign_after_e))
        break;
      ++length;
    }
    std::string_view number = rest.substr(0, length);
    if (number.empty())
      return s.Expected(
          std::string("a ") + std::string(ElementTypeName(type)) + " value",
          start);
    std::from_chars_result r;
    if (type == ElementType::kF32) {
      float f;
      r = std::from_chars(number.data(), number.data() + number.size(), f);
      value = f;
    } else {
      r = std::from_chars(number.data(), number.data() + number.size(), value);
    }
    if (r.ptr != number.data() + number.size() ||
        (r.ec != std::errc() && r.ec != std::errc::result_out_of_range))
      return s.Expected(
          std::string("a ") + std::string(ElementTypeName(type)) + " value",
          start);
    if (r.ec == std::errc::result_out_of_range)
      return s.ErrorAt(start, "'" + std::string(number) +
                                  "' is out of range for " +
                                  std::string(ElementTypeName(type)));
    s.Advance(length);
  }
  if (negative) value = -value;
  if (type == ElementType::kF32) {
    float f = static_cast<float>(value);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    bits = b;
  } else if (type == ElementType::kF64) {
    std::memcpy(&bits, &value, 8);
  } else {
    bits = NarrowFloatFromDouble(type, value);
  }
  return Status::Ok();
}

Status ParseElement(Scanner& s, ElementType type, unsigned char* out) {
  s.SkipSpace();
  TextPos start = s.pos();
  std::string type_name(ElementTypeName(type));
  if (type == ElementType::kPred) {
    if (s.TryConsumeWord("true") || s.TryConsumeWord("1")) {
      *out = 1;
    } else if (s.TryConsumeWord("false") || s.TryConsumeWord("0")) {
      *out = 0;
    } else {
      return s.Expected("true or false");
    }
    return Status::Ok();
  }
  if (IsSignedIntegralType(type)) {
    int64_t value;
    if (Status st = s.Int(value, "an " + type_name + " value"); !st.ok())
      return st;
    int bits = ElementBitWidth(type);
    int64_t min = bits == 64 ? std::numeric_limits<int64_t>::min()
                             : -(int64_t{1} << (bits - 1));
    int64_t max = bits == 64 ? std::numeric_limits<int64_t>::max()
                             : (int64_t{1} << (bits - 1)) - 1;
    if (value < min || value > max)
      return s.ErrorAt(
          start, std::to_string(value) + " is out of range for " + type_name);
    switch (ElementByteSize(type)) {
      case 8:
        Store<int64_t>(out, value);
        break;
      case 4:
        Store<int32_t>(out, static_cast<int32_t>(value));
        break;
      case 2:
        Store<int16_t>(out, static_cast<int16_t>(value));
        break;
      default:
        Store<int8_t>(out, static_cast<int8_t>(value));
    }
    return Status::Ok();
  }
  if (IsUnsignedIntegralType(type)) {
    uint64_t value;
    if (Status st = s.Uint(value, "a " + type_name + " value"); !st.ok())
      return st;
    int bits = ElementBitWidth(type);
    if (bits < 64 && value >= (uint64_t{1} << bits))
      return s.ErrorAt(
          start, std::to_string(value) + " is out of range for " + type_name);
    StoreBits(type, out, value);
    return Status::Ok();
  }
  if (IsComplexType(type)) {
    ElementType part =
        type == ElementType::kC64 ? ElementType::kF32 : ElementType::kF64;
    size_t half = ElementByteSize(type) / 2;
    uint64_t re, im;
    if (Status st = s.Expect('('); !st.ok()) return st;
    if (Status st = ParseFloatBits(s, part, re); !st.ok()) return st;
    if (Status st = s.Expect(','); !st.ok()) return st;
    if (Status st = ParseFloatBits(s, part, im); !st.ok()) return st;
    if (Status st = s.Expect(')'); !st.ok()) return st;
    StoreBits(part, out, re);
    StoreBits(part, out + half, im);
    return Status::Ok();
  }
  if (IsFloatingType(type)) {
    uint64_t bits;
    if (Status st = ParseFloatBits(s, type, bits); !st.ok()) return st;
    StoreBits(type, out, bits);
    return Status::Ok();
  }
  return s.ErrorAt(start, "a " + type_name + " has no literal value");
}

struct ArrayReader {
  Scanner& s;
  const Shape& shape;
  size_t element_size;
  std::vector<unsigned char> bytes;

  Status Read(size_t dim) {
    if (dim == static_cast<size_t>(shape.rank())) {
      size_t at = bytes.size();
      bytes.resize(at + element_size);
      return ParseElement(s, shape.element_type(), bytes.data() + at);
    }
    if (Status st = s.Expect('{'); !st.ok()) return st;
    const int64_t extent = shape.dim(static_cast<int64_t>(dim));
    int64_t count = 0;
    if (!s.TryConsume('}')) {
      while (true) {
        s.SkipSpace();
        if (count == extent)
          return s.Expected("'}' after " + std::to_string(extent) +
                            " elements of dimension " + std::to_string(dim));
        if (Status st = Read(dim + 1); !st.ok()) return st;
        ++count;
        if (s.TryConsume('}')) break;
        if (Status st = s.Expect(','); !st.ok()) return st;
      }
    }
    if (count != extent)
      return s.ErrorAt(s.pos(), "expected " + std::to_string(extent) +
                                    " elements in dimension " +
                                    std::to_string(dim) + ", got " +
                                    std::to_string(count));
    return Status::Ok();
  }
};

}  // namespace

Status ParseLiteralValue(Scanner& s, const Shape& shape, Literal& literal) {
  s.SkipSpace();
  if (shape.IsTuple()) {
    if (Status st = s.Expect('('); !st.ok()) return st;
    std::vector<Literal> elements(static_cast<size_t>(shape.tuple_size()));
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      if (i > 0)
        if (Status st = s.Expect(','); !st.ok()) return st;
      if (Status st = ParseLiteralValue(s, shape.tuple_shape(i),
                                        elements[static_cast<size_t>(i)]);
          !st.ok())
        return st;
    }
    if (Status st = s.Expect(')'); !st.ok()) return st;
    literal = Literal::Tuple(std::move(elements));
    return Status::Ok();
  }
  if (!shape.IsArray())
    return s.ErrorAt(s.pos(),
                     "a " + shape.ToString() + " has no literal value");
  if (s.Peek() == '{' && s.Rest().substr(0, 5) == "{...}")
    return s.ErrorAt(s.pos(),
                     "this constant was elided ('{...}'); print the module "
                     "with large constants to run it");
  ArrayReader reader{s, shape, ElementByteSize(shape.element_type()), {}};
  if (Status st = reader.Read(0); !st.ok()) return st;
  literal = Literal::FromBytes(shape.WithoutLayout(), reader.bytes.data(),
                               reader.bytes.size());
  return Status::Ok();
}

std::string PrintLiteralValue(const Literal& literal) {
  const Shape& shape = literal.shape();
  std::string out;
  if (shape.IsTuple()) {
    out += "(";
    for (size_t i = 0; i < literal.tuple_elements().size(); ++i) {
      if (i > 0) out += ", ";
      out += PrintLiteralValue(literal.tuple_elements()[i]);
    }
    return out + ")";
  }
  if (!shape.IsArray()) return out;
  const auto* data = static_cast<const unsigned char*>(literal.data());
  if (shape.rank() == 0) {
    AppendElement(out, shape.element_type(), data);
    return out;
  }
  size_t offset = 0;
  AppendArray(out, shape, data, 0, offset);
  return out;
}

}  // namespace xffi::hlo
