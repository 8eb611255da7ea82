// xffi: naming the custom call whose device work failed, without waiting for
// the device after each call.
//
// A handler's work runs after it returns, and its failure surfaces at the
// next synchronisation of the stream. The device executor records an event
// after each custom call's enqueued work (a host wait there would cost a
// round trip per call and keep the host from running ahead of the device),
// and when a synchronisation of the run reports an asynchronous error, blames
// the first call whose event did not complete cleanly
// (device::Device::QueryEvent): the failing work was enqueued after the
// previous call's event and before its own, which is what a synchronisation
// after each call would have blamed.
#ifndef XFFI_SRC_DEVICE_BACKEND_CUSTOM_CALL_EVENTS_H_
#define XFFI_SRC_DEVICE_BACKEND_CUSTOM_CALL_EVENTS_H_

#include <memory>
#include <optional>
#include <vector>

#include "device/device.h"
#include "xffi/program/ir.h"
#include "xffi/runtime/status.h"

namespace xffi::device_backend {

// One per stream a run uses. The events are made on first use and reused by
// later runs.
class CustomCallEvents {
 public:
  explicit CustomCallEvents(device::Device& device) : device_(device) {}

  // `op`'s work has been enqueued on `stream`.
  Status Mark(device::Stream& stream, const Instruction& op);
  // A synchronisation of the stream succeeded: every marked call's work
  // completed cleanly.
  void Clear() { marked_ = 0; }
  // A synchronisation of the stream failed with `error`: that error naming
  // the first marked call whose event did not complete cleanly, or nullopt
  // when every marked call's did (the failure came after them). Clears.
  std::optional<Status> Blame(const Status& error);

  size_t marked() const { return marked_; }

 private:
  struct CallEnd {
    std::unique_ptr<device::Event> event;
    const Instruction* op = nullptr;
  };

  device::Device& device_;
  std::vector<CallEnd> ends_;
  size_t marked_ = 0;  // ends_[0, marked_) are this run's
};

}  // namespace xffi::device_backend

#endif  // XFFI_SRC_DEVICE_BACKEND_CUSTOM_CALL_EVENTS_H_
