// dot_general against NumPy: plain, batched, operands in transposed and
// scrambled orders, mixed result types, integers and complex numbers.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cpu/dnnl_gemm.h"
#include "ir/float_types.h"
#include "kernel_test_util.h"
#include "xffi/runtime/thread_pool.h"

namespace xffi::cpu {
namespace {

using testing_util::F32;
using testing_util::OpUnderTest;
using testing_util::RunOne;

// Switches oneDNN off for one scope (the OpenBLAS and int16 paths, as in a
// build without oneDNN).
class WithoutOneDnn {
 public:
  WithoutOneDnn() : had_(HaveDnnl()) { SetDnnlEnabled(false); }
  ~WithoutOneDnn() { SetDnnlEnabled(had_); }
  WithoutOneDnn(const WithoutOneDnn&) = delete;
  WithoutOneDnn& operator=(const WithoutOneDnn&) = delete;

 private:
  bool had_;
};

Instruction* Dot(OpUnderTest& t, const Shape& lhs, const Shape& rhs,
                 const Shape& out, DotDimensionNumbers dn) {
  auto* a = t.Param(lhs);
  auto* b = t.Param(rhs);
  auto* d = t.Op(Opcode::kDot, out, {a, b});
  d->dot_dimension_numbers = std::move(dn);
  return d;
}

// a = ((arange(6)*5) % 7 - 3).reshape(2,3); b = ((arange(6)*3) % 5 - 3)...
const std::vector<float> kA = {-3, 2, 0, -2, 3, 1};
const std::vector<float> kB = {-3, 0, -2, 1, -1, -3};

TEST(DotKernel, MatrixProduct) {
  OpUnderTest t;
  auto* d = Dot(t, F32({2, 3}), F32({3, 2}), F32({2, 2}), {{}, {}, {1}, {0}});
  Literal a = Literal::FromVector<float>({2, 3}, kA);
  Literal b = Literal::FromVector<float>({3, 2}, kB);
  EXPECT_EQ(RunOne(*d, {&a, &b}).ToVector<float>(),
            (std::vector<float>{5, 2, -1, 0}));
}

TEST(DotKernel, TransposedOperandsUsedInPlace) {
  OpUnderTest t;
  // lhs stored [k, m], rhs stored [n, k]: a.T and b.T of the test above.
  auto* d = Dot(t, F32({3, 2}), F32({2, 3}), F32({2, 2}), {{}, {}, {0}, {1}});
  Literal a = Literal::FromVector<float>({3, 2}, {-3, -2, 2, 3, 0, 1});
  Literal b = Literal::FromVector<float>({2, 3}, {-3, -2, -1, 0, 1, -3});
  EXPECT_EQ(RunOne(*d, {&a, &b}).ToVector<float>(),
            (std::vector<float>{5, 2, -1, 0}));
}

// Products past the small-product loop go through Eigen, with each operand
// in either order. a = ((arange(480)*7) % 11 - 5).reshape(24, 20), b =
// ((arange(320)*5) % 9 - 4).reshape(20, 16); c = a @ b (NumPy, exact).
template <typename T>
void CheckLargeProduct(ElementType type) {
  std::vector<T> a(24 * 20), b(20 * 16), a_t(a.size()), b_t(b.size());
  for (int i = 0; i < 480; ++i) a[i] = static_cast<T>((i * 7) % 11 - 5);
  for (int i = 0; i < 320; ++i) b[i] = static_cast<T>((i * 5) % 9 - 4);
  for (int i = 0; i < 24; ++i)
    for (int p = 0; p < 20; ++p) a_t[p * 24 + i] = a[i * 20 + p];
  for (int p = 0; p < 20; ++p)
    for (int j = 0; j < 16; ++j) b_t[j * 20 + p] = b[p * 16 + j];
  for (bool lhs_t : {false, true})
    for (bool rhs_t : {false, true}) {
      SCOPED_TRACE(std::to_string(lhs_t) + std::to_string(rhs_t));
      OpUnderTest t;
      Shape lhs = Shape::Array(type, lhs_t ? std::vector<int64_t>{20, 24}
                                           : std::vector<int64_t>{24, 20});
      Shape rhs = Shape::Array(type, rhs_t ? std::vector<int64_t>{16, 20}
                                           : std::vector<int64_t>{20, 16});
      auto* d = Dot(t, lhs, rhs, Shape::Array(type, {24, 16}),
                    {{}, {}, {lhs_t ? 0 : 1}, {rhs_t ? 1 : 0}});
      Literal la = Literal::FromVector<T>(lhs.dims(), lhs_t ? a_t : a);
      Literal lb = Literal::FromVector<T>(rhs.dims(), rhs_t ? b_t : b);
      std::vector<T> c = RunOne(*d, {&la, &lb}).template ToVector<T>();
      ASSERT_EQ(c.size(), 384u);
      T sum = 0, squares = 0;
      for (T v : c) {
        sum += v;
        squares += v * v;
      }
      EXPECT_EQ(sum, -17);
      EXPECT_EQ(squares, 308277);
      EXPECT_EQ(c[0], -11);
      EXPECT_EQ(c[5 * 16 + 7], -22);
      EXPECT_EQ(c[23 * 16 + 15], -3);
      const std::vector<T> column3 = {-50, 18, 64, 11,  -31, -7, -5,  -3,
                                      10,  1,  -8, -50, 18,  64, 11,  -31,
                                      -7,  -5, -3, 10,  1,   -8, -50, 18};
      for (int i = 0; i < 24; ++i) EXPECT_EQ(c[i * 16 + 3], column3[i]) << i;
    }
}

TEST(DotKernel, LargeProductsThroughEigen) {
  CheckLargeProduct<float>(ElementType::kF32);
  CheckLargeProduct<double>(ElementType::kF64);
}

TEST(DotKernel, MatrixVector) {
  OpUnderTest t;
  auto* d = Dot(t, F32({2, 3}), F32({3}), F32({2}), {{}, {}, {1}, {0}});
  Literal a = Literal::FromVector<float>({2, 3}, kA);
  Literal v = Literal::Vector<float>({1, 2, 3});
  EXPECT_EQ(RunOne(*d, {&a, &v}).ToVector<float>(), (std::vector<float>{1, 7}));
}

TEST(DotKernel, BatchDims) {
  OpUnderTest t;
  auto* d = Dot(t, F32({2, 2, 3}), F32({2, 3, 2}), F32({2, 2, 2}),
                {{0}, {0}, {2}, {1}});
  Literal a = Literal::FromVector<float>(
      {2, 2, 3}, {-3, 2, 0, -2, 3, 1, -1, -3, 2, 0, -2, 3});
  Literal b = Literal::FromVector<float>(
      {2, 3, 2}, {-3, 0, -2, 1, -1, -3, 0, -2, 1, -1, -3, 0});
  // A @ B
  EXPECT_EQ(RunOne(*d, {&a, &b}).ToVector<float>(),
            (std::vector<float>{5, 2, -1, 0, -9, 5, -11, 2}));
}

TEST(DotKernel, ScrambledBatchAndContractingDims) {
  OpUnderTest t;
  // einsum('kbm,bnk->bmn', L, R): lhs needs packing, rhs is [b, n, k].
  auto* d = Dot(t, F32({3, 2, 2}), F32({2, 2, 3}), F32({2, 2, 2}),
                {{1}, {0}, {0}, {2}});
  Literal l = Literal::FromVector<float>(
      {3, 2, 2}, {-3, 2, 0, -2, 3, 1, -1, -3, 2, 0, -2, 3});
  Literal r = Literal::FromVector<float>(
      {2, 2, 3}, {-3, 0, -2, 1, -1, -3, 0, -2, 1, -1, -3, 0});
  EXPECT_EQ(RunOne(*d, {&l, &r}).ToVector<float>(),
            (std::vector<float>{5, -12, -6, 1, 0, 3, 9, 11}));
}

TEST(DotKernel, BatchDimInTheMiddleAndTwoContractingDims) {
  // einsum('mkbj,jbkn->bmn', L, R): L = ((arange(24)*5) % 7 - 3) as
  // [2,3,2,2], R = ((arange(24)*3) % 5 - 2) as [2,2,3,2]; both need packing.
  OpUnderTest t;
  auto* d = Dot(t, F32({2, 3, 2, 2}), F32({2, 2, 3, 2}), F32({2, 2, 2}),
                {{2}, {1}, {1, 3}, {2, 0}});
  std::vector<float> l(24), r(24);
  for (int i = 0; i < 24; ++i) {
    l[i] = static_cast<float>((i * 5) % 7 - 3);
    r[i] = static_cast<float>((i * 3) % 5 - 2);
  }
  Literal a = Literal::FromVector<float>({2, 3, 2, 2}, l);
  Literal b = Literal::FromVector<float>({2, 2, 3, 2}, r);
  EXPECT_EQ(RunOne(*d, {&a, &b}).ToVector<float>(),
            (std::vector<float>{1, 1, -4, 8, 1, 1, 1, 6}));
}

TEST(DotKernel, Bf16ResultAccumulatesInF32) {
  // [256, 1, 1, 1, 1] . ones: step by step in bf16 every +1 rounds back to
  // 256; XLA (jnp.dot on CPU) accumulates in f32 and gives 260.
  OpUnderTest t;
  Shape l = Shape::Array(ElementType::kBF16, {1, 5});
  Shape r = Shape::Array(ElementType::kBF16, {5, 1});
  auto* d = Dot(t, l, r, Shape::Array(ElementType::kBF16, {1, 1}),
                {{}, {}, {1}, {0}});
  Literal a(l), b(r);
  const float values[] = {256, 1, 1, 1, 1};
  for (size_t i = 0; i < 5; ++i) {
    a.data<uint16_t>()[i] = FloatToBFloat16(values[i]);
    b.data<uint16_t>()[i] = FloatToBFloat16(1.0f);
  }
  Literal out = RunOne(*d, {&a, &b});
  EXPECT_EQ(BFloat16ToFloat(out.data<uint16_t>()[0]), 260.0f);
}

TEST(DotKernel, F16OperandsWithF32PreferredType) {
  // lax.dot(x, y, preferred_element_type=f32) for f16 x: [1,3], y: [3,2]:
  // 2049 is not an f16, so the f32 result shows no f16 rounding.
  OpUnderTest t;
  Shape l = Shape::Array(ElementType::kF16, {1, 3});
  Shape r = Shape::Array(ElementType::kF16, {3, 2});
  auto* d = Dot(t, l, r, F32({1, 2}), {{}, {}, {1}, {0}});
  Literal a(l), b(r);
  const float xs[] = {2048, 1, 0.5f}, ys[] = {1, 0, 1, 1, 2, -4};
  for (size_t i = 0; i < 3; ++i) a.data<uint16_t>()[i] = FloatToHalf(xs[i]);
  for (size_t i = 0; i < 6; ++i) b.data<uint16_t>()[i] = FloatToHalf(ys[i]);
  EXPECT_EQ(RunOne(*d, {&a, &b}).ToVector<float>(),
            (std::vector<float>{2050, -1}));
}

TEST(DotKernel, Int32AndUnsignedProductsWrap) {
  OpUnderTest t;
  Shape l = Shape::Array(ElementType::kU8, {1, 2});
  Shape r = Shape::Array(ElementType::kU8, {2, 1});
  auto* d =
      Dot(t, l, r, Shape::Array(ElementType::kU8, {1, 1}), {{}, {}, {1}, {0}});
  Literal a = Literal::FromVector<uint8_t>({1, 2}, {200, 3});
  Literal b = Literal::FromVector<uint8_t>({2, 1}, {2, 100});
  // (400 + 300) mod 256
  EXPECT_EQ(RunOne(*d, {&a, &b}).ToVector<uint8_t>(),
            (std::vector<uint8_t>{188}));

  OpUnderTest s;
  auto* e = Dot(s, testing_util::S32({2, 2}), testing_util::S32({2}),
                testing_util::S32({2}), {{}, {}, {1}, {0}});
  Literal m = Literal::FromVector<int32_t>({2, 2}, {-7, 3, 2000000000, 1});
  Literal v = Literal::Vector<int32_t>({5, 2});
  // 2e9 * 5 + 2 wraps: 10000000002 mod 2^32 = 1410065410
  EXPECT_EQ(RunOne(*e, {&m, &v}).ToVector<int32_t>(),
            (std::vector<int32_t>{-29, 1410065410}));
}

TEST(DotKernel, Float64AndZeroContraction) {
  OpUnderTest t;
  Shape l = Shape::Array(ElementType::kF64, {2, 0});
  Shape r = Shape::Array(ElementType::kF64, {0, 3});
  auto* d =
      Dot(t, l, r, Shape::Array(ElementType::kF64, {2, 3}), {{}, {}, {1}, {0}});
  Literal a(l), b(r);
  EXPECT_EQ(RunOne(*d, {&a, &b}).ToVector<double>(),
            std::vector<double>(6, 0.0));
}

TEST(DotKernel, Bf16OperandsWithF32Result) {
  OpUnderTest t;
  Shape bf = Shape::Array(ElementType::kBF16, {2, 3});
  Shape bf2 = Shape::Array(ElementType::kBF16, {3, 2});
  auto* d = Dot(t, bf, bf2, F32({2, 2}), {{}, {}, {1}, {0}});
  Literal a(bf), b(bf2);
  for (size_t i = 0; i < 6; ++i) {
    a.data<uint16_t>()[i] = FloatToBFloat16(kA[i]);
    b.data<uint16_t>()[i] = FloatToBFloat16(kB[i]);
  }
  EXPECT_EQ(RunOne(*d, {&a, &b}).ToVector<float>(),
            (std::vector<float>{5, 2, -1, 0}));

  // f16 in, f16 out: accumulated in f32, rounded once.
  OpUnderTest h;
  Shape f16a = Shape::Array(ElementType::kF16, {1, 3});
  Shape f16b = Shape::Array(ElementType::kF16, {3, 1});
  auto* hd = Dot(h, f16a, f16b, Shape::Array(ElementType::kF16, {1, 1}),
                 {{}, {}, {1}, {0}});
  Literal x(f16a), y(f16b);
  const float xs[] = {0.5f, 1.5f, -2.0f}, ys[] = {4.0f, 2.0f, 0.25f};
  for (size_t i = 0; i < 3; ++i) {
    x.data<uint16_t>()[i] = FloatToHalf(xs[i]);
    y.data<uint16_t>()[i] = FloatToHalf(ys[i]);
  }
  Literal out = RunOne(*hd, {&x, &y});
  EXPECT_EQ(HalfToFloat(out.data<uint16_t>()[0]), 4.5f);
}

TEST(DotKernel, Int8OperandsWithS32ResultDoNotOverflowEarly) {
  OpUnderTest t;
  Shape a8 = Shape::Array(ElementType::kS8, {2, 3});
  Shape b8 = Shape::Array(ElementType::kS8, {3, 1});
  auto* d = Dot(t, a8, b8, testing_util::S32({2, 1}), {{}, {}, {1}, {0}});
  Literal a = Literal::FromVector<int8_t>({2, 3}, {100, -100, 27, 5, 6, 7});
  Literal b = Literal::FromVector<int8_t>({3, 1}, {100, 100, 2});
  EXPECT_EQ(RunOne(*d, {&a, &b}).ToVector<int32_t>(),
            (std::vector<int32_t>{54, 1114}));
}

// Reference: sum of int64 products, then wrapped to the result's width.
template <typename A, typename B>
std::vector<int64_t> ReferenceDot(
    const std::vector<A>& a, const std::vector<B>& b, int64_t batch, int64_t m,
    int64_t k, int64_t n,
    // element offsets of [batch, i, p] / [batch, p, j]
    auto a_at, auto b_at) {
  std::vector<int64_t> c;
  for (int64_t bi = 0; bi < batch; ++bi)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        int64_t sum = 0;
        for (int64_t p = 0; p < k; ++p)
          sum += static_cast<int64_t>(a[static_cast<size_t>(a_at(bi, i, p))]) *
                 static_cast<int64_t>(b[static_cast<size_t>(b_at(bi, p, j))]);
        c.push_back(sum);
      }
  return c;
}

// Runs `kernel` on `threads` threads each: its results are `want` wrapped
// into R.
template <typename R>
void ExpectWrappedSums(const Kernel& kernel, Literal& la, Literal& lb,
                       const Shape& shape, const std::vector<int64_t>& want,
                       std::initializer_list<int> threads) {
  for (int n : threads) {
    Literal out = testing_util::RunOnThreads(kernel, {&la, &lb}, shape, n);
    std::vector<R> got = out.ToVector<R>();
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_EQ(got[i], static_cast<R>(static_cast<uint64_t>(want[i])))
          << "element " << i << ", threads " << n;
  }
}

template <typename A, typename B, typename R>
void CheckByteDot(ElementType a_type, ElementType b_type, ElementType r_type,
                  uint32_t seed) {
  SCOPED_TRACE(std::string(ElementTypeName(a_type)) + " x " +
               std::string(ElementTypeName(b_type)) + " -> " +
               std::string(ElementTypeName(r_type)));
  // lhs [m, batch, k], rhs [k, n, batch]: batch and contracting dims in
  // scrambled places; m, n and k not multiples of any block.
  const int64_t batch = 3, m = 37, k = 45, n = 29;
  std::vector<A> a(static_cast<size_t>(m * batch * k));
  std::vector<B> b(static_cast<size_t>(k * n * batch));
  uint32_t x = seed;
  auto next = [&] {
    x = x * 1664525u + 1013904223u;
    return x >> 24;  // 0..255
  };
  for (A& e : a) e = static_cast<A>(next());
  for (B& e : b) e = static_cast<B>(next());
  OpUnderTest t;
  auto* d = Dot(t, Shape::Array(a_type, {m, batch, k}),
                Shape::Array(b_type, {k, n, batch}),
                Shape::Array(r_type, {batch, m, n}), {{1}, {2}, {2}, {0}});
  auto a_at = [&](int64_t bi, int64_t i, int64_t p) {
    return (i * batch + bi) * k + p;
  };
  auto b_at = [&](int64_t bi, int64_t p, int64_t j) {
    return (p * n + j) * batch + bi;
  };
  std::vector<int64_t> want = ReferenceDot(a, b, batch, m, k, n, a_at, b_at);
  Literal la = Literal::FromVector<A>({m, batch, k}, a);
  Literal lb = Literal::FromVector<B>({k, n, batch}, b);
  StatusOr<Kernel> kernel = MakeStructuralKernel(*d);
  ASSERT_TRUE(kernel.ok()) << kernel.status().ToString();
  ExpectWrappedSums<R>(*kernel, la, lb, d->shape(), want, {0, 1, 3});
}

TEST(DotKernel, ByteOperandsEveryResultTypeAndDimensionOrder) {
  CheckByteDot<int8_t, int8_t, int32_t>(ElementType::kS8, ElementType::kS8,
                                        ElementType::kS32, 1);
  CheckByteDot<uint8_t, int8_t, int32_t>(ElementType::kU8, ElementType::kS8,
                                         ElementType::kS32, 2);
  CheckByteDot<int8_t, uint8_t, int64_t>(ElementType::kS8, ElementType::kU8,
                                         ElementType::kS64, 3);
  CheckByteDot<uint8_t, uint8_t, uint8_t>(ElementType::kU8, ElementType::kU8,
                                          ElementType::kU8, 4);
  CheckByteDot<int8_t, int8_t, int16_t>(ElementType::kS8, ElementType::kS8,
                                        ElementType::kS16, 5);
  CheckByteDot<uint8_t, uint8_t, uint32_t>(ElementType::kU8, ElementType::kU8,
                                           ElementType::kU32, 6);
}

TEST(DotKernel, LongByteDotsWrapInThirtyTwoBitsButNotInSixtyFour) {
  // 200000 products of -128 * -128 = 3276800000: past INT32_MAX.
  const int64_t k = 200000;
  Literal a = Literal::FromVector<int8_t>({1, k}, std::vector<int8_t>(k, -128));
  Literal b = Literal::FromVector<int8_t>({k, 1}, std::vector<int8_t>(k, -128));
  OpUnderTest t;
  auto* narrow = Dot(t, Shape::Array(ElementType::kS8, {1, k}),
                     Shape::Array(ElementType::kS8, {k, 1}),
                     testing_util::S32({1, 1}), {{}, {}, {1}, {0}});
  auto* wide = Dot(t, Shape::Array(ElementType::kS8, {1, k}),
                   Shape::Array(ElementType::kS8, {k, 1}),
                   Shape::Array(ElementType::kS64, {1, 1}), {{}, {}, {1}, {0}});
  // oneDNN's s8 GEMM where the build has it, then the int16 path.
  for (bool dnnl : {true, false}) {
    std::optional<WithoutOneDnn> off;
    if (!dnnl) off.emplace();
    EXPECT_EQ(RunOne(*narrow, {&a, &b}).ToVector<int32_t>(),
              (std::vector<int32_t>{static_cast<int32_t>(3276800000u)}))
        << (dnnl ? "with" : "without") << " oneDNN";
    EXPECT_EQ(RunOne(*wide, {&a, &b}).ToVector<int64_t>(),
              (std::vector<int64_t>{3276800000}));
  }
}

// Byte products big enough for oneDNN's s8 GEMM (s8 or u8 times s8), with
// operands in the layouts it reads in place ([m, k] times [k, n] or
// [n, k]) and batched, values at the extremes -128/127/255 and a long
// depth, in 32-bit and other results: exactly the sums of the int16 path
// and of a 64-bit reference, wrapped.
template <typename A, typename R>
void CheckLongByteDot(ElementType a_type, ElementType r_type, bool rhs_t,
                      int64_t batch) {
  SCOPED_TRACE(std::string(ElementTypeName(a_type)) + " -> " +
               std::string(ElementTypeName(r_type)) +
               (rhs_t ? " rhs [n, k]" : " rhs [k, n]") + " batch " +
               std::to_string(batch));
  // Rows and columns past one block of oneDNN calls (64 x 128), not
  // multiples of them.
  const int64_t m = 70, k = 1500, n = 131;
  std::vector<A> a(static_cast<size_t>(batch * m * k));
  std::vector<int8_t> b(static_cast<size_t>(batch * k * n));
  uint32_t x = 7;
  auto next = [&] {
    x = x * 1664525u + 1013904223u;
    return x >> 24;
  };
  // Mostly extremes (the largest products, all one sign over long runs),
  // some random bytes.
  const A a_min = std::numeric_limits<A>::min(),
          a_max = std::numeric_limits<A>::max();
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = i % 5 == 4 ? static_cast<A>(next()) : (i / 700) % 2 ? a_max : a_min;
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = i % 7 == 6 ? static_cast<int8_t>(next())
                      : static_cast<int8_t>((i / 900) % 3 == 0 ? 127 : -128);
  auto a_at = [&](int64_t bi, int64_t i, int64_t p) {
    return (bi * m + i) * k + p;
  };
  auto b_at = [&](int64_t bi, int64_t p, int64_t j) {
    return rhs_t ? (bi * n + j) * k + p : (bi * k + p) * n + j;
  };
  std::vector<int64_t> want = ReferenceDot(a, b, batch, m, k, n, a_at, b_at);
  Shape ls = Shape::Array(a_type, {batch, m, k});
  Shape rs =
      Shape::Array(ElementType::kS8, rhs_t ? std::vector<int64_t>{batch, n, k}
                                           : std::vector<int64_t>{batch, k, n});
  OpUnderTest t;
  auto* d = Dot(t, ls, rs, Shape::Array(r_type, {batch, m, n}),
                {{0}, {0}, {2}, {rhs_t ? 2 : 1}});
  Literal la = Literal::FromVector<A>(ls.dims(), a);
  Literal lb = Literal::FromVector<int8_t>(rs.dims(), b);
  StatusOr<Kernel> library = MakeStructuralKernel(*d);
  ASSERT_TRUE(library.ok()) << library.status().ToString();
  StatusOr<Kernel> own = [&] {
    WithoutOneDnn off;
    return MakeStructuralKernel(*d);
  }();
  ASSERT_TRUE(own.ok()) << own.status().ToString();
  ExpectWrappedSums<R>(*library, la, lb, d->shape(), want, {0, 2});
  SCOPED_TRACE("without oneDNN");
  ExpectWrappedSums<R>(*own, la, lb, d->shape(), want, {0, 2});
}

TEST(DotKernel, LongByteDotsAtTheExtremesWithAndWithoutOneDnn) {
  for (bool rhs_t : {false, true}) {
    CheckLongByteDot<int8_t, int32_t>(ElementType::kS8, ElementType::kS32,
                                      rhs_t, 1);
    CheckLongByteDot<uint8_t, int32_t>(ElementType::kU8, ElementType::kS32,
                                       rhs_t, 1);
  }
  CheckLongByteDot<int8_t, int16_t>(ElementType::kS8, ElementType::kS16, false,
                                    2);
  CheckLongByteDot<uint8_t, int64_t>(ElementType::kU8, ElementType::kS64, true,
                                     2);
}

// Products against a double-precision reference, with each operand in
// either order, on 0 to 3 threads. OpenBLAS sums in an order that depends
// on its thread count, so random values agree within rounding only; small
// integer values (every partial sum exact) agree exactly.
template <typename T>
void CheckFloatProductThreads(ElementType type, int64_t batch, int64_t m,
                              int64_t k, int64_t n, bool lhs_t, bool rhs_t,
                              bool exact) {
  SCOPED_TRACE(std::string(ElementTypeName(type)) + " batch " +
               std::to_string(batch) + (lhs_t ? " lhs^T" : "") +
               (rhs_t ? " rhs^T" : ""));
  uint32_t x = 12345;
  auto next = [&] {
    x = x * 1664525u + 1013904223u;
    if (exact) return static_cast<T>(static_cast<int32_t>(x >> 28) - 8);
    return static_cast<T>(static_cast<int32_t>(x >> 8) - (1 << 23)) /
           static_cast<T>(1 << 23);
  };
  std::vector<T> a(static_cast<size_t>(batch * m * k));
  std::vector<T> b(static_cast<size_t>(batch * k * n));
  for (T& e : a) e = next();
  for (T& e : b) e = next();
  // Stored as [batch, m, k] or [batch, k, m]; [batch, k, n] or [batch, n, k].
  auto a_at = [&](int64_t bi, int64_t i, int64_t p) {
    return lhs_t ? (bi * k + p) * m + i : (bi * m + i) * k + p;
  };
  auto b_at = [&](int64_t bi, int64_t p, int64_t j) {
    return rhs_t ? (bi * n + j) * k + p : (bi * k + p) * n + j;
  };
  Shape ls = Shape::Array(type, lhs_t ? std::vector<int64_t>{batch, k, m}
                                      : std::vector<int64_t>{batch, m, k});
  Shape rs = Shape::Array(type, rhs_t ? std::vector<int64_t>{batch, n, k}
                                      : std::vector<int64_t>{batch, k, n});
  OpUnderTest t;
  auto* d = Dot(t, ls, rs, Shape::Array(type, {batch, m, n}),
                {{0}, {0}, {lhs_t ? 1 : 2}, {rhs_t ? 2 : 1}});
  Literal la = Literal::FromVector<T>(ls.dims(), a);
  Literal lb = Literal::FromVector<T>(rs.dims(), b);
  StatusOr<Kernel> kernel = MakeStructuralKernel(*d);
  ASSERT_TRUE(kernel.ok()) << kernel.status().ToString();
  std::vector<double> want;
  for (int64_t bi = 0; bi < batch; ++bi)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p)
          sum += static_cast<double>(a[static_cast<size_t>(a_at(bi, i, p))]) *
                 static_cast<double>(b[static_cast<size_t>(b_at(bi, p, j))]);
        want.push_back(sum);
      }
  for (int threads : {0, 1, 3}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    Literal out =
        testing_util::RunOnThreads(*kernel, {&la, &lb}, d->shape(), threads);
    std::vector<T> got = out.ToVector<T>();
    ASSERT_EQ(got.size(), want.size());
    for (size_t e = 0; e < got.size(); ++e) {
      if (exact)
        ASSERT_EQ(static_cast<double>(got[e]), want[e]) << e;
      else
        ASSERT_NEAR(got[e], want[e], 1e-5 * static_cast<double>(k)) << e;
    }
  }
}

