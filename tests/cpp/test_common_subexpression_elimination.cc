// The pass "cse": ops computing what an earlier op computes are merged into
// it, in every computation; ops that differ in any field and custom calls
// with side effects are not; the program's results stay the same.
#include "passes/common_subexpression_elimination.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "executor_test_util.h"

namespace xffi::passes {
namespace {

using test::CompileAndRun;
using test::ParseHloForTest;

const Instruction* Find(const Computation* c, const std::string& name) {
  for (const auto& op : c->instructions())
    if (op->name() == name) return op.get();
  return nullptr;
}

// The clamped index JAX writes once for a dynamic_slice and again for the
// dynamic_update_slice beside it, plus a repeated constant and broadcast.
const char kDuplicates[] = R"(HloModule dup

ENTRY main {
  x = f32[4,2]{1,0} parameter(0)
  i = s32[] parameter(1)
  zero.a = s32[] constant(0)
  zero.b = s32[] constant(0)
  lt.a = pred[] compare(i, zero.a), direction=LT
  four.a = s32[] constant(4)
  add.a = s32[] add(i, four.a)
  sel.a = s32[] select(lt.a, add.a, i)
  row = f32[1,2]{1,0} dynamic-slice(x, sel.a, zero.a), dynamic_slice_sizes={1,2}
  two.a = f32[] constant(2)
  b.a = f32[1,2]{1,0} broadcast(two.a), dimensions={}
  twice = f32[1,2]{1,0} multiply(row, b.a)
  lt.b = pred[] compare(i, zero.b), direction=LT
  four.b = s32[] constant(4)
  add.b = s32[] add(i, four.b)
  sel.b = s32[] select(lt.b, add.b, i)
  two.b = f32[] constant(2)
  b.b = f32[1,2]{1,0} broadcast(two.b), dimensions={}
  three = f32[] constant(3)
  b.c = f32[1,2]{1,0} broadcast(three), dimensions={}
  le = pred[] compare(i, zero.b), direction=LE
  sum = f32[1,2]{1,0} add(twice, b.b)
  sum2 = f32[1,2]{1,0} add(sum, b.c)
  unused = pred[] and(le, lt.b)
  ROOT d = f32[4,2]{1,0} dynamic-update-slice(x, sum2, sel.b, zero.b)
}
)";

TEST(CommonSubexpressionElimination, MergesRepeatsAndKeepsDifferences) {
  Module module = ParseHloForTest(kDuplicates);
  const Computation* entry = module.entry();
  // zero.b, lt.b, four.b, add.b, sel.b, two.b, b.b.
  EXPECT_EQ(EliminateCommonSubexpressions(module), 7);
  EXPECT_EQ(Find(entry, "sel.b"), nullptr);
  EXPECT_EQ(Find(entry, "b.b"), nullptr);
  const Instruction* d = entry->root();
  EXPECT_EQ(d->operand(2), Find(entry, "sel.a"));
  EXPECT_EQ(d->operand(3), Find(entry, "zero.a"));
  EXPECT_EQ(Find(entry, "sum")->operand(1), Find(entry, "b.a"));
  // A different constant, and compare in another direction, stay.
  EXPECT_NE(Find(entry, "b.c"), nullptr);
  EXPECT_NE(Find(entry, "le"), nullptr);
  EXPECT_EQ(Find(entry, "unused")->operand(1), Find(entry, "lt.a"));
  EXPECT_TRUE(VerifyModule(module).ok());
  // Nothing left to merge.
  EXPECT_EQ(EliminateCommonSubexpressions(module), 0);
}

TEST(CommonSubexpressionElimination, ResultsAreUnchanged) {
  std::vector<Literal> args;
  args.push_back(Literal::FromVector<float>({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8}));
  args.push_back(Literal::Scalar<int32_t>(-3));  // row 1
  Module merged = ParseHloForTest(kDuplicates);
  EliminateCommonSubexpressions(merged);
  std::vector<Literal> out = CompileAndRun(std::move(merged), args);
  ASSERT_EQ(out.size(), 1u);
  // Row 1 becomes 2 * row + 2 + 3.
  EXPECT_EQ(out[0].ToVector<float>(),
            (std::vector<float>{1, 2, 11, 13, 5, 6, 7, 8}));
}

TEST(CommonSubexpressionElimination, SideEffectsAndLoopBodies) {
  Module module = ParseHloForTest(R"(HloModule effects

body {
  s = (s32[], f32[2]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[2]{0} get-tuple-element(s), index=1
  one.a = s32[] constant(1)
  one.b = s32[] constant(1)
  n = s32[] add(i, one.a)
  y = f32[2]{0} negate(x)
  y2 = f32[2]{0} negate(x)
  z = f32[2]{0} add(y, y2)
  ROOT t = (s32[], f32[2]{0}) tuple(n, z)
}

cond {
  s = (s32[], f32[2]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}

ENTRY main {
  x = f32[2]{0} parameter(0)
  e.a = f32[2]{0} custom-call(x), custom_call_target="effect", custom_call_has_side_effect=true
  e.b = f32[2]{0} custom-call(x), custom_call_target="effect", custom_call_has_side_effect=true
  zero = s32[] constant(0)
  init = (s32[], f32[2]{0}) tuple(zero, x)
  w = (s32[], f32[2]{0}) while(init), condition=cond, body=body
  ROOT r = (f32[2]{0}, f32[2]{0}, (s32[], f32[2]{0})) tuple(e.a, e.b, w)
}
)");
  EXPECT_EQ(EliminateCommonSubexpressions(module), 2);  // one.b, y2
  const Computation* entry = module.entry();
  EXPECT_NE(Find(entry, "e.b"), nullptr);
  const Computation* body = module.FindComputation("body");
  ASSERT_NE(body, nullptr);
  const Instruction* z = Find(body, "z");
  EXPECT_EQ(z->operand(0), z->operand(1));
  EXPECT_TRUE(VerifyModule(module).ok());
}

}  // namespace
}  // namespace xffi::passes
