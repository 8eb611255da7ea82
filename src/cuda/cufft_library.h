// xffi: cuFFT, loaded with dlopen by the first stream that transforms
// (Stream::Fourier), never linked: most programs run no fft, and a process
// that loads libxffi_cuda should not pay cuFFT's start-up for them.
//
// As cublas_library.h: the library is opened by name when first needed, its
// entry points resolved, and a missing library or symbol is an error naming
// the paths tried. Plans are made per transform shape (kind, precision,
// lengths, batch) and kept by their stream, bound to it. The header names
// no CUDA or cuFFT type: tests include it without the toolkit's headers.
#ifndef XFFI_SRC_CUDA_CUFFT_LIBRARY_H_
#define XFFI_SRC_CUDA_CUFFT_LIBRARY_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "cuda/loaded_library.h"
#include "device/fft.h"

namespace xffi::cuda {

class CufftPlans;

class CufftLibrary : public std::enable_shared_from_this<CufftLibrary> {
 public:
  // Opens the first of `paths` dlopen finds and resolves cufftCreate,
  // cufftPlanMany, cufftSetStream, cufftDestroy and the six cufftExec
  // entries. NOT_FOUND names every path tried and dlopen's reason; a
  // library without a symbol is NOT_FOUND naming both.
  static StatusOr<std::shared_ptr<const CufftLibrary>> Load(
      const std::vector<std::string>& paths);
  // cuFFT's soname for this toolkit ("libcufft.so.12" for CUDA 13), then
  // the file in the toolkit's library directory this build was configured
  // with.
  static std::vector<std::string> DefaultPaths();
  // Loaded once per process, at the first call; a failure is returned to
  // every caller.
  static StatusOr<std::shared_ptr<const CufftLibrary>> Default();

  ~CufftLibrary();
  const std::string& path() const;

  // An empty plan cache for the stream `cuda_stream` (a cudaStream_t).
  std::unique_ptr<CufftPlans> PlansFor(void* cuda_stream) const;

  struct Symbols;

 private:
  CufftLibrary() = default;
  friend class CufftPlans;

  std::unique_ptr<LoadedLibrary> library_;
  std::unique_ptr<Symbols> symbols_;
};

// One stream's cuFFT plans, by transform shape; keeps its library loaded.
// Not thread-safe: a stream enqueues from one thread at a time.
class CufftPlans {
 public:
  ~CufftPlans();
  // Enqueues `fft` (validated) on the stream, making its plan on first use
  // (cufftCreate + cufftPlanMany + cufftSetStream). A failing call gives
  // "cuFFT (PATH): cufftPlanMany returned 5 (CUFFT_INTERNAL_ERROR) for c64
  // forward fft 2x[8]".
  Status Execute(const device::Fft& fft);
  size_t plan_count() const { return plans_.size(); }

 private:
  friend class CufftLibrary;
  CufftPlans(std::shared_ptr<const CufftLibrary> library, void* stream)
      : library_(std::move(library)), stream_(stream) {}

  using Key = std::tuple<int, bool, int, int64_t, int64_t, int64_t, int64_t>;
  std::shared_ptr<const CufftLibrary> library_;
  void* stream_;
  std::map<Key, int> plans_;  // cufftHandle by shape
};

// cuFFT's name for a cufftResult value ("CUFFT_INVALID_PLAN"), or
// "unknown cufftResult" (cuFFT has no such function of its own).
const char* CufftResultName(int result);

}  // namespace xffi::cuda

#endif  // XFFI_SRC_CUDA_CUFFT_LIBRARY_H_
