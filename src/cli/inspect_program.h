// `xffi inspect PROGRAM`: what a user needs to know about a program before
// running it: the entry's signature with the shardings it declares for its
// parameters and results, each custom call (where it is, how it is called,
// whether and by what its target resolves in this process on the platform
// asked for), the devices it was written for, its op counts and, compiled,
// its fusions and buffers.
#ifndef XFFI_CLI_INSPECT_PROGRAM_H_
#define XFFI_CLI_INSPECT_PROGRAM_H_

#include <string>

#include "cli/json_writer.h"
#include "cli/program_file.h"
#include "xffi/runtime/platform.h"

namespace xffi::cli {

struct InspectProgramOptions {
  FormatChoice format = FormatChoice::kAuto;
  bool compile = false;  // also compile it (host) and describe the result
  // Whose handlers the custom calls resolve to, as xffi run --platform
  // resolves them (sim: CUDA's).
  Platform platform = Platform::kHost;
};

// Describes the program at `path` as text on standard output, or appends
// one JSON object to `json` when it is not null. Returns the exit status; an
// error (unreadable file, syntax, verification, compilation) goes to
// standard error naming the file and line:column.
int InspectProgram(const std::string& path,
                   const InspectProgramOptions& options, JsonWriter* json);

}  // namespace xffi::cli

#endif  // XFFI_CLI_INSPECT_PROGRAM_H_
