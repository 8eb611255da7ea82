// xffi: what every backend needs when it lowers a program the same way:
// buffer lists, which ops run nothing, and custom calls' frames and targets
// (so that the CPU and the device backend resolve and lay out a custom call
// identically; only the platform differs).
#ifndef XFFI_SRC_COMPILER_BACKEND_UTIL_H_
#define XFFI_SRC_COMPILER_BACKEND_UTIL_H_

#include <string>
#include <vector>

#include "compiler/buffer_assignment.h"
#include "xffi/program/ir.h"
#include "xffi/runtime/call_frame.h"
#include "xffi/runtime/legacy.h"
#include "xffi/runtime/platform.h"
#include "xffi/runtime/registry.h"

namespace xffi::compiler {

// The lists from `first` on, one after another.
std::vector<BufferId> FlattenBuffers(
    const std::vector<std::vector<BufferId>>& lists, size_t first = 0);

// Bytes of each leaf of `shape`.
std::vector<size_t> LeafByteSizes(const Shape& shape);

// Ops that run nothing: views of other buffers, and tokens.
bool RunsNothing(Opcode opcode);

// Shape equality without layouts (and without the copies WithoutLayout
// makes: executables call it on every Execute).
bool SameTypesAndDims(const Shape& a, const Shape& b);

// "custom call 'TARGET' at FILE:LINE:COLUMN", for messages.
std::string CustomCallSite(const Instruction& op);

// A custom call's operand_layouts or result_layouts flattened to their
// leaves' minor-to-major orders; empty when none were given.
std::vector<std::vector<int64_t>> CustomCallLeafOrders(
    const std::vector<Shape>& layouts);

// What a custom call calls: a typed handler (api_version 4, or FFI
// attributes), else a legacy target with the version the call site uses.
struct CustomCallTarget {
  const HandlerRecord* handler = nullptr;
  const LegacyTargetRecord* legacy = nullptr;
  LegacyApiVersion legacy_version = LegacyApiVersion::kUnspecified;
};

// NOT_FOUND naming the target, the op's location and the registered
// platforms; INVALID_ARGUMENT for an api_version outside 0-4;
// FAILED_PRECONDITION for a legacy version the target was not registered
// with.
StatusOr<CustomCallTarget> ResolveCustomCall(const Instruction& op,
                                             Platform platform);

// The typed call frame of `op`: one argument per operand leaf, one result
// per result leaf (tokens as TOKEN buffers), data pointers null until a run
// sets them, and the op's attributes.
CallFrame BuildCustomCallFrame(const Instruction& op);

// The legacy call frame of `op` for `platform`.
LegacyCallFrame BuildLegacyCallFrame(const Instruction& op, Platform platform);

}  // namespace xffi::compiler

#endif  // XFFI_SRC_COMPILER_BACKEND_UTIL_H_
