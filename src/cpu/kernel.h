// xffi: the contract between the CPU executor and the op kernels.
//
// The executor owns buffers and control flow (parameters, constants, tuples,
// while, conditional, call, custom calls); every other op runs as a Kernel,
// chosen and prepared once at compile time for the op's types and shapes, so
// a run does no type dispatch. Arrays are dense and row-major (the executor
// relayouts around custom calls that ask for other layouts).
//
// Kernels are made only for ops of a verified module (Compile runs
// VerifyModule before any backend sees the module): operand counts, element
// types, op fields and the result shape agree with ShapeInference, so a
// kernel may rely on them instead of checking them again. A kernel returns
// an error only for what the verifier cannot know: an element type or
// combination the CPU lacks (UNIMPLEMENTED), or a run-time failure.
#ifndef XFFI_SRC_CPU_KERNEL_H_
#define XFFI_SRC_CPU_KERNEL_H_

#include <functional>
#include <span>

#include "xffi/program/ir.h"

namespace xffi {
class ThreadPool;
}

namespace xffi::cpu {

// One array: its shape (an array shape, row-major) and its bytes.
struct ArrayView {
  const Shape* shape = nullptr;
  void* data = nullptr;
};

// Runs a region (reduce body, comparator, scatter combiner, window reducer)
// on arrays the kernel provides. The executor implements it.
class RegionRunner {
 public:
  virtual ~RegionRunner() = default;
  // `arguments`: one array per parameter of `computation`; `results`: one
  // per leaf of its root.
  virtual Status Run(const Computation& computation,
                     std::span<const ArrayView> arguments,
                     std::span<const ArrayView> results) = 0;
};

struct KernelArgs {
  // One per operand of the instruction (every kernel op takes arrays only).
  std::span<const ArrayView> operands;
  // One per leaf of the instruction's shape (several for a tuple-shaped
  // variadic reduce, sort, or reduce-window).
  std::span<const ArrayView> results;
  RegionRunner* regions = nullptr;
  ThreadPool* pool = nullptr;  // may be null
};

// A prepared kernel. An error it returns names the op (the executor adds the
// location).
using Kernel = std::function<Status(const KernelArgs&)>;

// Elementwise, compare, select, clamp, convert, bitcast-convert, iota and the
// chlo functions (src/cpu/elementwise*.cc). UNIMPLEMENTED naming the op and
// element type when a combination is not supported; nullopt-like NOT_FOUND
// when the opcode is not elementwise at all.
StatusOr<Kernel> MakeElementwiseKernel(const Instruction& instruction);

// Data movement and computation: broadcast, reshape, transpose, slice,
// dynamic-slice, dynamic-update-slice, concatenate, pad, reverse, gather,
// scatter, dot, reduce, reduce-window, sort, copy (src/cpu/*.cc).
StatusOr<Kernel> MakeStructuralKernel(const Instruction& instruction);

// Either of the above; UNIMPLEMENTED "op 'name' (opcode) at LOCATION is not
// supported on CPU" for anything else.
StatusOr<Kernel> MakeKernel(const Instruction& instruction);

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_KERNEL_H_
