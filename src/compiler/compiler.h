// xffi: the compile pipeline, with the kernel set as a parameter (tests
// substitute small kernel sets; Compile uses cpu::MakeKernel).
#ifndef XFFI_SRC_COMPILER_COMPILER_H_
#define XFFI_SRC_COMPILER_COMPILER_H_

#include <memory>

#include "cpu/executor.h"
#include "xffi/program/executable.h"

namespace xffi::compiler {

// VerifyForCompile, the passes (RunCompilePasses), then the CPU executor:
// buffer assignment and thunks per computation.
StatusOr<std::unique_ptr<Executable>> CompileWithKernels(
    Module module, const CompileOptions& options, cpu::KernelFactory kernels);

}  // namespace xffi::compiler

#endif  // XFFI_SRC_COMPILER_COMPILER_H_
