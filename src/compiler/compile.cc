// Compile: the pipeline from a module to an Executable.
#include "compiler/compile_passes.h"
#include "compiler/compiler.h"
#include "compiler/verify.h"
#include "cpu/kernel.h"

namespace xffi {
namespace compiler {

StatusOr<std::unique_ptr<Executable>> CompileWithKernels(
    Module module, const CompileOptions& options, cpu::KernelFactory kernels) {
  Status verified = VerifyForCompile(module);
  if (!verified.ok()) return verified;
  Status passed = RunCompilePasses(module, options);
  if (!passed.ok()) return passed;
  return cpu::CreateExecutable(std::move(module), options, std::move(kernels));
}

}  // namespace compiler

StatusOr<std::unique_ptr<Executable>> Compile(Module module,
                                              const CompileOptions& options) {
  return compiler::CompileWithKernels(
      std::move(module), options,
      [](const Instruction& op) { return cpu::MakeKernel(op); });
}

}  // namespace xffi
