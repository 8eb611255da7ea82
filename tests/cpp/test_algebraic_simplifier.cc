// The pass "simplify": exact identities removed (float ones only where every
// input, -0.0 and NaN included, gives the same bits), chains of transposes,
// reshapes and broadcasts folded into one op, and results unchanged.
#include "passes/algebraic_simplifier.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "executor_test_util.h"
#include "xffi/program/executable.h"

namespace xffi::passes {
namespace {

using test::CompileAndRun;
using test::ParseHloForTest;

// The root tuple's operands, by name.
std::vector<std::string> RootOperands(const Module& module) {
  std::vector<std::string> names;
  for (const Instruction* op : module.entry()->root()->operands())
    names.push_back(op->name());
  return names;
}

// The opcodes of the root tuple's operands.
std::vector<Opcode> RootOperandOpcodes(const Module& module) {
  std::vector<Opcode> kinds;
  for (const Instruction* op : module.entry()->root()->operands())
    kinds.push_back(op->opcode());
  return kinds;
}

std::vector<uint32_t> Bits(const std::vector<float>& values) {
  std::vector<uint32_t> bits(values.size());
  std::memcpy(bits.data(), values.data(), values.size() * sizeof(float));
  return bits;
}

const char kFloat[] = R"(HloModule floats

ENTRY main {
  x = f32[6]{0} parameter(0)
  nz = f32[] constant(-0)
  pz = f32[] constant(0)
  one = f32[] constant(1)
  bnz = f32[6]{0} broadcast(nz), dimensions={}
  bpz = f32[6]{0} broadcast(pz), dimensions={}
  bone = f32[6]{0} broadcast(one), dimensions={}
  add_nz = f32[6]{0} add(bnz, x)
  sub_pz = f32[6]{0} subtract(x, bpz)
  mul_one = f32[6]{0} multiply(x, bone)
  div_one = f32[6]{0} divide(x, bone)
  add_pz = f32[6]{0} add(x, bpz)
  mul_pz = f32[6]{0} multiply(x, bpz)
  sub_nz = f32[6]{0} subtract(x, bnz)
  ROOT t = (f32[6]{0}, f32[6]{0}, f32[6]{0}, f32[6]{0}, f32[6]{0}, f32[6]{0}, f32[6]{0}) tuple(add_nz, sub_pz, mul_one, div_one, add_pz, mul_pz, sub_nz)
}
)";

TEST(AlgebraicSimplifier, FloatIdentitiesOnlyWhereExact) {
  Module module = ParseHloForTest(kFloat);
  EXPECT_EQ(SimplifyAlgebra(module), 4);
  EXPECT_EQ(RootOperands(module),
            (std::vector<std::string>{"x", "x", "x", "x", "add_pz", "mul_pz",
                                      "sub_nz"}));
  EXPECT_TRUE(VerifyModule(module).ok());

  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x = {-0.0f, 0.0f, 1.5f, nan, -inf, 1e-40f};
  std::vector<Literal> out =
      CompileAndRun(std::move(module), {Literal::Vector<float>(x)});
  ASSERT_EQ(out.size(), 7u);
  for (size_t i = 0; i < 4; ++i)
    EXPECT_EQ(Bits(out[i].ToVector<float>()), Bits(x)) << i;
  // What the rules left alone would have got wrong: -0 + 0 is +0, x * 0
  // is NaN for NaN and infinities and -0 for negative x.
  std::vector<float> add_pz = out[4].ToVector<float>();
  EXPECT_FALSE(std::signbit(add_pz[0]));
  std::vector<float> mul_pz = out[5].ToVector<float>();
  EXPECT_TRUE(std::isnan(mul_pz[4]));
  EXPECT_TRUE(std::signbit(mul_pz[0]));
}

TEST(AlgebraicSimplifier, IntegerAndPredIdentities) {
  Module module = ParseHloForTest(R"(HloModule ints

ENTRY main {
  x = s32[4]{0} parameter(0)
  p = pred[4]{0} parameter(1)
  zero = s32[] constant(0)
  one = s32[] constant(1)
  ones = s32[] constant(-1)
  two = s32[] constant(2)
  t = pred[] constant(true)
  f = pred[] constant(false)
  bzero = s32[4]{0} broadcast(zero), dimensions={}
  bone = s32[4]{0} broadcast(one), dimensions={}
  bones = s32[4]{0} broadcast(ones), dimensions={}
  btwo = s32[4]{0} broadcast(two), dimensions={}
  bt = pred[4]{0} broadcast(t), dimensions={}
  bf = pred[4]{0} broadcast(f), dimensions={}
  a = s32[4]{0} add(x, bzero)
  m1 = s32[4]{0} multiply(bone, x)
  m0 = s32[4]{0} multiply(x, bzero)
  o = s32[4]{0} or(x, bzero)
  n = s32[4]{0} and(bones, x)
  d = s32[4]{0} divide(x, bone)
  m2 = s32[4]{0} multiply(x, btwo)
  pa = pred[4]{0} and(p, bt)
  po = pred[4]{0} or(bf, p)
  s = s32[4]{0} select(bt, m2, x)
  ROOT r = (s32[4]{0}, s32[4]{0}, s32[4]{0}, s32[4]{0}, s32[4]{0}, s32[4]{0}, s32[4]{0}, pred[4]{0}, pred[4]{0}, s32[4]{0}) tuple(a, m1, m0, o, n, d, m2, pa, po, s)
}
)");
  SimplifyAlgebra(module);
  EXPECT_EQ(RootOperands(module),
            (std::vector<std::string>{"x", "x", "bzero", "x", "x", "x", "m2",
                                      "p", "p", "m2"}));
  EXPECT_TRUE(VerifyModule(module).ok());
  std::vector<Literal> args;
  args.push_back(Literal::Vector<int32_t>({-7, 0, 3, 2147483647}));
  const uint8_t p[] = {1, 0, 1, 0};
  args.push_back(
      Literal::FromBytes(Shape::Array(ElementType::kPred, {4}), p, sizeof(p)));
  std::vector<Literal> out = CompileAndRun(std::move(module), args);
  ASSERT_EQ(out.size(), 10u);
  EXPECT_EQ(out[2].ToVector<int32_t>(), (std::vector<int32_t>{0, 0, 0, 0}));
  EXPECT_EQ(out[6].ToVector<int32_t>(),
            (std::vector<int32_t>{-14, 0, 6, -2}));  // wraps
  EXPECT_EQ(out[9].ToVector<int32_t>(), out[6].ToVector<int32_t>());
}

// A reduce over dims of size 1 is a reshape of its input whatever the init
// (as XLA: jax.jit keeps -0.0 summed from +0.0 and ignores a sum's init of
// 5); over a real dim it stays.
TEST(AlgebraicSimplifier, ReduceOverSizeOneDimsIsAReshape) {
  Module module = ParseHloForTest(R"(HloModule reduces

and_r {
  a = pred[] parameter(0)
  b = pred[] parameter(1)
  ROOT r = pred[] and(a, b)
}

add_r {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}

max_r {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] maximum(a, b)
}

ENTRY main {
  p = pred[3,1]{1,0} parameter(0)
  x = f32[1,3,1]{2,1,0} parameter(1)
  t = pred[] constant(true)
  nz = f32[] constant(-0)
  pz = f32[] constant(0)
  ninf = f32[] constant(-inf)
  all = pred[3]{0} reduce(p, t), dimensions={1}, to_apply=and_r
  sum = f32[3]{0} reduce(x, nz), dimensions={0,2}, to_apply=add_r
  sum_pz = f32[3]{0} reduce(x, pz), dimensions={0,2}, to_apply=add_r
  max = f32[3]{0} reduce(x, ninf), dimensions={0,2}, to_apply=max_r
  over_3 = f32[1,1]{1,0} reduce(x, nz), dimensions={1}, to_apply=add_r
  ROOT r = (pred[3]{0}, f32[3]{0}, f32[3]{0}, f32[3]{0}, f32[1,1]{1,0}) tuple(all, sum, sum_pz, max, over_3)
}
)");
  SimplifyAlgebra(module);
  EXPECT_TRUE(VerifyModule(module).ok());
  EXPECT_EQ(
      RootOperandOpcodes(module),
      (std::vector<Opcode>{Opcode::kReshape, Opcode::kReshape, Opcode::kReshape,
                           Opcode::kReshape, Opcode::kReduce}));
  const uint8_t p[] = {1, 0, 1};
  std::vector<Literal> args;
  args.push_back(
      Literal::FromBytes(Shape::Array(ElementType::kPred, {3, 1}), p, 3));
  const float x[] = {-0.0f, std::numeric_limits<float>::quiet_NaN(), 2.5f};
  args.push_back(Literal::FromBytes(Shape::Array(ElementType::kF32, {1, 3, 1}),
                                    x, sizeof(x)));
  std::vector<Literal> out = CompileAndRun(std::move(module), args);
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(std::memcmp(out[0].data(), p, 3), 0);
  EXPECT_EQ(Bits(out[1].ToVector<float>()),
            Bits(std::vector<float>(x, x + 3)));  // -0.0 and NaN kept
  EXPECT_EQ(Bits(out[2].ToVector<float>()),
            Bits(std::vector<float>(x, x + 3)));  // +0.0 + -0.0 kept -0.0
  EXPECT_EQ(Bits(out[3].ToVector<float>()),
            Bits(std::vector<float>(x, x + 3)));  // max(-inf, x) is x
}

