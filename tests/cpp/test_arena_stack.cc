// Arenas laid out as a call stack: a callee's bytes never overlap those of
// a computation active while it runs (its callers, theirs, ...), computations
// never active together share bytes, and regions keep their own.
#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "cpu/arena_stack.h"

namespace xffi::cpu {
namespace {

// Whether computations a and b may run at once: one reaches the other
// through calls.
bool Nested(const std::vector<std::vector<size_t>>& calls, size_t a, size_t b) {
  std::vector<bool> seen(calls.size(), false);
  std::vector<size_t> pending = {a};
  while (!pending.empty()) {
    size_t i = pending.back();
    pending.pop_back();
    if (i == b) return true;
    if (seen[i]) continue;
    seen[i] = true;
    for (size_t callee : calls[i]) pending.push_back(callee);
  }
  return false;
}

void ExpectNestedDisjoint(const ArenaStack& stack,
                          const std::vector<size_t>& sizes,
                          const std::vector<std::vector<size_t>>& calls) {
  for (size_t a = 0; a < sizes.size(); ++a) {
    EXPECT_LE(stack.offsets[a] + sizes[a], stack.size) << a;
    for (size_t b = a + 1; b < sizes.size(); ++b) {
      if (!Nested(calls, a, b) && !Nested(calls, b, a)) continue;
      bool disjoint = stack.offsets[a] + sizes[a] <= stack.offsets[b] ||
                      stack.offsets[b] + sizes[b] <= stack.offsets[a];
      EXPECT_TRUE(disjoint) << a << " and " << b;
    }
  }
}

TEST(ArenaStack, SiblingsShareNestedStack) {
  // 0 calls 1, 2 and 3 one after another; 2 calls 4. The deepest chain is
  // 0 -> 2 -> 4: 640 + 128 + 64 bytes; 1 and 3 (512, 256) fit beside it.
  std::vector<size_t> sizes = {640, 512, 128, 256, 64};
  std::vector<std::vector<size_t>> calls = {{1, 2, 3}, {}, {4}, {}, {}};
  ArenaStack stack = StackArenas(sizes, calls, {}, 64);
  ExpectNestedDisjoint(stack, sizes, calls);
  EXPECT_EQ(stack.offsets[0], 0u);
  EXPECT_EQ(stack.offsets[1], 640u);
  EXPECT_EQ(stack.offsets[2], 640u);
  EXPECT_EQ(stack.offsets[3], 640u);
  EXPECT_EQ(stack.offsets[4], 640u + 128u);
  EXPECT_EQ(stack.size, 640u + 512u);  // 0 with 1 is the largest pair
}

TEST(ArenaStack, CalleeOfTwoCallersStartsAfterTheDeeperOne) {
  // 0 calls 1 and 2; both call 3, which must clear whichever is active.
  std::vector<size_t> sizes = {64, 192, 448, 128};
  std::vector<std::vector<size_t>> calls = {{1, 2}, {3}, {3, 3}, {}};
  ArenaStack stack = StackArenas(sizes, calls, {}, 64);
  ExpectNestedDisjoint(stack, sizes, calls);
  EXPECT_EQ(stack.offsets[3], 64u + 448u);
  EXPECT_EQ(stack.size, 64u + 448u + 128u);
}

TEST(ArenaStack, RegionsAndTheirCalleesKeepTheirOwnBytes) {
  // 1 is a region of a kernel in 0 and calls 2; 3 is an ordinary callee.
  std::vector<size_t> sizes = {128, 64, 192, 256};
  std::vector<std::vector<size_t>> calls = {{1, 3}, {2}, {}, {}};
  ArenaStack stack = StackArenas(sizes, calls, {false, true, false, false}, 64);
  ExpectNestedDisjoint(stack, sizes, calls);
  const size_t stacked = 128 + 256;  // 0, then 3
  EXPECT_EQ(stack.offsets[3], 128u);
  // 1 and 2 after the stack, apart from it and from each other.
  for (size_t own : {size_t{1}, size_t{2}}) {
    EXPECT_GE(stack.offsets[own], stacked) << own;
    EXPECT_FALSE(stack.offsets[own] < stack.offsets[3] + sizes[3] &&
                 stack.offsets[3] < stack.offsets[own] + sizes[own]);
  }
  EXPECT_EQ(stack.size, stacked + 64 + 192);
}

TEST(ArenaStack, OffsetsAreAligned) {
  std::vector<size_t> sizes = {100, 10, 1};
  std::vector<std::vector<size_t>> calls = {{1}, {2}, {}};
  ArenaStack stack = StackArenas(sizes, calls, {}, 64);
  EXPECT_EQ(stack.offsets[1], 128u);
  EXPECT_EQ(stack.offsets[2], 192u);
  EXPECT_EQ(stack.size, 256u);
}

TEST(ArenaStack, CycleFallsBackToSeparateBytes) {
  // Never from a verified program; still no overlap.
  std::vector<size_t> sizes = {64, 128, 64};
  std::vector<std::vector<size_t>> calls = {{1}, {2}, {1}};
  ArenaStack stack = StackArenas(sizes, calls, {}, 64);
  ExpectNestedDisjoint(stack, sizes, calls);
  EXPECT_EQ(stack.size, 64u + 128u + 64u);
}

}  // namespace
}  // namespace xffi::cpu
