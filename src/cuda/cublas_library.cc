#include "cuda/cublas_library.h"

#include <cublas_api.h>

#include <limits>
#include <mutex>
#include <utility>

namespace xffi::cuda {

// Written out: cublas_api.h overloads cublasGemmStridedBatchedEx in C++, so
// decltype cannot name the C entry's type.
struct CublasLibrary::Symbols {
  cublasStatus_t (*create)(cublasHandle_t*) = nullptr;
  cublasStatus_t (*destroy)(cublasHandle_t) = nullptr;
  cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t) = nullptr;
  cublasStatus_t (*gemm_strided_batched_ex)(
      cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
      const void*, const void*, cudaDataType, int, long long int, const void*,
      cudaDataType, int, long long int, const void*, void*, cudaDataType, int,
      long long int, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
  const char* (*status_name)(cublasStatus_t) = nullptr;
};

namespace {

struct DataTypes {
  cudaDataType ab, c;
  cublasComputeType_t compute;
};

DataTypes TypesOf(const device::Gemm& gemm) {
  const bool f32_result = gemm.c_type == device::GemmType::kF32;
  switch (gemm.ab_type) {
    case device::GemmType::kF16:
      return {CUDA_R_16F, f32_result ? CUDA_R_32F : CUDA_R_16F,
              CUBLAS_COMPUTE_32F};
    case device::GemmType::kBF16:
      return {CUDA_R_16BF, f32_result ? CUDA_R_32F : CUDA_R_16BF,
              CUBLAS_COMPUTE_32F};
    case device::GemmType::kF32:
      return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F};
    case device::GemmType::kF64:
      return {CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F};
    case device::GemmType::kC64:
      return {CUDA_C_32F, CUDA_C_32F, CUBLAS_COMPUTE_32F};
    case device::GemmType::kC128:
      return {CUDA_C_64F, CUDA_C_64F, CUBLAS_COMPUTE_64F};
  }
  return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F};
}

}  // namespace

CublasGemmArgs ColumnMajorArgs(const device::Gemm& gemm) {
  CublasGemmArgs args;
  args.transpose_first = gemm.b.transposed;
  args.transpose_second = gemm.a.transposed;
  args.m = gemm.n;
  args.n = gemm.m;
  args.k = gemm.k;
  args.first = gemm.b.data;
  args.ld_first = gemm.b.ld;
  args.stride_first = gemm.b.batch_stride;
  args.second = gemm.a.data;
  args.ld_second = gemm.a.ld;
  args.stride_second = gemm.a.batch_stride;
  args.c = gemm.c;
  args.ldc = gemm.ldc;
  args.stride_c = gemm.c_batch_stride;
  args.batch = gemm.batch;
  return args;
}

std::vector<std::string> CublasLibrary::DefaultPaths() {
  return LoadedLibrary::ToolkitPaths(XFFI_CUBLAS_SONAME);
}

StatusOr<std::shared_ptr<const CublasLibrary>> CublasLibrary::Load(
    const std::vector<std::string>& paths) {
  StatusOr<std::unique_ptr<LoadedLibrary>> opened =
      LoadedLibrary::OpenFirst(paths, "cuBLAS");
  if (!opened.ok()) return opened.status();
  std::shared_ptr<CublasLibrary> loaded(new CublasLibrary());
  loaded->library_ = std::move(*opened);
  loaded->symbols_ = std::make_unique<Symbols>();
  Symbols& symbols = *loaded->symbols_;
  const LoadedLibrary& library = *loaded->library_;
  for (Status status :
       {library.Resolve(symbols.create, "cublasCreate_v2"),
        library.Resolve(symbols.destroy, "cublasDestroy_v2"),
        library.Resolve(symbols.set_stream, "cublasSetStream_v2"),
        library.Resolve(symbols.gemm_strided_batched_ex,
                        "cublasGemmStridedBatchedEx"),
        library.Resolve(symbols.status_name, "cublasGetStatusName")})
    if (!status.ok()) return status;
  return std::shared_ptr<const CublasLibrary>(std::move(loaded));
}

