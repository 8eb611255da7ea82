// Literals: construction, element access, equality and their HLO text.
#include "xffi/program/literal.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace xffi {
namespace {

TEST(LiteralTest, FromVectorAndBack) {
  Literal l = Literal::FromVector<float>({2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(l.shape().ToString(), "f32[2,2]");
  EXPECT_EQ(l.size_bytes(), 16u);
  EXPECT_EQ(l.ToVector<float>(), (std::vector<float>{1, 2, 3, 4}));
  Literal p = Literal::Vector<bool>({true, false, true});
  EXPECT_EQ(p.data<uint8_t>()[2], 1);
  EXPECT_EQ(p.ToVector<bool>(), (std::vector<bool>{true, false, true}));
}

TEST(LiteralTest, ZeroInitialisedAndLayoutDropped) {
  Literal l(Shape::Array(ElementType::kS32, {3}, {0}));
  EXPECT_FALSE(l.shape().has_layout());
  EXPECT_EQ(l.ToVector<int32_t>(), (std::vector<int32_t>{0, 0, 0}));
}

TEST(LiteralTest, Text) {
  EXPECT_EQ(Literal::Scalar<float>(1.5f).ToString(), "f32[] 1.5");
  EXPECT_EQ(Literal::Vector<int32_t>({1, -2, 3}).ValueToString(), "{1, -2, 3}");
  EXPECT_EQ(Literal::FromVector<int64_t>({2, 2}, {1, 2, 3, 4}).ValueToString(),
            "{ {1, 2}, {3, 4} }");
  EXPECT_EQ(Literal::Vector<bool>({true, false}).ValueToString(),
            "{true, false}");
  EXPECT_EQ(Literal::Vector<float>({}).ValueToString(), "{}");
  EXPECT_EQ(
      Literal::Vector<double>({INFINITY, -INFINITY, 1e-5}).ValueToString(),
      "{inf, -inf, 1e-05}");
  EXPECT_EQ(Literal::Scalar<std::complex<float>>({1, -2}).ValueToString(),
            "(1, -2)");
  EXPECT_EQ(Literal::Tuple(
                {Literal::Scalar<int32_t>(1), Literal::Vector<int32_t>({2})})
                .ValueToString(),
            "(1, {2})");
}

TEST(LiteralTest, NanPayloadsAreSpelledOut) {
  EXPECT_EQ(Literal::Scalar<float>(std::numeric_limits<float>::quiet_NaN())
                .ValueToString(),
            "nan");
  uint32_t bits = 0x7f800001;  // signalling NaN, payload 1
  float snan;
  std::memcpy(&snan, &bits, 4);
  EXPECT_EQ(Literal::Scalar<float>(snan).ValueToString(), "nan(0x1)");
  EXPECT_EQ(Literal::Scalar<float>(-std::numeric_limits<float>::quiet_NaN())
                .ValueToString(),
            "-nan");
}

TEST(LiteralTest, NarrowFloatsPrintTheirValues) {
  uint16_t one_bf16 = 0x3F80;
  Literal l = Literal::FromBytes(Shape::Scalar(ElementType::kBF16), &one_bf16,
                                 sizeof(one_bf16));
  EXPECT_EQ(l.ValueToString(), "1");
  uint8_t max_e4m3fn = 0x7E;
  EXPECT_EQ(
      Literal::FromBytes(Shape::Scalar(ElementType::kF8E4M3FN), &max_e4m3fn, 1)
          .ValueToString(),
      "448");
}

TEST(LiteralTest, Equality) {
  EXPECT_EQ(Literal::Vector<float>({1, 2}), Literal::Vector<float>({1, 2}));
  EXPECT_NE(Literal::Vector<float>({1, 2}), Literal::Vector<float>({1, 3}));
  EXPECT_NE(Literal::Vector<float>({1, 2}),
            Literal::FromVector<float>({1, 2}, {1, 2}));
  EXPECT_NE(Literal::Vector<int32_t>({1}), Literal::Vector<uint32_t>({1}));
}

}  // namespace
}  // namespace xffi
