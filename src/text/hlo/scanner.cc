#include "text/hlo/scanner.h"

#include <cctype>
#include <charconv>

namespace xffi::hlo {

bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
         c == '-' || c == '$';
}

void Scanner::Advance(size_t count) {
  for (size_t i = 0; i < count && pos_.offset < text_.size(); ++i) {
    if (text_[pos_.offset] == '\n') {
      ++pos_.line;
      pos_.column = 1;
    } else {
      ++pos_.column;
    }
    ++pos_.offset;
  }
}

namespace {

bool SkipComment(Scanner& s) {
  if (s.Peek() == '/' && s.Peek(1) == '/') {
    while (!s.AtEnd() && s.Peek() != '\n') s.Advance();
    return true;
  }
  if (s.Peek() == '/' && s.Peek(1) == '*') {
    s.Advance(2);
    while (!s.AtEnd() && !(s.Peek() == '*' && s.Peek(1) == '/')) s.Advance();
    s.Advance(2);
    return true;
  }
  return false;
}

}  // namespace

void Scanner::SkipSpace() {
  while (!AtEnd()) {
    char c = Peek();
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
        c == '\v') {
      Advance();
    } else if (!SkipComment(*this)) {
      return;
    }
  }
}

void Scanner::SkipSpaceOnLine() {
  while (!AtEnd()) {
    char c = Peek();
    if (c == ' ' || c == '\t' || c == '\r') {
      Advance();
    } else if (c == '/' && Peek(1) == '*') {
      SkipComment(*this);
    } else {
      return;
    }
  }
}

bool Scanner::TryConsume(char c) {
  SkipSpace();
  if (Peek() != c || AtEnd()) return false;
  Advance();
  return true;
}

bool Scanner::TryConsume(std::string_view s) {
  SkipSpace();
  if (Rest().substr(0, s.size()) != s) return false;
  Advance(s.size());
  return true;
}

bool Scanner::TryConsumeWord(std::string_view word) {
  SkipSpace();
  if (PeekName() != word) return false;
  Advance(word.size());
  return true;
}

Status Scanner::Expect(char c) {
  if (TryConsume(c)) return Status::Ok();
  return Expected(std::string("'") + c + "'");
}

Status Scanner::Expect(std::string_view s) {
  if (TryConsume(s)) return Status::Ok();
  return Expected("'" + std::string(s) + "'");
}

std::string_view Scanner::PeekName() const {
  size_t end = pos_.offset;
  while (end < text_.size() && IsNameChar(text_[end])) ++end;
  return text_.substr(pos_.offset, end - pos_.offset);
}

std::string_view Scanner::Name() {
  SkipSpace();
  TextPos start = pos_;
  if (Peek() == '%') Advance();
  std::string_view name = PeekName();
  if (name.empty()) {
    pos_ = start;
    return name;
  }
  Advance(name.size());
  return name;
}

Status Scanner::Int(int64_t& value, std::string_view what) {
  SkipSpace();
  TextPos start = pos_;
  size_t end = pos_.offset;
  if (end < text_.size() && (text_[end] == '-' || text_[end] == '+')) ++end;
  size_t digits = end;
  while (end < text_.size() &&
         std::isdigit(static_cast<unsigned char>(text_[end])))
    ++end;
  if (end == digits) return Expected(what);
  const char* first = text_.data() + pos_.offset;
  if (*first == '+') ++first;
  auto result = std::from_chars(first, text_.data() + end, value);
  if (result.ec != std::errc() || result.ptr != text_.data() + end)
    return ErrorAt(
        start, std::string(what) + " '" +
                   std::string(text_.substr(pos_.offset, end - pos_.offset)) +
                   "' is out of range");
  Advance(end - pos_.offset);
  return Status::Ok();
}

Status Scanner::Uint(uint64_t& value, std::string_view what) {
  SkipSpace();
  TextPos start = pos_;
  size_t end = pos_.offset;
  while (end < text_.size() &&
         std::isdigit(static_cast<unsigned char>(text_[end])))
    ++end;
  if (end == pos_.offset) return Expected(what);
  auto result =
      std::from_chars(text_.data() + pos_.offset, text_.data() + end, value);
  if (result.ec != std::errc())
    return ErrorAt(
        start, std::string(what) + " '" +
                   std::string(text_.substr(pos_.offset, end - pos_.offset)) +
                   "' is out of range");
  Advance(end - pos_.offset);
  return Status::Ok();
}

