// DetectProgramFormat and ParseProgram: one entry point for both text
// formats, as the CLI and the Python package take a program file.
#include "text/hlo/scanner.h"
#include "xffi/program/text.h"

namespace xffi {

ProgramFormat DetectProgramFormat(std::string_view text) {
  hlo::Scanner scanner(text, "");
  scanner.SkipSpace();
  return scanner.PeekName() == "HloModule" ? ProgramFormat::kHlo
                                           : ProgramFormat::kStableHlo;
}

StatusOr<Module> ParseProgram(std::string_view text,
                              std::string_view source_name) {
  if (DetectProgramFormat(text) == ProgramFormat::kHlo)
    return ParseHlo(text, source_name);
  return ParseStableHlo(text, source_name);
}

}  // namespace xffi
