#include "text/mlir/lexer.h"

#include <algorithm>

namespace xffi::text {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHexDigit(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool IsLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
// Characters MLIR allows after the first one of a bare identifier.
bool IsIdChar(char c) {
  return IsLetter(c) || IsDigit(c) || c == '$' || c == '.';
}
// %names and #aliases also take '-'.
bool IsSuffixIdChar(char c) { return IsIdChar(c) || c == '-'; }

int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

}  // namespace

MlirLexer::MlirLexer(std::string_view text, std::string_view source_name)
    : text_(text), source_name_(source_name) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') line_starts_.push_back(i + 1);
  Lex();
}

SourcePos MlirLexer::PosOf(size_t offset) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  size_t line = static_cast<size_t>(it - line_starts_.begin());
  SourcePos pos;
  pos.line = static_cast<int>(line);
  pos.column = static_cast<int>(offset - line_starts_[line - 1] + 1);
  return pos;
}

Token MlirLexer::Next() {
  Token current = std::move(token_);
  Lex();
  return current;
}

Status MlirLexer::ErrorAt(SourcePos pos, std::string_view message) const {
  return InvalidArgument(source_name_ + ":" + std::to_string(pos.line) + ":" +
                         std::to_string(pos.column) + ": " +
                         std::string(message));
}

std::string MlirLexer::Describe(const Token& token) {
  if (token.kind == TokenKind::kEof) return "end of input";
  if (token.kind == TokenKind::kError) return token.value;
  std::string_view text = token.text;
  if (text.size() > 40) return "'" + std::string(text.substr(0, 40)) + "...'";
  return "'" + std::string(text) + "'";
}

Status MlirLexer::Expected(std::string_view what) const {
  return ErrorAt(token_.pos,
                 "expected " + std::string(what) + ", got " + Describe(token_));
}

std::vector<int64_t> MlirLexer::ScanDimensions() {
  std::vector<int64_t> dims;
  size_t p = token_.offset;
  while (true) {
    size_t start = p;
    int64_t dim = 0;
    bool overflow = false;
    if (p < text_.size() && text_[p] == '?') {
      dim = -1;
      ++p;
    } else {
      while (p < text_.size() && IsDigit(text_[p])) {
        if (dim > (INT64_MAX - 9) / 10) overflow = true;
        if (!overflow) dim = dim * 10 + (text_[p] - '0');
        ++p;
      }
    }
    if (p == start || p >= text_.size() || text_[p] != 'x' || overflow) {
      p = start;
      break;
    }
    dims.push_back(dim);
    ++p;  // the 'x'
  }
  pos_ = p;
  Lex();
  return dims;
}

void MlirLexer::LexNumber(size_t start) {
  size_t p = start;
  token_.kind = TokenKind::kInteger;
  if (text_[p] == '0' && p + 1 < text_.size() &&
      (text_[p + 1] == 'x' || text_[p + 1] == 'X') && p + 2 < text_.size() &&
      IsHexDigit(text_[p + 2])) {
    p += 2;
    while (p < text_.size() && IsHexDigit(text_[p])) ++p;
  } else {
    while (p < text_.size() && IsDigit(text_[p])) ++p;
    if (p < text_.size() && text_[p] == '.') {
      token_.kind = TokenKind::kFloat;
      ++p;
      while (p < text_.size() && IsDigit(text_[p])) ++p;
    }
    if (p < text_.size() && (text_[p] == 'e' || text_[p] == 'E')) {
      size_t q = p + 1;
      if (q < text_.size() && (text_[q] == '+' || text_[q] == '-')) ++q;
      if (q < text_.size() && IsDigit(text_[q])) {
        token_.kind = TokenKind::kFloat;
        p = q;
        while (p < text_.size() && IsDigit(text_[p])) ++p;
      }
    }
  }
  token_.text = text_.substr(start, p - start);
  token_.value = std::string(token_.text);
  pos_ = p;
}

void MlirLexer::LexString(size_t start, TokenKind kind) {
  // start points at the opening quote.
  size_t p = start + 1;
  std::string value;
  while (true) {
    if (p >= text_.size() || text_[p] == '\n') {
      token_.kind = TokenKind::kError;
      token_.value = "an unterminated string";
      token_.text = text_.substr(start, p - start);
      pos_ = p;
      return;
    }
    char c = text_[p];
    if (c == '"') {
      ++p;
      break;
    }
    if (c != '\\') {
      value.push_back(c);
      ++p;
      continue;
    }
    if (p + 1 >= text_.size()) {  // a backslash ends the text
      ++p;                        // reported as unterminated next time round
      continue;
    }
    char e = text_[p + 1];
    if (e == '"' || e == '\\') {
      value.push_back(e);
      p += 2;
    } else if (e == 'n') {
      value.push_back('\n');
      p += 2;
    } else if (e == 't') {
      value.push_back('\t');
      p += 2;
    } else if (p + 2 < text_.size() && IsHexDigit(e) &&
               IsHexDigit(text_[p + 2])) {
      value.push_back(
          static_cast<char>(HexValue(e) * 16 + HexValue(text_[p + 2])));
      p += 3;
    } else {
      token_.kind = TokenKind::kError;
      token_.value =
          "an unknown escape '\\" + std::string(1, e) + "' in a string";
      token_.text = text_.substr(start, p + 2 - start);
      pos_ = p + 2;
      return;
    }
  }
  token_.kind = kind;
  token_.text = text_.substr(start, p - start);
  token_.value = std::move(value);
  pos_ = p;
}

