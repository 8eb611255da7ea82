// convert, bitcast-convert and iota: XLA:CPU's conversion rules (saturating
// float to integer, wrapping integers, narrow floats with their rounding,
// complex parts), bit reinterpretation across widths, and iota in every
// kind of element type. Expected values come from jax 0.10.2 on XLA:CPU.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "elementwise_test_util.h"
#include "ir/float_types.h"

namespace xffi::test {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

StatusOr<Literal> Convert(const Literal& x, ElementType to) {
  return RunOp(
      [&](Builder& b, const std::vector<Op>& p) { return b.Convert(p[0], to); },
      {x});
}

// The converted elements as int64 (sign- or zero-extended from storage).
std::vector<int64_t> ConvertToInts(const Literal& x, ElementType to) {
  StatusOr<Literal> out = Convert(x, to);
  EXPECT_TRUE(out.ok()) << out.status().message();
  std::vector<int64_t> values;
  if (!out.ok()) return values;
  const int64_t n = out->shape().num_elements();
  const bool is_signed = IsSignedIntegralType(to);
  const auto* bytes = static_cast<const unsigned char*>(out->data());
  const size_t size = ElementByteSize(to);
  for (int64_t i = 0; i < n; ++i) {
    uint64_t raw = 0;
    std::memcpy(&raw, bytes + i * size, size);
    if (is_signed && size < 8) {
      const int shift = 64 - static_cast<int>(size) * 8;
      values.push_back(static_cast<int64_t>(raw << shift) >> shift);
    } else {
      values.push_back(static_cast<int64_t>(raw));
    }
  }
  return values;
}

// The converted elements' storage bits.
std::vector<uint32_t> ConvertToBits(const Literal& x, ElementType to) {
  StatusOr<Literal> out = Convert(x, to);
  EXPECT_TRUE(out.ok()) << out.status().message();
  std::vector<uint32_t> bits;
  if (!out.ok()) return bits;
  const auto* bytes = static_cast<const unsigned char*>(out->data());
  const size_t size = ElementByteSize(to);
  for (int64_t i = 0; i < out->shape().num_elements(); ++i) {
    uint32_t raw = 0;
    std::memcpy(&raw, bytes + i * size, size);
    bits.push_back(raw);
  }
  return bits;
}

const std::vector<float>& SaturationInputs() {
  static const std::vector<float> inputs{kNaN,   kInf,   -kInf,   1e10f,
                                         -1e10f, 300.7f, -300.7f, 2.5f,
                                         -2.5f,  -0.5f,  127.9f,  -128.9f};
  return inputs;
}

TEST(ElementwiseConvert, FloatToIntegerTruncatesAndSaturatesNaNIsZero) {
  const Literal x = Literal::Vector(SaturationInputs());
  const int64_t kMin64 = std::numeric_limits<int64_t>::min();
  const int64_t kMax64 = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(ConvertToInts(x, ElementType::kS8),
            (std::vector<int64_t>{0, 127, -128, 127, -128, 127, -128, 2, -2, 0,
                                  127, -128}));
  EXPECT_EQ(ConvertToInts(x, ElementType::kU8),
            (std::vector<int64_t>{0, 255, 0, 255, 0, 255, 0, 2, 0, 0, 127, 0}));
  EXPECT_EQ(ConvertToInts(x, ElementType::kS16),
            (std::vector<int64_t>{0, 32767, -32768, 32767, -32768, 300, -300, 2,
                                  -2, 0, 127, -128}));
  EXPECT_EQ(
      ConvertToInts(x, ElementType::kS32),
      (std::vector<int64_t>{0, 2147483647, -2147483648LL, 2147483647,
                            -2147483648LL, 300, -300, 2, -2, 0, 127, -128}));
  EXPECT_EQ(ConvertToInts(x, ElementType::kU32),
            (std::vector<int64_t>{0, 4294967295LL, 0, 4294967295LL, 0, 300, 0,
                                  2, 0, 0, 127, 0}));
  EXPECT_EQ(
      ConvertToInts(x, ElementType::kS64),
      (std::vector<int64_t>{0, kMax64, kMin64, 10000000000LL, -10000000000LL,
                            300, -300, 2, -2, 0, 127, -128}));
  EXPECT_EQ(ConvertToInts(x, ElementType::kU64),
            (std::vector<int64_t>{0, -1 /* 2^64 - 1 */, 0, 10000000000LL, 0,
                                  300, 0, 2, 0, 0, 127, 0}));
  EXPECT_EQ(ConvertToInts(x, ElementType::kS4),
            (std::vector<int64_t>{0, 7, -8, 7, -8, 7, -8, 2, -2, 0, 7, -8}));
  EXPECT_EQ(ConvertToInts(x, ElementType::kU4),
            (std::vector<int64_t>{0, 15, 0, 15, 0, 15, 0, 2, 0, 0, 15, 0}));
  // Doubles at the edges of 64-bit ranges.
  EXPECT_EQ(ConvertToInts(Literal::Vector<double>({9.3e18, -9.3e18, 9.2e18}),
                          ElementType::kS64),
            (std::vector<int64_t>{kMax64, kMin64, 9200000000000000000LL}));
  EXPECT_EQ(
      ConvertToInts(Literal::Vector<double>({1.9e19, -1.0}), ElementType::kU64),
      (std::vector<int64_t>{-1, 0}));
  // Narrow floats too: f16 65504 saturates s8.
  EXPECT_EQ(ConvertToInts(Typed<uint16_t>(ElementType::kF16,
                                          {0x7BFF, 0xFBFF, 0x7C00, 0x7E00}),
                          ElementType::kS8),
            (std::vector<int64_t>{127, -128, 127, 0}));
}

TEST(ElementwiseConvert, IntegersWrapAndExtendByTheSourceSign) {
  EXPECT_EQ(ConvertToInts(Literal::Vector<int32_t>({300, -129, 127}),
                          ElementType::kS8),
            (std::vector<int64_t>{44, 127, 127}));
  EXPECT_EQ(ConvertToInts(Literal::Vector<int8_t>({-1, 5}), ElementType::kU32),
            (std::vector<int64_t>{4294967295LL, 5}));
  EXPECT_EQ(ConvertToInts(Literal::Vector<uint32_t>({0xFFFFFFFFu}),
                          ElementType::kS64),
            (std::vector<int64_t>{4294967295LL}));
  EXPECT_EQ(
      ConvertToInts(Literal::Vector<int32_t>({9, -9, 15}), ElementType::kS4),
      (std::vector<int64_t>{-7, 7, -1}));
  EXPECT_EQ(
      ConvertToInts(Typed<int8_t>(ElementType::kS4, {-1, 7}), ElementType::kU8),
      (std::vector<int64_t>{255, 7}));
  EXPECT_EQ(
      ConvertToInts(Typed<uint8_t>(ElementType::kU4, {15}), ElementType::kS32),
      (std::vector<int64_t>{15}));
}

TEST(ElementwiseConvert, PredConversions) {
  StatusOr<Literal> to_pred = Convert(
      Literal::Vector<float>({0.0f, -0.0f, 0.1f, kNaN}), ElementType::kPred);
  ASSERT_TRUE(to_pred.ok()) << to_pred.status().message();
  EXPECT_EQ(to_pred->ToVector<bool>(),
            (std::vector<bool>{false, false, true, true}));
  StatusOr<Literal> from_int =
      Convert(Literal::Vector<int32_t>({0, 2, -1}), ElementType::kPred);
  ASSERT_TRUE(from_int.ok());
  EXPECT_EQ(from_int->ToVector<bool>(), (std::vector<bool>{false, true, true}));
  StatusOr<Literal> to_float =
      Convert(Literal::Vector<bool>({true, false}), ElementType::kF32);
  ASSERT_TRUE(to_float.ok());
  EXPECT_EQ(to_float->ToVector<float>(), (std::vector<float>{1, 0}));
  EXPECT_EQ(
      ConvertToInts(Literal::Vector<bool>({true, false}), ElementType::kS8),
      (std::vector<int64_t>{1, 0}));
}

TEST(ElementwiseConvert, FloatToNarrowFloatsAsXlaRoundsThem) {
  const Literal x =
      Literal::Vector<float>({0.1f, 1.0f, -3.3f, 448, 500, 1e6f, kInf, kNaN,
                              1e-9f, -0.0f, 57344, 61440});
  struct Case {
    ElementType type;
    std::vector<uint32_t> bits;
  };
  // jax.lax.convert_element_type on XLA:CPU (ml_dtypes types).
  const Case cases[] = {
      {ElementType::kF8E4M3FN,
       {0x1d, 0x38, 0xc5, 0x7e, 0x7f, 0x7f, 0x7f, 0x7f, 0x0, 0x80, 0x7f, 0x7f}},
      {ElementType::kF8E5M2,
       {0x2e, 0x3c, 0xc3, 0x5f, 0x60, 0x7c, 0x7c, 0x7e, 0x0, 0x80, 0x7b, 0x7c}},
      {ElementType::kF8E4M3B11FNUZ,
       {0x3d, 0x58, 0xe5, 0x80, 0x80, 0x80, 0x80, 0x80, 0x0, 0x0, 0x80, 0x80}},
      {ElementType::kF8E5M2FNUZ,
       {0x32, 0x40, 0xc7, 0x63, 0x64, 0x80, 0x80, 0x80, 0x0, 0x0, 0x7f, 0x80}},
      {ElementType::kF8E4M3FNUZ,
       {0x25, 0x40, 0xcd, 0x80, 0x80, 0x80, 0x80, 0x80, 0x0, 0x0, 0x80, 0x80}},
      {ElementType::kF8E4M3,
       {0x1d, 0x38, 0xc5, 0x78, 0x78, 0x78, 0x78, 0x7c, 0x0, 0x80, 0x78, 0x78}},
      {ElementType::kF8E3M4,
       {0x6, 0x30, 0xca, 0x70, 0x70, 0x70, 0x70, 0x78, 0x0, 0x80, 0x70, 0x70}},
      {ElementType::kF4E2M1FN,
       {0x0, 0x2, 0xd, 0x7, 0x7, 0x7, 0x7, 0x8, 0x0, 0x8, 0x7, 0x7}},
      {ElementType::kF8E8M0FNU,
       {0x7c, 0x7f, 0xff, 0x88, 0x88, 0x93, 0xff, 0xff, 0x61, 0xff, 0x8f,
        0x8f}},
      {ElementType::kF16,
       {0x2e66, 0x3c00, 0xc29a, 0x5f00, 0x5fd0, 0x7c00, 0x7c00, 0x7e00, 0x0,
        0x8000, 0x7b00, 0x7b80}},
      {ElementType::kBF16,
       {0x3dcd, 0x3f80, 0xc053, 0x43e0, 0x43fa, 0x4974, 0x7f80, 0x7fc0, 0x3089,
        0x8000, 0x4760, 0x4770}},
  };
  for (const Case& c : cases)
    EXPECT_EQ(ConvertToBits(x, c.type), c.bits) << ElementTypeName(c.type);
}

TEST(ElementwiseConvert, RoundingPathsMatchXla) {
  // f64 to f16 and to f8 rounds once; to bf16 it goes through f32 (and so
  // rounds twice), as do integers.
  EXPECT_EQ(
      ConvertToBits(Literal::Vector<double>({1 + 0x1p-11 + 0x1p-40, 0x1p-25,
                                             0x1p-25 + 0x1p-60, 3 * 0x1p-26}),
                    ElementType::kF16),
      (std::vector<uint32_t>{0x3c01, 0x0, 0x1, 0x1}));
  EXPECT_EQ(ConvertToBits(Literal::Vector<double>(
                              {1 + 0x1p-8 + 0x1p-40, 1 + 0x1p-8 + 0x1p-20}),
                          ElementType::kBF16),
            (std::vector<uint32_t>{0x3f80, 0x3f81}));
  EXPECT_EQ(ConvertToBits(Literal::Vector<int64_t>(
                              {(1 << 24) + (1 << 16) + 1, 257, 2049}),
                          ElementType::kBF16),
            (std::vector<uint32_t>{0x4b80, 0x4380, 0x4500}));
  EXPECT_EQ(ConvertToBits(Literal::Vector<double>({1 + 0x1p-4 + 0x1p-40}),
                          ElementType::kF8E4M3FN),
            (std::vector<uint32_t>{0x39}));
  EXPECT_EQ(ConvertToBits(Literal::Vector<float>({1 + 0x1p-4f + 0x1p-20f}),
                          ElementType::kF8E4M3FN),
            (std::vector<uint32_t>{0x39}));
  EXPECT_EQ(ConvertToBits(Literal::Vector<int32_t>({17, 19, 1000}),
                          ElementType::kF8E4M3FN),
            (std::vector<uint32_t>{0x58, 0x5a, 0x7f}));
  EXPECT_EQ(ConvertToBits(Literal::Vector<int64_t>({2049, 4097, 65519, 65520}),
                          ElementType::kF16),
            (std::vector<uint32_t>{0x6800, 0x6c00, 0x7bff, 0x7c00}));
  // Between narrow types: bf16 1e-8 underflows f16, 70000 overflows it.
  EXPECT_EQ(ConvertToBits(Typed<uint16_t>(ElementType::kBF16,
                                          {FloatToBFloat16(1e-8f),
                                           FloatToBFloat16(70000.0f),
                                           FloatToBFloat16(1 + 0x1p-7f)}),
                          ElementType::kF16),
            (std::vector<uint32_t>{0x0, 0x7c00, 0x3c08}));
  EXPECT_EQ(ConvertToBits(Typed<uint8_t>(ElementType::kF8E4M3FN, {0x39}),
                          ElementType::kBF16),
            (std::vector<uint32_t>{0x3f90}));
  // Narrow floats to integers saturate; NaN is 0.
  EXPECT_EQ(
      ConvertToInts(Typed<uint8_t>(ElementType::kF8E4M3FN, {0x7f, 0x7e, 0xc3}),
                    ElementType::kS32),
      (std::vector<int64_t>{0, 448, -2}));
  StatusOr<Literal> wide =
      Convert(Literal::Vector<uint32_t>({0xFFFFFFFFu}), ElementType::kF32);
  ASSERT_TRUE(wide.ok());
  EXPECT_EQ(wide->ToVector<float>(), (std::vector<float>{4294967296.0f}));
}

TEST(ElementwiseConvert, HalfAndBFloat16ToIntegersSaturate) {
  // jax 0.10.2: f16 65504 -65504 inf NaN -300.5 2.5 -0.75 1000.
  const Literal half = Typed<uint16_t>(
      ElementType::kF16,
      {0x7bff, 0xfbff, 0x7c00, 0x7e00, 0xdcb2, 0x4100, 0xba00, 0x63d0});
  EXPECT_EQ(ConvertToInts(half, ElementType::kS8),
            (std::vector<int64_t>{127, -128, 127, 0, -128, 2, 0, 127}));
  EXPECT_EQ(ConvertToInts(half, ElementType::kU8),
            (std::vector<int64_t>{255, 0, 255, 0, 0, 2, 0, 255}));
  EXPECT_EQ(ConvertToInts(half, ElementType::kS16),
            (std::vector<int64_t>{32767, -32768, 32767, 0, -300, 2, 0, 1000}));
  EXPECT_EQ(ConvertToInts(half, ElementType::kU16),
            (std::vector<int64_t>{65504, 0, 65535, 0, 0, 2, 0, 1000}));
  EXPECT_EQ(
      ConvertToInts(half, ElementType::kS32),
      (std::vector<int64_t>{65504, -65504, 2147483647, 0, -300, 2, 0, 1000}));
  EXPECT_EQ(ConvertToInts(half, ElementType::kU64),
            (std::vector<int64_t>{65504, 0, -1, 0, 0, 2, 0, 1000}));
  // bf16 3e38 -3e38 inf NaN -300.5 2.5 -0.75 1e10 (as bf16 values).
  std::vector<uint16_t> bits;
  for (float v : {3e38f, -3e38f, kInf, kNaN, -300.5f, 2.5f, -0.75f, 1e10f})
    bits.push_back(FloatToBFloat16(v));
  const Literal bf = Typed(ElementType::kBF16, bits);
  EXPECT_EQ(ConvertToInts(bf, ElementType::kS8),
            (std::vector<int64_t>{127, -128, 127, 0, -128, 2, 0, 127}));
  EXPECT_EQ(ConvertToInts(bf, ElementType::kU16),
            (std::vector<int64_t>{65535, 0, 65535, 0, 0, 2, 0, 65535}));
  EXPECT_EQ(ConvertToInts(bf, ElementType::kU32),
            (std::vector<int64_t>{4294967295LL, 0, 4294967295LL, 0, 0, 2, 0,
                                  4294967295LL}));
  EXPECT_EQ(ConvertToInts(bf, ElementType::kS64),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::max(),
                                  std::numeric_limits<int64_t>::min(),
                                  std::numeric_limits<int64_t>::max(), 0, -300,
                                  2, 0, 9999220736LL}));
  // f64 and f32 right at the limits.
  EXPECT_EQ(ConvertToInts(Literal::Vector<double>({2147483647.9, -2147483648.9,
                                                   2147483648.0, 1e300}),
                          ElementType::kS32),
            (std::vector<int64_t>{2147483647, -2147483648LL, 2147483647,
                                  2147483647}));
  EXPECT_EQ(ConvertToInts(Literal::Vector<float>({65535.9f, -1, 65536, -0.9f}),
                          ElementType::kU16),
            (std::vector<int64_t>{65535, 0, 65535, 0}));
}

