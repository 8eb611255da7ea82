// Elementwise arithmetic, bitwise and shift kernels: XLA's integer rules
// (wrapping, division by zero, shifts out of range, integer power), float
// max/min, narrow floats rounding back, sub-byte wrapping, complex numbers,
// threads and in-place results.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <vector>

#include "elementwise_test_util.h"
#include "ir/float_types.h"
#include "xffi/runtime/thread_pool.h"
#include "xla_max_min_table.h"

namespace xffi::test {
namespace {

constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

template <typename T>
std::vector<T> Binary(Opcode opcode, const std::vector<T>& a,
                      const std::vector<T>& b) {
  StatusOr<Literal> out =
      RunBinary(opcode, Literal::Vector(a), Literal::Vector(b));
  EXPECT_TRUE(out.ok()) << out.status().message();
  if (!out.ok()) return {};
  return out->ToVector<T>();
}

template <typename T>
std::vector<T> Unary(Opcode opcode, const std::vector<T>& a) {
  StatusOr<Literal> out = RunUnary(opcode, Literal::Vector(a));
  EXPECT_TRUE(out.ok()) << out.status().message();
  if (!out.ok()) return {};
  return out->ToVector<T>();
}

TEST(ElementwiseArith, FloatAddSubtractMultiplyDivideOverBlocksAndTail) {
  // 37 elements: two full blocks of the vectorised loop and a tail.
  std::vector<float> a, b;
  for (int i = 0; i < 37; ++i) {
    a.push_back(0.5f * static_cast<float>(i) - 3.0f);
    b.push_back(1.0f + 0.25f * static_cast<float>(i % 5));
  }
  auto sum = Binary(Opcode::kAdd, a, b);
  auto difference = Binary(Opcode::kSubtract, a, b);
  auto product = Binary(Opcode::kMultiply, a, b);
  auto quotient = Binary(Opcode::kDivide, a, b);
  ASSERT_EQ(sum.size(), 37u);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(sum[i], a[i] + b[i]) << i;
    EXPECT_EQ(difference[i], a[i] - b[i]) << i;
    EXPECT_EQ(product[i], a[i] * b[i]) << i;
    EXPECT_EQ(quotient[i], a[i] / b[i]) << i;
  }
}

TEST(ElementwiseArith, FloatDivideByZeroAndRemainder) {
  auto q = Binary<double>(Opcode::kDivide, {1, -1, 0}, {0, 0, 0});
  EXPECT_EQ(q[0], std::numeric_limits<double>::infinity());
  EXPECT_EQ(q[1], -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(q[2]));
  // fmod semantics: the sign of the dividend; x % 0 is NaN.
  auto r = Binary<float>(Opcode::kRemainder, {-7, 7, 7.5f, 7}, {2, -2, 2, 0});
  EXPECT_EQ(r[0], -1.0f);
  EXPECT_EQ(r[1], 1.0f);
  EXPECT_EQ(r[2], 1.5f);
  EXPECT_TRUE(std::isnan(r[3]));
}

TEST(ElementwiseArith, SignedIntegersWrapInsteadOfOverflowing) {
  EXPECT_EQ(Binary<int32_t>(Opcode::kAdd, {kMax32, kMin32, 5}, {1, -1, -7}),
            (std::vector<int32_t>{kMin32, kMax32, -2}));
  EXPECT_EQ(Binary<int32_t>(Opcode::kSubtract, {kMin32, 3}, {1, 5}),
            (std::vector<int32_t>{kMax32, -2}));
  EXPECT_EQ(
      Binary<int32_t>(Opcode::kMultiply, {65536, kMin32, -3}, {65536, -1, 7}),
      (std::vector<int32_t>{0, kMin32, -21}));
  EXPECT_EQ(Binary<int8_t>(Opcode::kMultiply, {100, -128}, {3, -1}),
            (std::vector<int8_t>{44, -128}));
  EXPECT_EQ(Binary<int64_t>(Opcode::kAdd, {INT64_MAX}, {1}),
            (std::vector<int64_t>{INT64_MIN}));
  EXPECT_EQ(Unary<int32_t>(Opcode::kNegate, {kMin32, 5, 0}),
            (std::vector<int32_t>{kMin32, -5, 0}));
  EXPECT_EQ(Unary<int32_t>(Opcode::kAbs, {kMin32, -5, 7}),
            (std::vector<int32_t>{kMin32, 5, 7}));
  EXPECT_EQ(Unary<int16_t>(Opcode::kSign, {-300, 0, 12}),
            (std::vector<int16_t>{-1, 0, 1}));
}

TEST(ElementwiseArith, IntegerDivisionFollowsXla) {
  // x / 0 = -1 (all ones), INT_MIN / -1 = INT_MIN; truncation toward zero.
  EXPECT_EQ(Binary<int32_t>(Opcode::kDivide, {7, -7, 7, -7, kMin32, 5},
                            {2, 2, 0, 0, -1, -1}),
            (std::vector<int32_t>{3, -3, -1, -1, kMin32, -5}));
  EXPECT_EQ(Binary<uint32_t>(Opcode::kDivide, {7, 7}, {0, 2}),
            (std::vector<uint32_t>{0xFFFFFFFFu, 3}));
  EXPECT_EQ(Binary<uint8_t>(Opcode::kDivide, {200}, {0}),
            (std::vector<uint8_t>{255}));
  // x % 0 = x, INT_MIN % -1 = 0; the sign follows the dividend.
  EXPECT_EQ(Binary<int32_t>(Opcode::kRemainder, {7, -7, 7, kMin32, -7},
                            {0, 0, 3, -1, 3}),
            (std::vector<int32_t>{7, -7, 1, 0, -1}));
  EXPECT_EQ(Binary<uint16_t>(Opcode::kRemainder, {9, 9}, {0, 4}),
            (std::vector<uint16_t>{9, 1}));
  EXPECT_EQ(Binary<int8_t>(Opcode::kDivide, {-128, -128}, {-1, 0}),
            (std::vector<int8_t>{-128, -1}));
}

TEST(ElementwiseArith, IntegerPowerFollowsXla) {
  // stablehlo.power on XLA:CPU (jax 0.10.2). Squaring six times: exponents
  // use their low six bits (3^64 = 1, 3^65 = 3), products wrap. A negative
  // exponent gives 1 for base 1, +-1 by parity for base -1, else 0 (0^-1
  // too); 0^0 = 1.
  EXPECT_EQ(
      Binary<int32_t>(
          Opcode::kPower, {3, 2, 2, 1, -1, -1, 3, 3, -2, 0, 0, -1, 2, 3, 1},
          {4, 31, 32, -5, -1, -2, 64, 65, 3, 0, -1, 3, kMin32, kMin32, kMin32}),
      (std::vector<int32_t>{81, kMin32, 0, 1, -1, 1, 1, 3, -8, 1, 0, -1, 0, 0,
                            1}));
  EXPECT_EQ(
      Binary<int8_t>(Opcode::kPower, {-1, -1, -1, -1, 0, 0, 2, 1, -2, -128},
                     {-1, -2, -3, -128, -1, 0, -1, -128, -127, -1}),
      (std::vector<int8_t>{-1, 1, -1, 1, 0, 1, 0, 1, 0, 0}));
  EXPECT_EQ(Binary<int16_t>(Opcode::kPower, {-1, -1, 7, 2}, {-1, -4, 3, 15}),
            (std::vector<int16_t>{-1, 1, 343, -32768}));
  EXPECT_EQ(
      Binary<int64_t>(Opcode::kPower, {10, -1, 3, 2, 7}, {18, -7, 40, 63, 2}),
      (std::vector<int64_t>{1000000000000000000, -1, -6289078614652622815LL,
                            INT64_MIN, 49}));
  // Unsigned exponents with the top bit set read as negative, and the
  // all-ones base as -1 (255^128 = 1, 255^129 = 255).
  EXPECT_EQ(
      Binary<uint8_t>(
          Opcode::kPower, {0, 1, 2, 3, 254, 255, 255, 255, 2, 3, 3, 5, 16},
          {128, 128, 128, 128, 128, 128, 129, 255, 64, 200, 40, 63, 2}),
      (std::vector<uint8_t>{0, 1, 0, 0, 0, 1, 255, 255, 1, 0, 33, 205, 0}));
  EXPECT_EQ(Binary<uint32_t>(Opcode::kPower, {3, 0xFFFFFFFFu, 0xFFFFFFFFu, 2},
                             {0x80000000u, 0x80000001u, 4, 31}),
            (std::vector<uint32_t>{0, 0xFFFFFFFFu, 1, 0x80000000u}));
  EXPECT_EQ(
      Binary<uint64_t>(Opcode::kPower, {~0ull, 2, 10}, {~0ull, 63, 19}),
      (std::vector<uint64_t>{~0ull, 1ull << 63, 10000000000000000000ull}));
  // Sub-byte: s4 -1^-1 = -1, 2^3 = 8 wraps to -8.
  StatusOr<Literal> s4 =
      RunBinary(Opcode::kPower, Typed<int8_t>(ElementType::kS4, {-1, 2, 2}),
                Typed<int8_t>(ElementType::kS4, {-1, 3, -2}));
  ASSERT_TRUE(s4.ok()) << s4.status().message();
  EXPECT_EQ(Stored<int8_t>(*s4), (std::vector<int8_t>{-1, -8, 0}));
}

TEST(ElementwiseArith, FloatPower) {
  // stablehlo.power on XLA:CPU: C's pow (0^-1 = inf, 1^NaN = 1,
  // (-1)^inf = 1, a negative base to a fractional power is NaN).
  auto p = Binary<float>(
      Opcode::kPower, {2, 0, -0.0f, -2, -2, kInf, 1, 1, -1, 0, -8, kNaN, 2},
      {0.5f, -1, -1, 2, 0.5f, -1, kNaN, kInf, kInf, kNaN, 1.0f / 3, 0, 10});
  EXPECT_FLOAT_EQ(p[0], std::sqrt(2.0f));
  EXPECT_EQ(p[1], kInf);
  EXPECT_EQ(p[2], -kInf);
  EXPECT_EQ(p[3], 4.0f);
  EXPECT_TRUE(std::isnan(p[4]));
  EXPECT_TRUE(SameFloat(p[5], 0.0));
  EXPECT_EQ(p[6], 1.0f);
  EXPECT_EQ(p[7], 1.0f);
  EXPECT_EQ(p[8], 1.0f);
  EXPECT_TRUE(std::isnan(p[9]));
  EXPECT_TRUE(std::isnan(p[10]));
  EXPECT_EQ(p[11], 1.0f);
  EXPECT_EQ(p[12], 1024.0f);
  EXPECT_EQ(Binary<double>(Opcode::kPower, {2, 10, 0.25}, {-2, 3, 0.5}),
            (std::vector<double>{0.25, 1000, 0.5}));
  // Narrow floats: computed in f32 and rounded (XLA's bits).
  auto half = [](std::vector<float> values) {
    std::vector<uint16_t> bits;
    for (float v : values) bits.push_back(FloatToHalf(v));
    return Typed(ElementType::kF16, bits);
  };
  StatusOr<Literal> h = RunBinary(Opcode::kPower, half({2, 3, -2, 0.5f}),
                                  half({10, 0.5f, 3, -2}));
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(Stored<uint16_t>(*h),
            (std::vector<uint16_t>{0x6400, 0x3eee, 0xc800, 0x4400}));
  auto bf16 = [](std::vector<float> values) {
    std::vector<uint16_t> bits;
    for (float v : values) bits.push_back(FloatToBFloat16(v));
    return Typed(ElementType::kBF16, bits);
  };
  StatusOr<Literal> b = RunBinary(Opcode::kPower, bf16({2, 3, -2, 0.5f}),
                                  bf16({10, 0.5f, 3, -2}));
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(Stored<uint16_t>(*b),
            (std::vector<uint16_t>{0x4480, 0x3fde, 0xc100, 0x4080}));
}

TEST(ElementwiseArith, ComplexPowerZeroBase) {
  // XLA: 0^0 = 1, 0^y = 0 for Re(y) > 0, NaN otherwise (0^i, 0^-1).
  using C = std::complex<float>;
  auto p = Binary<C>(Opcode::kPower, {{0, 0}, {0, 0}, {0, 0}, {0, 0}, {2, 0}},
                     {{0, 0}, {2, 0}, {0, 1}, {-1, 0}, {0.5f, 0}});
  EXPECT_EQ(p[0], C(1, 0));
  EXPECT_EQ(p[1], C(0, 0));
  EXPECT_TRUE(std::isnan(p[2].real()) || std::isnan(p[2].imag())) << p[2];
  EXPECT_TRUE(std::isnan(p[3].real()) || std::isnan(p[3].imag())) << p[3];
  EXPECT_NEAR(p[4].real(), 1.41421354f, 1e-6f);
  EXPECT_EQ(p[4].imag(), 0.0f);
}

TEST(ElementwiseArith, DivisionAndRemainderAcrossWidths) {
  // jax 0.10.2 on XLA:CPU.
  EXPECT_EQ(Binary<int64_t>(Opcode::kDivide, {INT64_MIN, 7, -7}, {-1, 0, -2}),
            (std::vector<int64_t>{INT64_MIN, -1, 3}));
  EXPECT_EQ(
      Binary<int64_t>(Opcode::kRemainder, {INT64_MIN, 7, -7}, {-1, 0, -2}),
      (std::vector<int64_t>{0, 7, -1}));
  EXPECT_EQ(Binary<uint64_t>(Opcode::kDivide, {~0ull, 7}, {0, 2}),
            (std::vector<uint64_t>{~0ull, 3}));
  EXPECT_EQ(Binary<uint64_t>(Opcode::kRemainder, {~0ull, 7}, {0, 2}),
            (std::vector<uint64_t>{~0ull, 1}));
  EXPECT_EQ(Binary<int8_t>(Opcode::kRemainder, {-128, -128, 100}, {-1, 0, -7}),
            (std::vector<int8_t>{0, -128, 2}));
  EXPECT_EQ(Binary<int16_t>(Opcode::kDivide, {-32768, -32768, 100, -7},
                            {-1, 0, -7, 2}),
            (std::vector<int16_t>{-32768, -1, -14, -3}));
  auto r = Binary<float>(Opcode::kRemainder, {5.5f, -5.5f, kInf, 1, -0.0f, -6},
                         {kInf, 2, 2, -0.0f, 3, 3});
  EXPECT_EQ(r[0], 5.5f);
  EXPECT_EQ(r[1], -1.5f);
  EXPECT_TRUE(std::isnan(r[2]));
  EXPECT_TRUE(std::isnan(r[3]));
  EXPECT_TRUE(SameFloat(r[4], -0.0));
  EXPECT_TRUE(SameFloat(r[5], -0.0));
  // Sub-byte: s4 -8 / -1 wraps to -8, u4 x / 0 is 15.
  StatusOr<Literal> s4 =
      RunBinary(Opcode::kDivide, Typed<int8_t>(ElementType::kS4, {-8, 7}),
                Typed<int8_t>(ElementType::kS4, {-1, 0}));
  ASSERT_TRUE(s4.ok()) << s4.status().message();
  EXPECT_EQ(Stored<int8_t>(*s4), (std::vector<int8_t>{-8, -1}));
  StatusOr<Literal> u4 =
      RunBinary(Opcode::kDivide, Typed<uint8_t>(ElementType::kU4, {9}),
                Typed<uint8_t>(ElementType::kU4, {0}));
  ASSERT_TRUE(u4.ok()) << u4.status().message();
  EXPECT_EQ(Stored<uint8_t>(*u4), (std::vector<uint8_t>{15}));
}

TEST(ElementwiseArith, NarrowAndDoubleMaxMin) {
  // XLA: NaN from either side, -0 below +0, in f16, bf16 and f64 alike.
  StatusOr<Literal> h = RunBinary(
      Opcode::kMaximum,
      Typed<uint16_t>(ElementType::kF16, {0x7e00, 0x3c00, 0x8000, 0x4000}),
      Typed<uint16_t>(ElementType::kF16, {0x3c00, 0x7e00, 0x0000, 0xc200}));
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(Stored<uint16_t>(*h),
            (std::vector<uint16_t>{0x7e00, 0x7e00, 0x0000, 0x4000}));
  StatusOr<Literal> b = RunBinary(
      Opcode::kMinimum,
      Typed<uint16_t>(ElementType::kBF16, {0x7fc0, 0x3f80, 0x8000, 0x4000}),
      Typed<uint16_t>(ElementType::kBF16, {0x3f80, 0x7fc0, 0x0000, 0xc040}));
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(Stored<uint16_t>(*b),
            (std::vector<uint16_t>{0x7fc0, 0x7fc0, 0x8000, 0xc040}));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto d = Binary<double>(Opcode::kMaximum, {nan, 1, -0.0, 0.0},
                          {1, nan, 0.0, -0.0});
  EXPECT_TRUE(std::isnan(d[0]));
  EXPECT_TRUE(std::isnan(d[1]));
  EXPECT_TRUE(SameFloat(d[2], 0.0));
  EXPECT_TRUE(SameFloat(d[3], 0.0));
  EXPECT_EQ(Binary<int8_t>(Opcode::kMinimum, {-128, 5}, {127, -3}),
            (std::vector<int8_t>{-128, -3}));
  EXPECT_EQ(Binary<uint64_t>(Opcode::kMaximum, {~0ull, 0}, {1, 0}),
            (std::vector<uint64_t>{~0ull, 0}));
  EXPECT_EQ(Binary<int64_t>(Opcode::kMaximum, {INT64_MIN, -1}, {INT64_MAX, -2}),
            (std::vector<int64_t>{INT64_MAX, -1}));
  EXPECT_EQ(Binary<uint16_t>(Opcode::kMinimum, {65535, 3}, {1, 3}),
            (std::vector<uint16_t>{1, 3}));
}

TEST(ElementwiseArith, UnaryIntegerOpsAtEveryWidth) {
  // abs/negate/sign/not at each type's extremes (jax 0.10.2): abs and
  // negate of the minimum wrap to the minimum.
  EXPECT_EQ(Unary<int8_t>(Opcode::kAbs, {-128, 127, 0, -5}),
            (std::vector<int8_t>{-128, 127, 0, 5}));
  EXPECT_EQ(Unary<int8_t>(Opcode::kNegate, {-128, 127, 0, 1}),
            (std::vector<int8_t>{-128, -127, 0, -1}));
  EXPECT_EQ(Unary<int8_t>(Opcode::kSign, {-128, 127, 0}),
            (std::vector<int8_t>{-1, 1, 0}));
  EXPECT_EQ(Unary<int8_t>(Opcode::kNot, {-128, 127, 5}),
            (std::vector<int8_t>{127, -128, -6}));
  EXPECT_EQ(Unary<int16_t>(Opcode::kAbs, {-32768, -7}),
            (std::vector<int16_t>{-32768, 7}));
  EXPECT_EQ(Unary<int16_t>(Opcode::kNegate, {-32768, 32767}),
            (std::vector<int16_t>{-32768, -32767}));
  EXPECT_EQ(Unary<int64_t>(Opcode::kAbs, {INT64_MIN, -9}),
            (std::vector<int64_t>{INT64_MIN, 9}));
  EXPECT_EQ(Unary<int64_t>(Opcode::kNegate, {INT64_MIN, INT64_MAX}),
            (std::vector<int64_t>{INT64_MIN, -INT64_MAX}));
  EXPECT_EQ(Unary<int64_t>(Opcode::kSign, {INT64_MIN, INT64_MAX, 0}),
            (std::vector<int64_t>{-1, 1, 0}));
  EXPECT_EQ(Unary<int64_t>(Opcode::kNot, {INT64_MIN, 0}),
            (std::vector<int64_t>{INT64_MAX, -1}));
  EXPECT_EQ(Unary<uint8_t>(Opcode::kNegate, {0, 255, 1, 5}),
            (std::vector<uint8_t>{0, 1, 255, 251}));
  EXPECT_EQ(Unary<uint8_t>(Opcode::kNot, {0, 255, 5}),
            (std::vector<uint8_t>{255, 0, 250}));
  EXPECT_EQ(Unary<uint16_t>(Opcode::kNegate, {1, 65535}),
            (std::vector<uint16_t>{65535, 1}));
  EXPECT_EQ(Unary<uint32_t>(Opcode::kNegate, {5}),
            (std::vector<uint32_t>{4294967291u}));
  EXPECT_EQ(Unary<uint64_t>(Opcode::kNegate, {1, 0}),
            (std::vector<uint64_t>{~0ull, 0}));
  EXPECT_EQ(Unary<uint64_t>(Opcode::kNot, {0, 5}),
            (std::vector<uint64_t>{~0ull, ~0ull - 5}));
  // abs and sign of unsigned values: StableHLO refuses them, but HLO
  // allows them (identity and 0/1); built by hand past the builder.
  Literal u8 = Literal::Vector<uint8_t>({0, 200});
  HandBuilt abs = HandBuild(Opcode::kAbs, u8.shape(), {u8.shape()});
  StatusOr<Literal> abs_out = RunInstruction(*abs.op, {u8});
  ASSERT_TRUE(abs_out.ok()) << abs_out.status().message();
  EXPECT_EQ(abs_out->ToVector<uint8_t>(), (std::vector<uint8_t>{0, 200}));
  Literal u32 = Literal::Vector<uint32_t>({0, 7, 0xFFFFFFFFu});
  HandBuilt sign = HandBuild(Opcode::kSign, u32.shape(), {u32.shape()});
  StatusOr<Literal> sign_out = RunInstruction(*sign.op, {u32});
  ASSERT_TRUE(sign_out.ok()) << sign_out.status().message();
  EXPECT_EQ(sign_out->ToVector<uint32_t>(), (std::vector<uint32_t>{0, 1, 1}));
  // s4: abs(-8) wraps to -8, negate(7) is -7.
  StatusOr<Literal> s4 =
      RunUnary(Opcode::kAbs, Typed<int8_t>(ElementType::kS4, {-8, -3, 7}));
  ASSERT_TRUE(s4.ok()) << s4.status().message();
  EXPECT_EQ(Stored<int8_t>(*s4), (std::vector<int8_t>{-8, 3, 7}));
}

TEST(ElementwiseArith, NarrowFloatSignAbsNegate) {
  // f16 and bf16 bits from jax 0.10.2: sign of -0.2 is -1, NaN stays NaN.
  StatusOr<Literal> sign = RunUnary(
      Opcode::kSign,
      Typed<uint16_t>(ElementType::kF16,
                      {0xc100, 0x3266 | 0x8000, 0x7c00, 0x8000, 0x0000}));
  ASSERT_TRUE(sign.ok()) << sign.status().message();
  EXPECT_EQ(Stored<uint16_t>(*sign),
            (std::vector<uint16_t>{0xbc00, 0xbc00, 0x3c00, 0x8000, 0x0000}));
  StatusOr<Literal> abs = RunUnary(
      Opcode::kAbs,
      Typed<uint16_t>(ElementType::kBF16, {0xc020, 0xff80, 0x8000, 0x3e4d}));
  ASSERT_TRUE(abs.ok()) << abs.status().message();
  EXPECT_EQ(Stored<uint16_t>(*abs),
            (std::vector<uint16_t>{0x4020, 0x7f80, 0x0000, 0x3e4d}));
  StatusOr<Literal> negate =
      RunUnary(Opcode::kNegate,
               Typed<uint16_t>(ElementType::kBF16, {0x3f00, 0xf14a, 0x0000}));
  ASSERT_TRUE(negate.ok()) << negate.status().message();
  EXPECT_EQ(Stored<uint16_t>(*negate),
            (std::vector<uint16_t>{0xbf00, 0x714a, 0x8000}));
}

TEST(ElementwiseArith, ShiftsAtEveryWidth) {
  // jax 0.10.2 on XLA:CPU.
  EXPECT_EQ(
      Binary<int8_t>(Opcode::kShiftLeft, {1, 1, 1, -1, 5}, {7, 8, -1, 3, 127}),
      (std::vector<int8_t>{-128, 0, 0, -8, 0}));
  EXPECT_EQ(Binary<int8_t>(Opcode::kShiftRightArithmetic, {-128, -128, 64, -1},
                           {7, 8, -1, 100}),
            (std::vector<int8_t>{-1, -1, 0, -1}));
  EXPECT_EQ(Binary<uint16_t>(Opcode::kShiftRightLogical,
                             {0x8000, 0x8000, 0xffff}, {15, 16, 0xffff}),
            (std::vector<uint16_t>{1, 0, 0}));
  EXPECT_EQ(Binary<int64_t>(Opcode::kShiftRightLogical, {-1, -1}, {63, 64}),
            (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(
      Binary<int64_t>(Opcode::kShiftRightArithmetic, {INT64_MIN, 5}, {64, 64}),
      (std::vector<int64_t>{-1, 0}));
  EXPECT_EQ(Binary<uint32_t>(Opcode::kShiftRightArithmetic,
                             {0x80000000u, 0x80000000u}, {4, 40}),
            (std::vector<uint32_t>{0xF8000000u, 0xFFFFFFFFu}));
  EXPECT_EQ(Binary<uint64_t>(Opcode::kShiftLeft, {1, 1}, {63, 64}),
            (std::vector<uint64_t>{1ull << 63, 0}));
}

TEST(ElementwiseArith, FloatMaxMinPropagateNaNAndOrderSignedZeros) {
  // As jax.lax.max/min on XLA:CPU: NaN wins, and -0 < +0.
  auto max = Binary<float>(Opcode::kMaximum, {-0.0f, 0.0f, kNaN, 1, 2, -kInf},
                           {0.0f, -0.0f, 1, kNaN, 3, -5});
  auto min = Binary<float>(Opcode::kMinimum, {-0.0f, 0.0f, kNaN, 1, 2, -kInf},
                           {0.0f, -0.0f, 1, kNaN, 3, -5});
  EXPECT_TRUE(SameFloat(max[0], 0.0));
  EXPECT_TRUE(SameFloat(max[1], 0.0));
  EXPECT_TRUE(std::isnan(max[2]));
  EXPECT_TRUE(std::isnan(max[3]));
  EXPECT_EQ(max[4], 3.0f);
  EXPECT_EQ(max[5], -5.0f);
  EXPECT_TRUE(SameFloat(min[0], -0.0));
  EXPECT_TRUE(SameFloat(min[1], -0.0));
  EXPECT_TRUE(std::isnan(min[2]));
  EXPECT_TRUE(std::isnan(min[3]));
  EXPECT_EQ(min[4], 2.0f);
  EXPECT_EQ(min[5], -kInf);
  EXPECT_EQ(Binary<int32_t>(Opcode::kMaximum, {kMin32, 4}, {-1, 9}),
            (std::vector<int32_t>{-1, 9}));
  EXPECT_EQ(Binary<uint32_t>(Opcode::kMinimum, {0xFFFFFFFFu, 4}, {1, 9}),
            (std::vector<uint32_t>{1, 4}));
}

// Every pair of +-1, +-0, +-inf and NaNs of either sign and payload against
// XLA:CPU's results (xla_max_min_table.h): a NaN second operand keeps its
// payload and takes the sign logic of two equal zeros. 144 pairs per call,
// so the vector loop runs as well as its tail.
template <typename Bits, size_t N>
void ExpectXlaMaxMin(ElementType type, const Bits (&values)[N],
                     const Bits (&max)[N][N], const Bits (&min)[N][N]) {
  std::vector<Bits> a, b, want_max, want_min;
  for (size_t i = 0; i < N; ++i)
    for (size_t j = 0; j < N; ++j) {
      a.push_back(values[i]);
      b.push_back(values[j]);
      want_max.push_back(max[i][j]);
      want_min.push_back(min[i][j]);
    }
  for (Opcode opcode : {Opcode::kMaximum, Opcode::kMinimum}) {
    StatusOr<Literal> out = RunBinary(opcode, Typed(type, a), Typed(type, b));
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    const std::vector<Bits> got = Stored<Bits>(*out);
    const std::vector<Bits>& want =
        opcode == Opcode::kMaximum ? want_max : want_min;
    for (size_t k = 0; k < got.size(); ++k)
      EXPECT_EQ(got[k], want[k])
          << OpcodeName(opcode) << " " << ElementTypeName(type) << std::hex
          << " of 0x" << a[k] << ", 0x" << b[k];
  }
}

TEST(ElementwiseArith, FloatMaxMinMatchXlaOnEveryPairOfSpecialValues) {
  ExpectXlaMaxMin(ElementType::kF32, kXlaF32Values, kXlaF32Max, kXlaF32Min);
  ExpectXlaMaxMin(ElementType::kF64, kXlaF64Values, kXlaF64Max, kXlaF64Min);
}

TEST(ElementwiseArith, PredArithmeticIsLogic) {
  std::vector<bool> a{false, false, true, true}, b{false, true, false, true};
  EXPECT_EQ(Binary<bool>(Opcode::kAdd, a, b),
            (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ(Binary<bool>(Opcode::kMultiply, a, b),
            (std::vector<bool>{false, false, false, true}));
  EXPECT_EQ(Binary<bool>(Opcode::kMaximum, a, b),
            (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ(Binary<bool>(Opcode::kMinimum, a, b),
            (std::vector<bool>{false, false, false, true}));
  EXPECT_EQ(Binary<bool>(Opcode::kXor, a, b),
            (std::vector<bool>{false, true, true, false}));
  EXPECT_EQ(Binary<bool>(Opcode::kAnd, a, b),
            (std::vector<bool>{false, false, false, true}));
  EXPECT_EQ(Binary<bool>(Opcode::kOr, a, b),
            (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ(Unary<bool>(Opcode::kNot, a),
            (std::vector<bool>{true, true, false, false}));
}

TEST(ElementwiseArith, BitwiseOnIntegers) {
  EXPECT_EQ(Binary<uint8_t>(Opcode::kAnd, {0xF0, 0x3C}, {0x3C, 0xFF}),
            (std::vector<uint8_t>{0x30, 0x3C}));
  EXPECT_EQ(Binary<int32_t>(Opcode::kOr, {0x0F, -16}, {0x30, 1}),
            (std::vector<int32_t>{0x3F, -15}));
  EXPECT_EQ(Binary<uint64_t>(Opcode::kXor, {~0ull}, {1}),
            (std::vector<uint64_t>{~0ull - 1}));
  EXPECT_EQ(Unary<int32_t>(Opcode::kNot, {0, -1, 5}),
            (std::vector<int32_t>{-1, 0, -6}));
  EXPECT_EQ(Unary<uint16_t>(Opcode::kNot, {0}),
            (std::vector<uint16_t>{0xFFFF}));
}

TEST(ElementwiseArith, ShiftsSaturateOutOfRangeCountsAsXlaDoes) {
  // Counts are read as unsigned: negative ones are out of range.
  EXPECT_EQ(Binary<int32_t>(Opcode::kShiftLeft, {1, 1, 1, 3, 1},
                            {31, 32, -1, 2, 100}),
            (std::vector<int32_t>{kMin32, 0, 0, 12, 0}));
  EXPECT_EQ(Binary<int32_t>(Opcode::kShiftRightArithmetic,
                            {-8, -8, 8, -8, kMin32}, {1, 40, 40, -1, 31}),
            (std::vector<int32_t>{-4, -1, 0, -1, -1}));
  EXPECT_EQ(Binary<int32_t>(Opcode::kShiftRightLogical, {-8, -8, -8, 64},
                            {1, 32, -1, 3}),
            (std::vector<int32_t>{0x7FFFFFFC, 0, 0, 8}));
  // Arithmetic shifts of unsigned values copy the top bit too.
  EXPECT_EQ(Binary<uint8_t>(Opcode::kShiftRightArithmetic, {0x80, 0x80, 0x40},
                            {1, 9, 1}),
            (std::vector<uint8_t>{0xC0, 0xFF, 0x20}));
  EXPECT_EQ(Binary<uint8_t>(Opcode::kShiftLeft, {0x81, 1, 1}, {1, 7, 8}),
            (std::vector<uint8_t>{0x02, 0x80, 0}));
  EXPECT_EQ(Binary<int64_t>(Opcode::kShiftLeft, {1, 1}, {63, 64}),
            (std::vector<int64_t>{INT64_MIN, 0}));
  EXPECT_EQ(Binary<int16_t>(Opcode::kShiftRightLogical, {-1}, {4}),
            (std::vector<int16_t>{0x0FFF}));
}

TEST(ElementwiseArith, SubByteIntegersWrapToTheirWidth) {
  // s4 and u4 are stored one per byte (sign-extended for s4).
  StatusOr<Literal> sum =
      RunBinary(Opcode::kAdd, Typed<int8_t>(ElementType::kS4, {7, -8, 3}),
                Typed<int8_t>(ElementType::kS4, {1, -1, 2}));
  ASSERT_TRUE(sum.ok()) << sum.status().message();
  const int8_t* s = sum->data<int8_t>();
  EXPECT_EQ(s[0], -8);
  EXPECT_EQ(s[1], 7);
  EXPECT_EQ(s[2], 5);
  StatusOr<Literal> product =
      RunBinary(Opcode::kMultiply, Typed<uint8_t>(ElementType::kU4, {15, 5}),
                Typed<uint8_t>(ElementType::kU4, {15, 3}));
  ASSERT_TRUE(product.ok()) << product.status().message();
  EXPECT_EQ(product->data<uint8_t>()[0], 1);  // 225 mod 16
  EXPECT_EQ(product->data<uint8_t>()[1], 15);
  StatusOr<Literal> shifted = RunBinary(
      Opcode::kShiftRightArithmetic, Typed<int8_t>(ElementType::kS4, {-8, -8}),
      Typed<int8_t>(ElementType::kS4, {1, 4}));
  ASSERT_TRUE(shifted.ok()) << shifted.status().message();
  EXPECT_EQ(shifted->data<int8_t>()[0], -4);
  EXPECT_EQ(shifted->data<int8_t>()[1], -1);
  StatusOr<Literal> ones =
      RunUnary(Opcode::kNot, Typed<uint8_t>(ElementType::kU2, {0, 1}));
  ASSERT_TRUE(ones.ok()) << ones.status().message();
  EXPECT_EQ(ones->data<uint8_t>()[0], 3);
  EXPECT_EQ(ones->data<uint8_t>()[1], 2);
}

TEST(ElementwiseArith, HalfAndBFloat16ComputeInFloatAndRoundBack) {
  std::vector<uint16_t> a, b;
  for (float v : {1.0f, 0.1f, 65504.0f, -3.25f, 1000.0f})
    a.push_back(FloatToHalf(v));
  for (float v : {0.00048828125f, 0.2f, 65504.0f, 0.125f, 0.3f})
    b.push_back(FloatToHalf(v));
  StatusOr<Literal> sum = RunBinary(Opcode::kAdd, Typed(ElementType::kF16, a),
                                    Typed(ElementType::kF16, b));
  ASSERT_TRUE(sum.ok()) << sum.status().message();
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(sum->data<uint16_t>()[i],
              FloatToHalf(HalfToFloat(a[i]) + HalfToFloat(b[i])))
        << i;
  // 1 + 2^-11 is a tie in f16: it rounds to even, 1.0; 65504 + 65504 is inf.
  EXPECT_EQ(HalfToFloat(sum->data<uint16_t>()[0]), 1.0f);
  EXPECT_EQ(HalfToFloat(sum->data<uint16_t>()[2]), kInf);

  std::vector<uint16_t> x{FloatToBFloat16(3.0f), FloatToBFloat16(-1.5f)};
  std::vector<uint16_t> y{FloatToBFloat16(1.0f / 3), FloatToBFloat16(7.0f)};
  StatusOr<Literal> product =
      RunBinary(Opcode::kMultiply, Typed(ElementType::kBF16, x),
                Typed(ElementType::kBF16, y));
  ASSERT_TRUE(product.ok()) << product.status().message();
  EXPECT_EQ(product->data<uint16_t>()[0],
            FloatToBFloat16(3.0f * BFloat16ToFloat(y[0])));
  EXPECT_EQ(BFloat16ToFloat(product->data<uint16_t>()[1]), -10.5f);
}

TEST(ElementwiseArith, EightBitFloatsRoundBack) {
  // f8e4m3fn: 1.5 * 1.25 = 1.875 is exact; 448 is the largest finite value.
  auto encode = [](float v) {
    return static_cast<uint8_t>(
        NarrowFloatFromDouble(ElementType::kF8E4M3FN, v));
  };
  StatusOr<Literal> product = RunBinary(
      Opcode::kMultiply, Typed<uint8_t>(ElementType::kF8E4M3FN, {encode(1.5f)}),
      Typed<uint8_t>(ElementType::kF8E4M3FN, {encode(1.25f)}));
  ASSERT_TRUE(product.ok()) << product.status().message();
  EXPECT_EQ(
      NarrowFloatToFloat(ElementType::kF8E4M3FN, product->data<uint8_t>()[0]),
      1.875f);
  StatusOr<Literal> sum = RunBinary(
      Opcode::kSubtract, Typed<uint8_t>(ElementType::kF8E5M2, {0x3C}),  // 1.0
      Typed<uint8_t>(ElementType::kF8E5M2, {0x40}));                    // 2.0
  ASSERT_TRUE(sum.ok()) << sum.status().message();
  EXPECT_EQ(sum->data<uint8_t>()[0], 0xBC);  // -1.0
}

TEST(ElementwiseArith, ComplexArithmetic) {
  using C = std::complex<float>;
  std::vector<C> a{{1, 2}, {3, -1}, {0, 0}}, b{{3, 4}, {0, 1}, {2, 0}};
  auto sum = Binary(Opcode::kAdd, a, b);
  auto product = Binary(Opcode::kMultiply, a, b);
  auto quotient = Binary(Opcode::kDivide, a, b);
  EXPECT_EQ(sum[0], C(4, 6));
  EXPECT_EQ(product[0], C(-5, 10));
  EXPECT_EQ(product[1], C(1, 3));
  EXPECT_NEAR(quotient[0].real(), 0.44f, 1e-6f);
  EXPECT_NEAR(quotient[0].imag(), 0.08f, 1e-6f);
  EXPECT_EQ(quotient[2], C(0, 0));
  using Z = std::complex<double>;
  auto power = Binary<Z>(Opcode::kPower, {{0, 0}, {0, 0}, {2, 0}, {0, 1}},
                         {{0, 0}, {2, 0}, {0.5, 0}, {2, 0}});
  EXPECT_EQ(power[0], Z(1, 0));
  EXPECT_EQ(power[1], Z(0, 0));
  EXPECT_NEAR(power[2].real(), std::sqrt(2.0), 1e-15);
  EXPECT_NEAR(power[3].real(), -1.0, 1e-15);
  EXPECT_NEAR(power[3].imag(), 0.0, 1e-15);
  auto negated = Unary<Z>(Opcode::kNegate, {{1, -2}});
  EXPECT_EQ(negated[0], Z(-1, 2));
  auto sign = Unary<Z>(Opcode::kSign, {{3, 4}, {0, 0}});
  EXPECT_NEAR(sign[0].real(), 0.6, 1e-15);
  EXPECT_NEAR(sign[0].imag(), 0.8, 1e-15);
  EXPECT_EQ(sign[1], Z(0, 0));
}

TEST(ElementwiseArith, AbsOfComplexIsReal) {
  StatusOr<Literal> out = RunUnary(
      Opcode::kAbs, Literal::Vector<std::complex<double>>({{3, 4}, {0, -2}}));
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->shape().element_type(), ElementType::kF64);
  EXPECT_EQ(out->ToVector<double>(), (std::vector<double>{5, 2}));
}

TEST(ElementwiseArith, FloatSignKeepsZerosAndNaN) {
  auto sign = Unary<float>(Opcode::kSign, {-0.0f, 0.0f, kNaN, -3, 2, -kInf});
  EXPECT_TRUE(SameFloat(sign[0], -0.0));
  EXPECT_TRUE(SameFloat(sign[1], 0.0));
  EXPECT_TRUE(std::isnan(sign[2]));
  EXPECT_EQ(sign[3], -1.0f);
  EXPECT_EQ(sign[4], 1.0f);
  EXPECT_EQ(sign[5], -1.0f);
  auto negated = Unary<float>(Opcode::kNegate, {0.0f, 1.5f});
  EXPECT_TRUE(SameFloat(negated[0], -0.0));
  EXPECT_EQ(negated[1], -1.5f);
  auto abs = Unary<double>(Opcode::kAbs, {-0.0, -2.5});
  EXPECT_TRUE(SameFloat(abs[0], 0.0));
  EXPECT_EQ(abs[1], 2.5);
}

TEST(ElementwiseArith, LargeArraysSplitOverThePool) {
  constexpr int64_t kN = 300000;  // above the parallel threshold
  std::vector<int32_t> a(kN), b(kN);
  for (int64_t i = 0; i < kN; ++i) {
    a[i] = static_cast<int32_t>(i * 7);
    b[i] = static_cast<int32_t>(kN - i);
  }
  ThreadPool pool(3);
  StatusOr<Literal> out =
      RunOp([](Builder& builder,
               const std::vector<Op>& p) { return builder.Add(p[0], p[1]); },
            {Literal::Vector(a), Literal::Vector(b)}, &pool);
  ASSERT_TRUE(out.ok()) << out.status().message();
  const int32_t* sum = out->data<int32_t>();
  int64_t wrong = 0;
  for (int64_t i = 0; i < kN; ++i) wrong += sum[i] != a[i] + b[i];
  EXPECT_EQ(wrong, 0);
}

TEST(ElementwiseArith, ResultMayShareAnOperandsBuffer) {
  Builder builder("in_place");
  Op x = builder.Parameter(0, Shape::Array(ElementType::kF32, {40}), "x");
  Op y = builder.Parameter(1, Shape::Array(ElementType::kF32, {40}), "y");
  StatusOr<Module> module = builder.Build(builder.Sub(x, y));
  ASSERT_TRUE(module.ok()) << module.status().message();
  StatusOr<cpu::Kernel> kernel =
      cpu::MakeElementwiseKernel(*module->entry()->root());
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  std::vector<float> a(40), b(40);
  for (int i = 0; i < 40; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = static_cast<float>(i * i);
  }
  const Shape shape = Shape::Array(ElementType::kF32, {40});
  cpu::ArrayView operands[] = {{&shape, a.data()}, {&shape, b.data()}};
  cpu::ArrayView result{&shape, b.data()};  // written over operand 1
  cpu::KernelArgs args;
  args.operands = operands;
  args.results = std::span<const cpu::ArrayView>(&result, 1);
  ASSERT_TRUE((*kernel)(args).ok());
  for (int i = 0; i < 40; ++i)
    EXPECT_EQ(b[i], static_cast<float>(i - i * i)) << i;
}

TEST(ElementwiseArith, UnsupportedTypesNameTheOpAndType) {
  // Builder shape inference lets these through; the kernels refuse them.
  HandBuilt sub =
      HandBuild(Opcode::kSubtract, Shape::Array(ElementType::kPred, {2}),
                {Shape::Array(ElementType::kPred, {2}),
                 Shape::Array(ElementType::kPred, {2})});
  StatusOr<cpu::Kernel> kernel = cpu::MakeElementwiseKernel(*sub.op);
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), XLA_FFI_Error_Code_UNIMPLEMENTED);
  EXPECT_NE(kernel.status().message().find("subtract"), std::string::npos)
      << kernel.status().message();
  EXPECT_NE(kernel.status().message().find("element type pred"),
            std::string::npos)
      << kernel.status().message();

  HandBuilt shift =
      HandBuild(Opcode::kShiftLeft, Shape::Array(ElementType::kF32, {2}),
                {Shape::Array(ElementType::kF32, {2}),
                 Shape::Array(ElementType::kF32, {2})});
  kernel = cpu::MakeElementwiseKernel(*shift.op);
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(kernel.status().message().find("shift-left"), std::string::npos)
      << kernel.status().message();
  EXPECT_NE(kernel.status().message().find("f32"), std::string::npos);

  HandBuilt max =
      HandBuild(Opcode::kMaximum, Shape::Array(ElementType::kC64, {2}),
                {Shape::Array(ElementType::kC64, {2}),
                 Shape::Array(ElementType::kC64, {2})});
  kernel = cpu::MakeElementwiseKernel(*max.op);
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(kernel.status().message().find("c64"), std::string::npos)
      << kernel.status().message();
}

TEST(ElementwiseArith, MismatchedOperandsAreInvalid) {
  HandBuilt add = HandBuild(Opcode::kAdd, Shape::Array(ElementType::kF32, {2}),
                            {Shape::Array(ElementType::kF32, {2}),
                             Shape::Array(ElementType::kF64, {2})});
  StatusOr<cpu::Kernel> kernel = cpu::MakeElementwiseKernel(*add.op);
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_NE(kernel.status().message().find("f32 and f64"), std::string::npos)
      << kernel.status().message();

  HandBuilt shapes =
      HandBuild(Opcode::kAdd, Shape::Array(ElementType::kF32, {3}),
                {Shape::Array(ElementType::kF32, {3}),
                 Shape::Array(ElementType::kF32, {2})});
  kernel = cpu::MakeElementwiseKernel(*shapes.op);
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(kernel.status().message().find("operand 1 has shape f32[2]"),
            std::string::npos)
      << kernel.status().message();
}

TEST(ElementwiseArith, NonElementwiseOpsAreNotFound) {
  HandBuilt reshape =
      HandBuild(Opcode::kReshape, Shape::Array(ElementType::kF32, {2}),
                {Shape::Array(ElementType::kF32, {2})});
  StatusOr<cpu::Kernel> kernel = cpu::MakeElementwiseKernel(*reshape.op);
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), XLA_FFI_Error_Code_NOT_FOUND);
}

}  // namespace
}  // namespace xffi::test