// Variadic too, and an init that is no identity is ignored, as XLA ignores
// it: jax.jit gives (2, 2) for reducing ([[2.]], [[2.]]) with inits (0, 1)
// and the reducer (a0 + b0, a1 * b1 + 3).
TEST(AlgebraicSimplifier, VariadicReduceOverSizeOneDimsIgnoresItsInits) {
  Module module = ParseHloForTest(R"(HloModule reduces

pair_r {
  a0 = f32[] parameter(0)
  a1 = s32[] parameter(1)
  b0 = f32[] parameter(2)
  b1 = s32[] parameter(3)
  s = f32[] add(a0, b0)
  m = s32[] multiply(a1, b1)
  three = s32[] constant(3)
  t = s32[] add(m, three)
  ROOT r = (f32[], s32[]) tuple(s, t)
}

ENTRY main {
  x = f32[1,2]{1,0} parameter(0)
  i = s32[1,2]{1,0} parameter(1)
  five = f32[] constant(5)
  one = s32[] constant(1)
  ROOT r = (f32[2]{0}, s32[2]{0}) reduce(x, i, five, one), dimensions={0}, to_apply=pair_r
}
)");
  SimplifyAlgebra(module);
  EXPECT_TRUE(VerifyModule(module).ok());
  EXPECT_EQ(module.entry()->root()->opcode(), Opcode::kTuple);
  std::vector<Literal> args;
  args.push_back(Literal::FromVector<float>({1, 2}, {2.0f, -0.0f}));
  args.push_back(Literal::FromVector<int32_t>({1, 2}, {2, -7}));
  std::vector<Literal> out = CompileAndRun(std::move(module), args);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Bits(out[0].ToVector<float>()),
            Bits(std::vector<float>{2.0f, -0.0f}));
  EXPECT_EQ(out[1].ToVector<int32_t>(), (std::vector<int32_t>{2, -7}));
}

