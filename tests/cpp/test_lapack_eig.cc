// lapack_?geev_ffi (src/cpu/lapack/eig.cc): A v = lambda v and
// u^H A = lambda u^H for every combination of left/right vectors, real
// matrices with complex pairs unpacked into complex vectors; non-finite
// input is info -4 with NaN results, as in jaxlib.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lapack_test_util.h"

namespace xffi::lapack_test {
namespace {

using ::testing::HasSubstr;

template <typename T>
using Complex = std::complex<Real<T>>;

template <typename T>
struct EigOutputs {
  std::vector<Complex<T>> values, left, right;
  std::vector<int32_t> info;
  testing::InvokeResult status{Status::Ok(), nullptr};
};

template <typename T>
EigOutputs<T> RunEig(std::vector<T> x, int64_t batch, int64_t n, char left,
                     char right) {
  EigOutputs<T> o;
  o.values.resize(batch * n);
  o.left.resize(batch * n * n);
  o.right.resize(batch * n * n);
  o.info.assign(batch, -100);
  testing::CallFrameBuilder builder;
  builder.Arg(x.data(), {batch, n, n});
  std::vector<Real<T>> wr(batch * n), wi(batch * n);
  if constexpr (kIsComplex<T>) {
    builder.Ret(o.values.data(), {batch, n});
  } else {
    builder.Ret(wr.data(), {batch, n}).Ret(wi.data(), {batch, n});
  }
  builder.Ret(o.left.data(), {batch, n, n})
      .Ret(o.right.data(), {batch, n, n})
      .Ret(o.info.data(), {batch})
      .Attr("compute_left", Code(left))
      .Attr("compute_right", Code(right));
  auto frame = builder.Build();
  o.status = CallTarget(TargetName<T>("geev"), frame);
  if constexpr (!kIsComplex<T>) {
    for (size_t i = 0; i < wr.size(); ++i) o.values[i] = {wr[i], wi[i]};
  }
  return o;
}

template <typename T>
Matrix<Complex<T>> AsComplex(const Matrix<T>& a) {
  Matrix<Complex<T>> c(a.rows, a.cols);
  for (size_t i = 0; i < a.data.size(); ++i) c.data[i] = Complex<T>(a.data[i]);
  return c;
}

template <typename T>
class EigTest : public ::testing::Test {};
TYPED_TEST_SUITE(EigTest, ElementTypes);

TYPED_TEST(EigTest, VectorsSatisfyTheirEquations) {
  using T = TypeParam;
  using C = Complex<T>;
  const int64_t n = 5, batch = 2;
  std::vector<Matrix<T>> as = {Random<T>(n, n, 21), Random<T>(n, n, 22)};
  if constexpr (!kIsComplex<T>) {
    // A rotation block guarantees a complex conjugate pair.
    as[0](0, 0) = 0;
    as[0](0, 1) = -3;
    as[0](1, 0) = 3;
    as[0](1, 1) = 0;
    for (int64_t i = 2; i < n; ++i) as[0](i, 0) = as[0](i, 1) = 0;
  }
  for (char left : {'N', 'V'}) {
    for (char right : {'N', 'V'}) {
      SCOPED_TRACE(std::string("left ") + left + " right " + right);
      EigOutputs<T> o = RunEig(Stack(as), batch, n, left, right);
      ASSERT_TRUE(o.status.ok()) << o.status.message();
      for (int64_t b = 0; b < batch; ++b) {
        ASSERT_EQ(o.info[b], 0);
        Matrix<C> a = AsComplex(as[b]);
        const C* w = o.values.data() + b * n;
        if (!kIsComplex<T> && b == 0) {
          int pairs = 0;
          for (int64_t i = 0; i < n; ++i) pairs += w[i].imag() != 0;
          EXPECT_GE(pairs, 2);
        }
        Matrix<C> vr = Matrix<C>::From(o.right.data() + b * n * n, n, n);
        Matrix<C> vl = Matrix<C>::From(o.left.data() + b * n * n, n, n);
        Matrix<C> rw(n, n), lw(n, n);
        for (int64_t j = 0; j < n; ++j) {
          for (int64_t i = 0; i < n; ++i) {
            rw(i, j) = vr(i, j) * w[j];
            lw(j, i) = w[j] * std::conj(vl(i, j));
          }
        }
        if (right == 'V') {
          EXPECT_LT(RelativeError(Multiply(a, vr), rw), Tolerance<T>() * 10);
        } else {
          EXPECT_EQ(RelativeError(vr, Matrix<C>(n, n)), 0.0);
        }
        if (left == 'V') {
          EXPECT_LT(RelativeError(Multiply(Adjoint(vl), a), lw),
                    Tolerance<T>() * 10);
        } else {
          EXPECT_EQ(RelativeError(vl, Matrix<C>(n, n)), 0.0);
        }
      }
    }
  }
}

TYPED_TEST(EigTest, NonFiniteInputIsInfoMinusFour) {
  using T = TypeParam;
  const int64_t n = 3;
  Matrix<T> good = Random<T>(n, n, 5), bad = good;
  bad(1, 2) = T(std::numeric_limits<Real<T>>::infinity());
  EigOutputs<T> o = RunEig(Stack<T>({bad, good}), 2, n, 'V', 'V');
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  EXPECT_EQ(o.info[0], -4);
  EXPECT_EQ(o.info[1], 0);
  EXPECT_TRUE(std::isnan(o.values[0].real()));
  EXPECT_TRUE(std::isnan(o.right[0].real()));
  EXPECT_FALSE(std::isnan(o.values[n].real()));
}

TEST(EigErrors, BadFlagsAndShapesAreRefused) {
  auto run = [](std::vector<int64_t> x_dims, char right) {
    std::vector<float> x(4, 1.0f), wr(2), wi(2);
    std::vector<std::complex<float>> vl(4), vr(4);
    std::vector<int32_t> info(1);
    auto frame = testing::CallFrameBuilder()
                     .Arg(x.data(), x_dims)
                     .Ret(wr.data(), {2})
                     .Ret(wi.data(), {2})
                     .Ret(vl.data(), {2, 2})
                     .Ret(vr.data(), {2, 2})
                     .Ret(info.data(), {})
                     .Attr("compute_left", Code('N'))
                     .Attr("compute_right", Code(right))
                     .Build();
    return CallTarget("lapack_sgeev_ffi", frame).message();
  };
  EXPECT_THAT(run({2, 2}, 'Y'), HasSubstr("attribute 'compute_right' is 89"));
  EXPECT_THAT(run({1, 4}, 'V'),
              HasSubstr("argument 0 (x) has shape [1,4]; expected [1,1]"));
}

}  // namespace
}  // namespace xffi::lapack_test
