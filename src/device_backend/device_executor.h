// xffi: running a program on a Device (SimDevice here, a GPU through
// CudaDevice), written against the Device seam only.
//
// Compile: every computation the entry reaches gets its buffer assignment
// (compiler/buffer_assignment.h) and a list of device thunks. All of the
// executable's device memory is ONE allocation, made at compile time and laid
// out at offsets: each computation's arena, the constants (uploaded once),
// and a slot per entry parameter leaf and result leaf.
//
// Run: arguments are copied host to device into their slots, the thunks
// enqueue their work on the executable's stream (core ops as launches of
// the device kernels, custom calls with the stream their handler asks for),
// and results come back device to host. While and conditional read their
// predicate or branch index back to the host, which waits for the stream
// there; a while condition of scalar ops is computed on the host from its
// scalar leaves, read back instead (compiler/control_flow.h). Each custom call
// is followed by a synchronisation, so that an asynchronous failure of the work
// it enqueued is reported naming its target.
//
// Command buffers: a program with no while or conditional whose custom calls
// all have the COMMAND_BUFFER_COMPATIBLE trait is captured into a device
// graph at its first run and replayed after (device/graph_cache.h); its
// handlers are then called only while capturing, as under XLA, and an
// asynchronous failure is reported for the run rather than a target.
//
// Runs of one executable are serialised (one set of buffers, one stream).
#ifndef XFFI_SRC_DEVICE_BACKEND_DEVICE_EXECUTOR_H_
#define XFFI_SRC_DEVICE_BACKEND_DEVICE_EXECUTOR_H_

#include <memory>
#include <vector>

#include "device/device.h"
#include "xffi/program/executable.h"

namespace xffi::device_backend {

// What an executable did, for tests and tools.
struct DeviceExecutorStats {
  size_t device_bytes = 0;  // the one allocation
  int64_t computations = 0;
  int64_t thunks = 0;
  int64_t fused_loops = 0;  // loop fusions run as one interpreting kernel
  // While conditions of scalar ops computed on the host from their leaves.
  int64_t host_conditions = 0;
  int64_t graph_captures = 0, graph_replays = 0;
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
// ExecuteRaw with device arguments and results, for callers that hold
// arrays on the device already (DLPack producers in Python): they cross
// device to device, never through the host. Device arguments must be ready
// (their producer's work complete) when it is called; device results are
// complete when it returns. INVALID_ARGUMENT for an executable this
// executor did not make.
Status ExecuteWithDeviceLeaves(Executable& executable,
                               ffi::Span<const void* const> argument_leaves,
                               ffi::Span<void* const> result_leaves,
                               const LeafPlaces& places);
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
