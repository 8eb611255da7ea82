// DetectProgramFormat and ParseProgram: one entry point for both text
// formats, as the CLI and the Python package take a program file.
#include "runtime/status_macros.h"
#include "text/hlo/scanner.h"
#include "text/stablehlo/parser.h"
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

StatusOr<Module> ParseProgram(std::string_view text,
                              std::string_view source_name,
                              const ParseOptions& options) {
  if (DetectProgramFormat(text) != ProgramFormat::kHlo)
    return ParseStableHlo(text, source_name, options);
  XFFI_ASSIGN_OR_RETURN(Module module, ParseHlo(text, source_name));
  if (!options.argument_shapes.has_value()) return module;
  return text::stablehlo::CheckArgumentShapes(
      std::move(module), *options.argument_shapes, source_name);
}

}  // namespace xffi
