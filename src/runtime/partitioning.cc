#include "xffi/runtime/partitioning.h"

#include <map>
#include <mutex>
#include <string>

namespace xffi {
namespace {

struct BatchPartitionable {
  std::mutex mutex;
  std::map<std::string, int64_t, std::less<>> num_batch_dims;
};

BatchPartitionable& Registry() {
  // Never destroyed: compilations on other threads may still ask at exit.
  static auto* registry = new BatchPartitionable;
  return *registry;
}

}  // namespace

Status RegisterBatchPartitionable(std::string_view target,
                                  int64_t num_batch_dims) {
  if (target.empty())
    return InvalidArgument(
        "RegisterBatchPartitionable: the target name is empty");
  if (num_batch_dims < 1)
    return InvalidArgument("RegisterBatchPartitionable('" +
                           std::string(target) +
                           "'): num_batch_dims must be at least 1, got " +
                           std::to_string(num_batch_dims));
  BatchPartitionable& registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  registry.num_batch_dims[std::string(target)] = num_batch_dims;
  return Status::Ok();
}

bool IsBatchPartitionable(std::string_view target) {
  return BatchPartitionableDims(target) > 0;
}

int64_t BatchPartitionableDims(std::string_view target) {
  BatchPartitionable& registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto it = registry.num_batch_dims.find(target);
  return it == registry.num_batch_dims.end() ? 0 : it->second;
}

std::vector<std::string> ListBatchPartitionable() {
  BatchPartitionable& registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  std::vector<std::string> names;
  for (const auto& [name, dims] : registry.num_batch_dims)
    names.push_back(name);
  return names;
}

}  // namespace xffi
