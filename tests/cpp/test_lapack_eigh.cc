// lapack_{s,d}syevd_ffi / lapack_{c,z}heevd_ffi (src/cpu/lapack/eigh.cc):
// A V = V diag(w) with orthonormal V and ascending w, from either triangle;
// mode 'N' gives the same eigenvalues; bad attributes are errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lapack_test_util.h"

namespace xffi::lapack_test {
namespace {

using ::testing::HasSubstr;

template <typename T>
std::string EighName() {
  return TargetName<T>(kIsComplex<T> ? "heevd" : "syevd");
}

template <typename T>
struct EighOutputs {
  std::vector<T> vectors;
  std::vector<Real<T>> values;
  std::vector<int32_t> info;
  testing::InvokeResult status{Status::Ok(), nullptr};
};

template <typename T>
EighOutputs<T> RunEigh(std::vector<T> x, int64_t batch, int64_t n, char uplo,
                       char mode) {
  EighOutputs<T> o;
  o.vectors.resize(x.size());
  o.values.resize(batch * n);
  o.info.assign(batch, -100);
  auto frame = testing::CallFrameBuilder()
                   .Arg(x.data(), {batch, n, n})
                   .Ret(o.vectors.data(), {batch, n, n})
                   .Ret(o.values.data(), {batch, n})
                   .Ret(o.info.data(), {batch})
                   .Attr("uplo", Code(uplo))
                   .Attr("mode", Code(mode))
                   .Build();
  o.status = CallTarget(EighName<T>(), frame);
  return o;
}

template <typename T>
class EighTest : public ::testing::Test {};
TYPED_TEST_SUITE(EighTest, ElementTypes);

TYPED_TEST(EighTest, DecomposesFromEitherTriangle) {
  using T = TypeParam;
  const int64_t n = 6, batch = 2;
  std::vector<Matrix<T>> as = {Hermitian<T>(n, 1), Hermitian<T>(n, 2)};
  for (char uplo : {'L', 'U'}) {
    SCOPED_TRACE(std::string("uplo ") + uplo);
    std::vector<Matrix<T>> given = as;
    for (Matrix<T>& a : given)
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i)
          if (uplo == 'L' ? i < j : i > j) a(i, j) = T(77);
    EighOutputs<T> o = RunEigh(Stack(given), batch, n, uplo, 'V');
    ASSERT_TRUE(o.status.ok()) << o.status.message();
    EighOutputs<T> values_only = RunEigh(Stack(given), batch, n, uplo, 'N');
    ASSERT_TRUE(values_only.status.ok()) << values_only.status.message();
    for (int64_t b = 0; b < batch; ++b) {
      EXPECT_EQ(o.info[b], 0);
      EXPECT_EQ(values_only.info[b], 0);
      const Real<T>* w = o.values.data() + b * n;
      for (int64_t i = 1; i < n; ++i) EXPECT_LE(w[i - 1], w[i]);
      for (int64_t i = 0; i < n; ++i)
        EXPECT_NEAR(values_only.values[b * n + i], w[i], Tolerance<T>() * 4);
      Matrix<T> v = Matrix<T>::From(o.vectors.data() + b * n * n, n, n);
      Matrix<T> vw(n, n);
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) vw(i, j) = v(i, j) * T(w[j]);
      EXPECT_LT(RelativeError(Multiply(as[b], v), vw), Tolerance<T>());
      EXPECT_LT(RelativeError(Multiply(Adjoint(v), v), Identity<T>(n)),
                Tolerance<T>());
    }
  }
}

TEST(EighErrors, BadModeAndShapesAreRefused) {
  std::vector<double> x(4, 1.0), out(4), w(2);
  std::vector<int32_t> info(1);
  auto bad_mode = testing::CallFrameBuilder()
                      .Arg(x.data(), {2, 2})
                      .Ret(out.data(), {2, 2})
                      .Ret(w.data(), {2})
                      .Ret(info.data(), {})
                      .Attr("uplo", Code('L'))
                      .Attr("mode", Code('Q'))
                      .Build();
  EXPECT_THAT(CallTarget("lapack_dsyevd_ffi", bad_mode).message(),
              HasSubstr("lapack_dsyevd_ffi: attribute 'mode' is 81"));
  auto short_w = testing::CallFrameBuilder()
                     .Arg(x.data(), {2, 2})
                     .Ret(out.data(), {2, 2})
                     .Ret(w.data(), {1})
                     .Ret(info.data(), {})
                     .Attr("uplo", Code('L'))
                     .Attr("mode", Code('V'))
                     .Build();
  EXPECT_THAT(CallTarget("lapack_dsyevd_ffi", short_w).message(),
              HasSubstr("result 1 (eigenvalues) has shape [1]; expected [2]"));
  // The complex target takes real eigenvalues: C64 there is a decode error.
  std::vector<std::complex<float>> cx(4), cout(4), cw(2);
  auto complex_w = testing::CallFrameBuilder()
                       .Arg(cx.data(), {2, 2})
                       .Ret(cout.data(), {2, 2})
                       .Ret(cw.data(), {2})
                       .Ret(info.data(), {})
                       .Attr("uplo", Code('L'))
                       .Attr("mode", Code('V'))
                       .Build();
  auto result = CallTarget("lapack_cheevd_ffi", complex_w);
  EXPECT_FALSE(result.ok());
  EXPECT_THAT(result.message(), HasSubstr("result 1"));
}

}  // namespace
}  // namespace xffi::lapack_test
