// The pass "inline": calls (nested, and inside while bodies) replaced by
// their callees' ops with the callees' names and locations, unreachable
// computations removed, results unchanged, and errors inside an inlined
// callee still naming the op and its line:column.
#include "passes/call_inlining.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "executor_test_util.h"
#include "xffi/program/executable.h"
#include "xffi/program/text.h"

namespace xffi::passes {
namespace {

using test::CompileAndRun;
using test::ParseHloForTest;

int64_t CountOps(const Module& module, Opcode opcode) {
  int64_t n = 0;
  for (const auto& computation : module.computations())
    for (const auto& op : computation->instructions())
      n += op->opcode() == opcode ? 1 : 0;
  return n;
}

const Instruction* FindOp(const Module& module, const std::string& name) {
  for (const auto& computation : module.computations())
    for (const auto& op : computation->instructions())
      if (op->name() == name) return op.get();
  return nullptr;
}

// scale(x, k) = x * broadcast(k); twice(x) = scale(x, 2) + x, called from
// the entry and from a while body that runs 3 times.
const char kNested[] = R"(HloModule nested

scale {
  sx = s32[4]{0} parameter(0)
  sk = s32[] parameter(1)
  sb = s32[4]{0} broadcast(sk), dimensions={}
  ROOT smul = s32[4]{0} multiply(sx, sb)
}

twice {
  tx = s32[4]{0} parameter(0)
  two = s32[] constant(2)
  scaled = s32[4]{0} call(tx, two), to_apply=scale
  ROOT tsum = s32[4]{0} add(scaled, tx)
}

body {
  state = (s32[], s32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  v = s32[4]{0} get-tuple-element(state), index=1
  one = s32[] constant(1)
  next_i = s32[] add(i, one)
  next_v = s32[4]{0} call(v), to_apply=twice
  ROOT next = (s32[], s32[4]{0}) tuple(next_i, next_v)
}

cond {
  cstate = (s32[], s32[4]{0}) parameter(0)
  ci = s32[] get-tuple-element(cstate), index=0
  three = s32[] constant(3)
  ROOT more = pred[] compare(ci, three), direction=LT
}

ENTRY main {
  x = s32[4]{0} parameter(0)
  first = s32[4]{0} call(x), to_apply=twice
  zero = s32[] constant(0)
  init = (s32[], s32[4]{0}) tuple(zero, first)
  loop = (s32[], s32[4]{0}) while(init), condition=cond, body=body
  ROOT out = s32[4]{0} get-tuple-element(loop), index=1
}
)";

TEST(CallInlining, InlinesNestedCallsAndCallsInsideWhileBodies) {
  Module module = ParseHloForTest(kNested);
  ASSERT_EQ(CountOps(module, Opcode::kCall), 3);
  StatusOr<bool> changed = CallInlining().Run(module);
  ASSERT_TRUE(changed.ok()) << changed.status().ToString();
  EXPECT_TRUE(*changed);
  EXPECT_TRUE(VerifyModule(module).ok()) << VerifyModule(module).ToString();
  EXPECT_EQ(CountOps(module, Opcode::kCall), 0);
  // Only the entry and the loop's computations are left.
  std::vector<std::string> names;
  for (const auto& computation : module.computations())
    names.push_back(computation->name());
  EXPECT_EQ(names, (std::vector<std::string>{"body", "cond", "main"}));
  // The entry's ops read the parameter directly: the callee's multiply now
  // sits in the entry, behind the copied broadcast of the copied constant.
  const Instruction* sum = nullptr;
  for (const auto& op : module.entry()->instructions())
    if (op->opcode() == Opcode::kAdd) sum = op.get();
  ASSERT_NE(sum, nullptr);
  EXPECT_EQ(sum->operand(1)->name(), "x");
  EXPECT_EQ(sum->operand(0)->opcode(), Opcode::kMultiply);
  EXPECT_EQ(sum->operand(0)->operand(1)->operand(0)->opcode(),
            Opcode::kConstant);

  // A second run finds nothing to do.
  changed = CallInlining().Run(module);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
}

TEST(CallInlining, ResultsEqualTheCallsResults) {
  const std::vector<int32_t> x = {1, -7, 40000, 2147483647};
  // Each twice() is x * 3 (wrapping); four of them: x * 81.
  std::vector<int32_t> expected;
  for (int32_t v : x)
    expected.push_back(static_cast<int32_t>(static_cast<uint32_t>(v) * 81u));
  Module module = ParseHloForTest(kNested);
  ASSERT_TRUE(CallInlining().Run(module).ok());
  std::vector<Literal> inlined =
      CompileAndRun(std::move(module), {Literal::Vector<int32_t>(x)});
  ASSERT_EQ(inlined.size(), 1u);
  EXPECT_EQ(inlined[0].ToVector<int32_t>(), expected);
}

TEST(CallInlining, KeepsNamesAndLocationsAndRenamesOnlyClashes) {
  Module module = ParseHloForTest(R"(HloModule names

callee {
  p = f32[2]{0} parameter(0)
  x = f32[2]{0} negate(p)
  ROOT unique_name = f32[2]{0} add(x, p)
}

ENTRY main {
  x = f32[2]{0} parameter(0)
  c1 = f32[2]{0} call(x), to_apply=callee
  ROOT c2 = f32[2]{0} call(c1), to_apply=callee
}
)");
  const Instruction* original = FindOp(module, "unique_name");
  ASSERT_NE(original, nullptr);
  const Location location = original->location();
  ASSERT_TRUE(CallInlining().Run(module).ok());
  EXPECT_TRUE(VerifyModule(module).ok());
  std::vector<std::string> names;
  for (const auto& op : module.entry()->instructions()) {
    names.push_back(op->name());
    if (op->opcode() == Opcode::kAdd) {
      EXPECT_EQ(op->location().ToString(), location.ToString());
    }
  }
  // The first copy keeps the callee's names where free ("x" is the entry's).
  ASSERT_EQ(names.size(), 5u);
  EXPECT_EQ(names[0], "x");
  EXPECT_NE(names[1], "x");
  EXPECT_EQ(names[1].rfind("x.inlined", 0), 0u) << names[1];
  EXPECT_EQ(names[2], "unique_name");
  EXPECT_NE(names[4], "unique_name");
  EXPECT_EQ(module.entry()->root()->name(), names[4]);

  std::vector<Literal> out =
      CompileAndRun(std::move(module), {Literal::Vector<float>({1.5f, -2})});
  ASSERT_EQ(out.size(), 1u);
  // callee(v) = -v + v = 0 for finite v.
  EXPECT_EQ(out[0].ToVector<float>(), (std::vector<float>{0.0f, 0.0f}));
}

TEST(CallInlining, CalleeReturningAParameterOrATuple) {
  Module module = ParseHloForTest(R"(HloModule shapes

pass_through {
  a = s32[3]{0} parameter(0)
  ROOT b = s32[3]{0} parameter(1)
}

pair {
  pa = s32[3]{0} parameter(0)
  pb = s32[3]{0} parameter(1)
  ROOT t = (s32[3]{0}, s32[3]{0}) tuple(pb, pa)
}

ENTRY main {
  x = s32[3]{0} parameter(0)
  y = s32[3]{0} parameter(1)
  same = s32[3]{0} call(x, y), to_apply=pass_through
  swapped = (s32[3]{0}, s32[3]{0}) call(same, x), to_apply=pair
  g0 = s32[3]{0} get-tuple-element(swapped), index=0
  g1 = s32[3]{0} get-tuple-element(swapped), index=1
  ROOT r = s32[3]{0} subtract(g0, g1)
}
)");
  ASSERT_TRUE(CallInlining().Run(module).ok());
  EXPECT_TRUE(VerifyModule(module).ok());
  EXPECT_EQ(CountOps(module, Opcode::kCall), 0);
  EXPECT_EQ(module.computations().size(), 1u);
  const std::vector<int32_t> x = {1, 2, 3}, y = {10, 20, 30};
  std::vector<Literal> out =
      CompileAndRun(std::move(module),
                    {Literal::Vector<int32_t>(x), Literal::Vector<int32_t>(y)});
  ASSERT_EQ(out.size(), 1u);
  std::vector<int32_t> expected;
  for (size_t i = 0; i < x.size(); ++i) expected.push_back(x[i] - y[i]);
  EXPECT_EQ(out[0].ToVector<int32_t>(), expected);
}

TEST(CallInlining, ErrorsInsideAnInlinedCalleeNameTheOpAndItsLineAndColumn) {
  StatusOr<Module> module = ParseStableHlo(R"(module @m {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = call @helper(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @helper(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.custom_call @xffi_no_such_target_anywhere(%arg0) {api_version = 4 : i32} : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
)",
                                           "inline.mlir");
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  StatusOr<std::unique_ptr<Executable>> exe = Compile(std::move(*module));
  ASSERT_FALSE(exe.ok());
  const std::string message = exe.status().ToString();
  EXPECT_NE(message.find("xffi_no_such_target_anywhere"), std::string::npos)
      << message;
  EXPECT_NE(message.find("inline.mlir:7:"), std::string::npos) << message;
}

}  // namespace
}  // namespace xffi::passes
