// compare: every direction under every comparison type, NaN and signed-zero
// semantics as XLA defines them, and the combinations it refuses.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "elementwise_test_util.h"
#include "ir/float_types.h"

namespace xffi::test {
namespace {

using Direction = ComparisonDirection;
using Type = ComparisonType;

constexpr Direction kAll[] = {Direction::kEq, Direction::kNe, Direction::kGe,
                              Direction::kGt, Direction::kLe, Direction::kLt};

// SIGNED on an unsigned type (and UNSIGNED on a signed one) is HLO the
// builder's StableHLO rules refuse, so those are built by hand.
StatusOr<Literal> Compare(const Literal& a, const Literal& b,
                          Direction direction, Type type = Type::kDefault) {
  const ElementType element = a.shape().element_type();
  const bool crossed =
      (type == Type::kSigned && IsUnsignedIntegralType(element)) ||
      (type == Type::kUnsigned && IsSignedIntegralType(element));
  if (crossed) {
    HandBuilt compare = HandBuild(
        Opcode::kCompare, Shape::Array(ElementType::kPred, a.shape().dims()),
        {a.shape(), b.shape()});
    compare.op->comparison_direction = direction;
    compare.op->comparison_type = type;
    return RunInstruction(*compare.op, {a, b});
  }
  return RunOp(
      [&](Builder& builder, const std::vector<Op>& p) {
        return builder.Compare(p[0], p[1], direction, type);
      },
      {a, b});
}

std::vector<bool> Results(const Literal& a, const Literal& b,
                          Direction direction, Type type = Type::kDefault) {
  StatusOr<Literal> out = Compare(a, b, direction, type);
  EXPECT_TRUE(out.ok()) << out.status().message();
  if (!out.ok()) return std::vector<bool>(a.shape().num_elements());
  EXPECT_EQ(out->shape().element_type(), ElementType::kPred);
  return out->ToVector<bool>();
}

template <typename T>
bool Expected(T a, T b, Direction direction) {
  switch (direction) {
    case Direction::kEq:
      return a == b;
    case Direction::kNe:
      return a != b;
    case Direction::kGe:
      return a >= b;
    case Direction::kGt:
      return a > b;
    case Direction::kLe:
      return a <= b;
    case Direction::kLt:
      return a < b;
  }
  return false;
}

TEST(ElementwiseCompare, FloatIsIeeeNaNUnorderedZerosEqual) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> a{1, 2, 3, nan, nan, 1, -0.0f, -inf, inf, 5};
  std::vector<float> b{2, 2, 1, 1, nan, nan, 0.0f, -inf, 1e38f, 5};
  for (Type type : {Type::kDefault, Type::kFloat})
    for (Direction d : kAll) {
      std::vector<bool> got =
          Results(Literal::Vector(a), Literal::Vector(b), d, type);
      ASSERT_EQ(got.size(), a.size());
      for (size_t i = 0; i < a.size(); ++i)
        EXPECT_EQ(got[i], Expected(a[i], b[i], d))
            << ComparisonDirectionName(d) << " " << a[i] << " " << b[i];
    }
  // Spelled out: NE is the only direction true for NaN.
  EXPECT_EQ(Results(Literal::Vector<double>({nan, 0.0}),
                    Literal::Vector<double>({nan, -0.0}), Direction::kNe),
            (std::vector<bool>{true, false}));
  EXPECT_EQ(Results(Literal::Vector<double>({nan, 0.0}),
                    Literal::Vector<double>({nan, -0.0}), Direction::kGe),
            (std::vector<bool>{false, true}));
}

TEST(ElementwiseCompare, TotalOrderSeparatesZerosAndOrdersNaNs) {
  // -NaN < -inf < -1 < -0 < +0 < 1 < inf < +NaN.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> order{-nan, -inf, -1.0f, -0.0f,
                                 0.0f, 1.0f, inf,   nan};
  std::vector<float> a, b;
  for (size_t i = 0; i < order.size(); ++i)
    for (size_t j = 0; j < order.size(); ++j) {
      a.push_back(order[i]);
      b.push_back(order[j]);
    }
  for (Direction d : kAll) {
    std::vector<bool> got =
        Results(Literal::Vector(a), Literal::Vector(b), d, Type::kTotalOrder);
    ASSERT_EQ(got.size(), a.size());
    for (size_t i = 0; i < order.size(); ++i)
      for (size_t j = 0; j < order.size(); ++j)
        EXPECT_EQ(got[i * order.size() + j], Expected(i, j, d))
            << ComparisonDirectionName(d) << " " << order[i] << " " << order[j];
  }
  // Doubles and halves too.
  EXPECT_EQ(Results(Literal::Vector<double>({-0.0, -nan}),
                    Literal::Vector<double>({0.0, -inf}), Direction::kLt,
                    Type::kTotalOrder),
            (std::vector<bool>{true, true}));
  EXPECT_EQ(Results(Typed<uint16_t>(ElementType::kF16, {0x8000, 0x7E00}),
                    Typed<uint16_t>(ElementType::kF16, {0x0000, 0x7C00}),
                    Direction::kGt, Type::kTotalOrder),
            (std::vector<bool>{false, true}));
  EXPECT_EQ(Results(Typed<uint16_t>(ElementType::kBF16, {0x8000}),
                    Typed<uint16_t>(ElementType::kBF16, {0x0000}),
                    Direction::kEq, Type::kTotalOrder),
            (std::vector<bool>{false}));
}

