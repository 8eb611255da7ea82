// lapack_?gesdd_ffi and lapack_?gesvd_ffi (src/cpu/lapack/svd.cc): every
// mode on tall, wide and batched inputs, checked as U diag(s) V^H = A with
// orthonormal U and V and descending s; mode 'O' and bad shapes are errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lapack_test_util.h"

namespace xffi::lapack_test {
namespace {

using ::testing::HasSubstr;

template <typename T>
struct SvdOutputs {
  std::vector<T> x_out, u, vt;
  std::vector<Real<T>> s;
  std::vector<int32_t> info;
  testing::InvokeResult status{Status::Ok(), nullptr};
};

template <typename T>
SvdOutputs<T> RunSvd(const char* routine, std::vector<T> x, int64_t batch,
                     int64_t m, int64_t n, char mode, bool full_shapes) {
  const int64_t k = std::min(m, n);
  const int64_t u_cols = full_shapes ? m : k, vt_rows = full_shapes ? n : k;
  SvdOutputs<T> o;
  o.x_out.resize(x.size());
  o.s.resize(batch * k);
  o.u.resize(batch * m * u_cols);
  o.vt.resize(batch * vt_rows * n);
  o.info.assign(batch, -100);
  auto frame = testing::CallFrameBuilder()
                   .Arg(x.data(), {batch, m, n})
                   .Ret(o.x_out.data(), {batch, m, n})
                   .Ret(o.s.data(), {batch, k})
                   .Ret(o.u.data(), {batch, m, u_cols})
                   .Ret(o.vt.data(), {batch, vt_rows, n})
                   .Ret(o.info.data(), {batch})
                   .Attr("mode", Code(mode))
                   .Build();
  o.status = CallTarget(TargetName<T>(routine), frame);
  return o;
}

template <typename T>
class SvdTest : public ::testing::Test {};
TYPED_TEST_SUITE(SvdTest, ElementTypes);

TYPED_TEST(SvdTest, EveryModeReconstructsTheInput) {
  using T = TypeParam;
  const int64_t batch = 2;
  for (const char* routine : {"gesdd", "gesvd"}) {
    for (auto [m, n] : {std::pair<int64_t, int64_t>{5, 3}, {3, 5}, {4, 4}}) {
      const int64_t k = std::min(m, n);
      std::vector<Matrix<T>> as = {Random<T>(m, n, 11), Random<T>(m, n, 12)};
      std::vector<T> x = Stack(as);
      std::vector<Real<T>> values_with_vectors;
      for (char mode : {'A', 'S', 'N'}) {
        SCOPED_TRACE(std::string(routine) + " " + std::to_string(m) + "x" +
                     std::to_string(n) + " mode " + mode);
        const bool full = mode == 'A';
        SvdOutputs<T> o = RunSvd(routine, x, batch, m, n, mode, full);
        ASSERT_TRUE(o.status.ok()) << o.status.message();
        for (int64_t b = 0; b < batch; ++b) {
          EXPECT_EQ(o.info[b], 0);
          const Real<T>* s = o.s.data() + b * k;
          for (int64_t i = 1; i < k; ++i) EXPECT_GE(s[i - 1], s[i]);
          if (mode == 'N') {
            for (int64_t i = 0; i < k; ++i) {
              EXPECT_NEAR(s[i], values_with_vectors[b * k + i],
                          Tolerance<T>() * (1 + s[0]));
            }
            continue;
          }
          const int64_t uc = full ? m : k, vr = full ? n : k;
          Matrix<T> u = Matrix<T>::From(o.u.data() + b * m * uc, m, uc);
          Matrix<T> vt = Matrix<T>::From(o.vt.data() + b * vr * n, vr, n);
          Matrix<T> us(m, k);
          for (int64_t j = 0; j < k; ++j)
            for (int64_t i = 0; i < m; ++i) us(i, j) = u(i, j) * T(s[j]);
          Matrix<T> vk(k, n);
          for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < k; ++i) vk(i, j) = vt(i, j);
          EXPECT_LT(RelativeError(Multiply(us, vk), as[b]), Tolerance<T>());
          EXPECT_LT(RelativeError(Multiply(Adjoint(u), u), Identity<T>(uc)),
                    Tolerance<T>());
          EXPECT_LT(RelativeError(Multiply(vt, Adjoint(vt)), Identity<T>(vr)),
                    Tolerance<T>());
        }
        if (mode == 'S') values_with_vectors = o.s;
      }
    }
  }
}

TYPED_TEST(SvdTest, ValuesOnlyAcceptsEitherShapeForUAndVt) {
  // JAX shapes the unused u and vt as full_matrices says.
  using T = TypeParam;
  const int64_t m = 3, n = 5;
  std::vector<T> x = Random<T>(m, n, 4).data;
  for (bool full : {true, false}) {
    SvdOutputs<T> o = RunSvd("gesdd", x, 1, m, n, 'N', full);
    EXPECT_TRUE(o.status.ok()) << o.status.message();
    EXPECT_EQ(o.info[0], 0);
  }
}

TEST(SvdErrors, OverwriteModeIsUnimplementedAsInJaxlib) {
  SvdOutputs<float> o =
      RunSvd<float>("gesdd", std::vector<float>(6, 1.0f), 1, 2, 3, 'O', false);
  EXPECT_EQ(o.status.code(), XLA_FFI_Error_Code_UNIMPLEMENTED);
  EXPECT_THAT(o.status.message(), HasSubstr("lapack_sgesdd_ffi: mode 'O'"));
}

TEST(SvdErrors, UOfTheWrongShapeIsRefused) {
  std::vector<double> x(6, 1.0), x_out(6), s(2), u(9), vt(9);
  std::vector<int32_t> info(1);
  auto frame = testing::CallFrameBuilder()
                   .Arg(x.data(), {2, 3})
                   .Ret(x_out.data(), {2, 3})
                   .Ret(s.data(), {2})
                   .Ret(u.data(), {3, 3})
                   .Ret(vt.data(), {3, 3})
                   .Ret(info.data(), {})
                   .Attr("mode", Code('A'))
                   .Build();
  EXPECT_THAT(CallTarget("lapack_dgesvd_ffi", frame).message(),
              HasSubstr("result 2 (u) has shape [3,3]; expected [2,2]"));
}

TEST(Svd, NanInputDoesNotCrash) {
  // LAPACK reports a NaN through info (gesdd: -4) or NaN results; either
  // way the call returns and JAX turns the results into NaN.
  std::vector<double> x = {1.0, NAN, 2.0, 3.0};
  SvdOutputs<double> o = RunSvd<double>("gesdd", x, 1, 2, 2, 'S', false);
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  EXPECT_TRUE(o.info[0] != 0 || std::isnan(o.s[0])) << o.info[0];
}

}  // namespace
}  // namespace xffi::lapack_test