TEST(ElementwiseConvert, BetweenHalfBFloat16AndEightBitFloats) {
  // jax 0.10.2 bits. The fn types have no infinity: overflow, inf and NaN
  // all become NaN (0x7f / 0xff); fnuz's only NaN is 0x80.
  const Literal half = Typed<uint16_t>(
      ElementType::kF16,
      {0x7bff, 0xfbff, 0x7c00, 0x7e00, 0xdcb2, 0x4100, 0xba00, 0x63d0});
  EXPECT_EQ(
      ConvertToBits(half, ElementType::kF8E4M3FN),
      (std::vector<uint32_t>{0x7f, 0xff, 0x7f, 0x7f, 0xf9, 0x42, 0xb4, 0x7f}));
  EXPECT_EQ(
      ConvertToBits(half, ElementType::kF8E4M3FNUZ),
      (std::vector<uint32_t>{0x80, 0x80, 0x80, 0x80, 0x80, 0x4a, 0xbc, 0x80}));
  EXPECT_EQ(
      ConvertToBits(half, ElementType::kF8E5M2),
      (std::vector<uint32_t>{0x7c, 0xfc, 0x7c, 0x7f, 0xdd, 0x41, 0xba, 0x64}));
  EXPECT_EQ(ConvertToBits(half, ElementType::kBF16),
            (std::vector<uint32_t>{0x4780, 0xc780, 0x7f80, 0x7fc0, 0xc396,
                                   0x4020, 0xbf40, 0x447a}));
  // f8e4m3fn 448 -448 2^-9 NaN 1 -0 to wider types.
  const Literal e4m3 = Typed<uint8_t>(ElementType::kF8E4M3FN,
                                      {0x7e, 0xfe, 0x01, 0x7f, 0x38, 0x80});
  EXPECT_EQ(
      ConvertToBits(e4m3, ElementType::kF16),
      (std::vector<uint32_t>{0x5f00, 0xdf00, 0x1800, 0x7e00, 0x3c00, 0x8000}));
  EXPECT_EQ(
      ConvertToBits(e4m3, ElementType::kBF16),
      (std::vector<uint32_t>{0x43e0, 0xc3e0, 0x3b00, 0x7fc0, 0x3f80, 0x8000}));
  EXPECT_EQ(ConvertToBits(e4m3, ElementType::kF32),
            (std::vector<uint32_t>{0x43e00000, 0xc3e00000, 0x3b000000,
                                   0x7fc00000, 0x3f800000, 0x80000000}));
  // NaN to f8e5m2: XLA gives 0x7f.
  EXPECT_EQ(ConvertToBits(e4m3, ElementType::kF8E5M2),
            (std::vector<uint32_t>{0x5f, 0xdf, 0x18, 0x7f, 0x3c, 0x80}));
  // f8e5m2 57344 inf NaN 2^-16 -57344.
  const Literal e5 =
      Typed<uint8_t>(ElementType::kF8E5M2, {0x7b, 0x7c, 0x7e, 0x01, 0xfb});
  EXPECT_EQ(ConvertToBits(e5, ElementType::kF16),
            (std::vector<uint32_t>{0x7b00, 0x7c00, 0x7e00, 0x0100, 0xfb00}));
  EXPECT_EQ(ConvertToBits(e5, ElementType::kF8E4M3FN),
            (std::vector<uint32_t>{0x7f, 0x7f, 0x7f, 0x00, 0xff}));
  EXPECT_EQ(ConvertToInts(e5, ElementType::kS32),
            (std::vector<int64_t>{57344, 2147483647, 0, 0, -57344}));
}

