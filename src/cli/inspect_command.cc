// `xffi inspect`: what a handler library registers and exports, or what a
// program holds (inspect_program.h).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "cli/commands.h"
#include "cli/inspect_program.h"
#include "cli/json_writer.h"
#include "xffi/runtime/introspect.h"
#include "xffi/runtime/plugin.h"
#include "xffi/runtime/registry.h"
#include "xffi/runtime/types.h"

namespace xffi::cli {

const char kInspectHelp[] =
    "usage: xffi inspect [--plugin LIB]... [--compile] [--json]\n"
    "                    [--format F] [--platform P] FILE...\n"
    "\n"
    "Describes each FILE: a handler library (a shared library: an ELF file,\n"
    "or a name ending in .so) or a program (StableHLO or HLO text, as\n"
    "xffi run reads it).\n"
    "\n"
    "A library is loaded as a plugin (running its static registrations; a\n"
    "name without '/' is a file in the current directory) and listed:\n"
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
    "A program is parsed and verified (an error names FILE:LINE:COLUMN) and\n"
    "described without running it:\n"
    "  entry        each parameter and result (name, dtype and shape, the\n"
    "               sharding the program declares: jax.jit's in_shardings\n"
    "               and out_shardings)\n"
    "  devices      the number of devices (mhlo.num_partitions) and each\n"
    "               shard_map's mesh and manual axes\n"
    "  custom calls each call's target, FILE:LINE:COLUMN, api_version,\n"
    "               has_side_effect, attributes, frontend attributes (a\n"
    "               batch-partitionable call's num_batch_dims), and what\n"
    "               serves the target in this process on the platform\n"
    "               --platform names: a library (given with --plugin or as\n"
    "               a FILE before), a built-in, xffi's compiler, or\n"
    "               nothing (xffi run would refuse the program, with the\n"
    "               error given)\n"
    "  ops          how many of each op, over every computation\n"
    "\n"
    "  --plugin LIB  load the handler library LIB first, as xffi run does,\n"
    "                so the targets it registers resolve (it is not listed)\n"
    "  --compile     also compile each program for the host and give its\n"
    "                fusions (by kind, then each: its kind, ops, root and\n"
    "                results), its buffers (the arena, with and without\n"
    "                reuse), thunks and generated kernels; a compile error\n"
    "                exits 1\n"
    "  --json        print a JSON array instead, one object per FILE\n"
    "  --format F    auto (default), stablehlo or hlo: how to read programs\n"
    "  --platform P  host (default), cuda or sim: resolve the custom calls\n"
    "                as xffi run --platform P would (sim as cuda: both use\n"
    "                the handlers registered for CUDA); --compile needs host\n"
    "  -h, --help    show this text\n"
    "\n"
    "Examples:\n"
    "  xffi inspect build/release/examples/rms_norm/librms_norm.so\n"
    "  xffi inspect examples/programs/norm_block.mlir --compile \\\n"
    "      --plugin build/release/examples/rms_norm/librms_norm.so\n"
    "\n"
    "Exit status: 0 success, 1 a library failed to load or describe itself\n"
    "or a program could not be read, parsed, verified or compiled, 2 bad\n"
    "usage.\n";

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

void JsonTarget(JsonWriter& json, const TargetDescription& target,
                const std::vector<std::string>& other_stages) {
  json.BeginObject()
      .Key("platform")
      .String(PlatformName(target.platform))
      .Key("kind")
      .String(TargetKindName(target.kind))
      .Key("name")
      .String(target.name)
      .Key("api_version")
      .String(target.api_version);
  if (target.kind == TargetKind::kFfi) {
    json.Key("traits").String(RenderTraits(target.traits));
    json.Key("stages").BeginArray();
    for (const std::string& stage : target.stages) json.String(stage);
    json.EndArray();
  }
  json.Key("signature").String(target.signature);
  if (!other_stages.empty()) {
    json.Key("other_stage_signatures").BeginArray();
    for (const std::string& stage : other_stages) json.String(stage);
    json.EndArray();
  }
  json.EndObject();
}

int Inspect(const std::string& path, JsonWriter* json) {
  StatusOr<std::shared_ptr<const Plugin>> loaded =
      Plugin::Load(CommandLinePluginPath(path));
  if (!loaded.ok()) {
    std::fflush(stdout);
    std::fprintf(stderr, "xffi inspect: error: cannot load %s: %s\n",
                 path.c_str(), loaded.status().message().c_str());
    return kExitFailure;
  }
  const Plugin& plugin = **loaded;
  StatusOr<std::vector<TargetDescription>> exported =
      DescribeExportedHandlers(plugin);
  if (!exported.ok()) {
    std::fflush(stdout);
    std::fprintf(stderr, "xffi inspect: error: %s: %s\n", path.c_str(),
                 exported.status().message().c_str());
    return kExitFailure;
  }

  using Key = std::tuple<std::string, Platform, TargetKind>;
  std::map<Key, const HandlerRecord*> own;
  for (const HandlerRecord* record : plugin.RegisteredHandlers()) {
    own[{record->name, record->platform, TargetKind::kFfi}] = record;
  }
  for (const LegacyTargetRecord* record : plugin.RegisteredLegacyTargets()) {
    own[{record->name, record->platform, TargetKind::kLegacy}] = nullptr;
  }
  if (json != nullptr) {
    json->BeginObject().Key("library").String(path);
    json->Key("origin").String(plugin.origin());
    json->Key("registered").BeginArray();
  } else {
    std::printf("%s (%s)\n", path.c_str(), plugin.origin().c_str());
  }
  std::vector<std::string> registered;
  for (const TargetDescription& target : DescribeTargets()) {
    auto it = own.find({target.name, target.platform, target.kind});
    if (it == own.end()) continue;
    std::vector<std::string> stages;
    if (it->second != nullptr) stages = OtherStageSignatures(*it->second);
    if (json != nullptr) {
      JsonTarget(*json, target, stages);
      continue;
    }
    std::string text = Line(target);
    for (const std::string& stage : stages) text += "\n        " + stage;
    if (it->second != nullptr && it->second->state_type_id.type_id != 0) {
      text += "\n        state " + DescribeType(it->second->state_type_id) +
              ", made by the instantiate stage, one per call site";
    }
    registered.push_back(text);
  }
  if (json != nullptr) {
    json->EndArray().Key("exported").BeginArray();
    for (const TargetDescription& target : *exported)
      JsonTarget(*json, target, {});
    json->EndArray().EndObject();
    return kExitOk;
  }
  std::printf("  registered (%zu):\n", registered.size());
  for (const std::string& text : registered) {
    std::printf("    %s\n", text.c_str());
  }
  std::printf("  exported (%zu):\n", exported->size());
  for (const TargetDescription& target : *exported) {
    std::printf("    %s\n", Line(target).c_str());
  }
  return kExitOk;
}

// A shared library is inspected as one: an ELF file, or a name that says
// .so (so a missing or broken library is reported as a library that failed
// to load); anything else is a program.
bool IsLibrary(const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  if (name.size() > 3 && name.compare(name.size() - 3, 3, ".so") == 0)
    return true;
  if (name.find(".so.") != std::string::npos) return true;
  std::ifstream file(path, std::ios::binary);
  char magic[4] = {};
  return file.read(magic, sizeof magic) &&
         std::string_view(magic, sizeof magic) ==
             "\x7f"
             "ELF";
}

int Usage(const std::string& message) {
  std::fprintf(stderr, "xffi inspect: %s\n(see xffi inspect --help)\n",
               message.c_str());
  return kExitUsage;
}

}  // namespace

