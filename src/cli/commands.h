// xffi: the subcommands of the `xffi` tool. Each takes the arguments after
// its name and returns the process's exit status.
#ifndef XFFI_CLI_COMMANDS_H_
#define XFFI_CLI_COMMANDS_H_

#include <string>
#include <vector>

namespace xffi::cli {

// Exit statuses of every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // the program, a plugin or a run
inline constexpr int kExitUsage = 2;    // bad command line

extern const char kRunHelp[];
extern const char kInspectHelp[];

// A library named on the command line, as the user means it: a name
// without '/' is a file in the current directory ("./NAME"), not a name
// for the dynamic loader's search path, which would find a different file
// (or none) depending on LD_LIBRARY_PATH.
inline std::string CommandLinePluginPath(const std::string& path) {
  if (path.empty() || path.find('/') != std::string::npos) return path;
  return "./" + path;
}

int RunCommand(const std::vector<std::string>& args);
int InspectCommand(const std::vector<std::string>& args);

}  // namespace xffi::cli

#endif  // XFFI_CLI_COMMANDS_H_
