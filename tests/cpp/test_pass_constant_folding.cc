// Constant folding in the pass "simplify": what is folded gives the bits
// the backend computes from the same values passed as arguments (integer
// edge cases with XLA's rules, floats, conversions, data movement), what
// must not be folded (NaN, subnormals, big results) is left alone, and
// elementwise ops of broadcast scalars become one broadcast scalar.
#include "passes/constant_folding.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "executor_test_util.h"
#include "passes/algebraic_simplifier.h"
#include "passes/dead_code_elimination.h"
#include "xffi/program/executable.h"

namespace xffi::passes {
namespace {

using test::CompileAndRun;
using test::ParseHloForTest;

template <typename T>
std::string Join(const std::vector<T>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i)
    out += (i ? ", " : "") + std::to_string(values[i]);
  return out;
}

struct Case {
  std::string name;
  std::string type;  // result type, e.g. "s32"
  std::string op;    // text after the result shape, operands a and b
};

// The same ops over `a` and `b`, once as constants (folded) and once as
// parameters (run by the backend's kernels).
template <typename T>
std::pair<std::string, std::string> Programs(const std::string& type,
                                             const std::vector<T>& a,
                                             const std::vector<T>& b,
                                             const std::vector<Case>& cases,
                                             const std::string& extra = "") {
  const std::string n = std::to_string(a.size());
  std::string body, root_shapes, root_names;
  for (const Case& c : cases) {
    body += "  " + c.name + " = " + c.type + "[" + n + "]{0} " + c.op + "\n";
    root_shapes +=
        (root_shapes.empty() ? "" : ", ") + c.type + "[" + n + "]{0}";
    root_names += (root_names.empty() ? "" : ", ") + c.name;
  }
  const std::string root =
      "  ROOT r = (" + root_shapes + ") tuple(" + root_names + ")\n}\n";
  const std::string shape = type + "[" + n + "]{0}";
  std::string folded = "HloModule folded\n\nENTRY main {\n  a = " + shape +
                       " constant({" + Join(a) + "})\n  b = " + shape +
                       " constant({" + Join(b) + "})\n" + extra + body + root;
  std::string run = "HloModule run\n\nENTRY main {\n  a = " + shape +
                    " parameter(0)\n  b = " + shape + " parameter(1)\n" +
                    extra + body + root;
  return {folded, run};
}

int64_t CountOps(const Module& module, Opcode opcode) {
  int64_t n = 0;
  for (const auto& op : module.entry()->instructions())
    n += op->opcode() == opcode ? 1 : 0;
  return n;
}

// The parameter program run by the backend's own kernels (the test kernel
// set of CompileAndRun covers s32 and f32 only).
std::vector<Literal> RunWithBackendKernels(Module module,
                                           const std::vector<Literal>& args) {
  CompileOptions options;
  options.intra_op_threads = 2;
  StatusOr<std::unique_ptr<Executable>> exe =
      Compile(std::move(module), options);
  EXPECT_TRUE(exe.ok()) << exe.status().ToString();
  if (!exe.ok()) return {};
  StatusOr<std::vector<Literal>> out = (*exe)->Execute(args);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? std::move(*out) : std::vector<Literal>{};
}

// Folds the constant program and checks every result became a constant
// (when `all_fold`) and equals the run of the parameter program.
template <typename T>
void ExpectFoldedAsRun(const std::string& type, const std::vector<T>& a,
                       const std::vector<T>& b, const std::vector<Case>& cases,
                       bool all_fold = true) {
  auto [folded_text, run_text] = Programs(type, a, b, cases);
  Module folded = ParseHloForTest(folded_text);
  SimplifyAlgebra(folded);
  EliminateDeadCode(folded);
  ASSERT_TRUE(VerifyModule(folded).ok()) << VerifyModule(folded).ToString();
  if (all_fold) {
    for (const Instruction* value : folded.entry()->root()->operands())
      EXPECT_EQ(value->opcode(), Opcode::kConstant) << value->name();
  }
  std::vector<Literal> got = RunWithBackendKernels(std::move(folded), {});
  std::vector<Literal> want =
      RunWithBackendKernels(ParseHloForTest(run_text),
                            {Literal::Vector<T>(a), Literal::Vector<T>(b)});
  ASSERT_EQ(got.size(), cases.size());
  ASSERT_EQ(want.size(), cases.size());
  for (size_t i = 0; i < cases.size(); ++i)
    EXPECT_EQ(got[i], want[i])
        << cases[i].name << ": folded " << got[i].ToString() << ", run "
        << want[i].ToString();
}

TEST(ConstantFolding, SignedIntegersFollowXlaRules) {
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  const std::vector<int32_t> a = {7, -7, kMin, kMax, 0, 5, -1, 100, kMin, 3};
  const std::vector<int32_t> b = {2, 2, -1, 1, 0, 0, 31, 32, 33, -3};
  ExpectFoldedAsRun<int32_t>("s32", a, b,
                             {{"add", "s32", "add(a, b)"},
                              {"sub", "s32", "subtract(a, b)"},
                              {"mul", "s32", "multiply(a, b)"},
                              {"div", "s32", "divide(a, b)"},
                              {"rem", "s32", "remainder(a, b)"},
                              {"min", "s32", "minimum(a, b)"},
                              {"max", "s32", "maximum(a, b)"},
                              {"and", "s32", "and(a, b)"},
                              {"or", "s32", "or(a, b)"},
                              {"xor", "s32", "xor(a, b)"},
                              {"shl", "s32", "shift-left(a, b)"},
                              {"sra", "s32", "shift-right-arithmetic(a, b)"},
                              {"srl", "s32", "shift-right-logical(a, b)"},
                              {"neg", "s32", "negate(a)"},
                              {"abs", "s32", "abs(a)"},
                              {"not", "s32", "not(a)"},
                              {"lt", "pred", "compare(a, b), direction=LT"},
                              {"ne", "pred", "compare(a, b), direction=NE"},
                              {"to_s8", "s8", "convert(a)"},
                              {"to_u32", "u32", "convert(a)"},
                              {"to_f32", "f32", "convert(a)"},
                              {"to_f64", "f64", "convert(a)"},
                              {"to_pred", "pred", "convert(a)"}});
}

TEST(ConstantFolding, UnsignedIntegers) {
  const std::vector<uint8_t> a = {0, 1, 200, 255, 128, 7};
  const std::vector<uint8_t> b = {0, 3, 100, 255, 8, 9};
  ExpectFoldedAsRun<uint8_t>("u8", a, b,
                             {{"add", "u8", "add(a, b)"},
                              {"mul", "u8", "multiply(a, b)"},
                              {"div", "u8", "divide(a, b)"},
                              {"rem", "u8", "remainder(a, b)"},
                              {"sra", "u8", "shift-right-arithmetic(a, b)"},
                              {"neg", "u8", "negate(a)"},
                              {"ge", "pred", "compare(a, b), direction=GE"},
                              {"to_s32", "s32", "convert(a)"}});
}

TEST(ConstantFolding, FloatsThatRoundAsTheHardwareDoes) {
  const std::vector<float> a = {1.5f, -2.25f, 1e30f, 3.0f, -0.0f, 0.1f};
  const std::vector<float> b = {0.1f, 4.0f, 1e30f, -7.0f, 2.0f, 3.0f};
  ExpectFoldedAsRun<float>("f32", a, b,
                           {{"add", "f32", "add(a, b)"},
                            {"sub", "f32", "subtract(a, b)"},
                            {"mul", "f32", "multiply(a, b)"},
                            {"div", "f32", "divide(a, b)"},
                            {"max", "f32", "maximum(a, b)"},
                            {"neg", "f32", "negate(a)"},
                            {"abs", "f32", "abs(a)"},
                            {"le", "pred", "compare(a, b), direction=LE"},
                            {"to_f64", "f64", "convert(a)"}});
}

TEST(ConstantFolding, NanSubnormalsAndFloatToIntegerAreLeftToTheBackend) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> a = {1.0f, nan, 1e-40f};
  const std::vector<float> b = {2.0f, 1.0f, 1.0f};
  const std::vector<Case> cases = {{"add", "f32", "add(a, b)"},
                                   {"to_s32", "s32", "convert(b)"},
                                   {"tiny", "f32", "multiply(b, b)"}};
  auto [folded_text, run_text] = Programs<float>("f32", a, b, cases);
  Module folded = ParseHloForTest(folded_text);
  SimplifyAlgebra(folded);
  const std::vector<Instruction*>& roots = folded.entry()->root()->operands();
  EXPECT_EQ(roots[0]->opcode(), Opcode::kAdd);       // NaN and subnormal inputs
  EXPECT_EQ(roots[1]->opcode(), Opcode::kConvert);   // float -> integer
  EXPECT_EQ(roots[2]->opcode(), Opcode::kConstant);  // b * b is all normal
  ExpectFoldedAsRun<float>("f32", a, b, cases, /*all_fold=*/false);
}

