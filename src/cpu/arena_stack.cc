// Arenas laid out as a call stack (arena_stack.h).
#include "cpu/arena_stack.h"

#include <algorithm>

namespace xffi::cpu {
namespace {

size_t AlignUp(size_t bytes, size_t alignment) {
  return (bytes + alignment - 1) / alignment * alignment;
}

}  // namespace

ArenaStack StackArenas(const std::vector<size_t>& sizes,
                       const std::vector<std::vector<size_t>>& calls,
                       const std::vector<bool>& apart, size_t alignment) {
  const size_t n = sizes.size();
  alignment = std::max<size_t>(alignment, 1);
  // What a region calls may run on the region's threads too.
  std::vector<bool> own(n, false);
  std::vector<size_t> pending;
  for (size_t i = 0; i < n; ++i)
    if (i < apart.size() && apart[i]) {
      own[i] = true;
      pending.push_back(i);
    }
  while (!pending.empty()) {
    size_t i = pending.back();
    pending.pop_back();
    for (size_t callee : calls[i])
      if (!own[callee]) {
        own[callee] = true;
        pending.push_back(callee);
      }
  }

  // Callers before callees (Kahn's order over the stacked computations).
  std::vector<size_t> callers(n, 0);
  for (size_t i = 0; i < n; ++i)
    if (!own[i])
      for (size_t callee : calls[i]) ++callers[callee];
  std::vector<size_t> ready, order;
  for (size_t i = 0; i < n; ++i)
    if (!own[i] && callers[i] == 0) ready.push_back(i);
  ArenaStack stack;
  stack.offsets.assign(n, 0);
  while (!ready.empty()) {
    size_t i = ready.back();
    ready.pop_back();
    order.push_back(i);
    const size_t end = stack.offsets[i] + AlignUp(sizes[i], alignment);
    stack.size = std::max(stack.size, end);
    for (size_t callee : calls[i]) {
      if (own[callee]) continue;
      stack.offsets[callee] = std::max(stack.offsets[callee], end);
      if (--callers[callee] == 0) ready.push_back(callee);
    }
  }
  // Left out of the order: regions, what they call, and (never, for a
  // verified program) a cycle. Each gets bytes of its own.
  std::vector<bool> stacked(n, false);
  for (size_t i : order) stacked[i] = true;
  for (size_t i = 0; i < n; ++i) {
    if (stacked[i]) continue;
    stack.offsets[i] = stack.size;
    stack.size += AlignUp(sizes[i], alignment);
  }
  return stack;
}

}  // namespace xffi::cpu
