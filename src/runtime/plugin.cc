// Loading handler libraries: dlopen with the registration origin set, symbol
// lookup confined to the library, and attribution of registry records.
#include "xffi/runtime/plugin.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/stat.h>

#include <climits>
#include <cstdlib>
#include <map>
#include <mutex>

#include "runtime/elf_reader.h"
#include "runtime/legacy_internal.h"

namespace xffi {
namespace {

struct LoadedPlugins {
  // Recursive: a library's initializer may itself load a plugin.
  std::recursive_mutex mutex;
  // By canonical path. A failed registration is remembered with the plugin,
  // because loading again would not run the library's initializers again.
  std::map<std::string, std::pair<std::shared_ptr<const Plugin>, Status>>
      by_origin;
};

LoadedPlugins& Loaded() {
  static LoadedPlugins* loaded = new LoadedPlugins();
  return *loaded;
}

std::string DlError() {
  const char* error = dlerror();
  return error != nullptr ? error : "unknown dynamic linker error";
}

std::string Canonical(const std::string& path) {
  char resolved[PATH_MAX];
  if (realpath(path.c_str(), resolved) != nullptr) return resolved;
  return path;
}

// The path the dynamic linker opened, for a library found by search.
std::string LinkMapPath(void* handle, const std::string& fallback) {
  struct link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr &&
      map->l_name != nullptr && map->l_name[0] != '\0') {
    return Canonical(map->l_name);
  }
  return fallback;
}

const void* LoadBase(void* handle) {
  struct link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr) {
    return nullptr;
  }
  Dl_info info{};
  if (dladdr(map->l_ld, &info) == 0) return nullptr;
  return info.dli_fbase;
}

}  // namespace

StatusOr<std::shared_ptr<const Plugin>> Plugin::Load(const std::string& path) {
  if (path.empty()) return InvalidArgument("plugin path is empty");
  bool searched = path.find('/') == std::string::npos;
  std::string origin = path;
  if (!searched) {
    struct stat info {};
    if (stat(path.c_str(), &info) != 0) {
      return NotFound("plugin library '" + path + "' does not exist");
    }
    if (S_ISDIR(info.st_mode)) {
      return InvalidArgument("plugin library '" + path +
                             "' is a directory, not a shared library");
    }
    origin = Canonical(path);
    // The dynamic linker trusts the file's layout (a truncated library
    // crashes it), so check it first.
    StatusOr<std::vector<uint8_t>> bytes = internal::ReadFileBytes(path);
    if (!bytes.ok()) return bytes.status();
    if (Status valid =
            internal::CheckElfLoadable(bytes->data(), bytes->size(), path);
        !valid.ok()) {
      return InvalidArgument("cannot load plugin '" + path +
                             "': " + valid.message());
    }
  }

  LoadedPlugins& loaded = Loaded();
  std::lock_guard<std::recursive_mutex> lock(loaded.mutex);
  if (auto it = loaded.by_origin.find(origin); it != loaded.by_origin.end()) {
    if (!it->second.second.ok()) return it->second.second;
    return it->second.first;
  }

  void* handle = nullptr;
  std::vector<Status> registration_errors;
  {
    // Static initializers run inside dlopen, on this thread.
    ScopedRegistrationOrigin ffi_origin(origin);
    internal::LegacyRegistrationScope legacy_scope(origin);
    dlerror();
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    registration_errors = legacy_scope.TakeErrors();
  }
  if (handle == nullptr) {
    std::string linker_error = DlError();
    if (searched) {
      bool missing = linker_error.find("cannot open shared object file") !=
                     std::string::npos;
      return Status(missing ? XLA_FFI_Error_Code_NOT_FOUND
                            : XLA_FFI_Error_Code_FAILED_PRECONDITION,
                    "cannot load plugin '" + path + "': " + linker_error);
    }
    // Tell a file that is not a library from one whose dependencies or
    // symbols are missing: only the latter is worth fixing by relinking.
    StatusOr<std::vector<internal::ElfSymbol>> symbols =
        internal::ReadElfDynamicSymbols(path);
    if (!symbols.ok()) {
      return InvalidArgument("cannot load plugin '" + path +
                             "': " + symbols.status().message() +
                             " (dynamic linker: " + linker_error + ")");
    }
    return FailedPrecondition("cannot load plugin '" + path +
                              "': " + linker_error);
  }

  if (searched) {
    origin = LinkMapPath(handle, path);
    if (auto it = loaded.by_origin.find(origin); it != loaded.by_origin.end()) {
      if (!it->second.second.ok()) return it->second.second;
      return it->second.first;
    }
  }

  std::shared_ptr<Plugin> plugin(new Plugin());
  plugin->path_ = path;
  plugin->origin_ = origin;
  plugin->handle_ = handle;
  plugin->base_ = LoadBase(handle);

  Status status;
  if (!registration_errors.empty()) {
    std::string message = "plugin '" + path + "' was loaded, but " +
                          std::to_string(registration_errors.size()) +
                          " of its registrations failed: ";
    for (size_t i = 0; i < registration_errors.size(); ++i) {
      if (i > 0) message += "; ";
      message += registration_errors[i].message();
    }
    status = Status(registration_errors.front().code(), std::move(message));
  }
  loaded.by_origin.emplace(origin, std::make_pair(plugin, status));
  if (!status.ok()) return status;
  return std::shared_ptr<const Plugin>(plugin);
}

