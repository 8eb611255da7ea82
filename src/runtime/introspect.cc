// Describing registered targets, and rendering xffi signatures.
#include "xffi/runtime/introspect.h"

#include <algorithm>
#include <sstream>

#include "xffi/ffi/types.h"
#include "xffi/runtime/context.h"
#include "xffi/runtime/registry.h"

namespace xffi {
namespace {

// Signatures read like calls: "execute(...)", so the stage is lower case.
std::string StageName(XLA_FFI_ExecutionStage stage) {
  std::string name = ExecutionStageName(static_cast<int>(stage));
  for (char& c : name) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return name;
}

// The parameter's type as written, or one reconstructed from dtype and rank
// when the handler left type_name out.
std::string TypeOf(const XFFI_Param& param) {
  if (param.type_name != nullptr && param.type_name[0] != '\0') {
    return param.type_name;
  }
  switch (param.kind) {
    case XFFI_Param_ARG:
    case XFFI_Param_RET:
    case XFFI_Param_OPTIONAL_ARG:
    case XFFI_Param_OPTIONAL_RET:
      if (param.dtype == XLA_FFI_DataType_INVALID) return "AnyBuffer";
      if (param.rank < 0) {
        return std::string("Buffer<") + ffi::DataTypeName(param.dtype) + ">";
      }
      return std::string("Buffer<") + ffi::DataTypeName(param.dtype) + ", " +
             std::to_string(param.rank) + ">";
    case XFFI_Param_REMAINING_ARGS:
      return "RemainingArgs";
    case XFFI_Param_REMAINING_RETS:
      return "RemainingRets";
    default:
      return "?";
  }
}

void Join(std::ostringstream& out, const std::vector<std::string>& parts) {
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out << ", ";
    out << parts[i];
  }
}

TargetDescription DescribeFfi(const HandlerRecord& record) {
  TargetDescription target;
  target.name = record.name;
  target.platform = record.platform;
  target.kind = TargetKind::kFfi;
  target.api_major = record.api_major;
  target.api_minor = record.api_minor;
  target.api_version =
      std::to_string(record.api_major) + "." + std::to_string(record.api_minor);
  target.traits = record.traits;
  const XLA_FFI_Handler_Bundle& bundle = record.bundle;
  const std::pair<XLA_FFI_Handler*, const char*> stages[] = {
      {bundle.instantiate, "instantiate"},
      {bundle.prepare, "prepare"},
      {bundle.initialize, "initialize"},
      {bundle.execute, "execute"},
      {bundle.record, "record"}};
  for (const auto& [handler, name] : stages) {
    if (handler != nullptr) target.stages.push_back(name);
  }
  if (record.signature != nullptr) {
    target.signature = RenderSignature(*record.signature);
  }
  target.origin = record.origin;
  return target;
}

TargetDescription DescribeLegacy(const LegacyTargetRecord& record) {
  TargetDescription target;
  target.name = record.name;
  target.platform = record.platform;
  target.kind = TargetKind::kLegacy;
  target.legacy_api_version = record.api_version;
  if (record.api_version == LegacyApiVersion::kUnspecified) {
    target.api_version = "unspecified";
  } else {
    target.api_version =
        std::to_string(static_cast<int>(record.api_version)) + " (" +
        std::string(LegacyApiVersionName(record.api_version)) + ")";
  }
  target.signature =
      std::string(LegacyCallingConvention(record.platform, record.api_version));
  target.origin = record.origin;
  return target;
}

}  // namespace

std::string_view TargetKindName(TargetKind kind) {
  return kind == TargetKind::kFfi ? "ffi" : "legacy";
}

std::string RenderTraits(XLA_FFI_Handler_Traits traits) {
  if (traits == 0) return "none";
  std::string text;
  if (traits & XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE) {
    text = "COMMAND_BUFFER_COMPATIBLE";
  }
  XLA_FFI_Handler_Traits unknown =
      traits & ~static_cast<XLA_FFI_Handler_Traits>(
                   XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE);
  if (unknown != 0) {
    std::ostringstream hex;
    hex << "0x" << std::hex << unknown;
    text += (text.empty() ? "" : "|") + hex.str();
  }
  return text;
}

