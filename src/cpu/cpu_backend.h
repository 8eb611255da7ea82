// xffi: the CPU backend, behind Compile for the Host platform.
#ifndef XFFI_SRC_CPU_CPU_BACKEND_H_
#define XFFI_SRC_CPU_CPU_BACKEND_H_

#include <memory>

#include "compiler/backend.h"
#include "cpu/executor.h"

namespace xffi::cpu {

struct CpuBackendOptions {
  // Makes the kernel of each op the executor does not run itself; empty:
  // cpu::MakeKernel. Tests substitute small kernel sets, benchmarks wrap
  // the real ones to time them.
  KernelFactory kernels;
};

class CpuBackend final : public compiler::Backend {
 public:
  explicit CpuBackend(CpuBackendOptions options = {});

  std::string_view name() const override { return "CPU"; }
  StatusOr<std::unique_ptr<Executable>> Compile(
      Module module, const CompileOptions& options) const override;

 private:
  CpuBackendOptions options_;
};

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_CPU_BACKEND_H_