TEST(ElementwiseCompare, IntegersSignedAndUnsigned) {
  std::vector<int32_t> a{-1, 0, 5, std::numeric_limits<int32_t>::min(), 7};
  std::vector<int32_t> b{1, 0, 3, std::numeric_limits<int32_t>::max(), 7};
  for (Direction d : kAll) {
    std::vector<bool> got = Results(Literal::Vector(a), Literal::Vector(b), d);
    std::vector<bool> as_signed =
        Results(Literal::Vector(a), Literal::Vector(b), d, Type::kSigned);
    std::vector<bool> as_unsigned =
        Results(Literal::Vector(a), Literal::Vector(b), d, Type::kUnsigned);
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(got[i], Expected(a[i], b[i], d));
      EXPECT_EQ(as_signed[i], Expected(a[i], b[i], d));
      EXPECT_EQ(as_unsigned[i], Expected(static_cast<uint32_t>(a[i]),
                                         static_cast<uint32_t>(b[i]), d))
          << ComparisonDirectionName(d) << " " << a[i] << " " << b[i];
    }
  }
  // SIGNED on an unsigned type reads the top bit as the sign.
  std::vector<uint8_t> x{200, 1}, y{100, 2};
  EXPECT_EQ(Results(Literal::Vector(x), Literal::Vector(y), Direction::kLt),
            (std::vector<bool>{false, true}));
  EXPECT_EQ(Results(Literal::Vector(x), Literal::Vector(y), Direction::kLt,
                    Type::kSigned),
            (std::vector<bool>{true, true}));
  EXPECT_EQ(Results(Literal::Vector<uint64_t>({~0ull}),
                    Literal::Vector<uint64_t>({0}), Direction::kGt),
            (std::vector<bool>{true}));
  EXPECT_EQ(
      Results(Literal::Vector<int64_t>({-1}), Literal::Vector<int64_t>({0}),
              Direction::kGt, Type::kUnsigned),
      (std::vector<bool>{true}));
}

