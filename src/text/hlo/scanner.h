// xffi: the character-level reader under the HLO text parser.
//
// HLO text is lexed differently by context (`2x2` is two window sizes,
// `1_-1_1` a padding triple, `f32[2]{1,0}` a shape), so the parser reads
// characters through this scanner rather than a fixed token stream. The
// scanner tracks line and column, skips whitespace and comments (`//` to the
// end of the line, `/* ... */`, which JAX's printer puts inside long tuple
// shapes) and formats every error as "SOURCE:LINE:COLUMN: expected X, got Y".
#ifndef XFFI_SRC_TEXT_HLO_SCANNER_H_
#define XFFI_SRC_TEXT_HLO_SCANNER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "xffi/runtime/status.h"

namespace xffi::hlo {

struct TextPos {
  size_t offset = 0;
  int line = 1, column = 1;
};

class Scanner {
 public:
  Scanner(std::string_view text, std::string_view source_name)
      : text_(text), source_name_(source_name) {}

  std::string_view source_name() const { return source_name_; }
  std::string_view text() const { return text_; }

  // Whitespace (newlines included) and comments.
  void SkipSpace();
  // Spaces, tabs and comments on the current line only.
  void SkipSpaceOnLine();

  TextPos pos() const { return pos_; }
  void Reset(TextPos pos) { pos_ = pos; }
  bool AtEnd() const { return pos_.offset >= text_.size(); }
  // The character at the cursor, '\0' at the end (no skipping).
  char Peek(size_t ahead = 0) const {
    size_t i = pos_.offset + ahead;
    return i < text_.size() ? text_[i] : '\0';
  }
  void Advance(size_t count = 1);
  std::string_view Rest() const { return text_.substr(pos_.offset); }

  // Skips space, then consumes `c` when it is next.
  bool TryConsume(char c);
  // Skips space, then consumes `s` when the text continues with it.
  bool TryConsume(std::string_view s);
  // Skips space, then consumes the word `word` when it stands alone (not
  // followed by a name character).
  bool TryConsumeWord(std::string_view word);
  Status Expect(char c);
  Status Expect(std::string_view s);

  // A name: letters, digits, '_', '.', '-' and '$', after an optional '%'
  // (dropped). Empty when none is next (after skipping space).
  std::string_view Name();
  // The run of name characters at the cursor, without consuming it.
  std::string_view PeekName() const;

  // Decimal (optionally signed) integers; errors name `what`.
  Status Int(int64_t& value, std::string_view what);
  Status Uint(uint64_t& value, std::string_view what);
  // A double-quoted string with C escapes (\n \t \" \\ \xHH \ooo).
  Status String(std::string& value);

  // Skips a double-quoted string whatever its escapes (C's or MLIR's \XX):
  // a backslash protects the character after it.
  Status SkipQuoted();

  // "SOURCE:LINE:COLUMN: expected WHAT, got <what is at pos>".
  Status Expected(std::string_view what) const { return Expected(what, pos_); }
  Status Expected(std::string_view what, TextPos at) const;
  // "SOURCE:LINE:COLUMN: MESSAGE".
  Status ErrorAt(TextPos at, std::string_view message) const;
  std::string Where(TextPos at) const;
  // How the text at `at` reads in a message: 'name', '(' or end of input.
  std::string Describe(TextPos at) const;

 private:
  std::string_view text_;
  std::string_view source_name_;
  TextPos pos_;
};

bool IsNameChar(char c);

}  // namespace xffi::hlo

#endif  // XFFI_SRC_TEXT_HLO_SCANNER_H_
