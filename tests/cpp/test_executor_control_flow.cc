// Control flow and structural ops in the executor: while (loop state in two
// buffer sets, pass-through leaves, an initial state that stays live),
// conditional (pred and index forms, out-of-range index), call, tuple,
// get-tuple-element, optimization barrier, constants and parameters as
// results.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "executor_test_util.h"

namespace xffi::test {
namespace {

using ::testing::ElementsAre;

Literal S32Scalar(int32_t v) { return Literal::Scalar<int32_t>(v); }

// cond(i, x): i < limit
Computation* LessThan(TestModule& m, const Shape& state, int32_t limit) {
  IrBuilder b(m.Add("cond"));
  Instruction* p = b.Param(0, state, "state");
  Instruction* i = b.Gte(p, 0);
  Instruction* n = b.Constant(S32Scalar(limit));
  b.Root(b.Compare(i, n, ComparisonDirection::kLt));
  return b.computation();
}

// body(i, x, k): (i + 1, x + x, k) -- k passes through unchanged.
Computation* DoublingBody(TestModule& m, const Shape& state) {
  IrBuilder b(m.Add("body"));
  Instruction* p = b.Param(0, state, "state");
  Instruction* i = b.Gte(p, 0);
  Instruction* x = b.Gte(p, 1);
  Instruction* k = b.Gte(p, 2);
  Instruction* one = b.Constant(S32Scalar(1));
  b.Root(b.Tuple(
      {b.Binary(Opcode::kAdd, i, one), b.Binary(Opcode::kAdd, x, x), k}));
  return b.computation();
}

TEST(ExecutorWhile, RunsUntilTheConditionFails) {
  TestModule m;
  Shape state = Shape::Tuple({S32({}), F32({3}), F32({2})});
  Computation* cond = LessThan(m, state, 5);
  Computation* body = DoublingBody(m, state);
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({3}), "x");
  Instruction* k = b.Param(1, F32({2}), "k");
  Instruction* init = b.Tuple({b.Constant(S32Scalar(0)), x, k});
  Instruction* loop = b.Called(Opcode::kWhile, state, {init}, {cond, body});
  b.Root(loop);
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  for (int run = 0; run < 2; ++run) {
    auto out = (*exe)->Execute({Literal::Vector<float>({1, -2, 0.5f}),
                                Literal::Vector<float>({7, 8})});
    ASSERT_TRUE(out.ok()) << out.status().message();
    ASSERT_EQ(out->size(), 3u);
    EXPECT_EQ((*out)[0].ToVector<int32_t>(), std::vector<int32_t>{5});
    EXPECT_EQ((*out)[1].ToVector<float>(), (std::vector<float>{32, -64, 16}));
    EXPECT_EQ((*out)[2].ToVector<float>(), (std::vector<float>{7, 8}));
  }
}

TEST(ExecutorWhile, OddIterationCountEndsInTheSecondBufferSet) {
  // 3 iterations: the last state is in the body's output set and must be
  // brought back into the while's own buffers.
  TestModule m;
  Shape state = Shape::Tuple({S32({}), F32({2}), F32({1})});
  Computation* cond = LessThan(m, state, 3);
  Computation* body = DoublingBody(m, state);
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({2}), "x");
  Instruction* k = b.Param(1, F32({1}), "k");
  Instruction* loop =
      b.Called(Opcode::kWhile, state,
               {b.Tuple({b.Constant(S32Scalar(0)), x, k})}, {cond, body});
  // Read through an op, so the loop state lives in the arena.
  b.Root(b.Op(Opcode::kNegate, F32({2}), {b.Gte(loop, 1)}));
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto out = (*exe)->Execute(
      {Literal::Vector<float>({1, 3}), Literal::Vector<float>({0})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].ToVector<float>(), (std::vector<float>{-8, -24}));
}

TEST(ExecutorWhile, ZeroIterationsReturnsTheInitialState) {
  TestModule m;
  Shape state = Shape::Tuple({S32({}), F32({2}), F32({1})});
  Computation* cond = LessThan(m, state, 0);
  Computation* body = DoublingBody(m, state);
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({2}), "x");
  Instruction* k = b.Param(1, F32({1}), "k");
  Instruction* loop =
      b.Called(Opcode::kWhile, state,
               {b.Tuple({b.Constant(S32Scalar(0)), x, k})}, {cond, body});
  b.Root(b.Gte(loop, 1));
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto out = (*exe)->Execute(
      {Literal::Vector<float>({1, 3}), Literal::Vector<float>({0})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].ToVector<float>(), (std::vector<float>{1, 3}));
}

