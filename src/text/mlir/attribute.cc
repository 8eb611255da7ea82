#include "text/mlir/attribute.h"

#include <charconv>
#include <cstring>
#include <limits>

#include "ir/float_types.h"
#include "runtime/status_macros.h"
#include "xffi/program/text.h"

namespace xffi::text {
namespace {

// Deeper nesting than any real program has; it keeps hostile input from
// exhausting the stack.
constexpr int kMaxDepth = 64;
constexpr int64_t kMaxTensorElements = int64_t{1} << 48;
// The largest constant a text may ask for (a splat can be far larger than
// its text). Fuzz builds lower it to keep each input cheap.
#ifndef XFFI_TEXT_MAX_CONSTANT_BYTES
#define XFFI_TEXT_MAX_CONSTANT_BYTES (size_t{1} << 30)
#endif
constexpr size_t kMaxConstantBytes = XFFI_TEXT_MAX_CONSTANT_BYTES;

class DepthGuard {
 public:
  explicit DepthGuard(int* depth) : depth_(depth) { ++*depth_; }
  ~DepthGuard() { --*depth_; }
  bool exceeded() const { return *depth_ > kMaxDepth; }

 private:
  int* depth_;
};

bool ParseUnsigned(std::string_view text, uint64_t* out) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  }
  auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), *out, base);
  return ec == std::errc() && end == text.data() + text.size();
}

int HexNibble(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool IsNumericTypeName(std::string_view name) {
  if (name == "index") return true;
  std::optional<ElementType> type = ElementTypeFromMlirName(name);
  return type.has_value() && IsArrayElementType(*type);
}

std::string Quote(std::string_view name) {
  return "'" + std::string(name) + "'";
}

}  // namespace

const MlirAttr* MlirAttr::Find(std::string_view name) const {
  for (const auto& [key, value] : entries)
    if (key == name) return &value;
  return nullptr;
}

// --- Parsing helpers -------------------------------------------------------

Status MlirAttributeParser::Expect(TokenKind kind, std::string_view what) {
  if (!lex_.At(kind)) return lex_.Expected(what);
  lex_.Next();
  return Status::Ok();
}

Status MlirAttributeParser::ExpectKeyword(std::string_view word) {
  if (!lex_.AtKeyword(word))
    return lex_.Expected("'" + std::string(word) + "'");
  lex_.Next();
  return Status::Ok();
}

bool MlirAttributeParser::Consume(TokenKind kind) {
  if (!lex_.At(kind)) return false;
  lex_.Next();
  return true;
}

// --- Types -----------------------------------------------------------------

StatusOr<MlirType> MlirAttributeParser::ParseType() {
  DepthGuard guard(&depth_);
  if (guard.exceeded()) return lex_.Expected("a less deeply nested type");
  MlirType type;
  type.pos = lex_.peek().pos;
  if (lex_.At(TokenKind::kBangId)) {
    if (lex_.peek().value != "stablehlo.token")
      return lex_.ErrorAt(
          type.pos, "unsupported type " + MlirLexer::Describe(lex_.peek()));
    lex_.Next();
    type.shape = Shape::Token();
    return type;
  }
  if (lex_.AtKeyword("tuple")) {
    lex_.Next();
    XFFI_RETURN_IF_ERROR(Expect(TokenKind::kLess, "'<' after 'tuple'"));
    std::vector<Shape> elements;
    if (!Consume(TokenKind::kGreater)) {
      while (true) {
        StatusOr<MlirType> element = ParseType();
        if (!element.ok()) return element.status();
        elements.push_back(element->shape);
        if (Consume(TokenKind::kComma)) continue;
        XFFI_RETURN_IF_ERROR(
            Expect(TokenKind::kGreater, "',' or '>' in tuple<...>"));
        break;
      }
    }
    type.shape = Shape::Tuple(std::move(elements));
    return type;
  }
  bool tensor = false;
  std::vector<int64_t> dims;
  if (lex_.AtKeyword("tensor")) {
    lex_.Next();
    if (!lex_.At(TokenKind::kLess)) return lex_.Expected("'<' after 'tensor'");
    // Dimensions start right after '<': scan them before lexing further.
    lex_.Next();
    SourcePos dims_pos = lex_.peek().pos;
    dims = lex_.ScanDimensions();
    XFFI_RETURN_IF_ERROR(CheckElementCount(dims, dims_pos));
    tensor = true;
  }
  if (!lex_.At(TokenKind::kBareId))
    return lex_.Expected(tensor ? "an element type" : "a type");
  SourcePos element_pos = lex_.peek().pos;
  std::string name = lex_.Next().value;
  if (name == "complex") {
    XFFI_RETURN_IF_ERROR(Expect(TokenKind::kLess, "'<' after 'complex'"));
    if (!lex_.At(TokenKind::kBareId)) return lex_.Expected("f32 or f64");
    name = "complex<" + lex_.Next().value + ">";
    XFFI_RETURN_IF_ERROR(
        Expect(TokenKind::kGreater, "'>' after the complex element type"));
  }
  ElementType element = ElementType::kInvalid;
  if (name == "index") {
    element = ElementType::kS64;
    type.index = true;
  } else {
    std::optional<ElementType> found = ElementTypeFromMlirName(name);
    if (!found.has_value() || !IsArrayElementType(*found))
      return lex_.ErrorAt(element_pos,
                          "expected an element type, got " + Quote(name));
    element = *found;
  }
  if (tensor) {
    if (Consume(TokenKind::kComma)) {
      XFFI_RETURN_IF_ERROR(ParseBounds(&dims, &type.bounded));
      XFFI_RETURN_IF_ERROR(CheckElementCount(dims, type.pos));
    }
    XFFI_RETURN_IF_ERROR(
        Expect(TokenKind::kGreater, "'>' to close tensor<...>"));
  }
  type.scalar = !tensor;
  type.shape = Shape::Array(element, std::move(dims));
  return type;
}

Status MlirAttributeParser::CheckElementCount(const std::vector<int64_t>& dims,
                                              SourcePos pos) const {
  int64_t elements = 1;
  for (int64_t d : dims) {
    // `?`: a shape-polymorphic program, refined to static shapes before
    // it compiles (ParseOptions::argument_shapes).
    if (d < 0) continue;
    // Element counts and byte sizes must stay far from int64 overflow.
    if (d != 0 && elements > kMaxTensorElements / d)
      return lex_.ErrorAt(pos, "the tensor has more than 2^48 elements");
    elements *= d;
  }
  return Status::Ok();
}

