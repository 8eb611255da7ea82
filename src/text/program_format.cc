// DetectProgramFormat and ParseProgram: one entry point for both text
// formats, as the CLI and the Python package take a program file.
#include "text/hlo/scanner.h"
#include "xffi/program/text.h"

namespace xffi {

// INTEGRATION POINT: ParseStableHlo is defined by the StableHLO parser
// (src/text, the StableHLO side). Declared weak until that lands on main, so
// this file links without it and ParseProgram reports the gap instead.
[[gnu::weak]] StatusOr<Module> ParseStableHlo(std::string_view text,
                                              std::string_view source_name);

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
  if (&ParseStableHlo == nullptr)
    return Unimplemented(std::string(source_name) +
                         ": StableHLO text is not supported in this build");
  return ParseStableHlo(text, source_name);
}

}  // namespace xffi