TEST(DotKernel, FloatProductsOnAnyNumberOfThreads) {
  for (bool exact : {false, true})
    for (bool lhs_t : {false, true})
      for (bool rhs_t : {false, true}) {
        CheckFloatProductThreads<float>(ElementType::kF32, 1, 150, 300, 200,
                                        lhs_t, rhs_t, exact);
        CheckFloatProductThreads<double>(ElementType::kF64, 6, 40, 50, 60,
                                         lhs_t, rhs_t, exact);
        // One block of rows (an RNN cell's shape): split by columns, the
        // last block shorter.
        CheckFloatProductThreads<float>(ElementType::kF32, 1, 32, 64, 301,
                                        lhs_t, rhs_t, exact);
      }
  CheckFloatProductThreads<float>(ElementType::kF32, 2, 300, 64, 1100, false,
                                  false, false);
}

// f32 products go through oneDNN when the build has it; OpenBLAS (or Eigen)
// computes them with it switched off, as in a build without it.
TEST(DotKernel, FloatProductsWithoutOneDnn) {
  WithoutOneDnn off;
  for (bool lhs_t : {false, true})
    for (bool rhs_t : {false, true}) {
      CheckFloatProductThreads<float>(ElementType::kF32, 2, 150, 70, 200, lhs_t,
                                      rhs_t, false);
      CheckFloatProductThreads<float>(ElementType::kF32, 1, 32, 64, 301, lhs_t,
                                      rhs_t, true);
    }
}

