// How arithmetic results are stored in the byte floats
// (cpu/byte_float_arithmetic.h): rounded to f16 first (f8e8m0fnu: from f32
// directly), then converted with the f16-source rules. Each expected byte is
// what jax 0.10.2 on XLA:CPU gives for convert(convert(x, f16), type) (for
// f8e8m0fnu convert(x, type)), the chain its float normalisation builds;
// the kernel tests below run ops whose results XLA:CPU gives that way.
#include "cpu/byte_float_arithmetic.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "cpu/element_traits.h"
#include "elementwise_test_util.h"
#include "ir/float_types.h"
#include "xffi/program/executable.h"

namespace xffi::test {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

using cpu::ByteFloatFormat;
using cpu::ElementTraits;
using cpu::StoreByteFloatResult;

template <ElementType E>
uint8_t Narrowed(float value) {
  return StoreByteFloatResult(ByteFloatFormat::Of<ElementTraits<E>>(), value);
}

// 1 + 2^-4 + 2^-12 lies just above the midpoint of 1 and 1.125: rounded
// once it is 1.125 in the three-mantissa-bit formats, but f16 first rounds
// it onto the midpoint, which then goes to even, 1.0.
constexpr float kAboveTieE4 = 1.0f + 0x1p-4f + 0x1p-12f;

TEST(ByteFloatArithmetic, E4M3FnRoundsThroughHalfAndKeepsTheSignOfNaN) {
  constexpr ElementType kE = ElementType::kF8E4M3FN;
  EXPECT_EQ(Narrowed<kE>(kAboveTieE4), 0x38);
  EXPECT_EQ(NarrowFloatFromDouble(kE, kAboveTieE4), 0x39u);  // rounded once
  EXPECT_EQ(Narrowed<kE>(1.5f), 0x3c);
  EXPECT_EQ(Narrowed<kE>(-0.0f), 0x80);
  // Past 448 (and past f16's range) is NaN, with the result's sign.
  EXPECT_EQ(Narrowed<kE>(500.0f), 0x7f);
  EXPECT_EQ(Narrowed<kE>(-500.0f), 0xff);
  EXPECT_EQ(Narrowed<kE>(-1e5f), 0xff);
  EXPECT_EQ(Narrowed<kE>(-kInf), 0xff);
  EXPECT_EQ(Narrowed<kE>(kNaN), 0x7f);
  EXPECT_EQ(Narrowed<kE>(-kNaN), 0xff);
  EXPECT_EQ(Narrowed<kE>(0x1p-20f), 0x00);
}

TEST(ByteFloatArithmetic, E4M3RoundsThroughHalfToItsInfinities) {
  constexpr ElementType kE = ElementType::kF8E4M3;
  EXPECT_EQ(Narrowed<kE>(kAboveTieE4), 0x38);
  EXPECT_EQ(Narrowed<kE>(500.0f), 0x78);
  EXPECT_EQ(Narrowed<kE>(-500.0f), 0xf8);
  EXPECT_EQ(Narrowed<kE>(1e5f), 0x78);
  EXPECT_EQ(Narrowed<kE>(kNaN), 0x7c);
  EXPECT_EQ(Narrowed<kE>(-kNaN), 0xfc);
  EXPECT_EQ(Narrowed<kE>(-0.0f), 0x80);
}

TEST(ByteFloatArithmetic, E5M2NaNIsAlwaysTheHalfFormatsUpperByte) {
  constexpr ElementType kE = ElementType::kF8E5M2;
  const float above_tie = 1.0f + 0x1p-3f + 0x1p-12f;
  EXPECT_EQ(Narrowed<kE>(above_tie), 0x3c);
  EXPECT_EQ(Narrowed<kE>(-above_tie), 0xbc);
  EXPECT_EQ(NarrowFloatFromDouble(kE, above_tie), 0x3du);
  // f16's NaN is 0x7e00: its upper byte, 0x7f, whatever the sign (a
  // conversion from f32 keeps it: 0xfe).
  EXPECT_EQ(Narrowed<kE>(kNaN), 0x7f);
  EXPECT_EQ(Narrowed<kE>(-kNaN), 0x7f);
  EXPECT_EQ(Narrowed<kE>(1e5f), 0x7c);
  EXPECT_EQ(Narrowed<kE>(-1e5f), 0xfc);
  EXPECT_EQ(Narrowed<kE>(500.0f), 0x60);
  EXPECT_EQ(Narrowed<kE>(-0.0f), 0x80);
}

TEST(ByteFloatArithmetic, E3M4RoundsThroughHalf) {
  constexpr ElementType kE = ElementType::kF8E3M4;
  const float above_tie = 1.0f + 0x1p-5f + 0x1p-12f;
  EXPECT_EQ(Narrowed<kE>(above_tie), 0x30);
  EXPECT_EQ(Narrowed<kE>(-above_tie), 0xb0);
  EXPECT_EQ(NarrowFloatFromDouble(kE, above_tie), 0x31u);
  EXPECT_EQ(Narrowed<kE>(500.0f), 0x70);
  EXPECT_EQ(Narrowed<kE>(-500.0f), 0xf0);
  EXPECT_EQ(Narrowed<kE>(kNaN), 0x78);
  EXPECT_EQ(Narrowed<kE>(-kNaN), 0xf8);
}

TEST(ByteFloatArithmetic, FnuzFormatsHaveOneNaNAndNoNegativeZero) {
  constexpr ElementType kB11 = ElementType::kF8E4M3B11FNUZ;
  constexpr ElementType kE4 = ElementType::kF8E4M3FNUZ;
  constexpr ElementType kE5 = ElementType::kF8E5M2FNUZ;
  EXPECT_EQ(Narrowed<kB11>(kAboveTieE4), 0x58);
  EXPECT_EQ(Narrowed<kE4>(kAboveTieE4), 0x40);
  EXPECT_EQ(Narrowed<kE5>(1.0f + 0x1p-3f + 0x1p-12f), 0x40);
  for (float special : {kNaN, -kNaN, kInf, -kInf, 1e5f, -1e5f}) {
    EXPECT_EQ(Narrowed<kB11>(special), 0x80) << special;
    EXPECT_EQ(Narrowed<kE4>(special), 0x80) << special;
    EXPECT_EQ(Narrowed<kE5>(special), 0x80) << special;
  }
  EXPECT_EQ(Narrowed<kB11>(-0.0f), 0x00);
  EXPECT_EQ(Narrowed<kE5>(500.0f), 0x64);
  EXPECT_EQ(Narrowed<kE5>(-500.0f), 0xe4);
}

TEST(ByteFloatArithmetic, E2M1FnSaturatesAndTakesNaNToNegativeZero) {
  constexpr ElementType kE = ElementType::kF4E2M1FN;
  const float above_tie = 1.0f + 0x1p-2f + 0x1p-12f;
  EXPECT_EQ(Narrowed<kE>(above_tie), 0x2);
  EXPECT_EQ(Narrowed<kE>(-above_tie), 0xa);
  EXPECT_EQ(NarrowFloatFromDouble(kE, above_tie), 0x3u);
  EXPECT_EQ(Narrowed<kE>(1e5f), 0x7);
  EXPECT_EQ(Narrowed<kE>(-kInf), 0xf);
  EXPECT_EQ(Narrowed<kE>(kNaN), 0x8);
  EXPECT_EQ(Narrowed<kE>(-kNaN), 0x8);
  EXPECT_EQ(Narrowed<kE>(-0.0f), 0x8);
}

TEST(ByteFloatArithmetic, E8M0StaysInF32AndZeroIsNaN) {
  constexpr ElementType kE = ElementType::kF8E8M0FNU;
  // No f16 step: 1.4999 has its mantissa's top bit clear, so 2^0, where
  // rounding to f16 (or bf16) first would give 1.5 and so 2^1.
  EXPECT_EQ(Narrowed<kE>(0x1.7fffp0f), 0x7f);
  EXPECT_EQ(Narrowed<kE>(1.5f), 0x80);
  EXPECT_EQ(Narrowed<kE>(0x1.8p-125f), 0x03);
  EXPECT_EQ(Narrowed<kE>(1e5f), 0x90);
  // A product that underflowed to zero under FTZ is NaN; 2^-127 itself
  // (only max/min's select or abs keep it) is pattern 0.
  EXPECT_EQ(Narrowed<kE>(0.0f), 0xff);
  EXPECT_EQ(Narrowed<kE>(-0.0f), 0xff);
  EXPECT_EQ(Narrowed<kE>(std::bit_cast<float>(0x00400000u)), 0x00);
  EXPECT_EQ(Narrowed<kE>(-1.0f), 0xff);
  EXPECT_EQ(Narrowed<kE>(kNaN), 0xff);
  EXPECT_EQ(Narrowed<kE>(kInf), 0xff);
}

TEST(ByteFloatArithmetic, MaxMinResultsHaveOnePositiveNaNAndNoSubnormals) {
  const float tiny = std::bit_cast<float>(0x00400000u);
  EXPECT_EQ(std::bit_cast<uint32_t>(cpu::XlaMaxMinResult(tiny)), 0u);
  EXPECT_EQ(std::bit_cast<uint32_t>(cpu::XlaMaxMinResult(-tiny)), 0x80000000u);
  EXPECT_EQ(cpu::XlaMaxMinResult(0x1p-126f), 0x1p-126f);
  EXPECT_EQ(cpu::XlaMaxMinResult(-3.0f), -3.0f);
  EXPECT_EQ(std::bit_cast<uint32_t>(cpu::XlaMaxMinResult(-kNaN)), 0x7fc00000u);
}

TEST(ByteFloatArithmetic, CommutativeResultsTakeTheFirstNaN) {
  EXPECT_TRUE(std::signbit(cpu::XlaCommutativeResult(-kNaN, kNaN)));
  EXPECT_FALSE(std::signbit(cpu::XlaCommutativeResult(kNaN, -kNaN)));
  EXPECT_TRUE(std::signbit(cpu::XlaCommutativeResult(1.0f, -kNaN)));
  EXPECT_EQ(cpu::XlaCommutativeResult(1.0f, 2.5f), 2.5f);
}

// Through the elementwise kernels: each case is a result XLA:CPU gives that
// the f32 result rounded once would not.
StatusOr<Literal> Binary(Opcode opcode, ElementType type, uint8_t a,
                         uint8_t b) {
  return RunOp(
      [&](Builder& builder, const std::vector<Op>& p) {
        return builder.Binary(opcode, p[0], p[1]);
      },
      {Typed<uint8_t>(type, {a}), Typed<uint8_t>(type, {b})});
}

uint8_t BinaryByte(Opcode opcode, ElementType type, uint8_t a, uint8_t b) {
  StatusOr<Literal> out = Binary(opcode, type, a, b);
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? out->data<uint8_t>()[0] : 0;
}

TEST(ByteFloatArithmetic, KernelsStoreAsXla) {
  // -448 + -448 overflows to f8e4m3fn's negative NaN.
  EXPECT_EQ(BinaryByte(Opcode::kAdd, ElementType::kF8E4M3FN, 0xfe, 0xfe), 0xff);
  // 0 * inf in f8e5m2: NaN, stored as f16's 0x7f.
  EXPECT_EQ(BinaryByte(Opcode::kMultiply, ElementType::kF8E5M2, 0x00, 0x7c),
            0x7f);
  // 2^-127 * 2^-127 underflows: f8e8m0fnu's NaN.
  EXPECT_EQ(BinaryByte(Opcode::kMultiply, ElementType::kF8E8M0FNU, 0x00, 0x00),
            0xff);
  // 2^-126 + 2^-125 = 1.5 * 2^-125 rounds up to 2^-124 (pattern 3).
  EXPECT_EQ(BinaryByte(Opcode::kAdd, ElementType::kF8E8M0FNU, 0x01, 0x02),
            0x03);
  // max and min of 2^-127 come out of XLA:CPU's max/min flushed: NaN.
  EXPECT_EQ(BinaryByte(Opcode::kMaximum, ElementType::kF8E8M0FNU, 0x00, 0x00),
            0xff);
  EXPECT_EQ(BinaryByte(Opcode::kMinimum, ElementType::kF8E8M0FNU, 0x00, 0x05),
            0xff);
  // max(0, -NaN) in f8e4m3fn is the positive NaN; NaN + -NaN is the first.
  EXPECT_EQ(BinaryByte(Opcode::kMaximum, ElementType::kF8E4M3FN, 0x00, 0xff),
            0x7f);
  EXPECT_EQ(BinaryByte(Opcode::kMinimum, ElementType::kF8E4M3FN, 0xff, 0x00),
            0x7f);
  EXPECT_EQ(BinaryByte(Opcode::kAdd, ElementType::kF8E4M3FN, 0x7f, 0xff), 0x7f);
  EXPECT_EQ(BinaryByte(Opcode::kAdd, ElementType::kF8E4M3FN, 0xff, 0x7f), 0xff);
  EXPECT_EQ(BinaryByte(Opcode::kMultiply, ElementType::kF8E4M3, 0x79, 0xf9),
            0x7c);
  // 0 / 0 in f4e2m1fn: NaN, which the format stores as -0.
  EXPECT_EQ(BinaryByte(Opcode::kDivide, ElementType::kF4E2M1FN, 0x0, 0x0), 0x8);
}

TEST(ByteFloatArithmetic, NegatedNaNKeepsItsNewSign) {
  StatusOr<Literal> out = RunOp(
      [](Builder& builder, const std::vector<Op>& p) {
        return builder.Unary(Opcode::kNegate, p[0]);
      },
      {Typed<uint8_t>(ElementType::kF8E4M3FN, {0x7f, 0xff, 0x38})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Stored<uint8_t>(*out), (std::vector<uint8_t>{0xff, 0x7f, 0xb8}));
}

// A dot or convolution of byte floats computes in f32 and narrows through
// f16. jax 0.10.2 on XLA:CPU: jnp.dot of f8e4m3fn bytes [26, 71, 21] by
// [18, 57, 49] (f32 sum 4.2503662109375) gives 72 (4.0); rounded once from
// f32 it would be 73 (4.5): f16 first rounds it onto the tie 4.25.
TEST(ByteFloatArithmetic, ProductsNarrowThroughHalf) {
  const float sum = 4.2503662109375f;
  uint8_t out = 0;
  cpu::StoreByteFloatProducts(ElementType::kF8E4M3FN, &sum, 1, &out);
  EXPECT_EQ(out, 72);
  EXPECT_EQ(NarrowFloatFromDouble(ElementType::kF8E4M3FN, sum), 73u);
  const Literal lhs =
      Typed<uint8_t>(ElementType::kF8E4M3FN, {26, 71, 21}, {1, 3});
  const Literal rhs =
      Typed<uint8_t>(ElementType::kF8E4M3FN, {18, 57, 49}, {3, 1});
  Builder builder("dot");
  Op product = builder.Dot(builder.Parameter(0, lhs.shape(), "a"),
                           builder.Parameter(1, rhs.shape(), "b"));
  StatusOr<Module> module = builder.Build(product);
  ASSERT_TRUE(module.ok()) << module.status().message();
  StatusOr<std::unique_ptr<Executable>> exe = Compile(std::move(*module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  StatusOr<std::vector<Literal>> dot = (*exe)->Execute({lhs, rhs});
  ASSERT_TRUE(dot.ok()) << dot.status().message();
  EXPECT_EQ(Stored<uint8_t>((*dot)[0]), std::vector<uint8_t>{72});
  // f8e8m0fnu stays in f32: 2^-127 * 2^-127 underflows to 0, its NaN.
  const float zero = 0.0f;
  cpu::StoreByteFloatProducts(ElementType::kF8E8M0FNU, &zero, 1, &out);
  EXPECT_EQ(out, 0xff);
}

uint8_t UnaryByte(Opcode opcode, ElementType type, uint8_t x) {
  StatusOr<Literal> out = RunOp(
      [opcode](Builder& builder, const std::vector<Op>& p) {
        return builder.Unary(opcode, p[0]);
      },
      {Typed<uint8_t>(type, {x})});
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? out->data<uint8_t>()[0] : 0;
}

// Bytes jax 0.10.2's jax.jit gives on XLA:CPU (lax.expm1 and friends of a
// one-element array), where the op computed in f32 and narrowed differs.
TEST(ByteFloatArithmetic, UnaryOpsTakeXlasExceptions) {
  // f8e3m4 expm1(2.125): f16 exp 8.375 - 1 = 7.375, a tie, to 7.5 (0x5e);
  // the f32 expm1 7.3728 gives 7.25 (0x5d).
  EXPECT_EQ(UnaryByte(Opcode::kExpm1, ElementType::kF8E3M4, 0x41), 0x5e);
  // Below 0.5 XLA's expm1 is accurate: expm1(0.125) = 0.1331 -> 0.1328.
  EXPECT_EQ(UnaryByte(Opcode::kExpm1, ElementType::kF8E3M4, 0x08), 0x09);
  // f8e8m0fnu's byte 0 is 2^-127, an f32 subnormal.
  constexpr ElementType kE8 = ElementType::kF8E8M0FNU;
  EXPECT_EQ(UnaryByte(Opcode::kSign, kE8, 0x00), 127);
  EXPECT_EQ(UnaryByte(Opcode::kCeil, kE8, 0x00), 127);
  EXPECT_EQ(UnaryByte(Opcode::kTanh, kE8, 0x00), 0x00);
  EXPECT_EQ(UnaryByte(Opcode::kExpm1, kE8, 0x00), 0x00);
  EXPECT_EQ(UnaryByte(Opcode::kLog1p, kE8, 0x00), 0xff);
  // Other bytes keep the f32 rule: sign(2^-126) = 1, ceil(2) = 2.
  EXPECT_EQ(UnaryByte(Opcode::kSign, kE8, 0x01), 127);
  EXPECT_EQ(UnaryByte(Opcode::kCeil, kE8, 128), 128);
}

}  // namespace
}  // namespace xffi::test