// A bounded dynamic dimension is read as its bound, as the HLO reader reads
// XLA's `f32[<=8]` (the top of hlo/parser.cc says why that is XLA's meaning
// while no op sets or reads a size at run time; ops.cc refuses those).
// StableHLO writes the bounds `#stablehlo.bounds<8, ?>`, mhlo
// `#mhlo.type_extensions<bounds = [8, ?]>`: one entry per dimension, `?`
// for a static or unbounded one.
Status MlirAttributeParser::ParseBounds(std::vector<int64_t>* dims,
                                        std::vector<bool>* bounded) {
  SourcePos pos = lex_.peek().pos;
  bool mhlo = false;
  if (lex_.At(TokenKind::kHashId) &&
      lex_.peek().value == "mhlo.type_extensions")
    mhlo = true;
  else if (!lex_.At(TokenKind::kHashId) ||
           lex_.peek().value != "stablehlo.bounds")
    return lex_.ErrorAt(pos, "unsupported tensor encoding " +
                                 MlirLexer::Describe(lex_.peek()) +
                                 ": xffi reads only dimension bounds "
                                 "(#stablehlo.bounds<...>, "
                                 "#mhlo.type_extensions<bounds = [...]>)");
  lex_.Next();
  XFFI_RETURN_IF_ERROR(Expect(TokenKind::kLess, "'<' and the bounds"));
  if (mhlo) {
    XFFI_RETURN_IF_ERROR(ExpectKeyword("bounds"));
    XFFI_RETURN_IF_ERROR(Expect(TokenKind::kEqual, "'=' after 'bounds'"));
    XFFI_RETURN_IF_ERROR(Expect(TokenKind::kLSquare, "'[' and the bounds"));
  }
  TokenKind close = mhlo ? TokenKind::kRSquare : TokenKind::kGreater;
  std::vector<std::pair<int64_t, SourcePos>> bounds;  // -1: `?`
  if (!lex_.At(close)) {
    while (true) {
      SourcePos at = lex_.peek().pos;
      if (Consume(TokenKind::kQuestion)) {
        bounds.push_back({-1, at});
      } else {
        if (lex_.At(TokenKind::kMinus))
          return lex_.ErrorAt(at, "a dimension's bound is negative");
        XFFI_ASSIGN_OR_RETURN(MlirAttr bound, ParseIntegerLiteral());
        // As ScanDimensions bounds a dimension: the element count check
        // that follows keeps sizes far from overflow.
        if (bound.magnitude > uint64_t{INT64_MAX})
          return lex_.ErrorAt(at,
                              "a dimension's bound does not fit in 64 "
                              "bits");
        bounds.push_back({static_cast<int64_t>(bound.magnitude), at});
      }
      if (!Consume(TokenKind::kComma)) break;
    }
  }
  XFFI_RETURN_IF_ERROR(Expect(
      close, mhlo ? "',' or ']' in the bounds" : "',' or '>' in the bounds"));
  if (mhlo)
    XFFI_RETURN_IF_ERROR(
        Expect(TokenKind::kGreater, "'>' to close the type extensions"));
  if (bounds.size() != dims->size())
    return lex_.ErrorAt(pos, "the bounds give " +
                                 std::to_string(bounds.size()) +
                                 " dimension(s), the tensor has " +
                                 std::to_string(dims->size()));
  bounded->assign(dims->size(), false);
  for (size_t i = 0; i < bounds.size(); ++i) {
    if (bounds[i].first < 0) continue;
    if ((*dims)[i] >= 0)
      return lex_.ErrorAt(bounds[i].second, "dimension " + std::to_string(i) +
                                                " is static (" +
                                                std::to_string((*dims)[i]) +
                                                "): its bound must be ?");
    (*dims)[i] = bounds[i].first;
    (*bounded)[i] = true;
  }
  return Status::Ok();
}

Status MlirAttributeParser::ParseTypeList(std::vector<MlirType>* types) {
  // At '(' ; reads through ')'.
  XFFI_RETURN_IF_ERROR(Expect(TokenKind::kLParen, "'('"));
  if (Consume(TokenKind::kRParen)) return Status::Ok();
  while (true) {
    StatusOr<MlirType> type = ParseType();
    if (!type.ok()) return type.status();
    types->push_back(std::move(*type));
    if (Consume(TokenKind::kComma)) continue;
    return Expect(TokenKind::kRParen, "',' or ')' in a type list");
  }
}

Status MlirAttributeParser::ParseFunctionResults(
    std::vector<MlirType>* results) {
  XFFI_RETURN_IF_ERROR(Expect(TokenKind::kArrow, "'->'"));
  if (lex_.At(TokenKind::kLParen)) return ParseTypeList(results);
  StatusOr<MlirType> type = ParseType();
  if (!type.ok()) return type.status();
  results->push_back(std::move(*type));
  return Status::Ok();
}

// --- Attributes ------------------------------------------------------------