void MlirLexer::Lex() {
  // Skip whitespace and // comments.
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    } else {
      break;
    }
  }
  token_ = Token();
  token_.offset = pos_;
  token_.pos = PosOf(pos_);
  if (pos_ >= text_.size()) {
    token_.kind = TokenKind::kEof;
    return;
  }
  size_t start = pos_;
  char c = text_[pos_];
  auto punct = [&](TokenKind kind, size_t length) {
    token_.kind = kind;
    token_.text = text_.substr(start, length);
    pos_ = start + length;
  };
  auto sigil_id = [&](TokenKind kind, bool (*accept)(char)) {
    size_t p = start + 1;
    while (p < text_.size() && accept(text_[p])) ++p;
    if (p == start + 1) {
      token_.kind = TokenKind::kError;
      token_.value = "'" + std::string(1, c) + "' without a name";
      token_.text = text_.substr(start, 1);
      pos_ = start + 1;
      return;
    }
    token_.kind = kind;
    token_.text = text_.substr(start, p - start);
    token_.value = std::string(text_.substr(start + 1, p - start - 1));
    pos_ = p;
  };
  switch (c) {
    case '(':
      return punct(TokenKind::kLParen, 1);
    case ')':
      return punct(TokenKind::kRParen, 1);
    case '[':
      return punct(TokenKind::kLSquare, 1);
    case ']':
      return punct(TokenKind::kRSquare, 1);
    case '{':
      return punct(TokenKind::kLBrace, 1);
    case '}':
      return punct(TokenKind::kRBrace, 1);
    case '<':
      return punct(TokenKind::kLess, 1);
    case '>':
      return punct(TokenKind::kGreater, 1);
    case ',':
      return punct(TokenKind::kComma, 1);
    case ':':
      return punct(TokenKind::kColon, 1);
    case '=':
      return punct(TokenKind::kEqual, 1);
    case '+':
      return punct(TokenKind::kPlus, 1);
    case '*':
      return punct(TokenKind::kStar, 1);
    case '?':
      return punct(TokenKind::kQuestion, 1);
    case '-':
      if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '>')
        return punct(TokenKind::kArrow, 2);
      return punct(TokenKind::kMinus, 1);
    case '"':
      return LexString(start, TokenKind::kString);
    case '%': {
      sigil_id(TokenKind::kPercentId, IsSuffixIdChar);
      // %0#1 names result 1 of %0; it stays one token, as in MLIR.
      if (token_.kind == TokenKind::kPercentId && pos_ < text_.size() &&
          text_[pos_] == '#' && pos_ + 1 < text_.size() &&
          IsDigit(text_[pos_ + 1])) {
        size_t p = pos_ + 1;
        while (p < text_.size() && IsDigit(text_[p])) ++p;
        token_.text = text_.substr(start, p - start);
        token_.value = std::string(text_.substr(start + 1, p - start - 1));
        pos_ = p;
      }
      return;
    }
    case '#':
      return sigil_id(TokenKind::kHashId, IsSuffixIdChar);
    case '^':
      return sigil_id(TokenKind::kCaretId, IsSuffixIdChar);
    case '!':
      return sigil_id(TokenKind::kBangId, IsIdChar);
    case '@':
      if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '"') {
        LexString(start + 1, TokenKind::kAtId);
        if (token_.kind == TokenKind::kAtId)
          token_.text = text_.substr(start, pos_ - start);
        return;
      }
      return sigil_id(TokenKind::kAtId, IsSuffixIdChar);
    default:
      break;
  }
  if (IsDigit(c)) return LexNumber(start);
  if (IsLetter(c)) {
    size_t p = start + 1;
    while (p < text_.size() && IsIdChar(text_[p])) ++p;
    token_.kind = TokenKind::kBareId;
    token_.text = text_.substr(start, p - start);
    token_.value = std::string(token_.text);
    pos_ = p;
    return;
  }
  token_.kind = TokenKind::kError;
  unsigned char u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) {
    token_.value = "'" + std::string(1, c) + "'";
  } else {
    static const char kHex[] = "0123456789ABCDEF";
    token_.value = std::string("byte 0x") + kHex[u >> 4] + kHex[u & 15];
  }
  token_.text = text_.substr(start, 1);
  pos_ = start + 1;
}

}  // namespace xffi::text
