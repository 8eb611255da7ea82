// lapack_?gtsv_ffi and tridiagonal_solve_perturbed_ffi
// (src/cpu/lapack/tridiagonal_solve.cc): T x = b on batches with several
// right-hand sides, dl[0] and du[m-1] ignored as JAX requires; a singular T
// is info > 0 for gtsv and a finite, tiny-residual answer for the perturbed
// solve; mixed dtypes and shapes are errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lapack_test_util.h"

namespace xffi::lapack_test {
namespace {

using ::testing::HasSubstr;

template <typename T>
struct System {
  std::vector<T> dl, d, du, b;
};

// Random diagonals (the diagonal made dominant unless `singular_shift`
// brings it down) and right-hand sides; dl[0] and du[m-1] hold 1e6, which a
// solver that read them would not survive.
template <typename T>
System<T> RandomSystem(int64_t batch, int64_t m, int64_t nrhs, unsigned seed,
                       bool dominant = true) {
  System<T> s;
  std::mt19937 gen(seed);
  for (int64_t i = 0; i < batch * m; ++i) {
    s.dl.push_back(RandomScalar<T>(gen));
    s.du.push_back(RandomScalar<T>(gen));
    s.d.push_back(RandomScalar<T>(gen) + T(dominant ? 4 : 0));
  }
  for (int64_t i = 0; i < batch; ++i) {
    s.dl[i * m] = T(1e6);
    s.du[i * m + m - 1] = T(1e6);
  }
  for (int64_t i = 0; i < batch * m * nrhs; ++i)
    s.b.push_back(RandomScalar<T>(gen));
  return s;
}

// T x for one system: (T x)_i = dl_i x_{i-1} + d_i x_i + du_i x_{i+1}.
template <typename T>
Matrix<T> Apply(const T* dl, const T* d, const T* du, const Matrix<T>& x) {
  const int64_t m = x.rows;
  Matrix<T> y(m, x.cols);
  for (int64_t j = 0; j < x.cols; ++j) {
    for (int64_t i = 0; i < m; ++i) {
      y(i, j) = d[i] * x(i, j);
      if (i > 0) y(i, j) += dl[i] * x(i - 1, j);
      if (i + 1 < m) y(i, j) += du[i] * x(i + 1, j);
    }
  }
  return y;
}

template <typename T>
class TridiagonalSolveTest : public ::testing::Test {};
TYPED_TEST_SUITE(TridiagonalSolveTest, ElementTypes);

TYPED_TEST(TridiagonalSolveTest, GtsvSolvesABatch) {
  using T = TypeParam;
  const int64_t batch = 2, m = 6, nrhs = 3;
  System<T> s = RandomSystem<T>(batch, m, nrhs, 51);
  System<T> out = s;  // the results alias the operands in place
  std::vector<int32_t> info(batch, -100);
  auto frame = testing::CallFrameBuilder()
                   .Arg(out.dl.data(), {batch, m})
                   .Arg(out.d.data(), {batch, m})
                   .Arg(out.du.data(), {batch, m})
                   .Arg(out.b.data(), {batch, m, nrhs})
                   .Ret(out.dl.data(), {batch, m})
                   .Ret(out.d.data(), {batch, m})
                   .Ret(out.du.data(), {batch, m})
                   .Ret(out.b.data(), {batch, m, nrhs})
                   .Ret(info.data(), {batch})
                   .Build();
  auto result = CallTarget(TargetName<T>("gtsv"), frame);
  ASSERT_TRUE(result.ok()) << result.message();
  for (int64_t i = 0; i < batch; ++i) {
    EXPECT_EQ(info[i], 0);
    Matrix<T> x = Matrix<T>::From(out.b.data() + i * m * nrhs, m, nrhs);
    Matrix<T> b = Matrix<T>::From(s.b.data() + i * m * nrhs, m, nrhs);
    EXPECT_LT(RelativeError(Apply(s.dl.data() + i * m, s.d.data() + i * m,
                                  s.du.data() + i * m, x),
                            b),
              Tolerance<T>());
  }
}

TYPED_TEST(TridiagonalSolveTest, GtsvReportsASingularSystem) {
  using T = TypeParam;
  const int64_t m = 3;
  // Row 1 of T is zero: the elimination meets an exact zero pivot.
  std::vector<T> dl = {T(0), T(0), T(1)}, d = {T(2), T(0), T(2)},
                 du = {T(1), T(0), T(0)}, b = {T(1), T(1), T(1)};
  std::vector<int32_t> info(1, -100);
  auto frame = testing::CallFrameBuilder()
                   .Arg(dl.data(), {m})
                   .Arg(d.data(), {m})
                   .Arg(du.data(), {m})
                   .Arg(b.data(), {m, 1})
                   .Ret(dl.data(), {m})
                   .Ret(d.data(), {m})
                   .Ret(du.data(), {m})
                   .Ret(b.data(), {m, 1})
                   .Ret(info.data(), {})
                   .Build();
  auto result = CallTarget(TargetName<T>("gtsv"), frame);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_GT(info[0], 0);
}

template <typename T>
testing::InvokeResult Perturbed(System<T>& s, std::vector<T>& x, int64_t batch,
                                int64_t m, int64_t nrhs) {
  x.assign(batch * m * nrhs, T(0));
  auto frame = testing::CallFrameBuilder()
                   .Arg(s.dl.data(), {batch, m})
                   .Arg(s.d.data(), {batch, m})
                   .Arg(s.du.data(), {batch, m})
                   .Arg(s.b.data(), {batch, m, nrhs})
                   .Ret(x.data(), {batch, m, nrhs})
                   .Build();
  return CallTarget("tridiagonal_solve_perturbed_ffi", frame);
}

TYPED_TEST(TridiagonalSolveTest, PerturbedSolvesNonsingularSystems) {
  using T = TypeParam;
  for (int64_t m : {1, 2, 7}) {
    SCOPED_TRACE("m = " + std::to_string(m));
    const int64_t batch = 2, nrhs = 2;
    // Not dominant: the elimination has to exchange rows.
    System<T> s = RandomSystem<T>(batch, m, nrhs, 60 + m, false);
    for (T& v : s.d) v += T(0.5);
    std::vector<T> x;
    auto result = Perturbed(s, x, batch, m, nrhs);
    ASSERT_TRUE(result.ok()) << result.message();
    for (int64_t i = 0; i < batch; ++i) {
      Matrix<T> xi = Matrix<T>::From(x.data() + i * m * nrhs, m, nrhs);
      Matrix<T> b = Matrix<T>::From(s.b.data() + i * m * nrhs, m, nrhs);
      EXPECT_LT(RelativeError(Apply(s.dl.data() + i * m, s.d.data() + i * m,
                                    s.du.data() + i * m, xi),
                              b),
                Tolerance<T>() * 10);
    }
  }
}

TYPED_TEST(TridiagonalSolveTest, PerturbedGivesAFiniteAnswerForSingularT) {
  // Inverse iteration: T = tridiag(1, 0, 1) of order 3 has eigenvalue 0
  // (exactly singular); for a b not orthogonal to the null vector
  // (1, 0, -1) the answer is finite and dominated by it.
  using T = TypeParam;
  System<T> s;
  s.dl = {T(0), T(1), T(1)};
  s.d = {T(0), T(0), T(0)};
  s.du = {T(1), T(1), T(0)};
  s.b = {T(1), T(0), T(0)};
  std::vector<T> x;
  auto result = Perturbed(s, x, 1, 3, 1);
  ASSERT_TRUE(result.ok()) << result.message();
  for (const T& v : x) EXPECT_TRUE(std::isfinite(std::abs(v)));
  const double scale = std::abs(x[0]);
  EXPECT_GT(scale, 1e3);
  EXPECT_LT(std::abs(x[1]) / scale, 1e-3);
  EXPECT_LT(std::abs(x[0] + x[2]) / scale, 1e-3);
}

TEST(TridiagonalSolveErrors, MixedDtypesAndShapesAreRefused) {
  std::vector<float> dl(3), d(3), b(3), x(3);
  std::vector<double> du(3);
  auto mixed = testing::CallFrameBuilder()
                   .Arg(dl.data(), {3})
                   .Arg(d.data(), {3})
                   .Arg(du.data(), {3})
                   .Arg(b.data(), {3, 1})
                   .Ret(x.data(), {3, 1})
                   .Build();
  auto result = CallTarget("tridiagonal_solve_perturbed_ffi", mixed);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(result.message(),
              HasSubstr("tridiagonal_solve_perturbed_ffi: argument 2 (du) is "
                        "F64 but b is F32"));

  std::vector<int32_t> ints(3), int_x(3);
  auto integer = testing::CallFrameBuilder()
                     .Arg(ints.data(), {3})
                     .Arg(ints.data(), {3})
                     .Arg(ints.data(), {3})
                     .Arg(ints.data(), {3, 1})
                     .Ret(int_x.data(), {3, 1})
                     .Build();
  EXPECT_THAT(CallTarget("tridiagonal_solve_perturbed_ffi", integer).message(),
              HasSubstr("argument 3 (b) is S32; expected F32, F64, C64 or "
                        "C128"));

  std::vector<float> short_d(2);
  std::vector<int32_t> info(1);
  auto wrong = testing::CallFrameBuilder()
                   .Arg(dl.data(), {3})
                   .Arg(short_d.data(), {2})
                   .Arg(dl.data(), {3})
                   .Arg(b.data(), {3, 1})
                   .Ret(dl.data(), {3})
                   .Ret(short_d.data(), {2})
                   .Ret(dl.data(), {3})
                   .Ret(b.data(), {3, 1})
                   .Ret(info.data(), {})
                   .Build();
  EXPECT_THAT(CallTarget("lapack_sgtsv_ffi", wrong).message(),
              HasSubstr("argument 1 (d) has shape [2]; expected [3]"));
}

}  // namespace
}  // namespace xffi::lapack_test