// max(x, -inf) and min(x, +inf) are x (NaN and -0.0 kept), and so are
// max(x, lowest) and min(x, highest) for integers; other bounds stay.
TEST(AlgebraicSimplifier, MaximumAndMinimumWithTheirIdentity) {
  Module module = ParseHloForTest(R"(HloModule minmax

ENTRY main {
  x = f32[3]{0} parameter(0)
  i = s32[3]{0} parameter(1)
  ninf = f32[] constant(-inf)
  pinf = f32[] constant(inf)
  low = s32[] constant(-2147483648)
  high = s32[] constant(2147483647)
  zero = s32[] constant(0)
  bninf = f32[3]{0} broadcast(ninf), dimensions={}
  bpinf = f32[3]{0} broadcast(pinf), dimensions={}
  blow = s32[3]{0} broadcast(low), dimensions={}
  bhigh = s32[3]{0} broadcast(high), dimensions={}
  bzero = s32[3]{0} broadcast(zero), dimensions={}
  fmax = f32[3]{0} maximum(bninf, x)
  fmin = f32[3]{0} minimum(x, bpinf)
  imax = s32[3]{0} maximum(i, blow)
  imin = s32[3]{0} minimum(bhigh, i)
  kept = s32[3]{0} maximum(i, bzero)
  ROOT r = (f32[3]{0}, f32[3]{0}, s32[3]{0}, s32[3]{0}, s32[3]{0}) tuple(fmax, fmin, imax, imin, kept)
}
)");
  SimplifyAlgebra(module);
  EXPECT_TRUE(VerifyModule(module).ok());
  const Instruction* root = module.entry()->root();
  for (int k = 0; k < 4; ++k)
    EXPECT_EQ(root->operand(k)->opcode(), Opcode::kParameter) << k;
  EXPECT_EQ(root->operand(4)->opcode(), Opcode::kMaximum);
  const float x[] = {-0.0f, std::numeric_limits<float>::quiet_NaN(), -2.5f};
  const int32_t i[] = {INT32_MIN, 5, -7};
  std::vector<Literal> args;
  args.push_back(
      Literal::FromBytes(Shape::Array(ElementType::kF32, {3}), x, sizeof(x)));
  args.push_back(
      Literal::FromBytes(Shape::Array(ElementType::kS32, {3}), i, sizeof(i)));
  std::vector<Literal> out = CompileAndRun(std::move(module), args);
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(Bits(out[0].ToVector<float>()), Bits(std::vector<float>(x, x + 3)));
  EXPECT_EQ(Bits(out[1].ToVector<float>()), Bits(std::vector<float>(x, x + 3)));
  EXPECT_EQ(out[2].ToVector<int32_t>(), std::vector<int32_t>(i, i + 3));
  EXPECT_EQ(out[3].ToVector<int32_t>(), std::vector<int32_t>(i, i + 3));
  EXPECT_EQ(out[4].ToVector<int32_t>(), (std::vector<int32_t>{0, 5, 0}));
}