// Complex products run through Eigen in fixed blocks of result rows and
// columns: the same bits on any number of threads.
TEST(DotKernel, ComplexBlocksAreTheSameOnAnyNumberOfThreads) {
  using C = std::complex<float>;
  const int64_t m = 300, k = 40, n = 1100;
  std::vector<C> a(static_cast<size_t>(m * k)), b(static_cast<size_t>(k * n));
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = C(static_cast<float>(i % 7) * 0.3f, static_cast<float>(i % 5));
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = C(static_cast<float>(i % 3) - 1.1f, static_cast<float>(i % 11));
  Shape ls = Shape::Array(ElementType::kC64, {m, k});
  Shape rs = Shape::Array(ElementType::kC64, {k, n});
  OpUnderTest t;
  auto* d = Dot(t, ls, rs, Shape::Array(ElementType::kC64, {m, n}),
                {{}, {}, {1}, {0}});
  Literal la = Literal::FromVector<C>({m, k}, a);
  Literal lb = Literal::FromVector<C>({k, n}, b);
  StatusOr<Kernel> kernel = MakeStructuralKernel(*d);
  ASSERT_TRUE(kernel.ok()) << kernel.status().ToString();
  std::vector<C> first;
  for (int threads : {0, 1, 3}) {
    Literal out =
        testing_util::RunOnThreads(*kernel, {&la, &lb}, d->shape(), threads);
    std::vector<C> got = out.ToVector<C>();
    if (first.empty()) {
      first = got;
      for (int64_t i = 0; i < m; i += 37)
        for (int64_t j = 0; j < n; j += 91) {
          std::complex<double> want = 0;
          for (int64_t p = 0; p < k; ++p)
            want += std::complex<double>(a[static_cast<size_t>(i * k + p)]) *
                    std::complex<double>(b[static_cast<size_t>(p * n + j)]);
          const C g = got[static_cast<size_t>(i * n + j)];
          EXPECT_NEAR(g.real(), want.real(), 1e-3 * std::abs(want) + 1e-3);
          EXPECT_NEAR(g.imag(), want.imag(), 1e-3 * std::abs(want) + 1e-3);
        }
    } else {
      EXPECT_EQ(got, first) << "threads " << threads;
    }
  }
}

