// triangular-solve: x with op(a) x = b (left_side) or x op(a) = b, a
// triangular, for each matrix of a batch, through BLAS trsm. Only the
// triangle `lower` names is read, and its diagonal not at all with
// unit_diagonal, as in XLA.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "cpu/lapack/routines.h"
#include "cpu/parallel.h"
#include "cpu/structural_kernels.h"
#include "cpu/widened_kernel.h"

namespace xffi::cpu {
namespace {

struct SolvePlan {
  int64_t batch = 0;
  int64_t a_size = 0, b_size = 0;
  // The BLAS call on the column-major views of the row-major arrays.
  char side = 'L', uplo = 'L', transa = 'N', diag = 'N';
  lapack::Int m = 0, n = 0, lda = 1, ldb = 1;
};

template <typename T>
Kernel TypedSolve(SolvePlan plan) {
  return [plan](const KernelArgs& args) -> Status {
    const T* a = static_cast<const T*>(args.operands[0].data);
    const T* b = static_cast<const T*>(args.operands[1].data);
    T* x = static_cast<T*>(args.results[0].data);
    if (b != x) std::copy_n(b, plan.batch * plan.b_size, x);
    if (plan.m == 0 || plan.n == 0) return Status::Ok();
    const T one(1);
    const double k = static_cast<double>(plan.side == 'L' ? plan.m : plan.n);
    const double flops = k * static_cast<double>(plan.b_size);
    ParallelFor(args.pool, plan.batch, flops * 0.5,
                [&](int64_t begin, int64_t end) {
                  for (int64_t i = begin; i < end; ++i)
                    lapack::Routines<T>::trsm(
                        &plan.side, &plan.uplo, &plan.transa, &plan.diag,
                        &plan.m, &plan.n, &one, a + i * plan.a_size, &plan.lda,
                        x + i * plan.b_size, &plan.ldb, 1, 1, 1, 1);
                });
    return Status::Ok();
  };
}

}  // namespace

StatusOr<Kernel> MakeTriangularSolveKernel(const Instruction& instruction) {
  const Shape& a = instruction.operand(0)->shape();
  const Shape& b = instruction.operand(1)->shape();
  const int64_t k = a.dims().back();
  const int64_t rows = b.dims()[b.dims().size() - 2];
  const int64_t cols = b.dims().back();
  if (std::max({k, rows, cols}) > std::numeric_limits<lapack::Int>::max())
    return Unimplemented(
        "op " + instruction.Describe() +
        ": matrices with more than 2^31-1 rows or columns are not supported "
        "on CPU (BLAS takes 32-bit dimensions)");
  SolvePlan plan;
  plan.a_size = k * k;
  plan.b_size = rows * cols;
  plan.batch = plan.b_size == 0 ? 0 : b.num_elements() / plan.b_size;
  if (plan.a_size == 0) plan.batch = 0;
  // Row-major arrays are their transposes column-major: op(a) x = b is
  // x^T op(a)^T = b^T, so the side and the triangle swap, while
  // op(a)^T = op(a^T) keeps the transpose code (also for the adjoint).
  plan.side = instruction.left_side ? 'R' : 'L';
  plan.uplo = instruction.lower ? 'U' : 'L';
  switch (instruction.transpose_a) {
    case TriangularTranspose::kNoTranspose:
      plan.transa = 'N';
      break;
    case TriangularTranspose::kTranspose:
      plan.transa = 'T';
      break;
    case TriangularTranspose::kAdjoint:
      plan.transa = 'C';
      break;
  }
  plan.diag = instruction.unit_diagonal ? 'U' : 'N';
  plan.m = static_cast<lapack::Int>(cols);  // rows of b^T
  plan.n = static_cast<lapack::Int>(rows);
  plan.lda = static_cast<lapack::Int>(std::max<int64_t>(k, 1));
  plan.ldb = static_cast<lapack::Int>(std::max<int64_t>(cols, 1));
  switch (a.element_type()) {
    case ElementType::kF32:
      return TypedSolve<float>(plan);
    case ElementType::kF16:
    case ElementType::kBF16:
      return WidenedToF32(TypedSolve<float>(plan));
    case ElementType::kF64:
      return TypedSolve<double>(plan);
    case ElementType::kC64:
      return TypedSolve<lapack::C64>(plan);
    case ElementType::kC128:
      return TypedSolve<lapack::C128>(plan);
    default:
      return Unimplemented(
          "op " + instruction.Describe() + ": triangular-solve of " +
          std::string(ElementTypeName(a.element_type())) +
          " is not supported on CPU (f16, bf16, f32, f64, c64, c128 are)");
  }
}

}  // namespace xffi::cpu
