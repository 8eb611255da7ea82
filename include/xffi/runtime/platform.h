// xffi: platforms, and the canonical spelling of their names.
#ifndef XFFI_RUNTIME_PLATFORM_H_
#define XFFI_RUNTIME_PLATFORM_H_

#include <optional>
#include <string_view>

#include "xffi/runtime/status.h"

namespace xffi {

enum class Platform {
  kHost,  // the CPU: "Host", "cpu" (any case)
  kCuda,  // NVIDIA GPUs: "CUDA", "cuda", "gpu" (any case)
};

// The canonical name: "Host" or "CUDA", as XLA's registries key them.
std::string_view PlatformName(Platform platform);

// Case-insensitive; an unknown name is an error that lists the valid ones.
StatusOr<Platform> ParsePlatform(std::string_view name);

}  // namespace xffi

#endif  // XFFI_RUNTIME_PLATFORM_H_
