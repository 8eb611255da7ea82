// select and clamp: array and scalar predicates and bounds (a scalar is
// used in place, never broadcast into memory), every element width, NaN in
// clamp, and the operand checks.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "elementwise_test_util.h"
#include "ir/float_types.h"
#include "xffi/runtime/thread_pool.h"

namespace xffi::test {
namespace {

StatusOr<Literal> Select(const Literal& pred, const Literal& on_true,
                         const Literal& on_false) {
  return RunOp(
      [](Builder& b, const std::vector<Op>& p) {
        return b.Select(p[0], p[1], p[2]);
      },
      {pred, on_true, on_false});
}

StatusOr<Literal> Clamp(const Literal& low, const Literal& x,
                        const Literal& high) {
  return RunOp(
      [](Builder& b, const std::vector<Op>& p) {
        return b.Clamp(p[0], p[1], p[2]);
      },
      {low, x, high});
}

TEST(ElementwiseSelect, ArrayPredicatePicksPerElement) {
  std::vector<bool> pred;
  std::vector<float> a, b;
  for (int i = 0; i < 35; ++i) {
    pred.push_back(i % 3 == 0);
    a.push_back(static_cast<float>(i));
    b.push_back(static_cast<float>(-i));
  }
  StatusOr<Literal> out =
      Select(Literal::Vector(pred), Literal::Vector(a), Literal::Vector(b));
  ASSERT_TRUE(out.ok()) << out.status().message();
  std::vector<float> got = out->ToVector<float>();
  for (int i = 0; i < 35; ++i) EXPECT_EQ(got[i], pred[i] ? a[i] : b[i]) << i;
}

TEST(ElementwiseSelect, ScalarPredicatePicksAWholeOperand) {
  for (bool p : {true, false}) {
    StatusOr<Literal> out =
        Select(Literal::Scalar(p), Literal::Vector<int16_t>({1, 2, 3}),
               Literal::Vector<int16_t>({4, 5, 6}));
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ(out->ToVector<int16_t>(), p ? (std::vector<int16_t>{1, 2, 3})
                                          : (std::vector<int16_t>{4, 5, 6}));
  }
  StatusOr<Literal> scalar =
      Select(Literal::Scalar(false), Literal::Scalar<double>(1.5),
             Literal::Scalar<double>(-2.5));
  ASSERT_TRUE(scalar.ok()) << scalar.status().message();
  EXPECT_EQ(scalar->ToVector<double>(), (std::vector<double>{-2.5}));
}

TEST(ElementwiseSelect, EveryElementWidth) {
  std::vector<bool> pred{true, false};
  auto check = [&](auto a, auto b) {
    using T = typename decltype(a)::value_type;
    StatusOr<Literal> out =
        Select(Literal::Vector(pred), Literal::Vector(a), Literal::Vector(b));
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ(out->template ToVector<T>(), (std::vector<T>{a[0], b[1]}));
  };
  check(std::vector<bool>{true, true}, std::vector<bool>{false, false});
  check(std::vector<uint8_t>{1, 2}, std::vector<uint8_t>{3, 4});
  check(std::vector<int64_t>{1LL << 40, 2},
        std::vector<int64_t>{3, -(1LL << 40)});
  check(std::vector<std::complex<double>>{{1, 2}, {3, 4}},
        std::vector<std::complex<double>>{{5, 6}, {7, 8}});
  StatusOr<Literal> bf =
      Select(Literal::Vector(pred), Typed<uint16_t>(ElementType::kBF16, {1, 2}),
             Typed<uint16_t>(ElementType::kBF16, {3, 4}));
  ASSERT_TRUE(bf.ok()) << bf.status().message();
  EXPECT_EQ(bf->data<uint16_t>()[0], 1);
  EXPECT_EQ(bf->data<uint16_t>()[1], 4);
}

TEST(ElementwiseSelect, LargeSelectOverThePool) {
  constexpr int64_t kN = 200000;
  std::vector<bool> pred(kN);
  std::vector<int32_t> a(kN), b(kN);
  for (int64_t i = 0; i < kN; ++i) {
    pred[i] = (i * 7) % 5 < 2;
    a[i] = static_cast<int32_t>(i);
    b[i] = static_cast<int32_t>(-i);
  }
  ThreadPool pool(2);
  StatusOr<Literal> out = RunOp(
      [](Builder& builder, const std::vector<Op>& p) {
        return builder.Select(p[0], p[1], p[2]);
      },
      {Literal::Vector(pred), Literal::Vector(a), Literal::Vector(b)}, &pool);
  ASSERT_TRUE(out.ok()) << out.status().message();
  const int32_t* got = out->data<int32_t>();
  int64_t wrong = 0;
  for (int64_t i = 0; i < kN; ++i) wrong += got[i] != (pred[i] ? a[i] : b[i]);
  EXPECT_EQ(wrong, 0);
}

TEST(ElementwiseSelect, OperandChecks) {
  HandBuilt not_pred =
      HandBuild(Opcode::kSelect, Shape::Array(ElementType::kF32, {2}),
                {Shape::Array(ElementType::kS32, {2}),
                 Shape::Array(ElementType::kF32, {2}),
                 Shape::Array(ElementType::kF32, {2})});
  StatusOr<cpu::Kernel> kernel = cpu::MakeElementwiseKernel(*not_pred.op);
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(kernel.status().message().find(
                "operand 0 (the predicate) must be pred, not s32"),
            std::string::npos)
      << kernel.status().message();
  HandBuilt mixed =
      HandBuild(Opcode::kSelect, Shape::Array(ElementType::kF32, {2}),
                {Shape::Array(ElementType::kPred, {2}),
                 Shape::Array(ElementType::kF32, {2}),
                 Shape::Array(ElementType::kF64, {2})});
  kernel = cpu::MakeElementwiseKernel(*mixed.op);
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(kernel.status().message().find("operand 2 is f64, the result f32"),
            std::string::npos)
      << kernel.status().message();
  HandBuilt short_pred =
      HandBuild(Opcode::kSelect, Shape::Array(ElementType::kF32, {3}),
                {Shape::Array(ElementType::kPred, {2}),
                 Shape::Array(ElementType::kF32, {3}),
                 Shape::Array(ElementType::kF32, {3})});
  kernel = cpu::MakeElementwiseKernel(*short_pred.op);
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(kernel.status().message().find("operand 0 has shape pred[2]"),
            std::string::npos)
      << kernel.status().message();
}

TEST(ElementwiseClamp, ScalarAndArrayBounds) {
  const std::vector<float> x{-5, -1, 0, 0.5f, 2, 9};
  StatusOr<Literal> scalar =
      Clamp(Literal::Scalar(-1.0f), Literal::Vector(x), Literal::Scalar(1.0f));
  ASSERT_TRUE(scalar.ok()) << scalar.status().message();
  EXPECT_EQ(scalar->ToVector<float>(),
            (std::vector<float>{-1, -1, 0, 0.5f, 1, 1}));
  StatusOr<Literal> arrays =
      Clamp(Literal::Vector<float>({0, 0, 1, 1, 3, 3}), Literal::Vector(x),
            Literal::Vector<float>({1, 1, 2, 2, 4, 4}));
  ASSERT_TRUE(arrays.ok()) << arrays.status().message();
  EXPECT_EQ(arrays->ToVector<float>(), (std::vector<float>{0, 0, 1, 1, 3, 4}));
  StatusOr<Literal> low_array = Clamp(Literal::Vector<int32_t>({0, 5, -3}),
                                      Literal::Vector<int32_t>({-9, 4, 100}),
                                      Literal::Scalar<int32_t>(10));
  ASSERT_TRUE(low_array.ok()) << low_array.status().message();
  EXPECT_EQ(low_array->ToVector<int32_t>(), (std::vector<int32_t>{0, 5, 10}));
  StatusOr<Literal> high_array =
      Clamp(Literal::Scalar<uint8_t>(3), Literal::Vector<uint8_t>({0, 200, 5}),
            Literal::Vector<uint8_t>({9, 9, 4}));
  ASSERT_TRUE(high_array.ok()) << high_array.status().message();
  EXPECT_EQ(high_array->ToVector<uint8_t>(), (std::vector<uint8_t>{3, 9, 4}));
}

TEST(ElementwiseClamp, NaNPropagatesAndNarrowTypesRoundTrip) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  StatusOr<Literal> out =
      Clamp(Literal::Scalar(0.0f), Literal::Vector<float>({nan, -0.0f, 2}),
            Literal::Scalar(1.0f));
  ASSERT_TRUE(out.ok()) << out.status().message();
  std::vector<float> got = out->ToVector<float>();
  EXPECT_TRUE(std::isnan(got[0]));
  EXPECT_TRUE(SameFloat(got[1], 0.0));  // max(+0, -0) is +0
  EXPECT_EQ(got[2], 1.0f);
  StatusOr<Literal> nan_bound =
      Clamp(Literal::Scalar(nan), Literal::Vector<float>({0.5f}),
            Literal::Scalar(1.0f));
  ASSERT_TRUE(nan_bound.ok());
  EXPECT_TRUE(std::isnan(nan_bound->ToVector<float>()[0]));
  StatusOr<Literal> half =
      Clamp(Typed<uint16_t>(ElementType::kF16, {0x0000}, {}),  // 0
            Typed<uint16_t>(ElementType::kF16, {0xBC00, 0x3800, 0x4400}),
            Typed<uint16_t>(ElementType::kF16, {0x3C00}, {}));  // 1
  ASSERT_TRUE(half.ok()) << half.status().message();
  EXPECT_EQ(half->data<uint16_t>()[0], 0x0000);
  EXPECT_EQ(half->data<uint16_t>()[1], 0x3800);
  EXPECT_EQ(half->data<uint16_t>()[2], 0x3C00);
}

TEST(ElementwiseClamp, CrossedBoundsGiveTheUpperBound) {
  // clamp is min(max(x, low), high) (jax 0.10.2): low > high gives high,
  // and a NaN upper bound gives NaN.
  StatusOr<Literal> crossed =
      Clamp(Literal::Scalar(2.0f), Literal::Vector<float>({0, 5, 1.5f}),
            Literal::Scalar(1.0f));
  ASSERT_TRUE(crossed.ok()) << crossed.status().message();
  EXPECT_EQ(crossed->ToVector<float>(), (std::vector<float>{1, 1, 1}));
  StatusOr<Literal> ints =
      Clamp(Literal::Scalar<int8_t>(5), Literal::Vector<int8_t>({0, 7, 3}),
            Literal::Scalar<int8_t>(2));
  ASSERT_TRUE(ints.ok()) << ints.status().message();
  EXPECT_EQ(ints->ToVector<int8_t>(), (std::vector<int8_t>{2, 2, 2}));
  StatusOr<Literal> nan_high =
      Clamp(Literal::Scalar(0.0f), Literal::Vector<float>({0.5f}),
            Literal::Scalar(std::numeric_limits<float>::quiet_NaN()));
  ASSERT_TRUE(nan_high.ok()) << nan_high.status().message();
  EXPECT_TRUE(std::isnan(nan_high->ToVector<float>()[0]));
  // Every integer width and f64, bf16.
  StatusOr<Literal> u64 = Clamp(Literal::Scalar<uint64_t>(10),
                                Literal::Vector<uint64_t>({~0ull, 3, 12}),
                                Literal::Scalar<uint64_t>(1ull << 40));
  ASSERT_TRUE(u64.ok()) << u64.status().message();
  EXPECT_EQ(u64->ToVector<uint64_t>(),
            (std::vector<uint64_t>{1ull << 40, 10, 12}));
  StatusOr<Literal> s16 = Clamp(Literal::Vector<int16_t>({-300, 0}),
                                Literal::Vector<int16_t>({-32768, 32767}),
                                Literal::Vector<int16_t>({-200, 100}));
  ASSERT_TRUE(s16.ok()) << s16.status().message();
  EXPECT_EQ(s16->ToVector<int16_t>(), (std::vector<int16_t>{-300, 100}));
  StatusOr<Literal> f64 =
      Clamp(Literal::Scalar(-1.0), Literal::Vector<double>({-1e300, 0.25}),
            Literal::Scalar(1.0));
  ASSERT_TRUE(f64.ok()) << f64.status().message();
  EXPECT_EQ(f64->ToVector<double>(), (std::vector<double>{-1, 0.25}));
  StatusOr<Literal> bf =
      Clamp(Typed<uint16_t>(ElementType::kBF16, {0xbf80}, {}),  // -1
            Typed<uint16_t>(ElementType::kBF16,
                            {0xc000, 0x3f00, 0x7fc0}),           // -2 .5 NaN
            Typed<uint16_t>(ElementType::kBF16, {0x3f80}, {}));  // 1
  ASSERT_TRUE(bf.ok()) << bf.status().message();
  std::vector<uint16_t> got = Stored<uint16_t>(*bf);
  EXPECT_EQ(got[0], 0xbf80);
  EXPECT_EQ(got[1], 0x3f00);
  EXPECT_TRUE(std::isnan(BFloat16ToFloat(got[2])));
}

TEST(ElementwiseSelect, NarrowAndSubByteTypes) {
  std::vector<bool> pred{false, true, false};
  StatusOr<Literal> s4 =
      Select(Literal::Vector(pred), Typed<int8_t>(ElementType::kS4, {1, -2, 3}),
             Typed<int8_t>(ElementType::kS4, {-8, 7, -1}));
  ASSERT_TRUE(s4.ok()) << s4.status().message();
  EXPECT_EQ(Stored<int8_t>(*s4), (std::vector<int8_t>{-8, -2, -1}));
  StatusOr<Literal> f8 = Select(
      Literal::Vector(pred), Typed<uint8_t>(ElementType::kF8E5M2, {1, 2, 3}),
      Typed<uint8_t>(ElementType::kF8E5M2, {4, 5, 6}));
  ASSERT_TRUE(f8.ok()) << f8.status().message();
  EXPECT_EQ(Stored<uint8_t>(*f8), (std::vector<uint8_t>{4, 2, 6}));
  StatusOr<Literal> f16 = Select(
      Literal::Scalar(true), Typed<uint16_t>(ElementType::kF16, {0x7e01, 2, 3}),
      Typed<uint16_t>(ElementType::kF16, {4, 5, 6}));
  ASSERT_TRUE(f16.ok()) << f16.status().message();
  // Bits move untouched, NaN payloads included.
  EXPECT_EQ(Stored<uint16_t>(*f16), (std::vector<uint16_t>{0x7e01, 2, 3}));
  StatusOr<Literal> c64 =
      Select(Literal::Vector(pred),
             Literal::Vector<std::complex<float>>({{1, 1}, {2, 2}, {3, 3}}),
             Literal::Vector<std::complex<float>>({{4, 4}, {5, 5}, {6, 6}}));
  ASSERT_TRUE(c64.ok()) << c64.status().message();
  EXPECT_EQ(c64->ToVector<std::complex<float>>(),
            (std::vector<std::complex<float>>{{4, 4}, {2, 2}, {6, 6}}));
}

TEST(ElementwiseClamp, ComplexIsUnsupported) {
  HandBuilt clamp =
      HandBuild(Opcode::kClamp, Shape::Array(ElementType::kC64, {2}),
                {Shape::Array(ElementType::kC64, {}),
                 Shape::Array(ElementType::kC64, {2}),
                 Shape::Array(ElementType::kC64, {})});
  StatusOr<cpu::Kernel> kernel = cpu::MakeElementwiseKernel(*clamp.op);
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), XLA_FFI_Error_Code_UNIMPLEMENTED);
  EXPECT_NE(kernel.status().message().find("does not support element type c64"),
            std::string::npos)
      << kernel.status().message();
}

}  // namespace
}  // namespace xffi::test
