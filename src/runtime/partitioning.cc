#include "xffi/runtime/partitioning.h"

#include <mutex>
#include <set>

namespace xffi {
namespace {

struct BatchPartitionable {
  std::mutex mutex;
  std::set<std::string, std::less<>> names;
};

BatchPartitionable& Registry() {
  // Never destroyed: compilations on other threads may still ask at exit.
  static auto* registry = new BatchPartitionable;
  return *registry;
}

}  // namespace

void RegisterBatchPartitionable(std::string_view target) {
  BatchPartitionable& registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  registry.names.emplace(target);
}

bool IsBatchPartitionable(std::string_view target) {
  BatchPartitionable& registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  return registry.names.find(target) != registry.names.end();
}

std::vector<std::string> ListBatchPartitionable() {
  BatchPartitionable& registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  return {registry.names.begin(), registry.names.end()};
}

}  // namespace xffi