Status Scanner::String(std::string& value) {
  SkipSpace();
  if (Peek() != '"' || AtEnd()) return Expected("a string");
  TextPos start = pos_;
  Advance();
  value.clear();
  while (true) {
    if (AtEnd()) return ErrorAt(start, "unterminated string");
    char c = Peek();
    if (c == '"') {
      Advance();
      return Status::Ok();
    }
    if (c == '\n') return ErrorAt(start, "unterminated string");
    if (c != '\\') {
      value += c;
      Advance();
      continue;
    }
    TextPos escape = pos_;
    Advance();
    char e = Peek();
    if (AtEnd()) return ErrorAt(start, "unterminated string");
    Advance();
    switch (e) {
      case 'n':
        value += '\n';
        break;
      case 't':
        value += '\t';
        break;
      case 'r':
        value += '\r';
        break;
      case 'a':
        value += '\a';
        break;
      case 'b':
        value += '\b';
        break;
      case 'f':
        value += '\f';
        break;
      case 'v':
        value += '\v';
        break;
      case '\\':
        value += '\\';
        break;
      case '\'':
        value += '\'';
        break;
      case '"':
        value += '"';
        break;
      case '?':
        value += '?';
        break;
      case 'x': {
        int code = 0, count = 0;
        while (count < 2 && std::isxdigit(static_cast<unsigned char>(Peek()))) {
          char h = Peek();
          code = code * 16 + (std::isdigit(static_cast<unsigned char>(h))
                                  ? h - '0'
                                  : std::tolower(h) - 'a' + 10);
          Advance();
          ++count;
        }
        if (count == 0) return Expected("hex digits after '\\x'", pos_);
        value += static_cast<char>(code);
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          int code = e - '0', count = 1;
          while (count < 3 && Peek() >= '0' && Peek() <= '7') {
            code = code * 8 + (Peek() - '0');
            Advance();
            ++count;
          }
          value += static_cast<char>(code & 0xff);
          break;
        }
        return ErrorAt(escape, std::string("unknown escape '\\") + e + "'");
    }
  }
}

Status Scanner::SkipQuoted() {
  SkipSpace();
  if (Peek() != '"' || AtEnd()) return Expected("a string");
  TextPos start = pos_;
  Advance();
  while (!AtEnd() && Peek() != '"' && Peek() != '\n')
    Advance(Peek() == '\\' ? 2 : 1);
  if (Peek() != '"' || AtEnd()) return ErrorAt(start, "unterminated string");
  Advance();
  return Status::Ok();
}

std::string Scanner::Where(TextPos at) const {
  return std::string(source_name_) + ":" + std::to_string(at.line) + ":" +
         std::to_string(at.column);
}

std::string Scanner::Describe(TextPos at) const {
  if (at.offset >= text_.size()) return "end of input";
  char c = text_[at.offset];
  if (c == '\n' || c == '\r') return "end of line";
  if (c == '"') return "a string";
  size_t end = at.offset;
  while (end < text_.size() && IsNameChar(text_[end]) && end - at.offset < 40)
    ++end;
  if (end > at.offset)
    return "'" + std::string(text_.substr(at.offset, end - at.offset)) + "'";
  if (std::isprint(static_cast<unsigned char>(c)))
    return std::string("'") + c + "'";
  char buffer[8];
  auto r = std::to_chars(buffer, buffer + sizeof(buffer),
                         static_cast<unsigned char>(c), 16);
  return "byte 0x" + std::string(buffer, r.ptr);
}

Status Scanner::Expected(std::string_view what, TextPos at) const {
  return InvalidArgument(Where(at) + ": expected " + std::string(what) +
                         ", got " + Describe(at));
}

Status Scanner::ErrorAt(TextPos at, std::string_view message) const {
  return InvalidArgument(Where(at) + ": " + std::string(message));
}

}  // namespace xffi::hlo
