#include "text/hlo/custom_call.h"

#include "xffi/program/text.h"

namespace xffi::hlo {
namespace {

constexpr std::string_view kApiVersionNames[] = {
    "API_VERSION_UNSPECIFIED", "API_VERSION_ORIGINAL",
    "API_VERSION_STATUS_RETURNING", "API_VERSION_STATUS_RETURNING_UNIFIED",
    "API_VERSION_TYPED_FFI"};

}  // namespace

std::string_view ApiVersionName(CustomCallApiVersion version) {
  size_t i = static_cast<size_t>(version);
  return i < std::size(kApiVersionNames) ? kApiVersionNames[i]
                                         : "API_VERSION_UNSPECIFIED";
}

std::optional<CustomCallApiVersion> ApiVersionFromName(std::string_view name) {
  for (size_t i = 0; i < std::size(kApiVersionNames); ++i)
    if (kApiVersionNames[i] == name)
      return static_cast<CustomCallApiVersion>(i);
  return std::nullopt;
}

std::string_view ScheduleName(CustomCallSchedule schedule) {
  switch (schedule) {
    case CustomCallSchedule::kLatest:
      return "SCHEDULE_LATEST";
    case CustomCallSchedule::kEarliest:
      return "SCHEDULE_EARLIEST";
    case CustomCallSchedule::kNone:
      break;
  }
  return "SCHEDULE_NONE";
}

Status FinishCustomCallConfig(Instruction& instruction, const Scanner& scanner,
                              TextPos at) {
  CustomCallConfig& config = instruction.custom_call;
  if (!config.operand_layouts.empty()) {
    for (Shape& layout : config.operand_layouts)
      if (layout.IsArray() && !layout.has_layout())
        layout.set_minor_to_major(layout.EffectiveMinorToMajor());
    for (const Shape* leaf : instruction.shape().Leaves()) {
      Shape result = *leaf;
      if (result.IsArray() && !result.has_layout())
        result.set_minor_to_major(result.EffectiveMinorToMajor());
      config.result_layouts.push_back(std::move(result));
    }
  }
  if (config.api_version == CustomCallApiVersion::kTypedFfi) {
    // "" and "{}" mean no attributes, as in XLA.
    if (!config.opaque.empty() && config.opaque != "{}") {
      StatusOr<FfiAttributes> attributes =
          ParseMlirAttributeDictionary(config.opaque, scanner.source_name());
      if (!attributes.ok())
        return scanner.ErrorAt(at, "backend_config of '" + instruction.name() +
                                       "': " + attributes.status().message());
      config.attributes = std::move(*attributes);
    }
    config.opaque.clear();
  }
  return Status::Ok();
}

std::string TypedFfiBackendConfig(const CustomCallConfig& config) {
  if (!config.attributes.empty())
    return PrintMlirAttributeDictionary(config.attributes);
  // A typed call built in C++ may carry its config as text; none is "{}".
  return config.opaque.empty() ? "{}" : config.opaque;
}

}  // namespace xffi::hlo
