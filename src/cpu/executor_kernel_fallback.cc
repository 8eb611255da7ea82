// A stand-in for cpu::MakeKernel while the kernel library is not part of
// this build: every kernel op is UNIMPLEMENTED. It is a weak definition, so
// the real dispatcher (src/cpu/kernel.cc), once linked in, replaces it;
// delete this file then.
#include <string>

#include "cpu/kernel.h"

namespace xffi::cpu {

__attribute__((weak)) StatusOr<Kernel> MakeKernel(
    const Instruction& instruction) {
  return Unimplemented("op '" + instruction.name() + "' (" +
                       std::string(OpcodeName(instruction.opcode())) + ") at " +
                       instruction.location().ToString() +
                       " is not supported on CPU");
}

}  // namespace xffi::cpu
