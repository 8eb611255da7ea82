// sort: the key fast path (one LT/GT compare, FLOAT or TOTALORDER), the
// argsort form (values + iota), sorting along an outer dimension, a
// lexicographic comparator compiled as a ScalarProgram, and a comparator
// only the RegionRunner can run.
#include <gtest/gtest.h>

#include <cmath>

#include "kernel_test_util.h"

namespace xffi::cpu {
namespace {

using testing_util::F32;
using testing_util::OpUnderTest;
using testing_util::RunKernel;
using testing_util::RunOne;
using testing_util::S32;
using testing_util::TestRegionRunner;

// compare(p0, p1, direction, type) over `types` (two parameters per type).
std::unique_ptr<Computation> Comparator(
    std::vector<ElementType> types, ComparisonDirection direction,
    ComparisonType type = ComparisonType::kDefault) {
  auto c = std::make_unique<Computation>("cmp");
  std::vector<Instruction*> p;
  for (size_t i = 0; i < 2 * types.size(); ++i) {
    p.push_back(c->AddInstruction(Opcode::kParameter,
                                  Shape::Scalar(types[i / 2]), {},
                                  "p" + std::to_string(i)));
    p.back()->parameter_number = static_cast<int64_t>(i);
  }
  auto* cmp = c->AddInstruction(
      Opcode::kCompare, Shape::Scalar(ElementType::kPred), {p[0], p[1]}, "lt");
  cmp->comparison_direction = direction;
  cmp->comparison_type = type;
  c->set_root(cmp);
  return c;
}

TEST(SortKernel, AscendingFloats) {
  auto lt = Comparator({ElementType::kF32}, ComparisonDirection::kLt);
  OpUnderTest t;
  auto* x = t.Param(F32({5}));
  auto* s = t.Op(Opcode::kSort, F32({5}), {x});
  s->dimensions = {0};
  s->AppendCalledComputation(lt.get());
  Literal in = Literal::Vector<float>({3, -1, 2, 2.5f, -7});
  TestRegionRunner runner;
  EXPECT_EQ(RunOne(*s, {&in}, &runner).ToVector<float>(),
            (std::vector<float>{-7, -1, 2, 2.5f, 3}));
  EXPECT_EQ(runner.calls, 0);
}

TEST(SortKernel, ArgsortIsStable) {
  // lax.sort((values, iota), num_keys=1, is_stable=True)
  auto lt = Comparator({ElementType::kF32, ElementType::kS32},
                       ComparisonDirection::kLt);
  OpUnderTest t;
  auto* v = t.Param(F32({6}));
  auto* i = t.Param(S32({6}));
  auto* s = t.Op(Opcode::kSort, Shape::Tuple({F32({6}), S32({6})}), {v, i});
  s->dimensions = {0};
  s->is_stable = true;
  s->AppendCalledComputation(lt.get());
  Literal values = Literal::Vector<float>({2, 1, 2, 0, 1, 2});
  Literal iota = Literal::Vector<int32_t>({0, 1, 2, 3, 4, 5});
  StatusOr<Kernel> k = MakeStructuralKernel(*s);
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  Literal sorted(F32({6})), order(S32({6}));
  ASSERT_TRUE(RunKernel(*k, {&values, &iota}, {&sorted, &order}).ok());
  EXPECT_EQ(sorted.ToVector<float>(), (std::vector<float>{0, 1, 1, 2, 2, 2}));
  // np.argsort([2, 1, 2, 0, 1, 2], kind="stable")
  EXPECT_EQ(order.ToVector<int32_t>(),
            (std::vector<int32_t>{3, 1, 4, 0, 2, 5}));
}

TEST(SortKernel, DescendingAlongOuterDimension) {
  auto gt = Comparator({ElementType::kS32}, ComparisonDirection::kGt);
  OpUnderTest t;
  auto* x = t.Param(S32({3, 2}));
  auto* s = t.Op(Opcode::kSort, S32({3, 2}), {x});
  s->dimensions = {0};
  s->AppendCalledComputation(gt.get());
  Literal in = Literal::FromVector<int32_t>({3, 2}, {1, 6, 5, 4, 3, 8});
  // -np.sort(-x, axis=0)
  EXPECT_EQ(RunOne(*s, {&in}).ToVector<int32_t>(),
            (std::vector<int32_t>{5, 8, 3, 6, 1, 4}));
}

TEST(SortKernel, TotalOrderPlacesSignedZerosAndNaN) {
  auto lt = Comparator({ElementType::kF32}, ComparisonDirection::kLt,
                       ComparisonType::kTotalOrder);
  OpUnderTest t;
  auto* x = t.Param(F32({7}));
  auto* s = t.Op(Opcode::kSort, F32({7}), {x});
  s->dimensions = {0};
  s->AppendCalledComputation(lt.get());
  Literal in =
      Literal::Vector<float>({NAN, 1, 0.0f, -0.0f, -INFINITY, -1, -NAN});
  std::vector<float> out = RunOne(*s, {&in}).ToVector<float>();
  ASSERT_EQ(out.size(), 7u);
  EXPECT_TRUE(std::isnan(out[0]) && std::signbit(out[0]));  // -NaN first
  EXPECT_EQ(out[1], -INFINITY);
  EXPECT_EQ(out[2], -1);
  EXPECT_TRUE(out[3] == 0 && std::signbit(out[3]));  // -0 before +0
  EXPECT_TRUE(out[4] == 0 && !std::signbit(out[4]));
  EXPECT_EQ(out[5], 1);
  EXPECT_TRUE(std::isnan(out[6]) && !std::signbit(out[6]));
}

// jnp.sort's comparator for floats: canonicalise -0 to +0 and NaN to +NaN,
// then compare TOTALORDER (as tests/programs/sort.mlir holds it).
std::unique_ptr<Computation> JaxFloatComparator(bool swapped) {
  auto c = std::make_unique<Computation>("jax_lt");
  Shape f32 = Shape::Scalar(ElementType::kF32);
  Shape pred = Shape::Scalar(ElementType::kPred);
  Instruction* p[2];
  for (int i = 0; i < 2; ++i) {
    p[i] =
        c->AddInstruction(Opcode::kParameter, f32, {}, "p" + std::to_string(i));
    p[i]->parameter_number = i;
  }
  auto constant = [&](float v) {
    auto* k = c->AddInstruction(Opcode::kConstant, f32, {}, "k");
    k->literal = Literal::Scalar<float>(v);
    return k;
  };
  auto canonical = [&](Instruction* x) {
    auto* zero = c->AddInstruction(Opcode::kCompare, pred, {x, constant(0)});
    zero->comparison_type = ComparisonType::kFloat;
    auto* plus_zero =
        c->AddInstruction(Opcode::kSelect, f32, {zero, constant(0), x});
    auto* nan = c->AddInstruction(Opcode::kCompare, pred, {x, x});
    nan->comparison_direction = ComparisonDirection::kNe;
    nan->comparison_type = ComparisonType::kFloat;
    return c->AddInstruction(Opcode::kSelect, f32,
                             {nan, constant(NAN), plus_zero});
  };
  Instruction* a = canonical(p[0]);
  Instruction* b = canonical(p[1]);
  // Swapped: compare(f(p1), f(p0), GT) is the same order as (f(p0), f(p1),
  // LT).
  auto* cmp = c->AddInstruction(Opcode::kCompare, pred,
                                swapped ? std::vector<Instruction*>{b, a}
                                        : std::vector<Instruction*>{a, b});
  cmp->comparison_direction =
      swapped ? ComparisonDirection::kGt : ComparisonDirection::kLt;
  cmp->comparison_type = ComparisonType::kTotalOrder;
  c->set_root(cmp);
  return c;
}

TEST(SortKernel, JaxFloatComparatorSortsByCanonicalKeys) {
  for (bool swapped : {false, true}) {
    auto cmp = JaxFloatComparator(swapped);
    OpUnderTest t;
    auto* x = t.Param(F32({7}));
    auto* s = t.Op(Opcode::kSort, F32({7}), {x});
    s->dimensions = {0};
    s->AppendCalledComputation(cmp.get());
    // jnp.sort([nan, 1, 0., -0., -inf, -1, -nan]): NaNs last, -0 and +0
    // equal (so kept in input order), -NaN a NaN like any other.
    Literal in =
        Literal::Vector<float>({NAN, 1, 0.0f, -0.0f, -INFINITY, -1, -NAN});
    TestRegionRunner runner;
    std::vector<float> out = RunOne(*s, {&in}, &runner).ToVector<float>();
    ASSERT_EQ(out.size(), 7u);
    EXPECT_EQ(out[0], -INFINITY);
    EXPECT_EQ(out[1], -1);
    EXPECT_TRUE(out[2] == 0 && !std::signbit(out[2]));  // stable: +0 first
    EXPECT_TRUE(out[3] == 0 && std::signbit(out[3]));
    EXPECT_EQ(out[4], 1);
    EXPECT_TRUE(std::isnan(out[5]) && !std::signbit(out[5]));
    EXPECT_TRUE(std::isnan(out[6]) && std::signbit(out[6]));
    // Keys come from the compiled key expression, not the runner.
    EXPECT_EQ(runner.calls, 0);
  }
}

TEST(SortKernel, LexicographicComparatorAsScalarProgram) {
  // Sort by (key0, key1): key0 < key0' or (key0 == key0' and key1 < key1').
  auto c = std::make_unique<Computation>("lex");
  Shape s32 = Shape::Scalar(ElementType::kS32);
  Shape pred = Shape::Scalar(ElementType::kPred);
  Instruction* p[4];
  for (int i = 0; i < 4; ++i) {
    p[i] =
        c->AddInstruction(Opcode::kParameter, s32, {}, "p" + std::to_string(i));
    p[i]->parameter_number = i;
  }
  auto* lt0 = c->AddInstruction(Opcode::kCompare, pred, {p[0], p[1]}, "lt0");
  lt0->comparison_direction = ComparisonDirection::kLt;
  auto* eq0 = c->AddInstruction(Opcode::kCompare, pred, {p[0], p[1]}, "eq0");
  eq0->comparison_direction = ComparisonDirection::kEq;
  auto* lt1 = c->AddInstruction(Opcode::kCompare, pred, {p[2], p[3]}, "lt1");
  lt1->comparison_direction = ComparisonDirection::kLt;
  auto* both = c->AddInstruction(Opcode::kAnd, pred, {eq0, lt1}, "both");
  c->set_root(c->AddInstruction(Opcode::kOr, pred, {lt0, both}, "lex"));

  OpUnderTest t;
  auto* a = t.Param(S32({5}));
  auto* b = t.Param(S32({5}));
  auto* s = t.Op(Opcode::kSort, Shape::Tuple({S32({5}), S32({5})}), {a, b});
  s->dimensions = {0};
  s->AppendCalledComputation(c.get());
  Literal k0 = Literal::Vector<int32_t>({2, 1, 2, 1, 0});
  Literal k1 = Literal::Vector<int32_t>({5, 9, 3, 7, 4});
  StatusOr<Kernel> k = MakeStructuralKernel(*s);
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  Literal o0(S32({5})), o1(S32({5}));
  TestRegionRunner runner;
  ASSERT_TRUE(RunKernel(*k, {&k0, &k1}, {&o0, &o1}, &runner).ok());
  EXPECT_EQ(o0.ToVector<int32_t>(), (std::vector<int32_t>{0, 1, 1, 2, 2}));
  EXPECT_EQ(o1.ToVector<int32_t>(), (std::vector<int32_t>{4, 7, 9, 3, 5}));
  EXPECT_EQ(runner.calls, 0);
}

TEST(SortKernel, ComparatorThroughTheRunner) {
  // Sort by the last digit: fmod(a, 10) < fmod(b, 10), stable.
  auto c = std::make_unique<Computation>("digit");
  Shape f32 = Shape::Scalar(ElementType::kF32);
  auto* a = c->AddInstruction(Opcode::kParameter, f32, {}, "a");
  a->parameter_number = 0;
  auto* b = c->AddInstruction(Opcode::kParameter, f32, {}, "b");
  b->parameter_number = 1;
  Literal ten_value = Literal::Scalar<float>(10);
  auto* ten = c->AddInstruction(Opcode::kConstant, f32, {}, "ten");
  ten->literal = ten_value;
  auto* ra = c->AddInstruction(Opcode::kRemainder, f32, {a, ten}, "ra");
  auto* rb = c->AddInstruction(Opcode::kRemainder, f32, {b, ten}, "rb");
  auto* lt = c->AddInstruction(
      Opcode::kCompare, Shape::Scalar(ElementType::kPred), {ra, rb}, "lt");
  lt->comparison_direction = ComparisonDirection::kLt;
  c->set_root(lt);
  OpUnderTest t;
  auto* p = t.Param(F32({5}));
  auto* s = t.Op(Opcode::kSort, F32({5}), {p});
  s->dimensions = {0};
  s->AppendCalledComputation(c.get());
  Literal in = Literal::Vector<float>({23, 41, 13, 30, 2});
  TestRegionRunner runner;
  EXPECT_EQ(RunOne(*s, {&in}, &runner).ToVector<float>(),
            (std::vector<float>{30, 41, 2, 23, 13}));
  EXPECT_GT(runner.calls, 0);
}

TEST(SortKernel, RejectsComparatorNotReturningPred) {
  auto add = testing_util::BinaryRegion(Opcode::kAdd, ElementType::kF32);
  OpUnderTest t;
  auto* x = t.Param(F32({3}));
  auto* s = t.Op(Opcode::kSort, F32({3}), {x});
  s->dimensions = {0};
  s->AppendCalledComputation(add.get());
  StatusOr<Kernel> k = MakeStructuralKernel(*s);
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().message().find("(sort)"), std::string::npos);
  EXPECT_NE(k.status().message().find("result 0 is not a pred scalar"),
            std::string::npos)
      << k.status().message();
}

}  // namespace
}  // namespace xffi::cpu
