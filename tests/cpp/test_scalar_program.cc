// ScalarProgram: regions compiled to typed steps, against values computed by
// hand, NumPy or JAX (integer wrapping, float-to-integer saturation, NaN
// propagation, TOTALORDER), and the regions it declines.
#include "cpu/scalar_program.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "xla_max_min_table.h"

namespace xffi::cpu {
namespace {

// Builds a region instruction by instruction.
struct Region {
  std::unique_ptr<Computation> c = std::make_unique<Computation>("region");
  int next_parameter = 0;
  Instruction* Param(ElementType type) {
    Instruction* p =
        c->AddInstruction(Opcode::kParameter, Shape::Scalar(type), {},
                          "p" + std::to_string(next_parameter));
    p->parameter_number = next_parameter++;
    return p;
  }
  Instruction* Op(Opcode opcode, ElementType type,
                  std::vector<Instruction*> operands) {
    return c->AddInstruction(opcode, Shape::Scalar(type), std::move(operands),
                             "i" + std::to_string(c->instruction_count()));
  }
  Instruction* Compare(ComparisonDirection direction, Instruction* a,
                       Instruction* b,
                       ComparisonType type = ComparisonType::kDefault) {
    Instruction* cmp = Op(Opcode::kCompare, ElementType::kPred, {a, b});
    cmp->comparison_direction = direction;
    cmp->comparison_type = type;
    return cmp;
  }
  template <typename T>
  Instruction* Constant(T value) {
    Literal literal = Literal::Scalar<T>(value);
    Instruction* k =
        c->AddInstruction(Opcode::kConstant, literal.shape(), {}, "k");
    k->literal = literal;
    return k;
  }
  std::optional<ScalarProgram> Compile(Instruction* root) {
    c->set_root(root);
    return ScalarProgram::Compile(*c);
  }
};

// Runs a program with two parameters of type A and one result of type R.
template <typename R, typename A>
R Run2(const ScalarProgram& program, A a, A b) {
  std::vector<ScalarValue> registers(program.num_registers());
  const void* params[2] = {&a, &b};
  R result{};
  void* results[1] = {&result};
  program.Run(params, results, registers.data());
  return result;
}

TEST(ScalarProgram, IntegerArithmeticWrapsAtTheTypeWidth) {
  {
    Region r;
    auto* a = r.Param(ElementType::kS8);
    auto* b = r.Param(ElementType::kS8);
    auto program = r.Compile(r.Op(Opcode::kAdd, ElementType::kS8, {a, b}));
    ASSERT_TRUE(program);
    // np.int8(100) + np.int8(100) == -56
    EXPECT_EQ((Run2<int8_t, int8_t>(*program, 100, 100)), -56);
    EXPECT_EQ((Run2<int8_t, int8_t>(*program, 100, 27)), 127);
  }
  {
    Region r;
    auto* a = r.Param(ElementType::kU8);
    auto* b = r.Param(ElementType::kU8);
    auto program = r.Compile(r.Op(Opcode::kSubtract, ElementType::kU8, {a, b}));
    ASSERT_TRUE(program);
    EXPECT_EQ((Run2<uint8_t, uint8_t>(*program, 1, 2)), 255);
  }
  {
    Region r;
    auto* a = r.Param(ElementType::kS32);
    auto* b = r.Param(ElementType::kS32);
    auto program =
        r.Compile(r.Op(Opcode::kMultiply, ElementType::kS32, {a, b}));
    ASSERT_TRUE(program);
    // 65536 * 65536 wraps to 0; 46341^2 = 2147488281 wraps to -2147479015.
    EXPECT_EQ((Run2<int32_t, int32_t>(*program, 65536, 65536)), 0);
    EXPECT_EQ((Run2<int32_t, int32_t>(*program, 46341, 46341)), -2147479015);
  }
  {
    // Unsigned 64-bit compares as unsigned: 2^63 > 1.
    Region r;
    auto* a = r.Param(ElementType::kU64);
    auto* b = r.Param(ElementType::kU64);
    auto program = r.Compile(r.Compare(ComparisonDirection::kGt, a, b));
    ASSERT_TRUE(program);
    EXPECT_EQ((Run2<uint8_t, uint64_t>(*program, uint64_t{1} << 63, 1)), 1);
  }
}

// The region interpreter against XLA:CPU's max/min of every pair of special
// values (xla_max_min_table.h), bit for bit (NaN payloads and signs).
template <typename Bits, size_t N>
void ExpectXlaMaxMinRegions(ElementType type, const Bits (&values)[N],
                            const Bits (&max)[N][N], const Bits (&min)[N][N]) {
  for (Opcode opcode : {Opcode::kMaximum, Opcode::kMinimum}) {
    Region r;
    auto* a = r.Param(type);
    auto* b = r.Param(type);
    auto program = r.Compile(r.Op(opcode, type, {a, b}));
    ASSERT_TRUE(program);
    for (size_t i = 0; i < N; ++i)
      for (size_t j = 0; j < N; ++j)
        EXPECT_EQ((Run2<Bits, Bits>(*program, values[i], values[j])),
                  (opcode == Opcode::kMaximum ? max : min)[i][j])
            << OpcodeName(opcode) << " " << ElementTypeName(type) << std::hex
            << " of 0x" << values[i] << ", 0x" << values[j];
  }
}

TEST(ScalarProgram, MaxMinMatchXlaOnEveryPairOfSpecialValues) {
  ExpectXlaMaxMinRegions(ElementType::kF32, test::kXlaF32Values,
                         test::kXlaF32Max, test::kXlaF32Min);
  ExpectXlaMaxMinRegions(ElementType::kF64, test::kXlaF64Values,
                         test::kXlaF64Max, test::kXlaF64Min);
}

TEST(ScalarProgram, MaxMinPropagateNaNAndNegateAbs) {
  Region r;
  auto* a = r.Param(ElementType::kF32);
  auto* b = r.Param(ElementType::kF32);
  auto program = r.Compile(r.Op(Opcode::kMaximum, ElementType::kF32, {a, b}));
  ASSERT_TRUE(program);
  EXPECT_EQ((Run2<float, float>(*program, 1, 2)), 2);
  EXPECT_TRUE(std::isnan((Run2<float, float>(*program, NAN, 2))));
  EXPECT_TRUE(std::isnan((Run2<float, float>(*program, 2, NAN))));

  // -0 orders below +0 in either operand order, as XLA's maximum.
  EXPECT_FALSE(std::signbit((Run2<float, float>(*program, 0.0f, -0.0f))));
  EXPECT_FALSE(std::signbit((Run2<float, float>(*program, -0.0f, 0.0f))));
  Region n;
  auto* c = n.Param(ElementType::kF64);
  auto* d = n.Param(ElementType::kF64);
  auto min = n.Compile(n.Op(Opcode::kMinimum, ElementType::kF64, {c, d}));
  ASSERT_TRUE(min);
  EXPECT_TRUE(std::signbit((Run2<double, double>(*min, 0.0, -0.0))));
  EXPECT_TRUE(std::signbit((Run2<double, double>(*min, -0.0, 0.0))));
  EXPECT_TRUE(std::isnan((Run2<double, double>(*min, 1.0, NAN))));

  Region m;
  auto* x = m.Param(ElementType::kS32);
  m.Param(ElementType::kS32);
  auto abs = m.Compile(m.Op(Opcode::kAbs, ElementType::kS32,
                            {m.Op(Opcode::kNegate, ElementType::kS32, {x})}));
  ASSERT_TRUE(abs);
  EXPECT_EQ((Run2<int32_t, int32_t>(*abs, 5, 0)), 5);
  // abs(-INT_MIN) wraps back to INT_MIN, as in XLA.
  EXPECT_EQ(
      (Run2<int32_t, int32_t>(*abs, std::numeric_limits<int32_t>::min(), 0)),
      std::numeric_limits<int32_t>::min());
}

TEST(ScalarProgram, ConvertSaturatesLikeXla) {
  // jnp.array([nan, 3e9, -3e9, 2.7, -2.7], f32).astype(i32) ==
  // [0, 2147483647, -2147483648, 2, -2]; to u8: -1 -> 0, 300 -> 255.
  Region r;
  auto* a = r.Param(ElementType::kF32);
  r.Param(ElementType::kF32);
  auto to_s32 = r.Compile(r.Op(Opcode::kConvert, ElementType::kS32, {a}));
  ASSERT_TRUE(to_s32);
  EXPECT_EQ((Run2<int32_t, float>(*to_s32, NAN, 0)), 0);
  EXPECT_EQ((Run2<int32_t, float>(*to_s32, 3e9f, 0)), 2147483647);
  EXPECT_EQ((Run2<int32_t, float>(*to_s32, -3e9f, 0)), -2147483647 - 1);
  EXPECT_EQ((Run2<int32_t, float>(*to_s32, 2.7f, 0)), 2);
  EXPECT_EQ((Run2<int32_t, float>(*to_s32, -2.7f, 0)), -2);

  Region u;
  auto* f = u.Param(ElementType::kF32);
  u.Param(ElementType::kF32);
  auto to_u8 = u.Compile(u.Op(Opcode::kConvert, ElementType::kU8, {f}));
  ASSERT_TRUE(to_u8);
  EXPECT_EQ((Run2<uint8_t, float>(*to_u8, -1, 0)), 0);
  EXPECT_EQ((Run2<uint8_t, float>(*to_u8, 300, 0)), 255);
  EXPECT_EQ((Run2<uint8_t, float>(*to_u8, 2.9f, 0)), 2);

  // s32 -> f64 -> pred: nonzero is true.
  Region p;
  auto* i = p.Param(ElementType::kS32);
  p.Param(ElementType::kS32);
  auto to_pred =
      p.Compile(p.Op(Opcode::kConvert, ElementType::kPred,
                     {p.Op(Opcode::kConvert, ElementType::kF64, {i})}));
  ASSERT_TRUE(to_pred);
  EXPECT_EQ((Run2<uint8_t, int32_t>(*to_pred, -7, 0)), 1);
  EXPECT_EQ((Run2<uint8_t, int32_t>(*to_pred, 0, 0)), 0);
}

// JAX's float sort comparator: -0 becomes +0 and every NaN the canonical
// one, then a TOTALORDER less-than.
TEST(ScalarProgram, JaxFloatSortComparator) {
  Region r;
  auto* a = r.Param(ElementType::kF32);
  auto* b = r.Param(ElementType::kF32);
  auto canonical = [&](Instruction* x) {
    auto* zero = r.Compare(ComparisonDirection::kEq, x, r.Constant(0.0f),
                           ComparisonType::kFloat);
    auto* no_minus_zero =
        r.Op(Opcode::kSelect, ElementType::kF32, {zero, r.Constant(0.0f), x});
    auto* nan =
        r.Compare(ComparisonDirection::kNe, x, x, ComparisonType::kFloat);
    return r.Op(Opcode::kSelect, ElementType::kF32,
                {nan, r.Constant(std::numeric_limits<float>::quiet_NaN()),
                 no_minus_zero});
  };
  auto program =
      r.Compile(r.Compare(ComparisonDirection::kLt, canonical(a), canonical(b),
                          ComparisonType::kTotalOrder));
  ASSERT_TRUE(program);
  std::vector<ScalarValue> registers(program->num_registers());
  auto less = [&](float x, float y) {
    const void* params[2] = {&x, &y};
    return program->RunPredicate(params, registers.data());
  };
  EXPECT_TRUE(less(-1, 1));
  EXPECT_FALSE(less(-0.0f, 0.0f));  // equal after canonicalisation
  EXPECT_FALSE(less(0.0f, -0.0f));
  EXPECT_TRUE(less(INFINITY, NAN));
  EXPECT_TRUE(less(1, -NAN));  // -NaN is canonicalised to +NaN
  EXPECT_FALSE(less(NAN, -NAN));
  EXPECT_TRUE(less(-INFINITY, -1e30f));
}

TEST(ScalarProgram, TupleResultsMayOverwriteParameters) {
  // (a, b) -> (a + b, a - b), written over a and b themselves.
  Region r;
  auto* a = r.Param(ElementType::kF64);
  auto* b = r.Param(ElementType::kF64);
  auto* sum = r.Op(Opcode::kAdd, ElementType::kF64, {a, b});
  auto* diff = r.Op(Opcode::kSubtract, ElementType::kF64, {a, b});
  Shape f64 = Shape::Scalar(ElementType::kF64);
  auto program = r.Compile(r.c->AddInstruction(
      Opcode::kTuple, Shape::Tuple({f64, f64}), {sum, diff}, "t"));
  ASSERT_TRUE(program);
  EXPECT_EQ(program->num_parameters(), 2u);
  EXPECT_EQ(program->num_results(), 2u);
  double x = 5, y = 3;
  const void* params[2] = {&x, &y};
  void* results[2] = {&x, &y};
  std::vector<ScalarValue> registers(program->num_registers());
  program->Run(params, results, registers.data());
  EXPECT_EQ(x, 8);
  EXPECT_EQ(y, 2);
}

TEST(ScalarProgram, PredLogic) {
  // not(a) xor (a and b).
  Region r;
  auto* a = r.Param(ElementType::kPred);
  auto* b = r.Param(ElementType::kPred);
  auto* not_a = r.Op(Opcode::kNot, ElementType::kPred, {a});
  auto* a_and_b = r.Op(Opcode::kAnd, ElementType::kPred, {a, b});
  auto program =
      r.Compile(r.Op(Opcode::kXor, ElementType::kPred, {not_a, a_and_b}));
  ASSERT_TRUE(program);
  EXPECT_EQ((Run2<uint8_t, uint8_t>(*program, 0, 0)), 1);
  EXPECT_EQ((Run2<uint8_t, uint8_t>(*program, 0, 1)), 1);
  EXPECT_EQ((Run2<uint8_t, uint8_t>(*program, 1, 0)), 0);
  EXPECT_EQ((Run2<uint8_t, uint8_t>(*program, 1, 1)), 1);
  // not on an integer is bitwise.
  Region n;
  auto* i = n.Param(ElementType::kU8);
  n.Param(ElementType::kU8);
  auto bitwise = n.Compile(n.Op(Opcode::kNot, ElementType::kU8, {i}));
  ASSERT_TRUE(bitwise);
  EXPECT_EQ((Run2<uint8_t, uint8_t>(*bitwise, 0x0f, 0)), 0xf0);
}

TEST(ScalarProgram, DeclinesWhatItDoesNotCover) {
  {
    Region r;  // an op outside the set
    auto* a = r.Param(ElementType::kF32);
    auto* b = r.Param(ElementType::kF32);
    EXPECT_FALSE(
        r.Compile(r.Op(Opcode::kRemainder, ElementType::kF32, {a, b})));
  }
  {
    Region r;  // an element type outside the set
    auto* a = r.Param(ElementType::kBF16);
    auto* b = r.Param(ElementType::kBF16);
    EXPECT_FALSE(r.Compile(r.Op(Opcode::kAdd, ElementType::kBF16, {a, b})));
  }
  {
    Region r;  // integer division (its x/0 rules stay with the kernels)
    auto* a = r.Param(ElementType::kS32);
    auto* b = r.Param(ElementType::kS32);
    EXPECT_FALSE(r.Compile(r.Op(Opcode::kDivide, ElementType::kS32, {a, b})));
  }
  {
    Region r;  // a comparison type that reinterprets the operands
    auto* a = r.Param(ElementType::kS32);
    auto* b = r.Param(ElementType::kS32);
    EXPECT_FALSE(r.Compile(
        r.Compare(ComparisonDirection::kLt, a, b, ComparisonType::kUnsigned)));
  }
  {
    Region r;  // a non-scalar value
    auto* a = r.Param(ElementType::kF32);
    r.Param(ElementType::kF32);
    EXPECT_FALSE(r.Compile(r.c->AddInstruction(
        Opcode::kBroadcast, Shape::Array(ElementType::kF32, {2}), {a}, "b")));
  }
}

// A loop's index arithmetic run many times on registers prepared once (the
// constants written up front, skipped per run) gives what Run gives.
TEST(ScalarProgram, PreparedRegistersKeepTheirConstantsAcrossRuns) {
  Region r;
  auto* i = r.Param(ElementType::kS32);
  auto* n = r.Param(ElementType::kS32);
  auto* zero = r.Constant<int32_t>(0);
  auto* negative = r.Compare(ComparisonDirection::kLt, i, zero);
  auto* wrapped = r.Op(Opcode::kAdd, ElementType::kS32, {i, n});
  auto* index =
      r.Op(Opcode::kSelect, ElementType::kS32, {negative, wrapped, i});
  auto* seven = r.Constant<int32_t>(7);
  auto program =
      r.Compile(r.Op(Opcode::kMultiply, ElementType::kS32, {index, seven}));
  ASSERT_TRUE(program);
  std::vector<ScalarValue> registers(program->num_registers());
  program->PrepareRegisters(registers.data());
  for (int32_t value : {3, -3, 0, -10, 9, -1}) {
    const int32_t size = 10;
    const void* params[2] = {&value, &size};
    int32_t prepared = 0;
    void* out[1] = {&prepared};
    program->RunPrepared(params, out, registers.data());
    EXPECT_EQ(prepared, (value < 0 ? value + size : value) * 7) << value;
    EXPECT_EQ(prepared, (Run2<int32_t, int32_t>(*program, value, size)));
  }
  // The same for a predicate.
  Region q;
  auto* k = q.Param(ElementType::kS32);
  auto* limit = q.Constant<int32_t>(512);
  auto predicate = q.Compile(q.Compare(ComparisonDirection::kLt, k, limit));
  ASSERT_TRUE(predicate);
  std::vector<ScalarValue> scratch(predicate->num_registers());
  predicate->PrepareRegisters(scratch.data());
  for (int32_t value : {0, 511, 512, -1, 1000}) {
    const void* params[1] = {&value};
    EXPECT_EQ(predicate->RunPredicatePrepared(params, scratch.data()),
              value < 512)
        << value;
  }
}

}  // namespace
}  // namespace xffi::cpu
