// lapack_?gees_ffi (src/cpu/lapack/schur.cc): A = Z T Z^H with unitary Z,
// T (quasi-)upper triangular with the eigenvalues on its diagonal (blocks);
// mode 'N' leaves zero vectors; sort 'S' is UNIMPLEMENTED as in jaxlib.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lapack_test_util.h"

namespace xffi::lapack_test {
namespace {

using ::testing::HasSubstr;

template <typename T>
struct SchurOutputs {
  std::vector<T> t, z;
  std::vector<Real<T>> wr, wi;
  std::vector<T> w;
  std::vector<int32_t> selected, info;
  testing::InvokeResult status{Status::Ok(), nullptr};
};

template <typename T>
SchurOutputs<T> RunSchur(std::vector<T> x, int64_t batch, int64_t n, char mode,
                         char sort = 'N') {
  SchurOutputs<T> o;
  o.t.resize(x.size());
  o.z.assign(x.size(), T(5));
  o.wr.resize(batch * n);
  o.wi.resize(batch * n);
  o.w.resize(batch * n);
  o.selected.assign(batch, -1);
  o.info.assign(batch, -100);
  testing::CallFrameBuilder builder;
  builder.Arg(x.data(), {batch, n, n})
      .Ret(o.t.data(), {batch, n, n})
      .Ret(o.z.data(), {batch, n, n});
  if constexpr (kIsComplex<T>) {
    builder.Ret(o.w.data(), {batch, n});
  } else {
    builder.Ret(o.wr.data(), {batch, n}).Ret(o.wi.data(), {batch, n});
  }
  builder.Ret(o.selected.data(), {batch})
      .Ret(o.info.data(), {batch})
      .Attr("mode", Code(mode))
      .Attr("sort", Code(sort));
  auto frame = builder.Build();
  o.status = CallTarget(TargetName<T>("gees"), frame);
  return o;
}

template <typename T>
class SchurTest : public ::testing::Test {};
TYPED_TEST_SUITE(SchurTest, ElementTypes);

TYPED_TEST(SchurTest, DecomposesABatch) {
  using T = TypeParam;
  const int64_t n = 5, batch = 2;
  std::vector<Matrix<T>> as = {Random<T>(n, n, 31), Random<T>(n, n, 32)};
  SchurOutputs<T> o = RunSchur(Stack(as), batch, n, 'V');
  ASSERT_TRUE(o.status.ok()) << o.status.message();
  for (int64_t b = 0; b < batch; ++b) {
    EXPECT_EQ(o.info[b], 0);
    EXPECT_EQ(o.selected[b], 0);
    Matrix<T> t = Matrix<T>::From(o.t.data() + b * n * n, n, n);
    Matrix<T> z = Matrix<T>::From(o.z.data() + b * n * n, n, n);
    EXPECT_LT(RelativeError(Multiply(Multiply(z, t), Adjoint(z)), as[b]),
              Tolerance<T>() * 10);
    EXPECT_LT(RelativeError(Multiply(Adjoint(z), z), Identity<T>(n)),
              Tolerance<T>());
    for (int64_t j = 0; j < n; ++j) {
      // Below the first subdiagonal T is zero; complex T is triangular.
      for (int64_t i = j + 2; i < n; ++i) EXPECT_EQ(t(i, j), T(0));
      if (kIsComplex<T> && j + 1 < n) {
        EXPECT_EQ(t(j + 1, j), T(0));
      }
    }
    if constexpr (kIsComplex<T>) {
      for (int64_t j = 0; j < n; ++j) EXPECT_EQ(o.w[b * n + j], t(j, j));
    } else {
      for (int64_t j = 0; j < n; ++j) {
        const bool in_block = (j + 1 < n && t(j + 1, j) != T(0)) ||
                              (j > 0 && t(j, j - 1) != T(0));
        EXPECT_EQ(o.wi[b * n + j] != 0, in_block) << j;
        EXPECT_NEAR(o.wr[b * n + j], t(j, j), Tolerance<T>());
      }
    }
  }
}

TYPED_TEST(SchurTest, WithoutVectorsTheSchurFormStillComes) {
  using T = TypeParam;
  const int64_t n = 4;
  Matrix<T> a = Random<T>(n, n, 33);
  SchurOutputs<T> with = RunSchur(a.data, 1, n, 'V');
  SchurOutputs<T> without = RunSchur(a.data, 1, n, 'N');
  ASSERT_TRUE(without.status.ok()) << without.status.message();
  EXPECT_EQ(without.info[0], 0);
  for (const T& v : without.z) EXPECT_EQ(v, T(0));
  // The eigenvalues do not depend on the vectors.
  for (int64_t j = 0; j < n; ++j) {
    if constexpr (kIsComplex<T>) {
      EXPECT_LT(std::abs(with.w[j] - without.w[j]), Tolerance<T>() * 10);
    } else {
      EXPECT_NEAR(with.wr[j], without.wr[j], Tolerance<T>() * 10);
    }
  }
}

TEST(SchurErrors, SortingIsUnimplementedAsInJaxlib) {
  SchurOutputs<double> o =
      RunSchur<double>(std::vector<double>(4, 1.0), 1, 2, 'V', 'S');
  EXPECT_EQ(o.status.code(), XLA_FFI_Error_Code_UNIMPLEMENTED);
  EXPECT_THAT(o.status.message(), HasSubstr("lapack_dgees_ffi: sort 'S'"));
  SchurOutputs<double> bad =
      RunSchur<double>(std::vector<double>(4, 1.0), 1, 2, 'X');
  EXPECT_THAT(bad.status.message(), HasSubstr("attribute 'mode' is 88"));
}

}  // namespace
}  // namespace xffi::lapack_test
