#include "xffi/runtime/platform.h"

#include <string>

namespace xffi {
namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) {
      return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

}  // namespace

std::string_view PlatformName(Platform platform) {
  switch (platform) {
    case Platform::kHost:
      return "Host";
    case Platform::kCuda:
      return "CUDA";
  }
  return "?";
}

StatusOr<Platform> ParsePlatform(std::string_view name) {
  if (EqualsIgnoreCase(name, "host") || EqualsIgnoreCase(name, "cpu")) {
    return Platform::kHost;
  }
  if (EqualsIgnoreCase(name, "cuda") || EqualsIgnoreCase(name, "gpu")) {
    return Platform::kCuda;
  }
  return InvalidArgument("unknown platform '" + std::string(name) +
                         "'; valid platforms are Host (or cpu) and CUDA (or "
                         "gpu), in any case");
}

}  // namespace xffi
