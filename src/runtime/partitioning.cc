#include "xffi/runtime/partitioning.h"

#include <mutex>
#include <set>
#include <string>

namespace xffi {
namespace {

struct BatchPartitionable {
  std::mutex mutex;
  std::set<std::string, std::less<>> targets;
};

BatchPartitionable& Registry() {
  // Never destroyed: compilations on other threads may still ask at exit.
  static auto* registry = new BatchPartitionable;
  return *registry;
}

}  // namespace

Status RegisterBatchPartitionable(std::string_view target) {
  if (target.empty())
    return InvalidArgument(
        "RegisterBatchPartitionable: the target name is empty");
  BatchPartitionable& registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  registry.targets.emplace(target);
  return Status::Ok();
}

bool IsBatchPartitionable(std::string_view target) {
  BatchPartitionable& registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  return registry.targets.find(target) != registry.targets.end();
}

std::vector<std::string> ListBatchPartitionable() {
  BatchPartitionable& registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  return std::vector<std::string>(registry.targets.begin(),
                                  registry.targets.end());
}

}  // namespace xffi