// jax 0.10.2 bits (XLA:CPU), for the special values of the byte floats.
TEST(ElementwiseConvert, ByteFloatSpecialValuesAsXla) {
  // f8e8m0fnu from f32's bits: the exponent, plus one from the mantissa's
  // top bit; a subnormal gives 2^-127 unless above one half of 2^-126's
  // mantissa; zero, negatives, inf, NaN and overflow give NaN (0xff).
  const Literal f32 = Typed<uint32_t>(
      ElementType::kF32,
      {0x00000000, 0x80000000, 0x00000001, 0x00400000, 0x00400001, 0x00800000,
       0x00c00000, 0x3f400000, 0x3fc00000, 0x40400000, 0x7f3fffff, 0x7f400000,
       0x7f800000, 0x7fc00000, 0xbf800000});
  EXPECT_EQ(
      ConvertToBits(f32, ElementType::kF8E8M0FNU),
      (std::vector<uint32_t>{0xff, 0xff, 0x00, 0x00, 0x01, 0x01, 0x02, 0x7f,
                             0x80, 0x81, 0xfe, 0xff, 0xff, 0xff, 0xff}));
  // f32 and f64 NaNs keep their sign in f8e5m2; f16 and bf16 ones give 0x7f.
  const Literal f32_nan =
      Typed<uint32_t>(ElementType::kF32, {0x7fc00000, 0xffc00000});
  EXPECT_EQ(ConvertToBits(f32_nan, ElementType::kF8E5M2),
            (std::vector<uint32_t>{0x7e, 0xfe}));
  const Literal bf16_nan =
      Typed<uint16_t>(ElementType::kBF16, {0x7fc0, 0xffc0, 0x7f81});
  EXPECT_EQ(ConvertToBits(bf16_nan, ElementType::kF8E5M2),
            (std::vector<uint32_t>{0x7f, 0x7f, 0x7f}));
  // A byte float's negative NaN stays negative in a format with signed
  // NaNs (the e5m2, e3m4, e4m3 and e4m3fn patterns with the sign bit).
  const Literal e5m2_nan =
      Typed<uint8_t>(ElementType::kF8E5M2, {0xfd, 0xfe, 0xff, 0x7d});
  EXPECT_EQ(ConvertToBits(e5m2_nan, ElementType::kF8E4M3FN),
            (std::vector<uint32_t>{0xff, 0xff, 0xff, 0x7f}));
  EXPECT_EQ(ConvertToBits(e5m2_nan, ElementType::kF8E3M4),
            (std::vector<uint32_t>{0xf8, 0xf8, 0xf8, 0x78}));
  const Literal e3m4_nan = Typed<uint8_t>(ElementType::kF8E3M4, {0xf1, 0x71});
  EXPECT_EQ(ConvertToBits(e3m4_nan, ElementType::kF8E4M3),
            (std::vector<uint32_t>{0xfc, 0x7c}));
  EXPECT_EQ(ConvertToBits(e3m4_nan, ElementType::kF8E5M2),
            (std::vector<uint32_t>{0x7f, 0x7f}));
  // 0 (2^-127) and 3.0 from f8e5m2 to f8e8m0fnu: NaN and 4.
  const Literal e5m2 = Typed<uint8_t>(ElementType::kF8E5M2, {0x00, 0x42});
  EXPECT_EQ(ConvertToBits(e5m2, ElementType::kF8E8M0FNU),
            (std::vector<uint32_t>{0xff, 0x81}));
}