TEST(DotKernel, Complex64) {
  using C = std::complex<float>;
  OpUnderTest t;
  Shape l = Shape::Array(ElementType::kC64, {2, 2});
  Shape r = Shape::Array(ElementType::kC64, {2, 1});
  auto* d = Dot(t, l, r, r, {{}, {}, {1}, {0}});
  Literal a =
      Literal::FromVector<C>({2, 2}, {{1, 2}, {3, -1}, {0, 0.5f}, {2, 0}});
  Literal b = Literal::FromVector<C>({2, 1}, {{2, -1}, {1, 1}});
  EXPECT_EQ(RunOne(*d, {&a, &b}).ToVector<C>(),
            (std::vector<C>{{8, 5}, {2.5f, 3}}));
}

// lax.dot(..., preferred_element_type=float32) of complex operands: XLA
// keeps the real part of the complex product (and f64 of a c128 one).
TEST(DotKernel, ComplexOperandsWithARealResultKeepTheRealPart) {
  using C = std::complex<float>;
  OpUnderTest t;
  Shape l = Shape::Array(ElementType::kC64, {2, 2});
  Shape r = Shape::Array(ElementType::kC64, {2, 1});
  auto* d = Dot(t, l, r, F32({2, 1}), {{}, {}, {1}, {0}});
  Literal a =
      Literal::FromVector<C>({2, 2}, {{1, 2}, {3, -1}, {0, 0.5f}, {2, 0}});
  Literal b = Literal::FromVector<C>({2, 1}, {{2, -1}, {1, 1}});
  // The product of Complex64 above: {8+5i, 2.5+3i}.
  EXPECT_EQ(RunOne(*d, {&a, &b}).ToVector<float>(),
            (std::vector<float>{8, 2.5f}));
  using Z = std::complex<double>;
  Shape l2 = Shape::Array(ElementType::kC128, {1, 2});
  Shape r2 = Shape::Array(ElementType::kC128, {2, 1});
  auto* d2 = Dot(t, l2, r2, Shape::Array(ElementType::kF64, {1, 1}),
                 {{}, {}, {1}, {0}});
  Literal a2 = Literal::FromVector<Z>({1, 2}, {{1, 1e-20}, {0, 3}});
  Literal b2 = Literal::FromVector<Z>({2, 1}, {{1e-20, 1}, {0, 2}});
  // (1 + 1e-20 i)(1e-20 + i) + (3i)(2i) = (1e-20 - 1e-20) - 6 + i.
  EXPECT_EQ(RunOne(*d2, {&a2, &b2}).ToVector<double>(),
            (std::vector<double>{-6}));
}

TEST(DotKernel, RejectsMismatchedContractingSizes) {
  OpUnderTest t;
  auto* d = Dot(t, F32({2, 3}), F32({4, 2}), F32({2, 2}), {{}, {}, {1}, {0}});
  StatusOr<Kernel> k = MakeStructuralKernel(*d);
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().message().find("(dot)"), std::string::npos);
  EXPECT_NE(k.status().message().find("contracting dimension 0"),
            std::string::npos)
      << k.status().message();
}

}  // namespace
}  // namespace xffi::cpu
