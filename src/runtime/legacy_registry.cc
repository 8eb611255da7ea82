// The registry of legacy custom-call targets, and the C entry point that
// xffi's registration macros (custom_call_target.h) reach through a weak
// reference. This file must not include custom_call_target.h: its weak
// declaration would make the definition below weak too.
#include <dlfcn.h>

#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <utility>

#include "runtime/legacy_internal.h"
#include "xffi/runtime/legacy.h"
#include "xffi/runtime/registry.h"

namespace xffi {
namespace {

struct Registry {
  std::mutex mutex;
  // Keyed by (name, platform); records are never removed, so pointers to
  // them stay valid for the life of the process.
  std::map<std::pair<std::string, Platform>,
           std::unique_ptr<LegacyTargetRecord>>
      records;
};

Registry& GlobalRegistry() {
  static Registry* registry = new Registry();  // never destroyed: plugins
  return *registry;                            // may register at exit
}

thread_local internal::LegacyRegistrationScope* current_scope = nullptr;

std::string VersionText(Platform platform, LegacyApiVersion version) {
  if (version == LegacyApiVersion::kUnspecified) {
    return "an unspecified API version";
  }
  std::ostringstream text;
  text << "API version " << static_cast<int>(version) << " ("
       << LegacyApiVersionName(version) << ": "
       << LegacyCallingConvention(platform, version) << ")";
  return text.str();
}

}  // namespace

namespace internal {

LegacyRegistrationScope::LegacyRegistrationScope(std::string origin)
    : origin_(std::move(origin)), outer_(current_scope) {
  current_scope = this;
}

LegacyRegistrationScope::~LegacyRegistrationScope() { current_scope = outer_; }

LegacyRegistrationScope* LegacyRegistrationScope::Current() {
  return current_scope;
}

std::string DescribeAddress(const void* address) {
  std::ostringstream text;
  text << address;
  Dl_info info{};
  if (address != nullptr && dladdr(address, &info) != 0) {
    text << " (";
    if (info.dli_sname != nullptr) text << info.dli_sname << " in ";
    text << (info.dli_fname != nullptr ? info.dli_fname : "?") << ")";
  }
  return text.str();
}

}  // namespace internal

std::string_view LegacyApiVersionName(LegacyApiVersion version) {
  switch (version) {
    case LegacyApiVersion::kUnspecified:
      return "UNSPECIFIED";
    case LegacyApiVersion::kOriginal:
      return "ORIGINAL";
    case LegacyApiVersion::kStatusReturning:
      return "STATUS_RETURNING";
    case LegacyApiVersion::kStatusReturningUnified:
      return "STATUS_RETURNING_UNIFIED";
  }
  return "INVALID";
}

std::string_view LegacyCallingConvention(Platform platform,
                                         LegacyApiVersion version) {
  if (platform == Platform::kHost) {
    switch (version) {
      case LegacyApiVersion::kOriginal:
        return "void(void* out, const void** in)";
      case LegacyApiVersion::kStatusReturning:
        return "void(void* out, const void** in, XlaCustomCallStatus* status)";
      case LegacyApiVersion::kStatusReturningUnified:
        return "void(void* out, const void** in, const char* opaque, "
               "size_t opaque_len, XlaCustomCallStatus* status)";
      case LegacyApiVersion::kUnspecified:
        return "";
    }
  } else {
    switch (version) {
      case LegacyApiVersion::kOriginal:
        return "void(void* stream, void** buffers, const char* opaque, "
               "size_t opaque_len)";
      case LegacyApiVersion::kStatusReturning:
      case LegacyApiVersion::kStatusReturningUnified:
        return "void(void* stream, void** buffers, const char* opaque, "
               "size_t opaque_len, XlaCustomCallStatus* status)";
      case LegacyApiVersion::kUnspecified:
        return "";
    }
  }
  return "";
}

StatusOr<LegacyApiVersion> LegacyApiVersionFromArity(Platform platform,
                                                     int num_params) {
  if (num_params == 0) return LegacyApiVersion::kUnspecified;
  if (platform == Platform::kHost) {
    switch (num_params) {
      case 2:
        return LegacyApiVersion::kOriginal;
      case 3:
        return LegacyApiVersion::kStatusReturning;
      case 5:
        return LegacyApiVersion::kStatusReturningUnified;
    }
    return InvalidArgument(
        "a legacy Host custom-call target takes 2 parameters (API version "
        "1), 3 (version 2) or 5 (version 3); this one takes " +
        std::to_string(num_params));
  }
  switch (num_params) {
    case 4:
      return LegacyApiVersion::kOriginal;
    case 5:
      return LegacyApiVersion::kStatusReturning;
  }
  return InvalidArgument(
      "a legacy CUDA custom-call target takes 4 parameters (API version 1) "
      "or 5 (versions 2 and 3); this one takes " +
      std::to_string(num_params));
}

bool LegacyVersionsCompatible(Platform platform, LegacyApiVersion registered,
                              LegacyApiVersion call) {
  if (registered == LegacyApiVersion::kUnspecified ||
      call == LegacyApiVersion::kUnspecified || registered == call) {
    return true;
  }
  // On CUDA, versions 2 and 3 share one calling convention.
  return platform == Platform::kCuda &&
         registered != LegacyApiVersion::kOriginal &&
         call != LegacyApiVersion::kOriginal;
}

Status RegisterLegacyTarget(std::string_view name, void* function,
                            std::string_view platform_name,
                            LegacyApiVersion api_version) {
  if (name.empty()) {
    return InvalidArgument("a legacy custom-call target needs a name");
  }
  StatusOr<Platform> platform = ParsePlatform(platform_name);
  if (!platform.ok()) {
    return InvalidArgument("legacy custom-call target '" + std::string(name) +
                           "': " + platform.status().message());
  }
  if (function == nullptr) {
    return InvalidArgument("legacy custom-call target '" + std::string(name) +
                           "' (" + std::string(PlatformName(*platform)) +
                           ") has a null function");
  }
  int version_number = static_cast<int>(api_version);
  if (version_number < 0 || version_number > 3) {
    return InvalidArgument(
        "legacy custom-call target '" + std::string(name) +
        "' has API version " + std::to_string(version_number) +
        "; legacy targets have versions 1 to 3 (typed FFI handlers, version "
        "4, are registered with XLA_FFI_Handler_Register)");
  }

  Registry& registry = GlobalRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto key = std::make_pair(std::string(name), *platform);
  auto it = registry.records.find(key);
  if (it == registry.records.end()) {
    auto record = std::make_unique<LegacyTargetRecord>();
    record->name = std::string(name);
    record->platform = *platform;
    record->function = function;
    record->api_version = api_version;
    // The plugin loader's scope, else whatever origin the FFI registry is
    // attributing registrations to (a front end may open libraries itself).
    auto* scope = internal::LegacyRegistrationScope::Current();
    record->origin =
        scope != nullptr ? scope->origin() : CurrentRegistrationOrigin();
    registry.records.emplace(std::move(key), std::move(record));
    return Status::Ok();
  }

  LegacyTargetRecord& existing = *it->second;
  std::string prefix = "legacy custom-call target '" + std::string(name) +
                       "' is already registered for " +
                       std::string(PlatformName(*platform));
  if (existing.function != function) {
    return AlreadyExists(
        prefix + " with a different function: registered " +
        internal::DescribeAddress(existing.function) +
        (existing.origin.empty() ? "" : " from " + existing.origin) + ", new " +
        internal::DescribeAddress(function));
  }
  bool same_convention =
      api_version == LegacyApiVersion::kUnspecified ||
      existing.api_version == LegacyApiVersion::kUnspecified ||
      LegacyVersionsCompatible(*platform, existing.api_version, api_version);
  if (!same_convention) {
    return AlreadyExists(prefix + " as " +
                         VersionText(*platform, existing.api_version) +
                         "; it cannot be registered again as " +
                         VersionText(*platform, api_version));
  }
  if (existing.api_version == LegacyApiVersion::kUnspecified) {
    existing.api_version = api_version;
  }
  return Status::Ok();
}

StatusOr<const LegacyTargetRecord*> FindLegacyTarget(
    std::string_view name, std::string_view platform_name) {
  StatusOr<Platform> platform = ParsePlatform(platform_name);
  if (!platform.ok()) return platform.status();
  Registry& registry = GlobalRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto it = registry.records.find(std::make_pair(std::string(name), *platform));
  if (it != registry.records.end()) return it->second.get();

  std::string message = "no legacy custom-call target '" + std::string(name) +
                        "' is registered for " +
                        std::string(PlatformName(*platform));
  for (Platform other : {Platform::kHost, Platform::kCuda}) {
    if (other != *platform &&
        registry.records.count(std::make_pair(std::string(name), other))) {
      message +=
          " (it is registered for " + std::string(PlatformName(other)) + ")";
    }
  }
  return NotFound(std::move(message));
}

std::vector<const LegacyTargetRecord*> ListLegacyTargets(Platform platform) {
  Registry& registry = GlobalRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  std::vector<const LegacyTargetRecord*> records;
  for (const auto& [key, record] : registry.records) {
    if (key.second == platform) records.push_back(record.get());
  }
  return records;  // the map orders by name within a platform
}

}  // namespace xffi