int InspectCommand(const std::vector<std::string>& args) {
  std::vector<std::string> files, plugins;
  InspectProgramOptions program_options;
  bool json = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i], value;
    if (arg == "-h" || arg == "--help") {
      std::fputs(kInspectHelp, stdout);
      return kExitOk;
    }
    const size_t equals = arg.find('=');
    const bool has_value =
        arg.rfind("--", 0) == 0 && equals != std::string::npos;
    if (has_value) {
      value = arg.substr(equals + 1);
      arg = arg.substr(0, equals);
    }
    if (arg == "--plugin" || arg == "--format" || arg == "--platform") {
      if (!has_value) {
        if (i + 1 >= args.size()) return Usage(arg + " needs a value");
        value = args[++i];
      }
      if (value.empty()) return Usage(arg + " needs a non-empty value");
      if (arg == "--plugin") {
        plugins.push_back(value);
      } else if (arg == "--platform") {
        if (value != "host" && value != "cuda" && value != "sim")
          return Usage("--platform expects host, cuda or sim, got '" + value +
                       "'");
        program_options.platform =
            value == "host" ? Platform::kHost : Platform::kCuda;
      } else if (std::optional<FormatChoice> format =
                     ParseFormatChoice(value)) {
        program_options.format = *format;
      } else {
        return Usage("--format expects auto, stablehlo or hlo, got '" + value +
                     "'");
      }
    } else if ((arg == "--compile" || arg == "--json") && !has_value) {
      (arg == "--json" ? json : program_options.compile) = true;
    } else if (arg.size() > 1 && arg[0] == '-') {
      return Usage("unknown option '" + args[i] + "'");
    } else {
      files.push_back(arg);
    }
  }
  if (files.empty()) return Usage("no FILE given");
  // What --compile reports (fusions, the arena, thunks) is the CPU
  // executor's.
  if (program_options.compile && program_options.platform != Platform::kHost)
    return Usage(
        "--compile describes the host's compilation; it cannot go "
        "with --platform cuda or sim");
  for (const std::string& path : plugins) {
    StatusOr<std::shared_ptr<const Plugin>> plugin =
        Plugin::Load(CommandLinePluginPath(path));
    if (!plugin.ok()) {
      std::fprintf(stderr,
                   "xffi inspect: error: --plugin %s: cannot load the "
                   "library: %s\n",
                   path.c_str(), plugin.status().message().c_str());
      return kExitFailure;
    }
  }
  JsonWriter writer;
  if (json) writer.BeginArray();
  int status = kExitOk;
  for (size_t i = 0; i < files.size(); ++i) {
    if (i > 0 && !json) std::printf("\n");
    JsonWriter* out = json ? &writer : nullptr;
    const int one = IsLibrary(files[i])
                        ? Inspect(files[i], out)
                        : InspectProgram(files[i], program_options, out);
    if (one != kExitOk) status = kExitFailure;
  }
  if (json) {
    writer.EndArray();
    std::printf("%s\n", writer.text().c_str());
  }
  return status;
}

}  // namespace xffi::cli