template <typename T>
void CheckIntegerType() {
  using U = std::make_unsigned_t<T>;
  using S = std::make_signed_t<T>;
  const T lo = std::numeric_limits<T>::min();
  const T hi = std::numeric_limits<T>::max();
  const std::vector<T> values{lo, static_cast<T>(lo + 1), 0,
                              1,  static_cast<T>(hi - 1), hi};
  std::vector<T> a, b;
  for (T x : values)
    for (T y : values) {
      a.push_back(x);
      b.push_back(y);
    }
  for (Direction d : kAll) {
    std::vector<bool> plain =
        Results(Literal::Vector(a), Literal::Vector(b), d);
    std::vector<bool> as_signed =
        Results(Literal::Vector(a), Literal::Vector(b), d, Type::kSigned);
    std::vector<bool> as_unsigned =
        Results(Literal::Vector(a), Literal::Vector(b), d, Type::kUnsigned);
    ASSERT_EQ(plain.size(), a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(plain[i], Expected(a[i], b[i], d))
          << ElementTypeName(ElementTypeOf<T>()) << " "
          << ComparisonDirectionName(d) << " " << +a[i] << " " << +b[i];
      EXPECT_EQ(as_signed[i],
                Expected(static_cast<S>(a[i]), static_cast<S>(b[i]), d))
          << ElementTypeName(ElementTypeOf<T>()) << " SIGNED "
          << ComparisonDirectionName(d) << " " << +a[i] << " " << +b[i];
      EXPECT_EQ(as_unsigned[i],
                Expected(static_cast<U>(a[i]), static_cast<U>(b[i]), d))
          << ElementTypeName(ElementTypeOf<T>()) << " UNSIGNED "
          << ComparisonDirectionName(d) << " " << +a[i] << " " << +b[i];
    }
  }
}

TEST(ElementwiseCompare, EveryIntegerWidthInEveryDirectionAndType) {
  CheckIntegerType<int8_t>();
  CheckIntegerType<uint8_t>();
  CheckIntegerType<int16_t>();
  CheckIntegerType<uint16_t>();
  CheckIntegerType<int32_t>();
  CheckIntegerType<uint32_t>();
  CheckIntegerType<int64_t>();
  CheckIntegerType<uint64_t>();
}

TEST(ElementwiseCompare, EveryFloatTypeInEveryDirection) {
  // IEEE (FLOAT, the default) and TOTALORDER for f16, bf16 and f64: the
  // values below in order, with -0 and +0 equal only under FLOAT.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> order{-nan, -inf, -2.5, -0.0, 0.0, 1, 3, inf, nan};
  std::vector<double> a, b;
  std::vector<size_t> ia, ib;
  for (size_t i = 0; i < order.size(); ++i)
    for (size_t j = 0; j < order.size(); ++j) {
      a.push_back(order[i]);
      b.push_back(order[j]);
      ia.push_back(i);
      ib.push_back(j);
    }
  auto encode = [&](ElementType type) {
    std::vector<Literal> out;
    for (const std::vector<double>* v : {&a, &b}) {
      std::vector<uint16_t> bits;
      for (double x : *v) {
        const float f = static_cast<float>(x);
        bits.push_back(type == ElementType::kF16 ? FloatToHalf(f)
                                                 : FloatToBFloat16(f));
      }
      out.push_back(Typed(type, bits));
    }
    return out;
  };
  std::vector<std::pair<std::string, std::vector<Literal>>> inputs;
  inputs.push_back({"f16", encode(ElementType::kF16)});
  inputs.push_back({"bf16", encode(ElementType::kBF16)});
  inputs.push_back({"f64", {Literal::Vector(a), Literal::Vector(b)}});
  for (const auto& [name, operands] : inputs)
    for (Direction d : kAll) {
      std::vector<bool> ieee =
          Results(operands[0], operands[1], d, Type::kFloat);
      std::vector<bool> total =
          Results(operands[0], operands[1], d, Type::kTotalOrder);
      ASSERT_EQ(ieee.size(), a.size()) << name;
      ASSERT_EQ(total.size(), a.size()) << name;
      for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(ieee[i], Expected(a[i], b[i], d))
            << name << " " << ComparisonDirectionName(d) << " " << a[i] << " "
            << b[i];
        EXPECT_EQ(total[i], Expected(ia[i], ib[i], d))
            << name << " TOTALORDER " << ComparisonDirectionName(d) << " "
            << a[i] << " " << b[i];
      }
    }
}

