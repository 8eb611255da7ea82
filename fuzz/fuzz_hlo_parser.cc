// Fuzz target: ParseHlo on arbitrary text. A module it accepts must print as
// text that parses back and prints the same again.
#include <string>
#include <string_view>

#include "fuzz_targets.h"
#include "xffi/program/text.h"

namespace xffi::fuzz {

int FuzzHloParser(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  StatusOr<Module> module = ParseHlo(text, "fuzz.hlo");
  if (!module.ok()) {
    CheckErrorHasPosition("fuzz.hlo", module.status().message());
    return 0;
  }
  std::string printed = PrintHlo(*module);
  StatusOr<Module> reparsed = ParseHlo(printed, "printed.hlo");
  if (!reparsed.ok())
    Fail("the printed module does not parse", text,
         reparsed.status().message() + "\n--- printed\n" + printed);
  std::string reprinted = PrintHlo(*reparsed);
  if (reprinted != printed)
    Fail("the reparsed module prints differently", text,
         printed + "\n--- reprinted\n" + reprinted);
  return 0;
}

}  // namespace xffi::fuzz

#ifndef XFFI_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return xffi::fuzz::FuzzHloParser(data, size);
}
#endif