StatusOr<MlirAttr> MlirAttributeParser::ParseNumber(bool allow_type_suffix) {
  MlirAttr attr;
  attr.pos = lex_.peek().pos;
  if (Consume(TokenKind::kMinus)) attr.negative = true;
  const Token& token = lex_.peek();
  if (token.kind == TokenKind::kInteger) {
    if (!ParseUnsigned(token.text, &attr.magnitude))
      return lex_.ErrorAt(token.pos, "integer " + MlirLexer::Describe(token) +
                                         " does not fit in 64 bits");
    if (token.text.size() > 2 && token.text[0] == '0' &&
        (token.text[1] == 'x' || token.text[1] == 'X')) {
      attr.is_hex = true;
      attr.hex_bits = attr.magnitude;
    }
    attr.kind = MlirAttr::Kind::kInteger;
    attr.float_value = static_cast<double>(attr.magnitude);
  } else if (token.kind == TokenKind::kFloat) {
    double value = 0;
    auto [end, ec] = std::from_chars(
        token.text.data(), token.text.data() + token.text.size(), value);
    if (ec == std::errc::result_out_of_range) {
      // Denormal underflow or overflow: strtod-style saturation.
      value = (token.text.find("e-") != std::string_view::npos ||
               token.text.find("E-") != std::string_view::npos)
                  ? 0.0
                  : std::numeric_limits<double>::infinity();
    } else if (ec != std::errc() ||
               end != token.text.data() + token.text.size()) {
      return lex_.ErrorAt(token.pos,
                          "malformed number " + MlirLexer::Describe(token));
    }
    attr.kind = MlirAttr::Kind::kFloat;
    attr.float_value = value;
  } else {
    return lex_.Expected("a number");
  }
  lex_.Next();
  if (attr.negative) attr.float_value = -attr.float_value;
  if (allow_type_suffix && Consume(TokenKind::kColon)) {
    if (!lex_.At(TokenKind::kBareId) || !IsNumericTypeName(lex_.peek().text))
      return lex_.Expected("an integer or float type after ':'");
    attr.type_name = lex_.Next().value;
    std::optional<ElementType> type = ElementTypeFromMlirName(attr.type_name);
    if (type.has_value() && IsFloatingType(*type)) {
      if (attr.kind == MlirAttr::Kind::kInteger && !attr.is_hex)
        return lex_.ErrorAt(attr.pos, "expected a float literal for type " +
                                          Quote(attr.type_name) +
                                          ", got an integer");
      attr.kind = MlirAttr::Kind::kFloat;
    } else if (attr.kind == MlirAttr::Kind::kFloat) {
      return lex_.ErrorAt(attr.pos, "expected an integer literal for type " +
                                        Quote(attr.type_name) +
                                        ", got a float");
    } else if (attr.type_name == "i1") {
      if (attr.negative || attr.magnitude > 1)
        return lex_.ErrorAt(attr.pos, "i1 value must be 0 or 1");
      attr.kind = MlirAttr::Kind::kBool;
      attr.bool_value = attr.magnitude == 1;
    }
  } else if (attr.is_hex && attr.negative) {
    return lex_.ErrorAt(attr.pos, "hex literals cannot be negative");
  }
  return attr;
}

Status MlirAttributeParser::ParseDenseElements(MlirAttr* dense, int depth) {
  if (depth > kMaxDepth) return lex_.Expected("a less deeply nested list");
  if (lex_.At(TokenKind::kLSquare)) {
    lex_.Next();
    if (Consume(TokenKind::kRSquare)) return Status::Ok();
    while (true) {
      XFFI_RETURN_IF_ERROR(ParseDenseElements(dense, depth + 1));
      if (Consume(TokenKind::kComma)) continue;
      return Expect(TokenKind::kRSquare, "',' or ']' in dense<...>");
    }
  }
  MlirAttr element;
  element.pos = lex_.peek().pos;
  if (lex_.AtKeyword("true") || lex_.AtKeyword("false")) {
    element.kind = MlirAttr::Kind::kBool;
    element.bool_value = lex_.Next().text == "true";
  } else if (lex_.At(TokenKind::kLParen)) {
    lex_.Next();
    element.kind = MlirAttr::Kind::kComplex;
    for (int part = 0; part < 2; ++part) {
      StatusOr<MlirAttr> value = ParseNumber(false);
      if (!value.ok()) return value.status();
      element.elements.push_back(std::move(*value));
      if (part == 0)
        XFFI_RETURN_IF_ERROR(
            Expect(TokenKind::kComma, "',' in a complex (re,im) pair"));
    }
    XFFI_RETURN_IF_ERROR(
        Expect(TokenKind::kRParen, "')' after a complex (re,im) pair"));
  } else {
    StatusOr<MlirAttr> value = ParseNumber(false);
    if (!value.ok()) return value.status();
    element = std::move(*value);
  }
  dense->elements.push_back(std::move(element));
  return Status::Ok();
}

StatusOr<MlirAttr> MlirAttributeParser::ParseDense() {
  MlirAttr attr;
  attr.kind = MlirAttr::Kind::kDense;
  attr.pos = lex_.peek().pos;
  lex_.Next();  // dense
  XFFI_RETURN_IF_ERROR(Expect(TokenKind::kLess, "'<' after 'dense'"));
  if (lex_.At(TokenKind::kString)) {
    SourcePos pos = lex_.peek().pos;
    std::string text = lex_.Next().value;
    if (text.size() < 2 || text[0] != '0' ||
        (text[1] != 'x' && text[1] != 'X') || text.size() % 2 != 0)
      return lex_.ErrorAt(
          pos,
          "expected a hex string \"0x...\" with whole bytes in dense<...>");
    attr.dense_is_hex = true;
    for (size_t i = 2; i < text.size(); i += 2) {
      int hi = HexNibble(text[i]), lo = HexNibble(text[i + 1]);
      if (hi < 0 || lo < 0)
        return lex_.ErrorAt(pos, "non-hex digit in dense<\"0x...\">");
      attr.hex.push_back(static_cast<char>(hi * 16 + lo));
    }
  } else if (!lex_.At(TokenKind::kGreater)) {
    XFFI_RETURN_IF_ERROR(ParseDenseElements(&attr, 0));
  }
  XFFI_RETURN_IF_ERROR(Expect(TokenKind::kGreater, "'>' to close dense<...>"));
  XFFI_RETURN_IF_ERROR(
      Expect(TokenKind::kColon, "':' and a tensor type after dense<...>"));
  StatusOr<MlirType> type = ParseType();
  if (!type.ok()) return type.status();
  if (!type->shape.IsArray())
    return lex_.ErrorAt(type->pos, "dense<...> needs a tensor type");
  if (IsDynamicShape(type->shape))
    return lex_.ErrorAt(type->pos,
                        "dense<...> needs a static type (it has a '?')");
  attr.dense_type = std::move(*type);
  return attr;
}

