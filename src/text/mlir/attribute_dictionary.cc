// The public entry points for typed-FFI backend configs: an MLIR attribute
// dictionary to FfiAttributes and back.
#include <charconv>
#include <cmath>
#include <cstring>

#include "text/mlir/attribute.h"
#include "xffi/program/text.h"

namespace xffi {
namespace {

std::string QuoteMlirString(std::string_view value) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out = "\"";
  for (char c : value) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f && c != '"' && c != '\\') {
      out.push_back(c);
    } else {
      out.push_back('\\');
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 15]);
    }
  }
  out.push_back('"');
  return out;
}

// MLIR float literals need a '.'; non-finite values print as bit patterns.
template <typename F>
std::string FloatLiteral(F value) {
  if (!std::isfinite(value)) {
    using Bits = std::conditional_t<sizeof(F) == 4, uint32_t, uint64_t>;
    Bits bits;
    std::memcpy(&bits, &value, sizeof(bits));
    char buffer[24];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), bits, 16);
    std::string hex(buffer, end);
    for (char& c : hex) c = static_cast<char>(std::toupper(c));
    return "0x" + std::string(sizeof(F) * 2 - hex.size(), '0') + hex;
  }
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  std::string text(buffer, end);
  if (text.find_first_of(".") == std::string::npos) {
    size_t e = text.find_first_of("eE");
    text.insert(e == std::string::npos ? text.size() : e, ".0");
  }
  return text;
}

template <typename T>
std::string IntegerLiteral(T value) {
  return std::to_string(value);
}

template <typename T>
std::string VectorLiteral(const std::vector<T>& values) {
  // array<T: ...> covers signless integers and f32/f64; unsigned element
  // types only exist as dense<...> tensors.
  std::string elements;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) elements += ", ";
    if constexpr (std::is_floating_point_v<T>)
      elements += FloatLiteral(values[i]);
    else
      elements += IntegerLiteral(values[i]);
  }
  std::string type = MlirElementTypeName(ElementTypeOf<T>());
  if constexpr (std::is_unsigned_v<T>) {
    return "dense<[" + elements + "]> : tensor<" +
           std::to_string(values.size()) + "x" + type + ">";
  } else {
    if (values.empty()) return "array<" + type + ">";
    return "array<" + type + ": " + elements + ">";
  }
}

std::string PrintValue(const AttrValue& value);

std::string PrintDictionary(const FfiAttributes& attributes) {
  std::string out = "{";
  for (size_t i = 0; i < attributes.size(); ++i) {
    if (i) out += ", ";
    const std::string& name = attributes.names()[i];
    bool bare =
        !name.empty() &&
        (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
    for (char c : name)
      bare &= std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
              c == '.' || c == '$';
    out += bare ? name : QuoteMlirString(name);
    out += " = ";
    out += PrintValue(attributes.values()[i]);
  }
  return out + "}";
}

std::string PrintValue(const AttrValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>) {
          return v ? "true" : "false";
        } else if constexpr (std::is_integral_v<T>) {
          return IntegerLiteral(v) + " : " +
                 MlirElementTypeName(ElementTypeOf<T>());
        } else if constexpr (std::is_floating_point_v<T>) {
          return FloatLiteral(v) + " : " +
                 MlirElementTypeName(ElementTypeOf<T>());
        } else if constexpr (std::is_same_v<T, std::complex<float>> ||
                             std::is_same_v<T, std::complex<double>>) {
          // MLIR has no complex scalar attribute; a one-element tensor is the
          // closest spelling (it parses back as an array).
          return "dense<(" + FloatLiteral(v.real()) + "," +
                 FloatLiteral(v.imag()) + ")> : tensor<" +
                 MlirElementTypeName(ElementTypeOf<T>()) + ">";
        } else if constexpr (std::is_same_v<T, std::string>) {
          return QuoteMlirString(v);
        } else if constexpr (std::is_same_v<T, FfiAttributes>) {
          return PrintDictionary(v);
        } else {
          return VectorLiteral(v);
        }
      },
      value);
}

}  // namespace

StatusOr<FfiAttributes> ParseMlirAttributeDictionary(
    std::string_view text, std::string_view source_name) {
  xffi::text::MlirLexer lexer(text, source_name);
  // XLA reads an empty backend_config as "no attributes".
  if (lexer.At(xffi::text::TokenKind::kEof)) return FfiAttributes();
  xffi::text::MlirAttributeParser parser(lexer);
  StatusOr<text::MlirAttr> dictionary = parser.ParseDictionary();
  if (!dictionary.ok()) return dictionary.status();
  if (!lexer.At(xffi::text::TokenKind::kEof))
    return lexer.Expected("end of input after the dictionary");
  return xffi::text::DictionaryToFfiAttributes(*dictionary, lexer);
}

std::string PrintMlirAttributeDictionary(const FfiAttributes& attributes) {
  return PrintDictionary(attributes);
}

}  // namespace xffi
