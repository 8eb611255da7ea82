// Fuzz target: ParseMlirAttributeDictionary (typed-FFI backend configs) on
// arbitrary text. A dictionary it accepts must print as text that parses
// back and prints the same again.
#include <string>
#include <string_view>

#include "fuzz_targets.h"
#include "xffi/program/text.h"

namespace xffi::fuzz {

int FuzzMlirAttributes(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  StatusOr<FfiAttributes> attributes =
      ParseMlirAttributeDictionary(text, "fuzz.attr");
  if (!attributes.ok()) {
    CheckErrorHasPosition("fuzz.attr", attributes.status().message());
    return 0;
  }
  std::string printed = PrintMlirAttributeDictionary(*attributes);
  StatusOr<FfiAttributes> reparsed =
      ParseMlirAttributeDictionary(printed, "printed.attr");
  if (!reparsed.ok())
    Fail("the printed dictionary does not parse", text,
         reparsed.status().message() + "\n--- printed\n" + printed);
  std::string reprinted = PrintMlirAttributeDictionary(*reparsed);
  if (reprinted != printed)
    Fail("the reparsed dictionary prints differently", text,
         printed + "\n--- reprinted\n" + reprinted);
  return 0;
}

}  // namespace xffi::fuzz

#ifndef XFFI_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return xffi::fuzz::FuzzMlirAttributes(data, size);
}
#endif