StatusOr<MlirAttr> MlirAttributeParser::ParseDenseArray() {
  MlirAttr attr;
  attr.kind = MlirAttr::Kind::kDenseArray;
  attr.pos = lex_.peek().pos;
  lex_.Next();  // array
  XFFI_RETURN_IF_ERROR(Expect(TokenKind::kLess, "'<' after 'array'"));
  if (!lex_.At(TokenKind::kBareId)) return lex_.Expected("an element type");
  SourcePos type_pos = lex_.peek().pos;
  attr.type_name = lex_.Next().value;
  static const char* const kArrayTypes[] = {"i1",  "i8",  "i16", "i32",
                                            "i64", "f32", "f64"};
  bool known = false;
  for (const char* name : kArrayTypes) known |= attr.type_name == name;
  if (!known)
    return lex_.ErrorAt(
        type_pos,
        "expected i1, i8, i16, i32, i64, f32 or f64 in array<...>, got " +
            Quote(attr.type_name));
  bool is_float = attr.type_name[0] == 'f';
  if (Consume(TokenKind::kColon)) {
    while (true) {
      MlirAttr element;
      if (lex_.AtKeyword("true") || lex_.AtKeyword("false")) {
        element.kind = MlirAttr::Kind::kBool;
        element.pos = lex_.peek().pos;
        element.bool_value = lex_.Next().text == "true";
      } else {
        StatusOr<MlirAttr> value = ParseNumber(false);
        if (!value.ok()) return value.status();
        element = std::move(*value);
        if (element.kind == MlirAttr::Kind::kFloat && !is_float)
          return lex_.ErrorAt(element.pos, "expected an integer in array<" +
                                               attr.type_name +
                                               ">, got a float");
      }
      attr.elements.push_back(std::move(element));
      if (!Consume(TokenKind::kComma)) break;
    }
  }
  XFFI_RETURN_IF_ERROR(Expect(TokenKind::kGreater, "',' or '>' in array<...>"));
  return attr;
}

StatusOr<MlirAttr> MlirAttributeParser::ParseHashAttribute() {
  MlirAttr attr;
  attr.pos = lex_.peek().pos;
  const size_t start = lex_.peek().offset;
  std::string name = lex_.Next().value;
  if (!lex_.At(TokenKind::kLess))
    return lex_.ErrorAt(
        attr.pos, "attribute aliases ('#" + name + "') are not supported here");
  lex_.Next();
  if (name == "sdy" || name.rfind("sdy.", 0) == 0) {
    // Shardy's shardings and rules, in argument and op attributes: where
    // values live, which a single-process run does not need. The manual
    // computation reads its own with sdy_sharding.h.
    attr.kind = MlirAttr::Kind::kDialect;
    attr.str = name;
    int depth = 1;
    while (depth > 0) {
      if (lex_.At(TokenKind::kEof) || lex_.At(TokenKind::kError))
        return lex_.Expected("'>' to close #" + name + "<...>");
      if (lex_.At(TokenKind::kLess)) ++depth;
      if (lex_.At(TokenKind::kGreater)) --depth;
      const Token& token = lex_.peek();
      if (depth == 0)
        attr.raw = std::string(lex_.text().substr(
            start, token.offset + token.text.size() - start));
      lex_.Next();
    }
    return attr;
  }
  if (name.find('.') == std::string::npos) {
    // #dialect<kind VALUE>
    attr.kind = MlirAttr::Kind::kEnum;
    if (!lex_.At(TokenKind::kBareId)) return lex_.Expected("an enum kind");
    attr.type_name = lex_.Next().value;
    if (!lex_.At(TokenKind::kBareId)) return lex_.Expected("an enum value");
    attr.str = lex_.Next().value;
    XFFI_RETURN_IF_ERROR(
        Expect(TokenKind::kGreater, "'>' after the enum value"));
    return attr;
  }
  if (name == "stablehlo.conv") {
    if (lex_.At(TokenKind::kLSquare)) {
      StatusOr<MlirAttr> compact = ParseConvDimensionNumbers();
      if (!compact.ok()) return compact.status();
      XFFI_RETURN_IF_ERROR(
          Expect(TokenKind::kGreater, "'>' after the dimension numbers"));
      compact->pos = attr.pos;
      return compact;
    }
    if (lex_.AtKeyword("raw")) lex_.Next();
  }
  attr.kind = MlirAttr::Kind::kDialect;
  attr.str = name;
  if (Consume(TokenKind::kGreater)) return attr;
  while (true) {
    if (!lex_.At(TokenKind::kBareId))
      return lex_.Expected("a parameter name in #" + name + "<...>");
    std::string key = lex_.Next().value;
    XFFI_RETURN_IF_ERROR(Expect(TokenKind::kEqual, "'=' after '" + key + "'"));
    StatusOr<MlirAttr> value = ParseAttribute();
    if (!value.ok()) return value.status();
    attr.entries.push_back(MlirNamedAttr{std::move(key), std::move(*value)});
    if (Consume(TokenKind::kComma)) continue;
    XFFI_RETURN_IF_ERROR(
        Expect(TokenKind::kGreater, "',' or '>' in #" + name + "<...>"));
    return attr;
  }
}

namespace {

MlirAttr IntegerAttr(int64_t value, SourcePos pos) {
  MlirAttr attr;
  attr.kind = MlirAttr::Kind::kInteger;
  attr.pos = pos;
  attr.negative = value < 0;
  attr.magnitude = static_cast<uint64_t>(value < 0 ? -value : value);
  return attr;
}

}  // namespace

