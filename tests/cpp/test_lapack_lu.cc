// lapack_?getrf_ffi (src/cpu/lapack/lu.cc): P A = L U for square and
// rectangular batches, a singular matrix reported through info, shape and
// dtype errors, and concurrent calls (handlers are re-entrant).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "lapack_test_util.h"

namespace xffi::lapack_test {
namespace {

using ::testing::HasSubstr;

// P A rebuilt from LAPACK's 1-based row interchanges.
template <typename T>
Matrix<T> Permute(Matrix<T> a, const int32_t* ipiv, int64_t k) {
  for (int64_t i = 0; i < k; ++i) {
    int64_t p = ipiv[i] - 1;
    for (int64_t j = 0; j < a.cols; ++j) std::swap(a(i, j), a(p, j));
  }
  return a;
}

// L (unit lower, m x k) times U (upper, k x n) from the packed factors.
template <typename T>
Matrix<T> Rebuild(const Matrix<T>& lu) {
  const int64_t m = lu.rows, n = lu.cols, k = std::min(m, n);
  Matrix<T> l(m, k), u(k, n);
  for (int64_t j = 0; j < k; ++j) {
    l(j, j) = T(1);
    for (int64_t i = j + 1; i < m; ++i) l(i, j) = lu(i, j);
  }
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i <= std::min(j, k - 1); ++i) u(i, j) = lu(i, j);
  return Multiply(l, u);
}

struct LuResult {
  std::vector<int32_t> ipiv, info;
  testing::InvokeResult status{Status::Ok(), nullptr};
};

template <typename T>
LuResult RunLu(std::vector<T>& x, std::vector<T>& out,
               std::vector<int64_t> dims) {
  const int64_t m = dims[dims.size() - 2], n = dims.back();
  int64_t batch = 1;
  std::vector<int64_t> batch_dims(dims.begin(), dims.end() - 2);
  for (int64_t d : batch_dims) batch *= d;
  LuResult r;
  r.ipiv.resize(batch * std::min(m, n));
  r.info.resize(batch, -100);
  std::vector<int64_t> ipiv_dims = batch_dims, info_dims = batch_dims;
  ipiv_dims.push_back(std::min(m, n));
  auto frame = testing::CallFrameBuilder()
                   .Arg(x.data(), dims)
                   .Ret(out.data(), dims)
                   .Ret(r.ipiv.data(), ipiv_dims)
                   .Ret(r.info.data(), info_dims)
                   .Build();
  r.status = CallTarget(TargetName<T>("getrf"), frame);
  return r;
}

template <typename T>
class LuTest : public ::testing::Test {};
TYPED_TEST_SUITE(LuTest, ElementTypes);

TYPED_TEST(LuTest, FactorsSquareAndRectangularBatches) {
  using T = TypeParam;
  for (auto [m, n] : {std::pair<int64_t, int64_t>{4, 4}, {5, 3}, {3, 5}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
    const int64_t batch = 3, k = std::min(m, n);
    std::vector<Matrix<T>> as;
    for (unsigned i = 0; i < batch; ++i) as.push_back(Random<T>(m, n, 7 + i));
    std::vector<T> x = Stack(as), out(x.size());
    LuResult r = RunLu(x, out, {batch, m, n});
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    for (int64_t i = 0; i < batch; ++i) {
      EXPECT_EQ(r.info[i], 0);
      for (int64_t p = 0; p < k; ++p) {
        EXPECT_GE(r.ipiv[i * k + p], p + 1);
        EXPECT_LE(r.ipiv[i * k + p], m);
      }
      Matrix<T> lu = Matrix<T>::From(out.data() + i * m * n, m, n);
      EXPECT_LT(
          RelativeError(Rebuild(lu), Permute(as[i], r.ipiv.data() + i * k, k)),
          Tolerance<T>());
    }
  }
}

TYPED_TEST(LuTest, SingularMatrixReportsTheZeroPivotInInfo) {
  using T = TypeParam;
  // Column 3 (1-based) is zero: elimination keeps it exactly zero, so
  // U(3,3) is an exact zero and LAPACK names it; the factors are complete.
  Matrix<T> a = Random<T>(4, 4, 3);
  for (int64_t i = 0; i < 4; ++i) a(i, 2) = T(0);
  Matrix<T> zero(4, 4);
  std::vector<T> x = Stack<T>({a, zero}), out(x.size());
  LuResult r = RunLu(x, out, {2, 4, 4});
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.info[0], 3);
  EXPECT_EQ(r.info[1], 1);
  Matrix<T> lu = Matrix<T>::From(out.data(), 4, 4);
  EXPECT_LT(RelativeError(Rebuild(lu), Permute(a, r.ipiv.data(), 4)),
            Tolerance<T>());
}

TEST(LuErrors, ShapesAndDtypesAreChecked) {
  std::vector<float> x(12, 1.0f), out(12);
  std::vector<int32_t> ipiv(3), info(1);
  auto wrong_pivots = testing::CallFrameBuilder()
                          .Arg(x.data(), {3, 4})
                          .Ret(out.data(), {3, 4})
                          .Ret(ipiv.data(), {4})
                          .Ret(info.data(), {})
                          .Build();
  auto result = CallTarget("lapack_sgetrf_ffi", wrong_pivots);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(result.message(),
              HasSubstr("lapack_sgetrf_ffi: result 1 (ipiv) has shape [4]; "
                        "expected [3]"));

  auto vector = testing::CallFrameBuilder()
                    .Arg(x.data(), {12})
                    .Ret(out.data(), {12})
                    .Ret(ipiv.data(), {3})
                    .Ret(info.data(), {})
                    .Build();
  EXPECT_THAT(CallTarget("lapack_sgetrf_ffi", vector).message(),
              HasSubstr("argument 0 (x) must be a matrix or a batch of "
                        "matrices (rank >= 2), got shape [12]"));

  std::vector<int64_t> info64(1);
  auto wrong_info = testing::CallFrameBuilder()
                        .Arg(x.data(), {3, 4})
                        .Ret(out.data(), {3, 4})
                        .Ret(ipiv.data(), {3})
                        .Ret(info64.data(), {})
                        .Build();
  auto decoded = CallTarget("lapack_sgetrf_ffi", wrong_info);
  EXPECT_FALSE(decoded.ok());
  EXPECT_THAT(decoded.message(), HasSubstr("result 2"));
}

TEST(LuErrors, MatricesBeyondLapacksIntegersAreRefused) {
  // The shape alone is read before any data: one float stands in for it.
  std::vector<float> x(1), out(1);
  std::vector<int32_t> ipiv(1), info(1);
  const int64_t huge = int64_t{1} << 31;
  auto frame = testing::CallFrameBuilder()
                   .Arg(x.data(), {huge, 1})
                   .Ret(out.data(), {huge, 1})
                   .Ret(ipiv.data(), {1})
                   .Ret(info.data(), {})
                   .Build();
  auto result = CallTarget("lapack_sgetrf_ffi", frame);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(result.message(), HasSubstr("32-bit integers"));
}

TEST(Lu, ConcurrentCallsEachGetTheirOwnAnswer) {
  // Workspaces are per call: threads factoring different matrices at once
  // must each see their own factors.
  constexpr int kThreads = 4;
  const int64_t n = 24;
  std::vector<std::thread> threads;
  std::vector<double> errors(kThreads, INFINITY);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, n, &errors] {
      double worst = 0;
      for (int round = 0; round < 20; ++round) {
        Matrix<double> a = Random<double>(n, n, 100 * t + round);
        std::vector<double> x = a.data, out(x.size());
        LuResult r = RunLu(x, out, {n, n});
        if (!r.status.ok() || r.info[0] != 0) {
          worst = INFINITY;
          break;
        }
        Matrix<double> lu = Matrix<double>::From(out.data(), n, n);
        worst = std::max(
            worst, RelativeError(Rebuild(lu), Permute(a, r.ipiv.data(), n)));
      }
      errors[t] = worst;
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t)
    EXPECT_LT(errors[t], Tolerance<double>()) << "thread " << t;
}

}  // namespace
}  // namespace xffi::lapack_test
