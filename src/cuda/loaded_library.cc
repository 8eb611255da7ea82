#include "cuda/loaded_library.h"

#include <dlfcn.h>

namespace xffi::cuda {

StatusOr<std::unique_ptr<LoadedLibrary>> LoadedLibrary::OpenFirst(
    const std::vector<std::string>& paths, const std::string& what) {
  std::string tried;
  for (const std::string& path : paths) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr)
      return std::unique_ptr<LoadedLibrary>(
          new LoadedLibrary(handle, path, what));
    const char* why = dlerror();
    tried += (tried.empty() ? "" : "; ") + path + ": " +
             (why != nullptr ? why : "dlopen failed");
  }
  return NotFound("cannot load " + what + ": tried " + tried);
}

std::vector<std::string> LoadedLibrary::ToolkitPaths(
    const std::string& soname) {
  std::vector<std::string> paths = {soname};
#ifdef XFFI_CUDA_LIBRARY_DIR
  paths.push_back(std::string(XFFI_CUDA_LIBRARY_DIR) + "/" + soname);
#endif
  return paths;
}

LoadedLibrary::~LoadedLibrary() { dlclose(handle_); }

void* LoadedLibrary::Find(const char* name) const {
  return dlsym(handle_, name);
}

}  // namespace xffi::cuda
