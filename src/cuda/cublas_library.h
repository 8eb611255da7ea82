// xffi: cuBLAS, loaded with dlopen by the first stream that multiplies
// matrices (Stream::MatrixMultiply), never linked.
//
// Linking cuBLAS costs every process that loads libxffi_cuda about 0.3 s and
// 200 MB at start (the relocations of cuBLASLt; ../shared notes), and most
// programs multiply nothing on the device. So the library is opened by name
// when first needed, its four entry points resolved, and a missing library
// or symbol is an error naming the paths tried. The header names no CUDA or
// cuBLAS type: tests and tools include it without the toolkit's headers.
#ifndef XFFI_SRC_CUDA_CUBLAS_LIBRARY_H_
#define XFFI_SRC_CUDA_CUBLAS_LIBRARY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cuda/loaded_library.h"
#include "device/gemm.h"

namespace xffi::cuda {

// A cublasGemmStridedBatchedEx call in cuBLAS's column-major terms. A
// row-major C = op(A) . op(B) is, read column-major, C^T = op(B)^T . op(A)^T:
// B's matrix goes first, the sizes m and n swap, and each operand is
// transposed for cuBLAS exactly when it is stored transposed.
struct CublasGemmArgs {
  bool transpose_first = false, transpose_second = false;
  int64_t m = 0, n = 0, k = 0;
  const void* first = nullptr;
  int64_t ld_first = 0, stride_first = 0;
  const void* second = nullptr;
  int64_t ld_second = 0, stride_second = 0;
  void* c = nullptr;
  int64_t ldc = 0, stride_c = 0;
  int64_t batch = 0;
};
CublasGemmArgs ColumnMajorArgs(const device::Gemm& gemm);

class CublasHandle;

class CublasLibrary : public std::enable_shared_from_this<CublasLibrary> {
 public:
  // Opens the first of `paths` dlopen finds and resolves cublasCreate_v2,
  // cublasDestroy_v2, cublasSetStream_v2, cublasGemmStridedBatchedEx and
  // cublasGetStatusName. NOT_FOUND names every path tried and dlopen's
  // reason; a library without a symbol is NOT_FOUND naming both.
  static StatusOr<std::shared_ptr<const CublasLibrary>> Load(
      const std::vector<std::string>& paths);
  // The toolkit's soname ("libcublas.so.13"), then the file in the
  // toolkit's library directory this build was configured with.
  static std::vector<std::string> DefaultPaths();
  // Loaded once per process, at the first call; a failure is returned to
  // every caller (the library does not appear while a process runs).
  static StatusOr<std::shared_ptr<const CublasLibrary>> Default();

  ~CublasLibrary();
  const std::string& path() const;

  // cublasCreate on the current CUDA device, then cublasSetStream to
  // `cuda_stream` (a cudaStream_t). Without a usable GPU cublasCreate
  // fails: "cuBLAS (PATH): cublasCreate returned 1
  // (CUBLAS_STATUS_NOT_INITIALIZED)".
  StatusOr<std::unique_ptr<CublasHandle>> CreateHandle(void* cuda_stream) const;

  struct Symbols;

 private:
  CublasLibrary() = default;
  friend class CublasHandle;

  std::unique_ptr<LoadedLibrary> library_;
  std::unique_ptr<Symbols> symbols_;
};

// A cuBLAS handle bound to one stream; keeps its library loaded.
class CublasHandle {
 public:
  ~CublasHandle();
  // Enqueues `gemm` (validated) on the handle's stream.
  Status Multiply(const device::Gemm& gemm);

 private:
  friend class CublasLibrary;
  CublasHandle(std::shared_ptr<const CublasLibrary> library, void* handle)
      : library_(std::move(library)), handle_(handle) {}

  std::shared_ptr<const CublasLibrary> library_;
  void* handle_;
};

}  // namespace xffi::cuda

#endif  // XFFI_SRC_CUDA_CUBLAS_LIBRARY_H_
