// xffi: the tokens of MLIR's textual syntax, with their line and column.
//
// One token of lookahead. Shapes such as `2x3xf32` are not regular tokens
// (`0x3` would lex as hex), so the parser asks for them with ScanDimensions
// at the point where they start.
#ifndef XFFI_SRC_TEXT_MLIR_LEXER_H_
#define XFFI_SRC_TEXT_MLIR_LEXER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xffi/runtime/status.h"

namespace xffi::text {

struct SourcePos {
  int line = 1, column = 1;
};

enum class TokenKind {
  kEof,
  kError,      // a character or literal that starts no token; text says why
  kBareId,     // foo, stablehlo.add, f32, x
  kPercentId,  // %arg0, %0#1 (value: without the %)
  kHashId,     // #loc3, #stablehlo.gather (value: without the #)
  kCaretId,    // ^bb0
  kAtId,       // @main, @"a b" (value: the symbol, unquoted)
  kBangId,     // !stablehlo.token (value: without the !)
  kInteger,    // 42, 0x7FC00000
  kFloat,      // 1.5, 1.000000e+00
  kString,     // "..." (value: unescaped)
  kLParen,
  kRParen,
  kLSquare,
  kRSquare,
  kLBrace,
  kRBrace,
  kLess,
  kGreater,
  kComma,
  kColon,
  kEqual,
  kArrow,
  kMinus,
  kPlus,
  kStar,
  kQuestion,
};

struct Token {
  TokenKind kind = TokenKind::kEof;
  std::string_view text;  // as written
  std::string value;      // identifiers without their sigil, strings decoded
  SourcePos pos;
  size_t offset = 0;
};

class MlirLexer {
 public:
  MlirLexer(std::string_view text, std::string_view source_name);

  const Token& peek() const { return token_; }
  // Returns the current token and moves to the next one.
  Token Next();
  bool At(TokenKind kind) const { return token_.kind == kind; }
  bool AtKeyword(std::string_view word) const {
    return token_.kind == TokenKind::kBareId && token_.text == word;
  }

  // Reads `D x D x ... x` (D a number or ?) starting at the current token and
  // re-lexes what follows. Dynamic dimensions are -1.
  std::vector<int64_t> ScanDimensions();

  // Where the lexer is, to come back to: shape refinement reads a function
  // again for each signature it is called with.
  struct State {
    size_t pos = 0;
    Token token;
  };
  State Save() const { return State{pos_, token_}; }
  void Restore(const State& state) {
    pos_ = state.pos;
    token_ = state.token;
  }

  // "SOURCE:LINE:COLUMN: message".
  Status ErrorAt(SourcePos pos, std::string_view message) const;
  // "...: expected WHAT, got <current token>".
  Status Expected(std::string_view what) const;
  static std::string Describe(const Token& token);

  const std::string& source_name() const { return source_name_; }
  std::string_view text() const { return text_; }

 private:
  void Lex();
  SourcePos PosOf(size_t offset) const;
  void LexNumber(size_t start);
  void LexString(size_t start, TokenKind kind);

  std::string_view text_;
  std::string source_name_;
  std::vector<size_t> line_starts_;
  size_t pos_ = 0;
  Token token_;
};

}  // namespace xffi::text

#endif  // XFFI_SRC_TEXT_MLIR_LEXER_H_