TEST(ElementwiseConvert, WideIntegersToFloats) {
  // jax 0.10.2: one rounding, to nearest even.
  EXPECT_EQ(ConvertToBits(
                Literal::Vector<int32_t>({65519, 65520, -70000, 2049, 1 << 30}),
                ElementType::kF16),
            (std::vector<uint32_t>{0x7bff, 0x7c00, 0xfc00, 0x6800, 0x7c00}));
  EXPECT_EQ(ConvertToBits(
                Literal::Vector<int32_t>({65519, 65520, -70000, 2049, 1 << 30}),
                ElementType::kBF16),
            (std::vector<uint32_t>{0x4780, 0x4780, 0xc789, 0x4500, 0x4e80}));
  const std::vector<uint64_t> u{~0ull, (1ull << 63) + (1ull << 40) + 1,
                                16777217};
  StatusOr<Literal> f = Convert(Literal::Vector(u), ElementType::kF32);
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->ToVector<float>(),
            (std::vector<float>{18446744073709551616.0f, 9223373136366403584.0f,
                                16777216.0f}));
  StatusOr<Literal> d = Convert(Literal::Vector(u), ElementType::kF64);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->ToVector<double>(),
            (std::vector<double>{18446744073709551616.0, 9223373136366403584.0,
                                 16777217.0}));
  EXPECT_EQ(ConvertToBits(Literal::Vector(u), ElementType::kF16),
            (std::vector<uint32_t>{0x7c00, 0x7c00, 0x7c00}));
  const std::vector<int64_t> s{INT64_MIN, (1LL << 53) + 1, -(1LL << 24) - 1};
  StatusOr<Literal> sf = Convert(Literal::Vector(s), ElementType::kF32);
  ASSERT_TRUE(sf.ok()) << sf.status().message();
  EXPECT_EQ(sf->ToVector<float>(),
            (std::vector<float>{-9223372036854775808.0f, 9007199254740992.0f,
                                -16777216.0f}));
  StatusOr<Literal> sd = Convert(Literal::Vector(s), ElementType::kF64);
  ASSERT_TRUE(sd.ok()) << sd.status().message();
  EXPECT_EQ(sd->ToVector<double>(),
            (std::vector<double>{-9223372036854775808.0, 9007199254740992.0,
                                 -16777217.0}));
  // f64 to f32: overflow is inf, the exact tie above FLT_MAX rounds to inf.
  StatusOr<Literal> narrowed = Convert(
      Literal::Vector<double>({1e300, -1e300, 1e-50, 3.4028235677973366e38}),
      ElementType::kF32);
  ASSERT_TRUE(narrowed.ok()) << narrowed.status().message();
  EXPECT_EQ(narrowed->ToVector<float>(),
            (std::vector<float>{kInf, -kInf, 0.0f, kInf}));
}

