// xffi: a custom call as the CPU executor runs it.
//
// Everything that does not change between runs is settled when the thunk is
// built: the handler (typed FFI) or target (legacy) is looked up, and the
// call frame is laid out once with its attributes, dtypes and dimensions.
// A run only writes buffer addresses into the frame and calls. Tuple
// operands and results are flattened into their leaves, as XLA does: one
// FFI argument or result per leaf (a token leaf is a TOKEN buffer with no
// data); legacy targets get XLA's nested pointer tables.
#ifndef XFFI_SRC_CPU_CUSTOM_CALL_THUNK_H_
#define XFFI_SRC_CPU_CUSTOM_CALL_THUNK_H_

#include <memory>

#include "compiler/buffer_assignment.h"
#include "cpu/executor_thunk.h"
#include "xffi/runtime/context.h"
#include "xffi/runtime/platform.h"

namespace xffi::cpu {

// Typed FFI when api_version is 4 or the call carries FFI attributes;
// legacy (versions 0-3) otherwise. A missing handler or target is NOT_FOUND
// naming the target and the op's location. Handler stages instantiate,
// prepare and initialize run once, at the first run; execute every run,
// always with `context` (which must outlive the thunk).
StatusOr<std::unique_ptr<Thunk>> MakeCustomCallThunk(
    const Instruction& op, const compiler::InstructionBuffers& buffers,
    Platform platform, ExecutionContext* context);

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_CUSTOM_CALL_THUNK_H_
