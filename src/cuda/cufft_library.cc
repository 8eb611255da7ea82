#include "cuda/cufft_library.h"

#include <cufft.h>

#include <limits>
#include <mutex>
#include <utility>

namespace xffi::cuda {

struct CufftLibrary::Symbols {
  decltype(&cufftCreate) create = nullptr;
  decltype(&cufftPlanMany) plan_many = nullptr;
  decltype(&cufftSetStream) set_stream = nullptr;
  decltype(&cufftDestroy) destroy = nullptr;
  decltype(&cufftExecC2C) exec_c2c = nullptr;
  decltype(&cufftExecZ2Z) exec_z2z = nullptr;
  decltype(&cufftExecR2C) exec_r2c = nullptr;
  decltype(&cufftExecD2Z) exec_d2z = nullptr;
  decltype(&cufftExecC2R) exec_c2r = nullptr;
  decltype(&cufftExecZ2D) exec_z2d = nullptr;
};

const char* CufftResultName(int result) {
  switch (result) {
    case CUFFT_SUCCESS:
      return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN:
      return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED:
      return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE:
      return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE:
      return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR:
      return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED:
      return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED:
      return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE:
      return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA:
      return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE:
      return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE:
      return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED:
      return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED:
      return "CUFFT_NOT_SUPPORTED";
    case CUFFT_MISSING_DEPENDENCY:
      return "CUFFT_MISSING_DEPENDENCY";
    case CUFFT_NVRTC_FAILURE:
      return "CUFFT_NVRTC_FAILURE";
    case CUFFT_NVJITLINK_FAILURE:
      return "CUFFT_NVJITLINK_FAILURE";
    case CUFFT_NVSHMEM_FAILURE:
      return "CUFFT_NVSHMEM_FAILURE";
  }
  return "unknown cufftResult";
}

std::vector<std::string> CufftLibrary::DefaultPaths() {
  return LoadedLibrary::ToolkitPaths(XFFI_CUFFT_SONAME);
}

StatusOr<std::shared_ptr<const CufftLibrary>> CufftLibrary::Load(
    const std::vector<std::string>& paths) {
  StatusOr<std::unique_ptr<LoadedLibrary>> opened =
      LoadedLibrary::OpenFirst(paths, "cuFFT");
  if (!opened.ok()) return opened.status();
  std::shared_ptr<CufftLibrary> loaded(new CufftLibrary());
  loaded->library_ = std::move(*opened);
  loaded->symbols_ = std::make_unique<Symbols>();
  Symbols& symbols = *loaded->symbols_;
  const LoadedLibrary& library = *loaded->library_;
  for (Status status : {library.Resolve(symbols.create, "cufftCreate"),
                        library.Resolve(symbols.plan_many, "cufftPlanMany"),
                        library.Resolve(symbols.set_stream, "cufftSetStream"),
                        library.Resolve(symbols.destroy, "cufftDestroy"),
                        library.Resolve(symbols.exec_c2c, "cufftExecC2C"),
                        library.Resolve(symbols.exec_z2z, "cufftExecZ2Z"),
                        library.Resolve(symbols.exec_r2c, "cufftExecR2C"),
                        library.Resolve(symbols.exec_d2z, "cufftExecD2Z"),
                        library.Resolve(symbols.exec_c2r, "cufftExecC2R"),
                        library.Resolve(symbols.exec_z2d, "cufftExecZ2D")})
    if (!status.ok()) return status;
  return std::shared_ptr<const CufftLibrary>(std::move(loaded));
}

StatusOr<std::shared_ptr<const CufftLibrary>> CufftLibrary::Default() {
  static std::once_flag once;
  static StatusOr<std::shared_ptr<const CufftLibrary>>* loaded = nullptr;
  std::call_once(once, [] {
    loaded =
        new StatusOr<std::shared_ptr<const CufftLibrary>>(Load(DefaultPaths()));
  });
  return *loaded;
}

CufftLibrary::~CufftLibrary() = default;

const std::string& CufftLibrary::path() const { return library_->path(); }

std::unique_ptr<CufftPlans> CufftLibrary::PlansFor(void* cuda_stream) const {
  return std::unique_ptr<CufftPlans>(
      new CufftPlans(shared_from_this(), cuda_stream));
}

CufftPlans::~CufftPlans() {
  for (const auto& [key, plan] : plans_) library_->symbols_->destroy(plan);
}

namespace {

cufftType TypeOf(const device::Fft& fft) {
  switch (fft.kind) {
    case device::FftKind::kForward:
    case device::FftKind::kInverse:
      return fft.double_precision ? CUFFT_Z2Z : CUFFT_C2C;
    case device::FftKind::kRealToComplex:
      return fft.double_precision ? CUFFT_D2Z : CUFFT_R2C;
    case device::FftKind::kComplexToReal:
      return fft.double_precision ? CUFFT_Z2D : CUFFT_C2R;
  }
  return CUFFT_C2C;
}

}  // namespace

Status CufftPlans::Execute(const device::Fft& fft) {
  if (Status valid = device::ValidateFft(fft); !valid.ok()) return valid;
  if (fft.batch == 0) return Status::Ok();
  const CufftLibrary::Symbols& symbols = *library_->symbols_;
  auto failure = [&](const char* call, cufftResult result) {
    return Internal("cuFFT (" + library_->path() + "): " + call + " returned " +
                    std::to_string(static_cast<int>(result)) + " (" +
                    CufftResultName(result) + ") for " +
                    device::DescribeFft(fft));
  };
  constexpr int64_t kIntMax = std::numeric_limits<int>::max();
  int lengths[3] = {1, 1, 1};
  for (int32_t d = 0; d < fft.rank; ++d) {
    if (fft.lengths[d] > kIntMax)
      return Unimplemented("cuFFT: " + device::DescribeFft(fft) +
                           " has a length above 2^31-1");
    lengths[d] = static_cast<int>(fft.lengths[d]);
  }
  if (fft.batch > kIntMax)
    return Unimplemented("cuFFT: " + device::DescribeFft(fft) +
                         " has a batch above 2^31-1");
  // Forward and inverse share a plan: the direction is the exec's.
  const device::FftKind planned = fft.kind == device::FftKind::kInverse
                                      ? device::FftKind::kForward
                                      : fft.kind;
  const Key key{static_cast<int>(planned),
                fft.double_precision,
                fft.rank,
                fft.lengths[0],
                fft.lengths[1],
                fft.lengths[2],
                fft.batch};
  auto found = plans_.find(key);
  if (found == plans_.end()) {
    cufftHandle plan = 0;
    cufftResult result = symbols.create(&plan);
    if (result != CUFFT_SUCCESS) return failure("cufftCreate", result);
    // Null embeddings: each batch member packed, one after another, as the
    // buffers of an XLA fft are.
    result = symbols.plan_many(&plan, fft.rank, lengths, nullptr, 1, 0, nullptr,
                               1, 0, TypeOf(fft), static_cast<int>(fft.batch));
    if (result != CUFFT_SUCCESS) {
      symbols.destroy(plan);
      return failure("cufftPlanMany", result);
    }
    result = symbols.set_stream(plan, static_cast<cudaStream_t>(stream_));
    if (result != CUFFT_SUCCESS) {
      symbols.destroy(plan);
      return failure("cufftSetStream", result);
    }
    found = plans_.emplace(key, plan).first;
  }
  const cufftHandle plan = found->second;
  void* in = const_cast<void*>(fft.in);
  cufftResult result = CUFFT_SUCCESS;
  const char* call = "";
  switch (fft.kind) {
    case device::FftKind::kForward:
    case device::FftKind::kInverse: {
      const int direction =
          fft.kind == device::FftKind::kForward ? CUFFT_FORWARD : CUFFT_INVERSE;
      if (fft.double_precision) {
        call = "cufftExecZ2Z";
        result = symbols.exec_z2z(plan, static_cast<cufftDoubleComplex*>(in),
                                  static_cast<cufftDoubleComplex*>(fft.out),
                                  direction);
      } else {
        call = "cufftExecC2C";
        result =
            symbols.exec_c2c(plan, static_cast<cufftComplex*>(in),
                             static_cast<cufftComplex*>(fft.out), direction);
      }
      break;
    }
    case device::FftKind::kRealToComplex:
      if (fft.double_precision) {
        call = "cufftExecD2Z";
        result = symbols.exec_d2z(plan, static_cast<cufftDoubleReal*>(in),
                                  static_cast<cufftDoubleComplex*>(fft.out));
      } else {
        call = "cufftExecR2C";
        result = symbols.exec_r2c(plan, static_cast<cufftReal*>(in),
                                  static_cast<cufftComplex*>(fft.out));
      }
      break;
    case device::FftKind::kComplexToReal:
      if (fft.double_precision) {
        call = "cufftExecZ2D";
        result = symbols.exec_z2d(plan, static_cast<cufftDoubleComplex*>(in),
                                  static_cast<cufftDoubleReal*>(fft.out));
      } else {
        call = "cufftExecC2R";
        result = symbols.exec_c2r(plan, static_cast<cufftComplex*>(in),
                                  static_cast<cufftReal*>(fft.out));
      }
      break;
  }
  if (result != CUFFT_SUCCESS) return failure(call, result);
  return Status::Ok();
}

}  // namespace xffi::cuda
