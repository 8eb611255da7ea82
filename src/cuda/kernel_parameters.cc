#include "cuda/kernel_parameters.h"

namespace xffi::cuda {
namespace {

std::string DriverText(int version) {
  return std::to_string(version / 1000) + "." +
         std::to_string(version % 1000 / 10);
}

}  // namespace

Status CheckKernelParameterSize(const std::string& kernel, size_t functor_size,
                                int driver_version, int compute_major,
                                int compute_minor) {
  if (functor_size <= kClassicKernelParameterBytes) return Status::Ok();
  const std::string what = "kernel '" + kernel + "' takes a " +
                           std::to_string(functor_size) + "-byte functor";
  if (functor_size > kLargeKernelParameterBytes)
    return FailedPrecondition(what + ", over the " +
                              std::to_string(kLargeKernelParameterBytes) +
                              " bytes of parameters CUDA allows a kernel");
  std::string short_of;
  if (driver_version < kLargeKernelParameterDriver)
    short_of = "a driver of CUDA " + DriverText(kLargeKernelParameterDriver) +
               " or newer (this one is CUDA " + DriverText(driver_version) +
               ")";
  if (compute_major < kLargeKernelParameterComputeMajor)
    short_of += std::string(short_of.empty() ? "" : " and ") +
                "a GPU of compute capability " +
                std::to_string(kLargeKernelParameterComputeMajor) +
                ".0 or newer (this one is " + std::to_string(compute_major) +
                "." + std::to_string(compute_minor) + ")";
  if (short_of.empty()) return Status::Ok();
  return FailedPrecondition(
      what + ", over the " + std::to_string(kClassicKernelParameterBytes) +
      " bytes of kernel parameters older setups allow: launching it needs " +
      short_of);
}

}  // namespace xffi::cuda
