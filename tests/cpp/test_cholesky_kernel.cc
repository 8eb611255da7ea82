// cholesky's CPU kernel: factors that multiply back to the matrix, read from
// the triangle `lower` names only, with the other triangle zero, and NaN for
// a matrix that is not positive definite, as XLA:CPU returns (XLA's own
// values are compared in tests/python/test_linalg_ops.py).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <vector>

#include "cpu/structural_kernels.h"
#include "kernel_test_util.h"
#include "linear_algebra_test_util.h"

namespace xffi::cpu {
namespace {

using namespace testing_util;  // NOLINT: the helpers of this test family

// A batch of Hermitian positive definite matrices M M^H + n I, with
// garbage (a large constant) in the triangle the op must not read.
template <typename T>
std::vector<T> PositiveDefinite(int64_t batch, int64_t n, bool lower,
                                std::vector<Complex>* exact) {
  std::vector<T> m = RandomValues<T>(static_cast<size_t>(batch * n * n), 7);
  std::vector<T> out(m.size());
  exact->assign(m.size(), 0);
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<Complex> mb(static_cast<size_t>(n * n));
    for (int64_t i = 0; i < n * n; ++i)
      mb[static_cast<size_t>(i)] =
          ToComplex(m[static_cast<size_t>(b * n * n + i)]);
    std::vector<Complex> a = Multiply(mb, Adjoint(mb, n, n), n, n, n);
    for (int64_t i = 0; i < n; ++i) {
      a[static_cast<size_t>(i * n + i)] += static_cast<double>(n);
      // Exactly Hermitian after rounding to T: a real diagonal.
      a[static_cast<size_t>(i * n + i)].imag(0);
    }
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const size_t at = static_cast<size_t>(b * n * n + i * n + j);
        const Complex v = ToComplex(FromComplex<T>(
            a[static_cast<size_t>(lower ? (j <= i ? i * n + j : j * n + i)
                                        : (j >= i ? i * n + j : j * n + i))]));
        (*exact)[at] = i == j ? Complex(v.real(), 0)
                              : ((lower ? j < i : j > i) ? v : std::conj(v));
        const bool referenced = lower ? j <= i : j >= i;
        out[at] = referenced ? FromComplex<T>((*exact)[at])
                             : FromComplex<T>(Complex(1e3, 0));
      }
  }
  return out;
}

template <typename T>
Literal RunCholesky(const std::vector<T>& a, std::vector<int64_t> dims,
                    bool lower) {
  OpUnderTest t;
  Shape shape = Shape::Array(TypeOf<T>(), dims);
  Instruction* op = t.Op(Opcode::kCholesky, shape, {t.Param(shape)});
  op->lower = lower;
  Literal in = Literal::FromVector<T>(dims, a);
  return RunOne(*op, {&in});
}

template <typename T>
void CheckFactors(bool lower) {
  const int64_t batch = 3, n = 5;
  std::vector<Complex> exact;
  std::vector<T> a = PositiveDefinite<T>(batch, n, lower, &exact);
  std::vector<T> f =
      RunCholesky<T>(a, {batch, n, n}, lower).template ToVector<T>();
  ASSERT_EQ(f.size(), a.size());
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<Complex> factor(static_cast<size_t>(n * n));
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const Complex v =
            ToComplex(f[static_cast<size_t>(b * n * n + i * n + j)]);
        factor[static_cast<size_t>(i * n + j)] = v;
        if (lower ? j > i : j < i) {
          EXPECT_EQ(v, Complex(0)) << i << "," << j;
        }
        if (i == j) {
          EXPECT_GT(v.real(), 0);
          EXPECT_EQ(v.imag(), 0);
        }
      }
    // lower: L L^H; upper: U^H U.
    std::vector<Complex> product =
        lower ? Multiply(factor, Adjoint(factor, n, n), n, n, n)
              : Multiply(Adjoint(factor, n, n), factor, n, n, n);
    for (int64_t i = 0; i < n * n; ++i)
      EXPECT_LT(std::abs(product[static_cast<size_t>(i)] -
                         exact[static_cast<size_t>(b * n * n + i)]),
                Tolerance<T>(n) * static_cast<double>(n))
          << "batch " << b << " element " << i;
  }
}

TEST(CholeskyKernel, LowerFactorsEveryType) {
  CheckFactors<float>(true);
  CheckFactors<double>(true);
  CheckFactors<std::complex<float>>(true);
  CheckFactors<std::complex<double>>(true);
}

TEST(CholeskyKernel, UpperFactorsEveryType) {
  CheckFactors<float>(false);
  CheckFactors<double>(false);
  CheckFactors<std::complex<float>>(false);
  CheckFactors<std::complex<double>>(false);
}

TEST(CholeskyKernel, NotPositiveDefiniteIsNaNForThatMatrixOnly) {
  // Matrix 0 is positive definite; matrix 1 fails at its second minor.
  std::vector<double> a = {4, 0, 2, 5, /**/ 1, 0, 2, 1};
  std::vector<double> f =
      RunCholesky<double>(a, {2, 2, 2}, true).ToVector<double>();
  EXPECT_EQ(f[0], 2);
  EXPECT_EQ(f[1], 0);
  EXPECT_EQ(f[2], 1);
  EXPECT_EQ(f[3], 2);
  for (int i = 4; i < 8; ++i)
    EXPECT_TRUE(std::isnan(f[static_cast<size_t>(i)])) << i;
}

TEST(CholeskyKernel, EmptyMatricesAndBatches) {
  EXPECT_TRUE(
      RunCholesky<float>({}, {0, 3, 3}, true).ToVector<float>().empty());
  EXPECT_TRUE(
      RunCholesky<float>({}, {2, 0, 0}, false).ToVector<float>().empty());
}

TEST(CholeskyKernel, HalfPrecisionComputesInF32AndRoundsOnce) {
  // Two positive definite matrices and one that is not (NaN throughout).
  const std::vector<float> a = {4, 0.5, 0.25, 0.5, 3, 0.125, 0.25, 0.125, 2,
                                9, 1,   2,    1,   5, 0.5,   2,    0.5,   7,
                                1, 2,   0,    2,   1, 0,     0,    0,     1};
  for (ElementType type : {ElementType::kF16, ElementType::kBF16})
    for (bool lower : {true, false})
      ExpectNarrowIsRoundedF32(
          type, {{3, 3, 3}}, {a}, [&](OpUnderTest& t, ElementType e) {
            Shape shape = Shape::Array(e, {3, 3, 3});
            Instruction* op = t.Op(Opcode::kCholesky, shape, {t.Param(shape)});
            op->lower = lower;
            return op;
          });
}

TEST(CholeskyKernel, EightBitFloatIsUnimplementedNamingTheType) {
  OpUnderTest t;
  Shape shape = Shape::Array(ElementType::kF8E4M3FN, {2, 2});
  Instruction* op = t.Op(Opcode::kCholesky, shape, {t.Param(shape)});
  StatusOr<Kernel> kernel = MakeStructuralKernel(*op);
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(kernel.status().ToString().find("cholesky of f8e4m3fn"),
            std::string::npos)
      << kernel.status().ToString();
}

}  // namespace
}  // namespace xffi::cpu
