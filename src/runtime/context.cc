// ExecutionContext and CallSiteState.
#include "xffi/runtime/context.h"

#include <string>

#include "xffi/ffi/types.h"
#include "xffi/runtime/command_buffer.h"
#include "xffi/runtime/types.h"

namespace xffi {

// Takes an int: the stage may come from a foreign frame with any value.
std::string ExecutionStageName(int stage) {
  if (stage >= XLA_FFI_ExecutionStage_INSTANTIATE &&
      stage <= XLA_FFI_ExecutionStage_RECORD) {
    return ffi::ExecutionStageName(static_cast<XLA_FFI_ExecutionStage>(stage));
  }
  return "stage " + std::to_string(stage);
}

ExecutionContext::ExecutionContext(Platform platform) : platform_(platform) {}

ExecutionContext::~ExecutionContext() {
  for (auto& [id, entry] : user_data_) {
    if (entry.deleter != nullptr) entry.deleter(entry.data);
  }
}

void ExecutionContext::AddExtension(const XLA_FFI_Extension* extension) {
  if (extension != nullptr) extensions_.push_back(extension);
}

const XLA_FFI_Extension* ExecutionContext::FindExtension(
    int64_t extension_type) const {
  for (const XLA_FFI_Extension* head : extensions_) {
    for (const XLA_FFI_Extension* e = head; e != nullptr; e = e->next) {
      if (e->id.extension_type == extension_type) return e;
    }
  }
  return nullptr;
}

Status ExecutionContext::InsertUserData(XLA_FFI_TypeId id, void* data,
                                        void (*deleter)(void*)) {
  if (id.type_id <= 0) {
    return InvalidArgument("user data needs a registered type id (> 0), got " +
                           std::to_string(id.type_id));
  }
  if (user_data_.count(id.type_id)) {
    return AlreadyExists(
        "the execution context already holds user data of "
        "type " +
        DescribeType(id));
  }
  user_data_.emplace(id.type_id, UserData{data, deleter});
  return Status::Ok();
}

Status ExecutionContext::AdoptUserData(XLA_FFI_TypeId id, void* data) {
  TypeDeleter deleter = TypeDeleterOf(id);
  if (deleter == nullptr) {
    return FailedPrecondition("cannot adopt user data of type " +
                              DescribeType(id) +
                              ": the type registered no deleter");
  }
  return InsertUserData(id, data, deleter);
}

StatusOr<void*> ExecutionContext::LookupUserData(XLA_FFI_TypeId id) const {
  auto it = user_data_.find(id.type_id);
  if (it == user_data_.end()) {
    return NotFound("no user data of type " + DescribeType(id) +
                    " in the execution context");
  }
  return it->second.data;
}

CallSiteState::CallSiteState() = default;

CommandBuffer& CallSiteState::command_buffer() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (command_buffer_ == nullptr) {
    command_buffer_ = std::make_unique<CommandBuffer>();
  }
  return *command_buffer_;
}

CallSiteState::~CallSiteState() {
  for (auto& [stage, entry] : by_stage_) {
    if (entry.deleter != nullptr) entry.deleter(entry.state);
  }
}

Status CallSiteState::Set(XLA_FFI_ExecutionStage stage, XLA_FFI_TypeId type_id,
                          void* state, void (*deleter)(void*)) {
  if (deleter == nullptr) deleter = TypeDeleterOf(type_id);
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = by_stage_.find(stage); it != by_stage_.end()) {
    return AlreadyExists("state for stage " + ExecutionStageName(stage) +
                         " is already set (type " +
                         DescribeType(it->second.type_id) +
                         "); a call site keeps one state object per stage");
  }
  by_stage_.emplace(stage, Entry{type_id, state, deleter});
  return Status::Ok();
}

StatusOr<void*> CallSiteState::Get(XLA_FFI_ExecutionStage stage,
                                   XLA_FFI_TypeId type_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = by_stage_.find(stage);
  if (it == by_stage_.end()) {
    return NotFound("no state was set for stage " + ExecutionStageName(stage) +
                    " (requested type " + DescribeType(type_id) + ")");
  }
  if (it->second.type_id.type_id != type_id.type_id) {
    return InvalidArgument("state for stage " + ExecutionStageName(stage) +
                           " has type " + DescribeType(it->second.type_id) +
                           ", but type " + DescribeType(type_id) +
                           " was requested");
  }
  return it->second.state;
}

bool CallSiteState::Has(XLA_FFI_ExecutionStage stage) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return by_stage_.count(stage) != 0;
}

}  // namespace xffi
