// lapack_?gehrd_ffi (src/cpu/lapack/hessenberg.cc): Q^H A Q = H, upper
// Hessenberg, with Q rebuilt from the reflectors gehrd leaves in A and tau
// (as LAPACK documents them); a bad low/high range is an error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lapack_test_util.h"

namespace xffi::lapack_test {
namespace {

using ::testing::HasSubstr;

template <typename T>
class HessenbergTest : public ::testing::Test {};
TYPED_TEST_SUITE(HessenbergTest, ElementTypes);

TYPED_TEST(HessenbergTest, HessenbergOfABatch) {
  using T = TypeParam;
  const int64_t n = 5, batch = 2;
  std::vector<Matrix<T>> as = {Random<T>(n, n, 41), Random<T>(n, n, 42)};
  std::vector<T> x = Stack(as), out(x.size()), tau(batch * (n - 1));
  std::vector<int32_t> info(batch, -100);
  auto frame = testing::CallFrameBuilder()
                   .Arg(x.data(), {batch, n, n})
                   .Ret(out.data(), {batch, n, n})
                   .Ret(tau.data(), {batch, n - 1})
                   .Ret(info.data(), {batch})
                   .Attr("low", int32_t{1})
                   .Attr("high", static_cast<int32_t>(n))
                   .Build();
  auto result = CallTarget(TargetName<T>("gehrd"), frame);
  ASSERT_TRUE(result.ok()) << result.message();
  for (int64_t b = 0; b < batch; ++b) {
    EXPECT_EQ(info[b], 0);
    Matrix<T> packed = Matrix<T>::From(out.data() + b * n * n, n, n);
    Matrix<T> h(n, n);
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i <= std::min(j + 1, n - 1); ++i)
        h(i, j) = packed(i, j);
    Matrix<T> q = QFromLowerReflectors(packed, tau.data() + b * (n - 1));
    EXPECT_LT(RelativeError(Multiply(as[b], q), Multiply(q, h)),
              Tolerance<T>() * 10);
    EXPECT_LT(RelativeError(Multiply(Adjoint(q), q), Identity<T>(n)),
              Tolerance<T>());
  }
}

TEST(HessenbergErrors, HessenbergRangeMustLieInTheMatrix) {
  std::vector<float> x(9, 1.0f), out(9), tau(2);
  std::vector<int32_t> info(1);
  auto frame = testing::CallFrameBuilder()
                   .Arg(x.data(), {3, 3})
                   .Ret(out.data(), {3, 3})
                   .Ret(tau.data(), {2})
                   .Ret(info.data(), {})
                   .Attr("low", int32_t{2})
                   .Attr("high", int32_t{4})
                   .Build();
  auto result = CallTarget("lapack_sgehrd_ffi", frame);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(result.message(),
              HasSubstr("attributes low=2 and high=4 must satisfy 1 <= low "
                        "<= high <= n (n = 3)"));
}

}  // namespace
}  // namespace xffi::lapack_test