StatusOr<MlirAttr> MlirAttributeParser::ParseConvDimensionNumbers() {
  MlirAttr attr;
  attr.kind = MlirAttr::Kind::kDialect;
  attr.str = "stablehlo.conv";
  attr.pos = lex_.peek().pos;
  // Each operand's list names, per dimension, its role: a letter (the two
  // non-spatial roles of that operand) or the spatial dimension's number.
  struct Side {
    const char* prefix;
    const char* first;   // letter and entry of the first non-spatial role
    const char* second;  // ... and of the second
    const char* first_entry;
    const char* second_entry;
  };
  static constexpr Side kSides[] = {
      {"input", "b", "f", "batch", "feature"},
      {"kernel", "i", "o", "input_feature", "output_feature"},
      {"output", "b", "f", "batch", "feature"},
  };
  for (int side = 0; side < 3; ++side) {
    const Side& s = kSides[side];
    if (side == 1)
      XFFI_RETURN_IF_ERROR(ExpectKeyword("x"));
    else if (side == 2)
      XFFI_RETURN_IF_ERROR(Expect(TokenKind::kArrow, "'->'"));
    SourcePos list_pos = lex_.peek().pos;
    XFFI_RETURN_IF_ERROR(Expect(TokenKind::kLSquare, "'['"));
    int64_t first = -1, second = -1;
    std::vector<int64_t> spatial;  // spatial number -> dimension, -1 unset
    int64_t dim = 0;
    while (!Consume(TokenKind::kRSquare)) {
      if (dim > 0)
        XFFI_RETURN_IF_ERROR(Expect(TokenKind::kComma, "',' or ']'"));
      SourcePos pos = lex_.peek().pos;
      if (lex_.At(TokenKind::kBareId)) {
        std::string role = lex_.Next().value;
        int64_t* slot = role == s.first    ? &first
                        : role == s.second ? &second
                                           : nullptr;
        if (slot == nullptr)
          return lex_.ErrorAt(
              pos, "expected '" + std::string(s.first) + "', '" + s.second +
                       "' or a spatial dimension number in " + s.prefix +
                       " dimensions, got '" + role + "'");
        if (*slot >= 0)
          return lex_.ErrorAt(pos, "'" + role + "' appears twice in " +
                                       s.prefix + " dimensions");
        *slot = dim;
      } else if (lex_.At(TokenKind::kInteger)) {
        StatusOr<MlirAttr> number = ParseIntegerLiteral();
        if (!number.ok()) return number.status();
        if (number->negative || number->magnitude > 64)
          return lex_.ErrorAt(pos, "spatial dimension number out of range");
        size_t k = static_cast<size_t>(number->magnitude);
        if (spatial.size() <= k) spatial.resize(k + 1, -1);
        if (spatial[k] >= 0)
          return lex_.ErrorAt(pos, "spatial dimension " + std::to_string(k) +
                                       " appears twice in " + s.prefix +
                                       " dimensions");
        spatial[k] = dim;
      } else {
        return lex_.Expected(std::string("a role in ") + s.prefix +
                             " dimensions");
      }
      ++dim;
    }
    if (first < 0 || second < 0)
      return lex_.ErrorAt(list_pos, std::string(s.prefix) +
                                        " dimensions need '" + s.first +
                                        "' and '" + s.second + "'");
    MlirAttr list;
    list.kind = MlirAttr::Kind::kArray;
    list.pos = list_pos;
    for (size_t k = 0; k < spatial.size(); ++k) {
      if (spatial[k] < 0)
        return lex_.ErrorAt(list_pos,
                            std::string(s.prefix) +
                                " dimensions lack spatial dimension " +
                                std::to_string(k));
      list.elements.push_back(IntegerAttr(spatial[k], list_pos));
    }
    std::string prefix = s.prefix;
    attr.entries.push_back(
        MlirNamedAttr{prefix + "_" + s.first_entry + "_dimension",
                      IntegerAttr(first, list_pos)});
    attr.entries.push_back(
        MlirNamedAttr{prefix + "_" + s.second_entry + "_dimension",
                      IntegerAttr(second, list_pos)});
    attr.entries.push_back(
        MlirNamedAttr{prefix + "_spatial_dimensions", std::move(list)});
  }
  return attr;
}

StatusOr<MlirAttr> MlirAttributeParser::ParseIntegerLiteral() {
  StatusOr<MlirAttr> value = ParseNumber(false);
  if (!value.ok()) return value.status();
  if (value->kind != MlirAttr::Kind::kInteger)
    return lex_.ErrorAt(value->pos, "expected an integer, got a float");
  return value;
}

StatusOr<MlirAttr> MlirAttributeParser::ParseIntegerList() {
  MlirAttr attr;
  attr.kind = MlirAttr::Kind::kArray;
  attr.pos = lex_.peek().pos;
  XFFI_RETURN_IF_ERROR(Expect(TokenKind::kLSquare, "'['"));
  if (Consume(TokenKind::kRSquare)) return attr;
  while (true) {
    StatusOr<MlirAttr> value = ParseNumber(false);
    if (!value.ok()) return value.status();
    if (value->kind != MlirAttr::Kind::kInteger)
      return lex_.ErrorAt(value->pos, "expected an integer, got a float");
    attr.elements.push_back(std::move(*value));
    if (Consume(TokenKind::kComma)) continue;
    XFFI_RETURN_IF_ERROR(Expect(TokenKind::kRSquare, "',' or ']'"));
    return attr;
  }
}

StatusOr<MlirAttr> MlirAttributeParser::ParseDictionary() {
  DepthGuard guard(&depth_);
  if (guard.exceeded()) return lex_.Expected("a less deeply nested dictionary");
  MlirAttr attr;
  attr.kind = MlirAttr::Kind::kDictionary;
  attr.pos = lex_.peek().pos;
  XFFI_RETURN_IF_ERROR(Expect(TokenKind::kLBrace, "'{'"));
  if (Consume(TokenKind::kRBrace)) return attr;
  while (true) {
    std::string key;
    if (lex_.At(TokenKind::kBareId) || lex_.At(TokenKind::kString))
      key = lex_.Next().value;
    else
      return lex_.Expected("an attribute name");
    MlirAttr value;
    value.pos = lex_.peek().pos;
    if (Consume(TokenKind::kEqual)) {
      StatusOr<MlirAttr> parsed = ParseAttribute();
      if (!parsed.ok()) return parsed.status();
      value = std::move(*parsed);
    }
    attr.entries.push_back(MlirNamedAttr{std::move(key), std::move(value)});
    if (Consume(TokenKind::kComma)) continue;
    XFFI_RETURN_IF_ERROR(
        Expect(TokenKind::kRBrace, "',' or '}' in an attribute dictionary"));
    return attr;
  }
}

