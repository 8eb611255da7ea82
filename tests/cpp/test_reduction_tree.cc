// The pass "reduction-tree": a byte-float reduce with a reduced dimension
// longer than 32 becomes XLA:CPU's reduce-windows of 32 and a reduce of what
// they leave, and so sums in XLA's order. tests/programs/byte_float_parity.py
// compares whole reductions with jax.jit bit for bit.
#include "passes/reduction_tree.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "xffi/program/executable.h"
#include "xffi/program/literal.h"
#include "xffi/program/text.h"

namespace xffi::passes {
namespace {

// jnp.sum(x, axis=axes) as JAX 0.10 prints it, for x of `type`.
std::string SumProgram(const std::string& in, const std::string& out,
                       const std::string& dims, const std::string& type) {
  return "module @jit_f {\n  func.func public @main(%x: tensor<" + in + "x" +
         type + ">) -> tensor<" + out + type +
         "> {\n    %c = stablehlo.constant dense<0.0> : tensor<" + type +
         ">\n    %0 = stablehlo.reduce(%x init: %c) applies stablehlo.add "
         "across dimensions = [" +
         dims + "] : (tensor<" + in + "x" + type + ">, tensor<" + type +
         ">) -> tensor<" + out + type + ">\n    return %0 : tensor<" + out +
         type + ">\n  }\n}\n";
}

Module Parse(const std::string& text) {
  StatusOr<Module> module = ParseStableHlo(text);
  EXPECT_TRUE(module.ok()) << module.status().ToString();
  return module.ok() ? std::move(*module) : Module();
}

// The reduce-windows of the entry, in program order.
std::vector<const Instruction*> Windows(const Module& module) {
  std::vector<const Instruction*> windows;
  for (const auto& c : module.computations())
    for (const auto& op : c->instructions())
      if (op->opcode() == Opcode::kReduceWindow) windows.push_back(op.get());
  return windows;
}

TEST(ReductionTree, LongRowsBecomeWindowsOf32PaddedEvenly) {
  Module module = Parse(SumProgram("2x1025", "2x", "1", "f8E4M3FN"));
  EXPECT_EQ(RewriteReductionTrees(module), 2);
  ASSERT_TRUE(VerifyModule(module).ok()) << VerifyModule(module).ToString();
  std::vector<const Instruction*> windows = Windows(module);
  ASSERT_EQ(windows.size(), 2u);
  // 1025 -> 33 windows (1056, padding 31: 15 low) -> 2 (64, 31 again).
  EXPECT_EQ(windows[0]->shape().dims(), (std::vector<int64_t>{2, 33}));
  EXPECT_EQ(windows[1]->shape().dims(), (std::vector<int64_t>{2, 2}));
  for (const Instruction* w : windows) {
    EXPECT_EQ(w->window[0].size, 1);
    EXPECT_EQ(w->window[1].size, 32);
    EXPECT_EQ(w->window[1].stride, 32);
    EXPECT_EQ(w->window[1].padding_low, 15);
    EXPECT_EQ(w->window[1].padding_high, 16);
  }
}

TEST(ReductionTree, ShortReducedDimensionsTakeOneWholeWindow) {
  Module module = Parse(SumProgram("20x40", "", "0, 1", "f8E5M2"));
  EXPECT_EQ(RewriteReductionTrees(module), 1);
  std::vector<const Instruction*> windows = Windows(module);
  ASSERT_EQ(windows.size(), 1u);
  EXPECT_EQ(windows[0]->shape().dims(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(windows[0]->window[0].size, 20);
  EXPECT_EQ(windows[0]->window[0].stride, 20);
  EXPECT_EQ(windows[0]->window[1].padding_low, 12);
  EXPECT_EQ(windows[0]->window[1].padding_high, 12);
}

TEST(ReductionTree, LeavesRowsOf32AndWiderFloats) {
  Module short_rows = Parse(SumProgram("4x32", "4x", "1", "f8E4M3FN"));
  EXPECT_EQ(RewriteReductionTrees(short_rows), 0);
  Module wide = Parse(SumProgram("4x33", "4x", "1", "f32"));
  EXPECT_EQ(RewriteReductionTrees(wide), 0);
}

TEST(ReductionTree, SumsInXlasOrder) {
  // 16 then 32 halves in f8e4m3fn (spacing 2 at 16): in order, every
  // 16 + 0.5 rounds back to 16. XLA's windows (15 padding low) sum
  // 16 + 16 halves = 16 and the other 16 halves = 8 apart: 24.
  std::vector<uint8_t> x(33, 0x30);  // 0.5
  x[0] = 0x58;                       // 16
  StatusOr<std::unique_ptr<Executable>> exe =
      Compile(Parse(SumProgram("33", "", "0", "f8E4M3FN")));
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  const Literal input = Literal::FromBytes(
      Shape::Array(ElementType::kF8E4M3FN, {33}), x.data(), x.size());
  StatusOr<std::vector<Literal>> out = (*exe)->Execute({input});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ(*static_cast<const uint8_t*>((*out)[0].data()), 0x5c);  // 24
}

// Which NaN a long sum returns when two NaNs of opposite signs fall in
// different windows of 32. Expected bytes: jax 0.10.2, jnp.sum on XLA:CPU of
// f8e4m3fn halves with +NaN (0x7f) first and -NaN (0xff) last: of 64 (the
// last level folds 2 windows) the later NaN, of 300 (10 windows) the first.
TEST(ReductionTree, ShortLastLevelsReturnTheLaterNaN) {
  auto sum = [](int64_t length, uint8_t first, uint8_t last) {
    std::vector<uint8_t> x(static_cast<size_t>(length), 0x30);  // 0.5
    x.front() = first;
    x.back() = last;
    const std::string n = std::to_string(length);
    StatusOr<std::unique_ptr<Executable>> exe =
        Compile(Parse(SumProgram(n, "", "0", "f8E4M3FN")));
    EXPECT_TRUE(exe.ok()) << exe.status().ToString();
    if (!exe.ok()) return uint8_t{0};
    const Literal input = Literal::FromBytes(
        Shape::Array(ElementType::kF8E4M3FN, {length}), x.data(), x.size());
    StatusOr<std::vector<Literal>> out = (*exe)->Execute({input});
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.ok() ? *static_cast<const uint8_t*>((*out)[0].data())
                    : uint8_t{0};
  };
  EXPECT_EQ(sum(64, 0x7f, 0xff), 0xff);
  EXPECT_EQ(sum(64, 0xff, 0x7f), 0x7f);
  EXPECT_EQ(sum(300, 0x7f, 0xff), 0x7f);
  EXPECT_EQ(sum(300, 0xff, 0x7f), 0xff);
  // In one window (a plain reduce of 32) the first NaN wins.
  EXPECT_EQ(sum(32, 0x7f, 0xff), 0x7f);
}

}  // namespace
}  // namespace xffi::passes
