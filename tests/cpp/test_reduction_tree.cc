// The pass "reduction-tree": a byte-float reduce with a reduced dimension
// longer than 32 becomes XLA:CPU's reduce-windows of 32 and a reduce of what
// they leave, and so sums in XLA's order. tests/programs/byte_float_parity.py
// compares whole reductions with jax.jit bit for bit.
#include "passes/reduction_tree.h"

#include <gtest/gtest.h>

#include <cmath>
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

TEST(ReductionTree, LeavesRowsOf32AndLargeWiderFloatSums) {
  Module short_rows = Parse(SumProgram("4x32", "4x", "1", "f8E4M3FN"));
  EXPECT_EQ(RewriteReductionTrees(short_rows), 0);
  // 4096 elements: YNNPACK's in XLA, xffi's own order.
  Module large = Parse(SumProgram("128x32x33", "128x32x", "2", "f32"));
  EXPECT_EQ(RewriteReductionTrees(large), 0);
  Module small = Parse(SumProgram("4x33", "4x", "1", "f32"));
  EXPECT_EQ(RewriteReductionTrees(small), 1);
  Module small_f64 = Parse(SumProgram("4095", "", "0", "f64"));
  EXPECT_EQ(RewriteReductionTrees(small_f64), 2);  // 4095 -> 128 -> 4
}

// XLA:CPU's sum of `x` (dims, reducing the last `reduced` of them) below
// 4096 elements, written out: windows of 32 along each reduced dimension
// longer than 32 (padding split, smaller half low), each folded in order,
// repeated until none is longer; then the rest in order.
std::vector<float> XlaOrderSum(std::vector<float> x, std::vector<int64_t> dims,
                               size_t reduced) {
  const size_t kept = dims.size() - reduced;
  for (;;) {
    size_t d = kept;
    while (d < dims.size() && dims[d] <= 32) ++d;
    if (d == dims.size()) break;
    // One level along every reduced dimension at once, as a reduce-window:
    // the reduced dims' windows fold in row-major order.
    std::vector<int64_t> out_dims = dims, low(dims.size(), 0),
                         size(dims.size(), 1);
    for (size_t k = kept; k < dims.size(); ++k) {
      if (dims[k] <= 32) {
        size[k] = dims[k];
        out_dims[k] = 1;
        continue;
      }
      const int64_t windows = (dims[k] + 31) / 32;
      size[k] = 32;
      low[k] = (windows * 32 - dims[k]) / 2;
      out_dims[k] = windows;
    }
    int64_t out_n = 1;
    for (int64_t v : out_dims) out_n *= v;
    std::vector<float> out(static_cast<size_t>(out_n), 0.0f);
    for (int64_t o = 0; o < out_n; ++o) {
      std::vector<int64_t> oi(dims.size());
      for (int64_t rem = o, k = static_cast<int64_t>(dims.size()) - 1; k >= 0;
           --k) {
        oi[static_cast<size_t>(k)] = rem % out_dims[static_cast<size_t>(k)];
        rem /= out_dims[static_cast<size_t>(k)];
      }
      int64_t window_n = 1;
      for (int64_t v : size) window_n *= v;
      float acc = 0.0f;
      for (int64_t w = 0; w < window_n; ++w) {
        int64_t flat = 0;
        bool inside = true;
        for (int64_t rem = w, k = static_cast<int64_t>(dims.size()) - 1; k >= 0;
             --k) {
          const size_t uk = static_cast<size_t>(k);
          const int64_t at = oi[uk] * size[uk] + rem % size[uk] - low[uk];
          rem /= size[uk];
          inside = inside && at >= 0 && at < dims[uk];
          int64_t stride = 1;
          for (size_t m = uk + 1; m < dims.size(); ++m) stride *= dims[m];
          flat += at * stride;
        }
        if (inside) acc += x[static_cast<size_t>(flat)];
      }
      out[static_cast<size_t>(o)] = acc;
    }
    x = std::move(out);
    dims = std::move(out_dims);
  }
  int64_t rows = 1, row = 1;
  for (size_t k = 0; k < kept; ++k) rows *= dims[k];
  for (size_t k = kept; k < dims.size(); ++k) row *= dims[k];
  std::vector<float> sums(static_cast<size_t>(rows), 0.0f);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < row; ++i)
      sums[static_cast<size_t>(r)] += x[static_cast<size_t>(r * row + i)];
  return sums;
}