StatusOr<MlirAttr> MlirAttributeParser::ParseAttribute() {
  DepthGuard guard(&depth_);
  if (guard.exceeded()) return lex_.Expected("a less deeply nested attribute");
  const Token& token = lex_.peek();
  MlirAttr attr;
  attr.pos = token.pos;
  switch (token.kind) {
    case TokenKind::kInteger:
    case TokenKind::kFloat:
    case TokenKind::kMinus:
      return ParseNumber(true);
    case TokenKind::kString:
      attr.kind = MlirAttr::Kind::kString;
      attr.str = lex_.Next().value;
      return attr;
    case TokenKind::kLBrace:
      return ParseDictionary();
    case TokenKind::kAtId:
      attr.kind = MlirAttr::Kind::kSymbol;
      attr.str = lex_.Next().value;
      return attr;
    case TokenKind::kHashId:
      return ParseHashAttribute();
    case TokenKind::kLSquare: {
      attr.kind = MlirAttr::Kind::kArray;
      lex_.Next();
      if (Consume(TokenKind::kRSquare)) return attr;
      while (true) {
        StatusOr<MlirAttr> element = ParseAttribute();
        if (!element.ok()) return element.status();
        attr.elements.push_back(std::move(*element));
        if (Consume(TokenKind::kComma)) continue;
        XFFI_RETURN_IF_ERROR(
            Expect(TokenKind::kRSquare, "',' or ']' in a list"));
        return attr;
      }
    }
    case TokenKind::kLParen: {
      attr.kind = MlirAttr::Kind::kType;
      attr.is_function_type = true;
      XFFI_RETURN_IF_ERROR(ParseTypeList(&attr.function_inputs));
      XFFI_RETURN_IF_ERROR(ParseFunctionResults(&attr.function_results));
      return attr;
    }
    case TokenKind::kBangId: {
      StatusOr<MlirType> type = ParseType();
      if (!type.ok()) return type.status();
      attr.kind = MlirAttr::Kind::kType;
      attr.type = std::move(*type);
      return attr;
    }
    case TokenKind::kBareId: {
      if (token.text == "true" || token.text == "false") {
        attr.kind = MlirAttr::Kind::kBool;
        attr.bool_value = lex_.Next().text == "true";
        return attr;
      }
      if (token.text == "unit") {
        lex_.Next();
        return attr;
      }
      if (token.text == "dense") return ParseDense();
      if (token.text == "array") return ParseDenseArray();
      if (token.text == "tensor" || token.text == "tuple" ||
          IsNumericTypeName(token.text) || token.text == "complex") {
        StatusOr<MlirType> type = ParseType();
        if (!type.ok()) return type.status();
        attr.kind = MlirAttr::Kind::kType;
        attr.type = std::move(*type);
        return attr;
      }
      break;
    }
    default:
      break;
  }
  return lex_.Expected("an attribute value");
}

// --- Conversions -----------------------------------------------------------

namespace {

Status AttrError(const MlirLexer& lexer, const MlirAttr& attr,
                 std::string_view name, std::string_view message) {
  return lexer.ErrorAt(attr.pos, "attribute '" + std::string(name) +
                                     "': " + std::string(message));
}

// The signed value of an integer element, range-checked against `bits`.
bool SignedValue(const MlirAttr& e, int bits, int64_t* out) {
  if (e.kind == MlirAttr::Kind::kBool) {
    *out = e.bool_value ? 1 : 0;
    return true;
  }
  if (e.kind != MlirAttr::Kind::kInteger) return false;
  uint64_t limit =
      bits >= 64 ? (uint64_t{1} << 63) : (uint64_t{1} << (bits - 1));
  if (e.is_hex) {
    // Hex spells the bit pattern.
    if (bits < 64 && e.magnitude >= (uint64_t{1} << bits)) return false;
    uint64_t v = e.magnitude;
    if (bits < 64 && (v & limit)) v |= ~((uint64_t{1} << bits) - 1);
    *out = static_cast<int64_t>(v);
    return true;
  }
  if (e.negative) {
    if (e.magnitude > limit) return false;
    *out = static_cast<int64_t>(0 - e.magnitude);
    return true;
  }
  if (e.magnitude >= limit) return false;
  *out = static_cast<int64_t>(e.magnitude);
  return true;
}

bool UnsignedValue(const MlirAttr& e, int bits, uint64_t* out) {
  if (e.kind == MlirAttr::Kind::kBool) {
    *out = e.bool_value ? 1 : 0;
    return true;
  }
  if (e.kind != MlirAttr::Kind::kInteger || e.negative) return false;
  if (bits < 64 && e.magnitude >= (uint64_t{1} << bits)) return false;
  *out = e.magnitude;
  return true;
}

bool FloatValue(const MlirAttr& e, double* out) {
  if (e.kind == MlirAttr::Kind::kFloat && !e.is_hex) {
    *out = e.float_value;
    return true;
  }
  if (e.kind == MlirAttr::Kind::kInteger && !e.is_hex) {
    *out = e.negative ? -static_cast<double>(e.magnitude)
                      : static_cast<double>(e.magnitude);
    return true;
  }
  return false;
}

// Writes one element of `type` at `out` (ElementByteSize bytes).
Status StoreElement(const MlirAttr& e, ElementType type, unsigned char* out,
                    const MlirLexer& lexer) {
  std::string type_name = MlirElementTypeName(type);
  auto bad = [&]() {
    return lexer.ErrorAt(e.pos,
                         "value does not fit element type " + Quote(type_name));
  };
  size_t size = ElementByteSize(type);
  int bits = ElementBitWidth(type);
  if (type == ElementType::kPred) {
    uint64_t v = 0;
    if (!UnsignedValue(e, 1, &v)) return bad();
    out[0] = static_cast<unsigned char>(v);
    return Status::Ok();
  }
  if (IsSignedIntegralType(type)) {
    int64_t v = 0;
    if (!SignedValue(e, bits, &v)) return bad();
    std::memcpy(out, &v, size);  // little-endian: the low bytes
    return Status::Ok();
  }
  if (IsUnsignedIntegralType(type)) {
    uint64_t v = 0;
    if (!UnsignedValue(e, bits, &v)) return bad();
    std::memcpy(out, &v, size);
    return Status::Ok();
  }
  if (IsFloatingType(type)) {
    if ((e.kind == MlirAttr::Kind::kInteger ||
         e.kind == MlirAttr::Kind::kFloat) &&
        e.is_hex) {
      if (e.negative || (bits < 64 && e.magnitude >= (uint64_t{1} << bits)))
        return bad();
      std::memcpy(out, &e.magnitude, size);
      return Status::Ok();
    }
    double v = 0;
    if (!FloatValue(e, &v)) return bad();
    if (type == ElementType::kF64) {
      std::memcpy(out, &v, 8);
    } else if (type == ElementType::kF32) {
      float f = static_cast<float>(v);
      std::memcpy(out, &f, 4);
    } else {
      uint32_t narrow = NarrowFloatFromDouble(type, v);
      std::memcpy(out, &narrow, size);
    }
    return Status::Ok();
  }
  if (IsComplexType(type)) {
    const MlirAttr* parts[2] = {&e, nullptr};
    MlirAttr zero;
    zero.kind = MlirAttr::Kind::kFloat;
    parts[1] = &zero;
    if (e.kind == MlirAttr::Kind::kComplex) {
      parts[0] = &e.elements[0];
      parts[1] = &e.elements[1];
    }
    ElementType part_type =
        type == ElementType::kC64 ? ElementType::kF32 : ElementType::kF64;
    for (int i = 0; i < 2; ++i) {
      Status status =
          StoreElement(*parts[i], part_type, out + i * size / 2, lexer);
      if (!status.ok()) return status;
    }
    return Status::Ok();
  }
  return bad();
}

}  // namespace