TEST(ElementwiseConvert, PredToAndFromNarrowTypes) {
  EXPECT_EQ(
      ConvertToBits(Literal::Vector<bool>({true, false}), ElementType::kBF16),
      (std::vector<uint32_t>{0x3f80, 0x0}));
  EXPECT_EQ(
      ConvertToBits(Literal::Vector<bool>({true, false}), ElementType::kF16),
      (std::vector<uint32_t>{0x3c00, 0x0}));
  StatusOr<Literal> complex =
      Convert(Literal::Vector<bool>({true, false}), ElementType::kC64);
  ASSERT_TRUE(complex.ok()) << complex.status().message();
  EXPECT_EQ(complex->ToVector<std::complex<float>>(),
            (std::vector<std::complex<float>>{{1, 0}, {0, 0}}));
  // bf16 0 -0 NaN 1e-30 to pred: only zeros are false.
  StatusOr<Literal> pred = Convert(
      Typed<uint16_t>(ElementType::kBF16,
                      {0x0000, 0x8000, 0x7fc0, FloatToBFloat16(1e-30f)}),
      ElementType::kPred);
  ASSERT_TRUE(pred.ok()) << pred.status().message();
  EXPECT_EQ(pred->ToVector<bool>(),
            (std::vector<bool>{false, false, true, true}));
}

