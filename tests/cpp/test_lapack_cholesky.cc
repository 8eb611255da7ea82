// lapack_?potrf_ffi (src/cpu/lapack/cholesky.cc): L L^H = A (lower) and
// U^H U = A (upper) on a batch, reading only the uplo triangle; a matrix
// that is not positive definite reports the failing minor through info.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lapack_test_util.h"

namespace xffi::lapack_test {
namespace {

using ::testing::HasSubstr;

template <typename T>
class CholeskyTest : public ::testing::Test {};
TYPED_TEST_SUITE(CholeskyTest, ElementTypes);

template <typename T>
testing::InvokeResult Potrf(std::vector<T>& x, std::vector<T>& out,
                            std::vector<int32_t>& info, int64_t batch,
                            int64_t n, char uplo) {
  info.assign(batch, -100);
  auto frame = testing::CallFrameBuilder()
                   .Arg(x.data(), {batch, n, n})
                   .Ret(out.data(), {batch, n, n})
                   .Ret(info.data(), {batch})
                   .Attr("uplo", Code(uplo))
                   .Build();
  return CallTarget(TargetName<T>("potrf"), frame);
}

TYPED_TEST(CholeskyTest, FactorsBothTrianglesOfABatch) {
  using T = TypeParam;
  const int64_t n = 5, batch = 2;
  for (char uplo : {'L', 'U'}) {
    SCOPED_TRACE(std::string("uplo ") + uplo);
    std::vector<Matrix<T>> as = {PositiveDefinite<T>(n, 1),
                                 PositiveDefinite<T>(n, 2)};
    std::vector<Matrix<T>> given = as;
    // The other triangle must not be read: fill it with nonsense.
    for (Matrix<T>& a : given)
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i)
          if (uplo == 'L' ? i < j : i > j) a(i, j) = T(1e3);
    std::vector<T> x = Stack(given), out(x.size());
    std::vector<int32_t> info;
    auto result = Potrf(x, out, info, batch, n, uplo);
    ASSERT_TRUE(result.ok()) << result.message();
    for (int64_t b = 0; b < batch; ++b) {
      EXPECT_EQ(info[b], 0);
      Matrix<T> f = Matrix<T>::From(out.data() + b * n * n, n, n);
      Matrix<T> tri(n, n);
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i)
          if (uplo == 'L' ? i >= j : i <= j) tri(i, j) = f(i, j);
      Matrix<T> back = uplo == 'L' ? Multiply(tri, Adjoint(tri))
                                   : Multiply(Adjoint(tri), tri);
      EXPECT_LT(RelativeError(back, as[b]), Tolerance<T>());
      // The untouched triangle is returned as given.
      EXPECT_EQ(f(uplo == 'L' ? 0 : 1, uplo == 'L' ? 1 : 0), T(1e3));
    }
  }
}

TYPED_TEST(CholeskyTest, NotPositiveDefiniteReportsTheMinorInInfo) {
  using T = TypeParam;
  const int64_t n = 4;
  Matrix<T> good = PositiveDefinite<T>(n, 3);
  Matrix<T> bad = good;
  bad(2, 2) = T(-100);  // the leading minor of order 3 is indefinite
  std::vector<T> x = Stack<T>({good, bad}), out(x.size());
  std::vector<int32_t> info;
  auto result = Potrf(x, out, info, 2, n, 'L');
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(info[0], 0);
  EXPECT_EQ(info[1], 3);
}

TEST(CholeskyErrors, NonSquareAndBadUploAreRefused) {
  std::vector<float> x(6, 1.0f), out(6);
  std::vector<int32_t> info(1);
  auto non_square = testing::CallFrameBuilder()
                        .Arg(x.data(), {2, 3})
                        .Ret(out.data(), {2, 3})
                        .Ret(info.data(), {})
                        .Attr("uplo", Code('L'))
                        .Build();
  EXPECT_THAT(CallTarget("lapack_spotrf_ffi", non_square).message(),
              HasSubstr("argument 0 (x) has shape [2,3]; expected [2,2]"));
  auto bad_uplo = testing::CallFrameBuilder()
                      .Arg(x.data(), {2, 2})
                      .Ret(out.data(), {2, 2})
                      .Ret(info.data(), {})
                      .Attr("uplo", Code('X'))
                      .Build();
  EXPECT_THAT(CallTarget("lapack_spotrf_ffi", bad_uplo).message(),
              HasSubstr("attribute 'uplo' is 88; expected 'L' (76) or 'U' "
                        "(85)"));
}

}  // namespace
}  // namespace xffi::lapack_test