// XLA's one inexact rewrite: x / broadcast(b) is x * broadcast(1 / b) for
// f32 (softmax's normalisation); an integer division, a division by a full
// array and one by a broadcast that adds no elements stay divisions.
TEST(AlgebraicSimplifier, DivisionByABroadcastMultipliesByTheReciprocal) {
  Module module = ParseHloForTest(R"(HloModule divides

ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  s = f32[2]{0} parameter(1)
  i = s32[2,3]{1,0} parameter(2)
  k = s32[2]{0} parameter(3)
  y = f32[2,3]{1,0} parameter(4)
  bs = f32[2,3]{1,0} broadcast(s), dimensions={0}
  bk = s32[2,3]{1,0} broadcast(k), dimensions={0}
  q = f32[2,3]{1,0} divide(x, bs)
  qi = s32[2,3]{1,0} divide(i, bk)
  qy = f32[2,3]{1,0} divide(x, y)
  ROOT r = (f32[2,3]{1,0}, s32[2,3]{1,0}, f32[2,3]{1,0}) tuple(q, qi, qy)
}
)");
  SimplifyAlgebra(module);
  EXPECT_TRUE(VerifyModule(module).ok());
  const Instruction* q = module.entry()->root()->operand(0);
  ASSERT_EQ(q->opcode(), Opcode::kMultiply);
  ASSERT_EQ(q->operand(1)->opcode(), Opcode::kBroadcast);
  EXPECT_EQ(q->operand(1)->dimensions, (std::vector<int64_t>{0}));
  EXPECT_EQ(q->operand(1)->operand(0)->opcode(), Opcode::kDivide);
  EXPECT_EQ(module.entry()->root()->operand(1)->opcode(), Opcode::kDivide);
  EXPECT_EQ(module.entry()->root()->operand(2)->opcode(), Opcode::kDivide);
  std::vector<Literal> args;
  args.push_back(Literal::Vector<float>({1, 2, 3, 4, 5, 6}));
  args.back() = Literal::FromBytes(Shape::Array(ElementType::kF32, {2, 3}),
                                   args.back().data(), 6 * sizeof(float));
  args.push_back(Literal::Vector<float>({3, 0.5f}));
  const int32_t i[] = {7, -7, 9, 8, -9, 1};
  args.push_back(Literal::FromBytes(Shape::Array(ElementType::kS32, {2, 3}), i,
                                    sizeof(i)));
  args.push_back(Literal::Vector<int32_t>({2, 4}));
  const float y[] = {1, 1, 1, 1, 1, 1};
  args.push_back(Literal::FromBytes(Shape::Array(ElementType::kF32, {2, 3}), y,
                                    sizeof(y)));
  std::vector<Literal> out = CompileAndRun(std::move(module), args);
  ASSERT_EQ(out.size(), 3u);
  const float third = 1.0f / 3.0f;
  EXPECT_EQ(out[0].ToVector<float>(),
            (std::vector<float>{1 * third, 2 * third, 3 * third, 8, 10, 12}));
  EXPECT_EQ(out[1].ToVector<int32_t>(),
            (std::vector<int32_t>{3, -3, 4, 2, -2, 0}));
}

