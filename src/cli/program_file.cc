#include "cli/program_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace xffi::cli {

std::optional<FormatChoice> ParseFormatChoice(const std::string& value) {
  if (value == "auto") return FormatChoice::kAuto;
  if (value == "stablehlo") return FormatChoice::kStableHlo;
  if (value == "hlo") return FormatChoice::kHlo;
  return std::nullopt;
}

StatusOr<std::string> ReadProgram(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    return InvalidArgument(path + ": is a directory, not a program file");
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return NotFound(path + ": cannot open the program file (" +
                    std::strerror(errno) + ")");
  }
  return std::string((std::istreambuf_iterator<char>(file)),
                     std::istreambuf_iterator<char>());
}

StatusOr<Module> ParseProgramText(const std::string& text,
                                  const std::string& path, FormatChoice choice,
                                  ProgramFormat* format,
                                  const ParseOptions& options) {
  switch (choice) {
    case FormatChoice::kStableHlo:
      *format = ProgramFormat::kStableHlo;
      return ParseStableHlo(text, path, options);
    case FormatChoice::kHlo:
      *format = ProgramFormat::kHlo;
      break;
    case FormatChoice::kAuto:
      *format = DetectProgramFormat(text);
      break;
  }
  if (*format == ProgramFormat::kStableHlo)
    return ParseStableHlo(text, path, options);
  // HLO text has no `?`: there is nothing to refine.
  return ParseHlo(text, path);
}

std::string Bytes(size_t bytes) {
  char text[32];
  if (bytes >= (size_t{1} << 20)) {
    std::snprintf(text, sizeof text, "%.1f MiB",
                  static_cast<double>(bytes) / (1 << 20));
  } else if (bytes >= 1024) {
    std::snprintf(text, sizeof text, "%.1f KiB",
                  static_cast<double>(bytes) / 1024);
  } else {
    std::snprintf(text, sizeof text, "%zu B", bytes);
  }
  return text;
}

}  // namespace xffi::cli
