// xffi: running a program on a Device (SimDevice here, a GPU through
// CudaDevice), written against the Device seam only.
//
// Compile: every computation the entry reaches gets its buffer assignment
// (compiler/buffer_assignment.h) and a list of device thunks. All of a run
// instance's device memory (below) is ONE allocation, the first made at
// compile time, laid out at offsets: each computation's arena, the constants
// (uploaded once), and a slot per entry parameter leaf and result leaf.
//
// Run: arguments are copied host to device into their slots, the thunks
// enqueue their work on the instance's stream (core ops as launches of
// the device kernels, custom calls with the stream their handler asks for),
// and results come back device to host. While and conditional read their
// predicate or branch index back to the host, which waits for the stream
// there; a while condition of scalar ops is computed on the host from its
// scalar leaves, read back instead (compiler/control_flow.h). The host does
// not wait after a custom call: an event marks the end of its work, and an
// asynchronous failure reported by a later synchronisation names the first
// call whose event did not complete cleanly (custom_call_events.h).
//
// Command buffers: a program with no while or conditional whose custom calls
// all have the COMMAND_BUFFER_COMPATIBLE trait is captured into a device
// graph at its first run and replayed after (device/graph_cache.h); its
// handlers' execute stage is then called only while capturing, as under
// XLA, their stages before it once before the first capture (they may
// allocate or synchronise, which no capture allows), and an asynchronous
// failure is reported for the run rather than a target.
//
// Limits (CompileOptions): memory_limit_bytes > 0 bounds one allocation
// and is checked before anything is allocated on the device; 0 leaves it to
// the device's memory (a failed allocation is an error naming the size), and
// negative is no limit. custom_call_timeout bounds the wait for a typed
// handler's future: a call still pending then fails the run with
// DEADLINE_EXCEEDED naming the target, and keeps the block, its frame and
// state, the stream and the context alive until it completes; the next run
// allocates a fresh block; ExecuteRawNotifying tells its caller when that
// call completes. Legacy (API v1-3) GPU targets are not bounded, by design:
// the call is a plain host function, which could be bounded only by running
// it on another thread that cannot be stopped when it overruns (XLA bounds
// none either); and its device work could be bounded only by a host wait on
// an event after the call, the per-call wait that events replaced, which
// on a GPU could abandon a kernel that never ends but not reclaim the
// device it occupies, and on SimDevice (work runs when the host
// synchronises) could not be tested.

// memory_limit_bytes weighs one instance: each concurrent run takes one.
//
// Concurrent runs: each run takes a run instance (its own thunks, block,
// stream and context) from a pool that grows by one when every instance is
// busy, as the CPU executor's runs do; a run made serially always gets the
// first one, whose context is the executable's context().
#ifndef XFFI_SRC_DEVICE_BACKEND_DEVICE_EXECUTOR_H_
#define XFFI_SRC_DEVICE_BACKEND_DEVICE_EXECUTOR_H_

#include <functional>
#include <memory>
#include <vector>

#include "device/device.h"
#include "xffi/program/executable.h"

namespace xffi::device_backend {

// What an executable did, for tests and tools.
struct DeviceExecutorStats {
  size_t device_bytes = 0;  // one run instance's allocation
  int64_t computations = 0;
  int64_t thunks = 0;
  int64_t fused_loops = 0;  // loop fusions run as one interpreting kernel
  // While conditions of scalar ops computed on the host from their leaves.
  int64_t host_conditions = 0;
  int64_t graph_captures = 0, graph_replays = 0;
  // Custom calls given up on at CompileOptions::custom_call_timeout.
  int64_t abandoned_calls = 0;
  // Device argument leaves the runs bound as parameter buffers, uncopied.
  int64_t bound_arguments = 0;
  // Sets of buffers, stream and thunks made for runs (one per concurrent
  // run at the most).
  int64_t run_instances = 0;
};
// Zeros for an executable this executor did not make.
DeviceExecutorStats GetDeviceExecutorStats(const Executable& executable);

// Where ExecuteWithDeviceLeaves finds each argument leaf and puts the
// results: true means an address in the executable's device memory space
// (DeviceOfExecutable), false a host address as ExecuteRaw takes.
struct LeafPlaces {
  std::vector<bool> argument_on_device;  // one per parameter leaf
  bool results_on_device = false;
};
// A run instance taken ahead of its run (ReserveRun): the stream the run's
// work will go on exists already, so a caller can have the producers of its
// device arguments order their work before that stream (DLPack's
// __dlpack__(stream=...)) instead of the host waiting for the whole device.
// ExecuteWithDeviceLeaves given it runs on it; destroyed unused, it goes
// back to the executable's pool. It must not outlive its executable.
class ReservedRun {
 public:
  virtual ~ReservedRun() = default;
  virtual device::Stream& stream() = 0;
};
// An idle run instance of `executable` (a new one when every instance is
// busy), placed on its device: RESOURCE_EXHAUSTED as a run's, and
// INVALID_ARGUMENT for an executable this executor did not make.
StatusOr<std::unique_ptr<ReservedRun>> ReserveRun(Executable& executable);

// ExecuteRaw with device arguments and results, for callers that hold
// arrays on the device already (DLPack producers in Python): they cross
// device to device, never through the host, and a device argument is not
// copied at all where it can be the parameter's buffer itself (row-major,
// aligned as the arena's buffers, a parameter the program does not write,
// no custom-call timeout): the program's kernels and custom calls then see
// the caller's address. Device arguments must be ready
// (their producer's work complete, or ordered before `reserved`'s stream
// below) when it is called; device results are
// complete when it returns. INVALID_ARGUMENT for an executable this
// executor did not make. `on_abandoned_call_complete` as
// Executable::ExecuteRawNotifying's (which this executor implements too).
// With `reserved` (ReserveRun's, of this executable) the run goes on its
// instance and stream, which producers may have made wait for their work:
// such arguments are ready in that stream's order.
Status ExecuteWithDeviceLeaves(
    Executable& executable, ffi::Span<const void* const> argument_leaves,
    ffi::Span<void* const> result_leaves, const LeafPlaces& places,
    std::function<void()> on_abandoned_call_complete = nullptr,
    ReservedRun* reserved = nullptr);
// The device an executable of this executor runs on; null for others.
std::shared_ptr<device::Device> DeviceOfExecutable(
    const Executable& executable);

// `module` has passed VerifyModule and the compile passes. The executable
// keeps `device` alive.
StatusOr<std::unique_ptr<Executable>> CreateDeviceExecutable(
    Module module, const CompileOptions& options,
    std::shared_ptr<device::Device> device);

}  // namespace xffi::device_backend

#endif  // XFFI_SRC_DEVICE_BACKEND_DEVICE_EXECUTOR_H_
