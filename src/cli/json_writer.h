// A small streaming JSON writer for the CLI's --json output: values are
// appended in order and commas placed by the writer, so callers cannot
// produce malformed text by forgetting one.
#ifndef XFFI_CLI_JSON_WRITER_H_
#define XFFI_CLI_JSON_WRITER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace xffi::cli {

class JsonWriter {
 public:
  JsonWriter& BeginObject() { return Open('{'); }
  JsonWriter& EndObject() { return Close('}'); }
  JsonWriter& BeginArray() { return Open('['); }
  JsonWriter& EndArray() { return Close(']'); }
  // The key of the next value inside an object.
  JsonWriter& Key(std::string_view key);
  JsonWriter& String(std::string_view value);
  JsonWriter& Int(int64_t value);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();

  const std::string& text() const { return text_; }

 private:
  JsonWriter& Open(char bracket);
  JsonWriter& Close(char bracket);
  void BeforeValue();
  void Quote(std::string_view value);

  std::string text_;
  // Per open container: whether it holds a value yet.
  std::vector<bool> nonempty_;
  bool after_key_ = false;
};

}  // namespace xffi::cli

#endif  // XFFI_CLI_JSON_WRITER_H_
