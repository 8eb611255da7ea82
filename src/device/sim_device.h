// xffi: SimDevice, a simulated GPU that is stricter than a real one.
//
// Everything a test of device code needs to catch, on a machine without a
// GPU:
// - Device memory is not host memory: its addresses fault on host access
//   (sim_memory.h), and new allocations are poisoned (NaN bytes).
// - Work runs as late as stream order and events allow: nothing runs when it
//   is enqueued; a stream runs its work when the host synchronises with it
//   (Stream::Synchronize, Device::SynchronizeEvent on an event it recorded,
//   Device::Synchronize, Free), and a stream that waits on an event first
//   runs the recording stream up to that event. So a missing synchronisation
//   or a missing event wait reads stale or poisoned memory, every time.
// - Capture rules: a call that would synchronise while a capture is open
//   fails and invalidates the capture (CUDA's global capture mode).
// - Asynchronous errors can be injected; a sticky one leaves the device
//   unusable, as an illegal address does on a GPU.
// - Host callbacks that call the device are reported.
// Kernels are functor kernels run by their host code, one thread after
// another: a kernel that needs its threads to run concurrently (block-level
// cooperation through shared memory) cannot run here.
#ifndef XFFI_SRC_DEVICE_SIM_DEVICE_H_
#define XFFI_SRC_DEVICE_SIM_DEVICE_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "device/device.h"
#include "device/sim_memory.h"

namespace xffi::device {

struct SimDeviceOptions {
  size_t memory_bytes = size_t{256} << 20;
  int ordinal = 0;
  uint8_t poison = 0xFF;
};

class SimStream;
struct SimOp;

class SimDevice final : public Device {
 public:
  static StatusOr<std::unique_ptr<SimDevice>> Create(
      SimDeviceOptions options = {});
  ~SimDevice() override;

  std::string_view name() const override { return "SimDevice"; }
  int ordinal() const override { return options_.ordinal; }
  StatusOr<void*> Allocate(size_t size) override;
  Status Free(void* data) override;
  bool Holds(const void* data, size_t size) override;
  StatusOr<std::unique_ptr<Stream>> CreateStream() override;
  StatusOr<std::unique_ptr<Event>> CreateEvent() override;
  Status SynchronizeEvent(Event& event) override;
  StatusOr<bool> QueryEvent(Event& event) override;
  Status Synchronize() override;

  // Enqueues work on `stream` that fails with `error` when the stream runs
  // it. Not sticky: the stream's next synchronisation returns it, and the
  // device stays usable. Sticky: from then on every call fails with it.
  Status InjectAsyncError(Stream& stream, Status error, bool sticky);

  bool IsDeviceMemory(const void* address) const;
  // The live stream whose native_handle() is `native_handle`, or null: how
  // a stream handed around as a number (DLPack's stream argument) is found
  // again.
  Stream* FindStream(const void* native_handle);
  size_t bytes_in_use() const;
  // Enqueued work not yet run, over every stream.
  size_t pending_work() const;
  // How often the host has waited for the device so far, by call: tests
  // check that a run waits only where it must.
  struct HostSynchronizations {
    int64_t stream = 0;  // Stream::Synchronize
    int64_t event = 0;   // SynchronizeEvent
    int64_t device = 0;  // Device::Synchronize, the whole device
  };
  HostSynchronizations host_synchronizations() const;

 private:
  friend class SimStream;
  friend class SimEventImpl;

  SimDevice(SimDeviceOptions options, std::unique_ptr<SimMemory> memory);

  // The checks every call makes first, under the lock: not from a host
  // callback, not after a sticky error and, for a `synchronising` call, not
  // while a capture is open (which it then invalidates).
  Status Enter(std::string_view call, bool synchronising);
  // Appends to the stream's queue, or to its capture; returns the op's id.
  uint64_t Enqueue(SimStream& stream, SimOp op);
  // Runs `stream_id`'s work up to and including op `through`.
  void Drain(uint64_t stream_id, uint64_t through);
  void DrainAll();

  SimDeviceOptions options_;
  std::unique_ptr<SimMemory> memory_;
  // Recursive: a host callback runs under it and may (wrongly) call back in,
  // which Enter reports instead of deadlocking.
  mutable std::recursive_mutex mutex_;
  std::map<uint64_t, SimStream*> streams_;
  uint64_t next_stream_id_ = 0;
  uint64_t next_op_id_ = 0;
  int open_captures_ = 0;
  Status sticky_error_;
  bool in_callback_ = false;
  std::thread::id callback_thread_;
  HostSynchronizations synchronizations_;
};

}  // namespace xffi::device

#endif  // XFFI_SRC_DEVICE_SIM_DEVICE_H_
