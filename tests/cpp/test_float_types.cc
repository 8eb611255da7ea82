// Narrow float formats: known encodings, rounding, specials, and that every
// bit pattern survives decode-then-encode.
#include "ir/float_types.h"

#include <gtest/gtest.h>

#include <cmath>

namespace xffi {
namespace {

struct Known {
  ElementType type;
  double value;
  uint32_t bits;
};

class KnownEncodingTest : public ::testing::TestWithParam<Known> {};

TEST_P(KnownEncodingTest, EncodesAndDecodes) {
  const Known& k = GetParam();
  EXPECT_EQ(NarrowFloatFromDouble(k.type, k.value), k.bits)
      << ElementTypeName(k.type) << " " << k.value;
  if (!std::isnan(k.value) && !std::isinf(k.value)) {
    EXPECT_EQ(NarrowFloatToDouble(k.type, k.bits), k.value);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Formats, KnownEncodingTest,
    ::testing::Values(Known{ElementType::kF8E4M3FN, 1.0, 0x38},
                      Known{ElementType::kF8E4M3FN, -1.0, 0xB8},
                      Known{ElementType::kF8E4M3FN, 448.0, 0x7E},
                      Known{ElementType::kF8E4M3FN, 0.5, 0x30},
                      Known{ElementType::kF8E4M3FN, 0.001953125, 0x01},  // 2^-9
                      Known{ElementType::kF8E5M2, 1.0, 0x3C},
                      Known{ElementType::kF8E5M2, 57344.0, 0x7B},
                      Known{ElementType::kF8E4M3FNUZ, 1.0, 0x40},
                      Known{ElementType::kF8E4M3FNUZ, 240.0, 0x7F},
                      Known{ElementType::kF8E5M2FNUZ, 1.0, 0x40},
                      Known{ElementType::kF8E5M2FNUZ, 57344.0, 0x7F},
                      Known{ElementType::kF8E4M3B11FNUZ, 1.0, 0x58},
                      Known{ElementType::kF8E4M3B11FNUZ, 30.0, 0x7F},
                      Known{ElementType::kF8E4M3, 1.0, 0x38},
                      Known{ElementType::kF8E4M3, 240.0, 0x77},
                      Known{ElementType::kF8E3M4, 1.0, 0x30},
                      Known{ElementType::kF8E3M4, 15.5, 0x6F},
                      Known{ElementType::kF4E2M1FN, 0.5, 0x1},
                      Known{ElementType::kF4E2M1FN, 1.0, 0x2},
                      Known{ElementType::kF4E2M1FN, 6.0, 0x7},
                      Known{ElementType::kF4E2M1FN, -3.0, 0xD},
                      Known{ElementType::kF8E8M0FNU, 1.0, 0x7F},
                      Known{ElementType::kF8E8M0FNU, 2.0, 0x80},
                      Known{ElementType::kF8E8M0FNU, 0.5, 0x7E},
                      Known{ElementType::kF16, 1.0, 0x3C00},
                      Known{ElementType::kF16, 65504.0, 0x7BFF},
                      Known{ElementType::kBF16, 1.0, 0x3F80},
                      Known{ElementType::kBF16, -2.0, 0xC000}));

TEST(FloatTypesTest, RoundsToNearestEven) {
  // 464 lies halfway between 448 (mantissa 110, even) and 480 (NaN pattern).
  EXPECT_EQ(NarrowFloatFromDouble(ElementType::kF8E4M3FN, 464.0), 0x7Eu);
  // 1.0625 is halfway between 1.0 (even) and 1.125.
  EXPECT_EQ(NarrowFloatFromDouble(ElementType::kF8E4M3FN, 1.0625), 0x38u);
  // 1.1875 is halfway between 1.125 (odd) and 1.25 (even).
  EXPECT_EQ(NarrowFloatFromDouble(ElementType::kF8E4M3FN, 1.1875), 0x3Au);
  // e8m0: 3 is halfway between 2 (field 128, even) and 4 (field 129).
  EXPECT_EQ(NarrowFloatFromDouble(ElementType::kF8E8M0FNU, 3.0), 0x80u);
  EXPECT_EQ(FloatToBFloat16(1.00390625f), 0x3F80u);  // 1 + 2^-8: tie to even
  EXPECT_EQ(FloatToBFloat16(1.01171875f), 0x3F82u);  // 1 + 3*2^-8: tie up
}

TEST(FloatTypesTest, OverflowFollowsEachFormatsSpecials) {
  // IEEE-like formats overflow to infinity: 61440 is halfway from the odd
  // maximum 57344 to 65536, so it rounds up, past the top.
  EXPECT_EQ(NarrowFloatFromDouble(ElementType::kF8E5M2, 61440.0), 0x7Cu);
  EXPECT_EQ(NarrowFloatFromDouble(ElementType::kF8E5M2, -1e9), 0xFCu);
  EXPECT_EQ(NarrowFloatFromDouble(ElementType::kF16, 65520.0), 0x7C00u);
  // Formats without infinity give NaN...
  EXPECT_EQ(NarrowFloatFromDouble(ElementType::kF8E4M3FN, 500.0), 0x7Fu);
  EXPECT_EQ(NarrowFloatFromDouble(ElementType::kF8E4M3FN, INFINITY), 0x7Fu);
  EXPECT_EQ(NarrowFloatFromDouble(ElementType::kF8E4M3FNUZ, 1e6), 0x80u);
  // ...and f4e2m1fn, which has no NaN either, saturates.
  EXPECT_EQ(NarrowFloatFromDouble(ElementType::kF4E2M1FN, 100.0), 0x7u);
  EXPECT_EQ(NarrowFloatFromDouble(ElementType::kF4E2M1FN, -INFINITY), 0xFu);
}

TEST(FloatTypesTest, SpecialPatternsDecode) {
  EXPECT_TRUE(std::isnan(NarrowFloatToDouble(ElementType::kF8E4M3FN, 0x7F)));
  EXPECT_TRUE(std::isnan(NarrowFloatToDouble(ElementType::kF8E4M3FN, 0xFF)));
  EXPECT_TRUE(std::isnan(NarrowFloatToDouble(ElementType::kF8E4M3FNUZ, 0x80)));
  EXPECT_TRUE(std::isnan(NarrowFloatToDouble(ElementType::kF8E8M0FNU, 0xFF)));
  EXPECT_EQ(NarrowFloatToDouble(ElementType::kF8E5M2, 0x7C), INFINITY);
  EXPECT_EQ(NarrowFloatToDouble(ElementType::kF8E5M2, 0xFC), -INFINITY);
  // FNUZ formats have no negative zero: -0.0 encodes as +0.
  EXPECT_EQ(NarrowFloatFromDouble(ElementType::kF8E4M3FNUZ, -0.0), 0x00u);
  EXPECT_EQ(NarrowFloatFromDouble(ElementType::kF8E4M3FN, -0.0), 0x80u);
  EXPECT_EQ(NarrowFloatToDouble(ElementType::kF8E8M0FNU, 0x00),
            std::ldexp(1.0, -127));
}

TEST(FloatTypesTest, EveryEightBitPatternRoundTrips) {
  for (ElementType type :
       {ElementType::kF8E5M2, ElementType::kF8E4M3FN, ElementType::kF8E4M3,
        ElementType::kF8E3M4, ElementType::kF8E4M3FNUZ,
        ElementType::kF8E5M2FNUZ, ElementType::kF8E4M3B11FNUZ,
        ElementType::kF8E8M0FNU}) {
    for (uint32_t bits = 0; bits < 256; ++bits) {
      double value = NarrowFloatToDouble(type, bits);
      if (std::isnan(value)) continue;
      EXPECT_EQ(NarrowFloatFromDouble(type, value), bits)
          << ElementTypeName(type) << " pattern " << bits;
    }
  }
  for (uint32_t bits = 0; bits < 16; ++bits)
    EXPECT_EQ(NarrowFloatFromDouble(
                  ElementType::kF4E2M1FN,
                  NarrowFloatToDouble(ElementType::kF4E2M1FN, bits)),
              bits);
}

TEST(FloatTypesTest, SixteenBitFastPathsAgreeWithTheGenericCodec) {
  for (uint32_t bits = 0; bits < 65536; bits += 7) {
    float half = HalfToFloat(static_cast<uint16_t>(bits));
    float bf16 = BFloat16ToFloat(static_cast<uint16_t>(bits));
    if (!std::isnan(half)) {
      EXPECT_EQ(half, NarrowFloatToDouble(ElementType::kF16, bits));
      EXPECT_EQ(FloatToHalf(half), bits);
      EXPECT_EQ(NarrowFloatFromDouble(ElementType::kF16, half), bits);
    }
    if (!std::isnan(bf16)) {
      EXPECT_EQ(bf16, NarrowFloatToDouble(ElementType::kBF16, bits));
      EXPECT_EQ(FloatToBFloat16(bf16), bits);
    }
  }
}

}  // namespace
}  // namespace xffi
