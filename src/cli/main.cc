// The `xffi` command: runs StableHLO/HLO programs and describes handler
// libraries.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace {

const char kHelp[] =
    "usage: xffi COMMAND [ARGS]...\n"
    "\n"
    "Commands:\n"
    "  run PROGRAM [--plugin LIB]... [--input FILE.npy]... [--output-dir DIR]\n"
    "      [--repeat N] [--format F] [--expect FILE.npy]... [--tolerance T]\n"
    "      [--threads N] [--profile FILE]\n"
    "      Compile a StableHLO or HLO text program and run it on the CPU,\n"
    "      print its results' shapes and the time per execution, write them\n"
    "      as .npy files and/or compare them with expected ones.\n"
    "  inspect [--plugin LIB]... [--compile] [--json] FILE...\n"
    "      List the custom-call handlers a shared library registers or "
    "exports,\n"
    "      with API version, traits, stages and signatures; or describe a\n"
    "      program: its entry signature and shardings, its custom calls and\n"
    "      what serves each target, its op counts, and compiled, its "
    "fusions\n"
    "      and buffers.\n"
    "  help [COMMAND]\n"
    "      Show this text, or a command's own (also: xffi COMMAND --help).\n"
    "\n"
    "Example:\n"
    "  xffi run model.mlir --plugin librms_norm.so --input x.npy "
    "--output-dir out\n"
    "\n"
    "Exit status: 0 success, 1 the program, a plugin or the run failed,\n"
    "2 bad usage.\n";

}  // namespace

int main(int argc, char** argv) {
  using namespace xffi::cli;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::fputs(kHelp, stderr);
    return kExitUsage;
  }
  std::string command = args.front();
  args.erase(args.begin());
  if (command == "--help" || command == "-h" || command == "help") {
    if (!args.empty() && args[0] == "run") {
      std::fputs(kRunHelp, stdout);
    } else if (!args.empty() && args[0] == "inspect") {
      std::fputs(kInspectHelp, stdout);
    } else {
      std::fputs(kHelp, stdout);
    }
    return kExitOk;
  }
  if (command == "run") return RunCommand(args);
  if (command == "inspect") return InspectCommand(args);
  std::fprintf(stderr, "xffi: unknown command '%s'\n\n%s", command.c_str(),
               kHelp);
  return kExitUsage;
}
