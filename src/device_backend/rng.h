// xffi: rng-bit-generator on the device backend (rng_kernel.h): THREE_FRY
// and PHILOX (DEFAULT runs PHILOX, as XLA:CPU does), any result width.
#ifndef XFFI_SRC_DEVICE_BACKEND_RNG_H_
#define XFFI_SRC_DEVICE_BACKEND_RNG_H_

#include <vector>

#include "device_backend/op_kernels.h"

namespace xffi::device_backend {

// `results`: the next state, then the bits.
StatusOr<Launcher> RngBitGeneratorLauncher(
    const Instruction& op, const std::vector<compiler::BufferId>& operands,
    const std::vector<compiler::BufferId>& results);

}  // namespace xffi::device_backend

#endif  // XFFI_SRC_DEVICE_BACKEND_RNG_H_
