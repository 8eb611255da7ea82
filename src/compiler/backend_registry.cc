// The backend registry: one factory per platform, its backend made once.
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "compiler/backend.h"

namespace xffi::compiler {
namespace {

struct Entry {
  BackendFactory factory;
  std::unique_ptr<Backend> backend;  // made at the first FindBackend
};

class Registry {
 public:
  Registry() {
    for (BuiltinBackend& builtin : BuiltinBackends())
      entries_[builtin.platform].factory = std::move(builtin.factory);
  }

  Status Register(Platform platform, BackendFactory factory) {
    if (!factory)
      return InvalidArgument("RegisterBackend: the factory for platform " +
                             std::string(PlatformName(platform)) + " is empty");
    std::lock_guard<std::mutex> lock(mutex_);
    auto [entry, added] = entries_.try_emplace(platform);
    if (!added)
      return AlreadyExists("a backend is already registered for platform " +
                           std::string(PlatformName(platform)));
    entry->second.factory = std::move(factory);
    return Status::Ok();
  }

  bool Unregister(Platform platform) {
    std::lock_guard<std::mutex> lock(mutex_);
    return entries_.erase(platform) > 0;
  }

  StatusOr<const Backend*> Find(Platform platform) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = entries_.find(platform);
    if (found == entries_.end())
      return NotFound("no backend is registered for platform " +
                      std::string(PlatformName(platform)));
    Entry& entry = found->second;
    if (entry.backend == nullptr) {
      entry.backend = entry.factory();
      if (entry.backend == nullptr)
        return Internal("the backend factory for platform " +
                        std::string(PlatformName(platform)) +
                        " made no backend");
    }
    return const_cast<const Backend*>(entry.backend.get());
  }

 private:
  std::mutex mutex_;
  std::map<Platform, Entry> entries_;
};

Registry& GetRegistry() {
  static Registry* registry = new Registry();  // never destroyed: no exit race
  return *registry;
}

}  // namespace

Status RegisterBackend(Platform platform, BackendFactory factory) {
  return GetRegistry().Register(platform, std::move(factory));
}

bool UnregisterBackend(Platform platform) {
  return GetRegistry().Unregister(platform);
}

StatusOr<const Backend*> FindBackend(Platform platform) {
  return GetRegistry().Find(platform);
}

}  // namespace xffi::compiler
