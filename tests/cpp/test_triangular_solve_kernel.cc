// triangular-solve's CPU kernel: for every side, triangle, transpose and
// diagonal kind and every element type, the solution x multiplies back to
// b through op(a) built from a's referenced triangle alone (the other
// triangle and, with unit_diagonal, the diagonal hold garbage the kernel
// must not read). XLA's own values are compared in
// tests/python/test_linalg_ops.py.
#include <gtest/gtest.h>

#include <complex>
#include <vector>

#include "cpu/structural_kernels.h"
#include "kernel_test_util.h"
#include "linear_algebra_test_util.h"

namespace xffi::cpu {
namespace {

using namespace testing_util;  // NOLINT: the helpers of this test family

struct Form {
  bool left_side, lower, unit_diagonal;
  TriangularTranspose transpose;
};

template <typename T>
void CheckSolve(const Form& form) {
  const int64_t batch = 2, k = 4, other = 3;
  const int64_t rows = form.left_side ? k : other;
  const int64_t cols = form.left_side ? other : k;
  std::vector<T> a = RandomValues<T>(static_cast<size_t>(batch * k * k), 11);
  std::vector<T> b =
      RandomValues<T>(static_cast<size_t>(batch * rows * cols), 12);
  // The triangle the solve reads, as a matrix, per batch; a strong
  // diagonal keeps it well conditioned.
  std::vector<std::vector<Complex>> tri(batch);
  for (int64_t m = 0; m < batch; ++m) {
    tri[static_cast<size_t>(m)].assign(static_cast<size_t>(k * k), 0);
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < k; ++j) {
        T& v = a[static_cast<size_t>(m * k * k + i * k + j)];
        const bool in_triangle = form.lower ? j < i : j > i;
        if (i == j) {
          if (form.unit_diagonal) {
            v = FromComplex<T>(Complex(1e4, 0));  // must not be read
            tri[static_cast<size_t>(m)][static_cast<size_t>(i * k + j)] = 1;
          } else {
            v = FromComplex<T>(ToComplex(v) + Complex(4, 0));
            tri[static_cast<size_t>(m)][static_cast<size_t>(i * k + j)] =
                ToComplex(v);
          }
        } else if (in_triangle) {
          tri[static_cast<size_t>(m)][static_cast<size_t>(i * k + j)] =
              ToComplex(v);
        } else {
          v = FromComplex<T>(Complex(1e4, -1e4));  // must not be read
        }
      }
  }
  OpUnderTest t;
  Shape a_shape = Shape::Array(TypeOf<T>(), {batch, k, k});
  Shape b_shape = Shape::Array(TypeOf<T>(), {batch, rows, cols});
  Instruction* op = t.Op(Opcode::kTriangularSolve, b_shape,
                         {t.Param(a_shape), t.Param(b_shape)});
  op->left_side = form.left_side;
  op->lower = form.lower;
  op->unit_diagonal = form.unit_diagonal;
  op->transpose_a = form.transpose;
  Literal a_in = Literal::FromVector<T>({batch, k, k}, a);
  Literal b_in = Literal::FromVector<T>({batch, rows, cols}, b);
  std::vector<T> x = RunOne(*op, {&a_in, &b_in}).template ToVector<T>();
  ASSERT_EQ(x.size(), b.size());
  for (int64_t m = 0; m < batch; ++m) {
    std::vector<Complex> op_a = tri[static_cast<size_t>(m)];
    if (form.transpose != TriangularTranspose::kNoTranspose) {
      op_a = Adjoint(op_a, k, k);
      if (form.transpose == TriangularTranspose::kTranspose)
        for (Complex& z : op_a) z = std::conj(z);
    }
    std::vector<Complex> xm(static_cast<size_t>(rows * cols));
    for (int64_t i = 0; i < rows * cols; ++i)
      xm[static_cast<size_t>(i)] =
          ToComplex(x[static_cast<size_t>(m * rows * cols + i)]);
    std::vector<Complex> product = form.left_side
                                       ? Multiply(op_a, xm, k, k, cols)
                                       : Multiply(xm, op_a, rows, k, k);
    for (int64_t i = 0; i < rows * cols; ++i)
      EXPECT_LT(
          std::abs(product[static_cast<size_t>(i)] -
                   ToComplex(b[static_cast<size_t>(m * rows * cols + i)])),
          Tolerance<T>(k) * 4)
          << "left_side " << form.left_side << " lower " << form.lower
          << " unit " << form.unit_diagonal << " transpose "
          << TriangularTransposeName(form.transpose) << " batch " << m
          << " element " << i;
  }
}

template <typename T>
void CheckEveryForm() {
  for (bool left_side : {true, false})
    for (bool lower : {true, false})
      for (bool unit : {true, false})
        for (TriangularTranspose transpose :
             {TriangularTranspose::kNoTranspose,
              TriangularTranspose::kTranspose, TriangularTranspose::kAdjoint})
          CheckSolve<T>({left_side, lower, unit, transpose});
}

TEST(TriangularSolveKernel, F32) { CheckEveryForm<float>(); }
TEST(TriangularSolveKernel, F64) { CheckEveryForm<double>(); }
TEST(TriangularSolveKernel, C64) { CheckEveryForm<std::complex<float>>(); }
TEST(TriangularSolveKernel, C128) { CheckEveryForm<std::complex<double>>(); }

TEST(TriangularSolveKernel, HalfPrecisionComputesInF32AndRoundsOnce) {
  const std::vector<float> a = RandomValues<float>(2 * 4 * 4, 21);
  std::vector<float> diagonal_heavy = a;
  for (int m = 0; m < 2; ++m)
    for (int i = 0; i < 4; ++i) diagonal_heavy[m * 16 + i * 5] += 3;
  const std::vector<float> b = RandomValues<float>(2 * 4 * 3, 22);
  for (ElementType type : {ElementType::kF16, ElementType::kBF16})
    for (bool lower : {true, false})
      ExpectNarrowIsRoundedF32(
          type, {{2, 4, 4}, {2, 4, 3}}, {diagonal_heavy, b},
          [&](OpUnderTest& t, ElementType e) {
            Shape a_shape = Shape::Array(e, {2, 4, 4});
            Shape b_shape = Shape::Array(e, {2, 4, 3});
            Instruction* op = t.Op(Opcode::kTriangularSolve, b_shape,
                                   {t.Param(a_shape), t.Param(b_shape)});
            op->left_side = true;
            op->lower = lower;
            op->transpose_a = TriangularTranspose::kTranspose;
            return op;
          });
}

TEST(TriangularSolveKernel, EmptyRightHandSide) {
  OpUnderTest t;
  Shape a_shape = Shape::Array(ElementType::kF32, {3, 3});
  Shape b_shape = Shape::Array(ElementType::kF32, {3, 0});
  Instruction* op = t.Op(Opcode::kTriangularSolve, b_shape,
                         {t.Param(a_shape), t.Param(b_shape)});
  op->left_side = true;
  Literal a_in(a_shape), b_in(b_shape);
  EXPECT_TRUE(RunOne(*op, {&a_in, &b_in}).ToVector<float>().empty());
}

}  // namespace
}  // namespace xffi::cpu