TEST(ElementwiseConvert, ComplexConversions) {
  StatusOr<Literal> real =
      Convert(Literal::Vector<std::complex<float>>({{1, 2}, {-3, 4}}),
              ElementType::kF32);
  ASSERT_TRUE(real.ok()) << real.status().message();
  EXPECT_EQ(real->ToVector<float>(), (std::vector<float>{1, -3}));
  StatusOr<Literal> widened =
      Convert(Literal::Vector<float>({1.5f}), ElementType::kC128);
  ASSERT_TRUE(widened.ok());
  EXPECT_EQ(widened->ToVector<std::complex<double>>(),
            (std::vector<std::complex<double>>{{1.5, 0}}));
  StatusOr<Literal> narrowed = Convert(
      Literal::Vector<std::complex<double>>({{0.1, -0.2}}), ElementType::kC64);
  ASSERT_TRUE(narrowed.ok());
  EXPECT_EQ(narrowed->ToVector<std::complex<float>>(),
            (std::vector<std::complex<float>>{{0.1f, -0.2f}}));
}

TEST(ElementwiseConvert, SameTypeIsACopy) {
  StatusOr<Literal> out =
      Convert(Literal::Vector<int32_t>({5, -6}), ElementType::kS32);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->ToVector<int32_t>(), (std::vector<int32_t>{5, -6}));
}

StatusOr<Literal> Bitcast(const Literal& x, ElementType to) {
  return RunOp(
      [&](Builder& b, const std::vector<Op>& p) {
        return b.BitcastConvert(p[0], to);
      },
      {x});
}

