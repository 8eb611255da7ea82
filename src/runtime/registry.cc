// The handler registry, the metadata handshake and the Handler_Register
// entry point.
#include "xffi/runtime/registry.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "runtime/api_internal.h"
#include "xffi/runtime/api.h"

namespace xffi {
namespace {

thread_local std::string current_origin;

struct HandlerRegistry {
  std::mutex mutex;
  std::map<std::pair<std::string, Platform>, std::unique_ptr<HandlerRecord>,
           std::less<>>
      records;
  // Records ReplaceHandler displaced: executables may still point at them.
  std::vector<std::unique_ptr<HandlerRecord>> replaced;
};

HandlerRegistry& Registry() {
  static auto* registry = new HandlerRegistry;  // never destroyed: used at exit
  return *registry;
}

std::string Describe(std::string_view name, std::string_view platform) {
  return "handler '" + std::string(name) + "' (platform " +
         std::string(platform) + ")";
}

std::string DescribeOrigin(const std::string& origin) {
  return origin.empty() ? "a static registration" : "library '" + origin + "'";
}

// What a handler answered to one metadata query.
struct Answer {
  XLA_FFI_Metadata metadata{};
  const XFFI_Signature* signature = nullptr;
};

// Calls `handler` the way XLA's registry does: a frame whose extension
// chain starts with the Metadata extension, with our API table, stage
// EXECUTE and no arguments, results or attributes. xffi's signature
// extension follows the metadata one.
StatusOr<Answer> QueryMetadata(const std::string& who, const char* which,
                               XLA_FFI_Handler* handler) {
  Answer answer;
  answer.metadata.struct_size = XLA_FFI_Metadata_STRUCT_SIZE;
  answer.metadata.api_version.struct_size = XLA_FFI_Api_Version_STRUCT_SIZE;
  // A handler that answers overwrites these; -1 reveals one that did not.
  answer.metadata.api_version.major_version = -1;
  answer.metadata.api_version.minor_version = -1;

  XFFI_Signature_Extension signature{};
  signature.extension_base.struct_size = XFFI_Signature_Extension_STRUCT_SIZE;
  signature.extension_base.type = XFFI_EXTENSION_SIGNATURE;
  XLA_FFI_Metadata_Extension extension{};
  extension.extension_base.struct_size = XLA_FFI_Metadata_Extension_STRUCT_SIZE;
  extension.extension_base.type = XLA_FFI_Extension_Metadata;
  extension.extension_base.next = &signature.extension_base;
  extension.metadata = &answer.metadata;

  XLA_FFI_CallFrame frame{};
  frame.struct_size = XLA_FFI_CallFrame_STRUCT_SIZE;
  frame.extension_start = &extension.extension_base;
  frame.api = GetApi();
  frame.ctx = nullptr;
  frame.stage = XLA_FFI_ExecutionStage_EXECUTE;
  frame.args.struct_size = XLA_FFI_Args_STRUCT_SIZE;
  frame.rets.struct_size = XLA_FFI_Rets_STRUCT_SIZE;
  frame.attrs.struct_size = XLA_FFI_Attrs_STRUCT_SIZE;

  XLA_FFI_Error* error = nullptr;
  try {
    error = handler(&frame);
  } catch (const std::exception& e) {
    return Internal(who + ": the " + which +
                    " handler threw a C++ exception during the metadata "
                    "query: " +
                    e.what());
  } catch (...) {
    return Internal(who + ": the " + which +
                    " handler threw a C++ exception during the metadata query");
  }
  if (error != nullptr) {
    Status status = internal::TakeError(GetApi(), error);
    return Status(status.code(), who + ": the " + which +
                                     " handler failed the metadata query: " +
                                     status.message());
  }
  if (answer.metadata.api_version.major_version == -1 &&
      answer.metadata.api_version.minor_version == -1) {
    return InvalidArgument(
        who + ": the " + which +
        " handler returned without answering the metadata query (it wrote no "
        "API version); is it a typed FFI handler built with an XLA FFI or "
        "xffi header?");
  }
  answer.signature = signature.signature;
  return answer;
}

StatusOr<HandlerRecord> Handshake(std::string_view name, Platform platform,
                                  const XLA_FFI_Handler_Bundle& bundle,
                                  XLA_FFI_Handler_Traits traits) {
  const std::string who = Describe(name, PlatformName(platform));
  if (bundle.execute == nullptr) {
    return InvalidArgument(who +
                           ": the bundle has no execute handler (required)");
  }
  StatusOr<Answer> execute = QueryMetadata(who, "execute", bundle.execute);
  if (!execute.ok()) return execute.status();
  const XLA_FFI_Api_Version& version = execute->metadata.api_version;
  if (version.major_version != XLA_FFI_API_MAJOR ||
      version.minor_version < XFFI_API_MINOR_OLDEST ||
      version.minor_version > XLA_FFI_API_MINOR) {
    return InvalidArgument(who + " was built for XLA FFI API " +
                           std::to_string(version.major_version) + "." +
                           std::to_string(version.minor_version) +
                           "; this runtime supports " +
                           std::to_string(XLA_FFI_API_MAJOR) + "." +
                           std::to_string(XFFI_API_MINOR_OLDEST) + " to " +
                           std::to_string(XLA_FFI_API_MAJOR) + "." +
                           std::to_string(XLA_FFI_API_MINOR));
  }
  HandlerRecord record;
  record.name = std::string(name);
  record.platform = platform;
  record.bundle = bundle;
  record.traits = execute->metadata.traits | traits;
  record.api_major = version.major_version;
  record.api_minor = version.minor_version;
  record.signature = execute->signature;
  record.origin = CurrentRegistrationOrigin();
  // Before 0.2 the metadata had no state type; only read what was written.
  record.state_type_id = execute->metadata.state_type_id;
  if (bundle.instantiate != nullptr) {
    StatusOr<Answer> instantiate =
        QueryMetadata(who, "instantiate", bundle.instantiate);
    if (!instantiate.ok()) return instantiate.status();
    record.state_type_id = instantiate->metadata.state_type_id;
  }
  return record;
}

bool SameBundle(const XLA_FFI_Handler_Bundle& a,
                const XLA_FFI_Handler_Bundle& b) {
  return a.instantiate == b.instantiate && a.prepare == b.prepare &&
         a.initialize == b.initialize && a.execute == b.execute &&
         a.record == b.record;
}

std::string DifferenceOf(const HandlerRecord& a, const HandlerRecord& b) {
  std::string what;
  auto add = [&what](const std::string& s) {
    what += what.empty() ? s : ", " + s;
  };
  if (!SameBundle(a.bundle, b.bundle)) add("a different handler bundle");
  if (a.traits != b.traits) {
    add("traits " + std::to_string(b.traits) + " instead of " +
        std::to_string(a.traits));
  }
  if (a.api_minor != b.api_minor || a.api_major != b.api_major) {
    add("API version " + std::to_string(b.api_major) + "." +
        std::to_string(b.api_minor) + " instead of " +
        std::to_string(a.api_major) + "." + std::to_string(a.api_minor));
  }
  if (a.state_type_id.type_id != b.state_type_id.type_id) {
    add("state type id " + std::to_string(b.state_type_id.type_id) +
        " instead of " + std::to_string(a.state_type_id.type_id));
  }
  return what;
}

}  // namespace

ScopedRegistrationOrigin::ScopedRegistrationOrigin(std::string origin)
    : previous_(std::exchange(current_origin, std::move(origin))) {}

ScopedRegistrationOrigin::~ScopedRegistrationOrigin() {
  current_origin = std::move(previous_);
}

const std::string& CurrentRegistrationOrigin() { return current_origin; }

namespace {

Status Register(std::string_view name, std::string_view platform,
                const XLA_FFI_Handler_Bundle& bundle,
                XLA_FFI_Handler_Traits traits, bool replace) {
  if (name.empty()) {
    return InvalidArgument("a handler needs a non-empty name (platform " +
                           std::string(platform) + ")");
  }
  StatusOr<Platform> parsed = ParsePlatform(platform);
  if (!parsed.ok()) {
    return InvalidArgument("handler '" + std::string(name) +
                           "': " + parsed.status().message());
  }
  StatusOr<HandlerRecord> record = Handshake(name, *parsed, bundle, traits);
  if (!record.ok()) return record.status();

  HandlerRegistry& registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto key = std::make_pair(std::string(name), *parsed);
  auto it = registry.records.find(key);
  if (it == registry.records.end()) {
    registry.records.emplace(
        std::move(key), std::make_unique<HandlerRecord>(std::move(*record)));
    return Status::Ok();
  }
  const HandlerRecord& existing = *it->second;
  std::string difference = DifferenceOf(existing, *record);
  if (difference.empty()) return Status::Ok();  // identical: a no-op
  if (replace) {
    registry.replaced.push_back(std::exchange(
        it->second, std::make_unique<HandlerRecord>(std::move(*record))));
    return Status::Ok();
  }
  return AlreadyExists(
      Describe(name, PlatformName(*parsed)) + " is already registered by " +
      DescribeOrigin(existing.origin) + "; the registration by " +
      DescribeOrigin(record->origin) + " has " + difference);
}

}  // namespace

Status RegisterHandler(std::string_view name, std::string_view platform,
                       const XLA_FFI_Handler_Bundle& bundle,
                       XLA_FFI_Handler_Traits traits) {
  return Register(name, platform, bundle, traits, /*replace=*/false);
}

Status ReplaceHandler(std::string_view name, std::string_view platform,
                      const XLA_FFI_Handler_Bundle& bundle,
                      XLA_FFI_Handler_Traits traits) {
  return Register(name, platform, bundle, traits, /*replace=*/true);
}

StatusOr<const HandlerRecord*> FindHandler(std::string_view name,
                                           std::string_view platform) {
  StatusOr<Platform> parsed = ParsePlatform(platform);
  if (!parsed.ok()) {
    return InvalidArgument("handler '" + std::string(name) +
                           "': " + parsed.status().message());
  }
  HandlerRegistry& registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto it = registry.records.find(std::make_pair(std::string(name), *parsed));
  if (it == registry.records.end()) {
    return NotFound("no " + Describe(name, PlatformName(*parsed)) +
                    " is registered");
  }
  return static_cast<const HandlerRecord*>(it->second.get());
}

std::vector<const HandlerRecord*> ListHandlers(Platform platform) {
  HandlerRegistry& registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  std::vector<const HandlerRecord*> records;
  for (const auto& [key, record] : registry.records) {
    if (key.second == platform) records.push_back(record.get());
  }
  return records;  // the map orders by name within a platform
}

StatusOr<HandlerRecord> DescribeHandler(std::string_view name,
                                        const XLA_FFI_Handler_Bundle& bundle) {
  return Handshake(name, Platform::kHost, bundle, 0);
}

namespace internal {

// 0.1-0.3 callers pass 84 bytes: a 32-byte bundle without `record` and
// traits at offset 80. 0.4+ callers pass 92.
XLA_FFI_Error* HandlerRegister(XLA_FFI_Handler_Register_Args* args) {
  constexpr size_t kOldSize = 84;
  constexpr const char* kFn = "XLA_FFI_Handler_Register";
  if (Status s =
          CheckArgs(kFn, "XLA_FFI_Handler_Register_Args", args, kOldSize);
      !s.ok()) {
    return MakeError(std::move(s));
  }
  auto span = [](const XLA_FFI_ByteSpan& s) {
    return std::string_view(s.ptr ? s.ptr : "", s.ptr ? s.len : 0);
  };
  XLA_FFI_Handler_Bundle bundle{};
  bundle.instantiate = args->bundle.instantiate;
  bundle.prepare = args->bundle.prepare;
  bundle.initialize = args->bundle.initialize;
  bundle.execute = args->bundle.execute;
  XLA_FFI_Handler_Traits traits;
  if (args->struct_size >= XLA_FFI_Handler_Register_Args_STRUCT_SIZE) {
    bundle.record = args->bundle.record;
    traits = args->traits;
  } else {
    std::memcpy(&traits, reinterpret_cast<const char*>(args) + 80,
                sizeof(traits));
  }
  return MakeError(
      RegisterHandler(span(args->name), span(args->platform), bundle, traits));
}

}  // namespace internal
}  // namespace xffi