TEST(AlgebraicSimplifier, DataMovementIdentitiesAndChains) {
  Module module = ParseHloForTest(R"(HloModule moves

ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  r = f32[2,3]{1,0} reshape(x)
  tr = f32[2,3]{1,0} transpose(r), dimensions={0,1}
  b = f32[2,3]{1,0} broadcast(tr), dimensions={0,1}
  s = f32[2,3]{1,0} slice(b), slice={[0:2], [0:3]}
  c = f32[2,3]{1,0} convert(s)
  n1 = f32[2,3]{1,0} negate(c)
  n2 = f32[2,3]{1,0} negate(n1)
  t1 = f32[3,2]{1,0} transpose(n2), dimensions={1,0}
  t2 = f32[2,3]{1,0} transpose(t1), dimensions={1,0}
  r1 = f32[6]{0} reshape(x)
  r2 = f32[3,2]{1,0} reshape(r1)
  b1 = f32[2,3,4]{2,1,0} broadcast(x), dimensions={0,1}
  b2 = f32[5,2,3,4]{3,2,1,0} broadcast(b1), dimensions={1,2,3}
  ROOT out = (f32[2,3]{1,0}, f32[3,2]{1,0}, f32[5,2,3,4]{3,2,1,0}) tuple(t2, r2, b2)
}
)");
  SimplifyAlgebra(module);
  const Computation* entry = module.entry();
  const Instruction* root = entry->root();
  // Everything between x and t2 was an identity.
  EXPECT_EQ(root->operand(0)->name(), "x");
  EXPECT_EQ(root->operand(1)->name(), "r2");
  EXPECT_EQ(root->operand(1)->operand(0)->name(), "x");
  EXPECT_EQ(root->operand(2)->operand(0)->name(), "x");
  EXPECT_EQ(root->operand(2)->dimensions, (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(VerifyModule(module).ok());

  std::vector<float> x = {1, 2, 3, 4, 5, 6};
  std::vector<Literal> out =
      CompileAndRun(std::move(module), {Literal::FromVector<float>({2, 3}, x)});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].ToVector<float>(), x);
  EXPECT_EQ(out[1].ToVector<float>(), x);
  std::vector<float> b2 = out[2].ToVector<float>();
  ASSERT_EQ(b2.size(), 120u);
  for (size_t i = 0; i < b2.size(); ++i)
    EXPECT_EQ(b2[i], x[(i / 4) % 6]) << i;  // [k, i, j, l] = x[i, j]
}