StatusOr<Literal> DenseToLiteral(const MlirAttr& attr, const MlirLexer& lexer) {
  if (attr.kind != MlirAttr::Kind::kDense)
    return lexer.ErrorAt(attr.pos, "expected a dense<...> attribute");
  const Shape& shape = attr.dense_type.shape;
  if (!shape.IsArray())
    return lexer.ErrorAt(attr.pos, "dense<...> needs a tensor type");
  size_t element_size = ElementByteSize(shape.element_type());
  size_t count = static_cast<size_t>(shape.num_elements());
  if (count > kMaxConstantBytes / element_size)
    return lexer.ErrorAt(
        attr.pos, "dense<...> of type " + shape.ToString(false) + " needs " +
                      std::to_string(count * element_size) +
                      " bytes; constants are limited to " +
                      std::to_string(kMaxConstantBytes) + " bytes");
  Literal literal(shape);
  auto* bytes = static_cast<unsigned char*>(literal.data());
  if (attr.dense_is_hex) {
    const std::string& hex = attr.hex;
    if (hex.size() == count * element_size) {
      if (!hex.empty()) std::memcpy(bytes, hex.data(), hex.size());
    } else if (hex.size() == element_size) {
      for (size_t i = 0; i < count; ++i)
        std::memcpy(bytes + i * element_size, hex.data(), element_size);
    } else if (shape.element_type() == ElementType::kPred &&
               hex.size() == (count + 7) / 8) {
      // MLIR packs i1 blobs eight to a byte.
      for (size_t i = 0; i < count; ++i)
        bytes[i] = (static_cast<unsigned char>(hex[i / 8]) >> (i % 8)) & 1;
    } else {
      return lexer.ErrorAt(
          attr.pos, "dense<\"0x...\"> holds " + std::to_string(hex.size()) +
                        " bytes, its type " + shape.ToString(false) +
                        " needs " + std::to_string(count * element_size));
    }
    return literal;
  }
  const std::vector<MlirAttr>& elements = attr.elements;
  if (elements.size() == 1 && count != 1) {
    if (count == 0) return literal;
    std::vector<unsigned char> one(element_size);
    Status status =
        StoreElement(elements[0], shape.element_type(), one.data(), lexer);
    if (!status.ok()) return status;
    for (size_t i = 0; i < count; ++i)
      std::memcpy(bytes + i * element_size, one.data(), element_size);
    return literal;
  }
  if (elements.size() != count)
    return lexer.ErrorAt(
        attr.pos, "dense<...> has " + std::to_string(elements.size()) +
                      " elements, its type " + shape.ToString(false) + " has " +
                      std::to_string(count));
  for (size_t i = 0; i < count; ++i) {
    Status status = StoreElement(elements[i], shape.element_type(),
                                 bytes + i * element_size, lexer);
    if (!status.ok()) return status;
  }
  return literal;
}

StatusOr<int64_t> AttrToInteger(const MlirAttr& attr, const MlirLexer& lexer,
                                std::string_view name) {
  int64_t v = 0;
  if (attr.kind != MlirAttr::Kind::kInteger || !SignedValue(attr, 64, &v))
    return AttrError(lexer, attr, name, "expected an integer");
  return v;
}

StatusOr<bool> AttrToBool(const MlirAttr& attr, const MlirLexer& lexer,
                          std::string_view name) {
  if (attr.kind == MlirAttr::Kind::kBool) return attr.bool_value;
  if (attr.kind == MlirAttr::Kind::kUnit) return true;
  return AttrError(lexer, attr, name, "expected true or false");
}

StatusOr<std::vector<int64_t>> AttrToIntegers(const MlirAttr& attr,
                                              const MlirLexer& lexer,
                                              std::string_view name) {
  std::vector<int64_t> out;
  if (attr.kind == MlirAttr::Kind::kArray ||
      attr.kind == MlirAttr::Kind::kDenseArray) {
    for (const MlirAttr& e : attr.elements) {
      int64_t v = 0;
      if (!SignedValue(e, 64, &v) || e.kind == MlirAttr::Kind::kBool)
        return AttrError(lexer, e, name, "expected a list of integers");
      out.push_back(v);
    }
    return out;
  }
  if (attr.kind == MlirAttr::Kind::kDense &&
      IsIntegralType(attr.dense_type.shape.element_type())) {
    Shape s64 = Shape::Array(ElementType::kS64, attr.dense_type.shape.dims());
    MlirAttr wide = attr;
    wide.dense_type.shape = s64;
    if (attr.dense_is_hex)
      return AttrError(lexer, attr, name, "expected integers, not a hex blob");
    StatusOr<Literal> literal = DenseToLiteral(wide, lexer);
    if (!literal.ok()) return literal.status();
    return literal->ToVector<int64_t>();
  }
  return AttrError(lexer, attr, name, "expected a list of integers");
}

// --- FFI attributes --------------------------------------------------------

