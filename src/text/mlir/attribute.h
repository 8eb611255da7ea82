// xffi: MLIR types and attributes as StableHLO text and typed-FFI backend
// configs write them, parsed into a small tree that the StableHLO parser and
// the FFI attribute conversion read.
#ifndef XFFI_SRC_TEXT_MLIR_ATTRIBUTE_H_
#define XFFI_SRC_TEXT_MLIR_ATTRIBUTE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "text/mlir/lexer.h"
#include "xffi/program/ir.h"
#include "xffi/program/literal.h"
#include "xffi/program/shape.h"

namespace xffi::text {

// A type: tensor<2x3xf32> (an array shape), a bare element type such as f32
// (a scalar shape, `scalar` set), !stablehlo.token, tuple<...>, or `index`
// (an s64 shape with `index` set; MLIR uses it for layouts only).
struct MlirType {
  Shape shape;
  bool scalar = false;  // written without tensor<>
  bool index = false;   // element type `index`
  // Per dimension: written `?` with a bound (`tensor<?x4xf32,
  // #stablehlo.bounds<8, ?>>`) and read as its bound, so `shape` has 8
  // there. Empty when the type gives no bounds.
  std::vector<bool> bounded;
  SourcePos pos;

  bool IsBounded(int64_t dimension) const {
    return dimension >= 0 && static_cast<size_t>(dimension) < bounded.size() &&
           bounded[static_cast<size_t>(dimension)];
  }
  bool AnyBounded() const {
    for (bool b : bounded)
      if (b) return true;
    return false;
  }
};

struct MlirNamedAttr;

struct MlirAttr {
  enum class Kind {
    kUnit,        // a name without `= value`
    kBool,        // true, false
    kInteger,     // 5, -3 : i32 (type "" when not written)
    kFloat,       // 1.5 : f32; 0x7FC00000 : f32 (hex bits)
    kString,      // "text"
    kDense,       // dense<...> : tensor<...>
    kDenseArray,  // array<i64: 1, 2>
    kArray,       // [a, b]
    kDictionary,  // {a = 1, b}
    kSymbol,      // @name
    kEnum,        // #stablehlo<comparison_direction LT>
    kDialect,     // #stablehlo.gather<offset_dims = [1], ...>
    kType,        // a type used as a value (function_type = (...) -> ...)
    kComplex,     // (re, im) inside dense<...>
  };
  Kind kind = Kind::kUnit;
  SourcePos pos;

  // kBool
  bool bool_value = false;
  // kInteger: the magnitude and sign as written. kFloat: `float_value`, or
  // `hex_bits` when written as 0x... (`is_hex`). Dense elements use the same.
  bool negative = false;
  uint64_t magnitude = 0;
  double float_value = 0;
  bool is_hex = false;
  uint64_t hex_bits = 0;
  // kInteger, kFloat: "i32", "ui8", "f32"... ("" when not written).
  // kDenseArray: the element type. kEnum: the enum's kind.
  std::string type_name;
  // kString: the value. kSymbol: the name. kEnum: the value. kDialect: the
  // attribute's name ("stablehlo.gather").
  std::string str;
  // kArray, kDenseArray, kComplex (2); kDense: the flattened elements.
  std::vector<MlirAttr> elements;
  // kDictionary, kDialect.
  std::vector<MlirNamedAttr> entries;
  // kDense: the tensor type; `hex` holds the raw bytes of dense<"0x...">.
  MlirType dense_type;
  bool dense_is_hex = false;
  std::string hex;
  // kDialect of Shardy (#sdy...<...>): the text as written, which XLA's
  // HLO keeps in frontend attributes (xla.sdy.sharding_rule).
  std::string raw;
  // kType: the type. Function types keep inputs and results here.
  MlirType type;
  std::vector<MlirType> function_inputs, function_results;
  bool is_function_type = false;

  const MlirAttr* Find(std::string_view name) const;
};

// One `name = value` of a dictionary. A struct rather than a std::pair: with
// libstdc++, clang rejects a pair of the still incomplete MlirAttr.
struct MlirNamedAttr {
  std::string name;
  MlirAttr value;
};

// Reads types and attributes from a lexer; errors carry line:column.
class MlirAttributeParser {
 public:
  explicit MlirAttributeParser(MlirLexer& lexer) : lex_(lexer) {}

  StatusOr<MlirType> ParseType();
  // A function type `(T, ...) -> T` or `(T, ...) -> (T, ...)`; the inputs
  // may already have been read by the caller (pass them in and start at
  // the arrow).
  Status ParseFunctionResults(std::vector<MlirType>* results);
  Status ParseTypeList(std::vector<MlirType>* types);  // `(A, B)` contents

  StatusOr<MlirAttr> ParseAttribute();
  // `{name = attr, unit_name, ...}` (the lexer is at `{`).
  StatusOr<MlirAttr> ParseDictionary();
  // A dimension list such as `[1, 2]` as an kArray of kIntegers.
  StatusOr<MlirAttr> ParseIntegerList();
  // One integer (optionally negative), never followed by a `: type`.
  StatusOr<MlirAttr> ParseIntegerLiteral();
  // A convolution's dimension numbers in StableHLO's compact form,
  // `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`, as the #stablehlo.conv<raw
  // ...> dialect attribute whose entries name each role's dimensions
  // (input_batch_dimension = 0, input_spatial_dimensions = [1, 2], ...).
  StatusOr<MlirAttr> ParseConvDimensionNumbers();

  // Accepts `kind` and advances, or fails with "expected WHAT, got ...".
  Status Expect(TokenKind kind, std::string_view what);
  Status ExpectKeyword(std::string_view word);
  bool Consume(TokenKind kind);

  MlirLexer& lexer() { return lex_; }

 private:
  StatusOr<MlirAttr> ParseNumber(bool allow_type_suffix);
  StatusOr<MlirAttr> ParseDense();
  Status ParseDenseElements(MlirAttr* dense, int depth);
  StatusOr<MlirAttr> ParseDenseArray();
  StatusOr<MlirAttr> ParseHashAttribute();
  // A tensor type's encoding after its ',': dimension bounds, which replace
  // the bounded `?` dimensions of `dims`.
  Status ParseBounds(std::vector<int64_t>* dims, std::vector<bool>* bounded);
  Status CheckElementCount(const std::vector<int64_t>& dims,
                           SourcePos pos) const;

  MlirLexer& lex_;
  int depth_ = 0;
};

// --- Conversions -----------------------------------------------------------

// The integers of [1, 2], array<i64: 1, 2> or dense<[1, 2]> : tensor<2xi64>.
StatusOr<std::vector<int64_t>> AttrToIntegers(const MlirAttr& attr,
                                              const MlirLexer& lexer,
                                              std::string_view name);
StatusOr<int64_t> AttrToInteger(const MlirAttr& attr, const MlirLexer& lexer,
                                std::string_view name);
StatusOr<bool> AttrToBool(const MlirAttr& attr, const MlirLexer& lexer,
                          std::string_view name);

// A dense<...> attribute as a literal of its tensor type.
StatusOr<Literal> DenseToLiteral(const MlirAttr& attr, const MlirLexer& lexer);

// An attribute as a typed-FFI attribute value (XLA's decodable kinds).
StatusOr<AttrValue> AttrToFfiValue(const MlirAttr& attr, const MlirLexer& lexer,
                                   std::string_view name);
StatusOr<FfiAttributes> DictionaryToFfiAttributes(const MlirAttr& attr,
                                                  const MlirLexer& lexer);

}  // namespace xffi::text

#endif  // XFFI_SRC_TEXT_MLIR_ATTRIBUTE_H_