TEST(ExecutorWhile, InitialStateStillReadAfterTheLoopIsCopied) {
  TestModule m;
  Shape state = Shape::Tuple({S32({}), F32({2}), F32({1})});
  Computation* cond = LessThan(m, state, 2);
  Computation* body = DoublingBody(m, state);
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({2}), "x");
  Instruction* k = b.Param(1, F32({1}), "k");
  // x2 is computed in the arena, passed to the loop and read after it.
  Instruction* x2 = b.Op(Opcode::kNegate, F32({2}), {x});
  Instruction* loop =
      b.Called(Opcode::kWhile, state,
               {b.Tuple({b.Constant(S32Scalar(0)), x2, k})}, {cond, body});
  b.Root(b.Tuple({b.Gte(loop, 1), b.Binary(Opcode::kAdd, x2, x2)}));
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto out = (*exe)->Execute(
      {Literal::Vector<float>({1, 3}), Literal::Vector<float>({0})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].ToVector<float>(), (std::vector<float>{-4, -12}));
  EXPECT_EQ((*out)[1].ToVector<float>(), (std::vector<float>{-2, -6}));
}

// Branches: f32[2] -> f32[2]
Computation* Branch(TestModule& m, const std::string& name, Opcode opcode) {
  IrBuilder b(m.Add(name));
  Instruction* x = b.Param(0, F32({2}), "x");
  if (opcode == Opcode::kNegate)
    b.Root(b.Op(Opcode::kNegate, F32({2}), {x}));
  else
    b.Root(b.Binary(opcode, x, x));
  return b.computation();
}

TEST(ExecutorConditional, PredPicksTheFirstBranchWhenTrue) {
  TestModule m;
  Computation* on_true = Branch(m, "on_true", Opcode::kAdd);
  Computation* on_false = Branch(m, "on_false", Opcode::kNegate);
  IrBuilder b(m.Entry());
  Instruction* p = b.Param(0, Pred(), "p");
  Instruction* x = b.Param(1, F32({2}), "x");
  Instruction* y = b.Param(2, F32({2}), "y");
  b.Root(
      b.Called(Opcode::kConditional, F32({2}), {p, x, y}, {on_true, on_false}));
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto run = [&](bool pred) {
    auto out = (*exe)->Execute({Literal::Scalar<bool>(pred),
                                Literal::Vector<float>({1, 2}),
                                Literal::Vector<float>({5, 6})});
    EXPECT_TRUE(out.ok()) << out.status().message();
    return out.ok() ? (*out)[0].ToVector<float>() : std::vector<float>{};
  };
  EXPECT_EQ(run(true), (std::vector<float>{2, 4}));     // x + x
  EXPECT_EQ(run(false), (std::vector<float>{-5, -6}));  // -y
}

TEST(ExecutorConditional, IndexOutOfRangePicksTheLastBranch) {
  TestModule m;
  Computation* b0 = Branch(m, "b0", Opcode::kAdd);
  Computation* b1 = Branch(m, "b1", Opcode::kMultiply);
  Computation* b2 = Branch(m, "b2", Opcode::kNegate);
  IrBuilder b(m.Entry());
  Instruction* index = b.Param(0, S32({}), "index");
  Instruction* x = b.Param(1, F32({2}), "x");
  b.Root(
      b.Called(Opcode::kConditional, F32({2}), {index, x, x, x}, {b0, b1, b2}));
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto run = [&](int32_t i) {
    auto out = (*exe)->Execute({S32Scalar(i), Literal::Vector<float>({3, -4})});
    EXPECT_TRUE(out.ok()) << out.status().message();
    return out.ok() ? (*out)[0].ToVector<float>() : std::vector<float>{};
  };
  EXPECT_EQ(run(0), (std::vector<float>{6, -8}));
  EXPECT_EQ(run(1), (std::vector<float>{9, 16}));
  EXPECT_EQ(run(2), (std::vector<float>{-3, 4}));
  // As XLA: an index outside [0, N) runs branch N-1.
  EXPECT_EQ(run(3), (std::vector<float>{-3, 4}));
  EXPECT_EQ(run(-1), (std::vector<float>{-3, 4}));
  EXPECT_EQ(run(1 << 30), (std::vector<float>{-3, 4}));
}

TEST(ExecutorConditional, BranchReturningItsParameterIsCopiedOut) {
  TestModule m;
  IrBuilder id(m.Add("identity"));
  id.Root(id.Param(0, F32({2}), "x"));
  Computation* twice = Branch(m, "twice", Opcode::kAdd);
  IrBuilder b(m.Entry());
  Instruction* index = b.Param(0, S32({}), "index");
  Instruction* x = b.Param(1, F32({2}), "x");
  Instruction* cond = b.Called(Opcode::kConditional, F32({2}), {index, x, x},
                               {id.computation(), twice});
  b.Root(b.Tuple({cond, x}));
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto out = (*exe)->Execute({S32Scalar(0), Literal::Vector<float>({1, 2})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].ToVector<float>(), (std::vector<float>{1, 2}));
  EXPECT_EQ((*out)[1].ToVector<float>(), (std::vector<float>{1, 2}));
}

