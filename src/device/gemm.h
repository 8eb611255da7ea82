// xffi: a batched strided matrix product, the one BLAS call the Device seam
// carries (Stream::Gemm).
//
// Described row-major, as the program layer lays out buffers: CudaDevice
// turns it into cuBLAS's column-major cublasGemmStridedBatchedEx, SimDevice
// runs it on the host (host_gemm.h). Dot products whose operands can be
// viewed as such matrices (device_backend/dot_as_gemm.h) run through it.
#ifndef XFFI_SRC_DEVICE_GEMM_H_
#define XFFI_SRC_DEVICE_GEMM_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "xffi/runtime/status.h"

namespace xffi::device {

// The element types cuBLAS multiplies. Products of f16 and bf16 accumulate
// in f32 (and may store f32); the others in their own type.
enum class GemmType : int32_t { kF16, kBF16, kF32, kF64, kC64, kC128 };

size_t GemmTypeSize(GemmType type);
const char* GemmTypeName(GemmType type);

// One matrix of each batch member: `rows` x `cols` as the product uses it.
// Stored row-major with `ld` elements between rows; `transposed`: the
// memory holds the transpose (cols x rows, `ld` between its rows). Member b
// starts `batch_stride` elements after member b-1.
struct GemmMatrix {
  const void* data = nullptr;
  bool transposed = false;
  int64_t ld = 0;
  int64_t batch_stride = 0;
};

// For every b < batch: C[b] (m x n) = op(A[b]) (m x k) . op(B[b]) (k x n).
// Complex operands are not conjugated. C is never transposed.
struct Gemm {
  GemmType ab_type = GemmType::kF32;  // of A and B
  GemmType c_type = GemmType::kF32;
  int64_t m = 0, n = 0, k = 0, batch = 1;
  GemmMatrix a, b;
  void* c = nullptr;
  int64_t ldc = 0;
  int64_t c_batch_stride = 0;
};

// INVALID_ARGUMENT naming the field for a product no device may run: a type
// pair cuBLAS lacks, negative sizes, leading dimensions shorter than a row,
// null data with a non-empty result.
Status ValidateGemm(const Gemm& gemm);

// The bytes from `matrix.data` a product reads or writes, for `rows` x
// `cols` stored as described (0 when empty).
size_t GemmMatrixExtent(const GemmMatrix& matrix, int64_t rows, int64_t cols,
                        int64_t batch, size_t element_size);

// "f32 gemm 2x(3x4 . 4x5)", for messages.
std::string DescribeGemm(const Gemm& gemm);

}  // namespace xffi::device

#endif  // XFFI_SRC_DEVICE_GEMM_H_
