// Comparing results with expected values: floats within a per-type
// tolerance relative to 1 + |want|, NaN and infinities matched exactly,
// integers and booleans bit for bit, shapes first.
#include "cli/compare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <vector>

#include "ir/float_types.h"

namespace xffi {
namespace {

using ::testing::HasSubstr;

template <typename T>
Literal Vector(ElementType type, const std::vector<T>& values) {
  return Literal::FromBytes(
      Shape::Array(type, {static_cast<int64_t>(values.size())}), values.data(),
      values.size() * sizeof(T));
}

Literal F32(const std::vector<float>& values) {
  return Vector(ElementType::kF32, values);
}

TEST(CompareTest, DefaultTolerancesPerType) {
  EXPECT_EQ(DefaultTolerance(ElementType::kF32), 1e-5);
  EXPECT_EQ(DefaultTolerance(ElementType::kC64), 1e-5);
  EXPECT_EQ(DefaultTolerance(ElementType::kF64), 1e-12);
  EXPECT_EQ(DefaultTolerance(ElementType::kC128), 1e-12);
  EXPECT_EQ(DefaultTolerance(ElementType::kF16), 2e-3);
  EXPECT_EQ(DefaultTolerance(ElementType::kBF16), 1.6e-2);
  EXPECT_EQ(DefaultTolerance(ElementType::kF8E4M3FN), 0.25);
}

TEST(CompareTest, F32WithinToleranceRelativeToOnePlusWant) {
  // 100 + 1e-3 is within 1e-5 * (1 + 100) = 1.01e-3; 1 + 3e-5 is not
  // within 2e-5.
  Comparison close = CompareLiterals(F32({100.001f, 0.5f}), F32({100, 0.5f}));
  EXPECT_TRUE(close.ok) << close.detail;
  EXPECT_NEAR(close.max_error, 1e-3, 1e-5);

  Comparison far = CompareLiterals(F32({1.00003f, 2, 3}), F32({1, 2, 4}));
  EXPECT_FALSE(far.ok);
  EXPECT_EQ(far.mismatches, 2);
  EXPECT_THAT(far.detail, HasSubstr("2 of 3 elements differ: [0] 1.00003"));
  EXPECT_THAT(far.detail, HasSubstr("[2] 3 vs 4;"));

  // An explicit tolerance replaces the type's.
  EXPECT_TRUE(CompareLiterals(F32({1.00003f}), F32({1}), 1e-4).ok);
}

TEST(CompareTest, NanAndInfinitiesMatchOnlyThemselves) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(CompareLiterals(F32({nan, inf, -inf}), F32({nan, inf, -inf})).ok);
  EXPECT_FALSE(CompareLiterals(F32({1}), F32({nan})).ok);
  EXPECT_FALSE(CompareLiterals(F32({nan}), F32({1})).ok);
  EXPECT_FALSE(CompareLiterals(F32({inf}), F32({-inf})).ok);
  EXPECT_FALSE(CompareLiterals(F32({3e38f}), F32({inf})).ok);
  // A huge tolerance does not make infinity match a finite value.
  EXPECT_FALSE(CompareLiterals(F32({inf}), F32({1}), 1e30).ok);
}

TEST(CompareTest, HalfTypesUseTheirOwnTolerance) {
  // Near 1.0 the bound is 2 * tolerance: one bf16 ulp (2^-7) passes, 8 do
  // not; for f16 one ulp (2^-10) passes, 8 do not.
  auto bf16 = [](std::vector<float> values) {
    std::vector<uint16_t> bits;
    for (float v : values) bits.push_back(FloatToBFloat16(v));
    return Vector(ElementType::kBF16, bits);
  };
  EXPECT_TRUE(CompareLiterals(bf16({1.0078125f}), bf16({1})).ok);
  EXPECT_FALSE(CompareLiterals(bf16({1.0625f}), bf16({1})).ok);
  auto f16 = [](std::vector<float> values) {
    std::vector<uint16_t> bits;
    for (float v : values) bits.push_back(FloatToHalf(v));
    return Vector(ElementType::kF16, bits);
  };
  EXPECT_TRUE(CompareLiterals(f16({1.0009765625f}), f16({1})).ok);
  EXPECT_FALSE(CompareLiterals(f16({1.0078125f}), f16({1})).ok);
}

TEST(CompareTest, IntegersAndBooleansExactly) {
  Literal want = Vector<int32_t>(ElementType::kS32, {1, -2, 3});
  EXPECT_TRUE(
      CompareLiterals(Vector<int32_t>(ElementType::kS32, {1, -2, 3}), want).ok);
  Comparison off = CompareLiterals(
      Vector<int32_t>(ElementType::kS32, {1, -2, 4}), want, 1e9);
  EXPECT_FALSE(off.ok);
  EXPECT_EQ(off.detail, "1 of 3 elements differ: [2] 4 vs 3;");

  Literal yes = Vector<uint8_t>(ElementType::kPred, {1, 0});
  Comparison flipped =
      CompareLiterals(Vector<uint8_t>(ElementType::kPred, {1, 1}), yes);
  EXPECT_FALSE(flipped.ok);
  EXPECT_THAT(flipped.detail, HasSubstr("[1] true vs false"));
}

TEST(CompareTest, ComplexComparesBothHalves) {
  using C = std::complex<float>;
  Literal want = Vector<C>(ElementType::kC64, {C(1, 2)});
  EXPECT_TRUE(
      CompareLiterals(Vector<C>(ElementType::kC64, {C(1, 2.00001f)}), want).ok);
  Comparison imag =
      CompareLiterals(Vector<C>(ElementType::kC64, {C(1, 2.5f)}), want);
  EXPECT_FALSE(imag.ok);
  EXPECT_THAT(imag.detail, HasSubstr("[0] (1,2.5) vs (1,2)"));
}

TEST(CompareTest, ShapesAndTypesMustAgree) {
  Comparison shape = CompareLiterals(F32({1, 2}), F32({1, 2, 3}));
  EXPECT_FALSE(shape.ok);
  EXPECT_EQ(shape.detail, "shape f32[2], expected f32[3]");
  Comparison type =
      CompareLiterals(F32({1}), Vector<int32_t>(ElementType::kS32, {1}));
  EXPECT_FALSE(type.ok);
  EXPECT_EQ(type.detail, "shape f32[1], expected s32[1]");
}

}  // namespace
}  // namespace xffi
