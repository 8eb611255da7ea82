// cholesky: the factor L (a = L L^H, lower) or U (a = U^H U, upper) of each
// Hermitian positive definite matrix of a batch, from the triangle `lower`
// names, through LAPACK's potrf. What XLA:CPU returns around the factor is
// matched too: the other triangle is zero, and a matrix that is not positive
// definite comes back as NaN in every element (jax's CholeskyExpander
// semantics, checked against XLA in tests/python/test_linalg_ops.py).
#include <algorithm>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "cpu/lapack/routines.h"
#include "cpu/parallel.h"
#include "cpu/structural_kernels.h"
#include "cpu/widened_kernel.h"

namespace xffi::cpu {
namespace {

template <typename T>
T QuietNaN() {
  if constexpr (std::is_same_v<T, lapack::C64> ||
                std::is_same_v<T, lapack::C128>) {
    using R = typename T::value_type;
    return T(std::numeric_limits<R>::quiet_NaN(),
             std::numeric_limits<R>::quiet_NaN());
  } else {
    return std::numeric_limits<T>::quiet_NaN();
  }
}

template <typename T>
Kernel TypedCholesky(int64_t batch, int64_t n, bool lower) {
  return [=](const KernelArgs& args) -> Status {
    const T* in = static_cast<const T*>(args.operands[0].data);
    T* out = static_cast<T*>(args.results[0].data);
    const int64_t size = n * n;
    if (in != out) std::copy_n(in, batch * size, out);
    if (n == 0) return Status::Ok();
    // A row-major matrix is its transpose column-major, and the transpose
    // of a Hermitian matrix is its conjugate: potrf of the other triangle
    // on the column-major view leaves L (or U) in row-major order.
    const char uplo = lower ? 'U' : 'L';
    const lapack::Int order = static_cast<lapack::Int>(n);
    const double flops = static_cast<double>(n) * static_cast<double>(n) *
                         static_cast<double>(n) / 3;
    ParallelFor(args.pool, batch, flops * 0.5, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        T* a = out + b * size;
        lapack::Int info = 0;
        lapack::Routines<T>::potrf(&uplo, &order, a, &order, &info, 1);
        if (info != 0) {
          std::fill_n(a, size, QuietNaN<T>());
          continue;
        }
        for (int64_t i = 0; i < n; ++i) {
          // Row i's unreferenced part: right of the diagonal for lower,
          // left of it for upper.
          if (lower)
            std::fill(a + i * n + i + 1, a + (i + 1) * n, T(0));
          else
            std::fill(a + i * n, a + i * n + i, T(0));
        }
      }
    });
    return Status::Ok();
  };
}

}  // namespace

StatusOr<Kernel> MakeCholeskyKernel(const Instruction& instruction) {
  const Shape& shape = instruction.operand(0)->shape();
  const int64_t n = shape.dims().back();
  const int64_t batch = n == 0 ? 0 : shape.num_elements() / (n * n);
  const bool lower = instruction.lower;
  if (n > std::numeric_limits<lapack::Int>::max())
    return Unimplemented(
        "op " + instruction.Describe() +
        ": matrices with more than 2^31-1 rows are not supported on CPU "
        "(LAPACK takes 32-bit dimensions)");
  switch (shape.element_type()) {
    case ElementType::kF32:
      return TypedCholesky<float>(batch, n, lower);
    case ElementType::kF16:
    case ElementType::kBF16:
      return WidenedToF32(TypedCholesky<float>(batch, n, lower));
    case ElementType::kF64:
      return TypedCholesky<double>(batch, n, lower);
    case ElementType::kC64:
      return TypedCholesky<lapack::C64>(batch, n, lower);
    case ElementType::kC128:
      return TypedCholesky<lapack::C128>(batch, n, lower);
    default:
      return Unimplemented(
          "op " + instruction.Describe() + ": cholesky of " +
          std::string(ElementTypeName(shape.element_type())) +
          " is not supported on CPU (f16, bf16, f32, f64, c64, c128 are)");
  }
}

}  // namespace xffi::cpu