// A broadcast that only inserts dims of size 1 is a reshape; one that
// reorders dims, or adds elements, is not.
TEST(AlgebraicSimplifier, BroadcastAddingUnitDimsIsAReshape) {
  Module module = ParseHloForTest(R"(HloModule unit_dims

ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  s = f32[] parameter(1)
  front = f32[1,2,3]{2,1,0} broadcast(x), dimensions={1,2}
  between = f32[2,1,3,1]{3,2,1,0} broadcast(x), dimensions={0,2}
  scalar = f32[1,1]{1,0} broadcast(s), dimensions={}
  reordered = f32[3,1,2]{2,1,0} broadcast(x), dimensions={2,0}
  grows = f32[2,3,2]{2,1,0} broadcast(x), dimensions={0,1}
  row = f32[1,2,3]{2,1,0} broadcast(x), dimensions={1,2}
  rows = f32[4,2,3]{2,1,0} broadcast(row), dimensions={0,1,2}
  ROOT out = (f32[1,2,3]{2,1,0}, f32[2,1,3,1]{3,2,1,0}, f32[1,1]{1,0}, f32[3,1,2]{2,1,0}, f32[2,3,2]{2,1,0}, f32[4,2,3]{2,1,0}) tuple(front, between, scalar, reordered, grows, rows)
}
)");
  SimplifyAlgebra(module);
  EXPECT_TRUE(VerifyModule(module).ok());
  EXPECT_EQ(RootOperandOpcodes(module),
            (std::vector<Opcode>{Opcode::kReshape, Opcode::kReshape,
                                 Opcode::kReshape, Opcode::kBroadcast,
                                 Opcode::kBroadcast, Opcode::kBroadcast}));
  EXPECT_EQ(RootOperands(module)[0], "front");  // the name is kept
  // The broadcast of the row (now a reshape) reads x itself.
  const Instruction* rows = module.entry()->root()->operand(5);
  EXPECT_EQ(rows->operand(0)->name(), "x");
  EXPECT_EQ(rows->dimensions, (std::vector<int64_t>{1, 2}));

  std::vector<float> x = {1, 2, 3, 4, 5, 6};
  std::vector<Literal> args;
  args.push_back(Literal::FromVector<float>({2, 3}, x));
  args.push_back(Literal::Scalar<float>(7.5f));
  std::vector<Literal> out = CompileAndRun(std::move(module), args);
  ASSERT_EQ(out.size(), 6u);
  EXPECT_EQ(out[0].ToVector<float>(), x);
  EXPECT_EQ(out[1].ToVector<float>(), x);
  EXPECT_EQ(out[2].ToVector<float>(), std::vector<float>{7.5f});
  // reordered[j, 0, i] = x[i, j]
  EXPECT_EQ(out[3].ToVector<float>(), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  std::vector<float> rows_value = out[5].ToVector<float>();
  ASSERT_EQ(rows_value.size(), 24u);
  for (size_t i = 0; i < rows_value.size(); ++i)
    EXPECT_EQ(rows_value[i], x[i % 6]) << i;
}

TEST(AlgebraicSimplifier, TransposeChainComposesPermutations) {
  Module module = ParseHloForTest(R"(HloModule perm

ENTRY main {
  x = f32[2,3,4]{2,1,0} parameter(0)
  t1 = f32[3,4,2]{2,1,0} transpose(x), dimensions={1,2,0}
  ROOT t2 = f32[4,2,3]{2,1,0} transpose(t1), dimensions={1,2,0}
}
)");
  EXPECT_EQ(SimplifyAlgebra(module), 1);
  const Instruction* root = module.entry()->root();
  EXPECT_EQ(root->operand(0)->name(), "x");
  EXPECT_EQ(root->dimensions, (std::vector<int64_t>{2, 0, 1}));
  EXPECT_TRUE(VerifyModule(module).ok());
  std::vector<float> x(24);
  for (size_t i = 0; i < 24; ++i) x[i] = static_cast<float>(i);
  std::vector<Literal> out = CompileAndRun(
      std::move(module), {Literal::FromVector<float>({2, 3, 4}, x)});
  ASSERT_EQ(out.size(), 1u);
  std::vector<float> got = out[0].ToVector<float>();
  // out[l, i, j] = x[i, j, l]
  for (int l = 0; l < 4; ++l)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        EXPECT_EQ(got[static_cast<size_t>((l * 2 + i) * 3 + j)],
                  x[static_cast<size_t>((i * 3 + j) * 4 + l)]);
}