StatusOr<std::shared_ptr<const CublasLibrary>> CublasLibrary::Default() {
  static std::once_flag once;
  static StatusOr<std::shared_ptr<const CublasLibrary>>* loaded = nullptr;
  std::call_once(once, [] {
    loaded = new StatusOr<std::shared_ptr<const CublasLibrary>>(
        Load(DefaultPaths()));
  });
  return *loaded;
}

CublasLibrary::~CublasLibrary() = default;

const std::string& CublasLibrary::path() const { return library_->path(); }

namespace {

Status CublasFailure(const CublasLibrary& library,
                     const CublasLibrary::Symbols& symbols, const char* call,
                     cublasStatus_t status) {
  return Internal("cuBLAS (" + library.path() + "): " + call + " returned " +
                  std::to_string(static_cast<int>(status)) + " (" +
                  symbols.status_name(status) + ")");
}

}  // namespace

StatusOr<std::unique_ptr<CublasHandle>> CublasLibrary::CreateHandle(
    void* cuda_stream) const {
  cublasHandle_t handle = nullptr;
  cublasStatus_t status = symbols_->create(&handle);
  if (status != CUBLAS_STATUS_SUCCESS)
    return CublasFailure(*this, *symbols_, "cublasCreate", status);
  status = symbols_->set_stream(handle, static_cast<cudaStream_t>(cuda_stream));
  if (status != CUBLAS_STATUS_SUCCESS) {
    symbols_->destroy(handle);
    return CublasFailure(*this, *symbols_, "cublasSetStream", status);
  }
  return std::unique_ptr<CublasHandle>(
      new CublasHandle(shared_from_this(), handle));
}

CublasHandle::~CublasHandle() {
  library_->symbols_->destroy(static_cast<cublasHandle_t>(handle_));
}

Status CublasHandle::Multiply(const device::Gemm& gemm) {
  if (Status valid = device::ValidateGemm(gemm); !valid.ok()) return valid;
  if (gemm.m == 0 || gemm.n == 0 || gemm.batch == 0) return Status::Ok();
  const CublasGemmArgs args = ColumnMajorArgs(gemm);
  constexpr int64_t kIntMax = std::numeric_limits<int>::max();
  for (int64_t value : {args.m, args.n, args.k, args.ld_first, args.ld_second,
                        args.ldc, args.batch})
    if (value > kIntMax)
      return Unimplemented("cuBLAS: " + device::DescribeGemm(gemm) +
                           " has a size or leading dimension above 2^31-1");
  const DataTypes types = TypesOf(gemm);
  // alpha = 1 and beta = 0 in the compute type (complex: real part first).
  const float one_f[2] = {1, 0}, zero_f[2] = {0, 0};
  const double one_d[2] = {1, 0}, zero_d[2] = {0, 0};
  const bool wide = types.compute == CUBLAS_COMPUTE_64F;
  const void* alpha = wide ? static_cast<const void*>(one_d) : one_f;
  const void* beta = wide ? static_cast<const void*>(zero_d) : zero_f;
  // k == 0 reads no operand but cuBLAS still wants a valid leading
  // dimension.
  const int64_t ld_first = args.ld_first > 0 ? args.ld_first : 1;
  const int64_t ld_second = args.ld_second > 0 ? args.ld_second : 1;
  const CublasLibrary::Symbols& symbols = *library_->symbols_;
  cublasStatus_t status = symbols.gemm_strided_batched_ex(
      static_cast<cublasHandle_t>(handle_),
      args.transpose_first ? CUBLAS_OP_T : CUBLAS_OP_N,
      args.transpose_second ? CUBLAS_OP_T : CUBLAS_OP_N,
      static_cast<int>(args.m), static_cast<int>(args.n),
      static_cast<int>(args.k), alpha, args.first, types.ab,
      static_cast<int>(ld_first), args.stride_first, args.second, types.ab,
      static_cast<int>(ld_second), args.stride_second, beta, args.c, types.c,
      static_cast<int>(args.ldc), args.stride_c, static_cast<int>(args.batch),
      types.compute, CUBLAS_GEMM_DEFAULT);
  if (status != CUBLAS_STATUS_SUCCESS)
    return CublasFailure(*library_, symbols, "cublasGemmStridedBatchedEx",
                         status);
  return Status::Ok();
}

}  // namespace xffi::cuda
