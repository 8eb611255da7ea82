// xffi: the core ops of a program as launches of the device kernels
// (device_kernels.h).
//
// Each supported op becomes one Launcher, settled at compile time: a
// function of the run's buffer addresses that enqueues the op's kernels on a
// stream. An op the device backend cannot run is refused here, when the
// program compiles, with an error naming the op and its line:column — never
// a wrong result at run time. Buffers are row-major whatever layout a shape
// carries, as in the CPU executor (only custom calls see layouts).
#ifndef XFFI_SRC_DEVICE_BACKEND_OP_KERNELS_H_
#define XFFI_SRC_DEVICE_BACKEND_OP_KERNELS_H_

#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "compiler/buffer_assignment.h"
#include "device/device.h"
#include "device_backend/device_kernels.h"
#include "xffi/program/ir.h"

namespace xffi::device_backend {

// Enqueues an op's work; `addresses` is the computation's buffer table
// (device addresses, indexed by compiler::BufferId).
using Launcher =
    std::function<Status(device::Stream& stream, void* const* addresses)>;

// Device memory an op needs beyond its operands and result (a dot's
// operand relaid out for the GEMM), reserved when the program compiles: the
// buffer whose address `addresses` will hold, private to the op.
using ReserveScratch = std::function<compiler::BufferId(size_t bytes)>;

// What the device a program is compiled for offers beyond kernels, where
// it changes what an op reserves at compile time.
struct DeviceFeatures {
  // Stream::Fourier runs (Device::HasFftLibrary: cuFFT on CudaDevice).
  bool fft_library = false;
};

// The op's launcher. `operands` holds one buffer per operand, `result` the
// op's (array) result. UNIMPLEMENTED naming the op and its location for an
// op, element type or attribute the device kernels do not take. Without
// `scratch`, ops that would need it take a slower way or are refused.
StatusOr<Launcher> MakeOpLauncher(
    const Instruction& op, const std::vector<compiler::BufferId>& operands,
    compiler::BufferId result, const ReserveScratch& scratch = {},
    const DeviceFeatures& features = {});

// A loop fusion of elementwise ops (and scalar broadcasts, reshapes, and
// gathers of one-element slices whose operand is a fusion operand) as one
// kernel that interprets the fused ops per element; nullopt when the fusion
// holds anything else, which then runs op by op. `operands` holds one buffer
// per fusion operand.
std::optional<Launcher> MakeFusedLoopLauncher(
    const Instruction& fusion, const std::vector<compiler::BufferId>& operands,
    compiler::BufferId result);

// An op with one result buffer per array of its tuple result (sort, with a
// result possibly sharing its operand's buffer; a reduce of several
// inputs; topk). `operands` holds one buffer per operand. Sort merges
// through `scratch` (and sorts by insertion without it).
StatusOr<Launcher> MakeTupleResultLauncher(
    const Instruction& op, const std::vector<compiler::BufferId>& operands,
    const std::vector<compiler::BufferId>& results,
    const ReserveScratch& scratch = {});

// The elementwise ops of `fused` (as a loop fusion may hold them) over `n`
// elements as the one kernel that interprets them; nullopt when it holds
// anything else. Its host code serves the host too: the device executor
// evaluates a loop condition of scalar ops with it.
std::optional<FusedLoopKernel> CompileFusedLoop(const Computation& fused,
                                                int64_t n);

// `shape`'s element type as the kernels name it, or the refusal naming `op`
// for a type they do not take.
StatusOr<DType> TypeOf(const Instruction& op, const Shape& shape);

// The copies `copies`, copy k from buffer ids[k].first to ids[k].second,
// one launch each, in order.
Launcher StridedCopyLauncher(
    std::vector<StridedCopyKernel> copies,
    std::vector<std::pair<compiler::BufferId, compiler::BufferId>> ids);

// Element strides of a row-major array of `dims`.
std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims);

inline constexpr int64_t kThreadsPerBlock = 256;

// One thread per element of [0, n) (none when n is 0).
template <typename F>
Status LaunchKernel(device::Stream& stream, const char* name, int64_t n,
                    const F& functor) {
  if (n == 0) return Status::Ok();
  return device::LaunchFunctor(
      stream, name, {device::BlocksFor(n, kThreadsPerBlock), kThreadsPerBlock},
      functor);
}

// The refusal every unsupported construct gets: "the device backend cannot
// run <op> at <line:column>: <why>".
Status Unsupported(const Instruction& op, const std::string& why);

}  // namespace xffi::device_backend

#endif  // XFFI_SRC_DEVICE_BACKEND_OP_KERNELS_H_