TEST(ElementwiseBitcastConvert, SameWidthReinterpretsBits) {
  StatusOr<Literal> bits =
      Bitcast(Literal::Vector<float>({1.0f, -2.5f}), ElementType::kU32);
  ASSERT_TRUE(bits.ok()) << bits.status().message();
  EXPECT_EQ(bits->ToVector<uint32_t>(),
            (std::vector<uint32_t>{0x3F800000u, 0xC0200000u}));
  StatusOr<Literal> back = Bitcast(
      Literal::Vector<int64_t>({0x4000000000000000LL}), ElementType::kF64);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->ToVector<double>(), (std::vector<double>{2.0}));
  StatusOr<Literal> half =
      Bitcast(Literal::Vector<int16_t>({0x3C00}), ElementType::kF16);
  ASSERT_TRUE(half.ok());
  EXPECT_EQ(half->data<uint16_t>()[0], 0x3C00);
  // Sub-byte types of one width: the 4 bits reread (s4 -1 is u4 15).
  StatusOr<Literal> nibble =
      Bitcast(Typed<int8_t>(ElementType::kS4, {-1, -8, 7}), ElementType::kU4);
  ASSERT_TRUE(nibble.ok()) << nibble.status().message();
  EXPECT_EQ(nibble->data<uint8_t>()[0], 15);
  EXPECT_EQ(nibble->data<uint8_t>()[1], 8);
  EXPECT_EQ(nibble->data<uint8_t>()[2], 7);
  StatusOr<Literal> signed_nibble =
      Bitcast(Typed<uint8_t>(ElementType::kU4, {15, 8}), ElementType::kS4);
  ASSERT_TRUE(signed_nibble.ok()) << signed_nibble.status().message();
  EXPECT_EQ(signed_nibble->data<int8_t>()[0], -1);
  EXPECT_EQ(signed_nibble->data<int8_t>()[1], -8);
}

