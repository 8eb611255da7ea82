// The control flow both executors share (compiler/control_flow.h): branch
// choice, the state-swapping loop, and which loop conditions are scalar.
#include "compiler/control_flow.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "xffi/program/text.h"

namespace xffi::compiler {
namespace {

TEST(ChosenBranch, PredAndIndexAsHloDefinesThem) {
  EXPECT_EQ(ChosenBranch(true, 1, 2), 0u);
  EXPECT_EQ(ChosenBranch(true, 0, 2), 1u);
  EXPECT_EQ(ChosenBranch(false, 0, 3), 0u);
  EXPECT_EQ(ChosenBranch(false, 2, 3), 2u);
  // Out of range, either way: the last branch.
  EXPECT_EQ(ChosenBranch(false, 3, 3), 2u);
  EXPECT_EQ(ChosenBranch(false, -1, 3), 2u);
}

// A counter and an accumulator in host memory: the body writes the other
// set; the result lands in set A however many iterations ran.
Status CountTo(int limit, int& counter_out, float& sum_out, int& copies) {
  int counter[2] = {0, -1};
  float sum[2] = {0.5f, -1};
  std::vector<void*> a = {&counter[0], &sum[0]}, b = {&counter[1], &sum[1]};
  std::vector<const void*> current;
  copies = 0;
  Status status = RunSwappingLoop(
      a, b, current, {sizeof(int), sizeof(float)},
      [&](const void* const* state) -> StatusOr<bool> {
        return *static_cast<const int*>(state[0]) < limit;
      },
      [&](const void* const* state, void* const* next) {
        *static_cast<int*>(next[0]) = *static_cast<const int*>(state[0]) + 1;
        *static_cast<float*>(next[1]) =
            *static_cast<const float*>(state[1]) * 2;
        return Status::Ok();
      },
      [&](void* to, const void* from, size_t size) {
        ++copies;
        std::memcpy(to, from, size);
        return Status::Ok();
      });
  counter_out = counter[0];
  sum_out = sum[0];
  return status;
}

TEST(RunSwappingLoop, EndsWithTheStateInSetA) {
  for (int limit : {0, 1, 2, 5}) {
    int counter = 0, copies = 0;
    float sum = 0;
    ASSERT_TRUE(CountTo(limit, counter, sum, copies).ok());
    EXPECT_EQ(counter, limit);
    EXPECT_EQ(sum, 0.5f * static_cast<float>(1 << limit));
    // An odd count ends on set B: both leaves are copied back, once.
    EXPECT_EQ(copies, limit % 2 == 1 ? 2 : 0) << limit;
  }
}

TEST(RunSwappingLoop, StopsAtTheFirstError) {
  std::vector<void*> a = {nullptr}, b = {nullptr};
  std::vector<const void*> current;
  int bodies = 0;
  Status status = RunSwappingLoop(
      a, b, current, {0},
      [&](const void* const*) -> StatusOr<bool> {
        if (bodies == 3) return Internal("condition failed");
        return true;
      },
      [&](const void* const*, void* const*) {
        ++bodies;
        return Status::Ok();
      },
      [](void*, const void*, size_t) { return Status::Ok(); });
  EXPECT_EQ(status.message(), "condition failed");
  EXPECT_EQ(bodies, 3);
}

TEST(ExtractScalarLoopCondition, ReadsScalarLeavesOnly) {
  StatusOr<Module> module = ParseProgram(R"(HloModule conditions
scalar {
  s = (s32[], (f32[4], s32[])) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  inner = (f32[4], s32[]) get-tuple-element(s), index=1
  n = s32[] get-tuple-element(inner), index=1
  ROOT lt = pred[] compare(i, n), direction=LT
}
tensor {
  s = (s32[], (f32[4], s32[])) parameter(0)
  inner = (f32[4], s32[]) get-tuple-element(s), index=1
  x = f32[4] get-tuple-element(inner), index=0
  zero = f32[] constant(0)
  r = f32[] reduce(x, zero), dimensions={0}, to_apply=add
  ROOT gt = pred[] compare(r, zero), direction=GT
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY main {
  s = (s32[], (f32[4], s32[])) parameter(0)
  a = pred[] call(s), to_apply=scalar
  b = pred[] call(s), to_apply=tensor
  ROOT t = (pred[], pred[]) tuple(a, b)
}
)",
                                         "conditions.hlo");
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto any_op = [](const Instruction&) { return true; };
  std::optional<ScalarLoopCondition> scalar =
      ExtractScalarLoopCondition(*module->FindComputation("scalar"), any_op);
  ASSERT_TRUE(scalar.has_value());
  // Leaf 0 is i; leaf 2 is n (leaf 1 is the tensor).
  EXPECT_THAT(scalar->leaves, ::testing::ElementsAre(0, 2));
  EXPECT_EQ(scalar->computation->root()->opcode(), Opcode::kCompare);
  // A backend that cannot evaluate compare on the host gets none.
  EXPECT_FALSE(ExtractScalarLoopCondition(*module->FindComputation("scalar"),
                                          [](const Instruction& op) {
                                            return op.opcode() !=
                                                   Opcode::kCompare;
                                          })
                   .has_value());
  EXPECT_FALSE(
      ExtractScalarLoopCondition(*module->FindComputation("tensor"), any_op)
          .has_value());
}

}  // namespace
}  // namespace xffi::compiler
