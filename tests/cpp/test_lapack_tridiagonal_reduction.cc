// lapack_{s,d}sytrd_ffi / lapack_{c,z}hetrd_ffi
// (src/cpu/lapack/tridiagonal_reduction.cc): Q^H A Q = T, real tridiagonal
// (the diagonal and off-diagonal results), from either triangle, Q rebuilt
// from the reflectors left in A and tau (as LAPACK documents them).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lapack_test_util.h"

namespace xffi::lapack_test {
namespace {

using ::testing::HasSubstr;

template <typename T>
class TridiagonalReductionTest : public ::testing::Test {};
TYPED_TEST_SUITE(TridiagonalReductionTest, ElementTypes);

TYPED_TEST(TridiagonalReductionTest, TridiagonalFromEitherTriangle) {
  using T = TypeParam;
  const int64_t n = 5, batch = 2;
  std::vector<Matrix<T>> as = {Hermitian<T>(n, 43), Hermitian<T>(n, 44)};
  for (char uplo : {'L', 'U'}) {
    SCOPED_TRACE(std::string("uplo ") + uplo);
    std::vector<T> x = Stack(as), out(x.size()), tau(batch * (n - 1));
    std::vector<Real<T>> d(batch * n), e(batch * (n - 1));
    std::vector<int32_t> info(batch, -100);
    auto frame = testing::CallFrameBuilder()
                     .Arg(x.data(), {batch, n, n})
                     .Ret(out.data(), {batch, n, n})
                     .Ret(d.data(), {batch, n})
                     .Ret(e.data(), {batch, n - 1})
                     .Ret(tau.data(), {batch, n - 1})
                     .Ret(info.data(), {batch})
                     .Attr("uplo", Code(uplo))
                     .Build();
    auto result =
        CallTarget(TargetName<T>(kIsComplex<T> ? "hetrd" : "sytrd"), frame);
    ASSERT_TRUE(result.ok()) << result.message();
    for (int64_t b = 0; b < batch; ++b) {
      EXPECT_EQ(info[b], 0);
      Matrix<T> packed = Matrix<T>::From(out.data() + b * n * n, n, n);
      const T* taus = tau.data() + b * (n - 1);
      Matrix<T> q = uplo == 'L' ? QFromLowerReflectors(packed, taus)
                                : QFromUpperReflectors(packed, taus);
      Matrix<T> t(n, n);
      for (int64_t i = 0; i < n; ++i) t(i, i) = T(d[b * n + i]);
      for (int64_t i = 0; i + 1 < n; ++i)
        t(i + 1, i) = t(i, i + 1) = T(e[b * (n - 1) + i]);
      EXPECT_LT(RelativeError(Multiply(Multiply(Adjoint(q), as[b]), q), t),
                Tolerance<T>() * 10);
    }
  }
}

TEST(TridiagonalReductionErrors, TridiagonalOffDiagonalLength) {
  std::vector<double> x(9, 1.0), out(9), d(3), e(3), tau(2);
  std::vector<int32_t> info(1);
  auto frame = testing::CallFrameBuilder()
                   .Arg(x.data(), {3, 3})
                   .Ret(out.data(), {3, 3})
                   .Ret(d.data(), {3})
                   .Ret(e.data(), {3})
                   .Ret(tau.data(), {2})
                   .Ret(info.data(), {})
                   .Attr("uplo", Code('L'))
                   .Build();
  EXPECT_THAT(CallTarget("lapack_dsytrd_ffi", frame).message(),
              HasSubstr("result 2 (off-diagonal) has shape [3]; expected "
                        "[2]"));
}

}  // namespace
}  // namespace xffi::lapack_test