// The entry point of XFFI_REGISTER_CUSTOM_CALL_TARGET and friends. Returns
// an XLA_FFI_Error_Code. A failure inside a plugin load is handed to the
// loader; anywhere else nobody could see a return value from a static
// initializer, so it is printed.
extern "C" __attribute__((visibility("default"))) int
XFFI_RegisterCustomCallTarget(const char* name, void* function,
                              const char* platform, int api_version,
                              int num_params) {
  using xffi::LegacyApiVersion;
  std::string target_name = name != nullptr ? name : "";
  xffi::Status status;
  xffi::StatusOr<xffi::Platform> parsed =
      xffi::ParsePlatform(platform != nullptr ? platform : "");
  LegacyApiVersion version = static_cast<LegacyApiVersion>(api_version);
  if (parsed.ok() && version == LegacyApiVersion::kUnspecified) {
    auto from_arity = xffi::LegacyApiVersionFromArity(*parsed, num_params);
    if (from_arity.ok()) {
      version = *from_arity;
    } else {
      status =
          xffi::InvalidArgument("legacy custom-call target '" + target_name +
                                "': " + from_arity.status().message());
    }
  }
  if (status.ok()) {
    status = xffi::RegisterLegacyTarget(
        target_name, function, platform != nullptr ? platform : "", version);
  }
  if (status.ok()) return XLA_FFI_Error_Code_OK;
  if (auto* scope = xffi::internal::LegacyRegistrationScope::Current()) {
    scope->AddError(status);
  } else {
    std::fprintf(stderr, "xffi: %s\n", status.ToString().c_str());
  }
  return status.code();
}
