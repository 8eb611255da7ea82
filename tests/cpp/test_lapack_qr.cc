// lapack_?geqrf_ffi and lapack_?geqp3_ffi (src/cpu/lapack/qr.cc), with
// lapack_?orgqr/ungqr_ffi building Q: Q R = A (A P for geqp3), Q^H Q = I,
// tall, wide and batched; bad pivots and shapes are errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lapack_test_util.h"

namespace xffi::lapack_test {
namespace {

using ::testing::HasSubstr;

template <typename T>
const char* HouseholderRoutine() {
  return kIsComplex<T> ? "ungqr" : "orgqr";
}

// Runs geqrf on the batch; returns the factors and tau.
template <typename T>
testing::InvokeResult Geqrf(std::vector<T>& x, std::vector<T>& out,
                            std::vector<T>& tau, int64_t batch, int64_t m,
                            int64_t n) {
  tau.assign(batch * std::min(m, n), T(0));
  auto frame = testing::CallFrameBuilder()
                   .Arg(x.data(), {batch, m, n})
                   .Ret(out.data(), {batch, m, n})
                   .Ret(tau.data(), {batch, std::min(m, n)})
                   .Build();
  return CallTarget(TargetName<T>("geqrf"), frame);
}

// Q's first `cols` columns from the reflectors in `factors` (m x cols,
// the first k columns holding reflectors).
template <typename T>
testing::InvokeResult Orgqr(std::vector<T>& factors, std::vector<T>& tau,
                            std::vector<T>& q, int64_t batch, int64_t m,
                            int64_t cols, int64_t k) {
  q.assign(batch * m * cols, T(0));
  auto frame = testing::CallFrameBuilder()
                   .Arg(factors.data(), {batch, m, cols})
                   .Arg(tau.data(), {batch, k})
                   .Ret(q.data(), {batch, m, cols})
                   .Build();
  return CallTarget(TargetName<T>(HouseholderRoutine<T>()), frame);
}

template <typename T>
Matrix<T> UpperPart(const Matrix<T>& f, int64_t rows) {
  Matrix<T> r(rows, f.cols);
  for (int64_t j = 0; j < f.cols; ++j)
    for (int64_t i = 0; i <= std::min(j, rows - 1); ++i) r(i, j) = f(i, j);
  return r;
}

template <typename T>
class QrTest : public ::testing::Test {};
TYPED_TEST_SUITE(QrTest, ElementTypes);

TYPED_TEST(QrTest, ReducedQrOfTallAndWideBatches) {
  using T = TypeParam;
  for (auto [m, n] : {std::pair<int64_t, int64_t>{5, 3}, {3, 5}, {4, 4}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
    const int64_t batch = 2, k = std::min(m, n);
    std::vector<Matrix<T>> as = {Random<T>(m, n, 1), Random<T>(m, n, 2)};
    std::vector<T> x = Stack(as), factors(x.size()), tau;
    auto qr = Geqrf(x, factors, tau, batch, m, n);
    ASSERT_TRUE(qr.ok()) << qr.message();
    // Q (m x k) from the first k columns of the factors.
    std::vector<T> first_k;
    for (int64_t i = 0; i < batch; ++i) {
      Matrix<T> f = Matrix<T>::From(factors.data() + i * m * n, m, n);
      first_k.insert(first_k.end(), f.data.begin(), f.data.begin() + m * k);
    }
    std::vector<T> q;
    auto built = Orgqr(first_k, tau, q, batch, m, k, k);
    ASSERT_TRUE(built.ok()) << built.message();
    for (int64_t i = 0; i < batch; ++i) {
      Matrix<T> qi = Matrix<T>::From(q.data() + i * m * k, m, k);
      Matrix<T> r =
          UpperPart(Matrix<T>::From(factors.data() + i * m * n, m, n), k);
      EXPECT_LT(RelativeError(Multiply(qi, r), as[i]), Tolerance<T>());
      EXPECT_LT(RelativeError(Multiply(Adjoint(qi), qi), Identity<T>(k)),
                Tolerance<T>());
    }
  }
}

TYPED_TEST(QrTest, CompleteQIsSquareAndOrthonormal) {
  // jnp.linalg.qr(mode='complete') pads the factors to m x m first.
  using T = TypeParam;
  const int64_t m = 5, n = 2;
  Matrix<T> a = Random<T>(m, n, 9);
  std::vector<T> x = a.data, factors(x.size()), tau;
  ASSERT_TRUE(Geqrf(x, factors, tau, 1, m, n).ok());
  std::vector<T> padded(m * m, T(0));
  std::copy(factors.begin(), factors.end(), padded.begin());
  std::vector<T> q;
  auto built = Orgqr(padded, tau, q, 1, m, m, n);
  ASSERT_TRUE(built.ok()) << built.message();
  Matrix<T> qm = Matrix<T>::From(q.data(), m, m);
  EXPECT_LT(RelativeError(Multiply(Adjoint(qm), qm), Identity<T>(m)),
            Tolerance<T>());
  Matrix<T> r = UpperPart(Matrix<T>::From(factors.data(), m, n), m);
  EXPECT_LT(RelativeError(Multiply(qm, r), a), Tolerance<T>());
}

TYPED_TEST(QrTest, PivotedQrOrdersColumnsByNorm) {
  using T = TypeParam;
  const int64_t m = 5, n = 4, batch = 2, k = std::min(m, n);
  std::vector<Matrix<T>> as = {Random<T>(m, n, 3), Random<T>(m, n, 4)};
  // Make one column dominant: it must be chosen first.
  for (int64_t i = 0; i < m; ++i) as[0](i, 2) *= T(10);
  std::vector<T> x = Stack(as), factors(x.size()), tau(batch * k);
  std::vector<int32_t> jpvt(batch * n, 0), jpvt_out(batch * n);
  auto frame = testing::CallFrameBuilder()
                   .Arg(x.data(), {batch, m, n})
                   .Arg(jpvt.data(), {batch, n})
                   .Ret(factors.data(), {batch, m, n})
                   .Ret(jpvt_out.data(), {batch, n})
                   .Ret(tau.data(), {batch, k})
                   .Build();
  auto result = CallTarget(TargetName<T>("geqp3"), frame);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(jpvt_out[0], 3);  // 1-based, as LAPACK returns it
  std::vector<T> q;
  ASSERT_TRUE(Orgqr(factors, tau, q, batch, m, n, k).ok());
  for (int64_t i = 0; i < batch; ++i) {
    Matrix<T> permuted(m, n);
    std::vector<bool> seen(n, false);
    for (int64_t j = 0; j < n; ++j) {
      int32_t p = jpvt_out[i * n + j] - 1;
      ASSERT_GE(p, 0);
      ASSERT_LT(p, n);
      seen[p] = true;
      for (int64_t r = 0; r < m; ++r) permuted(r, j) = as[i](r, p);
    }
    EXPECT_EQ(std::count(seen.begin(), seen.end(), true), n);
    Matrix<T> f = Matrix<T>::From(factors.data() + i * m * n, m, n);
    Matrix<T> qi = Matrix<T>::From(q.data() + i * m * n, m, n);
    EXPECT_LT(RelativeError(Multiply(qi, UpperPart(f, n)), permuted),
              Tolerance<T>());
    for (int64_t j = 1; j < k; ++j)
      EXPECT_GE(std::abs(f(j - 1, j - 1)) * (1 + 1e-5), std::abs(f(j, j)));
  }
}

TEST(QrErrors, PivotsOutsideTheColumnsAreRefused) {
  std::vector<double> x(6, 1.0), out(6), tau(2);
  std::vector<int32_t> jpvt = {0, 7, 0}, jpvt_out(3);
  auto frame = testing::CallFrameBuilder()
                   .Arg(x.data(), {2, 3})
                   .Arg(jpvt.data(), {3})
                   .Ret(out.data(), {2, 3})
                   .Ret(jpvt_out.data(), {3})
                   .Ret(tau.data(), {2})
                   .Build();
  auto result = CallTarget("lapack_dgeqp3_ffi", frame);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(result.message(),
              HasSubstr("lapack_dgeqp3_ffi: argument 1 (jpvt) holds 7"));
}

TEST(QrErrors, TauOfTheWrongLengthIsRefused) {
  std::vector<float> x(6, 1.0f), out(6), tau(3);
  auto frame = testing::CallFrameBuilder()
                   .Arg(x.data(), {2, 3})
                   .Ret(out.data(), {2, 3})
                   .Ret(tau.data(), {3})
                   .Build();
  auto result = CallTarget("lapack_sgeqrf_ffi", frame);
  EXPECT_THAT(result.message(),
              HasSubstr("result 1 (tau) has shape [3]; expected [2]"));
}

}  // namespace
}  // namespace xffi::lapack_test