// transpose(dot(a, b)) that swaps the dot's free dims becomes dot(b, a)
// (JAX's weight gradients are such pairs), when the dot has no other
// reader; a transpose that moves batch dims, or of a dot read elsewhere,
// stays. Small integers: every sum is exact, whatever its order.
TEST(AlgebraicSimplifier, TransposeOfDotSwapsItsOperands) {
  Module module = ParseHloForTest(R"(HloModule transposed_dots

ENTRY main {
  x = f32[4,3]{1,0} parameter(0)
  dy = f32[4,5]{1,0} parameter(1)
  a = f32[2,4,3]{2,1,0} parameter(2)
  b = f32[2,4,5]{2,1,0} parameter(3)
  grad = f32[3,5]{1,0} dot(x, dy), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  grad_t = f32[5,3]{1,0} transpose(grad), dimensions={1,0}
  batched = f32[2,3,5]{2,1,0} dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_contracting_dims={1}
  batched_t = f32[2,5,3]{2,1,0} transpose(batched), dimensions={0,2,1}
  batched_again = f32[2,3,5]{2,1,0} dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_contracting_dims={1}
  batch_moved = f32[3,2,5]{2,1,0} transpose(batched_again), dimensions={1,0,2}
  shared = f32[3,5]{1,0} dot(x, dy), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  shared_t = f32[5,3]{1,0} transpose(shared), dimensions={1,0}
  ROOT out = (f32[5,3]{1,0}, f32[2,5,3]{2,1,0}, f32[3,2,5]{2,1,0}, f32[5,3]{1,0}, f32[3,5]{1,0}) tuple(grad_t, batched_t, batch_moved, shared_t, shared)
}
)");
  SimplifyAlgebra(module);
  ASSERT_TRUE(VerifyModule(module).ok());
  EXPECT_EQ(RootOperandOpcodes(module),
            (std::vector<Opcode>{Opcode::kDot, Opcode::kDot, Opcode::kTranspose,
                                 Opcode::kTranspose, Opcode::kDot}));
  const Instruction* grad = module.entry()->root()->operand(0);
  EXPECT_EQ(grad->name(), "grad_t");
  EXPECT_EQ(grad->operand(0)->name(), "dy");
  EXPECT_EQ(grad->operand(1)->name(), "x");
  const Instruction* batched = module.entry()->root()->operand(1);
  EXPECT_EQ(batched->operand(0)->name(), "b");
  EXPECT_EQ(batched->dot_dimension_numbers.lhs_batch,
            (std::vector<int64_t>{0}));
  EXPECT_EQ(batched->dot_dimension_numbers.rhs_contracting,
            (std::vector<int64_t>{1}));
  // shared is also a result itself: swapping would compute it twice.
  EXPECT_EQ(module.entry()->root()->operand(3)->operand(0)->name(), "shared");

  std::vector<float> x(12), dy(20), a(24), b(40);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 5) - 2;
  for (size_t i = 0; i < dy.size(); ++i) dy[i] = static_cast<float>(i % 7) - 3;
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 9) - 4;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 6) - 2;
  std::vector<Literal> args;
  args.push_back(Literal::FromVector<float>({4, 3}, x));
  args.push_back(Literal::FromVector<float>({4, 5}, dy));
  args.push_back(Literal::FromVector<float>({2, 4, 3}, a));
  args.push_back(Literal::FromVector<float>({2, 4, 5}, b));
  std::vector<Literal> out = CompileAndRun(std::move(module), args);
  ASSERT_EQ(out.size(), 5u);
  std::vector<float> want_grad(15), want_batched(30);
  for (size_t j = 0; j < 5; ++j)
    for (size_t i = 0; i < 3; ++i)
      for (size_t k = 0; k < 4; ++k)
        want_grad[j * 3 + i] += x[k * 3 + i] * dy[k * 5 + j];
  for (size_t n = 0; n < 2; ++n)
    for (size_t j = 0; j < 5; ++j)
      for (size_t i = 0; i < 3; ++i)
        for (size_t k = 0; k < 4; ++k)
          want_batched[(n * 5 + j) * 3 + i] +=
              a[(n * 4 + k) * 3 + i] * b[(n * 4 + k) * 5 + j];
  EXPECT_EQ(out[0].ToVector<float>(), want_grad);
  EXPECT_EQ(out[1].ToVector<float>(), want_batched);
  EXPECT_EQ(out[3].ToVector<float>(), want_grad);
  std::vector<float> batch_moved = out[2].ToVector<float>(),
                     shared = out[4].ToVector<float>();
  ASSERT_EQ(batch_moved.size(), 30u);
  ASSERT_EQ(shared.size(), 15u);
  for (size_t i = 0; i < 3; ++i)
    for (size_t j = 0; j < 5; ++j) {
      EXPECT_EQ(shared[i * 5 + j], want_grad[j * 3 + i]);
      for (size_t n = 0; n < 2; ++n)
        EXPECT_EQ(batch_moved[(i * 2 + n) * 5 + j],
                  want_batched[(n * 5 + j) * 3 + i]);
    }
}

