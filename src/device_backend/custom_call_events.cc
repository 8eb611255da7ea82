#include "device_backend/custom_call_events.h"

#include <string>
#include <utility>

#include "compiler/backend_util.h"

namespace xffi::device_backend {

Status CustomCallEvents::Mark(device::Stream& stream, const Instruction& op) {
  if (marked_ == ends_.size()) {
    StatusOr<std::unique_ptr<device::Event>> event = device_.CreateEvent();
    if (!event.ok()) return event.status();
    ends_.push_back({std::move(*event), nullptr});
  }
  CallEnd& end = ends_[marked_];
  Status recorded = stream.RecordEvent(*end.event);
  if (!recorded.ok())
    return Status(recorded.code(), compiler::CustomCallSite(op) +
                                       ": cannot record the event that marks "
                                       "the end of its work: " +
                                       recorded.message());
  end.op = &op;
  ++marked_;
  return Status::Ok();
}

std::optional<Status> CustomCallEvents::Blame(const Status& error) {
  const size_t marked = marked_;
  marked_ = 0;
  for (size_t i = 0; i < marked; ++i) {
    StatusOr<bool> completed = device_.QueryEvent(*ends_[i].event);
    if (completed.ok() && *completed) continue;
    return Status(error.code(),
                  compiler::CustomCallSite(*ends_[i].op) +
                      ": its work on the device failed: " + error.message());
  }
  return std::nullopt;
}

}  // namespace xffi::device_backend
