// xffi: a shared library opened with dlopen by name, as the CUDA backend
// opens cuBLAS and cuFFT only when a stream first needs them (never linked:
// see cublas_library.h for the cost).
#ifndef XFFI_SRC_CUDA_LOADED_LIBRARY_H_
#define XFFI_SRC_CUDA_LOADED_LIBRARY_H_

#include <memory>
#include <string>
#include <vector>

#include "xffi/runtime/status.h"

namespace xffi::cuda {

class LoadedLibrary {
 public:
  // The first of `paths` dlopen opens. NOT_FOUND names every path tried and
  // dlopen's reason: "cannot load cuFFT: tried P: why; Q: why".
  static StatusOr<std::unique_ptr<LoadedLibrary>> OpenFirst(
      const std::vector<std::string>& paths, const std::string& what);
  // `soname`, then the file of that name in the toolkit's library directory
  // this build was configured with.
  static std::vector<std::string> ToolkitPaths(const std::string& soname);

  ~LoadedLibrary();
  const std::string& path() const { return path_; }

  // Sets `entry` to the symbol `name`; NOT_FOUND "cuFFT library P has no
  // symbol NAME" without it.
  template <typename F>
  Status Resolve(F& entry, const char* name) const {
    void* symbol = Find(name);
    if (symbol == nullptr)
      return NotFound(what_ + " library " + path_ + " has no symbol " + name);
    entry = reinterpret_cast<F>(symbol);
    return Status::Ok();
  }

 private:
  LoadedLibrary(void* handle, std::string path, std::string what)
      : handle_(handle), path_(std::move(path)), what_(std::move(what)) {}
  void* Find(const char* name) const;

  void* handle_;
  std::string path_, what_;
};

}  // namespace xffi::cuda

#endif  // XFFI_SRC_CUDA_LOADED_LIBRARY_H_
