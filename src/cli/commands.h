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

int RunCommand(const std::vector<std::string>& args);
int InspectCommand(const std::vector<std::string>& args);

}  // namespace xffi::cli

#endif  // XFFI_CLI_COMMANDS_H_