// The pass "float-class-tests" (float_class_tests.h), in this binary with
// the other rewrites of compares and constants: pred results of class tests
// of one value, against XLA:CPU's (jax.jit, jax 0.10.2) for x = +-min/1000
// (subnormals: 1e-40 in f32, 1e-310 in f64), +-0, 1, NaN, +-inf. One
// compare sees a subnormal as zero (DAZ); a zero test joined to an infinity
// test is a test of the bits, where it is not.
TEST(FloatClassTests, ZeroTestsNextToInfinityTestsSeeSubnormalsAsXlaDoes) {
  struct Case {
    const char* ops;  // the root and what only it reads
    const char* xla;  // per element of x, 1: true
  };
  const Case cases[] = {
      {"ROOT %r = pred[8] copy(%z)", "11110000"},
      {"ROOT %r = pred[8] or(%z, %nan)", "11110100"},
      {"ROOT %r = pred[8] or(%z, %absinf)", "00110011"},
      {"ROOT %r = pred[8] or(%z, %isinf)", "00110010"},
      {"%o = pred[8] or(%absinf, %nan)\n  ROOT %r = pred[8] or(%o, %z)",
       "00110111"},
      {"ROOT %r = pred[8] and(%nz, %notnan)", "00001011"},
      {"ROOT %r = pred[8] and(%nz, %notabsinf)", "11001100"},
      {"ROOT %r = pred[8] and(%fin, %nz)", "11001000"},
      {"ROOT %r = pred[8] and(%absltinf, %nz)", "11001000"},
  };
  for (const char* type : {"f32", "f64"}) {
    const std::string t = type;
    // Bit patterns: the test's own conversions may run with subnormals
    // flushed. 1e-40 and 1e-310, then +-0, 1, NaN, +-inf.
    const bool f32 = t == "f32";
    const std::vector<uint64_t> bits =
        f32 ? std::vector<uint64_t>{0x116c2,    0x800116c2, 0,
                                    0x80000000, 0x3f800000, 0x7fc00000,
                                    0x7f800000, 0xff800000}
            : std::vector<uint64_t>{
                  0x12688b70e62b,     0x800012688b70e62b, 0,
                  1ull << 63,         0x3ff0000000000000, 0x7ff8000000000000,
                  0x7ff0000000000000, 0xfff0000000000000};
    std::vector<uint32_t> narrow(bits.begin(), bits.end());
    const Shape shape =
        Shape::Array(f32 ? ElementType::kF32 : ElementType::kF64, {8});
    const Literal argument =
        f32 ? Literal::FromBytes(shape, narrow.data(), narrow.size() * 4)
            : Literal::FromBytes(shape, bits.data(), bits.size() * 8);
    for (const Case& c : cases) {
      const std::string text =
          "HloModule m\nENTRY %main (x: " + t +
          "[8]) -> pred[8] {\n  %x = " + t + "[8] parameter(0)\n  %c0 = " + t +
          "[] constant(0)\n  %zero = " + t +
          "[8] broadcast(%c0), dimensions={}\n  %ci = " + t +
          "[] constant(inf)\n  %inf = " + t +
          "[8] broadcast(%ci), dimensions={}\n  %a = " + t +
          "[8] abs(%x)\n"
          "  %z = pred[8] compare(%x, %zero), direction=EQ\n"
          "  %nz = pred[8] compare(%x, %zero), direction=NE\n"
          "  %nan = pred[8] compare(%x, %x), direction=NE\n"
          "  %notnan = pred[8] compare(%x, %x), direction=EQ\n"
          "  %absinf = pred[8] compare(%a, %inf), direction=EQ\n"
          "  %isinf = pred[8] compare(%x, %inf), direction=EQ\n"
          "  %notabsinf = pred[8] compare(%a, %inf), direction=NE\n"
          "  %absltinf = pred[8] compare(%a, %inf), direction=LT\n"
          "  %fin = pred[8] is-finite(%x)\n  " +
          std::string(c.ops) + "\n}\n";
      // The real kernels (CompileAndRun's test kernels have no bitcasts).
      StatusOr<std::unique_ptr<Executable>> exe =
          Compile(ParseHloForTest(text));
      ASSERT_TRUE(exe.ok()) << exe.status().ToString();
      StatusOr<std::vector<Literal>> run = (*exe)->Execute({argument});
      ASSERT_TRUE(run.ok()) << run.status().ToString();
      const std::vector<Literal>& out = *run;
      ASSERT_EQ(out.size(), 1u) << text;
      std::string got;
      for (bool b : out[0].ToVector<bool>()) got += b ? '1' : '0';
      EXPECT_EQ(got, c.xla) << t << ": " << c.ops;
    }
  }
}

}  // namespace
}  // namespace xffi::passes
