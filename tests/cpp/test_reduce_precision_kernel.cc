// reduce-precision's CPU kernel: f32 against values worked out by hand
// (rounding to nearest even, overflow to infinity, flush below the smaller
// exponent range, NaN kept), and f16 and bf16, which XLA reduces on their
// own bits, against the f32 kernel on every one of their 65536 patterns
// (widening to f32 is exact, and so is narrowing a result that fits). One
// difference is XLA's too: with the type's own exponent width nothing is
// flushed, so its subnormals keep their (rounded) value, where the f32
// kernel flushes them as below that range.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "cpu/element_traits.h"
#include "cpu/structural_kernels.h"
#include "kernel_test_util.h"

namespace xffi::cpu {
namespace {

using testing_util::OpUnderTest;
using testing_util::RunOne;

Literal Reduce(const Literal& in, int exponent_bits, int mantissa_bits) {
  OpUnderTest t;
  Instruction* op =
      t.Op(Opcode::kReducePrecision, in.shape(), {t.Param(in.shape())});
  op->exponent_bits = exponent_bits;
  op->mantissa_bits = mantissa_bits;
  Literal copy = Literal::FromBytes(in.shape(), in.data(), in.size_bytes());
  return RunOne(*op, {&copy});
}

TEST(ReducePrecisionKernel, F32ToBf16AndF16Formats) {
  const float inf = std::numeric_limits<float>::infinity();
  Literal in =
      Literal::Vector<float>({1.00390625f, 1.01171875f, -1.01171875f, 65520.0f,
                              65504.0f, 1e-8f, -1e-8f, 3.0f, inf, -inf});
  // bf16's format: 8 exponent and 7 mantissa bits; halfway ties go even
  // (1 + 2^-8 down to 1, 1 + 3 * 2^-8 up to 1 + 2^-6). 1e-8 rounds to
  // 0x1.58p-27 (ml_dtypes' bfloat16 agrees).
  EXPECT_EQ(Reduce(in, 8, 7).ToVector<float>(),
            (std::vector<float>{1.0f, 1.015625f, -1.015625f, 65536.0f, 65536.0f,
                                0x1.58p-27f, -0x1.58p-27f, 3.0f, inf, -inf}));
  // f16's format: 65520 rounds up past the largest finite value to
  // infinity, 1e-8 is below f16's normal range and becomes (signed) zero.
  std::vector<float> f16 = Reduce(in, 5, 10).ToVector<float>();
  EXPECT_EQ(f16[3], inf);
  EXPECT_EQ(f16[4], 65504.0f);
  EXPECT_EQ(f16[5], 0.0f);
  EXPECT_TRUE(std::signbit(f16[6]) && f16[6] == 0.0f);
  EXPECT_EQ(f16[7], 3.0f);
}

TEST(ReducePrecisionKernel, NaNStaysNaN) {
  Literal in = Literal::Vector<float>(
      {std::numeric_limits<float>::quiet_NaN(), -std::nanf("")});
  for (float v : Reduce(in, 5, 2).ToVector<float>()) EXPECT_TRUE(std::isnan(v));
}

template <ElementType kType>
std::vector<uint16_t> ReduceEveryPattern(int exponent_bits, int mantissa_bits) {
  Literal narrow(Shape::Array(kType, {65536}));
  for (uint32_t i = 0; i < 65536; ++i)
    narrow.data<uint16_t>()[i] = static_cast<uint16_t>(i);
  return Reduce(narrow, exponent_bits, mantissa_bits).ToVector<uint16_t>();
}

template <ElementType kType>
void CheckAgainstF32(int exponent_bits, int mantissa_bits,
                     bool own_exponent_width) {
  using Tr = ElementTraits<kType>;
  std::vector<float> widened(65536);
  for (uint32_t i = 0; i < 65536; ++i)
    widened[i] = Tr::Load(static_cast<uint16_t>(i));
  std::vector<uint16_t> got =
      ReduceEveryPattern<kType>(exponent_bits, mantissa_bits);
  std::vector<float> want =
      Reduce(Literal::Vector<float>(widened), exponent_bits, mantissa_bits)
          .ToVector<float>();
  int64_t compared = 0;
  for (size_t i = 0; i < 65536; ++i) {
    const bool subnormal =
        widened[i] != 0 && std::fpclassify(widened[i]) != FP_NAN &&
        std::abs(widened[i]) <
            (kType == ElementType::kF16 ? 0x1p-14f : 0x1p-126f);
    if (own_exponent_width && subnormal) continue;
    const float value = Tr::Load(got[i]);
    if (std::isnan(want[i])) {
      ASSERT_TRUE(std::isnan(value)) << i;
    } else {
      ASSERT_EQ(value, want[i]) << "pattern " << i;
      ASSERT_EQ(std::signbit(value), std::signbit(want[i])) << i;
    }
    ++compared;
  }
  EXPECT_GT(compared, 60000);
}

TEST(ReducePrecisionKernel, OwnFormatIsTheIdentityOnEveryPattern) {
  std::vector<uint16_t> f16 = ReduceEveryPattern<ElementType::kF16>(5, 10);
  std::vector<uint16_t> bf16 = ReduceEveryPattern<ElementType::kBF16>(8, 7);
  for (uint32_t i = 0; i < 65536; ++i) {
    ASSERT_EQ(f16[i], i) << i;
    ASSERT_EQ(bf16[i], i) << i;
  }
}

TEST(ReducePrecisionKernel, F16OnItsOwnBitsMatchesF32) {
  CheckAgainstF32<ElementType::kF16>(5, 4, /*own_exponent_width=*/true);
  CheckAgainstF32<ElementType::kF16>(4, 5, false);
  CheckAgainstF32<ElementType::kF16>(3, 1, false);
}

TEST(ReducePrecisionKernel, Bf16OnItsOwnBitsMatchesF32) {
  CheckAgainstF32<ElementType::kBF16>(8, 3, /*own_exponent_width=*/true);
  CheckAgainstF32<ElementType::kBF16>(5, 7, false);
  CheckAgainstF32<ElementType::kBF16>(4, 2, false);
}

std::vector<uint8_t> ReduceBytes(ElementType type, std::vector<uint8_t> bits,
                                 int exponent_bits, int mantissa_bits) {
  Literal in(Shape::Array(type, {static_cast<int64_t>(bits.size())}));
  std::memcpy(in.data<uint8_t>(), bits.data(), bits.size());
  return Reduce(in, exponent_bits, mantissa_bits).ToVector<uint8_t>();
}

// The one-byte floats, which XLA:CPU reduces in f16 (bf16 for f8e8m0fnu)
// and converts back: jax 0.10.2's bits. With f16's own exponent width
// f8e5m2's subnormals survive; narrower ones flush; overflow in a format
// without infinity is NaN; NaN keeps its sign only where the format's NaN
// has one (f8e5m2's conversion from f16 gives 0x7f).
TEST(ReducePrecisionKernel, ByteFloatsAsXlaWidensThem) {
  using V = std::vector<uint8_t>;
  const V e5m2 = {0x01, 0x02, 0x03, 0x37, 0x3f, 0x7d, 0xfe};
  EXPECT_EQ(ReduceBytes(ElementType::kF8E5M2, e5m2, 5, 2),
            (V{0x01, 0x02, 0x03, 0x37, 0x3f, 0x7f, 0x7f}));
  EXPECT_EQ(ReduceBytes(ElementType::kF8E5M2, e5m2, 4, 1),
            (V{0x00, 0x00, 0x00, 0x38, 0x40, 0x7f, 0x7f}));
  const V e4m3fn = {0x01, 0x07, 0x08, 0x3d, 0x7e, 0xff};
  EXPECT_EQ(ReduceBytes(ElementType::kF8E4M3FN, e4m3fn, 4, 3),
            (V{0x00, 0x00, 0x08, 0x3d, 0x7f, 0xff}));
  EXPECT_EQ(ReduceBytes(ElementType::kF8E4M3FN, e4m3fn, 3, 1),
            (V{0x00, 0x00, 0x00, 0x3c, 0x7f, 0xff}));
  EXPECT_EQ(ReduceBytes(ElementType::kF8E5M2FNUZ, {1, 3, 5, 7, 0x80}, 5, 2),
            (V{0, 4, 4, 8, 0x80}));
  const V e8m0 = {0, 1, 126, 127, 200, 254, 255};
  EXPECT_EQ(ReduceBytes(ElementType::kF8E8M0FNU, e8m0, 8, 1), e8m0);
  EXPECT_EQ(ReduceBytes(ElementType::kF8E8M0FNU, e8m0, 3, 0),
            (V{0xff, 0xff, 126, 127, 0xff, 0xff, 0xff}));
  EXPECT_EQ(ReduceBytes(ElementType::kF8E3M4, {0xf1, 0x71, 0x35, 0x3b}, 2, 1),
            (V{0xf8, 0x78, 0x38, 0x38}));
}

}  // namespace
}  // namespace xffi::cpu
