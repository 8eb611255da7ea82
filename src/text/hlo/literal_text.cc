#include "text/hlo/literal_text.h"

#include <charconv>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <vector>

#include "ir/float_types.h"

namespace xffi::hlo {
namespace {

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
    FloatBitLayout layout = FloatBitLayoutOf(type);
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
    if (!std::isnan(DecodeFloatBits(type, bits)))
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
    // Two's complement in as many bytes as the type stores.
    StoreElementBits(type, out, static_cast<uint64_t>(value));
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
    StoreElementBits(type, out, value);
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
    StoreElementBits(part, out, re);
    StoreElementBits(part, out + half, im);
    return Status::Ok();
  }
  if (IsFloatingType(type)) {
    uint64_t bits;
    if (Status st = ParseFloatBits(s, type, bits); !st.ok()) return st;
    StoreElementBits(type, out, bits);
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

}  // namespace xffi::hlo
