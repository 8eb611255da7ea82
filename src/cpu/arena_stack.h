// xffi: the arenas of one run instance's computations, laid out in one block.
//
// A computation's arena holds values only while that computation runs: its
// parameters and outputs are its caller's buffers. A callee (call,
// conditional branch, while condition or body, a reduction fusion the
// executor runs as a call) runs while its caller's arena is in use, so it
// needs bytes beyond its caller's; but two computations neither of which
// is active inside the other are never active at once (one run instance
// runs one thunk at a time), so they may take the same bytes. Laid out as a
// call stack: each computation's arena starts where the deepest-ending of
// its callers' arenas ends, and the block is as large as the deepest chain
// of calls instead of the sum of every arena. A backward pass whose batch
// norms fall back to calls of their fused computations needs the largest of
// those arenas once, not each of them.
//
// Regions kernels run (a reduce's reducer, a sort's comparator) may run on
// the kernel's worker threads while other work is under way, so they and
// everything they call keep bytes of their own, after the stack.
#ifndef XFFI_SRC_CPU_ARENA_STACK_H_
#define XFFI_SRC_CPU_ARENA_STACK_H_

#include <cstddef>
#include <vector>

namespace xffi::cpu {

struct ArenaStack {
  std::vector<size_t> offsets;  // per computation, from the block's start
  size_t size = 0;              // bytes of the block
};

// Computation i's arena takes sizes[i] bytes; calls[i] lists the
// computations it runs from its thunks one at a time while its own arena is
// in use (indices into sizes; repeats are harmless); apart[i] marks a
// region. Offsets are multiples of `alignment`. Every computation is laid
// out: one no other calls starts at 0; a call cycle (which HLO forbids and
// the executor refuses before) would make every arena separate.
ArenaStack StackArenas(const std::vector<size_t>& sizes,
                       const std::vector<std::vector<size_t>>& calls,
                       const std::vector<bool>& apart, size_t alignment);

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_ARENA_STACK_H_
