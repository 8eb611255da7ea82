#include "cli/inspect_program.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "compiler/backend_util.h"
#include "cpu/executor.h"
#include "passes/approx_top_k_expansion.h"
#include "xffi/program/builtin_targets.h"
#include "xffi/program/executable.h"
#include "xffi/runtime/legacy.h"
#include "xffi/runtime/partitioning.h"

namespace xffi::cli {
namespace {

// One entry parameter or result.
struct Value {
  std::string name;  // a parameter's; "" for a result
  Shape shape;
  std::optional<HloSharding> sharding;
  Location location;
  // The caller's name for it: JAX's argument path (the parameter's
  // location name: StableHLO's loc("x"), HLO's op_name) or
  // jax.result_info; "" when the text gives none.
  std::string jax_name;
};

// What serves a custom call's target in this process.
struct Resolution {
  // "compiler" (xffi rewrites the call away), "builtin", "library" (a
  // plugin loaded by --plugin or otherwise), "static" (registered by code
  // linked into this process) or "unresolved".
  std::string kind;
  std::string kind_of_target;  // "ffi" or "legacy" when found
  std::string library;         // for "library"
  std::string detail;          // why unresolved, or what the compiler does
};

struct CustomCall {
  const Instruction* op = nullptr;
  std::string computation;
  Resolution resolution;
};

struct ProgramFacts {
  ProgramFormat format = ProgramFormat::kStableHlo;
  Platform platform = Platform::kHost;  // whose targets the calls resolve to
  std::vector<Value> parameters, results;
  std::vector<CustomCall> calls;
  std::map<std::string, int64_t> op_counts;
  int64_t op_total = 0;
  std::vector<const Instruction*> manual_computations;
  int64_t annotated_ops = 0;  // ops with a GSPMD sharding, parameters aside
};

std::string ApiVersionText(CustomCallApiVersion version) {
  if (version == CustomCallApiVersion::kTypedFfi) return "4 (typed FFI)";
  return std::to_string(static_cast<int>(version)) + " (" +
         std::string(LegacyApiVersionName(
             static_cast<LegacyApiVersion>(static_cast<int>(version)))) +
         ")";
}

// As the backend of `platform` resolves the call when it compiles the
// program (compiler::ResolveCustomCall), so "unresolved" is the error
// xffi run --platform would stop at.
Resolution Resolve(const Instruction& op, Platform platform) {
  const std::string& target = op.custom_call.target;
  if (IsGspmdMarker(target))
    return {"compiler", "", "",
            "a GSPMD sharding marker xffi's compiler reads"};
  if (target == passes::kApproxTopKTarget)
    return {"compiler", "", "",
            "expanded into a sort or reduce by the approx-top-k pass"};
  StatusOr<compiler::CustomCallTarget> found =
      compiler::ResolveCustomCall(op, platform);
  if (!found.ok()) {
    std::string detail = found.status().message();
    // The built-in LAPACK targets are CPU code: on a GPU JAX lowers
    // jnp.linalg to cuSOLVER targets instead.
    if (platform != Platform::kHost && IsBuiltinCpuTargetActive(target))
      detail += " (xffi's built-in target of that name runs on the host only)";
    return {"unresolved", "", "", detail};
  }
  if (found->handler != nullptr) {
    const HandlerRecord& record = *found->handler;
    if (platform == Platform::kHost && IsBuiltinCpuTargetActive(record.name))
      return {"builtin", "ffi", "", "xffi's built-in CPU target"};
    if (record.origin.empty()) return {"static", "ffi", "", ""};
    return {"library", "ffi", record.origin, ""};
  }
  const LegacyTargetRecord& record = *found->legacy;
  if (record.origin.empty()) return {"static", "legacy", "", ""};
  return {"library", "legacy", record.origin, ""};
}

// Results as the entry's root gives them: a tuple's elements, or the value;
// each with the sharding the program declares for it (jax.jit's
// out_shardings), else the one of the value returned (a Sharding marker's).
std::vector<Value> Results(const Computation& entry) {
  std::vector<Value> results;
  const Instruction* root = entry.root();
  if (root == nullptr) return results;
  const auto& declared = entry.result_shardings();
  auto sharding = [&](size_t i, const Instruction* value) {
    if (i < declared.size() && declared[i].has_value()) return declared[i];
    return value != nullptr ? value->sharding : std::nullopt;
  };
  const auto& names = entry.result_names();
  auto name = [&](size_t i) {
    return i < names.size() ? names[i] : std::string();
  };
  if (!root->shape().IsTuple()) {
    results.push_back(
        {"", root->shape(), sharding(0, root), root->location(), name(0)});
    return results;
  }
  for (int64_t i = 0; i < root->shape().tuple_size(); ++i) {
    const Instruction* element =
        root->opcode() == Opcode::kTuple ? root->operand(i) : nullptr;
    results.push_back({"", root->shape().tuple_shape(i),
                       sharding(static_cast<size_t>(i), element),
                       root->location(), name(static_cast<size_t>(i))});
  }
  return results;
}

ProgramFacts Gather(const Module& module, ProgramFormat format,
                    Platform platform) {
  ProgramFacts facts;
  facts.format = format;
  facts.platform = platform;
  const Computation& entry = *module.entry();
  for (const Instruction* parameter : entry.parameters())
    facts.parameters.push_back({parameter->name(), parameter->shape(),
                                parameter->sharding, parameter->location(),
                                parameter->location().name});
  facts.results = Results(entry);
  for (const auto& computation : module.computations()) {
    for (const auto& inst : computation->instructions()) {
      ++facts.op_total;
      // HLO's names, as the compiled counts and --dump-after use.
      ++facts.op_counts[std::string(OpcodeName(inst->opcode()))];
      if (inst->opcode() == Opcode::kManualComputation)
        facts.manual_computations.push_back(inst.get());
      if (inst->sharding.has_value() && inst->opcode() != Opcode::kParameter)
        ++facts.annotated_ops;
      if (inst->opcode() == Opcode::kCustomCall)
        facts.calls.push_back(
            {inst.get(), computation->name(), Resolve(*inst, platform)});
    }
  }
  return facts;
}

// Counts, most frequent first, then by name.
std::vector<std::pair<std::string, int64_t>> ByCount(
    const std::map<std::string, int64_t>& counts) {
  std::vector<std::pair<std::string, int64_t>> sorted(counts.begin(),
                                                      counts.end());
  std::stable_sort(
      sorted.begin(), sorted.end(),
      [](const auto& a, const auto& b) { return a.second > b.second; });
  return sorted;
}

// One fusion of the compiled program: what was fused, and what it returns
// (a fusion that returns several full-size values beside a reduction runs
// differently from one that returns the reduction alone).
struct FusionFacts {
  std::string name;
  std::string kind;         // "kLoop", "kInput", ...
  std::string computation;  // the one that runs it
  std::string root;         // the fused computation's root op
  std::vector<std::string> results;
  int64_t ops = 0;
};

// What compiling the program for the host gives.
struct CompiledFacts {
  int64_t ops = 0;
  std::map<std::string, int64_t> fusions;  // by kind ("kLoop", "kInput")
  int64_t fused_ops = 0;                   // inside the fusions
  std::vector<FusionFacts> fusion_list;    // in program order
  cpu::ExecutorStats stats;
};

FusionFacts DescribeFusion(const Computation& parent,
                           const Instruction& fusion) {
  const Computation& fused = *fusion.called_computations()[0];
  FusionFacts facts;
  facts.name = fusion.name();
  facts.kind = std::string(FusionKindName(fusion.fusion_kind));
  facts.computation = parent.name();
  facts.root = std::string(OpcodeName(fused.root()->opcode()));
  facts.ops = static_cast<int64_t>(fused.instructions().size());
  const Shape& shape = fusion.shape();
  if (shape.IsTuple()) {
    for (const Shape& part : shape.tuple_shapes())
      facts.results.push_back(part.ToString(false));
  } else {
    facts.results.push_back(shape.ToString(false));
  }
  return facts;
}

StatusOr<CompiledFacts> CompileFacts(const Module& module) {
  CompileOptions options;
  StatusOr<std::unique_ptr<Executable>> executable =
      Compile(module.Clone(), options);
  if (!executable.ok()) return executable.status();
  CompiledFacts facts;
  const Module& compiled = (*executable)->module();
  std::set<const Computation*> fused;
  for (const auto& computation : compiled.computations())
    for (const auto& inst : computation->instructions())
      if (inst->opcode() == Opcode::kFusion) {
        ++facts.fusions[std::string(FusionKindName(inst->fusion_kind))];
        fused.insert(inst->called_computations()[0]);
        facts.fusion_list.push_back(DescribeFusion(*computation, *inst));
      }
  for (const auto& computation : compiled.computations()) {
    const auto count = static_cast<int64_t>(computation->instructions().size());
    if (fused.count(computation.get()) > 0) {
      facts.fused_ops += count;
    } else {
      facts.ops += count;
    }
  }
  facts.stats = cpu::GetExecutorStats(**executable);
  return facts;
}

std::string FrontendAttributesText(
    const std::map<std::string, std::string>& attributes) {
  std::string text;
  for (const auto& [key, value] : attributes) {
    if (!text.empty()) text += ", ";
    text += key + "=\"" + value + "\"";
  }
  return text;
}

std::string ResolutionText(const Resolution& r) {
  if (r.kind == "compiler") return "handled by xffi: " + r.detail;
  if (r.kind == "builtin") return "resolves: " + r.detail;
  if (r.kind == "static")
    return "resolves: " + r.kind_of_target +
           " target registered in this "
           "process";
  if (r.kind == "library")
    return "resolves: " + r.kind_of_target + " target from " + r.library;
  return "does NOT resolve (xffi run would refuse the program at compile "
         "time): " +
         r.detail;
}

void PrintValue(const char* what, size_t index, const Value& value) {
  std::string name = value.name.empty() ? "" : " %" + value.name;
  if (!value.jax_name.empty()) name += " \"" + value.jax_name + "\"";
  std::printf("    %s %zu%s: %s", what, index, name.c_str(),
              value.shape.ToString(false).c_str());
  if (value.sharding.has_value())
    std::printf(", sharding %s", value.sharding->ToString().c_str());
  std::printf("\n");
}

void PrintText(const std::string& path, const Module& module,
               const ProgramFacts& facts, const CompiledFacts* compiled) {
  std::printf("%s: %s, module %s\n", path.c_str(),
              facts.format == ProgramFormat::kHlo ? "HLO" : "StableHLO",
              module.name().c_str());
  std::printf("  entry %s: %zu parameter(s), %zu result(s)\n",
              module.entry()->name().c_str(), facts.parameters.size(),
              facts.results.size());
  for (size_t i = 0; i < facts.parameters.size(); ++i)
    PrintValue("parameter", i, facts.parameters[i]);
  for (size_t i = 0; i < facts.results.size(); ++i)
    PrintValue("result", i, facts.results[i]);

  std::printf(
      "  devices: %s\n",
      module.num_partitions() > 0
          ? (std::to_string(module.num_partitions()) + " (num_partitions)")
                .c_str()
          : "not said (no num_partitions)");
  for (const Instruction* manual : facts.manual_computations) {
    const ManualComputationConfig& config = manual->manual_computation;
    std::printf("    shard_map at %s: mesh %s, manual axes %s\n",
                manual->location().ToString().c_str(),
                config.mesh.ToString().c_str(),
                AxisSetToString(config.manual_axes).c_str());
  }
  if (facts.annotated_ops > 0)
    std::printf("    %lld op(s) carry a sharding annotation\n",
                static_cast<long long>(facts.annotated_ops));

  std::printf("  custom calls (%zu), as the %s platform resolves them:\n",
              facts.calls.size(),
              std::string(PlatformName(facts.platform)).c_str());
  for (const CustomCall& call : facts.calls) {
    const Instruction& op = *call.op;
    const CustomCallConfig& config = op.custom_call;
    std::printf("    %s at %s in %s\n", config.target.c_str(),
                op.location().ToString().c_str(), call.computation.c_str());
    std::printf("        api_version %s, %s\n",
                ApiVersionText(config.api_version).c_str(),
                config.has_side_effect ? "has_side_effect" : "no side effect");
    if (!config.attributes.empty())
      std::printf("        attributes %s\n",
                  PrintMlirAttributeDictionary(config.attributes).c_str());
    else if (!config.opaque.empty())
      std::printf("        opaque \"%s\"\n", config.opaque.c_str());
    if (!op.frontend_attributes.empty())
      std::printf("        frontend attributes %s\n",
                  FrontendAttributesText(op.frontend_attributes).c_str());
    if (IsBatchPartitionable(config.target))
      std::printf("        registered batch partitionable\n");
    std::printf("        %s\n", ResolutionText(call.resolution).c_str());
  }

  std::printf("  ops: %lld in %zu computation(s):",
              static_cast<long long>(facts.op_total),
              module.computations().size());
  for (const auto& [name, count] : ByCount(facts.op_counts))
    std::printf(" %s %lld", name.c_str(), static_cast<long long>(count));
  std::printf("\n");

  if (compiled == nullptr) return;
  std::printf("  compiled for the host: %lld op(s)",
              static_cast<long long>(compiled->ops));
  int64_t fusions = 0;
  for (const auto& [kind, count] : compiled->fusions) fusions += count;
  std::printf(", %lld fusion(s)", static_cast<long long>(fusions));
  if (fusions > 0) {
    std::printf(" (");
    bool first = true;
    for (const auto& [kind, count] : compiled->fusions) {
      std::printf("%s%s %lld", first ? "" : ", ", kind.c_str(),
                  static_cast<long long>(count));
      first = false;
    }
    std::printf(") holding %lld op(s)",
                static_cast<long long>(compiled->fused_ops));
  }
  std::printf("\n");
  const cpu::ExecutorStats& stats = compiled->stats;
  std::printf(
      "    buffers: %s arena over %lld computation(s), %s without reuse; "
      "%lld thunk(s); %lld generated kernel(s)\n",
      Bytes(stats.arena_bytes).c_str(),
      static_cast<long long>(stats.computations),
      Bytes(stats.unshared_arena_bytes).c_str(),
      static_cast<long long>(stats.thunks),
      static_cast<long long>(stats.generated_kernels));
  for (const FusionFacts& fusion : compiled->fusion_list) {
    std::string results;
    for (const std::string& result : fusion.results)
      results += (results.empty() ? "" : ", ") + result;
    std::printf("    fusion %s (%s, in %s): %lld op(s), root %s, returns %s\n",
                fusion.name.c_str(), fusion.kind.c_str(),
                fusion.computation.c_str(), static_cast<long long>(fusion.ops),
                fusion.root.c_str(), results.c_str());
  }
}

void JsonLocation(JsonWriter& json, const Location& location) {
  json.Key("location");
  if (location.line <= 0) {
    json.Null();
    return;
  }
  json.BeginObject()
      .Key("file")
      .String(location.file)
      .Key("line")
      .Int(location.line)
      .Key("column")
      .Int(location.column)
      .EndObject();
}

void JsonValue(JsonWriter& json, const Value& value) {
  json.BeginObject();
  if (!value.name.empty()) json.Key("name").String(value.name);
  if (!value.jax_name.empty()) json.Key("jax_name").String(value.jax_name);
  json.Key("shape").String(value.shape.ToString(false));
  json.Key("dtype");
  if (value.shape.IsArray()) {
    json.String(ElementTypeName(value.shape.element_type()));
    json.Key("dims").BeginArray();
    for (int64_t d : value.shape.dims()) json.Int(d);
    json.EndArray();
  } else {
    json.Null();
  }
  json.Key("sharding");
  if (value.sharding.has_value()) {
    json.String(value.sharding->ToString());
  } else {
    json.Null();
  }
  if (!value.name.empty()) JsonLocation(json, value.location);
  json.EndObject();
}

void PrintJson(JsonWriter& json, const std::string& path, const Module& module,
               const ProgramFacts& facts, const CompiledFacts* compiled,
               const std::string& compile_error) {
  json.BeginObject();
  json.Key("program").String(path);
  json.Key("format").String(facts.format == ProgramFormat::kHlo ? "hlo"
                                                                : "stablehlo");
  json.Key("module").String(module.name());
  json.Key("entry").String(module.entry()->name());
  json.Key("platform").String(std::string(PlatformName(facts.platform)));
  json.Key("parameters").BeginArray();
  for (const Value& value : facts.parameters) JsonValue(json, value);
  json.EndArray();
  json.Key("results").BeginArray();
  for (const Value& value : facts.results) JsonValue(json, value);
  json.EndArray();
  json.Key("num_partitions").Int(module.num_partitions());
  json.Key("manual_computations").BeginArray();
  for (const Instruction* manual : facts.manual_computations) {
    const ManualComputationConfig& config = manual->manual_computation;
    json.BeginObject().Key("mesh").String(config.mesh.ToString());
    json.Key("manual_axes").BeginArray();
    for (const std::string& axis : config.manual_axes) json.String(axis);
    json.EndArray();
    JsonLocation(json, manual->location());
    json.EndObject();
  }
  json.EndArray();
  json.Key("annotated_ops").Int(facts.annotated_ops);
  json.Key("custom_calls").BeginArray();
  for (const CustomCall& call : facts.calls) {
    const Instruction& op = *call.op;
    const CustomCallConfig& config = op.custom_call;
    json.BeginObject();
    json.Key("target").String(config.target);
    json.Key("computation").String(call.computation);
    JsonLocation(json, op.location());
    json.Key("api_version").Int(static_cast<int>(config.api_version));
    json.Key("has_side_effect").Bool(config.has_side_effect);
    json.Key("attributes");
    if (config.attributes.empty()) {
      json.Null();
    } else {
      json.String(PrintMlirAttributeDictionary(config.attributes));
    }
    if (!config.opaque.empty()) json.Key("opaque").String(config.opaque);
    json.Key("frontend_attributes").BeginObject();
    for (const auto& [key, value] : op.frontend_attributes)
      json.Key(key).String(value);
    json.EndObject();
    json.Key("batch_partitionable").Bool(IsBatchPartitionable(config.target));
    const Resolution& r = call.resolution;
    json.Key("resolution").String(r.kind);
    if (!r.kind_of_target.empty()) json.Key("kind").String(r.kind_of_target);
    if (!r.library.empty()) json.Key("library").String(r.library);
    if (!r.detail.empty()) json.Key("detail").String(r.detail);
    json.EndObject();
  }
  json.EndArray();
  json.Key("ops").BeginObject();
  json.Key("total").Int(facts.op_total);
  json.Key("computations")
      .Int(static_cast<int64_t>(module.computations().size()));
  json.Key("by_opcode").BeginObject();
  for (const auto& [name, count] : ByCount(facts.op_counts))
    json.Key(name).Int(count);
  json.EndObject().EndObject();
  if (compiled != nullptr) {
    json.Key("compiled").BeginObject();
    json.Key("ops").Int(compiled->ops);
    json.Key("fusions").BeginObject();
    for (const auto& [kind, count] : compiled->fusions)
      json.Key(kind).Int(count);
    json.EndObject();
    json.Key("fused_ops").Int(compiled->fused_ops);
    json.Key("fusion_list").BeginArray();
    for (const FusionFacts& fusion : compiled->fusion_list) {
      json.BeginObject()
          .Key("name")
          .String(fusion.name)
          .Key("kind")
          .String(fusion.kind)
          .Key("computation")
          .String(fusion.computation)
          .Key("root")
          .String(fusion.root)
          .Key("ops")
          .Int(fusion.ops);
      json.Key("results").BeginArray();
      for (const std::string& result : fusion.results) json.String(result);
      json.EndArray().EndObject();
    }
    json.EndArray();
    const cpu::ExecutorStats& stats = compiled->stats;
    json.Key("arena_bytes").Int(static_cast<int64_t>(stats.arena_bytes));
    json.Key("unshared_arena_bytes")
        .Int(static_cast<int64_t>(stats.unshared_arena_bytes));
    json.Key("buffer_computations").Int(stats.computations);
    json.Key("thunks").Int(stats.thunks);
    json.Key("generated_kernels").Int(stats.generated_kernels);
    json.EndObject();
  }
  if (!compile_error.empty()) json.Key("compile_error").String(compile_error);
  json.EndObject();
}

int Fail(const std::string& message) {
  std::fflush(stdout);
  std::fprintf(stderr, "xffi inspect: error: %s\n", message.c_str());
  return kExitFailure;
}

// A shape-polymorphic program has no sizes to describe before it is
// refined (xffi run refines it from its inputs): its signature is what
// there is to show.
int InspectPolymorphic(const std::string& path, const Module& module,
                       ProgramFormat format, JsonWriter* json) {
  std::vector<Shape> parameters;
  std::vector<std::string> parameter_names;
  for (const Instruction* p : module.entry()->parameters()) {
    parameters.push_back(p->shape());
    parameter_names.push_back(p->location().name);
  }
  const Shape& root = module.entry()->root()->shape();
  std::vector<Shape> results =
      root.IsTuple() ? root.tuple_shapes() : std::vector<Shape>{root};
  std::vector<std::string> result_names = module.entry()->result_names();
  result_names.resize(results.size());
  auto shown = [](const std::string& jax_name) {
    return jax_name.empty() ? std::string() : " \"" + jax_name + "\"";
  };
  auto json_value = [&](const Shape& shape, const std::string& jax_name) {
    json->BeginObject();
    if (!jax_name.empty()) json->Key("jax_name").String(jax_name);
    json->Key("shape").String(shape.ToString(false)).EndObject();
  };
  if (json != nullptr) {
    json->BeginObject();
    json->Key("program").String(path);
    json->Key("format").String(format == ProgramFormat::kHlo ? "hlo"
                                                             : "stablehlo");
    json->Key("module").String(module.name());
    json->Key("entry").String(module.entry()->name());
    json->Key("shape_polymorphic").Bool(true);
    json->Key("parameters").BeginArray();
    for (size_t i = 0; i < parameters.size(); ++i)
      json_value(parameters[i], parameter_names[i]);
    json->EndArray();
    json->Key("results").BeginArray();
    for (size_t i = 0; i < results.size(); ++i)
      json_value(results[i], result_names[i]);
    json->EndArray();
    json->EndObject();
    return kExitOk;
  }
  std::printf("%s: %s, module %s\n", path.c_str(),
              format == ProgramFormat::kHlo ? "HLO" : "StableHLO",
              module.name().c_str());
  std::printf("  entry %s: %zu parameter(s), %zu result(s)\n",
              module.entry()->name().c_str(), parameters.size(),
              results.size());
  for (size_t i = 0; i < parameters.size(); ++i)
    std::printf("    parameter %zu%s: %s\n", i,
                shown(parameter_names[i]).c_str(),
                parameters[i].ToString(false).c_str());
  for (size_t i = 0; i < results.size(); ++i)
    std::printf("    result %zu%s: %s\n", i, shown(result_names[i]).c_str(),
                results[i].ToString(false).c_str());
  std::printf(
      "  shape-polymorphic: each ? takes its size from the arguments when "
      "the program runs (xffi run PROGRAM INPUTS... refines it from the "
      "inputs' shapes)\n");
  return kExitOk;
}

}  // namespace

int InspectProgram(const std::string& path,
                   const InspectProgramOptions& options, JsonWriter* json) {
  StatusOr<std::string> text = ReadProgram(path);
  if (!text.ok()) return Fail(text.status().message());
  ProgramFormat format = ProgramFormat::kStableHlo;
  StatusOr<Module> module =
      ParseProgramText(*text, path, options.format, &format);
  if (!module.ok()) return Fail(module.status().message());
  if (IsShapePolymorphic(*module))
    return InspectPolymorphic(path, *module, format, json);
  if (Status verified = VerifyModule(*module); !verified.ok())
    return Fail(verified.message());
  // Built-in targets resolve as they do once Compile has run.
  if (Status builtins = RegisterBuiltinCpuTargets(); !builtins.ok())
    return Fail(builtins.message());
  const ProgramFacts facts = Gather(*module, format, options.platform);
  // A program that does not compile is still described, then the error
  // given: what it holds is what one needs to see why.
  std::optional<CompiledFacts> compiled;
  std::string compile_error;
  if (options.compile) {
    StatusOr<CompiledFacts> made = CompileFacts(*module);
    if (made.ok()) {
      compiled = std::move(*made);
    } else {
      compile_error = made.status().message();
    }
  }
  const CompiledFacts* compiled_facts =
      compiled.has_value() ? &*compiled : nullptr;
  if (json != nullptr) {
    PrintJson(*json, path, *module, facts, compiled_facts, compile_error);
  } else {
    PrintText(path, *module, facts, compiled_facts);
  }
  if (!compile_error.empty())
    return Fail(path + ": does not compile: " + compile_error);
  return kExitOk;
}

}  // namespace xffi::cli
