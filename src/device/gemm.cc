#include "device/gemm.h"

namespace xffi::device {

size_t GemmTypeSize(GemmType type) {
  switch (type) {
    case GemmType::kF16:
    case GemmType::kBF16:
      return 2;
    case GemmType::kF32:
      return 4;
    case GemmType::kF64:
    case GemmType::kC64:
      return 8;
    case GemmType::kC128:
      return 16;
  }
  return 0;
}

const char* GemmTypeName(GemmType type) {
  switch (type) {
    case GemmType::kF16:
      return "f16";
    case GemmType::kBF16:
      return "bf16";
    case GemmType::kF32:
      return "f32";
    case GemmType::kF64:
      return "f64";
    case GemmType::kC64:
      return "c64";
    case GemmType::kC128:
      return "c128";
  }
  return "?";
}

namespace {

Status CheckMatrix(const char* name, const GemmMatrix& matrix, int64_t rows,
                   int64_t cols, int64_t batch) {
  const int64_t stored_cols = matrix.transposed ? rows : cols;
  if (matrix.ld < (stored_cols > 1 ? stored_cols : 1))
    return InvalidArgument(std::string("gemm: ") + name +
                           "'s leading dimension " + std::to_string(matrix.ld) +
                           " is shorter than its " +
                           std::to_string(stored_cols) + "-element rows");
  if (batch > 1 && matrix.batch_stride < 0)
    return InvalidArgument(std::string("gemm: ") + name +
                           "'s batch stride is negative");
  if (matrix.data == nullptr && rows > 0 && cols > 0 && batch > 0)
    return InvalidArgument(std::string("gemm: ") + name + " is null");
  return Status::Ok();
}

}  // namespace

Status ValidateGemm(const Gemm& gemm) {
  const bool narrow =
      gemm.ab_type == GemmType::kF16 || gemm.ab_type == GemmType::kBF16;
  if (gemm.c_type != gemm.ab_type && !(narrow && gemm.c_type == GemmType::kF32))
    return InvalidArgument(std::string("gemm: ") + GemmTypeName(gemm.ab_type) +
                           " operands with a " + GemmTypeName(gemm.c_type) +
                           " result (only the operands' type, or f32 for f16 "
                           "and bf16)");
  if (gemm.m < 0 || gemm.n < 0 || gemm.k < 0 || gemm.batch < 0)
    return InvalidArgument("gemm: negative size in " + DescribeGemm(gemm));
  const bool empty = gemm.m == 0 || gemm.n == 0 || gemm.batch == 0;
  if (empty) return Status::Ok();
  if (Status a = CheckMatrix("A", gemm.a, gemm.m, gemm.k, gemm.batch); !a.ok())
    return a;
  if (Status b = CheckMatrix("B", gemm.b, gemm.k, gemm.n, gemm.batch); !b.ok())
    return b;
  GemmMatrix c;
  c.data = gemm.c;
  c.ld = gemm.ldc;
  c.batch_stride = gemm.c_batch_stride;
  return CheckMatrix("C", c, gemm.m, gemm.n, gemm.batch);
}

size_t GemmMatrixExtent(const GemmMatrix& matrix, int64_t rows, int64_t cols,
                        int64_t batch, size_t element_size) {
  if (rows <= 0 || cols <= 0 || batch <= 0) return 0;
  const int64_t stored_rows = matrix.transposed ? cols : rows;
  const int64_t stored_cols = matrix.transposed ? rows : cols;
  const int64_t last = (batch - 1) * matrix.batch_stride +
                       (stored_rows - 1) * matrix.ld + stored_cols - 1;
  return static_cast<size_t>(last + 1) * element_size;
}

std::string DescribeGemm(const Gemm& gemm) {
  return std::string(GemmTypeName(gemm.ab_type)) + " gemm " +
         std::to_string(gemm.batch) + "x(" + std::to_string(gemm.m) + "x" +
         std::to_string(gemm.k) + (gemm.a.transposed ? "^T" : "") + " . " +
         std::to_string(gemm.k) + "x" + std::to_string(gemm.n) +
         (gemm.b.transposed ? "^T" : "") + ")";
}

}  // namespace xffi::device
