// Fuzz target: ParseStableHlo on arbitrary text. A program it accepts must
// print as HLO text that ParseHlo reads back and that prints the same again.
#include <string>
#include <string_view>

#include "fuzz_targets.h"
#include "xffi/program/text.h"

namespace xffi::fuzz {

int FuzzStableHloParser(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  StatusOr<Module> module = ParseStableHlo(text, "fuzz.mlir");
  if (!module.ok()) {
    CheckErrorHasPosition("fuzz.mlir", module.status().message());
    return 0;
  }
  std::string printed = PrintHlo(*module);
  StatusOr<Module> reparsed = ParseHlo(printed, "printed.hlo");
  if (!reparsed.ok())
    Fail("the printed program does not parse", text,
         reparsed.status().message() + "\n--- printed\n" + printed);
  std::string reprinted = PrintHlo(*reparsed);
  if (reprinted != printed)
    Fail("the reparsed program prints differently", text,
         printed + "\n--- reprinted\n" + reprinted);
  return 0;
}

}  // namespace xffi::fuzz

#ifndef XFFI_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return xffi::fuzz::FuzzStableHloParser(data, size);
}
#endif