// Small f32 sums, plain and fused with a producer (x * x), give XLA's bits:
// rows of 20 (one window, in order), of 1000 and 4000 (two levels) and
// columns of 100. Values over 16 octaves so that any other
// order rounds differently.
TEST(ReductionTree, SmallF32SumsGiveXlasBits) {
  struct Case {
    std::vector<int64_t> dims;
    size_t reduced;
  };
  const Case cases[] = {
      {{7, 20}, 1}, {{3, 1000}, 1}, {{4000}, 1}, {{3, 100, 5}, 1}};
  uint32_t state = 12345;
  for (const Case& c : cases) {
    int64_t n = 1;
    std::string in, out, dims;
    for (size_t k = 0; k < c.dims.size(); ++k) {
      n *= c.dims[k];
      in += (k ? "x" : "") + std::to_string(c.dims[k]);
      if (k + c.reduced < c.dims.size())
        out += std::to_string(c.dims[k]) + "x";
      else
        dims += (dims.empty() ? "" : ", ") + std::to_string(k);
    }
    std::vector<float> x(static_cast<size_t>(n));
    for (float& v : x) {
      state = state * 1664525u + 1013904223u;
      v = std::ldexp(static_cast<float>(state >> 8) / 16777216.0f - 0.5f,
                     static_cast<int>(state % 16));
    }
    // A column sum reduces a middle dimension: XlaOrderSum wants the
    // reduced ones last, so it gets the array transposed.
    std::vector<float> reference_input = x;
    std::vector<int64_t> reference_dims = c.dims;
    size_t reduced = c.reduced;
    if (c.dims.size() == 3) {
      reference_dims = {c.dims[0], c.dims[2], c.dims[1]};
      for (int64_t a = 0; a < c.dims[0]; ++a)
        for (int64_t b = 0; b < c.dims[1]; ++b)
          for (int64_t d = 0; d < c.dims[2]; ++d)
            reference_input[static_cast<size_t>(
                (a * c.dims[2] + d) * c.dims[1] + b)] =
                x[static_cast<size_t>((a * c.dims[1] + b) * c.dims[2] + d)];
      out = std::to_string(c.dims[0]) + "x" + std::to_string(c.dims[2]) + "x";
      dims = "1";
    }
    for (bool squared : {false, true}) {
      std::vector<float> input = reference_input;
      if (squared)
        for (float& v : input) v = v * v;
      const std::vector<float> want =
          XlaOrderSum(input, reference_dims, reduced);
      std::string text = SumProgram(in, out, dims, "f32");
      if (squared) {
        const std::string type = "tensor<" + in + "xf32>";
        text.replace(text.find("stablehlo.reduce(%x"), 19,
                     "stablehlo.reduce(%sq");
        text.replace(text.find("    %0 ="), 0,
                     "    %sq = stablehlo.multiply %x, %x : " + type + "\n");
      }
      StatusOr<std::unique_ptr<Executable>> exe = Compile(Parse(text));
      ASSERT_TRUE(exe.ok()) << exe.status().ToString();
      StatusOr<std::vector<Literal>> got =
          (*exe)->Execute({Literal::FromVector<float>(c.dims, x)});
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      const std::vector<float> sums = (*got)[0].ToVector<float>();
      ASSERT_EQ(sums.size(), want.size()) << in;
      for (size_t i = 0; i < sums.size(); ++i)
        EXPECT_EQ(sums[i], want[i])
            << in << " over " << dims << (squared ? " squared" : "")
            << ", result " << i;
    }
  }
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