bool Plugin::Contains(const void* address) const {
  if (address == nullptr || base_ == nullptr) return false;
  Dl_info info{};
  return dladdr(address, &info) != 0 && info.dli_fbase == base_;
}

StatusOr<void*> Plugin::FindDefined(std::string_view symbol,
                                    bool want_code) const {
  std::string name(symbol);
  dlerror();
  void* address = dlsym(handle_, name.c_str());
  if (address == nullptr) {
    std::string message =
        "symbol '" + name + "' not found in plugin '" + path_ + "'";
    if (auto exported = ListExportedHandlers(origin_);
        exported.ok() && !exported->empty()) {
      message += "; it exports the handlers";
      for (size_t i = 0; i < exported->size(); ++i) {
        message += (i == 0 ? " " : ", ") + (*exported)[i].name;
      }
    }
    return NotFound(std::move(message));
  }
  Dl_info info{};
  void* entry_address = nullptr;
  if (dladdr1(address, &info, &entry_address, RTLD_DL_SYMENT) == 0 ||
      info.dli_fbase != base_) {
    // dlsym searches the library's dependencies too; a handler named like a
    // libc function must not resolve to libc.
    return NotFound(
        "symbol '" + name + "' is not defined by plugin '" + path_ + "'" +
        (info.dli_fname != nullptr
             ? std::string(" (it comes from ") + info.dli_fname + ")"
             : std::string()));
  }
  const auto* entry = static_cast<const ElfW(Sym)*>(entry_address);
  if (want_code && entry != nullptr &&
      ELF64_ST_TYPE(entry->st_info) != STT_FUNC &&
      ELF64_ST_TYPE(entry->st_info) != STT_GNU_IFUNC) {
    return InvalidArgument("symbol '" + name + "' in plugin '" + path_ +
                           "' is data, not a function");
  }
  return address;
}

StatusOr<XLA_FFI_Handler*> Plugin::Find(std::string_view symbol) const {
  StatusOr<void*> address = FindDefined(symbol, /*want_code=*/true);
  if (!address.ok()) return address.status();
  return reinterpret_cast<XLA_FFI_Handler*>(*address);
}

StatusOr<void*> Plugin::FindFunction(std::string_view symbol) const {
  return FindDefined(symbol, /*want_code=*/true);
}

StatusOr<std::vector<ExportedHandler>> Plugin::ExportedHandlers() const {
  StatusOr<std::vector<ExportedHandler>> exported =
      ListExportedHandlers(origin_);
  if (!exported.ok()) return exported.status();
  for (ExportedHandler& handler : *exported) {
    std::string marker = XFFI_EXPORT_MARKER_PREFIX + handler.name;
    StatusOr<void*> address = FindDefined(marker, /*want_code=*/false);
    if (!address.ok()) return address.status();
    handler.handler = *static_cast<XLA_FFI_Handler* const*>(*address);
  }
  return exported;
}

std::vector<const HandlerRecord*> Plugin::RegisteredHandlers() const {
  std::vector<const HandlerRecord*> records;
  for (Platform platform : {Platform::kHost, Platform::kCuda}) {
    for (const HandlerRecord* record : ListHandlers(platform)) {
      const XLA_FFI_Handler_Bundle& bundle = record->bundle;
      bool ours = record->origin == origin_;
      for (XLA_FFI_Handler* stage :
           {bundle.instantiate, bundle.prepare, bundle.initialize,
            bundle.execute, bundle.record}) {
        ours = ours || Contains(reinterpret_cast<const void*>(stage));
      }
      if (ours) records.push_back(record);
    }
  }
  return records;
}

std::vector<const LegacyTargetRecord*> Plugin::RegisteredLegacyTargets() const {
  std::vector<const LegacyTargetRecord*> records;
  for (Platform platform : {Platform::kHost, Platform::kCuda}) {
    for (const LegacyTargetRecord* record : ListLegacyTargets(platform)) {
      if (record->origin == origin_ || Contains(record->function)) {
        records.push_back(record);
      }
    }
  }
  return records;
}

}  // namespace xffi