std::string RenderSignature(const XFFI_Signature& signature) {
  std::vector<std::string> params, results;
  int64_t arg_index = 0;
  for (int64_t i = 0; signature.params != nullptr && i < signature.num_params;
       ++i) {
    const XFFI_Param& param = signature.params[i];
    std::string type = TypeOf(param);
    std::string name = param.name != nullptr ? param.name : "";
    switch (param.kind) {
      case XFFI_Param_ARG:
        params.push_back(type + " arg" + std::to_string(arg_index++));
        break;
      case XFFI_Param_OPTIONAL_ARG:
        params.push_back("Optional<" + type + "> arg" +
                         std::to_string(arg_index++));
        break;
      case XFFI_Param_REMAINING_ARGS:
        params.push_back(type + " args...");
        break;
      case XFFI_Param_RET:
        results.push_back(type);
        break;
      case XFFI_Param_OPTIONAL_RET:
        results.push_back("Optional<" + type + ">");
        break;
      case XFFI_Param_REMAINING_RETS:
        results.push_back(type + "...");
        break;
      case XFFI_Param_ATTR:
        params.push_back("Attr<" + type + "> " + name);
        break;
      case XFFI_Param_ATTRS:
        params.push_back("Attrs<" + type + ">");
        break;
      case XFFI_Param_CTX:
        params.push_back("Ctx<" + type + ">");
        break;
      default:
        params.push_back("?" + std::to_string(static_cast<int>(param.kind)));
        break;
    }
  }
  std::ostringstream out;
  out << StageName(signature.stage) << "(";
  Join(out, params);
  out << ") -> (";
  Join(out, results);
  out << ")";
  return out.str();
}

std::vector<TargetDescription> DescribeTargets(Platform platform) {
  std::vector<TargetDescription> targets;
  for (const HandlerRecord* record : ListHandlers(platform)) {
    targets.push_back(DescribeFfi(*record));
  }
  for (const LegacyTargetRecord* record : ListLegacyTargets(platform)) {
    targets.push_back(DescribeLegacy(*record));
  }
  std::stable_sort(targets.begin(), targets.end(),
                   [](const TargetDescription& a, const TargetDescription& b) {
                     if (a.name != b.name) return a.name < b.name;
                     return a.kind == TargetKind::kFfi &&
                            b.kind == TargetKind::kLegacy;
                   });
  return targets;
}

std::vector<TargetDescription> DescribeTargets() {
  std::vector<TargetDescription> targets = DescribeTargets(Platform::kHost);
  std::vector<TargetDescription> cuda = DescribeTargets(Platform::kCuda);
  targets.insert(targets.end(), cuda.begin(), cuda.end());
  return targets;
}

StatusOr<std::vector<TargetDescription>> DescribeExportedHandlers(
    const Plugin& plugin) {
  StatusOr<std::vector<ExportedHandler>> exported = plugin.ExportedHandlers();
  if (!exported.ok()) return exported.status();
  std::vector<TargetDescription> targets;
  for (const ExportedHandler& handler : *exported) {
    XLA_FFI_Handler_Bundle bundle{};
    bundle.execute = handler.handler;
    StatusOr<HandlerRecord> record = DescribeHandler(handler.name, bundle);
    if (!record.ok()) {
      return Status(record.status().code(),
                    "handler '" + handler.name + "' exported by '" +
                        plugin.path() + "': " + record.status().message());
    }
    record->origin = plugin.origin();
    targets.push_back(DescribeFfi(*record));
  }
  return targets;
}

std::string FormatTarget(const TargetDescription& target) {
  std::ostringstream line;
  line << PlatformName(target.platform) << " " << TargetKindName(target.kind)
       << " " << target.name << " [api " << target.api_version;
  if (target.kind == TargetKind::kFfi) {
    line << ", traits " << RenderTraits(target.traits) << ", stages ";
    for (size_t i = 0; i < target.stages.size(); ++i) {
      line << (i > 0 ? "+" : "") << target.stages[i];
    }
  }
  line << "] ";
  if (!target.signature.empty()) {
    line << target.signature;
  } else {
    line << (target.kind == TargetKind::kFfi ? "(signature not described)"
                                             : "(calling convention set by "
                                               "the call site)");
  }
  if (!target.origin.empty()) line << " from " << target.origin;
  return line.str();
}

std::vector<std::string> DescribeTargetsText(Platform platform) {
  std::vector<std::string> lines;
  for (const TargetDescription& target : DescribeTargets(platform)) {
    lines.push_back(FormatTarget(target));
  }
  return lines;
}

}  // namespace xffi