TEST(ExecutorCall, CalleeRunsAtEachCallSite) {
  TestModule m;
  IrBuilder callee(m.Add("square_plus"));
  Instruction* a = callee.Param(0, F32({2}), "a");
  Instruction* c = callee.Param(1, F32({2}), "c");
  callee.Root(
      callee.Binary(Opcode::kAdd, callee.Binary(Opcode::kMultiply, a, a), c));
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({2}), "x");
  Instruction* y = b.Param(1, F32({2}), "y");
  Instruction* first =
      b.Called(Opcode::kCall, F32({2}), {x, y}, {callee.computation()});
  Instruction* second =
      b.Called(Opcode::kCall, F32({2}), {first, x}, {callee.computation()});
  b.Root(b.Tuple({first, second}));
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto out = (*exe)->Execute(
      {Literal::Vector<float>({1, 2}), Literal::Vector<float>({10, 20})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].ToVector<float>(), (std::vector<float>{11, 24}));
  EXPECT_EQ((*out)[1].ToVector<float>(), (std::vector<float>{122, 578}));
}

TEST(ExecutorStructural, TuplesBarriersAndGetTupleElementAreViews) {
  TestModule m;
  IrBuilder b(m.Entry());
  Shape nested = Shape::Tuple({F32({2}), Shape::Tuple({S32({}), F32({1})})});
  Instruction* p = b.Param(0, nested, "p");
  Instruction* barrier = b.Op(Opcode::kOptimizationBarrier, nested, {p});
  Instruction* inner = b.Gte(barrier, 1);
  Instruction* x = b.Gte(barrier, 0);
  Instruction* doubled = b.Binary(Opcode::kAdd, x, x);
  // Swapped order, one element twice, a nested tuple rebuilt.
  b.Root(b.Tuple({b.Gte(inner, 1), doubled, b.Tuple({b.Gte(inner, 0), x})}));
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  Literal arg = Literal::Tuple(
      {Literal::Vector<float>({1.5f, -2}),
       Literal::Tuple({S32Scalar(42), Literal::Vector<float>({9})})});
  auto out = (*exe)->Execute({arg});
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(out->size(), 4u);
  EXPECT_EQ((*out)[0].ToVector<float>(), std::vector<float>{9});
  EXPECT_EQ((*out)[1].ToVector<float>(), (std::vector<float>{3, -4}));
  EXPECT_EQ((*out)[2].ToVector<int32_t>(), std::vector<int32_t>{42});
  EXPECT_EQ((*out)[3].ToVector<float>(), (std::vector<float>{1.5f, -2}));
}

TEST(ExecutorStructural, ConstantsAndParametersAsResults) {
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({2}), "x");
  Instruction* c = b.Constant(Literal::Vector<int32_t>({4, 5, 6}));
  // x twice: the second leaf cannot be the same output buffer.
  b.Root(b.Tuple({c, x, x, b.Op(Opcode::kNegate, F32({2}), {x})}));
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  float in[2] = {1, 2}, r1[2] = {}, r2[2] = {}, r3[2] = {};
  int32_t r0[3] = {};
  std::vector<const void*> args = {in};
  std::vector<void*> results = {r0, r1, r2, r3};
  ASSERT_TRUE((*exe)->ExecuteRaw(args, results).ok());
  EXPECT_THAT(r0, ElementsAre(4, 5, 6));
  EXPECT_THAT(r1, ElementsAre(1, 2));
  EXPECT_THAT(r2, ElementsAre(1, 2));
  EXPECT_THAT(r3, ElementsAre(-1, -2));
  in[0] = 10;  // a second run reads the new input
  ASSERT_TRUE((*exe)->ExecuteRaw(args, results).ok());
  EXPECT_THAT(r1, ElementsAre(10, 2));
  EXPECT_THAT(r2, ElementsAre(10, 2));
  EXPECT_THAT(r3, ElementsAre(-10, -2));
}

TEST(ExecutorStructural, ArgumentErrorsNameTheParameter) {
  TestModule m;
  IrBuilder b(m.Entry());
  b.Param(0, F32({2}), "x");
  Instruction* y = b.Param(1, S32({3}), "y");
  b.Root(y);
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto count = (*exe)->Execute({Literal::Vector<float>({1, 2})});
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.status().message(), "the program takes 2 arguments, got 1");
  auto shape = (*exe)->Execute(
      {Literal::Vector<float>({1, 2}), Literal::Vector<float>({1, 2, 3})});
  ASSERT_FALSE(shape.ok());
  EXPECT_EQ(shape.status().message(),
            "argument 1 for parameter 'y' is f32[3], expected s32[3]");
  float x[2] = {};
  int32_t out[3] = {};
  std::vector<const void*> args = {x, nullptr};
  std::vector<void*> results = {out};
  Status null_arg = (*exe)->ExecuteRaw(args, results);
  EXPECT_EQ(null_arg.message(), "argument leaf 1 is null");
}

}  // namespace
}  // namespace xffi::test