TEST(ConstantFolding, DataMovementOfSmallConstants) {
  Module module = ParseHloForTest(R"(HloModule moves

ENTRY main {
  c = s32[2,3]{1,0} constant({ {1, 2, 3}, {4, 5, 6} })
  t = s32[3,2]{1,0} transpose(c), dimensions={1,0}
  s = s32[2,2]{1,0} slice(c), slice={[0:2], [0:3:2]}
  v = s32[2,3]{1,0} reverse(c), dimensions={1}
  r = s32[6]{0} reshape(c)
  b = s32[2,2,3]{2,1,0} broadcast(c), dimensions={1,2}
  row = s32[1,3]{1,0} constant({ {7, 8, 9} })
  spread = s32[2,3]{1,0} broadcast(row), dimensions={0,1}
  ROOT out = (s32[3,2]{1,0}, s32[2,2]{1,0}, s32[2,3]{1,0}, s32[6]{0}, s32[2,2,3]{2,1,0}, s32[2,3]{1,0}) tuple(t, s, v, r, b, spread)
}
)");
  SimplifyAlgebra(module);
  EliminateDeadCode(module);
  ASSERT_TRUE(VerifyModule(module).ok());
  const std::vector<Instruction*>& roots = module.entry()->root()->operands();
  for (const Instruction* value : roots)
    ASSERT_EQ(value->opcode(), Opcode::kConstant) << value->name();
  EXPECT_EQ(roots[0]->literal.ToVector<int32_t>(),
            (std::vector<int32_t>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(roots[1]->literal.ToVector<int32_t>(),
            (std::vector<int32_t>{1, 3, 4, 6}));
  EXPECT_EQ(roots[2]->literal.ToVector<int32_t>(),
            (std::vector<int32_t>{3, 2, 1, 6, 5, 4}));
  EXPECT_EQ(roots[3]->literal.ToVector<int32_t>(),
            (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(roots[4]->literal.ToVector<int32_t>(),
            (std::vector<int32_t>{1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6}));
  // A dimension of size 1 spread (StableHLO's broadcast_in_dim).
  EXPECT_EQ(roots[5]->literal.ToVector<int32_t>(),
            (std::vector<int32_t>{7, 8, 9, 7, 8, 9}));
}

// jnp.remainder's divisor check, as JAX lowers it: once folded, the
// remainder reads a broadcast constant (what lets the code generator
// divide by an immediate).
TEST(ConstantFolding, ScalarChainsAndBroadcastScalarsBecomeOneImmediate) {
  const char kText[] = R"(HloModule chain

ENTRY main {
  x = s32[2048]{0} parameter(0)
  d = s32[] constant(1009)
  zero = s32[] constant(0)
  one = s32[] constant(1)
  same = s32[] convert(d)
  is_zero = pred[] compare(same, zero), direction=EQ
  divisor = s32[] select(is_zero, one, same)
  spread = s32[2048]{0} broadcast(divisor), dimensions={}
  rem = s32[2048]{0} remainder(x, spread)
  two = s32[] constant(2)
  three = s32[] constant(3)
  b2 = s32[2048]{0} broadcast(two), dimensions={}
  b3 = s32[2048]{0} broadcast(three), dimensions={}
  five = s32[2048]{0} add(b2, b3)
  ROOT out = s32[2048]{0} add(rem, five)
}
)";
  Module module = ParseHloForTest(kText);
  SimplifyAlgebra(module);
  EliminateDeadCode(module);
  ASSERT_TRUE(VerifyModule(module).ok()) << VerifyModule(module).ToString();
  EXPECT_EQ(CountOps(module, Opcode::kSelect), 0);
  EXPECT_EQ(CountOps(module, Opcode::kCompare), 0);
  const Instruction* root = module.entry()->root();
  const Instruction* rem = root->operand(0);
  ASSERT_EQ(rem->opcode(), Opcode::kRemainder);
  ASSERT_EQ(rem->operand(1)->opcode(), Opcode::kBroadcast);
  ASSERT_EQ(rem->operand(1)->operand(0)->opcode(), Opcode::kConstant);
  EXPECT_EQ(rem->operand(1)->operand(0)->literal.ToVector<int32_t>(),
            (std::vector<int32_t>{1009}));
  const Instruction* five = root->operand(1);
  ASSERT_EQ(five->opcode(), Opcode::kBroadcast);
  EXPECT_EQ(five->name(), "five");
  ASSERT_EQ(five->operand(0)->opcode(), Opcode::kConstant);
  EXPECT_EQ(five->operand(0)->literal.ToVector<int32_t>(),
            (std::vector<int32_t>{5}));

  std::vector<int32_t> x(2048);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<int32_t>(i * 7919) - 5000000;
  std::vector<Literal> folded =
      CompileAndRun(std::move(module), {Literal::Vector<int32_t>(x)});
  // The divisor as an argument: nothing to fold.
  std::string unfolded_text = kText;
  const std::string divisor = "d = s32[] constant(1009)";
  unfolded_text.replace(unfolded_text.find(divisor), divisor.size(),
                        "d = s32[] parameter(1)");
  std::vector<Literal> unfolded = CompileAndRun(
      ParseHloForTest(unfolded_text),
      {Literal::Vector<int32_t>(x), Literal::Scalar<int32_t>(1009)});
  ASSERT_EQ(folded.size(), 1u);
  ASSERT_EQ(unfolded.size(), 1u);
  EXPECT_EQ(folded[0], unfolded[0]);
}

TEST(ConstantFolding, ResultsAboveTheBoundStayOps) {
  const int64_t n = kMaxFoldedElements + 1;
  std::vector<int32_t> values(static_cast<size_t>(n), 3);
  Module module = ParseHloForTest("HloModule big\n\nENTRY main {\n  c = s32[" +
                                  std::to_string(n) + "]{0} constant({" +
                                  Join(values) + "})\n  ROOT n = s32[" +
                                  std::to_string(n) + "]{0} negate(c)\n}\n");
  SimplifyAlgebra(module);
  EXPECT_EQ(module.entry()->root()->opcode(), Opcode::kNegate);
}

}  // namespace
}  // namespace xffi::passes
