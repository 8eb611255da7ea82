// The CPU backend: buffer assignment and thunks per computation
// (cpu/executor.h), kernels from cpu::MakeKernel unless the options give
// others.
#include "cpu/cpu_backend.h"

#include <utility>

#include "xffi/program/builtin_targets.h"

namespace xffi::cpu {

CpuBackend::CpuBackend(CpuBackendOptions options)
    : options_(std::move(options)) {
  if (!options_.kernels)
    options_.kernels = [](const Instruction& op) { return MakeKernel(op); };
  // The backend is made before the compile passes run, and the batch
  // partitioning pass must already see the built-in targets as
  // batch-partitionable. A failure here is reported by the first Compile,
  // which registers them again (the outcome is kept).
  (void)RegisterBuiltinCpuTargets();
}

StatusOr<std::unique_ptr<Executable>> CpuBackend::Compile(
    Module module, const CompileOptions& options) const {
  return CreateExecutable(std::move(module), options, options_.kernels);
}

}  // namespace xffi::cpu
