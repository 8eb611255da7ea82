// lapack_?trsm_ffi (src/cpu/lapack/triangular_solve.cc): every side, uplo,
// trans_x and diag on a batch, checked by multiplying back; bad attributes
// and shapes are errors naming them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lapack_test_util.h"

namespace xffi::lapack_test {
namespace {

using ::testing::HasSubstr;

// The triangle of `a` the routine reads, with a unit diagonal if asked.
template <typename T>
Matrix<T> Triangle(const Matrix<T>& a, char uplo, char diag) {
  Matrix<T> t(a.rows, a.cols);
  for (int64_t j = 0; j < a.cols; ++j) {
    for (int64_t i = 0; i < a.rows; ++i) {
      bool inside = uplo == 'L' ? i >= j : i <= j;
      if (inside) t(i, j) = a(i, j);
    }
    if (diag == 'U') t(j, j) = T(1);
  }
  return t;
}

template <typename T>
Matrix<T> Op(const Matrix<T>& a, char trans) {
  if (trans == 'N') return a;
  return trans == 'T' ? Transpose(a) : Adjoint(a);
}

template <typename T>
class TriangularSolveTest : public ::testing::Test {};
TYPED_TEST_SUITE(TriangularSolveTest, ElementTypes);

TYPED_TEST(TriangularSolveTest, SolvesEveryModeOnABatch) {
  using T = TypeParam;
  const int64_t m = 4, n = 3, batch = 2;
  for (char side : {'L', 'R'}) {
    const int64_t k = side == 'L' ? m : n;
    for (char uplo : {'L', 'U'}) {
      for (char trans : {'N', 'T', 'C'}) {
        for (char diag : {'N', 'U'}) {
          SCOPED_TRACE(std::string("side ") + side + " uplo " + uplo +
                       " trans " + trans + " diag " + diag);
          std::vector<Matrix<T>> as, bs;
          for (unsigned i = 0; i < batch; ++i) {
            Matrix<T> a = Random<T>(k, k, 10 + i);
            // A dominant diagonal keeps the triangle well conditioned.
            for (int64_t d = 0; d < k; ++d) a(d, d) += T(4);
            as.push_back(a);
            bs.push_back(Random<T>(m, n, 20 + i));
          }
          std::vector<T> x = Stack(as), y = Stack(bs);
          std::vector<T> out(y.size());
          auto frame = testing::CallFrameBuilder()
                           .Arg(x.data(), {batch, k, k})
                           .Arg(y.data(), {batch, m, n})
                           .Ret(out.data(), {batch, m, n})
                           .Attr("side", Code(side))
                           .Attr("uplo", Code(uplo))
                           .Attr("trans_x", Code(trans))
                           .Attr("diag", Code(diag))
                           .Build();
          auto result = CallTarget(TargetName<T>("trsm"), frame);
          ASSERT_TRUE(result.ok()) << result.message();
          for (int64_t i = 0; i < batch; ++i) {
            Matrix<T> z = Matrix<T>::From(out.data() + i * m * n, m, n);
            Matrix<T> op = Op(Triangle(as[i], uplo, diag), trans);
            Matrix<T> back = side == 'L' ? Multiply(op, z) : Multiply(z, op);
            EXPECT_LT(RelativeError(back, bs[i]), Tolerance<T>()) << i;
          }
        }
      }
    }
  }
}

TYPED_TEST(TriangularSolveTest, SolvesInPlaceWhenTheResultIsY) {
  // The lowering aliases y and the result; the executor may pass one buffer.
  using T = TypeParam;
  Matrix<T> a = Random<T>(3, 3, 1);
  for (int64_t d = 0; d < 3; ++d) a(d, d) += T(4);
  Matrix<T> b = Random<T>(3, 2, 2);
  std::vector<T> y = b.data;
  auto frame = testing::CallFrameBuilder()
                   .Arg(a.data.data(), {3, 3})
                   .Arg(y.data(), {3, 2})
                   .Ret(y.data(), {3, 2})
                   .Attr("side", Code('L'))
                   .Attr("uplo", Code('U'))
                   .Attr("trans_x", Code('N'))
                   .Attr("diag", Code('N'))
                   .Build();
  auto result = CallTarget(TargetName<T>("trsm"), frame);
  ASSERT_TRUE(result.ok()) << result.message();
  Matrix<T> z = Matrix<T>::From(y.data(), 3, 2);
  EXPECT_LT(RelativeError(Multiply(Triangle(a, 'U', 'N'), z), b),
            Tolerance<T>());
}

// The frame of a 2x2 left solve, with one thing to break.
struct Call {
  std::vector<int64_t> x_dims{2, 2}, y_dims{2, 2}, out_dims{2, 2};
  XLA_FFI_DataType x_type = XLA_FFI_DataType_F32;
  testing::AttrValue side = Code('L');
  char uplo = 'L', trans = 'N';
};

testing::InvokeResult RunSingle(const Call& c) {
  // Room for any of the shapes and element types used below.
  std::vector<double> x(16, 1.0), y(16, 1.0), out(16);
  auto frame = testing::CallFrameBuilder()
                   .Arg(x.data(), c.x_type, c.x_dims)
                   .Arg(y.data(), XLA_FFI_DataType_F32, c.y_dims)
                   .Ret(out.data(), XLA_FFI_DataType_F32, c.out_dims)
                   .Attr("side", c.side)
                   .Attr("uplo", Code(c.uplo))
                   .Attr("trans_x", Code(c.trans))
                   .Attr("diag", Code('N'))
                   .Build();
  return CallTarget("lapack_strsm_ffi", frame);
}

TEST(TriangularSolveErrors, NameTheAttributeOrArgument) {
  Call bad_side;
  bad_side.side = Code('X');
  auto result = RunSingle(bad_side);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(result.message(), HasSubstr("lapack_strsm_ffi"));
  EXPECT_THAT(result.message(), HasSubstr("attribute 'side' is 88"));

  Call bad_trans;
  bad_trans.trans = 'Q';
  EXPECT_THAT(RunSingle(bad_trans).message(), HasSubstr("'trans_x'"));

  Call vector_y;
  vector_y.y_dims = {2};
  EXPECT_THAT(RunSingle(vector_y).message(),
              HasSubstr("argument 1 (y) must be a matrix"));

  Call wrong_x;
  wrong_x.x_dims = {3, 3};
  EXPECT_THAT(RunSingle(wrong_x).message(),
              HasSubstr("argument 0 (x) has shape [3,3]; expected [2,2]"));

  Call wrong_out;
  wrong_out.out_dims = {2, 3};
  EXPECT_THAT(RunSingle(wrong_out).message(), HasSubstr("result 0"));
}

TEST(TriangularSolveErrors, WrongTypesAreDecodeErrorsNamingThem) {
  Call f64_x;
  f64_x.x_type = XLA_FFI_DataType_F64;
  auto result = RunSingle(f64_x);
  EXPECT_FALSE(result.ok());
  EXPECT_THAT(result.message(), HasSubstr("argument 0"));
  EXPECT_THAT(result.message(), HasSubstr("F32"));

  Call wide_side;
  wide_side.side = int64_t{'L'};
  result = RunSingle(wide_side);
  EXPECT_FALSE(result.ok());
  EXPECT_THAT(result.message(), HasSubstr("side"));
}

TEST(TriangularSolve, EmptyMatricesAreANoOp) {
  Call empty;
  empty.x_dims = {0, 0};
  empty.y_dims = empty.out_dims = {0, 3};
  auto result = RunSingle(empty);
  EXPECT_TRUE(result.ok()) << result.message();
}

}  // namespace
}  // namespace xffi::lapack_test
