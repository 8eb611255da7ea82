// The executor's while loop (cpu/while_thunk.h): which conditions compile
// into an inline scalar program and which state leaves they read, and
// loops run through the executor, with inline and computed conditions,
// against the same loop stepped in C++: counters counting down, by 3,
// with <=, != and a reversed compare, 64-bit and unsigned counters, zero
// iterations, a limit carried in the state, a condition that reduces a
// tensor, nested tuple state, nested loops and a conditional in a body.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cpu/executor.h"
#include "cpu/while_thunk.h"
#include "executor_test_util.h"
#include "xffi/program/executable.h"
#include "xffi/program/literal.h"
#include "xffi/program/text.h"

namespace xffi {
namespace {

// Through the whole pipeline (fusion and generated kernels included).
std::unique_ptr<Executable> CompileText(const std::string& text) {
  CompileOptions options;
  options.intra_op_threads = 1;
  StatusOr<std::unique_ptr<Executable>> exe =
      Compile(test::ParseHloForTest(text), options);
  EXPECT_TRUE(exe.ok()) << exe.status().ToString();
  return exe.ok() ? std::move(*exe) : nullptr;
}

// The condition computation named "cond" of `text`.
std::optional<cpu::LoopCondition> CompileCondition(const std::string& text) {
  Module module = test::ParseHloForTest(text);
  const Computation* cond = module.FindComputation("cond");
  EXPECT_NE(cond, nullptr);
  if (cond == nullptr) return std::nullopt;
  return cpu::CompileLoopCondition(*cond);
}

bool Evaluate(const cpu::LoopCondition& condition,
              const std::vector<const void*>& leaves) {
  std::vector<const void*> arguments;
  for (size_t leaf : condition.leaves) arguments.push_back(leaves[leaf]);
  // As the while thunk runs it: constants written once.
  std::vector<cpu::ScalarValue> registers(condition.program.num_registers());
  condition.program.PrepareRegisters(registers.data());
  return condition.program.RunPredicatePrepared(arguments.data(),
                                                registers.data());
}

TEST(LoopCondition, CounterAgainstAConstantReadsOnlyTheCounter) {
  std::optional<cpu::LoopCondition> condition = CompileCondition(R"(
HloModule m
cond {
  state = (f32[4], s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(state), index=1
  n = s32[] constant(512)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main {
  ROOT p = pred[] constant(false)
}
)");
  ASSERT_TRUE(condition.has_value());
  EXPECT_EQ(condition->leaves, std::vector<size_t>{1});
  for (int32_t i : {-7, 0, 511, 512, 513}) {
    EXPECT_EQ(Evaluate(*condition, {nullptr, &i, nullptr}), i < 512) << i;
  }
}

TEST(LoopCondition, LeavesOfNestedTuplesAndSeveralTypes) {
  // State ((f32[2], u8[]), f32[], s64[]): leaves 0..3; the condition reads
  // leaves 1, 2 and 3.
  std::optional<cpu::LoopCondition> condition = CompileCondition(R"(
HloModule m
cond {
  state = ((f32[2], u8[]), f32[], s64[]) parameter(0)
  inner = (f32[2], u8[]) get-tuple-element(state), index=0
  k = u8[] get-tuple-element(inner), index=1
  x = f32[] get-tuple-element(state), index=1
  j = s64[] get-tuple-element(state), index=2
  tol = f32[] constant(0.001)
  limit = u8[] constant(200)
  big = pred[] compare(x, tol), direction=GT
  few = pred[] compare(k, limit), direction=LE
  nonzero = s64[] constant(0)
  going = pred[] compare(j, nonzero), direction=NE
  both = pred[] and(big, few)
  ROOT all = pred[] and(both, going)
}
ENTRY main {
  ROOT p = pred[] constant(false)
}
)");
  ASSERT_TRUE(condition.has_value());
  EXPECT_EQ(condition->leaves, (std::vector<size_t>{1, 2, 3}));
  struct Case {
    uint8_t k;
    float x;
    int64_t j;
  };
  for (Case c : {Case{0, 1.0f, 1}, Case{200, 1.0f, -1}, Case{201, 1.0f, 1},
                 Case{5, 0.001f, 1}, Case{5, 0.5f, 0}}) {
    const bool expected = c.x > 0.001f && c.k <= 200 && c.j != 0;
    EXPECT_EQ(Evaluate(*condition, {nullptr, &c.k, &c.x, &c.j}), expected)
        << int{c.k} << ", " << c.x << ", " << c.j;
  }
}

TEST(LoopCondition, ScalarStateWithoutATuple) {
  std::optional<cpu::LoopCondition> condition = CompileCondition(R"(
HloModule m
cond {
  i = s32[] parameter(0)
  three = s32[] constant(3)
  ROOT ne = pred[] compare(i, three), direction=NE
}
ENTRY main {
  ROOT p = pred[] constant(false)
}
)");
  ASSERT_TRUE(condition.has_value());
  EXPECT_EQ(condition->leaves, std::vector<size_t>{0});
  int32_t i = 3, j = 4;
  EXPECT_FALSE(Evaluate(*condition, {&i}));
  EXPECT_TRUE(Evaluate(*condition, {&j}));
}

TEST(LoopCondition, APredLeafOrAConstantIsTheWholeCondition) {
  std::optional<cpu::LoopCondition> leaf = CompileCondition(R"(
HloModule m
cond {
  state = (s32[], pred[]) parameter(0)
  ROOT go = pred[] get-tuple-element(state), index=1
}
ENTRY main {
  ROOT p = pred[] constant(false)
}
)");
  ASSERT_TRUE(leaf.has_value());
  EXPECT_EQ(leaf->leaves, std::vector<size_t>{1});
  uint8_t yes = 1, no = 0;
  EXPECT_TRUE(Evaluate(*leaf, {nullptr, &yes}));
  EXPECT_FALSE(Evaluate(*leaf, {nullptr, &no}));
  std::optional<cpu::LoopCondition> never = CompileCondition(R"(
HloModule m
cond {
  state = (s32[], pred[]) parameter(0)
  ROOT no = pred[] constant(false)
}
ENTRY main {
  ROOT p = pred[] constant(false)
}
)");
  ASSERT_TRUE(never.has_value());
  EXPECT_TRUE(never->leaves.empty());
  EXPECT_FALSE(Evaluate(*never, {nullptr, &yes}));
}

TEST(LoopCondition, TensorsAndUncoveredOpsStayComputations) {
  // A reduce over a tensor of the state.
  EXPECT_FALSE(CompileCondition(R"(
HloModule m
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
cond {
  state = (s32[], f32[8]) parameter(0)
  v = f32[8] get-tuple-element(state), index=1
  init = f32[] constant(-inf)
  top = f32[] reduce(v, init), dimensions={0}, to_apply=max
  limit = f32[] constant(100)
  ROOT lt = pred[] compare(top, limit), direction=LT
}
ENTRY main {
  ROOT p = pred[] constant(false)
}
)")
                   .has_value());
  // A scalar op the scalar evaluator does not cover.
  EXPECT_FALSE(CompileCondition(R"(
HloModule m
cond {
  state = (s32[], f32[]) parameter(0)
  x = f32[] get-tuple-element(state), index=1
  e = f32[] exponential(x)
  limit = f32[] constant(100)
  ROOT lt = pred[] compare(e, limit), direction=LT
}
ENTRY main {
  ROOT p = pred[] constant(false)
}
)")
                   .has_value());
}

// A loop over (i, acc, v): i steps by `step` while `compare(i, limit)`
// (or `compare(limit, i)` when `reversed`) holds; acc sums the i seen and
// v gets i added to every element, so the body also runs an array op.
std::string CountedLoop(const std::string& type, const std::string& direction,
                        int64_t step, bool reversed) {
  const std::string t = type;
  const std::string compare =
      reversed ? "compare(limit, i)" : "compare(i, limit)";
  return "HloModule m\n"
         "body {\n"
         "  state = (" +
         t + "[], " + t + "[], f32[8], " + t +
         "[]) parameter(0)\n"
         "  i = " +
         t +
         "[] get-tuple-element(state), index=0\n"
         "  acc = " +
         t +
         "[] get-tuple-element(state), index=1\n"
         "  v = f32[8] get-tuple-element(state), index=2\n"
         "  limit = " +
         t +
         "[] get-tuple-element(state), index=3\n"
         "  step = " +
         t + "[] constant(" + std::to_string(step) +
         ")\n"
         "  next = " +
         t +
         "[] add(i, step)\n"
         "  sum = " +
         t +
         "[] add(acc, i)\n"
         "  fi = f32[] convert(i)\n"
         "  bi = f32[8] broadcast(fi), dimensions={}\n"
         "  w = f32[8] add(v, bi)\n"
         "  ROOT out = (" +
         t + "[], " + t + "[], f32[8], " + t +
         "[]) tuple(next, sum, w, limit)\n"
         "}\n"
         "cond {\n"
         "  state = (" +
         t + "[], " + t + "[], f32[8], " + t +
         "[]) parameter(0)\n"
         "  i = " +
         t +
         "[] get-tuple-element(state), index=0\n"
         "  limit = " +
         t +
         "[] get-tuple-element(state), index=3\n"
         "  ROOT go = pred[] " +
         compare + ", direction=" + direction +
         "\n"
         "}\n"
         "ENTRY main {\n"
         "  i0 = " +
         t +
         "[] parameter(0)\n"
         "  limit = " +
         t +
         "[] parameter(1)\n"
         "  zero = " +
         t +
         "[] constant(0)\n"
         "  v0 = f32[8] constant({0, 1, 2, 3, 4, 5, 6, 7})\n"
         "  init = (" +
         t + "[], " + t + "[], f32[8], " + t +
         "[]) tuple(i0, zero, v0, limit)\n"
         "  loop = (" +
         t + "[], " + t + "[], f32[8], " + t +
         "[]) while(init), condition=cond, body=body\n"
         "  i = " +
         t +
         "[] get-tuple-element(loop), index=0\n"
         "  acc = " +
         t +
         "[] get-tuple-element(loop), index=1\n"
         "  v = f32[8] get-tuple-element(loop), index=2\n"
         "  ROOT r = (" +
         t + "[], " + t +
         "[], f32[8]) tuple(i, acc, v)\n"
         "}\n";
}

template <typename T>
bool Holds(const std::string& direction, T a, T b) {
  if (direction == "LT") return a < b;
  if (direction == "LE") return a <= b;
  if (direction == "GT") return a > b;
  if (direction == "GE") return a >= b;
  if (direction == "EQ") return a == b;
  return a != b;
}

template <typename T>
void ExpectCountedLoop(const std::string& type, const std::string& direction,
                       T start, T limit, T step, bool reversed = false) {
  SCOPED_TRACE(type + " from " + std::to_string(start) + " step " +
               std::to_string(step) + (reversed ? " limit " : " ") + direction +
               (reversed ? " i" : " limit ") + std::to_string(limit));
  std::unique_ptr<Executable> exe = CompileText(
      CountedLoop(type, direction, static_cast<int64_t>(step), reversed));
  ASSERT_NE(exe, nullptr);
  // The loop stepped here.
  T i = start, acc = 0;
  std::vector<float> v = {0, 1, 2, 3, 4, 5, 6, 7};
  int iterations = 0;
  while (reversed ? Holds(direction, limit, i) : Holds(direction, i, limit)) {
    ASSERT_LT(++iterations, 1000) << "the test's loop does not end";
    acc = static_cast<T>(acc + i);
    for (float& x : v) x += static_cast<float>(i);
    i = static_cast<T>(i + step);
  }
  for (int run = 0; run < 2; ++run) {
    StatusOr<std::vector<Literal>> out =
        exe->Execute({Literal::Scalar<T>(start), Literal::Scalar<T>(limit)});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_EQ(out->size(), 3u);
    EXPECT_EQ((*out)[0].ToVector<T>(), std::vector<T>{i});
    EXPECT_EQ((*out)[1].ToVector<T>(), std::vector<T>{acc});
    EXPECT_EQ((*out)[2].ToVector<float>(), v);
  }
}

TEST(WhileThunk, CountersOfEveryShape) {
  ExpectCountedLoop<int32_t>("s32", "LT", 0, 10, 1);
  ExpectCountedLoop<int32_t>("s32", "GE", 10, 0, -3);  // 10, 7, 4, 1
  ExpectCountedLoop<int32_t>("s32", "LE", 0, 9, 3);    // 0, 3, 6, 9
  ExpectCountedLoop<int32_t>("s32", "NE", 0, 10, 2);   // 0, 2, 4, 6, 8
  ExpectCountedLoop<int32_t>("s32", "GT", 0, 7, 1, /*reversed=*/true);
  ExpectCountedLoop<int32_t>("s32", "LT", 5, 5, 1);  // no iteration
  ExpectCountedLoop<int32_t>("s32", "LT", 6, 5, 1);  // none either
  ExpectCountedLoop<int32_t>("s32", "EQ", 4, 4, 1);  // exactly one
  ExpectCountedLoop<int64_t>("s64", "LT", -5, 300, 7);
  // An unsigned counter counting down to zero wraps past it: != stops it.
  ExpectCountedLoop<uint32_t>("u32", "NE", 12, 0, static_cast<uint32_t>(-4));
  ExpectCountedLoop<uint8_t>("u8", "LT", 250, 255, 1);
}

TEST(WhileThunk, ConditionThatReducesATensorRunsAsAComputation) {
  // Newton's iteration for sqrt(a) until |x*x - a| / a is small everywhere
  // (or 100 steps): the condition reduces the state's tensor.
  std::unique_ptr<Executable> exe = CompileText(R"(
HloModule m
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
cond {
  state = (f32[6], f32[6], s32[]) parameter(0)
  a = f32[6] get-tuple-element(state), index=0
  x = f32[6] get-tuple-element(state), index=1
  steps = s32[] get-tuple-element(state), index=2
  xx = f32[6] multiply(x, x)
  d = f32[6] subtract(xx, a)
  ad = f32[6] abs(d)
  r = f32[6] divide(ad, a)
  init = f32[] constant(-inf)
  error = f32[] reduce(r, init), dimensions={0}, to_apply=max
  tol = f32[] constant(1e-6)
  big = pred[] compare(error, tol), direction=GT
  hundred = s32[] constant(100)
  few = pred[] compare(steps, hundred), direction=LT
  ROOT go = pred[] and(big, few)
}
body {
  state = (f32[6], f32[6], s32[]) parameter(0)
  a = f32[6] get-tuple-element(state), index=0
  x = f32[6] get-tuple-element(state), index=1
  steps = s32[] get-tuple-element(state), index=2
  q = f32[6] divide(a, x)
  s = f32[6] add(x, q)
  half = f32[] constant(0.5)
  h = f32[6] broadcast(half), dimensions={}
  next = f32[6] multiply(h, s)
  one = s32[] constant(1)
  more = s32[] add(steps, one)
  ROOT out = (f32[6], f32[6], s32[]) tuple(a, next, more)
}
ENTRY main {
  a = f32[6] parameter(0)
  zero = s32[] constant(0)
  init = (f32[6], f32[6], s32[]) tuple(a, a, zero)
  loop = (f32[6], f32[6], s32[]) while(init), condition=cond, body=body
  x = f32[6] get-tuple-element(loop), index=1
  steps = s32[] get-tuple-element(loop), index=2
  ROOT r = (f32[6], s32[]) tuple(x, steps)
}
)");
  ASSERT_NE(exe, nullptr);
  const std::vector<float> a = {1, 2, 9, 100, 0.25f, 12345};
  std::vector<float> x = a;
  int32_t steps = 0;
  auto error = [&] {
    float worst = -INFINITY;
    for (size_t k = 0; k < a.size(); ++k)
      worst = std::max(worst, std::fabs(x[k] * x[k] - a[k]) / a[k]);
    return worst;
  };
  while (error() > 1e-6f && steps < 100) {
    for (size_t k = 0; k < a.size(); ++k) x[k] = 0.5f * (x[k] + a[k] / x[k]);
    ++steps;
  }
  ASSERT_GT(steps, 3);
  StatusOr<std::vector<Literal>> out =
      exe->Execute({Literal::Vector<float>(a)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].ToVector<float>(), x);
  EXPECT_EQ((*out)[1].ToVector<int32_t>(), std::vector<int32_t>{steps});
}

TEST(WhileThunk, NestedLoopsAndAConditionalInTheBody) {
  // for i in [0, n): for j in [0, i]: acc += (i + j) odd ? i * j : -j
  std::unique_ptr<Executable> exe = CompileText(R"(
HloModule m
inner_cond {
  state = (s32[], s32[], s32[]) parameter(0)
  j = s32[] get-tuple-element(state), index=0
  i = s32[] get-tuple-element(state), index=1
  ROOT le = pred[] compare(j, i), direction=LE
}
odd_branch {
  p = (s32[], s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  j = s32[] get-tuple-element(p), index=1
  acc = s32[] get-tuple-element(p), index=2
  ij = s32[] multiply(i, j)
  ROOT r = s32[] add(acc, ij)
}
even_branch {
  p = (s32[], s32[], s32[]) parameter(0)
  j = s32[] get-tuple-element(p), index=1
  acc = s32[] get-tuple-element(p), index=2
  ROOT r = s32[] subtract(acc, j)
}
inner_body {
  state = (s32[], s32[], s32[]) parameter(0)
  j = s32[] get-tuple-element(state), index=0
  i = s32[] get-tuple-element(state), index=1
  acc = s32[] get-tuple-element(state), index=2
  s = s32[] add(i, j)
  one = s32[] constant(1)
  bit = s32[] and(s, one)
  zero = s32[] constant(0)
  odd = pred[] compare(bit, zero), direction=NE
  args = (s32[], s32[], s32[]) tuple(i, j, acc)
  next_acc = s32[] conditional(odd, args, args), true_computation=odd_branch, false_computation=even_branch
  next_j = s32[] add(j, one)
  ROOT out = (s32[], s32[], s32[]) tuple(next_j, i, next_acc)
}
outer_cond {
  state = (s32[], s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  n = s32[] get-tuple-element(state), index=1
  ROOT lt = pred[] compare(i, n), direction=LT
}
outer_body {
  state = (s32[], s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  n = s32[] get-tuple-element(state), index=1
  acc = s32[] get-tuple-element(state), index=2
  zero = s32[] constant(0)
  inner_init = (s32[], s32[], s32[]) tuple(zero, i, acc)
  inner = (s32[], s32[], s32[]) while(inner_init), condition=inner_cond, body=inner_body
  inner_acc = s32[] get-tuple-element(inner), index=2
  one = s32[] constant(1)
  next_i = s32[] add(i, one)
  ROOT out = (s32[], s32[], s32[]) tuple(next_i, n, inner_acc)
}
ENTRY main {
  n = s32[] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], s32[], s32[]) tuple(zero, n, zero)
  loop = (s32[], s32[], s32[]) while(init), condition=outer_cond, body=outer_body
  ROOT acc = s32[] get-tuple-element(loop), index=2
}
)");
  ASSERT_NE(exe, nullptr);
  for (int32_t n : {0, 1, 5, 17}) {
    int32_t acc = 0;
    for (int32_t i = 0; i < n; ++i)
      for (int32_t j = 0; j <= i; ++j) acc += ((i + j) & 1) != 0 ? i * j : -j;
    StatusOr<std::vector<Literal>> out =
        exe->Execute({Literal::Scalar<int32_t>(n)});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ((*out)[0].ToVector<int32_t>(), std::vector<int32_t>{acc}) << n;
  }
}

}  // namespace
}  // namespace xffi
