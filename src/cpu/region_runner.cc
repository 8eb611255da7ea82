// The RegionRunner kernels call.
#include "cpu/region_runner.h"

#include <cstring>
#include <string>

#include "cpu/executor.h"

namespace xffi::cpu {
namespace {

bool Overlaps(const ArrayView& a, const ArrayView& b) {
  if (a.data == nullptr || b.data == nullptr) return false;
  const auto* a0 = static_cast<const unsigned char*>(a.data);
  const auto* b0 = static_cast<const unsigned char*>(b.data);
  size_t a_size = a.shape != nullptr ? a.shape->byte_size() : 1;
  size_t b_size = b.shape != nullptr ? b.shape->byte_size() : 1;
  return a0 < b0 + b_size && b0 < a0 + a_size;
}

}  // namespace

ExecutorRegionRunner::ExecutorRegionRunner(
    const std::vector<std::pair<const Computation*, CompiledComputation*>>&
        regions) {
  for (const auto& [computation, compiled] : regions) {
    Slot slot;
    slot.computation = computation;
    slot.compiled = compiled;
    slot.parameters.resize(
        static_cast<size_t>(compiled->num_parameter_leaves()));
    slot.outputs.resize(static_cast<size_t>(compiled->num_output_leaves()));
    slots_.push_back(std::move(slot));
  }
}

ExecutorRegionRunner::Slot* ExecutorRegionRunner::Find(
    const Computation& computation) {
  for (Slot& slot : slots_)
    if (slot.computation == &computation) return &slot;
  return nullptr;
}

Status ExecutorRegionRunner::Run(const Computation& computation,
                                 std::span<const ArrayView> arguments,
                                 std::span<const ArrayView> results) {
  Slot* slot = Find(computation);
  if (slot == nullptr) {
    return Internal("region '" + computation.name() +
                    "' was not compiled with the op that runs it");
  }
  if (arguments.size() != slot->parameters.size() ||
      results.size() != slot->outputs.size()) {
    return InvalidArgument(
        "region '" + computation.name() + "' takes " +
        std::to_string(slot->parameters.size()) + " arrays and returns " +
        std::to_string(slot->outputs.size()) + "; the kernel passed " +
        std::to_string(arguments.size()) + " and " +
        std::to_string(results.size()));
  }
  for (size_t i = 0; i < arguments.size(); ++i)
    slot->parameters[i] = arguments[i].data;
  // A result that overlaps an argument is computed into scratch: a region
  // reads its parameters while it writes its outputs.
  size_t staged = 0;
  for (size_t r = 0; r < results.size(); ++r) {
    slot->outputs[r] = results[r].data;
    for (const ArrayView& argument : arguments) {
      if (Overlaps(results[r], argument)) {
        staged += results[r].shape->byte_size() + 16;
        slot->outputs[r] = nullptr;
        break;
      }
    }
  }
  if (staged == 0)
    return slot->compiled->Run(slot->parameters.data(), slot->outputs.data());
  if (slot->scratch.size() < staged) slot->scratch.resize(staged);
  size_t offset = 0;
  for (size_t r = 0; r < results.size(); ++r) {
    if (slot->outputs[r] != nullptr) continue;
    slot->outputs[r] = slot->scratch.data() + offset;
    offset += (results[r].shape->byte_size() + 16) & ~size_t{15};
  }
  Status status =
      slot->compiled->Run(slot->parameters.data(), slot->outputs.data());
  if (!status.ok()) return status;
  for (size_t r = 0; r < results.size(); ++r) {
    if (slot->outputs[r] != results[r].data)
      std::memcpy(results[r].data, slot->outputs[r],
                  results[r].shape->byte_size());
  }
  return Status::Ok();
}

}  // namespace xffi::cpu