namespace {

template <typename T>
AttrValue LiteralValues(const Literal& literal) {
  return AttrValue(literal.ToVector<T>());
}

StatusOr<AttrValue> DenseToFfiVector(const Literal& literal,
                                     const MlirLexer& lexer,
                                     const MlirAttr& attr,
                                     std::string_view name) {
  switch (literal.shape().element_type()) {
    case ElementType::kS8:
      return LiteralValues<int8_t>(literal);
    case ElementType::kS16:
      return LiteralValues<int16_t>(literal);
    case ElementType::kS32:
      return LiteralValues<int32_t>(literal);
    case ElementType::kS64:
      return LiteralValues<int64_t>(literal);
    case ElementType::kU8:
      return LiteralValues<uint8_t>(literal);
    case ElementType::kU16:
      return LiteralValues<uint16_t>(literal);
    case ElementType::kU32:
      return LiteralValues<uint32_t>(literal);
    case ElementType::kU64:
      return LiteralValues<uint64_t>(literal);
    case ElementType::kF32:
      return LiteralValues<float>(literal);
    case ElementType::kF64:
      return LiteralValues<double>(literal);
    default:
      return AttrError(lexer, attr, name,
                       "arrays of " +
                           MlirElementTypeName(literal.shape().element_type()) +
                           " are not typed-FFI attributes");
  }
}

}  // namespace

StatusOr<AttrValue> AttrToFfiValue(const MlirAttr& attr, const MlirLexer& lexer,
                                   std::string_view name) {
  switch (attr.kind) {
    case MlirAttr::Kind::kUnit:
      return AttrValue(true);
    case MlirAttr::Kind::kBool:
      return AttrValue(attr.bool_value);
    case MlirAttr::Kind::kString:
      return AttrValue(attr.str);
    case MlirAttr::Kind::kInteger: {
      std::string type = attr.type_name.empty() ? "i64" : attr.type_name;
      bool is_unsigned = type.rfind("ui", 0) == 0;
      std::optional<ElementType> element = ElementTypeFromMlirName(type);
      if (!element.has_value() || !IsIntegralType(*element) ||
          ElementBitWidth(*element) < 8)
        return AttrError(lexer, attr, name,
                         "integers of type " + Quote(type) +
                             " are not typed-FFI attributes");
      int bits = ElementBitWidth(*element);
      if (is_unsigned) {
        uint64_t v = 0;
        if (!UnsignedValue(attr, bits, &v))
          return AttrError(lexer, attr, name, "value does not fit " + type);
        switch (bits) {
          case 8:
            return AttrValue(static_cast<uint8_t>(v));
          case 16:
            return AttrValue(static_cast<uint16_t>(v));
          case 32:
            return AttrValue(static_cast<uint32_t>(v));
          default:
            return AttrValue(v);
        }
      }
      int64_t v = 0;
      if (!SignedValue(attr, bits, &v))
        return AttrError(lexer, attr, name, "value does not fit " + type);
      switch (bits) {
        case 8:
          return AttrValue(static_cast<int8_t>(v));
        case 16:
          return AttrValue(static_cast<int16_t>(v));
        case 32:
          return AttrValue(static_cast<int32_t>(v));
        default:
          return AttrValue(v);
      }
    }
    case MlirAttr::Kind::kFloat: {
      std::string type = attr.type_name.empty() ? "f64" : attr.type_name;
      if (type != "f32" && type != "f64")
        return AttrError(lexer, attr, name,
                         "floats of type " + Quote(type) +
                             " are not typed-FFI attributes (f32 and f64 are)");
      MlirAttr element = attr;
      element.type_name.clear();
      ElementType et = type == "f32" ? ElementType::kF32 : ElementType::kF64;
      unsigned char bytes[8] = {};
      Status status = StoreElement(element, et, bytes, lexer);
      if (!status.ok()) return status;
      if (et == ElementType::kF32) {
        float f;
        std::memcpy(&f, bytes, 4);
        return AttrValue(f);
      }
      double d;
      std::memcpy(&d, bytes, 8);
      return AttrValue(d);
    }
    case MlirAttr::Kind::kDense: {
      StatusOr<Literal> literal = DenseToLiteral(attr, lexer);
      if (!literal.ok()) return literal.status();
      return DenseToFfiVector(*literal, lexer, attr, name);
    }
    case MlirAttr::Kind::kDenseArray: {
      if (attr.type_name == "i1")
        return AttrError(lexer, attr, name,
                         "array<i1> is not a typed-FFI attribute");
      MlirAttr dense;
      dense.kind = MlirAttr::Kind::kDense;
      dense.pos = attr.pos;
      dense.elements = attr.elements;
      std::optional<ElementType> et = ElementTypeFromMlirName(attr.type_name);
      if (!et.has_value())
        return AttrError(lexer, attr, name, "bad array type");
      dense.dense_type.shape =
          Shape::Array(*et, {static_cast<int64_t>(attr.elements.size())});
      StatusOr<Literal> literal = DenseToLiteral(dense, lexer);
      if (!literal.ok()) return literal.status();
      return DenseToFfiVector(*literal, lexer, attr, name);
    }
    case MlirAttr::Kind::kDictionary: {
      StatusOr<FfiAttributes> nested = DictionaryToFfiAttributes(attr, lexer);
      if (!nested.ok()) return nested.status();
      return AttrValue(std::move(*nested));
    }
    case MlirAttr::Kind::kArray:
      return AttrError(lexer, attr, name,
                       "lists [...] are not typed-FFI attributes (XLA rejects "
                       "them); use array<T: ...> or dense<...>");
    default:
      return AttrError(lexer, attr, name,
                       "this kind of attribute is not a typed-FFI attribute");
  }
}

StatusOr<FfiAttributes> DictionaryToFfiAttributes(const MlirAttr& attr,
                                                  const MlirLexer& lexer) {
  if (attr.kind != MlirAttr::Kind::kDictionary)
    return lexer.ErrorAt(attr.pos, "expected an attribute dictionary");
  FfiAttributes out;
  for (const auto& [name, value] : attr.entries) {
    if (out.contains(name))
      return lexer.ErrorAt(value.pos, "attribute '" + name + "' appears twice");
    StatusOr<AttrValue> converted = AttrToFfiValue(value, lexer, name);
    if (!converted.ok()) return converted.status();
    out.Set(name, std::move(*converted));
  }
  return out;
}

}  // namespace xffi::text