TEST(ElementwiseCompare, SubByteIntegersAndPred) {
  EXPECT_EQ(
      Results(Typed<int8_t>(ElementType::kS4, {-8, 7, -1}),
              Typed<int8_t>(ElementType::kS4, {7, -8, 0}), Direction::kLt),
      (std::vector<bool>{true, false, true}));
  // Unsigned view of s4: -1 is 15.
  EXPECT_EQ(Results(Typed<int8_t>(ElementType::kS4, {-1}),
                    Typed<int8_t>(ElementType::kS4, {7}), Direction::kGt,
                    Type::kUnsigned),
            (std::vector<bool>{true}));
  std::vector<bool> p{false, false, true, true}, q{false, true, false, true};
  EXPECT_EQ(Results(Literal::Vector(p), Literal::Vector(q), Direction::kLt),
            (std::vector<bool>{false, true, false, false}));
  EXPECT_EQ(Results(Literal::Vector(p), Literal::Vector(q), Direction::kNe),
            (std::vector<bool>{false, true, true, false}));
  EXPECT_EQ(Results(Literal::Vector(p), Literal::Vector(q), Direction::kGe),
            (std::vector<bool>{true, false, true, true}));
}

TEST(ElementwiseCompare, ComplexEqualityComparesBothParts) {
  using C = std::complex<float>;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<C> a{{1, 2}, {1, 2}, {nan, 0}, {0, 0}};
  std::vector<C> b{{1, 2}, {1, 3}, {nan, 0}, {-0.0f, 0}};
  EXPECT_EQ(Results(Literal::Vector(a), Literal::Vector(b), Direction::kEq),
            (std::vector<bool>{true, false, false, true}));
  EXPECT_EQ(Results(Literal::Vector(a), Literal::Vector(b), Direction::kNe),
            (std::vector<bool>{false, true, true, false}));
}

TEST(ElementwiseCompare, NarrowFloatsCompareTheirValues) {
  auto e4m3 = [](float v) {
    return static_cast<uint8_t>(
        NarrowFloatFromDouble(ElementType::kF8E4M3FN, v));
  };
  EXPECT_EQ(Results(Typed<uint8_t>(ElementType::kF8E4M3FN,
                                   {e4m3(-1), e4m3(2), e4m3(0.5f)}),
                    Typed<uint8_t>(ElementType::kF8E4M3FN,
                                   {e4m3(1), e4m3(2), e4m3(-0.5f)}),
                    Direction::kLe),
            (std::vector<bool>{true, true, false}));
  EXPECT_EQ(Results(Typed<uint16_t>(ElementType::kF16, {0x8000, 0x7E00}),
                    Typed<uint16_t>(ElementType::kF16, {0x0000, 0x7E00}),
                    Direction::kEq),
            (std::vector<bool>{true, false}));
}

TEST(ElementwiseCompare, RefusedCombinationsSayWhy) {
  auto hand = [](ElementType type, Direction direction, Type comparison) {
    HandBuilt h =
        HandBuild(Opcode::kCompare, Shape::Array(ElementType::kPred, {2}),
                  {Shape::Array(type, {2}), Shape::Array(type, {2})});
    h.op->comparison_direction = direction;
    h.op->comparison_type = comparison;
    return h;
  };
  HandBuilt ordered = hand(ElementType::kC64, Direction::kLt, Type::kDefault);
  StatusOr<cpu::Kernel> kernel = cpu::MakeElementwiseKernel(*ordered.op);
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(kernel.status().message().find("complex numbers compare only EQ "
                                           "or NE, not LT"),
            std::string::npos)
      << kernel.status().message();
  HandBuilt float_on_int =
      hand(ElementType::kS32, Direction::kEq, Type::kFloat);
  kernel = cpu::MakeElementwiseKernel(*float_on_int.op);
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(kernel.status().message().find(
                "comparison type FLOAT does not apply to s32"),
            std::string::npos)
      << kernel.status().message();
  HandBuilt signed_on_float =
      hand(ElementType::kF32, Direction::kEq, Type::kSigned);
  kernel = cpu::MakeElementwiseKernel(*signed_on_float.op);
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(kernel.status().message().find("SIGNED does not apply to f32"),
            std::string::npos)
      << kernel.status().message();
  HandBuilt not_pred =
      HandBuild(Opcode::kCompare, Shape::Array(ElementType::kS32, {2}),
                {Shape::Array(ElementType::kS32, {2}),
                 Shape::Array(ElementType::kS32, {2})});
  kernel = cpu::MakeElementwiseKernel(*not_pred.op);
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(kernel.status().message().find("produces pred, not s32"),
            std::string::npos)
      << kernel.status().message();
}

}  // namespace
}  // namespace xffi::test
