// xffi: custom calls whose target asks for operand or result layouts other
// than the device executor's row-major one (operand_layouts /
// result_layouts, as JAX's linear-algebra targets give column-major ones).
//
// Buffer assignment gives each such leaf a scratch buffer in the target's
// layout (compiler::InstructionBuffers::temps); the target sees the scratch,
// operands are relaid into it before the call and results out of it after,
// each a strided copy on the call's stream (so in stream order with the
// work the target enqueues), as the CPU executor relays on the host.
#ifndef XFFI_SRC_DEVICE_BACKEND_CUSTOM_CALL_RELAYOUT_H_
#define XFFI_SRC_DEVICE_BACKEND_CUSTOM_CALL_RELAYOUT_H_

#include <optional>

#include "compiler/buffer_assignment.h"
#include "device_backend/op_kernels.h"
#include "xffi/program/ir.h"

namespace xffi::device_backend {

struct CustomCallRelayouts {
  // `op`'s buffers as the target sees them: the scratch in its layout
  // wherever it asked for one.
  compiler::InstructionBuffers target_view;
  Launcher before;  // operands into the target's layouts
  Launcher after;   // results back to row-major
};

// nullopt when every leaf is row-major already (no scratch was assigned).
std::optional<CustomCallRelayouts> PlanCustomCallRelayouts(
    const Instruction& op, const compiler::InstructionBuffers& buffers);

}  // namespace xffi::device_backend

#endif  // XFFI_SRC_DEVICE_BACKEND_CUSTOM_CALL_RELAYOUT_H_
