// xffi: where every array of one computation lives while it runs.
//
// A computation runs on one arena of bytes, laid out here at compile time.
// Each array leaf of each instruction's value maps to a Buffer: a parameter
// leaf (its address comes with the call), a constant (the literal's bytes),
// an output leaf (the caller's result memory: a root leaf is computed in
// place there) or a slice of the arena. Tuples, get-tuple-element and
// optimization barriers are views: they map to their operands' buffers and
// cost nothing at run time. Arena slices are reused once every value that
// maps to them is dead (first fit over a linear schedule: the instruction
// order, which keeps side effects in their order).
//
// In place: a dynamic-update-slice takes its operand's buffer when nothing
// reads that operand after it (the kernel then writes only the update), and
// so do a copy (which then copies nothing) and a call whose callee updates a
// parameter in place (in_place.h). An elementwise op or a loop fusion that
// reads an operand only at each result element's own index computes its
// result into that operand's buffer when nothing reads it afterwards (an
// arena buffer no custom call has read or written): x -> exp -> negate
// then needs one buffer, not two. So does each result of a sort, over its
// own operand (the kernel permutes a gathered copy of each slice). With the
// same request, a reshape between row-major shapes is a view: its value is
// its operand's arena buffer (a scan's step reshaped to [1, ...] for the
// dynamic-update-slice that stacks it copies nothing), and no rule above
// writes over a buffer while a view of it is still read.
//
// Aliasing: a custom-call result named in output_operand_aliases, and a while
// loop's state, take over their operand's buffer when nothing reads that
// buffer afterwards; otherwise (the operand is still read later, is a
// parameter or constant, or is passed twice to the op) a copy into a fresh
// buffer is inserted before the op, and the op reads and writes the copy.
#ifndef XFFI_SRC_COMPILER_BUFFER_ASSIGNMENT_H_
#define XFFI_SRC_COMPILER_BUFFER_ASSIGNMENT_H_

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "xffi/program/ir.h"

namespace xffi::compiler {

class InPlaceAnalysis;

// Buffer ids index BufferAssignment::buffers; tokens have none.
using BufferId = int32_t;
inline constexpr BufferId kNoBuffer = -1;

// Arena slices start at multiples of this.
inline constexpr size_t kBufferAlignment = 64;

enum class BufferKind { kParameter, kConstant, kArena, kOutput };

struct Buffer {
  BufferKind kind = BufferKind::kArena;
  size_t size = 0;     // bytes of the array
  int64_t number = 0;  // kParameter: parameter leaf; kOutput: root leaf
  const void* constant = nullptr;  // kConstant
  // kParameter: every caller hands this leaf's memory over to be
  // overwritten (InPlaceAnalysis), so an in-place update may write it.
  bool handed_over = false;
  size_t offset = 0;  // kArena: from the arena's start
  // Schedule positions: defined before the op at `defined_at` runs, last
  // read by the op at `live_until` (the root's leaves live to the end).
  int64_t defined_at = 0, live_until = 0;
};

struct BufferCopy {
  BufferId from = kNoBuffer, to = kNoBuffer;
  size_t size = 0;
};

// What one instruction reads and writes.
struct InstructionBuffers {
  // One per leaf of the instruction's shape (kNoBuffer for tokens).
  std::vector<BufferId> leaves;
  // One list per operand: the buffers the op reads, after copy insertion.
  std::vector<std::vector<BufferId>> operands;
  // Copies made right before the op (aliasing with a still-live operand).
  std::vector<BufferCopy> copies_before;
  // Scratch the op needs for its own duration:
  //   while: the second set of loop-state buffers (one per state leaf; a leaf
  //     the body passes through unchanged keeps the first set's buffer),
  //     then one pred for the condition's answer;
  //   custom-call: per operand leaf, then per result leaf, a buffer in the
  //     layout the target asked for, or kNoBuffer when that leaf is
  //     row-major (an aliased pair shares one).
  std::vector<BufferId> temps;
};

struct BufferAssignment {
  const Computation* computation = nullptr;
  std::vector<const Instruction*> schedule;
  std::vector<Buffer> buffers;
  // Indexed by schedule position.
  std::vector<InstructionBuffers> instructions;
  // Root leaves that cannot be computed in place (a parameter, a constant,
  // a buffer that is already another root leaf), copied at the end.
  std::vector<BufferCopy> output_copies;
  // Leaves of the parameters in parameter order, and of the root.
  int64_t num_parameter_leaves = 0;
  int64_t num_output_leaves = 0;
  size_t arena_size = 0;
  // Sum of the arena buffers' aligned sizes: what the arena would take
  // without reuse.
  size_t unshared_arena_size = 0;

  const InstructionBuffers& Of(const Instruction* instruction) const {
    return instructions[static_cast<size_t>(position.at(instruction))];
  }
  std::unordered_map<const Instruction*, int64_t> position;
};

// The leaf index at which element `index` of a tuple shape starts.
int64_t TupleElementLeafOffset(const Shape& tuple, int64_t index);

// `computation` belongs to a verified module (layouts and aliases of custom
// calls are checked there). Fails (INVALID_ARGUMENT naming the op) on an
// aliased pair whose layouts differ, which the CPU cannot run.
// With `in_place` (the analysis of the computation's module), calls and
// while loops update arrays in place where it found they can, parameter
// leaves handed over are written in place; with `results_in_place` too,
// elementwise, sort and scatter results take dead operands' buffers (unless a
// custom call may run the computation): a backend asks for that when its
// kernels read such an operand's element before writing the result's
// there (the CPU's do; the device backend's, run on SimDevice, gave wrong
// corpus results and are not checked yet). XFFI_RESULTS_IN_PLACE=0 in the
// environment turns it off.
StatusOr<BufferAssignment> AssignBuffers(
    const Computation& computation, const InPlaceAnalysis* in_place = nullptr,
    bool results_in_place = false);

}  // namespace xffi::compiler

#endif  // XFFI_SRC_COMPILER_BUFFER_ASSIGNMENT_H_
