// `xffi inspect`: what a handler library registers and exports.
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "cli/commands.h"
#include "xffi/runtime/introspect.h"
#include "xffi/runtime/plugin.h"
#include "xffi/runtime/registry.h"
#include "xffi/runtime/types.h"

namespace xffi::cli {

const char kInspectHelp[] =
    "usage: xffi inspect LIB...\n"
    "\n"
    "Loads each shared library LIB as a plugin (running its static\n"
    "registrations; a name without '/' is a file in the current directory)\n"
    "and lists:\n"
    "  registered   the typed FFI handlers and legacy custom-call targets\n"
    "               it registered, per platform\n"
    "  exported     the handler symbols it marks for export (usable by\n"
    "               symbol, as jax.ffi.pycapsule(lib.SYMBOL) users do)\n"
    "Each line gives the platform, kind (ffi or legacy), name, API version,\n"
    "traits and execution stages (typed FFI), and the signature where the\n"
    "handler describes itself (handlers built with xffi's ffi.h do): the\n"
    "execute stage's on the line, each other stage's on a line below; a\n"
    "handler that keeps state names its type; a legacy target shows its C\n"
    "calling convention. For example\n"
    "  Host ffi rms_norm [api 0.3, traits none, stages execute]\n"
    "      execute(Attr<float> eps, Buffer<F32> arg0) -> (Buffer<F32>)\n"
    "\n"
    "  -h, --help   show this text\n"
    "\n"
    "Example:\n"
    "  xffi inspect build/release/examples/rms_norm/librms_norm.so\n"
    "\n"
    "Exit status: 0 success, 1 a library failed to load or describe itself,\n"
    "2 bad usage.\n";

namespace {

// FormatTarget without the origin, which the section heading already names.
std::string Line(TargetDescription target) {
  target.origin.clear();
  return FormatTarget(target);
}

// The registry keeps the execute stage's self-description only; the other
// stages of a bundle describe themselves through the same handshake, run on
// each stage's handler alone. One line per stage that answers.
std::vector<std::string> OtherStageSignatures(const HandlerRecord& record) {
  const XLA_FFI_Handler_Bundle& bundle = record.bundle;
  std::vector<std::string> lines;
  for (XLA_FFI_Handler* stage :
       {bundle.instantiate, bundle.prepare, bundle.initialize, bundle.record}) {
    if (stage == nullptr) continue;
    XLA_FFI_Handler_Bundle alone{};
    alone.execute = stage;
    StatusOr<HandlerRecord> described = DescribeHandler(record.name, alone);
    if (described.ok() && described->signature != nullptr) {
      lines.push_back(RenderSignature(*described->signature));
    }
  }
  return lines;
}

int Inspect(const std::string& path) {
  StatusOr<std::shared_ptr<const Plugin>> loaded =
      Plugin::Load(CommandLinePluginPath(path));
  if (!loaded.ok()) {
    std::fflush(stdout);
    std::fprintf(stderr, "xffi inspect: error: cannot load %s: %s\n",
                 path.c_str(), loaded.status().message().c_str());
    return kExitFailure;
  }
  const Plugin& plugin = **loaded;
  std::printf("%s (%s)\n", path.c_str(), plugin.origin().c_str());

  using Key = std::tuple<std::string, Platform, TargetKind>;
  std::map<Key, const HandlerRecord*> own;
  for (const HandlerRecord* record : plugin.RegisteredHandlers()) {
    own[{record->name, record->platform, TargetKind::kFfi}] = record;
  }
  for (const LegacyTargetRecord* record : plugin.RegisteredLegacyTargets()) {
    own[{record->name, record->platform, TargetKind::kLegacy}] = nullptr;
  }
  std::vector<std::string> registered;
  for (const TargetDescription& target : DescribeTargets()) {
    auto it = own.find({target.name, target.platform, target.kind});
    if (it == own.end()) continue;
    std::string text = Line(target);
    if (it->second != nullptr) {
      for (const std::string& stage : OtherStageSignatures(*it->second)) {
        text += "\n        " + stage;
      }
      if (it->second->state_type_id.type_id != 0) {
        text += "\n        state " + DescribeType(it->second->state_type_id) +
                ", made by the instantiate stage, one per call site";
      }
    }
    registered.push_back(text);
  }
  std::printf("  registered (%zu):\n", registered.size());
  for (const std::string& text : registered) {
    std::printf("    %s\n", text.c_str());
  }

  StatusOr<std::vector<TargetDescription>> exported =
      DescribeExportedHandlers(plugin);
  if (!exported.ok()) {
    std::fflush(stdout);
    std::fprintf(stderr, "xffi inspect: error: %s: %s\n", path.c_str(),
                 exported.status().message().c_str());
    return kExitFailure;
  }
  std::printf("  exported (%zu):\n", exported->size());
  for (const TargetDescription& target : *exported) {
    std::printf("    %s\n", Line(target).c_str());
  }
  return kExitOk;
}

}  // namespace

int InspectCommand(const std::vector<std::string>& args) {
  std::vector<std::string> libraries;
  for (const std::string& arg : args) {
    if (arg == "-h" || arg == "--help") {
      std::fputs(kInspectHelp, stdout);
      return kExitOk;
    }
    if (arg.size() > 1 && arg[0] == '-') {
      std::fprintf(stderr,
                   "xffi inspect: unknown option '%s'\n(see xffi inspect "
                   "--help)\n",
                   arg.c_str());
      return kExitUsage;
    }
    libraries.push_back(arg);
  }
  if (libraries.empty()) {
    std::fprintf(stderr,
                 "xffi inspect: no LIB given\n(see xffi inspect --help)\n");
    return kExitUsage;
  }
  int status = kExitOk;
  for (size_t i = 0; i < libraries.size(); ++i) {
    if (i > 0) std::printf("\n");
    if (Inspect(libraries[i]) != kExitOk) status = kExitFailure;
  }
  return status;
}

}  // namespace xffi::cli