TEST(ElementwiseBitcastConvert, NarrowFloatsKeepTheirBits) {
  // jax 0.10.2.
  std::vector<uint16_t> h{FloatToHalf(1), FloatToHalf(-2), 0x7c00};
  StatusOr<Literal> s16 =
      Bitcast(Typed(ElementType::kF16, h), ElementType::kS16);
  ASSERT_TRUE(s16.ok()) << s16.status().message();
  EXPECT_EQ(s16->ToVector<int16_t>(),
            (std::vector<int16_t>{15360, -16384, 31744}));
  StatusOr<Literal> bf_to_half = Bitcast(
      Typed<uint16_t>(ElementType::kBF16, {0x3f80, 0xc000}), ElementType::kF16);
  ASSERT_TRUE(bf_to_half.ok()) << bf_to_half.status().message();
  EXPECT_EQ(Stored<uint16_t>(*bf_to_half),
            (std::vector<uint16_t>{0x3f80, 0xc000}));
  StatusOr<Literal> f8 =
      Bitcast(Typed<uint8_t>(ElementType::kF8E4M3FN,
                             {0x7e, 0xfe, 0x01, 0x7f, 0x38, 0x80}),
              ElementType::kS8);
  ASSERT_TRUE(f8.ok()) << f8.status().message();
  EXPECT_EQ(f8->ToVector<int8_t>(),
            (std::vector<int8_t>{126, -2, 1, 127, 56, -128}));
  // u8[2,2] -> f16[2] and f64[2] -> s32[2,2].
  StatusOr<Literal> bytes_to_half =
      Bitcast(Literal::FromVector<uint8_t>({2, 2}, {0, 0x3c, 0, 0xc0}),
              ElementType::kF16);
  ASSERT_TRUE(bytes_to_half.ok()) << bytes_to_half.status().message();
  EXPECT_EQ(Stored<uint16_t>(*bytes_to_half),
            (std::vector<uint16_t>{0x3c00, 0xc000}));
  StatusOr<Literal> words =
      Bitcast(Literal::Vector<double>({1.0, -2.0}), ElementType::kS32);
  ASSERT_TRUE(words.ok()) << words.status().message();
  EXPECT_EQ(words->shape().dims(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(words->ToVector<int32_t>(),
            (std::vector<int32_t>{0, 1072693248, 0, -1073741824}));
}

TEST(ElementwiseBitcastConvert, WidthChangesMoveTheMinorDimension) {
  // f32[2] -> u8[2,4]: each float's bytes in memory order (little-endian).
  StatusOr<Literal> bytes =
      Bitcast(Literal::Vector<float>({1.0f, -2.5f}), ElementType::kU8);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  EXPECT_EQ(bytes->shape().dims(), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(bytes->ToVector<uint8_t>(),
            (std::vector<uint8_t>{0, 0, 0x80, 0x3f, 0, 0, 0x20, 0xc0}));
  // u8[1,4] -> f32[1].
  StatusOr<Literal> joined =
      Bitcast(Literal::FromVector<uint8_t>({1, 4}, {0, 0, 0x80, 0x3f}),
              ElementType::kF32);
  ASSERT_TRUE(joined.ok()) << joined.status().message();
  EXPECT_EQ(joined->shape().dims(), (std::vector<int64_t>{1}));
  EXPECT_EQ(joined->ToVector<float>(), (std::vector<float>{1.0f}));
  // s64[] -> u16[4].
  StatusOr<Literal> halves = Bitcast(
      Literal::Scalar<int64_t>(0x0004000300020001LL), ElementType::kU16);
  ASSERT_TRUE(halves.ok()) << halves.status().message();
  EXPECT_EQ(halves->ToVector<uint16_t>(), (std::vector<uint16_t>{1, 2, 3, 4}));
}

TEST(ElementwiseBitcastConvert, BadShapesAreRefused) {
  HandBuilt wrong_dim =
      HandBuild(Opcode::kBitcastConvert, Shape::Array(ElementType::kF32, {3}),
                {Shape::Array(ElementType::kU8, {3, 2})});
  StatusOr<cpu::Kernel> kernel = cpu::MakeElementwiseKernel(*wrong_dim.op);
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(kernel.status().message().find("needs a minor dimension of 4"),
            std::string::npos)
      << kernel.status().message();
  HandBuilt wrong_result =
      HandBuild(Opcode::kBitcastConvert, Shape::Array(ElementType::kU8, {2, 2}),
                {Shape::Array(ElementType::kF32, {2})});
  kernel = cpu::MakeElementwiseKernel(*wrong_result.op);
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(kernel.status().message().find("gives u8[2,4], not u8[2,2]"),
            std::string::npos)
      << kernel.status().message();
  HandBuilt sub_byte =
      HandBuild(Opcode::kBitcastConvert, Shape::Array(ElementType::kS4, {2, 2}),
                {Shape::Array(ElementType::kS8, {2})});
  kernel = cpu::MakeElementwiseKernel(*sub_byte.op);
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), XLA_FFI_Error_Code_UNIMPLEMENTED);
  EXPECT_NE(kernel.status().message().find("from s8 to s4"), std::string::npos)
      << kernel.status().message();
}

StatusOr<Literal> Iota(const Shape& shape, int64_t dimension) {
  return RunOp([&](Builder& b,
                   const std::vector<Op>&) { return b.Iota(shape, dimension); },
               {});
}

TEST(ElementwiseIota, CountsAlongOneDimension) {
  StatusOr<Literal> rows = Iota(Shape::Array(ElementType::kS32, {2, 3}), 0);
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  EXPECT_EQ(rows->ToVector<int32_t>(),
            (std::vector<int32_t>{0, 0, 0, 1, 1, 1}));
  StatusOr<Literal> cols = Iota(Shape::Array(ElementType::kF32, {2, 3}), 1);
  ASSERT_TRUE(cols.ok()) << cols.status().message();
  EXPECT_EQ(cols->ToVector<float>(), (std::vector<float>{0, 1, 2, 0, 1, 2}));
  StatusOr<Literal> middle = Iota(Shape::Array(ElementType::kU8, {2, 3, 2}), 1);
  ASSERT_TRUE(middle.ok()) << middle.status().message();
  EXPECT_EQ(middle->ToVector<uint8_t>(),
            (std::vector<uint8_t>{0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2}));
}

TEST(ElementwiseIota, NarrowAndWrappingTypes) {
  // bf16 rounds indices past 256 as jax.lax.iota(bfloat16, ...) does.
  StatusOr<Literal> bf = Iota(Shape::Array(ElementType::kBF16, {262}), 0);
  ASSERT_TRUE(bf.ok()) << bf.status().message();
  const uint16_t* b = bf->data<uint16_t>();
  EXPECT_EQ(b[250], 0x437a);
  EXPECT_EQ(b[256], 0x4380);
  EXPECT_EQ(b[257], 0x4380);
  EXPECT_EQ(b[258], 0x4381);
  EXPECT_EQ(b[259], 0x4382);
  EXPECT_EQ(b[261], 0x4382);
  StatusOr<Literal> s4 = Iota(Shape::Array(ElementType::kS4, {10}), 0);
  ASSERT_TRUE(s4.ok()) << s4.status().message();
  EXPECT_EQ(s4->data<int8_t>()[7], 7);
  EXPECT_EQ(s4->data<int8_t>()[8], -8);
  EXPECT_EQ(s4->data<int8_t>()[9], -7);
  // pred iota (HLO allows it, the builder's StableHLO rules do not).
  HandBuilt pred_iota =
      HandBuild(Opcode::kIota, Shape::Array(ElementType::kPred, {3}), {});
  pred_iota.op->dimensions = {0};
  StatusOr<Literal> pred = RunInstruction(*pred_iota.op, {});
  ASSERT_TRUE(pred.ok()) << pred.status().message();
  EXPECT_EQ(pred->ToVector<bool>(), (std::vector<bool>{false, true, true}));
  StatusOr<Literal> complex = Iota(Shape::Array(ElementType::kC64, {2}), 0);
  ASSERT_TRUE(complex.ok()) << complex.status().message();
  EXPECT_EQ(complex->ToVector<std::complex<float>>(),
            (std::vector<std::complex<float>>{{0, 0}, {1, 0}}));
  StatusOr<Literal> empty = Iota(Shape::Array(ElementType::kF32, {0, 3}), 1);
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_EQ(empty->shape().num_elements(), 0);
}

TEST(ElementwiseIota, BadDimensionIsRefused) {
  HandBuilt iota =
      HandBuild(Opcode::kIota, Shape::Array(ElementType::kS32, {4}), {});
  iota.op->dimensions = {1};
  StatusOr<cpu::Kernel> kernel = cpu::MakeElementwiseKernel(*iota.op);
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(kernel.status().message().find(
                "iota_dimension must name one of the 1 dimensions of s32[4]"),
            std::string::npos)
      << kernel.status().message();
}

}  // namespace
}  // namespace xffi::test
