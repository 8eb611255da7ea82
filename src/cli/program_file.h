// Reading a program file as `xffi run` and `xffi inspect` both do: the
// file's text, parsed as the --format option says (or as its first word
// shows), and sizes as both print them.
#ifndef XFFI_CLI_PROGRAM_FILE_H_
#define XFFI_CLI_PROGRAM_FILE_H_

#include <cstddef>
#include <optional>
#include <string>

#include "xffi/program/ir.h"
#include "xffi/program/text.h"

namespace xffi::cli {

enum class FormatChoice { kAuto, kStableHlo, kHlo };

// "auto", "stablehlo" or "hlo"; nullopt otherwise.
std::optional<FormatChoice> ParseFormatChoice(const std::string& value);

// The whole file; an error names the path and why it cannot be read.
StatusOr<std::string> ReadProgram(const std::string& path);

// `text` (read from `path`, which messages name) parsed as `choice` says;
// `format` is set to the syntax it was read as. `options` refines a
// shape-polymorphic StableHLO program to its argument shapes (HLO text has
// no dynamic dimensions and ignores them).
StatusOr<Module> ParseProgramText(const std::string& text,
                                  const std::string& path, FormatChoice choice,
                                  ProgramFormat* format,
                                  const ParseOptions& options = {});

// "512 B", "3.0 KiB", "1.5 MiB".
std::string Bytes(size_t bytes);

}  // namespace xffi::cli

#endif  // XFFI_CLI_PROGRAM_FILE_H_
